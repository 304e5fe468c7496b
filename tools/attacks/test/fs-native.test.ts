// Attacks on @zarr/store-fs's native whole-value reads (native/read-value.c:
// open, the /proc/self/fd confinement check, fstat, the reads and close in one
// thread-pool job). Each case runs in a child process under the watchdog and
// first checks that the addon is what served the reads.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attack, describeRun } from "../src/index.js";

const x64Linux = process.platform === "linux" && process.arch === "x64";

/** Imports, and a check that the addon serves this child's reads. */
const PRELUDE = `
const { FileSystemStore } = await import("@zarr/store-fs");
const { readFileSync } = await import("node:fs");
const text = (v) => new TextDecoder().decode(v);
const nativeLoaded = () => readFileSync("/proc/self/maps", "utf8").includes("read-value.node");
`;

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "zarr-attack-native-"));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "a"), { recursive: true });
  await mkdir(outside, { recursive: true });
  for (let i = 0; i < 8; i++) {
    await writeFile(join(root, "a", `k${i}`), `INSIDE${i}`.padEnd(64, "."));
    await writeFile(join(outside, `k${i}`), `OUTSIDE${i}`.padEnd(64, "!"));
  }
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe.skipIf(!x64Linux)("native whole-value reads under attack", () => {
  it("a directory on the path swapped for a link out of the root, in a tight loop: get and getInto never return outside bytes", async () => {
    const r = await attack(
      `${PRELUDE}
      const { spawn } = await import("node:child_process");
      const rootDir = ${JSON.stringify(root)};
      // The swapper: another process turning root/a into a link to outside and back.
      const swapper = spawn(process.execPath, ["-e", \`
        const fs = require("node:fs");
        const a = \${JSON.stringify(rootDir + "/a")};
        const real = a + ".real";
        const end = Date.now() + 2500;
        while (Date.now() < end) {
          try { fs.renameSync(a, real); } catch {}
          try { fs.symlinkSync(\${JSON.stringify(${JSON.stringify(outside)})}, a); } catch {}
          for (let i = 0; i < 200; i++);
          try { if (fs.lstatSync(a).isSymbolicLink()) fs.unlinkSync(a); } catch {}
          try { fs.renameSync(real, a); } catch {}
        }
      \`], { stdio: "ignore" });
      const exited = new Promise((resolve) => swapper.on("exit", resolve));
      const store = new FileSystemStore(rootDir);
      await store.get("a/k0");
      const counts = {};
      const count = (k) => { counts[k] = (counts[k] ?? 0) + 1; };
      const end = Date.now() + 2500;
      let i = 0;
      while (Date.now() < end) {
        const key = "a/k" + (i++ % 8);
        const into = new Uint8Array(64);
        const ops = [
          store.get(key).then((v) => v === undefined ? "undefined" : "get:" + text(v).slice(0, 7)),
          store.getInto(key, [into.subarray(32), into.subarray(0, 32)]).then((n) =>
            n === undefined ? "undefined" : "into:" + text(into.subarray(32, 39))),
        ];
        for (const o of await Promise.all(ops.map((p) => p.catch((e) => e.name)))) count(o);
      }
      await exited;
      return { counts, native: nativeLoaded() };
      `,
      { maxRssMiB: 400, timeoutMs: 30_000 },
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    const { counts, native } = r.value as { counts: Record<string, number>; native: boolean };
    console.log("native swap race outcomes", counts);
    expect(native).toBe(true);
    // Refusals, misses (mid-swap) and inside bytes only.
    expect(
      Object.keys(counts).filter((k) => !/^(StoreError|undefined|(get|into):INSIDE\d)$/.test(k)),
    ).toEqual([]);
    expect(Object.keys(counts).filter((k) => k.includes("INSIDE")).length).toBeGreaterThan(0);
  }, 40_000);

  it("files replaced by links, FIFOs, directories and other sizes while read: never outside bytes, never a hang, no descriptor left", async () => {
    const r = await attack(
      `${PRELUDE}
      const fs = await import("node:fs");
      const rootDir = ${JSON.stringify(root)};
      const outsideDir = ${JSON.stringify(outside)};
      const store = new FileSystemStore(rootDir);
      await store.get("a/k0");
      const fds = () => fs.readdirSync("/proc/self/fd").map((n) => { try { return n + ">" + fs.readlinkSync("/proc/self/fd/" + n); } catch { return n; } });
      const before = fds();
      const counts = {};
      const count = (k) => { counts[k] = (counts[k] ?? 0) + 1; };
      const end = Date.now() + 2000;
      let i = 0;
      const { execFileSync } = await import("node:child_process");
      while (Date.now() < end) {
        const k = i % 8;
        const p = rootDir + "/a/k" + k;
        fs.rmSync(p, { recursive: true, force: true });
        switch (i % 6) {
          case 0: fs.symlinkSync(outsideDir + "/k" + k, p); break;
          case 1: execFileSync("mkfifo", [p]); break;
          case 2: fs.mkdirSync(p); break;
          case 3: fs.writeFileSync(p, "INSIDE-big".padEnd(5 << 20, "#")); break;
          case 4: fs.writeFileSync(p, ""); break;
          default: fs.writeFileSync(p, "INSIDE" + k);
        }
        i++;
        const into = new Uint8Array(16);
        const ops = [
          store.get("a/k" + k).then((v) => v === undefined ? "undefined" : v.length === 0 ? "empty" : "get:" + text(v).slice(0, 6)),
          store.get("a/k" + k, undefined, { maxBytes: 1024 }).then((v) => v === undefined ? "undefined" : v.length === 0 ? "empty" : "max:" + text(v).slice(0, 6)),
          store.getInto("a/k" + k, [into]).then((n) => n === undefined ? "undefined" : n === 16 ? "into:" + text(into).slice(0, 6) : "size"),
        ];
        for (const o of await Promise.all(ops.map((p) => p.catch((e) => e.name)))) count(o);
      }
      const after = fds();
      // Descriptors of files under the test's directories (execFileSync keeps one on /dev/null).
      const leaked = after.filter((f) => !before.includes(f) && f.includes(${JSON.stringify(base)}));
      return { counts, leaked, native: nativeLoaded() };
      `,
      { maxRssMiB: 400, timeoutMs: 30_000 },
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    const { counts, leaked, native } = r.value as {
      counts: Record<string, number>;
      leaked: string[];
      native: boolean;
    };
    console.log("native replacement outcomes", counts);
    expect(native).toBe(true);
    expect(leaked).toEqual([]);
    expect(
      Object.keys(counts).filter(
        (k) =>
          !/^(StoreError|ValueTooLargeError|undefined|empty|size|(get|max|into):INSIDE)$/.test(k),
      ),
    ).toEqual([]);
  }, 40_000);

  describe.skipIf(process.platform !== "linux")("paths whose bytes are not valid UTF-8", () => {
    for (const native of ["1", "0"]) {
      it(`a link to a directory whose name decodes to the root's (U+FFFD) is refused by every read; a root that is not valid UTF-8 is refused when made (ZARR_FS_NATIVE=${native})`, async () => {
        const r = await attack(
          `${PRELUDE}
        const fs = await import("node:fs");
        const base = Buffer.from(${JSON.stringify(base)});
        const at = (...parts) => Buffer.concat([base, ...parts.map((p) => typeof p === "string" ? Buffer.from(p) : Buffer.from(p))]);
        // The root's name holds U+FFFD; a directory beside it holds the byte 0xFF.
        fs.mkdirSync(at("/r\uFFFD"));
        fs.mkdirSync(at("/r", [0xff], "/d"), { recursive: true });
        fs.writeFileSync(at("/r", [0xff], "/d/secret"), "OUTSIDE");
        fs.symlinkSync(at("/r", [0xff], "/d"), at("/r\uFFFD/d"));
        const store = new FileSystemStore(at("/r\uFFFD").toString());
        const outcomes = [];
        for (const read of [
          () => store.get("d/secret"),
          () => store.get("d/secret", { offset: 0, length: 3 }),
          () => store.getSize("d/secret"),
          () => store.getInto("d/secret", [new Uint8Array(7)]),
        ]) outcomes.push(await read().then((v) => "value:" + (v instanceof Uint8Array ? text(v) : v), (e) => e.name));
        // A root that is a link to the 0xFF directory: no string names it.
        fs.symlinkSync(at("/r", [0xff]), at("/linked-root"));
        let made;
        try { new FileSystemStore(at("/linked-root").toString()); made = "made"; } catch (e) { made = e.name; }
        return { outcomes, made };
        `,
          { maxRssMiB: 400, timeoutMs: 20_000 },
          { env: { ...process.env, ZARR_FS_NATIVE: native } },
        );
        expect(r.error, describeRun(r)).toBeUndefined();
        expect(r.value).toEqual({ outcomes: Array(4).fill("StoreError"), made: "StoreError" });
      });
    }
  });
});
