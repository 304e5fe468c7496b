/**
 * A small static HTTP server for the browser test: serves directories under
 * URL prefixes, answers Range requests (`bytes=a-b`, `bytes=a-`, `bytes=-n`)
 * with 206/416 as browsers and HttpStore expect, and logs every request.
 */
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";

/** One logged request. */
export interface LoggedRequest {
  method: string;
  path: string;
  range?: string;
  status: number;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".png": "image/png",
};

/** A running server: its origin, its request log, and `close()`. */
export interface StaticServer {
  origin: string;
  log: LoggedRequest[];
  close(): Promise<void>;
}

function parseRange(header: string, size: number): [number, number] | "invalid" | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return undefined; // unknown unit or several ranges: serve the whole file
  const [, a, b] = m;
  if (a === "" && b === "") return "invalid";
  if (a === "") {
    const n = Number(b);
    if (n === 0) return "invalid";
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(a);
  const end = b === "" ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || end < start) return "invalid";
  return [start, end];
}

/** Serves `mounts` (URL prefix such as "/app/" -> directory) on 127.0.0.1. */
export async function startStaticServer(mounts: Record<string, string>): Promise<StaticServer> {
  const log: LoggedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = decodeURIComponent(url.pathname);
    const entry: LoggedRequest = { method: req.method ?? "GET", path, status: 404 };
    if (req.headers.range) entry.range = req.headers.range;
    log.push(entry);
    const send = (status: number, headers: Record<string, string | number> = {}) => {
      entry.status = status;
      res.writeHead(status, { "Cache-Control": "no-store", ...headers });
    };
    const prefix = Object.keys(mounts).find((p) => path.startsWith(p));
    if (!prefix || (req.method !== "GET" && req.method !== "HEAD")) {
      send(prefix ? 405 : 404);
      return void res.end();
    }
    const root = resolve(mounts[prefix]!);
    const file = resolve(join(root, path.slice(prefix.length) || "index.html"));
    let size: number;
    try {
      if (file !== root && !file.startsWith(root + sep)) throw new Error("outside the root");
      const stat = statSync(file);
      if (!stat.isFile()) throw new Error("not a file");
      size = stat.size;
    } catch {
      send(404);
      return void res.end();
    }
    const type = TYPES[extname(file)] ?? "application/octet-stream";
    const range = req.headers.range ? parseRange(req.headers.range, size) : undefined;
    if (range === "invalid") {
      send(416, { "Content-Range": `bytes */${size}` });
      return void res.end();
    }
    const [start, end] = range ?? [0, size - 1];
    const length = size === 0 ? 0 : end - start + 1;
    send(range ? 206 : 200, {
      "Content-Type": type,
      "Content-Length": length,
      "Accept-Ranges": "bytes",
      ...(range ? { "Content-Range": `bytes ${start}-${end}/${size}` } : {}),
    });
    if (req.method === "HEAD" || length === 0) return void res.end();
    createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
