/**
 * {@link HttpStore}: a read-only Zarr store over HTTP(S), built on `fetch`.
 *
 * @module
 */

import { StoreError, type StoreOptions, ValueTooLargeError, ZarrError } from "@zarr/core";
import {
  type ByteRange,
  isSuffixRange,
  rangeBounds,
  throwIfAborted,
  validateKey,
} from "@zarr/core/store";
import { type BodyPlan, readBody } from "./body.js";
import { parseContentRange } from "./content-range.js";
import { type Attempt, Expired, Operation, raceAbort } from "./deadline.js";
import { DEFAULT_RETRY, isRetryableStatus, type RetryPolicy, retryDelay } from "./retry.js";

/**
 * Time limits of each request (milliseconds; `Infinity` disables one). The
 * total for a whole operation is {@link RetryPolicy.timeout}.
 */
export interface HttpTimeouts {
  /**
   * Per attempt: connecting, sending the request and receiving the status
   * line and headers (default 10,000). An attempt that passes it is retried
   * like a network error, within the total.
   */
  response: number;
  /** Longest wait for the next piece of a body (default 10,000): a stalled body fails. */
  idle: number;
}

/** The default {@link HttpTimeouts}. */
export const DEFAULT_TIMEOUTS: HttpTimeouts = { response: 10_000, idle: 10_000 };

/**
 * The default {@link HttpStoreOptions.maxBodyBytes}: 128 MiB. It only applies
 * to reads whose caller gives no `StoreOptions.maxBytes` (core gives one from
 * the metadata), so it is sized for what such reads fetch: above any metadata
 * document and the chunk sizes Zarr recommends (1–100 MB), and low enough
 * that a few concurrent reads from a hostile or broken server cannot exhaust
 * a browser tab or a small container.
 */
export const DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024;

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
  /**
   * Retry policy for 5xx/429/408 responses, network errors and response
   * timeouts; its `timeout` (default 20,000 ms) is the total time of one
   * operation, attempts, waits and bodies included (see {@link RetryPolicy}).
   */
  retry?: Partial<RetryPolicy>;
  /** Per-request time limits (see {@link HttpTimeouts}; defaults 10,000 ms each). */
  timeouts?: Partial<HttpTimeouts>;
  /**
   * The most bytes one read accepts when its caller gives no
   * `StoreOptions.maxBytes` (default {@link DEFAULT_MAX_BODY_BYTES}, 128 MiB):
   * a body that passes it is cut off with a `StoreError`, whatever its
   * `Content-Length` says. Also bounds the whole value a server sends when it
   * ignores the `Range` of a suffix read.
   */
  maxBodyBytes?: number;
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
 * - **Bounded reads**: bodies are read as streams and cut off (with a
 *   `StoreError` naming the key) as soon as they pass what the read can
 *   accept: the range asked, the announced `Content-Length`/`Content-Range`,
 *   `StoreOptions.maxBytes`, else `maxBodyBytes` (default 128 MiB). The bound
 *   applies to the decoded bytes of gzip/br-encoded bodies.
 * - **Timeouts**: each attempt gets `timeouts.response` (10 s) for its
 *   headers and `timeouts.idle` (10 s) between pieces of its body; a whole
 *   operation (attempts, backoff and bodies) ends within `retry.timeout` (20 s).
 * - **No listing**: HTTP has no standard way to list, so this store has no
 *   `list`; core's `resolveStore` reports listing operations with a
 *   `StoreCapabilityError`. Open nodes by path (or through consolidated metadata).
 * - Read-only: no `set`/`erase`.
 */
export class HttpStore {
  /** The base URL, always ending with `/`. */
  readonly url: URL;
  /**
   * The canonical location of the store's root: the base URL without its
   * trailing `/`, query string (tokens) or credentials, e.g.
   * `https://example.org/data.zarr` (see `ReadableStore.location` in @zarr/core).
   */
  readonly location: string;
  readonly #fetch: typeof fetch;
  readonly #headers: Headers;
  readonly #forbiddenIsMissing: boolean;
  readonly #retry: RetryPolicy;
  readonly #timeouts: HttpTimeouts;
  readonly #maxBody: number;
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
    this.location = `${base.origin}${base.pathname.slice(0, -1)}`;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new StoreError("no fetch available: pass options.fetch");
    // Browsers reject fetch called as a method of another object ("Illegal
    // invocation"): keep it as a plain function call.
    this.#fetch = (input, init) => f(input, init);
    this.#headers = new Headers(options.headers);
    this.#forbiddenIsMissing = options.forbiddenIsMissing ?? false;
    this.#suffixRanges = options.suffixRanges ?? true;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    for (const [name, v] of [
      ["retry.timeout", this.#retry.timeout],
      ["timeouts.response", this.#timeouts.response],
      ["timeouts.idle", this.#timeouts.idle],
    ] as const) {
      if (!(typeof v === "number" && v > 0)) {
        throw new StoreError(`HttpStore option "${name}" must be a positive number, got ${v}`);
      }
    }
    // Retries and their delays: NaN or negative values would retry in a tight loop.
    if (!(Number.isSafeInteger(this.#retry.retries) && this.#retry.retries >= 0)) {
      throw new StoreError(
        `HttpStore option "retry.retries" must be a non-negative integer, got ${this.#retry.retries}`,
      );
    }
    for (const [name, v] of [
      ["retry.baseDelay", this.#retry.baseDelay],
      ["retry.maxDelay", this.#retry.maxDelay],
    ] as const) {
      if (!(typeof v === "number" && Number.isFinite(v) && v >= 0)) {
        throw new StoreError(`HttpStore option "${name}" must be a non-negative number, got ${v}`);
      }
    }
    if (options.maxBodyBytes === null) {
      throw new StoreError(
        'HttpStore option "maxBodyBytes" must be a non-negative integer, got null',
      );
    }
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!(Number.isSafeInteger(this.#maxBody) && this.#maxBody >= 0)) {
      throw new StoreError(
        `HttpStore option "maxBodyBytes" must be a non-negative integer, got ${options.maxBodyBytes}`,
      );
    }
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
    const maxBytes = options?.maxBytes;
    if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
      throw new StoreError(
        `key ${JSON.stringify(key)}: options.maxBytes must be a non-negative integer, got ${maxBytes}`,
        { path: key },
      );
    }
    throwIfAborted(options?.signal, key);
    const op = new Operation(key, options?.signal, this.#retry.timeout);
    try {
      if (range === undefined) return this.#asValue(await this.#getRange(op, undefined, maxBytes));
      if (isSuffixRange(range)) {
        if (range.suffix === 0) return this.#empty(op);
        if (this.#suffixRanges) {
          const value = await this.#getRange(op, range, maxBytes);
          if (value !== SUFFIX_REJECTED) return value;
          this.#suffixRanges = false;
        }
        const size = await this.#getSize(op);
        if (size === undefined) return undefined;
        const [start, end] = rangeBounds(range, size);
        if (start === end) return new Uint8Array(0);
        return this.#asValue(
          await this.#getRange(op, { offset: start, length: end - start }, maxBytes),
        );
      }
      if (range.length === 0) return this.#empty(op);
      return this.#asValue(await this.#getRange(op, range, maxBytes));
    } finally {
      op.end();
    }
  }

  async getSize(key: string, options?: StoreOptions): Promise<number | undefined> {
    throwIfAborted(options?.signal, key);
    const op = new Operation(key, options?.signal, this.#retry.timeout);
    try {
      return await this.#getSize(op);
    } finally {
      op.end();
    }
  }

  async #getSize(op: Operation): Promise<number | undefined> {
    const key = op.key;
    const url = this.keyUrl(key);
    const { res, attempt } = await this.#request(op, "HEAD", url, undefined);
    try {
      if (this.#isMissing(res.status)) return undefined;
      if (res.ok) {
        const length = contentLength(res);
        if (length !== undefined) return length;
      } else if (res.status !== 405 && res.status !== 501) {
        throw this.#statusError(key, url, res, "HEAD");
      }
    } finally {
      res.body?.cancel().catch(() => {});
      attempt.end();
    }
    // No usable HEAD: fetch the value and measure it.
    return this.#asValue(await this.#getRange(op, undefined, undefined))?.length;
  }

  /** An empty value if the key exists (a 0-byte range cannot be sent as `Range`). */
  async #empty(op: Operation): Promise<Uint8Array | undefined> {
    return (await this.#getSize(op)) === undefined ? undefined : new Uint8Array(0);
  }

  #asValue(v: Uint8Array | undefined | typeof SUFFIX_REJECTED): Uint8Array | undefined {
    if (v === SUFFIX_REJECTED) throw new StoreError("internal: suffix fallback on an offset range");
    return v;
  }

  #isMissing(status: number): boolean {
    return status === 404 || status === 410 || (status === 403 && this.#forbiddenIsMissing);
  }

  /** GET the key of `op`, whole or a non-empty range, checking and bounding what comes back. */
  async #getRange(
    op: Operation,
    range: ByteRange | undefined,
    maxBytes: number | undefined,
  ): Promise<Uint8Array | undefined | typeof SUFFIX_REJECTED> {
    const key = op.key;
    const url = this.keyUrl(key);
    let header: string | undefined;
    if (range !== undefined) {
      header = isSuffixRange(range)
        ? `bytes=-${range.suffix}`
        : `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
    }
    const { res, attempt } = await this.#request(op, "GET", url, header);
    const where = `GET ${url.href}${header ? ` (Range: ${header})` : ""}`;
    // Past the caller's own limit (options.maxBytes): a ValueTooLargeError, which core
    // reports for a chunk as a damaged chunk, as it does for every store.
    const bad = (reason: string, overCallersLimit = false) =>
      new (overCallersLimit && maxBytes !== undefined ? ValueTooLargeError : StoreError)(
        `key ${JSON.stringify(key)}: ${where}: ${reason}`,
        { path: key },
      );
    const limit = maxBytes ?? this.#maxBody;
    const limitWhy =
      maxBytes === undefined
        ? "the most a read without options.maxBytes accepts (maxBodyBytes)"
        : "the most this read accepts (options.maxBytes)";
    const read = async (plan: BodyPlan) => {
      try {
        return await readBody(res, attempt, this.#timeouts.idle, plan, (reason, overMax) =>
          bad(`${res.status} ${reason}`, overMax && plan.max === limit),
        );
      } catch (cause) {
        if (cause instanceof ZarrError) throw cause;
        throw (
          op.errorFor(where, cause) ??
          new StoreError(
            `key ${JSON.stringify(key)}: ${where}: reading the body failed: ${describeFailure(cause)}`,
            { path: key, cause },
          )
        );
      }
    };
    const refuse = (reason: string, overCallersLimit = false) => {
      res.body?.cancel().catch(() => {});
      attempt.abort();
      return bad(reason, overCallersLimit);
    };
    try {
      if (this.#isMissing(res.status)) {
        res.body?.cancel().catch(() => {});
        return undefined;
      }
      if (res.status === 416 && range !== undefined) {
        res.body?.cancel().catch(() => {});
        const total = parseContentRange(res.headers.get("content-range"))?.size;
        // A suffix of a non-empty value is always satisfiable: the server does not support suffixes.
        if (isSuffixRange(range) && total !== 0) return SUFFIX_REJECTED;
        return new Uint8Array(0); // the range starts at or past the end
      }
      if (
        range !== undefined &&
        isSuffixRange(range) &&
        (res.status === 400 || res.status === 501)
      ) {
        res.body?.cancel().catch(() => {});
        return SUFFIX_REJECTED;
      }
      if (res.status === 200) {
        const length = contentLength(res);
        const exact = length === undefined ? {} : { exact: length, exactWhy: "Content-Length" };
        if (range === undefined) {
          if (length !== undefined && length > limit) {
            throw refuse(`Content-Length ${length} is more than ${limit} bytes, ${limitWhy}`, true);
          }
          return await read({ max: limit, maxWhy: limitWhy, ...exact });
        }
        // The server ignored Range and sends the whole value: keep the range's
        // bytes only, and stop reading once they have arrived.
        if (isSuffixRange(range)) {
          const cap = this.#maxBody;
          const capWhy = "the most of a whole value read for a suffix range (maxBodyBytes)";
          if (length !== undefined && length > cap) {
            throw refuse(
              `server ignored Range; its ${length}-byte value is more than ${cap}, ${capWhy}`,
            );
          }
          return await read({ max: cap, maxWhy: capWhy, tail: range.suffix, ...exact });
        }
        const end = range.length === undefined ? undefined : range.offset + range.length;
        return await read({
          max: range.offset + limit,
          maxWhy: `the range's offset plus ${limitWhy}`,
          start: range.offset,
          ...(end === undefined ? {} : { end }),
          ...exact,
        });
      }
      if (res.status === 206) {
        const encoding = res.headers.get("content-encoding");
        if (encoding && encoding !== "identity") {
          throw refuse(
            `ranged response is ${encoding}-encoded: byte ranges would not match the value`,
          );
        }
        const cr = parseContentRange(res.headers.get("content-range"));
        if (!cr || cr.first === undefined || cr.last === undefined) {
          const type = res.headers.get("content-type") ?? "";
          throw refuse(
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
          throw refuse(
            `server answered with a different range (Content-Range: ${res.headers.get("content-range")})`,
          );
        }
        const expected = cr.last - cr.first + 1;
        if (expected > limit) {
          throw refuse(
            `206 range of ${expected} bytes is more than ${limit} bytes, ${limitWhy}`,
            true,
          );
        }
        const length = contentLength(res);
        if (length !== undefined && length !== expected) {
          throw refuse(
            `206 Content-Length ${length} does not match its Content-Range (${expected} bytes)`,
          );
        }
        return await read({
          max: expected,
          maxWhy: "the length of its Content-Range",
          exact: expected,
          exactWhy: "Content-Range",
        });
      }
      throw this.#statusError(key, url, res, "GET", header);
    } finally {
      attempt.end();
    }
  }

  #statusError(key: string, url: URL, res: Response, method: Method, range?: string): StoreError {
    res.body?.cancel().catch(() => {});
    return new StoreError(
      `key ${JSON.stringify(key)}: ${method} ${url.href}${range ? ` (Range: ${range})` : ""} failed: HTTP ${res.status} ${res.statusText}`.trimEnd(),
      { path: key },
    );
  }

  /**
   * One request, retried on transient failures (statuses, network errors,
   * response timeouts) within the operation's total time; returns the final
   * response with its attempt, whose body the caller reads (then ends the attempt).
   */
  async #request(
    op: Operation,
    method: Method,
    url: URL,
    range: string | undefined,
  ): Promise<{ res: Response; attempt: Attempt }> {
    const key = op.key;
    const where = `${method} ${url.href}${range ? ` (Range: ${range})` : ""}`;
    const headers = new Headers(this.#headers);
    if (range) {
      headers.set("Range", range);
      // Ranges address the unencoded value; browsers drop this header (it is theirs to set).
      if (!headers.has("Accept-Encoding")) headers.set("Accept-Encoding", "identity");
    }
    const policy = this.#retry;
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      op.check(where);
      const current = op.attempt();
      current.arm("response", this.#timeouts.response);
      let res: Response | undefined;
      let failure: unknown;
      try {
        res = await raceAbort(
          this.#fetch(url, { ...this.#init, method, headers, signal: current.signal }),
          current.signal,
        );
        current.disarm();
      } catch (cause) {
        current.end();
        const over = op.errorFor(where);
        if (over) throw over;
        failure = current.signal.reason instanceof Expired ? current.signal.reason : cause;
      }
      const retryable = res === undefined || isRetryableStatus(res.status);
      if (!retryable && res) return { res, attempt: current };
      const delay = retryDelay(policy, attempt, res?.headers.get("retry-after"));
      if (attempt >= policy.retries || Date.now() - started + delay > policy.timeout) {
        if (res) return { res, attempt: current }; // the caller reports the status
        throw new StoreError(
          `key ${JSON.stringify(key)}: ${where} failed after ${attempt + 1} attempt(s): ${describeFailure(failure)}`,
          { path: key, cause: failure },
        );
      }
      res?.body?.cancel().catch(() => {});
      current.end();
      await op.sleep(delay, where);
    }
  }
}

/** The length of an unencoded body from its `Content-Length`, when valid. */
function contentLength(res: Response): number | undefined {
  const length = res.headers.get("content-length");
  const encoding = res.headers.get("content-encoding");
  if (length === null || !/^\d+$/.test(length) || (encoding && encoding !== "identity")) {
    return undefined;
  }
  const n = Number(length);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A failure's message with its causes (`fetch failed: redirect count exceeded`). */
function describeFailure(failure: unknown): string {
  if (failure instanceof Expired) return failure.describe();
  const parts: string[] = [];
  let e: unknown = failure;
  for (let depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(": ");
}

/** Marks a suffix request the server did not understand (so the store falls back). */
const SUFFIX_REJECTED: unique symbol = Symbol("suffix rejected");
