/**
 * Huge pages for large fresh arrays (src/memory/huge-pages.ts, native/huge-pages.c):
 * the advice reaches the kernel where it can (x86-64 Linux, transparent huge
 * pages in `madvise` or `always` mode), and nothing else changes anywhere:
 * values, errors, and processes that cannot or must not load the addon.
 * Checks in child processes use the built package (`pnpm build` first).
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { createArray, MemoryStore } from "../src/index.js";
import { adviseHugePages, HUGE_PAGE_MIN_BYTES } from "../src/memory/huge-pages.js";

const MiB = 1024 * 1024;
const packageRoot = fileURLToPath(new URL("..", import.meta.url));

/** Why huge pages cannot be observed here, or undefined when they can. */
function unsupported(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return `the addon is built for x86-64 Linux only (this is ${process.platform} ${process.arch})`;
  }
  const mode = "/sys/kernel/mm/transparent_hugepage/enabled";
  if (!existsSync(mode)) return `${mode} is missing: no transparent huge pages`;
  const selected = /\[(\w+)\]/.exec(readFileSync(mode, "utf8"))?.[1];
  if (selected !== "madvise" && selected !== "always") {
    return `transparent huge pages are "${selected}" here`;
  }
  return undefined;
}

/** Runs an ES module in a child Node process (built package); returns its stdout, trimmed. */
function child(
  source: string,
  options: { env?: Record<string, string>; flags?: string[]; cwd?: string } = {},
) {
  return execFileSync(
    process.execPath,
    [...(options.flags ?? []), "--input-type=module", "-e", source],
    {
      cwd: options.cwd ?? packageRoot,
      encoding: "utf8",
      env: { ...process.env, ...options.env },
      timeout: 30_000,
    },
  ).trim();
}

/** A child's script: huge pages (kB) gained by writing a fresh array read from core. */
const READ_AND_COUNT = `
import { readFileSync } from "node:fs";
import { createArray, MemoryStore } from "@zarr/core";
const hugeKiB = () => Number(/AnonHugePages:\\s+(\\d+)/.exec(readFileSync("/proc/self/smaps_rollup", "utf8"))[1]);
const store = new MemoryStore();
const a = await createArray(store, "", { shape: [4096, 4096], dataType: "float32", chunkShape: [512, 512], fillValue: 0 });
const value = new Float32Array(4096 * 4096);
for (let i = 0; i < value.length; i += 4099) value[i] = i;
await a.set(null, value);
const before = hugeKiB();
const { data } = await a.get(null);
let same = data.length === value.length;
for (let i = 0; i < value.length && same; i += 1) same = data[i] === value[i];
console.log(JSON.stringify({ gainedKiB: hugeKiB() - before, same }));
`;

describe("huge pages for large fresh arrays", () => {
  it("advises only ArrayBuffers of 4 MiB or more", () => {
    expect(HUGE_PAGE_MIN_BYTES).toBe(4 * MiB);
    expect(adviseHugePages(new ArrayBuffer(HUGE_PAGE_MIN_BYTES - 1))).toBe(false);
    expect(adviseHugePages(new ArrayBuffer(0))).toBe(false);
    expect(adviseHugePages(new SharedArrayBuffer(8 * MiB))).toBe(false);
  });

  const why = unsupported();
  it.skipIf(why !== undefined)(
    `backs a fresh 64 MiB array with huge pages once written${why ? ` (skipped: ${why})` : ""}`,
    () => {
      const buffer = new ArrayBuffer(64 * MiB);
      expect(adviseHugePages(buffer)).toBe(true);
    },
  );
  if (why !== undefined) console.log(`huge-pages.test: kernel checks skipped: ${why}`);

  it.skipIf(why !== undefined)(
    "a full read's output lands in huge pages and holds the values written",
    () => {
      const on = JSON.parse(child(READ_AND_COUNT));
      expect(on.same).toBe(true);
      // 64 MiB of output: at least half of it in 2 MiB pages (edges and the
      // kernel's own choices aside).
      expect(on.gainedKiB).toBeGreaterThanOrEqual(32 * 1024);
    },
  );

  // Without advice, a kernel in "madvise" mode backs the output with 4 KiB pages.
  const madviseMode =
    why === undefined &&
    /\[madvise\]/.test(readFileSync("/sys/kernel/mm/transparent_hugepage/enabled", "utf8"));

  it("ZARR_MADVISE_HUGEPAGE=0 turns the advice off, as NUMPY_MADVISE_HUGEPAGE=0 does NumPy's", () => {
    const off = JSON.parse(child(READ_AND_COUNT, { env: { ZARR_MADVISE_HUGEPAGE: "0" } }));
    expect(off.same).toBe(true);
    if (madviseMode) expect(off.gainedKiB).toBeLessThan(8 * 1024);
  });

  it("a process that may not load addons reads the same values, without advice", () => {
    // Node's permission model refuses addons unless --allow-addons is given.
    const major = Number(process.versions.node.split(".")[0]);
    const permission = major >= 22 ? "--permission" : "--experimental-permission";
    const flags = [permission, "--allow-fs-read=*", "--no-warnings"];
    const refused = JSON.parse(child(READ_AND_COUNT, { flags }));
    expect(refused.same).toBe(true);
    if (madviseMode) expect(refused.gainedKiB).toBeLessThan(8 * 1024);
    const out = child(
      `
import { createArray, MemoryStore } from "@zarr/core";
const a = await createArray(new MemoryStore(), "", { shape: [2048, 2048], dataType: "float64", chunkShape: [1024, 1024], fillValue: 7 });
await a.set([0, 0], 3);
const { data } = await a.get(null);
console.log(JSON.stringify({ first: data[0], second: data[1], last: data[data.length - 1], length: data.length }));
`,
      { flags },
    );
    expect(JSON.parse(out)).toEqual({ first: 3, second: 7, last: 7, length: 2048 * 2048 });
    if (why === undefined) {
      // The same process allowed addons takes the advice.
      const allowed = JSON.parse(child(READ_AND_COUNT, { flags: [...flags, "--allow-addons"] }));
      expect(allowed.gainedKiB).toBeGreaterThanOrEqual(32 * 1024);
    }
  });

  it("reads into advised memory give what was written, for every fixed-size type width", async () => {
    for (const dataType of ["uint8", "int16", "float32", "float64", "complex128"] as const) {
      const store = new MemoryStore();
      const shape = [1100, 1000];
      const a = await createArray(store, "", {
        shape,
        dataType,
        chunkShape: [300, 256],
        fillValue: 0,
      });
      const { data: zeros } = await a.get(null);
      expect(zeros.byteLength).toBeGreaterThanOrEqual(HUGE_PAGE_MIN_BYTES / 4);
      await a.set([500, 600], 1);
      const { data } = await a.get(null);
      const width = dataType === "complex128" ? 2 : 1;
      const at = (500 * 1000 + 600) * width;
      expect(Number(data[at])).toBe(1);
      let nonzero = 0;
      for (let i = 0; i < data.length; i++) if (Number(data[i]) !== 0) nonzero++;
      expect(nonzero).toBe(1);
    }
  });
  it("the switch reads 0, 00, false, off, no in any case and spacing as off; anything else leaves it on", () => {
    const probe = `
import { readFileSync } from "node:fs";
import { createArray, MemoryStore } from "@zarr/core";
const a = await createArray(new MemoryStore(), "", { shape: [1 << 20], dataType: "float64", chunkShape: [1 << 20], fillValue: 1 });
await a.get(null);
console.log(/huge-pages\\.node/.test(readFileSync("/proc/self/maps", "utf8")));
`;
    const loaded = (value: string) =>
      child(probe, { env: { ZARR_MADVISE_HUGEPAGE: value } }) === "true";
    for (const off of ["0", "00", " 0 ", "false", "OFF", "No"])
      expect(loaded(off), off).toBe(false);
    if (process.platform === "linux" && process.arch === "x64") {
      for (const on of ["", "1", "yes"]) expect(loaded(on), JSON.stringify(on)).toBe(true);
    }
  });

  /** An app reading an 8 MiB array through core, bundled with esbuild; prints whether any addon file is mapped. */
  const APP = `import { readFileSync } from "node:fs";
import { createArray, MemoryStore } from "@zarr/core";
const a = await createArray(new MemoryStore(), "", { shape: [1 << 20], dataType: "float64", chunkShape: [1 << 20], fillValue: 2 });
const { data } = await a.get(null);
console.log(JSON.stringify({ ok: data.every((x) => x === 2), loaded: readFileSync("/proc/self/maps", "utf8").includes("huge-pages.node") }));
`;
  /** Bundles APP to `outfile`; with `importMetaUrl`, that URL fixed in place of the bundle's own (as webpack does). */
  async function bundleApp(outfile: string, importMetaUrl?: string): Promise<void> {
    await build({
      stdin: { contents: APP, resolveDir: packageRoot },
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      alias: { "@zarr/core": packageRoot },
      define:
        importMetaUrl === undefined ? {} : { "import.meta.url": JSON.stringify(importMetaUrl) },
      logLevel: "silent",
    });
  }
  /** Runs `body` with a fresh temporary directory, removed afterwards. */
  async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), "zarr-huge-pages-"));
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  /** Places a genuine addon (loading it would show in /proc/self/maps) at `dir`/native/linux-x64. */
  function plantAddon(dir: string): void {
    mkdirSync(join(dir, "native/linux-x64"), { recursive: true });
    copyFileSync(
      join(packageRoot, "native/linux-x64/huge-pages.node"),
      join(dir, "native/linux-x64/huge-pages.node"),
    );
  }
  const runApp = (file: string) =>
    JSON.parse(
      execFileSync(process.execPath, [file], {
        cwd: dirname(file),
        encoding: "utf8",
        timeout: 30_000,
      }),
    );

  it.skipIf(process.platform !== "linux")(
    "a copy of core bundled into an app loads no addon, whatever @zarr/core the module search path offers",
    () =>
      inTempDir(async (dir) => {
        // 1. A package named @zarr/core with an addon, in a parent node_modules of the app.
        const one = join(dir, "one");
        plantAddon(join(one, "node_modules/@zarr/core"));
        writeFileSync(
          join(one, "node_modules/@zarr/core/package.json"),
          JSON.stringify({ name: "@zarr/core" }),
        );
        await bundleApp(join(one, "app/bundle.mjs"));
        expect(runApp(join(one, "app/bundle.mjs"))).toEqual({ ok: true, loaded: false });
        // 2. Its package.json a link to the app's own (another name), the addon beside that.
        const two = join(dir, "two");
        mkdirSync(join(two, "node_modules/@zarr/core"), { recursive: true });
        writeFileSync(join(two, "package.json"), JSON.stringify({ name: "not-zarr" }));
        symlinkSync("../../../package.json", join(two, "node_modules/@zarr/core/package.json"));
        plantAddon(two);
        await bundleApp(join(two, "app/bundle.mjs"));
        expect(runApp(join(two, "app/bundle.mjs"))).toEqual({ ok: true, loaded: false });
        // 3. A library bundling core, installed flat; a fake core maps ./package.json to a
        // short name; an addon in a package called "native" beside them.
        const three = join(dir, "three");
        const modules = join(three, "node_modules");
        mkdirSync(join(modules, "@zarr/core"), { recursive: true });
        writeFileSync(
          join(modules, "@zarr/core/package.json"),
          JSON.stringify({ name: "@zarr/core", exports: { "./package.json": "./x" } }),
        );
        writeFileSync(join(modules, "@zarr/core/x"), "{}");
        plantAddon(join(modules, "native"));
        mkdirSync(join(modules, "some-lib/dist"), { recursive: true });
        writeFileSync(join(modules, "some-lib/package.json"), JSON.stringify({ name: "some-lib" }));
        await bundleApp(join(modules, "some-lib/dist/bundle.mjs"));
        expect(runApp(join(modules, "some-lib/dist/bundle.mjs"))).toEqual({
          ok: true,
          loaded: false,
        });
        // 4. The app's directory has no package.json, and the one above it says @zarr/core
        // (a world-writable /tmp above a deployed bundle), with an addon beside it.
        const four = join(dir, "four");
        mkdirSync(four);
        writeFileSync(join(four, "package.json"), JSON.stringify({ name: "@zarr/core" }));
        plantAddon(four);
        await bundleApp(join(four, "app/bundle.mjs"));
        expect(runApp(join(four, "app/bundle.mjs"))).toEqual({ ok: true, loaded: false });
      }),
    60_000,
  );

  it.skipIf(process.platform !== "linux")(
    "startup snapshots of apps bundling core build and restore, also when the bundle keeps core's file URL (as webpack does)",
    () =>
      inTempDir(async (dir) => {
        const genuine = pathToFileURL(join(packageRoot, "dist/node-bundle.js")).href;
        for (const [name, importMetaUrl] of [
          ["own-url", 'require("node:url").pathToFileURL(__filename).href'],
          ["core-url", JSON.stringify(genuine)],
        ] as const) {
          const cjs = join(dir, `${name}.cjs`);
          await build({
            stdin: {
              contents: `const { createArray, MemoryStore } = require("@zarr/core");
const { readFileSync } = require("node:fs");
const read = () => createArray(new MemoryStore(), "", { shape: [1 << 20], dataType: "float64", chunkShape: [1 << 20], fillValue: 2 }).then((a) => a.get(null));
require("node:v8").startupSnapshot.setDeserializeMainFunction(() =>
  read().then(({ data }) => console.log(JSON.stringify({ ok: data.every((x) => x === 2), loaded: readFileSync("/proc/self/maps", "utf8").includes("huge-pages.node") }))));
read();`,
              resolveDir: packageRoot,
            },
            bundle: true,
            platform: "node",
            format: "cjs",
            outfile: cjs,
            alias: { "@zarr/core": packageRoot },
            define: { "import.meta.url": "__importMetaUrl" },
            banner: { js: `const __importMetaUrl = ${importMetaUrl};` },
            logLevel: "silent",
          });
          const blob = join(dir, `${name}.blob`);
          execFileSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", cjs], {
            cwd: dir,
            timeout: 60_000,
            stdio: "pipe",
          });
          const restored = JSON.parse(
            execFileSync(process.execPath, ["--snapshot-blob", blob], {
              cwd: dir,
              encoding: "utf8",
            }),
          );
          // A bundle that says it is core's own file gets that package's addon once restored.
          expect(restored, name).toEqual({
            ok: true,
            loaded: name === "core-url" && why === undefined,
          });
        }
      }),
    90_000,
  );

  it.skipIf(process.platform !== "linux")(
    "a bundle keeping a file URL of core's layout loads nothing another user owns, and a FIFO there never blocks it",
    () =>
      inTempDir(async (dir) => {
        // A webpack-style bundle: import.meta.url fixed to a build machine's path, here a
        // directory someone else made, holding what a genuine package holds.
        const fake = join(dir, "build/node_modules/@zarr/core");
        mkdirSync(join(fake, "dist"), { recursive: true });
        writeFileSync(join(fake, "dist/node-bundle.js"), "");
        plantAddon(fake);
        const bundle = join(dir, "deploy/bundle.mjs");
        await bundleApp(bundle, pathToFileURL(join(fake, "dist/node-bundle.js")).href);
        // Its package.json a FIFO nobody writes to: reading it would block forever.
        execFileSync("mkfifo", [join(fake, "package.json")]);
        expect(runApp(bundle)).toEqual({ ok: true, loaded: false });
        rmSync(join(fake, "package.json"));
        writeFileSync(join(fake, "package.json"), JSON.stringify({ name: "@zarr/core" }));
        // Owned by this process's user: as trusted as the process's own files.
        expect(runApp(bundle)).toEqual({ ok: true, loaded: why === undefined });
        if (process.getuid?.() === 0) {
          // Owned by another user (nobody): never loaded.
          execFileSync("chown", ["-R", "65534:65534", fake]);
          expect(runApp(bundle)).toEqual({ ok: true, loaded: false });
        } else {
          console.log("huge-pages.test: the other-user case needs root to chown (skipped)");
        }
      }),
    60_000,
  );

  it.skipIf(why !== undefined)(
    "live advised arrays take at most one kernel mapping each (Linux allows 65,530 per process)",
    () => {
      const out = JSON.parse(
        child(`
import { readFileSync } from "node:fs";
import { createArray, MemoryStore } from "@zarr/core";
const maps = () => readFileSync("/proc/self/maps", "utf8").split("\\n").length;
const n = (6 << 20) / 8;
const a = await createArray(new MemoryStore(), "", { shape: [n], dataType: "float64", chunkShape: [n], fillValue: 0 });
const held = [];
const before = maps();
for (let i = 0; i < 1000; i++) held.push((await a.get(null)).data);
console.log(JSON.stringify({ added: maps() - before, held: held.length }));
`),
      );
      expect(out.held).toBe(1000);
      expect(out.added).toBeLessThanOrEqual(1100);
    },
    60_000,
  );
});
