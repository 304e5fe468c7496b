/**
 * Store keys of hierarchy nodes (v3 core: "Stored representation").
 *
 * @module
 */

/** The key of `name` under node `path` (`""` is the root). */
export function childKey(path: string, name: string): string {
  return path === "" ? name : `${path}/${name}`;
}

/** The key prefix of everything under node `path` (`""` or ending in `/`). */
export function nodePrefix(path: string): string {
  return path === "" ? "" : `${path}/`;
}

/** The parent path of `path` (`undefined` for the root). */
export function parentPath(path: string): string | undefined {
  if (path === "") return undefined;
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** The last segment of `path` (`""` for the root). */
export function nodeName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
