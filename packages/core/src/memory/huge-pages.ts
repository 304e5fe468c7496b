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
 * `native/huge-pages.c` (the repository's `scripts/build-native.mjs`).
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

import { loadPackageAddon, turnedOff } from "../util/native-addon.js";

/** Arrays from this size on are advised (NumPy's threshold). */
export const HUGE_PAGE_MIN_BYTES = 4 * 1024 * 1024;

type Advise = (buffer: ArrayBuffer) => boolean;

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
 * while a startup snapshot is being built (see `loadPackageAddon`).
 */
function loadAddon(): Advise | null | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  if (turnedOff(env?.ZARR_MADVISE_HUGEPAGE)) return null;
  const exports = loadPackageAddon(
    import.meta.url,
    OWN_FILES,
    "@zarr/core",
    "/native/linux-x64/huge-pages.node",
  );
  if (exports === undefined) return undefined;
  const fn = exports?.adviseHugePages;
  return typeof fn === "function" ? (fn as Advise) : null;
}

/** Where this module lies in the package: the built bundle, the per-module build, the source (tests). */
const OWN_FILES = [
  "/dist/node-bundle.js",
  "/dist/memory/huge-pages.js",
  "/src/memory/huge-pages.ts",
];
