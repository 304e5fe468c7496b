/**
 * Property-based fuzzing of every decoder: random streams and mutated valid
 * streams give either exactly the output of a slow, obviously-correct
 * reference decoder (written here from the format descriptions) or a
 * CodecError; never another exception, a hang, or output past the limit.
 */
import { bloscCompressSync, bloscDecompressSync, type Cname } from "@zarr/codec-blosc";
import {
  lz4CompressBound,
  lz4CompressHCInto,
  lz4CompressInto,
  lz4DecompressInto,
} from "@zarr/codec-blosc/lz4";
import { CodecError } from "@zarr/core";
import fc from "fast-check";
import { describe, it } from "vitest";
// Internal modules without a public entry point, tested directly.
import {
  blosclzCompressBound,
  blosclzCompressInto,
  blosclzDecompressInto,
} from "../src/blosclz.js";
import { snappyCompressBound, snappyCompressInto, snappyDecompressInto } from "../src/snappy.js";

const RUNS = 10_000;

/** Reference LZ4 block decoder (lz4 "Block Format Description"). */
function refLz4(src: Uint8Array, max: number): number[] | "error" {
  const out: number[] = [];
  let i = 0;
  for (;;) {
    if (i >= src.length) return "error";
    const token = src[i++];
    let lit = token >> 4;
    if (lit === 15) {
      for (;;) {
        if (i >= src.length) return "error";
        const b = src[i++];
        lit += b;
        if (b !== 255) break;
      }
    }
    if (i + lit > src.length || out.length + lit > max) return "error";
    for (let k = 0; k < lit; k++) out.push(src[i++]);
    if (i === src.length) return out;
    if (i + 2 > src.length) return "error";
    const off = src[i] + 256 * src[i + 1];
    i += 2;
    let len = token & 15;
    if (len === 15) {
      for (;;) {
        if (i >= src.length) return "error";
        const b = src[i++];
        len += b;
        if (b !== 255) break;
      }
    }
    len += 4;
    if (off === 0 || off > out.length || out.length + len > max) return "error";
    for (let k = 0; k < len; k++) out.push(out[out.length - off]);
    if (i === src.length) return "error";
  }
}

/** Reference BloscLZ decoder (see blosclz.ts for the format). */
function refBlosclz(src: Uint8Array, max: number): number[] | "error" {
  if (src.length === 0) return "error";
  const out: number[] = [];
  let i = 1;
  let ctrl = src[0] & 31;
  for (;;) {
    if (ctrl < 32) {
      if (i + ctrl + 1 > src.length || out.length + ctrl + 1 > max) return "error";
      for (let k = 0; k <= ctrl; k++) out.push(src[i++]);
    } else {
      let len = ctrl >> 5;
      if (len === 7) {
        for (;;) {
          if (i >= src.length) return "error";
          const b = src[i++];
          len += b;
          if (b !== 255) break;
        }
      }
      len += 2;
      if (i >= src.length) return "error";
      const lo = src[i++];
      let dist = (ctrl & 31) * 256 + lo + 1;
      if ((ctrl & 31) === 31 && lo === 255) {
        if (i + 2 > src.length) return "error";
        dist = src[i] * 256 + src[i + 1] + 8192;
        i += 2;
      }
      if (dist > out.length || out.length + len > max) return "error";
      for (let k = 0; k < len; k++) out.push(out[out.length - dist]);
    }
    if (i >= src.length) return out;
    ctrl = src[i++];
  }
}

/** Reference snappy decoder (google/snappy format_description.txt). */
function refSnappy(src: Uint8Array, max: number): number[] | "error" {
  let n = 0;
  let i = 0;
  for (let shift = 1; ; shift *= 128) {
    if (i >= src.length || i >= 5) return "error";
    const b = src[i++];
    n += (b & 127) * shift;
    if (b < 128) break;
  }
  if (n > max) return "error";
  const out: number[] = [];
  while (i < src.length) {
    const tag = src[i++];
    if ((tag & 3) === 0) {
      let len = tag >> 2;
      if (len >= 60) {
        const k = len - 59;
        if (i + k > src.length) return "error";
        len = 0;
        for (let j = k - 1; j >= 0; j--) len = len * 256 + src[i + j];
        i += k;
      }
      len += 1;
      if (i + len > src.length || out.length + len > n) return "error";
      for (let k = 0; k < len; k++) out.push(src[i++]);
      continue;
    }
    let len: number;
    let off: number;
    if ((tag & 3) === 1) {
      if (i + 1 > src.length) return "error";
      len = ((tag >> 2) & 7) + 4;
      off = (tag >> 5) * 256 + src[i++];
    } else if ((tag & 3) === 2) {
      if (i + 2 > src.length) return "error";
      len = (tag >> 2) + 1;
      off = src[i] + 256 * src[i + 1];
      i += 2;
    } else {
      if (i + 4 > src.length) return "error";
      len = (tag >> 2) + 1;
      off = src[i] + 256 * src[i + 1] + 65536 * src[i + 2] + 16777216 * src[i + 3];
      i += 4;
    }
    if (off === 0 || off > out.length || out.length + len > n) return "error";
    for (let k = 0; k < len; k++) out.push(out[out.length - off]);
  }
  return out.length === n ? out : "error";
}

type Decoder = (src: Uint8Array, dst: Uint8Array) => number;

/** Runs `decode` and the reference: same bytes, or CodecError vs "error". */
function agrees(
  decode: Decoder,
  ref: (src: Uint8Array, max: number) => number[] | "error",
  src: Uint8Array,
  max: number,
): boolean {
  const expected = ref(src, max);
  const dst = new Uint8Array(max);
  let n: number;
  try {
    n = decode(src, dst);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    return expected === "error";
  }
  if (expected === "error") return false;
  return n === expected.length && dst.subarray(0, n).every((v, k) => v === expected[k]);
}

/** Compressible bytes: runs over a small alphabet. */
const compressible = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 40 })), {
    minLength: 1,
    maxLength: 80,
  })
  .map((runs) => {
    const bytes: number[] = [];
    for (const [v, n] of runs) for (let k = 0; k < n; k++) bytes.push((v * 37 + (k % 3)) & 255);
    return new Uint8Array(bytes);
  });

const mutations = fc.array(
  fc.oneof(
    fc.tuple(fc.constant("set" as const), fc.nat(), fc.integer({ min: 0, max: 255 })),
    fc.tuple(fc.constant("cut" as const), fc.nat(), fc.constant(0)),
  ),
  { minLength: 1, maxLength: 4 },
);

function mutate(bytes: Uint8Array, muts: readonly (readonly ["set" | "cut", number, number])[]) {
  let out = bytes.slice();
  for (const [kind, pos, value] of muts) {
    if (out.length === 0) break;
    if (kind === "set") out[pos % out.length] = value;
    else out = out.slice(0, pos % out.length);
  }
  return out;
}

type Encoder = (src: Uint8Array) => Uint8Array;

const decoders: {
  name: string;
  decode: Decoder;
  ref: (src: Uint8Array, max: number) => number[] | "error";
  encoders: Encoder[];
}[] = [
  {
    name: "lz4",
    decode: (s, d) => lz4DecompressInto(s, d),
    ref: refLz4,
    encoders: [
      (s) => {
        const d = new Uint8Array(lz4CompressBound(s.length));
        return d.slice(0, lz4CompressInto(s, d, 0, 1));
      },
      (s) => {
        const d = new Uint8Array(lz4CompressBound(s.length));
        return d.slice(0, lz4CompressHCInto(s, d, 0, 9));
      },
    ],
  },
  {
    name: "blosclz",
    decode: (s, d) => blosclzDecompressInto(s, d),
    ref: refBlosclz,
    encoders: [
      (s) => {
        const d = new Uint8Array(blosclzCompressBound(s.length));
        const n = blosclzCompressInto(s, d, 0, 9);
        // Under 16 bytes the encoder declines; a literal-only stream stands in.
        if (n > 0) return d.slice(0, n);
        const lit = [];
        for (let i = 0; i < s.length; i += 32)
          lit.push(Math.min(32, s.length - i) - 1, ...s.subarray(i, i + 32));
        return new Uint8Array(lit);
      },
    ],
  },
  {
    name: "snappy",
    decode: (s, d) => snappyDecompressInto(s, d),
    ref: refSnappy,
    encoders: [
      (s) => {
        const d = new Uint8Array(snappyCompressBound(s.length));
        return d.slice(0, snappyCompressInto(s, d, 0));
      },
    ],
  },
];

describe.each(decoders)("$name decoder fuzzing (seeded)", ({ decode, ref, encoders }) => {
  it("round-trips compressible data through every encoder", () => {
    fc.assert(
      fc.property(compressible, (data) =>
        encoders.every((enc) => {
          const dst = new Uint8Array(data.length);
          return decode(enc(data), dst) === data.length && dst.every((v, k) => v === data[k]);
        }),
      ),
      { seed: 42, numRuns: 2_000 },
    );
  });

  it(`random streams: reference output or CodecError (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat({ max: 3000 }), (src, max) =>
        agrees(decode, ref, src, max),
      ),
      { seed: 42, numRuns: RUNS },
    );
  });

  it(`mutated valid streams: reference output or CodecError (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(
        compressible,
        fc.nat({ max: encoders.length - 1 }),
        mutations,
        fc.integer({ min: -8, max: 8 }),
        (data, e, muts, slack) => {
          const stream = mutate(encoders[e](data), muts);
          return agrees(decode, ref, stream, Math.max(0, data.length + slack));
        },
      ),
      { seed: 42, numRuns: RUNS },
    );
  });
});

const frameParams = fc.record({
  cname: fc.constantFrom<Cname>("blosclz", "lz4", "lz4hc", "snappy"),
  clevel: fc.integer({ min: 0, max: 9 }),
  shuffle: fc.constantFrom<0 | 1 | 2>(0, 1, 2),
  typesize: fc.constantFrom(1, 2, 4, 8, 16, 3, 300),
  blocksize: fc.constantFrom(0, 128, 200, 256, 1000),
});

describe("blosc frame decoder fuzzing (seeded)", () => {
  /** Decodes: the original (when unmutated), any bytes of length <= limit, or CodecError. */
  function decodesSafely(frame: Uint8Array, limit: number, original?: Uint8Array): boolean {
    let out: Uint8Array;
    try {
      out = bloscDecompressSync(frame, limit);
    } catch (e) {
      if (!(e instanceof CodecError)) throw e;
      return original === undefined;
    }
    if (original !== undefined) return Buffer.compare(out, original) === 0;
    return out.length <= limit;
  }

  it(`mutated valid frames: CodecError or bounded output (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(compressible, frameParams, mutations, (data, params, muts) => {
        const frame = bloscCompressSync(data, params);
        if (!decodesSafely(frame, data.length, data)) return false;
        const bad = mutate(frame, muts);
        const same = bad.length === frame.length && bad.every((v, k) => v === frame[k]);
        return decodesSafely(bad, data.length, same ? data : undefined);
      }),
      { seed: 42, numRuns: RUNS },
    );
  });

  it(`random frames with a plausible header: CodecError or bounded output (${RUNS} cases)`, () => {
    const header = fc
      .tuple(
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 1, max: 32 }),
        fc.nat({ max: 5000 }),
        fc.nat({ max: 6000 }),
        fc.nat({ max: 400 }),
      )
      .map(([flags, ts, nbytes, bs, cb]) => {
        const h = new Uint8Array(16);
        const dv = new DataView(h.buffer);
        h[0] = 2;
        h[1] = 1;
        h[2] = flags & ~0x08;
        h[3] = ts;
        dv.setUint32(4, nbytes, true);
        dv.setUint32(8, bs, true);
        dv.setUint32(12, cb, true);
        return h;
      });
    fc.assert(
      fc.property(
        header,
        fc.uint8Array({ maxLength: 400 }),
        fc.nat({ max: 6000 }),
        (h, body, limit) => {
          const frame = new Uint8Array(16 + body.length);
          frame.set(h);
          frame.set(body, 16);
          // Make cbytes consistent with the buffer half of the time so decoding goes deeper.
          if (body.length % 2 === 0) new DataView(frame.buffer).setUint32(12, frame.length, true);
          return decodesSafely(frame, limit);
        },
      ),
      { seed: 42, numRuns: RUNS },
    );
  });
});
