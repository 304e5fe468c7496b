/**
 * A small in-memory emulator of the Google Cloud Storage JSON API, on
 * 127.0.0.1, for testing `@google-cloud/storage` clients over real HTTP.
 *
 * It answers what a Zarr store needs: object metadata and media GETs (with
 * `Range`, including suffix ranges and 416 past the end), simple/multipart and
 * resumable uploads (chunked `PUT`s with `Content-Range`, `308` while
 * incomplete), listing with `prefix`/`delimiter`/`pageToken`/`maxResults`, and
 * deletes. Paths are accepted with or without the `/storage/v1` base (the
 * client uses the former with `apiEndpoint`, the latter with
 * `STORAGE_EMULATOR_HOST`). Tests can inject failures and inspect requests.
 *
 * @module
 */

import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One stored object. */
interface StoredObject {
  data: Uint8Array;
  generation: number;
  contentType: string;
  updated: string;
}

/** A resumable upload in progress. */
interface UploadSession {
  bucket: string;
  name: string;
  contentType: string;
  chunks: Uint8Array[];
  received: number;
}

/** One request the emulator served, for assertions. */
export interface GcsRequest {
  method: string;
  /** The path without the `/storage/v1` base and query. */
  path: string;
  query: Record<string, string>;
  range: string | undefined;
}

/** A running emulator. */
export interface GcsEmulator {
  /** `http://127.0.0.1:PORT` (use as `apiEndpoint`, or as `STORAGE_EMULATOR_HOST` with `/storage/v1`). */
  readonly endpoint: string;
  /** Every request served since start (or the last `requests.length = 0`). */
  readonly requests: GcsRequest[];
  /** Creates an empty bucket (no-op if it exists). */
  createBucket(name: string): void;
  /** The stored bytes of an object, for assertions. */
  object(bucket: string, name: string): Uint8Array | undefined;
  /** Makes the next `count` requests (matching `filter`, if given) fail with `status`. */
  failNext(count: number, status: number, filter?: (request: GcsRequest) => boolean): void;
  /** Drops failures injected by {@link failNext} that have not happened yet. */
  clearFailures(): void;
  /** When true, media GETs ignore `Range` and answer 200 with the whole object (as some servers do). */
  ignoreRanges: boolean;
  /** Stops the server. */
  close(): Promise<void>;
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32C as GCS reports it: base64 of the big-endian 32-bit value. */
function crc32cBase64(data: Uint8Array): string {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC32C_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((crc ^ 0xffffffff) >>> 0);
  return out.toString("base64");
}

const md5Base64 = (data: Uint8Array) => createHash("md5").update(data).digest("base64");

/** GCS orders names by their UTF-8 bytes. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on("error", reject);
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, reason = "invalid") {
  sendJson(res, status, {
    error: { code: status, message, errors: [{ message, domain: "global", reason }] },
  });
}

/** Parses `bytes=a-b`, `bytes=a-`, `bytes=-n` against `size`: `[start, end)`, or "unsatisfiable". */
function resolveRange(
  header: string,
  size: number,
): [number, number] | "unsatisfiable" | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined; // malformed: ignored, as HTTP says
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return "unsatisfiable";
    return [Math.max(0, size - n), size];
  }
  const start = Number(m[1]);
  if (start >= size) return "unsatisfiable";
  const end = m[2] === "" ? size : Math.min(size, Number(m[2]) + 1);
  if (end <= start) return undefined;
  return [start, end];
}

/** Splits a multipart/related body into its parts' (headers, body). */
function parseMultipart(
  body: Uint8Array,
  contentType: string,
): { headers: string; body: Uint8Array }[] {
  const m = /boundary="?([^";]+)"?/i.exec(contentType);
  if (!m) throw new Error("multipart upload without a boundary");
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${m[1]}`);
  const parts: { headers: string; body: Uint8Array }[] = [];
  let pos = buf.indexOf(delimiter);
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (buf.subarray(start, start + 2).toString() === "--") break;
    const next = buf.indexOf(delimiter, start);
    if (next < 0) throw new Error("unterminated multipart body");
    const part = buf.subarray(start + 2, next - 2); // skip CRLF after the delimiter and before the next
    const split = part.indexOf("\r\n\r\n");
    parts.push({
      headers: part.subarray(0, split).toString(),
      body: new Uint8Array(part.subarray(split + 4)),
    });
    pos = next;
  }
  return parts;
}

/** Starts an emulator on 127.0.0.1 (a free port unless `port` is given). */
export async function startGcsEmulator(options: { port?: number } = {}): Promise<GcsEmulator> {
  const buckets = new Map<string, Map<string, StoredObject>>();
  const sessions = new Map<string, UploadSession>();
  const requests: GcsRequest[] = [];
  const failures: { count: number; status: number; filter?: (r: GcsRequest) => boolean }[] = [];
  let generation = 1;
  let endpoint = "";

  const objectJson = (bucket: string, name: string, o: StoredObject) => ({
    kind: "storage#object",
    id: `${bucket}/${name}/${o.generation}`,
    name,
    bucket,
    generation: String(o.generation),
    metageneration: "1",
    contentType: o.contentType,
    size: String(o.data.length),
    md5Hash: md5Base64(o.data),
    crc32c: crc32cBase64(o.data),
    timeCreated: o.updated,
    updated: o.updated,
    storageClass: "STANDARD",
  });

  const store = (bucket: string, name: string, data: Uint8Array, contentType: string) => {
    const objects = buckets.get(bucket);
    if (!objects) return undefined;
    const o: StoredObject = {
      data,
      generation: generation++,
      contentType: contentType || "application/octet-stream",
      updated: new Date().toISOString(),
    };
    objects.set(name, o);
    return objectJson(bucket, name, o);
  };

  const list = (res: ServerResponse, bucket: string, query: Record<string, string>) => {
    const objects = buckets.get(bucket);
    if (!objects) return sendError(res, 404, "The specified bucket does not exist.", "notFound");
    const prefix = query.prefix ?? "";
    const delimiter = query.delimiter ?? "";
    const max = Math.min(1000, Math.max(1, Number(query.maxResults ?? 1000) || 1000));
    let after: string | undefined;
    let skipPrefix: string | undefined;
    if (query.pageToken) {
      try {
        ({ after, skipPrefix } = JSON.parse(Buffer.from(query.pageToken, "base64url").toString()));
      } catch {
        return sendError(res, 400, "Invalid page token");
      }
    }
    const names = [...objects.keys()].filter((n) => n.startsWith(prefix)).sort(byteOrder);
    const items: unknown[] = [];
    const prefixes: string[] = [];
    let last: { after: string; skipPrefix?: string } | undefined;
    let more = false;
    for (const name of names) {
      if (after !== undefined && byteOrder(name, after) <= 0) continue;
      if (skipPrefix !== undefined && name.startsWith(skipPrefix)) continue;
      const cut = delimiter ? name.indexOf(delimiter, prefix.length) : -1;
      const common = cut >= 0 ? name.slice(0, cut + delimiter.length) : undefined;
      if (common !== undefined && common === last?.skipPrefix) continue;
      if (items.length + prefixes.length >= max) {
        more = true;
        break;
      }
      if (common !== undefined) {
        prefixes.push(common);
        last = { after: name, skipPrefix: common };
      } else {
        items.push(objectJson(bucket, name, objects.get(name) as StoredObject));
        last = { after: name };
      }
    }
    const body: Record<string, unknown> = { kind: "storage#objects" };
    if (items.length > 0) body.items = items;
    if (prefixes.length > 0) body.prefixes = prefixes;
    if (more && last) body.nextPageToken = Buffer.from(JSON.stringify(last)).toString("base64url");
    sendJson(res, 200, body);
  };

  const getObject = (
    req: IncomingMessage,
    res: ServerResponse,
    bucket: string,
    name: string,
    media: boolean,
  ) => {
    const objects = buckets.get(bucket);
    if (!objects) return sendError(res, 404, "The specified bucket does not exist.", "notFound");
    const o = objects.get(name);
    if (!o) return sendError(res, 404, `No such object: ${bucket}/${name}`, "notFound");
    if (!media) return sendJson(res, 200, objectJson(bucket, name, o));
    const headers: Record<string, string | number> = {
      "content-type": o.contentType,
      "x-goog-generation": o.generation,
      "x-goog-metageneration": 1,
      "x-goog-stored-content-encoding": "identity",
      "x-goog-stored-content-length": o.data.length,
    };
    const range =
      req.headers.range && !emulator.ignoreRanges
        ? resolveRange(req.headers.range, o.data.length)
        : undefined;
    if (range === "unsatisfiable") {
      return sendError(
        res,
        416,
        "The requested range cannot be satisfied.",
        "requestedRangeNotSatisfiable",
      );
    }
    if (range) {
      const [start, end] = range;
      res.writeHead(206, {
        ...headers,
        "content-length": end - start,
        "content-range": `bytes ${start}-${end - 1}/${o.data.length}`,
      });
      res.end(Buffer.from(o.data.subarray(start, end)));
      return;
    }
    res.writeHead(200, {
      ...headers,
      "content-length": o.data.length,
      "x-goog-hash": `crc32c=${crc32cBase64(o.data)},md5=${md5Base64(o.data)}`,
    });
    res.end(Buffer.from(o.data));
  };

  const upload = async (
    req: IncomingMessage,
    res: ServerResponse,
    bucket: string,
    query: Record<string, string>,
    body: Uint8Array,
  ) => {
    if (!buckets.has(bucket))
      return sendError(res, 404, "The specified bucket does not exist.", "notFound");
    const type = query.uploadType;
    const contentType = String(req.headers["content-type"] ?? "");
    if (req.method === "POST" && type === "media") {
      if (!query.name) return sendError(res, 400, "Required parameter: name", "required");
      return sendJson(res, 200, store(bucket, query.name, body, contentType));
    }
    if (req.method === "POST" && type === "multipart") {
      const parts = parseMultipart(body, contentType);
      if (parts.length !== 2) return sendError(res, 400, "multipart upload needs 2 parts");
      const meta = JSON.parse(Buffer.from(parts[0].body).toString()) as {
        name?: string;
        contentType?: string;
      };
      const name = meta.name ?? query.name;
      if (!name) return sendError(res, 400, "Required parameter: name", "required");
      const mediaType = /content-type:\s*([^\r\n]+)/i.exec(parts[1].headers)?.[1] ?? "";
      return sendJson(res, 200, store(bucket, name, parts[1].body, meta.contentType ?? mediaType));
    }
    if (req.method === "POST" && type === "resumable") {
      const meta =
        body.length > 0 ? (JSON.parse(Buffer.from(body).toString()) as Record<string, string>) : {};
      const name = meta.name ?? query.name;
      if (!name) return sendError(res, 400, "Required parameter: name", "required");
      const id = randomUUID();
      sessions.set(id, {
        bucket,
        name,
        contentType: meta.contentType ?? "",
        chunks: [],
        received: 0,
      });
      res.writeHead(200, {
        location: `${endpoint}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=resumable&upload_id=${id}`,
        "content-length": 0,
      });
      res.end();
      return;
    }
    if (req.method === "PUT" && query.upload_id) {
      const session = sessions.get(query.upload_id);
      if (!session) return sendError(res, 404, "No such upload session", "notFound");
      const header = String(req.headers["content-range"] ?? "");
      const m = /^bytes (?:(\d+)-(\d+)|\*)\/(\d+|\*)$/.exec(header.trim());
      if (!m) return sendError(res, 400, `bad Content-Range ${JSON.stringify(header)}`);
      if (m[1] !== undefined) {
        const first = Number(m[1]);
        if (first === session.received) {
          session.chunks.push(body);
          session.received += body.length;
        } else if (first > session.received) {
          return sendError(
            res,
            400,
            `upload chunk starts at ${first}, ${session.received} bytes received`,
          );
        } // else: a retried chunk already received; report progress below
      }
      const total = m[3] === "*" ? undefined : Number(m[3]);
      if (total !== undefined && session.received >= total) {
        sessions.delete(query.upload_id);
        const data = new Uint8Array(Buffer.concat(session.chunks).subarray(0, total));
        return sendJson(res, 200, store(session.bucket, session.name, data, session.contentType));
      }
      const headers: Record<string, string | number> = { "content-length": 0 };
      if (session.received > 0) headers.range = `bytes=0-${session.received - 1}`;
      res.writeHead(308, headers);
      res.end();
      return;
    }
    if (req.method === "DELETE" && query.upload_id) {
      sessions.delete(query.upload_id);
      res.writeHead(499, { "content-length": 0 });
      res.end();
      return;
    }
    sendError(res, 400, `unsupported upload request ${req.method} uploadType=${type}`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const query = Object.fromEntries(url.searchParams);
    const isUpload = url.pathname.startsWith("/upload/");
    const path = url.pathname.replace(/^\/upload/, "").replace(/^\/storage\/v1/, "");
    const record: GcsRequest = {
      method: req.method ?? "GET",
      path,
      query,
      range: req.headers.range,
    };
    requests.push(record);
    const body = await readBody(req);
    const failure = failures.find((f) => f.count > 0 && (!f.filter || f.filter(record)));
    if (failure) {
      failure.count--;
      return sendError(
        res,
        failure.status,
        `injected failure (HTTP ${failure.status})`,
        "backendError",
      );
    }
    const objectMatch = /^\/b\/([^/]+)\/o\/(.+)$/.exec(path);
    const listMatch = /^\/b\/([^/]+)\/o\/?$/.exec(path);
    const bucketMatch = /^\/b\/([^/]+)\/?$/.exec(path);
    if (isUpload && listMatch)
      return upload(req, res, decodeURIComponent(listMatch[1]), query, body);
    if (objectMatch) {
      const bucket = decodeURIComponent(objectMatch[1]);
      const name = decodeURIComponent(objectMatch[2]);
      if (req.method === "GET") return getObject(req, res, bucket, name, query.alt === "media");
      if (req.method === "DELETE") {
        const objects = buckets.get(bucket);
        if (!objects)
          return sendError(res, 404, "The specified bucket does not exist.", "notFound");
        if (!objects.delete(name))
          return sendError(res, 404, `No such object: ${bucket}/${name}`, "notFound");
        res.writeHead(204);
        res.end();
        return;
      }
    }
    if (listMatch && req.method === "GET")
      return list(res, decodeURIComponent(listMatch[1]), query);
    if (bucketMatch && req.method === "GET") {
      const name = decodeURIComponent(bucketMatch[1]);
      if (!buckets.has(name))
        return sendError(res, 404, "The specified bucket does not exist.", "notFound");
      return sendJson(res, 200, { kind: "storage#bucket", id: name, name });
    }
    sendError(
      res,
      501,
      `emulator does not implement ${req.method} ${url.pathname}`,
      "notImplemented",
    );
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 400, `emulator: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const emulator: GcsEmulator = {
    endpoint,
    requests,
    ignoreRanges: false,
    createBucket(name) {
      if (!buckets.has(name)) buckets.set(name, new Map());
    },
    object(bucket, name) {
      return buckets.get(bucket)?.get(name)?.data;
    },
    failNext(count, status, filter) {
      failures.push({ count, status, filter });
    },
    clearFailures() {
      failures.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return emulator;
}
