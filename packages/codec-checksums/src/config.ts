/**
 * Reading a checksum codec's configuration (a v2 `compressor`/`filters` entry
 * or a v3 `numcodecs.*` configuration) the way numcodecs' constructors accept
 * it: `location` for adler32/crc32/crc32c, `initval` and `prefix` for
 * jenkins_lookup3, nothing for fletcher32. Any other key is a `CodecError`:
 * numcodecs raises `TypeError` on it too, and a key that changed the layout
 * must never be ignored.
 *
 * @module
 */
import { CodecError, type JsonObject, type JsonValue } from "@zarr/core";
import { ALGORITHMS, type ChecksumId, type ChecksumLocation } from "./algorithms.js";

/** A parsed configuration. */
export interface ChecksumConfig {
  location: ChecksumLocation;
  /** jenkins_lookup3's seed, 0..2^32-1. */
  initval: number;
  /** jenkins_lookup3's bytes hashed before the payload (not stored in the chunk). */
  prefix: Uint8Array | null;
}

const show = (v: JsonValue | undefined) =>
  typeof v === "bigint" ? `${v}` : v === undefined ? "undefined" : JSON.stringify(v);

/** Validates `configuration` for codec `id`; errors name `name` and `path`. */
export function parseChecksumConfig(
  id: ChecksumId,
  configuration: JsonObject | undefined,
  name: string,
  path: string,
): ChecksumConfig {
  const algorithm = ALGORITHMS[id];
  const config = configuration ?? {};
  const fail = (why: string): never => {
    throw new CodecError(`${name} codec at "${path}": ${why}`, { path });
  };
  const known = ["id"];
  if (algorithm.locatable) known.push("location");
  if (algorithm.seeded) known.push("initval", "prefix");
  for (const key of Object.keys(config)) {
    if (!known.includes(key)) {
      const takes = known.length > 1 ? `it takes ${known.slice(1).join(", ")}` : "it takes none";
      fail(`unknown configuration field "${key}" (${takes})`);
    }
  }
  if (config.id !== undefined && config.id !== id) {
    fail(`configuration.id is ${show(config.id)}, expected "${id}"`);
  }
  const location = config.location ?? algorithm.defaultLocation;
  if (location !== "start" && location !== "end") {
    fail(`configuration.location must be "start" or "end", got ${show(location)}`);
  }
  const initval = config.initval ?? 0;
  if (
    typeof initval !== "number" ||
    !Number.isInteger(initval) ||
    initval < 0 ||
    initval > 0xffffffff
  ) {
    fail(`configuration.initval must be an integer 0..4294967295, got ${show(initval)}`);
  }
  return {
    location: location as ChecksumLocation,
    initval: initval as number,
    prefix: parsePrefix(config.prefix, fail),
  };
}

/** `prefix`: null, or the bytes as a list of integers 0..255. */
function parsePrefix(
  value: JsonValue | undefined,
  fail: (why: string) => never,
): Uint8Array | null {
  if (value === undefined || value === null) return null;
  if (
    !Array.isArray(value) ||
    !value.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255)
  ) {
    return fail(
      `configuration.prefix must be null or a list of byte values 0..255, got ${show(value)}`,
    );
  }
  return Uint8Array.from(value as number[]);
}
