import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortError, openStore, StoreCapabilityError, StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { HttpStore } from "@zarr/store-http";
import "@zarr/store-http/register";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./server.js";

let root: string;
let server: TestServer;
const value = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-store-http-"));
  await mkdir(join(root, "data", "with space"), { recursive: true });
  await writeFile(join(root, "data", "v"), value);
  await writeFile(join(root, "data", "with space", "ü.json"), "{}");
  server = await startServer(root);
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  for (const k of Object.keys(server.mode)) delete server.mode[k as keyof typeof server.mode];
  server.log.length = 0;
});

const fast = { retry: { retries: 2, baseDelay: 5, maxDelay: 20 } };
const store = () => resolveStore(new HttpStore(`${server.url}data`, fast));

describe("ranges (v3 core: abstract store interface, get with byte ranges)", () => {
  it("sends one Range request per ranged get, suffix ranges as bytes=-N", async () => {
    const s = store();
    expect(await s.get("v", { offset: 10, length: 5 })).toEqual(value.slice(10, 15));
    expect(await s.get("v", { suffix: 8 })).toEqual(value.slice(992));
    expect(await s.get("v", { offset: 995 })).toEqual(value.slice(995));
    expect(server.log).toEqual([
      "GET /data/v bytes=10-14",
      "GET /data/v bytes=-8",
      "GET /data/v bytes=995-",
    ]);
  });

  it("ranges past the end are clipped or empty (416)", async () => {
    const s = store();
    expect(await s.get("v", { offset: 990, length: 50 })).toEqual(value.slice(990));
    expect(await s.get("v", { offset: 5000, length: 5 })).toEqual(new Uint8Array(0));
    expect(await s.get("v", { suffix: 5000 })).toEqual(value);
  });

  it.each([400, 416, 501] as const)(
    "falls back to HEAD + Range when suffixes get %i, and remembers",
    async (status) => {
      server.mode.noSuffix = status;
      const s = store();
      expect(await s.get("v", { suffix: 8 })).toEqual(value.slice(992));
      expect(await s.get("v", { suffix: 3 })).toEqual(value.slice(997));
      expect(server.log).toEqual([
        "GET /data/v bytes=-8",
        "HEAD /data/v",
        "GET /data/v bytes=992-999",
        "HEAD /data/v",
        "GET /data/v bytes=997-999",
      ]);
    },
  );

  it("slices the body of a server that ignores Range (never returns the wrong bytes)", async () => {
    server.mode.ignoreRange = true;
    const s = store();
    expect(await s.get("v", { offset: 10, length: 5 })).toEqual(value.slice(10, 15));
    expect(await s.get("v", { suffix: 8 })).toEqual(value.slice(992));
    expect(await s.get("v", { offset: 2000 })).toEqual(new Uint8Array(0));
  });

  it("rejects a 206 whose Content-Range is not the range asked for", async () => {
    server.mode.shiftRange = 1;
    await expect(store().get("v", { offset: 10, length: 5 })).rejects.toThrow(/different range/);
  });

  it("rejects a 206 with a body shorter than its Content-Range", async () => {
    const fetch206: typeof fetch = async () =>
      new Response(new Uint8Array(3), {
        status: 206,
        headers: { "Content-Range": "bytes 0-4/10" },
      });
    const s = resolveStore(new HttpStore("http://example.invalid/", { fetch: fetch206 }));
    await expect(s.get("k", { offset: 0, length: 5 })).rejects.toThrow(/206 body has 3 bytes/);
  });

  it("rejects a content-encoded ranged response", async () => {
    const fetchGz: typeof fetch = async () =>
      new Response(new Uint8Array(5), {
        status: 206,
        headers: { "Content-Range": "bytes 0-4/10", "Content-Encoding": "gzip" },
      });
    const s = resolveStore(new HttpStore("http://example.invalid/", { fetch: fetchGz }));
    await expect(s.get("k", { offset: 0, length: 5 })).rejects.toThrow(/gzip-encoded/);
  });

  it("encodes key segments and keeps the query string", async () => {
    const s = resolveStore(new HttpStore(`${server.url}data?token=abc`));
    expect(await s.get("with space/ü.json")).toEqual(new TextEncoder().encode("{}"));
    expect(server.log).toEqual(["GET /data/with%20space/%C3%BC.json"]);
    expect(new HttpStore("http://h/x?t=1").keyUrl("a b/c").href).toBe("http://h/x/a%20b/c?t=1");
  });
});

describe("missing keys and errors", () => {
  it("404 is missing; 403 is an error unless forbiddenIsMissing", async () => {
    expect(await store().get("nope")).toBeUndefined();
    server.mode.forbiddenForMissing = true;
    await expect(store().get("nope")).rejects.toThrow(/HTTP 403/);
    const lenient = resolveStore(new HttpStore(`${server.url}data`, { forbiddenIsMissing: true }));
    expect(await lenient.get("nope")).toBeUndefined();
    expect(await lenient.getSize("nope")).toBeUndefined();
  });

  it("getSize uses HEAD, or GET when HEAD is not allowed", async () => {
    expect(await store().getSize("v")).toBe(1000);
    server.mode.noHead = true;
    expect(await store().getSize("v")).toBe(1000);
  });

  it("has no listing: resolveStore reports StoreCapabilityError", async () => {
    const s = store();
    expect(s.listable).toBe(false);
    expect(s.writable).toBe(false);
    await expect(s.listDir("")).rejects.toThrow(StoreCapabilityError);
    await expect(s.set("x", new Uint8Array(1))).rejects.toThrow(StoreCapabilityError);
  });
});

describe("retries", () => {
  it("retries 503s with backoff and then succeeds", async () => {
    server.mode.failFirst = 2;
    expect(await store().get("v", { offset: 0, length: 2 })).toEqual(value.slice(0, 2));
    expect(server.log.length).toBe(3);
  });

  it("gives up after the configured number of retries with the status in the error", async () => {
    server.mode.failFirst = 100;
    const err = await store()
      .get("v")
      .catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(String(err.message)).toMatch(/HTTP 503/);
    expect(server.log.length).toBe(3);
  });

  it("bounds retries in time", async () => {
    server.mode.failFirst = 100;
    const s = resolveStore(
      new HttpStore(`${server.url}data`, {
        retry: { retries: 100, baseDelay: 50, maxDelay: 50, timeout: 200 },
      }),
    );
    const t = Date.now();
    // The last answer (503) or, when the time runs out during a request on a
    // loaded machine, the timeout: either way an error within bounded time.
    await expect(s.get("v")).rejects.toThrow(/503|timed out after 200 ms/);
    expect(Date.now() - t).toBeLessThan(1000);
  });

  it("retries network errors, then fails with a StoreError naming the key and URL", async () => {
    let calls = 0;
    const failing: typeof fetch = async () => {
      calls++;
      throw new TypeError("fetch failed");
    };
    const s = resolveStore(new HttpStore("http://127.0.0.1:9/x", { ...fast, fetch: failing }));
    await expect(s.get("a/b")).rejects.toThrow(
      /key "a\/b": GET http:\/\/127.0.0.1:9\/x\/a\/b failed after 3 attempt/,
    );
    expect(calls).toBe(3);
  });

  it("aborts during a backoff wait with AbortError", async () => {
    server.mode.failFirst = 100;
    const s = resolveStore(
      new HttpStore(`${server.url}data`, { retry: { baseDelay: 10_000, maxDelay: 10_000 } }),
    );
    const controller = new AbortController();
    const pending = s.get("v", undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(AbortError);
  });
});

describe("custom fetch, headers and the opener", () => {
  it("sends custom headers through a custom fetch", async () => {
    const seen: string[] = [];
    const spy: typeof fetch = (input, init) => {
      seen.push(new Headers(init?.headers).get("authorization") ?? "");
      return fetch(input, init);
    };
    const s = await openStore(`${server.url}data`, {
      fetch: spy,
      headers: { Authorization: "Bearer t" },
    });
    expect(await resolveStore(s).get("v", { offset: 0, length: 1 })).toEqual(value.slice(0, 1));
    expect(seen).toEqual(["Bearer t"]);
  });

  it("rejects malformed options with a StoreError", async () => {
    await expect(openStore(`${server.url}data`, { headers: 5 })).rejects.toThrow(
      /option "headers"/,
    );
    await expect(openStore(`${server.url}data`, { retry: { retries: -1 } })).rejects.toThrow(
      /retry.retries/,
    );
    expect(() => new HttpStore("ftp://x/")).toThrow(StoreError);
  });
});

describe("fetch binding", () => {
  it("calls fetch as a plain function, as browsers require (no 'Illegal invocation')", async () => {
    // Browsers throw when window.fetch is called with another object as `this`.
    function strictFetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      return fetch(input, init);
    }
    const s = resolveStore(
      new HttpStore(`${server.url}data`, { ...fast, fetch: strictFetch as typeof fetch }),
    );
    expect(await s.get("v", { offset: 0, length: 3 })).toEqual(value.slice(0, 3));
  });
});

describe("options", () => {
  it("refuses retry settings that would retry in a tight loop, and a null maxBodyBytes", () => {
    for (const retry of [
      { retries: Number.NaN },
      { retries: -1 },
      { retries: 1.5 },
      { baseDelay: Number.NaN },
      { maxDelay: -5 },
      { baseDelay: Number.POSITIVE_INFINITY },
    ]) {
      expect(() => new HttpStore("http://127.0.0.1:1/", { retry }), JSON.stringify(retry)).toThrow(
        StoreError,
      );
    }
    expect(() => new HttpStore("http://127.0.0.1:1/", { maxBodyBytes: null as never })).toThrow(
      /maxBodyBytes/,
    );
    expect(() => new HttpStore("http://127.0.0.1:1/", { retry: { retries: 0 } })).not.toThrow();
  });
});
