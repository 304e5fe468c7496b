import { type Group, open, type ZarrArray } from "@zarr/core";
import { forEachConcurrent } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { flag, type Io, type Values } from "../command.js";
import { scalarJson } from "../format.js";
import { exactCount } from "../slabs.js";
import { openStoreArg, type StoreFlags } from "../stores.js";

/** Stored chunk sizes asked for at once (object stores answer each with a request). */
const SIZE_CONCURRENCY = 16;

/** Runs `zarr info` (its options are described by the command in `commands/info.ts`). */
export async function run(
  [storeArg, path = ""]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  await info(storeArg, path, flag(values, "json"), io.out, values as StoreFlags);
  return 0;
}

async function info(
  storeArg: string,
  path: string,
  json: boolean,
  out: (s: string) => void,
  flags: StoreFlags,
): Promise<void> {
  const store = resolveStore(await openStoreArg(storeArg, flags));
  const node = await open(store, path);
  const report = node.kind === "array" ? await arrayInfo(node) : groupInfo(node);
  if (json) {
    out(JSON.stringify(report, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2));
    return;
  }
  const { grid_chunks: grid, ...shown } = report;
  if (grid !== undefined) shown.stored_chunks = `${report.stored_chunks} of ${grid}`;
  const width = Math.max(...Object.keys(shown).map((k) => k.length));
  for (const [k, v] of Object.entries(shown)) {
    const text =
      typeof v === "string"
        ? v
        : JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
    out(`${k.padEnd(width)}  ${text}`);
  }
}

function groupInfo(group: Group): Record<string, unknown> {
  return {
    path: `/${group.path}`,
    node_type: "group",
    zarr_format: group.zarrFormat,
    implicit: group.implicit,
    attributes: group.attrs,
  };
}

async function arrayInfo(array: ZarrArray): Promise<Record<string, unknown>> {
  const inner = shardInnerShape(array);
  const report: Record<string, unknown> = {
    path: `/${array.path}`,
    node_type: "array",
    zarr_format: array.zarrFormat,
    shape: array.shape,
    data_type: array.dataType.toJSON(),
    chunk_shape: inner ?? array.chunkShape,
    ...(inner ? { shard_shape: array.chunkShape } : {}),
    chunk_grid_shape: array.gridShape,
    chunk_key_encoding: array.chunkKeyEncoding.toJSON(),
    codecs: array.codecs.toJSON(),
    fill_value: JSON.parse(scalarJson(array.dataType, array.fillValue.value)),
  };
  if (array.dimensionNames) report.dimension_names = array.dimensionNames;
  report.attributes = array.attrs;
  if (array.store.listable) {
    // Cost follows stored chunks (a listing and a size per stored chunk), never the grid.
    const keys: string[] = [];
    let bytes = 0;
    const sizes = async () => {
      const batch = keys.splice(0);
      await forEachConcurrent(batch, SIZE_CONCURRENCY, async (key) => {
        // Awaited first: `bytes += await ...` would add to the value read before the await.
        const size = (await array.store.getSize(key)) ?? 0;
        bytes += size;
      });
    };
    let chunks = 0;
    for await (const { key } of array.storedChunks()) {
      chunks++;
      keys.push(key);
      if (keys.length >= 1024) await sizes();
    }
    await sizes();
    const itemSize = array.dataType.itemSize;
    const grid = exactCount(array.gridShape);
    report.stored_chunks = chunks;
    // A number while exact (grids past 2^53 chunks are decimal strings).
    report.grid_chunks = grid <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(grid) : grid.toString();
    report.stored_bytes = bytes;
    if (itemSize !== null && bytes > 0) {
      const raw = chunks * array.chunkShape.reduce((a, b) => a * b, 1) * itemSize;
      report.compression_ratio = Number((raw / bytes).toFixed(3));
    }
  }
  return report;
}

/** The inner chunk shape when the array is sharded (its codec list is one `sharding_indexed`). */
export function shardInnerShape(array: ZarrArray): number[] | undefined {
  const codecs = array.codecs.toJSON();
  if (codecs.length !== 1 || codecs[0].name !== "sharding_indexed") return undefined;
  const config = (codecs[0].configuration ?? {}) as { chunk_shape?: number[] };
  return config.chunk_shape;
}
