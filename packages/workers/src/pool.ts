/**
 * A pool of workers running chunk codecs (decode and encode), implementing
 * core's `ChunkCodecWorkers` hook. Workers start on first use, keep the
 * process alive only while they have work, and rebuild each array's codec
 * pipeline from its metadata once.
 *
 * @module
 */
import {
  CodecError,
  type DecodeLimits,
  type GetOptions,
  getDecodeLimits,
  type NDArray,
  ValueError,
} from "@zarr/core";
import {
  type ChunkTarget,
  type CodecOptions,
  type CodecPipeline,
  chunkByteSpan,
  copyChunk,
  DecodeBuffers,
  decodeChunkTo,
} from "@zarr/core/codec";
import { throwIfAborted } from "@zarr/core/store";
import { hardwareConcurrency, nextTurn, spawnWorker, type WorkerHandle } from "#platform";
import { reviveError } from "./errors.js";
import type { EncodeInput, PipelineDesc, Reply, Request } from "./protocol.js";
import { isShared, StagingBuffers, sharedMemoryUsable } from "./staging.js";
import { transferable } from "./transfer.js";

/** Core's hook type (structural: core's index does not export it by name). */
export type ChunkCodecWorkers = Exclude<NonNullable<GetOptions["workers"]>, false>;
type Context = Parameters<ChunkCodecWorkers["decode"]>[2];

/** Register modules imported in every worker unless `modules` replaces them. */
export const DEFAULT_MODULES: readonly string[] = [
  "@zarr/codec-blosc/register",
  "@zarr/codec-gzip/register",
  "@zarr/codec-zstd/register",
  "@zarr/v2-compat/register",
];

/**
 * The young generation of workers that run only this package's codecs (see
 * `youngGenerationMb`): V8 lets a worker's grow with its allocation rate,
 * resident memory these workers never need (bench/RESULTS.md: median peak RSS
 * of a 64 MiB blosc zstd read 196 → 187 MiB on Node 20, 198 → 190 on Node 24).
 */
export const BUILTIN_YOUNG_GENERATION_MB = 2;

/**
 * Chunks smaller than this (decoded bytes) stay on the calling thread: below
 * it, the message round trip costs more than the decode (bench: 64×64 region
 * reads).
 */
export const DEFAULT_MIN_CHUNK_BYTES = 64 * 1024;

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /**
   * Number of workers (default: cores − 1, at least 1: the calling thread
   * keeps a core for I/O and copies; measured in bench/RESULTS.md); at most
   * 1024.
   */
  size?: number;
  /**
   * Module specifiers or URLs each worker imports before its first job (the
   * register entries of every codec package in use). Resolved from the worker
   * module: pass absolute URLs (`import.meta.resolve("my-codec/register")`)
   * for packages @zarr/workers cannot see. Missing modules are skipped; a
   * pipeline that needs one then runs on the calling thread.
   */
  modules?: readonly (string | URL)[];
  /** Also import {@link DEFAULT_MODULES} when `modules` is given (default true). */
  defaultModules?: boolean;
  /** Decoded chunk size from which jobs go to workers (default {@link DEFAULT_MIN_CHUNK_BYTES}). */
  minChunkBytes?: number;
  /**
   * Node: each worker's young generation in MiB (V8's
   * `resourceLimits.maxYoungGenerationSizeMb`; the old generation keeps Node's
   * default). Default: {@link BUILTIN_YOUNG_GENERATION_MB} when the workers run
   * only {@link DEFAULT_MODULES} with this package's worker module, whose
   * garbage is a few small objects per job; otherwise V8's own, which grows to
   * 48 MiB on Node 20 and 192 MiB on Node 24: a codec that builds tables of
   * JavaScript objects per call ran about twice as slow in a 2 MiB one. Ignored
   * in browsers.
   */
  youngGenerationMb?: number;
  /**
   * Offload decoding (default true with 2 or more cores). Workers take a
   * chunk while they have room (`perWorker`); the others wait, and the
   * calling thread decodes one per turn of the event loop while freed workers
   * take the rest, so every core decodes.
   */
  decode?: boolean;
  /** Offload encoding (default true: compressing is slower than decoding, so it pays even on 2 cores). */
  encode?: boolean;
  /** The worker module (default: this package's `worker.js`). */
  workerUrl?: URL;
  /**
   * Jobs queued at one worker at once, so it never waits for the next message
   * (default 2). When every worker has that many, further jobs wait: the
   * calling thread runs one per turn of the event loop (so it computes too,
   * instead of waiting), and workers take the others as they free up.
   */
  perWorker?: number;
}

interface Job {
  readonly id: number;
  readonly pipelineId: number;
  readonly desc: PipelineDesc;
  readonly op: Extract<Request, { type: "task" }>["op"];
  readonly input: unknown;
  readonly transfer: Transferable[];
  readonly signal: AbortSignal | undefined;
  /** The decode limits in force for the job (this thread's, with the operation's overrides). */
  readonly limits: DecodeLimits;
  readonly path: string;
  resolve(reply: Extract<Reply, { type: "result" }>): void;
  reject(error: unknown): void;
  /** The worker refused to build the pipeline: run it here, on `input` as handed back. */
  fallback(input: unknown): void;
  /** Runs the job here instead (its worker was stopped). */
  runHere(): void;
  /**
   * The worker writes the job's output into the caller's memory (`decode-to`
   * into a shared `out`): an abort settles only once the worker is done with
   * it (see `#abortInPlace`).
   */
  readonly writesCaller: boolean;
  /** Aborted while its worker was writing into the caller's memory: settles as an abort on the reply. */
  abortPending?: ReturnType<typeof setTimeout>;
  settled: boolean;
  /** Stops listening for the job's abort. */
  unlisten?: () => void;
  /** Runs once the job's input is no longer in use (worker replied or failed, or never sent). */
  release?: () => void;
}

interface Slot {
  handle: WorkerHandle;
  jobs: Map<number, Job>;
  /**
   * Reasons to keep the process alive for this worker: its jobs plus callers
   * awaiting its start-up (`warmUp`). The worker is ref'd while this is above
   * zero and unref'd at zero, so an idle pool never keeps a process alive.
   */
  holds: number;
  known: Set<number>;
  /** The worker has imported its codec modules and takes jobs. */
  ready: boolean;
  /** Settles when the worker is ready or has failed. */
  started: Promise<void>;
  markStarted: () => void;
}

/** A job waiting for room (see `WorkerPool.#whenRoom`). */
interface OverflowJob {
  /** Starts the job: in a worker (`true`) or on this thread. */
  run(toWorker: boolean): void;
  /** Drops the job's abort listener (once it runs). */
  detach(): void;
}

/** The most workers a pool starts (each is a thread with its own heap). */
const MAX_WORKERS = 1024;

/** Pipelines a worker keeps built; past this, the least recently used is dropped on both sides. */
const MAX_PIPELINES_PER_WORKER = 256;

/**
 * How long an aborted job that writes into the caller's memory may keep its
 * worker busy: past it, the worker is stopped (and replaced), so that nothing
 * writes there once the operation has rejected.
 */
const ABORT_GRACE_MS = 1000;

/** Workers that die before they are ready; after this many, no more are started. */
const MAX_START_FAILURES = 3;

interface PipelineEntry {
  readonly id: number;
  readonly desc: PipelineDesc;
  /** Workers cannot build it (e.g. a codec module they do not import). */
  local: boolean;
  readonly pays: boolean;
}

/** Codecs cheap enough that a round trip to a worker never pays. */
const CHEAP_BYTES_CODECS = new Set(["crc32c"]);

/** A pool of codec workers. Pass it as `{ workers: pool }` or set `ZarrArray.defaultWorkers`. */
export class WorkerPool implements ChunkCodecWorkers {
  readonly size: number;
  /** The young generation workers start with, in MiB (`undefined`: V8's default); see `youngGenerationMb`. */
  readonly youngGenerationMb: number | undefined;
  readonly #modules: string[];
  readonly #minChunkBytes: number;
  readonly #decode: boolean;
  readonly #encode: boolean;
  readonly #workerUrl: URL;
  readonly #perWorker: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  /** Jobs no worker had room for (see `#whenRoom`): `true` sends one to a worker, `false` runs it here. */
  readonly #overflow: OverflowJob[] = [];
  #turnScheduled = false;
  /** The jobs to tell when a signal aborts (see `#onAbort`). */
  readonly #abortListeners = new WeakMap<AbortSignal, Set<() => void>>();
  readonly #pipelines = new WeakMap<CodecPipeline, PipelineEntry>();
  readonly #staging = sharedMemoryUsable() ? new StagingBuffers() : undefined;
  /** Decode buffers of jobs that fall back to the calling thread. */
  readonly #localBuffers = new DecodeBuffers();
  #startFailures = 0;
  #nextJob = 1;
  #nextPipeline = 1;
  #closed = false;

  constructor(options: WorkerPoolOptions = {}) {
    for (const key of ["size", "perWorker", "minChunkBytes", "youngGenerationMb"] as const) {
      const value = options[key];
      if (value !== undefined && !(typeof value === "number" && value >= 0 && value < Infinity)) {
        throw new ValueError(
          `WorkerPool: ${key} must be a finite number ≥ 0, got ${String(value)}`,
        );
      }
    }
    if (options.size !== undefined && options.size > MAX_WORKERS) {
      throw new ValueError(
        `WorkerPool: size must be at most ${MAX_WORKERS} workers, got ${options.size}`,
      );
    }
    this.size = Math.max(1, Math.floor(options.size ?? Math.max(1, hardwareConcurrency() - 1)));
    const extra = (options.modules ?? []).map(String);
    const defaults = options.modules === undefined || options.defaultModules !== false;
    this.#modules = [...(defaults ? DEFAULT_MODULES : []), ...extra];
    this.#minChunkBytes = options.minChunkBytes ?? DEFAULT_MIN_CHUNK_BYTES;
    this.#decode = options.decode ?? hardwareConcurrency() >= 2;
    this.#encode = options.encode ?? true;
    this.#workerUrl = options.workerUrl ?? new URL("./worker.js", import.meta.url);
    const builtinOnly = extra.length === 0 && options.workerUrl === undefined;
    this.youngGenerationMb =
      options.youngGenerationMb ?? (builtinOnly ? BUILTIN_YOUNG_GENERATION_MB : undefined);
    this.#perWorker = Math.max(1, Math.floor(options.perWorker ?? 2));
  }

  /** Jobs waiting for a worker (or for the calling thread) plus jobs running in workers. */
  get pending(): number {
    let n = this.#queue.length + this.#overflow.length;
    for (const s of this.#slots) n += s.jobs.size;
    return n;
  }

  decode(
    pipeline: CodecPipeline,
    bytes: Uint8Array,
    context: Context,
    options?: CodecOptions,
  ): Promise<NDArray> | undefined {
    if (!this.#decode) return undefined;
    // Variable-size chunks decode here: their decodes share this thread's
    // in-flight budget (core's `maxBytesInFlight`), which a worker's own
    // budget would multiply, and their values would be cloned back anyway.
    if (pipeline.spec.dataType.itemSize === null) return undefined;
    const entry = this.#entry(pipeline, context);
    if (!entry.pays || entry.local || !this.#usable()) return undefined;
    const local = () => pipeline.decode(bytes, options);
    return this.#whenRoom(options, local, () => {
      const { input, transfer, release } = this.#stage(bytes);
      return this.#submit(entry, "decode", input, transfer, options, local, release).then(
        (reply): NDArray => ({
          data: reply.output as NDArray["data"],
          shape: pipeline.spec.shape,
          stride: reply.stride ?? [],
          dataType: pipeline.spec.dataType,
        }),
      );
    });
  }

  /**
   * Decodes a chunk in a worker and places its selected elements in
   * `target.out`: the worker writes them itself when `target.out` is a typed
   * array over a `SharedArrayBuffer` (e.g. a caller's `out`); otherwise it
   * decodes into reused shared scratch memory and this thread copies from it.
   * Declines small partial decodes (see `chunkByteSpan`), outputs that are not
   * typed arrays, and everything when shared memory is unavailable.
   */
  decodeTo(
    pipeline: CodecPipeline,
    bytes: Uint8Array,
    context: Context,
    target: ChunkTarget,
    options?: CodecOptions,
  ): Promise<void> | undefined {
    const out = target.out;
    if (!this.#decode || !ArrayBuffer.isView(out)) return undefined;
    const staging = this.#staging;
    if (!isShared(out) && staging === undefined) return undefined; // core falls back to `decode`
    const entry = this.#entry(pipeline, context);
    if (!entry.pays || entry.local) return undefined;
    // A small part of a chunk decodes in a block or two: cheaper here than a round trip.
    if (chunkByteSpan(pipeline, target.chunkSel) !== undefined || !this.#usable()) return undefined;
    const local = () => decodeChunkTo(pipeline, bytes, target, this.#localBuffers, options);
    return this.#whenRoom(options, local, () =>
      this.#decodeToWorker(entry, pipeline, bytes, target, options, local),
    );
  }

  /** `decodeTo` once a worker has room. */
  #decodeToWorker(
    entry: PipelineEntry,
    pipeline: CodecPipeline,
    bytes: Uint8Array,
    target: ChunkTarget,
    options: CodecOptions | undefined,
    local: () => Promise<void>,
  ): Promise<void> {
    const out = target.out as Extract<NDArray["data"], ArrayBufferView>;
    const staging = this.#staging;
    const staged = this.#stage(bytes);
    if (isShared(out) || staging === undefined) {
      return this.#submit(
        entry,
        "decode-to",
        { bytes: staged.input, target },
        staged.transfer,
        options,
        local,
        staged.release,
        true,
      ).then(() => undefined);
    }
    // The worker decodes into shared scratch memory; this thread copies it into place.
    const { shape, dataType } = pipeline.spec;
    let slots = dataType.width;
    for (const s of shape) slots *= s;
    const scratch = staging.take(slots * out.BYTES_PER_ELEMENT);
    // Reused only once both the worker and the copy below are done with it (never after an
    // abort or error: the worker may still be writing, so the buffer is left to the GC).
    let workerDone = false;
    let copied = false;
    const giveBack = () => {
      if (workerDone && copied) staging.give(scratch);
    };
    return this.#submit(
      entry,
      "decode-to",
      { bytes: staged.input, scratch },
      staged.transfer,
      options,
      local,
      () => {
        staged.release?.();
        workerDone = true;
        giveBack();
      },
    ).then((reply) => {
      if (reply.output !== "scratch") return; // decoded here (the workers lacked a codec)
      const Typed = out.constructor as new (
        buffer: ArrayBufferLike,
        offset: number,
        length: number,
      ) => NDArray["data"];
      const data = new Typed(scratch.buffer, 0, slots);
      try {
        copyChunk({ data, shape, stride: reply.stride ?? [], dataType }, pipeline, target);
      } finally {
        copied = true;
        giveBack();
      }
    });
  }

  encode(
    pipeline: CodecPipeline,
    chunk: NDArray,
    context: Context,
    options?: CodecOptions & { transfer?: boolean },
  ): Promise<Uint8Array> | undefined {
    if (!this.#encode) return undefined;
    const entry = this.#entry(pipeline, context);
    if (!entry.pays || entry.local || !this.#usable()) return undefined;
    return this.#whenRoom(
      options,
      () => pipeline.encode(chunk, options),
      () => this.#encodeInWorker(entry, pipeline, chunk, options),
    );
  }

  /** `encode` once a worker has room. */
  #encodeInWorker(
    entry: PipelineEntry,
    pipeline: CodecPipeline,
    chunk: NDArray,
    options: (CodecOptions & { transfer?: boolean }) | undefined,
  ): Promise<Uint8Array> {
    const data = chunk.data;
    if (this.#staging !== undefined && ArrayBuffer.isView(data)) {
      // Through reused shared memory: the caller keeps its buffer (arrays reuse it for
      // the next chunk) and no fresh memory is touched on either side.
      const staged = this.#stage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      const input: EncodeInput = { staged: staged.input, slots: data.length };
      return this.#submit(
        entry,
        "encode",
        input,
        [],
        options,
        () => pipeline.encode(chunk, options),
        staged.release,
      ).then((reply) => reply.output as Uint8Array);
    }
    // Without ownership, typed data is copied (structured clone), never detached.
    const transfer = options?.transfer ? transferable(data) : [];
    return this.#submit(entry, "encode", data, transfer, options, (back) =>
      pipeline.encode({ ...chunk, data: back as NDArray["data"] }, options),
    ).then((reply) => reply.output as Uint8Array);
  }

  /**
   * Stops every worker; queued and running jobs fail with a `CodecError`.
   * Resolves once every worker has exited (awaiting it is optional: the
   * workers are stopped either way).
   */
  close(): Promise<void> {
    this.#closed = true;
    const error = () => new CodecError("the worker pool was closed");
    for (const job of this.#queue.splice(0)) {
      this.#release(job);
      this.#settle(job, () => job.reject(error()));
    }
    const stopped: Promise<void>[] = [];
    for (const slot of this.#slots.splice(0)) {
      const jobs = [...slot.jobs.values()];
      slot.jobs.clear();
      slot.markStarted();
      const fail = (job: Job) => {
        this.#release(job);
        this.#settle(job, () => job.reject(error()));
      };
      // A worker writing into the caller's memory fails its job once it has stopped.
      stopped.push(
        slot.handle.terminate().then(() => {
          for (const job of jobs) if (job.writesCaller) fail(job);
        }),
      );
      for (const job of jobs) if (!job.writesCaller) fail(job);
    }
    return Promise.all(stopped).then(() => undefined);
  }

  /** One more reason to keep `slot`'s worker (and so the process) alive. */
  #hold(slot: Slot): void {
    if (slot.holds++ === 0) slot.handle.ref();
  }

  /** One reason fewer; at none the worker no longer keeps the process alive. */
  #letGo(slot: Slot): void {
    if (slot.holds > 0 && --slot.holds === 0) slot.handle.unref();
  }

  #entry(pipeline: CodecPipeline, context: Context): PipelineEntry {
    let entry = this.#pipelines.get(pipeline);
    if (!entry) {
      const spec = pipeline.spec;
      let elements = 1;
      for (const s of spec.shape) elements *= s;
      const decodedBytes = elements * (spec.dataType.itemSize ?? 8);
      const heavy =
        pipeline.bytesToBytes.some((c) => !CHEAP_BYTES_CODECS.has(c.name) && !c.runsOffThread) ||
        pipeline.arrayToBytes.name === "sharding_indexed";
      entry = {
        id: this.#nextPipeline++,
        desc: {
          codecs: pipeline.toJSON(),
          shape: [...spec.shape],
          dataType: spec.dataType.toJSON(),
          fillValue: spec.dataType.fillValueToJSON(spec.fillValue),
          format: context.format,
          // The pipeline's own path, so that messages match the calling thread's.
          path: pipeline.path,
        },
        local: false,
        pays: heavy && decodedBytes >= this.#minChunkBytes,
      };
      this.#pipelines.set(pipeline, entry);
    }
    return entry;
  }

  /**
   * A worker's copy of encoded bytes (a store's buffer must never be
   * detached): reused shared memory where available (no fresh pages per
   * chunk), else a transferred copy.
   */
  #stage(bytes: Uint8Array): {
    input: Uint8Array;
    transfer: Transferable[];
    release?: () => void;
  } {
    if (this.#staging) {
      const staged = this.#staging.take(bytes.length);
      staged.set(bytes);
      return { input: staged, transfer: [], release: () => this.#staging?.give(staged) };
    }
    // `new Uint8Array(n)` + `set`: a Node Buffer's `slice` would be a view of pooled memory.
    const input = new Uint8Array(bytes.length);
    input.set(bytes);
    return { input, transfer: [input.buffer] };
  }

  /**
   * Starts the workers (they are spawned on first use) and resolves once each
   * has imported its codec modules and takes jobs (or has failed to start).
   * Until then the calling thread runs the jobs, so a one-off read never
   * waits for workers to start; applications that know
   * they will decode a lot can call this early.
   */
  async warmUp(): Promise<void> {
    this.#warm();
    // While awaited, a starting worker keeps the process alive (it is unref'd
    // otherwise, and a top-level `await pool.warmUp()` would end the process).
    await Promise.all(
      this.#slots.map((slot) => {
        if (slot.ready) return slot.started;
        this.#hold(slot);
        return slot.started.finally(() => this.#letGo(slot));
      }),
    );
  }

  /**
   * The pool has (or is starting) workers. Starts missing workers in the
   * background, on the first job that would go to one (so reads of chunks too
   * small to offload never pay for starting them). Without any (closed, or they keep failing to start), jobs are
   * declined and the caller runs them itself.
   */
  #usable(): boolean {
    this.#warm();
    return this.#slots.length > 0;
  }

  /** A ready worker has room for a job now (fewer than `perWorker` jobs). */
  #hasRoom(): boolean {
    if (this.#queue.length > 0) return false;
    for (const s of this.#slots) if (s.ready && s.jobs.size < this.#perWorker) return true;
    return false;
  }

  /**
   * Sends a job to a worker now if one has room; otherwise the job waits in
   * the overflow, which the calling thread works through one job per turn of
   * the event loop while workers take what they free room for. Running the
   * overflow at once instead (declining it) kept the calling thread decoding
   * a whole batch of chunks whose reads had completed together, while the
   * workers' replies, and so their next jobs, waited behind it: a worker sat
   * idle most of a zstd read (bench/RESULTS.md).
   */
  #whenRoom<T>(
    options: CodecOptions | undefined,
    local: () => Promise<T>,
    inWorker: () => Promise<T>,
  ): Promise<T> {
    const signal = options?.signal;
    // Settles as a rejected promise (never a synchronous throw), before any staging memory is taken.
    const start = (toWorker: boolean): Promise<T> => {
      try {
        throwIfAborted(signal);
        return toWorker && !this.#closed ? inWorker() : local();
      } catch (error) {
        return Promise.reject(error);
      }
    };
    if (this.#overflow.length === 0 && this.#hasRoom()) return start(true);
    return new Promise<T>((resolve, reject) => {
      // An aborted job leaves the overflow at once, wherever it stands in it.
      const onAbort = () => {
        const i = this.#overflow.indexOf(job);
        if (i >= 0) this.#overflow.splice(i, 1);
        start(false).then(resolve, reject); // rejects: the signal is aborted
      };
      const job: OverflowJob = {
        run: (toWorker) => {
          job.detach();
          start(toWorker).then(resolve, reject);
        },
        detach: () => unlisten?.(),
      };
      const unlisten = signal ? this.#onAbort(signal, onAbort) : undefined;
      this.#overflow.push(job);
      this.#scheduleTurn();
    });
  }

  #scheduleTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    nextTurn(() => this.#turn());
  }

  /** One turn of the overflow: workers take what they have room for, this thread runs one job. */
  #turn(): void {
    this.#turnScheduled = false;
    this.#drainOverflow();
    this.#overflow.shift()?.run(false);
    if (this.#overflow.length > 0) this.#scheduleTurn();
  }

  /** Hands waiting jobs to workers with room. */
  #drainOverflow(): void {
    while (this.#overflow.length > 0 && !this.#closed && this.#hasRoom()) {
      this.#overflow.shift()!.run(true);
    }
  }

  /** Spawns workers up to `size` (unless closed, or they keep failing to start). */
  #warm(): void {
    while (
      !this.#closed &&
      this.#slots.length < this.size &&
      this.#startFailures < MAX_START_FAILURES
    ) {
      this.#spawn();
    }
  }

  #submit(
    entry: PipelineEntry,
    op: Job["op"],
    input: unknown,
    transfer: Transferable[],
    options: CodecOptions | undefined,
    local: (input: unknown) => Promise<unknown>,
    release?: () => void,
    writesCaller = false,
  ): Promise<Extract<Reply, { type: "result" }>> {
    const signal = options?.signal;
    throwIfAborted(signal, entry.desc.path);
    if (this.#closed) return Promise.reject(new CodecError("the worker pool was closed"));
    return new Promise((resolve, reject) => {
      const runLocal = (back: unknown) =>
        local(back ?? input).then(
          (output) =>
            resolve(
              op === "decode"
                ? {
                    type: "result",
                    id: job.id,
                    output: (output as NDArray).data,
                    stride: (output as NDArray).stride,
                  }
                : { type: "result", id: job.id, output },
            ),
          reject,
        );
      const job: Job = {
        id: this.#nextJob++,
        pipelineId: entry.id,
        desc: entry.desc,
        op,
        input,
        transfer,
        signal,
        limits: { ...getDecodeLimits(), ...options?.decodeLimits },
        path: entry.desc.path,
        resolve,
        reject,
        fallback: (back: unknown) => {
          entry.local = true;
          runLocal(back);
        },
        runHere: () => runLocal(undefined),
        writesCaller,
        settled: false,
        release,
      };
      if (signal) {
        job.unlisten = this.#onAbort(signal, () => {
          const i = this.#queue.indexOf(job);
          if (i >= 0) {
            this.#queue.splice(i, 1);
            this.#release(job);
          } else if (job.writesCaller && this.#slotOf(job) !== undefined) {
            this.#abortInPlace(job);
            return;
          }
          this.#settle(job, () => this.#rejectAborted(job));
        });
      }
      this.#queue.push(job);
      this.#pump();
    });
  }

  /**
   * Calls `fn` when `signal` aborts; returns a function that stops it. One
   * listener per signal fans out to every job of it: a read of 16 chunks in
   * flight would otherwise add 16 listeners to one signal (Node warns past 10).
   */
  #onAbort(signal: AbortSignal, fn: () => void): () => void {
    let listeners = this.#abortListeners.get(signal);
    if (listeners === undefined) {
      const set = new Set<() => void>();
      listeners = set;
      this.#abortListeners.set(signal, set);
      signal.addEventListener(
        "abort",
        () => {
          this.#abortListeners.delete(signal);
          const fns = [...set];
          set.clear();
          for (const f of fns) f();
        },
        { once: true },
      );
    }
    const set = listeners;
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }

  /** Rejects `job` with its signal's abort error. */
  #rejectAborted(job: Job): void {
    try {
      throwIfAborted(job.signal, job.path);
    } catch (error) {
      job.reject(error);
    }
  }

  #slotOf(job: Job): Slot | undefined {
    return this.#slots.find((s) => s.jobs.get(job.id) === job);
  }

  /**
   * Aborts a job whose worker is writing into the caller's memory: it settles
   * (as an abort) only once the worker has replied, so no write lands after
   * the operation has rejected. A worker still busy after
   * {@link ABORT_GRACE_MS} is stopped first (and replaced on the next job);
   * its other jobs then run on this thread.
   */
  #abortInPlace(job: Job): void {
    job.abortPending = setTimeout(() => {
      const slot = this.#slotOf(job);
      if (slot === undefined || job.settled) return;
      this.#slots.splice(this.#slots.indexOf(slot), 1);
      slot.markStarted();
      const jobs = [...slot.jobs.values()];
      slot.jobs.clear();
      void slot.handle.terminate().then(() => {
        this.#release(job);
        this.#settle(job, () => this.#rejectAborted(job));
        // The worker's other jobs run here, on later turns (not before the abort is seen).
        for (const other of jobs) {
          if (other === job) continue;
          this.#release(other);
          nextTurn(() => this.#settle(other, () => other.runHere()));
        }
        this.#pump();
        this.#drainOverflow();
      });
    }, ABORT_GRACE_MS);
    (job.abortPending as { unref?: () => void }).unref?.();
  }

  /** Gives back the job's input memory (once). */
  #release(job: Job): void {
    const release = job.release;
    job.release = undefined;
    release?.();
  }

  /** Runs `fn` once per job (results that arrive after an abort are dropped). */
  #settle(job: Job, fn: () => void): void {
    if (job.settled) return;
    job.settled = true;
    job.unlisten?.();
    fn();
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const slot = this.#freeSlot();
      if (!slot) return;
      const job = this.#queue.shift()!;
      const request: Request = {
        type: "task",
        id: job.id,
        op: job.op,
        pipeline: job.pipelineId,
        desc: slot.known.has(job.pipelineId) ? undefined : job.desc,
        drop: this.#remember(slot, job.pipelineId),
        input: job.input,
        limits: job.limits,
      };
      slot.jobs.set(job.id, job);
      this.#hold(slot);
      try {
        slot.handle.post(request, job.transfer);
      } catch (error) {
        slot.known.delete(job.pipelineId); // its description never arrived
        slot.jobs.delete(job.id);
        this.#letGo(slot);
        this.#release(job);
        this.#settle(job, () =>
          job.reject(
            new CodecError(`${job.path}: cannot send a chunk to a worker`, {
              cause: error,
              path: job.path,
            }),
          ),
        );
      }
    }
  }

  /**
   * Notes that `slot`'s worker has pipeline `id` built, as its most recently
   * used; returns the pipelines it must drop to keep at most
   * {@link MAX_PIPELINES_PER_WORKER} (the least recently used), so that a
   * process opening arrays without end does not grow its workers' memory.
   * The worker drops them before it looks up the task's pipeline, and this
   * thread describes a dropped pipeline again the next time it sends one.
   */
  #remember(slot: Slot, id: number): number[] | undefined {
    slot.known.delete(id);
    slot.known.add(id);
    const drop: number[] = [];
    for (const oldest of slot.known) {
      if (slot.known.size <= MAX_PIPELINES_PER_WORKER) break;
      slot.known.delete(oldest);
      drop.push(oldest);
    }
    return drop.length > 0 ? drop : undefined;
  }

  /** The ready worker with the fewest jobs, if it has room for one more. */
  #freeSlot(): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.#slots) {
      if (s.ready && (!best || s.jobs.size < best.jobs.size)) best = s;
    }
    return best && best.jobs.size < this.#perWorker ? best : undefined;
  }

  #spawn(): Slot {
    let markStarted = () => {};
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const slot: Slot = {
      handle: undefined as unknown as WorkerHandle,
      jobs: new Map(),
      holds: 0,
      known: new Set(),
      ready: false,
      started,
      markStarted,
    };
    slot.handle = spawnWorker(
      this.#workerUrl,
      {
        message: (data) => this.#onReply(slot, data as Reply),
        failed: (error) => this.#onFailed(slot, error),
      },
      { youngGenerationMb: this.youngGenerationMb },
    );
    const init: Request = { type: "init", modules: this.#modules };
    slot.handle.post(init, []);
    slot.handle.unref();
    this.#slots.push(slot);
    return slot;
  }

  #onReply(slot: Slot, reply: Reply): void {
    if (reply.type === "ready") {
      slot.ready = true;
      slot.markStarted();
      this.#pump();
      this.#drainOverflow();
      return;
    }
    const job = slot.jobs.get(reply.id);
    if (!job) return;
    slot.jobs.delete(reply.id);
    this.#letGo(slot);
    if (job.abortPending !== undefined) {
      // Aborted while the worker wrote into the caller's memory: it is done now.
      clearTimeout(job.abortPending);
      this.#release(job);
      this.#settle(job, () => this.#rejectAborted(job));
    } else if (reply.type === "result") {
      this.#release(job);
      this.#settle(job, () => job.resolve(reply));
    } else if (reply.error.stage === "setup") {
      // The local run reads the caller's own bytes, not the staged copy.
      this.#release(job);
      this.#settle(job, () => job.fallback(reply.input));
    } else {
      this.#release(job);
      this.#settle(job, () => job.reject(reviveError(reply.error)));
    }
    this.#pump();
    this.#drainOverflow();
  }

  #onFailed(slot: Slot, error: Error): void {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    if (!slot.ready) this.#startFailures++;
    slot.markStarted();
    for (const job of slot.jobs.values()) {
      this.#release(job);
      this.#settle(job, () =>
        job.reject(
          new CodecError(`${job.path}: a codec worker failed: ${error.message}`, {
            cause: error,
            path: job.path,
          }),
        ),
      );
    }
    slot.jobs.clear();
    this.#pump();
  }
}
