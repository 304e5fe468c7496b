import {
  type AnyStore,
  ContainsNodeError,
  consolidate as consolidateV3,
  type JsonObject,
  open,
  type Store,
  StoreCapabilityError,
} from "@zarr/core";
import { childKey, parentPath, parseJson } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { consolidate as consolidateV2 } from "@zarr/v2-compat";
import { flag, type Io, type Values } from "../command.js";
import { openStoreArg, type StoreFlags } from "../stores.js";

/** Runs `zarr consolidate` (its options are described by the command in `commands/consolidate.ts`). */
export async function run(
  [storeArg, path = ""]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const store = await writableStore(storeArg, values as StoreFlags, "consolidate");
  const node = await open(store, path, { consolidated: false });
  if (node.kind !== "group") {
    throw new ContainsNodeError(`cannot consolidate "/${node.path}": it is an array, not a group`, {
      path: node.path,
    });
  }
  const result = await consolidateAt(store, node.path, node.zarrFormat);
  if (flag(values, "json")) {
    io.out(JSON.stringify({ path: `/${node.path}`, format: result.format, nodes: result.nodes }));
  } else {
    io.out(describe(result));
  }
  return 0;
}

/** What {@link consolidateAt} wrote. */
export interface Consolidated {
  /** The group's path (no leading `/`). */
  path: string;
  format: 2 | 3;
  /** The key of the document written (`.zmetadata` or `zarr.json` under the group). */
  key: string;
  /** Number of nodes below the group that the document lists. */
  nodes: number;
}

/** One line saying what was written. */
export function describe(c: Consolidated): string {
  const nodes = `${c.nodes} node${c.nodes === 1 ? "" : "s"}`;
  return `consolidated /${c.path} (v${c.format}): ${nodes} in ${c.key}`;
}

/** Opens the store argument and fails clearly when it cannot be written. */
export async function writableStore(
  storeArg: string,
  flags: StoreFlags,
  command: string,
): Promise<Store> {
  const store = resolveStore(await openStoreArg(storeArg, flags));
  if (!store.writable) {
    throw new StoreCapabilityError(
      `${storeArg} is a read-only store: zarr ${command} needs one it can write to`,
    );
  }
  return store;
}

/** Writes the consolidated metadata of the group at `path` in its format. */
export async function consolidateAt(
  store: AnyStore | Store,
  path: string,
  format: 2 | 3,
): Promise<Consolidated> {
  if (format === 2) {
    const doc = await consolidateV2(store, path);
    const metadata = doc.metadata as JsonObject;
    // Nodes below the group: its own ".zgroup"/".zattrs" are not counted.
    const nodes = Object.keys(metadata).filter(
      (k) => k.includes("/") && (k.endsWith("/.zarray") || k.endsWith("/.zgroup")),
    ).length;
    return { path, format, key: childKey(path, ".zmetadata"), nodes };
  }
  const group = await consolidateV3(store, path);
  const cm = group.metadata.consolidated_metadata as JsonObject;
  const nodes = Object.keys(cm.metadata as JsonObject).length;
  return { path, format, key: childKey(path, "zarr.json"), nodes };
}

/**
 * After a node at `path` changed or was deleted: writes again the consolidated
 * metadata of every group above it (nearest first, so that a group's copy is
 * fresh before an outer one reads it) that has some, and, with `self`, the
 * `.zmetadata` of the node itself (a v2 group's own `.zattrs` is listed there).
 * Returns what was written.
 */
export async function refreshConsolidated(
  store: Store,
  path: string,
  self: boolean,
): Promise<Consolidated[]> {
  const written: Consolidated[] = [];
  const candidates: string[] = self ? [path] : [];
  for (let p = parentPath(path); p !== undefined; p = parentPath(p)) candidates.push(p);
  for (const p of candidates) {
    if (await store.has(childKey(p, ".zmetadata"))) written.push(await consolidateAt(store, p, 2));
    if (p !== path && (await hasInlineConsolidated(store, p))) {
      written.push(await consolidateAt(store, p, 3));
    }
  }
  return written;
}

/** True when the group document at `path` holds v3 inline consolidated metadata. */
async function hasInlineConsolidated(store: Store, path: string): Promise<boolean> {
  const bytes = await store.get(childKey(path, "zarr.json"));
  if (bytes === undefined) return false;
  let doc: unknown;
  try {
    doc = parseJson(bytes, childKey(path, "zarr.json"));
  } catch {
    return false;
  }
  if (typeof doc !== "object" || doc === null) return false;
  const { node_type: type, consolidated_metadata: cm } = doc as Record<string, unknown>;
  return (
    type === "group" &&
    typeof cm === "object" &&
    cm !== null &&
    (cm as Record<string, unknown>).kind === "inline"
  );
}
