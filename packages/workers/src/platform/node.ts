/**
 * Node platform: `worker_threads`, sized by `os.availableParallelism()`.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { parentPort, Worker } from "node:worker_threads";
import type { WorkerEvents, WorkerHandle, WorkerPort } from "./types.js";

export type { WorkerEvents, WorkerHandle, WorkerPort } from "./types.js";

/** Logical cores available to this process. */
export function hardwareConcurrency(): number {
  return availableParallelism();
}

/**
 * The parent's Node flags minus export conditions: the worker module is built
 * JavaScript, and a development condition (e.g. `source`, pointing at
 * TypeScript) must not leak into its imports.
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--conditions" || a === "-C") i++;
    else if (!a.startsWith("--conditions=") && !a.startsWith("-C=")) out.push(a);
  }
  return out;
}

/** Starts a worker running the module at `url`. */
export function spawnWorker(url: URL, events: WorkerEvents): WorkerHandle {
  const worker = new Worker(url, { execArgv: workerExecArgv() });
  let dead = false;
  const fail = (error: Error) => {
    if (dead) return;
    dead = true;
    events.failed(error);
  };
  worker.on("message", (data) => events.message(data));
  worker.on("error", fail);
  worker.on("messageerror", fail);
  worker.on("exit", (code) => fail(new Error(`worker exited with code ${code}`)));
  return {
    post: (message, transfer) => worker.postMessage(message, transfer as never[]),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    terminate: () => {
      dead = true;
      void worker.terminate();
    },
  };
}

/** The channel to the pool, inside a worker. */
export function workerPort(): WorkerPort {
  const port = parentPort;
  if (!port) throw new Error("@zarr/workers: the worker module must run in a worker thread");
  return {
    post: (message, transfer) => port.postMessage(message, transfer as never[]),
    listen: (fn) => port.on("message", fn),
  };
}
