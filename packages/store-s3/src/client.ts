/**
 * Building the `S3Client` a store uses, with the options S3-compatible servers
 * need (path-style addressing, checksum behaviour, `Content-MD5` on DeleteObjects).
 *
 * @module
 */

import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { StoreError } from "@zarr/core";
import { readBody } from "@zarr/remote-store";
import { base64, md5 } from "./md5.js";

/**
 * Time limits of the store's requests, in milliseconds (`Infinity` disables
 * one). Past a limit the request is abandoned (its connection closed) and the
 * operation fails with a `StoreError` naming the key.
 */
export interface S3Timeouts {
  /** Per attempt of every request: establishing the connection (default 10,000). */
  connect: number;
  /**
   * Per attempt of a read (GetObject, HeadObject) or listing page: from
   * sending it to the response headers (default 10,000). An attempt past it
   * is retried within `maxAttempts` and `total`.
   */
  response: number;
  /** Reads and listing pages: the longest wait for the next piece of a body (default 10,000). */
  idle: number;
  /**
   * One read (`get`, `getSize`) or listing page, retries and body included
   * (default 20,000). Raise it to read large values over slow links.
   */
  total: number;
  /**
   * Every request, writes and deletes included: the longest time its
   * connection may go without traffic (default 120,000). Uploads and batch
   * deletes, which servers may take long to answer, have only this limit
   * (and the caller's signal).
   */
  socket: number;
}

/** The default {@link S3Timeouts}. */
export const DEFAULT_S3_TIMEOUTS: S3Timeouts = {
  connect: 10_000,
  response: 10_000,
  idle: 10_000,
  total: 20_000,
  socket: 120_000,
};

/** Resolves and checks {@link S3Timeouts} (each a positive number). */
export function resolveTimeouts(timeouts: Partial<S3Timeouts> | undefined): S3Timeouts {
  const out = { ...DEFAULT_S3_TIMEOUTS, ...timeouts };
  for (const [name, v] of Object.entries(out)) {
    if (!(typeof v === "number" && v > 0)) {
      throw new StoreError(`S3 option "timeouts.${name}" must be a positive number, got ${v}`);
    }
  }
  return out;
}

/**
 * The most bytes read from a response body that the SDK buffers itself
 * (errors, listings, HEAD...; not GetObject's data, which the store streams
 * under its own bounds): 16 MiB, 10 times a full 1,000-key listing page.
 */
export const MAX_BUFFERED_RESPONSE = 16 * 1024 * 1024;

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
  /** Time limits (see {@link S3Timeouts}; for reads 10 s per request, 20 s in total). */
  timeouts?: Partial<S3Timeouts>;
}

/** Creates an `S3Client` from {@link S3ClientOptions}. */
export function createS3Client(options: S3ClientOptions = {}): S3Client {
  const legacy = options.legacyChecksums === true;
  const timeouts = resolveTimeouts(options.timeouts);
  const ms = (v: number) => (Number.isFinite(v) ? v : 0); // 0: no limit, for the SDK
  const config: S3ClientConfig = {
    maxAttempts: options.maxAttempts ?? 3,
    retryMode: "standard",
    // Handler options (Node: NodeHttpHandler; browsers: FetchHttpHandler, which
    // only knows requestTimeout). The response timeout is given per request
    // by the store (uploads have none); throwOnRequestTimeout makes it an error.
    requestHandler: {
      connectionTimeout: ms(timeouts.connect),
      socketTimeout: ms(timeouts.socket),
      throwOnRequestTimeout: true,
    },
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
  boundResponseBodies(client, timeouts.socket);
  return client;
}

const BOUNDED_BODIES = "zarrBoundedBodies";

/**
 * Makes `client` read the response bodies the SDK buffers itself (every one
 * but a successful GetObject's) as bounded streams: at most
 * {@link MAX_BUFFERED_RESPONSE} bytes, each piece within `idleMs` (the
 * store passes `timeouts.socket`), so that an
 * endless error or listing body fails instead of filling memory. Idempotent
 * per client; the store adds it to clients it is given too.
 */
export function boundResponseBodies(client: S3Client, idleMs: number): void {
  const stack = client.middlewareStack;
  if (stack.identify().some((entry) => entry.startsWith(BOUNDED_BODIES))) return;
  stack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const response = result.response as { statusCode?: number; body?: unknown } | undefined;
      const status = response?.statusCode ?? 0;
      const streamed = context.commandName === "GetObjectCommand" && status >= 200 && status < 300;
      const body = response?.body;
      if (
        response &&
        !streamed &&
        body !== undefined &&
        body !== null &&
        typeof body !== "string" &&
        !(body instanceof Uint8Array)
      ) {
        response.body = await readBody(
          body,
          { max: MAX_BUFFERED_RESPONSE, maxWhy: "the most the store lets the SDK buffer" },
          undefined,
          idleMs,
          "timeouts.socket",
          (reason) => new Error(`${context.commandName} HTTP ${status} response ${reason}`),
        );
      }
      return result;
    },
    // Innermost (after the deserializer in the stack's order): sees the raw response first.
    { step: "deserialize", name: BOUNDED_BODIES, priority: "low" },
  );
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
