/**
 * v3 metadata: typed documents, parsing with validation of every MUST of the
 * v3 core spec, serialization, and node names and paths.
 *
 * @module
 */

export {
  checkFormatAndType,
  type ParsedArrayMetadataV3,
  parseArrayMetadataV3,
  serializeArrayMetadataV3,
} from "./array-v3.js";
export { parseGroupMetadataV3, serializeGroupMetadataV3 } from "./group-v3.js";
export { encodeMetadata, type NodeMetadataV3, parseNodeMetadataV3 } from "./node-v3.js";
export {
  chunkPrefix,
  metadataKey,
  nodeNameProblem,
  normalizePath,
  validateNodeName,
} from "./paths.js";
export type { ArrayMetadataV3, GroupMetadataV3, NamedConfiguration } from "./types.js";
