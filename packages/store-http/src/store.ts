/**
 * {@link HttpStore}: a read-only Zarr store over HTTP(S), built on `fetch`.
 *
 * @module
 */

import {
  AbortError,
  type ByteRange,
  isSuffixRange,
  rangeBounds,
  StoreError,
  type StoreOptions,
  throwIfAborted,
  validateKey,
} from "@zarr/core";
import { parseContentRange } from "./content-range.js";
import { DEFAULT_RETRY, isRetryableStatus, type RetryPolicy, retryDelay, sleep } from "./retry.js";

/** Options of {@link HttpStore}. */
export interface HttpStoreOptions {
  /** The `fetch` to use (default: `globalThis.fetch`); e.g. one that signs requests. */
  fetch?: typeof fetch;
  /** Headers sent with every request (e.g. `Authorization`). */
  headers?: Record<string, string> | [string, string][] | Headers;
  /**
   * Treat 403 Forbidden as a missing key, as S3 and CloudFront answer for
   * missing objects without list permission (default `false`: 403 is an error).
   */
  forbiddenIsMissing?: boolean;
  /**
   * Use suffix ranges (`Range: bytes=-N`) for `{suffix}` reads (default `true`).
   * When a server rejects them the store falls back to a HEAD request for the
   * size plus an ordinary range, and remembers to do so; `false` always does.
   */
  suffixRanges?: boolean;
  /** Retry policy for 5xx/429/408 responses and network errors (see {@link RetryPolicy}). */
  retry?: Partial<RetryPolicy>;
  /** Extra `fetch` options (`credentials`, `mode`, `cache`, ...). */
  requestInit?: Omit<RequestInit, "method" | "headers" | "signal" | "body">;
}

type Method = "GET" | "HEAD";

/**
 * A read-only store over HTTP(S): key `"a/zarr.json"` is `<url>/a/zarr.json`
 * (each segment percent-encoded; the URL's query string is kept, so pre-signed
 * or token URLs work).
 *
 * - `get` with a byte range sends `Range` (suffix ranges as `bytes=-N`) and
 *   checks that a 206 response's `Content-Range` and length are exactly the
 *   range asked for. A server that ignores `Range` and answers 200 with the
 *   whole value is handled by slicing the body (correct, but it transfers the
 *   whole value). A 416 means the range starts past the end: empty result.
 * - 404 (and 403 with `forbiddenIsMissing`) is a missing key; any other 4xx is
 *   a `StoreError` naming the key, URL and status.
 * - 5xx, 429, 408 and network errors are retried with exponential backoff
 *   (bounded count and total time, see {@link RetryPolicy}).
 * - `getSize` is a HEAD request (`Content-Length`).
 * - **No listing**: HTTP has no standard way to list, so this store has no
 *   `list`; core's `resolveStore` reports listing operations with a
 *   `StoreCapabilityError`. Open nodes by path (or through consolidated metadata).
 * - Read-only: no `set`/`erase`.
 */
export class HttpStore {
  /** The base URL, always ending with `/`. */
  readonly url: URL;
  readonly #fetch: typeof fetch;
  readonly #headers: Headers;
  readonly #forbiddenIsMissing: boolean;
  readonly #retry: RetryPolicy;
  readonly #init: HttpStoreOptions["requestInit"];
  #suffixRanges: boolean;

  constructor(url: string | URL, options: HttpStoreOptions = {}) {
    let base: URL;
    try {
      base = new URL(url);
    } catch (cause) {
      throw new StoreError(`invalid HTTP store URL ${JSON.stringify(String(url))}`, {
        path: String(url),
        cause,
      });
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new StoreError(`HTTP store URL must be http: or https:, got ${base.href}`, {
        path: base.href,
      });
    }
    base.hash = "";
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.url = base;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new StoreError("no fetch available: pass options.fetch");
    // Browsers reject fetch called as a method of another object ("Illegal
    // invocation"): keep it as a plain function call.
    this.#fetch = (input, init) => f(input, init);
    this.#headers = new Headers(options.headers);
    this.#forbiddenIsMissing = options.forbiddenIsMissing ?? false;
    this.#suffixRanges = options.suffixRanges ?? true;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#init = options.requestInit;
  }

  /**
   * The URL of `key`. Keys are checked here too (not only by core's
   * `resolveStore`): a `..` segment would otherwise climb out of the base URL.
   */
  keyUrl(key: string): URL {
    validateKey(key);
    const u = new URL(this.url);
    u.pathname += key.split("/").map(encodeURIComponent).join("/");
    return u;
  }

  async get(
    key: string,
    range?: ByteRange,
    options?: StoreOptions,
  ): Promise<Uint8Array | undefined> {
    const signal = options?.signal;
    if (range === undefined) return this.#asValue(await this.#getRange(key, undefined, signal));
    if (isSuffixRange(range)) {
      if (range.suffix === 0) return this.#empty(key, signal);
      if (this.#suffixRanges) {
        const value = await this.#getRange(key, range, signal);
        if (value !== SUFFIX_REJECTED) return value;
        this.#suffixRanges = false;
      }
      const size = await this.getSize(key, options);
      if (size === undefined) return undefined;
      const [start, end] = rangeBounds(range, size);
      if (start === end) return new Uint8Array(0);
      return this.#asValue(
        await this.#getRange(key, { offset: start, length: end - start }, signal),
      );
    }
    if (range.length === 0) return this.#empty(key, signal);
    return this.#asValue(await this.#getRange(key, range, signal));
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    const url = this.keyUrl(key);
    const res = await this.#request("HEAD", key, url, undefined, options?.signal);
    if (this.#isMissing(res.status)) return undefined;
    if (res.ok) {
      const length = res.headers.get("content-length");
      const encoding = res.headers.get("content-encoding");
      if (length !== null && /^\d+$/.test(length) && (!encoding || encoding === "identity")) {
        return Number(length);
      }
    } else if (res.status !== 405 && res.status !== 501) {
      throw this.#statusError(key, url, res, "HEAD");
    }
    // No usable HEAD: fetch the value and measure it.
    return this.#asValue(await this.#getRange(key, undefined, options?.signal))?.length;
  }

  /** An empty value if `key` exists (a 0-byte range cannot be sent as `Range`). */
  async #empty(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return (await this.getSize(key, { signal })) === undefined ? undefined : new Uint8Array(0);
  }

  #asValue(v: Uint8Array | undefined | typeof SUFFIX_REJECTED): Uint8Array | undefined {
    if (v === SUFFIX_REJECTED) throw new StoreError("internal: suffix fallback on an offset range");
    return v;
  }

  #isMissing(status: number): boolean {
    return status === 404 || status === 410 || (status === 403 && this.#forbiddenIsMissing);
  }

  /** GET `key`, whole or a non-empty range, checking what comes back. */
  async #getRange(
    key: string,
    range: ByteRange | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Uint8Array | undefined | typeof SUFFIX_REJECTED> {
    const url = this.keyUrl(key);
    let header: string | undefined;
    if (range !== undefined) {
      header = isSuffixRange(range)
        ? `bytes=-${range.suffix}`
        : `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
    }
    const res = await this.#request("GET", key, url, header, signal);
    if (this.#isMissing(res.status)) {
      await res.body?.cancel().catch(() => {});
      return undefined;
    }
    const where = `GET ${url.href}${header ? ` (Range: ${header})` : ""}`;
    const bad = (reason: string) =>
      new StoreError(`key ${JSON.stringify(key)}: ${where}: ${reason}`, { path: key });

    if (res.status === 416 && range !== undefined) {
      await res.body?.cancel().catch(() => {});
      const total = parseContentRange(res.headers.get("content-range"))?.size;
      // A suffix of a non-empty value is always satisfiable: the server does not support suffixes.
      if (isSuffixRange(range) && total !== 0) return SUFFIX_REJECTED;
      return new Uint8Array(0); // the range starts at or past the end
    }
    if (range !== undefined && isSuffixRange(range) && (res.status === 400 || res.status === 501)) {
      await res.body?.cancel().catch(() => {});
      return SUFFIX_REJECTED;
    }
    if (res.status === 200) {
      const body = await this.#body(res, key, where, signal);
      const length = res.headers.get("content-length");
      const encoded = res.headers.get("content-encoding");
      if (
        length !== null &&
        (!encoded || encoded === "identity") &&
        Number(length) !== body.length
      ) {
        throw bad(`body has ${body.length} bytes, Content-Length says ${length}`);
      }
      if (range === undefined) return body;
      // The server ignored Range and sent the whole value: take the range from it.
      const [start, end] = rangeBounds(range, body.length);
      return start === 0 && end === body.length ? body : body.slice(start, end);
    }
    if (res.status === 206) {
      const encoding = res.headers.get("content-encoding");
      if (encoding && encoding !== "identity") {
        await res.body?.cancel().catch(() => {});
        throw bad(`ranged response is ${encoding}-encoded: byte ranges would not match the value`);
      }
      const cr = parseContentRange(res.headers.get("content-range"));
      if (!cr || cr.first === undefined || cr.last === undefined) {
        await res.body?.cancel().catch(() => {});
        const type = res.headers.get("content-type") ?? "";
        throw bad(
          type.startsWith("multipart/")
            ? "server sent a multipart response to a single range"
            : `206 response without a valid Content-Range (${res.headers.get("content-range")})`,
        );
      }
      const expectedFirst =
        range === undefined
          ? 0
          : isSuffixRange(range)
            ? cr.size === undefined
              ? cr.first
              : Math.max(0, cr.size - range.suffix)
            : range.offset;
      const wantedLast =
        range === undefined || isSuffixRange(range) || range.length === undefined
          ? Number.POSITIVE_INFINITY
          : range.offset + range.length - 1;
      const expectedLast = cr.size === undefined ? cr.last : Math.min(wantedLast, cr.size - 1);
      const suffixTooLong =
        range !== undefined && isSuffixRange(range) && cr.last - cr.first + 1 > range.suffix;
      if (
        cr.first !== expectedFirst ||
        cr.last !== expectedLast ||
        cr.last > wantedLast ||
        suffixTooLong
      ) {
        await res.body?.cancel().catch(() => {});
        throw bad(
          `server answered with a different range (Content-Range: ${res.headers.get("content-range")})`,
        );
      }
      const body = await this.#body(res, key, where, signal);
      if (body.length !== cr.last - cr.first + 1) {
        throw bad(
          `206 body has ${body.length} bytes, Content-Range says ${cr.last - cr.first + 1}`,
        );
      }
      return body;
    }
    throw this.#statusError(key, url, res, "GET", header);
  }

  async #body(
    res: Response,
    key: string,
    where: string,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    try {
      return new Uint8Array(await res.arrayBuffer());
    } catch (cause) {
      throwIfAborted(signal, key);
      throw new StoreError(
        `key ${JSON.stringify(key)}: ${where}: reading the body failed: ${(cause as Error).message}`,
        {
          path: key,
          cause,
        },
      );
    }
  }

  #statusError(key: string, url: URL, res: Response, method: Method, range?: string): StoreError {
    res.body?.cancel().catch(() => {});
    return new StoreError(
      `key ${JSON.stringify(key)}: ${method} ${url.href}${range ? ` (Range: ${range})` : ""} failed: HTTP ${res.status} ${res.statusText}`.trimEnd(),
      { path: key },
    );
  }

  /** One request, retried on transient failures; returns the final response. */
  async #request(
    method: Method,
    key: string,
    url: URL,
    range: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const headers = new Headers(this.#headers);
    if (range) headers.set("Range", range);
    const policy = this.#retry;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal, key);
      let res: Response | undefined;
      let failure: unknown;
      try {
        res = await this.#fetch(url, { ...this.#init, method, headers, signal });
      } catch (cause) {
        if (signal?.aborted) {
          throw new AbortError(`operation aborted at "${key}"`, {
            path: key,
            cause: signal.reason,
          });
        }
        failure = cause;
      }
      const retryable = res === undefined || isRetryableStatus(res.status);
      if (!retryable && res) return res;
      const delay = retryDelay(policy, attempt, res?.headers.get("retry-after"));
      if (attempt >= policy.retries || Date.now() - started + delay > policy.timeout) {
        if (res) return res; // the caller reports the status
        throw new StoreError(
          `key ${JSON.stringify(key)}: ${method} ${url.href} failed after ${attempt + 1} attempt(s): ${(failure as Error)?.message ?? String(failure)}`,
          { path: key, cause: failure },
        );
      }
      await res?.body?.cancel().catch(() => {});
      await sleep(delay, signal, key);
    }
  }
}

/** Marks a suffix request the server did not understand (so the store falls back). */
const SUFFIX_REJECTED: unique symbol = Symbol("suffix rejected");
