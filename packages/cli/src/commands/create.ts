import type { Command } from "../command.js";
import { LAYOUT_FLAGS, LAYOUT_HELP, STORE_HELP } from "../flags.js";

/** Arrays up to this many bytes are one chunk by default. */
export const DEFAULT_CHUNK_MAX = 64 * 2 ** 20;
/** Larger arrays get default chunks of at most this many bytes. */
export const DEFAULT_CHUNK_TARGET = 16 * 2 ** 20;

/** `zarr create <store> <path>`: arrays and groups from flags or a metadata document. */
export const createCommand: Command = {
  name: "create",
  summary: "create an array or group from flags or a JSON metadata document",
  help: `usage: zarr create <store> <path> --shape S --dtype T [layout options]
       zarr create <store> <path> --group [--attrs JSON] [--format 2]
       zarr create <store> <path> --metadata FILE.json

options:
  --shape 1000,1000        array shape
  --dtype T                data type: a v3 name (float32, int64, bool, complex64, r16,
                           string, ...) or, with --format 2, also a numpy typestr
  --fill-value V           fill value (JSON, NaN, Infinity, 0x7fc00000; default 0)
  --dimension-names a,b    dimension names
  --attrs JSON             user attributes
  --group                  create a group instead of an array
  --metadata FILE          create the node a zarr.json or .zarray/.zgroup describes
  --overwrite              replace an existing node (its data is erased)
  --json                   print {"created": "array"|"group", "path": "/a"} instead of a line

${LAYOUT_HELP}
  (defaults: --format 3, --compressor none, --chunks = the shape when the array is at
  most ${DEFAULT_CHUNK_MAX / 2 ** 20} MiB, else the shape with its longest sides halved until a chunk is
  at most ${DEFAULT_CHUNK_TARGET / 2 ** 20} MiB, so that any chunk can be read and written)

${STORE_HELP}

examples:
  zarr create data.zarr temperature --shape 365,720,1440 --dtype float32 --chunks 1,720,1440 \\
      --shards 30,720,1440 --compressor blosc:zstd:5:shuffle --fill-value NaN --dimension-names time,lat,lon
  zarr create data.zarr legacy --format 2 --shape 100 --dtype "<i4" --chunks 10 --compressor zstd:3
  zarr create data.zarr group/sub --group --attrs '{"title": "x"}'
  zarr create data.zarr copy --metadata other.zarr/temperature/zarr.json`,
  options: {
    shape: { type: "string" },
    dtype: { type: "string" },
    "fill-value": { type: "string" },
    "dimension-names": { type: "string" },
    attrs: { type: "string" },
    group: { type: "boolean" },
    metadata: { type: "string" },
    overwrite: { type: "boolean" },
    json: { type: "boolean" },
    ...LAYOUT_FLAGS,
  },
  positionals: [2, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/create.js")).run(args, values, io);
  },
};
