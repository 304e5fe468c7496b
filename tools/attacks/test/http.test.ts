// HttpStore against a hostile server (src/hostile-http.ts): endless bodies,
// endless answers to Range requests, lying Content-Length/Content-Range,
// silence before or after the headers, slow drips, gzip/brotli bombs and
// redirect loops. Directly, through core (openArray) and through the CLI,
// each read runs in a child process under the watchdog and must end in a
// StoreError naming the key (or, where HTTP framing makes the answer
// well-defined, the right bytes) within the configured total time and
// without unbounded memory.
import type { ByteRange } from "@zarr/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attack,
  describeRun,
  type HostileServer,
  runZarr,
  startHostileServer,
} from "../src/index.js";

/** Short time limits: every time-bound case ends in about 3 s. */
const FAST = {
  timeouts: { response: 1_000, idle: 1_000 },
  retry: { retries: 2, baseDelay: 10, maxDelay: 50, timeout: 3_000 },
};
const TOTAL = FAST.retry.timeout;
/**
 * For cases bounded by size: time limits long enough that even a loaded
 * machine reaches the size bound first (the error then says which bound).
 */
const SIZED = {
  timeouts: { response: 5_000, idle: 5_000 },
  retry: { retries: 2, baseDelay: 10, maxDelay: 50, timeout: 15_000 },
};
const SIZED_TOTAL = SIZED.retry.timeout;
/** Watchdog caps: the total plus room for a child's start on a loaded machine. */
const LIMITS = { maxRssMiB: 400, timeoutMs: SIZED_TOTAL + 10_000 };
/** The default total (retry.timeout) of HttpStore. */
const DEFAULT_TOTAL = 20_000;
/** The default maxBodyBytes of HttpStore (128 MiB). */
const DEFAULT_CAP = 134217728;

const zarrJson = JSON.stringify({
  zarr_format: 3,
  node_type: "array",
  shape: [1000],
  data_type: "uint8",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [1000] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: 0,
  codecs: [{ name: "bytes" }],
});

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer({
    prepareBombs: true,
    files: {
      "data.zarr/zarr.json": zarrJson,
      "data.zarr/c/0": new Uint8Array(1000).fill(7),
    },
  });
});
afterAll(async () => {
  await server?.close();
});

describe.concurrent("HttpStore > through the CLI (zarr get, default options)", () => {
  it.each([
    ["silence~data", DEFAULT_TOTAL],
    ["drip", DEFAULT_TOTAL],
    ["endless~data", DEFAULT_TOTAL],
    ["gzip-endless~data", DEFAULT_TOTAL],
  ] as const)("%s: exits 2 with a StoreError naming the key, bounded", async (scenario, total) => {
    // The CLI loads every store package (AWS and Google SDKs included) before
    // its first request: a few seconds on a loaded machine, hence the slack.
    const t0 = performance.now();
    const r = await runZarr(["get", `${server.url}/${scenario}/data.zarr`, "--json"], {
      maxRssMiB: 400,
      timeoutMs: total + 25_000,
    });
    const info = describeRun(r);
    expect(r.killed, info).toBeUndefined();
    expect(r.code, info).toBe(2);
    expect(r.stderr, info).toMatch(
      /(StoreError|ValueTooLargeError|CodecError): .*"(c\/0|zarr\.json)"/,
    );
    // From the first request of this scenario to the exit of the command.
    const first = server.times[server.requests.findIndex((q) => q.includes(`/${scenario}/`))];
    expect(t0 + r.elapsedMs - first, info).toBeLessThan(total + 2_000);
    // Endless bodies stop at the default cap (128 MiB) well before the total.
    // Chunks are bounded by what their codecs can produce (core's maxBytes), far below the cap.
    if (scenario.includes("endless")) expect(r.stderr, info).toMatch(/body passes \d+ bytes/);
    expect(r.peakRssMiB, info).toBeLessThan(300);
    console.info(
      `zarr get ${scenario}: ${r.stderr.trim().slice(0, 160)} | ${r.elapsedMs} ms, peak ${r.peakRssMiB} MiB`,
    );
  });

  it("reads the honest array", async () => {
    const r = await runZarr(["get", `${server.url}/ok/data.zarr`, "--json"], LIMITS);
    expect(r.code, describeRun(r)).toBe(0);
    expect(JSON.parse(r.stdout).shape).toEqual([1000]);
  });
});

interface ReadOutcome {
  ms: number;
  length?: number;
  head?: number[];
  error?: string;
  message?: string;
  path?: string;
}

/** One `HttpStore.get` in a watched child. */
async function read(
  scenario: string,
  key: string,
  range?: ByteRange,
  options: { store?: object; maxBytes?: number } = {},
  limits = LIMITS,
) {
  const run = await attack(
    `
const { HttpStore } = await import("@zarr/store-http");
const store = new HttpStore(${JSON.stringify(`${server.url}/${scenario}/data.zarr`)}, ${JSON.stringify(options.store ?? SIZED)});
const t0 = performance.now();
try {
  const v = await store.get(${JSON.stringify(key)}, ${JSON.stringify(range)}, ${JSON.stringify(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes })});
  return { ms: performance.now() - t0, length: v?.length, head: v ? Array.from(v.subarray(0, 4)) : null };
} catch (e) {
  return { ms: performance.now() - t0, error: e?.name, message: String(e?.message), path: e?.path };
}`,
    limits,
  );
  return { run, out: (run.value ?? {}) as ReadOutcome };
}

/** The read ended in a StoreError naming `key`, within `total`, under the caps. */
function expectStoreError(
  r: Awaited<ReturnType<typeof read>>,
  key: string,
  total = SIZED_TOTAL,
  pattern?: RegExp,
) {
  const info = `${describeRun(r.run)} ${JSON.stringify(r.out)}`;
  expect(r.run.killed, info).toBeUndefined();
  // A StoreError, or its ValueTooLargeError past options.maxBytes; a chunk read through
  // core past what its codecs can produce is reported as a damaged chunk (CodecError).
  expect(
    r.out.error === "StoreError" ||
      r.out.error === "ValueTooLargeError" ||
      (r.out.error === "CodecError" &&
        /larger than its codecs can produce/.test(r.out.message ?? "")),
    info,
  ).toBe(true);
  expect(r.out.path, info).toBe(key);
  expect(r.out.message, info).toContain(JSON.stringify(key));
  if (pattern) expect(r.out.message, info).toMatch(pattern);
  expect(r.out.ms, info).toBeLessThan(total + 1_000);
  console.info(
    `${key}: ${r.out.message?.slice(0, 160)} | ${r.out.ms.toFixed(0)} ms, peak ${r.run.peakRssMiB} MiB`,
  );
}

describe.concurrent("HttpStore > endless and oversized bodies", () => {
  it("an endless zarr.json (chunked, no Content-Length) stops at the store's default cap", async () => {
    const r = await read("endless", "zarr.json");
    expectStoreError(r, "zarr.json", SIZED_TOTAL, new RegExp(`body passes ${DEFAULT_CAP}`));
    expect(r.run.peakRssMiB).toBeLessThan(300);
  });

  it("an endless body stops at a configured maxBodyBytes", async () => {
    const r = await read("endless", "zarr.json", undefined, {
      store: { ...SIZED, maxBodyBytes: 8 << 20 },
    });
    expectStoreError(r, "zarr.json", SIZED_TOTAL, /body passes 8388608/);
    expect(r.run.peakRssMiB).toBeLessThan(150);
  });

  it("an endless body stops as soon as it passes options.maxBytes", async () => {
    const r = await read("endless", "zarr.json", undefined, { maxBytes: 1 << 20 });
    expectStoreError(r, "zarr.json", SIZED_TOTAL, /body passes 1048576/);
    expect(r.run.peakRssMiB).toBeLessThan(150);
  });

  it("an endless 200 to a Range request yields the range's bytes and stops reading", async () => {
    const r = await read("endless", "c/0", { offset: 0, length: 100 });
    expect(r.out, describeRun(r.run)).toMatchObject({
      length: 100,
      head: [0x5a, 0x5a, 0x5a, 0x5a],
    });
    expect(r.run.peakRssMiB).toBeLessThan(150);
    const open = await read("endless", "c/0", { offset: 10 }, { maxBytes: 1 << 20 });
    expectStoreError(open, "c/0", SIZED_TOTAL, /body passes 1048586/);
    // A suffix needs the whole value: at most maxBodyBytes of it is read, keeping the tail only.
    const suffix = await read(
      "endless",
      "c/0",
      { suffix: 100 },
      {
        store: { ...SIZED, maxBodyBytes: 8 << 20 },
      },
    );
    expectStoreError(suffix, "c/0", SIZED_TOTAL, /body passes 8388608/);
    expect(suffix.run.peakRssMiB).toBeLessThan(150);
  });

  it("an endless 206 stops once it passes the range asked", async () => {
    const r = await read("endless-206", "c/0", { offset: 0, length: 1000 });
    expectStoreError(r, "c/0", SIZED_TOTAL, /longer than the 1000 bytes/);
    expect(r.run.peakRssMiB).toBeLessThan(150);
    // An open range that the server claims is a gigabyte long: refused before reading.
    const open = await read("endless-206", "c/0", { offset: 5 });
    expectStoreError(open, "c/0", SIZED_TOTAL, /range of 999999995 bytes is more than/);
    expect(open.run.peakRssMiB).toBeLessThan(150);
  });

  it("a 206 whose Content-Length is longer than the range asked is refused", async () => {
    const r = await read("longer-than-range", "c/0", { offset: 0, length: 1000 });
    expectStoreError(r, "c/0", SIZED_TOTAL, /Content-Length 2000 does not match/);
  });

  it.each([
    "wrong-range-offset",
    "wrong-range-length",
    "wrong-range-total",
    "wrong-range-malformed",
  ])("a 206 with a %s Content-Range is refused before its body is read", async (scenario) => {
    const r = await read(scenario, "c/0", { offset: 10, length: 100 });
    expectStoreError(r, "c/0", SIZED_TOTAL, /different range|valid Content-Range/);
    expect(r.run.peakRssMiB).toBeLessThan(150);
    // For a suffix, a shifted range can be self-consistent (the last 100 bytes of a
    // longer value): then the body is cut at 100 bytes.
    const suffix = await read(scenario, "c/0", { suffix: 100 });
    expectStoreError(suffix, "c/0", SIZED_TOTAL, /different range|valid Content-Range|longer than/);
  });

  it("an error status with an endless body is retried and reported without reading the body", async () => {
    const r = await read("endless-error", "c/0", undefined, { store: FAST });
    expectStoreError(r, "c/0", TOTAL, /HTTP 503/);
    expect(r.run.peakRssMiB).toBeLessThan(150);
  });

  it("a 200 body longer than its Content-Length yields the declared bytes, never more", async () => {
    const r = await read("longer-than-length", "c/0");
    expect(r.out, describeRun(r.run)).toMatchObject({ length: 100 });
    expect(r.run.peakRssMiB).toBeLessThan(150);
  });
});

describe.concurrent("HttpStore > compression bombs", () => {
  it.each(["gzip-bomb", "gzip-endless", "br-bomb", "br-endless"])(
    "a %s body is bounded by what is read from the decoded stream",
    async (scenario) => {
      // The caller's maxBytes, and the store's cap when the caller gives none:
      // neither is fooled by a small Content-Length of the encoded body.
      const small = await read(scenario, "zarr.json", undefined, { maxBytes: 1 << 20 });
      expectStoreError(small, "zarr.json", SIZED_TOTAL, /body passes 1048576/);
      expect(small.run.peakRssMiB).toBeLessThan(150);
      const capped = await read(scenario, "zarr.json", undefined, {
        store: { ...SIZED, maxBodyBytes: 8 << 20 },
      });
      expectStoreError(capped, "zarr.json", SIZED_TOTAL, /body passes 8388608/);
      expect(capped.run.peakRssMiB).toBeLessThan(150);
    },
  );
});

describe.concurrent("HttpStore > silent and slow servers", () => {
  it.each([
    ["silence", undefined],
    ["silence", { offset: 0, length: 10 }],
    ["headers-then-silence", undefined],
    ["short-then-silence", undefined],
    ["drip", undefined],
  ] as [string, ByteRange | undefined][])(
    "%s (range %j) ends in a StoreError within the total",
    async (scenario, range) => {
      const r = await read(scenario, "c/0", range, { store: FAST });
      expectStoreError(r, "c/0", TOTAL, /timed out/);
      expect(r.out.ms).toBeGreaterThan(900);
    },
  );

  it("getSize of a silent server ends within the total", async () => {
    const run = await attack(
      `
const { HttpStore } = await import("@zarr/store-http");
const store = new HttpStore(${JSON.stringify(`${server.url}/silence/data.zarr`)}, ${JSON.stringify(FAST)});
const t0 = performance.now();
try { await store.getSize("c/0"); return { ms: performance.now() - t0 }; }
catch (e) { return { ms: performance.now() - t0, error: e.name, message: e.message, path: e.path }; }`,
      LIMITS,
    );
    expectStoreError({ run, out: run.value as ReadOutcome }, "c/0", TOTAL, /timed out/);
  });

  it("a redirect loop ends in a StoreError naming the key", async () => {
    const before = server.requests.length;
    const r = await read("redirect-loop", "zarr.json", undefined, { store: FAST });
    expectStoreError(r, "zarr.json", TOTAL, /redirect count|too many redirects/);
    expect(server.requests.length - before).toBeLessThan(100);
  });
});

/**
 * `openArray` + `get` through core, in a watched child, the store capped at
 * 16 MiB (for the reads core does not bound with `maxBytes`).
 */
async function throughCore(scenario: string, profile: object, limits = LIMITS) {
  const run = await attack(
    `
const { openArray } = await import("@zarr/core");
const { HttpStore } = await import("@zarr/store-http");
const t0 = performance.now();
try {
  const a = await openArray(new HttpStore(${JSON.stringify(`${server.url}/${scenario}/data.zarr`)}, ${JSON.stringify({ ...profile, maxBodyBytes: 16 << 20 })}));
  const r = await a.get(null);
  return { ms: performance.now() - t0, length: r.data.length, head: Array.from(r.data.subarray(0, 4)) };
} catch (e) {
  return { ms: performance.now() - t0, error: e?.name, message: String(e?.message), path: e?.path };
}`,
    limits,
  );
  return { run, out: (run.value ?? {}) as ReadOutcome };
}

describe.concurrent("HttpStore > through core (openArray)", () => {
  it("reads the honest array", async () => {
    const r = await throughCore("ok", SIZED);
    expect(r.out, describeRun(r.run)).toMatchObject({ length: 1000, head: [7, 7, 7, 7] });
  });

  // Core bounds metadata documents by maxMetadataBytes (64 MiB, below this store's cap)
  // and chunks by what their codecs can produce (1000 bytes here).
  it.each([
    ["endless", SIZED, /body passes 67108864 bytes/],
    ["gzip-endless", SIZED, /body passes 67108864 bytes/],
    ["silence", FAST, /timed out/],
    ["drip", FAST, /timed out/],
  ] as const)(
    "zarr.json answered with %s: a StoreError naming it, bounded",
    async (scenario, profile, pattern) => {
      const r = await throughCore(scenario, profile);
      expectStoreError(r, "zarr.json", profile.retry.timeout, pattern);
      expect(r.run.peakRssMiB).toBeLessThan(300);
    },
  );

  it.each([
    ["endless", SIZED, /body passes 1000 bytes/],
    ["br-endless", SIZED, /body passes 1000 bytes/],
    ["headers-then-silence", FAST, /timed out/],
    ["short-then-silence", FAST, /Content-Length 1000000 is more than 1000 bytes/],
  ] as const)(
    "the chunk answered with %s: a StoreError naming it, bounded",
    async (scenario, profile, pattern) => {
      const r = await throughCore(`${scenario}~data`, profile);
      expectStoreError(r, "c/0", profile.retry.timeout, pattern);
      expect(r.run.peakRssMiB).toBeLessThan(300);
    },
  );
});
