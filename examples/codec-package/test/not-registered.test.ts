// This file never imports "zarr-codec-checksum32/register" statically: it checks
// what a user sees when they forget it, then that importing it is the whole fix.
// (vitest runs each test file in its own module graph, so other files'
// registrations do not leak in.)
import "@zarr/v2-compat/register";
import { MemoryStore, NotRegisteredError, openArray } from "@zarr/core";
import { codecRegistry } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";

const meta = (codecs: unknown[]) =>
  new TextEncoder().encode(
    JSON.stringify({
      zarr_format: 3,
      node_type: "array",
      shape: [4],
      data_type: "uint8",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
      chunk_key_encoding: { name: "default" },
      fill_value: 7,
      codecs,
    }),
  );

describe("without the register import", () => {
  it("opening data that uses the codec fails with a helpful NotRegisteredError", async () => {
    expect(codecRegistry.has("numcodecs.adler32")).toBe(false);
    const store = new MemoryStore([
      ["a/zarr.json", meta([{ name: "bytes" }, { name: "numcodecs.adler32" }])],
    ]);
    const error = await openArray(store, "a").then(
      async (a) => a.get(null),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotRegisteredError);
    const e = error as NotRegisteredError;
    expect(e.kind).toBe("codec");
    expect(e.extension).toBe("numcodecs.adler32");
    expect(e.message).toMatch(/codec "numcodecs.adler32" is not registered/);
    // Core's install hint names the maintained package for these ids.
    expect(e.message).toMatch(
      /install @zarr\/codec-checksums and import "@zarr\/codec-checksums\/register"/,
    );
  });

  it("so does v2 data whose compressor is the numcodecs id (v2 spec: compressor)", async () => {
    const zarray = {
      zarr_format: 2,
      shape: [4],
      chunks: [4],
      dtype: "|u1",
      compressor: { id: "adler32" },
      fill_value: 7,
      order: "C",
      filters: null,
    };
    const store = new MemoryStore([
      ["v2/.zarray", new TextEncoder().encode(JSON.stringify(zarray))],
    ]);
    const error = await openArray(store, "v2").then(
      async (a) => a.get(null),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotRegisteredError);
    expect((error as Error).message).toMatch(/codec "adler32" is not registered/);
  });

  it("importing the register entry point makes the same data readable", async () => {
    await import("zarr-codec-checksum32/register");
    expect(codecRegistry.has("numcodecs.adler32")).toBe(true);
    const store = new MemoryStore([
      ["a/zarr.json", meta([{ name: "bytes" }, { name: "numcodecs.adler32" }])],
    ]);
    const a = await openArray(store, "a");
    expect((await a.get(null)).data).toEqual(Uint8Array.of(7, 7, 7, 7));
  });
});
