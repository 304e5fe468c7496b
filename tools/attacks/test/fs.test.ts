// Attacks on @zarr/store-fs through the directory it is given: symbolic links
// that point out of the root (absolute, relative, to the root's parent, chains,
// swapped in while writes run), FIFOs, devices, sockets and directories where
// values are expected. Each case runs in a child process under the watchdog
// (a FIFO read that blocks is a hang; /dev/zero read without bound is a bomb).
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attack, describeRun, runZarr } from "../src/index.js";

const LIMITS = { maxRssMiB: 400, timeoutMs: 20_000 };
const linux = process.platform === "linux";

/** Every path under `dir` with its contents (files) or kind, to compare before and after. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      const name = `${rel}${e.name}`;
      if (e.isDirectory()) {
        out[`${name}/`] = "dir";
        await walk(path, `${name}/`);
      } else if (e.isFile()) out[name] = await readFile(path, "utf8");
      else out[name] = e.isSymbolicLink() ? "link" : "other";
    }
  };
  await walk(dir, "");
  return out;
}

/** Code shared by the children: imports, and `outcome(promise)` as a comparable string. */
const PRELUDE = `
const fs = await import("node:fs/promises");
const { join } = await import("node:path");
const core = {
  ...(await import("@zarr/core")),
  ...(await import("@zarr/core/store")),
  ...(await import("@zarr/core/internal")),
};
const { FileSystemStore } = await import("@zarr/store-fs");
const text = (v) => new TextDecoder().decode(v);
const utf8 = (s) => new TextEncoder().encode(s);
const outcome = async (p) => {
  try {
    const v = await p;
    if (v instanceof Uint8Array) return "bytes:" + text(v).slice(0, 40);
    return v === undefined ? "undefined" : JSON.stringify(v);
  } catch (e) {
    return e.name + (e.path !== undefined ? "@" + e.path : "");
  }
};
const collect = async (it) => { const out = []; for await (const k of it) out.push(k); return out.sort(); };
`;

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "zarr-attack-fs-"));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(outside, "sub"), { recursive: true });
  await writeFile(join(outside, "secret"), "SECRET");
  await writeFile(join(outside, "sub", "secret"), "SUBSECRET");
  await mkdir(root, { recursive: true });
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe("FileSystemStore never reads, writes or erases outside its root through links", () => {
  it("linked directories (absolute, relative, to the root's parent, chains, nested): every operation refuses", async () => {
    await symlink(outside, join(root, "abs"));
    await symlink("../outside", join(root, "rel"));
    await symlink("..", join(root, "up"));
    await symlink("chain2", join(root, "chain"));
    await symlink(outside, join(root, "chain2"));
    await mkdir(join(root, "real"));
    await symlink("../../outside", join(root, "real", "deep"));
    await writeFile(join(root, "real", "mine"), "MINE");
    const before = await snapshot(outside);
    const r = await attack(
      `${PRELUDE}
      const store = new FileSystemStore(${JSON.stringify(root)});
      const results = {};
      for (const dir of ["abs", "rel", "up/outside", "chain", "real/deep"]) {
        const key = dir + "/secret";
        results[key] = {
          get: await outcome(store.get(key)),
          range: await outcome(store.get(key, { offset: 1, length: 3 })),
          suffix: await outcome(store.get(key, { suffix: 2 })),
          partial: await outcome(store.getPartialValues([{ key }]).then((v) => v[0])),
          size: await outcome(store.getSize(key)),
          set: await outcome(store.set(key, utf8("EVIL"))),
          setNew: await outcome(store.set(dir + "/sub/new", utf8("EVIL"))),
          setPartial: await outcome(store.setPartialValues([{ key, offset: 0, value: utf8("E") }])),
          erase: await outcome(store.erase(key)),
          eraseValues: await outcome(store.eraseValues([dir + "/sub/secret"])),
          list: await collect(store.listPrefix(dir + "/")),
          listDir: await store.listDir(dir + "/"),
        };
      }
      const listed = await collect(store.list());
      const top = await store.listDir("");
      // erasePrefix of a linked directory removes the link only; of the parent, everything inside.
      const erased = [];
      for (const p of ["abs/", "up/", "chain/", "real/deep/", "rel/sub/"]) erased.push(await outcome(store.erasePrefix(p)));
      erased.push(await outcome(store.erasePrefix("")));
      return { results, listed, top, erased, left: await fs.readdir(${JSON.stringify(root)}) };
      `,
      LIMITS,
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    const v = r.value as {
      results: Record<string, Record<string, unknown>>;
      listed: string[];
      top: unknown;
      erased: string[];
      left: string[];
    };
    for (const [key, got] of Object.entries(v.results)) {
      const dir = key.slice(0, -"/secret".length);
      const refused = `StoreError@${key}`;
      expect(got, key).toEqual({
        get: refused,
        range: refused,
        suffix: refused,
        partial: refused,
        size: refused,
        set: refused,
        setNew: `StoreError@${dir}/sub/new`,
        setPartial: refused,
        erase: refused,
        eraseValues: `StoreError@${dir}/sub/secret`,
        list: [],
        listDir: { keys: [], prefixes: [] },
      });
    }
    expect(v.listed).toEqual(["real/mine"]);
    expect(v.top).toEqual({ keys: [], prefixes: ["real"] });
    expect(v.erased).toEqual(
      ["undefined", "undefined", "undefined", "undefined", "StoreError@rel/sub/"].concat(
        "undefined",
      ),
    );
    expect(v.left).toEqual([]);
    expect(await snapshot(outside)).toEqual(before);
  });

  it("linked files at keys (/etc/passwd, ../outside, /dev/zero, /dev/urandom, chains): reads refuse; set and erase replace or remove the link, never its target", async () => {
    await symlink("/etc/passwd", join(root, "passwd"));
    await mkdir(join(root, "c"));
    await symlink("../../outside/secret", join(root, "c", "0"));
    await symlink("/dev/zero", join(root, "zero"));
    await symlink("/dev/urandom", join(root, "urandom"));
    await symlink("l2", join(root, "l1"));
    await symlink(join(outside, "secret"), join(root, "l2"));
    await mkdir(join(root, "realdir"));
    await writeFile(join(root, "realdir", "f"), "INSIDE");
    await symlink(join(root, "realdir"), join(root, "inside-link")); // even a link to inside the root
    await symlink("realdir/f", join(root, "inside-file-link"));
    const before = await snapshot(outside);
    const passwd = await readFile("/etc/passwd", "utf8");
    const r = await attack(
      `${PRELUDE}
      const store = core.resolveStore(new FileSystemStore(${JSON.stringify(root)}));
      const keys = ["passwd", "c/0", "zero", "urandom", "l1", "l2", "inside-link/f", "inside-file-link"];
      const reads = {};
      for (const key of keys) {
        reads[key] = [
          await outcome(store.get(key)),
          await outcome(store.get(key, { offset: 0, length: 1 << 20 })),
          await outcome(store.get(key, { suffix: 1 << 20 })),
          await outcome(store.getSize(key)),
          await outcome(store.has(key)),
        ];
      }
      const listed = await collect(store.list());
      await store.set("passwd", utf8("mine"));
      await store.set("zero", utf8("mine"));
      await store.erase("c/0");
      await store.eraseValues(["l1", "l2", "urandom"]);
      return { reads, listed, after: await outcome(store.get("passwd")), left: await collect(store.list()) };
      `,
      LIMITS,
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    const v = r.value as {
      reads: Record<string, string[]>;
      listed: string[];
      after: string;
      left: string[];
    };
    for (const [key, got] of Object.entries(v.reads)) {
      expect(got, key).toEqual(Array(5).fill(`StoreError@${key}`));
    }
    expect(v.listed).toEqual(["realdir/f"]);
    expect(v.after).toBe("bytes:mine");
    expect(v.left).toEqual(["passwd", "realdir/f", "zero"]);
    expect(await readFile("/etc/passwd", "utf8")).toBe(passwd);
    expect(await snapshot(outside)).toEqual(before);
    expect(r.peakRssMiB).toBeLessThan(200);
  });

  it("through core: a chunk directory or array replaced by a link is refused on read, write and erase", async () => {
    const r = await attack(
      `${PRELUDE}
      const rootDir = ${JSON.stringify(root)};
      const outsideDir = ${JSON.stringify(outside)};
      const store = new FileSystemStore(rootDir);
      const a = await core.createArray(store, "a", { shape: [4], dataType: "uint8", chunkShape: [2], fillValue: 0 });
      await a.set(null, new Uint8Array([1, 2, 3, 4]));
      // An attacker replaces the chunk directory by a link to a directory of theirs (or the victim's).
      await fs.mkdir(join(outsideDir, "c"));
      await fs.writeFile(join(outsideDir, "c", "0"), new Uint8Array([9, 9]));
      await fs.rm(join(rootDir, "a", "c"), { recursive: true });
      await fs.symlink(join(outsideDir, "c"), join(rootDir, "a", "c"));
      const b = await core.openArray(new FileSystemStore(rootDir), "a");
      const read = await outcome(b.get(null).then((x) => Array.from(x.data)));
      const write = await outcome(b.set(core.parseSelection("2:4"), new Uint8Array([7, 7])));
      const partial = await outcome(b.set(core.parseSelection("0"), 5));
      // A linked node is removed as a link.
      await fs.symlink(outsideDir, join(rootDir, "g"));
      const erased = await outcome(core.eraseNode(new FileSystemStore(rootDir), "g"));
      return { read, write, partial, erased, outside: await fs.readdir(outsideDir) };
      `,
      LIMITS,
    );
    expect(r.value, describeRun(r)).toEqual({
      read: "StoreError@a/c/0",
      write: "StoreError@a/c/1",
      partial: "StoreError@a/c/0",
      erased: "undefined",
      outside: ["c", "secret", "sub"],
    });
    expect(await readFile(join(outside, "c", "0"))).toEqual(Buffer.from([9, 9]));
    expect(await readdir(join(outside, "c"))).toEqual(["0"]);
  });

  it.skipIf(!linux)(
    "a link swapped in and out of a directory during a long write/erase loop never lets anything land outside",
    async () => {
      for (let i = 0; i < 20; i++) await writeFile(join(outside, `k${i}`), "OUTSIDE");
      const before = await snapshot(outside);
      const r = await attack(
        `${PRELUDE}
        const { spawn } = await import("node:child_process");
        const rootDir = ${JSON.stringify(root)};
        const outsideDir = ${JSON.stringify(outside)};
        // The swapper: another process turning root/a into a link to outside and back, as fast as it can.
        const swapper = spawn(process.execPath, ["-e", \`
          const fs = require("node:fs");
          const a = \${JSON.stringify(join(rootDir, "a"))};
          const real = a + ".real";
          const end = Date.now() + 2500;
          while (Date.now() < end) {
            try { fs.renameSync(a, real); } catch { try { fs.rmSync(real, { recursive: true, force: true }); } catch {} }
            try { fs.symlinkSync(\${JSON.stringify(outsideDir)}, a); } catch {}
            for (let i = 0; i < 200; i++);
            try { if (fs.lstatSync(a).isSymbolicLink()) fs.unlinkSync(a); } catch {}
            try { fs.renameSync(real, a); } catch {}
          }
        \`], { stdio: "ignore" });
        const exited = new Promise((resolve) => swapper.on("exit", resolve));
        const store = new FileSystemStore(rootDir);
        const counts = {};
        const count = (o) => { const k = o.startsWith("StoreError") ? "StoreError" : o; counts[k] = (counts[k] ?? 0) + 1; };
        const end = Date.now() + 2500;
        let i = 0;
        while (Date.now() < end) {
          const k = "a/k" + (i % 20);
          const ops = [
            store.set(k, utf8("EVIL")),
            store.set("a/sub/k" + (i % 7), utf8("EVIL")),
            store.erase("a/k" + ((i + 10) % 20)),
            store.eraseValues(["a/k" + ((i + 5) % 20)]),
            i % 10 === 0 ? store.erasePrefix("a/sub/") : Promise.resolve(),
            store.get(k),
          ];
          for (const o of await Promise.all(ops.map(outcome))) count(o);
          i++;
        }
        await exited;
        return counts;
        `,
        { maxRssMiB: 400, timeoutMs: 30_000 },
      );
      expect(r.error, describeRun(r)).toBeUndefined();
      const counts = r.value as Record<string, number>;
      console.log("swap race outcomes", counts);
      // Only refusals and in-root results: no other error, no bytes from outside.
      expect(
        Object.keys(counts).filter((k) => !/^(StoreError|undefined|bytes:EVIL)$/.test(k)),
      ).toEqual([]);
      expect(await snapshot(outside)).toEqual(before);
    },
    40_000,
  );
});

describe("FileSystemStore honours StoreOptions.maxBytes before reading", () => {
  it("a 2 GiB (sparse) file read with maxBytes of 1 MiB is a ValueTooLargeError (a StoreError) naming the key, without allocating", async () => {
    const r = await attack(
      `${PRELUDE}
      const rootDir = ${JSON.stringify(root)};
      const h = await fs.open(join(rootDir, "huge"), "w");
      await h.truncate(2 ** 31);
      await h.close();
      const store = new FileSystemStore(rootDir);
      const err = async (p) => { try { await p; return "no error"; } catch (e) { return e.name + ": " + e.message; } };
      return {
        whole: await err(store.get("huge", undefined, { maxBytes: 1 << 20 })),
        partial: await err(store.getPartialValues([{ key: "huge" }], { maxBytes: 1 << 20 })),
        suffix: await err(store.get("huge", { suffix: 2 ** 30 }, { maxBytes: 1 << 20 })),
        small: (await store.get("huge", { offset: 5, length: 16 }, { maxBytes: 1 << 20 })).length,
      };
      `,
      { maxRssMiB: 300, timeoutMs: 20_000 },
    );
    const refused = expect.stringMatching(
      /^ValueTooLargeError: get of key "huge" .*more than the 1048576/,
    );
    expect(r.value, describeRun(r)).toEqual({
      whole: refused,
      partial: refused,
      suffix: refused,
      small: 16,
    });
  });
});

describe.skipIf(!linux)(
  "FileSystemStore reads only regular files: FIFOs, devices, sockets, directories",
  () => {
    it("a FIFO, character devices (mknod), a socket and a directory at keys never block or read without bound", async () => {
      execFileSync("mkfifo", [join(root, "fifo")]);
      await mkdir(join(root, "dir", "x"), { recursive: true });
      let devices = true;
      try {
        execFileSync("mknod", [join(root, "zero"), "c", "1", "5"]);
        execFileSync("mknod", [join(root, "urandom"), "c", "1", "9"]);
      } catch {
        devices = false; // not root: only the links to /dev are tried (previous test)
      }
      const r = await attack(
        `${PRELUDE}
      const net = await import("node:net");
      const rootDir = ${JSON.stringify(root)};
      const server = net.createServer();
      await new Promise((resolve) => server.listen(join(rootDir, "sock"), resolve));
      const store = core.resolveStore(new FileSystemStore(rootDir));
      const keys = ["fifo", "sock", ${devices ? `"zero", "urandom", ` : ""}"dir"];
      const results = {};
      for (const key of keys) {
        results[key] = [
          await outcome(store.get(key)),
          await outcome(store.get(key, { offset: 0, length: 1 << 20 })),
          await outcome(store.get(key, { suffix: 10 })),
          await outcome(store.getSize(key)),
          await outcome(store.getPartialValues([{ key }]).then((v) => v[0])),
        ];
      }
      const listed = await collect(store.list());
      const top = await store.listDir("");
      server.close();
      return { results, listed, top };
      `,
        { maxRssMiB: 300, timeoutMs: 10_000 },
      );
      expect(r.error, describeRun(r)).toBeUndefined();
      const v = r.value as { results: Record<string, string[]>; listed: string[]; top: unknown };
      for (const [key, got] of Object.entries(v.results)) {
        const want = key === "dir" ? "undefined" : `StoreError@${key}`;
        expect(got, key).toEqual(Array(5).fill(want));
      }
      expect(v.listed).toEqual([]);
      expect(v.top).toEqual({ keys: [], prefixes: ["dir"] });
    });

    it("through core and `zarr get`: a chunk that is a FIFO or a link to /dev/urandom is a StoreError naming the chunk, at once", async () => {
      const r = await attack(
        `${PRELUDE}
      const store = new FileSystemStore(${JSON.stringify(root)});
      await core.createArray(store, "f", { shape: [4], dataType: "uint8", chunkShape: [4] });
      await core.createArray(store, "u", { shape: [4], dataType: "uint8", chunkShape: [4] });
      return "ok";
      `,
        LIMITS,
      );
      expect(r.value, describeRun(r)).toBe("ok");
      await mkdir(join(root, "f", "c"));
      execFileSync("mkfifo", [join(root, "f", "c", "0")]);
      await mkdir(join(root, "u", "c"));
      await symlink("/dev/urandom", join(root, "u", "c", "0"));
      const inCore = await attack(
        `${PRELUDE}
      const store = new FileSystemStore(${JSON.stringify(root)});
      const out = {};
      for (const name of ["f", "u"]) {
        const a = await core.openArray(store, name);
        out[name] = await outcome(a.get(null));
      }
      return out;
      `,
        { maxRssMiB: 300, timeoutMs: 10_000 },
      );
      expect(inCore.value, describeRun(inCore)).toEqual({
        f: "StoreError@f/c/0",
        u: "StoreError@u/c/0",
      });
      for (const name of ["f", "u"]) {
        const cli = await runZarr(["get", root, name, "--json"], {
          maxRssMiB: 300,
          timeoutMs: 10_000,
        });
        expect(cli.killed, describeRun(cli)).toBeUndefined();
        expect(cli.code, describeRun(cli)).not.toBe(0);
        expect(cli.stderr).toContain(`${name}/c/0`);
      }
    });
  },
);

describe("uncompressed chunks read straight into the output (getInto, one preadv per chunk)", () => {
  it.skipIf(!linux)(
    "chunk files replaced by a link to /dev/zero, a link out of the root, a FIFO, a 2 GiB sparse file or a directory: typed errors or the fill value, in bounded memory, never foreign bytes",
    async () => {
      await writeFile(join(outside, "chunk"), Buffer.alloc(128 * 128 * 8, 0x41));
      const r = await attack(
        `${PRELUDE}
      const { execFileSync } = await import("node:child_process");
      const rootDir = ${JSON.stringify(root)};
      const store = new FileSystemStore(rootDir);
      let calls = 0;
      const getInto = store.getInto.bind(store);
      store.getInto = (...args) => (calls++, getInto(...args));
      const a = await core.createArray(store, "a", { shape: [128, 768], dataType: "float64", chunkShape: [128, 128], fillValue: 7 });
      await a.set(null, new Float64Array(128 * 768).fill(1));
      const chunk = (c) => join(rootDir, "a", "c", "0", String(c));
      await fs.rm(chunk(0)); await fs.symlink("/dev/zero", chunk(0));
      await fs.rm(chunk(1)); await fs.symlink(${JSON.stringify(join(outside, "chunk"))}, chunk(1));
      await fs.rm(chunk(2)); execFileSync("mkfifo", [chunk(2)]);
      await fs.truncate(chunk(3), 2 ** 31);
      await fs.writeFile(chunk(3), "BBBB", { flag: "r+" }); // bytes a read would show
      await fs.rm(chunk(4)); await fs.mkdir(chunk(4));
      const read = async (c) => {
        try {
          const { data } = await a.get([core.slice(0, 128), core.slice(c * 128, (c + 1) * 128)]);
          const values = [...new Set(data)];
          return "values:" + values.join(",");
        } catch (e) {
          return e.name + (e.path !== undefined ? "@" + e.path : "");
        }
      };
      const out = [];
      for (let c = 0; c < 6; c++) out.push(await read(c));
      // The store alone: a value longer than the views is reported by its size, not read.
      const views = [new Uint8Array(64), new Uint8Array(64)];
      const big = await store.getInto("a/c/0/3", views);
      return { out, calls, big, untouched: views.every((v) => v.every((x) => x === 0)) };
      `,
        LIMITS,
      );
      expect(r.error, describeRun(r)).toBeUndefined();
      const v = r.value as { out: string[]; calls: number; big: number; untouched: boolean };
      expect(v.out).toEqual([
        "StoreError@a/c/0/0",
        "StoreError@a/c/0/1",
        "StoreError@a/c/0/2",
        "CodecError@a/c/0/3",
        "values:7",
        "values:1",
      ]);
      expect(v.calls).toBe(7); // every read of a whole chunk, and the direct call
      expect(v.big).toBe(2 ** 31);
      expect(v.untouched).toBe(true);
      expect(r.peakRssMiB).toBeLessThan(200);
    },
  );
});
