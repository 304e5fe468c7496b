/**
 * Browser platform: module Web Workers, sized by `navigator.hardwareConcurrency`.
 *
 * @module
 */
import type { SpawnOptions, WorkerEvents, WorkerHandle, WorkerPort } from "./types.js";

export type { WorkerEvents, WorkerHandle, WorkerPort } from "./types.js";

/** Logical cores reported by the browser (4 when unknown). */
export function hardwareConcurrency(): number {
  return globalThis.navigator?.hardwareConcurrency || 4;
}

let turnChannel: MessageChannel | undefined;
const turnQueue: (() => void)[] = [];

/**
 * Runs `fn` on a later task of the event loop, after pending messages (a
 * MessageChannel message: `setTimeout(0)` is clamped to 4 ms when nested).
 */
export function nextTurn(fn: () => void): void {
  if (turnChannel === undefined) {
    turnChannel = new MessageChannel();
    turnChannel.port1.onmessage = () => turnQueue.shift()?.();
  }
  turnQueue.push(fn);
  turnChannel.port2.postMessage(null);
}

/** Starts a module worker running `url` (browsers have no per-worker heap limits: `SpawnOptions` does not apply). */
export function spawnWorker(url: URL, events: WorkerEvents, _spawn?: SpawnOptions): WorkerHandle {
  const worker = new Worker(url, { type: "module" });
  let dead = false;
  worker.onmessage = (e) => events.message(e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    if (dead) return;
    dead = true;
    events.failed(new Error(e.message || "worker error"));
  };
  worker.onmessageerror = () => {
    if (!dead) events.failed(new Error("worker message could not be deserialized"));
  };
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    ref: () => {},
    unref: () => {},
    terminate: () => {
      dead = true;
      worker.terminate(); // synchronous in browsers
      return Promise.resolve();
    },
  };
}

/** The channel to the pool, inside a worker. */
export function workerPort(): WorkerPort {
  const scope = globalThis as unknown as {
    postMessage(m: unknown, t: Transferable[]): void;
    addEventListener(type: "message", fn: (e: { data: unknown }) => void): void;
  };
  return {
    post: (message, transfer) => scope.postMessage(message, transfer),
    listen: (fn) => scope.addEventListener("message", (e) => fn(e.data)),
  };
}
