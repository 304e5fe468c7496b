import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr rm <store> --path P [--recursive] [--root]`: deletes an array or group. */
export const rmCommand: Command = {
  name: "rm",
  summary: "delete an array or group (with --recursive, everything below a group)",
  help: `usage: zarr rm <store> --path P [--recursive]
       zarr rm <store> --root [--recursive]

Deletes the array or group at P: its metadata and every key below it. A group
with child nodes is deleted only with --recursive; the root (the whole store) only
with --root. Consolidated metadata of the groups above P (v2 .zmetadata, v3 inline
in zarr.json) is written again, so that it no longer lists what was deleted.
Needs a writable store.

options:
  --path P      the node to delete, e.g. runs/2024/temps
  --recursive   also delete a group's child nodes
  --root        delete the root: everything in the store (instead of --path)
  --json        print {"removed": "array"|"group", "path", "consolidated": [{"path",
                "format", "nodes"}]} (consolidated metadata rewritten above the node)

${STORE_HELP}

examples:
  zarr rm data.zarr --path temperature
  zarr rm data.zarr --path runs/2024 --recursive
  zarr rm scratch.zarr --root --recursive`,
  options: {
    path: { type: "string" },
    recursive: { type: "boolean", short: "r" },
    root: { type: "boolean" },
    json: { type: "boolean" },
  },
  // A second positional is refused with a hint: the node is named with --path only.
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/rm.js")).run(args, values, io);
  },
};
