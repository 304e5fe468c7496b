import { writeFile } from "node:fs/promises";
import { type NDArray, openArray, parseSelection, resolveStore, type Selection } from "@zarr/core";
import { type Command, flag, str } from "../command.js";
import { arrayJson, scalarJson } from "../format.js";
import { encodeNpy } from "../npy.js";
import { openStoreArg, STORE_HELP, type StoreFlags } from "../stores.js";
import { UsageError } from "../usage.js";

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

/** One line per row (all dimensions but the last flattened), values separated by commas. */
function csvLines(array: NDArray, out: (s: string) => void): void {
  const n = array.shape.reduce((a, b) => a * b, 1);
  const rowLength = array.shape.length === 0 ? 1 : array.shape[array.shape.length - 1];
  if (n === 0) return;
  for (let start = 0; start < n; start += rowLength) {
    const fields: string[] = [];
    for (let i = start; i < start + rowLength; i++) {
      const value = array.dataType.getScalar(array.data, i);
      const json = scalarJson(array.dataType, value);
      fields.push(csvField(typeof value === "string" ? value : json.replace(/^"(.*)"$/, "$1")));
    }
    out(fields.join(","));
  }
}

/** `zarr get <store> [path] [--select SEL] (--json | --csv | --out FILE | --npy FILE)`. */
export const getCommand: Command = {
  name: "get",
  summary: "read an array or a selection of it (JSON, CSV, raw bytes, .npy)",
  help: `usage: zarr get <store> [path] [--select SEL] (--json | --csv | --out FILE | --npy FILE)

SEL is numpy-like: "0:10,::-2,5,...", "[1,3,5],:" (index arrays), "-1".

options:
  --select, -s SEL  the selection (default: everything)
  --json            print {"shape": [...], "data": [...]} (C order; NaN/Infinity and
                    integers beyond 2^53 as strings; complex as [re, im]; raw/bytes as
                    byte lists)
  --csv             print one line per row (the last dimension), values comma-separated
  --out, -o FILE    write the raw little-endian C-order bytes
  --npy FILE        write a NumPy .npy file

${STORE_HELP}

examples:
  zarr get data.zarr temperature --select "0,:10" --json
  zarr get data.zarr temperature --select "0" --csv > t0.csv
  zarr get data.zarr temperature --out temperature.bin
  zarr get data.zarr temperature --npy temperature.npy`,
  options: {
    select: { type: "string", short: "s" },
    json: { type: "boolean" },
    csv: { type: "boolean" },
    out: { type: "string", short: "o" },
    npy: { type: "string" },
  },
  positionals: [1, 2],
  async run([storeArg, path = ""], values, io) {
    const json = flag(values, "json");
    const csv = flag(values, "csv");
    const outFile = str(values, "out");
    const npyFile = str(values, "npy");
    if (!json && !csv && !outFile && !npyFile)
      throw new UsageError("zarr get needs --json, --csv, --out FILE or --npy FILE");
    if (json && csv) throw new UsageError("--json and --csv both print to stdout; pick one");
    const selection = selectionOption(str(values, "select"));
    const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
    const array = await openArray(store, path);
    if ((outFile || npyFile) && !array.dataType.toBytes) {
      throw new UsageError(
        `--out and --npy write fixed-size data only; ${array.dataType.name} is variable-size (use --json)`,
      );
    }
    const result = await array.get(selection, { signal: io.signal });
    if (outFile) await writeFile(outFile, array.dataType.toBytes!(result.data, true));
    if (npyFile) await writeFile(npyFile, encodeNpy(array.dataType, result.data, result.shape));
    if (json) io.out(arrayJson(result));
    if (csv) csvLines(result, io.out);
    return 0;
  },
};
