/**
 * Registers the checksum codecs with @zarr/core under their numcodecs ids
 * (`adler32`, `crc32`, `crc32c`, `fletcher32`, `jenkins_lookup3`, for v2
 * metadata) and zarr-python 3's v3 names (`numcodecs.<id>`).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";
import { CHECKSUM_CODECS } from "./index.js";

for (const [name, factory] of Object.entries(CHECKSUM_CODECS)) registerCodec(name, factory);
