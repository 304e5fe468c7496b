// Static HTTP server for the Chromium row, run as a child process of
// browser_bench.mjs (which stops it by pid): `node server.mjs MOUNTS_JSON`
// serves each URL prefix ("/app/") from a directory on 127.0.0.1 only, on a
// free port it prints as one JSON line. Answers Range requests (`bytes=a-b`,
// `bytes=a-`, `bytes=-n`), `Cache-Control: no-store` on everything so that each
// read fetches its chunks again.
import { readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, resolve, sep } from "node:path";

const mounts = JSON.parse(process.argv[2]);
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
  const prefix = Object.keys(mounts).find((p) => path.startsWith(p));
  const root = prefix ? resolve(mounts[prefix]) : "";
  const file = prefix ? resolve(join(root, path.slice(prefix.length) || "index.html")) : "";
  let data;
  try {
    if (!prefix || !file.startsWith(root + sep) || !(await stat(file)).isFile()) throw new Error();
    data = await readFile(file);
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
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
