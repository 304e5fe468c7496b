/**
 * Messages between a pool and its workers (structured-clone data only).
 *
 * @module
 */
import type { DecodeLimits, JsonObject, JsonValue } from "@zarr/core";
import type { ChunkTarget } from "@zarr/core/codec";

/** Everything a worker needs to rebuild one array's codec pipeline. */
export interface PipelineDesc {
  readonly codecs: JsonObject[];
  readonly shape: readonly number[];
  readonly dataType: JsonValue;
  readonly fillValue: JsonValue;
  readonly format: 2 | 3;
  readonly path: string;
}

/** Pool -> worker. */
export type Request =
  | { readonly type: "init"; readonly modules: readonly string[] }
  | {
      readonly type: "task";
      readonly id: number;
      /** `decode-to`: decode into `input.target.out` (shared memory) and reply without data. */
      readonly op: "decode" | "decode-to" | "encode";
      readonly pipeline: number;
      /** Sent the first time a worker sees `pipeline` (or after it was told to drop it). */
      readonly desc?: PipelineDesc;
      /** Pipelines to forget before this task's is looked up (least recently used first). */
      readonly drop?: readonly number[];
      /**
       * decode: encoded bytes; decode-to: {@link DecodeToInput}; encode: the
       * chunk's flat data, or an {@link EncodeInput}.
       */
      readonly input: unknown;
      /** Decode limits of the caller's thread (the worker's own defaults are not the caller's). */
      readonly limits?: DecodeLimits;
    };

/**
 * Input of a `decode-to` task: decode into `target.out` (shared memory) in
 * place, or into `scratch` (shared memory the caller copies from).
 */
export interface DecodeToInput {
  /** Encoded bytes (a view of shared staging memory). */
  readonly bytes: Uint8Array;
  readonly target?: ChunkTarget;
  /** Room for the decoded chunk's in-memory bytes; the reply's `output` is then `"scratch"`. */
  readonly scratch?: Uint8Array;
}

/** Input of an `encode` task whose chunk data was staged in shared memory. */
export interface EncodeInput {
  /** The chunk's in-memory bytes (a view of shared staging memory at offset 0). */
  readonly staged: Uint8Array;
  /** Its length in slots of the data type's typed array. */
  readonly slots: number;
}

/** An error as it crosses the thread boundary. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly path?: string;
  readonly kind?: string;
  readonly extension?: string;
  /** `setup`: the worker could not build the pipeline (the pool then runs it locally). */
  readonly stage: "setup" | "run";
}

/** Worker -> pool. `ready`: the codec modules are imported; jobs are welcome. */
export type Reply =
  | { readonly type: "ready" }
  | {
      readonly type: "result";
      readonly id: number;
      readonly output: unknown;
      readonly stride?: readonly number[];
    }
  | {
      readonly type: "error";
      readonly id: number;
      readonly error: WireError;
      /** On a setup failure: the job's input, handed back so the caller can run it. */
      readonly input?: unknown;
    };
