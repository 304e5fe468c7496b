/**
 * Record layouts of the zip format (PKWARE APPNOTE.TXT 6.3): signatures, fixed
 * sizes and little-endian field helpers shared by the reader and the writer.
 *
 * @module
 */

/** Local file header (APPNOTE 4.3.7). */
export const LOCAL_HEADER_SIG = 0x04034b50;
export const LOCAL_HEADER_SIZE = 30;
/** Central directory file header (APPNOTE 4.3.12). */
export const CENTRAL_HEADER_SIG = 0x02014b50;
export const CENTRAL_HEADER_SIZE = 46;
/** End of central directory record (APPNOTE 4.3.16). */
export const EOCD_SIG = 0x06054b50;
export const EOCD_SIZE = 22;
/** Zip64 end of central directory record (APPNOTE 4.3.14). */
export const ZIP64_EOCD_SIG = 0x06064b50;
export const ZIP64_EOCD_SIZE = 56;
/** Zip64 end of central directory locator (APPNOTE 4.3.15). */
export const ZIP64_LOCATOR_SIG = 0x07064b50;
export const ZIP64_LOCATOR_SIZE = 20;
/** Zip64 extended information extra field (APPNOTE 4.5.3). */
export const ZIP64_EXTRA_ID = 0x0001;

/** Compression methods (APPNOTE 4.4.5). */
export const METHOD_STORED = 0;
export const METHOD_DEFLATED = 8;

/** General purpose flags (APPNOTE 4.4.4). */
export const FLAG_ENCRYPTED = 0x0001;
export const FLAG_DATA_DESCRIPTOR = 0x0008;
export const FLAG_UTF8 = 0x0800;

/** The 16- and 32-bit "look in the zip64 record" markers. */
export const MAX16 = 0xffff;
export const MAX32 = 0xffffffff;

/** Reads an unsigned 64-bit little-endian integer; `undefined` beyond 2^53. */
export function getUint64(view: DataView, at: number): number | undefined {
  const lo = view.getUint32(at, true);
  const hi = view.getUint32(at + 4, true);
  const n = hi * 0x100000000 + lo;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Writes a non-negative safe integer as an unsigned 64-bit little-endian integer. */
export function setUint64(view: DataView, at: number, n: number): void {
  view.setUint32(at, n % 0x100000000, true);
  view.setUint32(at + 4, Math.floor(n / 0x100000000), true);
}

/** A DataView over exactly the bytes of `bytes`. */
export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
