/**
 * A {@link CodecContext} for unit-testing codec factories outside an array.
 *
 * @module
 */

import { CodecPipeline } from "../codecs/pipeline.js";
import type { ChunkSpec, CodecContext } from "../codecs/types.js";
import { resolveDataType } from "../dtypes/index.js";
import type { JsonValue } from "../dtypes/types.js";

/**
 * Builds the context a codec factory receives, for chunks of `shape` and
 * `dataType` (default fill value), as core would pass it.
 *
 * ```ts
 * const codec = await myFactory.fromConfig({ level: 3 }, codecTestContext([64], "float32"));
 * ```
 */
export function codecTestContext(
  shape: readonly number[],
  dataType: JsonValue,
  options: { path?: string; format?: 2 | 3 } = {},
): CodecContext {
  const path = options.path ?? "test/zarr.json";
  const dt = resolveDataType(dataType, path);
  const spec: ChunkSpec = { shape, dataType: dt, fillValue: dt.defaultFillValue() };
  const format = options.format ?? 3;
  return {
    spec,
    path,
    format,
    pipeline: (codecs, innerSpec, innerPath) =>
      CodecPipeline.create(codecs, innerSpec, innerPath, format),
  };
}
