/**
 * Where a bucket store's keys live: the bucket, the normalized prefix, and
 * the object names of keys and prefixes, checked so that a store used
 * directly (not through core) cannot reach objects outside its prefix.
 *
 * @module
 */

import { StoreError } from "@zarr/core";
import {
  type DirListing,
  normalizeStorePrefix,
  validateKey,
  validatePrefix,
} from "@zarr/core/store";

/**
 * A bucket and a prefix inside it, as a store sees them: store key `"a/zarr.json"`
 * is object `"<prefix>/a/zarr.json"`.
 *
 * @example
 * const where = new BucketPrefix("s3", "S3Store", "my-bucket", "/data/example.zarr/");
 * where.objectKey("a/zarr.json"); // "data/example.zarr/a/zarr.json"
 * where.location("data/example.zarr/a/zarr.json"); // "s3://my-bucket/data/example.zarr/a/zarr.json"
 */
/**
 * Bucket names S3 and GCS accept (both restrict them further; legacy S3 names
 * may hold upper case and "_"): nothing that a URL path or query could
 * reinterpret, such as "/", "..", "%", "?", "#", "@" or ":".
 */
const BUCKET_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,220}[A-Za-z0-9])?$/;

export class BucketPrefix {
  /** The bucket name. */
  readonly bucket: string;
  /** The normalized prefix (no leading or trailing `/`; `""` for the bucket root). */
  readonly prefix: string;
  /** The prefix with a trailing `/` (`""` for the bucket root): what every object name starts with. */
  readonly root: string;

  /**
   * @param scheme - the URL scheme of locations (`"s3"`, `"gs"`)
   * @param storeName - the store class, named in errors (`"S3Store"`)
   * @param bucket - the bucket name (letters, digits, ".", "-", "_"; no ".."), else a `StoreError`
   * @param prefix - the prefix inside the bucket (leading and trailing `/` are dropped)
   */
  constructor(
    readonly scheme: string,
    storeName: string,
    bucket: unknown,
    prefix: string | undefined,
  ) {
    if (typeof bucket !== "string" || !BUCKET_NAME.test(bucket) || bucket.includes("..")) {
      throw new StoreError(
        `${storeName} needs a bucket name of letters, digits, ".", "-" and "_" that starts and ends with a letter or digit (no ".."), got ${JSON.stringify(bucket)}`,
      );
    }
    if (prefix !== undefined && typeof prefix !== "string") {
      throw new StoreError(`${storeName} prefix must be a string, got ${JSON.stringify(prefix)}`);
    }
    this.bucket = bucket;
    this.prefix = normalizeStorePrefix(prefix ?? "", storeName);
    this.root = this.prefix === "" ? "" : `${this.prefix}/`;
  }

  /** `scheme://bucket/prefix/`: the store's URL. */
  get url(): string {
    return `${this.scheme}://${this.bucket}/${this.root}`;
  }

  /**
   * The object name of store key `key`. Keys are checked here too (not only
   * by core's `resolveStore`): an invalid key is an `InvalidKeyError`.
   */
  objectKey(key: string): string {
    return this.root + validateKey(key);
  }

  /** The object name prefix of store prefix `prefix` (checked like keys). */
  objectPrefix(prefix: string): string {
    return this.root + validatePrefix(prefix);
  }

  /** The store key of object `objectKey` (which starts with {@link root}). */
  relative(objectKey: string): string {
    return objectKey.slice(this.root.length);
  }

  /**
   * The object names of a listing of `objectPrefix` that lie under it: what a
   * server listed beyond it (ignoring the prefix parameter, or lying) is never
   * acted on, e.g. erased.
   */
  under(objectPrefix: string, objectKeys: Iterable<string | undefined>): string[] {
    const names: string[] = [];
    for (const name of objectKeys) if (name?.startsWith(objectPrefix)) names.push(name);
    return names;
  }

  /** The store keys of the object names under the store's prefix (others are skipped). */
  *keys(objectKeys: Iterable<string | undefined>): Generator<string> {
    for (const name of objectKeys) {
      if (name?.startsWith(this.root)) yield this.relative(name);
    }
  }

  /**
   * The `listDir` result of a listing under `objectPrefix` (an
   * {@link objectPrefix}) with delimiter `/`: the names of its pages below
   * `objectPrefix`, and their common prefixes, relative to it.
   */
  async dirListing(objectPrefix: string, pages: AsyncIterable<ListingPage>): Promise<DirListing> {
    const keys: string[] = [];
    const prefixes: string[] = [];
    for await (const page of pages) {
      for (const name of page.names) {
        if (name?.startsWith(objectPrefix)) keys.push(name.slice(objectPrefix.length));
      }
      for (const p of page.prefixes) {
        if (p?.startsWith(objectPrefix) && p.endsWith("/")) {
          prefixes.push(p.slice(objectPrefix.length, -1));
        }
      }
    }
    return { keys, prefixes };
  }

  /** `scheme://bucket/objectKey`, for messages. */
  location(objectKey: string): string {
    return `${this.scheme}://${this.bucket}/${objectKey}`;
  }

  /**
   * The canonical location of the store's root on `endpoint` (a host, with
   * port and path when not the default): `scheme://endpoint/bucket[/prefix]`.
   * The prefix is kept as is (not percent-encoded), as core appends raw keys to it.
   */
  canonical(endpoint: string): string {
    return `${this.scheme}://${endpoint}/${this.bucket}${this.prefix === "" ? "" : `/${this.prefix}`}`;
  }
}

/** One page of a bucket listing: object names, and common prefixes (ending in `/`) when a delimiter was given. */
export interface ListingPage {
  names: readonly (string | undefined)[];
  prefixes: readonly (string | undefined)[];
}

/** How {@link parseBucketUrl} recognizes and describes a store's URLs. */
export interface BucketUrlSyntax {
  /** The URL schemes, without `:` (`["gs", "gcs"]`). */
  schemes: readonly string[];
  /** What such a URL is, in errors (`"an S3 URL"`). */
  what: string;
  /** The form expected, in errors (`"s3://bucket/prefix"`). */
  expected: string;
}

/**
 * Splits `scheme://bucket/some/prefix` into bucket and (percent-decoded)
 * prefix; anything else (a query, a fragment, another scheme) is a
 * `StoreError` naming the URL.
 *
 * @example
 * parseBucketUrl("s3://b/data/x.zarr", { schemes: ["s3"], what: "an S3 URL", expected: "s3://bucket/prefix" });
 * // { bucket: "b", prefix: "/data/x.zarr" }
 */
export function parseBucketUrl(
  url: string,
  syntax: BucketUrlSyntax,
): { bucket: string; prefix: string } {
  const schemes = syntax.schemes.map((s) => s.replace(/[^a-z0-9+.-]/gi, "\\$&")).join("|");
  const match = new RegExp(`^(?:${schemes}):\\/\\/([^/?#]+)(\\/[^?#]*)?$`, "i").exec(url);
  if (!match) {
    throw new StoreError(
      `not ${syntax.what}: ${JSON.stringify(url)} (expected ${syntax.expected})`,
      { path: url },
    );
  }
  let prefix: string;
  try {
    prefix = decodeURIComponent(match[2] ?? "");
  } catch (cause) {
    throw new StoreError(`malformed percent-escape in ${JSON.stringify(url)}`, {
      path: url,
      cause,
    });
  }
  return { bucket: match[1], prefix };
}
