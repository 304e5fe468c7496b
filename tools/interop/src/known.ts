/**
 * The explicit lists of the suite: layouts zarrita 0.7.5 does not support,
 * peer bugs, and defects whose root cause is in a package this suite does not
 * fix (core). Each entry names the feature and the reason; the suite fails
 * when a case fails that no entry covers, and when an entry covers no case
 * (a listed case that starts reading is taken off the list).
 *
 * @module
 */

/** One failure reported by a peer. */
export interface PeerFailure {
  /** "2:<path>" or "3:<path>". */
  key: string;
  peer: string;
  msg: string;
  /** Feature tags of the case (zarrita). */
  features?: string[];
}

/** A listed expectation: which failures it covers, and why they are expected. */
export interface Known {
  peer: string;
  feature: string;
  reason: string;
  match: (f: PeerFailure) => boolean;
}

/**
 * The failure reports a fill value whose stored bytes differ from the expected
 * ones only where the expected float part is -0.0 and the read one +0.0.
 */
export function zeroSignOnly(msg: string): boolean {
  const m = /fill_value .*?\(([0-9a-f]+)\), expected bytes ([0-9a-f]+)/.exec(msg);
  if (!m || m[1].length !== m[2].length || m[1] === m[2]) return false;
  const got = Buffer.from(m[1], "hex");
  const want = Buffer.from(m[2], "hex");
  return [2, 4, 8].some((size) => {
    if (want.length % size) return false;
    for (let p = 0; p < want.length; p += size) {
      const g = got.subarray(p, p + size);
      const w = want.subarray(p, p + size);
      if (g.equals(w)) continue;
      const negZero = w.every((b, i) => (i === size - 1 ? b === 0x80 : b === 0));
      if (!negZero || g.some((b) => b !== 0)) return false;
    }
    return true;
  });
}

const has = (f: PeerFailure, tag: string | RegExp) =>
  (f.features ?? []).some((t) => (typeof tag === "string" ? t === tag : tag.test(t)));

/**
 * zarrita 0.7.5: features it does not implement. A case carrying one of these
 * must fail to open or read (an error, never wrong values).
 */
const unsupported = (
  feature: string,
  reason: string,
  match: (f: PeerFailure) => boolean,
): Known => ({
  peer: "zarrita",
  feature,
  reason,
  match: (f) => f.msg.startsWith("throws") && match(f),
});

export const ZARRITA_UNSUPPORTED: Known[] = [
  unsupported("v2 complex dtypes (<c8, >c16, ...)", "no complex data type", (f) =>
    has(f, /^dtype:[<>]c/),
  ),
  unsupported("v2 datetime64/timedelta64 dtypes (M8, m8)", "no datetime data types", (f) =>
    has(f, /^dtype:[<>][Mm]8/),
  ),
  unsupported("v2 |V void dtypes", "no raw/void data type", (f) => has(f, /^dtype:\|V/)),
  unsupported("v2 structured dtypes", "no structured data types (dtype.match on a list)", (f) =>
    has(f, "dtype:structured"),
  ),
  unsupported(
    "float16 (v2 <f2/>f2, v3 float16)",
    "zarrita maps it to Float16Array, which Node 20 does not have",
    (f) => has(f, /^dtype:([<>]f2|float16)$/),
  ),
  unsupported("v3 complex64/complex128", "no complex data type", (f) => has(f, /^dtype:complex/)),
  unsupported("v3 raw r<N>", "no raw data type", (f) => has(f, /^dtype:r\d+$/)),
  unsupported("v3 bytes (vlen-bytes)", "no variable-length bytes data type", (f) =>
    has(f, "dtype:bytes"),
  ),
  unsupported("v2 compressors bz2 and lzma", "not in zarrita's codec registry", (f) =>
    has(f, /^compressor:(bz2|lzma)$/),
  ),
  unsupported(
    "v2 filters categorize, astype, quantize, packbits, vlen-bytes",
    "not in zarrita's codec registry",
    (f) => has(f, /^filter:(categorize|astype|quantize|packbits|vlen-bytes)$/),
  ),
  unsupported(
    "sharding_indexed nested in sharding_indexed",
    "the inner codec chain has no sharding_indexed (UnknownCodecError)",
    (f) => /Unknown codec: sharding_indexed/.test(f.msg),
  ),
  unsupported(
    "sharding_indexed with index_location start, or a bytes -> bytes codec after it",
    "zarrita always reads the shard index as a suffix of the stored shard (codecs/sharding.ts: " +
      "getRange(shardPath, {suffixLength})), so it decodes garbage as the index and throws",
    (f) => has(f, "shard-index:start") || has(f, "after-sharding"),
  ),
];

/** Bugs of a peer, with the evidence. Our output follows the spec there. */
export const PEER_BUGS: Known[] = [
  {
    peer: "zarrita",
    feature: "arrays with a zero-length dimension",
    reason:
      "zarrita's get throws 'Input contains an empty iterator' when the shape has a 0 (the v2 and v3 specs allow it)",
    match: (f) => has(f, "shape:empty") && /empty iterator/.test(f.msg),
  },
  {
    peer: "zarrita",
    feature: "integer fill values beyond 2^53",
    reason:
      "zarrita parses metadata with JSON.parse, so an int64/uint64 fill value such as 2^63-1 or 2^53+1 becomes the nearest double (2^63 wraps to -2^63, 2^64-1 to 0) and missing chunks read wrong",
    match: (f) => has(f, "fill:beyond-2^53") && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarrita",
    feature: 'float fill values in the hex form (v3 spec: "0xYYYYYYYY", a NaN payload)',
    reason:
      'zarrita reads "0x7fc00001" as the integer 2143289345, not as the float\'s bits (fill 2.14e9 instead of a NaN)',
    match: (f) => has(f, "fill:hex") && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarrita",
    feature: "bool with the bytes codec's endian big",
    reason:
      "zarrita's BytesCodec takes bytes per element from the constructor's static BYTES_PER_ELEMENT, which BoolArray lacks, falls back to 4 and byte-swaps bools in groups of 4 (endian does not apply to 1-byte types)",
    match: (f) => has(f, "dtype:bool") && has(f, "endian:big") && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarrita",
    feature: "v2 |S values that are not UTF-8 or hold NUL bytes",
    reason:
      "zarrita's ByteStringArray decodes each element as UTF-8 text and drops NUL bytes (U+FFFD for other bytes); numpy's S is raw bytes with only trailing NULs stripped",
    match: (f) => has(f, /^dtype:\|S\d+$/) && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarrita",
    feature: "v2 |S1 arrays",
    reason: "zarrita's ByteStringArray throws RangeError (offset is out of bounds) on |S1 elements",
    match: (f) => has(f, "dtype:|S1") && /offset is out of bounds/.test(f.msg),
  },
  {
    peer: "zarrita",
    feature: "v2 <U/>U values with NUL code points inside or characters beyond U+FFFF",
    reason:
      "zarrita's UnicodeStringArray drops every U+0000 (numpy strips only trailing NULs) and " +
      "turns a code point beyond U+FFFF into the character plus a lone surrogate (U+1F600 reads as '\\u{1F600}\\uDE00')",
    match: (f) => has(f, /^dtype:[<>]U\d+$/) && f.msg.includes("misreads"),
  },
  {
    peer: "zarrita",
    feature: "json2 object arrays with chunks of 2 or more dimensions",
    reason:
      "numcodecs' JSON codec stores a chunk as nested lists (ndarray.tolist()); zarrita's JsonCodec.decode returns the outer list as the flat data, so each element is a row",
    match: (f) => has(f, "filter:json2") && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarrita",
    feature: "numcodecs delta on floats with NaN, and delta with astype",
    reason:
      "zarrita's delta ignores astype (returns the encoded type's values) and its cumulative sum keeps a different NaN than numpy's; zarr-python reads our chunks bit for bit",
    match: (f) => has(f, "filter:delta") && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarrita",
    feature: "fixedscaleoffset out of range or with a float astype",
    reason:
      "zarrita's fixedscaleoffset does not reproduce numpy's casts (x86 'integer indefinite' for values out of range, float32 rounding for astype <f4) and throws 'Cannot cast NaN to integer type' where numpy stores the indefinite value; zarr-python reads our chunks bit for bit",
    match: (f) =>
      has(f, "filter:fixedscaleoffset") &&
      (f.msg.startsWith("misreads") || /Cannot cast NaN to integer type/.test(f.msg)),
  },
  {
    peer: "zarrita",
    feature: "shuffle with elementsize other than the dtype's item size",
    reason:
      "zarrita's shuffle unshuffles with the wrong element size when elementsize differs from the item size (numcodecs shuffles in elementsize groups); zarr-python reads our chunks bit for bit",
    match: (f) => has(f, "filter:shuffle") && f.msg.startsWith("misreads"),
  },
  {
    peer: "zarr-python",
    feature: "v2 complex fill values with a -0.0 part",
    reason:
      "zarr-python 2.13 builds a complex fill value arithmetically (re + 1j * im), so [-0.0, 0] " +
      "becomes (0+0j): the real part's sign is lost (the v2 spec: [re, im], each a float). The " +
      'same arithmetic turns ["NaN", x] into a NaN with the sign bit set, which the suite ' +
      'accepts as the same NaN (v2 writes every NaN fill as "NaN")',
    match: (f) =>
      f.peer === "zarr-python" && /^fill_value [^ ]*j/.test(f.msg) && zeroSignOnly(f.msg),
  },
  {
    peer: "zarr-python",
    feature: "0-d object arrays with the json2 codec",
    reason:
      "numcodecs 0.11's JSON codec cannot encode a 0-d buffer (`items.extend` on the scalar that " +
      "`tolist()` returns: AttributeError, so zarr-python 2.13 cannot write such an array itself) " +
      "nor decode one (`dec[:] = items[:-2]` on a 0-d array: IndexError). Our chunk is the " +
      "codec's documented layout: [value, '|O', []]",
    match: (f) =>
      f.peer.startsWith("zarr-python") &&
      /\/json2\/.*\/0d$/.test(f.key) &&
      /IndexError/.test(f.msg),
  },
];

PEER_BUGS.push({
  peer: "numcodecs re-encode",
  feature: "delta with astype narrower than a uint64 dtype, first element >= 2^63",
  reason:
    "numcodecs 0.11's Delta.encode assigns the chunk's first element with `enc[0] = arr[0]`, which " +
    "converts a uint64 scalar through a Python int and raises OverflowError for values >= 2^63 " +
    "(the differences after it wrap, as ours do); zarr-python 2.13 reads our chunks identically",
  match: (f) => /OverflowError/.test(f.msg) && /delta/.test(f.key),
});

/**
 * Defects in packages this suite does not fix (core), found by the suite; the
 * report carries a minimal reproduction. These cases must keep failing the
 * same way until core is fixed (then the entry goes).
 */
export const CORE_ISSUES: Known[] = [];

/** Splits failures into those a list covers and the rest; also the entries that covered nothing. */
export function triage(
  failures: PeerFailure[],
  lists: Known[],
): { unexpected: PeerFailure[]; covered: Map<Known, PeerFailure[]>; stale: Known[] } {
  const covered = new Map<Known, PeerFailure[]>();
  const unexpected: PeerFailure[] = [];
  for (const f of failures) {
    const k = lists.find((x) => x.match(f));
    if (!k) unexpected.push(f);
    else covered.set(k, [...(covered.get(k) ?? []), f]);
  }
  return { unexpected, covered, stale: lists.filter((k) => !covered.has(k)) };
}

export { has };
