// Attacks on `zarr serve`, started as a real child process (the built CLI) and
// talked to over HTTP on 127.0.0.1: symbolic links out of the served
// directory, path traversal, 200 concurrent GETs of a 50 MB value and readers
// that never read (the server's resident memory is sampled from /proc and
// capped), and Range edge cases (RFC 9110 §14).
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZARR_BIN } from "../src/index.js";

const MiB = 1 << 20;
const BIG = 50 * 1000 * 1000;

/** A running `zarr serve`, watched like the watchdog watches attacks (RSS and time caps). */
interface Served {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Peak RSS so far (MiB, VmHWM). */
  peakMiB(): number;
  /** Set when the watchdog killed the server. */
  killed(): "rss" | "time" | undefined;
  stderr(): string;
  /** Stops the server by its pid (SIGTERM, then SIGKILL) and waits for it. */
  stop(): Promise<void>;
}

function statusMiB(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
    return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

async function serve(dir: string, limits = { maxRssMiB: 400, timeoutMs: 60_000 }): Promise<Served> {
  const child = spawn(process.execPath, [ZARR_BIN, "serve", dir, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let peak = 0;
  let killed: "rss" | "time" | undefined;
  let err = "";
  child.stderr!.on("data", (d) => {
    if (err.length < 1 << 16) err += String(d);
  });
  const kill = (why: "rss" | "time") => {
    killed ??= why;
    child.kill("SIGKILL");
  };
  const poll = setInterval(() => {
    const s = child.pid === undefined ? undefined : statusMiB(child.pid);
    if (!s) return;
    peak = Math.max(peak, s.rss, s.hwm);
    if (s.rss > limits.maxRssMiB) kill("rss");
  }, 5);
  const timer = setTimeout(() => kill("time"), limits.timeoutMs);
  const exited = new Promise<void>((resolve) =>
    child.on("close", () => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += String(d);
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("close", () => reject(new Error(`zarr serve exited: ${err}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    peakMiB: () => Math.round(peak),
    killed: () => killed,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const t = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(t);
      }
    },
  };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with a raw path (no URL normalization by the client). */
function raw(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (b: Buffer) => parts.push(b));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

let base: string;
let root: string;
let bigHash: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "zarr-attack-serve-"));
  root = join(base, "root");
  await mkdir(join(root, "a", "c"), { recursive: true });
  await writeFile(join(root, "a", "c", "1"), "CHUNK-1");
  await writeFile(join(base, "outside-secret"), "OUTSIDE-SECRET");
  await writeFile(join(root, "zarr.json"), '{"zarr_format":3,"node_type":"group"}');
  await writeFile(join(root, "ten"), "0123456789");
  await writeFile(join(root, "empty"), "");
  const big = Buffer.allocUnsafe(BIG);
  for (let i = 0; i < BIG; i += 4)
    big.writeUInt32LE((Math.imul(i, 2654435761) ^ (i >>> 7)) >>> 0, i);
  await writeFile(join(root, "big"), big);
  bigHash = createHash("sha256").update(big).digest("hex");
  await symlink("/etc/passwd", join(root, "passwd"));
  await symlink("/etc", join(root, "etc"));
  await symlink("..", join(root, "up"));
  await symlink("../../outside-secret", join(root, "a", "c", "0"));
  await symlink("/dev/zero", join(root, "zero"));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe("zarr serve: nothing outside the served directory", () => {
  it("links to /etc/passwd, /etc, the parent and /dev/zero are not served (500, no details), HEAD too", async () => {
    const s = await serve(root);
    try {
      for (const path of ["/passwd", "/etc/passwd", "/up/outside-secret", "/a/c/0", "/zero"]) {
        for (const method of ["GET", "HEAD"]) {
          const r = await raw(s.port, path, { range: "bytes=0-" }, method);
          expect([path, method, r.status]).toEqual([path, method, 500]);
          const body = r.body.toString("utf8");
          expect(body).not.toContain("root:");
          expect(body).not.toContain("OUTSIDE");
          expect(body).not.toContain(base); // no internal message
          expect(r.headers["content-range"]).toBeUndefined();
        }
      }
      // The regular keys are served.
      expect((await raw(s.port, "/ten")).body.toString()).toBe("0123456789");
      // The details went to the server's stderr.
      expect(s.stderr()).toContain("passwd");
    } finally {
      await s.stop();
    }
    expect(s.killed()).toBeUndefined();
  });

  it("path traversal (%2e%2e, encoded slashes, backslashes, NUL, doubled slashes) is a 400 or 404, never a file", async () => {
    const s = await serve(join(root, "a")); // /etc/passwd and the root's files are all outside
    try {
      const paths = [
        "/../zarr.json",
        "/..%2fzarr.json",
        "/%2e%2e/zarr.json",
        "/%2e%2e%2fzarr.json",
        "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/c/..%2f..%2fzarr.json",
        "/c%2f..%2f..%2fzarr.json",
        "/..\\zarr.json",
        "/c%5c..%5c..%5czarr.json",
        "/zarr.json%00",
        "/%00",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
        "/c/%2e/%2e%2e/%2e%2e/zarr.json",
        "/%252e%252e/zarr.json",
        "/%ff%fe",
        "/%",
        // Encoded separators are refused even where they would name a key (c/1).
        "/c%2f1",
        "/c%2F1",
        "/c%5c1",
      ];
      for (const path of paths) {
        const r = await raw(s.port, path);
        expect([path, [400, 404].includes(r.status)]).toEqual([path, true]);
        expect(r.body.toString()).not.toContain("zarr_format");
        expect(r.body.toString()).not.toContain("root:");
        expect(r.body.toString()).not.toContain("CHUNK-1");
      }
      // The control: the key itself is served.
      expect((await raw(s.port, "/c/1")).body.toString()).toBe("CHUNK-1");
    } finally {
      await s.stop();
    }
  });
});

describe("zarr serve: bounded memory", () => {
  it("200 concurrent GETs of a 50 MB value stream with bounded server memory", async () => {
    const s = await serve(root);
    const file = await readFile(join(root, "big"));
    try {
      // All 200 requests are in flight at once. Two clients read the whole value
      // (hashed); the others check the first 4 MiB and hang up (10 GB through the
      // loopback would take the test half a minute; buffering servers blow up on
      // arrival anyway).
      const results = await Promise.all(
        Array.from(
          { length: 200 },
          (_, i) =>
            new Promise<{ status: number; length: number; ok: boolean }>((resolve, reject) => {
              const whole = i % 100 === 0;
              const req = request({ host: "127.0.0.1", port: s.port, path: "/big" }, (res) => {
                const hash = createHash("sha256");
                const head: Buffer[] = [];
                let length = 0;
                res.on("data", (b: Buffer) => {
                  length += b.length;
                  if (whole) return void hash.update(b);
                  head.push(b);
                  if (length >= 4 * MiB) {
                    const got = Buffer.concat(head);
                    req.destroy();
                    resolve({
                      status: res.statusCode!,
                      length,
                      ok: got.equals(file.subarray(0, got.length)),
                    });
                  }
                });
                res.on("end", () =>
                  resolve({ status: res.statusCode!, length, ok: hash.digest("hex") === bigHash }),
                );
                res.on("error", () => {});
              });
              req.on("error", (e) => (req.destroyed ? undefined : reject(e)));
              req.end();
            }),
        ),
      );
      expect(s.killed(), s.stderr()).toBeUndefined();
      for (const [i, r] of results.entries()) {
        expect(r.status).toBe(200);
        expect(r.ok, `response ${i}`).toBe(true);
        expect(r.length).toBe(i % 100 === 0 ? BIG : r.length);
      }
      expect(s.peakMiB()).toBeLessThan(400);
      console.log(`200 concurrent GETs of 50 MB: server peak RSS ${s.peakMiB()} MiB`);
    } finally {
      await s.stop();
    }
    expect(s.killed()).toBeUndefined();
  }, 60_000);

  it("readers that never read hold bounded memory, and the server keeps answering others", async () => {
    const s = await serve(root);
    const stalled: ReturnType<typeof request>[] = [];
    try {
      // 150 clients ask for the 50 MB value and never read the body.
      await Promise.all(
        Array.from(
          { length: 150 },
          () =>
            new Promise<void>((resolve, reject) => {
              const req = request({ host: "127.0.0.1", port: s.port, path: "/big" }, (res) => {
                res.pause();
                resolve();
              });
              req.on("error", reject);
              req.end();
              stalled.push(req);
            }),
        ),
      );
      await new Promise((r) => setTimeout(r, 500));
      // Others are still served: small values and a whole 50 MB value.
      const small = await raw(s.port, "/ten");
      expect(small.body.toString()).toBe("0123456789");
      const whole = await raw(s.port, "/big");
      expect(whole.status).toBe(200);
      expect(createHash("sha256").update(whole.body).digest("hex")).toBe(bigHash);
      expect(s.killed(), s.stderr()).toBeUndefined();
      expect(s.peakMiB()).toBeLessThan(400);
      console.log(`150 stalled readers of 50 MB: server peak RSS ${s.peakMiB()} MiB`);
    } finally {
      for (const req of stalled) req.destroy();
      await s.stop();
    }
  }, 60_000);
});

describe("zarr serve: Range requests (RFC 9110 §14)", () => {
  it("answers each edge case as the RFC says, without internal messages", async () => {
    const s = await serve(root);
    const ask = async (
      path: string,
      range?: string,
      extra: Record<string, string> = {},
      method = "GET",
    ) => {
      const r = await raw(s.port, path, range === undefined ? extra : { range, ...extra }, method);
      return {
        status: r.status,
        range: r.headers["content-range"],
        length: r.headers["content-length"],
        body: r.body.toString("utf8"),
      };
    };
    const full = { status: 200, range: undefined, length: "10", body: "0123456789" };
    const unsatisfiable = { status: 416, range: "bytes */10", length: "0", body: "" };
    try {
      const cases: [string, string | undefined, Record<string, string>, string, object][] = [
        [
          "/ten",
          "bytes=2-4",
          {},
          "GET",
          { status: 206, range: "bytes 2-4/10", length: "3", body: "234" },
        ],
        [
          "/ten",
          "bytes=2-",
          {},
          "GET",
          { status: 206, range: "bytes 2-9/10", length: "8", body: "23456789" },
        ],
        [
          "/ten",
          "bytes=-3",
          {},
          "GET",
          { status: 206, range: "bytes 7-9/10", length: "3", body: "789" },
        ],
        [
          "/ten",
          "bytes=-20",
          {},
          "GET",
          { status: 206, range: "bytes 0-9/10", length: "10", body: "0123456789" },
        ],
        [
          "/ten",
          "bytes=0-999",
          {},
          "GET",
          { status: 206, range: "bytes 0-9/10", length: "10", body: "0123456789" },
        ],
        [
          "/ten",
          "bytes=9-9",
          {},
          "GET",
          { status: 206, range: "bytes 9-9/10", length: "1", body: "9" },
        ],
        [
          "/ten",
          "BYTES=1-1",
          {},
          "GET",
          { status: 206, range: "bytes 1-1/10", length: "1", body: "1" },
        ],
        [
          "/ten",
          "bytes=0-99999999999999999999999",
          {},
          "GET",
          { status: 206, range: "bytes 0-9/10", length: "10", body: "0123456789" },
        ],
        [
          "/ten",
          "bytes=-99999999999999999999999",
          {},
          "GET",
          { status: 206, range: "bytes 0-9/10", length: "10", body: "0123456789" },
        ],
        ["/ten", "bytes=-0", {}, "GET", unsatisfiable],
        ["/ten", "bytes=10-", {}, "GET", unsatisfiable],
        ["/ten", "bytes=10-20", {}, "GET", unsatisfiable],
        ["/ten", "bytes=99999999999999999999999-", {}, "GET", unsatisfiable],
        ["/ten", "bytes=20-30,40-", {}, "GET", unsatisfiable],
        // One satisfiable range among several: that range alone.
        [
          "/ten",
          "bytes=20-30, 1-2",
          {},
          "GET",
          { status: 206, range: "bytes 1-2/10", length: "2", body: "12" },
        ],
        // Several satisfiable ranges: the whole value (a server may ignore Range).
        ["/ten", "bytes=0-1,4-5", {}, "GET", full],
        // Malformed or foreign: ignored.
        ["/ten", "bytes=5-2", {}, "GET", full],
        ["/ten", "bytes=abc", {}, "GET", full],
        ["/ten", "bytes=", {}, "GET", full],
        ["/ten", "bytes=-", {}, "GET", full],
        ["/ten", "bytes=1-2-3", {}, "GET", full],
        ["/ten", "bytes=0x1-2", {}, "GET", full],
        ["/ten", "bytes=1.5-2", {}, "GET", full],
        ["/ten", "bytes 1-2", {}, "GET", full],
        ["/ten", "items=0-1", {}, "GET", full],
        // Empty list elements are ignored (RFC 9110 §5.6.1).
        [
          "/ten",
          "bytes=0-1,",
          {},
          "GET",
          { status: 206, range: "bytes 0-1/10", length: "2", body: "01" },
        ],
        [
          "/ten",
          "bytes=,,3-3",
          {},
          "GET",
          { status: 206, range: "bytes 3-3/10", length: "1", body: "3" },
        ],
        // If-Range: no validators are sent, so it never matches: the whole value.
        ["/ten", "bytes=2-4", { "if-range": '"x"' }, "GET", full],
        // HEAD: Range is defined for GET only.
        [
          "/ten",
          "bytes=2-4",
          {},
          "HEAD",
          { status: 200, range: undefined, length: "10", body: "" },
        ],
        ["/ten", undefined, {}, "HEAD", { status: 200, range: undefined, length: "10", body: "" }],
        // An empty value: only a suffix range is satisfiable, and it is the whole (empty) value.
        ["/empty", undefined, {}, "GET", { status: 200, range: undefined, length: "0", body: "" }],
        [
          "/empty",
          "bytes=0-",
          {},
          "GET",
          { status: 416, range: "bytes */0", length: "0", body: "" },
        ],
        [
          "/empty",
          "bytes=0-0",
          {},
          "GET",
          { status: 416, range: "bytes */0", length: "0", body: "" },
        ],
        [
          "/empty",
          "bytes=-0",
          {},
          "GET",
          { status: 416, range: "bytes */0", length: "0", body: "" },
        ],
        ["/empty", "bytes=-5", {}, "GET", { status: 200, range: undefined, length: "0", body: "" }],
        [
          "/empty",
          "bytes=0-",
          {},
          "HEAD",
          { status: 200, range: undefined, length: "0", body: "" },
        ],
      ];
      for (const [path, range, extra, method, want] of cases) {
        expect([path, range, method, await ask(path, range, extra, method)]).toEqual([
          path,
          range,
          method,
          want,
        ]);
      }
      // A large range is streamed exactly.
      const big = await raw(s.port, "/big", { range: `bytes=${BIG - 3 * MiB - 5}-${BIG - 7}` });
      expect(big.status).toBe(206);
      expect(big.body.length).toBe(3 * MiB - 1);
      const file = await readFile(join(root, "big"));
      expect(big.body.equals(file.subarray(BIG - 3 * MiB - 5, BIG - 6))).toBe(true);
      // Missing keys and methods other than GET/HEAD/OPTIONS.
      expect((await ask("/missing")).status).toBe(404);
      expect((await ask("/a")).status).toBe(404); // a directory: a prefix, not a key
      expect((await ask("/a/")).status).toBe(400); // not a key
      expect((await ask("/ten", undefined, {}, "POST")).status).toBe(405);
      expect(s.stderr()).not.toMatch(/TypeError|RangeError/);
    } finally {
      await s.stop();
    }
  });
});

describe("zarr serve --help", () => {
  it("says what is exposed, to whom, and where it listens", async () => {
    const { runZarr } = await import("../src/index.js");
    const r = await runZarr(["serve", "--help"], { maxRssMiB: 300, timeoutMs: 20_000 });
    expect(r.stdout).toMatch(/127\.0\.0\.1/);
    expect(r.stdout).toMatch(/any web page/i);
    expect(r.stdout).toMatch(/symbolic link/i);
  });
});
