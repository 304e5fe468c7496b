import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr verify <store> [path]`. */
export const verifyCommand: Command = {
  name: "verify",
  summary: "decode every stored chunk, check checksums, report corrupt and unexpected keys",
  help: `usage: zarr verify <store> [path] [--json] [--jobs N]

Decodes every stored chunk of every array at or below the node (so crc32c
checksums, shard indexes and compressed streams are all checked), and lists keys
that are neither metadata nor a chunk inside an array's grid. Exit code 2 when
anything is corrupt or unexpected.

options:
  --json       print {"arrays", "chunks", "corrupt": [{key, reason}], "unexpected": [...]}
  --jobs N     chunks decoded at once (default 8)

${STORE_HELP}

examples:
  zarr verify data.zarr
  zarr verify s3://bucket/data.zarr temperature --json`,
  options: { json: { type: "boolean" }, jobs: { type: "string" } },
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/verify.js")).run(args, values, io);
  },
};
