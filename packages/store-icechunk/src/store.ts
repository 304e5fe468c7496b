/**
 * The read-only store over one snapshot of an Icechunk repository: it serves
 * each node's `zarr.json` and the chunks of every array under the default
 * chunk key encoding (`PATH/c/i/j`, `PATH/c` for 0-d arrays), as Icechunk's
 * own store does for zarr-python.
 *
 * @module
 */

import { type AnyStore, StoreError, ValueTooLargeError } from "@zarr/core";
import { type ByteRange, type DirListing, rangeBounds, type StoreOptions } from "@zarr/core/store";
import { createTargetResolver, isLocalLocation, type TargetResolver } from "@zarr/store-reference";
import { escapeReason, matchContainer, type VirtualChunkContainer } from "./config.js";
import { FileType, type ReadLimits, readIcechunkFile } from "./file.js";
import { type ChunkLocation, Manifest } from "./manifest.js";
import {
  type RepositoryState,
  readRepositoryState,
  resolveVersion,
  type VersionSelector,
} from "./repository.js";
import { parseSnapshot, type Snapshot, type SnapshotNode } from "./snapshot.js";

/** Default {@link IcechunkStoreOptions.maxMetadataBytes}: 512 MiB. */
export const DEFAULT_MAX_METADATA_BYTES = 512 * 1024 * 1024;
/** How many decoded manifests a store keeps. */
const MANIFEST_CACHE = 32;

/** Options of {@link IcechunkStore.open}. */
export interface IcechunkStoreOptions {
  /** The version to read (default `{ branch: "main" }`). */
  version?: VersionSelector;
  /**
   * The most bytes a repository metadata file (repo info, snapshot, manifest)
   * may take, compressed or decompressed (default 512 MiB).
   */
  maxMetadataBytes?: number;
  /**
   * Virtual chunk containers allowed in addition to (or, with
   * `onlyTheseContainers`, instead of) the repository's own configuration;
   * a virtual chunk URL outside every container is a `StoreError`.
   */
  virtualChunkContainers?: VirtualChunkContainer[];
  /** Ignore the repository's configured containers, use `virtualChunkContainers` only. */
  onlyTheseContainers?: boolean;
  /**
   * Honour `file:` containers of the repository's configuration (default
   * `false`): a repository from elsewhere could otherwise point virtual chunks
   * at local files (e.g. a served repository exposing the server's files).
   * Icechunk itself reads no container the user has not authorized;
   * `virtualChunkContainers` given here are always honoured.
   */
  allowLocalFiles?: boolean;
  /** Options for the stores opened for virtual chunk targets, given the target's parent URL. */
  virtualStoreOptions?: (url: string) => Record<string, unknown>;
  /** Cancels opening. */
  signal?: AbortSignal;
  /** Close `repo` when this store is closed (the `icechunk:` opener sets it for the store it opened). */
  closeRepository?: boolean;
}

/** Repository facts of an {@link IcechunkStore}. */
export interface IcechunkStoreInfo {
  specVersion: 1 | 2;
  snapshotId: string;
  message: string;
  /** Commit time, microseconds since the Unix epoch. */
  flushedAt: number;
}

const DIGITS = /^(0|[1-9][0-9]*)$/;

/**
 * A read-only Zarr v3 store over one snapshot of an Icechunk repository whose
 * files are keys of another store (a directory, S3, GCS, HTTP, ...).
 *
 * @example
 * ```ts
 * import { openArray } from "@zarr/core";
 * import { FileSystemStore } from "@zarr/store-fs";
 * import { IcechunkStore } from "@zarr/store-icechunk";
 *
 * const repo = new FileSystemStore("/data/my-repo");
 * const store = await IcechunkStore.open(repo, { version: { tag: "v1" } });
 * const temps = await openArray(store, "group1/temperature");
 * console.log(await temps.get([0, null]));
 * ```
 */
export class IcechunkStore implements AnyStore {
  readonly #repo: AnyStore;
  readonly #snapshot: Snapshot;
  readonly #state: RepositoryState;
  readonly #nodes: Map<string, SnapshotNode>;
  readonly #limits: ReadLimits;
  readonly #containers: VirtualChunkContainer[];
  /** Containers of the repository left out because they are local (`allowLocalFiles` is false). */
  readonly #localContainers: VirtualChunkContainer[];
  readonly #manifests = new Map<string, Promise<Manifest>>();
  readonly #virtualStoreOptions?: (url: string) => Record<string, unknown>;
  readonly #closeRepository: boolean;
  #targets?: TargetResolver;

  private constructor(
    repo: AnyStore,
    state: RepositoryState,
    snapshot: Snapshot,
    limits: ReadLimits,
    options: IcechunkStoreOptions,
  ) {
    this.#repo = repo;
    this.#state = state;
    this.#snapshot = snapshot;
    this.#limits = limits;
    this.#nodes = new Map(snapshot.nodes.map((n) => [n.key, n]));
    const extra = options.virtualChunkContainers ?? [];
    const configured = options.onlyTheseContainers ? [] : state.containers;
    // Local: `file:`, but also anything else that opens local files through the store
    // registry (a one-letter "drive" scheme, `zip:`/`icechunk:`/`reference:` around a path).
    const isLocal = (c: VirtualChunkContainer) => isLocalLocation(c.urlPrefix);
    this.#localContainers = options.allowLocalFiles ? [] : configured.filter(isLocal);
    this.#containers = [
      ...(options.allowLocalFiles ? configured : configured.filter((c) => !isLocal(c))),
      ...extra,
    ].sort((a, b) => b.urlPrefix.length - a.urlPrefix.length);
    this.#virtualStoreOptions = options.virtualStoreOptions;
    this.#closeRepository = options.closeRepository === true;
  }

  /**
   * Opens the repository held by `repo` at `options.version` (default: branch
   * `main`). Missing refs and snapshots are `StoreError`s; malformed files are
   * {@link IcechunkFormatError}s naming the file.
   */
  static async open(repo: AnyStore, options: IcechunkStoreOptions = {}): Promise<IcechunkStore> {
    const limits: ReadLimits = {
      maxMetadataBytes: options.maxMetadataBytes ?? DEFAULT_MAX_METADATA_BYTES,
      signal: options.signal,
    };
    const state = await readRepositoryState(repo, limits);
    const id = await resolveVersion(repo, state, options.version ?? { branch: "main" }, limits);
    const key = `snapshots/${id}`;
    const file = await readIcechunkFile(repo, key, FileType.Snapshot, limits);
    if (file === undefined) {
      throw new StoreError(`icechunk repository has no snapshot ${id} (${key} is missing)`, {
        path: key,
      });
    }
    const snapshot = parseSnapshot(file.fb);
    if (snapshot.id !== id) file.fb.fail(`holds snapshot ${snapshot.id}, not ${id}`);
    return new IcechunkStore(
      repo,
      state,
      snapshot,
      { maxMetadataBytes: limits.maxMetadataBytes },
      options,
    );
  }

  /** The spec version, snapshot id, commit message and time. */
  get info(): IcechunkStoreInfo {
    return {
      specVersion: this.#state.specVersion,
      snapshotId: this.#snapshot.id,
      message: this.#snapshot.message,
      flushedAt: this.#snapshot.flushedAt,
    };
  }

  /** The node paths of the snapshot (`""` is the root), in the snapshot's order. */
  nodes(): { path: string; kind: "array" | "group" }[] {
    return this.#snapshot.nodes.map((n) => ({ path: n.key, kind: n.kind }));
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    const node = this.#metadataNode(key);
    if (node !== undefined) return slice(node.zarrJson, range, key, options);
    const location = await this.#chunk(key, options);
    if (location === undefined) return undefined;
    if (location.kind === "inline") return slice(location.bytes, range, key, options);
    const [start, end] = rangeBounds(range, location.length);
    checkSize(end - start, key, options);
    if (location.kind === "native") {
      const file = `chunks/${location.chunkId}`;
      if (end === start) return new Uint8Array(0);
      const bytes = await this.#repo.get(
        file,
        { offset: location.offset + start, length: end - start },
        options,
      );
      if (bytes === undefined || bytes.length !== end - start) {
        throw new StoreError(
          `icechunk chunk ${key}: ${file} ${bytes === undefined ? "is missing" : `ends before byte ${location.offset + end}`}`,
          { path: key },
        );
      }
      return bytes;
    }
    return this.#readVirtual(key, location, start, end, options);
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    const node = this.#metadataNode(key);
    if (node !== undefined) return node.zarrJson.length;
    const location = await this.#chunk(key, options);
    if (location === undefined) return undefined;
    return location.kind === "inline" ? location.bytes.length : location.length;
  }

  async *list(options?: StoreOptions): AsyncIterable<string> {
    yield* this.listPrefix("", options);
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncIterable<string> {
    for (const node of this.#snapshot.nodes) {
      const meta = metadataKey(node.key);
      if (meta.startsWith(prefix)) yield meta;
      if (node.kind !== "array") continue;
      const base = chunkPrefix(node.key);
      // a prefix inside another node's subtree holds none of this array's chunks
      if (!(base.startsWith(prefix) || prefix.startsWith(base))) continue;
      for await (const coords of this.#chunkIndices(node, options)) {
        const key = chunkKey(node.key, coords);
        if (key.startsWith(prefix)) yield key;
      }
    }
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    const keys = new Set<string>();
    const prefixes = new Set<string>();
    const add = (key: string) => {
      if (!key.startsWith(prefix)) return;
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash < 0) keys.add(rest);
      else prefixes.add(rest.slice(0, slash));
    };
    for (const node of this.#snapshot.nodes) {
      add(metadataKey(node.key));
      if (node.kind !== "array" || node.manifests.length === 0) continue;
      const base = chunkPrefix(node.key);
      if (node.ndim > 0 && base.startsWith(prefix) && base.length > prefix.length) {
        // every chunk key continues `base`: its segment after `prefix` needs no manifest read
        add(base);
      } else if (
        node.ndim === 0
          ? `${node.key}/`.startsWith(prefix) || prefix === ""
          : prefix.startsWith(base)
      ) {
        for await (const coords of this.#chunkIndices(node, options))
          add(chunkKey(node.key, coords));
      }
    }
    return { keys: [...keys].sort(), prefixes: [...prefixes].sort() };
  }

  async close(): Promise<void> {
    const targets = this.#targets;
    this.#targets = undefined;
    this.#manifests.clear();
    await targets?.close();
    if (this.#closeRepository) await this.#repo.close?.();
  }

  /** The node whose `zarr.json` `key` is, if any. */
  #metadataNode(key: string): SnapshotNode | undefined {
    if (key === "zarr.json") return this.#nodes.get("");
    if (!key.endsWith("/zarr.json")) return undefined;
    return this.#nodes.get(key.slice(0, -"/zarr.json".length));
  }

  /** Parses `key` as a chunk key of an array of the snapshot, and finds its reference. */
  async #chunk(key: string, options?: StoreOptions): Promise<ChunkLocation | undefined> {
    const segments = key.split("/");
    for (let i = 0; i < segments.length; i++) {
      if (segments[i] !== "c") continue;
      const node = this.#nodes.get(segments.slice(0, i).join("/"));
      if (node === undefined || node.kind !== "array") continue;
      const rest = segments.slice(i + 1);
      if (rest.length !== node.ndim || !rest.every((s) => DIGITS.test(s))) return undefined;
      const coords = rest.map(Number);
      if (coords.some((c) => c > 0xffffffff)) return undefined;
      for (const ref of node.manifests) {
        if (!covers(ref.extents, coords)) continue;
        const manifest = await this.#manifest(ref.id, options);
        const found = await manifest.find(node.id, node.ndim, coords, key);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    return undefined;
  }

  async *#chunkIndices(node: SnapshotNode, options?: StoreOptions): AsyncIterable<number[]> {
    for (const ref of node.manifests) {
      const manifest = await this.#manifest(ref.id, options);
      for (const coords of manifest.indices(node.id, node.ndim)) {
        if (covers(ref.extents, coords)) yield coords;
      }
    }
  }

  #manifest(id: string, options?: StoreOptions): Promise<Manifest> {
    let cached = this.#manifests.get(id);
    if (cached === undefined) {
      const key = `manifests/${id}`;
      cached = readIcechunkFile(this.#repo, key, FileType.Manifest, {
        ...this.#limits,
        signal: options?.signal,
      }).then((file) => {
        if (file === undefined) {
          throw new StoreError(
            `icechunk manifest ${key} is missing (snapshot ${this.#snapshot.id} refers to it)`,
            {
              path: key,
            },
          );
        }
        const manifest = new Manifest(file.fb);
        if (manifest.id !== id) file.fb.fail(`holds manifest ${manifest.id}, not ${id}`);
        return manifest;
      });
      // failures (an abort, a network error) are not cached
      cached.catch(() => this.#manifests.delete(id));
      if (this.#manifests.size >= MANIFEST_CACHE) {
        const oldest = this.#manifests.keys().next().value;
        if (oldest !== undefined) this.#manifests.delete(oldest);
      }
      this.#manifests.set(id, cached);
    }
    return cached;
  }

  /** Reads a virtual chunk: its URL must lie in a virtual chunk container. */
  async #readVirtual(
    key: string,
    location: Extract<ChunkLocation, { kind: "virtual" }>,
    start: number,
    end: number,
    options?: StoreOptions,
  ): Promise<Uint8Array> {
    const match = matchContainer(location.url, this.#containers);
    const local =
      match === undefined ? matchContainer(location.url, this.#localContainers) : undefined;
    if (local !== undefined) {
      throw new StoreError(
        `icechunk chunk ${key} is a virtual reference to ${JSON.stringify(local.url)}, a local file of the ` +
          `repository's container ${local.container.urlPrefix}: local files are read only with allowLocalFiles: true (zarr: --allow-local-targets)`,
        { path: key },
      );
    }
    if (match === undefined) {
      throw new StoreError(
        `icechunk chunk ${key} is a virtual reference to ${JSON.stringify(location.url)}, which lies in no ` +
          "virtual chunk container of the repository (pass virtualChunkContainers to allow it)",
        { path: key },
      );
    }
    const escaping = escapeReason(match.url, match.container);
    if (escaping !== undefined) {
      throw new StoreError(
        `icechunk chunk ${key} is a virtual reference to ${JSON.stringify(match.url)}, which ${escaping} ` +
          `after its container's prefix ${match.container.urlPrefix} and could leave it`,
        { path: key },
      );
    }
    if (end === start) return new Uint8Array(0);
    this.#targets ??= createTargetResolver(
      this.#virtualStoreOptions ? { storeOptions: this.#virtualStoreOptions } : {},
    );
    try {
      return await this.#targets.read(
        match.url,
        { offset: location.offset + start, length: end - start },
        options?.signal,
      );
    } catch (e) {
      if (e instanceof StoreError && e.path === undefined)
        throw new StoreError(`icechunk chunk ${key}: ${e.message}`, { path: key, cause: e });
      throw e;
    }
  }
}

function covers(extents: readonly [number, number][], coords: readonly number[]): boolean {
  return extents.every(([from, to], d) => coords[d] >= from && coords[d] < to);
}

function metadataKey(nodeKey: string): string {
  return nodeKey === "" ? "zarr.json" : `${nodeKey}/zarr.json`;
}

/** The prefix every chunk key of the array at `nodeKey` starts with (`a/c/`, or `c/` at the root). */
function chunkPrefix(nodeKey: string): string {
  return nodeKey === "" ? "c/" : `${nodeKey}/c/`;
}

function chunkKey(nodeKey: string, coords: readonly number[]): string {
  const c = coords.length === 0 ? "c" : `c/${coords.join("/")}`;
  return nodeKey === "" ? c : `${nodeKey}/${c}`;
}

function checkSize(size: number, key: string, options?: StoreOptions): void {
  if (options?.maxBytes !== undefined && size > options.maxBytes) {
    throw new ValueTooLargeError(
      `icechunk value ${key} has ${size} bytes, more than the ${options.maxBytes} expected`,
      {
        path: key,
      },
    );
  }
}

function slice(
  value: Uint8Array,
  range: ByteRange | undefined,
  key: string,
  options?: StoreOptions,
): Uint8Array {
  const [start, end] = rangeBounds(range, value.length);
  checkSize(end - start, key, options);
  return value.slice(start, end);
}
