/**
 * The `blosc` bytes -> bytes codec for Zarr v3 (`blosc`, `numcodecs.blosc`)
 * and v2 (numcodecs id `blosc`): configuration parsing and validation, the
 * filled-in typesize, and the encode/decode entry points.
 *
 * @module
 */

import { CodecError, type JsonObject, type JsonValue, MetadataError } from "@zarr/core";
import {
  type BytesToBytesCodec,
  type CodecContext,
  type CodecFactory,
  type CodecOptions,
  codecRegistry,
} from "@zarr/core/codec";
import {
  type BlockEngine,
  builtinEngine,
  CNAMES,
  type Cname,
  FORMAT_CODES,
  FORMAT_NAMES,
  registryEngine,
} from "./engines.js";
import {
  type BloscHeader,
  compressGen,
  decompressGen,
  HEADER_SIZE,
  MAX_BUFFER_SIZE,
  needsEngine,
  parseHeader,
  runAsync,
  runSync,
  type ShuffleMode,
  unshuffleMode,
} from "./frame.js";
import { kernelsLoading } from "./kernels.js";

/** v3 shuffle names, indexed by {@link ShuffleMode}. */
const SHUFFLE_NAMES = ["noshuffle", "shuffle", "bitshuffle"] as const;

/** A v3 shuffle name. */
export type ShuffleName = (typeof SHUFFLE_NAMES)[number];

/** The resolved configuration of a {@link BloscCodec}. */
export interface BloscConfig {
  readonly cname: Cname;
  /** 0..9 (0 stores chunks uncompressed, "memcpyed"). */
  readonly clevel: number;
  readonly shuffle: ShuffleName;
  /** Element size used for shuffling, filled from the data type when absent. */
  readonly typesize: number;
  /** Block size in bytes, 0 = automatic (c-blosc's choice). */
  readonly blocksize: number;
}

/** The metadata names the codec is registered under. */
export type BloscCodecName = "blosc" | "numcodecs.blosc";

const KEYS = new Set(["cname", "clevel", "shuffle", "typesize", "blocksize"]);

/** Chunks of these compressor formats decode in the WebAssembly kernels once loaded. */
function usesKernels(format: number): boolean {
  return format === FORMAT_CODES.lz4 || format === FORMAT_CODES.blosclz;
}

/**
 * A chunk's decoding runs in the WebAssembly kernels once they are loaded:
 * lz4 and blosclz chunks whole, and the unshuffling of shuffled chunks of
 * the other compressors (zstd, zlib). Decoders wait for the kernels' first
 * load for these, once per thread: a shuffled zstd read that did not wait ran
 * nearly all of its blocks through the TypeScript unshuffle, the load's
 * completion queued behind the read (`zarr get` of a 64 MiB blosc zstd array:
 * 37 ms of a 573 ms process).
 */
function decodesInKernels(header: BloscHeader): boolean {
  return usesKernels(header.format) || unshuffleMode(header) !== 0;
}

/**
 * Blosc 1 as a Zarr bytes -> bytes codec. Immutable; safe to share across
 * chunks. Encoding with cname zlib or zstd and decoding such chunks need
 * @zarr/codec-gzip / @zarr/codec-zstd registered.
 */
export class BloscCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes" as const;
  readonly #engines = new Map<string, BlockEngine | Promise<BlockEngine>>();

  constructor(
    readonly name: BloscCodecName,
    readonly config: BloscConfig,
    readonly context: CodecContext,
  ) {}

  /**
   * The metadata form. v3 `blosc`: `{cname, clevel, shuffle: "noshuffle" |
   * "shuffle" | "bitshuffle", typesize, blocksize}`; `numcodecs.blosc`: the same
   * with numcodecs' integer shuffle; v2 (`format` 2): numcodecs' fields
   * `{cname, clevel, shuffle, blocksize}`.
   */
  toJSON(): JsonObject {
    const { cname, clevel, shuffle, typesize, blocksize } = this.config;
    const shuffleInt = SHUFFLE_NAMES.indexOf(shuffle);
    if (this.context.format === 2) {
      return { name: this.name, configuration: { cname, clevel, shuffle: shuffleInt, blocksize } };
    }
    const configuration: JsonObject =
      this.name === "blosc"
        ? { cname, clevel, shuffle, typesize, blocksize }
        : { cname, clevel, shuffle: shuffleInt, typesize, blocksize };
    return { name: this.name, configuration };
  }

  #engine(cname: Cname, clevel: number): BlockEngine | Promise<BlockEngine> {
    const key = `${cname}:${clevel}`;
    let engine = this.#engines.get(key);
    if (engine === undefined) {
      engine = builtinEngine(cname, clevel, this.context.path);
      if (engine === undefined) {
        const loading = registryEngine(cname as "zlib" | "zstd", clevel, this.context);
        loading.then(
          (e) => this.#engines.set(key, e),
          () => this.#engines.delete(key),
        );
        engine = loading;
      }
      this.#engines.set(key, engine);
    }
    return engine;
  }

  /** Compresses `bytes` into one Blosc 1 chunk. */
  encode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array> {
    return named(this.context.path, () => this.#encode(bytes));
  }

  #encode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array> {
    const { cname, clevel, shuffle, typesize, blocksize } = this.config;
    const params = { cname, clevel, typesize, blocksize, shuffle: shuffleMode(shuffle) };
    const path = this.context.path;
    // Memcpyed chunks need no engine: answer them without loading zlib/zstd.
    if (clevel === 0 || bytes.length < 128) {
      return runSync(compressGen(bytes, params, NO_ENGINE, path, true));
    }
    // The kernels shuffle every block and compress lz4 and blosclz streams:
    // wait for their first load once, as decoding does, so that the first
    // chunks of a process do not run in the slower TypeScript encoders.
    const kernels =
      usesKernels(FORMAT_CODES[cname]) || params.shuffle !== 0 ? kernelsLoading() : undefined;
    if (kernels) return kernels.then(() => this.#encode(bytes));
    const engine = this.#engine(cname, clevel);
    if (engine instanceof Promise) {
      return engine.then((e) => runAsync(compressGen(bytes, params, e, path)));
    }
    if (engine.sync) return runSync(compressGen(bytes, params, engine, path, true));
    return runAsync(compressGen(bytes, params, engine, path));
  }

  /**
   * The most bytes an encoding of `decodedSize` bytes can take: c-blosc
   * writes at most `decodedSize + 16` (it stores the chunk memcpyed when
   * compression would take more); the bound leaves room for writers that do
   * not, with block offsets and stream headers for blocks of 128 bytes and
   * more: `decodedSize + decodedSize / 16 + 1024`.
   */
  maxEncodedSize(decodedSize: number): number {
    return decodedSize + Math.floor(decodedSize / 16) + 1024 + HEADER_SIZE;
  }

  /**
   * Decompresses a Blosc 1 chunk of any compressor. `decodedSize`, when
   * given, is the exact size: a header with another `nbytes` is a
   * `CodecError`. Without it, `nbytes` may be at most
   * `options.maxDecodedSize` (else Blosc's own limit, 2 GiB - 17 bytes):
   * a larger one is a `CodecError` before anything is allocated. The
   * output, of the header's size, is allocated only after every block and
   * stream header has been checked against the chunk (each compressed
   * stream must be able to produce its share: at most 256 bytes per
   * byte for blosclz/lz4, 32768 for zstd).
   */
  decode(
    bytes: Uint8Array,
    decodedSize?: number,
    options?: CodecOptions,
  ): Uint8Array | Promise<Uint8Array> {
    return named(this.context.path, () => this.#decode(bytes, decodedSize, options));
  }

  #decode(
    bytes: Uint8Array,
    decodedSize?: number,
    options?: CodecOptions,
  ): Uint8Array | Promise<Uint8Array> {
    const path = this.context.path;
    const header = parseHeader(
      bytes,
      decodedSize ?? options?.maxDecodedSize ?? MAX_BUFFER_SIZE,
      path,
    );
    if (decodedSize !== undefined && header.nbytes !== decodedSize) {
      throw new CodecError(
        `blosc: header nbytes ${header.nbytes} differs from the expected decoded size ${decodedSize}`,
        { path },
      );
    }
    if (!needsEngine(header)) return runSync(decompressGen(bytes, header, undefined, path));
    const kernels = decodesInKernels(header) ? kernelsLoading() : undefined;
    if (kernels) return kernels.then(() => this.#decode(bytes, decodedSize, options));
    const engine = this.#engine(FORMAT_NAMES[header.format], 5);
    if (engine instanceof Promise) {
      return engine.then((e) => runAsync(decompressGen(bytes, header, e, path)));
    }
    if (engine.sync) return runSync(decompressGen(bytes, header, engine, path, true));
    return runAsync(decompressGen(bytes, header, engine, path));
  }

  /**
   * Decompresses a Blosc 1 chunk into `out`, whose length must be the chunk's
   * uncompressed size (a different size is a `CodecError`). Saves the fresh
   * output buffer of {@link decode}.
   */
  decodeInto(bytes: Uint8Array, out: Uint8Array): void | Promise<void> {
    return this.decodeRangeInto(bytes, out, 0, out.length);
  }

  /**
   * Like {@link decodeInto}, decompressing only the blocks that hold the
   * decoded bytes [start, end) (Blosc blocks are independent): a small region
   * of a large chunk costs a block or two, not the chunk.
   */
  decodeRangeInto(
    bytes: Uint8Array,
    out: Uint8Array,
    start: number,
    end: number,
  ): void | Promise<void> {
    return named(this.context.path, () => this.#decodeRangeInto(bytes, out, start, end));
  }

  #decodeRangeInto(
    bytes: Uint8Array,
    out: Uint8Array,
    start: number,
    end: number,
  ): void | Promise<void> {
    const path = this.context.path;
    if (
      !(
        Number.isSafeInteger(start) &&
        Number.isSafeInteger(end) &&
        0 <= start &&
        start <= end &&
        end <= out.length
      )
    ) {
      throw new CodecError(
        `blosc: byte range [${start}, ${end}) is not within ${out.length} bytes`,
        {
          path,
        },
      );
    }
    const range = [start, end] as const;
    const header = parseHeader(bytes, out.length, path);
    if (header.nbytes !== out.length) {
      throw new CodecError(
        `blosc: header nbytes ${header.nbytes} differs from the expected decoded size ${out.length}`,
        { path },
      );
    }
    if (!needsEngine(header)) {
      runSync(decompressGen(bytes, header, undefined, path, true, out, range));
      return;
    }
    const kernels = decodesInKernels(header) ? kernelsLoading() : undefined;
    if (kernels) return kernels.then(() => this.#decodeRangeInto(bytes, out, start, end));
    const engine = this.#engine(FORMAT_NAMES[header.format], 5);
    if (engine instanceof Promise) {
      return engine
        .then((e) => runAsync(decompressGen(bytes, header, e, path, false, out, range)))
        .then(() => {});
    }
    if (engine.sync) {
      runSync(decompressGen(bytes, header, engine, path, true, out, range));
      return;
    }
    return runAsync(decompressGen(bytes, header, engine, path, false, out, range)).then(() => {});
  }
}

const NO_ENGINE: BlockEngine = {
  sync: true,
  compress: () => null,
  decompress: () => undefined,
};

function shuffleMode(name: ShuffleName): ShuffleMode {
  return SHUFFLE_NAMES.indexOf(name) as ShuffleMode;
}

function bad(context: CodecContext, field: string, why: string, value: JsonValue | undefined) {
  return new MetadataError(
    `blosc configuration field "${field}" ${why} (got ${JSON.stringify(value, (_k, v: unknown) =>
      typeof v === "bigint" ? v.toString() : v,
    )})`,
    { path: context.path },
  );
}

function intField(
  context: CodecContext,
  config: JsonObject,
  field: string,
  min: number,
  max: number,
): number | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw bad(context, field, `must be an integer in [${min}, ${max}]`, v);
  }
  return n;
}

/**
 * Parses a blosc configuration (v3 or v2/numcodecs form) into a
 * {@link BloscConfig}, filling the typesize from the data type. Missing
 * fields take numcodecs' defaults for `numcodecs.blosc` and v2 (lz4, 5,
 * shuffle) and zarr-python 3's for v3 `blosc` (zstd, 5, automatic shuffle);
 * automatic shuffle (numcodecs' -1) means bitshuffle for 1-byte types, byte
 * shuffle otherwise. Throws {@link MetadataError} naming the field.
 */
export function parseBloscConfig(
  name: BloscCodecName,
  configuration: JsonObject | undefined,
  context: CodecContext,
): BloscConfig {
  const config = configuration ?? {};
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new MetadataError("blosc configuration must be an object", { path: context.path });
  }
  for (const key of Object.keys(config)) {
    // v2 metadata: numcodecs configurations (from newer versions too) may carry keys we do not read.
    if (!KEYS.has(key) && context.format !== 2) {
      throw bad(context, key, "is not a blosc configuration field", config[key]);
    }
  }
  const v3 = name === "blosc" && context.format === 3;
  const cnameValue = config.cname ?? (v3 ? "zstd" : "lz4");
  if (typeof cnameValue !== "string" || !CNAMES.includes(cnameValue as Cname)) {
    throw bad(context, "cname", `must be one of ${CNAMES.join(", ")}`, cnameValue);
  }
  const clevel = intField(context, config, "clevel", 0, 9) ?? 5;
  const itemSize = context.spec.dataType.itemSize ?? 1;
  const typesize = intField(context, config, "typesize", 1, 0x7fffffff) ?? itemSize;
  const blocksize = intField(context, config, "blocksize", 0, 0x7fffffff) ?? 0;
  const s = config.shuffle;
  let shuffle: ShuffleName;
  if (s === undefined || s === null || s === -1) {
    shuffle = s === undefined && !v3 ? "shuffle" : itemSize === 1 ? "bitshuffle" : "shuffle";
  } else if (typeof s === "string" && (SHUFFLE_NAMES as readonly string[]).includes(s)) {
    shuffle = s as ShuffleName;
  } else if (s === 0 || s === 1 || s === 2) {
    shuffle = SHUFFLE_NAMES[s];
  } else {
    throw bad(
      context,
      "shuffle",
      'must be "noshuffle", "shuffle", "bitshuffle" or numcodecs\' -1, 0, 1, 2',
      s,
    );
  }
  return { cname: cnameValue as Cname, clevel, shuffle, typesize, blocksize };
}

function factory(name: BloscCodecName): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context) {
      const config = parseBloscConfig(name, configuration, context);
      // Fail when the array is opened or created, not at the first write: chunks
      // written with cname zlib/zstd need the engine of another package.
      if (
        (config.cname === "zlib" || config.cname === "zstd") &&
        !codecRegistry.has(config.cname)
      ) {
        throw codecRegistry.notRegistered(config.cname, context.path);
      }
      return new BloscCodec(name, config, context);
    },
  };
}

/** Factory of the v3 `blosc` codec and the v2 numcodecs id `blosc`. */
export const bloscCodecFactory: CodecFactory = factory("blosc");

/** Factory of zarr-python 3's `numcodecs.blosc` (integer shuffle). */
export const numcodecsBloscCodecFactory: CodecFactory = factory("numcodecs.blosc");

/**
 * Runs `run` and names the codec and its place in the metadata (`path`) in
 * its `CodecError`s ("blosc: ..." becomes `blosc codec at "<path>": ...`), as
 * the other codecs' errors do.
 */
function named<T>(path: string, run: () => T | Promise<T>): T | Promise<T> {
  const rename = (e: unknown): never => {
    if (e instanceof CodecError && e.message.startsWith("blosc: ")) {
      throw new CodecError(`blosc codec at "${path}": ${e.message.slice(7)}`, { path, cause: e });
    }
    throw e;
  };
  try {
    const r = run();
    return r instanceof Promise ? r.catch(rename) : r;
  } catch (e) {
    return rename(e);
  }
}
