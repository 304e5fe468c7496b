/**
 * numcodecs `categorize`: strings from a fixed list of `labels` stored as
 * small integers (1-based; 0 for any other value, which decodes to "").
 *
 * @module
 */
import { CodecError, type DataArray } from "@zarr/core";
import type { ChunkSpec } from "@zarr/core/codec";
import { count, filterCodec, filterFactory } from "./common.js";
import { store } from "./numeric.js";

function categorizeFactory(name: string) {
  return filterFactory(
    (config, context) => {
      const labels = config.json.labels;
      if (!Array.isArray(labels) || labels.some((l) => typeof l !== "string"))
        throw config.error("labels", "must be a list of strings");
      const { json: dtypeJson } = config.dtype("dtype");
      const { dataType: astype, json: astypeJson } = config.dtype("astype", "|u1");
      if (astype.kind !== "uint" && astype.kind !== "int")
        throw config.error("astype", `must be an integer type, got ${astype.name}`);
      const kind = context.spec.dataType;
      if (kind.slotBytes !== 0)
        throw config.error("dtype", `categorize encodes strings, not ${kind.name}`);
      const index = new Map<string, number>();
      (labels as string[]).forEach((l, i) => {
        if (!index.has(l)) index.set(l, i + 1);
      });
      return filterCodec({
        name,
        json: { labels: labels as string[], dtype: dtypeJson, astype: astypeJson },
        encodedSpec: (spec: ChunkSpec) => ({
          ...spec,
          dataType: astype,
          fillValue: astype.defaultFillValue(),
        }),
        encode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const out = astype.allocate(n);
          const src = data as string[];
          for (let i = 0; i < n; i++) store(out, astype, i, index.get(src[i]) ?? 0);
          return out;
        },
        decode(data: DataArray, spec: ChunkSpec) {
          const n = count(spec.shape);
          const out = kind.allocate(n) as string[];
          const src = data as unknown as ArrayLike<number | bigint>;
          for (let i = 0; i < n; i++) {
            const c = Number(src[i]);
            if (c === 0) continue;
            const label = (labels as string[])[c - 1];
            if (label === undefined) {
              throw new CodecError(
                `${config.path}: categorize: code ${c} has no label (${labels.length} labels)`,
                { path: config.path },
              );
            }
            out[i] = label;
          }
          return out;
        },
      });
    },
    "categorize",
    name,
  );
}

/** `categorize`. */
export const categorizeCodec = categorizeFactory("categorize");
/** `numcodecs.categorize`. */
export const numcodecsCategorizeCodec = categorizeFactory("numcodecs.categorize");
