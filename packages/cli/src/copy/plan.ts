/**
 * Planning a copy: which source nodes go where, with which destination
 * layout. Every process of a `--part` run computes the same plan (it depends
 * only on the source and the flags), so the parts agree on chunk boundaries
 * and keys without talking to each other. Plans are materialized in a
 * private in-memory store, which gives each destination array its codec
 * pipeline and chunk keys before (or without) any metadata is written to the
 * destination.
 *
 * @module
 */
import {
  consolidate as consolidateV3,
  createGroup,
  type Group,
  type HierarchyNode,
  MemoryStore,
  open,
  type Store,
  type ZarrArray,
} from "@zarr/core";
import { childKey, parentPath } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { consolidate as consolidateV2, createGroupV2 } from "@zarr/v2-compat";
import { applyLayoutFlags, LAYOUT_FLAGS, type Layout, layoutOf, writeLayout } from "../layout.js";
import { UsageError } from "../usage.js";

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** One node of a copy. */
export type PlannedNode =
  | { kind: "group"; src: Group; dstPath: string; format: 2 | 3 }
  | { kind: "array"; src: ZarrArray; dstPath: string; layout?: Layout; plan: ZarrArray };

/** The whole copy plan. */
export interface CopyPlan {
  nodes: PlannedNode[];
  arrays: Extract<PlannedNode, { kind: "array" }>[];
  /** The in-memory store holding the destination metadata documents. */
  meta: Store;
  dstPath: string;
  format: 2 | 3;
}

/** True when any flag that changes an array's layout is set (besides a --format equal to the source's). */
function hasLayoutFlags(flags: Record<string, unknown>): boolean {
  return Object.keys(LAYOUT_FLAGS).some((name) => name !== "format" && flags[name] !== undefined);
}

/**
 * Copies an array's own metadata documents unchanged into the planning store and
 * opens the array from there, or returns undefined when the documents are not
 * stored as files (e.g. only in consolidated metadata) or the format differs.
 * Keeps everything, including codecs without a v3 form (json2 object arrays).
 */
async function copyDocs(src: ZarrArray, meta: Store, path: string): Promise<ZarrArray | undefined> {
  const names = src.zarrFormat === 3 ? ["zarr.json"] : [".zarray", ".zattrs"];
  const first = await src.store.get(childKey(src.path, names[0]));
  if (first === undefined) return undefined;
  await meta.set(childKey(path, names[0]), first);
  for (const name of names.slice(1)) {
    const bytes = await src.store.get(childKey(src.path, name));
    if (bytes !== undefined) await meta.set(childKey(path, name), bytes);
  }
  const node = await open(meta, path, { consolidated: false });
  return node.kind === "array" && node.zarrFormat === src.zarrFormat ? node : undefined;
}

function join(base: string, rel: string): string {
  return rel === "" ? base : base === "" ? rel : `${base}/${rel}`;
}

/** Builds the plan for copying `root` (and, for a group, everything below it) to `dstPath`. */
export async function planCopy(
  root: HierarchyNode,
  dstPath: string,
  flags: Record<string, unknown>,
  note: (s: string) => void,
  signal?: AbortSignal,
): Promise<CopyPlan> {
  const meta = resolveStore(new MemoryStore());
  const sources: HierarchyNode[] = [root];
  if (root.kind === "group") for await (const n of root.walk({ signal })) sources.push(n);
  const nodes: PlannedNode[] = [];
  // Without --format every node keeps its own format (a v2 group inside a v3 hierarchy stays v2).
  const forced = flags.format === "2" ? 2 : flags.format === "3" ? 3 : undefined;
  for (const src of sources) {
    const rel = root.path === "" ? src.path : src.path.slice(root.path.length + 1);
    const path = join(dstPath, rel);
    const format = forced ?? src.zarrFormat;
    if (src.kind === "group") {
      if (format === 2) await createGroupV2(meta, path, { attributes: src.attrs, overwrite: true });
      else await createGroup(meta, path, { attributes: src.attrs, overwrite: true });
      nodes.push({ kind: "group", src, dstPath: path, format });
    } else {
      const verbatim =
        format === src.zarrFormat && !hasLayoutFlags(flags)
          ? await copyDocs(src, meta, path)
          : undefined;
      if (verbatim) {
        nodes.push({ kind: "array", src, dstPath: path, plan: verbatim });
        continue;
      }
      const layout = applyLayoutFlags(layoutOf(src), flags, src.zarrFormat);
      if (format === 2) layout.shards = undefined;
      const plan = await writeLayout(meta, path, layout, { overwrite: true, note });
      nodes.push({ kind: "array", src, dstPath: path, layout, plan });
    }
  }
  return {
    nodes,
    arrays: nodes.filter((n): n is Extract<PlannedNode, { kind: "array" }> => n.kind === "array"),
    meta,
    dstPath,
    format: forced ?? root.zarrFormat,
  };
}

const DOC_NAMES = ["zarr.json", ".zarray", ".zgroup", ".zattrs"];

/**
 * Writes the planned metadata documents to `dst`: every document of the
 * copied nodes, plus parent groups of the destination path where `dst` has
 * none (existing parents are left alone). Never erases anything.
 */
export async function writePlanMetadata(
  plan: CopyPlan,
  dst: Store,
  options: { consolidate?: boolean; requireSame?: boolean; signal?: AbortSignal } = {},
): Promise<void> {
  // Only each node's own documents in its own format (creating a v2 node in the
  // planning store also adds v2 documents at its v3 ancestors, and vice versa).
  const docs = new Set<string>();
  for (const node of plan.nodes) {
    const format = node.kind === "group" ? node.format : node.plan.zarrFormat;
    const names =
      format === 3 ? ["zarr.json"] : [node.kind === "group" ? ".zgroup" : ".zarray", ".zattrs"];
    for (const n of names) docs.add(childKey(node.dstPath, n));
  }
  const parents = new Set<string>();
  for (let p = parentPath(plan.dstPath); p !== undefined; p = parentPath(p))
    for (const n of DOC_NAMES) parents.add(childKey(p, n));
  const writes: [string, Uint8Array][] = [];
  for await (const key of plan.meta.list(options)) {
    const bytes = await plan.meta.get(key);
    if (bytes === undefined) continue;
    if (docs.has(key)) writes.push([key, bytes]);
    else if (parents.has(key) && !(await dst.has(key, options))) writes.push([key, bytes]);
  }
  if (options.requireSame) {
    // Resuming under other layout flags would mix two chunk layouts in one array.
    for (const [key, bytes] of writes) {
      if (!key.endsWith("zarr.json") && !key.endsWith(".zarray")) continue;
      const stored = await dst.get(key, undefined, options);
      if (stored !== undefined && !sameBytes(stored, bytes)) {
        throw new UsageError(
          `--resume: the destination's ${key} differs from what this copy would write; rerun with the flags of the first run (or --overwrite)`,
        );
      }
    }
  }
  for (const [key, bytes] of writes) await dst.set(key, bytes, options);
  const root = plan.nodes[0];
  if (options.consolidate && root?.kind === "group") {
    if (plan.format === 3) await consolidateV3(dst, plan.dstPath);
    else await consolidateV2(dst, plan.dstPath);
  }
}
