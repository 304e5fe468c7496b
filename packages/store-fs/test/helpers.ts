import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A fresh temporary directory; `root` (inside it) does not exist yet. */
export async function tempDir(): Promise<{
  dir: string;
  root: string;
  cleanup: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "zarr-store-fs-"));
  return {
    dir,
    root: join(dir, "store"),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Writes `files` (key -> bytes) under `root` with plain node:fs, as another tool would. */
export async function writeTree(
  root: string,
  files: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  await mkdir(root, { recursive: true });
  const entries = [...files];
  for (let i = 0; i < entries.length; i += 64) {
    await Promise.all(
      entries.slice(i, i + 64).map(async ([key, value]) => {
        const path = join(root, ...key.split("/"));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, value);
      }),
    );
  }
}

/** Every path (relative, `/`-separated, directories with a trailing `/`) under `dir`. */
export async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        out.push(`${rel}${e.name}/`);
        await walk(join(d, e.name), `${rel}${e.name}/`);
      } else out.push(`${rel}${e.name}`);
    }
  };
  await walk(dir, "");
  return out.sort();
}
