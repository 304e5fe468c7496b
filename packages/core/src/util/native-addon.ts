/**
 * Loading a package's own Node-API addon (x86-64 Linux), safely or not at all.
 *
 * The addon is loaded only from the package that the calling module is one of
 * the files of: never found through a module search path or by walking up
 * directories. A copy of the module bundled into an app is not one of the
 * package's files (its path does not end as the package's do), and the module
 * URL may be a bundler's string from another machine. The package's
 * `package.json` and the addon must be regular files of a sane size, owned by
 * this process's user or root and writable by no one else, so that another
 * local user who can create directories (in `/tmp`, say) cannot get code
 * loaded. No Node built-in is imported: they are reached through `process`,
 * when there is one, so that browser bundles can include this module.
 *
 * @module
 */

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

interface FileStats {
  isFile(): boolean;
  size: number;
  uid: number;
  gid: number;
  mode: number;
}

/** The largest addon loaded, in bytes. */
const MAX_ADDON_BYTES = 1 << 16;

/**
 * The exports of the addon at `addon` (a path inside the package, starting
 * with `/`) of the package named `packageName`, when the calling module (its
 * `import.meta.url`) is one of that package's own files: `ownFiles`, its
 * paths inside the package (the built bundle, the per-module build, the
 * source for tests), each starting with `/`. `null` where the addon cannot or
 * may not load (not x86-64 Linux, no `process.dlopen`, addons disallowed,
 * files missing or not trusted); `undefined` while a startup snapshot is
 * being built (an addon cannot be saved in one: load it after the snapshot
 * is restored).
 */
export function loadPackageAddon(
  moduleUrl: string,
  ownFiles: readonly string[],
  packageName: string,
  addon: string,
): Record<string, unknown> | null | undefined {
  const proc = (globalThis as { process?: NodeProcess }).process;
  if (
    proc?.platform !== "linux" ||
    proc.arch !== "x64" ||
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
    const file = fileURLToPath(moduleUrl);
    const own = ownFiles.find((suffix) => file.endsWith(suffix));
    if (own === undefined) return null;
    const root = file.slice(0, file.length - own.length);
    const path = `${root}${addon}`;
    const fs = builtin<FileSystem>("node:fs");
    if (!trusted(fs, proc, `${root}/package.json`) || !trusted(fs, proc, path)) return null;
    const { name } = JSON.parse(fs.readFileSync(`${root}/package.json`, "utf8")) as {
      name?: unknown;
    };
    if (name !== packageName) return null;
    const module = { exports: {} as Record<string, unknown> };
    proc.dlopen(module, path);
    return module.exports;
  } catch {
    // Not installed with the package, addons disallowed (`--permission`
    // without `--allow-addons`, `--no-addons`), a module URL that is not a
    // file, or an engine without Node-API.
    return null;
  }
}

interface FileSystem {
  statSync(path: string): FileStats;
  readFileSync(path: string, encoding: "utf8"): string;
}

/** A regular file of at most {@link MAX_ADDON_BYTES}, owned by this user or root, writable by no one else. */
function trusted(fs: FileSystem, proc: NodeProcess, path: string): boolean {
  const stats = fs.statSync(path);
  return (
    stats.isFile() &&
    stats.size <= MAX_ADDON_BYTES &&
    (stats.uid === 0 || stats.uid === proc.geteuid?.()) &&
    (stats.mode & 0o002) === 0 &&
    ((stats.mode & 0o020) === 0 || stats.gid === proc.getegid?.())
  );
}

/** `0` (any number of zeros), `false`, `off` or `no`, in any case and spacing. */
export function turnedOff(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  return /^0+$/.test(v) || v === "false" || v === "off" || v === "no";
}
