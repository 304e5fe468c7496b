/**
 * Where data comes from: an http(s) URL (a `.zip` URL is read by ranges), a
 * local directory (File System Access API, or the files of an
 * `<input webkitdirectory>`), or a local `.zip` file. Every source becomes a
 * read-only store; local ones are listable, so their hierarchy can be browsed.
 *
 * Formats load on demand: the v2/v1 support of `@zarr/v2-compat` is imported
 * only when a node has no `zarr.json` but a `.zarray`/`.zgroup` (core then
 * reports the v2 format as not registered), and the zip reader only for zips.
 *
 * @module
 */
import { type AnyStore, type Group, NotRegisteredError, open, type ZarrArray } from "@zarr/core";
import { HttpStore } from "@zarr/store-http";

/** A store plus what to call it (in the URL and the page). */
export interface Source {
  store: AnyStore;
  /** The URL for http sources; a label such as `local:name` otherwise. */
  label: string;
  /** Whether the store can list keys (the tree is then built from listings). */
  listable: boolean;
  /** The store's root within the source, for archives of a folder. */
  root: string;
}

/** HttpStore calls its fetch as a method; browsers reject window.fetch on another `this`. */
const boundFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** An http(s) URL; a URL ending in `.zip` is opened as a zip archive read by ranges. */
export async function openUrl(url: string): Promise<Source> {
  const u = new URL(url, globalThis.location?.href);
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new Error(`only http(s) URLs can be opened, not ${u.protocol}`);
  }
  if (/\.zip$/i.test(u.pathname)) {
    const dir = new URL(".", u).href;
    const name = decodeURIComponent(u.pathname.split("/").pop()!);
    const { ZipStore, storeSource } = await import("@zarr/store-zip");
    const zipped = await ZipStore.open(
      storeSource(new HttpStore(dir, { fetch: boundFetch }), name),
    );
    return zipSource(zipped, url);
  }
  return {
    store: new HttpStore(u.href, { fetch: boundFetch }),
    label: url,
    listable: false,
    root: "",
  };
}

/** A local `.zip` file (a `File` from an input or a drop). */
export async function openZipFile(file: Blob & { name?: string }): Promise<Source> {
  const { ZipStore, blobSource } = await import("@zarr/store-zip");
  return zipSource(await ZipStore.open(blobSource(file)), `local:${file.name ?? "archive.zip"}`);
}

async function zipSource(store: AnyStore, label: string): Promise<Source> {
  return { store, label, listable: true, root: await findRoot(store) };
}

const NODE_DOCS = /(^|\/)(zarr\.json|\.zgroup|\.zarray|\.zattrs)$/;

/**
 * The shallowest folder holding a Zarr document: "" when the root has one,
 * "data.zarr" for an archive or folder that wraps the hierarchy in one more level.
 */
export async function findRoot(store: AnyStore): Promise<string> {
  if (!store.list) return "";
  let best: string | undefined;
  for await (const key of store.list()) {
    if (!NODE_DOCS.test(key)) continue;
    const dir = key.includes("/") ? key.slice(0, key.lastIndexOf("/")) : "";
    if (best === undefined || dir.split("/").length < best.split("/").length || dir === "")
      best = dir;
    if (best === "") break;
  }
  return best ?? "";
}

/** A read-only, listable store over files keyed by their relative paths. */
export class FileMapStore {
  readonly #files: Map<string, Blob>;
  constructor(files: Map<string, Blob>) {
    this.#files = files;
  }
  async get(
    key: string,
    range?: { offset: number; length?: number } | { suffix: number },
  ): Promise<Uint8Array | undefined> {
    const file = this.#files.get(key);
    if (!file) return undefined;
    let part: Blob = file;
    if (range && "suffix" in range) part = file.slice(Math.max(0, file.size - range.suffix));
    else if (range)
      part = file.slice(
        range.offset,
        range.length === undefined ? undefined : range.offset + range.length,
      );
    return new Uint8Array(await part.arrayBuffer());
  }
  async *list(): AsyncIterable<string> {
    yield* this.#files.keys();
  }
}

/** The files of an `<input webkitdirectory>`, keyed without the chosen folder's name. */
export function openFileList(files: Iterable<File>): Source {
  const map = new Map<string, Blob>();
  let top = "local";
  for (const f of files) {
    const rel = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    const slash = rel.indexOf("/");
    top = slash > 0 ? rel.slice(0, slash) : top;
    map.set(slash > 0 ? rel.slice(slash + 1) : rel, f);
  }
  const store = new FileMapStore(map);
  return { store, label: `local:${top}`, listable: true, root: "" };
}

/** Minimal typing of the File System Access API's directory handle (Chromium). */
interface DirHandle {
  name: string;
  kind: "directory";
  values(): AsyncIterable<{ kind: "file" | "directory"; name: string }>;
}

/** A directory picked with `showDirectoryPicker()` (read lazily, one file per key). */
export async function openDirectoryHandle(dir: DirHandle): Promise<Source> {
  const map = new Map<string, Blob>();
  // Walk once to learn the keys; files are read on demand by the store.
  const walk = async (handle: DirHandle, prefix: string): Promise<void> => {
    for await (const entry of handle.values()) {
      if (entry.kind === "directory")
        await walk(entry as unknown as DirHandle, `${prefix}${entry.name}/`);
      else
        map.set(
          `${prefix}${entry.name}`,
          await (entry as unknown as { getFile(): Promise<File> }).getFile(),
        );
    }
  };
  await walk(dir, "");
  return { store: new FileMapStore(map), label: `local:${dir.name}`, listable: true, root: "" };
}

/** Joins the source's root and a node path. */
export function fullPath(source: Source, path: string): string {
  const p = path.replace(/^\/+|\/+$/g, "");
  return [source.root, p].filter(Boolean).join("/");
}

let v2Loading: Promise<unknown> | undefined;

/** Registers the v2/v1 formats (and numcodecs codecs), loading their code once. */
export function loadV2(): Promise<unknown> {
  v2Loading ??= import("@zarr/v2-compat/register");
  return v2Loading;
}

/** Whether `e` says a node is in a format not registered yet (v2, v1). */
export function needsFormat(e: unknown): boolean {
  return e instanceof NotRegisteredError && e.kind === "format";
}

/**
 * Opens the node at `path`, loading the v2/v1 format support on first need.
 *
 * @example
 * ```ts
 * const node = await openNode(await openUrl("https://example.org/data.zarr"), "legacy/pressure");
 * ```
 */
export async function openNode(
  source: Source,
  path: string,
  signal?: AbortSignal,
): Promise<ZarrArray | Group> {
  const at = fullPath(source, path);
  try {
    return await open(source.store, at, { signal });
  } catch (e) {
    if (!needsFormat(e)) throw e;
    await loadV2();
    return open(source.store, at, { signal });
  }
}
