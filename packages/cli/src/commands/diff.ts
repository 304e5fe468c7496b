import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** Differing elements listed per array unless `--max-report` says otherwise. */
export const DEFAULT_MAX_REPORT = 10;

/** `zarr diff <a> <b> [--path P] [--path-b P2] [--tolerance T] [--json] [--max-report N]`. */
export const diffCommand: Command = {
  name: "diff",
  summary: "compare two arrays or hierarchies: shapes, data types, values, attributes",
  help: `usage: zarr diff <a> <b> [--path P] [--path-b P2] [--tolerance T] [--json] [--max-report N]

Compares the node at --path of <a> with the node at --path-b (default: --path) of
<b>. Groups are compared recursively: child names present on one side only are
differences, and each pair of children is compared. Arrays compare shape, data
type, attributes and then values, read a slab of chunk rows at a time (bounded
memory, whatever the array size; a progress line shows on an interactive terminal).

What counts as a difference: the kind (array or group), shape, data type, values,
attributes, and child names. Reported but not counted (a 'zarr copy' conversion
changes them and keeps the data): Zarr format, chunk and shard shape, codecs,
fill value, chunk key encoding, dimension names. Values are compared only when
shape and data type are the same.

Values: numbers compare as numbers: NaN equals NaN (any payload), -0 equals 0.
--tolerance T (absolute, numeric types only) accepts |a - b| <= T (complex: each
of the real and imaginary parts); NaN still equals only NaN, and Infinity only
itself. Other types (bool, strings, bytes, r<N>) compare exactly.

options:
  --path P          the node in <a> (and in <b> unless --path-b; default: root)
  --path-b P2       the node in <b>
  --tolerance T     absolute tolerance for numeric values (default 0: exact)
  --max-report N    differing elements listed per array (default ${DEFAULT_MAX_REPORT}; 0: count only)
  --json            print the report as one JSON object (schema in docs/cli.md)

Exit codes (as diff(1)): 0 same, 1 different, 2 error (a missing node, unreadable
data). A usage error also exits 1, with a "zarr: usage:" message on standard error.

${STORE_HELP}

examples:
  zarr copy v2.zarr v3.zarr --format 3 --chunks 100,100 --compressor zstd:3
  zarr diff v2.zarr v3.zarr
  zarr diff run1.zarr run2.zarr --path temperature --tolerance 1e-6 --json
  zarr diff data.zarr s3://bucket/data.zarr --path raw --path-b archive/raw`,
  options: {
    path: { type: "string" },
    "path-b": { type: "string" },
    tolerance: { type: "string" },
    "max-report": { type: "string" },
    json: { type: "boolean" },
  },
  positionals: [2, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/diff.js")).run(args, values, io);
  },
};
