/**
 * Platforms without a native zstd (browsers, Node < 22.15): the WebAssembly
 * build is used.
 *
 * @module
 */
import type { NativeZstd } from "./types.js";

/** No native engine here. */
export const nativeZstd: NativeZstd | undefined = undefined;
