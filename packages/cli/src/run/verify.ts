import { type HierarchyNode, open, type ZarrArray } from "@zarr/core";
import { nodePrefix } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { green, type Io, red, str, type Values } from "../command.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { parseCount } from "../usage.js";

const DOCS = new Set(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata", "meta", "attrs"]);

/** What `zarr verify` found. */
export interface VerifyReport {
  arrays: number;
  chunks: number;
  corrupt: { key: string; reason: string }[];
  unexpected: string[];
}

/**
 * Decodes every stored chunk of every array at or below `root` (checksums
 * such as crc32c are checked by decoding) and lists keys that belong to no
 * node: neither a metadata document nor a chunk inside an array's grid.
 */
export async function verifyHierarchy(
  root: HierarchyNode,
  options: { jobs: number; signal?: AbortSignal; onChunk?: () => void },
): Promise<VerifyReport> {
  const nodes: HierarchyNode[] = [root];
  if (root.kind === "group")
    for await (const n of root.walk({ signal: options.signal })) nodes.push(n);
  const arrays = nodes.filter((n): n is ZarrArray => n.kind === "array");
  // Longest prefix first, so a key is attributed to the deepest node containing it.
  const owners = [...nodes].sort((a, b) => b.path.length - a.path.length);
  const report: VerifyReport = { arrays: arrays.length, chunks: 0, corrupt: [], unexpected: [] };
  const store = root.store;
  // Chunks are decoded while the listing goes on, at most `jobs` at once: memory stays
  // bounded however many chunks are stored (and cost follows them, not the grids).
  const jobs = Math.max(1, options.jobs);
  const running = new Set<Promise<void>>();
  let aborted: unknown;
  const check = async (array: ZarrArray, key: string, coords: number[]): Promise<void> => {
    try {
      await array.getChunk(coords, { signal: options.signal });
    } catch (e) {
      if (options.signal?.aborted) {
        aborted ??= e;
        return;
      }
      report.corrupt.push({
        key,
        reason: e instanceof Error ? e.message.split("\n")[0] : String(e),
      });
    }
    report.chunks++;
    options.onChunk?.();
  };
  for await (const key of store.listPrefix(nodePrefix(root.path), { signal: options.signal })) {
    if (aborted !== undefined) break;
    const owner = owners.find((n) => n.path === "" || key.startsWith(`${n.path}/`));
    const rel = owner && owner.path !== "" ? key.slice(owner.path.length + 1) : key;
    if (DOCS.has(rel)) continue;
    if (owner?.kind === "array") {
      const coords = owner.chunkKeyEncoding.decode(rel, owner.ndim);
      const grid = owner.gridShape;
      if (coords?.every((c, i) => c < grid[i])) {
        const job: Promise<void> = check(owner, key, coords).finally(() => running.delete(job));
        running.add(job);
        if (running.size >= jobs) await Promise.race(running);
        continue;
      }
    }
    report.unexpected.push(key);
  }
  await Promise.all(running);
  if (aborted !== undefined) throw aborted;
  report.corrupt.sort((a, b) => (a.key < b.key ? -1 : 1));
  report.unexpected.sort();
  return report;
}

function print(report: VerifyReport, io: Io, json: boolean): void {
  if (json) {
    io.out(JSON.stringify(report));
    return;
  }
  for (const c of report.corrupt) io.out(`${red(io, "corrupt")}     ${c.key}: ${c.reason}`);
  for (const k of report.unexpected) io.out(`${red(io, "unexpected")}  ${k}`);
  const ok = report.corrupt.length === 0 && report.unexpected.length === 0;
  io.out(
    `${ok ? green(io, "ok") : red(io, "FAILED")}: ${count(report.chunks, "chunk")} in ${count(report.arrays, "array")} decoded; ` +
      `${report.corrupt.length} corrupt, ${count(report.unexpected.length, "unexpected key")}`,
  );
}

/** `1 chunk`, `2 chunks`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Runs `zarr verify` (its options are described by the command in `commands/verify.ts`). */
export async function run(
  [storeArg, path = ""]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const jobs =
    str(values, "jobs") === undefined ? 8 : parseCount(str(values, "jobs")!, "--jobs", 1);
  const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
  const root = await open(store, path, { consolidated: false, signal: io.signal });
  const report = await verifyHierarchy(root, { jobs, signal: io.signal });
  print(report, io, values.json === true);
  return report.corrupt.length || report.unexpected.length ? 2 : 0;
}
