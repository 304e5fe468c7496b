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
import { StoreError, type StoreOptions, ValueTooLargeError, ZarrError } from "@zarr/core";
import {
  type ByteRange,
  type DirListing,
  integerOption,
  isSuffixRange,
  type ListableStore,
  mapConcurrent,
  type ReadableStore,
  throwIfAborted,
  type WritableStore,
} from "@zarr/core/store";
import {
  type BodyFailure,
  type BodyPlan,
  BucketPrefix,
  Deadline,
  isEmptyRange,
  PlannedBody,
  planObjectRead,
  type Refusal,
} from "@zarr/remote-store";
import { isNotFound, isRangeNotSatisfiable, storeError } from "./errors.js";

/** Retry settings of the client (`StorageOptions.retryOptions`). */
export type GcsRetryOptions = NonNullable<StorageOptions["retryOptions"]>;

const MiB = 1024 * 1024;
/** Resumable upload chunks must be multiples of 256 KiB. */
const CHUNK_UNIT = 256 * 1024;

/**
 * The default {@link GcsStoreOptions.maxBodyBytes}: 128 MiB, above any metadata
 * document and the chunk sizes Zarr recommends (1–100 MB); it only applies to
 * reads whose caller gives no `StoreOptions.maxBytes` (core gives one).
 */
export const DEFAULT_MAX_BODY_BYTES = 128 * MiB;

/** The default {@link GcsStoreOptions.timeout}: 20 s for a read or listing page, retries included. */
export const DEFAULT_TIMEOUT = 20_000;

/** The most bytes of an error response body the store lets the client read (for its message). */
export const MAX_ERROR_BODY = 8 * 1024;

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
  /**
   * The total time in ms of one read (`get`, `getSize`) or listing page, the
   * client's retries and the body included (default {@link DEFAULT_TIMEOUT},
   * 20,000); past it the read fails with a `StoreError` naming the key. A
   * download also fails after `min(idleTimeout, timeout)` without progress.
   * Raise it to read large values over slow links.
   */
  timeout?: number;
  /**
   * The most bytes one read accepts when its caller gives no
   * `StoreOptions.maxBytes` (default {@link DEFAULT_MAX_BODY_BYTES}, 128 MiB):
   * a body that passes it is cut off with a `StoreError`, whatever its
   * `Content-Length` says. Also bounds the whole value a server sends when it
   * ignores the `Range` of a suffix read.
   */
  maxBodyBytes?: number;
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
  readonly #where: BucketPrefix;
  readonly #threshold: number;
  readonly #chunkSize: number | undefined;
  readonly #concurrency: number;
  readonly #pageSize: number;
  readonly #idleTimeout: number;
  readonly #timeout: number;
  readonly #maxBody: number;
  /**
   * The canonical location of the store's root (see `ReadableStore.location`
   * in @zarr/core): `gs://<endpoint host[:port]>/<bucket>[/<prefix>]`, the
   * endpoint being the client's API endpoint (`storage.googleapis.com` by
   * default, an emulator's `127.0.0.1:4443`).
   */
  readonly location: string;

  constructor(options: GcsStoreOptions) {
    this.#where = new BucketPrefix("gs", "GcsStore", options?.bucket, options?.prefix);
    this.bucketName = this.#where.bucket;
    this.prefix = this.#where.prefix;
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
    this.#timeout = integerOption("GcsStore", "timeout", options.timeout, DEFAULT_TIMEOUT, 1);
    this.#maxBody = integerOption(
      "GcsStore",
      "maxBodyBytes",
      options.maxBodyBytes,
      DEFAULT_MAX_BODY_BYTES,
      0,
    );
    this.storage = options.storage ?? createStorage(options);
    this.#bucket = this.storage.bucket(this.bucketName);
    this.location = gcsLocation(this.storage.apiEndpoint, this.#where);
  }

  /** `gs://bucket/prefix/` */
  get url(): string {
    return this.#where.url;
  }

  /**
   * The object name of `key`. Keys are checked here too (not only by core's
   * `resolveStore`), so a store used directly cannot reach objects outside its prefix.
   */
  #objectName(key: string): string {
    return this.#where.objectKey(key);
  }

  /** The object name prefix of store prefix `prefix` (checked like keys). */
  #objectPrefix(prefix: string): string {
    return this.#where.objectPrefix(prefix);
  }

  #file(key: string): File {
    return this.#bucket.file(this.#objectName(key));
  }

  #location(objectName: string): string {
    return this.#where.location(objectName);
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    const signal = options?.signal;
    const maxBytes = options?.maxBytes;
    throwIfAborted(signal, key);
    const download: { start?: number; end?: number } = {};
    if (range !== undefined) {
      // Empty ranges cannot be expressed in HTTP: check existence instead.
      if (isEmptyRange(range)) {
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
    const location = this.#location(this.#where.root + key);
    const where = `GCS download of ${JSON.stringify(key)} at ${location}`;
    const deadline = new Deadline(signal, this.#timeout, "timeout");
    const retry = this.storage.retryOptions ?? {};
    const retries = retry.autoRetry === false ? 0 : (retry.maxRetries ?? DEFAULT_MAX_RETRIES);
    const started = Date.now();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.#download(key, download, range, maxBytes, where, deadline.signal);
        } catch (error) {
          if (error instanceof ZarrError) throw error;
          const over = deadline.error(key, where);
          if (over) throw over;
          if (isNotFound(error)) return undefined;
          if (range !== undefined && isRangeNotSatisfiable(error)) return new Uint8Array(0);
          const wait = retryDelay(retry, attempt, started);
          if (
            attempt >= retries ||
            wait < 0 ||
            error instanceof IdleTimeoutError ||
            !isRetryable(error, retry)
          ) {
            throw storeError(error, "download", key, location, signal);
          }
          // An abort or the deadline during the wait ends it; the next
          // attempt then fails at once and `deadline.error` says which.
          await sleep(wait, deadline.signal);
        }
      }
    } finally {
      deadline.end();
    }
  }

  /**
   * One attempt of a download, without the client's own retries (see
   * {@link withoutClientRetries}): `get` retries.
   */
  #download(
    key: string,
    download: { start?: number; end?: number },
    range: ByteRange | undefined,
    maxBytes: number | undefined,
    where: string,
    signal: AbortSignal,
  ): Promise<Uint8Array> {
    return readObject(
      withoutClientRetries(this.#file(key)),
      download,
      Math.min(this.#idleTimeout, this.#timeout),
      signal,
      (status, headers) => {
        const raw = headers["content-length"];
        return planObjectRead(
          { range, maxBytes, maxBodyBytes: this.#maxBody, refuseEncodedRanges: true },
          {
            status,
            contentLength: raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined,
            contentRange: headers["content-range"],
            contentEncoding: headers["content-encoding"] || undefined,
          },
        );
      },
      // Past the caller's own limit (options.maxBytes): a ValueTooLargeError, which core
      // reports for a chunk as a damaged chunk, as it does for every store.
      (reason, overLimit) =>
        new (overLimit ? ValueTooLargeError : StoreError)(`${where}: ${reason}`, { path: key }),
    );
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    const signal = options?.signal;
    throwIfAborted(signal, key);
    let size: unknown;
    try {
      [{ size }] = await bounded(
        this.#file(key).getMetadata(),
        Math.min(this.#idleTimeout, this.#timeout),
      );
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw storeError(error, "getMetadata", key, this.#location(this.#where.root + key), signal);
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
        this.#location(this.#where.root + key),
        signal,
      );
    }
  }

  async erase(key: string, options?: StoreOptions): Promise<void> {
    await this.#delete(this.#objectName(key), options?.signal);
  }

  async #delete(objectName: string, signal?: AbortSignal): Promise<void> {
    const key = this.#where.relative(objectName);
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
    const under = this.#objectPrefix(prefix);
    for await (const page of this.#pages(under, undefined, signal, prefix)) {
      // Only names under the prefix: a server listing others is not obeyed.
      await mapConcurrent(
        this.#where.under(under, page.names),
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
    const pages = this.#pages(this.#objectPrefix(prefix), undefined, options?.signal, prefix);
    for await (const page of pages) yield* this.#where.keys(page.names);
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    const full = this.#objectPrefix(prefix);
    return this.#where.dirListing(full, this.#pages(full, "/", options?.signal, prefix));
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

/** A raw response as the client's read stream announces it (node-fetch body with fields). */
interface RawResponse {
  statusCode?: number;
  status?: number;
  headers?: Record<string, string | undefined>;
  request?: { agent?: { destroy?: () => void } | false };
  destroy?: () => void;
  on?: (event: "error", listener: (error: unknown) => void) => unknown;
  [Symbol.asyncIterator]?: () => AsyncIterator<Uint8Array>;
}

/**
 * A body whose connection broke, as a connection reset (code `ECONNRESET`):
 * retried like one by the client's retry rules.
 */
function brokenBody(error: unknown): Error {
  return Object.assign(
    new Error(
      `the connection broke in the middle of the body: ${(error as Error)?.message ?? error}`,
      {
        cause: error,
      },
    ),
    { code: "ECONNRESET" },
  );
}

/**
 * Makes the client read at most {@link MAX_ERROR_BODY} bytes of an error
 * response (it reads the whole body for the error message): its iterator is
 * replaced, on this response only, by one that ends there. Past it the
 * response is destroyed and, as the client does itself after failed
 * downloads, its keep-alive agent too, which closes the connection. The
 * returned function ends the client's reading at once (the read has settled,
 * e.g. on the idle timeout): the client reads the body with no rejection
 * handler, so a body that fails under it (the connection closing while it
 * waits) would be an unhandled rejection that ends the process.
 */
function boundErrorBody(raw: RawResponse): () => void {
  let abandon: () => void = () => {};
  const iterate = raw[Symbol.asyncIterator];
  if (typeof iterate !== "function") return abandon;
  const abandoned = new Promise<IteratorResult<Uint8Array>>((resolve) => {
    abandon = () => resolve({ done: true, value: undefined });
  });
  raw[Symbol.asyncIterator] = () => {
    const inner = iterate.call(raw);
    let seen = 0;
    return {
      async next(): Promise<IteratorResult<Uint8Array>> {
        if (seen >= MAX_ERROR_BODY) {
          raw.destroy?.();
          if (raw.request?.agent) raw.request.agent.destroy?.();
          return { done: true, value: undefined };
        }
        // A failure of `inner` after the race is handled (race subscribed to it).
        const result = await Promise.race([inner.next(), abandoned]);
        if (!result.done) {
          const piece = result.value.subarray(0, MAX_ERROR_BODY - seen);
          seen += result.value.length;
          return { done: false, value: piece };
        }
        return result;
      },
      async return(): Promise<IteratorResult<Uint8Array>> {
        return inner.return ? inner.return() : { done: true, value: undefined };
      },
    };
  };
  return () => abandon();
}

/**
 * Reads an object (or a range of it) with the client's read stream, bounded:
 * `plan(status, headers)` says how much the body may be and which bytes to
 * keep (or why the response is refused); the stream is destroyed as soon as
 * the body passes it, stalls for `idleMs`, or `signal` aborts. Error
 * responses reach the client's own error handling with their bodies bounded.
 */
function readObject(
  file: File,
  download: { start?: number; end?: number },
  idleMs: number,
  signal: AbortSignal,
  plan: (status: number, headers: Record<string, string | undefined>) => BodyPlan | Refusal,
  fail: BodyFailure,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    let body: PlannedBody | undefined;
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let abandonErrorBody: (() => void) | undefined;
    const stream = file.createReadStream(download);
    // Destroyed on the next turn, not inside the client's own event handlers:
    // a stream destroyed while its 'response' is being dispatched makes the
    // client pipe into it next, which Node ≥ 22 rejects with an unhandled
    // ERR_STREAM_UNABLE_TO_PIPE (the process ends).
    const destroyLater = () => setImmediate(() => stream.destroy());
    const settle = (error: unknown, value?: Uint8Array) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      abandonErrorBody?.();
      if (error !== undefined || value === undefined) {
        destroyLater();
        reject(error);
      } else {
        if (!stream.readableEnded) destroyLater();
        resolve(value);
      }
    };
    const onAbort = () => settle(signal.reason ?? new Error("aborted"));
    // No progress for idleMs: the connection is gone (the client would wait forever).
    const arm = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => settle(new IdleTimeoutError(idleMs)), idleMs);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    arm();
    stream
      .on("response", (raw: RawResponse) => {
        arm();
        const status = raw?.statusCode ?? raw?.status ?? 0;
        if (status < 200 || status > 299) {
          abandonErrorBody = boundErrorBody(raw);
          return; // the client turns it into an error
        }
        // The client never reports a connection that breaks in the middle of
        // the body (the read would wait for the idle timeout): the body does.
        raw.on?.("error", (error: unknown) => settle(brokenBody(error)));
        const p = plan(status, raw.headers ?? {});
        if ("refuse" in p) {
          settle(fail(`HTTP ${status} ${p.refuse}`, p.overLimit));
          return;
        }
        body = new PlannedBody(p, (reason, overMax) => fail(reason, overMax && p.callersMax));
      })
      .on("data", (chunk: Uint8Array) => {
        if (settled) return;
        arm();
        body ??= new PlannedBody({ max: 0, maxWhy: "no response was announced" }, fail);
        try {
          // The range's bytes have arrived: stop there.
          if (body.push(chunk)) settle(undefined, body.bytes());
        } catch (error) {
          settle(error);
        }
      })
      .on("error", (error: unknown) => settle(error))
      .on("end", () => {
        try {
          settle(undefined, body ? body.end() : new Uint8Array(0));
        } catch (error) {
          settle(error);
        }
      });
  });
}

/** `gs://<endpoint host[:port][/path]>/<bucket>[/<prefix>]` (see {@link GcsStore.location}). */
function gcsLocation(apiEndpoint: string | undefined, where: BucketPrefix): string {
  let endpoint = "storage.googleapis.com";
  if (apiEndpoint) {
    try {
      const u = new URL(
        /^[a-z][a-z0-9+.-]*:\/\//i.test(apiEndpoint) ? apiEndpoint : `https://${apiEndpoint}`,
      );
      endpoint = `${u.host}${u.pathname.replace(/\/+$/, "").replace(/\/storage\/v1$/, "")}`;
    } catch {
      endpoint = apiEndpoint;
    }
  }
  return where.canonical(endpoint);
}

/** A request made no progress for too long. */
class IdleTimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out: no response progress for ${ms} ms (idleTimeout, timeout)`);
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

/** The client's default number of retries (`retryOptions.maxRetries`). */
const DEFAULT_MAX_RETRIES = 3;

/**
 * `file` with the client's retries turned off for its downloads. On Node 22
 * and later the client's stream retries (retry-request over teeny-request)
 * pipe a discarded response into the stream they have just destroyed, which
 * Node refuses with ERR_STREAM_UNABLE_TO_PIPE as an unhandled rejection: the
 * process ends at the first retried 5xx (googleapis/google-cloud-node#8670,
 * open in @google-cloud/storage 7.x). `GcsStore.get` retries instead, with
 * the client's retry settings.
 */
function withoutClientRetries(file: File): File {
  const requestStream = file.requestStream.bind(file);
  file.requestStream = (reqOpts) => requestStream({ ...reqOpts, maxRetries: 0 });
  return file;
}

/** Whether the client would retry `error`: its `retryableErrorFn`, else 408, 429 and 5xx. */
function isRetryable(error: unknown, retry: GcsRetryOptions): boolean {
  const code = (error as { code?: unknown }).code;
  if (!retry.retryableErrorFn) {
    return (
      [408, 429, 500, 502, 503, 504].includes(Number(code)) ||
      (typeof code === "string" && CONNECTION_PROBLEMS.has(code.toLowerCase()))
    );
  }
  try {
    return retry.retryableErrorFn(
      error as Parameters<NonNullable<GcsRetryOptions["retryableErrorFn"]>>[0],
    );
  } catch {
    return false; // a failing rule retries nothing; the download's own error is reported
  }
}

/** Error codes of broken connections, retried as the client's default rule does. */
const CONNECTION_PROBLEMS = new Set(["econnreset", "epipe", "etimedout", "eai_again"]);
/**
 * The wait before retry `attempt + 1`, exponential as the client's own:
 * `multiplier^attempt` seconds plus up to 1 s of jitter, at most
 * `maxRetryDelay`; negative once `totalTimeout` (seconds) has passed.
 */
function retryDelay(retry: GcsRetryOptions, attempt: number, started: number): number {
  const multiplier = retry.retryDelayMultiplier ?? 2;
  const maxDelay = (retry.maxRetryDelay ?? 64) * 1000;
  const left = (retry.totalTimeout ?? 600) * 1000 - (Date.now() - started);
  if (left <= 0) return -1;
  return Math.min(multiplier ** attempt * 1000 + Math.floor(Math.random() * 1000), maxDelay, left);
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Creates the client from {@link GcsStoreOptions}. */
function createStorage(options: GcsStoreOptions): Storage {
  const retry = options.retryOptions;
  const config: StorageOptions = {
    retryOptions: {
      autoRetry: true,
      maxRetries: 3,
      idempotencyStrategy: IdempotencyStrategy.RetryAlways,
      ...retry,
      // The client reads maxRetries 0 as "not set" (3 retries): no retries at all.
      ...(retry?.maxRetries === 0 ? { autoRetry: false } : {}),
    },
  };
  if (options.apiEndpoint !== undefined) config.apiEndpoint = options.apiEndpoint;
  if (options.projectId !== undefined) config.projectId = options.projectId;
  if (options.keyFilename !== undefined) config.keyFilename = options.keyFilename;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  return new Storage(config);
}
