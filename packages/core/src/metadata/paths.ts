/**
 * Node names and paths (v3 core spec, "Node names" and "Hierarchy paths"). A
 * normalized path has no leading or trailing "/", no empty segments, and every
 * segment is a valid node name; the root is "".
 *
 * @module
 */

import { InvalidKeyError } from "../errors.js";

/**
 * The reason `name` is not a valid node name, or `undefined` when it is valid:
 * not empty, no "/", not only periods, not starting with the reserved "__".
 * NUL and backslash are also refused (they are not portable across stores).
 */
export function nodeNameProblem(name: string): string | undefined {
  if (name.length === 0) return "a node name must not be empty";
  if (name.includes("/")) return 'a node name must not contain "/"';
  if (/^\.+$/.test(name)) return "a node name must not consist only of periods";
  if (name.startsWith("__")) return 'a node name must not start with the reserved prefix "__"';
  if (name.includes("\\")) return "a node name must not contain a backslash";
  if (name.includes("\0")) return "a node name must not contain NUL";
  return undefined;
}

/** Throws an {@link InvalidKeyError} naming `name` when it is not a valid node name. */
export function validateNodeName(name: string): void {
  const problem = nodeNameProblem(name);
  if (problem)
    throw new InvalidKeyError(`invalid node name ${JSON.stringify(name)}: ${problem}`, {
      path: name,
    });
}

/**
 * Normalizes a node path: "" and "/" are the root (""), leading and trailing "/"
 * are removed, runs of "/" collapse to one (as in the v2 spec's path
 * normalization), and every segment must be a valid node name. A backslash is
 * refused rather than read as a separator, so a path never means two things.
 *
 * @throws InvalidKeyError naming the path and the bad segment.
 */
export function normalizePath(path: string): string {
  if (typeof path !== "string") {
    throw new InvalidKeyError(`a node path must be a string, got ${typeof path}`);
  }
  const segments = path.split("/").filter((s) => s.length > 0);
  for (const segment of segments) {
    const problem = nodeNameProblem(segment);
    if (problem) {
      throw new InvalidKeyError(
        `invalid node path ${JSON.stringify(path)}: segment ${JSON.stringify(segment)}: ${problem}`,
        { path },
      );
    }
  }
  return segments.join("/");
}

/** The store key of a metadata document of the node at `path` (e.g. `"a/b/zarr.json"`). */
export function metadataKey(path: string, document = "zarr.json"): string {
  const p = normalizePath(path);
  return p === "" ? document : `${p}/${document}`;
}

/** The key prefix under which the node at `path` lives: `""` for the root, else `"a/b/"`. */
export function chunkPrefix(path: string): string {
  const p = normalizePath(path);
  return p === "" ? "" : `${p}/`;
}
