import {
  type DataArray,
  type DataType,
  openArray,
  type Selection,
  type ZarrArray,
} from "@zarr/core";
import type { ChunkCodecWorkers } from "@zarr/core/codec";
import { normalizeSelection, parseSelection } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { flag, type Io, str, type Values } from "../command.js";
import { DEFAULT_MAX_TEXT_ELEMENTS, SLAB_BYTES } from "../commands/get.js";
import { scalarJson } from "../format.js";
import { npyHeader } from "../npy.js";
import {
  type ByteSink,
  fileSink,
  sizeText,
  stdoutSink,
  type TextSink,
  textSink,
} from "../output.js";
import { Progress } from "../progress.js";
import { exactCount, slabs } from "../slabs.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { parseCount, TooLargeError, UsageError } from "../usage.js";
import { commandPool, parseWorkers } from "../workers.js";
import { shardInnerShape } from "./info.js";

/** Parses `--select`, turning parse errors into usage errors. */
export function selectionOption(text: string | undefined): Selection | undefined {
  if (text === undefined) return undefined;
  try {
    return parseSelection(text);
  } catch (e) {
    throw new UsageError(`--select: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The text of element `i` of `data` as one CSV field. */
function csvValue(dataType: DataType, data: DataArray, i: number): string {
  const value = dataType.getScalar(data, i);
  const json = scalarJson(dataType, value);
  return csvField(typeof value === "string" ? value : json.replace(/^"(.*)"$/, "$1"));
}

/** Runs `zarr get` (its options are described by the command in `commands/get.ts`). */
export async function run(
  [storeArg, path = ""]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const json = flag(values, "json");
  const csv = flag(values, "csv");
  const outFile = str(values, "out");
  const npyFile = str(values, "npy");
  if (!json && !csv && !outFile && !npyFile)
    throw new UsageError("zarr get needs --json, --csv, --out FILE or --npy FILE");
  const toStdout = [json, csv, outFile === "-", npyFile === "-"].filter(Boolean).length;
  if (toStdout > 1)
    throw new UsageError(
      "only one of --json, --csv, --out - and --npy - can write to standard output",
    );
  const maxText =
    str(values, "max-elements") === undefined
      ? DEFAULT_MAX_TEXT_ELEMENTS
      : parseCount(str(values, "max-elements")!, "--max-elements", 1);
  const selection = selectionOption(str(values, "select"));
  // Reads default to no workers (see the help of --workers).
  const workers = parseWorkers(str(values, "workers")) ?? 0;
  const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
  const array = await openArray(store, path);
  const dataType = array.dataType;
  if ((outFile || npyFile) && !dataType.toBytes) {
    throw new UsageError(
      `--out and --npy write fixed-size data only; ${dataType.name} is variable-size (use --json)`,
    );
  }
  const sel = normalizeSelection(selection, array.shape, array.path);
  const count = exactCount(sel.shape);
  const itemSize = dataType.itemSize;
  const name = `/${array.path}`;
  const what = `${selection === undefined ? name : `the selection of ${name}`} (${count} elements of ${dataType.name})`;
  if ((json || csv) && count > BigInt(maxText)) {
    throw new TooLargeError(
      `--${json ? "json" : "csv"}: ${what} is more than the ${maxText} elements printed as text at most` +
        `${itemSize === null ? "" : ` (${sizeText(count * BigInt(itemSize))} as binary)`}; ` +
        `read a part with --select, write binary with --out FILE or --npy FILE, or raise --max-elements`,
      { path: array.path },
    );
  }
  const bytes = itemSize === null ? 0n : count * BigInt(itemSize);
  if ((outFile || npyFile) && bytes > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new TooLargeError(
      `${outFile ? "--out" : "--npy"}: ${what} would be ${sizeText(bytes)}, more than the 2^53 bytes a stream can hold; read a part with --select`,
      { path: array.path },
    );
  }

  // Every destination is open (and checked) before the first read.
  const binary: ByteSink[] = [];
  const opened: ByteSink[] = [];
  try {
    if (outFile) {
      const sink =
        outFile === "-" ? stdoutSink(io, "--out") : await fileSink(outFile, bytes, what, "--out");
      opened.push(sink);
      binary.push(sink);
    }
    if (npyFile) {
      const header = npyHeader(dataType, sel.shape);
      const sink =
        npyFile === "-"
          ? stdoutSink(io, "--npy")
          : await fileSink(npyFile, bytes + BigInt(header.length), what, "--npy");
      opened.push(sink);
      await sink.write(header);
      binary.push(sink);
    }
    const text = json || csv ? textSink(io) : undefined;
    const pool = commandPool(workers);
    try {
      await stream(array, sel, {
        binary,
        text,
        format: json ? "json" : "csv",
        progress: new Progress(Number(count), "get", io.progress),
        signal: io.signal,
        workers: pool.workers,
      });
    } finally {
      await pool.close();
    }
    for (const sink of opened) await sink.close();
  } catch (e) {
    for (const sink of opened) await sink.abort();
    throw e;
  }
  return 0;
}

/**
 * Reads `sel` of `array` slab by slab into the sinks. Binary sinks take each
 * slab as it is read. Text is formatted as each slab is read but printed only
 * once the whole selection has read and formatted (it is at most
 * `--max-elements` elements), so a failure prints nothing rather than a
 * document that looks complete.
 */
async function stream(
  array: ZarrArray,
  sel: ReturnType<typeof normalizeSelection>,
  options: {
    binary: ByteSink[];
    text: TextSink | undefined;
    format: "json" | "csv";
    progress: Progress;
    signal: AbortSignal | undefined;
    workers: ChunkCodecWorkers | undefined;
  },
): Promise<void> {
  const { binary, text, format, progress, signal, workers } = options;
  const dataType = array.dataType;
  const itemBytes = dataType.itemSize ?? 64; // variable-size: an estimate per element
  // Binary output is written while the next slab is read: two slabs of half the budget.
  const overlap = binary.length > 0;
  const slabBytes = overlap ? SLAB_BYTES / 2 : SLAB_BYTES;
  const budget = Math.max(1, Math.floor(slabBytes / itemBytes));
  const chunkShape = shardInnerShape(array) ?? array.chunkShape;
  const chunkBytes = chunkShape.reduce((a, b) => a * b, 1) * itemBytes;
  // Chunks decoded at once stay within about one slab's memory.
  const concurrency = Math.max(1, Math.min(16, Math.floor(slabBytes / chunkBytes)));
  const formatted: string[] = [];
  const formatter = text ? textFormatter(format, dataType, sel.shape) : undefined;
  // A fixed-size slab's memory serves every slab of its size; slabs alternate
  // between two while writes overlap reads.
  const reuse: (DataArray | undefined)[] = [undefined, undefined];
  let turn = 0;
  // The previous slab's writes, still running while this slab reads.
  let writing: Promise<void> = Promise.resolve();
  try {
    for (const slab of slabs(sel, chunkShape, budget)) {
      let out: DataArray | undefined;
      if (dataType.itemSize !== null) {
        const k = overlap ? turn++ % 2 : 0;
        let memory = reuse[k];
        if (memory === undefined || memory.length !== slab.elements * dataType.width) {
          memory = slabMemory(dataType, slab.elements, workers !== undefined);
          reuse[k] = memory;
        }
        out = memory;
      }
      const { data } = await array.get(slab.selection, {
        signal,
        concurrency,
        out,
        workers: workers ?? false,
      });
      if (overlap) {
        const bytes = dataType.toBytes!(data, true);
        // In order: the slab before is written (and its memory free again) first.
        await writing;
        writing = writeSlab(binary, bytes);
        writing.catch(() => {}); // its failure is thrown where it is awaited
      }
      if (formatter) formatted.push(formatter.slab(data, slab.elements));
      progress.tick(slab.elements, slab.elements * itemBytes);
    }
    await writing;
    if (formatter) formatted.push(formatter.end());
  } finally {
    // No write is left running when the caller closes or aborts the sinks.
    await writing.catch(() => {});
    progress.finish();
  }
  if (text) {
    for (const piece of formatted) await text.write(piece);
    await text.close();
  }
}

/** Writes one slab's bytes to every sink, one sink after the other. */
async function writeSlab(sinks: readonly ByteSink[], bytes: Uint8Array): Promise<void> {
  for (const sink of sinks) await sink.write(bytes);
}

/**
 * A slab's memory. With workers, a typed array over shared memory: workers
 * decode chunks straight into it instead of handing them to this thread to
 * copy in.
 */
function slabMemory(dataType: DataType, elements: number, shared: boolean): DataArray {
  const probe = dataType.allocate(0);
  if (shared && ArrayBuffer.isView(probe) && typeof SharedArrayBuffer !== "undefined") {
    const slots = elements * dataType.width;
    const Typed = probe.constructor as new (buffer: SharedArrayBuffer) => DataArray;
    const memory = new Typed(
      new SharedArrayBuffer(slots * (probe as Uint8Array).BYTES_PER_ELEMENT),
    );
    if (memory.length === slots) return memory;
  }
  return dataType.allocate(elements);
}

/** Formats slabs as one JSON document or as CSV rows (the last dimension). */
function textFormatter(
  format: "json" | "csv",
  dataType: DataType,
  shape: readonly number[],
): { slab(data: DataArray, elements: number): string; end(): string } {
  const rowLength = shape.length === 0 ? 1 : shape[shape.length - 1];
  let written = 0; // elements so far
  const head = format === "json" ? `{"shape":${JSON.stringify(shape)},"data":[` : "";
  return {
    slab(data, elements) {
      const parts = new Array<string>(elements);
      for (let i = 0; i < elements; i++) {
        const e = written + i;
        if (format === "json") {
          parts[i] = (e > 0 ? "," : "") + scalarJson(dataType, dataType.getScalar(data, i));
        } else {
          const sep = e === 0 ? "" : e % rowLength === 0 ? "\n" : ",";
          parts[i] = sep + csvValue(dataType, data, i);
        }
      }
      const text = (written === 0 ? head : "") + parts.join("");
      written += elements;
      return text;
    },
    end() {
      if (format === "json") return `${written === 0 ? head : ""}]}\n`;
      return written > 0 ? "\n" : "";
    },
  };
}
