/**
 * Registers the v2 and v1 node formats, the numcodecs codecs (under their v2
 * ids and `numcodecs.<id>`) and the v3 names of the v2-only data types.
 *
 * @module
 */
import { registerCodec, registerDataType } from "@zarr/core";
import { nodeFormatRegistry } from "@zarr/core/internal";
import { NUMCODECS } from "./codecs/index.js";
import { V3_DATA_TYPES } from "./dtypes/index.js";
import { v1NodeFormat } from "./v1/format.js";
import { v2NodeFormat } from "./v2/format.js";

for (const [name, factory] of Object.entries(NUMCODECS)) registerCodec(name, factory);
for (const dataType of V3_DATA_TYPES) registerDataType(dataType);
nodeFormatRegistry.register("v2", v2NodeFormat);
nodeFormatRegistry.register("v1", v1NodeFormat);
