/**
 * A minimal read-only directory store for core's own tests (core cannot depend
 * on @zarr/store-fs without a dependency cycle). Not a product store.
 *
 * @module
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";

type Range = { offset: number; length?: number } | { suffix: number };

/** Reads `root/<key>`; lists by walking the directory. */
export function readOnlyDirStore(root: string) {
  return {
    async get(key: string, range?: Range): Promise<Uint8Array | undefined> {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await readFile(join(root, ...key.split("/"))));
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
        throw e;
      }
      if (!range) return bytes;
      if ("suffix" in range) return bytes.subarray(Math.max(0, bytes.length - range.suffix));
      return bytes.subarray(
        range.offset,
        range.length === undefined ? undefined : range.offset + range.length,
      );
    },
    async *list(): AsyncGenerator<string> {
      const walk = async function* (dir: string): AsyncGenerator<string> {
        let entries: import("node:fs").Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const p = join(dir, e.name);
          if (e.isDirectory()) yield* walk(p);
          else yield relative(root, p).split(sep).join("/");
        }
      };
      yield* walk(root);
    },
  };
}
