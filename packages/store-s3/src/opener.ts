/**
 * The `s3:` URL opener registered by `@zarr/store-s3/register`.
 *
 * @module
 */

import { type AnyStore, StoreError } from "@zarr/core";
import type { StoreOpener } from "@zarr/core/store";
import { OpenerOptions, parseBucketUrl } from "@zarr/remote-store";
import type { S3ClientOptions } from "./client.js";
import type { S3Store } from "./store.js";

/** Options the opener accepts (e.g. from CLI flags); each is checked for its type. */
const STRING_OPTIONS = [
  "endpoint",
  "region",
  "accessKeyId",
  "secretAccessKey",
  "sessionToken",
] as const;
const BOOLEAN_OPTIONS = ["forcePathStyle", "legacyChecksums", "contentMd5"] as const;
const CHECKSUM_OPTIONS = ["requestChecksumCalculation", "responseChecksumValidation"] as const;
const TIMEOUTS = ["connect", "response", "idle", "total", "socket"];

/**
 * Opens `s3://bucket/prefix` URLs as {@link S3Store}s. Options (all optional):
 * `endpoint`, `region`, `forcePathStyle`, `accessKeyId` + `secretAccessKey`
 * (+ `sessionToken`; default: the SDK's credential chain), `legacyChecksums`,
 * `contentMd5`, `requestChecksumCalculation`, `responseChecksumValidation`,
 * `maxAttempts`, `timeouts` (`{connect, response, idle, total, socket}` in ms),
 * `maxBodyBytes`. Percent-escapes in the prefix are decoded.
 */
export const s3StoreOpener: StoreOpener = {
  async open(url: string, options: Record<string, unknown> = {}): Promise<AnyStore> {
    const { bucket, prefix } = parseS3Url(url);
    const read = new OpenerOptions(url, options);
    const client: S3ClientOptions = {};
    for (const name of STRING_OPTIONS) read.string(name);
    for (const name of BOOLEAN_OPTIONS) {
      const value = read.boolean(name);
      if (value !== undefined) client[name] = value;
    }
    for (const name of CHECKSUM_OPTIONS) {
      const value = read.oneOf(name, ["WHEN_SUPPORTED", "WHEN_REQUIRED"] as const);
      if (value !== undefined) client[name] = value;
    }
    const maxAttempts = read.integer("maxAttempts", 1);
    if (maxAttempts !== undefined) client.maxAttempts = maxAttempts;
    const timeouts = options.timeouts;
    if (timeouts !== undefined) {
      if (typeof timeouts !== "object" || timeouts === null) read.fail("timeouts", "an object");
      for (const [k, v] of Object.entries(timeouts as object)) {
        if (!TIMEOUTS.includes(k)) read.fail("timeouts", `an object of ${TIMEOUTS.join(", ")}`);
        if (typeof v !== "number" || !(v > 0)) {
          read.fail("timeouts", "positive numbers of milliseconds");
        }
      }
      client.timeouts = timeouts as S3ClientOptions["timeouts"];
    }
    const maxBodyBytes = read.integer("maxBodyBytes", 0);
    const str = (name: (typeof STRING_OPTIONS)[number]) => options[name] as string | undefined;
    if (str("endpoint") !== undefined) client.endpoint = str("endpoint");
    if (str("region") !== undefined) client.region = str("region");
    const accessKeyId = str("accessKeyId");
    const secretAccessKey = str("secretAccessKey");
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
      throw new StoreError(
        `options "accessKeyId" and "secretAccessKey" of ${JSON.stringify(url)} go together`,
        { path: url },
      );
    }
    if (accessKeyId !== undefined && secretAccessKey !== undefined) {
      const sessionToken = str("sessionToken");
      client.credentials = {
        accessKeyId,
        secretAccessKey,
        ...(sessionToken ? { sessionToken } : {}),
      };
    }
    // The AWS SDK loads with the store, when an s3: URL is opened, not with
    // the opener's registration (the CLI's start-up pays nothing for it).
    const { S3Store: Store } = await import("./store.js");
    return new Store({
      ...client,
      bucket,
      prefix,
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    });
  },
};

/** Splits `s3://bucket/some/prefix` into bucket and (decoded) prefix. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  return parseBucketUrl(url, {
    schemes: ["s3"],
    what: "an S3 URL",
    expected: "s3://bucket/prefix",
  });
}
