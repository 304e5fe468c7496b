/**
 * Registers the checksum codecs with @zarr/core under their numcodecs ids
 * (`adler32`, `crc32`, `crc32c`, `fletcher32`, `jenkins_lookup3`, for v2
 * metadata) and zarr-python 3's v3 names (`numcodecs.<id>`).
 *
 * The registrations are lazy: the codecs' implementation is imported the
 * first time metadata names one of them, so importing this module costs
 * almost nothing (and a bundler splits the codecs into their own chunk).
 *
 * @module
 */
import { registerCodec } from "@zarr/core";

/** The names of `CHECKSUM_CODECS` (tools/packaging/test/register.test.ts checks that they match). */
const NAMES = [
  "adler32",
  "crc32",
  "crc32c",
  "fletcher32",
  "jenkins_lookup3",
  "numcodecs.adler32",
  "numcodecs.crc32",
  "numcodecs.crc32c",
  "numcodecs.fletcher32",
  "numcodecs.jenkins_lookup3",
];

const load = () => import("./codec.js");

for (const name of NAMES) {
  registerCodec(name, { load: () => load().then((m) => m.CHECKSUM_CODECS[name]) });
}
