/**
 * Test suites the bucket stores (@zarr/store-s3, @zarr/store-gcs) run against
 * themselves, parametrized by how each reaches its server: path safety (keys
 * and prefixes that could leave the store's prefix are refused before any
 * request) and fault injection (a fault proxy between store and server).
 * Vitest suites: import them from `@zarr/test-utils/store-suites` in a test file.
 *
 * @module
 */

import { InvalidKeyError, StoreError } from "@zarr/core";
import {
  type ByteRange,
  type ListableStore,
  type ReadableStore,
  resolveStore,
  type WritableStore,
} from "@zarr/core/store";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Fault, FaultPlan, FaultProxy } from "./fault-proxy.js";
import { seededRandom } from "./fault-proxy.js";

/** A store the suites can drive directly (and through core's `resolveStore`). */
export type BucketTestStore = ReadableStore & WritableStore & ListableStore;

/** The server side of {@link describePathSafety}, started in `beforeAll`. */
export interface PathSafetyHarness<S extends BucketTestStore> {
  /** A store under `prefix`, talking to the server directly (setup and checks from outside). */
  direct(prefix: string): S;
  /** A store under `prefix` whose requests are recorded (through a proxy, or an emulator's log). */
  watched(prefix: string): S;
  /** The requests recorded since the last {@link clearRequests}. */
  requests(): readonly unknown[];
  clearRequests(): void;
  /** Stops servers and proxies, removes what the suite wrote where that is wanted. */
  close(): Promise<void>;
}

/** Keys that must be refused: `..`/`.` segments, leading `/`, empty segments, `\`, NUL, controls, lone surrogates. */
export const ESCAPING_KEYS: readonly string[] = [
  "../secret",
  "a/../../secret",
  "..",
  ".",
  "./zarr.json",
  "/secret",
  "a//b",
  "a/",
  "",
  "a\\b",
  "zarr.json\u0000",
  "a\nb",
  "\udc00",
];

/** Prefixes that must be refused by `listPrefix`, `listDir` and `erasePrefix`. */
export const ESCAPING_PREFIXES: readonly string[] = ["../", "a/../../", "/", "a//", "a", "./"];

/**
 * Path safety of a bucket store named `name`: every key operation with an
 * escaping key, and every prefix operation with an escaping prefix, throws
 * `InvalidKeyError`, directly and through core's `resolveStore`, without a
 * request; the object written beside the store (`paths/secret`, the store
 * being `paths/store`) stays out of its reach.
 */
export function describePathSafety<S extends BucketTestStore>(options: {
  name: string;
  /** Skip the suite (no server). */
  skip?: boolean;
  start(): Promise<PathSafetyHarness<S>>;
}): void {
  describe.skipIf(options.skip ?? false)(
    `${options.name} rejects keys that could leave its prefix`,
    () => {
      let harness: PathSafetyHarness<S>;
      beforeAll(async () => {
        harness = await options.start();
        const outside = harness.direct("paths");
        await outside.set("secret", new TextEncoder().encode("beside the store"));
        await outside.set("store/zarr.json", new TextEncoder().encode("{}"));
      });
      afterAll(async () => {
        await harness?.close();
      });

      const store = () => harness.watched("paths/store");

      it.each(ESCAPING_KEYS.map((k) => [JSON.stringify(k), k]))(
        "%s: every key operation throws InvalidKeyError, directly and through core; no request sent",
        async (_, key) => {
          harness.clearRequests();
          const direct = store();
          const resolved = resolveStore(direct);
          const value = Uint8Array.of(1);
          const calls = [
            () => direct.get(key),
            () => direct.get(key, { suffix: 3 }),
            () => direct.getSize?.(key),
            () => direct.set(key, value),
            () => direct.erase(key),
            () => direct.eraseValues?.(["ok", key]),
            () => resolved.get(key),
            () => resolved.getPartialValues([{ key, range: { offset: 0, length: 1 } }]),
            () => resolved.set(key, value),
            () => resolved.erase(key),
            () => resolved.has(key),
          ];
          for (const call of calls) await expect(call()).rejects.toBeInstanceOf(InvalidKeyError);
          expect(harness.requests()).toEqual([]);
        },
      );

      it.each(ESCAPING_PREFIXES.map((p) => [JSON.stringify(p), p]))(
        "prefix %s: listPrefix, listDir and erasePrefix throw InvalidKeyError; no request sent",
        async (_, prefix) => {
          harness.clearRequests();
          for (const s of [store(), resolveStore(store())]) {
            await expect(s.listDir!(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
            await expect(s.erasePrefix!(prefix)).rejects.toBeInstanceOf(InvalidKeyError);
            const iterate = async () => {
              for await (const _ of s.listPrefix!(prefix));
            };
            await expect(iterate()).rejects.toBeInstanceOf(InvalidKeyError);
          }
          expect(harness.requests()).toEqual([]);
        },
      );

      it("the object beside the store is untouched and only reachable from outside", async () => {
        const s = store();
        expect(new TextDecoder().decode((await s.get("zarr.json"))!)).toBe("{}");
        expect(await s.get("secret")).toBeUndefined();
        const secret = await harness.direct("paths").get("secret");
        expect(new TextDecoder().decode(secret!)).toBe("beside the store");
      });
    },
  );
}

/** The server side of {@link describeFaults}, started in `beforeAll`. */
export interface FaultHarness<S extends BucketTestStore> {
  /** The proxy between {@link faulty} and the server. */
  proxy: FaultProxy;
  /** Talks to the server directly (setup and final checks). */
  direct: S;
  /** Talks to the server through the proxy, with the client's retries. */
  faulty: S;
  /** Stops servers and proxies, removes what the suite wrote where that is wanted. */
  close(): Promise<void>;
}

/** How {@link describeFaults} exercises one store. */
export interface FaultSuiteOptions<S extends BucketTestStore> {
  /** The store class, in the suite's name (`"S3Store"`). */
  name: string;
  /** Skip the suite (no server). */
  skip?: boolean;
  /** Seed of the values and choices (the proxy has its own). */
  seed: number;
  start(): Promise<FaultHarness<S>>;
  /** Faults before the response: each case reads, sizes and writes through them. */
  retried: {
    /** Also read the whole value (not only a range). */
    wholeRead: boolean;
  };
  /** Faults in the middle of a body. */
  midBody: {
    /** Test title, with `%s` for the case's label. */
    title: string;
    cases: readonly [label: string, fault: Fault, range: ByteRange | undefined][];
    /** The store to read with (default: the harness's `faulty`). */
    store?(harness: FaultHarness<S>): S;
    /** After the fault, the same read through a healthy proxy returns the exact bytes. */
    thenExact: boolean;
  };
  /** Every request answered 503. */
  storm: {
    /** Test title. */
    title: string;
    /** The range the storm's read asks (default: the whole value). */
    range?: ByteRange;
    /** Requests the read may make: `[min, max]`. */
    requests: [number, number];
    /** The failure's message must match (besides naming the key). */
    message?: RegExp;
    /** Time limit in ms. */
    maxMs: number;
    /** A write in the storm fails with a StoreError too. */
    write: boolean;
  };
  /** Seeded random faults under reads and writes through core. */
  random: {
    runs: number;
    keys: readonly string[];
    /** Share of operations that are writes. */
    writeRate: number;
    plan: FaultPlan;
  };
}

const same = (a: Uint8Array | undefined, b: Uint8Array) =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

function expected(v: Uint8Array, range?: ByteRange): Uint8Array {
  if (range === undefined) return v;
  if ("suffix" in range) return v.subarray(Math.max(0, v.length - range.suffix));
  return v.subarray(
    range.offset,
    range.length === undefined ? undefined : range.offset + range.length,
  );
}

/**
 * Fault injection between a bucket store and its server: a fault proxy
 * answers 500/503, resets connections before or during the body, and closes
 * them after part of the body. Reads return exactly the stored bytes or fail
 * with a `StoreError` naming the key; a write that fails leaves the old or the
 * new value, never a mix; storms of 503s end in a `StoreError` within bounded
 * time.
 */
export function describeFaults<S extends BucketTestStore>(options: FaultSuiteOptions<S>): void {
  const random = seededRandom(options.seed);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
  const big = bytes(300_000);

  describe.skipIf(options.skip ?? false)(`${options.name} behind a fault-injecting proxy`, () => {
    let harness: FaultHarness<S>;
    beforeAll(async () => {
      harness = await options.start();
      await harness.direct.set("big", big);
    });
    afterAll(async () => {
      await harness?.close();
    });
    beforeEach(() => {
      harness.proxy.plan = () => "pass";
      harness.proxy.log.length = 0;
    });

    const { wholeRead } = options.retried;
    it.each(["500", "503", "reset"] as Fault[])(
      `a %s before the response is retried: reads, ${wholeRead ? "ranged reads, " : ""}sizes and writes succeed`,
      async (fault) => {
        const { proxy, faulty, direct } = harness;
        let n = 0;
        proxy.plan = () => (n++ % 2 === 0 ? fault : "pass");
        if (wholeRead) expect(same(await faulty.get("big"), big)).toBe(true);
        const range = { offset: 7, length: 100 };
        expect(same(await faulty.get("big", range), expected(big, range))).toBe(true);
        expect(await faulty.getSize?.("big")).toBe(big.length);
        const v = bytes(5000);
        await faulty.set(`retried-${fault}`, v);
        expect(same(await direct.get(`retried-${fault}`), v)).toBe(true);
        // One fault before each operation at least.
        expect(proxy.counts[fault]).toBeGreaterThanOrEqual(wholeRead ? 4 : 3);
      },
    );

    const mid = options.midBody;
    it.each(mid.cases)(mid.title, async (_, fault, range) => {
      const { proxy } = harness;
      proxy.plan = (req) => (req.method === "GET" ? fault : "pass");
      const store = mid.store?.(harness) ?? harness.faulty;
      const t0 = performance.now();
      const err = await store.get("big", range).catch((e) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(String(err.message)).toContain('"big"');
      expect(performance.now() - t0).toBeLessThan(10_000);
      if (mid.thenExact) {
        proxy.plan = () => "pass";
        expect(same(await store.get("big", range), expected(big, range))).toBe(true);
      }
    });

    const storm = options.storm;
    it(storm.title, async () => {
      const { proxy, faulty } = harness;
      proxy.plan = () => "503";
      const t0 = performance.now();
      const err = await faulty.get("big", storm.range).catch((e) => e);
      const ms = performance.now() - t0;
      expect(err).toBeInstanceOf(StoreError);
      expect(err.message).toContain('"big"');
      if (storm.message) expect(err.message).toMatch(storm.message);
      const requests = proxy.log.length;
      expect(requests).toBeGreaterThanOrEqual(storm.requests[0]);
      expect(requests).toBeLessThanOrEqual(storm.requests[1]);
      if (storm.write) {
        const err2 = await faulty.set("storm", bytes(10)).catch((e) => e);
        expect(err2).toBeInstanceOf(StoreError);
      }
      expect(ms).toBeLessThan(storm.maxMs);
      console.info(`503 storm: ${requests} requests, StoreError after ${ms.toFixed(0)} ms`);
    });

    const { runs, keys, writeRate, plan } = options.random;
    it(`random faults (seeded, ${runs} operations): reads exact or StoreError; failed writes leave the old or the new value`, async () => {
      const { proxy, faulty, direct } = harness;
      /** The values each key may hold: after a failed write, the old one or the new one. */
      const possible = new Map<string, Uint8Array[]>();
      for (const k of keys) {
        const v = bytes(1 + Math.floor(random() * 3000));
        await direct.set(k, v);
        possible.set(k, [v]);
      }
      proxy.plan = plan;
      const s = resolveStore(faulty);
      const outcomes = { readExact: 0, readError: 0, writeOk: 0, writeError: 0 };
      for (let i = 0; i < runs; i++) {
        const key = keys[Math.floor(random() * keys.length)];
        if (random() < writeRate) {
          const v = bytes(Math.floor(random() * 3000));
          try {
            await s.set(key, v);
            possible.set(key, [v]);
            outcomes.writeOk++;
          } catch (e) {
            expect(e).toBeInstanceOf(StoreError);
            possible.get(key)!.push(v);
            outcomes.writeError++;
          }
          continue;
        }
        const r = random();
        const range: ByteRange | undefined =
          r < 0.4
            ? undefined
            : r < 0.6
              ? { suffix: 1 + Math.floor(random() * 500) }
              : { offset: Math.floor(random() * 2000), length: 1 + Math.floor(random() * 2000) };
        try {
          const got = await s.get(key, range);
          const match = possible.get(key)!.find((v) => same(got, expected(v, range)));
          expect(match, `get ${key} ${JSON.stringify(range)}`).toBeDefined();
          // What a read saw is what the key now holds (until the next write).
          possible.set(key, [match!]);
          outcomes.readExact++;
        } catch (e) {
          expect(e).toBeInstanceOf(StoreError);
          expect((e as StoreError).message).toContain(JSON.stringify(key));
          outcomes.readError++;
        }
      }
      proxy.plan = () => "pass";
      for (const k of keys) {
        const got = await direct.get(k);
        expect(possible.get(k)!.some((v) => same(got, v))).toBe(true);
      }
      console.info(
        `random faults: ${JSON.stringify(outcomes)}; faults injected: ${JSON.stringify(proxy.counts)}`,
      );
      expect(outcomes.readExact + outcomes.writeOk).toBeGreaterThan(0);
    });
  });
}
