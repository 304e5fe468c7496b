/**
 * The `s3:` URL opener registered by `@zarr/store-s3/register`.
 *
 * @module
 */

import { type AnyStore, StoreError, type StoreOpener } from "@zarr/core";
import type { S3ClientOptions } from "./client.js";
import { S3Store } from "./store.js";

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
    const fail = (name: string, expected: string): never => {
      throw new StoreError(
        `option "${name}" of ${JSON.stringify(url)} must be ${expected}, got ${JSON.stringify(options[name])}`,
        { path: url },
      );
    };
    const client: S3ClientOptions = {};
    for (const name of STRING_OPTIONS) {
      const value = options[name];
      if (value !== undefined && (typeof value !== "string" || value === ""))
        fail(name, "a non-empty string");
    }
    for (const name of BOOLEAN_OPTIONS) {
      const value = options[name];
      if (value !== undefined && typeof value !== "boolean") fail(name, "a boolean");
      if (value !== undefined) client[name] = value as boolean;
    }
    for (const name of CHECKSUM_OPTIONS) {
      const value = options[name];
      if (value !== undefined && value !== "WHEN_SUPPORTED" && value !== "WHEN_REQUIRED") {
        fail(name, '"WHEN_SUPPORTED" or "WHEN_REQUIRED"');
      }
      if (value !== undefined) client[name] = value as "WHEN_SUPPORTED" | "WHEN_REQUIRED";
    }
    const maxAttempts = options.maxAttempts;
    if (maxAttempts !== undefined) {
      if (
        typeof maxAttempts !== "number" ||
        !Number.isSafeInteger(maxAttempts) ||
        maxAttempts < 1
      ) {
        fail("maxAttempts", "a positive integer");
      }
      client.maxAttempts = maxAttempts as number;
    }
    const timeouts = options.timeouts;
    if (timeouts !== undefined) {
      if (typeof timeouts !== "object" || timeouts === null) fail("timeouts", "an object");
      for (const [k, v] of Object.entries(timeouts as object)) {
        if (!["connect", "response", "idle", "total", "socket"].includes(k)) {
          fail("timeouts", "an object of connect, response, idle, total, socket");
        }
        if (typeof v !== "number" || !(v > 0)) fail("timeouts", "positive numbers of milliseconds");
      }
      client.timeouts = timeouts as S3ClientOptions["timeouts"];
    }
    const maxBodyBytes = options.maxBodyBytes;
    if (
      maxBodyBytes !== undefined &&
      (typeof maxBodyBytes !== "number" || !Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0)
    ) {
      fail("maxBodyBytes", "a non-negative integer");
    }
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
    return new S3Store({
      ...client,
      bucket,
      prefix,
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes: maxBodyBytes as number }),
    });
  },
};

/** Splits `s3://bucket/some/prefix` into bucket and (decoded) prefix. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/?#]+)(\/[^?#]*)?$/i.exec(url);
  if (!match) {
    throw new StoreError(`not an S3 URL: ${JSON.stringify(url)} (expected s3://bucket/prefix)`, {
      path: url,
    });
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
