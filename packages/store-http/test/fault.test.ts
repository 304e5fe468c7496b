// Fault injection between HttpStore and its server: a proxy on 127.0.0.1
// (@zarr/test-utils startFaultProxy) answers 500/503, resets connections
// before or during the body, and closes them after part of the body, as a
// seeded plan decides. Every read returns exactly the stored bytes or fails
// with a StoreError naming the key; never truncated or wrong data. Storms of
// 503s beyond the retry budget end in a StoreError within the budget's time.
// (RFC 9110 8.6 Content-Length, 14.4 Content-Range, 15.6.4 503.)
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreError } from "@zarr/core";
import { type ByteRange, resolveStore } from "@zarr/core/store";
import { HttpStore, type HttpStoreOptions } from "@zarr/store-http";
import {
  type Fault,
  type FaultProxy,
  randomFaults,
  seededRandom,
  startFaultProxy,
} from "@zarr/test-utils";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

const RUNS = Math.max(300, Math.floor((Number(process.env.FUZZ_RUNS) || 10_000) / 20));

const sizes: Record<string, number> = { empty: 0, one: 1, small: 1000, mid: 70_000, big: 600_000 };
const values = new Map<string, Uint8Array>();

let root: string;
let server: TestServer;
let proxy: FaultProxy;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-http-fault-"));
  await mkdir(join(root, "data"));
  const random = seededRandom(3);
  for (const [name, size] of Object.entries(sizes)) {
    const v = Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
    values.set(name, v);
    await writeFile(join(root, "data", name), v);
  }
  server = await startServer(root);
  proxy = await startFaultProxy(server.url, { seed: 42 });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  proxy.plan = () => "pass";
  proxy.log.length = 0;
});

const fastRetry: HttpStoreOptions["retry"] = { retries: 3, baseDelay: 1, maxDelay: 5 };
const store = (retry = fastRetry) => resolveStore(new HttpStore(`${proxy.url}/data`, { retry }));

/** The bytes `range` selects from `v` (the store contract's clipping). */
function expected(v: Uint8Array, range?: ByteRange): Uint8Array {
  if (range === undefined) return v;
  if ("suffix" in range) return v.subarray(Math.max(0, v.length - range.suffix));
  return v.subarray(
    range.offset,
    range.length === undefined ? undefined : range.offset + range.length,
  );
}

const same = (a: Uint8Array | undefined, b: Uint8Array) =>
  a !== undefined && Buffer.from(a).equals(Buffer.from(b));

/** Only the first request of each key/range gets `fault`; later ones pass. */
function once(fault: Fault) {
  const seen = new Set<string>();
  return (req: { method: string; url: string; headers: Record<string, unknown> }) => {
    const id = `${req.method} ${req.url} ${req.headers.range ?? ""}`;
    if (seen.has(id)) return "pass" as const;
    seen.add(id);
    return fault;
  };
}

describe("HttpStore behind a fault-injecting proxy", () => {
  it.each([
    [
      "a truncated 206 body (Content-Length and Content-Range say more than arrives)",
      "truncate",
      { offset: 100, length: 50_000 },
    ],
    ["a 200 body shorter than its Content-Length", "truncate", undefined],
    [
      "a connection reset in the middle of a 206 body",
      "reset-mid-body",
      { offset: 10, length: 60_000 },
    ],
    ["a connection reset in the middle of a 200 body", "reset-mid-body", undefined],
    ["a truncated suffix-range body", "truncate", { suffix: 40_000 }],
  ] as [string, Fault, ByteRange | undefined][])(
    "%s is a StoreError naming the key, never short data",
    async (_, fault, range) => {
      proxy.plan = () => fault;
      const err = await store()
        .get("mid", range)
        .catch((e) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err.message).toContain('"mid"');
      expect(err.path).toBe("mid");
      // The next read, without the fault, is whole.
      proxy.plan = () => "pass";
      expect(same(await store().get("mid", range), expected(values.get("mid")!, range))).toBe(true);
    },
  );

  it.each(["500", "503", "reset"] as Fault[])(
    "a %s before the response is retried and the read returns the right bytes",
    async (fault) => {
      proxy.plan = once(fault);
      const range = { offset: 5, length: 500 };
      expect(same(await store().get("small", range), expected(values.get("small")!, range))).toBe(
        true,
      );
      expect(same(await store().get("big"), values.get("big")!)).toBe(true);
      expect(await store().getSize("mid")).toBe(70_000);
      expect(proxy.log.filter((l) => l.startsWith(fault)).length).toBe(3);
    },
  );

  it("503 storms beyond the retry budget end in a StoreError within the budget's time", async () => {
    proxy.plan = () => "503";
    // Count-bound: 1 + 3 attempts.
    let t0 = performance.now();
    const err = await store()
      .get("small")
      .catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/HTTP 503/);
    expect(proxy.log.length).toBe(4);
    expect(performance.now() - t0).toBeLessThan(2_000);
    // Time-bound: many retries allowed, but none starts after `timeout`.
    proxy.log.length = 0;
    t0 = performance.now();
    const timed = store({ retries: 1_000, baseDelay: 20, maxDelay: 40, timeout: 500 });
    const err2 = await timed.get("small", { suffix: 10 }).catch((e) => e);
    const ms = performance.now() - t0;
    expect(err2).toBeInstanceOf(StoreError);
    expect(ms).toBeLessThan(1_500);
    expect(proxy.log.length).toBeGreaterThan(5);
    expect(proxy.log.length).toBeLessThan(60);
    console.info(
      `503 storm: ${proxy.log.length} attempts in ${ms.toFixed(0)} ms before the StoreError`,
    );
  });

  it("connection resets on every attempt end in a StoreError naming the key", async () => {
    proxy.plan = () => "reset";
    const err = await store()
      .get("one")
      .catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/"one".*failed after 4 attempt/);
  });

  it(`random faults (seeded, ${RUNS} reads): every read is exact or a StoreError`, async () => {
    proxy.plan = randomFaults(0.5);
    const random = seededRandom(7);
    const names = Object.keys(sizes);
    const outcomes = { exact: 0, storeError: 0 };
    const s = store();
    const t0 = performance.now();
    // Reads in small concurrent batches, as an array read would issue them.
    for (let i = 0; i < RUNS; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async () => {
          const name = names[Math.floor(random() * names.length)];
          const v = values.get(name)!;
          const kind = random();
          const offset = Math.floor(random() * (v.length + 10));
          const length = Math.floor(random() * (v.length + 10));
          const range: ByteRange | undefined =
            kind < 0.3 ? undefined : kind < 0.5 ? { suffix: length } : { offset, length };
          try {
            const got = await s.get(name, range);
            expect(same(got, expected(v, range))).toBe(true);
            outcomes.exact++;
          } catch (e) {
            expect(e).toBeInstanceOf(StoreError);
            expect((e as StoreError).message).toContain(JSON.stringify(name));
            outcomes.storeError++;
          }
        }),
      );
    }
    const ms = performance.now() - t0;
    console.info(
      `random faults: ${outcomes.exact} exact reads, ${outcomes.storeError} StoreErrors in ${ms.toFixed(0)} ms; faults injected: ${JSON.stringify(proxy.counts)}`,
    );
    expect(outcomes.exact).toBeGreaterThan(0);
    expect(outcomes.storeError).toBeGreaterThan(0);
  });
});
