/**
 * The worker side of the pool: imports the register modules it is told about
 * (so every registered codec exists here too), rebuilds codec pipelines from
 * their metadata once per array, and runs decode/encode jobs.
 *
 * @module
 */
import { type DataArray, NotRegisteredError, ZarrError } from "@zarr/core";
import { type CodecOptions, CodecPipeline, DecodeBuffers, decodeChunkTo } from "@zarr/core/codec";
import { cStrides, resolveDataType } from "@zarr/core/internal";
import { workerPort } from "#platform";
import type {
  DecodeToInput,
  EncodeInput,
  PipelineDesc,
  Reply,
  Request,
  WireError,
} from "./protocol.js";
import { isShared } from "./staging.js";
import { postTransferring, transferable } from "./transfer.js";

const port = workerPort();
let ready: Promise<void> = Promise.resolve();
const pipelines = new Map<number, Promise<CodecPipeline>>();
/** This worker's reused decode buffers (`decode-to` jobs). */
const buffers = new DecodeBuffers();

function wire(error: unknown, stage: WireError["stage"]): WireError {
  if (error instanceof NotRegisteredError) {
    return {
      name: error.name,
      message: error.message,
      path: error.path,
      kind: error.kind,
      extension: error.extension,
      stage,
    };
  }
  if (error instanceof ZarrError) {
    return { name: error.name, message: error.message, path: error.path, stage };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, stage };
  return { name: "Error", message: String(error), stage };
}

async function build(desc: PipelineDesc): Promise<CodecPipeline> {
  const dataType = resolveDataType(desc.dataType, desc.path);
  const fillValue = dataType.parseFillValue(desc.fillValue, desc.path);
  return CodecPipeline.create(
    desc.codecs,
    { shape: desc.shape, dataType, fillValue },
    desc.path,
    desc.format,
  );
}

/**
 * Decodes a chunk so that its in-memory bytes start at `scratch[0]` (decoding
 * into it directly when the codecs can); returns the chunk's strides.
 */
async function decodeToScratch(
  pipeline: CodecPipeline,
  bytes: Uint8Array,
  scratch: Uint8Array,
  options: CodecOptions,
): Promise<readonly number[]> {
  const size = pipeline.decodeIntoSize;
  const chunk =
    size !== undefined && size <= scratch.length
      ? await pipeline.decodeInto(bytes, scratch.subarray(0, size), options)
      : await pipeline.decode(bytes, options);
  const data = chunk.data;
  if (!ArrayBuffer.isView(data)) throw new Error("decoded chunk is not a typed array");
  if (data.buffer !== scratch.buffer || data.byteOffset !== scratch.byteOffset) {
    if (data.byteLength > scratch.length) {
      throw new Error(`decoded chunk of ${data.byteLength} bytes exceeds ${scratch.length}`);
    }
    scratch.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  return chunk.stride;
}

/** An encode task's chunk data: as sent, or a typed view of its staged bytes. */
function chunkData(pipeline: CodecPipeline, input: unknown): DataArray {
  if (typeof input !== "object" || input === null || !("staged" in input)) {
    return input as DataArray;
  }
  const { staged, slots } = input as EncodeInput;
  const Typed = pipeline.spec.dataType.allocate(0).constructor as new (
    buffer: ArrayBufferLike,
    offset: number,
    length: number,
  ) => DataArray;
  return new Typed(staged.buffer, staged.byteOffset, slots);
}

/**
 * The task's pipeline, looked up (or built, once the codec modules are
 * imported) when its message arrives: the pipelines the task tells this
 * worker to drop are dropped first, in message order, so the lookup sees
 * exactly what the pool believes this worker holds.
 */
function pipelineOf(task: Extract<Request, { type: "task" }>): Promise<CodecPipeline> {
  if (task.drop) for (const id of task.drop) pipelines.delete(id);
  let p = pipelines.get(task.pipeline);
  if (!p) {
    const desc = task.desc;
    if (!desc) return Promise.reject(new Error(`pipeline ${task.pipeline} was never described`));
    p = ready.then(() => build(desc));
    pipelines.set(task.pipeline, p);
  }
  return p;
}

async function run(
  task: Extract<Request, { type: "task" }>,
  built: Promise<CodecPipeline>,
): Promise<void> {
  let pipeline: CodecPipeline;
  try {
    pipeline = await built;
  } catch (error) {
    // Hand the (possibly transferred) input back: the caller runs the job itself.
    const reply: Reply = {
      type: "error",
      id: task.id,
      error: wire(error, "setup"),
      input: task.input,
    };
    postTransferring(port.post, reply, transferable(task.input));
    return;
  }
  const options: CodecOptions = task.limits ? { decodeLimits: task.limits } : {};
  try {
    if (task.op === "decode-to") {
      const { bytes, target, scratch } = task.input as DecodeToInput;
      if (target) {
        await decodeChunkTo(pipeline, bytes, target, buffers, options);
        port.post({ type: "result", id: task.id, output: undefined } satisfies Reply, []);
      } else {
        const stride = await decodeToScratch(pipeline, bytes, scratch!, options);
        port.post({ type: "result", id: task.id, output: "scratch", stride } satisfies Reply, []);
      }
    } else if (task.op === "decode") {
      const out = await pipeline.decode(task.input as Uint8Array, options);
      // Never hand back a view of staging memory: the pool reuses it.
      // (`slice` of any typed array copies into a new, unshared ArrayBuffer.)
      const data = isShared(out.data) ? (out.data as Uint8Array).slice() : out.data;
      const reply: Reply = { type: "result", id: task.id, output: data, stride: out.stride };
      postTransferring(port.post, reply, transferable(data));
    } else {
      const spec = pipeline.spec;
      const bytes = await pipeline.encode({
        data: chunkData(pipeline, task.input),
        shape: spec.shape,
        stride: cStrides(spec.shape),
        dataType: spec.dataType,
      });
      // Never hand back a view of staging memory: the pool reuses it.
      const output = isShared(bytes) ? bytes.slice() : bytes;
      const reply: Reply = { type: "result", id: task.id, output };
      postTransferring(port.post, reply, transferable(output));
    }
  } catch (error) {
    const reply: Reply = { type: "error", id: task.id, error: wire(error, "run") };
    port.post(reply, []);
  }
}

port.listen((data) => {
  const message = data as Request;
  if (message.type === "init") {
    // A module that is not installed is skipped: pipelines needing it fall back to the caller.
    ready = Promise.all(message.modules.map((m) => import(m).catch(() => undefined))).then(() =>
      port.post({ type: "ready" } satisfies Reply, []),
    );
  } else if (message.type === "task") {
    void run(message, pipelineOf(message));
  }
});
