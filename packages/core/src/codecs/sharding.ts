/**
 * `sharding_indexed` (array -> bytes): a shard holds a grid of inner chunks,
 * each encoded with the inner `codecs`, plus an index of (offset, nbytes)
 * uint64 pairs encoded with `index_codecs` at the start or end of the shard.
 * Missing inner chunks have offset = nbytes = 2^64 - 1 and read as the fill
 * value. Partial decoding reads the index with one ranged read and then only
 * the inner chunks a region needs, merging nearby ranges.
 *
 * @module
 */

import { uint64 } from "../dtypes/index.js";
import type { DataArray, JsonObject, JsonValue } from "../dtypes/types.js";
import { CodecError, MetadataError, throwIfAborted } from "../errors.js";
import { type Axis, copyStrided, cStrides } from "../indexing/index.js";
import type { DecodeLimits } from "./limits.js";
import { resolveDecodeLimits } from "./limits.js";
import { CodecPipeline } from "./pipeline.js";
import type {
  ArrayToBytesCodec,
  ByteGetter,
  ChunkRegion,
  ChunkSpec,
  CodecFactory,
  CodecOptions,
  NDArray,
} from "./types.js";

const MISSING = 0xffff_ffff_ffff_ffffn;
const DEFAULT_GAP = 16 * 1024;
const DEFAULT_MAX_READ = 8 * 1024 * 1024;

/** Offsets and sizes of the inner chunks of one shard; -1 marks a missing chunk. */
interface ShardIndex {
  readonly offsets: Float64Array;
  readonly sizes: Float64Array;
}

function product(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

function* gridIndices(lo: readonly number[], hi: readonly number[]): Generator<number[]> {
  const n = lo.length;
  if (lo.some((l, i) => l >= hi[i])) return;
  const idx = [...lo];
  while (true) {
    yield [...idx];
    let d = n - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < hi[d]) break;
      idx[d] = lo[d];
      d--;
    }
    if (d < 0) return;
  }
}

function positiveIntList(
  value: JsonValue | undefined,
  ndim: number,
  field: string,
  path: string,
): number[] {
  if (!Array.isArray(value) || value.length !== ndim) {
    throw new MetadataError(
      `${path}: sharding_indexed: ${field} must be a list of ${ndim} positive integers`,
      {
        path,
      },
    );
  }
  for (const v of value) {
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1) {
      throw new MetadataError(
        `${path}: sharding_indexed: ${field} must hold positive integers, got ${String(v)}`,
        {
          path,
        },
      );
    }
  }
  return value as number[];
}

/** The `sharding_indexed` codec factory. */
export const shardingCodec: CodecFactory = {
  kind: "array_to_bytes",
  async fromConfig(configuration: JsonObject | undefined, context): Promise<ArrayToBytesCodec> {
    const path = context.path;
    const spec = context.spec;
    const ndim = spec.shape.length;
    const cfg = configuration ?? {};
    for (const key of Object.keys(cfg)) {
      if (!["chunk_shape", "codecs", "index_codecs", "index_location"].includes(key)) {
        throw new MetadataError(`${path}: sharding_indexed: unknown configuration key "${key}"`, {
          path,
        });
      }
    }
    const innerShape = positiveIntList(cfg.chunk_shape, ndim, "chunk_shape", path);
    innerShape.forEach((c, i) => {
      if (spec.shape[i] % c !== 0) {
        throw new MetadataError(
          `${path}: sharding_indexed: chunk_shape [${innerShape.join(", ")}] does not divide the shard shape [${spec.shape.join(", ")}]`,
          { path },
        );
      }
    });
    const location = cfg.index_location ?? "end";
    if (location !== "start" && location !== "end") {
      throw new MetadataError(
        `${path}: sharding_indexed: index_location must be "start" or "end"`,
        { path },
      );
    }
    if (!Array.isArray(cfg.codecs)) {
      throw new MetadataError(`${path}: sharding_indexed: codecs must be a list`, { path });
    }
    const indexCodecsJson: JsonValue[] = Array.isArray(cfg.index_codecs)
      ? cfg.index_codecs
      : [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }];
    const innerSpec: ChunkSpec = {
      shape: innerShape,
      dataType: spec.dataType,
      fillValue: spec.fillValue,
    };
    const inner = await CodecPipeline.create(
      cfg.codecs,
      innerSpec,
      `${path} inner codecs`,
      context.format,
    );
    const perShard = spec.shape.map((s, i) => s / innerShape[i]);
    const nChunks = product(perShard);
    const indexSpec: ChunkSpec = {
      shape: [...perShard, 2],
      dataType: uint64,
      fillValue: uint64.defaultFillValue(),
    };
    const index = await CodecPipeline.create(
      indexCodecsJson,
      indexSpec,
      `${path} index_codecs`,
      context.format,
    );
    const indexSize = index.encodedSize;
    if (indexSize === undefined) {
      throw new MetadataError(
        `${path}: sharding_indexed: index_codecs must produce fixed-size output (e.g. bytes + crc32c)`,
        {
          path,
        },
      );
    }
    const dataType = spec.dataType;
    const width = dataType.width;
    const innerLen = product(innerShape);
    const innerStrides = cStrides(innerShape);
    const inflight = new Map<object | string, Promise<ShardIndex | undefined>>();

    const fail = (why: string) => new CodecError(`${path}: sharding_indexed: ${why}`, { path });

    async function decodeIndex(
      bytes: Uint8Array,
      shardLength: number | undefined,
    ): Promise<ShardIndex> {
      const decoded = (await index.decode(bytes)).data as BigUint64Array;
      const offsets = new Float64Array(nChunks);
      const sizes = new Float64Array(nChunks);
      for (let i = 0; i < nChunks; i++) {
        const o = decoded[2 * i];
        const n = decoded[2 * i + 1];
        if (o === MISSING && n === MISSING) {
          offsets[i] = -1;
          sizes[i] = -1;
          continue;
        }
        const end = o + n;
        if (o === MISSING || n === MISSING || end > BigInt(Number.MAX_SAFE_INTEGER)) {
          throw fail(`index entry ${i} (offset ${o}, nbytes ${n}) is invalid`);
        }
        if (shardLength !== undefined && Number(end) > shardLength) {
          throw fail(
            `index entry ${i} (offset ${o}, nbytes ${n}) points past the shard's ${shardLength} bytes`,
          );
        }
        offsets[i] = Number(o);
        sizes[i] = Number(n);
      }
      return { offsets, sizes };
    }

    /** Copies the part of inner chunk `coords` inside [lo, hi) of the shard into `out` (region origin `lo`). */
    function place(
      chunk: DataArray,
      coords: readonly number[],
      out: DataArray,
      lo: readonly number[],
      hi: readonly number[],
      outStrides: readonly number[],
    ): void {
      const srcAxes: Axis[] = [];
      const dstAxes: Axis[] = [];
      for (let d = 0; d < ndim; d++) {
        const origin = coords[d] * innerShape[d];
        const a = Math.max(lo[d], origin);
        const b = Math.min(hi[d], origin + innerShape[d]);
        srcAxes.push({ start: a - origin, step: 1, count: b - a });
        dstAxes.push({ start: a - lo[d], step: 1, count: b - a });
      }
      copyStrided(chunk, 0, srcAxes, innerStrides, out, 0, dstAxes, outStrides, width);
    }

    function linear(coords: readonly number[]): number {
      let i = 0;
      for (let d = 0; d < ndim; d++) i = i * perShard[d] + coords[d];
      return i;
    }

    async function readIndex(
      input: ByteGetter,
      options?: CodecOptions,
    ): Promise<ShardIndex | undefined> {
      const range = location === "end" ? { suffix: indexSize! } : { offset: 0, length: indexSize! };
      const bytes = await input.get(range, options);
      if (bytes === undefined) return undefined;
      if (bytes.length !== indexSize)
        throw fail(`shard is ${bytes.length} bytes, shorter than its ${indexSize}-byte index`);
      return decodeIndex(bytes, undefined);
    }

    /**
     * Reads the index once for concurrent readers of the same shard, or takes
     * it from the caller's `shardIndexCache`.
     */
    function sharedIndex(
      input: ByteGetter,
      options?: CodecOptions,
    ): Promise<ShardIndex | undefined> {
      const key = input.cacheKey;
      if (key === undefined) return readIndex(input, options);
      const cache = options?.shardIndexCache;
      const scope = input.cacheScope;
      if (cache !== undefined && scope !== undefined && typeof key === "string") {
        const cached = cache.get(scope, key) as ShardIndex | undefined;
        if (cached !== undefined) return Promise.resolve(cached);
        return readShared(input, key, options).then((index) => {
          if (index !== undefined) cache.set(scope, key, index);
          return index;
        });
      }
      return readShared(input, key, options);
    }

    function readShared(
      input: ByteGetter,
      key: object | string,
      options?: CodecOptions,
    ): Promise<ShardIndex | undefined> {
      let p = inflight.get(key);
      if (!p) {
        p = readIndex(input, options);
        inflight.set(key, p);
        const clear = () => inflight.delete(key);
        p.then(clear, clear);
      }
      return p;
    }

    return {
      kind: "array_to_bytes",
      name: "sharding_indexed",
      toJSON: () => ({
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [...innerShape],
          codecs: inner.toJSON(),
          index_codecs: index.toJSON(),
          index_location: location,
        },
      }),
      maxEncodedSize(_decoded: ChunkSpec, limits: DecodeLimits): number {
        return Math.min(
          Number.MAX_SAFE_INTEGER,
          indexSize! + nChunks * inner.maxEncodedSize(limits),
        );
      },
      validate(decoded: ChunkSpec) {
        if (
          decoded.shape.length !== ndim ||
          decoded.shape.some((s, i) => s % innerShape[i] !== 0)
        ) {
          throw fail(
            `shard shape [${decoded.shape.join(", ")}] is not a multiple of chunk_shape [${innerShape.join(", ")}]`,
          );
        }
      },

      async encode(
        chunk: NDArray,
        decoded: ChunkSpec,
        options?: CodecOptions,
      ): Promise<Uint8Array> {
        const shardStrides = chunk.stride;
        const parts: Uint8Array[] = new Array(nChunks);
        const tmp = dataType.allocate(innerLen);
        for (const coords of gridIndices(new Array(ndim).fill(0), perShard)) {
          throwIfAborted(options?.signal, path);
          const srcAxes: Axis[] = coords.map((c, d) => ({
            start: c * innerShape[d],
            step: 1,
            count: innerShape[d],
          }));
          const dstAxes: Axis[] = innerShape.map((count) => ({ start: 0, step: 1, count }));
          copyStrided(chunk.data, 0, srcAxes, shardStrides, tmp, 0, dstAxes, innerStrides, width);
          if (dataType.isFill(tmp, decoded.fillValue, 0, innerLen)) continue;
          // The inner pipeline may keep a reference to its input: give it its own copy.
          const own = dataType.allocate(innerLen);
          copyStrided(tmp, 0, dstAxes, innerStrides, own, 0, dstAxes, innerStrides, width);
          parts[linear(coords)] = await inner.encode(
            { data: own, shape: innerShape, stride: innerStrides, dataType },
            options,
          );
        }
        let total = indexSize!;
        for (const p of parts) if (p) total += p.length;
        const out = new Uint8Array(total);
        const pairs = new BigUint64Array(nChunks * 2).fill(MISSING);
        let pos = location === "start" ? indexSize! : 0;
        for (let i = 0; i < nChunks; i++) {
          const p = parts[i];
          if (!p) continue;
          out.set(p, pos);
          pairs[2 * i] = BigInt(pos);
          pairs[2 * i + 1] = BigInt(p.length);
          pos += p.length;
        }
        const indexBytes = await index.encode(
          {
            data: pairs,
            shape: indexSpec.shape,
            stride: cStrides(indexSpec.shape),
            dataType: uint64,
          },
          options,
        );
        out.set(indexBytes, location === "start" ? 0 : total - indexSize!);
        return out;
      },

      async decode(
        bytes: Uint8Array,
        decoded: ChunkSpec,
        options?: CodecOptions,
      ): Promise<NDArray> {
        if (bytes.length < indexSize!)
          throw fail(`shard is ${bytes.length} bytes, shorter than its ${indexSize}-byte index`);
        const indexBytes =
          location === "end"
            ? bytes.subarray(bytes.length - indexSize!)
            : bytes.subarray(0, indexSize!);
        const idx = await decodeIndex(indexBytes, bytes.length);
        const maxInner = inner.maxEncodedSize(resolveDecodeLimits(options?.decodeLimits));
        const shape = decoded.shape;
        const out = dataType.allocate(product(shape));
        const outStrides = cStrides(shape);
        const zeros = new Array(ndim).fill(0);
        let anyMissing = false;
        for (const coords of gridIndices(zeros, perShard)) {
          throwIfAborted(options?.signal, path);
          const i = linear(coords);
          if (idx.offsets[i] < 0) {
            anyMissing = true;
            continue;
          }
          if (idx.sizes[i] > maxInner) {
            throw fail(
              `index entry ${i} claims ${idx.sizes[i]} bytes, more than an inner chunk can take (${maxInner})`,
            );
          }
          const chunk = await inner.decode(
            bytes.subarray(idx.offsets[i], idx.offsets[i] + idx.sizes[i]),
            options,
          );
          place(chunk.data, coords, out, zeros, shape, outStrides);
        }
        if (anyMissing) {
          const one = dataType.allocate(1);
          dataType.fill(one, decoded.fillValue, 0, 1);
          for (const coords of gridIndices(zeros, perShard)) {
            if (idx.offsets[linear(coords)] >= 0) continue;
            const fill = dataType.allocate(innerLen);
            dataType.fill(fill, decoded.fillValue, 0, innerLen);
            place(fill, coords, out, zeros, shape, outStrides);
          }
        }
        return { data: out, shape, stride: outStrides, dataType };
      },

      async decodePartial(
        input: ByteGetter,
        region: ChunkRegion,
        decoded: ChunkSpec,
        options?: CodecOptions,
      ): Promise<NDArray | undefined> {
        const idx = await sharedIndex(input, options);
        if (idx === undefined) return undefined;
        const lo = region.map(([a]) => a);
        const hi = region.map(([, b]) => b);
        const shape = lo.map((l, d) => hi[d] - l);
        const out = dataType.allocate(product(shape));
        const outStrides = cStrides(shape);
        dataType.fill(out, decoded.fillValue, 0, product(shape));
        const first = lo.map((l, d) => Math.floor(l / innerShape[d]));
        const last = hi.map((h, d) => Math.ceil(h / innerShape[d]));
        const wanted: { coords: number[]; offset: number; size: number }[] = [];
        // No inner chunk is read that is larger than its codecs can produce.
        const maxInner = inner.maxEncodedSize(resolveDecodeLimits(options?.decodeLimits));
        for (const coords of gridIndices(first, last)) {
          const i = linear(coords);
          if (idx.offsets[i] < 0) continue;
          if (idx.sizes[i] > maxInner) {
            throw fail(
              `index entry ${i} claims ${idx.sizes[i]} bytes, more than an inner chunk can take (${maxInner})`,
            );
          }
          wanted.push({ coords, offset: idx.offsets[i], size: idx.sizes[i] });
        }
        if (wanted.length === 0) return { data: out, shape, stride: outStrides, dataType };
        // Merge nearby ranges into single reads.
        const gap = options?.coalesce?.gap ?? DEFAULT_GAP;
        const maxSize = options?.coalesce?.maxSize ?? DEFAULT_MAX_READ;
        const sorted = [...wanted].sort((a, b) => a.offset - b.offset);
        const groups: { offset: number; end: number; members: typeof wanted }[] = [];
        for (const w of sorted) {
          const g = groups[groups.length - 1];
          const end = w.offset + w.size;
          if (g && w.offset - g.end <= gap && Math.max(g.end, end) - g.offset <= maxSize) {
            g.end = Math.max(g.end, end);
            g.members.push(w);
          } else {
            groups.push({ offset: w.offset, end, members: [w] });
          }
        }
        const ranges = groups.map((g) => ({ offset: g.offset, length: g.end - g.offset }));
        const results = input.getMany
          ? await input.getMany(ranges, options)
          : await Promise.all(ranges.map((r) => input.get(r, options)));
        // Inner chunks decode side by side: in the pool's workers while they have
        // room, the rest here (see ChunkCodecWorkers.decode).
        const pool = options?.workers || undefined;
        const innerContext = { format: context.format, path };
        const decodes: Promise<void>[] = [];
        for (let gi = 0; gi < groups.length; gi++) {
          const g = groups[gi];
          const bytes = results[gi];
          if (bytes === undefined || bytes.length !== g.end - g.offset) {
            throw fail(
              `inner chunk bytes [${g.offset}, ${g.end}) are past the end of the shard (truncated or changed while reading)`,
            );
          }
          for (const w of g.members) {
            throwIfAborted(options?.signal, path);
            const start = w.offset - g.offset;
            const part = bytes.subarray(start, start + w.size);
            const decoding =
              pool?.decode(inner, part, innerContext, options) ?? inner.decode(part, options);
            decodes.push(
              decoding.then((chunk) => place(chunk.data, w.coords, out, lo, hi, outStrides)),
            );
          }
        }
        await Promise.all(decodes);
        return { data: out, shape, stride: outStrides, dataType };
      },
    };
  },
};
