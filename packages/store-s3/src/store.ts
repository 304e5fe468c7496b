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
import {
  type ByteRange,
  type DirListing,
  integerOption,
  type ListableStore,
  mapConcurrent,
  normalizeStorePrefix,
  type ReadableStore,
  StoreError,
  type StoreOptions,
  sliceRange,
  validateKey,
  validatePrefix,
  type WritableStore,
} from "@zarr/core";
import { createS3Client, type S3ClientOptions } from "./client.js";
import { isInvalidRange, isNoSuchKey, storeError } from "./errors.js";
import { MAX_PART_SIZE, MIN_PART_SIZE, putMultipart } from "./multipart.js";
import { expectedStart, isEmptyRange, parseContentRange, rangeHeader } from "./ranges.js";

const MiB = 1024 * 1024;

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
  readonly #root: string;
  readonly #threshold: number;
  readonly #partSize: number;
  readonly #concurrency: number;
  readonly #pageSize: number;

  constructor(options: S3StoreOptions) {
    if (
      typeof options?.bucket !== "string" ||
      options.bucket === "" ||
      options.bucket.includes("/")
    ) {
      throw new StoreError(
        `S3Store needs a bucket name without "/", got ${JSON.stringify(options?.bucket)}`,
      );
    }
    this.bucket = options.bucket;
    this.prefix = normalizeStorePrefix(options.prefix ?? "", "S3Store");
    this.#root = this.prefix === "" ? "" : `${this.prefix}/`;
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
    this.client = options.client ?? createS3Client(options);
  }

  /** `s3://bucket/prefix/` */
  get url(): string {
    return `s3://${this.bucket}/${this.#root}`;
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
    const objectKey = this.#objectKey(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: objectKey, Range: rangeHeader(range) }),
        { abortSignal: signal },
      );
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
      if (range === undefined || rangeHeader(range) === undefined) return body;
      if (out.$metadata.httpStatusCode !== 206) {
        // The server ignored the Range header and sent the whole value.
        return sliceRange(body, range);
      }
      this.#checkPartial(key, range, out.ContentRange, body.length);
      return body;
    } catch (error) {
      if (isNoSuchKey(error)) return undefined;
      // 416: the object exists but the range starts at or past its end.
      if (range !== undefined && isInvalidRange(error)) return new Uint8Array(0);
      throw storeError(error, "GetObject", key, this.#location(objectKey), signal);
    }
  }

  /** Throws when a 206 response is not the range that was asked for. */
  #checkPartial(key: string, range: ByteRange, header: string | undefined, length: number): void {
    const parsed = parseContentRange(header);
    const fail = (reason: string): never => {
      throw new StoreError(
        `S3 GetObject of ${JSON.stringify(key)} at ${this.#location(this.#root + key)} returned a bad partial response for range ${JSON.stringify(range)}: ${reason}`,
        { path: key },
      );
    };
    if (!parsed) {
      fail(`unparseable Content-Range ${JSON.stringify(header)}`);
      return;
    }
    if (parsed.last - parsed.first + 1 !== length) {
      fail(`Content-Range ${header} but ${length} bytes of body`);
    }
    if (parsed.total !== undefined && parsed.first !== expectedStart(range, parsed.total)) {
      fail(`Content-Range ${header} does not start where the range does`);
    }
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    const signal = options?.signal;
    const objectKey = this.#objectKey(key);
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }),
        { abortSignal: signal },
      );
      return out.ContentLength ?? 0;
    } catch (error) {
      if (isNoSuchKey(error)) return undefined;
      throw storeError(error, "HeadObject", key, this.#location(objectKey), signal);
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
    for await (const page of this.#pages(this.#objectPrefix(prefix), undefined, signal, prefix)) {
      const objectKeys = (page.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [o.Key]));
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
        try {
          out = await this.client.send(
            new DeleteObjectsCommand({
              Bucket: this.bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
            { abortSignal: signal },
          );
        } catch (error) {
          const first = this.#relative(batch[0]);
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
    for await (const page of this.#pages(
      this.#objectPrefix(prefix),
      undefined,
      options?.signal,
      prefix,
    )) {
      for (const object of page.Contents ?? []) {
        if (object.Key?.startsWith(this.#root)) yield this.#relative(object.Key);
      }
    }
  }

  async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
    const full = this.#objectPrefix(prefix);
    const keys: string[] = [];
    const prefixes: string[] = [];
    for await (const page of this.#pages(full, "/", options?.signal, prefix)) {
      for (const object of page.Contents ?? []) {
        if (object.Key?.startsWith(full)) keys.push(object.Key.slice(full.length));
      }
      for (const common of page.CommonPrefixes ?? []) {
        const p = common.Prefix;
        if (p?.startsWith(full) && p.endsWith("/")) prefixes.push(p.slice(full.length, -1));
      }
    }
    return { keys, prefixes };
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
        page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: objectPrefix === "" ? undefined : objectPrefix,
            Delimiter: delimiter,
            ContinuationToken: token,
            MaxKeys: this.#pageSize,
          }),
          { abortSignal: signal },
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
    return this.#root + validateKey(key);
  }

  /** The object key prefix of store prefix `prefix` (checked like keys). */
  #objectPrefix(prefix: string): string {
    return this.#root + validatePrefix(prefix);
  }

  #relative(objectKey: string): string {
    return objectKey.slice(this.#root.length);
  }

  #location(objectKey: string): string {
    return `s3://${this.bucket}/${objectKey}`;
  }
}
