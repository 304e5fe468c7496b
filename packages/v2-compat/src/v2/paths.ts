/**
 * v2 logical path normalization (v2 spec "Logical storage paths"): backslashes
 * become "/", leading and trailing "/" are stripped, runs of "/" collapse, and
 * a "." or ".." segment is an error.
 *
 * @module
 */
import { InvalidKeyError } from "@zarr/core";

/** Normalizes a v2 logical path; throws `InvalidKeyError` naming the path and segment. */
export function normalizeV2Path(path: string): string {
  if (typeof path !== "string")
    throw new InvalidKeyError(`a logical path must be a string, got ${typeof path}`);
  const p = path
    .replace(/\\/g, "/")
    .replace(/\/+/g, "/")
    .replace(/^\/+|\/+$/g, "");
  if (p === "") return "";
  for (const segment of p.split("/")) {
    if (segment === "." || segment === "..") {
      throw new InvalidKeyError(
        `invalid logical path ${JSON.stringify(path)}: segment "${segment}" is not allowed`,
        { path },
      );
    }
  }
  return p;
}
