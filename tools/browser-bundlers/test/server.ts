/**
 * A static HTTP server on 127.0.0.1 for the bundler checks: serves directories
 * under URL prefixes, answers `bytes=a-b`/`bytes=a-`/`bytes=-n` Range requests,
 * and logs the paths asked for.
 */
import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

/** A running server: its origin, the paths requested, and `close()`. */
export interface StaticServer {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

/** Serves `mounts` (URL prefix such as "/app/" -> directory). */
export async function startServer(mounts: Record<string, string>): Promise<StaticServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    const prefix = Object.keys(mounts).find((p) => path.startsWith(p));
    const root = prefix ? resolve(mounts[prefix]!) : "";
    const file = prefix ? resolve(join(root, path.slice(prefix.length) || "index.html")) : "";
    let data: Buffer;
    try {
      if (!prefix || !file.startsWith(root + sep) || !statSync(file).isFile()) throw new Error();
      data = readFileSync(file);
    } catch {
      res.writeHead(404, { "Cache-Control": "no-store" }).end();
      return;
    }
    const headers = {
      "Cache-Control": "no-store",
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Accept-Ranges": "bytes",
    };
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (m && (m[1] || m[2])) {
      const size = data.length;
      const start = m[1] ? Number(m[1]) : Math.max(0, size - Number(m[2]));
      const end = m[1] && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      if (start >= size || end < start) {
        res.writeHead(416, { ...headers, "Content-Range": `bytes */${size}` }).end();
        return;
      }
      res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${size}` });
      res.end(data.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, headers).end(data);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
