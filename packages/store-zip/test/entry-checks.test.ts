// How ZipStore makes sure every byte it serves is the entry's own, checked as
// far as the read allows: overlapping entries rejected at open, local headers
// checked against the central directory before any range, ranged reads of
// small entries served only after a CRC-32 check of the whole entry (shared
// by concurrent readers, remembered per store), deflated ranges inflated only
// up to their end, and caller limits (maxBytes) applied before reading.
// (PKWARE APPNOTE.TXT 4.3.7 local file header, 4.3.12 central directory.)
import { AbortError, StoreError, ZarrError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import {
  bytesSource,
  crc32,
  type RangeSource,
  readCentralDirectory,
  ZipFormatError,
  ZipStore,
} from "@zarr/store-zip";
import { describe, expect, it } from "vitest";
import { zipBytes } from "./helpers.js";

const enc = new TextEncoder();

/** A source over `bytes` that counts its reads (and can hold them until released). */
function countingSource(bytes: Uint8Array) {
  const inner = bytesSource(bytes, "test.zip");
  const stats = { reads: 0, bytes: 0 };
  let gate: Promise<void> | undefined;
  let open: () => void = () => {};
  const source: RangeSource = {
    name: inner.name,
    size: inner.size,
    async read(offset, length) {
      stats.reads++;
      stats.bytes += length;
      if (gate) await gate;
      return inner.read(offset, length);
    },
  };
  return {
    source,
    stats,
    /** Holds reads until `release()`. */
    hold() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release() {
      gate = undefined;
      open();
    },
  };
}

/** Positions of the central directory headers of an archive written by ZipWriter (in order). */
function centralHeaders(bytes: Uint8Array): number[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = [];
  for (let i = 0; i + 4 <= bytes.length; i++) if (v.getUint32(i, true) === 0x02014b50) out.push(i);
  return out;
}

const pseudoRandom = (n: number, mask = 0xff) => {
  const out = new Uint8Array(n);
  let x = 7;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & mask;
  }
  return out;
};

describe("entries may not overlap (checked at open, from the central directory alone)", () => {
  it("each entry's limit is the next local header or the central directory", async () => {
    const bytes = await zipBytes(
      [
        ["a", enc.encode("first")],
        ["b/c", enc.encode("second value")],
        ["d", new Uint8Array(0)],
      ],
      { compress: false },
    );
    const dir = await readCentralDirectory(bytesSource(bytes));
    const sorted = [...dir.entries].sort((x, y) => x.localHeaderOffset - y.localHeaderOffset);
    sorted.forEach((e, i) => {
      expect(e.limit).toBe(sorted[i + 1]?.localHeaderOffset ?? dir.start);
      expect(e.localHeaderOffset + 30 + e.nameBytes.length + e.compressedSize).toBeLessThanOrEqual(
        e.limit,
      );
    });
    expect(dir.entries.map((e) => new TextDecoder().decode(e.nameBytes))).toEqual([
      "a",
      "b/c",
      "d",
    ]);
  });

  it("two entries on one local header, or one inside another's data, fail to open", async () => {
    const bytes = await zipBytes(
      [
        ["a", pseudoRandom(1000)],
        ["b", pseudoRandom(1000)],
      ],
      { compress: false },
    );
    const [, second] = centralHeaders(bytes);
    for (const offset of [0, 31 + 500]) {
      const bad = bytes.slice();
      new DataView(bad.buffer).setUint32(second + 42, offset, true);
      const err = await ZipStore.open(bytesSource(bad)).catch((e) => e);
      expect(err).toBeInstanceOf(ZipFormatError);
      expect(err.message).toMatch(/entries "a" .* and "b" .* overlap/);
    }
  });
});

describe("local headers are checked before any byte of the entry is served", () => {
  it("a local header with another name fails whole, ranged and suffix reads, with no byte returned", async () => {
    const value = pseudoRandom(5000);
    const bytes = await zipBytes([["k1", value]], { compress: false });
    const bad = bytes.slice();
    bad[30 + 1] = "2".charCodeAt(0); // the local header now names "k2"
    for (const range of [undefined, { offset: 10, length: 10 }, { suffix: 10 }]) {
      for (const verifyRangedReadsUpTo of [0, Number.POSITIVE_INFINITY]) {
        const store = resolveStore(
          await ZipStore.open(bytesSource(bad), { verifyRangedReadsUpTo }),
        );
        await expect(store.get("k1", range)).rejects.toThrow(
          /its local header at 0 names another entry: "k2"/,
        );
      }
    }
  });
});

describe("CRC-32 of ranged reads", () => {
  it("concurrent first ranged reads of a small entry share one whole read; an aborted caller stops waiting, the others get their bytes", async () => {
    const value = pseudoRandom(10_000);
    const bytes = await zipBytes([["k", value]], { compress: false });
    const c = countingSource(bytes);
    const store = await ZipStore.open(c.source);
    c.stats.reads = 0;
    c.hold();
    const abort = new AbortController();
    const reads = [0, 100, 9000].map((offset, i) =>
      store.get("k", { offset, length: 50 }, i === 1 ? { signal: abort.signal } : undefined),
    );
    abort.abort();
    c.release();
    const [a, b, d] = await Promise.allSettled(reads);
    expect(a).toEqual({ status: "fulfilled", value: value.slice(0, 50) });
    expect(b.status === "rejected" && b.reason).toBeInstanceOf(AbortError);
    expect(d).toEqual({ status: "fulfilled", value: value.slice(9000, 9050) });
    expect(c.stats.reads).toBe(1);
  });

  it("a damaged entry stays damaged: once a read found it, every read of it fails without reading, even unchecked ranges", async () => {
    const value = pseudoRandom(4000);
    const bytes = await zipBytes([["k", value]], { compress: false });
    bytes[30 + 1 + 100] ^= 1; // a flipped data byte
    const c = countingSource(bytes);
    const store = await ZipStore.open(c.source, { verifyRangedReadsUpTo: 0 });
    // Unchecked: the entry's own (damaged) bytes.
    const part = await store.get("k", { offset: 90, length: 20 });
    expect(part).toEqual(bytes.slice(31 + 90, 31 + 110));
    await expect(store.get("k")).rejects.toThrow(/CRC-32 mismatch/);
    const reads = c.stats.reads;
    await expect(store.get("k", { offset: 0, length: 10 })).rejects.toThrow(/CRC-32 mismatch/);
    await expect(store.get("k", { suffix: 10 })).rejects.toThrow(/CRC-32 mismatch/);
    expect(c.stats.reads).toBe(reads);
  });

  it("verifyRangedReadsUpTo must be a number >= 0", async () => {
    const bytes = await zipBytes([["k", enc.encode("x")]]);
    for (const bad of [-1, Number.NaN]) {
      await expect(
        ZipStore.open(bytesSource(bytes), { verifyRangedReadsUpTo: bad }),
      ).rejects.toThrow(ZarrError);
    }
  });
});

describe("ranged reads of deflated entries", () => {
  // Compressible (about 2:1) but not trivially so.
  const value = pseudoRandom(8 << 20, 0x0f);

  it("inflate only up to the range's end, reading a fraction of the compressed bytes", async () => {
    const bytes = await zipBytes([["k", value]]);
    const entry = (await readCentralDirectory(bytesSource(bytes))).entries[0];
    expect(entry.method).toBe(8);
    const c = countingSource(bytes);
    const store = await ZipStore.open(c.source, { verifyRangedReadsUpTo: 0 });
    c.stats.bytes = 0;
    expect(await store.get("k", { offset: 1000, length: 100 })).toEqual(value.slice(1000, 1100));
    expect(c.stats.bytes).toBeLessThan(entry.compressedSize / 16);
    c.stats.bytes = 0;
    const middle = 4 << 20;
    expect(await store.get("k", { offset: middle, length: 100 })).toEqual(
      value.slice(middle, middle + 100),
    );
    expect(c.stats.bytes).toBeLessThan(entry.compressedSize * 0.75);
  });

  it("a suffix read inflates to the end and checks the CRC-32", async () => {
    const bytes = await zipBytes([["k", value]]);
    const [cd] = centralHeaders(bytes);
    const v = new DataView(bytes.buffer);
    const wrong = (crc32(value) ^ 1) >>> 0;
    v.setUint32(cd + 16, wrong, true);
    v.setUint32(14, wrong, true);
    const store = resolveStore(
      await ZipStore.open(bytesSource(bytes), { verifyRangedReadsUpTo: 0 }),
    );
    expect(await store.get("k", { offset: 0, length: 4 })).toEqual(value.slice(0, 4)); // unchecked
    await expect(store.get("k", { suffix: 4 })).rejects.toThrow(/CRC-32 mismatch/);
  });
});

describe("caller limits (StoreOptions.maxBytes)", () => {
  it("a read asking for more than maxBytes fails before reading anything", async () => {
    const bytes = await zipBytes([["k", pseudoRandom(100_000)]]);
    const c = countingSource(bytes);
    const store = await ZipStore.open(c.source);
    c.stats.reads = 0;
    const err = await store.get("k", undefined, { maxBytes: 1000 }).catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(/100000 bytes asked for, more than the caller's limit of 1000/);
    expect(c.stats.reads).toBe(0);
    expect((await store.get("k", { offset: 0, length: 1000 }, { maxBytes: 1000 }))!.length).toBe(
      1000,
    );
  });
});
