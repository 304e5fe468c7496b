/**
 * Platforms without a native zstd (browsers, Node < 22.15): the WebAssembly
 * build is used.
 *
 * @module
 */
import type { DictionaryZstd, NativeZstd } from "./types.js";

/** No native engine here. */
export const nativeZstd: NativeZstd | undefined = undefined;

/** No zstd with dictionaries here (libzstd's WebAssembly build has no dictionary entry points). */
export function dictionaryZstd(): DictionaryZstd | undefined {
  return undefined;
}
