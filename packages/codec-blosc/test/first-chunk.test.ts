// The first chunk a process encodes or decodes runs in the WebAssembly kernels:
// the codec waits once for the module's first load instead of handing the
// chunks that arrive meanwhile to the slower TypeScript code (the first write
// of a process encoded its first chunks in TypeScript; bench/RESULTS.md).
// Each case imports fresh module instances, so the kernels start unloaded.
import { smoothField } from "@zarr/test-utils";
import { beforeEach, describe, expect, it, vi } from "vitest";

type Kernels = typeof import("../src/kernels.js");
type Api = typeof import("../src/api.js");

async function fresh(): Promise<{
  kernels: Kernels;
  api: Api;
  helpers: typeof import("./helpers.js");
}> {
  vi.resetModules();
  const kernels = await import("../src/kernels.js");
  const api = await import("../src/api.js");
  const helpers = await import("./helpers.js");
  return { kernels, api, helpers };
}

/** Byte equality (vitest's deep equality walks a MiB element by element, slowly). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

describe("the first chunk of a process", () => {
  beforeEach(() => vi.resetModules());
  const field = smoothField(1 << 20);

  for (const [cname, shuffle] of [
    ["lz4", 1],
    ["blosclz", 2],
    ["lz4", 0],
  ] as const) {
    it(`is encoded in the kernels (${cname}, shuffle ${shuffle})`, async () => {
      const { kernels, api, helpers } = await fresh();
      expect(kernels.kernelChunkCounts()).toEqual({ encoded: 0, decoded: 0, unshuffled: 0 });
      const codec = helpers.makeCodec({ cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 }, 4);
      const chunk = await codec.encode(field);
      expect(kernels.kernelChunkCounts().encoded).toBe(1);
      // The same bytes as the TypeScript encoder's.
      kernels.useBlockKernels(false);
      const params = { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 };
      expect(sameBytes(api.bloscCompressSync(field, params), chunk)).toBe(true);
      kernels.useBlockKernels(true);
    });
  }

  it("is decoded in the kernels", async () => {
    const { kernels, api, helpers } = await fresh();
    kernels.useBlockKernels(false); // a chunk from the TypeScript encoder; nothing starts loading
    const params = { cname: "lz4", clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 } as const;
    const chunk = api.bloscCompressSync(field, params);
    kernels.useBlockKernels(true);
    const codec = helpers.makeCodec(params, 4);
    const decoded = await codec.decode(chunk);
    expect(kernels.kernelChunkCounts()).toEqual({ encoded: 0, decoded: 1, unshuffled: 0 });
    expect(sameBytes(decoded as Uint8Array, field)).toBe(true);
  });

  // zstd and zlib streams decode outside the kernels, but their blocks unshuffle
  // there: the first chunk waits for the kernels too (a shuffled zstd read ran
  // nearly all its blocks through the TypeScript unshuffle while they loaded).
  for (const [cname, shuffle] of [
    ["zstd", 1],
    ["zlib", 2],
  ] as const) {
    it(`has its blocks unshuffled in the kernels (${cname}, shuffle ${shuffle})`, async () => {
      const { kernels, helpers } = await fresh();
      await import("@zarr/codec-zstd/register");
      await import("@zarr/codec-gzip/register");
      kernels.useBlockKernels(false); // a chunk from the TypeScript shuffle; nothing starts loading
      const params = { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 } as const;
      const chunk = await helpers.makeCodec(params, 4).encode(field);
      kernels.useBlockKernels(true);
      const decoded = await helpers.makeCodec(params, 4).decode(chunk);
      expect(kernels.kernelChunkCounts().unshuffled).toBeGreaterThan(0);
      expect(sameBytes(decoded as Uint8Array, field)).toBe(true);
    });
  }

  it("waits for nothing when the kernels are off", async () => {
    const { kernels, helpers } = await fresh();
    kernels.useBlockKernels(false);
    const codec = helpers.makeCodec({ cname: "lz4", clevel: 5, shuffle: 1, typesize: 4 }, 4);
    // Synchronous: no load is started or awaited.
    expect(codec.encode(field)).toBeInstanceOf(Uint8Array);
    expect(kernels.kernelChunkCounts().encoded).toBe(0);
    kernels.useBlockKernels(true);
  });
});
