// serveStore's limits with small settings: the shared memory budget (503 when a
// request waits too long, memory back when clients leave), the idle timeout,
// a value that changes while it is sent, and Range parsing (RFC 9110 §14).
// The attack suite (tools/attacks/test/serve.test.ts) runs the real `zarr serve`.

import type { Server } from "node:http";
import { type ClientRequest, request } from "node:http";
import { serveStore } from "@zarr/cli";
import { MemoryStore } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { afterEach, describe, expect, it } from "vitest";
import { parseRange } from "../src/run/serve.js";

const MiB = 1 << 20;
const value = new Uint8Array(32 * MiB).map((_, i) => i * 7);

let server: Server | undefined;
const clients: ClientRequest[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

function get(
  url: string,
  path: string,
): Promise<{ status: number; body: Buffer; headers: object; aborted: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), (res) => {
      const parts: Buffer[] = [];
      res.on("data", (b: Buffer) => parts.push(b));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          body: Buffer.concat(parts),
          headers: res.headers,
          aborted: false,
        }),
      );
      res.on("aborted", () =>
        resolve({
          status: res.statusCode!,
          body: Buffer.concat(parts),
          headers: res.headers,
          aborted: true,
        }),
      );
      res.on("error", () => {});
    });
    req.on("error", reject);
    req.end();
  });
}

/** A client that asks for `path` and never reads the body. */
function stall(url: string, path: string): void {
  const req = request(new URL(path, url), (res) => res.pause());
  req.on("error", () => {});
  req.end();
  clients.push(req);
}

async function memoryStore() {
  const store = new MemoryStore();
  await store.set("big", value);
  await store.set("small", new Uint8Array([1, 2, 3]));
  return resolveStore(store);
}

describe("serveStore limits", () => {
  it("a request that waits too long for memory gets 503; memory comes back when stalled clients leave", async () => {
    const started = await serveStore(await memoryStore(), {
      pieceBytes: 64 * 1024,
      maxBufferedBytes: 128 * 1024,
      queueTimeoutMs: 300,
      log: () => {},
    });
    server = started.server;
    // Two clients stop reading: once the kernel's buffers are full, each holds one piece.
    stall(started.url, "big");
    stall(started.url, "big");
    let busy: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 100 && busy?.status !== 503; i++) {
      await new Promise((r) => setTimeout(r, 20));
      busy = await get(started.url, "small");
    }
    if (busy === undefined) throw new Error("no request made");
    expect(busy.status).toBe(503);
    expect((busy.headers as Record<string, string>)["retry-after"]).toBe("1");
    expect(busy.body.toString()).toMatch(/^busy/);
    for (const c of clients.splice(0)) c.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const ok = await get(started.url, "small");
    expect(ok.status).toBe(200);
    expect([...ok.body]).toEqual([1, 2, 3]);
  });

  it("connections without traffic for idleTimeoutMs are closed, giving their memory back", async () => {
    const started = await serveStore(await memoryStore(), {
      pieceBytes: 64 * 1024,
      maxBufferedBytes: 64 * 1024,
      idleTimeoutMs: 300,
      queueTimeoutMs: 200,
      log: () => {},
    });
    server = started.server;
    // The stalled client holds the only piece until the idle timeout drops its
    // connection; then the next request is served (without the timeout: a 503).
    stall(started.url, "big");
    await new Promise((r) => setTimeout(r, 1_000));
    const whole = await get(started.url, "big");
    expect(whole.status).toBe(200);
    expect(whole.body.equals(Buffer.from(value))).toBe(true);
  });

  it("a value that shrinks while it is sent ends the response short and is logged, not sent", async () => {
    const inner = new MemoryStore();
    await inner.set("v", new Uint8Array(256 * 1024));
    let calls = 0;
    const store = resolveStore({
      get: async (key: string, range?: { offset: number; length?: number }) => {
        calls++;
        const got = await inner.get(key, range);
        return calls > 2 && got ? got.subarray(0, 10) : got;
      },
      getSize: (key: string) => inner.getSize(key),
    });
    const log: string[] = [];
    const started = await serveStore(store, { pieceBytes: 64 * 1024, log: (l) => log.push(l) });
    server = started.server;
    const r = await get(started.url, "v").catch((e: Error) => ({ error: e.message }));
    expect("error" in r || (r as { aborted: boolean }).aborted).toBe(true);
    expect(log.join("\n")).toMatch(/changed while it was sent/);
  });
});

describe("parseRange (RFC 9110 §14.1.1, §14.2)", () => {
  it.each([
    [undefined, 10, { status: 200 }],
    ["bytes=0-0", 10, { status: 206, start: 0, end: 1 }],
    ["bytes=-1", 10, { status: 206, start: 9, end: 10 }],
    ["bytes=3-", 10, { status: 206, start: 3, end: 10 }],
    ["Bytes = 3-4", 10, { status: 200 }], // no whitespace around "=" in the grammar
    ["bytes=3-4 , 20-", 10, { status: 206, start: 3, end: 5 }],
    ["bytes=0-1,3-4", 10, { status: 200 }],
    ["bytes=-0", 10, { status: 416 }],
    ["bytes=10-", 10, { status: 416 }],
    ["bytes=0-", 0, { status: 416 }],
    ["bytes=-1", 0, { status: 200 }],
    ["bytes=4-3", 10, { status: 200 }],
    ["bytes=a-b", 10, { status: 200 }],
    ["pages=1-2", 10, { status: 200 }],
    [`bytes=${Array(101).fill("0-1").join(",")}`, 10, { status: 200 }],
  ])("%s of %i bytes", (header, size, want) => {
    expect(parseRange(header, size)).toEqual(want);
  });
});
