/**
 * Node platform: `worker_threads`, sized by `os.availableParallelism()`.
 *
 * @module
 */
import { availableParallelism } from "node:os";
import { parentPort, Worker } from "node:worker_threads";
import type { SpawnOptions, WorkerEvents, WorkerHandle, WorkerPort } from "./types.js";

export type { SpawnOptions, WorkerEvents, WorkerHandle, WorkerPort } from "./types.js";

/** Logical cores available to this process. */
export function hardwareConcurrency(): number {
  return availableParallelism();
}

/** Flags (with a value) that describe the parent's own entry point: a worker given them fails to start. */
const ENTRY_FLAGS = new Set(["-e", "--eval", "-p", "--print", "--input-type"]);

/**
 * The parent's Node flags minus export conditions and the parent's entry
 * point: the worker module is built JavaScript, and a development condition
 * (e.g. `source`, pointing at TypeScript) must not leak into its imports; a
 * parent run as `node -e CODE` or `--input-type=module` must not hand its
 * script or `--input-type` to the worker (Node refuses to start it).
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (name === "--conditions" || name === "-C" || ENTRY_FLAGS.has(name)) {
      if (eq < 0) i++; // the value is the next argument
    } else {
      out.push(a);
    }
  }
  return out;
}

const workerOptions = (execArgv: string[], spawn: SpawnOptions) => ({
  execArgv,
  resourceLimits:
    spawn.youngGenerationMb === undefined
      ? undefined
      : { maxYoungGenerationSizeMb: spawn.youngGenerationMb },
});

/** The flags workers accepted, once a worker has started (see {@link newWorker}). */
let acceptedExecArgv: string[] | undefined;

/**
 * A worker with the parent's flags, less those workers refuse: V8 and
 * per-process options (`--max-old-space-size`, `--expose-gc`, `--stack-size`,
 * `--title`...) make `new Worker` throw `ERR_WORKER_INVALID_EXEC_ARGV`, whose
 * message lists them. They are left out (a worker's heap has its own limits);
 * if the list cannot be read, the worker starts with no flags at all.
 */
function newWorker(url: URL, spawn: SpawnOptions): Worker {
  const argv = acceptedExecArgv ?? workerExecArgv();
  try {
    const worker = new Worker(url, workerOptions(argv, spawn));
    acceptedExecArgv = argv;
    return worker;
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw error;
    const message = String((error as Error).message);
    const refused = new Set(
      message
        .slice(message.indexOf(":") + 1)
        .split(",")
        .map((f) => f.trim()),
    );
    const kept = argv.filter((a) => !refused.has(a));
    acceptedExecArgv = kept.length < argv.length ? kept : [];
    try {
      return new Worker(url, workerOptions(acceptedExecArgv, spawn));
    } catch (again) {
      if ((again as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw again;
      acceptedExecArgv = [];
      return new Worker(url, workerOptions([], spawn));
    }
  }
}

/**
 * Runs `fn` on a later turn of the event loop, after pending I/O callbacks
 * and worker messages (the check phase).
 */
export function nextTurn(fn: () => void): void {
  setImmediate(fn);
}

/** Starts a worker running the module at `url`. */
export function spawnWorker(
  url: URL,
  events: WorkerEvents,
  spawn: SpawnOptions = {},
): WorkerHandle {
  const worker = newWorker(url, spawn);
  let dead = false;
  let terminating = false;
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
    // Once terminating, the worker stays ref'd: an awaited close() must keep the process
    // alive until the thread has exited (an unref here would let the process end first).
    unref: () => {
      if (!terminating) worker.unref();
    },
    terminate: () => {
      dead = true;
      terminating = true;
      worker.ref();
      return worker.terminate().then(
        () => undefined,
        () => undefined,
      );
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
