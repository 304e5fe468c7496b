/**
 * Building the `S3Client` a store uses, with the options S3-compatible servers
 * need (path-style addressing, checksum behaviour, `Content-MD5` on DeleteObjects).
 *
 * @module
 */

import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { base64, md5 } from "./md5.js";

/** Static credentials (omit to use the SDK's default provider chain). */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How the client is configured when the store creates it. */
export interface S3ClientOptions {
  /** Endpoint URL of an S3-compatible server, e.g. `"http://127.0.0.1:9000"` (default: AWS). */
  endpoint?: string;
  /** Region (default: the SDK's chain, e.g. `AWS_REGION`; `"us-east-1"` when an endpoint is given without one). */
  region?: string;
  /**
   * Path-style URLs (`endpoint/bucket/key`) instead of virtual-hosted ones
   * (`bucket.endpoint/key`). Default: true when `endpoint` is given (what
   * S3-compatible servers and IP endpoints need), the SDK's default otherwise.
   */
  forcePathStyle?: boolean;
  /** Static credentials, or a provider function; default: the SDK's default chain (env, profile, IMDS...). */
  credentials?: S3Credentials | (() => Promise<S3Credentials>);
  /**
   * When the SDK computes request checksums: `"WHEN_SUPPORTED"` (SDK default,
   * CRC32 on every upload) or `"WHEN_REQUIRED"` (only where the API requires one).
   * Servers predating S3's flexible checksums need `"WHEN_REQUIRED"`.
   */
  requestChecksumCalculation?: "WHEN_SUPPORTED" | "WHEN_REQUIRED";
  /** When the SDK validates response checksums (see {@link requestChecksumCalculation}). */
  responseChecksumValidation?: "WHEN_SUPPORTED" | "WHEN_REQUIRED";
  /**
   * Adds a `Content-MD5` header to DeleteObjects requests, which servers
   * without flexible checksums (Swift s3api, older MinIO/Ceph) require.
   */
  contentMd5?: boolean;
  /**
   * Shorthand for servers that predate flexible checksums: sets both checksum
   * options to `"WHEN_REQUIRED"` and `contentMd5` to true (explicit options win).
   */
  legacyChecksums?: boolean;
  /** Attempts per request, including the first (SDK standard retry mode with backoff; default 3). */
  maxAttempts?: number;
}

/** Creates an `S3Client` from {@link S3ClientOptions}. */
export function createS3Client(options: S3ClientOptions = {}): S3Client {
  const legacy = options.legacyChecksums === true;
  const config: S3ClientConfig = {
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: "standard",
  };
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  const region = options.region ?? (options.endpoint !== undefined ? defaultRegion() : undefined);
  if (region !== undefined) config.region = region;
  const pathStyle = options.forcePathStyle ?? (options.endpoint !== undefined ? true : undefined);
  if (pathStyle !== undefined) config.forcePathStyle = pathStyle;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  const request = options.requestChecksumCalculation ?? (legacy ? "WHEN_REQUIRED" : undefined);
  const response = options.responseChecksumValidation ?? (legacy ? "WHEN_REQUIRED" : undefined);
  if (request !== undefined) config.requestChecksumCalculation = request;
  if (response !== undefined) config.responseChecksumValidation = response;
  const client = new S3Client(config);
  if (options.contentMd5 ?? legacy) addContentMd5(client);
  return client;
}

/** `AWS_REGION` / `AWS_DEFAULT_REGION` when set (Node), else `"us-east-1"`. */
function defaultRegion(): string {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return env?.AWS_REGION || env?.AWS_DEFAULT_REGION || "us-east-1";
}

const MD5_MIDDLEWARE = "zarrContentMd5";

/**
 * Adds a build-step middleware that sets `Content-MD5` on DeleteObjects
 * requests (the only operation the store uses whose API requires an
 * integrity header). Idempotent per client.
 */
export function addContentMd5(client: S3Client): void {
  const stack = client.middlewareStack;
  if (stack.identify().some((entry) => entry.startsWith(MD5_MIDDLEWARE))) return;
  stack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (context.commandName === "DeleteObjectsCommand" && request.headers) {
        const body = request.body;
        const bytes =
          typeof body === "string"
            ? new TextEncoder().encode(body)
            : body instanceof Uint8Array
              ? body
              : undefined;
        if (bytes && !hasHeader(request.headers, "content-md5")) {
          request.headers["content-md5"] = base64(md5(bytes));
        }
      }
      return next(args);
    },
    { step: "build", name: MD5_MIDDLEWARE, priority: "low" },
  );
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name);
}
