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
  throwIfAborted,
  ValueTooLargeError,
  validateKey,
  validatePrefix,
  type WritableStore,
  ZarrError,
} from "@zarr/core";
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
  readonly #root: string;
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
    this.location = gcsLocation(this.storage.apiEndpoint, this.bucketName, this.prefix);
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
    const maxBytes = options?.maxBytes;
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
    const location = this.#location(this.#root + key);
    const where = `GCS download of ${JSON.stringify(key)} at ${location}`;
    const deadline = new Deadline(signal, this.#timeout);
    try {
      return await readObject(
        this.#file(key),
        download,
        Math.min(this.#idleTimeout, this.#timeout),
        deadline.signal,
        (status, headers) => this.#plan(range, status, headers, maxBytes),
        // Past the caller's own limit (options.maxBytes): a ValueTooLargeError, which core
        // reports for a chunk as a damaged chunk, as it does for every store.
        (reason, overLimit) =>
          new (overLimit ? ValueTooLargeError : StoreError)(`${where}: ${reason}`, { path: key }),
      );
    } catch (error) {
      if (error instanceof ZarrError) throw error;
      const over = deadline.error(key, where);
      if (over) throw over;
      if (isNotFound(error)) return undefined;
      if (range !== undefined && isRangeNotSatisfiable(error)) return new Uint8Array(0);
      throw storeError(error, "download", key, location, signal);
    } finally {
      deadline.end();
    }
  }

  /**
   * How to read a download body: its bound and the bytes to keep, or why the
   * response is refused before its body is read (a partial response that is
   * not the range asked for, an announced length the read cannot accept).
   */
  #plan(
    range: ByteRange | undefined,
    status: number,
    headers: Record<string, string | undefined>,
    maxBytes: number | undefined,
  ): BodyPlan | Refusal {
    const limit = maxBytes ?? this.#maxBody;
    const limitWhy =
      maxBytes === undefined
        ? "the most a read without options.maxBytes accepts (maxBodyBytes)"
        : "the most this read accepts (options.maxBytes)";
    const encoding = headers["content-encoding"];
    const raw = headers["content-length"];
    const length =
      raw !== undefined && /^\d+$/.test(raw) && (!encoding || encoding === "identity")
        ? Number(raw)
        : undefined;
    const exact = length === undefined ? {} : { exact: length, exactWhy: "Content-Length" };
    if (range === undefined || status !== 206) {
      if (range === undefined) {
        if (length !== undefined && length > limit) {
          return {
            refuse: `Content-Length ${length} is more than ${limit} bytes, ${limitWhy}`,
            overLimit: maxBytes !== undefined,
          };
        }
        return { max: limit, maxWhy: limitWhy, callersMax: maxBytes !== undefined, ...exact };
      }
      // The server ignored Range and sends the whole value: keep the range's
      // bytes only, and stop reading once they have arrived.
      if (isSuffixRange(range)) {
        const capWhy = "the most of a whole value read for a suffix range (maxBodyBytes)";
        if (length !== undefined && length > this.#maxBody) {
          return {
            refuse: `server ignored Range; its ${length}-byte value is more than ${this.#maxBody}, ${capWhy}`,
          };
        }
        return { max: this.#maxBody, maxWhy: capWhy, tail: range.suffix, ...exact };
      }
      return {
        max: range.offset + limit,
        maxWhy: `the range's offset plus ${limitWhy}`,
        start: range.offset,
        ...(range.length === undefined ? {} : { end: range.offset + range.length }),
        ...exact,
      };
    }
    if (encoding && encoding !== "identity") {
      return {
        refuse: `ranged response is ${encoding}-encoded: byte ranges would not match the value`,
      };
    }
    const header = headers["content-range"];
    const cr = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header?.trim() ?? "");
    if (!cr) return { refuse: `response without a valid Content-Range (${header})` };
    const first = Number(cr[1]);
    const last = Number(cr[2]);
    const total = cr[3] === "*" ? undefined : Number(cr[3]);
    if (last < first || (total !== undefined && last >= total)) {
      return { refuse: `response without a valid Content-Range (${header})` };
    }
    const expected = last - first + 1;
    const asked = isSuffixRange(range) ? range.suffix : range.length;
    const start = isSuffixRange(range)
      ? total === undefined
        ? first
        : Math.max(0, total - range.suffix)
      : range.offset;
    if (first !== start || (asked !== undefined && expected > asked)) {
      return { refuse: `server answered with a different range (Content-Range: ${header})` };
    }
    if (expected > limit) {
      return {
        refuse: `range of ${expected} bytes is more than ${limit} bytes, ${limitWhy}`,
        overLimit: maxBytes !== undefined,
      };
    }
    if (length !== undefined && length !== expected) {
      return {
        refuse: `Content-Length ${length} does not match its Content-Range (${expected} bytes)`,
      };
    }
    return {
      max: expected,
      maxWhy: "the length of its Content-Range",
      exact: expected,
      exactWhy: "Content-Range",
    };
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

/** What a body may be and which of its bytes to keep. */
/** Why a response is refused before its body is read (`overLimit`: it is larger than the caller accepts). */
interface Refusal {
  refuse: string;
  overLimit?: boolean;
}

interface BodyPlan {
  /** Most bytes that may be read; one more is an error naming `maxWhy`. */
  max: number;
  maxWhy: string;
  /** `max` is the caller's own limit (`StoreOptions.maxBytes`). */
  callersMax?: boolean;
  /** The exact length announced, and by which header. */
  exact?: number;
  exactWhy?: string;
  /** Keep bytes `[start, end)` only, and stop reading at `end` (default: all). */
  start?: number;
  end?: number;
  /** Keep only the last `tail` bytes. */
  tail?: number;
}

/** A raw response as the client's read stream announces it (node-fetch body with fields). */
interface RawResponse {
  statusCode?: number;
  status?: number;
  headers?: Record<string, string | undefined>;
  request?: { agent?: { destroy?: () => void } | false };
  destroy?: () => void;
  [Symbol.asyncIterator]?: () => AsyncIterator<Uint8Array>;
}

/**
 * Makes the client read at most {@link MAX_ERROR_BODY} bytes of an error
 * response (it reads the whole body for the error message): its iterator is
 * replaced, on this response only, by one that ends there. Past it the
 * response is destroyed and, as the client does itself after failed
 * downloads, its keep-alive agent too, which closes the connection.
 */
function boundErrorBody(raw: RawResponse): void {
  const iterate = raw[Symbol.asyncIterator];
  if (typeof iterate !== "function") return;
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
        const result = await inner.next();
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
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
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
  fail: (reason: string, overLimit?: boolean) => Error,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let body: BodyPlan | undefined;
    let out: Uint8Array | undefined;
    let kept = 0;
    let read = 0;
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stream = file.createReadStream(download);
    const settle = (error: unknown, value?: Uint8Array) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (error !== undefined || value === undefined) {
        stream.destroy();
        reject(error);
      } else {
        if (!stream.readableEnded) stream.destroy();
        resolve(value);
      }
    };
    const onAbort = () => settle(signal.reason ?? new Error("aborted"));
    // No progress for idleMs: the connection is gone (the client would wait forever).
    const arm = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => settle(new IdleTimeoutError(idleMs)), idleMs);
    };
    const result = (): Uint8Array => {
      if (out) return kept === out.length ? out : out.subarray(0, kept);
      const whole = concat(parts, kept);
      const tail = body?.tail;
      return tail !== undefined && whole.length > tail ? whole.slice(whole.length - tail) : whole;
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
          boundErrorBody(raw);
          return; // the client turns it into an error
        }
        const p = plan(status, raw.headers ?? {});
        if ("refuse" in p) {
          settle(fail(`HTTP ${status} ${p.refuse}`, p.overLimit));
          return;
        }
        body = p;
        const known =
          p.exact !== undefined && p.tail === undefined
            ? Math.max(0, Math.min(p.exact, p.end ?? Number.POSITIVE_INFINITY) - (p.start ?? 0))
            : -1;
        if (known >= 0 && known <= p.max) out = new Uint8Array(known);
      })
      .on("data", (chunk: Uint8Array) => {
        if (settled) return;
        arm();
        const p = body ?? { max: 0, maxWhy: "no response was announced" };
        if (p.exact !== undefined && read + chunk.length > p.exact) {
          settle(fail(`body is longer than the ${p.exact} bytes its ${p.exactWhy} announces`));
          return;
        }
        if (read + chunk.length > p.max) {
          settle(fail(`body passes ${p.max} bytes, ${p.maxWhy}`, p.callersMax));
          return;
        }
        const end = p.end ?? Number.POSITIVE_INFINITY;
        const from = Math.max((p.start ?? 0) - read, 0);
        const to = Math.min(end - read, chunk.length);
        read += chunk.length;
        if (to > from) {
          const part = chunk.subarray(from, to);
          if (out) out.set(part, kept);
          else parts.push(part);
          kept += part.length;
          while (p.tail !== undefined && parts.length > 1 && kept - parts[0].length >= p.tail) {
            kept -= parts[0].length;
            parts.shift();
          }
        }
        if (read >= end) settle(undefined, result()); // the range's bytes have arrived
      })
      .on("error", (error: unknown) => settle(error))
      .on("end", () => {
        const p = body;
        if (p?.exact !== undefined && read !== p.exact) {
          settle(fail(`body has ${read} bytes, its ${p.exactWhy} says ${p.exact}`));
          return;
        }
        settle(undefined, result());
      });
  });
}

/** The store's own time limit for one operation passed. */
class Expired extends Error {
  constructor(readonly ms: number) {
    super(`timed out: the operation took more than ${ms} ms (timeout)`);
    this.name = "TimeoutError";
  }
}

/** One operation: the caller's signal plus a total deadline. */
class Deadline {
  readonly #controller = new AbortController();
  readonly #cleanup: (() => void)[] = [];

  constructor(
    readonly callerSignal: AbortSignal | undefined,
    total: number,
  ) {
    const caller = callerSignal;
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else if (caller) {
      const onAbort = () => this.#controller.abort(caller.reason);
      caller.addEventListener("abort", onAbort, { once: true });
      this.#cleanup.push(() => caller.removeEventListener("abort", onAbort));
    }
    const id = setTimeout(() => this.#controller.abort(new Expired(total)), total);
    this.#cleanup.push(() => clearTimeout(id));
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** A `StoreError` naming `key` once the deadline passed (the caller's abort is left to `storeError`). */
  error(key: string, where: string): Error | undefined {
    if (this.callerSignal?.aborted) return undefined;
    const reason = this.signal.reason;
    if (this.signal.aborted && reason instanceof Expired) {
      return new StoreError(`${where}: ${reason.message}`, { path: key, cause: reason });
    }
    return undefined;
  }

  end(): void {
    for (const f of this.#cleanup) f();
  }
}

/** `gs://<endpoint host[:port][/path]>/<bucket>[/<prefix>]` (see {@link GcsStore.location}). */
function gcsLocation(apiEndpoint: string | undefined, bucket: string, prefix: string): string {
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
  return `gs://${endpoint}/${bucket}${prefix === "" ? "" : `/${prefix}`}`;
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
