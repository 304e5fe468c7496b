import { eraseNode, open } from "@zarr/core";
import { flag, type Io, str, type Values } from "../command.js";
import type { StoreFlags } from "../stores.js";
import { UsageError } from "../usage.js";
import { describe, refreshConsolidated, writableStore } from "./consolidate.js";

/** Runs `zarr rm` (its options are described by the command in `commands/rm.ts`). */
export async function run(
  [storeArg, extra]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  if (extra !== undefined) {
    throw new UsageError(`zarr rm takes the node to delete as --path ${extra}, not as an argument`);
  }
  const pathOption = str(values, "path");
  const rootOption = flag(values, "root");
  const path = (pathOption ?? "").replace(/^\/+|\/+$/g, "");
  // Checked before anything is erased: an empty, "." or ".." segment names no node.
  if (path.split("/").some((s) => s === "" || s === "." || s === "..") && path !== "")
    throw new UsageError(
      `--path ${JSON.stringify(pathOption)} is not a node path (an empty, "." or ".." segment)`,
    );
  if (pathOption === undefined && !rootOption) {
    throw new UsageError(
      "zarr rm needs --path P (the node to delete), or --root to delete everything in the store",
    );
  }
  if (rootOption && path !== "") {
    throw new UsageError(
      `--root deletes the whole store: it cannot be combined with --path ${pathOption}`,
    );
  }
  if (path === "" && !rootOption) {
    throw new UsageError(
      "refusing to delete the root group (everything in the store): pass --root to do so",
    );
  }
  const store = await writableStore(storeArg, values as StoreFlags, "rm");
  // The node's own documents, not a consolidated copy (which may be stale).
  const node = await open(store, path, { consolidated: false });
  if (node.kind === "group" && !flag(values, "recursive")) {
    const names = await node.childNames();
    if (names.length > 0) {
      const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? ", ..." : "");
      throw new UsageError(
        `"/${path}" is a group with ${names.length} child node${names.length === 1 ? "" : "s"} (${shown}): pass --recursive to delete it and everything below it`,
      );
    }
  }
  await eraseNode(store, path);
  const refreshed = await refreshConsolidated(store, path, false);
  if (flag(values, "json")) {
    const consolidated = refreshed.map((c) => ({
      path: `/${c.path}`,
      format: c.format,
      nodes: c.nodes,
    }));
    io.out(JSON.stringify({ removed: node.kind, path: `/${path}`, consolidated }));
    return 0;
  }
  io.out(`removed ${node.kind} /${path}`);
  for (const c of refreshed) io.out(`updated: ${describe(c)}`);
  return 0;
}
