/**
 * Bounds of one store operation: a total deadline (linked to the caller's
 * signal) and bounded reading of response bodies as streams, stopping (and
 * destroying the stream) as soon as a body passes what the read accepts or
 * stalls. Works on Node `Readable`s (the SDK's Node handler) and web
 * `ReadableStream`s (its fetch handler), without Node built-ins.
 *
 * @module
 */

import { AbortError, StoreError } from "@zarr/core";

/** The store's own time limit passed (the reason its deadline signal carries). */
export class Expired extends Error {
  constructor(
    readonly option: string,
    readonly ms: number,
    what: string,
  ) {
    super(`timed out: ${what} ${ms} ms (${option})`);
    this.name = "TimeoutError";
  }
}

/** One operation: the caller's signal plus a total deadline. */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #cleanup: (() => void)[] = [];

  constructor(
    readonly callerSignal: AbortSignal | undefined,
    total: number,
    option = "timeouts.total",
  ) {
    const caller = callerSignal;
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else if (caller) {
      const onAbort = () => this.#controller.abort(caller.reason);
      caller.addEventListener("abort", onAbort, { once: true });
      this.#cleanup.push(() => caller.removeEventListener("abort", onAbort));
    }
    if (Number.isFinite(total)) {
      const id = setTimeout(
        () => this.#controller.abort(new Expired(option, total, "the operation took more than")),
        total,
      );
      this.#cleanup.push(() => clearTimeout(id));
    }
  }

  /** Aborts when the caller aborts or the total time passes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /**
   * When the operation is over, the error to throw instead of whatever the
   * request failed with: `AbortError` for the caller's abort, a `StoreError`
   * naming `key` for the deadline; `undefined` while it runs.
   */
  error(key: string, where: string): Error | undefined {
    if (this.callerSignal?.aborted) {
      return new AbortError(`operation aborted at ${JSON.stringify(key)}`, {
        path: key,
        cause: this.callerSignal.reason,
      });
    }
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

/** What a body may be and which of its bytes to keep. */
export interface BodyPlan {
  /** Most bytes that may be read; one more fails with `fail("...")` naming `maxWhy`. */
  max: number;
  maxWhy: string;
  /** The exact length announced, and by which header. */
  exact?: number;
  exactWhy?: string;
  /** Keep bytes `[start, end)` only, and stop reading at `end` (default: all). */
  start?: number;
  end?: number;
  /** Keep only the last `tail` bytes. */
  tail?: number;
}

/** A body as the SDK hands it out: a Node Readable, a web ReadableStream, bytes or nothing. */
type AnyBody = unknown;

interface Pieces {
  next(): Promise<IteratorResult<Uint8Array>>;
  stop(): void;
}

function pieces(body: AnyBody): Pieces {
  const b = body as {
    getReader?: () => ReadableStreamDefaultReader<Uint8Array>;
    [Symbol.asyncIterator]?: () => AsyncIterator<Uint8Array>;
    destroy?: (e?: Error) => void;
  };
  if (typeof b.getReader === "function") {
    const reader = b.getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      stop: () => {
        reader.cancel().catch(() => {});
      },
    };
  }
  if (typeof b[Symbol.asyncIterator] === "function") {
    const it = b[Symbol.asyncIterator]?.() as AsyncIterator<Uint8Array>;
    return {
      next: () => it.next(),
      stop: () => {
        // Destroying a Node response closes its socket: nothing more is received.
        if (typeof b.destroy === "function") b.destroy();
        else it.return?.()?.catch(() => {});
      },
    };
  }
  if (body instanceof Uint8Array) {
    let done = false;
    return {
      next: async () => {
        if (done) return { done: true, value: undefined };
        done = true;
        return { done: false, value: body };
      },
      stop: () => {},
    };
  }
  if (body === undefined || body === null) {
    return { next: async () => ({ done: true, value: undefined }), stop: () => {} };
  }
  throw new TypeError(`unsupported response body (${Object.prototype.toString.call(body)})`);
}

/**
 * `promise`, or a rejection with `signal.reason` when `signal` aborts, or with
 * an {@link Expired} after `idleMs` without a settlement.
 */
function bounded<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  idleMs: number,
  idleOption: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      reject(signal?.reason);
    };
    const timer = Number.isFinite(idleMs)
      ? setTimeout(() => {
          done();
          reject(new Expired(idleOption, idleMs, "no body data for"));
        }, idleMs)
      : undefined;
    if (signal?.aborted) {
      onAbort();
      promise.catch(() => {});
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        done();
        resolve(v);
      },
      (e) => {
        done();
        reject(e);
      },
    );
  });
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0].length === length) {
    const p = parts[0]; // a plain view, not a Node Buffer with its surprising methods
    return p.constructor === Uint8Array ? p : new Uint8Array(p.buffer, p.byteOffset, p.byteLength);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Reads `body` under `plan`, each piece within `idleMs` and all of it before
 * `signal` aborts. A body that breaks the plan fails with `fail(reason)`;
 * stream errors, the idle limit ({@link Expired}) and aborts are thrown as
 * they come. The stream is stopped whenever reading ends early.
 */
export async function readBody(
  body: AnyBody,
  plan: BodyPlan,
  signal: AbortSignal | undefined,
  idleMs: number,
  idleOption: string,
  fail: (reason: string, overMax?: boolean) => Error,
): Promise<Uint8Array> {
  const start = plan.start ?? 0;
  const end = plan.end ?? Number.POSITIVE_INFINITY;
  const { exact, max, tail } = plan;
  const known =
    exact !== undefined && tail === undefined ? Math.max(0, Math.min(exact, end) - start) : -1;
  const out = known >= 0 && known <= max ? new Uint8Array(known) : undefined;
  const parts: Uint8Array[] = [];
  let kept = 0;
  let read = 0;
  let finished = false;
  const source = pieces(body);
  try {
    for (;;) {
      const next = await bounded(source.next(), signal, idleMs, idleOption);
      if (next.done) {
        finished = true;
        break;
      }
      const piece = next.value instanceof Uint8Array ? next.value : new Uint8Array(next.value);
      if (exact !== undefined && read + piece.length > exact) {
        throw fail(`body is longer than the ${exact} bytes its ${plan.exactWhy} announces`);
      }
      if (read + piece.length > max) throw fail(`body passes ${max} bytes, ${plan.maxWhy}`, true);
      const from = Math.max(start - read, 0);
      const to = Math.min(end - read, piece.length);
      read += piece.length;
      if (to > from) {
        const part = piece.subarray(from, to);
        if (out) out.set(part, kept);
        else parts.push(part);
        kept += part.length;
        while (tail !== undefined && parts.length > 1 && kept - parts[0].length >= tail) {
          kept -= parts[0].length;
          parts.shift();
        }
      }
      if (read >= end) break;
    }
  } finally {
    if (!finished) source.stop();
  }
  if (finished && exact !== undefined && read !== exact) {
    throw fail(`body has ${read} bytes, its ${plan.exactWhy} says ${exact}`);
  }
  if (out) return kept === out.length ? out : out.subarray(0, kept);
  const whole = concat(parts, kept);
  return tail !== undefined && whole.length > tail ? whole.slice(whole.length - tail) : whole;
}
