/**
 * Reading a response body under a plan: at most `max` bytes, exactly the
 * announced length, and only the bytes wanted (a window, or the last bytes),
 * stopping as soon as the body breaks the plan or everything wanted has
 * arrived. {@link PlannedBody} takes the pieces however they come (pull or
 * events); {@link readBody} pulls them from a web `ReadableStream`, a Node
 * `Readable` or any async iterable, each within an idle limit. No Node
 * built-ins.
 *
 * @module
 */

import { Expired } from "./deadline.js";

/** What a body may be and which of its bytes to keep. */
export interface BodyPlan {
  /** Most bytes that may be read; one more is an error naming `maxWhy` (whose limit it is). */
  max: number;
  maxWhy: string;
  /** `max` is the caller's own limit (`StoreOptions.maxBytes`): passing it is a `ValueTooLargeError`. */
  callersMax?: boolean;
  /** The exact length announced, and by which header (`"Content-Length"`). */
  exact?: number;
  exactWhy?: string;
  /** Keep bytes `[start, end)` only, and stop reading at `end` (default: all). */
  start?: number;
  end?: number;
  /** Keep only the last `tail` bytes (the body is read to its end). */
  tail?: number;
}

/** Makes the error for a body that breaks its plan (`overMax`: it passed `plan.max`). */
export type BodyFailure = (reason: string, overMax?: boolean) => Error;

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
 * The bytes of one body as its pieces arrive, checked against a
 * {@link BodyPlan}. When the exact length is known (and within `max`) the
 * value is one buffer filled in place; otherwise pieces are kept (only those
 * that can still be part of a `tail`) and joined at the end.
 *
 * @example
 * const body = new PlannedBody({ max: 1024, maxWhy: "options.maxBytes" }, (reason) => new StoreError(reason));
 * for await (const piece of stream) if (body.push(piece)) break;
 * const value = body.done ? body.end() : body.bytes();
 */
export class PlannedBody {
  readonly #plan: BodyPlan;
  readonly #fail: BodyFailure;
  readonly #start: number;
  readonly #end: number;
  readonly #out: Uint8Array | undefined;
  readonly #parts: Uint8Array[] = [];
  #kept = 0;
  #read = 0;

  constructor(plan: BodyPlan, fail: BodyFailure) {
    this.#plan = plan;
    this.#fail = fail;
    this.#start = plan.start ?? 0;
    this.#end = plan.end ?? Number.POSITIVE_INFINITY;
    const { exact, max, tail } = plan;
    // One buffer when the length is known (no copy at the end), pieces otherwise.
    const known =
      exact !== undefined && tail === undefined
        ? Math.max(0, Math.min(exact, this.#end) - this.#start)
        : -1;
    this.#out = known >= 0 && known <= max ? new Uint8Array(known) : undefined;
  }

  /** Bytes of the body received so far. */
  get received(): number {
    return this.#read;
  }

  /**
   * Takes the next piece of the body. Throws the plan's failure when the body
   * is longer than announced or passes `max`. Returns `true` once every byte
   * wanted (up to `plan.end`) has arrived: stop reading, and take
   * {@link bytes}.
   */
  push(piece: Uint8Array): boolean {
    const { exact, max, tail } = this.#plan;
    const read = this.#read;
    if (exact !== undefined && read + piece.length > exact) {
      throw this.#fail(
        `body is longer than the ${exact} bytes its ${this.#plan.exactWhy} announces`,
      );
    }
    if (read + piece.length > max) {
      throw this.#fail(`body passes ${max} bytes, ${this.#plan.maxWhy}`, true);
    }
    const from = Math.max(this.#start - read, 0);
    const to = Math.min(this.#end - read, piece.length);
    this.#read = read + piece.length;
    if (to > from) {
      const part = piece.subarray(from, to);
      if (this.#out) this.#out.set(part, this.#kept);
      else this.#parts.push(part);
      this.#kept += part.length;
      // Suffix of a whole value: drop pieces that cannot be part of the last `tail` bytes.
      const parts = this.#parts;
      while (tail !== undefined && parts.length > 1 && this.#kept - parts[0].length >= tail) {
        this.#kept -= parts[0].length;
        parts.shift();
      }
    }
    return this.#read >= this.#end;
  }

  /** The body ended: checks its length against `plan.exact` and returns the bytes kept. */
  end(): Uint8Array {
    const { exact } = this.#plan;
    if (exact !== undefined && this.#read !== exact) {
      throw this.#fail(`body has ${this.#read} bytes, its ${this.#plan.exactWhy} says ${exact}`);
    }
    return this.bytes();
  }

  /** The bytes kept so far (all of them once {@link push} returned `true`). */
  bytes(): Uint8Array {
    const out = this.#out;
    if (out) return this.#kept === out.length ? out : out.subarray(0, this.#kept);
    const whole = concat(this.#parts, this.#kept);
    const tail = this.#plan.tail;
    return tail !== undefined && whole.length > tail ? whole.slice(whole.length - tail) : whole;
  }
}

interface Pieces {
  next(): Promise<IteratorResult<Uint8Array>>;
  stop(): void;
}

function pieces(body: unknown): Pieces {
  const b = body as {
    getReader?: () => ReadableStreamDefaultReader<Uint8Array>;
    [Symbol.asyncIterator]?: () => AsyncIterator<Uint8Array>;
    destroy?: (e?: Error) => void;
  };
  if (typeof b?.getReader === "function") {
    const reader = b.getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      stop: () => {
        reader.cancel().catch(() => {});
      },
    };
  }
  if (typeof b?.[Symbol.asyncIterator] === "function") {
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

/**
 * Reads `body` (a web `ReadableStream`, a Node `Readable` or other async
 * iterable of bytes, a `Uint8Array`, or nothing) under `plan`, each piece
 * within `idleMs` (an {@link Expired} naming `idleOption` past it) and all of
 * it before `signal` aborts. A body that breaks the plan fails with
 * `fail(reason, overMax)`; stream errors and aborts are thrown as they come.
 * The stream is stopped whenever reading ends early.
 */
export async function readBody(
  body: unknown,
  plan: BodyPlan,
  signal: AbortSignal | undefined,
  idleMs: number,
  idleOption: string,
  fail: BodyFailure,
): Promise<Uint8Array> {
  const value = new PlannedBody(plan, fail);
  const source = pieces(body);
  let finished = false;
  try {
    for (;;) {
      const next = await bounded(source.next(), signal, idleMs, idleOption);
      if (next.done) {
        finished = true;
        break;
      }
      const piece = next.value instanceof Uint8Array ? next.value : new Uint8Array(next.value);
      if (value.push(piece)) break;
    }
  } finally {
    if (!finished) source.stop();
  }
  return finished ? value.end() : value.bytes();
}
