/**
 * The total deadline of one store operation, linked to the caller's signal.
 * Built on `AbortController` and timers only: it runs in browsers as in Node.
 *
 * @module
 */

import { AbortError, StoreError } from "@zarr/core";

/** The store's own time limit passed (the reason its deadline signal carries). */
export class Expired extends Error {
  /**
   * @param option - the store option that set the limit, named in the message (`"timeouts.total"`)
   * @param ms - the limit in milliseconds
   * @param what - what took too long (`"the operation took more than"`, `"no body data for"`)
   */
  constructor(
    readonly option: string,
    readonly ms: number,
    what: string,
  ) {
    super(`timed out: ${what} ${ms} ms (${option})`);
    this.name = "TimeoutError";
  }
}

/**
 * One operation: the caller's signal plus a total deadline of `total` ms
 * (none when `total` is infinite). Pass {@link Deadline.signal} to the
 * requests, map their failures with {@link Deadline.error}, and call
 * {@link Deadline.end} when the operation is over.
 *
 * @example
 * const deadline = new Deadline(options?.signal, 20_000, "timeout");
 * try {
 *   return await request({ signal: deadline.signal });
 * } catch (error) {
 *   throw deadline.error(key, `GET of ${JSON.stringify(key)}`) ?? error;
 * } finally {
 *   deadline.end();
 * }
 */
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
   * naming `key` for the deadline (`where` says which request); `undefined`
   * while it runs.
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

  /** Clears the timer and listeners (call once the operation is over). */
  end(): void {
    for (const f of this.#cleanup) f();
  }
}
