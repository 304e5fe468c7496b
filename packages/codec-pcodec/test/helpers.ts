import { readFileSync } from "node:fs";
import { join } from "node:path";

export const FIXTURES = join(import.meta.dirname, "fixtures");

/** A parsed `.npy` file: its dtype descriptor, shape, order and raw data bytes (memory order). */
export interface Npy {
  descr: string;
  shape: number[];
  fortran: boolean;
  data: Uint8Array;
}

/** Parses a version 1/2 `.npy` file (enough for numcodecs' fixtures). */
export function readNpy(path: string): Npy {
  const bytes = new Uint8Array(readFileSync(path));
  const major = bytes[6];
  const headerLen =
    major === 1 ? bytes[8] | (bytes[9] << 8) : new DataView(bytes.buffer).getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)![1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shape = /'shape':\s*\(([^)]*)\)/
    .exec(header)![1]
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return { descr, shape, fortran, data: bytes.slice(start + headerLen) };
}

/** The pco number type name of a little-endian numpy descriptor (`<f8` -> `f64`). */
export function pcoTypeOfDescr(descr: string): string {
  const m = /^[<|]([uif])(\d)$/.exec(descr);
  if (!m) throw new Error(`unsupported descr ${descr}`);
  return `${m[1]}${Number(m[2]) * 8}`;
}

export function readFixture(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, ...parts)));
}

/** Index of the first differing byte, or -1. */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}
