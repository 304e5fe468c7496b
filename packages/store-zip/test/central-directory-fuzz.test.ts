// Fuzzing of the zip reader: readCentralDirectory and ZipStore.open, then
// reads, on random valid archives (stored and deflated entries, data
// descriptors with and without signature and in zip64 form, zip64 extra
// fields and end records, comments, prepended stubs; APPNOTE.TXT 4.3), on
// the same archives with bytes flipped, fields overwritten with hostile
// values, truncated or extended, and on random bytes ending in random end
// records. Every case either reads back correct data or fails with a typed
// error (a ZarrError: ZipFormatError, UnsupportedError, ...); nothing else
// escapes, no case hangs, every read the reader asks of its source lies
// inside the archive, and inflating never asks for more than deflate's
// maximum ratio of the stored bytes. Ranged and suffix reads are held to the
// same standard as whole reads: checked ranges (the default for entries this
// small) are slices of an original value with the entry's size and CRC-32,
// and succeed exactly when the whole read does; unchecked ranges
// (verifyRangedReadsUpTo: 0) are the bytes that follow a local header naming
// the entry, and end before the next entry's local header. Mutations include
// pointing a central directory entry at another entry's local header.
// FUZZ_RUNS raises the number of cases.
import { ZarrError } from "@zarr/core";
import { type ByteRange, rangeBounds, resolveStore } from "@zarr/core/store";
import {
  bytesSource,
  type CentralDirectory,
  crc32,
  inflateRaw,
  type RangeSource,
  readCentralDirectory,
  type ZipEntry,
  ZipFormatError,
  ZipStore,
} from "@zarr/store-zip";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BuiltArchive, type BuiltEntry, buildZip, utf8 } from "./zip-builder.js";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
/** No single case may take longer than this (a hang or a quadratic path). */
const CASE_MS = 2_000;

let slowest = 0;
async function timed<T>(fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    const ms = performance.now() - t0;
    slowest = Math.max(slowest, ms);
    expect(ms).toBeLessThan(CASE_MS);
  }
}

/** Runs `fn`; a ZarrError with a message is an acceptable outcome and yields `undefined`. */
async function orTypedError<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ZarrError && e.message.length > 0) return undefined;
    throw e;
  }
}

/**
 * A source over `bytes` that checks the reader's side of the RangeSource
 * contract: every read is a non-negative integer range inside the archive.
 * It also counts the bytes read (the reader's allocations follow its reads).
 */
function checkedSource(bytes: Uint8Array): RangeSource & { bytesRead: number } {
  const inner = bytesSource(bytes, "fuzz.zip");
  const source = {
    name: inner.name,
    bytesRead: 0,
    size: inner.size,
    async read(offset: number, length: number) {
      if (
        !Number.isSafeInteger(offset) ||
        !Number.isSafeInteger(length) ||
        offset < 0 ||
        length < 0 ||
        offset + length > bytes.length
      ) {
        throw new Error(
          `read outside the archive: ${length} bytes at ${offset} of ${bytes.length}`,
        );
      }
      source.bytesRead += length;
      return inner.read(offset, length);
    },
  };
  return source;
}

/** The default inflater, checked never to be asked for more than deflate can produce from the data. */
const checkedInflate = (data: Uint8Array, size: number) => {
  if (size > data.length * 1032 + 1024) {
    throw new Error(`inflate asked for ${size} bytes from ${data.length}`);
  }
  return inflateRaw(data, size);
};

// ---------------------------------------------------------------- archives

/** Entry names: plain keys, unicode (including a leading BOM), directories. */
const nameArb = fc.oneof(
  fc.constantFrom("zarr.json", "c/0/0", "c/0/1", "a/b/c", "é/ü", "\uFEFFbom", "日本/x", "d/"),
  fc.stringMatching(/^[a-z0-9]{1,8}(\/[a-z0-9]{1,8}){0,2}$/),
);

const entryArb: fc.Arbitrary<BuiltEntry> = fc.record({
  name: nameArb.map(utf8),
  data: fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    // Compressible data, so deflate has back-references to get wrong.
    fc
      .tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 200 }))
      .map(([unit, n]) =>
        Uint8Array.from({ length: unit.length * n }, (_, i) => unit[i % unit.length]),
      ),
  ),
  deflate: fc.boolean(),
  utf8Flag: fc.boolean(),
  descriptor: fc.constantFrom("none", "plain", "signed", "zip64"),
  zip64Extra: fc.boolean(),
});

const archiveArb: fc.Arbitrary<BuiltArchive> = fc.record({
  entries: fc.uniqueArray(entryArb, {
    maxLength: 6,
    selector: (e) => new TextDecoder().decode(e.name),
  }),
  zip64End: fc.boolean(),
  comment: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 40 })),
  prepend: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 300 })),
});

/** Key -> value the archive holds (directories are not keys). */
function expectedValues(spec: BuiltArchive): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const e of spec.entries) {
    const name = new TextDecoder("utf-8", { ignoreBOM: true }).decode(e.name);
    if (!name.endsWith("/")) out.set(name, e.data);
  }
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

// ---------------------------------------------------------------- mutations

/** Values that break size and offset arithmetic. */
const HOSTILE = [
  0, 1, 2, 21, 22, 45, 46, 0x7fff, 0xfffe, 0xffff, 0x10000, 0x7fffffff, 0xfffffffe, 0xffffffff,
];

type Mutation =
  | { kind: "flip"; at: number; xor: number }
  | { kind: "field"; record: number; at: number; width: 2 | 4 | 8; value: number; hi: number }
  | { kind: "cut"; at: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "retarget"; central: number; local: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("flip" as const),
    at: fc.nat(),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({
    kind: fc.constant("field" as const),
    record: fc.nat(),
    at: fc.nat({ max: 60 }),
    width: fc.constantFrom(2 as const, 4 as const, 8 as const),
    value: fc.oneof(fc.constantFrom(...HOSTILE), fc.nat({ max: 0xffffffff })),
    hi: fc.oneof(fc.constant(0), fc.constantFrom(1, 0x1fffff, 0x200000, 0xffffffff)),
  }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 30 }),
  }),
  // A central directory entry pointed at another entry's local header.
  fc.record({ kind: fc.constant("retarget" as const), central: fc.nat(), local: fc.nat() }),
);

function mutate(
  bytes: Uint8Array,
  records: { kind: string; at: number; size: number }[],
  mutations: Mutation[],
  base: number,
): Uint8Array {
  let out = bytes.slice();
  const locals = records.filter((r) => r.kind === "local");
  const centrals = records.filter((r) => r.kind === "central");
  for (const m of mutations) {
    if (out.length === 0) break;
    if (m.kind === "flip") out[m.at % out.length] ^= m.xor;
    else if (m.kind === "retarget") {
      // Offsets are relative to the archive proper (after any prepended stub).
      const c = centrals[m.central % centrals.length];
      const target = locals[m.local % locals.length].at - base;
      if (c.at + c.size > out.length) continue;
      const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
      // The 32-bit field, or the zip64 extra field's offset when it says 0xFFFFFFFF.
      let field = c.at + 42;
      if (v.getUint32(field, true) === 0xffffffff)
        field = c.at + 46 + v.getUint16(c.at + 28, true) + 20;
      if (field + 4 <= out.length) v.setUint32(field, target, true);
    } else if (m.kind === "cut") out = out.subarray(0, m.at % (out.length + 1));
    else if (m.kind === "insert") {
      const at = m.at % (out.length + 1);
      const grown = new Uint8Array(out.length + m.bytes.length);
      grown.set(out.subarray(0, at));
      grown.set(m.bytes, at);
      grown.set(out.subarray(at), at + m.bytes.length);
      out = grown;
    } else if (records.length > 0) {
      // Overwrite a field of one record with a hostile value (records of the unmutated archive).
      const r = records[m.record % records.length];
      const at = r.at + (m.at % Math.max(1, r.size));
      if (at + m.width > out.length) continue;
      const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
      if (m.width === 2) v.setUint16(at, m.value & 0xffff, true);
      else v.setUint32(at, m.value, true);
      if (m.width === 8) v.setUint32(at + 4, m.hi, true);
    }
  }
  return out;
}

/** How a case reads: the default streaming inflater or a custom one; ranges checked first or not. */
const readModes = [
  { name: "custom inflater", options: { inflateRaw: checkedInflate } },
  { name: "streaming inflater", options: {} },
  { name: "unchecked ranges", options: { verifyRangedReadsUpTo: 0 } },
] as const;

type Outcome = { ok: Uint8Array } | { failed: ZarrError };

/** Runs `fn`: its value, or the ZarrError it threw (anything else fails the test). */
async function outcome(fn: () => Promise<Uint8Array | undefined>): Promise<Outcome> {
  try {
    return { ok: (await fn())! };
  } catch (e) {
    if (e instanceof ZarrError && e.message.length > 0) return { failed: e };
    throw e;
  }
}

/**
 * Where an unchecked range of `entry` may come from, worked out here from the
 * archive bytes: the bytes after a local header that names the entry, ending
 * before the next local header of any entry (or the central directory).
 * `undefined` when there is no such place (the reader must then fail).
 */
function dataPlace(
  bytes: Uint8Array,
  dir: CentralDirectory,
  entry: ZipEntry,
  index: number,
): number | undefined {
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length) return undefined;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(at, true) !== 0x04034b50) return undefined;
  const n = v.getUint16(at + 26, true);
  if (!same(bytes.subarray(at + 30, at + 30 + n), entry.nameBytes)) return undefined;
  const data = at + 30 + n + v.getUint16(at + 28, true);
  let next = dir.start;
  dir.entries.forEach((other, i) => {
    if (i !== index && other.localHeaderOffset >= at)
      next = Math.min(next, other.localHeaderOffset);
  });
  return data + entry.compressedSize <= next ? data : undefined;
}

/**
 * Opens `bytes` and reads every key whole, in a range and as a suffix (each
 * range on a store of its own, so that what it returns does not lean on an
 * earlier read). Results that come back must be correct: a whole value has
 * the entry's size and CRC-32 and is one of `originals` (mutations can rename
 * entries, never invent data). A checked range is the same slice of such a
 * value, and is served exactly when the whole value is. An unchecked range is
 * the bytes after a local header naming the entry, inside its own space.
 */
async function openAndReadAll(
  bytes: Uint8Array,
  originals: Uint8Array[],
  rangeSeed: number,
  mode: (typeof readModes)[number] = readModes[0],
) {
  const open = () => orTypedError(() => ZipStore.open(checkedSource(bytes), mode.options));
  const store = await open();
  if (!store) return { opened: false, read: 0 };
  const dir = store.directory;
  const checked = !("verifyRangedReadsUpTo" in mode.options);
  let read = 0;
  for await (const key of store.list()) {
    const entry = store.entry(key)!;
    const offset = rangeSeed % (entry.size + 2);
    const length = (rangeSeed >>> 8) % (entry.size + 2);
    const ranges: ByteRange[] = [{ offset, length }, { suffix: length }];
    const parts: Outcome[] = [];
    for (const range of ranges) {
      const fresh = resolveStore((await open())!);
      parts.push(await outcome(() => fresh.get(key, range)));
    }
    const whole = await outcome(async () => (await store.get(key))!);
    if ("ok" in whole) {
      read++;
      expect(whole.ok.length).toBe(entry.size);
      expect(crc32(whole.ok)).toBe(entry.crc32);
      expect(originals.some((o) => same(o, whole.ok))).toBe(true);
    }
    ranges.forEach((range, i) => {
      const [start, end] = rangeBounds(range, entry.size);
      const part = parts[i];
      if (end === start) return;
      if ("ok" in whole && "ok" in part) {
        expect(same(part.ok, whole.ok.subarray(start, end))).toBe(true);
      }
      if (!("ok" in part)) return;
      if (checked) {
        // Checked before it was served: a slice of a value with the entry's size and CRC-32...
        const from = originals.filter((o) => o.length === entry.size && crc32(o) === entry.crc32);
        expect(from.some((o) => same(part.ok, o.subarray(start, end)))).toBe(true);
        // ...and served exactly when the whole value is.
        expect("ok" in whole).toBe(true);
      } else if (entry.method === 0) {
        // Unchecked: the entry's own bytes, never another entry's.
        const index = dir.entries.indexOf(entry);
        const data = dataPlace(bytes, dir, entry, index);
        expect(data).toBeDefined();
        expect(same(part.ok, bytes.subarray(data! + start, data! + end))).toBe(true);
      }
    });
    if (checked && "failed" in whole && whole.failed instanceof ZipFormatError) {
      // A damaged entry is damaged for every read of it (that is not empty).
      ranges.forEach((range, i) => {
        const [start, end] = rangeBounds(range, entry.size);
        if (end > start) expect("failed" in parts[i]).toBe(true);
      });
    }
  }
  return { opened: true, read };
}

// ---------------------------------------------------------------- tests

describe("zip reader fuzzing (APPNOTE.TXT 4.3: overall format)", () => {
  it("random valid archives (data descriptors, zip64 extras and end records, comments, stubs) read back exactly", async () => {
    await fc.assert(
      fc.asyncProperty(
        archiveArb,
        fc.nat(),
        fc.constantFrom(...readModes),
        async (spec, rangeSeed, mode) => {
          const { bytes } = buildZip(spec);
          const expected = expectedValues(spec);
          await timed(async () => {
            const store = await ZipStore.open(checkedSource(bytes), mode.options);
            expect(store.directory.entries.length).toBe(spec.entries.length);
            expect(store.directory.prepended).toBe(spec.prepend.length);
            const keys: string[] = [];
            for await (const k of store.list()) keys.push(k);
            expect(keys).toEqual([...expected.keys()].sort());
            const resolved = resolveStore(store);
            for (const [key, value] of expected) {
              expect(same((await store.get(key))!, value)).toBe(true);
              const offset = rangeSeed % (value.length + 1);
              const length = (rangeSeed >>> 8) % (value.length + 1);
              const part = await resolved.get(key, { offset, length });
              expect(same(part!, value.subarray(offset, offset + length))).toBe(true);
              const suffix = await resolved.get(key, { suffix: length });
              expect(same(suffix!, value.subarray(value.length - length))).toBe(true);
            }
          });
        },
      ),
      { seed: 42, numRuns: RUNS },
    );
  });

  it("mutated archives (bytes flipped, fields set to hostile values, truncated, extended) read correctly or fail with a ZarrError", async () => {
    let opened = 0;
    let valuesRead = 0;
    let maxReadRatio = 0;
    await fc.assert(
      fc.asyncProperty(
        archiveArb.filter((a) => a.entries.length > 0),
        fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.constantFrom(...readModes),
        async (spec, mutations, rangeSeed, mode) => {
          const { bytes, map } = buildZip(spec);
          const mutated = mutate(bytes, map.records, mutations, spec.prepend.length);
          const originals = spec.entries.map((e) => e.data);
          await timed(async () => {
            const source = checkedSource(mutated);
            await orTypedError(() => readCentralDirectory(source));
            // The table of contents is read once: the tail (at most 128 KiB) and the directory inside the archive.
            maxReadRatio = Math.max(maxReadRatio, source.bytesRead / Math.max(1, mutated.length));
            const r = await openAndReadAll(mutated, originals, rangeSeed, mode);
            if (r.opened) opened++;
            valuesRead += r.read;
          });
        },
      ),
      { seed: 7, numRuns: RUNS },
    );
    console.info(
      `${RUNS} mutated archives: ${opened} opened, ${valuesRead} values read back correctly; ` +
        `directory reads at most ${maxReadRatio.toFixed(2)}x the archive size; slowest case ${slowest.toFixed(1)} ms`,
    );
    expect(maxReadRatio).toBeLessThanOrEqual(2);
  });

  it("random bytes ending in random end records (zip64 included) fail with a ZarrError or open consistently", async () => {
    const end = fc.record({
      body: fc.uint8Array({ maxLength: 200 }),
      count: fc.oneof(fc.constantFrom(0, 1, 0xffff), fc.nat({ max: 0xffff })),
      cdSize: fc.oneof(fc.constantFrom(...HOSTILE), fc.nat({ max: 300 })),
      cdOffset: fc.oneof(fc.constantFrom(...HOSTILE), fc.nat({ max: 300 })),
      disks: fc.constantFrom([0, 0], [0, 0], [1, 0], [0, 1]),
      comment: fc.nat({ max: 0xffff }),
      zip64: fc.option(
        fc.record({
          recordAt: fc.oneof(fc.constantFrom(0, 0xffffffff), fc.nat({ max: 300 })),
          hi: fc.constantFrom(0, 0, 1, 0x200000, 0xffffffff),
          count: fc.oneof(fc.constantFrom(...HOSTILE), fc.nat({ max: 10 })),
          size: fc.oneof(fc.constantFrom(...HOSTILE), fc.nat({ max: 300 })),
          offset: fc.oneof(fc.constantFrom(...HOSTILE), fc.nat({ max: 300 })),
          record: fc.boolean(),
        }),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(end, async (e) => {
        const parts: Uint8Array[] = [e.body];
        if (e.zip64) {
          const z = e.zip64;
          if (z.record) {
            const r = new Uint8Array(56);
            const v = new DataView(r.buffer);
            v.setUint32(0, 0x06064b50, true);
            v.setUint32(32, z.count, true);
            v.setUint32(36, z.hi, true);
            v.setUint32(40, z.size, true);
            v.setUint32(44, z.hi, true);
            v.setUint32(48, z.offset, true);
            v.setUint32(52, z.hi, true);
            parts.push(r);
          }
          const l = new Uint8Array(20);
          const lv = new DataView(l.buffer);
          lv.setUint32(0, 0x07064b50, true);
          lv.setUint32(8, z.recordAt, true);
          lv.setUint32(12, z.hi, true);
          parts.push(l);
        }
        const r = new Uint8Array(22);
        const v = new DataView(r.buffer);
        v.setUint32(0, 0x06054b50, true);
        v.setUint16(4, e.disks[0], true);
        v.setUint16(6, e.disks[1], true);
        v.setUint16(8, e.count, true);
        v.setUint16(10, e.count, true);
        v.setUint32(12, e.cdSize, true);
        v.setUint32(16, e.cdOffset, true);
        // A comment length that may claim more than follows.
        v.setUint16(20, e.comment % 7 === 0 ? e.comment : 0, true);
        parts.push(r);
        const bytes = Buffer.concat(parts);
        await timed(async () => {
          const dir = await orTypedError(() => readCentralDirectory(checkedSource(bytes)));
          if (dir) {
            // What opened is consistent: every entry's data lies before the directory, inside the archive.
            expect(dir.start).toBeGreaterThanOrEqual(0);
            expect(dir.start).toBeLessThanOrEqual(bytes.length);
            for (const entry of dir.entries) {
              expect(entry.localHeaderOffset + 30 + entry.compressedSize).toBeLessThanOrEqual(
                dir.start,
              );
            }
          }
          await openAndReadAll(bytes, [], 0);
        });
      }),
      { seed: 11, numRuns: RUNS },
    );
    console.info(`${RUNS} random end records; slowest case so far ${slowest.toFixed(1)} ms`);
  });

  it("random bytes fail with a ZarrError", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        await timed(async () => {
          const err = await ZipStore.open(checkedSource(bytes)).catch((e) => e);
          if (!(err instanceof ZipStore)) expect(err).toBeInstanceOf(ZarrError);
        });
      }),
      { seed: 5, numRuns: RUNS },
    );
    expect(slowest).toBeLessThan(CASE_MS);
  });
});

describe("entry names (APPNOTE.TXT 4.4.17, appendix D)", () => {
  it("a leading U+FEFF is part of a UTF-8 name, not a byte order mark to drop", async () => {
    for (const flag of [true, false]) {
      const bytes = buildZip({
        entries: [
          {
            name: utf8("\uFEFFzarr.json"),
            data: utf8("{}"),
            deflate: false,
            utf8Flag: flag,
            descriptor: "none",
            zip64Extra: false,
          },
        ],
        zip64End: false,
        comment: new Uint8Array(0),
        prepend: new Uint8Array(0),
      }).bytes;
      const store = await ZipStore.open(bytesSource(bytes));
      expect(store.directory.entries.map((e) => e.name)).toEqual(["\uFEFFzarr.json"]);
      expect(store.entry("zarr.json")).toBeUndefined();
      expect(new TextDecoder().decode((await store.get("\uFEFFzarr.json"))!)).toBe("{}");
    }
  });

  it("names that are not UTF-8 are CP437 unless flagged UTF-8 (then a ZipFormatError)", async () => {
    const cp437 = Uint8Array.of(0x80, 0x82, 0x2e, 0x74); // "Çé.t" in CP437, invalid UTF-8
    const archive = (utf8Flag: boolean) =>
      buildZip({
        entries: [
          {
            name: cp437,
            data: utf8("x"),
            deflate: false,
            utf8Flag,
            descriptor: "none",
            zip64Extra: false,
          },
        ],
        zip64End: false,
        comment: new Uint8Array(0),
        prepend: new Uint8Array(0),
      }).bytes;
    const store = await ZipStore.open(bytesSource(archive(false)));
    expect(store.directory.entries.map((e) => e.name)).toEqual(["Çé.t"]);
    const err = await ZipStore.open(bytesSource(archive(true))).catch((e) => e);
    expect(err).toBeInstanceOf(ZipFormatError);
    expect(err.message).toMatch(/not valid UTF-8/);
  });
});
