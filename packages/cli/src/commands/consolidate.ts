import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr consolidate <store> [path] [--json]`: writes a group's consolidated metadata. */
export const consolidateCommand: Command = {
  name: "consolidate",
  summary: "write consolidated metadata for a group (v2 .zmetadata, v3 inline in zarr.json)",
  help: `usage: zarr consolidate <store> [path] [--json]

Writes the consolidated metadata of the group at path (default: the root), so that
the hierarchy below it opens with one read: for a v2 group its .zmetadata
({"metadata": {...}, "zarr_consolidated_format": 1}, as zarr-python 2 writes it),
for a v3 group the inline "consolidated_metadata" member of its zarr.json (as
zarr-python 3 writes it; v2 nodes and implicit groups below a v3 group are not
included). The hierarchy is read from the store, not from an older consolidated
copy; running it again without changes writes the same bytes. Needs a writable,
listable store.

options:
  --json      print {"path": ..., "format": 2|3, "nodes": N} (N: nodes below the group)

${STORE_HELP}

examples:
  zarr consolidate data.zarr
  zarr consolidate data.zarr runs/2024 --json
  zarr consolidate s3://bucket/data.zarr`,
  options: { json: { type: "boolean" } },
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/consolidate.js")).run(args, values, io);
  },
};
