// A small, independent zip builder for the fuzz and path-safety tests: it
// writes the structures ZipWriter never writes (data descriptors with and
// without their signature, zip64 data descriptors, zip64 extra fields in the
// central directory only, entry names with any bytes, prepended stubs), so
// the reader is checked against archives it did not produce itself.
// Layouts: PKWARE APPNOTE.TXT 4.3.7 (local header), 4.3.9 (data descriptor),
// 4.3.12 (central directory header), 4.3.14-4.3.16 (zip64 end records, end
// of central directory), 4.5.3 (zip64 extended information).
import { deflateRawSync } from "node:zlib";
import { crc32 } from "@zarr/store-zip";

/** How one entry is written. */
export interface BuiltEntry {
  /** The name's bytes (any bytes: the reader decides what they mean). */
  name: Uint8Array;
  data: Uint8Array;
  /** Deflate the data (method 8) or store it (method 0). */
  deflate: boolean;
  /** Set general purpose bit 11 (name is UTF-8). */
  utf8Flag: boolean;
  /** Sizes and CRC after the data (bit 3): without or with the optional signature, or in the zip64 form. */
  descriptor: "none" | "plain" | "signed" | "zip64";
  /** Put sizes and offset in a zip64 extra field of the central directory header. */
  zip64Extra: boolean;
}

/** How the archive is written. */
export interface BuiltArchive {
  entries: BuiltEntry[];
  /** Write the zip64 end of central directory record and locator (and 0xFFFF... in the end record). */
  zip64End: boolean;
  /** Archive comment. */
  comment: Uint8Array;
  /** Bytes before the archive (a self-extractor stub); offsets are written as if it were absent. */
  prepend: Uint8Array;
}

/** Where each record of a built archive starts (for targeted mutations). */
export interface RecordMap {
  /** [position, size] of each record, by kind. */
  records: { kind: string; at: number; size: number }[];
}

const enc = new TextEncoder();
export const utf8 = (s: string) => enc.encode(s);

class Out {
  chunks: Uint8Array[] = [];
  length = 0;
  push(bytes: Uint8Array): number {
    const at = this.length;
    this.chunks.push(bytes);
    this.length += bytes.length;
    return at;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

function record(size: number): [Uint8Array, DataView] {
  const b = new Uint8Array(size);
  return [b, new DataView(b.buffer)];
}

function u64(v: DataView, at: number, n: number): void {
  v.setUint32(at, n % 0x100000000, true);
  v.setUint32(at + 4, Math.floor(n / 0x100000000), true);
}

/** Writes `spec` as a zip archive; returns its bytes and where its records are. */
export function buildZip(spec: BuiltArchive): { bytes: Uint8Array; map: RecordMap } {
  const out = new Out();
  const records: RecordMap["records"] = [];
  const mark = (kind: string, bytes: Uint8Array) => {
    const at = out.push(bytes);
    records.push({ kind, at, size: bytes.length });
    return at;
  };
  out.push(spec.prepend);
  const base = spec.prepend.length;
  const central: { e: BuiltEntry; crc: number; csize: number; offset: number }[] = [];

  for (const e of spec.entries) {
    const body = e.deflate ? new Uint8Array(deflateRawSync(e.data)) : e.data;
    const crc = crc32(e.data);
    const flags = (e.utf8Flag ? 0x800 : 0) | (e.descriptor === "none" ? 0 : 0x8);
    const [h, v] = record(30 + e.name.length);
    v.setUint32(0, 0x04034b50, true);
    v.setUint16(4, e.descriptor === "zip64" ? 45 : 20, true);
    v.setUint16(6, flags, true);
    v.setUint16(8, e.deflate ? 8 : 0, true);
    if (e.descriptor === "none") {
      v.setUint32(14, crc, true);
      v.setUint32(18, body.length, true);
      v.setUint32(22, e.data.length, true);
    }
    v.setUint16(26, e.name.length, true);
    h.set(e.name, 30);
    const offset = mark("local", h) - base;
    out.push(body);
    if (e.descriptor !== "none") {
      const wide = e.descriptor === "zip64";
      const signed = e.descriptor !== "plain";
      const [d, dv] = record((signed ? 4 : 0) + 4 + (wide ? 16 : 8));
      let p = 0;
      if (signed) {
        dv.setUint32(0, 0x08074b50, true);
        p = 4;
      }
      dv.setUint32(p, crc, true);
      if (wide) {
        u64(dv, p + 4, body.length);
        u64(dv, p + 12, e.data.length);
      } else {
        dv.setUint32(p + 4, body.length, true);
        dv.setUint32(p + 8, e.data.length, true);
      }
      mark("descriptor", d);
    }
    central.push({ e, crc, csize: body.length, offset });
  }

  const cdStart = out.length - base;
  for (const { e, crc, csize, offset } of central) {
    const extra = e.zip64Extra ? 4 + 24 : 0;
    const [h, v] = record(46 + e.name.length + extra);
    v.setUint32(0, 0x02014b50, true);
    v.setUint16(4, 0x031e, true);
    v.setUint16(6, e.zip64Extra ? 45 : 20, true);
    v.setUint16(8, (e.utf8Flag ? 0x800 : 0) | (e.descriptor === "none" ? 0 : 0x8), true);
    v.setUint16(10, e.deflate ? 8 : 0, true);
    v.setUint32(16, crc, true);
    v.setUint32(20, e.zip64Extra ? 0xffffffff : csize, true);
    v.setUint32(24, e.zip64Extra ? 0xffffffff : e.data.length, true);
    v.setUint16(28, e.name.length, true);
    v.setUint16(30, extra, true);
    v.setUint32(42, e.zip64Extra ? 0xffffffff : offset, true);
    h.set(e.name, 46);
    if (e.zip64Extra) {
      const x = 46 + e.name.length;
      v.setUint16(x, 1, true);
      v.setUint16(x + 2, 24, true);
      // Order fixed by APPNOTE 4.5.3: uncompressed size, compressed size, offset.
      u64(v, x + 4, e.data.length);
      u64(v, x + 12, csize);
      u64(v, x + 20, offset);
    }
    mark("central", h);
  }
  const cdSize = out.length - base - cdStart;
  const count = spec.entries.length;

  if (spec.zip64End) {
    const [r, v] = record(56);
    v.setUint32(0, 0x06064b50, true);
    u64(v, 4, 44);
    v.setUint16(12, 45, true);
    v.setUint16(14, 45, true);
    u64(v, 24, count);
    u64(v, 32, count);
    u64(v, 40, cdSize);
    u64(v, 48, cdStart);
    const recordAt = mark("zip64-end", r) - base;
    const [l, lv] = record(20);
    lv.setUint32(0, 0x07064b50, true);
    u64(lv, 8, recordAt);
    lv.setUint32(16, 1, true);
    mark("zip64-locator", l);
  }
  const [r, v] = record(22 + spec.comment.length);
  v.setUint32(0, 0x06054b50, true);
  v.setUint16(8, spec.zip64End ? 0xffff : count, true);
  v.setUint16(10, spec.zip64End ? 0xffff : count, true);
  v.setUint32(12, spec.zip64End ? 0xffffffff : cdSize, true);
  v.setUint32(16, spec.zip64End ? 0xffffffff : cdStart, true);
  v.setUint16(20, spec.comment.length, true);
  r.set(spec.comment, 22);
  mark("end", r);
  return { bytes: out.bytes(), map: { records } };
}

/** A one-entry stored archive named `name` (for the name checks). */
export function singleEntryZip(name: Uint8Array | string, data = utf8("x")): Uint8Array {
  return buildZip({
    entries: [
      {
        name: typeof name === "string" ? utf8(name) : name,
        data,
        deflate: false,
        utf8Flag: true,
        descriptor: "none",
        zip64Extra: false,
      },
    ],
    zip64End: false,
    comment: new Uint8Array(0),
    prepend: new Uint8Array(0),
  }).bytes;
}
