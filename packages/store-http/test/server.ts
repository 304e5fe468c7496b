import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize, sep } from "node:path";

/** Behaviour switches of the test server (changeable while it runs). */
export interface ServerMode {
  /** Reject suffix ranges (`bytes=-N`) with this status (e.g. 400 or 416), as some servers do. */
  noSuffix?: 400 | 416 | 501;
  /** Ignore `Range` entirely and answer 200 with the whole file. */
  ignoreRange?: boolean;
  /** Answer HEAD with 405. */
  noHead?: boolean;
  /** Answer 403 instead of 404 for missing files (S3 without list permission). */
  forbiddenForMissing?: boolean;
  /** Fail this many requests (per path) with 503 before answering. */
  failFirst?: number;
  /** Lie in Content-Range: shift the start by this much. */
  shiftRange?: number;
}

export interface TestServer {
  url: string;
  mode: ServerMode;
  /** Every request as "METHOD path [range]". */
  log: string[];
  close(): Promise<void>;
}

/** A static file server on 127.0.0.1 serving `root`, with single-range support. */
export async function startServer(root: string): Promise<TestServer> {
  const mode: ServerMode = {};
  const log: string[] = [];
  const failures = new Map<string, number>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const range = req.headers.range;
    log.push(`${req.method} ${url.pathname}${range ? ` ${range}` : ""}`);
    if (mode.failFirst) {
      const n = failures.get(url.pathname) ?? 0;
      if (n < mode.failFirst) {
        failures.set(url.pathname, n + 1);
        res.writeHead(503).end("busy");
        return;
      }
    }
    if (req.method === "HEAD" && mode.noHead) return void res.writeHead(405).end();
    const rel = decodeURIComponent(url.pathname);
    const path = normalize(join(root, rel));
    if (!path.startsWith(root + sep)) return void res.writeHead(400).end();
    let body: Buffer;
    try {
      body = await readFile(path);
    } catch {
      return void res.writeHead(mode.forbiddenForMissing ? 403 : 404).end();
    }
    const size = body.length;
    const m = range && !mode.ignoreRange ? /^bytes=(\d*)-(\d*)$/.exec(range) : null;
    if (!m) {
      res.writeHead(200, { "Content-Length": size, "Accept-Ranges": "bytes" });
      return void res.end(req.method === "HEAD" ? undefined : body);
    }
    let first: number;
    let last: number;
    if (m[1] === "") {
      if (mode.noSuffix)
        return void res.writeHead(mode.noSuffix, { "Content-Range": `bytes */${size}` }).end();
      const n = Number(m[2]);
      first = Math.max(0, size - n);
      last = size - 1;
      if (n === 0 || size === 0)
        return void res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
    } else {
      first = Number(m[1]);
      last = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
      if (first >= size)
        return void res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
    }
    const shift = mode.shiftRange ?? 0;
    const part = body.subarray(first, last + 1);
    res.writeHead(206, {
      "Content-Length": part.length,
      "Content-Range": `bytes ${first + shift}-${last + shift}/${size}`,
    });
    res.end(req.method === "HEAD" ? undefined : part);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    mode,
    log,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
