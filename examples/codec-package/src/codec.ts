/**
 * The `Checksum32` bytes -> bytes codecs of numcodecs (`crc32`, `adler32`): a
 * 4-byte little-endian checksum stored before (numcodecs' default, and the only
 * layout numcodecs < 0.13 writes) or after the payload.
 *
 * Everything here comes from @zarr/core's public entry point: the codec types,
 * `CodecError` and `JsonObject`. Nothing reaches into core's internals.
 *
 * @module
 */

import { CodecError, type JsonObject } from "@zarr/core";
import type { BytesToBytesCodec, CodecFactory } from "@zarr/core/codec";
import { adler32, crc32 } from "./checksums.js";

/** Where the checksum sits relative to the payload. */
export type ChecksumLocation = "start" | "end";

/** The checksum algorithms this package provides. */
export type ChecksumAlgorithm = "crc32" | "adler32";

const ALGORITHMS: Record<ChecksumAlgorithm, (data: Uint8Array) => number> = { crc32, adler32 };

/** Options of {@link Checksum32Codec}. */
export interface Checksum32Options {
  /** Where the checksum is stored (default `"start"`, as numcodecs writes it). */
  location?: ChecksumLocation;
  /** The metadata name `toJSON` writes (default: the algorithm). */
  name?: string;
  /** The metadata path, for error messages. */
  path?: string;
  /**
   * Whether `toJSON` writes `location` when it is the default. The v3
   * `numcodecs.*` names spell every field out; the v2 ids omit a default
   * `location`, because numcodecs < 0.13 rejects the unknown keyword.
   */
  explicitDefaults?: boolean;
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, "0")}`;

/**
 * A 32-bit checksum codec. `encode` prepends (or appends) the checksum of the
 * input; `decode` verifies and strips it, and rejects a mismatch, a truncated
 * input or a payload of the wrong size with a {@link CodecError} naming the path.
 */
export class Checksum32Codec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  readonly name: string;
  readonly location: ChecksumLocation;
  readonly #checksum: (data: Uint8Array) => number;
  readonly #path: string;
  readonly #explicitDefaults: boolean;

  constructor(
    readonly algorithm: ChecksumAlgorithm,
    options: Checksum32Options = {},
  ) {
    this.#checksum = ALGORITHMS[algorithm];
    this.name = options.name ?? algorithm;
    this.location = options.location ?? "start";
    this.#path = options.path ?? "";
    this.#explicitDefaults = options.explicitDefaults ?? true;
  }

  toJSON(): JsonObject {
    if (this.location === "start" && !this.#explicitDefaults) return { name: this.name };
    return { name: this.name, configuration: { location: this.location } };
  }

  encodedSize(decodedSize: number): number {
    return decodedSize + 4;
  }

  encode(bytes: Uint8Array): Uint8Array {
    const out = new Uint8Array(bytes.length + 4);
    const at = this.location === "start" ? 0 : bytes.length;
    out.set(bytes, this.location === "start" ? 4 : 0);
    new DataView(out.buffer).setUint32(at, this.#checksum(bytes), true);
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
    const actual = this.#checksum(payload);
    if (stored !== actual) {
      throw this.#error(
        `checksum mismatch: stored ${hex(stored)}, computed ${hex(actual)} over ${payload.length} bytes`,
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

/** Reads `{location?}` (plus a v2 `id`), rejecting anything else with a `CodecError`. */
function parseLocation(
  configuration: JsonObject | undefined,
  name: string,
  path: string,
): ChecksumLocation {
  const config = configuration ?? {};
  for (const key of Object.keys(config)) {
    if (key !== "location" && key !== "id") {
      throw new CodecError(`${name} codec at "${path}": unknown configuration field "${key}"`, {
        path,
      });
    }
  }
  const location = config.location ?? "start";
  if (location !== "start" && location !== "end") {
    throw new CodecError(
      `${name} codec at "${path}": configuration.location must be "start" or "end", got ${JSON.stringify(location)}`,
      { path },
    );
  }
  return location;
}

function factory(algorithm: ChecksumAlgorithm, name: string): CodecFactory {
  return {
    kind: "bytes_to_bytes",
    fromConfig(configuration, context) {
      const location = parseLocation(configuration, name, context.path);
      return new Checksum32Codec(algorithm, {
        location,
        name,
        path: context.path,
        explicitDefaults: name.startsWith("numcodecs."),
      });
    },
  };
}

/** numcodecs `crc32` (v2 filter/compressor id). */
export const crc32Codec: CodecFactory = factory("crc32", "crc32");
/** numcodecs `adler32` (v2 filter/compressor id). */
export const adler32Codec: CodecFactory = factory("adler32", "adler32");
/** zarr-python 3's v3 name for numcodecs' CRC32. */
export const numcodecsCrc32Codec: CodecFactory = factory("crc32", "numcodecs.crc32");
/** zarr-python 3's v3 name for numcodecs' Adler32. */
export const numcodecsAdler32Codec: CodecFactory = factory("adler32", "numcodecs.adler32");
