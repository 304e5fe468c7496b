/**
 * Configuration parsing shared by the gzip and zlib codecs.
 *
 * @module
 */
import { CodecError, type JsonObject } from "@zarr/core";

/** Keys a configuration may carry besides `level` (`id` comes from v2 metadata). */
const IGNORED_KEYS = new Set(["id"]);

/**
 * Reads `configuration.level` as an integer in 0..9. A missing level gets
 * `defaultLevel`; a bad level is a `CodecError` naming the field, and so are
 * unknown keys unless `lenient` (v2 metadata: numcodecs configurations from
 * newer versions may carry keys we do not read).
 */
export function parseLevel(
  configuration: JsonObject | undefined,
  name: string,
  path: string,
  defaultLevel: number,
  lenient = false,
): number {
  const config = configuration ?? {};
  for (const key of Object.keys(config)) {
    if (!lenient && key !== "level" && !IGNORED_KEYS.has(key)) {
      throw new CodecError(`${name} codec at "${path}": unknown configuration field "${key}"`, {
        path,
      });
    }
  }
  const level = config.level ?? defaultLevel;
  if (typeof level !== "number" || !Number.isInteger(level) || level < 0 || level > 9) {
    throw new CodecError(
      `${name} codec at "${path}": configuration.level must be an integer 0..9, got ${JSON.stringify(level)}`,
      { path },
    );
  }
  return level;
}
