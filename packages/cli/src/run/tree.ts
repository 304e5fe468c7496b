import { type HierarchyNode, NodeNotFoundError, open } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { flag, type Io, str, type Values } from "../command.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { parseCount } from "../usage.js";

/** Runs `zarr tree` (its options are described by the command in `commands/tree.ts`). */
export async function run(
  [storeArg, path = ""]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const depthText = str(values, "depth");
  const depth =
    depthText === undefined ? Number.POSITIVE_INFINITY : parseCount(depthText, "--depth");
  const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
  const root = await open(store, path);
  if (flag(values, "json")) io.out(JSON.stringify(await treeJson(root, depth), null, 2));
  else await tree(root, depth, io.out);
  return 0;
}

/** One node of `zarr tree --json` (the schema is in docs/cli.md). */
export interface TreeJson {
  path: string;
  node_type: "array" | "group";
  zarr_format: number;
  shape?: number[];
  data_type?: unknown;
  implicit?: boolean;
  children?: (TreeJson | { path: string; error: string })[];
}

/** `node` and, for groups, its children down to `depth` levels, as JSON. */
async function treeJson(node: HierarchyNode, depth: number): Promise<TreeJson> {
  const path = `/${node.path}`;
  if (node.kind === "array") {
    return {
      path,
      node_type: "array",
      zarr_format: node.zarrFormat,
      shape: [...node.shape],
      data_type: node.dataType.toJSON(),
    };
  }
  const json: TreeJson = { path, node_type: "group", zarr_format: node.zarrFormat };
  if (node.implicit) json.implicit = true;
  if (depth < 1) return json;
  json.children = [];
  for (const childName of await node.childNames()) {
    try {
      json.children.push(await treeJson(await node.get(childName), depth - 1));
    } catch (e) {
      if (e instanceof NodeNotFoundError) continue;
      const childPath = `${path === "/" ? "" : path}/${childName}`;
      json.children.push({ path: childPath, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return json;
}

function describe(node: HierarchyNode): string {
  if (node.kind === "group") return node.implicit ? "(implicit group)" : "";
  return `[${node.shape.join(", ")}] ${JSON.stringify(node.dataType.toJSON()).replace(/^"|"$/g, "")}`;
}

function name(node: HierarchyNode): string {
  return node.path === "" ? "/" : node.path.slice(node.path.lastIndexOf("/") + 1);
}

/** Prints `root` and, for groups, its children down to `depth` levels, as a tree. */
async function tree(root: HierarchyNode, depth: number, out: (s: string) => void): Promise<void> {
  out(`${name(root)} ${describe(root)}`.trimEnd());
  if (root.kind === "group") await printChildren(root, "", depth, out);
}

async function printChildren(
  group: Extract<HierarchyNode, { kind: "group" }>,
  indent: string,
  depth: number,
  out: (s: string) => void,
): Promise<void> {
  if (depth < 1) return;
  const names = await group.childNames();
  for (let i = 0; i < names.length; i++) {
    const last = i === names.length - 1;
    const branch = `${indent}${last ? "└── " : "├── "}`;
    let child: HierarchyNode;
    try {
      child = await group.get(names[i]);
    } catch (e) {
      // One unreadable node (e.g. an unregistered codec) must not hide the rest of the tree.
      if (e instanceof NodeNotFoundError) continue;
      out(`${branch}${names[i]} (cannot open: ${e instanceof Error ? e.message : String(e)})`);
      continue;
    }
    out(`${branch}${name(child)} ${describe(child)}`.trimEnd());
    if (child.kind === "group")
      await printChildren(child, `${indent}${last ? "    " : "│   "}`, depth - 1, out);
  }
}
