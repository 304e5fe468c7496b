import {
  BloscCodec,
  type BloscCodecName,
  type BloscConfig,
  parseBloscConfig,
} from "@zarr/codec-blosc";
import type { DataType, JsonObject } from "@zarr/core";
import { type CodecContext, codecRegistry } from "@zarr/core/codec";

/** A codec context for a flat chunk of `itemSize`-byte elements (only what blosc reads). */
export function contextFor(itemSize: number | null, format: 2 | 3 = 3): CodecContext {
  const dataType = { name: `r${(itemSize ?? 1) * 8}`, itemSize } as unknown as DataType;
  return {
    spec: { shape: [1], dataType, fillValue: { value: 0, bits: new Uint8Array(0) } },
    path: "test/c/0",
    format,
    pipeline: () => Promise.reject(new Error("no nested pipelines here")),
  };
}

/** A codec from a configuration. */
export function makeCodec(
  config: JsonObject,
  itemSize: number | null = 1,
  name: BloscCodecName = "blosc",
  format: 2 | 3 = 3,
): BloscCodec {
  const context = contextFor(itemSize, format);
  const parsed: BloscConfig = parseBloscConfig(name, config, context);
  return new BloscCodec(name, parsed, context);
}

/**
 * Deterministic data with structure so every compressor finds matches:
 * 4 KiB regions cycling through a smooth float32 field, a u32 ramp, a
 * repeated 37-byte pattern and low-entropy pseudo-random bytes.
 */
export function structured(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    const region = (i >>> 12) & 3;
    let word: number;
    if (region === 0) {
      const f = new Float32Array([Math.sin(i / 4096) * 100 + i / 65536]);
      word = new Uint32Array(f.buffer)[0];
    } else if (region === 1) {
      word = Math.floor(i / 12);
    } else if (region === 2) {
      word = 0;
      for (let k = 0; k < 4; k++) word |= ((((i + k) % 37) * 7) & 255) << (8 * k);
    } else {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      word = x & 0x0f0f0f0f;
    }
    if (i + 4 <= size) dv.setUint32(i, word >>> 0, true);
    else for (let k = 0; i + k < size; k++) out[i + k] = (word >>> (8 * k)) & 255;
  }
  return out;
}

/** Tries to register the zlib and zstd codecs; returns the cnames that are available. */
export async function loadOptionalEngines(): Promise<Set<string>> {
  const have = new Set<string>();
  for (const [cname, pkg] of [
    ["zlib", "@zarr/codec-gzip/register"],
    ["zstd", "@zarr/codec-zstd/register"],
  ] as const) {
    try {
      if (!codecRegistry.has(cname)) await import(/* @vite-ignore */ pkg);
    } catch (e) {
      console.warn(`skipping blosc/${cname} rows: cannot import ${pkg} (${(e as Error).message})`);
    }
    if (codecRegistry.has(cname)) have.add(cname);
  }
  return have;
}
