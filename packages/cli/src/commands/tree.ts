import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr tree <store> [path] [--depth N]`: the hierarchy with shapes and data types. */
export const treeCommand: Command = {
  name: "tree",
  summary: "the hierarchy below a node, with shapes and data types",
  help: `usage: zarr tree <store> [path] [--depth N] [--json]

Prints the groups and arrays below a node. Uses consolidated metadata when the
group has it (one read, no listing).

options:
  --depth N   levels below the node to show (default: all)
  --json      print the tree as nested JSON (path, node_type, zarr_format, shape,
              data_type, children; see docs/cli.md)

${STORE_HELP}

examples:
  zarr tree data.zarr
  zarr tree data.zarr group/sub --depth 1
  zarr tree data.zarr --json
  zarr tree https://example.org/data.zarr | head`,
  options: { depth: { type: "string" }, json: { type: "boolean" } },
  positionals: [1, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/tree.js")).run(args, values, io);
  },
};
