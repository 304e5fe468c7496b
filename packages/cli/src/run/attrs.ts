import { type JsonObject, type JsonValue, open } from "@zarr/core";
import { parseJson, stringifyJson } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { type Io, str, type Values } from "../command.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { UsageError } from "../usage.js";
import { describe, refreshConsolidated, writableStore } from "./consolidate.js";

/** A missing attribute for `--delete` (exit code 2). */
class MissingAttributeError extends Error {
  override name = "MissingAttributeError";
}

/** Runs `zarr attrs` (its options are described by the command in `commands/attrs.ts`). */
export async function run(
  [storeArg, path = ""]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const actions = (["set", "merge", "delete"] as const).filter((a) => str(values, a) !== undefined);
  if (actions.length > 1) {
    throw new UsageError(
      `use one of --set, --merge and --delete at a time, got ${actions.map((a) => `--${a}`).join(" and ")}`,
    );
  }
  const action = actions[0];
  const given =
    action === "set" || action === "merge"
      ? jsonObject(str(values, action)!, `--${action}`)
      : undefined;
  const flags = values as StoreFlags;
  if (action === undefined) {
    const node = await open(resolveStore(await openStoreArg(storeArg, flags)), path, {
      consolidated: false,
    });
    io.out(stringifyJson(node.attrs, 2));
    return 0;
  }
  const store = await writableStore(storeArg, flags, "attrs");
  const node = await open(store, path, { consolidated: false });
  let attrs: JsonObject;
  if (action === "delete") {
    const key = str(values, "delete")!;
    if (!Object.hasOwn(node.attrs, key)) {
      throw new MissingAttributeError(
        `no attribute ${JSON.stringify(key)} at /${node.path} (it has: ${Object.keys(node.attrs).sort().join(", ") || "none"})`,
      );
    }
    const { [key]: _removed, ...rest } = node.attrs;
    attrs = rest;
  } else {
    attrs = action === "set" ? given! : { ...node.attrs, ...given! };
  }
  await node.setAttributes(attrs);
  io.out(stringifyJson(attrs, 2));
  const refreshed = await refreshConsolidated(store, node.path, node.kind === "group");
  for (const c of refreshed) io.err(`zarr: updated ${describe(c)}`);
  return 0;
}

/** Parses an option's value as a JSON object (exact integers); anything else is a usage error. */
function jsonObject(text: string, option: string): JsonObject {
  let value: JsonValue;
  try {
    value = parseJson(text, option);
  } catch (e) {
    throw new UsageError(`${option} is not valid JSON: ${e instanceof Error ? e.message : e}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw new UsageError(`${option} needs a JSON object ({"key": value, ...}), got ${kind}`);
  }
  return value;
}
