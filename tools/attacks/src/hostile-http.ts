/**
 * A hostile HTTP server on 127.0.0.1 for the network-store attacks. It speaks
 * HTTP/1.1 over raw sockets, so it can break the protocol in ways a normal
 * server library refuses to (bodies longer than their `Content-Length`,
 * silence after the headers, endless bodies).
 *
 * The scenario is the first path segment that names one: for `HttpStore`
 * `http://127.0.0.1:PORT/<scenario>/data.zarr/zarr.json`; for S3 (path-style)
 * the bucket is the scenario; for GCS (JSON API) the bucket after `/b/` is.
 * `<scenario>~data` applies the scenario only to keys that are not metadata
 * documents (`zarr.json`, `.zarray`, `.zgroup`, `.zattrs`, `.zmetadata`), which
 * are then served from {@link HostileServerOptions.files}, so that core can
 * open an array whose chunks are hostile. Scenario `ok` serves the files
 * honestly (single ranges included).
 *
 * @module
 */

import { createServer, type Server, type Socket } from "node:net";
import { constants, createBrotliCompress, gzipSync } from "node:zlib";

/** What the server does with a request. */
export type HostileScenario =
  /** Serve `files` honestly: 200/206 with `Content-Length`, 404 when missing. */
  | "ok"
  /** 200, chunked (no `Content-Length`), a body that never ends; `Range` ignored. */
  | "endless"
  /** 503 (an error status, retryable), chunked, an error body that never ends. */
  | "endless-error"
  /** 206 with the `Content-Range` asked for (total unknown), chunked, a body that never ends. */
  | "endless-206"
  /** 200 with `Content-Length: 1000000`, half of it, then silence (the socket stays open). */
  | "short-then-silence"
  /** 206 whose `Content-Range` starts one byte after the range asked; endless body. */
  | "wrong-range-offset"
  /** 206 whose `Content-Range` is 10 bytes longer than the range asked; endless body. */
  | "wrong-range-length"
  /** 206 whose `Content-Range` total is smaller than its last byte; endless body. */
  | "wrong-range-total"
  /** 206 with a malformed `Content-Range`; endless body. */
  | "wrong-range-malformed"
  /** 206 with the right `Content-Range` and a `Content-Length` twice the range; that many bytes. */
  | "longer-than-range"
  /** Accepts the connection, reads the request, never answers. */
  | "silence"
  /** 200 with `Content-Length: 1000`, then nothing (the socket stays open). */
  | "headers-then-silence"
  /** 200, chunked, one byte every `dripMs` (default 100 ms), forever. */
  | "drip"
  /** 200, `Content-Encoding: gzip`, `Content-Length` of ~1 MB that inflates to 1 GiB. */
  | "gzip-bomb"
  /** 200, `Content-Encoding: gzip`, chunked, gzip members of zeros forever (1:1000). */
  | "gzip-endless"
  /** 200, `Content-Encoding: br`, `Content-Length` of a few hundred bytes that inflate to 512 MiB. */
  | "br-bomb"
  /** 200, `Content-Encoding: br`, chunked, a brotli stream of zeros that never ends. */
  | "br-endless"
  /** 302 to the same URL, forever. */
  | "redirect-loop"
  /** 200 with `Content-Length: 100`, then a body that never ends. */
  | "longer-than-length";

/** Every scenario (for tests that iterate). */
export const HOSTILE_SCENARIOS: readonly HostileScenario[] = [
  "ok",
  "endless",
  "endless-error",
  "endless-206",
  "short-then-silence",
  "wrong-range-offset",
  "wrong-range-length",
  "wrong-range-total",
  "wrong-range-malformed",
  "longer-than-range",
  "silence",
  "headers-then-silence",
  "drip",
  "gzip-bomb",
  "gzip-endless",
  "br-bomb",
  "br-endless",
  "redirect-loop",
  "longer-than-length",
];

/** Options of {@link startHostileServer}. */
export interface HostileServerOptions {
  /** Honest files, by path after the scenario segment (e.g. `"data.zarr/zarr.json"`). */
  files?: Record<string, Uint8Array | string>;
  /** Milliseconds between the bytes of `drip` (default 100). */
  dripMs?: number;
  /** Compress the bombs before listening (else on first use, delaying that answer ~1 s). */
  prepareBombs?: boolean;
}

/** A running hostile server. */
export interface HostileServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Every request as `"<METHOD> <target> [<range>]"`, in order (at most 10,000 kept). */
  readonly requests: string[];
  /** When each of {@link requests} arrived (`performance.now()` of this process). */
  readonly times: number[];
  /** Bytes written to clients so far (bodies and headers). */
  readonly bytesSent: number;
  /** Connections still open. */
  readonly openConnections: number;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

const METADATA = /(^|\/)(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/;
const FAKE_TOTAL = 1_000_000_000;
const CHUNK = new Uint8Array(64 * 1024).fill(0x5a);
const ERROR_PIECE = `<Error><Code>SlowDown</Code><Message>${"slow ".repeat(13_000)}`;

let gzipMember: Uint8Array | undefined;
/** gzip of 64 MiB of zeros (~65 kB), computed once. */
function gzipZeros(): Uint8Array {
  gzipMember ??= gzipSync(new Uint8Array(64 << 20), { level: 9 });
  return gzipMember;
}

let brBomb: Promise<Uint8Array> | undefined;
/** brotli of 512 MiB of zeros (under 1 kB), compressed once, in 1 MiB pieces. */
function brotliZeros(): Promise<Uint8Array> {
  brBomb ??= (async () => {
    const br = createBrotliCompress({
      params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: 24 },
    });
    const out: Buffer[] = [];
    br.on("data", (d: Buffer) => out.push(d));
    const ended = new Promise((resolve) => br.on("end", resolve));
    const zeros = new Uint8Array(1 << 20);
    for (let i = 0; i < 512; i++) {
      if (!br.write(zeros)) await new Promise((resolve) => br.once("drain", resolve));
    }
    br.end();
    await ended;
    return new Uint8Array(Buffer.concat(out));
  })();
  return brBomb;
}

interface Request {
  method: string;
  target: string;
  path: string[];
  headers: Map<string, string>;
}

/** Parses `bytes=a-b` / `bytes=a-` / `bytes=-n` against `total`: [first, last] inclusive. */
function askedRange(header: string | undefined, total: number): [number, number] | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  if (m[1] === "") return [Math.max(0, total - Number(m[2])), total - 1];
  const first = Number(m[1]);
  const last = m[2] === "" ? total - 1 : Math.min(total - 1, Number(m[2]));
  return [first, last];
}

/** Starts the server on 127.0.0.1 (a free port). */
export async function startHostileServer(
  options: HostileServerOptions = {},
): Promise<HostileServer> {
  const files = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(options.files ?? {})) {
    files.set(k, typeof v === "string" ? new TextEncoder().encode(v) : v);
  }
  const dripMs = options.dripMs ?? 100;
  if (options.prepareBombs) {
    gzipZeros();
    await brotliZeros();
  }
  const requests: string[] = [];
  const times: number[] = [];
  const sockets = new Set<Socket>();
  const state = { bytesSent: 0 };

  const write = (socket: Socket, data: string | Uint8Array): boolean => {
    if (socket.destroyed) return false;
    state.bytesSent += typeof data === "string" ? Buffer.byteLength(data) : data.length;
    return socket.write(data);
  };
  const head = (socket: Socket, status: string, headers: Record<string, string | number>) => {
    const lines = [`HTTP/1.1 ${status}`, "Connection: close"];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    write(socket, `${lines.join("\r\n")}\r\n\r\n`);
  };
  /** Writes `next()` pieces forever, respecting backpressure, until the socket closes. */
  const forever = (socket: Socket, next: () => Uint8Array | string, chunked: boolean) => {
    const pump = () => {
      while (!socket.destroyed) {
        const piece = next();
        const framed = chunked
          ? Buffer.concat([
              Buffer.from(`${Buffer.byteLength(piece).toString(16)}\r\n`),
              Buffer.from(piece),
              Buffer.from("\r\n"),
            ])
          : piece;
        if (!write(socket, framed)) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    pump();
  };
  const serveFile = (socket: Socket, req: Request, name: string) => {
    const data = files.get(name);
    if (data === undefined) {
      head(socket, "404 Not Found", { "Content-Length": 0 });
      socket.end();
      return;
    }
    const range = askedRange(req.headers.get("range"), data.length);
    if (range && range[0] >= data.length) {
      head(socket, "416 Range Not Satisfiable", {
        "Content-Range": `bytes */${data.length}`,
        "Content-Length": 0,
      });
      socket.end();
      return;
    }
    const body = range ? data.subarray(range[0], range[1] + 1) : data;
    head(socket, range ? "206 Partial Content" : "200 OK", {
      "Content-Length": body.length,
      ...(range ? { "Content-Range": `bytes ${range[0]}-${range[1]}/${data.length}` } : {}),
    });
    if (req.method !== "HEAD") write(socket, body);
    socket.end();
  };

  const handle = (socket: Socket, req: Request) => {
    if (requests.length < 10_000) {
      const range = req.headers.get("range");
      requests.push(`${req.method} ${req.target}${range ? ` ${range}` : ""}`);
      times.push(performance.now());
    }
    const index = req.path.findIndex((s) =>
      HOSTILE_SCENARIOS.includes(s.split("~")[0] as HostileScenario),
    );
    const segment = index < 0 ? "ok" : req.path[index];
    const rest = req.path
      .slice(index + 1)
      .map((s) => decodeURIComponent(s))
      .join("/");
    const [name, only] = segment.split("~") as [HostileScenario, string | undefined];
    if (name === "ok" || (only === "data" && METADATA.test(rest))) {
      serveFile(socket, req, rest);
      return;
    }
    const isHead = req.method === "HEAD";
    const rangeHeader = req.headers.get("range");
    const asked = askedRange(rangeHeader, FAKE_TOTAL) ?? [0, FAKE_TOTAL - 1];
    const endless206 = (contentRange: string) => {
      head(socket, "206 Partial Content", {
        "Content-Range": contentRange,
        "Transfer-Encoding": "chunked",
      });
      if (!isHead) forever(socket, () => CHUNK, true);
      else socket.end();
    };
    switch (name) {
      case "endless":
        head(socket, "200 OK", { "Transfer-Encoding": "chunked" });
        if (!isHead) forever(socket, () => CHUNK, true);
        else socket.end();
        return;
      case "endless-error":
        head(socket, "503 Service Unavailable", {
          "Transfer-Encoding": "chunked",
          "Content-Type": "application/xml",
        });
        if (!isHead) forever(socket, () => ERROR_PIECE, true);
        else socket.end();
        return;
      case "endless-206":
        endless206(`bytes ${asked[0]}-${asked[1]}/*`);
        return;
      case "wrong-range-offset":
        endless206(`bytes ${asked[0] + 1}-${asked[1] + 1}/${FAKE_TOTAL + 1}`);
        return;
      case "wrong-range-length":
        endless206(`bytes ${asked[0]}-${asked[1] + 10}/${FAKE_TOTAL + 10}`);
        return;
      case "wrong-range-total":
        endless206(`bytes ${asked[0]}-${asked[1]}/${asked[1]}`);
        return;
      case "wrong-range-malformed":
        endless206("bytes abc-def/ghi");
        return;
      case "longer-than-range": {
        const length = asked[1] - asked[0] + 1;
        head(socket, "206 Partial Content", {
          "Content-Range": `bytes ${asked[0]}-${asked[1]}/${FAKE_TOTAL}`,
          "Content-Length": 2 * length,
        });
        if (!isHead) {
          let left = 2 * length;
          forever(
            socket,
            () => {
              if (left <= 0) {
                socket.end();
                return "";
              }
              const piece = CHUNK.subarray(0, Math.min(left, CHUNK.length));
              left -= piece.length;
              return piece;
            },
            false,
          );
        } else socket.end();
        return;
      }
      case "short-then-silence":
        head(socket, "200 OK", { "Content-Length": 1_000_000 });
        if (!isHead) write(socket, new Uint8Array(500_000));
        return;
      case "silence":
        return;
      case "headers-then-silence":
        head(socket, "200 OK", { "Content-Length": 1000 });
        return;
      case "drip": {
        head(socket, "200 OK", { "Transfer-Encoding": "chunked" });
        if (isHead) return;
        const timer = setInterval(() => {
          if (socket.destroyed) clearInterval(timer);
          else write(socket, "1\r\nx\r\n");
        }, dripMs);
        socket.on("close", () => clearInterval(timer));
        return;
      }
      case "gzip-bomb": {
        const member = gzipZeros();
        head(socket, "200 OK", {
          "Content-Encoding": "gzip",
          "Content-Length": 16 * member.length,
        });
        if (isHead) return void socket.end();
        for (let i = 0; i < 16; i++) write(socket, member);
        socket.end();
        return;
      }
      case "gzip-endless":
        head(socket, "200 OK", { "Content-Encoding": "gzip", "Transfer-Encoding": "chunked" });
        if (!isHead) forever(socket, gzipZeros, true);
        else socket.end();
        return;
      case "br-bomb":
        void brotliZeros().then((bomb) => {
          head(socket, "200 OK", { "Content-Encoding": "br", "Content-Length": bomb.length });
          if (!isHead) write(socket, bomb);
          socket.end();
        });
        return;
      case "br-endless": {
        head(socket, "200 OK", { "Content-Encoding": "br", "Transfer-Encoding": "chunked" });
        if (isHead) return void socket.end();
        const br = createBrotliCompress({
          params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: 24 },
        });
        const zeros = new Uint8Array(1 << 20);
        // Flushed after every MiB, so that output flows (brotli would otherwise hold it back).
        const feed = () => {
          while (!socket.destroyed) {
            const more = br.write(zeros);
            br.flush();
            if (!more) {
              br.once("drain", feed);
              return;
            }
          }
        };
        br.on("data", (piece: Buffer) => {
          const ok = write(
            socket,
            Buffer.concat([
              Buffer.from(`${piece.length.toString(16)}\r\n`),
              piece,
              Buffer.from("\r\n"),
            ]),
          );
          if (!ok) {
            br.pause();
            socket.once("drain", () => br.resume());
          }
        });
        socket.on("close", () => br.destroy());
        feed();
        return;
      }
      case "redirect-loop":
        head(socket, "302 Found", { Location: req.target, "Content-Length": 0 });
        socket.end();
        return;
      case "longer-than-length":
        head(socket, "200 OK", { "Content-Length": 100 });
        if (!isHead) forever(socket, () => CHUNK, false);
        else socket.end();
        return;
    }
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    let handled = false;
    socket.on("data", (data: Buffer) => {
      if (handled) return; // one request per connection (we always answer Connection: close)
      buffered = Buffer.concat([buffered, data]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buffered.length > 64 * 1024) socket.destroy();
        return;
      }
      handled = true;
      const lines = buffered.subarray(0, end).toString("latin1").split("\r\n");
      const [method = "GET", target = "/"] = lines[0].split(" ");
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0)
          headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const pathname = target.split("?")[0];
      handle(socket, { method, target, path: pathname.split("/").filter(Boolean), headers });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    times,
    get bytesSent() {
      return state.bytesSent;
    },
    get openConnections() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
