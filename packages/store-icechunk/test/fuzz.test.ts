// Mutated snapshot, manifest and repo info files (uncompressed payloads, so
// mutations reach the flatbuffer itself, and zstd-compressed ones): opening
// the store, listing it and reading every listed key either works (every
// value as long as its reported size) or throws a ZarrError: never a
// RangeError/TypeError, a hang, or an allocation beyond the file's size.
import { MemoryStore, ZarrError } from "@zarr/core";
import { IcechunkStore } from "@zarr/store-icechunk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readFlexBuffer } from "../src/flexbuffers.js";
import { buildRepository, makeId } from "./builder.js";
import { fixture } from "./helpers.js";

const RUNS = Math.max(100, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 20));

async function readAll(store: MemoryStore): Promise<string[]> {
  const ice = await IcechunkStore.open(store, {
    virtualChunkContainers: [],
    onlyTheseContainers: true,
  });
  const out: string[] = [];
  for await (const key of ice.list()) {
    const size = await ice.getSize(key);
    try {
      const value = await ice.get(key);
      expect(value?.length).toBe(size);
      out.push(key);
    } catch (e) {
      if (!(e instanceof ZarrError)) throw e;
    }
  }
  await ice.listDir("");
  return out.sort();
}

async function outcome(store: MemoryStore): Promise<string[] | "error"> {
  try {
    return await readAll(store);
  } catch (e) {
    if (e instanceof ZarrError) return "error";
    throw e;
  }
}

const mutation = fc.record({
  edits: fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), {
    minLength: 1,
    maxLength: 8,
  }),
  cut: fc.option(fc.nat(), { nil: undefined }),
});

function mutate(
  bytes: Uint8Array,
  m: { edits: { at: number; value: number }[]; cut?: number },
): Uint8Array {
  const out = bytes.slice(0, m.cut === undefined ? bytes.length : m.cut % (bytes.length + 1));
  for (const e of m.edits) if (out.length > 0) out[e.at % out.length] = e.value;
  return out;
}

async function builtRepo(compression: 0 | 1) {
  const nodeId = makeId(1, 8);
  const manifestId = makeId(2);
  return buildRepository({
    specVersion: 2,
    compression,
    nodes: [
      { path: "/", id: makeId(0, 8), zarrJson: { zarr_format: 3, node_type: "group" } },
      {
        path: "/a",
        id: nodeId,
        zarrJson: { zarr_format: 3, node_type: "array" },
        shape: [[4, 2]],
        manifests: [{ id: manifestId, extents: [[0, 2]] }],
      },
    ],
    manifests: [
      {
        id: manifestId,
        arrays: [
          {
            nodeId,
            refs: [
              { index: [0], inline: Uint8Array.of(1, 2) },
              { index: [1], chunkId: makeId(3), offset: 1, length: 2 },
            ],
          },
        ],
      },
    ],
    chunks: { [(await import("../src/ids.js")).encodeId(makeId(3))]: Uint8Array.of(0, 3, 4) },
  });
}

describe("fuzz: mutated repository files give a ZarrError or well-formed results", () => {
  for (const compression of [0, 1] as const) {
    for (const prefix of ["snapshots/", "manifests/", "repo"]) {
      it(`${prefix} (${compression ? "zstd" : "uncompressed"})`, async () => {
        const { store } = await builtRepo(compression);
        const reference = await outcome(store);
        expect(reference).not.toBe("error");
        const keys: string[] = [];
        for await (const k of store.list()) if (k.startsWith(prefix)) keys.push(k);
        const key = keys[0];
        const original = (await store.get(key)) as Uint8Array;
        await fc.assert(
          fc.asyncProperty(mutation, async (m) => {
            const bytes = mutate(original, m);
            await store.set(key, bytes);
            const result = await outcome(store);
            const same =
              bytes.length === original.length && bytes.every((b, i) => b === original[i]);
            if (same) expect(result).toEqual(reference);
          }),
          { numRuns: RUNS },
        );
      });
    }
  }

  it("the icechunk project's spec v2 repo info file (its FlexBuffers configuration included)", async () => {
    const source = fixture("test-repo-v2");
    const store = new MemoryStore();
    for await (const k of source.list()) {
      if (!k.startsWith("overwritten/")) await store.set(k, (await source.get(k)) as Uint8Array);
    }
    const original = (await store.get("repo")) as Uint8Array;
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        await store.set("repo", mutate(original, m));
        await outcome(store);
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it("the FlexBuffers reader on random bytes: a value or an Error, never a RangeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          readFlexBuffer(bytes);
        } catch (e) {
          expect(e).toBeInstanceOf(Error);
          expect((e as Error).message).toMatch(/^malformed FlexBuffer: /);
        }
      }),
      { numRuns: RUNS * 4 },
    );
  });
});
