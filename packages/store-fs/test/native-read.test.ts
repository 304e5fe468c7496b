/**
 * Native whole-value reads (src/native-read.ts, native/read-value.c): one
 * thread-pool job per read instead of four, with the same results as the
 * `node:fs` path for every kind of entry a key can name, the same errors, no
 * descriptor left open, and an addon that refuses arguments reaching outside
 * the caller's memory. x86-64 Linux only (elsewhere the addon never loads and
 * these tests say why they skip).
 */
import { execFileSync } from "node:child_process";
import { pbkdf2 } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nativeAddon, nativeReadStats, setNativeReads } from "../src/native-read.js";
import { tempDir } from "./helpers.js";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));
const why =
  process.platform !== "linux" || process.arch !== "x64"
    ? `the addon is built for x86-64 Linux only (this is ${process.platform} ${process.arch})`
    : nativeAddon() === null
      ? "the addon did not load here"
      : undefined;
if (why !== undefined) console.log(`native-read.test: skipped: ${why}`);
const native = why === undefined;

let dir: string;
let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, root, cleanup } = await tempDir());
});
afterEach(async () => {
  setNativeReads(true);
  await cleanup();
});

function pattern(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + seed) & 255;
  return out;
}

/** Byte equality without a deep comparison of large arrays. */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/** A comparable outcome: the bytes, `undefined`, or the error's class, message and path. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await run();
    return value instanceof Uint8Array ? { bytes: Buffer.from(value).toString("base64") } : value;
  } catch (error) {
    const e = error as Error & { path?: string };
    return { error: e.name, message: e.message, path: e.path, cause: (e.cause as Error)?.name };
  }
}

/** Keeps libuv's thread pool busy (8 slow hashes), so that a read waits in its queue. */
const busyPool = () =>
  Array.from(
    { length: 8 },
    () =>
      new Promise((resolve) => pbkdf2("x", "y", 200_000, 32, "sha256", () => resolve(undefined))),
  );

/** Descriptors this process has open. */
const openDescriptors = () => readdirSync("/proc/self/fd").length;

describe.skipIf(!native)("native reads: the same results as node:fs", () => {
  /** A tree with every kind of entry a key can name. */
  async function layout(): Promise<{ keys: string[]; close: () => Promise<void> }> {
    mkdirSync(join(root, "d", "sub"), { recursive: true });
    mkdirSync(join(dir, "outside"), { recursive: true });
    writeFileSync(join(dir, "outside", "x"), "OUTSIDE");
    const files: Record<string, Uint8Array> = {
      empty: new Uint8Array(0),
      one: pattern(1, 1),
      small: pattern(100, 2),
      "16k": pattern(16 * 1024, 3),
      "100k": pattern(100_000, 4),
      // Past the room a read guesses (4 MiB): read again into memory of its size.
      "5m": pattern(5 * 1024 * 1024 + 3, 5),
      "d/x": pattern(10, 6),
      "d/sub/y": pattern(70_000, 7),
      "é/ü — 日本": pattern(33, 8),
      file: pattern(5, 9),
    };
    for (const [key, value] of Object.entries(files)) {
      mkdirSync(join(root, ...key.split("/").slice(0, -1)), { recursive: true });
      writeFileSync(join(root, ...key.split("/")), value);
    }
    symlinkSync(join(root, "small"), join(root, "link-in")); // a link to inside the root
    symlinkSync(join(dir, "outside", "x"), join(root, "link-out"));
    symlinkSync(join(dir, "outside"), join(root, "dlink")); // a linked directory on the path
    symlinkSync(join(root, "d"), join(root, "dlink-in"));
    symlinkSync("/dev/zero", join(root, "zero"));
    execFileSync("mkfifo", [join(root, "fifo")]);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, "sock"), resolve));
    // A path near the addon's limit (4,094 bytes): deep directories of long names.
    const long: string[] = [];
    let length = root.length;
    while (length + 201 < 4_080) {
      long.push("n".repeat(200));
      length += 201;
    }
    mkdirSync(join(root, ...long), { recursive: true });
    writeFileSync(join(root, ...long, "v"), pattern(9, 10));
    const keys = [
      ...Object.keys(files),
      "missing",
      "d/missing",
      "file/below", // a component is a file: ENOTDIR
      "d", // a directory: a prefix, not a value
      "link-in",
      "link-out",
      "dlink/x",
      "dlink-in/x",
      "zero",
      "fifo",
      "sock",
      [...long, "v"].join("/"),
      [...long, "nope"].join("/"),
    ];
    return { keys, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it("get, getInto (right and wrong sizes) and get with maxBytes, key by key", async () => {
    const { keys, close } = await layout();
    const store = new FileSystemStore(root);
    const ops = (key: string): Record<string, () => Promise<unknown>> => ({
      get: () => store.get(key),
      getMax: () => store.get(key, undefined, { maxBytes: 50 }),
      // Limits that are not whole numbers of bytes: decided as node:fs always did.
      getMaxOdd: async () =>
        Promise.all(
          [Number.NaN, -1, 0, 1.5, Number.POSITIVE_INFINITY].map((maxBytes) =>
            outcome(() => store.get(key, undefined, { maxBytes })),
          ),
        ),
      getInto: async () => {
        const size = await new FileSystemStore(root).getSize(key).catch(() => undefined);
        const n = size ?? 7;
        const memory = new Uint8Array(n + 8).fill(0xee);
        // Three views of one memory, laid out of order, with gaps.
        const a = Math.floor(n / 3);
        const views = [memory.subarray(n - a + 8, n + 8), memory.subarray(0, n - a)];
        const read = await store.getInto(key, views);
        return { read, memory: Buffer.from(memory).toString("base64") };
      },
      getIntoShort: async () => {
        const memory = new Uint8Array(3);
        const read = await store.getInto(key, [memory]);
        return { read, memory: [...memory] };
      },
    });
    try {
      for (const key of keys) {
        for (const [name, op] of Object.entries(ops(key))) {
          setNativeReads(false);
          const viaFs = await outcome(op);
          setNativeReads(true);
          const calls = nativeReadStats.calls;
          const viaNative = await outcome(op);
          expect(viaNative, `${name} of ${key}`).toEqual(viaFs);
          if (
            name !== "getMaxOdd" &&
            (name !== "getInto" || !/^(missing|d\/missing|file\/below)$/.test(key))
          ) {
            expect(nativeReadStats.calls, `${name} of ${key} went native`).toBeGreaterThan(calls);
          }
        }
      }
    } finally {
      await close();
    }
    // Spot checks that the comparison compared something.
    expect(same((await store.get("5m"))!, pattern(5 * 1024 * 1024 + 3, 5))).toBe(true);
    expect(await store.get("link-out").catch((e: Error) => e.name)).toBe("StoreError");
    await expect(store.get("fifo")).rejects.toThrow(/FIFO/);
    await expect(store.get("dlink/x")).rejects.toThrow(/symbolic link/);
  });

  it("leaves no descriptor open, whatever each read met", async () => {
    const { keys, close } = await layout();
    const store = new FileSystemStore(root);
    await store.get("small"); // the addon and the root's kernel path, loaded once
    const before = openDescriptors();
    try {
      for (let round = 0; round < 20; round++) {
        await Promise.all(
          keys.map((key) =>
            Promise.all([
              store.get(key).catch(() => undefined),
              store.get(key, undefined, { maxBytes: 10 }).catch(() => undefined),
              store.getInto(key, [new Uint8Array(9)]).catch(() => undefined),
            ]),
          ),
        );
      }
      expect(openDescriptors()).toBe(before);
    } finally {
      await close();
    }
  });

  it("values of changing sizes: each read whole, whatever the previous one's size", async () => {
    const store = new FileSystemStore(root);
    const sizes = [10, 300_000, 299_999, 300_001, 400_000, 5, 1 << 20, (1 << 20) + 1, 70_000, 0];
    for (const [i, n] of sizes.entries()) await store.set(`k${i}`, pattern(n, i));
    for (let round = 0; round < 3; round++) {
      for (const [i, n] of sizes.entries()) {
        const value = (await store.get(`k${i}`))!;
        expect(value.length).toBe(n);
        expect(same(value, pattern(n, i)), `k${i}`).toBe(true);
        // Memory past the value is zero (it is reachable through `.buffer`).
        expect(new Uint8Array(value.buffer, value.byteOffset + n).every((x) => x === 0)).toBe(true);
        // A small value never holds a large buffer.
        expect(value.buffer.byteLength).toBeLessThanOrEqual(Math.max(2 * n, n + 64 * 1024));
        if (round > 0) store.release(value);
      }
    }
  });
});

describe.skipIf(!native)(
  "the addon refuses arguments that reach outside the caller's memory",
  () => {
    const path = () => join(root, "v");
    beforeEach(() => {
      mkdirSync(root, { recursive: true });
      writeFileSync(path(), pattern(64, 1));
    });
    const readValue = () => nativeAddon()!;
    const result = () => new Float64Array(3);

    it("spans: outside the memory, negative, fractional, not numbers, odd, empty or too many", () => {
      const memory = new Uint8Array(64);
      const bad: [string, Float64Array][] = [
        ["past the end", new Float64Array([0, 65])],
        ["offset past the end", new Float64Array([65, 0])],
        ["offset + length past the end", new Float64Array([60, 5])],
        ["a huge length that wraps", new Float64Array([8, 2 ** 64 - 4])],
        ["negative offset", new Float64Array([-1, 4])],
        ["negative length", new Float64Array([0, -4])],
        ["fractional", new Float64Array([0.5, 4])],
        ["NaN", new Float64Array([Number.NaN, 4])],
        ["Infinity", new Float64Array([0, Number.POSITIVE_INFINITY])],
        ["an odd number of slots", new Float64Array([0, 4, 8])],
        ["no span", new Float64Array(0)],
        ["too many spans", new Float64Array(2 * 65537)],
      ];
      for (const [name, spans] of bad) {
        expect(
          () => readValue()(path(), path(), memory, spans, false, result(), null),
          name,
        ).toThrow(TypeError);
      }
      expect(memory.every((x) => x === 0)).toBe(true);
    });

    it("memory, result and flags of the wrong kinds; detached memory", () => {
      const spans = new Float64Array([0, 8]);
      const detached = new ArrayBuffer(8);
      structuredClone(detached, { transfer: [detached] });
      const cases: [string, () => unknown][] = [
        [
          "memory a Float64Array",
          () =>
            readValue()(path(), path(), new Float64Array(8) as never, spans, false, result(), null),
        ],
        [
          "memory a DataView",
          () =>
            readValue()(
              path(),
              path(),
              new DataView(new ArrayBuffer(8)) as never,
              spans,
              false,
              result(),
              null,
            ),
        ],
        [
          "memory detached",
          () => readValue()(path(), path(), new Uint8Array(detached), spans, false, result(), null),
        ],
        [
          "spans a Uint32Array",
          () =>
            readValue()(
              path(),
              path(),
              new Uint8Array(8),
              new Uint32Array([0, 8]) as never,
              false,
              result(),
              null,
            ),
        ],
        [
          "result too short",
          () =>
            readValue()(path(), path(), new Uint8Array(8), spans, false, new Float64Array(2), null),
        ],
        [
          "exact not a boolean",
          () => readValue()(path(), path(), new Uint8Array(8), spans, 1 as never, result(), null),
        ],
        [
          "bounce shorter than the spans",
          () =>
            readValue()(
              path(),
              path(),
              new Uint8Array(8),
              spans,
              false,
              result(),
              new Uint8Array(7),
            ),
        ],
        [
          "bounce a Float64Array",
          () =>
            readValue()(
              path(),
              path(),
              new Uint8Array(8),
              spans,
              false,
              result(),
              new Float64Array(8) as never,
            ),
        ],
        [
          "bounce missing (undefined)",
          () =>
            readValue()(
              path(),
              path(),
              new Uint8Array(8),
              spans,
              false,
              result(),
              undefined as never,
            ),
        ],
        [
          "too few arguments",
          () => (readValue() as unknown as (...a: unknown[]) => unknown)(path(), path()),
        ],
      ];
      for (const [name, call] of cases) expect(call, name).toThrow(TypeError);
    });

    it("paths: empty, with a NUL, or longer than 4,094 bytes (even by a character cut short)", () => {
      const memory = new Uint8Array(64);
      const spans = new Float64Array([0, 64]);
      const p = path();
      const bad: [string, string, string][] = [
        ["empty", "", p],
        ["a NUL (would open a shorter path)", `${p}\0/../../etc/passwd`, p],
        ["a NUL in the expected path", p, `${p}\0`],
        ["4,095 ASCII bytes", `/${"a".repeat(4094)}`, p],
        ["4,093 bytes and a 3-byte character", `/${"a".repeat(4092)}日`, p],
        ["4,094 bytes and an emoji", `/${"a".repeat(4093)}😀`, p],
        ["not a string", 42 as never, p],
      ];
      for (const [name, a, b] of bad) {
        expect(() => readValue()(a, b, memory, spans, false, result(), null), name).toThrow(
          TypeError,
        );
      }
      expect(memory.every((x) => x === 0)).toBe(true);
    });

    it("reads into exactly the spans: bytes around them are never touched", async () => {
      const memory = new Uint8Array(200).fill(0xaa);
      const spans = new Float64Array([150, 10, 0, 0, 20, 54, 199, 0]);
      const r = result();
      expect(await readValue()(path(), path(), memory, spans, true, r, null)).toBe(0);
      const expected = new Uint8Array(200).fill(0xaa);
      expected.set(pattern(64, 1).subarray(0, 10), 150);
      expected.set(pattern(64, 1).subarray(10), 20);
      expect(memory).toEqual(expected);
      expect([...r]).toEqual([64, 64, 0]);
      // Up to the spans only: a file larger than them is not read at all.
      const small = new Uint8Array(8).fill(0xbb);
      expect(
        await readValue()(path(), path(), small, new Float64Array([0, 8]), false, r, null),
      ).toBe(3);
      expect(r[0]).toBe(64);
      expect(small.every((x) => x === 0xbb)).toBe(true);
    });

    it("the confinement check: a path whose real path differs resolves to that real path, unread", async () => {
      mkdirSync(join(dir, "elsewhere"), { recursive: true });
      writeFileSync(join(dir, "elsewhere", "v"), "SECRET");
      symlinkSync(join(dir, "elsewhere"), join(root, "l"));
      const memory = new Uint8Array(16);
      const outcome = await readValue()(
        join(root, "l", "v"),
        join(root, "l", "v"),
        memory,
        new Float64Array([0, 16]),
        false,
        result(),
        null,
      );
      expect(outcome).toBe(join(dir, "elsewhere", "v"));
      expect(memory.every((x) => x === 0)).toBe(true);
    });
  },
);

describe.skipIf(!native)(
  "memory the caller can take away is never written from the pool's thread",
  () => {
    beforeEach(() => {
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, "v"), pattern(64, 1));
    });

    it("the addon reads into the bounce memory and copies on completion, if the memory is still there", async () => {
      const readValue = nativeAddon()!;
      const path = join(root, "v");
      const spans = new Float64Array([40, 24, 0, 40]);
      // Copied out, in span order.
      const memory = new Uint8Array(80).fill(0xaa);
      const bounce = new Uint8Array(64);
      expect(await readValue(path, path, memory, spans, true, new Float64Array(3), bounce)).toBe(0);
      const expected = new Uint8Array(80).fill(0xaa);
      expected.set(pattern(64, 1).subarray(0, 24), 40);
      expected.set(pattern(64, 1).subarray(24), 0);
      expect(memory).toEqual(expected);
      // Detached before the job completes: nothing is written, the memory is reported gone.
      const gone = new Uint8Array(new ArrayBuffer(80));
      const pending = readValue(
        path,
        path,
        gone,
        spans,
        true,
        new Float64Array(3),
        new Uint8Array(64),
      );
      structuredClone(gone.buffer, { transfer: [gone.buffer as ArrayBuffer] });
      expect(await pending).toBe(4);
      // Shrunk before the job completes (a resizable buffer): the same.
      // Resizable buffers (ES2024) are typed loosely here: the project targets an older lib.
      const Resizable = ArrayBuffer as unknown as new (
        length: number,
        options: { maxByteLength: number },
      ) => ArrayBuffer & { resize(length: number): void };
      const resizable = new Resizable(80, { maxByteLength: 160 });
      const shrunk = readValue(
        path,
        path,
        new Uint8Array(resizable),
        spans,
        true,
        new Float64Array(3),
        new Uint8Array(64),
      );
      resizable.resize(16);
      expect(await shrunk).toBe(4);
      resizable.resize(160);
      expect(new Uint8Array(resizable).every((x) => x === 0)).toBe(true);
    });

    it("getInto: a view whose buffer is transferred away while the job waits is a StoreError naming the key; the next read is right", async () => {
      const store = new FileSystemStore(root);
      await store.get("v"); // the root's kernel path, known from now on
      // Keep the thread pool's threads busy so that the read waits in its queue.
      const busy = busyPool();
      const view = new Uint8Array(64);
      const pending = store.getInto("v", [view]);
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(nativeReadStats.calls).toBeGreaterThan(0);
      structuredClone(view.buffer, { transfer: [view.buffer] });
      const error = await pending.catch((e: Error & { path?: string }) => e);
      await Promise.all(busy);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe("StoreError");
      expect((error as { path?: string }).path).toBe("v");
      expect((error as Error).message).toMatch(/detached or shrunk/);
      const again = new Uint8Array(64);
      expect(await store.getInto("v", [again])).toBe(64);
      expect(same(again, pattern(64, 1))).toBe(true);
    });

    it("a buffer made to look shared (its prototype swapped, or a list element that changes) is still read through the store's memory", async () => {
      const store = new FileSystemStore(root);
      await store.get("v");
      // An ArrayBuffer dressed as a SharedArrayBuffer.
      const spoofed = new ArrayBuffer(64);
      Object.setPrototypeOf(spoofed, SharedArrayBuffer.prototype);
      const a = busyPool();
      const first = store.getInto("v", [new Uint8Array(spoofed)]);
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      structuredClone(spoofed, { transfer: [spoofed] });
      expect(await first.catch((e: Error) => e.message)).toMatch(/detached or shrunk/);
      await Promise.all(a);
      // A list whose first element is a shared view when checked, then another.
      const plain = new Uint8Array(64);
      const shared = new Uint8Array(new SharedArrayBuffer(64));
      let reads = 0;
      const tricky: Uint8Array[] = [];
      Object.defineProperty(tricky, 0, { get: () => (++reads === 1 ? shared : plain) });
      tricky.length = 1;
      const b = busyPool();
      const second = store.getInto("v", tricky);
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      structuredClone(plain.buffer, { transfer: [plain.buffer] });
      const outcome = await second.catch((e: Error) => e.message);
      await Promise.all(b);
      expect(reads).toBe(1); // each element read once
      expect(outcome).toBe(64); // it read into the shared view it was shown
      expect(same(shared, pattern(64, 1))).toBe(true);
    });

    it("targets that are not a list of Uint8Arrays are a StoreError on both paths; empty views are skipped", async () => {
      const store = new FileSystemStore(root);
      for (const on of [true, false]) {
        setNativeReads(on);
        for (const bad of [
          [new Float64Array(8)],
          [new DataView(new ArrayBuffer(64))],
          new Uint8Array(64),
          [new Uint8Array(32), "x"],
        ]) {
          await expect(store.getInto("v", bad as never), `native ${on}`).rejects.toThrow(
            /list of Uint8Arrays/,
          );
        }
        // 1,024 empty views first (a batch of them reads 0 bytes, which is not the end of the file).
        const view = new Uint8Array(64);
        const views = [...Array.from({ length: 1024 }, () => view.subarray(0, 0)), view];
        expect(await store.getInto("v", views), `native ${on}`).toBe(64);
        expect(same(view, pattern(64, 1)), `native ${on}`).toBe(true);
      }
    });

    it("views in shared memory are read into directly (they cannot be taken away)", async () => {
      const store = new FileSystemStore(root);
      const shared = new Uint8Array(new SharedArrayBuffer(64));
      expect(await store.getInto("v", [shared.subarray(32), shared.subarray(0, 32)])).toBe(64);
      const expected = new Uint8Array(64);
      expected.set(pattern(64, 1).subarray(0, 32), 32);
      expected.set(pattern(64, 1).subarray(32), 0);
      expect(same(shared, expected)).toBe(true);
    });
  },
);

describe.skipIf(!native)("memory taken before a value's size is known stays bounded", () => {
  it("500 concurrent reads of 100-byte values after a 4 MiB one take far less than 500 × 4 MiB", async () => {
    const store = new FileSystemStore(root);
    await store.set("big", pattern(4 << 20, 1));
    for (let i = 0; i < 500; i++) await store.set(`s/${i}`, pattern(100, i));
    expect((await store.get("big"))!.length).toBe(4 << 20); // the size guessed next
    const before = process.memoryUsage().arrayBuffers;
    const reads = Array.from({ length: 500 }, (_, i) => store.get(`s/${i}`));
    const taken = process.memoryUsage().arrayBuffers - before;
    const values = await Promise.all(reads);
    expect(taken).toBeLessThan(48 << 20);
    for (const [i, v] of values.entries()) expect(same(v!, pattern(100, i)), `s/${i}`).toBe(true);
  });
});

describe("links whose target's bytes decode to the root's path (invalid UTF-8)", () => {
  it.skipIf(process.platform !== "linux")("are refused on both paths", async () => {
    // The root's name holds U+FFFD; a directory beside it holds the byte 0xFF,
    // which decodes to U+FFFD too. A link in the root to that directory.
    const base = Buffer.from(dir);
    const rootBytes = Buffer.concat([base, Buffer.from("/r\uFFFD")]);
    const other = Buffer.concat([base, Buffer.from("/r"), Buffer.from([0xff])]);
    mkdirSync(rootBytes);
    mkdirSync(Buffer.concat([other, Buffer.from("/d")]), { recursive: true });
    writeFileSync(Buffer.concat([other, Buffer.from("/d/secret")]), "SECRET");
    symlinkSync(
      Buffer.concat([other, Buffer.from("/d")]),
      Buffer.concat([rootBytes, Buffer.from("/d")]),
    );
    const store = new FileSystemStore(rootBytes.toString());
    for (const on of [true, false]) {
      setNativeReads(on);
      for (const read of [
        () => store.get("d/secret"),
        () => store.get("d/secret", { offset: 0, length: 3 }),
        () => store.getSize("d/secret"),
        () => store.getInto("d/secret", [new Uint8Array(6)]),
      ]) {
        const result = await outcome(read);
        expect(result, `native ${on}: ${String(read)}`).toMatchObject({ error: "StoreError" });
      }
    }
  });
});

describe("a root whose real path is not valid UTF-8", () => {
  it.skipIf(process.platform !== "linux")(
    "is refused when the store is made (no string names it: U+FFFD would name another directory)",
    () => {
      const bad = Buffer.concat([Buffer.from(`${dir}/real-`), Buffer.from([0xff])]);
      mkdirSync(bad);
      mkdirSync(`${dir}/real-\uFFFD`);
      writeFileSync(`${dir}/real-\uFFFD/k`, "ANOTHER DIRECTORY");
      symlinkSync(bad, `${dir}/root`);
      expect(() => new FileSystemStore(`${dir}/root`)).toThrow(/not valid UTF-8/);
      expect(() => new FileSystemStore(bad.toString())).not.toThrow(); // U+FFFD: another, real, directory
      expect(() => new FileSystemStore(new URL("file:///tmp/%FF"))).toThrow(/cannot open a store/);
    },
  );
});

describe.skipIf(!native)("where native reads are off", () => {
  /** Runs `source` in a child Node process (built package); returns its stdout. */
  const child = (source: string, flags: string[] = [], env: Record<string, string> = {}) =>
    execFileSync(process.execPath, [...flags, "--input-type=module", "-e", source], {
      cwd: packageRoot,
      encoding: "utf8",
      env: { ...process.env, ...env },
      timeout: 30_000,
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
  const probe = (root: string) => `
    import { readFileSync } from "node:fs";
    import { FileSystemStore } from "@zarr/store-fs";
    const v = await new FileSystemStore(${JSON.stringify(root)}).get("v");
    console.log(JSON.stringify({ bytes: v?.length, loaded: readFileSync("/proc/self/maps", "utf8").includes("read-value.node") }));`;

  beforeEach(() => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "v"), pattern(100, 1));
  });

  it("loads by default, and never with ZARR_FS_NATIVE=0 (or false, off, no)", () => {
    expect(JSON.parse(child(probe(root)))).toEqual({ bytes: 100, loaded: true });
    for (const off of ["0", "false", " OFF ", "no"]) {
      expect(JSON.parse(child(probe(root), [], { ZARR_FS_NATIVE: off })), off).toEqual({
        bytes: 100,
        loaded: false,
      });
    }
  });

  it("never under Node's permission model: its file system rules apply", () => {
    const major = Number(process.versions.node.split(".")[0]);
    const flag = major >= 22 ? "--permission" : "--experimental-permission";
    const flags = [flag, `--allow-fs-read=*`, "--allow-addons"];
    let out: string;
    try {
      out = child(probe(root), flags);
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr);
      if (/bad option|--allow-addons/.test(stderr)) {
        console.log(
          `native-read.test: permission case skipped: this Node has no ${flags.join(" ")}`,
        );
        return;
      }
      throw error;
    }
    expect(JSON.parse(out)).toEqual({ bytes: 100, loaded: false });
    // And a read outside what the model allows fails as node:fs fails it.
    const denied = child(
      `import { FileSystemStore } from "@zarr/store-fs";
       try { await new FileSystemStore(${JSON.stringify(root)}).get("v"); console.log("read"); }
       catch (e) { console.log(e.name, String(e.cause?.code ?? e.code)); }`,
      [
        flag,
        `--allow-fs-read=${packageRoot}*`,
        `--allow-fs-read=${join(packageRoot, "..", "..")}*`,
        "--allow-addons",
      ],
    );
    expect(denied).toMatch(/ERR_ACCESS_DENIED/);
  });
});

// The addon's file is what scripts/build-native.mjs builds (checked in CI);
// here: it is present and small.
it.skipIf(!native)("the addon is a small file in the package", () => {
  const bytes = readFileSync(join(packageRoot, "native/linux-x64/read-value.node"));
  expect(bytes.length).toBeLessThan(1 << 16);
});
