/**
 * {@link GcsStore}: a Zarr store on a Google Cloud Storage bucket.
 *
 * @module
 */

import {
  type Bucket,
  type File,
  IdempotencyStrategy,
  Storage,
  type StorageOptions,
} from "@google-cloud/storage";
import {
  type ByteRange,
  type DirListing,
  integerOption,
  isSuffixRange,
  type ListableStore,
  mapConcurrent,
  normalizeStorePrefix,
  type ReadableStore,
  StoreError,
  type StoreOptions,
  sliceRange,
  throwIfAborted,
  validateKey,
  validatePrefix,
  type WritableStore,
} from "@zarr/core";
import { isNotFound, isRangeNotSatisfiable, storeError } from "./errors.js";

/** Retry settings of the client (`StorageOptions.retryOptions`). */
export type GcsRetryOptions = NonNullable<StorageOptions["retryOptions"]>;

const MiB = 1024 * 1024;
/** Resumable upload chunks must be multiples of 256 KiB. */
const CHUNK_UNIT = 256 * 1024;

/** Options of {@link GcsStore}. Client options are ignored when `storage` is given. */
export interface GcsStoreOptions {
  /** The bucket. */
  bucket: string;
  /** Object name prefix under which the store lives (`"data/example.zarr"`); default: the bucket's root. */
  prefix?: string;
  /** A configured client to use instead of creating one. */
  storage?: Storage;
  /**
   * API endpoint, e.g. `"http://127.0.0.1:4443"` for an emulator (requests go
   * to `{apiEndpoint}/storage/v1/...`; no authentication is sent to custom
   * endpoints). Default: Google's, or `STORAGE_EMULATOR_HOST` when set.
   */
  apiEndpoint?: string;
  /** Project id (only needed by operations on projects; object operations don't). */
  projectId?: string;
  /** Path of a service account key file (default: Application Default Credentials). */
  keyFilename?: string;
  /** Service account credentials (default: Application Default Credentials). */
  credentials?: { client_email?: string; private_key?: string };
  /**
   * Retry behaviour. Default: retry up to 3 times with exponential backoff,
   * uploads included (`IdempotencyStrategy.RetryAlways`: writing the same value
   * to a key again is harmless, which is all a store's `set` does).
   */
  retryOptions?: GcsRetryOptions;
  /** Values larger than this many bytes are written by resumable upload (default 8 MiB). */
  resumableThreshold?: number;
  /** Chunk size of resumable uploads (a multiple of 256 KiB; default: one request for the whole value). */
  chunkSize?: number;
  /** Requests one operation keeps in flight (deletes of `eraseValues`/`erasePrefix`; default 16). */
  concurrency?: number;
  /** Objects per listing page (1..1000, default 1000). */
  listPageSize?: number;
  /**
   * Milliseconds a request may go without progress before it fails with a
   * `StoreError` (default 60000). The client library never settles a response
   * whose connection drops mid-body; this bounds every call. Downloads count
   * each received piece as progress; other calls get this long in total, plus
   * one second per 100 kB for uploads.
   */
  idleTimeout?: number;
}

/**
 * A Zarr store on Google Cloud Storage through `@google-cloud/storage`. Reads
 * use ranged media GETs (suffix ranges included), listing uses the JSON API's
 * `prefix`/`delimiter` paging, deletes run in parallel (bounded), and values
 * above `resumableThreshold` are written by resumable upload. A missing key
 * reads as `undefined`; every other failure is a `StoreError` naming the key,
 * with the client's error as `cause`.
 *
 * The client cannot cancel requests in flight: an `AbortSignal` is checked
 * before each request and between listing pages.
 *
 * @example
 * const store = new GcsStore({ bucket: "my-bucket", prefix: "data/example.zarr" });
 * const array = await openArray(store, "temperature");
 */
export class GcsStore implements ReadableStore, WritableStore, ListableStore {
  /** The bucket name. */
  readonly bucketName: string;
  /** The normalized prefix (no leading or trailing `/`; `""` for the bucket root). */
  readonly prefix: string;
  /** The client every request goes through. */
  readonly storage: Storage;
  readonly #bucket: Bucket;
  readonly #root: string;
  readonly #threshold: number;
  readonly #chunkSize: number | undefined;
  readonly #concurrency: number;
  readonly #pageSize: number;
  readonly #idleTimeout: number;

  constructor(options: GcsStoreOptions) {
    if (
      typeof options?.bucket !== "string" ||
      options.bucket === "" ||
      options.bucket.includes("/")
    ) {
      throw new StoreError(
        `GcsStore needs a bucket name without "/", got ${JSON.stringify(options?.bucket)}`,
      );
    }
    this.bucketName = options.bucket;
    this.prefix = normalizeStorePrefix(options.prefix ?? "", "GcsStore");
    this.#root = this.prefix === "" ? "" : `${this.prefix}/`;
    this.#threshold = integerOption(
      "GcsStore",
      "resumableThreshold",
      options.resumableThreshold,
      8 * MiB,
      0,
    );
    this.#chunkSize =
      options.chunkSize === undefined
        ? undefined
        : integerOption("GcsStore", "chunkSize", options.chunkSize, 0, CHUNK_UNIT);
    if (this.#chunkSize !== undefined && this.#chunkSize % CHUNK_UNIT !== 0) {
      throw new StoreError(
        `GcsStore option "chunkSize" must be a multiple of 262144, got ${this.#chunkSize}`,
      );
    }
    this.#concurrency = integerOption("GcsStore", "concurrency", options.concurrency, 16, 1, 256);
    this.#pageSize = integerOption("GcsStore", "listPageSize", options.listPageSize, 1000, 1, 1000);
    this.#idleTimeout = integerOption("GcsStore", "idleTimeout", options.idleTimeout, 60_000, 1);
    this.storage = options.storage ?? createStorage(options);
    this.#bucket = this.storage.bucket(this.bucketName);
  }

  /** `gs://bucket/prefix/` */
  get url(): string {
    return `gs://${this.bucketName}/${this.#root}`;
  }

  /**
   * The object name of `key`. Keys are checked here too (not only by core's
   * `resolveStore`), so a store used directly cannot reach objects outside its prefix.
   */
  #objectName(key: string): string {
    return this.#root + validateKey(key);
  }

  /** The object name prefix of store prefix `prefix` (checked like keys). */
  #objectPrefix(prefix: string): string {
    return this.#root + validatePrefix(prefix);
  }

  #file(key: string): File {
    return this.#bucket.file(this.#objectName(key));
  }

  #location(objectName: string): string {
    return `gs://${this.bucketName}/${objectName}`;
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    const download: { start?: number; end?: number } = {};
    if (range !== undefined) {
      // Empty ranges cannot be expressed in HTTP: check existence instead.
      if (isSuffixRange(range) ? range.suffix === 0 : range.length === 0) {
        return (await this.getSize(key, options)) === undefined ? undefined : new Uint8Array(0);
      }
      if (isSuffixRange(range)) download.end = -range.suffix;
      else {
        if (range.offset > 0) download.start = range.offset;
        if (range.length !== undefined) {
          download.start = range.offset;
          download.end = range.offset + range.length - 1;
        }
      }
    }
    try {
      const { bytes, status } = await readObject(
        this.#file(key),
        download,
        this.#idleTimeout,
        signal,
      );
      // A server that ignores Range answers 200 with the whole value: slice it here.
      return range !== undefined && status === 200 ? sliceRange(bytes, range) : bytes;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (range !== undefined && isRangeNotSatisfiable(error)) return new Uint8Array(0);
      throw storeError(error, "download", key, this.#location(this.#root + key), signal);
    }
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    let size: unknown;
    try {
      [{ size }] = await bounded(this.#file(key).getMetadata(), this.#idleTimeout);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw storeError(error, "getMetadata", key, this.#location(this.#root + key), signal);
    }
    const n = Number(size);
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new StoreError(
        `GCS metadata of ${JSON.stringify(key)} has an invalid size ${JSON.stringify(size)}`,
        { path: key },
      );
    }
    return n;
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions): Promise<void> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    const resumable = value.length > this.#threshold;
    try {
      await bounded(
        this.#file(key).save(value, {
          resumable,
          ...(resumable && this.#chunkSize !== undefined ? { chunkSize: this.#chunkSize } : {}),
          contentType: "application/octet-stream",
        }),
        this.#idleTimeout + Math.ceil(value.length / 100),
      );
    } catch (error) {
      throw storeError(
        error,
        resumable ? "resumable upload" : "upload",
        key,
        this.#location(this.#root + key),
        signal,
      );
    }
  }

  async erase(key: string, options?: StoreOptions): Promise<void> {
    await this.#delete(this.#objectName(key), options?.signal);
  }

  async #delete(objectName: string, signal?: AbortSignal): Promise<void> {
    const key = objectName.slice(this.#root.length);
    throwIfAborted(signal, key);
    try {
      await bounded(this.#bucket.file(objectName).delete(), this.#idleTimeout);
    } catch (error) {
      if (isNotFound(error)) return;
      throw storeError(error, "delete", key, this.#location(objectName), signal);
    }
  }

  async eraseValues(keys: readonly string[], options?: StoreOptions): Promise<void> {
    const signal = options?.signal;
    // Every key is checked before the first delete: one bad key erases nothing.
    const names = [...new Set(keys)].map((key) => this.#objectName(key));
    await mapConcurrent(names, this.#concurrency, (name) => this.#delete(name, signal), signal);
  }

  async erasePrefix(prefix: string, options?: StoreOptions): Promise<void> {
    const signal = options?.signal;
    // Each page is deleted before the next is requested; page tokens continue
    // after the last name listed, so deleting listed objects skips nothing.
    for await (const page of this.#pages(this.#objectPrefix(prefix), undefined, signal, prefix)) {
      await mapConcurrent(
        page.names,
        this.#concurrency,
        (name) => this.#delete(name, signal),
        signal,
      );
    }
  }

  list(options?: StoreOptions): AsyncIterable<string> {
    return this.listPrefix("", options);
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    for await (const page of this.#pages(
      this.#objectPrefix(prefix),
      undefined,
      options?.signal,
      prefix,
    )) {
      for (const name of page.names) {
        if (name.startsWith(this.#root)) yield name.slice(this.#root.length);
      }
    }
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    const full = this.#objectPrefix(prefix);
    const keys: string[] = [];
    const prefixes: string[] = [];
    for await (const page of this.#pages(full, "/", options?.signal, prefix)) {
      for (const name of page.names) {
        if (name.startsWith(full)) keys.push(name.slice(full.length));
      }
      for (const p of page.prefixes) {
        if (p.startsWith(full) && p.endsWith("/")) prefixes.push(p.slice(full.length, -1));
      }
    }
    return { keys, prefixes };
  }

  /** Listing pages under `namePrefix`, following page tokens. */
  async *#pages(
    namePrefix: string,
    delimiter: string | undefined,
    signal: AbortSignal | undefined,
    prefix: string,
  ): AsyncGenerator<{ names: string[]; prefixes: string[] }> {
    let pageToken: string | undefined;
    do {
      throwIfAborted(signal, prefix);
      let files: File[];
      let next: { pageToken?: string } | undefined;
      let response: unknown;
      try {
        [files, next, response] = await bounded(
          this.#bucket.getFiles({
            autoPaginate: false,
            maxResults: this.#pageSize,
            ...(namePrefix === "" ? {} : { prefix: namePrefix }),
            ...(delimiter === undefined ? {} : { delimiter }),
            ...(pageToken === undefined ? {} : { pageToken }),
          }),
          this.#idleTimeout,
        );
      } catch (error) {
        throw storeError(error, "list", prefix, this.#location(namePrefix), signal);
      }
      const raw = (response ?? {}) as { prefixes?: unknown };
      const prefixes = Array.isArray(raw.prefixes)
        ? raw.prefixes.filter((p): p is string => typeof p === "string")
        : [];
      yield { names: files.map((f) => f.name), prefixes };
      const token = next?.pageToken;
      if (token !== undefined && token === pageToken) {
        throw new StoreError(
          `GCS list of prefix ${JSON.stringify(prefix)} at ${this.#location(namePrefix)} returned the same page token twice`,
          { path: prefix },
        );
      }
      pageToken = token;
    } while (pageToken !== undefined);
  }
}

/**
 * Reads an object (or a range of it) with the client's read stream, keeping the
 * HTTP status so that a response that ignored `Range` can be told apart.
 */
function readObject(
  file: File,
  download: { start?: number; end?: number },
  idleTimeout: number,
  signal?: AbortSignal,
): Promise<{ bytes: Uint8Array; status: number | undefined }> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let status: number | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stream = file.createReadStream(download);
    const fail = (error: unknown) => {
      finish();
      stream.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal?.reason ?? new Error("aborted"));
    // No progress for idleTimeout ms: the connection is gone (the client would wait forever).
    const arm = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => fail(new IdleTimeoutError(idleTimeout)), idleTimeout);
    };
    const finish = () => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    stream
      .on("response", (response: { statusCode?: number; status?: number }) => {
        status = response?.statusCode ?? response?.status;
        arm();
      })
      .on("data", (chunk: Uint8Array) => {
        chunks.push(chunk);
        arm();
      })
      .on("error", fail)
      .on("end", () => {
        finish();
        const joined = Buffer.concat(chunks);
        resolve({
          bytes: new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength),
          status,
        });
      });
  });
}

/** A request made no progress for too long. */
class IdleTimeoutError extends Error {
  constructor(ms: number) {
    super(`no response progress for ${ms} ms (connection lost?)`);
    this.name = "IdleTimeoutError";
  }
}

/**
 * Settles with `promise`, or rejects with an {@link IdleTimeoutError} after
 * `ms` (the client's own promise may never settle when a connection drops).
 */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IdleTimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Creates the client from {@link GcsStoreOptions}. */
function createStorage(options: GcsStoreOptions): Storage {
  const config: StorageOptions = {
    retryOptions: {
      autoRetry: true,
      maxRetries: 3,
      idempotencyStrategy: IdempotencyStrategy.RetryAlways,
      ...options.retryOptions,
    },
  };
  if (options.apiEndpoint !== undefined) config.apiEndpoint = options.apiEndpoint;
  if (options.projectId !== undefined) config.projectId = options.projectId;
  if (options.keyFilename !== undefined) config.keyFilename = options.keyFilename;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  return new Storage(config);
}
