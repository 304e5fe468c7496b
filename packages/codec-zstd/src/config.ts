/**
 * Configuration of the zstd codec: v3 `{level, checksum}` and numcodecs
 * `{level}` (numcodecs >= 0.13 also writes `checksum`).
 *
 * @module
 */
import { CodecError, type JsonObject } from "@zarr/core";

/** ZSTD_minCLevel(): the fastest negative level. */
export const MIN_LEVEL = -131072;
/** ZSTD_maxCLevel(). */
export const MAX_LEVEL = 22;

/** A parsed zstd configuration. */
export interface ZstdConfig {
  /** -131072..22; 0 means libzstd's default (3). */
  level: number;
  /** Append the XXH64-based content checksum to each frame. */
  checksum: boolean;
}

const KNOWN = new Set(["level", "checksum", "id"]);

/** Validates a configuration, filling defaults; a `CodecError` names the bad field. */
export function parseZstdConfig(
  configuration: JsonObject | undefined,
  name: string,
  path: string,
  defaults: ZstdConfig,
  lenient = false,
): ZstdConfig {
  const config = configuration ?? {};
  const fail = (why: string): never => {
    throw new CodecError(`${name} codec at "${path}": ${why}`, { path });
  };
  for (const key of Object.keys(config)) {
    // v2 metadata (lenient): numcodecs configurations from newer versions may carry keys we do not read.
    if (!lenient && !KNOWN.has(key)) fail(`unknown configuration field "${key}"`);
  }
  const level = config.level ?? defaults.level;
  if (
    typeof level !== "number" ||
    !Number.isInteger(level) ||
    level < MIN_LEVEL ||
    level > MAX_LEVEL
  ) {
    fail(
      `configuration.level must be an integer ${MIN_LEVEL}..${MAX_LEVEL}, got ${JSON.stringify(level)}`,
    );
  }
  const checksum = config.checksum ?? defaults.checksum;
  if (typeof checksum !== "boolean") {
    fail(`configuration.checksum must be a boolean, got ${JSON.stringify(checksum)}`);
  }
  return { level: level as number, checksum: checksum as boolean };
}
