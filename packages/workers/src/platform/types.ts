/** A worker as the pool sees it, on any platform. */
export interface WorkerHandle {
  post(message: unknown, transfer: Transferable[]): void;
  /** Keeps the process alive while the worker has work (no-op in browsers). */
  ref(): void;
  unref(): void;
  /** Stops the worker; resolves once it has exited. */
  terminate(): Promise<void>;
}

/** How a worker is started. */
export interface SpawnOptions {
  /** Node: the worker's young generation in MiB (V8's default when absent); ignored in browsers. */
  readonly youngGenerationMb?: number;
}

/** Callbacks of one worker. */
export interface WorkerEvents {
  message(data: unknown): void;
  /** The worker died (uncaught error or exit). */
  failed(error: Error): void;
}

/** The worker side of the channel. */
export interface WorkerPort {
  post(message: unknown, transfer: Transferable[]): void;
  listen(fn: (data: unknown) => void): void;
}
