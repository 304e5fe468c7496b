// The two engines (issue 18): node:zlib's libzstd where Node has it (≥ 22.15)
// and the WebAssembly build. Each decodes what the other encodes, and both
// report errors and bounds the same way. The rest of this package's tests
// run on whichever engine the Node running them has: native on Node 24, the
// WebAssembly build on Node 20 (CI runs both).
import { ZstdCodec } from "@zarr/codec-zstd";
import { CodecError } from "@zarr/core";
import { randomBytes, sameBytes, smoothField } from "@zarr/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { loadZstd, useNativeZstd, zstdEngine } from "../src/engine.js";
import { stripContentSize } from "./helpers.js";

useNativeZstd(true);
const hasNative = zstdEngine() === "native";
if (!hasNative)
  console.warn(`Node ${process.version} has no zstd in node:zlib: engine parity tests skip`);

const MiB = 1 << 20;

async function withEngine<T>(engine: "native" | "wasm", body: () => Promise<T>): Promise<T> {
  useNativeZstd(engine === "native");
  await loadZstd();
  try {
    return await body();
  } finally {
    useNativeZstd(true);
  }
}

const inputs = [
  new Uint8Array(0),
  randomBytes(1, 1),
  randomBytes(100_000, 2),
  smoothField(300_000),
  new Uint8Array(3 * MiB + 5).fill(9),
];

afterEach(() => useNativeZstd(true));

describe.skipIf(!hasNative)("native and WebAssembly zstd", () => {
  it("each decodes the other's frames, at every level and with or without checksum", async () => {
    for (const [from, to] of [
      ["native", "wasm"],
      ["wasm", "native"],
    ] as const) {
      for (const level of [-5, 1, 3, 19]) {
        for (const checksum of [false, true]) {
          const codec = new ZstdCodec({ level, checksum });
          for (const data of inputs) {
            const frame = await withEngine(from, () => codec.encode(data));
            const exact = await withEngine(to, () => codec.decode(frame, data.length));
            const bounded = await withEngine(to, () =>
              codec.decode(stripContentSize(frame), undefined, { maxDecodedSize: data.length }),
            );
            const label = `${from}→${to} level ${level} checksum ${checksum} n ${data.length}`;
            expect(sameBytes(exact, data), label).toBe(true);
            expect(sameBytes(bounded, data), label).toBe(true);
          }
        }
      }
    }
  });

  it("the same errors: corrupt data, a wrong checksum, more data than the bound", async () => {
    const data = smoothField(50_000);
    const codec = new ZstdCodec({ level: 3, checksum: true });
    const frame = await codec.encode(data);
    const wrongChecksum = frame.slice();
    wrongChecksum[wrongChecksum.length - 1]! ^= 0x10;
    const truncated = frame.subarray(0, frame.length - 9);
    const cases: [Uint8Array, number | undefined, RegExp][] = [
      [wrongChecksum, data.length, /checksum mismatch/],
      [truncated, data.length, /cannot decode/],
      [stripContentSize(frame), 1000, /cannot decode|exceeds/],
    ];
    for (const [bytes, size, message] of cases) {
      const messages: string[] = [];
      for (const engine of ["native", "wasm"] as const) {
        const e = await withEngine(engine, () => codec.decode(bytes, size)).then(
          () => undefined,
          (x: unknown) => x,
        );
        expect(e, engine).toBeInstanceOf(CodecError);
        expect((e as Error).message, engine).toMatch(message);
        messages.push((e as Error).message);
      }
      expect(messages[0]).toBe(messages[1]);
    }
  });

  it("a bounded decode (no content size) keeps no slack: the output owns at most twice its bytes", async () => {
    const data = smoothField(10_000);
    const frame = stripContentSize(await new ZstdCodec().encode(data));
    const out = await withEngine("native", () =>
      new ZstdCodec().decode(frame, undefined, { maxDecodedSize: 64 * MiB }),
    );
    expect(sameBytes(out, data)).toBe(true);
    expect(out.buffer.byteLength).toBeLessThanOrEqual(2 * out.length + 4096);
  });
});

/** One frame of a raw block holding `data`, declaring window log `log` (RFC 8878 3.1.1.1.2). */
function frameWithWindow(log: number, data: Uint8Array): Uint8Array {
  const header = [0x28, 0xb5, 0x2f, 0xfd, 0x00, (log - 10) << 3];
  const block = (data.length << 3) | 1; // last block, raw
  return Uint8Array.from([...header, block & 0xff, (block >> 8) & 0xff, block >> 16, ...data]);
}

describe.skipIf(!hasNative)("native and WebAssembly zstd: the same limits", () => {
  it("windows up to 1 GiB decode (zstd --long writes them); 2 GiB is refused by both", async () => {
    const data = new TextEncoder().encode("hello from a long window");
    for (const log of [20, 27, 28, 30, 31]) {
      const frame = frameWithWindow(log, data);
      const outcomes = [];
      for (const engine of ["native", "wasm"] as const) {
        outcomes.push(
          await withEngine(engine, () => new ZstdCodec().decode(frame, data.length)).then(
            (out) => new TextDecoder().decode(out),
            (e: Error) => `${e.name}: ${e.message}`,
          ),
        );
      }
      expect(outcomes[0], `window log ${log}`).toBe(outcomes[1]);
      if (log <= 30) expect(outcomes[0]).toBe("hello from a long window");
      else expect(outcomes[0]).toMatch(/CodecError: .*too much memory/);
    }
  });

  it("level -1 is libzstd's -1 on both engines (node:zlib reads -1 as unset)", async () => {
    const data = smoothField(300_000);
    const frames: string[] = [];
    for (const engine of ["native", "wasm"] as const) {
      for (const level of [-1, 3]) {
        const frame = await withEngine(engine, () => new ZstdCodec({ level }).encode(data));
        frames.push(`${engine} ${level} ${frame.length}`);
      }
    }
    const [native1, native3, wasm1, wasm3] = frames.map((f) => Number(f.split(" ")[2]));
    expect(native1, frames.join(", ")).toBe(wasm1);
    expect(native3, frames.join(", ")).not.toBe(native1);
    expect(wasm3).toBeGreaterThan(0);
  });
});
