import { type Group, open, resolveStore, type ZarrArray } from "@zarr/core";
import { scalarJson } from "../format.js";
import { openStoreArg } from "../stores.js";

/** `zarr info <store> [path] [--json]`: what a node is and how it is stored. */
export async function info(
  storeArg: string,
  path: string,
  json: boolean,
  out: (s: string) => void,
): Promise<void> {
  const store = resolveStore(await openStoreArg(storeArg));
  const node = await open(store, path);
  const report = node.kind === "array" ? await arrayInfo(node) : groupInfo(node);
  if (json) {
    out(JSON.stringify(report, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2));
    return;
  }
  const width = Math.max(...Object.keys(report).map((k) => k.length));
  for (const [k, v] of Object.entries(report)) {
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
  const report: Record<string, unknown> = {
    path: `/${array.path}`,
    node_type: "array",
    zarr_format: array.zarrFormat,
    shape: array.shape,
    data_type: array.dataType.toJSON(),
    chunk_shape: array.chunkShape,
    chunk_grid_shape: array.gridShape,
    chunk_key_encoding: array.chunkKeyEncoding.toJSON(),
    codecs: array.codecs.toJSON(),
    fill_value: JSON.parse(scalarJson(array.dataType, array.fillValue.value)),
  };
  if (array.dimensionNames) report.dimension_names = array.dimensionNames;
  report.attributes = array.attrs;
  if (array.store.listable) {
    let chunks = 0;
    let bytes = 0;
    for await (const { key } of array.storedChunks()) {
      chunks++;
      bytes += (await array.store.getSize(key)) ?? 0;
    }
    const itemSize = array.dataType.itemSize;
    report.stored_chunks = `${chunks} of ${array.gridShape.reduce((a, b) => a * b, 1)}`;
    report.stored_bytes = bytes;
    if (itemSize !== null && bytes > 0) {
      const raw = chunks * array.chunkShape.reduce((a, b) => a * b, 1) * itemSize;
      report.compression_ratio = Number((raw / bytes).toFixed(3));
    }
  }
  return report;
}
