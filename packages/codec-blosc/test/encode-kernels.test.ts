// The WebAssembly encoders (wasm/kernels.c) against the TypeScript ones: the
// same shuffled, bitshuffled and compressed bytes, chunks that both decoders
// and c-blosc (python-blosc) read back exactly, and the fallbacks to
// TypeScript (kernels off, memory that cannot grow).
import {
  findPython,
  pythonSkipReason,
  randomBytes,
  runPython,
  smoothField,
} from "@zarr/test-utils";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bloscCompressSync, bloscDecompressSync } from "../src/api.js";
import { blosclzCompressBound, blosclzCompressInto } from "../src/blosclz.js";
import type { Cname } from "../src/engines.js";
import { kernelChunkCounts, loadBlockKernels, useBlockKernels } from "../src/kernels.js";
import { KERNELS_WASM_BASE64 } from "../src/kernels-wasm.generated.js";
import { lz4CompressBound, lz4CompressInto } from "../src/lz4.js";
import { bitshuffle, shuffle } from "../src/shuffle.js";
import { makeCodec } from "./helpers.js";

let loaded = false;
beforeAll(async () => {
  loaded = await loadBlockKernels();
});
afterAll(() => useBlockKernels(true));

interface RawExports {
  memory: WebAssembly.Memory;
  __heap_base: WebAssembly.Global;
  shuffle(src: number, dst: number, size: number, ts: number): void;
  bitshuffle(src: number, dst: number, size: number, ts: number, scratch: number): void;
  lz4_encode(src: number, n: number, dst: number, acceleration: number): number;
  blosclz_encode(src: number, n: number, dst: number, clevel: number): number;
}

/** A fresh instance of the module, for calling single kernels. */
async function rawModule(): Promise<RawExports> {
  const bytes = Uint8Array.from(atob(KERNELS_WASM_BASE64), (c) => c.charCodeAt(0));
  const { instance } = await WebAssembly.instantiate(bytes);
  return instance.exports as unknown as RawExports;
}

/**
 * Runs `call(src, dst, scratch)` on `input` copied into the module (buffers
 * 64-byte-slack apart, the output filled with 0xee first); returns the first
 * `outLen` bytes of dst and the call's result.
 */
function inModule(
  m: RawExports,
  input: Uint8Array,
  outLen: number,
  call: (src: number, dst: number, scratch: number) => unknown,
): { out: Uint8Array; r: unknown } {
  const base = (Number(m.__heap_base.value) + 15) & ~15;
  const cap = outLen + input.length + 64;
  const src = base;
  const dst = (src + input.length + 64 + 15) & ~15;
  const scratch = (dst + cap + 64 + 15) & ~15;
  const need = scratch + input.length + 64 - m.memory.buffer.byteLength;
  if (need > 0) m.memory.grow(Math.ceil(need / 65536));
  const mem = new Uint8Array(m.memory.buffer);
  mem.set(input, src);
  mem.fill(0xee, dst, dst + cap);
  const r = call(src, dst, scratch);
  return { out: new Uint8Array(m.memory.buffer).slice(dst, dst + outLen), r };
}

const hex = (a: Uint8Array) => Buffer.from(a).toString("hex");
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe("shuffle and bitshuffle kernels", () => {
  let m: RawExports;
  beforeAll(async () => {
    m = await rawModule();
  });

  // Sizes around whole vectors (16 elements), bit groups (8), and tails.
  const sizesFor = (ts: number) => [
    0,
    1,
    ts - 1,
    ts,
    7 * ts,
    8 * ts,
    8 * ts + 1,
    16 * ts,
    16 * ts + ts - 1,
    24 * ts,
    40 * ts + 3,
    128 * ts,
    1000 * ts + 5,
    4104 * ts,
  ];

  it("byte shuffle: the bytes of shuffle.ts for every typesize 1..16 and odd sizes", () => {
    for (let ts = 1; ts <= 16; ts++) {
      for (const size of sizesFor(ts)) {
        const input = randomBytes(size, 31 * ts + size);
        const want = new Uint8Array(size);
        shuffle(ts, input, 0, want, 0, size);
        const { out } = inModule(m, input, size, (s, d) => m.shuffle(s, d, size, ts));
        expect(hex(out), `ts ${ts} size ${size}`).toBe(hex(want));
      }
    }
  });

  it("bitshuffle: the bytes of shuffle.ts for every typesize 1..16 and odd sizes", () => {
    for (let ts = 1; ts <= 16; ts++) {
      for (const size of sizesFor(ts)) {
        const input = randomBytes(size, 17 * ts + size);
        const want = new Uint8Array(size);
        bitshuffle(ts, input, 0, want, 0, size);
        const { out } = inModule(m, input, size, (s, d, x) => m.bitshuffle(s, d, size, ts, x));
        expect(hex(out), `ts ${ts} size ${size}`).toBe(hex(want));
      }
    }
  });
});

/** Inputs of every kind: random, constant, smooth floats (shuffled and not), runs. */
function streamInputs(): { name: string; data: Uint8Array }[] {
  const field = smoothField(70_000);
  const shuffled = new Uint8Array(field.length);
  shuffle(4, field, 0, shuffled, 0, field.length);
  return [
    { name: "empty", data: new Uint8Array(0) },
    { name: "5 bytes", data: Uint8Array.of(1, 2, 3, 4, 5) },
    { name: "13 bytes", data: randomBytes(13, 3) },
    { name: "16 constant", data: new Uint8Array(16).fill(9) },
    { name: "constant", data: new Uint8Array(100_000).fill(7) },
    { name: "random", data: randomBytes(65_536, 5) },
    { name: "smooth float", data: field },
    { name: "shuffled float", data: shuffled },
    { name: "period 3", data: Uint8Array.from({ length: 70_001 }, (_, i) => i % 3) },
    { name: "far repeats", data: Uint8Array.from({ length: 90_000 }, (_, i) => (i % 9000) * 7) },
  ];
}

describe("LZ4 and blosclz stream kernels", () => {
  let m: RawExports;
  beforeAll(async () => {
    m = await rawModule();
  });

  it("LZ4: the block lz4.ts writes, at every acceleration Blosc uses", () => {
    for (const { name, data } of streamInputs()) {
      for (const accel of [1, 5, 9]) {
        const want = new Uint8Array(lz4CompressBound(data.length));
        const wantN = lz4CompressInto(data, want, 0, accel);
        const { out, r } = inModule(m, data, lz4CompressBound(data.length), (s, d) =>
          m.lz4_encode(s, data.length, d, accel),
        );
        expect(r, `${name} accel ${accel}`).toBe(wantN);
        expect(hex(out.subarray(0, wantN)), `${name} accel ${accel}`).toBe(
          hex(want.subarray(0, wantN)),
        );
      }
    }
  });

  it("blosclz: the stream blosclz.ts writes (or the same refusal), at every clevel", () => {
    for (const { name, data } of streamInputs()) {
      for (const clevel of [1, 2, 3, 5, 6, 8, 9]) {
        const want = new Uint8Array(blosclzCompressBound(data.length));
        const wantN = blosclzCompressInto(data, want, 0, clevel);
        const { out, r } = inModule(m, data, blosclzCompressBound(data.length), (s, d) =>
          m.blosclz_encode(s, data.length, d, clevel),
        );
        expect(r, `${name} clevel ${clevel}`).toBe(wantN);
        expect(hex(out.subarray(0, wantN)), `${name} clevel ${clevel}`).toBe(
          hex(want.subarray(0, wantN)),
        );
      }
    }
  });
});

/** bloscCompressSync with the kernels on or off; also whether the kernels ran. */
function encodeWith(engine: "wasm" | "ts", data: Uint8Array, params: EncodeParams) {
  useBlockKernels(engine === "wasm");
  try {
    const before = kernelChunkCounts().encoded;
    const chunk = bloscCompressSync(data, params);
    return { chunk, inKernel: kernelChunkCounts().encoded > before };
  } finally {
    useBlockKernels(true);
  }
}

/** Decodes with the kernel or the TypeScript decoders. */
function decodeWith(engine: "wasm" | "ts", chunk: Uint8Array): Uint8Array {
  useBlockKernels(engine === "wasm");
  try {
    return bloscDecompressSync(chunk);
  } finally {
    useBlockKernels(true);
  }
}

interface EncodeParams {
  cname: Cname;
  clevel: number;
  shuffle: 0 | 1 | 2;
  typesize: number;
  blocksize: number;
}

describe("Blosc chunks encoded whole in the kernels", () => {
  const field = smoothField(300_000);
  const inputs = {
    random: randomBytes(150_001, 9),
    constant: new Uint8Array(200_000).fill(0x3c),
    smooth: field,
    "smooth, odd size": field.subarray(0, 123_457),
  };

  it("loads, and encodes and decodes in the kernels (the engine indicator moves; off: it does not)", () => {
    expect(loaded).toBe(true);
    const params = { cname: "lz4", clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 } as const;
    const { chunk, inKernel } = encodeWith("wasm", field, params);
    expect(inKernel).toBe(true);
    expect(encodeWith("ts", field, params).inKernel).toBe(false);
    const decoded = kernelChunkCounts().decoded;
    decodeWith("wasm", chunk);
    expect(kernelChunkCounts().decoded).toBe(decoded + 1);
    decodeWith("ts", chunk);
    expect(kernelChunkCounts().decoded).toBe(decoded + 1);
    // lz4hc and snappy have no encode kernel.
    expect(encodeWith("wasm", field, { ...params, cname: "lz4hc" }).inKernel).toBe(false);
    expect(encodeWith("wasm", field, { ...params, cname: "snappy" }).inKernel).toBe(false);
  });

  it("the codec encodes in the kernel, synchronously (as before the kernels)", () => {
    const codec = makeCodec({ cname: "blosclz", clevel: 5, shuffle: "bitshuffle" }, 4);
    const before = kernelChunkCounts().encoded;
    const chunk = codec.encode(field);
    if (chunk instanceof Promise) throw new Error("encode returned a promise");
    expect(kernelChunkCounts().encoded).toBe(before + 1);
    expect(hex(decodeWith("ts", chunk))).toBe(hex(field));
  });

  it("every cname × shuffle × typesize × clevel × blocksize × kind of data: the TypeScript chunk, decoded back exactly by both decoders", () => {
    let inKernel = 0;
    for (const cname of ["lz4", "blosclz"] as const) {
      for (const shuffle of [0, 1, 2] as const) {
        for (const typesize of [1, 2, 3, 4, 8, 16]) {
          for (const clevel of [1, 5, 9]) {
            for (const blocksize of [0, 200, 4096 + 8 * 3]) {
              for (const [kind, data] of Object.entries(inputs)) {
                const params = { cname, clevel, shuffle, typesize, blocksize };
                const label = `${kind} ${JSON.stringify(params)}`;
                const w = encodeWith("wasm", data, params);
                const t = encodeWith("ts", data, params);
                if (w.inKernel) inKernel++;
                expect(w.chunk.length, label).toBe(t.chunk.length);
                expect(same(w.chunk, t.chunk), label).toBe(true);
                expect(same(decodeWith("ts", w.chunk), data), label).toBe(true);
                expect(same(decodeWith("wasm", w.chunk), data), label).toBe(true);
              }
            }
          }
        }
      }
    }
    expect(inKernel).toBe(2 * 3 * 6 * 3 * 3 * Object.keys(inputs).length);
  });

  it("a chunk that does not compress is stored memcpyed, as in TypeScript", () => {
    const data = randomBytes(100_000, 77);
    const params = { cname: "lz4", clevel: 9, shuffle: 0, typesize: 1, blocksize: 0 } as const;
    const w = encodeWith("wasm", data, params);
    expect(w.inKernel).toBe(true);
    expect(w.chunk[2]! & 0x02).toBe(0x02); // FLAG_MEMCPYED
    expect(hex(w.chunk)).toBe(hex(encodeWith("ts", data, params).chunk));
  });
});

describe("encoding when the module cannot hold the chunk", () => {
  it("memory that cannot grow: the chunk encodes in TypeScript, the same bytes, no error", () => {
    const data = Uint8Array.from({ length: 24 * 2 ** 20 }, (_, i) => (i >> 9) & 0xff);
    const params = { cname: "lz4", clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 } as const;
    const want = encodeWith("ts", data, params).chunk;
    const grow = vi.spyOn(WebAssembly.Memory.prototype, "grow").mockImplementation(() => {
      throw new RangeError("WebAssembly.Memory.grow(): Maximum memory size exceeded");
    });
    try {
      const w = encodeWith("wasm", data, params);
      expect(grow).toHaveBeenCalled();
      expect(w.inKernel).toBe(false);
      expect(same(w.chunk, want)).toBe(true);
    } finally {
      grow.mockRestore();
    }
  });

  it("a chunk over MAX_KERNEL_BYTES (input, scratch and output) encodes in TypeScript", () => {
    const data = new Uint8Array(40 * 2 ** 20).fill(1);
    const params = { cname: "blosclz", clevel: 5, shuffle: 0, typesize: 1, blocksize: 0 } as const;
    const w = encodeWith("wasm", data, params);
    expect(w.inKernel).toBe(false);
    expect(same(w.chunk, encodeWith("ts", data, params).chunk)).toBe(true);
  });
});

const MODULES = ["blosc"];
const python = findPython(MODULES);
if (!python) console.warn(`encode-kernels interop: ${pythonSkipReason(MODULES)}`);

describe.skipIf(!python)("chunks the kernels write, read by c-blosc (python-blosc)", () => {
  it("decodes every one exactly", () => {
    const field = smoothField(1 << 18);
    const cases: { params: EncodeParams; data: Uint8Array }[] = [];
    for (const cname of ["lz4", "blosclz"] as const) {
      for (const shuffle of [0, 1, 2] as const) {
        for (const typesize of [1, 2, 4, 8, 16]) {
          for (const clevel of [1, 5, 9]) {
            for (const blocksize of [0, 1000]) {
              for (const data of [field, randomBytes(50_003, clevel), new Uint8Array(70_000)]) {
                cases.push({ params: { cname, clevel, shuffle, typesize, blocksize }, data });
              }
            }
          }
        }
      }
    }
    // Length-prefixed records on stdin: chunk, then the expected bytes.
    const parts: Uint8Array[] = [];
    const u32 = (n: number) => new Uint8Array(new Uint32Array([n]).buffer);
    for (const c of cases) {
      const { chunk, inKernel } = encodeWith("wasm", c.data, c.params);
      expect(inKernel, JSON.stringify(c.params)).toBe(true);
      parts.push(u32(chunk.length), chunk, u32(c.data.length), c.data);
    }
    const script = `
import sys, struct, json, blosc
buf = sys.stdin.buffer.read()
i = 0
bad = []
k = 0
while i < len(buf):
    (n,) = struct.unpack_from('<I', buf, i); chunk = buf[i + 4:i + 4 + n]; i += 4 + n
    (n,) = struct.unpack_from('<I', buf, i); data = buf[i + 4:i + 4 + n]; i += 4 + n
    try:
        if blosc.decompress(chunk) != data:
            bad.append('%d: differs' % k)
    except Exception as e:
        bad.append('%d: %r' % (k, e))
    k += 1
print(json.dumps({'decoded': k, 'failures': bad[:10]}))
`;
    const out = JSON.parse(runPython(python!, script, Buffer.concat(parts)).toString());
    expect(out).toEqual({ decoded: cases.length, failures: [] });
  }, 60_000);
});
