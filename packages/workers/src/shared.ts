import { WorkerPool } from "./pool.js";

let shared: WorkerPool | undefined;

/** The process-wide pool with default options (created on first call; its workers start on first use). */
export function defaultPool(): WorkerPool {
  shared ??= new WorkerPool();
  return shared;
}
