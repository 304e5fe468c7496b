/**
 * Registers the v2 and v1 node formats, the numcodecs codecs (under their v2
 * ids and `numcodecs.<id>`) and the v3 names of the v2-only data types.
 *
 * The codecs register lazily: their implementations are imported the first
 * time metadata names one of them.
 *
 * @module
 */
import { registerCodec, registerDataType } from "@zarr/core";
import { nodeFormatRegistry } from "@zarr/core/internal";
import { V3_DATA_TYPES } from "./dtypes/index.js";
import { v1NodeFormat } from "./v1/format.js";
import { v2NodeFormat } from "./v2/format.js";

/** The ids of `NUMCODECS`, each also as `numcodecs.<id>` (tools/packaging/test/register.test.ts checks them). */
const CODEC_IDS = [
  "delta",
  "fixedscaleoffset",
  "quantize",
  "bitround",
  "astype",
  "packbits",
  "categorize",
  "shuffle",
  "json2",
];

const load = () => import("./codecs/index.js");

for (const id of CODEC_IDS) {
  for (const name of [id, `numcodecs.${id}`]) {
    registerCodec(name, { load: () => load().then((m) => m.NUMCODECS[name]) });
  }
}
for (const dataType of V3_DATA_TYPES) registerDataType(dataType);
nodeFormatRegistry.register("v2", v2NodeFormat);
nodeFormatRegistry.register("v1", v1NodeFormat);
