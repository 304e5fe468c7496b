/**
 * The messages of malformed LZ4 blocks and blosclz streams: the TypeScript
 * decoders' wording, for the WebAssembly decoders' error codes.
 *
 * @module
 */

/** The WebAssembly decoder's error codes (-1, -2, ...), as the TypeScript decoder words them. */
const LZ4_ERRORS = [
  "",
  "truncated (missing token)",
  "truncated literal length",
  "literals run past the input",
  "literals run past the output size",
  "truncated match offset",
  "zero match offset",
  "match offset before the start of the output",
  "truncated match length",
  "match runs past the output size",
  "block ends with a match",
];

/** The message of the WebAssembly LZ4 decoder's error `code` (negative), as the TypeScript decoder words it. */
export function lz4ErrorMessage(code: number): string {
  return `lz4: malformed block: ${LZ4_ERRORS[-code] ?? `error ${code}`}`;
}

/** The WebAssembly blosclz decoder's error codes (-1, -2, ...), as the TypeScript decoder words them. */
const BLOSCLZ_ERRORS = [
  "",
  "empty stream",
  "literal run past the input",
  "literal run past the output size",
  "truncated match length",
  "truncated match distance",
  "truncated far match distance",
  "match distance before the start of the output",
  "match past the output size",
];

/** The message of the WebAssembly blosclz decoder's error `code` (negative). */
export function blosclzErrorMessage(code: number): string {
  return `blosclz: malformed stream: ${BLOSCLZ_ERRORS[-code] ?? `error ${code}`}`;
}
