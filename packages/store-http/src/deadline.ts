/**
 * Time limits of one store operation: a total deadline over every attempt,
 * backoff wait and body of the operation, and per-attempt limits for the
 * response headers and for gaps in the body. Built on `AbortController` and
 * timers only, so it runs in browsers as in Node.
 *
 * @module
 */

import { AbortError, StoreError } from "@zarr/core";

/** Why the store itself aborted a request: which limit passed. */
export class Expired {
  constructor(
    readonly limit: "total" | "response" | "idle",
    readonly ms: number,
  ) {}

  describe(): string {
    switch (this.limit) {
      case "total":
        return `timed out after ${this.ms} ms (retry.timeout: the total for one operation, retries and bodies included)`;
      case "response":
        return `timed out waiting ${this.ms} ms for the response headers (timeouts.response)`;
      case "idle":
        return `timed out: no body data for ${this.ms} ms (timeouts.idle)`;
    }
  }
}

/** Aborts `controller` with `reason` after `ms` (no timer for an infinite `ms`); returns a canceller. */
function timer(controller: AbortController, ms: number, reason: Expired): () => void {
  if (!Number.isFinite(ms)) return () => {};
  const id = setTimeout(() => controller.abort(reason), ms);
  return () => clearTimeout(id);
}

/** Makes `child` abort when `parent` does; returns the unlinker. */
function link(parent: AbortSignal | undefined, child: AbortController): () => void {
  if (parent === undefined) return () => {};
  if (parent.aborted) {
    child.abort(parent.reason);
    return () => {};
  }
  const onAbort = () => child.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return () => parent.removeEventListener("abort", onAbort);
}

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal`
 * aborts (for a `fetch` or a stream read that does not honour its signal).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** One operation of the store (`get`, `getSize`): the caller's signal plus the total deadline. */
export class Operation {
  readonly #controller = new AbortController();
  readonly #stop: (() => void)[];

  constructor(
    readonly key: string,
    readonly callerSignal: AbortSignal | undefined,
    total: number,
  ) {
    this.#stop = [
      link(callerSignal, this.#controller),
      timer(this.#controller, total, new Expired("total", total)),
    ];
  }

  /** Aborts when the caller aborts or the total time passes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** A new attempt (one request) under this operation. */
  attempt(): Attempt {
    return new Attempt(this.signal);
  }

  /**
   * The error for a failure while `reason` aborted a request of this
   * operation: `AbortError` when the caller aborted, a `StoreError` naming the
   * key when a time limit passed, `undefined` when neither did.
   */
  errorFor(where: string, reason?: unknown): Error | undefined {
    const key = this.key;
    if (this.callerSignal?.aborted) {
      return new AbortError(`operation aborted at "${key}"`, {
        path: key,
        cause: this.callerSignal.reason,
      });
    }
    const expired =
      reason instanceof Expired
        ? reason
        : this.signal.reason instanceof Expired
          ? this.signal.reason
          : undefined;
    if (expired === undefined) return undefined;
    // The total is reported in preference to a per-attempt limit that fired at the same time.
    const limit = this.signal.reason instanceof Expired ? this.signal.reason : expired;
    return new StoreError(`key ${JSON.stringify(key)}: ${where}: ${limit.describe()}`, {
      path: key,
    });
  }

  /** Throws when the operation is over (caller abort or total time). */
  check(where: string): void {
    if (this.signal.aborted) throw this.errorFor(where) ?? new StoreError("internal: aborted");
  }

  /** Waits `ms`, ending early (with {@link errorFor}'s error) when the operation is over. */
  async sleep(ms: number, where: string): Promise<void> {
    const signal = this.signal;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(id);
        reject(this.errorFor(where));
      };
      const id = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Clears the timer and listeners (call once the operation is over). */
  end(): void {
    for (const stop of this.#stop) stop();
  }
}

/** One request of an operation, with its own limits (`response`, then `idle`). */
export class Attempt {
  readonly #controller = new AbortController();
  readonly #unlink: () => void;
  #disarm: () => void = () => {};

  constructor(parent: AbortSignal) {
    this.#unlink = link(parent, this.#controller);
  }

  /** Pass it to `fetch`: aborts with the operation, or when an armed limit passes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Arms a limit: the request is aborted after `ms` unless re-armed or disarmed first. */
  arm(limit: "response" | "idle", ms: number): void {
    this.#disarm();
    this.#disarm = timer(this.#controller, ms, new Expired(limit, ms));
  }

  disarm(): void {
    this.#disarm();
    this.#disarm = () => {};
  }

  /** Aborts the request, closing its connection (for a body the store stops reading). */
  abort(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(new Error("request finished"));
  }

  /** Releases timers and listeners. */
  end(): void {
    this.disarm();
    this.#unlink();
  }
}
