/**
 * @zarr/core: the Zarr v3 array model, store interface and extension registry.
 *
 * @packageDocumentation
 */
export * from "./errors.js";
export type * from "./store/types.js";
export type * from "./dtypes/types.js";
export type * from "./codecs/types.js";
export * from "./registry/index.js";
