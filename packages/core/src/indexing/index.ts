/**
 * Selections and chunk indexing: normalizing user selections, projecting them
 * onto a chunk grid, strided copies between chunks and outputs, and the
 * NumPy-like text syntax used by the CLI.
 *
 * @module
 */
export { normalizeSelection } from "./normalize.js";
export { parseSelection } from "./parse.js";
export { projectChunks } from "./project.js";
export { copyStrided, cStrides, fillStrided, resolveAxes } from "./strided.js";
export {
  type Axis,
  axisCount,
  type ChunkProjection,
  type DimSelection,
  ELLIPSIS,
  type NormalizedDim,
  type NormalizedSelection,
  type Selection,
  Slice,
  slice,
} from "./types.js";
