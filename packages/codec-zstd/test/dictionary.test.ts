// decompressWithDictionary: one zstd frame written with a dictionary (RFC 8878
// section 5: ZDICT dictionaries as `zstd --train` writes them, and raw
// content). Node >= 22.19 / 24.6 decodes through node:zlib; Node 20 (and
// browsers) must get an UnsupportedError naming the requirement. CI runs this
// file on both Nodes.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as zlib from "node:zlib";
import {
  decompressWithDictionary,
  hasZstdDictionarySupport,
  ZSTD_DICTIONARY_REQUIREMENT,
  zstdDictionaryId,
} from "@zarr/codec-zstd";
import { CodecError, UnsupportedError } from "@zarr/core";
import { randomBytes, sameBytes } from "@zarr/test-utils";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { useNativeZstd } from "../src/engine.js";

const supported = hasZstdDictionarySupport();
if (!supported) {
  console.warn(
    `Node ${process.version} has no zstd dictionary support in node:zlib: ` +
      "only the UnsupportedError tests run",
  );
}

// node:zlib's zstd with a dictionary, to write frames in the tests (Node >= 24.6)
const zstdCompress = (zlib as unknown as Record<string, unknown>).zstdCompressSync as
  | ((data: Uint8Array, options: object) => Buffer)
  | undefined;

const hasCli = spawnSync("zstd", ["--version"]).status === 0;
if (!hasCli) console.warn("the zstd CLI is not installed: tests of CLI-trained dictionaries skip");

const dir = mkdtempSync(join(tmpdir(), "zstd-dict-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** URL-like strings, as Icechunk compresses them (virtual chunk locations). */
function locations(n: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const year = 1980 + ((i * 7 + seed) % 40);
    out.push(
      `s3://esgf-world/CMIP6/ScenarioMIP/model-${seed}/ssp585/r1i1p1f1/day/tas/gn/` +
        `v2019${(i % 12) + 10}/tas_day_${year}0101-${year}1231_${i}.nc`,
    );
  }
  return out;
}

function zstdCli(args: string[], cwd = dir): void {
  const r = spawnSync("zstd", ["-q", "-f", ...args], { cwd });
  if (r.status !== 0) throw new Error(`zstd ${args.join(" ")}: ${r.stderr}`);
}

/** A ZDICT dictionary trained by the zstd CLI on `samples` (`--maxdict=4096`, optionally `--dictID`). */
function trainDictionary(name: string, samples: string[], dictId?: number): Uint8Array {
  const sampleDir = join(dir, `${name}-samples`);
  mkdirSync(sampleDir);
  samples.forEach((s, i) => {
    writeFileSync(join(sampleDir, String(i)), s);
  });
  const extra = dictId === undefined ? [] : [`--dictID=${dictId}`];
  zstdCli(["--train", "-r", sampleDir, "-o", name, "--maxdict=4096", ...extra]);
  return readFileSync(join(dir, name));
}

/** Frames the zstd CLI writes with `zstd -D dict` (content size and checksum, as the CLI does by default). */
function cliFrame(dictName: string, text: string, extra: string[] = []): Uint8Array {
  const file = join(dir, "input.txt");
  writeFileSync(file, text);
  zstdCli(["-D", dictName, ...extra, file, "-o", `${file}.zst`]);
  return readFileSync(`${file}.zst`);
}

const utf8 = (b: Uint8Array) => new TextDecoder().decode(b);

describe.skipIf(!supported)("decompressWithDictionary (native engine)", () => {
  it("round trip: a raw-content dictionary (RFC 8878 5, content without the magic number)", async () => {
    const dictionary = randomBytes(2000, 7);
    for (const data of [
      dictionary.subarray(100, 900),
      new Uint8Array([...dictionary.subarray(0, 50), 1, 2, 3, ...dictionary.subarray(500, 800)]),
      new Uint8Array(0),
    ]) {
      const frame = zstdCompress!(data, { dictionary });
      // the dictionary is used: a copy of 800 random bytes of it takes a few bytes
      if (data.length === 800) expect(frame.length).toBeLessThan(40);
      const out = await decompressWithDictionary(frame, dictionary, data.length);
      expect(sameBytes(out, data)).toBe(true);
    }
  });

  it.skipIf(!hasCli)(
    "a ZDICT dictionary trained by `zstd --train` decodes frames `zstd -D dict` wrote",
    async () => {
      const samples = locations(200, 1);
      const dictionary = trainDictionary("trained", samples);
      expect(zstdDictionaryId(dictionary)).toBeGreaterThan(0);
      for (const text of [...locations(30, 2), samples[5]!, "x", ""]) {
        const frame = cliFrame("trained", text);
        if (text.length > 80) expect(frame.length).toBeLessThan(text.length / 2);
        const out = await decompressWithDictionary(frame, dictionary, 64 * 1024);
        expect(utf8(out)).toBe(text);
      }
      // frames without content size (--no-content-size) decode the same
      const text = locations(1, 3)[0]!;
      const frame = cliFrame("trained", text, ["--no-content-size"]);
      expect(utf8(await decompressWithDictionary(frame, dictionary, 1024))).toBe(text);
    },
  );

  it.skipIf(!hasCli)("a wrong dictionary is a CodecError, never other bytes", async () => {
    const right = trainDictionary("right", locations(200, 4), 1234);
    const other = trainDictionary("other", locations(200, 5));
    const sameId = trainDictionary(
      "same-id",
      locations(200, 6).map((s) => s.toUpperCase()),
      1234,
    );
    const frame = cliFrame("right", locations(1, 4)[0]!);
    await expect(decompressWithDictionary(frame, other, 4096)).rejects.toThrow(
      /needs dictionary 1234, the dictionary given is dictionary \d+/,
    );
    await expect(decompressWithDictionary(frame, randomBytes(500, 1), 4096)).rejects.toThrow(
      /needs dictionary 1234, the dictionary given has no id \(raw content\)/,
    );
    // same id, other content: libzstd fails or the frame's checksum catches it
    const e = await decompressWithDictionary(frame, sameId, 4096).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CodecError);
    expect((e as Error).message).toMatch(/cannot decode frame of \d+ bytes: libzstd: /);
    // a dictionary whose header is damaged (entropy tables)
    const damaged = right.slice();
    for (let i = 8; i < 40; i++) damaged[i] = 0xff;
    await expect(decompressWithDictionary(frame, damaged, 4096)).rejects.toBeInstanceOf(CodecError);
  });

  it("the output bound is honoured: declared or not, more than maxSize is a CodecError", async () => {
    const dictionary = randomBytes(4000, 9);
    const data = dictionary.subarray(0, 3000);
    const frame = zstdCompress!(data, { dictionary });
    await expect(decompressWithDictionary(frame, dictionary, 2999)).rejects.toThrow(
      /declares 3000 bytes, more than the allowed 2999/,
    );
    // Frame_Content_Size removed (Single_Segment_flag set: a Window_Descriptor of 4 KiB instead)
    const noSize = stripSingleSegmentSize(frame);
    expect(noSize[4]! >>> 6).toBe(0);
    expect(sameBytes(await decompressWithDictionary(noSize, dictionary, 3000), data)).toBe(true);
    for (const max of [0, 1, 2999]) {
      await expect(decompressWithDictionary(noSize, dictionary, max)).rejects.toThrow(
        new RegExp(`holds more than the allowed ${max} bytes`),
      );
    }
  });

  it("malformed input is a CodecError naming the path", async () => {
    const dictionary = randomBytes(1000, 3);
    const frame = zstdCompress!(dictionary.subarray(0, 500), { dictionary });
    for (const [bytes, message] of [
      [new Uint8Array(0), /empty input/],
      [frame.subarray(0, frame.length - 2), /truncated/],
      [new Uint8Array([...frame, ...frame]), /2 frames, expected one/],
      [Uint8Array.of(1, 2, 3, 4, 5), /bad magic number/],
    ] as const) {
      const e = await decompressWithDictionary(bytes, dictionary, 1000, {
        path: "manifests/X chunk [1]",
      }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(CodecError);
      expect((e as CodecError).path).toBe("manifests/X chunk [1]");
      expect((e as Error).message).toMatch(message);
      expect((e as Error).message).toContain("(manifests/X chunk [1])");
    }
    await expect(decompressWithDictionary(frame, dictionary, -1)).rejects.toThrow(
      /maxSize must be a non-negative integer/,
    );
  });

  it("fuzz: mutated frames decode to at most maxSize bytes or throw a CodecError", async () => {
    const dictionary = randomBytes(3000, 11);
    const data = new Uint8Array([...dictionary.subarray(10, 700), 7, 7, 7, ...randomBytes(50, 2)]);
    const frames = [
      zstdCompress!(data, { dictionary }),
      stripSingleSegmentSize(zstdCompress!(data, { dictionary })),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...frames),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 0, max: 2000 }),
        async (frame, flips, max) => {
          const input = frame.slice();
          for (const [at, x] of flips) input[at % input.length]! ^= x;
          try {
            const out = await decompressWithDictionary(input, dictionary, max);
            expect(out.length).toBeLessThanOrEqual(max);
          } catch (e) {
            if (!(e instanceof CodecError)) throw e;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("with the WebAssembly engine chosen, the error is an UnsupportedError", async () => {
    const dictionary = randomBytes(1000, 5);
    const frame = zstdCompress!(dictionary.subarray(0, 100), { dictionary });
    useNativeZstd(false);
    try {
      expect(hasZstdDictionarySupport()).toBe(false);
      await expect(decompressWithDictionary(frame, dictionary, 100)).rejects.toBeInstanceOf(
        UnsupportedError,
      );
    } finally {
      useNativeZstd(true);
    }
  });
});

describe.runIf(!supported)(
  "decompressWithDictionary without node:zlib dictionaries (Node 20)",
  () => {
    it("throws an UnsupportedError naming the Node versions it needs", async () => {
      // a well-formed frame (RFC 8878 3.1.1: single segment, content size 1, one raw block "a")
      const frame = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x01, 0x09, 0x00, 0x00, 0x61);
      const e = await decompressWithDictionary(frame, randomBytes(100, 1), 1024, {
        path: "manifests/ABC chunk [0]",
      }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(UnsupportedError);
      expect((e as Error).message).toContain(ZSTD_DICTIONARY_REQUIREMENT);
      expect((e as Error).message).toContain("manifests/ABC chunk [0]");
      expect(ZSTD_DICTIONARY_REQUIREMENT).toMatch(/22\.19.*24\.6/);
    });
  },
);

/**
 * `frame` (Single_Segment_flag set, one-byte Frame_Content_Size, no dictionary
 * id) without its content size: Single_Segment_flag cleared and a 4 KiB
 * Window_Descriptor in place of the size (RFC 8878 3.1.1.1.1-2).
 */
function stripSingleSegmentSize(frame: Uint8Array): Uint8Array {
  const fhd = frame[4]!;
  const fcsSize = [1, 2, 4, 8][fhd >>> 6]!;
  const dictSize = [0, 1, 2, 4][fhd & 3]!;
  if (!(fhd & 0x20)) throw new Error("expected a single-segment frame");
  const headerEnd = 5 + dictSize + fcsSize;
  return new Uint8Array([
    ...frame.subarray(0, 4),
    fhd & 0x1f & ~0x20,
    (12 - 10) << 3,
    ...frame.subarray(5, 5 + dictSize),
    ...frame.subarray(headerEnd),
  ]);
}
