/**
 * Reads the files of an npm tarball (gzip'd ustar, as written by `pnpm pack`)
 * into memory, for checks on exactly what would be published.
 *
 * @module
 */
import { gunzipSync } from "node:zlib";

/** Files by path inside the tarball, without the leading `package/`. */
export function readTarball(tgz: Uint8Array): Map<string, Uint8Array> {
  const tar = gunzipSync(tgz);
  const files = new Map<string, Uint8Array>();
  const decoder = new TextDecoder();
  const field = (at: number, length: number) =>
    decoder.decode(tar.subarray(at, at + length)).replace(/\0.*$/s, "");
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const name = field(offset, 100);
    if (name === "") break; // the two zero blocks at the end
    const size = Number.parseInt(field(offset + 124, 12).trim() || "0", 8);
    const type = field(offset + 156, 1);
    const prefix = field(offset + 345, 155);
    const path = (prefix ? `${prefix}/${name}` : name).replace(/^package\//, "");
    if (!Number.isSafeInteger(size) || offset + 512 + size > tar.length) {
      throw new Error(`tarball entry ${path}: bad size ${size}`);
    }
    if (type === "0" || type === "")
      files.set(path, tar.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
