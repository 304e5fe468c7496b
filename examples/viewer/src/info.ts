/**
 * Text descriptions of an array for the info panel: codecs with the inner
 * codecs of a sharded array, and physical coordinates with units.
 *
 * @module
 */
import type { JsonObject, JsonValue, ZarrArray } from "@zarr/core";

interface CodecJson {
  name: string;
  configuration?: JsonObject;
}

function isCodec(v: JsonValue | undefined): v is JsonObject & { name: string } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof v.name === "string";
}

/** Short configuration summary, e.g. `level 5` or `cname lz4, clevel 5, shuffle shuffle`. */
function summary(config: JsonObject | undefined, skip: string[]): string {
  if (!config) return "";
  return Object.entries(config)
    .filter(
      ([k, v]) => !skip.includes(k) && (typeof v !== "object" || v === null || Array.isArray(v)),
    )
    .map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.join(", ")}]` : String(v)}`)
    .join(", ");
}

/**
 * One codec as text; `sharding_indexed` lists its inner codecs and index codecs
 * (zarr v3 sharding codec, §configuration: chunk_shape, codecs, index_codecs).
 *
 * @example
 * ```ts
 * describeCodec({ name: "gzip", configuration: { level: 5 } }); // "gzip (level 5)"
 * ```
 */
export function describeCodec(codec: CodecJson): string {
  const config = codec.configuration;
  if (codec.name === "sharding_indexed" && config) {
    const list = (v: JsonValue | undefined) =>
      Array.isArray(v)
        ? v
            .filter(isCodec)
            .map((c) => describeCodec(c as CodecJson))
            .join(" → ")
        : "";
    const shape = Array.isArray(config.chunk_shape) ? `[${config.chunk_shape.join(", ")}]` : "?";
    return (
      `sharding_indexed (inner chunks ${shape}; codecs: ${list(config.codecs)}; ` +
      `index: ${list(config.index_codecs)}${config.index_location ? ` at ${config.index_location}` : ""})`
    );
  }
  const s = summary(config, []);
  return s ? `${codec.name} (${s})` : codec.name;
}

/** The info panel text of an array. */
export function describeArray(array: ZarrArray): string {
  const codecs = array.metadata.codecs as unknown as CodecJson[];
  return [
    `array ${array.path || "/"} (zarr v${array.zarrFormat})`,
    `shape [${array.shape.join(", ")}]`,
    `chunks [${array.chunkShape.join(", ")}]`,
    `data type ${array.dataType.name}`,
    `codecs ${codecs.map(describeCodec).join(" → ")}`,
  ].join("\n");
}

/** A physical coordinate: `index * scale + translation`, with the unit when known. */
export function physical(index: number, scale: number, translation: number, unit?: string): string {
  const v = Number((index * scale + translation).toPrecision(6));
  return unit ? `${v} ${unit}` : String(v);
}
