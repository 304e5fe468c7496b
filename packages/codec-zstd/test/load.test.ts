// Loading libzstd's WebAssembly: every failure is a CodecError naming the
// codec and what to do, within a bounded time; a later call tries again. This
// file runs in its own module instance, so nothing is loaded when it starts.
import { ZstdCodec } from "@zarr/codec-zstd";
import { CodecError } from "@zarr/core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LOAD_TIMEOUT_MS, loadZstd, useNativeZstd, ZstdLoadError } from "../src/engine.js";
import { decodeBase64, gunzip, instantiateZstd } from "../src/wasm.js";
import { rleFrame } from "./helpers.js";

const frame = rleFrame(7, 1000);

async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: Error) => e,
  );
}

// Where Node has a native zstd (≥ 22.15) nothing is loaded; these tests are
// about the WebAssembly build that browsers and Node 20 use.
beforeAll(() => useNativeZstd(false));
afterAll(() => useNativeZstd(true));

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("loading libzstd", () => {
  it("a load that never settles rejects after the timeout (30 s by default)", async () => {
    expect(LOAD_TIMEOUT_MS).toBe(30_000);
    const started = Date.now();
    const e = await failure(loadZstd(200, () => new Promise(() => {})));
    expect(e).toBeInstanceOf(ZstdLoadError);
    expect(e.message).toMatch(/cannot load libzstd's WebAssembly module: .*within 0.2 s/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a module that does not compile (or CSP forbids WebAssembly) is a CodecError naming zstd and the fix", async () => {
    const compileError = new WebAssembly.CompileError("WebAssembly.instantiate(): refused by CSP");
    vi.spyOn(WebAssembly, "instantiate").mockRejectedValue(compileError);
    const codec = new ZstdCodec({ path: "a/zarr.json" });
    for (const run of [() => codec.decode(frame, 1000), () => codec.encode(new Uint8Array(10))]) {
      const e = await failure(run());
      expect(e).toBeInstanceOf(CodecError);
      expect(e.message).toMatch(
        /^zstd codec at "a\/zarr.json": cannot load libzstd's WebAssembly module: .*refused by CSP/,
      );
      expect(e.message).toMatch(/serve every chunk file your bundler emits/);
      expect(e.message).toMatch(/wasm-unsafe-eval/);
      expect((e.cause as Error).cause).toBe(compileError);
    }
  });

  it("no WebAssembly at all is a CodecError too", async () => {
    vi.stubGlobal("WebAssembly", undefined);
    const e = await failure(new ZstdCodec().decode(frame, 1000));
    expect(e).toBeInstanceOf(CodecError);
    expect(e.message).toMatch(/no WebAssembly/);
  });

  it("no DecompressionStream, or a module that is not gzip: a CodecError", async () => {
    vi.stubGlobal("DecompressionStream", undefined);
    const e = await failure(new ZstdCodec().decode(frame, 1000));
    expect(e).toBeInstanceOf(CodecError);
    expect(e.message).toMatch(/no DecompressionStream/);
    vi.unstubAllGlobals();
    await expect(gunzip(decodeBase64("AGFzbQEAAAAB/////w=="))).rejects.toThrow();
  });

  it("a failed load is not remembered: the next call loads", async () => {
    const out = await new ZstdCodec().decode(frame, 1000);
    expect(out.length).toBe(1000);
    expect(out.every((x) => x === 7)).toBe(true);
  });

  it("a module that is not the expected libzstd build is refused", async () => {
    // A valid module without the expected exports.
    const empty = decodeBase64("AGFzbQEAAAA=");
    await expect(instantiateZstd(empty)).rejects.toThrow(/LinkError|no memory export "f"/);
  });
});
