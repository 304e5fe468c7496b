/**
 * Opening a repository and resolving references: spec v2 keeps branches,
 * tags and configuration in the repo info file `repo`; spec v1 keeps each
 * branch in `refs/branch.NAME/ref.json`, each tag in `refs/tag.NAME/ref.json`
 * (deleted when `ref.json.deleted` sits next to it) and the configuration in
 * `config.yaml`.
 *
 * @module
 */

import { type AnyStore, StoreError } from "@zarr/core";
import { isValidKey } from "@zarr/core/store";
import {
  containersFromFlexBuffer,
  containersFromYaml,
  type VirtualChunkContainer,
} from "./config.js";
import { IcechunkFormatError } from "./errors.js";
import { FileType, type ReadLimits, readIcechunkFile } from "./file.js";
import type { Table } from "./flatbuffers.js";
import { decodeId12, encodeId } from "./ids.js";

/** Which version to read: one of a branch, a tag or a snapshot id. */
export type VersionSelector = { branch: string } | { tag: string } | { snapshot: string };

const MAX_REF_BYTES = 64 * 1024;

/** Branches, tags and configuration of an opened repository. */
export interface RepositoryState {
  /** The on-disk spec version: 1 (Icechunk 1.x) or 2 (Icechunk 2.x, spec 2 and 2.1). */
  specVersion: 1 | 2;
  /** Virtual chunk containers of the configuration, longest prefix first. */
  containers: VirtualChunkContainer[];
  /** Spec v2: branch name → snapshot id; spec v1: `undefined` (read per ref). */
  branches?: Map<string, string>;
  /** Spec v2: tag name → snapshot id; spec v1: `undefined` (read per ref). */
  tags?: Map<string, string>;
  /** Spec v1: whether `config.yaml` exists (every Icechunk 1 repository has one). */
  hasConfig?: boolean;
}

/** Reads `repo` (spec v2) or, when it is missing, the spec v1 layout. */
export async function readRepositoryState(
  store: AnyStore,
  limits: ReadLimits,
): Promise<RepositoryState> {
  const info = await readIcechunkFile(store, "repo", FileType.RepoInfo, limits);
  if (info !== undefined) return parseRepoInfo(info.fb.root("Repo"));
  const yaml = await store.get("config.yaml", undefined, {
    signal: limits.signal,
    maxBytes: limits.maxMetadataBytes,
  });
  let containers: VirtualChunkContainer[] = [];
  if (yaml !== undefined) {
    const text = new TextDecoder().decode(yaml);
    containers = containersFromYaml(text);
  }
  return { specVersion: 1, containers, hasConfig: yaml !== undefined };
}

function parseRepoInfo(root: Table): RepositoryState {
  const fb = root.fb;
  const snapshotsVector = root.requiredVector(4, 4, "snapshots");
  const snapshotId = (index: number, ref: string): string => {
    if (index >= snapshotsVector.length) {
      fb.fail(`${ref} points to snapshot ${index} of ${snapshotsVector.length}`);
    }
    return encodeId(
      root.tableAt(snapshotsVector, index, `Repo.snapshots[${index}]`).requiredStruct(0, 12, "id"),
    );
  };
  const refs = (id: number, kind: string): Map<string, string> => {
    const v = root.requiredVector(id, 4, kind);
    const out = new Map<string, string>();
    for (let i = 0; i < v.length; i++) {
      const ref = root.tableAt(v, i, `Repo.${kind}[${i}]`);
      const name = ref.requiredString(0, "name");
      out.set(name, snapshotId(ref.u32(1), `${kind} ${JSON.stringify(name)}`));
    }
    return out;
  };
  const tags = refs(1, "tags");
  const deleted = root.requiredVector(3, 4, "deleted_tags");
  for (let i = 0; i < deleted.length; i++) {
    const p = deleted.start + 4 * i;
    const t = fb.deref(p);
    const length = fb.u32(t);
    fb.check(t + 4, length, "a deleted tag name");
    tags.delete(new TextDecoder().decode(fb.bytes.subarray(t + 4, t + 4 + length)));
  }
  const config = root.bytes(9, "config");
  let containers: VirtualChunkContainer[] = [];
  if (config !== undefined && config.length > 0) {
    try {
      containers = containersFromFlexBuffer(config);
    } catch (e) {
      fb.fail(`its configuration: ${(e as Error).message}`);
    }
  }
  return { specVersion: 2, containers, branches: refs(2, "branches"), tags };
}

/** The snapshot id `version` designates; a missing ref is a `StoreError` naming it. */
export async function resolveVersion(
  store: AnyStore,
  state: RepositoryState,
  version: VersionSelector,
  limits: ReadLimits,
): Promise<string> {
  if ("snapshot" in version) {
    const bytes = decodeId12(version.snapshot);
    if (bytes === undefined) {
      throw new StoreError(
        `icechunk snapshot id ${JSON.stringify(version.snapshot)} is not 20 Crockford base 32 characters`,
        { path: version.snapshot },
      );
    }
    return encodeId(bytes);
  }
  const kind = "branch" in version ? "branch" : "tag";
  const name = "branch" in version ? version.branch : version.tag;
  const missing = () =>
    new StoreError(`icechunk repository has no ${kind} ${JSON.stringify(name)}`, { path: name });
  if (state.specVersion === 2) {
    const id = (kind === "branch" ? state.branches : state.tags)?.get(name);
    if (id === undefined) throw missing();
    return id;
  }
  const key = `refs/${kind}.${name}/ref.json`;
  if (name === "" || name.includes("/") || !isValidKey(key)) throw missing();
  const options = { signal: limits.signal, maxBytes: MAX_REF_BYTES };
  const [ref, deleted] = await Promise.all([
    store.get(key, undefined, options),
    kind === "tag" ? store.get(`${key}.deleted`, { offset: 0, length: 0 }, options) : undefined,
  ]);
  if (ref === undefined && !state.hasConfig) {
    throw new StoreError(
      `no icechunk repository here: neither a repo info file "repo" (spec 2) nor "config.yaml" and ${key} (spec 1)`,
      { path: key },
    );
  }
  if (ref === undefined || deleted !== undefined) throw missing();
  let snapshot: unknown;
  try {
    snapshot = (JSON.parse(new TextDecoder().decode(ref)) as { snapshot?: unknown }).snapshot;
  } catch {
    snapshot = undefined;
  }
  const bytes = typeof snapshot === "string" ? decodeId12(snapshot) : undefined;
  if (bytes === undefined) {
    throw new IcechunkFormatError(`icechunk file ${key} does not hold {"snapshot": "<id>"}`, {
      path: key,
    });
  }
  return encodeId(bytes);
}

/** Branches and tags of a repository: name → snapshot id, sorted by name. */
export interface RepositoryRefs {
  specVersion: 1 | 2;
  branches: Record<string, string>;
  tags: Record<string, string>;
}

/**
 * Lists the branches and tags of the repository held by `store`. Spec v2
 * reads them from the repo info file; spec v1 lists `refs/` (the store must be
 * listable) and reads each ref, leaving out deleted tags.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@zarr/store-fs";
 * import { listRefs } from "@zarr/store-icechunk";
 *
 * const { branches, tags } = await listRefs(new FileSystemStore("/data/my-repo"));
 * console.log(Object.keys(branches), Object.keys(tags));
 * ```
 */
export async function listRefs(
  store: AnyStore,
  options: { maxMetadataBytes?: number; signal?: AbortSignal } = {},
): Promise<RepositoryRefs> {
  const limits: ReadLimits = {
    maxMetadataBytes: options.maxMetadataBytes ?? 512 * 1024 * 1024,
    signal: options.signal,
  };
  const state = await readRepositoryState(store, limits);
  const sortedRecord = (entries: [string, string][]) =>
    Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  if (state.specVersion === 2) {
    return {
      specVersion: 2,
      branches: sortedRecord([...(state.branches ?? [])]),
      tags: sortedRecord([...(state.tags ?? [])]),
    };
  }
  if (store.listDir === undefined) {
    throw new StoreError(
      "listing the refs of a spec v1 icechunk repository needs a listable store",
      { path: "refs/" },
    );
  }
  const { prefixes } = await store.listDir("refs/", { signal: limits.signal });
  const branches: [string, string][] = [];
  const tags: [string, string][] = [];
  for (const p of prefixes) {
    const m = /^(branch|tag)\.(.+)$/.exec(p);
    if (m === null) continue;
    const version: VersionSelector = m[1] === "branch" ? { branch: m[2] } : { tag: m[2] };
    try {
      const id = await resolveVersion(store, state, version, limits);
      (m[1] === "branch" ? branches : tags).push([m[2], id]);
    } catch (e) {
      // a deleted tag (or a ref directory without ref.json) is no ref
      if (!(e instanceof StoreError) || e instanceof IcechunkFormatError) throw e;
    }
  }
  return { specVersion: 1, branches: sortedRecord(branches), tags: sortedRecord(tags) };
}
