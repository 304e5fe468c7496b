import {
  CodecError,
  getDecodeLimits
} from "@zarr/core";
import {
  chunkByteSpan,
  copyChunk,
  DecodeBuffers,
  decodeChunkTo
} from "@zarr/core/codec";
import { throwIfAborted } from "@zarr/core/store";
import { hardwareConcurrency, spawnWorker } from "#platform";
import { reviveError } from "../dist/errors.js";
import { isShared, StagingBuffers, sharedMemoryUsable } from "../dist/staging.js";
import { transferable } from "../dist/transfer.js";
const DEFAULT_MODULES = [
  "@zarr/codec-blosc/register",
  "@zarr/codec-gzip/register",
  "@zarr/codec-zstd/register",
  "@zarr/v2-compat/register"
];
const DEFAULT_MIN_CHUNK_BYTES = 64 * 1024;
const MAX_START_FAILURES = 3;
const CHEAP_BYTES_CODECS = /* @__PURE__ */ new Set(["crc32c"]);
class WorkerPool {
  size;
  #modules;
  #minChunkBytes;
  #decode;
  #encode;
  #workerUrl;
  #perWorker;
  #slots = [];
  #queue = [];
  #pipelines = /* @__PURE__ */ new WeakMap();
  #staging = sharedMemoryUsable() ? new StagingBuffers() : void 0;
  /** Decode buffers of jobs that fall back to the calling thread. */
  #localBuffers = new DecodeBuffers();
  #startFailures = 0;
  #nextJob = 1;
  #nextPipeline = 1;
  #closed = false;
  constructor(options = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? Math.max(1, hardwareConcurrency() - 1)));
    const extra = (options.modules ?? []).map(String);
    const defaults = options.modules === void 0 || options.defaultModules !== false;
    this.#modules = [...defaults ? DEFAULT_MODULES : [], ...extra];
    this.#minChunkBytes = options.minChunkBytes ?? DEFAULT_MIN_CHUNK_BYTES;
    this.#decode = options.decode ?? hardwareConcurrency() >= 2;
    this.#encode = options.encode ?? true;
    this.#workerUrl = options.workerUrl ?? new URL("../dist/worker.js", import.meta.url);
    this.#perWorker = Math.max(1, options.perWorker ?? 2);
  }
  /** Jobs waiting for a worker plus jobs running. */
  get pending() {
    let n = this.#queue.length;
    for (const s of this.#slots) n += s.jobs.size;
    return n;
  }
  decode(pipeline, bytes, context, options) {
    if (!this.#decode || !this.#hasRoom()) return void 0;
    if (pipeline.spec.dataType.itemSize === null) return void 0;
    const entry = this.#entry(pipeline, context);
    if (!entry.pays || entry.local) return void 0;
    const { input, transfer, release } = this.#stage(bytes);
    return this.#submit(
      entry,
      "decode",
      input,
      transfer,
      options,
      () => pipeline.decode(bytes, options),
      release
    ).then(
      (reply) => ({
        data: reply.output,
        shape: pipeline.spec.shape,
        stride: reply.stride ?? [],
        dataType: pipeline.spec.dataType
      })
    );
  }
  /**
   * Decodes a chunk in a worker and places its selected elements in
   * `target.out`: the worker writes them itself when `target.out` is a typed
   * array over a `SharedArrayBuffer` (e.g. a caller's `out`); otherwise it
   * decodes into reused shared scratch memory and this thread copies from it.
   * Declines small partial decodes (see `chunkByteSpan`), outputs that are not
   * typed arrays, and everything when shared memory is unavailable.
   */
  decodeTo(pipeline, bytes, context, target, options) {
    const out = target.out;
    if (!this.#decode || !ArrayBuffer.isView(out) || !this.#hasRoom()) return void 0;
    const staging = this.#staging;
    if (!isShared(out) && staging === void 0) return void 0;
    const entry = this.#entry(pipeline, context);
    if (!entry.pays || entry.local) return void 0;
    if (chunkByteSpan(pipeline, target.chunkSel) !== void 0) return void 0;
    const local = () => decodeChunkTo(pipeline, bytes, target, this.#localBuffers, options);
    const staged = this.#stage(bytes);
    if (isShared(out) || staging === void 0) {
      return this.#submit(
        entry,
        "decode-to",
        { bytes: staged.input, target },
        staged.transfer,
        options,
        local,
        staged.release
      ).then(() => void 0);
    }
    const { shape, dataType } = pipeline.spec;
    let slots = dataType.width;
    for (const s of shape) slots *= s;
    const scratch = staging.take(slots * out.BYTES_PER_ELEMENT);
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
      }
    ).then((reply) => {
      if (reply.output !== "scratch") return;
      const Typed = out.constructor;
      const data = new Typed(scratch.buffer, 0, slots);
      try {
        copyChunk({ data, shape, stride: reply.stride ?? [], dataType }, pipeline, target);
      } finally {
        copied = true;
        giveBack();
      }
    });
  }
  encode(pipeline, chunk, context, options) {
    if (!this.#encode || !this.#hasRoom()) return void 0;
    const entry = this.#entry(pipeline, context);
    if (!entry.pays || entry.local) return void 0;
    const data = chunk.data;
    if (this.#staging !== void 0 && ArrayBuffer.isView(data)) {
      const staged = this.#stage(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      const input = { staged: staged.input, slots: data.length };
      return this.#submit(
        entry,
        "encode",
        input,
        [],
        options,
        () => pipeline.encode(chunk, options),
        staged.release
      ).then((reply) => reply.output);
    }
    const transfer = options?.transfer ? transferable(data) : [];
    return this.#submit(
      entry,
      "encode",
      data,
      transfer,
      options,
      (back) => pipeline.encode({ ...chunk, data: back }, options)
    ).then((reply) => reply.output);
  }
  /**
   * Stops every worker; queued and running jobs fail with a `CodecError`.
   * Resolves once every worker has exited (awaiting it is optional: the
   * workers are stopped either way).
   */
  close() {
    this.#closed = true;
    const error = () => new CodecError("the worker pool was closed");
    for (const job of this.#queue.splice(0)) {
      this.#release(job);
      this.#settle(job, () => job.reject(error()));
    }
    const stopped = [];
    for (const slot of this.#slots.splice(0)) {
      stopped.push(slot.handle.terminate());
      slot.markStarted();
      for (const job of slot.jobs.values()) {
        this.#release(job);
        this.#settle(job, () => job.reject(error()));
      }
      slot.jobs.clear();
    }
    return Promise.all(stopped).then(() => void 0);
  }
  /** One more reason to keep `slot`'s worker (and so the process) alive. */
  #hold(slot) {
    if (slot.holds++ === 0) slot.handle.ref();
  }
  /** One reason fewer; at none the worker no longer keeps the process alive. */
  #letGo(slot) {
    if (slot.holds > 0 && --slot.holds === 0) slot.handle.unref();
  }
  #entry(pipeline, context) {
    let entry = this.#pipelines.get(pipeline);
    if (!entry) {
      const spec = pipeline.spec;
      let elements = 1;
      for (const s of spec.shape) elements *= s;
      const decodedBytes = elements * (spec.dataType.itemSize ?? 8);
      const heavy = pipeline.bytesToBytes.some((c) => !CHEAP_BYTES_CODECS.has(c.name) && !c.runsOffThread) || pipeline.arrayToBytes.name === "sharding_indexed";
      entry = {
        id: this.#nextPipeline++,
        desc: {
          codecs: pipeline.toJSON(),
          shape: [...spec.shape],
          dataType: spec.dataType.toJSON(),
          fillValue: spec.dataType.fillValueToJSON(spec.fillValue),
          format: context.format,
          // The pipeline's own path, so that messages match the calling thread's.
          path: pipeline.path
        },
        local: false,
        pays: heavy && decodedBytes >= this.#minChunkBytes
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
  #stage(bytes) {
    if (this.#staging) {
      const staged = this.#staging.take(bytes.length);
      staged.set(bytes);
      return { input: staged, transfer: [], release: () => this.#staging?.give(staged) };
    }
    const input = new Uint8Array(bytes.length);
    input.set(bytes);
    return { input, transfer: [input.buffer] };
  }
  /**
   * Starts the workers (they are spawned on first use) and resolves once each
   * has imported its codec modules and takes jobs (or has failed to start).
   * Until then the pool declines jobs and callers run them themselves, so a
   * one-off read never waits for workers to start; applications that know
   * they will decode a lot can call this early.
   */
  async warmUp() {
    this.#warm();
    await Promise.all(
      this.#slots.map((slot) => {
        if (slot.ready) return slot.started;
        this.#hold(slot);
        return slot.started.finally(() => this.#letGo(slot));
      })
    );
  }
  /**
   * A ready worker has room for a job now (fewer than `perWorker` jobs). When
   * none has, new jobs would only wait (for a busy worker, or one still
   * starting): the pool declines them and the caller runs them itself.
   * Starts missing workers in the background.
   */
  #hasRoom() {
    this.#warm();
    if (this.#queue.length > 0) return false;
    for (const s of this.#slots) if (s.ready && s.jobs.size < this.#perWorker) return true;
    return false;
  }
  /** Spawns workers up to `size` (unless closed, or they keep failing to start). */
  #warm() {
    while (!this.#closed && this.#slots.length < this.size && this.#startFailures < MAX_START_FAILURES) {
      this.#spawn();
    }
  }
  #submit(entry, op, input, transfer, options, local, release) {
    const signal = options?.signal;
    throwIfAborted(signal, entry.desc.path);
    if (this.#closed) return Promise.reject(new CodecError("the worker pool was closed"));
    return new Promise((resolve, reject) => {
      const job = {
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
        fallback: (back) => {
          entry.local = true;
          local(back ?? input).then(
            (output) => resolve(
              op === "decode" ? {
                type: "result",
                id: job.id,
                output: output.data,
                stride: output.stride
              } : { type: "result", id: job.id, output }
            ),
            reject
          );
        },
        settled: false,
        release
      };
      if (signal) {
        job.onAbort = () => {
          const i = this.#queue.indexOf(job);
          if (i >= 0) {
            this.#queue.splice(i, 1);
            this.#release(job);
          }
          this.#settle(job, () => {
            try {
              throwIfAborted(signal, job.path);
            } catch (error) {
              reject(error);
            }
          });
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.#queue.push(job);
      this.#pump();
    });
  }
  /** Gives back the job's input memory (once). */
  #release(job) {
    const release = job.release;
    job.release = void 0;
    release?.();
  }
  /** Runs `fn` once per job (results that arrive after an abort are dropped). */
  #settle(job, fn) {
    if (job.settled) return;
    job.settled = true;
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    fn();
  }
  #pump() {
    while (this.#queue.length > 0) {
      const slot = this.#freeSlot();
      if (!slot) return;
      const job = this.#queue.shift();
      const request = {
        type: "task",
        id: job.id,
        op: job.op,
        pipeline: job.pipelineId,
        desc: slot.known.has(job.pipelineId) ? void 0 : job.desc,
        input: job.input,
        limits: job.limits
      };
      slot.known.add(job.pipelineId);
      slot.jobs.set(job.id, job);
      this.#hold(slot);
      try {
        slot.handle.post(request, job.transfer);
      } catch (error) {
        slot.jobs.delete(job.id);
        this.#letGo(slot);
        this.#release(job);
        this.#settle(
          job,
          () => job.reject(
            new CodecError(`${job.path}: cannot send a chunk to a worker`, {
              cause: error,
              path: job.path
            })
          )
        );
      }
    }
  }
  /** The ready worker with the fewest jobs, if it has room for one more. */
  #freeSlot() {
    let best;
    for (const s of this.#slots) {
      if (s.ready && (!best || s.jobs.size < best.jobs.size)) best = s;
    }
    return best && best.jobs.size < this.#perWorker ? best : void 0;
  }
  #spawn() {
    let markStarted = () => {
    };
    const started = new Promise((resolve) => {
      markStarted = resolve;
    });
    const slot = {
      handle: void 0,
      jobs: /* @__PURE__ */ new Map(),
      holds: 0,
      known: /* @__PURE__ */ new Set(),
      ready: false,
      started,
      markStarted
    };
    slot.handle = spawnWorker(this.#workerUrl, {
      message: (data) => this.#onReply(slot, data),
      failed: (error) => this.#onFailed(slot, error)
    });
    const init = { type: "init", modules: this.#modules };
    slot.handle.post(init, []);
    slot.handle.unref();
    this.#slots.push(slot);
    return slot;
  }
  #onReply(slot, reply) {
    if (reply.type === "ready") {
      slot.ready = true;
      slot.markStarted();
      this.#pump();
      return;
    }
    const job = slot.jobs.get(reply.id);
    if (!job) return;
    slot.jobs.delete(reply.id);
    this.#letGo(slot);
    if (reply.type === "result") {
      this.#release(job);
      this.#settle(job, () => job.resolve(reply));
    } else if (reply.error.stage === "setup") {
      this.#release(job);
      this.#settle(job, () => job.fallback(reply.input));
    } else {
      this.#release(job);
      this.#settle(job, () => job.reject(reviveError(reply.error)));
    }
    this.#pump();
  }
  #onFailed(slot, error) {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    if (!slot.ready) this.#startFailures++;
    slot.markStarted();
    for (const job of slot.jobs.values()) {
      this.#release(job);
      this.#settle(
        job,
        () => job.reject(
          new CodecError(`${job.path}: a codec worker failed: ${error.message}`, {
            cause: error,
            path: job.path
          })
        )
      );
    }
    slot.jobs.clear();
    this.#pump();
  }
}
export {
  DEFAULT_MIN_CHUNK_BYTES,
  DEFAULT_MODULES,
  WorkerPool
};
