/**
 * The error the format layer throws for corrupt, truncated or unsupported
 * streams; the codec turns it into a `CodecError` naming the array.
 *
 * @module
 */

/** A Pco stream that cannot be decoded (corrupt, truncated, unsupported). */
export class PcoError extends Error {
  override name = "PcoError";
}

/** Throws a {@link PcoError}. */
export function corrupt(message: string): never {
  throw new PcoError(message);
}
