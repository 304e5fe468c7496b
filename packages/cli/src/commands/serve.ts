import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ByteRange, resolveStore, type Store } from "@zarr/core";
import { type Command, str } from "../command.js";
import { openStoreArg, STORE_HELP, type StoreFlags } from "../stores.js";
import { parseCount } from "../usage.js";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "range, if-none-match, if-modified-since",
  "access-control-expose-headers": "content-range, content-length, accept-ranges",
  "access-control-max-age": "86400",
};

/** A parsed `Range` header: one range, or `"invalid"` (answered with 416), or undefined (whole value). */
export function parseRange(header: string | undefined): ByteRange | "invalid" | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  if (m[1] === "") return { suffix: Number(m[2]) };
  const offset = Number(m[1]);
  if (m[2] === "") return { offset };
  const last = Number(m[2]);
  if (last < offset) return "invalid";
  return { offset, length: last - offset + 1 };
}

async function handle(store: Store, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "OPTIONS") {
    res.writeHead(204, CORS).end();
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { ...CORS, allow: "GET, HEAD, OPTIONS" }).end();
    return;
  }
  let key: string;
  try {
    key = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).replace(/^\/+/, "");
  } catch {
    res.writeHead(400, CORS).end("bad path\n");
    return;
  }
  const size = key === "" ? undefined : await store.getSize(key).catch(() => undefined);
  if (size === undefined) {
    res.writeHead(404, { ...CORS, "content-type": "text/plain" }).end("not found\n");
    return;
  }
  const range = parseRange(req.headers.range);
  const headers: Record<string, string> = {
    ...CORS,
    "accept-ranges": "bytes",
    "content-type":
      key.endsWith(".json") || /(^|\/)\.z(array|group|attrs|metadata)$/.test(key)
        ? "application/json"
        : "application/octet-stream",
    "cache-control": "no-cache",
  };
  if (range === "invalid" || (range && "offset" in range && range.offset >= size && size > 0)) {
    res.writeHead(416, { ...headers, "content-range": `bytes */${size}` }).end();
    return;
  }
  let start = 0;
  let end = size; // exclusive
  if (range && "suffix" in range) start = Math.max(0, size - range.suffix);
  else if (range) {
    start = range.offset;
    end = range.length === undefined ? size : Math.min(size, range.offset + range.length);
  }
  const status = range ? 206 : 200;
  if (range) headers["content-range"] = `bytes ${start}-${Math.max(start, end - 1)}/${size}`;
  headers["content-length"] = String(end - start);
  if (req.method === "HEAD") {
    res.writeHead(status, headers).end();
    return;
  }
  const body = range
    ? await store.get(key, { offset: start, length: end - start })
    : await store.get(key);
  if (body === undefined) {
    res.writeHead(404, CORS).end("not found\n");
    return;
  }
  res.writeHead(status, headers).end(body);
}

/** Serves `store` read-only over HTTP on 127.0.0.1 (Range incl. suffix ranges, CORS). */
export async function serveStore(store: Store, port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handle(store, req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500, CORS);
      res.end(`${e instanceof Error ? e.message : String(e)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: actual } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${actual}/` };
}

/** `zarr serve <dir|url> [--port N]`. */
export const serveCommand: Command = {
  name: "serve",
  summary: "serve a store over HTTP on 127.0.0.1 (Range, CORS) for browser viewers",
  help: `usage: zarr serve <store> [--port N]

Serves the store read-only on http://127.0.0.1:PORT/ (keys as paths), with Range
requests (including suffix ranges, for shard indexes) and CORS headers so that
browser viewers on other origins can read it. Prints the URL; stops on Ctrl-C
(SIGINT) or SIGTERM.

options:
  --port N   port (default 0: any free port)

${STORE_HELP}

examples:
  zarr serve data.zarr --port 8080
  zarr serve s3://bucket/data.zarr`,
  options: { port: { type: "string", short: "p" } },
  positionals: [1, 1],
  async run([storeArg], values, io) {
    const port = str(values, "port") === undefined ? 0 : parseCount(str(values, "port")!, "--port");
    const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
    const { server, url } = await serveStore(store, port);
    io.out(`serving ${storeArg} at ${url}`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        server.close(() => resolve());
        server.closeAllConnections();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      io.signal?.addEventListener("abort", stop, { once: true });
    });
    return 0;
  },
};
