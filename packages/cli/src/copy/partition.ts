/**
 * `zarr copy --plan`: how a copy splits into parts (destination chunks and
 * decoded bytes per part), computed as the parts themselves would, without
 * copying anything.
 *
 * @module
 */
import { MemoryStore } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import type { CopyPlan } from "./plan.js";
import { elementBytes } from "./transfer.js";
import { planUnits } from "./units.js";

/** One part of a copy: the destination chunks (shards when sharded) it writes. */
export interface PartPlan {
  part: number;
  chunks: number;
  /** Decoded bytes of those chunks (edge chunks counted whole). */
  bytes: number;
}

/**
 * The work of each of `parts` parts (listing the source once per part, as
 * each part's process does).
 */
export async function partition(
  plan: CopyPlan,
  parts: number,
  signal?: AbortSignal,
): Promise<PartPlan[]> {
  // Units depend on the destination only with --resume; a plan never resumes.
  const nowhere = resolveStore(new MemoryStore());
  const out: PartPlan[] = [];
  for (let part = 0; part < parts; part++) {
    const units = await planUnits(plan, nowhere, { part, parts, resume: false, signal });
    let chunks = 0;
    let bytes = 0;
    for (const { node, count } of units) {
      chunks += count;
      bytes += count * node.plan.chunkShape.reduce((a, b) => a * b, 1) * elementBytes(node);
    }
    out.push({ part, chunks, bytes });
  }
  return out;
}
