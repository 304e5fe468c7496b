import {
  AbortError,
  type AnyStore,
  InvalidRangeError,
  MemoryStore,
  StoreCapabilityError,
  StoreError,
} from "@zarr/core";
import {
  type ByteRange,
  rangeBounds,
  resolveStore,
  sliceRange,
  validateRange,
} from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const bytes = (...values: number[]) => Uint8Array.from(values);

/** A get-only store over `map` that records calls and in-flight requests. */
function recordingStore(map: Map<string, Uint8Array>, delayMs = 0) {
  const calls: { key: string; range?: ByteRange }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const store = {
    async get(key: string, range?: ByteRange) {
      calls.push({ key, range });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight--;
      const value = map.get(key);
      return value && sliceRange(value, range).slice();
    },
  };
  return { store, calls, maxInFlight: () => maxInFlight };
}

describe("resolveStore", () => {
  it("is idempotent and rejects non-stores", () => {
    const store = resolveStore(new MemoryStore());
    expect(resolveStore(store)).toBe(store);
    expect(() => resolveStore({} as AnyStore)).toThrow(StoreError);
    expect(() => resolveStore(null as unknown as AnyStore)).toThrow("not a store");
  });

  it("getPartialValues falls back to get with at most 16 requests in flight", async () => {
    const map = new Map([["k", bytes(1, 2, 3, 4)]]);
    const { store, calls, maxInFlight } = recordingStore(map, 2);
    const requests = Array.from({ length: 100 }, (_, i) => ({
      key: i % 3 === 0 ? "missing" : "k",
      range: { offset: i % 4, length: 1 },
    }));
    const values = await resolveStore(store).getPartialValues(requests);
    expect(calls).toHaveLength(100);
    expect(maxInFlight()).toBe(16);
    values.forEach((v, i) => {
      expect(v).toEqual(i % 3 === 0 ? undefined : bytes((i % 4) + 1));
    });
  });

  it("getPartialValues stops issuing requests once aborted", async () => {
    const { store, calls } = recordingStore(new Map(), 5);
    const controller = new AbortController();
    const pending = resolveStore(store).getPartialValues(
      Array.from({ length: 200 }, () => ({ key: "k" })),
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 1);
    await expect(pending).rejects.toThrow(AbortError);
    expect(calls.length).toBeLessThan(200);
  });

  it("uses a store's own getPartialValues and checks the number of values", async () => {
    const own = resolveStore({
      get: async () => undefined,
      getPartialValues: async () => [bytes(1)],
    });
    await expect(own.getPartialValues([{ key: "a" }, { key: "b" }])).rejects.toThrow(
      "returned 1 values for 2 requests",
    );
  });

  it("rejects a store that ignores ranges instead of returning wrong bytes", async () => {
    const sloppy = resolveStore({ get: async () => bytes(1, 2, 3, 4, 5) });
    await expect(sloppy.get("k", { offset: 1, length: 2 })).rejects.toThrow(
      /returned 5 bytes .* ignores byte ranges/,
    );
    await expect(sloppy.get("k", { suffix: 1 })).rejects.toThrow(StoreError);
    await expect(sloppy.get("k", { offset: 1 })).resolves.toHaveLength(5); // cannot tell
  });

  it("treats null as missing and rejects other non-Uint8Array values", async () => {
    expect(await resolveStore({ get: async () => null as unknown as undefined }).get("k")).toBe(
      undefined,
    );
    const bad = resolveStore({ get: async () => "text" as unknown as Uint8Array });
    await expect(bad.get("k")).rejects.toThrow(/returned string for key "k"/);
  });

  it("hands out plain Uint8Arrays when a store returns a Buffer", async () => {
    const store = resolveStore({ get: async () => Buffer.from([1, 2, 3]) });
    const value = await store.get("k");
    expect(value?.constructor).toBe(Uint8Array);
    expect(value).toEqual(bytes(1, 2, 3));
  });

  it("has() uses getSize when present, otherwise an empty range", async () => {
    const { store, calls } = recordingStore(new Map([["k", bytes(1, 2, 3)]]));
    const resolved = resolveStore(store);
    expect(await resolved.has("k")).toBe(true);
    expect(await resolved.has("nope")).toBe(false);
    expect(calls.map((c) => c.range)).toEqual([
      { offset: 0, length: 0 },
      { offset: 0, length: 0 },
    ]);
    const sized = resolveStore({
      get: async () => {
        throw new Error("get must not be called");
      },
      getSize: async (key: string) => (key === "k" ? 3 : undefined),
    });
    expect(await sized.has("k")).toBe(true);
    expect(await sized.has("x")).toBe(false);
  });

  it("rejects a malformed size from a store", async () => {
    const store = resolveStore({ get: async () => undefined, getSize: async () => -1 });
    await expect(store.getSize("k")).rejects.toThrow(/invalid size -1 for key "k"/);
  });

  it("setPartialValues falls back to one get and one set per key", async () => {
    const map = new Map([["a", bytes(1, 2, 3)]]);
    const log: string[] = [];
    const store = resolveStore({
      async get(key: string) {
        log.push(`get ${key}`);
        return map.get(key)?.slice();
      },
      async set(key: string, value: Uint8Array) {
        log.push(`set ${key}`);
        map.set(key, value.slice());
      },
    });
    await store.setPartialValues([
      { key: "a", offset: 1, value: bytes(9) },
      { key: "b", offset: 2, value: bytes(7, 7) },
      { key: "a", offset: 4, value: bytes(8) },
    ]);
    expect(map.get("a")).toEqual(bytes(1, 9, 3, 0, 8));
    expect(map.get("b")).toEqual(bytes(0, 0, 7, 7));
    expect(log.sort()).toEqual(["get a", "get b", "set a", "set b"]);
    expect(store.writable).toBe(false); // no erase
    await expect(store.erase("a")).rejects.toThrow(StoreCapabilityError);
  });

  it("rejects a write offset whose end is not a safe integer", async () => {
    const store = resolveStore(new MemoryStore());
    await expect(
      store.setPartialValues([{ key: "k", offset: Number.MAX_SAFE_INTEGER, value: bytes(1) }]),
    ).rejects.toThrow(/invalid write offset .* for key "k"/);
  });

  it("capability errors name the operation", async () => {
    const store = resolveStore({ get: async () => undefined });
    expect([store.writable, store.listable]).toEqual([false, false]);
    await expect(store.set("k", bytes(1))).rejects.toThrow("store does not support set");
    await expect(store.erase("k")).rejects.toThrow("store does not support erase");
    await expect(store.eraseValues(["k"])).rejects.toThrow("does not support eraseValues");
    await expect(store.erasePrefix("a/")).rejects.toThrow("does not support erasePrefix");
    await expect(
      store.setPartialValues([{ key: "k", offset: 0, value: bytes(1) }]),
    ).rejects.toThrow("does not support setPartialValues");
    const list = async () => {
      for await (const _ of store.list());
    };
    await expect(list()).rejects.toThrow("does not support list");
    await expect(store.listDir("")).rejects.toThrow("does not support listDir");
  });

  it("erasePrefix falls back to listing then erasing (collected first)", async () => {
    const map = new Map<string, Uint8Array>([
      ["a/1", bytes(1)],
      ["a/2", bytes(2)],
      ["ab/1", bytes(3)],
    ]);
    const store = resolveStore({
      get: async (key: string) => map.get(key),
      set: async (key: string, value: Uint8Array) => void map.set(key, value),
      erase: async (key: string) => void map.delete(key),
      // A live iterator: erasing during iteration would skip keys.
      list: async function* () {
        yield* map.keys();
      },
    });
    await store.erasePrefix("a/");
    expect([...map.keys()]).toEqual(["ab/1"]);
  });

  it("listDir from a store's own listDir is sorted and deduplicated", async () => {
    const store = resolveStore({
      get: async () => undefined,
      list: async function* () {},
      listDir: async () => ({ keys: ["b", "a", "b"], prefixes: ["z", "y", "z"] }),
    });
    expect(await store.listDir("")).toEqual({ keys: ["a", "b"], prefixes: ["y", "z"] });
  });

  it("listPrefix filters a store's list", async () => {
    const store = resolveStore({
      get: async () => undefined,
      list: async function* () {
        yield* ["a/1", "ab/2", "a/b/3", "b/4"];
      },
    });
    const keys: string[] = [];
    for await (const key of store.listPrefix("a/")) keys.push(key);
    expect(keys).toEqual(["a/1", "a/b/3"]);
    expect(await store.listDir("a/")).toEqual({ keys: ["1"], prefixes: ["b"] });
  });
});

describe("byte ranges (v3 core: partial values, range_start/range_length)", () => {
  it.each([
    [{ offset: -1 }, "offset must be"],
    [{ offset: 0.5 }, "offset must be"],
    [{ offset: 0, length: Number.NaN }, "length must be"],
    [{ suffix: -2 }, "suffix must be"],
    [{ suffix: 1, offset: 0 }, "not both"],
    [null, "not a range object"],
  ])("validateRange rejects %j", (range, reason) => {
    expect(() => validateRange(range as ByteRange, "c/0")).toThrow(InvalidRangeError);
    expect(() => validateRange(range as ByteRange, "c/0")).toThrow(reason);
    expect(() => validateRange(range as ByteRange, "c/0")).toThrow('for key "c/0"');
  });

  it("rangeBounds agrees with Array.prototype.slice semantics (property)", () => {
    const range: fc.Arbitrary<{ offset: number; length?: number } | { suffix: number }> = fc.oneof(
      fc.record({ offset: fc.nat(300) }),
      fc.record({ offset: fc.nat(300), length: fc.nat(300) }),
      fc.record({ suffix: fc.nat(300) }),
    );
    fc.assert(
      fc.property(fc.nat(200), range, (size, r) => {
        const [start, end] = rangeBounds(r, size);
        const ref = Array.from({ length: size }, (_, i) => i);
        const expected =
          "suffix" in r
            ? r.suffix === 0
              ? []
              : ref.slice(-r.suffix)
            : ref.slice(r.offset, r.length === undefined ? undefined : r.offset + r.length);
        expect(ref.slice(start, end)).toEqual(expected);
        expect(sliceRange(Uint8Array.from(ref), r)).toEqual(Uint8Array.from(expected));
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});

describe("resolveStore: getInto", () => {
  const value = Uint8Array.from({ length: 10 }, (_, i) => i + 1);

  it("without a native getInto: get, then a copy into the views in order (or the size when they do not fit)", async () => {
    const store = resolveStore(new MemoryStore(new Map([["k", value]])));
    const a = new Uint8Array(3);
    const b = new Uint8Array(7);
    expect(await store.getInto("k", [a, b])).toBe(10);
    expect([...a, ...b]).toEqual([...value]);
    const short = new Uint8Array(9);
    expect(await store.getInto("k", [short])).toBe(10);
    expect(short.every((x) => x === 0)).toBe(true);
    expect(await store.getInto("missing", [a])).toBeUndefined();
  });

  it("a store's getInto that returns no valid size is a StoreError naming the key and what it returned", async () => {
    for (const lie of [-1, 1.5, Number.NaN, 1e20, "10", 10n, {}]) {
      const store = resolveStore({
        get: async () => value,
        getInto: async () => lie as never,
      });
      const error = await store.getInto("c/0", [new Uint8Array(10)]).catch((e: unknown) => e);
      expect(error, String(lie)).toBeInstanceOf(StoreError);
      expect((error as Error).message).toContain('"c/0"');
      if (typeof lie !== "number") expect((error as Error).message).toContain(typeof lie);
    }
  });

  it("views must be Uint8Arrays", async () => {
    const store = resolveStore(new MemoryStore(new Map([["k", value]])));
    await expect(store.getInto("k", [new Uint16Array(5) as never])).rejects.toThrow(/Uint8Array/);
  });
});
