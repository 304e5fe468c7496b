/**
 * The `zarr` command-line interface as a library: `main(argv)` returns the exit code.
 *
 * @packageDocumentation
 */

export type { Command, Io } from "./command.js";
export { copyCommand } from "./commands/copy.js";
export { arrayJson, scalarJson } from "./format.js";
export { type Layout, layoutOf } from "./layout.js";
export { COMMANDS, main, processIo } from "./main.js";
export { decodeNpy, encodeNpy } from "./npy.js";
export { formatBytes, formatDuration, Progress } from "./progress.js";
export { type ServeOptions, serveStore } from "./run/serve.js";
export { type VerifyReport, verifyHierarchy } from "./run/verify.js";
export { openStoreArg, storeOptions } from "./stores.js";
