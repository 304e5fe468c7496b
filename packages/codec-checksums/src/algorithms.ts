/**
 * The five numcodecs checksum codecs by id: which function computes the
 * checksum and where numcodecs stores it.
 *
 * @module
 */
import { crc32c } from "@zarr/core/builtin-codecs";
import { nativeCrc32 } from "#native";
import { fletcher32 } from "./fletcher32.js";
import { jenkinsLookup3 } from "./jenkins.js";
import { adler32, crc32 } from "./zlib-checksums.js";

/** numcodecs ids of the checksum codecs. */
export type ChecksumId = "adler32" | "crc32" | "crc32c" | "fletcher32" | "jenkins_lookup3";

/** Where the 4-byte little-endian checksum sits relative to the payload. */
export type ChecksumLocation = "start" | "end";

/** How one codec id checksums and lays out a chunk. */
export interface ChecksumAlgorithm {
  /** The checksum of `data`, seeded with `initval` where the algorithm has a seed. */
  readonly checksum: (data: Uint8Array, initval: number) => number;
  /** Where numcodecs puts the checksum when the configuration does not say. */
  readonly defaultLocation: ChecksumLocation;
  /**
   * Whether the configuration may choose the location: numcodecs' `Checksum32`
   * codecs take `location` since numcodecs 0.14 (0.11 has only `crc32` and
   * `adler32`, always at the start); `fletcher32` and `jenkins_lookup3` always
   * append.
   */
  readonly locatable: boolean;
  /** Whether the configuration takes `initval` and `prefix` (jenkins_lookup3). */
  readonly seeded: boolean;
}

/** The algorithms by numcodecs id. */
export const ALGORITHMS: Readonly<Record<ChecksumId, ChecksumAlgorithm>> = {
  adler32: {
    checksum: (d) => adler32(d),
    defaultLocation: "start",
    locatable: true,
    seeded: false,
  },
  crc32: {
    checksum: nativeCrc32 ?? ((d) => crc32(d)),
    defaultLocation: "start",
    locatable: true,
    seeded: false,
  },
  crc32c: { checksum: (d) => crc32c(d), defaultLocation: "end", locatable: true, seeded: false },
  fletcher32: { checksum: fletcher32, defaultLocation: "end", locatable: false, seeded: false },
  jenkins_lookup3: {
    checksum: jenkinsLookup3,
    defaultLocation: "end",
    locatable: false,
    seeded: true,
  },
};
