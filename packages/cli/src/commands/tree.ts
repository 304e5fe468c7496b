import { type HierarchyNode, NodeNotFoundError, open } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { type Command, str } from "../command.js";
import { openStoreArg, STORE_HELP, type StoreFlags } from "../stores.js";
import { parseCount } from "../usage.js";

/** `zarr tree <store> [path] [--depth N]`: the hierarchy with shapes and data types. */
export const treeCommand: Command = {
  name: "tree",
  summary: "the hierarchy below a node, with shapes and data types",
  help: `usage: zarr tree <store> [path] [--depth N]

Prints the groups and arrays below a node. Uses consolidated metadata when the
group has it (one read, no listing).

options:
  --depth N   levels below the node to show (default: all)

${STORE_HELP}

examples:
  zarr tree data.zarr
  zarr tree data.zarr group/sub --depth 1
  zarr tree https://example.org/data.zarr | head`,
  options: { depth: { type: "string" } },
  positionals: [1, 2],
  async run([storeArg, path = ""], values, io) {
    const depthText = str(values, "depth");
    const depth =
      depthText === undefined ? Number.POSITIVE_INFINITY : parseCount(depthText, "--depth");
    await tree(storeArg, path, depth, io.out, values as StoreFlags);
    return 0;
  },
};

function describe(node: HierarchyNode): string {
  if (node.kind === "group") return node.implicit ? "(implicit group)" : "";
  return `[${node.shape.join(", ")}] ${JSON.stringify(node.dataType.toJSON()).replace(/^"|"$/g, "")}`;
}

function name(node: HierarchyNode): string {
  return node.path === "" ? "/" : node.path.slice(node.path.lastIndexOf("/") + 1);
}

async function tree(
  storeArg: string,
  path: string,
  depth: number,
  out: (s: string) => void,
  flags: StoreFlags,
): Promise<void> {
  const store = resolveStore(await openStoreArg(storeArg, flags));
  const root = await open(store, path);
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
