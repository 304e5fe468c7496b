import type { Command } from "../command.js";
import { STORE_HELP } from "../flags.js";

/** `zarr set <store> path --select SEL (--value V | --from FILE)`. */
export const setCommand: Command = {
  name: "set",
  summary: "write a scalar or a file into a selection of an array",
  help: `usage: zarr set <store> <path> [--select SEL] (--value V | --from FILE)

options:
  --select, -s SEL  the selection to write (default: everything)
  --value V         a scalar broadcast to the selection: a JSON number, true/false,
                    "NaN", "Infinity", a string (string arrays), [re, im] (complex)
  --from FILE       a .npy file, or raw little-endian C-order bytes, of the selection's shape

${STORE_HELP}

examples:
  zarr set data.zarr temperature --select "0,:,:" --value NaN
  zarr set data.zarr temperature --select "0:2" --from block.npy
  zarr set data.zarr names --select 3 --value '"Oslo"'
  zarr set data.zarr offsets --select -1 --value=-7     (negative numbers: use --value=)`,
  options: {
    select: { type: "string", short: "s" },
    value: { type: "string" },
    from: { type: "string" },
  },
  positionals: [2, 2],
  async run(args, values, io) {
    // The implementation (and the core, codec and store code it needs) loads
    // only when the command runs, not for `--help` or a usage error.
    return (await import("../run/set.js")).run(args, values, io);
  },
};
