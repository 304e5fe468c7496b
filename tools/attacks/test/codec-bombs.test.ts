// Decompression bombs against every bytes -> bytes decoder, called directly
// with `{maxDecodedSize}` as the pipeline does when it does not know a
// chunk's exact decoded size (a compressor after another one, or after
// vlen-utf8 / vlen-bytes / json2). Each bomb expands to about 1 GiB; each
// decode runs in a child process under the watchdog and must fail with a
// CodecError while its memory stays near the bound (1 MiB), never near the
// bomb.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bz2Codec } from "@zarr/codec-bz2";
import { lzmaCodec } from "@zarr/codec-lzma";
import type { DataType, JsonObject } from "@zarr/core";
import type { ChunkSpec, CodecContext } from "@zarr/core/codec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ATTACKS_DIR,
  type AttackResult,
  attack,
  bloscZstdZeros,
  describeRun,
  GiB,
  gzipZeros,
  MiB,
  numcodecsLz4Zeros,
  repeatBytes,
  zlibZeros,
  zstdLyingFrame,
  zstdZeros,
} from "../src/index.js";

const BOUND = MiB;
/** A decoding child: Node and the modules take ~60 MiB; the bound adds a few copies of 1 MiB. */
const LIMITS = { maxRssMiB: 300, timeoutMs: 30_000 };
/** Bounded decodes must stay far below the bomb: this much over a child's baseline at most. */
const MAX_PEAK_MiB = 160;

let dir: string;
const files = new Map<string, string>();

function context(format: 2 | 3): CodecContext {
  const dataType = { name: "uint8", itemSize: 1 } as unknown as DataType;
  return {
    spec: { shape: [1], dataType, fillValue: 0 } as unknown as ChunkSpec,
    path: "bomb",
    format,
    pipeline: () => Promise.reject(new Error("no nested pipelines here")),
  };
}

async function encodeZeros(
  factory: typeof bz2Codec,
  config: JsonObject,
  size: number,
): Promise<Uint8Array> {
  const codec = await factory.fromConfig(config, context(2));
  if (codec.kind !== "bytes_to_bytes") throw new Error("not bytes -> bytes");
  return codec.encode(new Uint8Array(size));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "codec-bombs-"));
  const bombs: Record<string, Uint8Array> = {
    "gzip-1g": gzipZeros(GiB),
    "gzip-members": gzipZeros(16 * MiB, 64),
    "zlib-1g": zlibZeros(GiB),
    "zstd-1g": zstdZeros(GiB),
    "zstd-1g-fcs": zstdZeros(GiB, { contentSize: GiB }),
    "zstd-1g-single": zstdZeros(GiB, { contentSize: GiB, singleSegment: true }),
    "zstd-frames": repeatBytes(zstdZeros(16 * MiB), 64),
    "zstd-frames-fcs": repeatBytes(zstdZeros(512 * 1024, { contentSize: 512 * 1024 }), 2048),
    "zstd-fcs-small": zstdZeros(GiB, { contentSize: 1000 }),
    "zstd-fcs-big": zstdLyingFrame(250 * MiB, 2100),
    "blosc-1g": bloscZstdZeros(GiB),
    "lz4-1g": numcodecsLz4Zeros(GiB),
    "lz4-lying": numcodecsLz4Zeros(GiB, BOUND),
    "lz4-claims": numcodecsLz4Zeros(64, 250 * MiB),
    "bz2-streams": repeatBytes(await encodeZeros(bz2Codec, { level: 9 }, 16 * MiB), 64),
    "xz-streams": repeatBytes(await encodeZeros(lzmaCodec, { format: 1, preset: 1 }, 16 * MiB), 64),
    "lzma-alone": await encodeZeros(lzmaCodec, { format: 2, preset: 1 }, 64 * MiB),
  };
  // Legitimate values of exactly the bound, which must decode under it.
  const legit: Record<string, Uint8Array> = {
    "legit-gzip": gzipZeros(BOUND, 1, 100),
    "legit-zlib": zlibZeros(BOUND),
    "legit-zstd": zstdZeros(BOUND),
    "legit-zstd-fcs": zstdZeros(BOUND, { contentSize: BOUND, singleSegment: true }),
    "legit-blosc": bloscZstdZeros(BOUND),
    "legit-lz4": numcodecsLz4Zeros(BOUND),
    "legit-bz2": await encodeZeros(bz2Codec, { level: 9 }, BOUND),
    "legit-xz": await encodeZeros(lzmaCodec, { format: 1, preset: 1 }, BOUND),
    "legit-lzma": await encodeZeros(lzmaCodec, { format: 2, preset: 1 }, BOUND),
  };
  for (const [name, bytes] of Object.entries({ ...bombs, ...legit })) {
    const file = join(dir, `${name}.bin`);
    writeFileSync(file, bytes);
    files.set(name, file);
  }
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves @zarr/codec-zstd's own dependencies (its WebAssembly module). */

const REGISTER = [
  "@zarr/codec-gzip/register",
  "@zarr/codec-zstd/register",
  "@zarr/codec-blosc/register",
  "@zarr/codec-lz4/register",
  "@zarr/codec-bz2/register",
  "@zarr/codec-lzma/register",
  "@zarr/v2-compat/register",
];

interface Run {
  readonly codec: string;
  readonly config?: JsonObject;
  readonly format?: 2 | 3;
  /** A gzip engine module of @zarr/codec-gzip's dist (`browser` or `pako`) instead of the platform's. */
  readonly engine?: "browser" | "pako";
  /**
   * `wasm`: zstd through the WebAssembly build even where Node has a native
   * zstd (Node ≥ 22.15), whose memory the test can see.
   */
  readonly zstd?: "wasm";
  readonly maxDecodedSize?: number;
}

/** Decodes bomb `name` in a guarded child; the value is the decoded length. */
function decodeBomb(name: string, run: Run): Promise<AttackResult> {
  const file = files.get(name);
  if (file === undefined) throw new Error(`no bomb ${name}`);
  const engineUrl =
    run.engine &&
    new URL(`../../packages/codec-gzip/dist/engine/${run.engine}.js`, `file://${ATTACKS_DIR}/`)
      .href;
  // The engine switch is internal: reached in the per-module build, whose
  // register module then supplies the zstd codec (in Node, the package's
  // entries load from its bundle, which has its own copy of the switch).
  const zstdEngineUrl = new URL(
    "../../packages/codec-zstd/dist/engine.js",
    `file://${ATTACKS_DIR}/`,
  ).href;
  const zstdRegisterUrl = new URL(
    "../../packages/codec-zstd/dist/register.js",
    `file://${ATTACKS_DIR}/`,
  ).href;
  return attack(
    `
    const { readFileSync } = await import("node:fs");
    const { codecRegistry } = await import("@zarr/core/codec");
    for (const m of ${JSON.stringify(REGISTER)}) await import(m);
    if (${JSON.stringify(run.zstd === "wasm")}) {
      await import(${JSON.stringify(zstdRegisterUrl)});
      (await import(${JSON.stringify(zstdEngineUrl)})).useNativeZstd(false);
    }
    const context = {
      spec: { shape: [1], dataType: { name: "uint8", itemSize: 1 }, fillValue: 0 },
      path: "bomb",
      format: ${run.format ?? 3},
      pipeline: () => Promise.reject(new Error("no nested pipelines here")),
    };
    let codec;
    if (${JSON.stringify(engineUrl ?? null)}) {
      const { DeflateCodec } = await import("@zarr/codec-gzip");
      const { engine } = await import(${JSON.stringify(engineUrl ?? "")});
      codec = new DeflateCodec("${run.codec}", { level: 1, engine, path: "bomb" });
    } else {
      const factory = await codecRegistry.get(${JSON.stringify(run.codec)});
      codec = await factory.fromConfig(${JSON.stringify(run.config ?? {})}, context);
    }
    const bytes = new Uint8Array(readFileSync(${JSON.stringify(file)}));
    const hwm = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    // The zstd WebAssembly heap only grows: its size after the decode is the most it
    // ever held. Seen through WebAssembly.instantiate, whichever glue loads libzstd.
    const memories = [];
    const instantiate = WebAssembly.instantiate;
    WebAssembly.instantiate = async (...args) => {
      const result = await instantiate.apply(WebAssembly, args);
      const instance = result.instance ?? result;
      for (const value of Object.values(instance.exports)) {
        if (value instanceof WebAssembly.Memory) memories.push(value);
      }
      return result;
    };
    const wasmHeapMiB = () =>
      memories.length === 0 ? -1 : Math.max(...memories.map((m) => m.buffer.byteLength / 2 ** 20));
    try {
      const out = await codec.decode(bytes, undefined, { maxDecodedSize: ${run.maxDecodedSize ?? BOUND} });
      return { length: out.length, peakMiB: hwm(), wasmHeapMiB: wasmHeapMiB() };
    } catch (e) {
      return { error: e?.name, message: String(e?.message), peakMiB: hwm(), wasmHeapMiB: wasmHeapMiB() };
    }
    `,
    LIMITS,
  );
}

interface Outcome {
  readonly error?: string;
  readonly message?: string;
  readonly length?: number;
  /** The child's own peak RSS (VmHWM, counted from its exec). */
  readonly peakMiB: number;
  /** The size the zstd WebAssembly memory grew to (it never shrinks). */
  readonly wasmHeapMiB: number;
}

/**
 * The decode failed with a CodecError, and the child's peak RSS stayed under
 * `maxPeak`. (The child reports VmHWM itself: `AttackResult.peakRssMiB` also
 * takes `ru_maxrss`, which on Linux keeps the parent's RSS at fork time.)
 */
function expectRefused(r: AttackResult, maxPeak = MAX_PEAK_MiB): Outcome {
  if (process.env.BOMB_REPORT) console.log(JSON.stringify(r.value ?? describeRun(r)));
  expect(r.killed, describeRun(r)).toBeUndefined();
  const outcome = r.value as Outcome;
  expect(outcome?.error, describeRun(r)).toBe("CodecError");
  expect(outcome.peakMiB, describeRun(r)).toBeLessThan(maxPeak);
  return outcome;
}

describe("gzip and zlib bombs with maxDecodedSize 1 MiB", () => {
  it("a 1 GiB gzip member fails with CodecError in bounded memory (node:zlib)", async () => {
    expectRefused(await decodeBomb("gzip-1g", { codec: "gzip" }));
  });

  it("64 concatenated gzip members of 16 MiB fail with CodecError in bounded memory", async () => {
    expectRefused(await decodeBomb("gzip-members", { codec: "gzip" }));
  });

  it("a 1 GiB zlib stream fails with CodecError in bounded memory", async () => {
    expectRefused(await decodeBomb("zlib-1g", { codec: "zlib" }));
  });

  it("the browser engine (DecompressionStream, then pako) stops at the bound too", async () => {
    expectRefused(await decodeBomb("gzip-1g", { codec: "gzip", engine: "browser" }));
    expectRefused(await decodeBomb("gzip-members", { codec: "gzip", engine: "browser" }));
  });

  it("pako alone stops at the bound", async () => {
    expectRefused(await decodeBomb("gzip-1g", { codec: "gzip", engine: "pako" }));
    expectRefused(await decodeBomb("zlib-1g", { codec: "zlib", engine: "pako" }));
  });
});

describe("zstd bombs with maxDecodedSize 1 MiB", () => {
  it("a 32 KiB frame of RLE blocks without content size (1 GiB) fails in bounded memory", async () => {
    expectRefused(await decodeBomb("zstd-1g", { codec: "zstd" }));
  });

  it("frames declaring 1 GiB (window or single segment) fail before decoding", async () => {
    expectRefused(await decodeBomb("zstd-1g-fcs", { codec: "zstd" }));
    expectRefused(await decodeBomb("zstd-1g-single", { codec: "zstd" }));
  });

  it("64 frames of 16 MiB without content size fail in bounded memory", async () => {
    expectRefused(await decodeBomb("zstd-frames", { codec: "zstd" }));
  });

  it("2048 frames each declaring 512 KiB (under the bound, 1 GiB in all) fail in bounded memory", async () => {
    expectRefused(await decodeBomb("zstd-frames-fcs", { codec: "zstd" }));
  });

  it("a frame declaring 1000 bytes that holds 1 GiB fails in bounded memory", async () => {
    expectRefused(await decodeBomb("zstd-fcs-small", { codec: "zstd" }));
  });

  it("a 10 KiB frame declaring 250 MiB of garbage blocks, under a 256 MiB bound, never allocates the claim", async () => {
    // The platform's engine (node:zlib on Node ≥ 22.15): bounded RSS.
    expectRefused(await decodeBomb("zstd-fcs-big", { codec: "zstd", maxDecodedSize: 256 * MiB }));
    const r = expectRefused(
      await decodeBomb("zstd-fcs-big", { codec: "zstd", zstd: "wasm", maxDecodedSize: 256 * MiB }),
    );
    // RSS would not show it (untouched pages): the WebAssembly heap would.
    expect(r.wasmHeapMiB, `no WebAssembly instance seen: ${JSON.stringify(r)}`).toBeGreaterThan(0);
    expect(r.wasmHeapMiB, JSON.stringify(r)).toBeLessThan(32);
  });
});

describe("blosc lz4 chunks through the WebAssembly kernels", () => {
  it("a chunk lying that it holds 1 GiB is refused before decoding; 48 MiB at the streams' largest expansion decodes exactly, in the kernels, in bounded memory", async () => {
    const r = await attack(
      `
      const { readFileSync } = await import("node:fs");
      const { bloscCompressSync, bloscDecompressSync, loadBlockKernels } = await import("@zarr/codec-blosc");
      const hwm = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
      const kernels = await loadBlockKernels();
      const n = 48 * 2 ** 20;
      const chunk = bloscCompressSync(new Uint8Array(n).fill(7), { cname: "lz4", clevel: 9, shuffle: 1, typesize: 4, blocksize: 0 });
      const lying = chunk.slice();
      new DataView(lying.buffer).setUint32(4, 2 ** 30, true); // nbytes
      let refused;
      try { bloscDecompressSync(lying, 2 ** 20); } catch (e) { refused = e.name; }
      const out = bloscDecompressSync(chunk);
      return { kernels, refused, exact: out.length === n && out.every((v) => v === 7), ratio: n / chunk.length, peakMiB: hwm() };
      `,
      LIMITS,
    );
    expect(r.killed, describeRun(r)).toBeUndefined();
    const v = r.value as {
      kernels: boolean;
      refused: string;
      exact: boolean;
      ratio: number;
      peakMiB: number;
    };
    expect(v, describeRun(r)).toMatchObject({ kernels: true, refused: "CodecError", exact: true });
    expect(v.ratio).toBeGreaterThan(100);
    // The input, the output and the kernels' copy of the chunk and output: about 3 x 48 MiB.
    expect(v.peakMiB, describeRun(r)).toBeLessThan(260);
  });
});

describe("blosc bombs with maxDecodedSize 1 MiB", () => {
  it("a 32 KiB chunk declaring 1 GiB (zstd streams) fails before allocating", async () => {
    expectRefused(await decodeBomb("blosc-1g", { codec: "blosc" }));
  });
});

describe("numcodecs compressor bombs (codec-lz4, codec-bz2, codec-lzma) with maxDecodedSize 1 MiB", () => {
  it("lz4: a 4 MiB block of 1 GiB fails in bounded memory, whether its header tells or lies", async () => {
    expectRefused(await decodeBomb("lz4-1g", { codec: "lz4", format: 2 }));
    expectRefused(await decodeBomb("lz4-lying", { codec: "lz4", format: 2 }));
  });

  it("lz4: a 15-byte value claiming 250 MiB, under a 256 MiB bound, fails before allocating the claim", async () => {
    const r = expectRefused(
      await decodeBomb("lz4-claims", { codec: "lz4", format: 2, maxDecodedSize: 256 * MiB }),
    );
    // RSS would not show an untouched allocation: the refusal must come from
    // the size check, before the block is decoded into anything.
    expect(r.message).toMatch(/a block of 11 bytes holds at most 2805/);
  });

  it("bz2: 64 concatenated streams of 16 MiB fail in bounded memory", async () => {
    expectRefused(await decodeBomb("bz2-streams", { codec: "bz2", format: 2 }));
  });

  it("lzma: 64 concatenated xz streams of 16 MiB fail in bounded memory", async () => {
    expectRefused(
      await decodeBomb("xz-streams", { codec: "lzma", config: { format: 1 }, format: 2 }),
    );
  });

  it("lzma: a .lzma (FORMAT_ALONE) stream of 64 MiB fails in bounded memory", async () => {
    expectRefused(
      await decodeBomb("lzma-alone", { codec: "lzma", config: { format: 2 }, format: 2 }),
    );
  });
});

describe("legitimate data at the bound", () => {
  it("1 MiB of zeros decodes with maxDecodedSize 1 MiB in every codec and engine", async () => {
    const runs: [string, string, JsonObject, string | null][] = [
      ["legit-gzip", "gzip", {}, null],
      ["legit-gzip", "gzip", {}, "browser"],
      ["legit-gzip", "gzip", {}, "pako"],
      ["legit-zlib", "zlib", {}, null],
      ["legit-zlib", "zlib", {}, "browser"],
      ["legit-zstd", "zstd", {}, null],
      ["legit-zstd-fcs", "zstd", {}, null],
      ["legit-blosc", "blosc", {}, null],
      ["legit-lz4", "lz4", {}, null],
      ["legit-bz2", "bz2", {}, null],
      ["legit-xz", "lzma", { format: 1 }, null],
      ["legit-lzma", "lzma", { format: 2 }, null],
    ];
    const cases = runs.map(([file, codec, config, engine]) => ({
      file: files.get(file),
      codec,
      config,
      engine:
        engine &&
        new URL(`../../packages/codec-gzip/dist/engine/${engine}.js`, `file://${ATTACKS_DIR}/`)
          .href,
    }));
    const r = await attack(
      `
      const { readFileSync } = await import("node:fs");
      const { codecRegistry } = await import("@zarr/core/codec");
      const { DeflateCodec } = await import("@zarr/codec-gzip");
      for (const m of ${JSON.stringify(REGISTER)}) await import(m);
      const context = {
        spec: { shape: [1], dataType: { name: "uint8", itemSize: 1 }, fillValue: 0 },
        path: "legit",
        format: 2,
        pipeline: () => Promise.reject(new Error("no nested pipelines here")),
      };
      const lengths = [];
      for (const c of ${JSON.stringify(cases)}) {
        const codec = c.engine
          ? new DeflateCodec(c.codec, { level: 1, engine: (await import(c.engine)).engine })
          : await (await codecRegistry.get(c.codec)).fromConfig(c.config, context);
        const out = await codec.decode(new Uint8Array(readFileSync(c.file)), undefined, {
          maxDecodedSize: ${BOUND},
        });
        lengths.push(out.length === ${BOUND} && out.every((b) => b === 0) ? "ok" : out.length);
      }
      return lengths;
      `,
      LIMITS,
    );
    expect(r.value, describeRun(r)).toEqual(runs.map(() => "ok"));
  });
});

describe("the bomb builders", () => {
  it("build what they promise: small bombs decode to exactly their zeros", async () => {
    const { DeflateCodec } = await import("@zarr/codec-gzip");
    const { ZstdCodec } = await import("@zarr/codec-zstd");
    const { bloscCodecFactory } = await import("@zarr/codec-blosc");
    const { lz4Codec } = await import("@zarr/codec-lz4");
    await import("@zarr/codec-zstd/register");
    const zeros = (n: number) => (out: Uint8Array) => {
      expect(out.length).toBe(n);
      expect(out.every((b) => b === 0)).toBe(true);
    };
    const gz = new DeflateCodec("gzip", { level: 1 });
    const zl = new DeflateCodec("zlib", { level: 1 });
    const zs = new ZstdCodec();
    const blosc = (await bloscCodecFactory.fromConfig({}, context(3))) as never as {
      decode(b: Uint8Array): Promise<Uint8Array>;
    };
    const lz4 = (await lz4Codec.fromConfig({}, context(2))) as never as {
      decode(b: Uint8Array): Uint8Array;
    };
    for (const n of [1000, 16 * MiB + 5]) {
      zeros(n)(await gz.decode(gzipZeros(n)));
      zeros(2 * n)(await gz.decode(gzipZeros(n, 2, 300)));
      zeros(n)(await zl.decode(zlibZeros(n)));
      zeros(n)(await zs.decode(zstdZeros(n)));
      zeros(n)(await zs.decode(zstdZeros(n, { contentSize: n })));
      zeros(n)(await zs.decode(zstdZeros(n, { contentSize: n, singleSegment: true })));
      zeros(n)(await blosc.decode(bloscZstdZeros(n)));
      zeros(n)(lz4.decode(numcodecsLz4Zeros(n)));
    }
    await expect(zs.decode(zstdLyingFrame(250 * MiB, 2100))).rejects.toThrow(/zstd/);
  });
});
