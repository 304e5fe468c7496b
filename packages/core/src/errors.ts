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

/** Base class of every error thrown by `@zarr` packages. */
export class ZarrError extends Error {
  /** The store key, node path or metadata field the error concerns, when known. */
  readonly path: string | undefined;

  constructor(message: string, options: ZarrErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.path = options.path;
  }
}

/** No array or group exists at the given path. */
export class NodeNotFoundError extends ZarrError {}

/** A node exists but is not of the expected kind (array vs group) or already exists. */
export class ContainsNodeError extends ZarrError {}

/** A metadata document is malformed or violates the specification. */
export class MetadataError extends ZarrError {}

/** Encoding or decoding a chunk failed (malformed data, checksum mismatch, bad config). */
export class CodecError extends ZarrError {}

/** A store operation failed (I/O error, permission, network). Missing keys are not errors. */
export class StoreError extends ZarrError {}

/**
 * A value (or a response body) is larger than the read accepts (`StoreOptions.maxBytes`).
 * Stores that stream throw it as soon as the bound is passed; core turns it into a
 * `CodecError` for chunks (a chunk larger than its codecs can produce is damaged).
 */
export class ValueTooLargeError extends StoreError {}

/** A store key is invalid (empty segment, `.`/`..`, leading `/`, NUL, backslash). */
export class InvalidKeyError extends StoreError {}

/** A store was asked for an operation it does not support (e.g. writing to a read-only store). */
export class StoreCapabilityError extends StoreError {}

/** A selection is invalid for the array (out of bounds, wrong rank, bad step). */
export class IndexError extends ZarrError {}

/** A value given to `set` does not match the selection or data type. */
export class ValueError extends ZarrError {}

/** A feature of the data is valid Zarr but not supported by this implementation. */
export class UnsupportedError extends ZarrError {}

/**
 * An extension (codec, data type, chunk grid, chunk key encoding, store scheme)
 * is not registered. The message says which package to install and import.
 */
export class NotRegisteredError extends UnsupportedError {
  /** The extension point, e.g. `"codec"`. */
  readonly kind: string;
  /** The extension name, e.g. `"blosc"`. */
  readonly extension: string;

  constructor(kind: string, extension: string, hint: string, options: ZarrErrorOptions = {}) {
    super(`${kind} "${extension}" is not registered: ${hint}`, options);
    this.kind = kind;
    this.extension = extension;
  }
}

/** The operation was cancelled through an `AbortSignal`. */
export class AbortError extends ZarrError {}

/** Throws an {@link AbortError} if `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, path?: string): void {
  if (signal?.aborted) {
    throw new AbortError(`operation aborted${path ? ` at "${path}"` : ""}`, {
      path,
      cause: signal.reason,
    });
  }
}
