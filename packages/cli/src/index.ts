/**
 * The `zarr` command-line interface as a library: `main(argv)` returns the exit code.
 *
 * @packageDocumentation
 */

export { arrayJson, scalarJson } from "./format.js";
export { main } from "./main.js";
