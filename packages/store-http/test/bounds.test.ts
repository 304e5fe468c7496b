// Bounds of HttpStore, in process with a scripted fetch: bodies are read as
// streams and cut off (the stream cancelled) once they pass what the read
// accepts; every request has its own timeouts and the whole operation a
// total; the store names its location. The same defects against a real
// hostile server, under a memory and time watchdog: tools/attacks/test/http.test.ts.
import { AbortError, openStore, StoreError } from "@zarr/core";
import { DEFAULT_MAX_BODY_BYTES, HttpStore } from "@zarr/store-http";
import "@zarr/store-http/register";
import { describe, expect, it } from "vitest";

/** A body of `piece`s, forever (or until `count`), recording how much was pulled and whether it was cancelled. */
function endless(piece = new Uint8Array(64 * 1024), count = Number.POSITIVE_INFINITY) {
  const state = { pulled: 0, cancelled: false };
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent++ >= count) {
          controller.close();
          return;
        }
        state.pulled += piece.length;
        controller.enqueue(piece.slice());
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  ); // no read-ahead: `pulled` is what the store asked for
  return { stream, state };
}

/** A body that sends `first` and then nothing, ever. */
function stalls(first: Uint8Array) {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(first);
      }
      return new Promise(() => {});
    },
  });
}

const never: typeof fetch = () => new Promise(() => {});
const quick = { retry: { retries: 2, baseDelay: 1, maxDelay: 5, timeout: 600 } };

describe("HttpStore > bounded bodies", () => {
  it("cuts an endless body at options.maxBytes and cancels the stream", async () => {
    const { stream, state } = endless();
    const s = new HttpStore("http://h.invalid/d", { fetch: async () => new Response(stream) });
    const err = await s.get("k", undefined, { maxBytes: 1 << 20 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.path).toBe("k");
    expect(err.message).toMatch(/"k".*body passes 1048576 bytes.*options\.maxBytes/);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(2 << 20);
  });

  it("cuts an endless body at maxBodyBytes when the caller gives no maxBytes", async () => {
    const { stream, state } = endless();
    const s = new HttpStore("http://h.invalid/d", {
      fetch: async () => new Response(stream),
      maxBodyBytes: 300_000,
    });
    await expect(s.get("k")).rejects.toThrow(/body passes 300000 bytes.*maxBodyBytes/);
    expect(state.cancelled).toBe(true);
    expect(DEFAULT_MAX_BODY_BYTES).toBe(128 * 1024 * 1024);
  });

  it("refuses a Content-Length above the bound without reading the body", async () => {
    const { stream, state } = endless(new Uint8Array(10), 1);
    const s = new HttpStore("http://h.invalid/d", {
      fetch: async () => new Response(stream, { headers: { "Content-Length": "5000000" } }),
    });
    await expect(s.get("k", undefined, { maxBytes: 1000 })).rejects.toThrow(
      /Content-Length 5000000 is more than 1000 bytes/,
    );
    expect(state.pulled).toBe(0);
  });

  it("reads only the range's bytes of a 200 answer to a Range request, then stops", async () => {
    const piece = Uint8Array.from({ length: 1000 }, (_, i) => i & 0xff);
    const { stream, state } = endless(piece);
    const s = new HttpStore("http://h.invalid/d", { fetch: async () => new Response(stream) });
    const v = await s.get("k", { offset: 1500, length: 10 });
    expect(v).toEqual(piece.slice(500, 510));
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThanOrEqual(2000);
  });

  it("keeps only the tail of a 200 answer to a suffix request", async () => {
    const piece = Uint8Array.from({ length: 1000 }, (_, i) => i & 0xff);
    const { stream } = endless(piece, 50);
    const s = new HttpStore("http://h.invalid/d", { fetch: async () => new Response(stream) });
    expect(await s.get("k", { suffix: 1500 })).toEqual(
      new Uint8Array([...piece.slice(500), ...piece]),
    );
  });

  it("cuts a 206 body longer than its Content-Range", async () => {
    const { stream, state } = endless();
    const s = new HttpStore("http://h.invalid/d", {
      fetch: async () =>
        new Response(stream, { status: 206, headers: { "Content-Range": "bytes 0-99/1000" } }),
    });
    await expect(s.get("k", { offset: 0, length: 100 })).rejects.toThrow(
      /206 body is longer than the 100 bytes its Content-Range announces/,
    );
    expect(state.cancelled).toBe(true);
  });

  it("asks for identity encoding on ranged requests only", async () => {
    const seen: (string | null)[] = [];
    const spy: typeof fetch = async (_url, init) => {
      seen.push(new Headers(init?.headers).get("accept-encoding"));
      return new Response(new Uint8Array(10));
    };
    const s = new HttpStore("http://h.invalid/d", { fetch: spy });
    await s.get("k");
    await s.get("k", { offset: 0, length: 5 });
    expect(seen).toEqual([null, "identity"]);
  });
});

describe("HttpStore > timeouts", () => {
  it("a fetch that never settles (and ignores its signal) ends at the total", async () => {
    const s = new HttpStore("http://h.invalid/d", {
      fetch: never,
      timeouts: { response: 200 },
      ...quick,
    });
    const t0 = performance.now();
    const err = await s.get("a/b").catch((e) => e);
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(StoreError);
    expect(err.path).toBe("a/b");
    expect(err.message).toMatch(/"a\/b".*timed out after 600 ms/);
    expect(ms).toBeGreaterThanOrEqual(590);
    expect(ms).toBeLessThan(1_000);
  });

  it("a response that does not come within timeouts.response is retried", async () => {
    let calls = 0;
    const f: typeof fetch = (_url, init) => {
      calls++;
      if (calls === 1) {
        return new Promise((_, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
        );
      }
      return Promise.resolve(new Response(new Uint8Array([1, 2, 3])));
    };
    const s = new HttpStore("http://h.invalid/d", {
      fetch: f,
      timeouts: { response: 50 },
      retry: { baseDelay: 1, maxDelay: 5 },
    });
    expect(await s.get("k")).toEqual(new Uint8Array([1, 2, 3]));
    expect(calls).toBe(2);
  });

  it("a body that stalls ends at timeouts.idle", async () => {
    const s = new HttpStore("http://h.invalid/d", {
      fetch: async () => new Response(stalls(new Uint8Array(10))),
      timeouts: { idle: 100 },
    });
    const t0 = performance.now();
    await expect(s.get("k")).rejects.toThrow(/"k".*no body data for 100 ms \(timeouts\.idle\)/);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  it("a slow drip ends at the total, idle timeout or not", async () => {
    const drip = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((r) => setTimeout(r, 20));
        controller.enqueue(new Uint8Array(1));
      },
    });
    const s = new HttpStore("http://h.invalid/d", {
      fetch: async () => new Response(drip),
      retry: { timeout: 300 },
    });
    await expect(s.get("k")).rejects.toThrow(/timed out after 300 ms/);
  });

  it("the caller's abort during a body read is an AbortError", async () => {
    const s = new HttpStore("http://h.invalid/d", {
      fetch: async () => new Response(stalls(new Uint8Array(10))),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await expect(s.get("k", undefined, { signal: controller.signal })).rejects.toThrow(AbortError);
  });

  it("getSize has the same limits", async () => {
    const s = new HttpStore("http://h.invalid/d", { fetch: never, retry: { timeout: 100 } });
    await expect(s.getSize("k")).rejects.toThrow(/HEAD .*timed out after 100 ms/);
  });

  it("rejects limits that are not positive, and checks opener options", async () => {
    expect(() => new HttpStore("http://h/", { timeouts: { idle: 0 } })).toThrow(/timeouts\.idle/);
    expect(() => new HttpStore("http://h/", { maxBodyBytes: -1 })).toThrow(/maxBodyBytes/);
    await expect(openStore("http://h/", { timeouts: { body: 5 } })).rejects.toThrow(
      /timeouts\.body/,
    );
    await expect(openStore("http://h/", { maxBodyBytes: "big" })).rejects.toThrow(/maxBodyBytes/);
    const s = (await openStore("http://h/", {
      timeouts: { response: 5 },
      maxBodyBytes: 10,
    })) as HttpStore;
    expect(s).toBeInstanceOf(HttpStore);
  });
});

describe("HttpStore > location", () => {
  it("is the base URL without trailing slash, query, fragment or credentials", () => {
    expect(new HttpStore("https://u:p@Example.ORG:443/a/b.zarr/?token=1#x").location).toBe(
      "https://example.org/a/b.zarr",
    );
    expect(new HttpStore("http://127.0.0.1:8080/").location).toBe("http://127.0.0.1:8080");
    expect(new HttpStore("http://h/a b").location).toBe("http://h/a%20b");
  });

  it("names the same place for the same root, and nests for a sub-path", () => {
    const root = new HttpStore("http://h:81/data.zarr?sig=1");
    expect(new HttpStore("http://h:81/data.zarr/?sig=2").location).toBe(root.location);
    expect(new HttpStore("http://h:81/data.zarr/group").location).toBe(`${root.location}/group`);
    expect(new HttpStore("http://h:82/data.zarr").location).not.toBe(root.location);
    expect(new HttpStore("https://h:81/data.zarr").location).not.toBe(root.location);
  });
});
