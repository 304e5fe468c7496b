/**
 * The hierarchy browser: the groups and arrays below the store's root, from
 * consolidated metadata or store listings where available; otherwise the
 * nodes the user opened (their paths typed in the path box) are remembered.
 *
 * @module
 */
import type { Group, ZarrArray } from "@zarr/core";
import { parseOme } from "./ome.js";

/** One node of the tree. */
export interface TreeEntry {
  path: string;
  kind: "array" | "group" | "image";
  /** e.g. "float32 [12, 32, 48]" or "OME-Zarr 0.5, 4 levels". */
  detail: string;
  children: TreeEntry[];
}

/** Largest number of nodes listed (a huge hierarchy is cut, and says so). */
export const MAX_TREE_NODES = 500;

function describe(node: ZarrArray | Group): Omit<TreeEntry, "children"> {
  if (node.kind === "array") {
    return {
      path: node.path,
      kind: "array",
      detail: `${node.dataType.name} [${node.shape.join(", ")}]`,
    };
  }
  let ome: ReturnType<typeof parseOme>;
  try {
    ome = parseOme(node.attrs);
  } catch {
    ome = undefined;
  }
  if (ome) {
    return {
      path: node.path,
      kind: "image",
      detail: `OME-Zarr ${ome.version}, ${ome.levels.length} level${ome.levels.length > 1 ? "s" : ""}`,
    };
  }
  return { path: node.path, kind: "group", detail: node.consolidated ? "consolidated" : "" };
}

/**
 * The tree below `root`, or `undefined` when it cannot be listed (not
 * consolidated and the store cannot list). OME image groups are not expanded
 * into their levels. `truncated` is set when {@link MAX_TREE_NODES} was reached.
 *
 * @example
 * ```ts
 * const tree = await hierarchyTree(await openGroup(store));
 * ```
 */
export async function hierarchyTree(
  root: ZarrArray | Group,
  listable: boolean,
  signal?: AbortSignal,
): Promise<{ tree: TreeEntry; truncated: boolean } | undefined> {
  const top: TreeEntry = { ...describe(root), children: [] };
  if (root.kind === "array" || top.kind === "image") return { tree: top, truncated: false };
  if (!root.consolidated && !listable) return undefined;
  let count = 0;
  let truncated = false;
  const visit = async (group: Group, entry: TreeEntry): Promise<void> => {
    for (const child of await group.children({ signal })) {
      if (++count > MAX_TREE_NODES) {
        truncated = true;
        return;
      }
      const e: TreeEntry = { ...describe(child), children: [] };
      entry.children.push(e);
      if (child.kind === "group" && e.kind === "group") await visit(child, e);
    }
  };
  await visit(root, top);
  return { tree: top, truncated };
}

/**
 * Renders the tree as nested lists of buttons; `onSelect(path)` opens a node.
 * `current` is highlighted.
 */
export function renderTree(
  container: HTMLElement,
  tree: TreeEntry,
  current: string,
  onSelect: (path: string) => void,
): void {
  const item = (entry: TreeEntry): HTMLLIElement => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = `node ${entry.kind}`;
    button.dataset.path = entry.path;
    button.textContent = entry.path.split("/").pop() || "/";
    if (entry.path === current) button.setAttribute("aria-current", "true");
    button.onclick = () => onSelect(entry.path);
    const detail = document.createElement("small");
    detail.textContent = entry.detail ? ` ${entry.kind === "group" ? "" : ""}${entry.detail}` : "";
    li.append(button, detail);
    if (entry.children.length) {
      const ul = document.createElement("ul");
      ul.append(...entry.children.map(item));
      li.append(ul);
    }
    return li;
  };
  const ul = document.createElement("ul");
  ul.append(item(tree));
  container.replaceChildren(ul);
}
