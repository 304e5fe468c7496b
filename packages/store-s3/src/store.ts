/**
 * {@link S3Store}: a Zarr store on an S3 bucket (AWS or S3-compatible).
 *
 * @module
 */

import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  type DeleteObjectsCommandOutput,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { StoreError, type StoreOptions, ValueTooLargeError, ZarrError } from "@zarr/core";
import {
  type ByteRange,
  type DirListing,
  integerOption,
  type ListableStore,
  mapConcurrent,
  type ReadableStore,
  throwIfAborted,
  type WritableStore,
} from "@zarr/core/store";
import {
  BucketPrefix,
  Deadline,
  isEmptyRange,
  type ListingPage,
  planObjectRead,
  rangeHeader,
  readBody,
} from "@zarr/remote-store";
import {
  boundResponseBodies,
  createS3Client,
  resolveTimeouts,
  type S3ClientOptions,
  type S3Timeouts,
} from "./client.js";
import { isInvalidRange, isNoSuchKey, storeError } from "./errors.js";
import { MAX_PART_SIZE, MIN_PART_SIZE, putMultipart } from "./multipart.js";

const MiB = 1024 * 1024;

/**
 * The default {@link S3StoreOptions.maxBodyBytes}: 128 MiB, above any metadata
 * document and the chunk sizes Zarr recommends (1–100 MB); it only applies to
 * reads whose caller gives no `StoreOptions.maxBytes` (core gives one).
 */
export const DEFAULT_MAX_BODY_BYTES = 128 * MiB;

/** Options of {@link S3Store}. Client options are ignored when `client` is given. */
export interface S3StoreOptions extends S3ClientOptions {
  /** The bucket. */
  bucket: string;
  /** Key prefix inside the bucket under which the store lives (`"data/example.zarr"`); default: the bucket's root. */
  prefix?: string;
  /** A configured client to use instead of creating one from the client options. */
  client?: S3Client;
  /** Values larger than this many bytes are written by multipart upload (default 16 MiB, at least 5 MiB). */
  multipartThreshold?: number;
  /** Part size of multipart uploads (default 8 MiB, 5 MiB to 5 GiB; raised to stay within 10,000 parts). */
  partSize?: number;
  /** Requests one operation keeps in flight (upload parts, delete batches; default 4). */
  concurrency?: number;
  /** Keys per ListObjectsV2 page (1..1000, default 1000). */
  listPageSize?: number;
  /**
   * The most bytes one read accepts when its caller gives no
   * `StoreOptions.maxBytes` (default {@link DEFAULT_MAX_BODY_BYTES}, 128 MiB):
   * a body that passes it is cut off with a `StoreError`, whatever its
   * `Content-Length` says. Also bounds the whole value a server sends when it
   * ignores the `Range` of a suffix read.
   */
  maxBodyBytes?: number;
}

/** DeleteObjects accepts at most this many keys per request. */
const DELETE_BATCH = 1000;

/**
 * A Zarr store on S3. Reads use ranged GETs (including suffix ranges), listing
 * uses ListObjectsV2 (with `/` as delimiter for `listDir`), `eraseValues` and
 * `erasePrefix` use DeleteObjects in batches of 1,000, and large values are
 * written by multipart upload. A missing key reads as `undefined`; every other
 * failure is a `StoreError` naming the key, with the SDK error as `cause`.
 *
 * @example
 * const store = new S3Store({ bucket: "my-bucket", prefix: "data/example.zarr" });
 * const array = await openArray(store, "temperature");
 */
export class S3Store implements ReadableStore, WritableStore, ListableStore {
  /** The bucket. */
  readonly bucket: string;
  /** The normalized key prefix (no leading or trailing `/`; `""` for the bucket root). */
  readonly prefix: string;
  /** The client every request goes through. */
  readonly client: S3Client;
  /**
   * The canonical location of the store's root (see `ReadableStore.location`
   * in @zarr/core): `s3://<endpoint host[:port][/path]>/<bucket>[/<prefix>]`,
   * the endpoint being the `endpoint` option or, on AWS, the region's
   * (`s3.<region>.amazonaws.com`). `undefined` when a `client` is given with
   * a custom endpoint and no `endpoint` option names it.
   */
  readonly location: string | undefined;
  readonly #where: BucketPrefix;
  readonly #timeouts: S3Timeouts;
  readonly #maxBody: number;
  readonly #threshold: number;
  readonly #partSize: number;
  readonly #concurrency: number;
  readonly #pageSize: number;

  constructor(options: S3StoreOptions) {
    this.#where = new BucketPrefix("s3", "S3Store", options?.bucket, options?.prefix);
    this.bucket = this.#where.bucket;
    this.prefix = this.#where.prefix;
    this.#partSize = integerOption(
      "S3Store",
      "partSize",
      options.partSize,
      8 * MiB,
      MIN_PART_SIZE,
      MAX_PART_SIZE,
    );
    this.#threshold = integerOption(
      "S3Store",
      "multipartThreshold",
      options.multipartThreshold,
      16 * MiB,
      MIN_PART_SIZE,
      Number.MAX_SAFE_INTEGER,
    );
    this.#concurrency = integerOption("S3Store", "concurrency", options.concurrency, 4, 1, 64);
    this.#pageSize = integerOption("S3Store", "listPageSize", options.listPageSize, 1000, 1, 1000);
    this.#maxBody = integerOption(
      "S3Store",
      "maxBodyBytes",
      options.maxBodyBytes,
      DEFAULT_MAX_BODY_BYTES,
      0,
      Number.MAX_SAFE_INTEGER,
    );
    this.#timeouts = resolveTimeouts(options.timeouts);
    this.client = options.client ?? createS3Client(options);
    boundResponseBodies(this.client, this.#timeouts.socket);
    this.location = s3Location(options, this.#where);
  }

  /** `s3://bucket/prefix/` */
  get url(): string {
    return this.#where.url;
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    if (isEmptyRange(range)) {
      return (await this.getSize(key, options)) === undefined ? undefined : new Uint8Array(0);
    }
    const signal = options?.signal;
    const maxBytes = options?.maxBytes;
    const objectKey = this.#objectKey(key);
    throwIfAborted(signal, key);
    const where = `S3 GetObject of ${JSON.stringify(key)} at ${this.#location(objectKey)}`;
    const header = rangeHeader(range);
    const deadline = new Deadline(signal, this.#timeouts.total);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: objectKey, Range: header }),
        { abortSignal: deadline.signal, requestTimeout: this.#timeouts.response },
      );
      const status = out.$metadata.httpStatusCode;
      // Past the caller's own limit (options.maxBytes): a ValueTooLargeError, which core
      // reports for a chunk as a damaged chunk, as it does for every store.
      const bad = (reason: string, overCallersLimit = false) =>
        new (overCallersLimit && maxBytes !== undefined ? ValueTooLargeError : StoreError)(
          `${where}${header ? ` (Range: ${header})` : ""}: HTTP ${status} ${reason}`,
          { path: key },
        );
      const plan = planObjectRead(
        { range, maxBytes, maxBodyBytes: this.#maxBody },
        {
          status,
          contentLength: out.ContentLength,
          contentRange: out.ContentRange,
          contentEncoding: out.ContentEncoding,
        },
      );
      if ("refuse" in plan) {
        (out.Body as { destroy?: () => void } | undefined)?.destroy?.();
        throw bad(plan.refuse, plan.overLimit);
      }
      return await readBody(
        out.Body,
        plan,
        deadline.signal,
        this.#timeouts.idle,
        "timeouts.idle",
        (reason, overMax) => bad(reason, overMax && plan.callersMax),
      );
    } catch (error) {
      if (error instanceof ZarrError) throw error;
      const over = deadline.error(key, where);
      if (over) throw over;
      if (isNoSuchKey(error)) return undefined;
      // 416: the object exists but the range starts at or past its end.
      if (range !== undefined && isInvalidRange(error)) return new Uint8Array(0);
      throw storeError(error, "GetObject", key, this.#location(objectKey), signal);
    } finally {
      deadline.end();
    }
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    const signal = options?.signal;
    const objectKey = this.#objectKey(key);
    const where = `S3 HeadObject of ${JSON.stringify(key)} at ${this.#location(objectKey)}`;
    try {
      const out = await this.#bounded(signal, key, where, (o) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }), o),
      );
      const size = out.ContentLength;
      if (size === undefined || !Number.isSafeInteger(size) || size < 0) {
        // Not 0: a size the server did not give is not an empty value.
        throw new StoreError(`${where}: answered without a valid Content-Length`, { path: key });
      }
      return size;
    } catch (error) {
      if (error instanceof StoreError) throw error;
      if (isNoSuchKey(error)) return undefined;
      throw storeError(error, "HeadObject", key, this.#location(objectKey), signal);
    }
  }

  /**
   * Runs one read or listing request under the response timeout and the
   * total time (`timeouts`); past the total it throws a `StoreError` naming
   * `key`, on the caller's abort an `AbortError`.
   */
  async #bounded<T>(
    signal: AbortSignal | undefined,
    key: string,
    where: string,
    run: (options: { abortSignal: AbortSignal; requestTimeout: number }) => Promise<T>,
  ): Promise<T> {
    const deadline = new Deadline(signal, this.#timeouts.total);
    try {
      return await run({ abortSignal: deadline.signal, requestTimeout: this.#timeouts.response });
    } catch (error) {
      throw deadline.error(key, where) ?? error;
    } finally {
      deadline.end();
    }
  }

  async set(key: string, value: Uint8Array, options?: StoreOptions): Promise<void> {
    const signal = options?.signal;
    const objectKey = this.#objectKey(key);
    try {
      if (value.length > this.#threshold) {
        await putMultipart(
          this.client,
          this.bucket,
          objectKey,
          value,
          this.#partSize,
          this.#concurrency,
          signal,
        );
      } else {
        await this.client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: value }),
          { abortSignal: signal },
        );
      }
    } catch (error) {
      throw storeError(error, "PutObject", key, this.#location(objectKey), signal);
    }
  }

  async erase(key: string, options?: StoreOptions): Promise<void> {
    const signal = options?.signal;
    const objectKey = this.#objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }), {
        abortSignal: signal,
      });
    } catch (error) {
      if (isNoSuchKey(error)) return;
      throw storeError(error, "DeleteObject", key, this.#location(objectKey), signal);
    }
  }

  async eraseValues(keys: readonly string[], options?: StoreOptions): Promise<void> {
    await this.#deleteObjects(
      [...new Set(keys)].map((k) => this.#objectKey(k)),
      options?.signal,
    );
  }

  async erasePrefix(prefix: string, options?: StoreOptions): Promise<void> {
    const signal = options?.signal;
    // Each page is deleted before the next is requested: ListObjectsV2 continues
    // after the last key it returned, so deleting listed keys does not skip any.
    const under = this.#objectPrefix(prefix);
    for await (const page of this.#pages(under, undefined, signal, prefix)) {
      // Only names under the prefix: a server listing others is not obeyed.
      const objectKeys = this.#where.under(
        under,
        (page.Contents ?? []).map((o) => o.Key),
      );
      await this.#deleteObjects(objectKeys, signal);
    }
  }

  async #deleteObjects(objectKeys: readonly string[], signal?: AbortSignal): Promise<void> {
    const batches: string[][] = [];
    for (let i = 0; i < objectKeys.length; i += DELETE_BATCH) {
      batches.push(objectKeys.slice(i, i + DELETE_BATCH));
    }
    await mapConcurrent(
      batches,
      this.#concurrency,
      async (batch) => {
        let out: DeleteObjectsCommandOutput;
        const first = this.#relative(batch[0]);
        try {
          out = await this.client.send(
            new DeleteObjectsCommand({
              Bucket: this.bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
            { abortSignal: signal },
          );
        } catch (error) {
          throw storeError(
            error,
            `DeleteObjects (${batch.length} keys)`,
            first,
            this.#location(batch[0]),
            signal,
          );
        }
        const failed = (out.Errors ?? []).filter((e) => e.Code !== "NoSuchKey");
        if (failed.length > 0) {
          const key = this.#relative(failed[0].Key ?? "");
          throw new StoreError(
            `S3 DeleteObjects failed for ${failed.length} of ${batch.length} keys, first ${JSON.stringify(key)}: ${failed[0].Code}: ${failed[0].Message}`,
            { path: key },
          );
        }
      },
      signal,
    );
  }

  list(options?: StoreOptions): AsyncIterable<string> {
    return this.listPrefix("", options);
  }

  async *listPrefix(prefix: string, options?: StoreOptions): AsyncGenerator<string> {
    const pages = this.#pages(this.#objectPrefix(prefix), undefined, options?.signal, prefix);
    for await (const page of pages) yield* this.#where.keys(page.Contents?.map((o) => o.Key) ?? []);
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    const full = this.#objectPrefix(prefix);
    return this.#where.dirListing(full, this.#listing(full, options?.signal, prefix));
  }

  /** {@link #pages} with `/` as delimiter, as names and common prefixes. */
  async *#listing(
    objectPrefix: string,
    signal: AbortSignal | undefined,
    prefix: string,
  ): AsyncGenerator<ListingPage> {
    for await (const page of this.#pages(objectPrefix, "/", signal, prefix)) {
      yield {
        names: page.Contents?.map((o) => o.Key) ?? [],
        prefixes: page.CommonPrefixes?.map((p) => p.Prefix) ?? [],
      };
    }
  }

  /** ListObjectsV2 pages under `objectPrefix`, following continuation tokens. */
  async *#pages(
    objectPrefix: string,
    delimiter: string | undefined,
    signal: AbortSignal | undefined,
    prefix: string,
  ): AsyncGenerator<ListObjectsV2CommandOutput> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.#bounded(
          signal,
          prefix,
          `S3 ListObjectsV2 of prefix ${JSON.stringify(prefix)} at ${this.#location(objectPrefix)}`,
          (o) =>
            this.client.send(
              new ListObjectsV2Command({
                Bucket: this.bucket,
                Prefix: objectPrefix === "" ? undefined : objectPrefix,
                Delimiter: delimiter,
                ContinuationToken: token,
                MaxKeys: this.#pageSize,
              }),
              o,
            ),
        );
      } catch (error) {
        throw storeError(error, "ListObjectsV2", prefix, this.#location(objectPrefix), signal);
      }
      yield page;
      const next = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (page.IsTruncated && !next) {
        throw new StoreError(
          `S3 ListObjectsV2 of prefix ${JSON.stringify(prefix)} at ${this.#location(objectPrefix)} is truncated but has no continuation token`,
          { path: prefix },
        );
      }
      token = next;
    } while (token !== undefined);
  }

  /**
   * The object key of `key`. Keys are checked here too (not only by core's
   * `resolveStore`), so a store used directly cannot reach objects outside its prefix.
   */
  #objectKey(key: string): string {
    return this.#where.objectKey(key);
  }

  /** The object key prefix of store prefix `prefix` (checked like keys). */
  #objectPrefix(prefix: string): string {
    return this.#where.objectPrefix(prefix);
  }

  #relative(objectKey: string): string {
    return this.#where.relative(objectKey);
  }

  #location(objectKey: string): string {
    return this.#where.location(objectKey);
  }
}

/**
 * `s3://<endpoint>/<bucket>[/<prefix>]` (see {@link S3Store.location}). The
 * prefix is kept as is (not percent-encoded), as core appends raw keys to it.
 */
function s3Location(options: S3StoreOptions, where: BucketPrefix): string | undefined {
  let endpoint: string | undefined;
  if (options.endpoint !== undefined) {
    try {
      const u = new URL(options.endpoint);
      endpoint = `${u.host}${u.pathname.replace(/\/+$/, "")}`;
    } catch {
      endpoint = options.endpoint.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/+$/, "");
    }
  } else if (options.client?.config.isCustomEndpoint) {
    return undefined; // the client's endpoint is only known asynchronously
  } else {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env;
    const region = options.region ?? (env?.AWS_REGION || env?.AWS_DEFAULT_REGION);
    endpoint =
      region === undefined
        ? "s3.amazonaws.com"
        : `s3.${region}.amazonaws.com${region.startsWith("cn-") ? ".cn" : ""}`;
  }
  return where.canonical(endpoint);
}
