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
