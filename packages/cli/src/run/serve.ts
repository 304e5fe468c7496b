import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidKeyError, type Store } from "@zarr/core";
import { resolveStore, validateKey } from "@zarr/core/store";
import { type Io, str, type Values } from "../command.js";
import { openStoreArg, type StoreFlags } from "../stores.js";
import { parseCount } from "../usage.js";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "range, if-none-match, if-modified-since",
  "access-control-expose-headers": "content-range, content-length, accept-ranges",
  "access-control-max-age": "86400",
};

/** Bytes read from the store per step of a response. */
const PIECE_BYTES = 64 * 1024;
/**
 * Memory (pieces read and not yet handed to the kernel) all responses together
 * may hold. No more than a FileSystemStore keeps for reuse, so that serving a
 * directory makes no garbage: every piece handed back is reused.
 */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** A request that waits longer than this for memory is answered 503. */
const QUEUE_TIMEOUT_MS = 10_000;
/** A connection with no traffic for this long (a client that stopped reading) is closed. */
const IDLE_TIMEOUT_MS = 60_000;
/** Open connections beyond this are closed at once. */
const MAX_CONNECTIONS = 1024;
/** Range headers with more ranges than this are ignored (RFC 9110 §14.2 allows it). */
const MAX_RANGES = 100;

/**
 * What to answer to a `Range` header for a value of `size` bytes (RFC 9110
 * §14): the whole value (200: no header, an unknown unit, a malformed or
 * invalid header, several satisfiable ranges, or a suffix of an empty value),
 * 416 when no range is satisfiable, or one range `[start, end)` (206).
 */
export type RangeAnswer =
  | { readonly status: 200 }
  | { readonly status: 416 }
  | { readonly status: 206; readonly start: number; readonly end: number };

const WHOLE: RangeAnswer = { status: 200 };

/** Parses a `Range` header against a value of `size` bytes; see {@link RangeAnswer}. */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return WHOLE;
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(.*)$/s.exec(header.trim());
  if (m?.[1].toLowerCase() !== "bytes") return WHOLE; // malformed, or a unit we do not serve
  // Empty list elements are ignored (RFC 9110 §5.6.1); any invalid range voids the header.
  const specs = m[2]
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (specs.length === 0 || specs.length > MAX_RANGES) return WHOLE;
  const satisfiable: { start: number; end: number }[] = [];
  for (const spec of specs) {
    const r = /^(\d*)-(\d*)$/.exec(spec);
    if (!r || (r[1] === "" && r[2] === "")) return WHOLE;
    if (r[1] === "") {
      // A suffix: satisfiable when not zero; longer than the value means all of it.
      const suffix = Number(r[2]);
      if (suffix > 0) satisfiable.push({ start: Math.max(0, size - suffix), end: size });
      continue;
    }
    // Numbers past 2^53 lose precision but keep their order, which is all that is compared.
    const first = Number(r[1]);
    const last = r[2] === "" ? Number.POSITIVE_INFINITY : Number(r[2]);
    if (last < first) return WHOLE; // invalid
    if (first < size) satisfiable.push({ start: first, end: Math.min(size, last + 1) });
  }
  if (satisfiable.length === 0) return { status: 416 };
  // An empty value's satisfiable suffix cannot be written as a Content-Range: send it whole.
  if (size === 0 || satisfiable.length > 1) return WHOLE;
  return { status: 206, ...satisfiable[0] };
}

/** Thrown when a request waited too long for memory. */
class Busy extends Error {}

/** A byte budget shared by all responses: waiters are served in order. */
class ByteBudget {
  readonly #total: number;
  #free: number;
  readonly #queue: { bytes: number; grant: () => void }[] = [];
  constructor(bytes: number) {
    this.#total = bytes;
    this.#free = bytes;
  }

  /** Resolves with an idempotent release once `bytes` are available; rejects with {@link Busy} after `timeoutMs`. */
  acquire(wanted: number, timeoutMs?: number): Promise<() => void> {
    const bytes = Math.min(wanted, this.#total);
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter = {
        bytes,
        grant: () => {
          if (timer) clearTimeout(timer);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.#free += bytes;
            this.#pump();
          });
        },
      };
      this.#queue.push(waiter);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const i = this.#queue.indexOf(waiter);
          if (i < 0) return;
          this.#queue.splice(i, 1);
          this.#pump();
          reject(new Busy());
        }, timeoutMs);
      }
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length > 0 && this.#queue[0].bytes <= this.#free) {
      const next = this.#queue.shift()!;
      this.#free -= next.bytes;
      next.grant();
    }
  }
}

/** Limits of {@link serveStore} (defaults suit `zarr serve`). */
export interface ServeOptions {
  /** Port (default 0: any free port). The server listens on 127.0.0.1 only. */
  port?: number;
  /** Bytes read from the store per step of a response (default 64 KiB). */
  pieceBytes?: number;
  /** Memory all responses together may hold in pieces (default 32 MiB). */
  maxBufferedBytes?: number;
  /** A request that waits longer than this for memory is answered 503 (default 10 s). */
  queueTimeoutMs?: number;
  /** Connections without traffic for this long are closed (default 60 s). */
  idleTimeoutMs?: number;
  /** Where errors are logged (default: standard error). Clients never see them. */
  log?: (line: string) => void;
}

interface Context {
  readonly store: Store;
  readonly budget: ByteBudget;
  readonly piece: number;
  readonly queueTimeoutMs: number;
}

/**
 * The key a request path names (the path after its leading `/`, percent-decoded,
 * with no normalization: `..`, `.` and empty segments stay and are refused);
 * `undefined` when it cannot be a key. Segments are separated by `/` only: an
 * encoded separator (`%2F`, `%5C`) is refused, not read as one.
 */
function requestKey(url: string | undefined): string | undefined {
  const path = (url ?? "").split(/[?#]/, 1)[0];
  if (!path.startsWith("/") || /%2f|%5c/i.test(path)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(path.slice(1));
  } catch {
    return undefined; // malformed percent-encoding
  }
  try {
    validateKey(key);
  } catch (error) {
    if (error instanceof InvalidKeyError) return undefined;
    throw error;
  }
  return key;
}

function text(res: ServerResponse, status: number, body: string, extra: object = {}): void {
  res
    .writeHead(status, {
      ...CORS,
      ...extra,
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(Buffer.byteLength(body)),
    })
    .end(body);
}

async function handle(ctx: Context, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "OPTIONS") {
    res.writeHead(204, CORS).end();
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    text(res, 405, "method not allowed\n", { allow: "GET, HEAD, OPTIONS" });
    return;
  }
  if (req.url === "/" || req.url?.startsWith("/?")) {
    text(res, 404, "not found\n");
    return;
  }
  const key = requestKey(req.url);
  if (key === undefined) {
    text(res, 400, "bad request: the path is not a valid store key\n");
    return;
  }
  const size = await ctx.store.getSize(key);
  if (size === undefined) {
    text(res, 404, "not found\n");
    return;
  }
  const headers: Record<string, string> = {
    ...CORS,
    "accept-ranges": "bytes",
    "content-type":
      key.endsWith(".json") || /(^|\/)\.z(array|group|attrs|metadata)$/.test(key)
        ? "application/json"
        : "application/octet-stream",
    "cache-control": "no-cache",
  };
  // Range is defined for GET only; If-Range never matches (no validators are sent).
  const answer =
    req.method === "GET" && req.headers["if-range"] === undefined
      ? parseRange(req.headers.range, size)
      : WHOLE;
  if (answer.status === 416) {
    res.writeHead(416, { ...headers, "content-range": `bytes */${size}`, "content-length": "0" });
    res.end();
    return;
  }
  const [start, end] = answer.status === 206 ? [answer.start, answer.end] : [0, size];
  if (answer.status === 206) headers["content-range"] = `bytes ${start}-${end - 1}/${size}`;
  headers["content-length"] = String(end - start);
  if (req.method === "HEAD" || start === end) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  await stream(ctx, key, res, start, end, answer.status, headers);
}

/**
 * Sends bytes `[start, end)` of `key` in pieces read through the store's
 * ranged `get`. Each piece is taken from the shared budget before it is read
 * and given back once the kernel has it (or the connection closed), and the
 * next piece is read only then: a response holds at most one piece, however
 * slowly its client reads.
 */
async function stream(
  ctx: Context,
  key: string,
  res: ServerResponse,
  start: number,
  end: number,
  status: number,
  headers: Record<string, string>,
): Promise<void> {
  // The response closes when it is done or its connection is; a pipelined response
  // not yet attached to the connection only hears of it through the socket.
  let closed = false;
  let onClosed: () => void = () => {};
  const onClose = new Promise<void>((resolve) => {
    onClosed = () => {
      closed = true;
      resolve();
    };
  });
  const socket = res.req.socket;
  res.once("close", onClosed);
  socket.once("close", onClosed);
  let release: (() => void) | undefined;
  try {
    release = await ctx.budget.acquire(Math.min(ctx.piece, end - start), ctx.queueTimeoutMs);
  } catch (error) {
    if (!(error instanceof Busy)) throw error;
    text(res, 503, "busy: too many values in flight, retry later\n", { "retry-after": "1" });
    return;
  }
  try {
    if (closed) return;
    res.writeHead(status, headers);
    for (let offset = start; offset < end; ) {
      const length = Math.min(ctx.piece, end - offset);
      release ??= await ctx.budget.acquire(length);
      if (closed) return;
      const bytes = await ctx.store.get(key, { offset, length });
      if (bytes === undefined || bytes.length !== length) {
        // The value was erased or shrunk while sent: the length promised cannot be kept.
        throw new Error(
          `${key} changed while it was sent (read ${bytes?.length ?? "nothing"} of ${length} bytes at ${offset})`,
        );
      }
      if (closed) return;
      const flushed = new Promise<boolean>((resolve) =>
        res.write(bytes, (error) => resolve(!error)),
      );
      // The kernel has the piece (or the client is gone): only then is its memory free.
      const ok = await Promise.race([flushed, onClose.then(() => false)]);
      if (ok) ctx.store.release(bytes);
      release();
      release = undefined;
      if (closed) return;
      offset += length;
    }
    res.end();
  } finally {
    release?.();
    socket.off("close", onClosed);
  }
}

/**
 * Serves `store` read-only over HTTP on 127.0.0.1: GET, HEAD and OPTIONS,
 * one byte range per request (RFC 9110 §14), CORS for any origin. Values are
 * streamed in bounded pieces under a memory budget shared by all requests.
 * Errors are logged through `log`; clients get a generic status and message.
 */
export async function serveStore(
  store: Store,
  options: number | ServeOptions = {},
): Promise<{ server: Server; url: string }> {
  const o: ServeOptions = typeof options === "number" ? { port: options } : options;
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const ctx: Context = {
    store,
    budget: new ByteBudget(o.maxBufferedBytes ?? MAX_BUFFERED_BYTES),
    piece: o.pieceBytes ?? PIECE_BYTES,
    queueTimeoutMs: o.queueTimeoutMs ?? QUEUE_TIMEOUT_MS,
  };
  const server = createServer((req, res) => {
    handle(ctx, req, res).catch((e: unknown) => {
      const name = e instanceof Error ? e.name : "Error";
      const message = e instanceof Error ? e.message : String(e);
      log(`zarr serve: ${req.method} ${req.url}: ${name}: ${message}`);
      if (!res.headersSent) text(res, 500, "internal error (see the server's log)\n");
      else res.destroy(); // the body promised cannot be completed: the client sees a short read
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  server.setTimeout(o.idleTimeoutMs ?? IDLE_TIMEOUT_MS, (socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port: actual } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${actual}/` };
}

/** Runs `zarr serve` (its options are described by the command in `commands/serve.ts`). */
export async function run(
  [storeArg]: string[],
  values: Values,
  io: Io,
): Promise<number | undefined> {
  const port = str(values, "port") === undefined ? 0 : parseCount(str(values, "port")!, "--port");
  const store = resolveStore(await openStoreArg(storeArg, values as StoreFlags));
  const { server, url } = await serveStore(store, { port, log: (line) => io.err(line) });
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
}
