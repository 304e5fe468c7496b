/**
 * The error hierarchy of every `@zarr` package. Each error names the key, path or
 * field it concerns and the reason, so that one line is enough to act on.
 *
 * @module
 */

/** Options common to every {@link ZarrError}. */
export interface ZarrErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
  /** The store key, node path or metadata field the error concerns. */
  path?: string;
}

/**
 * The `name` of an error of class `cls`: `name` (written out, since minifiers rename
 * classes) for `cls` itself, the class's own name for subclasses users define.
 */
function nameFor(
  error: Error,
  cls: abstract new (...args: never[]) => Error,
  name: string,
): string {
  return error.constructor === cls ? name : error.constructor.name;
}

/**
 * Base class of every error thrown by `@zarr` packages: catch it to handle any
 * of them. `name` is the subclass name (kept through minification), `path` the
 * key, node path or field concerned, and `cause` the underlying error, if any.
 *
 * @example
 * ```ts
 * import { ZarrError, openArray } from "@zarr/core";
 * try {
 *   await openArray(store, "temps");
 * } catch (e) {
 *   if (e instanceof ZarrError) console.error(`${e.name} at ${e.path}: ${e.message}`);
 *   else throw e;
 * }
 * ```
 */
export class ZarrError extends Error {
  /** The store key, node path or metadata field the error concerns, when known. */
  readonly path: string | undefined;

  /**
   * Creates an error. Subclasses take the same arguments.
   *
   * @param message - What went wrong, naming the key, path or field concerned.
   * @param options - `cause` (the underlying error) and `path` (the key, node
   *   path or metadata field); both optional.
   */
  constructor(message: string, options: ZarrErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // Explicit names: minifiers rename classes (subclasses set theirs as fields).
    this.name = new.target === ZarrError ? "ZarrError" : new.target.name;
    this.path = options.path;
  }
}

/**
 * No array or group exists at the given path. Thrown by `open`, `openArray`,
 * `openGroup` and `Group#get`; `path` is the node path. (`exists` returns
 * `false` instead.)
 *
 * @example
 * ```ts
 * import { NodeNotFoundError, openArray } from "@zarr/core";
 * const array = await openArray(store, "temps").catch((e) => {
 *   if (e instanceof NodeNotFoundError) return undefined;
 *   throw e;
 * });
 * ```
 */
export class NodeNotFoundError extends ZarrError {
  override name = nameFor(this, NodeNotFoundError, "NodeNotFoundError");
}

/**
 * A node exists but is not of the expected kind, or already exists. Thrown by
 * `openArray` on a group and `openGroup` on an array, by `createArray` and
 * `createGroup` when a node is already there (unless `overwrite` is set) or an
 * ancestor is an array, and by `consolidate` on an array. `path` is the node path.
 *
 * @example
 * ```ts
 * import { ContainsNodeError, createGroup } from "@zarr/core";
 * try {
 *   await createGroup(store, "run1");
 * } catch (e) {
 *   if (!(e instanceof ContainsNodeError)) throw e; // already there: keep it
 * }
 * ```
 */
export class ContainsNodeError extends ZarrError {
  override name = nameFor(this, ContainsNodeError, "ContainsNodeError");
}

/**
 * A metadata document (`zarr.json`, or v2 `.zarray`/`.zgroup`/`.zattrs`) is
 * malformed or violates the specification, or creation options describe
 * invalid metadata. `path` is the document key or the offending field.
 *
 * @example
 * ```ts
 * import { MetadataError, open } from "@zarr/core";
 * try {
 *   await open(store, "broken");
 * } catch (e) {
 *   if (e instanceof MetadataError) console.error(`bad metadata at ${e.path}: ${e.message}`);
 *   else throw e;
 * }
 * ```
 */
export class MetadataError extends ZarrError {
  override name = nameFor(this, MetadataError, "MetadataError");
}

/**
 * Encoding or decoding a chunk failed: malformed or truncated data, a checksum
 * mismatch, a bad codec configuration, or a chunk larger than the decode
 * limits allow. `path` is the
 * chunk key when known; `cause` holds the underlying error.
 *
 * @example
 * ```ts
 * import { CodecError } from "@zarr/core";
 * try {
 *   await array.get(null);
 * } catch (e) {
 *   if (e instanceof CodecError) console.error(`damaged chunk ${e.path}: ${e.message}`);
 *   else throw e;
 * }
 * ```
 */
export class CodecError extends ZarrError {
  override name = nameFor(this, CodecError, "CodecError");
}

/**
 * A store operation failed (I/O error, permission, network). Missing keys are
 * not errors: reads of an absent key return `undefined`. `path` is the store
 * key when known; `cause` holds the underlying error.
 *
 * @example
 * ```ts
 * import { StoreError } from "@zarr/core";
 * try {
 *   await array.get(null);
 * } catch (e) {
 *   if (e instanceof StoreError) console.error(`cannot read ${e.path}: ${e.message}`);
 *   else throw e;
 * }
 * ```
 */
export class StoreError extends ZarrError {
  override name = nameFor(this, StoreError, "StoreError");
}

/**
 * A value (or a response body) is larger than the read accepts (`StoreOptions.maxBytes`).
 * Stores that stream throw it as soon as the bound is passed; core turns it into a
 * `CodecError` for chunks (a chunk larger than its codecs can produce is damaged).
 *
 * @example
 * ```ts
 * import { ValueTooLargeError } from "@zarr/core";
 * // store: a store that streams, e.g. an HTTP store
 * const bytes = await store.get("big", undefined, { maxBytes: 1 << 20 }).catch((e) => {
 *   if (e instanceof ValueTooLargeError) return undefined; // over 1 MiB
 *   throw e;
 * });
 * ```
 */
export class ValueTooLargeError extends StoreError {
  override name = nameFor(this, ValueTooLargeError, "ValueTooLargeError");
}

/**
 * A store key or node name is invalid (not a string, empty segment, `.`/`..`,
 * leading `/`, NUL, backslash). Thrown by stores, and by `Group` methods and
 * creation functions given such a name or path. `path` is the key, when it is
 * a string.
 *
 * @example
 * ```ts
 * import { InvalidKeyError } from "@zarr/core";
 * try {
 *   await group.get("../outside");
 * } catch (e) {
 *   if (e instanceof InvalidKeyError) console.error(e.message);
 *   else throw e;
 * }
 * ```
 */
export class InvalidKeyError extends StoreError {
  override name = nameFor(this, InvalidKeyError, "InvalidKeyError");
}

/**
 * A store was asked for an operation it does not support, e.g. writing to a
 * read-only store (one without `set`) or listing a store without `list`. The
 * message names the operation and the method the store lacks.
 *
 * @example
 * ```ts
 * import { StoreCapabilityError } from "@zarr/core";
 * try {
 *   await array.set(null, 0);
 * } catch (e) {
 *   if (e instanceof StoreCapabilityError) console.error("this store is read-only");
 *   else throw e;
 * }
 * ```
 */
export class StoreCapabilityError extends StoreError {
  override name = nameFor(this, StoreCapabilityError, "StoreCapabilityError");
}

/**
 * A selection is invalid for the array: an index out of bounds, more
 * selections than dimensions, more than one `ELLIPSIS`, a zero step, or a
 * non-integer index or step. Thrown by `get`, `set` and the chunk and coordinate
 * methods of `ZarrArray`.
 *
 * @example
 * ```ts
 * import { IndexError } from "@zarr/core";
 * try {
 *   await array.get([array.shape[0]]); // one past the end
 * } catch (e) {
 *   if (e instanceof IndexError) console.error(e.message);
 *   else throw e;
 * }
 * ```
 */
export class IndexError extends ZarrError {
  override name = nameFor(this, IndexError, "IndexError");
}

/**
 * A value does not fit where it is given: a `set` value whose shape or length
 * does not match the selection or whose type does not match the data type, a
 * result too large to allocate, or invalid extra metadata members.
 *
 * @example
 * ```ts
 * import { ValueError, slice } from "@zarr/core";
 * try {
 *   await array.set([slice(0, 10)], new Float32Array(5)); // 5 values for 10 elements
 * } catch (e) {
 *   if (e instanceof ValueError) console.error(e.message);
 *   else throw e;
 * }
 * ```
 */
export class ValueError extends ZarrError {
  override name = nameFor(this, ValueError, "ValueError");
}

/**
 * A feature of the data is valid Zarr but not supported by this implementation
 * (or by this platform, e.g. a big-endian host). Its subclass
 * {@link NotRegisteredError} means an extension that is not registered.
 *
 * @example
 * ```ts
 * import { UnsupportedError, openArray } from "@zarr/core";
 * try {
 *   await openArray(store, "temps");
 * } catch (e) {
 *   if (e instanceof UnsupportedError) console.error(`cannot read this array: ${e.message}`);
 *   else throw e;
 * }
 * ```
 */
export class UnsupportedError extends ZarrError {
  override name = nameFor(this, UnsupportedError, "UnsupportedError");
}

/**
 * An extension (codec, data type, chunk grid, chunk key encoding, store scheme)
 * is not registered. The message says which package to install and import;
 * `kind` and `extension` say which extension is missing.
 *
 * @example
 * ```ts
 * import { NotRegisteredError, openArray } from "@zarr/core";
 * try {
 *   await openArray(store, "compressed");
 * } catch (e) {
 *   if (e instanceof NotRegisteredError && e.kind === "codec") {
 *     console.error(`install and import the codec package for "${e.extension}"`);
 *   } else throw e;
 * }
 * ```
 */
export class NotRegisteredError extends UnsupportedError {
  override name = nameFor(this, NotRegisteredError, "NotRegisteredError");
  /** The extension point, e.g. `"codec"`. */
  readonly kind: string;
  /** The extension name, e.g. `"blosc"`. */
  readonly extension: string;

  /**
   * Creates the error; the message is `<kind> "<extension>" is not registered: <hint>`.
   *
   * @param kind - The extension point, e.g. `"codec"`, `"data type"`, `"store scheme"`.
   * @param extension - The extension name, e.g. `"blosc"`.
   * @param hint - What to do, e.g. which package to install and import.
   * @param options - `cause` and `path`, as for {@link ZarrError}.
   */
  constructor(kind: string, extension: string, hint: string, options: ZarrErrorOptions = {}) {
    super(`${kind} "${extension}" is not registered: ${hint}`, options);
    this.kind = kind;
    this.extension = extension;
  }
}

/**
 * The operation was cancelled through an `AbortSignal` (the `signal` option of
 * reads, writes and hierarchy calls). `cause` is the signal's `reason`.
 *
 * @example
 * ```ts
 * import { AbortError } from "@zarr/core";
 * const controller = new AbortController();
 * setTimeout(() => controller.abort(), 5_000);
 * try {
 *   await array.get(null, { signal: controller.signal });
 * } catch (e) {
 *   if (e instanceof AbortError) console.log("read cancelled");
 *   else throw e;
 * }
 * ```
 */
export class AbortError extends ZarrError {
  override name = nameFor(this, AbortError, "AbortError");
}

/** Throws an {@link AbortError} if `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, path?: string): void {
  if (signal?.aborted) {
    throw new AbortError(`operation aborted${path ? ` at "${path}"` : ""}`, {
      path,
      cause: signal.reason,
    });
  }
}

/**
 * `promise`, or an {@link AbortError} as soon as `signal` aborts, whichever
 * comes first (the work behind `promise` goes on: it is shared with others).
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  path?: string,
): Promise<T> {
  if (signal === undefined) return promise;
  throwIfAborted(signal, path);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      try {
        throwIfAborted(signal, path);
      } catch (e) {
        reject(e);
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
