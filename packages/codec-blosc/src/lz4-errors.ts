/**
 * The messages of malformed LZ4 blocks, shared by the TypeScript decoder's
 * wording and the WebAssembly decoder's error codes.
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
