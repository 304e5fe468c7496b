import type { Command } from "../command.js";
import { STORE_HELP, WORKERS_FLAG, workersHelp } from "../flags.js";

/** Elements `--json`/`--csv` print at most unless `--max-elements` says otherwise. */
export const DEFAULT_MAX_TEXT_ELEMENTS = 10_000_000;
/**
 * Decoded bytes `get` holds in slabs: one slab for text output; two of half
 * the size for bytes (one written while the next is read). Through the read
 * concurrency, also about what is decoded at once.
 */
export const SLAB_BYTES = 32 * 2 ** 20;

/** `zarr get <store> [path] [--select SEL] (--json | --csv | --out FILE | --npy FILE)`. */
export const getCommand: Command = {
  name: "get",
  summary: "read an array or a selection of it (JSON, CSV, raw bytes, .npy)",
  help: `usage: zarr get <store> [path] [--select SEL] (--json | --csv | --out FILE | --npy FILE)

SEL is numpy-like: "0:10,::-2,5,...", "[1,3,5],:" (index arrays), "-1".

options:
  --select, -s SEL    the selection (default: everything)
  --json              print {"shape": [...], "data": [...]} (C order; NaN/Infinity and
                      integers beyond 2^53 as strings; complex as [re, im]; raw/bytes as
                      byte lists)
  --csv               print one line per row (the last dimension), values comma-separated
  --out, -o FILE      write the raw little-endian C-order bytes (- for standard output)
  --npy FILE          write a NumPy .npy file (- for standard output)
  --max-elements N    largest selection --json/--csv print (default ${DEFAULT_MAX_TEXT_ELEMENTS}); larger
                      ones are refused (exit 2) before anything is read
${workersHelp(22, "0", "(starting one cost more than it saved on 64 MiB reads, 2 cores)")}

Reads stream: the selection is read a slab of whole chunk rows at a time, and --out and
--npy write each slab while the next is read (two slabs of at most ${SLAB_BYTES / 2 ** 21} MiB decoded;
text: one of ${SLAB_BYTES / 2 ** 20} MiB), so they work for arrays of any size in bounded memory
(a file that would not fit on its disk is refused first).
A file appears only once complete (written beside it, then renamed), so a failed read
leaves what was there. --json and --csv print only after the whole selection has read:
a failure prints nothing. Only streams (--out -, --npy -, a FIFO or device as FILE) can
hold a partial output, and then the exit code is not 0. A progress line shows on an interactive terminal.

${STORE_HELP}

examples:
  zarr get data.zarr temperature --select "0,:10" --json
  zarr get data.zarr temperature --select "0" --csv > t0.csv
  zarr get data.zarr temperature --out temperature.bin
  zarr get data.zarr temperature --npy - | python -c "import numpy, sys; print(numpy.load(sys.stdin.buffer).mean())"`,
  options: {
    select: { type: "string", short: "s" },
    json: { type: "boolean" },
    csv: { type: "boolean" },
    out: { type: "string", short: "o" },
    npy: { type: "string" },
    "max-elements": { type: "string" },
    ...WORKERS_FLAG,
  },
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/get.js")).run(args, values, io);
  },
};
