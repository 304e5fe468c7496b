import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr info <store> [path] [--json]`: what a node is and how it is stored. */
export const infoCommand: Command = {
  name: "info",
  summary: "what a node is: shape, data type, chunks, codecs, attributes, stored bytes",
  help: `usage: zarr info <store> [path] [--json]

Format version, node type, shape, data type, chunk and shard shape, codecs, fill
value, dimension names, attributes; for arrays in listable stores also the number
of stored chunks, stored bytes and the compression ratio.

options:
  --json      print the report as JSON

${STORE_HELP}

examples:
  zarr info data.zarr
  zarr info data.zarr temperature --json
  zarr info s3://bucket/data.zarr temperature --s3-region eu-west-1`,
  options: { json: { type: "boolean" } },
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/info.js")).run(args, values, io);
  },
};
