// Unit tests of @zarr/remote-store (no network): Range headers, planning an
// object read, bounded bodies, bucket prefixes and URLs, opener options,
// request errors and deadlines. The stores that use it (@zarr/store-s3,
// @zarr/store-gcs, @zarr/store-http) test them against servers.
import { AbortError, InvalidKeyError, StoreError } from "@zarr/core";
import {
  BucketPrefix,
  Deadline,
  isEmptyRange,
  OpenerOptions,
  PlannedBody,
  parseBucketUrl,
  parseContentRange,
  planObjectRead,
  rangeHeader,
  readBody,
  requestError,
} from "@zarr/remote-store";
import { describe, expect, it } from "vitest";

describe("Range headers (RFC 9110 14.1.2 byte ranges)", () => {
  it("maps byte ranges to Range headers", () => {
    expect(rangeHeader(undefined)).toBeUndefined();
    expect(rangeHeader({ offset: 0 })).toBeUndefined();
    expect(rangeHeader({ offset: 5 })).toBe("bytes=5-");
    expect(rangeHeader({ offset: 5, length: 10 })).toBe("bytes=5-14");
    expect(rangeHeader({ suffix: 3 })).toBe("bytes=-3");
  });
  it("parses Content-Range and rejects inconsistent ones", () => {
    expect(parseContentRange("bytes 0-9/100")).toEqual({ first: 0, last: 9, total: 100 });
    expect(parseContentRange("bytes 5-9/*")).toEqual({ first: 5, last: 9, total: undefined });
    for (const bad of [
      undefined,
      "bytes 9-0/100",
      "bytes 0-100/100",
      "items 0-1/2",
      "bytes */10",
    ]) {
      expect(parseContentRange(bad), String(bad)).toBeUndefined();
    }
  });
});

describe("planObjectRead: a partial response is exactly the range asked for", () => {
  const read = { maxBytes: undefined, maxBodyBytes: 1 << 20 };
  const partial = (contentRange: string) => ({
    status: 206,
    contentLength: undefined,
    contentRange,
    contentEncoding: undefined,
  });
  const refused = (range: Parameters<typeof planObjectRead>[0]["range"], contentRange: string) =>
    "refuse" in planObjectRead({ ...read, range }, partial(contentRange));

  it("refuses fewer bytes than asked for, or than the value has", () => {
    expect(refused({ offset: 0, length: 100 }, "bytes 0-9/1000")).toBe(true);
    expect(refused({ offset: 100 }, "bytes 100-109/1000")).toBe(true);
    expect(refused({ suffix: 100 }, "bytes 900-909/1000")).toBe(true);
    expect(refused({ offset: 0, length: 100 }, "bytes 0-9/*")).toBe(true);
  });

  it("refuses a partial response to a whole-value read, and a suffix without a total", () => {
    expect(refused(undefined, "bytes 0-9/1000")).toBe(true);
    expect(refused({ suffix: 100 }, "bytes 0-99/*")).toBe(true);
  });

  it("accepts exactly the range, clipped at the value's end", () => {
    expect(refused({ offset: 0, length: 100 }, "bytes 0-99/1000")).toBe(false);
    expect(refused({ offset: 950, length: 100 }, "bytes 950-999/1000")).toBe(false);
    expect(refused({ offset: 100 }, "bytes 100-999/1000")).toBe(false);
    expect(refused({ suffix: 100 }, "bytes 900-999/1000")).toBe(false);
    expect(refused({ suffix: 2000 }, "bytes 0-999/1000")).toBe(false);
    expect(refused({ offset: 5, length: 10 }, "bytes 5-14/*")).toBe(false);
  });
});

describe("BucketPrefix.under", () => {
  it("keeps only the listed names under the prefix (a lying listing is not obeyed)", () => {
    const where = new BucketPrefix("s3", "S3Store", "b", "p");
    expect(
      where.under("p/a/", ["p/a/zarr.json", "victim/precious.dat", undefined, "p/ab"]),
    ).toEqual(["p/a/zarr.json"]);
  });
});

describe("planObjectRead", () => {
  const read = { maxBytes: undefined, maxBodyBytes: 1000 };
  const ok = { status: 200, contentRange: undefined, contentEncoding: undefined };

  it("bounds whole reads by maxBytes or maxBodyBytes, refusing a larger Content-Length", () => {
    expect(planObjectRead({ ...read, range: undefined }, { ...ok, contentLength: 10 })).toEqual({
      max: 1000,
      maxWhy: "the most a read without options.maxBytes accepts (maxBodyBytes)",
      callersMax: false,
      exact: 10,
      exactWhy: "Content-Length",
    });
    expect(
      planObjectRead(
        { range: undefined, maxBytes: 5, maxBodyBytes: 1000 },
        { ...ok, contentLength: 10 },
      ),
    ).toEqual({
      refuse:
        "Content-Length 10 is more than 5 bytes, the most this read accepts (options.maxBytes)",
      overLimit: true,
    });
    // An encoded length says nothing about the value's.
    const gz = { ...ok, contentLength: 5000, contentEncoding: "gzip" };
    expect(planObjectRead({ ...read, range: undefined }, gz)).not.toHaveProperty("refuse");
  });

  it("keeps the range's bytes when a server ignores Range", () => {
    expect(
      planObjectRead({ ...read, range: { offset: 10, length: 5 } }, { ...ok, contentLength: 100 }),
    ).toMatchObject({ start: 10, end: 15, max: 1010, exact: 100 });
    expect(
      planObjectRead({ ...read, range: { suffix: 5 } }, { ...ok, contentLength: 100 }),
    ).toMatchObject({ tail: 5, max: 1000 });
    expect(
      planObjectRead({ ...read, range: { suffix: 5 } }, { ...ok, contentLength: 5000 }),
    ).toHaveProperty("refuse", expect.stringMatching(/server ignored Range/));
  });

  it("accepts exactly the range asked for in a 206", () => {
    const partial = (contentRange: string, contentLength?: number) => ({
      status: 206,
      contentRange,
      contentLength,
      contentEncoding: undefined,
    });
    const range = { offset: 10, length: 5 };
    expect(planObjectRead({ ...read, range }, partial("bytes 10-14/100", 5))).toEqual({
      max: 5,
      maxWhy: "the length of its Content-Range",
      exact: 5,
      exactWhy: "Content-Range",
    });
    const refused = (cr: string, length?: number, r: typeof range | { suffix: number } = range) =>
      (planObjectRead({ ...read, range: r }, partial(cr, length)) as { refuse?: string }).refuse;
    expect(refused("bytes 11-15/100")).toMatch(/does not start where the range does/);
    expect(refused("bytes 10-20/100")).toMatch(/is not the range asked for/);
    expect(refused("bytes 10-14/*", 6)).toMatch(/does not match its Content-Range/);
    expect(refused("nonsense")).toMatch(/without a valid Content-Range/);
    expect(refused("bytes 95-99/100", 5, { suffix: 5 })).toBeUndefined();
    expect(refused("bytes 94-99/100", 6, { suffix: 5 })).toMatch(/does not start/);
    expect(
      planObjectRead(
        { ...read, range, refuseEncodedRanges: true },
        { ...partial("bytes 10-14/100"), contentEncoding: "gzip" },
      ),
    ).toHaveProperty("refuse", expect.stringMatching(/gzip-encoded/));
  });

  it("isEmptyRange: zero-length and zero-suffix ranges", () => {
    expect(isEmptyRange({ offset: 3, length: 0 })).toBe(true);
    expect(isEmptyRange({ suffix: 0 })).toBe(true);
    expect(isEmptyRange({ offset: 0 })).toBe(false);
    expect(isEmptyRange(undefined)).toBe(false);
  });
});

describe("PlannedBody and readBody", () => {
  const fail = (reason: string, overMax?: boolean) =>
    new StoreError(`${overMax ? "over: " : ""}${reason}`);
  const pieces = (...sizes: number[]) => {
    let at = 0;
    return sizes.map((n) => Uint8Array.from({ length: n }, () => at++ & 0xff));
  };

  it("keeps a window, stopping at its end", () => {
    const body = new PlannedBody({ max: 100, maxWhy: "cap", start: 3, end: 7 }, fail);
    const [a, b] = pieces(5, 5);
    expect(body.push(a)).toBe(false);
    expect(body.push(b)).toBe(true);
    expect([...body.bytes()]).toEqual([3, 4, 5, 6]);
  });

  it("keeps the last bytes of a tail read", () => {
    const body = new PlannedBody({ max: 100, maxWhy: "cap", tail: 3 }, fail);
    for (const p of pieces(4, 4, 4)) body.push(p);
    expect([...body.end()]).toEqual([9, 10, 11]);
  });

  it("fails past max, past or short of an exact length", () => {
    const over = new PlannedBody({ max: 5, maxWhy: "cap" }, fail);
    expect(() => over.push(new Uint8Array(6))).toThrow("over: body passes 5 bytes, cap");
    const long = new PlannedBody({ max: 100, maxWhy: "cap", exact: 4, exactWhy: "Length" }, fail);
    expect(() => long.push(new Uint8Array(5))).toThrow(/longer than the 4 bytes its Length/);
    const short = new PlannedBody({ max: 100, maxWhy: "cap", exact: 4, exactWhy: "Length" }, fail);
    short.push(new Uint8Array(3));
    expect(() => short.end()).toThrow("body has 3 bytes, its Length says 4");
  });

  it("reads web streams, async iterables and bytes; a stalled body ends at the idle limit", async () => {
    const plan = { max: 100, maxWhy: "cap" };
    const web = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of pieces(3, 3)) c.enqueue(p);
        c.close();
      },
    });
    expect([...(await readBody(web, plan, undefined, 1000, "idle", fail))]).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
    async function* gen() {
      yield* pieces(2, 2);
    }
    expect((await readBody(gen(), plan, undefined, 1000, "idle", fail)).length).toBe(4);
    expect((await readBody(Uint8Array.of(1), plan, undefined, 1000, "idle", fail)).length).toBe(1);
    const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    await expect(readBody(stalled, plan, undefined, 30, "timeouts.idle", fail)).rejects.toThrow(
      "timed out: no body data for 30 ms (timeouts.idle)",
    );
  });
});

describe("BucketPrefix and parseBucketUrl", () => {
  it("normalizes the prefix and maps keys to object names, checking them", () => {
    const where = new BucketPrefix("s3", "S3Store", "b", "/data/x.zarr/");
    expect(where.prefix).toBe("data/x.zarr");
    expect(where.url).toBe("s3://b/data/x.zarr/");
    expect(where.objectKey("a/zarr.json")).toBe("data/x.zarr/a/zarr.json");
    expect(where.objectPrefix("a/")).toBe("data/x.zarr/a/");
    expect(where.relative("data/x.zarr/a/zarr.json")).toBe("a/zarr.json");
    expect(where.location("data/x.zarr/a")).toBe("s3://b/data/x.zarr/a");
    expect(where.canonical("127.0.0.1:9000")).toBe("s3://127.0.0.1:9000/b/data/x.zarr");
    expect(new BucketPrefix("gs", "GcsStore", "b", undefined).canonical("h")).toBe("gs://h/b");
    expect(() => where.objectKey("../x")).toThrow(InvalidKeyError);
  });

  it("refuses bad buckets and escaping prefixes", () => {
    // Names a URL path or query would reinterpret: another bucket, a query, a fragment.
    for (const bucket of [
      "",
      "a/b",
      undefined,
      3,
      "..",
      ".",
      "%2e%2e",
      "a..b",
      "a?x=1",
      "a#f",
      "u:p@b",
      "-a",
      "a\\b",
    ]) {
      expect(() => new BucketPrefix("gs", "GcsStore", bucket, "")).toThrow(
        /GcsStore needs a bucket name of letters, digits/,
      );
    }
    for (const bucket of ["b", "my-bucket.example_1", "Legacy_Bucket"]) {
      expect(new BucketPrefix("s3", "S3Store", bucket, "").bucket).toBe(bucket);
    }
    expect(() => new BucketPrefix("s3", "S3Store", "b", null as never)).toThrow(
      /prefix must be a string/,
    );
    expect(() => new BucketPrefix("gs", "GcsStore", "b", "a/../b")).toThrow(/GcsStore/);
  });

  it("parses bucket URLs of the given schemes", () => {
    const syntax = { schemes: ["gs", "gcs"], what: "a GCS URL", expected: "gs://bucket/prefix" };
    expect(parseBucketUrl("GCS://b/a%20b", syntax)).toEqual({ bucket: "b", prefix: "/a b" });
    expect(() => parseBucketUrl("s3://b/x", syntax)).toThrow(
      'not a GCS URL: "s3://b/x" (expected gs://bucket/prefix)',
    );
    expect(() => parseBucketUrl("gs://b/%zz", syntax)).toThrow(/malformed percent-escape/);
  });
});

describe("OpenerOptions", () => {
  it("checks each option's type, naming the option, the URL and the value", () => {
    const read = new OpenerOptions("s3://b", {
      s: "x",
      empty: "",
      flag: true,
      n: 0,
      mode: "A",
    });
    expect(read.string("s")).toBe("x");
    expect(read.string("missing")).toBeUndefined();
    expect(() => read.string("empty")).toThrow(
      'option "empty" of "s3://b" must be a non-empty string, got ""',
    );
    expect(read.boolean("flag")).toBe(true);
    expect(() => read.boolean("s")).toThrow(/must be a boolean/);
    expect(read.integer("n", 0)).toBe(0);
    expect(() => read.integer("n", 1)).toThrow(/must be a positive integer, got 0/);
    expect(() => read.integer("s", 0)).toThrow(/must be a non-negative integer/);
    expect(read.oneOf("mode", ["A", "B"])).toBe("A");
    expect(() => read.oneOf("s", ["A", "B"])).toThrow('must be "A" or "B", got "x"');
  });
});

describe("requestError and Deadline", () => {
  const request = { service: "S3", operation: "GetObject", key: "k", location: "s3://b/k" };

  it("names service, operation, key, place, code and status; cuts long messages", () => {
    const e = requestError(new Error("x"), { ...request, code: "Boom", status: 500, message: "x" });
    expect(e).toBeInstanceOf(StoreError);
    expect(e.message).toBe('S3 GetObject of "k" at s3://b/k failed: Boom (HTTP 500): x');
    const long = requestError(1, { ...request, status: 404, message: "y".repeat(2000) });
    expect(long.message).toMatch(/failed \(HTTP 404\): y{1000}…$/);
    const own = new StoreError("mine");
    expect(requestError(own, { ...request, message: "" })).toBe(own);
  });

  it("is an AbortError once the caller aborted", () => {
    const controller = new AbortController();
    controller.abort();
    const e = requestError(new Error("x"), { ...request, signal: controller.signal, message: "" });
    expect(e).toBeInstanceOf(AbortError);
  });

  it("a deadline aborts its signal and names the limit; the caller's abort wins", async () => {
    const deadline = new Deadline(undefined, 20, "timeout");
    await new Promise((r) => setTimeout(r, 40));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.error("k", "GET")?.message).toBe(
      "GET: timed out: the operation took more than 20 ms (timeout)",
    );
    deadline.end();
    const controller = new AbortController();
    const aborted = new Deadline(controller.signal, Number.POSITIVE_INFINITY);
    expect(aborted.error("k", "GET")).toBeUndefined();
    controller.abort();
    expect(aborted.signal.aborted).toBe(true);
    expect(aborted.error("k", "GET")).toBeInstanceOf(AbortError);
    aborted.end();
  });
});
