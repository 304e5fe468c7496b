import { open, readFile, stat } from "node:fs/promises";
import { type ArrayValue, type JsonValue, openArray, type ZarrArray } from "@zarr/core";
import { normalizeSelection } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { type Io, str, type Values } from "../command.js";
import { decodeNpy, npyDescr } from "../npy.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { TooLargeError, UsageError } from "../usage.js";

/** Largest --from file read at once (Node reads at most 2 GiB into one buffer). */
const MAX_FROM_BYTES = 2 ** 31 - 1;

import { selectionOption } from "./get.js";

/** The scalar of `--value`: JSON (numbers, true/false, strings, [re, im]) or a metadata fill-value form ("NaN", "0x7fc00000"). */
function scalarValue(array: ZarrArray, text: string): ArrayValue {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text; // bare words: NaN, Infinity, or a string for string arrays
  }
  const dataType = array.dataType;
  try {
    // Metadata forms with strings ("NaN", "0x7fc00001", ["Infinity", 1]) keep their exact bits.
    if (
      (typeof json === "string" && dataType.kind !== "string") ||
      (Array.isArray(json) &&
        dataType.kind === "complex" &&
        json.some((v) => typeof v === "string"))
    ) {
      return dataType.parseFillValue(json as JsonValue, "--value").value;
    }
    if (typeof json === "number" && (dataType.kind === "int" || dataType.kind === "uint")) {
      // Exact for 64-bit integers: parse the literal text, not the rounded double.
      if (array.dataType.itemSize === 8 && /^-?\d+$/.test(text.trim())) return BigInt(text.trim());
    }
    if (Array.isArray(json) && (dataType.kind === "raw" || dataType.kind === "bytes"))
      return dataType.fromScalar(new Uint8Array(json as number[]), "--value").value;
    return dataType.fromScalar(json, "--value").value;
  } catch (e) {
    throw new UsageError(`--value: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Bytes [start, end) of a file. */
async function readRange(file: string, start: number, end: number): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const out = new Uint8Array(Math.max(0, end - start));
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await handle.read(out, done, out.length - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return out.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/** Largest .npy header read (real ones are a few hundred bytes). */
const NPY_MAX_HEADER = 2 ** 20;

/**
 * Reads `--from FILE`: a `.npy` file, or raw little-endian C-order bytes of
 * the selection's shape. Sizes, data type and shape are checked before the
 * data is read, so a wrong (e.g. huge) file is never loaded.
 */
async function fileValue(
  array: ZarrArray,
  file: string,
  shape: readonly number[],
): Promise<ArrayValue> {
  const dataType = array.dataType;
  if (!dataType.fromBytes || dataType.itemSize === null)
    throw new UsageError(
      `--from needs a fixed-size data type; ${dataType.name} is variable-size (use --value)`,
    );
  const n = shape.reduce((a, b) => a * b, 1);
  const expected = n * dataType.itemSize;
  const size = (await stat(file)).size;
  const tooLarge = () =>
    new TooLargeError(
      `--from ${file}: the selection [${shape.join(", ")}] is ${expected} bytes, more than one read can hold (${MAX_FROM_BYTES}); set it in parts with --select`,
    );
  if (file.toLowerCase().endsWith(".npy")) {
    const prefix = await readRange(file, 0, 12);
    const view = new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength);
    const headerEnd =
      prefix.length < 12
        ? prefix.length
        : prefix[6] === 1
          ? 10 + view.getUint16(8, true)
          : 12 + view.getUint32(8, true);
    if (headerEnd > NPY_MAX_HEADER)
      throw new UsageError(`${file}: not a readable .npy file (a ${headerEnd}-byte header)`);
    const npy = decodeNpy(await readRange(file, 0, headerEnd), file);
    const little = npyDescr(dataType, "little");
    const big = npyDescr(dataType, "big");
    if (npy.descr !== little && npy.descr !== big)
      throw new UsageError(
        `${file}: dtype ${npy.descr} does not match the array's ${little ?? dataType.name}`,
      );
    const count = npy.shape.reduce((a, b) => a * b, 1);
    if (count !== n)
      throw new UsageError(
        `${file}: shape (${npy.shape.join(", ")}) does not fit the selection shape [${shape.join(", ")}]`,
      );
    if (size - headerEnd !== expected)
      throw new UsageError(`${file}: ${size - headerEnd} data bytes, expected ${expected}`);
    if (expected > MAX_FROM_BYTES) throw tooLarge();
    const data = dataType.fromBytes(
      await readRange(file, headerEnd, headerEnd + expected),
      n,
      npy.descr === little,
    );
    if (!npy.fortranOrder) return { data, shape };
    // Fortran order: element (i0, i1, ...) is at i0 + s0*i1 + ...
    const stride: number[] = [];
    let s = 1;
    for (const len of shape) {
      stride.push(s);
      s *= len;
    }
    return { data, shape, stride };
  }
  if (size !== expected)
    throw new UsageError(
      `${file}: ${size} bytes, the selection needs ${expected} (${n} × ${dataType.itemSize})`,
    );
  if (expected > MAX_FROM_BYTES) throw tooLarge();
  const bytes = new Uint8Array(await readFile(file));
  if (bytes.length !== n * dataType.itemSize)
    throw new UsageError(
      `${file}: ${bytes.length} bytes, the selection needs ${n * dataType.itemSize} (${n} × ${dataType.itemSize})`,
    );
  return { data: dataType.fromBytes(bytes, n, true), shape };
}

/** Runs `zarr set` (its options are described by the command in `commands/set.ts`). */
export async function run(
  [storeArg, path]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const valueText = str(values, "value");
  const from = str(values, "from");
  if ((valueText === undefined) === (from === undefined))
    throw new UsageError("zarr set needs exactly one of --value V and --from FILE");
  const selection = selectionOption(str(values, "select"));
  const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
  const array = await openArray(store, path);
  const shape = normalizeSelection(selection, array.shape, array.path).shape;
  const value =
    valueText !== undefined ? scalarValue(array, valueText) : await fileValue(array, from!, shape);
  await array.set(selection ?? null, value, { signal: io.signal });
  return 0;
}
