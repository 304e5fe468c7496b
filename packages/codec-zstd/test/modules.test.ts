// The WebAssembly build is two modules: a decoder-only one that reads load,
// and a full one that only encoding loads (README, "Loading"). This file runs
// in its own module instance, so nothing is loaded when it starts.
import { ZstdCodec } from "@zarr/codec-zstd";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useNativeZstd } from "../src/engine.js";
import { decodeBase64, instantiateZstdDecoder } from "../src/wasm.js";
import { rleFrame } from "./helpers.js";

beforeAll(() => useNativeZstd(false));
afterAll(() => useNativeZstd(true));

/** Export names of the modules instantiated so far. */
function instantiated(spy: { mock: { calls: unknown[][] } }): string[][] {
  return spy.mock.calls.map(([bytes]) =>
    WebAssembly.Module.exports(new WebAssembly.Module(bytes as BufferSource)).map((e) => e.name),
  );
}

describe("libzstd's WebAssembly modules", () => {
  it("a decode loads only the decoder; the first encode loads the full module", async () => {
    const spy = vi.spyOn(WebAssembly, "instantiate");
    const codec = new ZstdCodec({ level: 5, checksum: true });
    expect(await codec.decode(rleFrame(7, 1000), 1000)).toEqual(new Uint8Array(1000).fill(7));
    let loaded = instantiated(spy);
    expect(loaded).toHaveLength(1);
    expect(loaded[0]).toContain("ZSTD_decompress");
    expect(loaded[0]).not.toContain("ZSTD_compress");
    // The encoder's module (minified export names) comes with the first encode...
    const values = new Uint8Array(200_000).map((_, i) => (i * 7) % 251);
    const frame = await codec.encode(values);
    loaded = instantiated(spy);
    expect(loaded).toHaveLength(2);
    expect(loaded[1]).toContain("m");
    // ...and the decoder reads what it writes; later calls instantiate nothing.
    expect(await codec.decode(frame, values.length)).toEqual(values);
    await codec.encode(values);
    expect(instantiated(spy)).toHaveLength(2);
    spy.mockRestore();
  });

  it("a module that is not the expected decoder build is refused", async () => {
    const empty = decodeBase64("AGFzbQEAAAA=");
    await expect(instantiateZstdDecoder(empty)).rejects.toThrow(/no memory export "memory"/);
  });
});

describe("memory of the WebAssembly modules", () => {
  it("a module whose memory grew past the limit is replaced by a fresh one, without failing a call", async () => {
    // WebAssembly memory never shrinks: one huge decode would otherwise keep
    // its memory for the life of the process (attack, 2026-11-27).
    const { setRetainLimit } = await import("../src/engine.js");
    setRetainLimit(40 * 1024 * 1024); // above a fresh module's initial memory (16 MiB)
    try {
      const codec = new ZstdCodec({ level: 1 });
      const big = 48 * 1024 * 1024;
      const frame = await codec.encode(new Uint8Array(big).fill(3));
      expect((await codec.decode(frame, big)).length).toBe(big);
      const spy = vi.spyOn(WebAssembly, "instantiate");
      // Concurrent calls while the replacement loads still decode with the old module...
      const small = await Promise.all(
        Array.from({ length: 4 }, () => codec.decode(rleFrame(5, 1000), 1000)),
      );
      for (const out of small) expect(out.every((x) => x === 5)).toBe(true);
      // ...and once it has loaded, the fresh one (small memory) serves.
      await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
      await spy.mock.results[0]!.value;
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect((await codec.decode(rleFrame(7, 1000), 1000)).every((x) => x === 7)).toBe(true);
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockRestore();
    } finally {
      setRetainLimit(256 * 1024 * 1024);
    }
  });
});
