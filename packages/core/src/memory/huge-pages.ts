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
 * Everywhere else (browsers, other systems, a process that may not load
 * addons, `ZARR_MADVISE_HUGEPAGE=0` in the environment, as NumPy's
 * `NUMPY_MADVISE_HUGEPAGE=0`) it does nothing: the advice never changes what
 * an array holds, only how the kernel backs it. No Node built-in is imported:
 * the addon is found through `process`, when there is one.
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

/** The addon's function, or `null` where it cannot or should not load. */
function loadAddon(): Advise | null {
  const proc = (globalThis as { process?: NodeProcess }).process;
  if (
    proc?.platform !== "linux" ||
    proc.arch !== "x64" ||
    proc.env?.ZARR_MADVISE_HUGEPAGE === "0" ||
    typeof proc.dlopen !== "function" ||
    typeof proc.getBuiltinModule !== "function"
  ) {
    return null;
  }
  try {
    // The package's own root, wherever this module was bundled to.
    const { createRequire } = proc.getBuiltinModule("node:module") as {
      createRequire(from: string): { resolve(id: string): string };
    };
    const manifest = createRequire(import.meta.url).resolve("@zarr/core/package.json");
    const addon = { exports: {} as { adviseHugePages?: unknown } };
    proc.dlopen(addon, manifest.replace(/package\.json$/, "native/linux-x64/huge-pages.node"));
    const fn = addon.exports.adviseHugePages;
    return typeof fn === "function" ? (fn as Advise) : null;
  } catch {
    // Not installed with the package, addons disallowed (`--permission`
    // without `--allow-addons`), or an engine without Node-API: no advice.
    return null;
  }
}
