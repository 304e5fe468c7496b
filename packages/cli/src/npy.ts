/**
 * NumPy `.npy` files (format versions 1.0-3.0) for `zarr get --npy` and
 * `zarr set --from`: fixed-size data types whose NumPy descr is a typestr.
 *
 * @module
 */
import type { DataType } from "@zarr/core";
import { v2DtypeOf } from "@zarr/v2-compat";
import { UsageError } from "./usage.js";

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"

/** The NumPy typestr of `dataType` in the given byte order, or `undefined`. */
export function npyDescr(
  dataType: DataType,
  endian: "little" | "big" = "little",
): string | undefined {
  if (!dataType.toBytes) return undefined;
  const d = v2DtypeOf(dataType, endian);
  return typeof d === "string" ? d : undefined;
}

/**
 * The header of an `.npy` file (version 1.0, little-endian, C order) for data
 * of `shape`; the data bytes follow it (`dataType.toBytes(data, true)`).
 */
export function npyHeader(dataType: DataType, shape: readonly number[]): Uint8Array {
  const descr = npyDescr(dataType);
  if (descr === undefined || !dataType.toBytes)
    throw new UsageError(
      `--npy: data type ${dataType.name} has no fixed-size NumPy form (use --json)`,
    );
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Pad so that magic (6) + version (2) + length (2) + header + "\n" is a multiple of 64.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = `${header.padEnd(total - 10 - 1, " ")}\n`;
  if (header.length > 0xffff) throw new UsageError("--npy: header too long");
  const out = new Uint8Array(10 + header.length);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  out[8] = header.length & 0xff;
  out[9] = header.length >> 8;
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  return out;
}

/** Encodes C-order `data` of `shape` as an `.npy` file (version 1.0, little-endian). */
export function encodeNpy(
  dataType: DataType,
  data: Parameters<NonNullable<DataType["toBytes"]>>[0],
  shape: readonly number[],
): Uint8Array {
  const header = npyHeader(dataType, shape);
  const body = dataType.toBytes!(data, true);
  const out = new Uint8Array(header.length + body.length);
  out.set(header, 0);
  out.set(body, header.length);
  return out;
}

/** A parsed `.npy` file. */
export interface Npy {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
  /** The data bytes (after the header). */
  body: Uint8Array;
}

/** Parses an `.npy` file; `name` is used in error messages. */
export function decodeNpy(bytes: Uint8Array, name: string): Npy {
  const bad = (why: string): never => {
    throw new UsageError(`${name}: not a readable .npy file (${why})`);
  };
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) bad("no \\x93NUMPY magic");
  const major = bytes[6];
  if (major < 1 || major > 3) bad(`format version ${major}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = 8 + lenBytes;
  if (start + headerLength > bytes.length) bad("truncated header");
  const header = new TextDecoder(major === 3 ? "utf-8" : "latin1").decode(
    bytes.subarray(start, start + headerLength),
  );
  const descr = /'descr'\s*:\s*'([^']+)'/.exec(header)?.[1] ?? bad("no simple 'descr'");
  const fortran =
    /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1] ?? bad("no 'fortran_order'");
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1] ?? bad("no 'shape'");
  const shape = shapeText
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => {
      const n = Number(s.replace(/L$/, ""));
      return Number.isSafeInteger(n) && n >= 0 ? n : bad(`shape entry ${s}`);
    });
  return {
    descr,
    fortranOrder: fortran === "True",
    shape,
    body: bytes.subarray(start + headerLength),
  };
}
