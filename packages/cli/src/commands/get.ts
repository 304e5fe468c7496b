import { writeFile } from "node:fs/promises";
import { openArray, parseSelection, resolveStore, type Selection } from "@zarr/core";
import { arrayJson } from "../format.js";
import { openStoreArg } from "../stores.js";
import { UsageError } from "../usage.js";

/** `zarr get <store> [path] [--select SEL] (--json | --out FILE)`. */
export async function get(
  storeArg: string,
  path: string,
  options: { select?: string; json: boolean; out?: string },
  write: (s: string) => void,
): Promise<void> {
  if (!options.json && !options.out) throw new UsageError("zarr get needs --json or --out FILE");
  const store = resolveStore(await openStoreArg(storeArg));
  const array = await openArray(store, path);
  let selection: Selection | undefined;
  try {
    selection = options.select === undefined ? undefined : parseSelection(options.select);
  } catch (e) {
    throw new UsageError(`--select: ${e instanceof Error ? e.message : String(e)}`);
  }
  const result = await array.get(selection);
  if (options.out) {
    if (!array.dataType.toBytes) {
      throw new UsageError(
        `--out writes fixed-size data only; ${array.dataType.name} is variable-size (use --json)`,
      );
    }
    await writeFile(options.out, array.dataType.toBytes(result.data, true));
  }
  if (options.json) write(arrayJson(result));
}
