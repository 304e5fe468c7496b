/**
 * The checksum bytes -> bytes codec and its factories, one per registered name.
 *
 * @module
 */
import { CodecError, type JsonObject } from "@zarr/core";
import { crc32cCodec as coreCrc32cCodec } from "@zarr/core/builtin-codecs";
import type { BytesToBytesCodec, CodecFactory } from "@zarr/core/codec";
import {
  ALGORITHMS,
  type ChecksumAlgorithm,
  type ChecksumId,
  type ChecksumLocation,
} from "./algorithms.js";
import { parseChecksumConfig } from "./config.js";

/** Options of {@link ChecksumCodec}. */
export interface ChecksumCodecOptions {
  /**
   * Where the checksum is stored. Default: where numcodecs puts it (`"start"`
   * for adler32 and crc32, `"end"` for the others). Only adler32, crc32 and
   * crc32c can move it.
   */
  location?: ChecksumLocation;
  /** jenkins_lookup3's seed (default 0). */
  initval?: number;
  /** jenkins_lookup3: bytes hashed before the payload, never stored (default none). */
  prefix?: Uint8Array | null;
  /** The metadata name `toJSON` writes (default: the numcodecs id). */
  name?: string;
  /** The metadata path, for error messages. */
  path?: string;
  /**
   * The metadata the codec belongs to. v3 (the default) spells every field out
   * in `toJSON`; v2 leaves a default `location` out, because numcodecs < 0.14
   * rejects the keyword.
   */
  format?: 2 | 3;
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, "0")}`;

/**
 * One of numcodecs' checksum codecs: `encode` stores the 4-byte little-endian
 * checksum of the input before or after it; `decode` verifies it and returns
 * the payload as a view of its input (no copy). A mismatch, an input shorter
 * than the checksum or a payload of another size than expected is a
 * `CodecError`.
 *
 * @example
 * ```ts
 * import { ChecksumCodec } from "@zarr/codec-checksums";
 * const codec = new ChecksumCodec("fletcher32");
 * const stored = codec.encode(Uint8Array.of(1, 2, 3)); // 1, 2, 3, then 4 checksum bytes
 * codec.decode(stored, 3); // Uint8Array [1, 2, 3]
 * ```
 */
export class ChecksumCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  /** The metadata name. */
  readonly name: string;
  /** Where the checksum is stored. */
  readonly location: ChecksumLocation;
  /** jenkins_lookup3's seed (0 for the others). */
  readonly initval: number;
  /** jenkins_lookup3's hashed prefix, or null. */
  readonly prefix: Uint8Array | null;
  readonly #algorithm: ChecksumAlgorithm;
  readonly #path: string;
  readonly #format: 2 | 3;

  /**
   * @param id - The numcodecs codec id.
   * @param options - Layout, seed, metadata name and path.
   */
  constructor(
    readonly id: ChecksumId,
    options: ChecksumCodecOptions = {},
  ) {
    this.name = options.name ?? id;
    this.#path = options.path ?? "";
    this.#format = options.format ?? 3;
    this.#algorithm = ALGORITHMS[id];
    const { locatable, seeded, defaultLocation } = this.#algorithm;
    // Validate through the metadata parser, giving it only the fields this id takes.
    const config = parseChecksumConfig(
      id,
      {
        ...(locatable && options.location !== undefined ? { location: options.location } : {}),
        ...(seeded && options.initval !== undefined ? { initval: options.initval } : {}),
      },
      this.name,
      this.#path,
    );
    if (!locatable && (options.location ?? defaultLocation) !== defaultLocation) {
      throw this.#error(`numcodecs' ${id} always stores its checksum at the ${defaultLocation}`);
    }
    if (!seeded && ((options.initval ?? 0) !== 0 || options.prefix)) {
      throw this.#error("only jenkins_lookup3 takes initval and prefix");
    }
    this.location = config.location;
    this.initval = config.initval;
    this.prefix = options.prefix ? options.prefix.slice() : null;
  }

  /** The metadata entry: `{name, configuration}` with what numcodecs would read back. */
  toJSON(): JsonObject {
    const configuration: JsonObject = {};
    if (
      this.#algorithm.locatable &&
      (this.#format === 3 || this.location !== this.#algorithm.defaultLocation)
    ) {
      configuration.location = this.location;
    }
    if (this.#algorithm.seeded) {
      configuration.initval = this.initval;
      configuration.prefix = this.prefix ? Array.from(this.prefix) : null;
    }
    if (this.#format === 2 && Object.keys(configuration).length === 0) return { name: this.name };
    return { name: this.name, configuration };
  }

  /** Always `decodedSize + 4`. */
  encodedSize(decodedSize: number): number {
    return decodedSize + 4;
  }

  /** Always `decodedSize + 4`. */
  maxEncodedSize(decodedSize: number): number {
    return decodedSize + 4;
  }

  /** The checksum of `payload` as this codec stores it. */
  checksum(payload: Uint8Array): number {
    const { checksum } = this.#algorithm;
    if (!this.prefix) return checksum(payload, this.initval);
    const joined = new Uint8Array(this.prefix.length + payload.length);
    joined.set(this.prefix);
    joined.set(payload, this.prefix.length);
    return checksum(joined, this.initval);
  }

  /** A new buffer: the input with its checksum before or after it. */
  encode(bytes: Uint8Array): Uint8Array {
    const out = new Uint8Array(bytes.length + 4);
    const start = this.location === "start";
    out.set(bytes, start ? 4 : 0);
    new DataView(out.buffer).setUint32(start ? 0 : bytes.length, this.checksum(bytes), true);
    return out;
  }

  /** Verifies and strips the checksum; the result is a view of `bytes`, not a copy. */
  decode(bytes: Uint8Array, decodedSize?: number): Uint8Array {
    if (bytes.length < 4) {
      throw this.#error(`${bytes.length} bytes is shorter than the 4-byte checksum`);
    }
    const start = this.location === "start";
    const payload = start ? bytes.subarray(4) : bytes.subarray(0, bytes.length - 4);
    if (decodedSize !== undefined && payload.length !== decodedSize) {
      throw this.#error(`payload is ${payload.length} bytes, expected ${decodedSize}`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const stored = view.getUint32(start ? 0 : bytes.length - 4, true);
    const actual = this.checksum(payload);
    if (stored !== actual) {
      throw this.#error(
        `checksum mismatch: stored ${hex(stored)}, computed ${hex(actual)} over ${payload.length} bytes (the chunk is damaged)`,
      );
    }
    return payload;
  }

  #error(reason: string): CodecError {
    return new CodecError(`${this.name} codec at "${this.#path}": ${reason}`, {
      path: this.#path,
    });
  }
}

function factory(id: ChecksumId, name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context) {
      // "crc32c" is both numcodecs' v2 id and the v3 core codec's name: v3
      // metadata keeps core's codec (same layout, no configuration).
      if (name === "crc32c" && context.format === 3) {
        return coreCrc32cCodec.fromConfig(configuration, context);
      }
      const config = parseChecksumConfig(id, configuration, name, context.path);
      return new ChecksumCodec(id, { ...config, name, path: context.path, format: context.format });
    },
  };
}

/** numcodecs `adler32` (v2 id): zlib's Adler-32, at the start by default. */
export const adler32Codec: CodecFactory = factory("adler32", "adler32");
/** numcodecs `crc32` (v2 id): zlib's CRC-32, at the start by default. */
export const crc32Codec: CodecFactory = factory("crc32", "crc32");
/**
 * numcodecs `crc32c` (v2 id): CRC-32C (Castagnoli), at the end by default. In
 * v3 metadata the name `crc32c` is the core codec, which this factory hands over to.
 */
export const crc32cCodec: CodecFactory = factory("crc32c", "crc32c");
/** numcodecs `fletcher32` (v2 id): HDF5's Fletcher-32, always at the end. */
export const fletcher32Codec: CodecFactory = factory("fletcher32", "fletcher32");
/** numcodecs `jenkins_lookup3` (v2 id): lookup3 with `initval`/`prefix`, always at the end. */
export const jenkinsLookup3Codec: CodecFactory = factory("jenkins_lookup3", "jenkins_lookup3");
/** zarr-python 3's `numcodecs.adler32`. */
export const numcodecsAdler32Codec: CodecFactory = factory("adler32", "numcodecs.adler32");
/** zarr-python 3's `numcodecs.crc32`. */
export const numcodecsCrc32Codec: CodecFactory = factory("crc32", "numcodecs.crc32");
/** zarr-python 3's `numcodecs.crc32c`. */
export const numcodecsCrc32cCodec: CodecFactory = factory("crc32c", "numcodecs.crc32c");
/** zarr-python 3's `numcodecs.fletcher32`. */
export const numcodecsFletcher32Codec: CodecFactory = factory("fletcher32", "numcodecs.fletcher32");
/** zarr-python 3's `numcodecs.jenkins_lookup3`. */
export const numcodecsJenkinsLookup3Codec: CodecFactory = factory(
  "jenkins_lookup3",
  "numcodecs.jenkins_lookup3",
);

/** Every factory of this package by the name it registers under. */
export const CHECKSUM_CODECS: Readonly<Record<string, CodecFactory>> = {
  adler32: adler32Codec,
  crc32: crc32Codec,
  crc32c: crc32cCodec,
  fletcher32: fletcher32Codec,
  jenkins_lookup3: jenkinsLookup3Codec,
  "numcodecs.adler32": numcodecsAdler32Codec,
  "numcodecs.crc32": numcodecsCrc32Codec,
  "numcodecs.crc32c": numcodecsCrc32cCodec,
  "numcodecs.fletcher32": numcodecsFletcher32Codec,
  "numcodecs.jenkins_lookup3": numcodecsJenkinsLookup3Codec,
};
