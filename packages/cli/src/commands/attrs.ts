import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr attrs <store> [path] [--set JSON | --merge JSON | --delete KEY]`: user attributes. */
export const attrsCommand: Command = {
  name: "attrs",
  summary: "print or change the attributes of an array or group",
  help: `usage: zarr attrs <store> [path] [--set JSON | --merge JSON | --delete KEY]

Prints the user attributes of the node at path (default: the root) as JSON, or
changes them: v2 nodes in .zattrs, v3 nodes in the "attributes" of zarr.json.
After a change the new attributes are printed, and the consolidated metadata of
groups that list the node (v2 .zmetadata, v3 inline in zarr.json) is written
again. Changes need a writable store.

options:
  --set JSON      replace all attributes with the JSON object
  --merge JSON    add or replace the top-level keys of the JSON object
  --delete KEY    remove the attribute KEY (an error when there is none)

${STORE_HELP}

examples:
  zarr attrs data.zarr temperature
  zarr attrs data.zarr temperature --merge '{"units": "K"}'
  zarr attrs data.zarr --set '{"title": "Station data"}'
  zarr attrs data.zarr temperature --delete long_name`,
  options: {
    set: { type: "string" },
    merge: { type: "string" },
    delete: { type: "string" },
  },
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/attrs.js")).run(args, values, io);
  },
};
