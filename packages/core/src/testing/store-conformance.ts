/**
 * The store conformance suite: the behaviour of the v3 abstract store interface
 * ("Abstract store interface" of the core spec) as checks any store package runs
 * against itself.
 *
 * @module
 */

import { AbortError, InvalidKeyError, StoreCapabilityError, StoreError } from "../errors.js";
import { InvalidRangeError } from "../store/range.js";
import { resolveStore } from "../store/resolve.js";
import type { AnyStore, ByteRange, Store } from "../store/types.js";
import { check, checkBytes, checkEqual, checkRejects, collect, pattern, utf8 } from "./assert.js";

/** How a store under test is created and what it supports. */
export interface StoreConformanceOptions {
  /**
   * Creates a fresh store holding exactly `initial` (each case gets its own
   * store). Read-only stores get all their data this way.
   */
  create(initial: ReadonlyMap<string, Uint8Array>): Promise<AnyStore>;
  /** Releases a store made by `create` (close handles, remove temp dirs). */
  destroy?(store: AnyStore): Promise<void>;
  /** The store has `set` and `erase` (default `true`). */
  writable?: boolean;
  /** The store has `list` (default `true`). */
  listable?: boolean;
  /** `setPartialValues` works, natively or through core's fallback (default: `writable`). */
  supportsPartialWrites?: boolean;
}

/** One named check; `run` rejects with a message saying what went wrong. */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

/** Keys a store must reject before they reach it. */
const ESCAPING_KEYS = ["../x", "/abs", "a/../b", "a\\b", "a\0b", "a//b", "./x", "a/", "", ".."];

const UNICODE_KEYS = ["grp with spaces/数据/zarr.json", "ünïcødé/🙂/c/0", " lead and trail /x "];

const MiB = 1 << 20;

/**
 * Returns the conformance cases for a store. Framework-agnostic: each case is a
 * name and an async function that throws on failure. Each case creates its own
 * store through `options.create` and uses it through {@link resolveStore}, so
 * it checks the store together with core's validation and fallbacks.
 *
 * The suite never stores a key that is also a prefix of another key (both `a`
 * and `a/b`), which file-system-like stores cannot represent and Zarr
 * hierarchies never need. Byte ranges must be honoured by `get` (including
 * zero-length ranges, which `has` uses); core rejects a store that returns
 * more bytes than a range asked for.
 *
 * @example
 * // in a vitest (or jest, or node:test) file
 * import { storeConformanceCases } from "@zarr/core/testing";
 * for (const c of storeConformanceCases({ create: async (initial) => new MemoryStore(initial) })) {
 *   it(c.name, c.run);
 * }
 */
export function storeConformanceCases(options: StoreConformanceOptions): ConformanceCase[] {
  const writable = options.writable ?? true;
  const listable = options.listable ?? true;
  const partialWrites = options.supportsPartialWrites ?? writable;

  async function withStore(
    initial: Record<string, Uint8Array> | ReadonlyMap<string, Uint8Array>,
    body: (store: Store, raw: AnyStore) => Promise<void>,
  ): Promise<void> {
    const map = initial instanceof Map ? initial : new Map(Object.entries(initial));
    const raw = await options.create(map);
    try {
      await body(resolveStore(raw), raw);
    } finally {
      await options.destroy?.(raw);
    }
  }

  const cases: ConformanceCase[] = [];
  const add = (name: string, run: () => Promise<void>) => cases.push({ name, run });

  // ---- readable -----------------------------------------------------------

  add("get: a missing key is undefined, not an error", () =>
    withStore({ "a/b": utf8("x") }, async (store) => {
      for (const key of ["missing", "a", "a/b/c", "a/bb", "A/b"]) {
        checkBytes(await store.get(key), undefined, `get("${key}")`);
        checkBytes(
          await store.get(key, { offset: 0, length: 1 }),
          undefined,
          `ranged get("${key}")`,
        );
        checkBytes(await store.get(key, { suffix: 1 }), undefined, `suffix get("${key}")`);
        check((await store.getSize(key)) === undefined, `getSize("${key}") should be undefined`);
        check((await store.has(key)) === false, `has("${key}") should be false`);
      }
      check((await store.has("a/b")) === true, `has("a/b") should be true`);
    }),
  );

  add("get: values of 0 bytes, 1 byte and 1 MiB", () => {
    const values = { empty: new Uint8Array(0), one: utf8("z"), "big/value": pattern(MiB, 1) };
    return withStore(values, async (store) => {
      for (const [key, value] of Object.entries(values)) {
        checkBytes(await store.get(key), value, `get("${key}")`);
        check((await store.getSize(key)) === value.length, `getSize("${key}") = ${value.length}`);
        check((await store.has(key)) === true, `has("${key}") should be true`);
      }
    });
  });

  add("get: returned values are not aliased with the store", () =>
    withStore({ k: pattern(64, 2) }, async (store) => {
      const first = await store.get("k");
      first?.fill(0);
      const part = await store.get("k", { offset: 8, length: 8 });
      part?.fill(0);
      checkBytes(await store.get("k"), pattern(64, 2), "get after mutating earlier results");
    }),
  );

  add("release: memory handed back is reused only for later values, never shared", () =>
    withStore(
      { a: pattern(MiB, 21), b: pattern(MiB, 22), c: pattern(MiB, 23), s: pattern(100, 24) },
      async (store) => {
        for (let round = 0; round < 3; round++) {
          const a = await store.get("a");
          const s = await store.get("s", { offset: 10, length: 50 });
          if (a) store.release(a);
          if (s) store.release(s);
          const [b, c] = await Promise.all([store.get("b"), store.get("c")]);
          checkBytes(b, pattern(MiB, 22), "get after a release");
          checkBytes(c, pattern(MiB, 23), "concurrent get after a release");
          b?.fill(0);
          checkBytes(c, pattern(MiB, 23), "a value after writing to another live value");
          checkBytes(await store.get("a"), pattern(MiB, 21), "get of a released key");
          if (b) store.release(b);
          if (c) store.release(c);
        }
      },
    ),
  );

  add("getInto: a value read into views laid end to end, or its size when they do not fit", () => {
    const big = pattern(MiB + 3, 25);
    const values = { empty: new Uint8Array(0), one: utf8("z"), "big/value": big };
    return withStore(values, async (store) => {
      for (const [key, value] of Object.entries(values)) {
        // Views over one buffer, taken back to front: the value must land in view order.
        const memory = new Uint8Array(value.length);
        const views = splitBackToFront(memory, value.length > 1000 ? 1500 : 1);
        check((await store.getInto(key, views)) === value.length, `getInto("${key}") size`);
        checkBytes(concat(views), value, `getInto("${key}") contents`);
      }
      for (const extra of [-1, 5]) {
        const views = [new Uint8Array(big.length + extra)];
        check(
          (await store.getInto("big/value", views)) === big.length,
          `getInto into ${big.length + extra} bytes of a ${big.length}-byte value gives its size`,
        );
      }
      check(
        (await store.getInto("missing", [new Uint8Array(4)])) === undefined,
        "getInto of a missing key is undefined",
      );
      for (const key of ESCAPING_KEYS) {
        await checkRejects(
          () => store.getInto(key, [new Uint8Array(1)]),
          InvalidKeyError,
          `getInto(${JSON.stringify(key)})`,
        );
      }
    });
  });

  add("get: byte ranges (offset, length, suffix, clipping)", () => {
    const value = pattern(100, 3);
    const empty = new Uint8Array(0);
    const big = pattern(MiB, 4);
    return withStore({ v: value, e: empty, big }, async (store) => {
      const cases: [ByteRange, number, number][] = [
        [{ offset: 0 }, 0, 100],
        [{ offset: 10 }, 10, 100],
        [{ offset: 10, length: 20 }, 10, 30],
        [{ offset: 0, length: 100 }, 0, 100],
        [{ offset: 90, length: 50 }, 90, 100], // length past the end: clipped
        [{ offset: 100 }, 100, 100], // offset at the end: empty
        [{ offset: 150 }, 100, 100], // offset past the end: empty
        [{ offset: 150, length: 10 }, 100, 100],
        [{ offset: 5, length: 0 }, 5, 5], // zero length: empty
        [{ suffix: 10 }, 90, 100],
        [{ suffix: 100 }, 0, 100],
        [{ suffix: 1000 }, 0, 100], // suffix larger than the value: all of it
        [{ suffix: 0 }, 100, 100],
      ];
      for (const [range, start, end] of cases) {
        checkBytes(
          await store.get("v", range),
          value.subarray(start, end),
          `get("v", ${JSON.stringify(range)})`,
        );
      }
      for (const range of [{ offset: 0 }, { offset: 3, length: 2 }, { suffix: 4 }]) {
        checkBytes(await store.get("e", range), empty, `get("e", ${JSON.stringify(range)})`);
      }
      checkBytes(
        await store.get("big", { offset: 500_000, length: 1000 }),
        big.subarray(500_000, 501_000),
        "range in the middle of a 1 MiB value",
      );
      checkBytes(await store.get("big", { suffix: 7 }), big.subarray(MiB - 7), "suffix of 1 MiB");
    });
  });

  add("get: malformed ranges are rejected with InvalidRangeError", () =>
    withStore({ v: pattern(10, 5) }, async (store) => {
      const bad = [
        { offset: -1 },
        { offset: 1.5 },
        { offset: Number.NaN },
        { offset: 2 ** 53 },
        { offset: 0, length: -1 },
        { offset: 0, length: Number.POSITIVE_INFINITY },
        { suffix: -1 },
        { suffix: 0.5 },
        { suffix: 1, offset: 0 },
      ] as ByteRange[];
      for (const range of bad) {
        const what = `get("v", ${String(JSON.stringify(range))})`;
        await checkRejects(() => store.get("v", range), InvalidRangeError, what);
        await checkRejects(
          () => store.getPartialValues([{ key: "v", range }]),
          InvalidRangeError,
          `getPartialValues with ${what}`,
        );
      }
    }),
  );

  add("getPartialValues: order kept, missing keys undefined, keys repeated", () => {
    const a = pattern(50, 6);
    const b = pattern(20, 7);
    return withStore({ "x/a": a, "x/b": b }, async (store) => {
      checkEqual(await store.getPartialValues([]), [], "getPartialValues([])");
      const values = await store.getPartialValues([
        { key: "x/a", range: { offset: 5, length: 10 } },
        { key: "x/missing" },
        { key: "x/a" },
        { key: "x/b", range: { suffix: 5 } },
        { key: "x/missing", range: { offset: 1 } },
        { key: "x/a", range: { offset: 45, length: 10 } },
        { key: "x/b", range: { offset: 30 } },
      ]);
      check(values.length === 7, `expected 7 values, got ${values.length}`);
      checkBytes(values[0], a.subarray(5, 15), "request 0 (range of x/a)");
      checkBytes(values[1], undefined, "request 1 (missing)");
      checkBytes(values[2], a, "request 2 (all of x/a)");
      checkBytes(values[3], b.subarray(15), "request 3 (suffix of x/b)");
      checkBytes(values[4], undefined, "request 4 (missing, ranged)");
      checkBytes(values[5], a.subarray(45), "request 5 (clipped range of x/a)");
      checkBytes(values[6], new Uint8Array(0), "request 6 (offset past the end)");
    });
  });

  add("keys: spaces and Unicode are valid keys", () => {
    const initial = new Map(UNICODE_KEYS.map((k, i) => [k, pattern(10 + i, 10 + i)] as const));
    return withStore(initial, async (store) => {
      for (const [key, value] of initial) checkBytes(await store.get(key), value, `get("${key}")`);
      if (listable) {
        checkEqual(
          (await collect(store.list())).sort(),
          [...initial.keys()].sort(),
          "list() with Unicode keys",
        );
        checkEqual(
          await store.listDir("grp with spaces/"),
          { keys: [], prefixes: ["数据"] },
          'listDir("grp with spaces/")',
        );
      }
    });
  });

  add("keys: escaping or malformed keys are rejected on read (InvalidKeyError)", () =>
    withStore({ x: utf8("x"), "a/b": utf8("b") }, async (store) => {
      for (const key of ESCAPING_KEYS) {
        const what = JSON.stringify(key);
        await checkRejects(() => store.get(key), InvalidKeyError, `get(${what})`);
        await checkRejects(
          () => store.get(key, { suffix: 1 }),
          InvalidKeyError,
          `get(${what}, suffix)`,
        );
        await checkRejects(() => store.getSize(key), InvalidKeyError, `getSize(${what})`);
        await checkRejects(() => store.has(key), InvalidKeyError, `has(${what})`);
        await checkRejects(
          () => store.getPartialValues([{ key: "x" }, { key }]),
          InvalidKeyError,
          `getPartialValues with ${what}`,
        );
      }
      if (listable) {
        for (const prefix of ["../", "/", "/a/", "a", "a//", "./", "a\\b/"]) {
          const what = JSON.stringify(prefix);
          await checkRejects(
            () => collect(store.listPrefix(prefix)),
            InvalidKeyError,
            `listPrefix(${what})`,
          );
          await checkRejects(() => store.listDir(prefix), InvalidKeyError, `listDir(${what})`);
        }
      }
    }),
  );

  add("abort: an already aborted signal rejects with AbortError", () =>
    withStore({ k: utf8("v") }, async (store) => {
      const controller = new AbortController();
      controller.abort(new Error("stop"));
      const signal = controller.signal;
      await checkRejects(() => store.get("k", undefined, { signal }), AbortError, "get");
      await checkRejects(() => store.get("k", { suffix: 1 }, { signal }), AbortError, "ranged get");
      await checkRejects(
        () => store.getPartialValues([{ key: "k" }], { signal }),
        AbortError,
        "getPartialValues",
      );
      await checkRejects(() => store.getSize("k", { signal }), AbortError, "getSize");
      await checkRejects(() => store.has("k", { signal }), AbortError, "has");
      if (writable) {
        await checkRejects(() => store.set("k2", utf8("w"), { signal }), AbortError, "set");
        await checkRejects(() => store.erase("k", { signal }), AbortError, "erase");
        await checkRejects(() => store.eraseValues(["k"], { signal }), AbortError, "eraseValues");
        await checkRejects(() => store.erasePrefix("", { signal }), AbortError, "erasePrefix");
        checkBytes(await store.get("k"), utf8("v"), "value after aborted writes");
        checkBytes(await store.get("k2"), undefined, "key of an aborted set");
      }
      if (listable) {
        await checkRejects(() => collect(store.list({ signal })), AbortError, "list");
        await checkRejects(
          () => collect(store.listPrefix("", { signal })),
          AbortError,
          "listPrefix",
        );
        await checkRejects(() => store.listDir("", { signal }), AbortError, "listDir");
      }
    }),
  );

  add("capabilities: writable and listable flags match the store", () =>
    withStore({}, async (store, raw) => {
      check(store.readable === true, "readable should be true");
      check(
        store.writable === writable,
        `writable is ${store.writable}, the suite was told ${writable}`,
      );
      check(
        store.listable === listable,
        `listable is ${store.listable}, the suite was told ${listable}`,
      );
      check(resolveStore(store) === store, "resolveStore of a resolved store returns it unchanged");
      if (typeof raw.set !== "function") {
        await checkRejects(() => store.set("k", utf8("v")), StoreCapabilityError, "set");
      }
      if (typeof raw.erase !== "function") {
        await checkRejects(() => store.erase("k"), StoreCapabilityError, "erase");
      }
      if (!listable) {
        await checkRejects(() => collect(store.list()), StoreCapabilityError, "list");
      }
    }),
  );

  // ---- writable -----------------------------------------------------------

  if (writable) {
    add("set: round trip of 0 bytes, 1 byte and 1 MiB", () =>
      withStore({}, async (store) => {
        const values = {
          "r/empty": new Uint8Array(0),
          "r/one": utf8("1"),
          "r/big": pattern(MiB, 11),
          "zarr.json": utf8("{}"),
        };
        for (const [key, value] of Object.entries(values)) await store.set(key, value);
        for (const [key, value] of Object.entries(values)) {
          checkBytes(await store.get(key), value, `get("${key}") after set`);
          check((await store.getSize(key)) === value.length, `getSize("${key}") after set`);
        }
        checkBytes(
          await store.get("r/big", { offset: MiB - 10, length: 20 }),
          values["r/big"].subarray(MiB - 10),
          "range of a written value",
        );
      }),
    );

    add("set: overwrite with longer and shorter values", () =>
      withStore({ k: pattern(10, 12) }, async (store) => {
        for (const [i, size] of [1000, 3, 0, 77].entries()) {
          const value = pattern(size, 20 + i);
          await store.set("k", value);
          checkBytes(await store.get("k"), value, `get after overwrite #${i} (${size} bytes)`);
          check((await store.getSize("k")) === size, `getSize after overwrite #${i}`);
        }
      }),
    );

    add("set: the store keeps its own copy of the value", () =>
      withStore({}, async (store) => {
        const input = pattern(32, 13);
        await store.set("k", input);
        input.fill(0);
        checkBytes(await store.get("k"), pattern(32, 13), "get after mutating the input of set");
        const backing = pattern(64, 14);
        await store.set("view", backing.subarray(16, 40));
        checkBytes(await store.get("view"), pattern(64, 14).subarray(16, 40), "set of a subarray");
      }),
    );

    add("setFrom: views laid end to end store what set of their concatenation stores", () =>
      withStore({ over: pattern(5000, 40) }, async (store) => {
        const whole = pattern(3007, 41);
        // 1,500 views (more than one gathering write takes), empty views among them.
        const many = Array.from({ length: 1500 }, (_, i) =>
          i % 7 === 3 ? new Uint8Array(0) : whole.subarray(2 * i, 2 * i + 2),
        );
        const cases: Record<string, Uint8Array[]> = {
          rows: [whole.subarray(0, 1000), whole.subarray(1000, 2000), whole.subarray(2000)],
          none: [],
          many,
          over: [whole.subarray(0, 10)],
        };
        // What set of the concatenation would store (copied before the views change).
        const expected = Object.entries(cases).map(([key, from]) => [key, concat(from)] as const);
        for (const [key, from] of Object.entries(cases)) await store.setFrom(key, from);
        whole.fill(0); // the store keeps its own copy
        for (const [key, value] of expected) {
          checkBytes(await store.get(key), value, `get("${key}") after setFrom`);
          check((await store.getSize(key)) === value.length, `getSize("${key}") after setFrom`);
        }
        await checkRejects(
          () => store.setFrom("bad", [new Uint16Array(2) as unknown as Uint8Array]),
          StoreError,
          "setFrom of a Uint16Array view",
        );
        checkBytes(await store.get("bad"), undefined, "nothing written by a rejected setFrom");
      }),
    );

    add("set: rejects values that are not Uint8Array", () =>
      withStore({}, async (store) => {
        for (const value of ["text", [1, 2], new Uint16Array(2), null]) {
          await checkRejects(
            () => store.set("k", value as unknown as Uint8Array),
            StoreError,
            `set of ${Object.prototype.toString.call(value)}`,
          );
        }
        checkBytes(await store.get("k"), undefined, "nothing written");
      }),
    );

    add("set: keys with spaces and Unicode round trip", () =>
      withStore({}, async (store) => {
        for (const [i, key] of UNICODE_KEYS.entries()) await store.set(key, pattern(5, 30 + i));
        for (const [i, key] of UNICODE_KEYS.entries()) {
          checkBytes(await store.get(key), pattern(5, 30 + i), `get("${key}")`);
        }
        if (listable) {
          checkEqual((await collect(store.list())).sort(), [...UNICODE_KEYS].sort(), "list()");
        }
      }),
    );

    add("set: 64 concurrent sets, then gets; concurrent overwrites of one key", () =>
      withStore({}, async (store) => {
        const keys = Array.from({ length: 64 }, (_, i) => `conc/${i % 8}/${i}`);
        await Promise.all(keys.map((key, i) => store.set(key, pattern(100 + i * 37, 40 + i))));
        const got = await Promise.all(keys.map((key) => store.get(key)));
        for (const [i, value] of got.entries()) {
          checkBytes(value, pattern(100 + i * 37, 40 + i), keys[i]);
        }
        const candidates = Array.from({ length: 16 }, (_, i) => pattern(4096 + i, 200 + i));
        await Promise.all(candidates.map((value) => store.set("same", value)));
        const final = await store.get("same");
        check(
          candidates.some((c) => final?.length === c.length && c.every((b, j) => final[j] === b)),
          "after concurrent sets of one key, its value must be exactly one of the values written",
        );
      }),
    );

    add("erase: existing and missing keys", () =>
      withStore({ "a/b": utf8("1"), "a/c": utf8("2"), "d/e/f": utf8("3") }, async (store) => {
        await store.erase("a/b");
        checkBytes(await store.get("a/b"), undefined, "erased key");
        checkBytes(await store.get("a/c"), utf8("2"), "sibling of an erased key");
        await store.erase("a/b"); // again: not an error
        await store.erase("never/was/here");
        await store.erase("d"); // a prefix, not a key: nothing to erase
        await store.erase("d/e");
        checkBytes(await store.get("d/e/f"), utf8("3"), "key under a 'prefix' passed to erase");
        await store.erase("d/e/f");
        check((await store.has("d/e/f")) === false, "has after erase");
      }),
    );

    add("eraseValues: removes exactly the given keys", () =>
      withStore(
        { "k/1": utf8("1"), "k/2": utf8("2"), "k/3": utf8("3"), "k/4": utf8("4") },
        async (store) => {
          await store.eraseValues(["k/1", "k/3", "k/missing", "k/1"]);
          await store.eraseValues([]);
          checkBytes(await store.get("k/1"), undefined, "k/1");
          checkBytes(await store.get("k/2"), utf8("2"), "k/2");
          checkBytes(await store.get("k/3"), undefined, "k/3");
          checkBytes(await store.get("k/4"), utf8("4"), "k/4");
        },
      ),
    );

    add("erasePrefix: removes only keys under the prefix", () => {
      const initial = {
        "a/x": utf8("1"),
        "a/y/z": utf8("2"),
        "a/y/w/v": utf8("3"),
        "ab/x": utf8("4"),
        "b/a/x": utf8("5"),
        "zarr.json": utf8("6"),
      };
      return withStore(initial, async (store, raw) => {
        if (typeof raw.erasePrefix !== "function" && !listable) {
          await checkRejects(() => store.erasePrefix("a/"), StoreCapabilityError, "erasePrefix");
          return;
        }
        await store.erasePrefix("a/y/");
        checkBytes(await store.get("a/y/z"), undefined, "a/y/z after erasePrefix('a/y/')");
        checkBytes(await store.get("a/y/w/v"), undefined, "a/y/w/v after erasePrefix('a/y/')");
        checkBytes(await store.get("a/x"), utf8("1"), "a/x after erasePrefix('a/y/')");
        await store.erasePrefix("a/");
        await store.erasePrefix("nothing/here/");
        checkBytes(await store.get("a/x"), undefined, "a/x after erasePrefix('a/')");
        checkBytes(await store.get("ab/x"), utf8("4"), "ab/x must survive erasePrefix('a/')");
        checkBytes(await store.get("b/a/x"), utf8("5"), "b/a/x must survive erasePrefix('a/')");
        checkBytes(await store.get("zarr.json"), utf8("6"), "zarr.json after erasePrefix('a/')");
        await checkRejects(() => store.erasePrefix("ab"), InvalidKeyError, "erasePrefix('ab')");
        checkBytes(await store.get("ab/x"), utf8("4"), "ab/x after a rejected erasePrefix");
        await store.erasePrefix("");
        for (const key of Object.keys(initial)) {
          checkBytes(await store.get(key), undefined, `${key} after erasePrefix('')`);
        }
        if (listable) checkEqual(await collect(store.list()), [], "list() after erasePrefix('')");
      });
    });

    add("keys: escaping or malformed keys are rejected on write, nothing is written", () =>
      withStore({ "a/b": utf8("b") }, async (store) => {
        const value = utf8("evil");
        for (const key of ESCAPING_KEYS) {
          const what = JSON.stringify(key);
          await checkRejects(() => store.set(key, value), InvalidKeyError, `set(${what})`);
          await checkRejects(() => store.erase(key), InvalidKeyError, `erase(${what})`);
          await checkRejects(
            () => store.eraseValues(["a/b", key]),
            InvalidKeyError,
            `eraseValues with ${what}`,
          );
          await checkRejects(
            () => store.setPartialValues([{ key, offset: 0, value }]),
            InvalidKeyError,
            `setPartialValues with ${what}`,
          );
        }
        for (const prefix of ["../", "/", "a", "a//", "..//"]) {
          await checkRejects(
            () => store.erasePrefix(prefix),
            InvalidKeyError,
            `erasePrefix(${JSON.stringify(prefix)})`,
          );
        }
        checkBytes(await store.get("a/b"), utf8("b"), "a/b after rejected operations");
        for (const key of ["x", "b", "abs", "a/x", "x/b"]) {
          checkBytes(await store.get(key), undefined, `"${key}" must not have been written`);
        }
        if (listable) {
          checkEqual(await collect(store.list()), ["a/b"], "list() after rejected writes");
        }
      }),
    );

    if (partialWrites) {
      add("setPartialValues: patch, extend with zeros, create, several writes per key", () =>
        withStore({ p: pattern(20, 50), q: pattern(5, 51) }, async (store) => {
          await store.setPartialValues([
            { key: "p", offset: 2, value: utf8("AB") },
            { key: "p", offset: 18, value: utf8("XYZW") }, // extends p to 22 bytes
            { key: "q", offset: 8, value: utf8("Q") }, // zero-fills q[5..8)
            { key: "new/key", offset: 3, value: utf8("N") },
          ]);
          const p = pattern(22, 50);
          p.set(pattern(20, 50).subarray(0, 20));
          p.set(utf8("AB"), 2);
          p.set(utf8("XYZW"), 18);
          checkBytes(await store.get("p"), p, "p after setPartialValues");
          const q = new Uint8Array(9);
          q.set(pattern(5, 51));
          q[8] = "Q".charCodeAt(0);
          checkBytes(await store.get("q"), q, "q after setPartialValues");
          checkBytes(await store.get("new/key"), Uint8Array.of(0, 0, 0, 78), "new/key");
          await store.setPartialValues([]);
          await checkRejects(
            () => store.setPartialValues([{ key: "p", offset: -1, value: utf8("x") }]),
            StoreError,
            "negative offset",
          );
          checkBytes(await store.get("p"), p, "p after a rejected write");
        }),
      );
    }
  }

  // ---- listable -----------------------------------------------------------

  if (listable) {
    const tree = {
      "zarr.json": utf8("root"),
      "a/zarr.json": utf8("a"),
      "a/c/0/0": utf8("a00"),
      "a/c/0/1": utf8("a01"),
      "a/c/1/0": utf8("a10"),
      "ab/x": utf8("abx"),
      "b/x y/zarr.json": utf8("bxy"),
    };
    const treeKeys = Object.keys(tree).sort();

    add("list: every key, nested, nothing else", () =>
      withStore(tree, async (store) => {
        const keys = await collect(store.list());
        checkEqual([...keys].sort(), treeKeys, "list()");
        check(new Set(keys).size === keys.length, "list() must not repeat keys");
      }),
    );

    add("listPrefix: keys under a prefix only ('a/' excludes 'ab/x')", () =>
      withStore(tree, async (store) => {
        const sorted = async (prefix: string) => (await collect(store.listPrefix(prefix))).sort();
        checkEqual(await sorted(""), treeKeys, 'listPrefix("")');
        checkEqual(
          await sorted("a/"),
          ["a/c/0/0", "a/c/0/1", "a/c/1/0", "a/zarr.json"],
          'listPrefix("a/")',
        );
        checkEqual(await sorted("a/c/0/"), ["a/c/0/0", "a/c/0/1"], 'listPrefix("a/c/0/")');
        checkEqual(await sorted("b/x y/"), ["b/x y/zarr.json"], 'listPrefix("b/x y/")');
        checkEqual(await sorted("nothing/"), [], 'listPrefix("nothing/")');
        checkEqual(
          await sorted("zarr.json/"),
          [],
          'listPrefix("zarr.json/") (a key, not a prefix)',
        );
      }),
    );

    add("listDir: direct keys and child prefixes, sorted", () =>
      withStore(tree, async (store) => {
        checkEqual(
          await store.listDir(""),
          { keys: ["zarr.json"], prefixes: ["a", "ab", "b"] },
          'listDir("")',
        );
        checkEqual(
          await store.listDir("a/"),
          { keys: ["zarr.json"], prefixes: ["c"] },
          'listDir("a/")',
        );
        checkEqual(
          await store.listDir("a/c/"),
          { keys: [], prefixes: ["0", "1"] },
          'listDir("a/c/")',
        );
        checkEqual(
          await store.listDir("a/c/0/"),
          { keys: ["0", "1"], prefixes: [] },
          'listDir("a/c/0/")',
        );
        checkEqual(await store.listDir("b/"), { keys: [], prefixes: ["x y"] }, 'listDir("b/")');
        checkEqual(
          await store.listDir("nothing/"),
          { keys: [], prefixes: [] },
          'listDir("nothing/")',
        );
        checkEqual(
          await store.listDir("zarr.json/"),
          { keys: [], prefixes: [] },
          'listDir("zarr.json/") (a key, not a prefix)',
        );
      }),
    );

    add("list: 2,000 keys", () => {
      const initial = new Map<string, Uint8Array>();
      for (let i = 0; i < 2000; i++) initial.set(`c/${i % 20}/${i}`, Uint8Array.of(i & 0xff));
      return withStore(initial, async (store) => {
        const keys = await collect(store.list());
        check(keys.length === 2000, `list() returned ${keys.length} keys, expected 2000`);
        checkEqual(keys.sort(), [...initial.keys()].sort(), "list() of 2,000 keys");
        const dir = await store.listDir("c/");
        checkEqual(
          dir.prefixes,
          Array.from({ length: 20 }, (_, i) => String(i)).sort(),
          'listDir("c/").prefixes',
        );
        const seven = await collect(store.listPrefix("c/7/"));
        check(seven.length === 100, `listPrefix("c/7/") returned ${seven.length}, expected 100`);
        checkEqual((await store.listDir("c/7/")).keys.length, 100, 'listDir("c/7/").keys.length');
      });
    });

    if (writable) {
      add("list: reflects sets and erases (an emptied prefix disappears)", () =>
        withStore(tree, async (store) => {
          await store.set("a/c/2/0", utf8("new"));
          checkEqual((await store.listDir("a/c/")).prefixes, ["0", "1", "2"], "after set");
          await store.erase("a/c/2/0");
          await store.erase("a/c/1/0");
          checkEqual((await store.listDir("a/c/")).prefixes, ["0"], "after erasing the only keys");
          await store.erasePrefix("a/c/0/");
          checkEqual(
            await store.listDir("a/"),
            { keys: ["zarr.json"], prefixes: [] },
            "after erasePrefix",
          );
          checkEqual(
            (await collect(store.list())).sort(),
            ["a/zarr.json", "ab/x", "b/x y/zarr.json", "zarr.json"],
            "list() after erases",
          );
        }),
      );
    }
  }

  return cases;
}

/** `memory` cut into `count` views of uneven lengths, listed from its end to its start. */
function splitBackToFront(memory: Uint8Array, count: number): Uint8Array[] {
  const views: Uint8Array[] = [];
  let end = memory.length;
  for (let i = count - 1; i > 0 && end > 0; i--) {
    const length = Math.min(end, 1 + ((i * 7919) % (2 * Math.ceil(memory.length / count))));
    views.push(memory.subarray(end - length, end));
    end -= length;
  }
  views.push(memory.subarray(0, end));
  return views;
}

function concat(views: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(views.reduce((n, v) => n + v.length, 0));
  let at = 0;
  for (const v of views) {
    out.set(v, at);
    at += v.length;
  }
  return out;
}
