/**
 * Transparent huge pages for large fresh arrays, in Node on x86-64 Linux.
 *
 * The first write of each 4 KiB page of fresh memory is a page fault; a full
 * read of a 64 MiB array into a new output takes 16,384 of them, about 30–40 ms
 * on the benchmark machine: most of what separated an uncompressed read from
 * zarr-python's. NumPy asks the kernel to back its arrays of 4 MiB or more with
 * 2 MiB pages (`madvise(MADV_HUGEPAGE)`, which Linux honours when
 * `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` or `always`), and
 * so does this module, through a small Node-API addon built from
 * `native/huge-pages.c` (`scripts/build-native.mjs`).
 *
 * The addon is loaded only from the `@zarr/core` package this module's file
 * belongs to. Everywhere else (browsers, other systems, a process that may not
 * load addons, a copy of core bundled into an app, while a startup snapshot is
 * built, `ZARR_MADVISE_HUGEPAGE=0` in the environment, read at the first large
 * allocation, as NumPy's `NUMPY_MADVISE_HUGEPAGE=0`) it does nothing: the
 * advice never changes what an array holds, only how the kernel backs it. No
 * Node built-in is imported: they are reached through `process`, when there
 * is one.
 *
 * @module
 */

/** Arrays from this size on are advised (NumPy's threshold). */
export const HUGE_PAGE_MIN_BYTES = 4 * 1024 * 1024;

type Advise = (buffer: ArrayBuffer) => boolean;

/** The parts of Node's `process` used here (absent in browsers). */
interface NodeProcess {
  platform?: string;
  arch?: string;
  geteuid?(): number;
  getegid?(): number;
  env?: Record<string, string | undefined>;
  dlopen?: (module: { exports: unknown }, filename: string) => void;
  getBuiltinModule?: (id: string) => unknown;
}

let advise: Advise | null | undefined;

/**
 * Asks for huge pages behind `buffer` when it is a fresh `ArrayBuffer` of at
 * least {@link HUGE_PAGE_MIN_BYTES} not yet written to (advice only reaches
 * pages faulted in later). Returns whether the kernel took the advice.
 */
export function adviseHugePages(buffer: ArrayBufferLike): boolean {
  if (buffer.byteLength < HUGE_PAGE_MIN_BYTES || !(buffer instanceof ArrayBuffer)) return false;
  if (advise === undefined) advise = loadAddon();
  return advise?.(buffer) ?? false;
}

/**
 * The addon's function; `null` where it cannot or should not load; `undefined`
 * while a startup snapshot is being built (an addon's function cannot be saved
 * in one: it loads after the snapshot is restored).
 */
function loadAddon(): Advise | null | undefined {
  const proc = (globalThis as { process?: NodeProcess }).process;
  if (
    proc?.platform !== "linux" ||
    proc.arch !== "x64" ||
    turnedOff(proc.env?.ZARR_MADVISE_HUGEPAGE) ||
    typeof proc.dlopen !== "function" ||
    typeof proc.getBuiltinModule !== "function"
  ) {
    return null;
  }
  try {
    const builtin = proc.getBuiltinModule.bind(proc) as <T>(id: string) => T;
    const v8 = builtin<{ startupSnapshot?: { isBuildingSnapshot?(): boolean } }>("node:v8");
    if (v8.startupSnapshot?.isBuildingSnapshot?.()) return undefined;
    const { fileURLToPath } = builtin<{ fileURLToPath(url: string): string }>("node:url");
    const addonPath = trustedAddon(builtin("node:fs"), proc, fileURLToPath(import.meta.url));
    if (addonPath === null) return null;
    const addon = { exports: {} as { adviseHugePages?: unknown } };
    proc.dlopen(addon, addonPath);
    const fn = addon.exports.adviseHugePages;
    return typeof fn === "function" ? (fn as Advise) : null;
  } catch {
    // Not installed with the package, addons disallowed (`--permission`
    // without `--allow-addons`, `--no-addons`), or an engine without
    // Node-API: no advice.
    return null;
  }
}

/** Where this module lies in the package: the built bundle, the per-module build, the source (tests). */
const OWN_FILES = [
  "/dist/node-bundle.js",
  "/dist/memory/huge-pages.js",
  "/src/memory/huge-pages.ts",
];

interface FileStats {
  isFile(): boolean;
  size: number;
  uid: number;
  gid: number;
  mode: number;
}

/**
 * The path of the addon of the `@zarr/core` package that `file` (this module)
 * is one of its own files in, or `null`. Never found through a module search
 * path or by walking up directories: a copy of core bundled into an app is
 * not one of the package's files, and `file` may be a bundler's string from
 * another machine. The package's `package.json` and the addon must be regular
 * files of a sane size, owned by this process's user or root and writable by
 * no one else, so that another local user who can create directories (in
 * `/tmp`, say) cannot get code loaded.
 */
function trustedAddon(
  fs: {
    statSync(path: string): FileStats;
    readFileSync(path: string, encoding: "utf8"): string;
  },
  proc: { geteuid?(): number; getegid?(): number },
  file: string,
): string | null {
  const own = OWN_FILES.find((suffix) => file.endsWith(suffix));
  if (own === undefined) return null;
  const root = file.slice(0, file.length - own.length);
  const euid = proc.geteuid?.();
  const egid = proc.getegid?.();
  const trusted = (path: string, maxBytes: number) => {
    const stats = fs.statSync(path);
    return (
      stats.isFile() &&
      stats.size <= maxBytes &&
      (stats.uid === 0 || stats.uid === euid) &&
      (stats.mode & 0o002) === 0 &&
      ((stats.mode & 0o020) === 0 || stats.gid === egid)
    );
  };
  const manifest = `${root}/package.json`;
  const addon = `${root}/native/linux-x64/huge-pages.node`;
  if (!trusted(manifest, 1 << 20) || !trusted(addon, 1 << 16)) return null;
  const { name } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name?: unknown };
  return name === "@zarr/core" ? addon : null;
}

/** `0` (any number of zeros), `false`, `off` or `no`, in any case and spacing. */
function turnedOff(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return /^0+$/.test(v) || v === "false" || v === "off" || v === "no";
}
