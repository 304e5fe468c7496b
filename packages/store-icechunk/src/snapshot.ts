/**
 * Snapshot files (spec v2, "Snapshot Files"; `snapshot.fbs`): the nodes of
 * one version of the repository, with each node's Zarr metadata and, for
 * arrays, the manifests holding their chunk references.
 *
 * @module
 */

import { isValidKey } from "@zarr/core/store";
import type { FlatBuffer, Table } from "./flatbuffers.js";
import { encodeId } from "./ids.js";

/** A manifest of an array and the region of its chunk grid it covers. */
export interface ManifestRef {
  /** The manifest id (file name under `manifests/`). */
  id: string;
  /** Per dimension `[from, to)` chunk index ranges; empty covers every chunk. */
  extents: [number, number][];
}

/** One node of a snapshot. */
export interface SnapshotNode {
  /** The node path as a store key prefix: `""` for the root, else `a/b`. */
  key: string;
  /** The 8-byte node id (manifests name arrays by it). */
  id: Uint8Array;
  /** The node's `zarr.json` document, as stored. */
  zarrJson: Uint8Array;
  kind: "array" | "group";
  /** Arrays: number of dimensions. */
  ndim: number;
  /** Arrays: where their chunk references are. */
  manifests: ManifestRef[];
}

/** A decoded snapshot. */
export interface Snapshot {
  id: string;
  message: string;
  /** Microseconds since the Unix epoch. */
  flushedAt: number;
  nodes: SnapshotNode[];
}

const UNION_ARRAY = 1;
const UNION_GROUP = 2;

/** Decodes the root `Snapshot` table of `fb`. */
export function parseSnapshot(fb: FlatBuffer): Snapshot {
  const root = fb.root("Snapshot");
  const id = encodeId(root.requiredStruct(0, 12, "id"));
  const nodesVector = root.requiredVector(2, 4, "nodes");
  const nodes: SnapshotNode[] = [];
  for (let i = 0; i < nodesVector.length; i++) {
    nodes.push(parseNode(root.tableAt(nodesVector, i, `Snapshot.nodes[${i}]`)));
  }
  return {
    id,
    message: root.requiredString(4, "message"),
    flushedAt: root.u64(3, "flushed_at"),
    nodes,
  };
}

function parseNode(t: Table): SnapshotNode {
  const path = t.requiredString(1, "path");
  const key = nodeKey(path, t.fb);
  const id = t.requiredStruct(0, 8, "id");
  const zarrJson =
    t.bytes(2, "user_data") ?? t.fb.fail(`node ${path} has no user_data (its zarr.json)`);
  const type = t.u8(3);
  if (type === UNION_GROUP) return { key, id, zarrJson, kind: "group", ndim: 0, manifests: [] };
  if (type !== UNION_ARRAY) t.fb.fail(`node ${path} has node data of unknown type ${type}`);
  const data =
    t.child(4, `ArrayNodeData of ${path}`) ?? t.fb.fail(`array ${path} has no node data`);
  // spec v1 keeps the shape in `shape` (16-byte structs), v2 in `shape_v2` (tables)
  const shapeV2 = data.vector(3, 4, "shape_v2");
  const shapeV1 = data.vector(0, 16, "shape");
  const ndim =
    shapeV2 !== undefined && shapeV2.length > 0 ? shapeV2.length : (shapeV1?.length ?? 0);
  const refs = data.requiredVector(2, 4, "manifests");
  const manifests: ManifestRef[] = [];
  for (let i = 0; i < refs.length; i++) {
    const ref = data.tableAt(refs, i, `manifest ref ${i} of ${path}`);
    const extentsVector = ref.requiredVector(1, 8, "extents");
    const extents: [number, number][] = [];
    for (let d = 0; d < extentsVector.length; d++) {
      const p = extentsVector.start + 8 * d;
      extents.push([t.fb.u32(p), t.fb.u32(p + 4)]);
    }
    if (extents.length !== 0 && extents.length !== ndim) {
      t.fb.fail(
        `manifest ref ${i} of ${path} has ${extents.length} extents for ${ndim} dimensions`,
      );
    }
    manifests.push({ id: encodeId(ref.requiredStruct(0, 12, "object_id")), extents });
  }
  return { key, id, zarrJson, kind: "array", ndim, manifests };
}

/**
 * The store key prefix of node path `path` (`common.fbs`, "node path": absolute,
 * `/`-separated, no trailing `/`, no `.`, `..` or empty segment). A path that
 * is not such a path, or whose key core would reject (a backslash, NUL), is a
 * format error: it could name something outside the repository's hierarchy.
 */
export function nodeKey(path: string, fb: FlatBuffer): string {
  if (path === "/") return "";
  const key = path.slice(1);
  if (
    !path.startsWith("/") ||
    !isValidKey(key) ||
    key.endsWith("/") ||
    key.split("/").includes("zarr.json")
  ) {
    fb.fail(`node path ${JSON.stringify(path)} is not a canonical absolute path`);
  }
  return key;
}
