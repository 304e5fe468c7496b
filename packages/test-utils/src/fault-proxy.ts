/**
 * A fault-injecting HTTP proxy for the remote-store tests: it listens on
 * 127.0.0.1, forwards each request to one upstream server (also on
 * 127.0.0.1) and, as a seeded plan decides, answers 500/503 instead,
 * resets the connection before or in the middle of the body, or closes it
 * after part of the body (so fewer bytes arrive than `Content-Length` or
 * `Content-Range` announced). Headers pass through verbatim (including
 * `Host`, so signed S3 requests stay valid).
 *
 * @module
 */

import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the proxy does with one request. */
export type Fault =
  /** Forward the request and the whole response. */
  | "pass"
  /** Answer 500 without contacting the upstream server. */
  | "500"
  /** Answer 503 (with `Retry-After: 0`) without contacting the upstream server. */
  | "503"
  /** Reset the connection (TCP RST) before any response. */
  | "reset"
  /** Forward the status and headers and part of the body, then reset the connection. */
  | "reset-mid-body"
  /** Forward the status and headers and part of the body, then close the connection cleanly. */
  | "truncate";

/** Every fault, for tests that iterate over them. */
export const FAULTS: readonly Fault[] = [
  "pass",
  "500",
  "503",
  "reset",
  "reset-mid-body",
  "truncate",
];

/** One request as the plan sees it. */
export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  /** 0-based number of this request since the proxy started. */
  index: number;
}

/** Chooses the fault of each request; `random` is the proxy's seeded generator. */
export type FaultPlan = (req: ProxiedRequest, random: () => number) => Fault;

/** A plan injecting each fault with probability `rate / (number of faults)` (seeded). */
export function randomFaults(rate: number, faults: readonly Fault[] = FAULTS.slice(1)): FaultPlan {
  return (_req, random) => {
    if (random() >= rate) return "pass";
    return faults[Math.floor(random() * faults.length)];
  };
}

/** A running proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: use it in place of the upstream URL's origin. */
  readonly url: string;
  /** The plan in force; may be replaced while the proxy runs. */
  plan: FaultPlan;
  /** How often each fault was applied. */
  readonly counts: Record<Fault, number>;
  /** Every request as `"<fault> <METHOD> <url>"`, in order. */
  readonly log: string[];
  close(): Promise<void>;
}

/** mulberry32: a small seeded generator (reproducible fault sequences). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Starts a proxy on 127.0.0.1 in front of `upstream` (an `http://127.0.0.1:...`
 * or `http://localhost:...` origin; nothing else is allowed, so tests never
 * leave the machine).
 */
export async function startFaultProxy(
  upstream: string,
  options: { plan?: FaultPlan; seed?: number } = {},
): Promise<FaultProxy> {
  const target = new URL(upstream);
  if (
    target.protocol !== "http:" ||
    !["127.0.0.1", "localhost", "[::1]"].includes(target.hostname)
  ) {
    throw new Error(
      `fault proxy: upstream must be http on the loopback interface, got ${upstream}`,
    );
  }
  const random = seededRandom(options.seed ?? 1);
  const counts = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
  const log: string[] = [];
  let index = 0;
  const sockets = new Set<Socket>();

  const proxy: FaultProxy = {
    url: "",
    plan: options.plan ?? (() => "pass"),
    counts,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const fault = proxy.plan(
      { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, index: index++ },
      random,
    );
    counts[fault]++;
    log.push(`${fault} ${req.method} ${req.url}`);
    if (fault === "500" || fault === "503") {
      req.resume();
      const body = fault === "500" ? "injected internal error" : "injected slow down";
      res.writeHead(Number(fault), {
        "Content-Length": Buffer.byteLength(body),
        "Retry-After": "0",
        Connection: "close",
      });
      res.end(body);
      return;
    }
    if (fault === "reset") {
      req.resume();
      req.socket.resetAndDestroy();
      return;
    }
    // The fraction of the body to let through before a mid-body fault.
    const keep = random();
    const up = httpRequest(
      {
        host: target.hostname.replace(/^\[|\]$/g, ""),
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (upRes) => {
        const headers = upRes.rawHeaders.filter((_, i, all) => {
          const name = all[i - (i % 2)].toLowerCase();
          return name !== "connection" && name !== "keep-alive";
        });
        headers.push("Connection", "close");
        res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, headers);
        if (fault === "pass") {
          upRes.pipe(res);
          return;
        }
        const declared = Number(upRes.headers["content-length"]);
        const total = Number.isFinite(declared) ? declared : 0;
        // At least one byte short of what was announced (nothing when the body is empty).
        const limit = Math.max(0, Math.min(Math.floor(total * keep), total - 1));
        let sent = 0;
        const cut = () => {
          upRes.destroy();
          if (fault === "truncate") res.socket?.end();
          else res.socket?.resetAndDestroy();
        };
        if (limit === 0) {
          res.flushHeaders();
          setImmediate(cut);
          return;
        }
        upRes.on("data", (chunk: Buffer) => {
          if (sent >= limit) return;
          const part = chunk.subarray(0, limit - sent);
          sent += part.length;
          res.write(part);
          if (sent >= limit) setImmediate(cut);
        });
        upRes.on("end", () => {
          if (sent < limit) cut();
        });
      },
    );
    up.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { Connection: "close" }).end();
      else res.socket?.destroy();
    });
    req.pipe(up);
  };

  const server: Server = createServer(handle);
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  (proxy as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
