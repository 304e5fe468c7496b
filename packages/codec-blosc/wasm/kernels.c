/*
 * Block kernels of @zarr/codec-blosc, compiled to WebAssembly
 * (scripts/build-wasm.mjs; the built module is committed, and CI checks that
 * it matches a rebuild). Freestanding: no libc; memory.copy through
 * -mbulk-memory. Every read and write is bounds-checked: a malformed block is
 * a negative return, never a write outside the output.
 *
 * Written for this project from the LZ4 block format description
 * (lz4_Block_format.md); no third-party source.
 */
#include <stdint.h>
#include <wasm_simd128.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64; /* lengths: 255-byte runs cannot overflow them */

#define MIN_MATCH 4
/* Literal runs up to this long are copied 16 bytes at a time (longer: memory.copy). */
#define WILD_LITERALS 256

/* Error codes returned by lz4_decode (negative); messages live in lz4.ts. */
enum {
  E_TOKEN = -1,        /* truncated (missing token) */
  E_LITLEN = -2,       /* truncated literal length */
  E_LIT_INPUT = -3,    /* literals run past the input */
  E_LIT_OUTPUT = -4,   /* literals run past the output size */
  E_OFFSET = -5,       /* truncated match offset */
  E_ZERO_OFFSET = -6,  /* zero match offset */
  E_BEFORE_START = -7, /* match offset before the start of the output */
  E_MATCHLEN = -8,     /* truncated match length */
  E_MATCH_OUTPUT = -9, /* match runs past the output size */
  E_ENDS_MATCH = -10,  /* block ends with a match */
};

static inline void copy16(u8 *d, const u8 *s) { __builtin_memcpy(d, s, 16); }

/* A 16-byte load and store; the regions may overlap (the load comes first). */
static inline void move16(u8 *d, const u8 *s) { wasm_v128_store(d, wasm_v128_load(s)); }

/* Row o (1..15): byte k is k % o, the swizzle that repeats an o-byte pattern. */
#define PATTERN_ROW(o)                                                                            \
  {0 % o, 1 % o, 2 % o, 3 % o, 4 % o, 5 % o, 6 % o, 7 % o, 8 % o, 9 % o, 10 % o, 11 % o, 12 % o, \
   13 % o, 14 % o, 15 % o}
static const u8 PATTERN[16][16] __attribute__((aligned(16))) = {
    {0},            PATTERN_ROW(1),  PATTERN_ROW(2),  PATTERN_ROW(3),  PATTERN_ROW(4),
    PATTERN_ROW(5), PATTERN_ROW(6),  PATTERN_ROW(7),  PATTERN_ROW(8),  PATTERN_ROW(9),
    PATTERN_ROW(10), PATTERN_ROW(11), PATTERN_ROW(12), PATTERN_ROW(13), PATTERN_ROW(14),
    PATTERN_ROW(15)};

/*
 * Copies `n` bytes 16 at a time; the caller guarantees 16 bytes of slack past
 * both ends (the overshoot is overwritten later or lies in the slack). Short
 * runs this way avoid a memory.copy call, which V8 makes out of line.
 */
static inline void wild_copy(u8 *d, const u8 *s, u32 n) {
  u8 *const e = d + n;
  do {
    copy16(d, s);
    d += 16;
    s += 16;
  } while (d < e);
}

/*
 * Copies a match of `len` bytes from `offset` bytes back (both checked by the
 * caller: offset <= op - start, len <= oend - op); returns the end of it.
 */
static inline u8 *copy_match(u8 *op, u32 offset, u32 len, u8 *const oend) {
  const u8 *match = op - offset;
  u8 *const mend = op + len;
  if ((u64)(oend - op) >= (u64)len + 16) {
    /* 16 bytes at a time, the overshoot inside the output. */
    if (offset >= 16) {
      /* Each source block lies wholly before its destination. */
      wild_copy(op, match, len);
    } else {
      /* An overlapping pattern of `offset` bytes: the first 16 bytes by a
       * swizzle of the pattern (bytes past op that the load also reads are
       * not used), then 16 bytes at a time from `step` bytes back, a whole
       * number of patterns, each load within what the previous store wrote. */
      wasm_v128_store(op, wasm_i8x16_swizzle(wasm_v128_load(match),
                                             wasm_v128_load(PATTERN[offset])));
      const u32 step = 16 - 16 % offset;
      for (u8 *p = op + step; p < mend; p += step) move16(p, p - step);
    }
  } else if (offset >= len) {
    __builtin_memcpy(op, match, len);
  } else {
    /* Overlapping match near the end: a pattern of `offset` bytes repeated.
     * Copy what is already written after `match`, doubling each time; every
     * copy's source ends where its destination starts, and the gap stays a
     * multiple of the pattern. */
    while (op < mend) {
      u32 n = (u32)(op - match);
      if (n > (u32)(mend - op)) n = (u32)(mend - op);
      __builtin_memcpy(op, match, n);
      op += n;
    }
  }
  return mend;
}

/*
 * Decodes the LZ4 block src[0..srcLen) into dst[0..dstCap). Returns the
 * number of bytes written, or a negative error code.
 */
__attribute__((export_name("lz4_decode"))) int lz4_decode(const u8 *src, u32 srcLen, u8 *dst,
                                                          u32 dstCap) {
  const u8 *ip = src;
  const u8 *const iend = src + srcLen;
  u8 *op = dst;
  u8 *const oend = dst + dstCap;
  for (;;) {
    if (ip >= iend) return E_TOKEN;
    const u32 token = *ip++;
    u64 lit = token >> 4;
    /* The common sequence, far from both ends: under 15 literals and a match
     * of under 19 bytes from at least 16 back. One wide copy each, and only
     * the checks the general path would fail on. */
    if (lit < 15 && (token & 15) < 15 && iend - ip >= 32 && oend - op >= 48) {
      copy16(op, ip);
      ip += lit;
      op += lit;
      const u32 offset = (u32)ip[0] | ((u32)ip[1] << 8);
      if (offset >= 16 && offset <= (u32)(op - dst)) {
        ip += 2;
        const u8 *match = op - offset;
        copy16(op, match);
        copy16(op + 16, match + 16);
        op += (token & 15) + MIN_MATCH;
        continue;
      }
      /* Any other match: the general path, from its offset. */
      ip += 2;
      if (offset == 0) return E_ZERO_OFFSET;
      if (offset > (u32)(op - dst)) return E_BEFORE_START;
      const u32 len = (token & 15) + MIN_MATCH;
      op = copy_match(op, offset, len, oend);
      continue;
    }
    if (lit == 15) {
      u32 b;
      do {
        if (ip >= iend) return E_LITLEN;
        b = *ip++;
        lit += b;
      } while (b == 255);
    }
    if (lit > (u64)(iend - ip)) return E_LIT_INPUT;
    if (lit > (u64)(oend - op)) return E_LIT_OUTPUT;
    if (lit <= WILD_LITERALS && (u64)(iend - ip) >= lit + 16 && (u64)(oend - op) >= lit + 16) {
      wild_copy(op, ip, (u32)lit); /* short literals: wide copies, inside both buffers */
    } else {
      __builtin_memcpy(op, ip, (u32)lit);
    }
    ip += lit;
    op += lit;
    if (ip == iend) return (int)(op - dst);
    if (iend - ip < 2) return E_OFFSET;
    const u32 offset = (u32)ip[0] | ((u32)ip[1] << 8);
    ip += 2;
    if (offset == 0) return E_ZERO_OFFSET;
    if (offset > (u32)(op - dst)) return E_BEFORE_START;
    u64 len = token & 15;
    if (len == 15) {
      u32 b;
      do {
        if (ip >= iend) return E_MATCHLEN;
        b = *ip++;
        len += b;
      } while (b == 255);
    }
    len += MIN_MATCH;
    if (len > (u64)(oend - op)) return E_MATCH_OUTPUT;
    op = copy_match(op, offset, (u32)len, oend);
    if (ip == iend) return E_ENDS_MATCH;
  }
}

/* ---- Byte and bit unshuffles (c-blosc layouts) --------------------------- */

/* typesize 2, 16 elements at a time (the inverse of shuffle2); returns the elements done. */
static u32 unshuffle2(const u8 *src, u8 *dst, u32 n) {
  const u8 *p0 = src, *p1 = src + n;
  u32 e = 0;
  for (; e + 16 <= n; e += 16) {
    v128_t a = wasm_v128_load(p0 + e), b = wasm_v128_load(p1 + e);
    u8 *o = dst + 2 * e;
    wasm_v128_store(o, wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
    wasm_v128_store(o + 16, wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29,
                                               14, 30, 15, 31));
  }
  return e;
}

/* typesize 4, 16 elements at a time (the inverse of shuffle4). */
static u32 unshuffle4(const u8 *src, u8 *dst, u32 n) {
  const u8 *p0 = src, *p1 = src + n, *p2 = src + 2 * n, *p3 = src + 3 * n;
  u32 e = 0;
  for (; e + 16 <= n; e += 16) {
    v128_t a = wasm_v128_load(p0 + e), b = wasm_v128_load(p1 + e);
    v128_t c = wasm_v128_load(p2 + e), d = wasm_v128_load(p3 + e);
    /* bytes of planes 0,1 and 2,3 interleaved, then 16-bit pairs interleaved */
    v128_t ab0 = wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    v128_t ab1 = wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    v128_t cd0 = wasm_i8x16_shuffle(c, d, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    v128_t cd1 = wasm_i8x16_shuffle(c, d, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    u8 *o = dst + 4 * e;
    wasm_v128_store(o, wasm_i16x8_shuffle(ab0, cd0, 0, 8, 1, 9, 2, 10, 3, 11));
    wasm_v128_store(o + 16, wasm_i16x8_shuffle(ab0, cd0, 4, 12, 5, 13, 6, 14, 7, 15));
    wasm_v128_store(o + 32, wasm_i16x8_shuffle(ab1, cd1, 0, 8, 1, 9, 2, 10, 3, 11));
    wasm_v128_store(o + 48, wasm_i16x8_shuffle(ab1, cd1, 4, 12, 5, 13, 6, 14, 7, 15));
  }
  return e;
}

/*
 * 8 rows of 16 bytes transposed: out[m] holds column 2m then column 2m + 1,
 * each as its 8 bytes in row order (byte 8h + k of out[m] is row k's byte
 * 2m + h). Bytes, then 16-bit and 32-bit lanes interleaved.
 */
static inline void transpose8x16(const v128_t r[8], v128_t out[8]) {
  v128_t b[8], c[8];
  for (int j = 0; j < 4; j++) {
    /* b[2j + h]: rows 2j and 2j + 1 interleaved, columns 8h..8h+7 */
    b[2 * j] = wasm_i8x16_shuffle(r[2 * j], r[2 * j + 1], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
                                  6, 22, 7, 23);
    b[2 * j + 1] = wasm_i8x16_shuffle(r[2 * j], r[2 * j + 1], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28,
                                      13, 29, 14, 30, 15, 31);
  }
  for (int q = 0; q < 2; q++) {
    for (int h = 0; h < 2; h++) {
      /* rows 4q..4q+3 of columns 8h..8h+3 and 8h+4..8h+7 (32-bit lane per column) */
      const v128_t x = b[4 * q + h], y = b[4 * q + 2 + h];
      c[4 * q + 2 * h] = wasm_i16x8_shuffle(x, y, 0, 8, 1, 9, 2, 10, 3, 11);
      c[4 * q + 2 * h + 1] = wasm_i16x8_shuffle(x, y, 4, 12, 5, 13, 6, 14, 7, 15);
    }
  }
  /* c[4q + s]: rows 4q..4q+3 of columns 4s..4s+3 */
  for (int s = 0; s < 4; s++) {
    out[2 * s] = wasm_i32x4_shuffle(c[s], c[4 + s], 0, 4, 1, 5);
    out[2 * s + 1] = wasm_i32x4_shuffle(c[s], c[4 + s], 2, 6, 3, 7);
  }
}

/* typesize 8, 16 elements at a time (the inverse of shuffle8): an 8x16 byte transpose. */
static u32 unshuffle8(const u8 *src, u8 *dst, u32 n) {
  u32 e = 0;
  for (; e + 16 <= n; e += 16) {
    v128_t r[8], t[8];
    for (int j = 0; j < 8; j++) r[j] = wasm_v128_load(src + (u64)j * n + e);
    transpose8x16(r, t);
    u8 *o = dst + (u64)8 * e;
    for (int m = 0; m < 8; m++) wasm_v128_store(o + 16 * m, t[m]);
  }
  return e;
}

/*
 * Byte unshuffle of n elements of ts bytes: src holds byte plane j (byte j of
 * every element) at src[j * n]; element e goes to dst[e * ts].
 */
__attribute__((export_name("unshuffle"))) void unshuffle(const u8 *src, u8 *dst, u32 n, u32 ts) {
  u32 e = 0;
  if (ts == 2) e = unshuffle2(src, dst, n);
  else if (ts == 4) e = unshuffle4(src, dst, n);
  else if (ts == 8) e = unshuffle8(src, dst, n);
  /* the rest a byte at a time, plane by plane (faster than element by element) */
  for (u32 j = 0; j < ts; j++) {
    const u8 *p = src + (u64)j * n;
    for (u32 k = e; k < n; k++) dst[(u64)k * ts + j] = p[k];
  }
}

/* 8x8 bit matrix transpose: byte r of x is row r, bit c column c. */
static inline u64 transpose8(u64 x) {
  u64 t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
  x = x ^ t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
  x = x ^ t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
  x = x ^ t ^ (t << 28);
  return x;
}

static inline void store16(u8 *p, u32 v) {
  const uint16_t w = (uint16_t)v;
  __builtin_memcpy(p, &w, 2);
}

/* transpose8 on both 64-bit lanes. */
static inline v128_t transpose8x2(v128_t x) {
  v128_t t;
  t = wasm_v128_and(wasm_v128_xor(x, wasm_u64x2_shr(x, 7)), wasm_i64x2_splat(0x00AA00AA00AA00AALL));
  x = wasm_v128_xor(wasm_v128_xor(x, t), wasm_i64x2_shl(t, 7));
  t = wasm_v128_and(wasm_v128_xor(x, wasm_u64x2_shr(x, 14)), wasm_i64x2_splat(0x0000CCCC0000CCCCLL));
  x = wasm_v128_xor(wasm_v128_xor(x, t), wasm_i64x2_shl(t, 14));
  t = wasm_v128_and(wasm_v128_xor(x, wasm_u64x2_shr(x, 28)), wasm_i64x2_splat(0x00000000F0F0F0F0LL));
  return wasm_v128_xor(wasm_v128_xor(x, t), wasm_i64x2_shl(t, 28));
}

/* 128 elements of up to 8 byte planes, the bit unshuffle's staging (see below). */
static u8 bit_planes[8 * 128] __attribute__((aligned(16)));

/*
 * The bit unshuffle of typesize 1, 2, 4 or 8, 128 elements at a time: for
 * each byte plane, its 8 bit rows (16 bytes of each) are transposed into 16
 * vectors of one group of 8 elements each, and every group's 8x8 bit matrix is
 * transposed in both lanes at once, which gives 16 elements' byte of that
 * plane in order. The planes, staged in 128-byte rows, are then byte
 * unshuffled into place. Every store is a whole vector. Returns the groups of
 * 8 elements done.
 */
static u32 bitunshuffle_planes(const u8 *src, u8 *dst, u32 n, u32 ts) {
  const u32 rowBytes = n >> 3;
  u32 g = 0;
  for (; g + 16 <= rowBytes; g += 16) {
    u8 *const out = dst + (u64)8 * g * ts;
    u8 *const planes = ts == 1 ? out : bit_planes;
    for (u32 j = 0; j < ts; j++) {
      const u8 *rows = src + (u64)j * n + g;
      v128_t r[8], a[8];
      for (int k = 0; k < 8; k++) r[k] = wasm_v128_load(rows + (u64)k * rowBytes);
      transpose8x16(r, a); /* a[m]: the row bytes of groups g + 2m, g + 2m + 1 */
      for (int m = 0; m < 8; m++) wasm_v128_store(planes + 128 * j + 16 * m, transpose8x2(a[m]));
    }
    if (ts == 2) unshuffle2(planes, out, 128);
    else if (ts == 4) unshuffle4(planes, out, 128);
    else if (ts == 8) unshuffle8(planes, out, 128);
  }
  return g;
}

/*
 * Bit unshuffle of n elements of ts bytes, n a multiple of 8: src holds, for
 * byte j and bit k, the row of bit k of byte j of every element at
 * src[(8 j + k) * n / 8] (bit i of row byte g: element 8 g + i).
 *
 * 128 elements at a time: the 8 rows of a byte plane, 16 bytes of each, are
 * transposed so that one vector holds the 8 row bytes of one group of 8
 * elements for two planes; the lanes' top bits, gathered 8 times with a
 * shift in between, are then bytes j and j + 1 of each element of the group.
 */
__attribute__((export_name("bitunshuffle"))) void bitunshuffle(const u8 *src, u8 *dst, u32 n,
                                                              u32 ts) {
  const u32 rowBytes = n >> 3;
  u32 g = 0;
  if (ts == 1 || ts == 2 || ts == 4 || ts == 8) g = bitunshuffle_planes(src, dst, n, ts);
  for (; g + 16 <= rowBytes; g += 16) {
    for (u32 j = 0; j < ts; j += 2) {
      const u8 *rows = src + (u64)j * n + g; /* plane j's rows start at j * n */
      v128_t r[8], a[8], b[8];
      for (int k = 0; k < 8; k++) r[k] = wasm_v128_load(rows + (u64)k * rowBytes);
      transpose8x16(r, a); /* a[m]: plane j's row bytes of groups g + 2m, g + 2m + 1 */
      if (j + 1 < ts) {
        for (int k = 0; k < 8; k++) r[k] = wasm_v128_load(rows + (u64)(8 + k) * rowBytes);
        transpose8x16(r, b);
        for (int m = 0; m < 16; m++) {
          /* group g + m: plane j in lanes 0..7, plane j + 1 in lanes 8..15 */
          v128_t v = (m & 1) ? wasm_i64x2_shuffle(a[m >> 1], b[m >> 1], 1, 3)
                             : wasm_i64x2_shuffle(a[m >> 1], b[m >> 1], 0, 2);
          u8 *o = dst + ((u64)8 * (g + m) + 7) * ts + j;
          for (int i = 7; i >= 0; i--, o -= ts) { /* element 8 (g + m) + i */
            store16(o, (u32)wasm_i8x16_bitmask(v));
            v = wasm_i8x16_add(v, v);
          }
        }
      } else {
        /* the last of an odd number of planes: lanes 8..15 are the next group */
        for (int m = 0; m < 8; m++) {
          v128_t v = a[m];
          u8 *o = dst + ((u64)8 * (g + 2 * m) + 7) * ts + j;
          for (int i = 7; i >= 0; i--, o -= ts) {
            const u32 bits = (u32)wasm_i8x16_bitmask(v);
            o[0] = (u8)bits;
            o[(u64)8 * ts] = (u8)(bits >> 8);
            v = wasm_i8x16_add(v, v);
          }
        }
      }
    }
  }
  /* the remaining groups, 8 elements of one plane at a time */
  for (u32 j = 0; j < ts; j++) {
    const u8 *rows = src + (u64)j * n;
    for (u32 h = g; h < rowBytes; h++) {
      u64 x = 0;
      for (u32 k = 0; k < 8; k++) x |= (u64)rows[(u64)k * rowBytes + h] << (8 * k);
      x = transpose8(x);
      u8 *o = dst + (u64)8 * h * ts + j;
      for (u32 i = 0; i < 8; i++) o[(u64)i * ts] = (u8)(x >> (8 * i));
    }
  }
}

/* ---- blosclz (c-blosc's FastLZ variant) ---------------------------------- */

/* Error codes returned by blosclz_decode (negative); messages in lz4-errors.ts. */
enum {
  B_EMPTY = -1,         /* empty stream */
  B_LIT_INPUT = -2,     /* literal run past the input */
  B_LIT_OUTPUT = -3,    /* literal run past the output size */
  B_MATCHLEN = -4,      /* truncated match length */
  B_DISTANCE = -5,      /* truncated match distance */
  B_FAR_DISTANCE = -6,  /* truncated far match distance */
  B_BEFORE_START = -7,  /* match distance before the start of the output */
  B_MATCH_OUTPUT = -8,  /* match past the output size */
};

/*
 * Decodes the blosclz stream src[0..srcLen) into dst[0..dstCap): returns the
 * bytes written or a negative error code. Ported from this package's
 * TypeScript decoder (blosclz.ts), check for check.
 */
__attribute__((export_name("blosclz_decode"))) int blosclz_decode(const u8 *src, u32 srcLen,
                                                                  u8 *dst, u32 dstCap) {
  if (srcLen == 0) return B_EMPTY;
  const u8 *ip = src + 1;
  const u8 *const iend = src + srcLen;
  u8 *op = dst;
  u8 *const oend = dst + dstCap;
  u32 ctrl = src[0] & 31;
  for (;;) {
    if (ctrl < 32) {
      const u32 run = ctrl + 1;
      if (run > (u32)(iend - ip)) return B_LIT_INPUT;
      if (run > (u32)(oend - op)) return B_LIT_OUTPUT;
      if ((iend - ip) >= 32 && (oend - op) >= 32) {
        copy16(op, ip);
        copy16(op + 16, ip + 16);
      } else {
        __builtin_memcpy(op, ip, run);
      }
      ip += run;
      op += run;
    } else {
      u64 len = ctrl >> 5;
      const u32 hi = ctrl & 31;
      if (len == 7) {
        u32 b;
        do {
          if (ip >= iend) return B_MATCHLEN;
          b = *ip++;
          len += b;
        } while (b == 255);
      }
      len += 2;
      if (ip >= iend) return B_DISTANCE;
      const u32 lo = *ip++;
      u32 dist;
      if (hi == 31 && lo == 255) {
        if (iend - ip < 2) return B_FAR_DISTANCE;
        dist = (((u32)ip[0] << 8) | ip[1]) + 8192;
        ip += 2;
      } else {
        dist = ((hi << 8) | lo) + 1;
      }
      if (dist > (u32)(op - dst)) return B_BEFORE_START;
      if (len > (u64)(oend - op)) return B_MATCH_OUTPUT;
      op = copy_match(op, dist, (u32)len, oend);
    }
    if (ip >= iend) return (int)(op - dst);
    ctrl = *ip++;
  }
}

/*
 * shuffle.ts `unshuffle` (mode 1) or `bitunshuffle` (mode 2) of a block of
 * `size` bytes: the same bytes, the tail that is not (bit)shuffled copied.
 */
__attribute__((export_name("unshuffle_block"))) void unshuffle_block(const u8 *src, u8 *dst,
                                                                    u32 size, u32 ts, u32 mode) {
  const u32 n = ts > 0 ? size / ts : 0;
  u32 done = 0;
  if (mode == 1 && ts > 1 && n > 0) {
    unshuffle(src, dst, n, ts);
    done = n * ts;
  } else if (mode == 2 && n > 0 && n % 8 == 0) {
    bitunshuffle(src, dst, n, ts);
    done = n * ts;
  }
  if (done < size) __builtin_memcpy(dst + done, src + done, size - done);
}

/* ---- One Blosc 1 block of lz4 or blosclz streams, decoded and unshuffled -- */

static inline u32 load_u32le(const u8 *p) {
  return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) | ((u32)p[3] << 24);
}

/*
 * Decodes block `bsize` bytes of a Blosc 1 chunk whose streams start at
 * chunk[pos] (nsplits streams of neblock bytes, each a 4-byte size then the
 * compressed stream: blosclz when `codec` is 0, LZ4 when 1; or the raw bytes
 * when the size equals neblock) into out, through tmp when it is shuffled
 * (mode 1: byte shuffle, 2: bitshuffle, 0: none). The layout was checked by
 * the caller; sizes are checked again here. Returns 0; the decoder's error
 * code (negative); or 1 + the bytes a stream decoded to when that is not
 * neblock (stream index in *failed).
 */
__attribute__((export_name("blosc_block"))) int blosc_block(const u8 *chunk, u32 cbytes, u32 pos,
                                                            u32 nsplits, u32 neblock, u8 *tmp,
                                                            u8 *out, u32 bsize, u32 ts, u32 mode,
                                                            u32 codec, u32 *failed) {
  u8 *target = mode == 0 ? out : tmp;
  for (u32 j = 0; j < nsplits; j++) {
    *failed = j;
    if (pos > cbytes || cbytes - pos < 4) return E_OFFSET;
    const u32 csize = load_u32le(chunk + pos);
    pos += 4;
    if (csize == 0 || csize > cbytes - pos) return E_LIT_INPUT;
    u8 *dst = target + (u64)j * neblock;
    if (csize == neblock) {
      __builtin_memcpy(dst, chunk + pos, neblock);
    } else {
      const int n = codec == 1 ? lz4_decode(chunk + pos, csize, dst, neblock)
                               : blosclz_decode(chunk + pos, csize, dst, neblock);
      if (n < 0) return n;
      if ((u32)n != neblock) return 1 + n;
    }
    pos += csize;
  }
  if (mode != 0) unshuffle_block(tmp, out, bsize, ts, mode);
  return 0;
}

/* ---- Encoders: byte shuffle, bitshuffle, LZ4 and blosclz compression ----
 *
 * Ported from this package's TypeScript encoders (shuffle.ts, lz4.ts,
 * blosclz.ts): the same bytes for the same input, so a chunk is the same
 * whichever engine wrote it. Compressors may write up to 32 bytes past their
 * output and read up to 32 bytes past their input: callers leave that slack. */

static inline u32 load32(const u8 *p) {
  u32 v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

static inline u64 load64(const u8 *p) {
  u64 v;
  __builtin_memcpy(&v, p, 8);
  return v;
}

static inline void store32le(u8 *p, u32 v) { __builtin_memcpy(p, &v, 4); }

/* Elements from..n of the byte shuffle, a byte at a time (any ts). */
static void shuffle_scalar(const u8 *src, u8 *dst, u32 from, u32 n, u32 ts) {
  for (u32 j = 0; j < ts; j++) {
    u8 *o = dst + (u64)j * n;
    const u8 *s = src + j;
    for (u32 i = from; i < n; i++) o[i] = s[(u64)i * ts];
  }
}

/* 4 elements of 4 bytes grouped by plane: 32-bit lane j is plane j. */
static inline v128_t by_plane4(const u8 *p) {
  const v128_t v = wasm_v128_load(p);
  return wasm_i8x16_shuffle(v, v, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
}

/* typesize 2, 16 elements at a time; returns the elements done. */
static u32 shuffle2(const u8 *src, u8 *dst, u32 n) {
  u32 e = 0;
  for (; e + 16 <= n; e += 16) {
    v128_t a = wasm_v128_load(src + 2 * e), b = wasm_v128_load(src + 2 * e + 16);
    wasm_v128_store(dst + e, wasm_i8x16_shuffle(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                                24, 26, 28, 30));
    wasm_v128_store(dst + n + e, wasm_i8x16_shuffle(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                                    23, 25, 27, 29, 31));
  }
  return e;
}

/* typesize 4: 16 elements become one vector of each plane. */
static u32 shuffle4(const u8 *src, u8 *dst, u32 n) {
  u32 e = 0;
  for (; e + 16 <= n; e += 16) {
    const u8 *s = src + 4 * e;
    v128_t a = by_plane4(s), b = by_plane4(s + 16), c = by_plane4(s + 32), d = by_plane4(s + 48);
    /* then the 4x4 transpose of 32-bit lanes */
    v128_t ab01 = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), ab23 = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
    v128_t cd01 = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), cd23 = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
    wasm_v128_store(dst + e, wasm_i64x2_shuffle(ab01, cd01, 0, 2));
    wasm_v128_store(dst + n + e, wasm_i64x2_shuffle(ab01, cd01, 1, 3));
    wasm_v128_store(dst + 2 * n + e, wasm_i64x2_shuffle(ab23, cd23, 0, 2));
    wasm_v128_store(dst + 3 * n + e, wasm_i64x2_shuffle(ab23, cd23, 1, 3));
  }
  return e;
}

/* typesize 8: 16 elements; each vector's 2 elements grouped by plane (16-bit
 * lane j is plane j), then an 8x8 transpose of 16-bit lanes. */
static u32 shuffle8(const u8 *src, u8 *dst, u32 n) {
  u32 e = 0;
  for (; e + 16 <= n; e += 16) {
    const u8 *s = src + 8 * e;
    v128_t w[8], x[8], y[8];
    for (int i = 0; i < 8; i++) {
      v128_t v = wasm_v128_load(s + 16 * i);
      w[i] = wasm_i8x16_shuffle(v, v, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 2) {
      x[i] = wasm_i16x8_shuffle(w[i], w[i + 1], 0, 8, 1, 9, 2, 10, 3, 11);
      x[i + 1] = wasm_i16x8_shuffle(w[i], w[i + 1], 4, 12, 5, 13, 6, 14, 7, 15);
    }
    /* x[2p + h]: planes 4h..4h+3 of elements pair p (2 of them) */
    for (int h = 0; h < 2; h++) {
      y[4 * h] = wasm_i32x4_shuffle(x[h], x[2 + h], 0, 4, 1, 5);
      y[4 * h + 1] = wasm_i32x4_shuffle(x[h], x[2 + h], 2, 6, 3, 7);
      y[4 * h + 2] = wasm_i32x4_shuffle(x[4 + h], x[6 + h], 0, 4, 1, 5);
      y[4 * h + 3] = wasm_i32x4_shuffle(x[4 + h], x[6 + h], 2, 6, 3, 7);
    }
    /* y[4h + q]: planes 4h + 2q and 4h + 2q + 1 of elements 0..7 (64-bit
     * halves); y[4h + 2 + q]: the same planes of elements 8..15 */
    for (int h = 0; h < 2; h++) {
      for (int q = 0; q < 2; q++) {
        const u32 plane = 4 * h + 2 * q;
        wasm_v128_store(dst + (u64)plane * n + e, wasm_i64x2_shuffle(y[4 * h + q], y[4 * h + 2 + q], 0, 2));
        wasm_v128_store(dst + (u64)(plane + 1) * n + e,
                        wasm_i64x2_shuffle(y[4 * h + q], y[4 * h + 2 + q], 1, 3));
      }
    }
  }
  return e;
}

/*
 * Byte shuffle of n elements of ts bytes (ts >= 2): byte j of element i goes
 * to dst[j * n + i]. The inverse of unshuffle.
 */
static void shuffle_planes(const u8 *src, u8 *dst, u32 n, u32 ts) {
  u32 e = 0;
  if (ts == 2) e = shuffle2(src, dst, n);
  else if (ts == 4) e = shuffle4(src, dst, n);
  else if (ts == 8) e = shuffle8(src, dst, n);
  shuffle_scalar(src, dst, e, n, ts);
}

/*
 * Bit rows of one byte plane of n bytes (n a multiple of 8): bit i of byte g
 * of row k is bit k of plane[8 g + i]. 16 bytes at a time, each row's 16 bits
 * taken from the lanes' top bits.
 */
static void bit_rows(const u8 *plane, u8 *rows, u32 n) {
  const u32 rowBytes = n >> 3;
  u32 i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t v = wasm_v128_load(plane + i);
    for (int k = 7; k >= 0; k--) {
      const uint16_t bits = (uint16_t)wasm_i8x16_bitmask(v);
      __builtin_memcpy(rows + (u64)k * rowBytes + (i >> 3), &bits, 2);
      v = wasm_i8x16_add(v, v);
    }
  }
  for (; i < n; i += 8) {
    const u64 x = transpose8(load64(plane + i));
    for (u32 k = 0; k < 8; k++) rows[(u64)k * rowBytes + (i >> 3)] = (u8)(x >> (8 * k));
  }
}

/*
 * Bitshuffle of n elements of ts bytes, n a multiple of 8: byte shuffle into
 * scratch (n * ts bytes), then the 8 bit rows of each plane. The inverse of
 * bitunshuffle.
 */
static void bitshuffle_planes(const u8 *src, u8 *dst, u32 n, u32 ts, u8 *scratch) {
  const u8 *planes = src;
  if (ts > 1) {
    shuffle_planes(src, scratch, n, ts);
    planes = scratch;
  }
  for (u32 j = 0; j < ts; j++) bit_rows(planes + (u64)j * n, dst + (u64)j * n, n);
}

/* shuffle.ts `shuffle` of a block of size bytes: the tail is copied. */
__attribute__((export_name("shuffle"))) void shuffle(const u8 *src, u8 *dst, u32 size, u32 ts) {
  const u32 n = ts > 1 ? size / ts : 0;
  if (n > 0) shuffle_planes(src, dst, n, ts);
  const u32 done = n * ts;
  if (done < size) __builtin_memcpy(dst + done, src + done, size - done);
}

/* shuffle.ts `bitshuffle` of a block: copied whole unless its element count
 * is a nonzero multiple of 8, the tail copied. scratch: size bytes. */
__attribute__((export_name("bitshuffle"))) void bitshuffle(const u8 *src, u8 *dst, u32 size,
                                                          u32 ts, u8 *scratch) {
  const u32 n = size / ts;
  const u32 done = n > 0 && n % 8 == 0 ? n * ts : 0;
  if (done > 0) bitshuffle_planes(src, dst, n, ts, scratch);
  if (done < size) __builtin_memcpy(dst + done, src + done, size - done);
}

/* The multiplicative hash of 4 bytes both compressors index positions by. */
static inline u32 hash4(u32 seq, u32 shift) { return (seq * 0x9e3779b1u) >> shift; }

/* How many bytes a and b have in common, at most max. */
static inline u32 common_length(const u8 *a, const u8 *b, u32 max) {
  u32 len = 0;
  for (; len + 8 <= max; len += 8) {
    const u64 x = load64(a + len) ^ load64(b + len);
    if (x != 0) return len + ((u32)__builtin_ctzll(x) >> 3);
  }
  while (len < max && a[len] == b[len]) len++;
  return len;
}

/* Copies n bytes 16 at a time, the overshoot in the callers' slack; long runs in one memory.copy. */
static inline void copy_slack(u8 *d, const u8 *s, u32 n) {
  if (n > 128) {
    __builtin_memcpy(d, s, n);
    return;
  }
  for (u32 i = 0; i < n; i += 16) copy16(d + i, s + i);
}

/* A length past 15 (LZ4) or 9 (blosclz): 255s, then the rest. */
static inline u8 *write_length(u8 *op, u32 r) {
  for (; r >= 255; r -= 255) *op++ = 255;
  *op++ = (u8)r;
  return op;
}

#define LZ4_HASH_LOG 12
#define LZ4_MF_LIMIT 12
#define LZ4_LAST_LITERALS 5
#define LZ4_MAX_DISTANCE 65535

static int32_t lz4_table[1 << LZ4_HASH_LOG];

/* One LZ4 sequence: the literals [lit, ip), then a match (len >= 4, or 0 for none). */
static u8 *lz4_sequence(const u8 *lit, const u8 *ip, u8 *op, u32 offset, u32 len) {
  const u32 n = (u32)(ip - lit);
  u8 *const token = op++;
  u32 t = n >= 15 ? 0xf0 : n << 4;
  if (n >= 15) op = write_length(op, n - 15);
  copy_slack(op, lit, n);
  op += n;
  if (len > 0) {
    *op++ = (u8)offset;
    *op++ = (u8)(offset >> 8);
    const u32 m = len - MIN_MATCH;
    t |= m >= 15 ? 15 : m;
    if (m >= 15) op = write_length(op, m - 15);
  }
  *token = (u8)t;
  return op;
}

/*
 * LZ4 block compression of src[0..n) into dst (lz4CompressBound(n) bytes +
 * slack), lz4.ts `lz4CompressInto` step for step: greedy, a 4096-entry hash
 * table, skipping faster the longer nothing matches (`acceleration`).
 * Returns the block length.
 */
__attribute__((export_name("lz4_encode"))) u32 lz4_encode(const u8 *src, u32 n, u8 *dst,
                                                          u32 acceleration) {
  if (n < LZ4_MF_LIMIT + 1) return (u32)(lz4_sequence(src, src + n, dst, 0, 0) - dst);
  const u32 shift = 32 - LZ4_HASH_LOG;
  const u32 mfLimit = n - LZ4_MF_LIMIT;
  const u32 matchLimit = n - LZ4_LAST_LITERALS;
  const u32 accel = acceleration < 1 ? 1 : acceleration > 65537 ? 65537 : acceleration;
  int32_t *const table = lz4_table;
  __builtin_memset(table, 0xff, sizeof lz4_table);
  u8 *op = dst;
  u32 anchor = 0;
  u32 ip = 1;
  table[hash4(load32(src), shift)] = 0;
  while (ip <= mfLimit) {
    u32 searchNb = accel << 6;
    u32 step = accel;
    int32_t ref;
    for (;;) {
      const u32 seq = load32(src + ip);
      const u32 h = hash4(seq, shift);
      ref = table[h];
      table[h] = (int32_t)ip;
      if (ref >= 0 && ip - (u32)ref <= LZ4_MAX_DISTANCE && load32(src + ref) == seq) break;
      ip += step;
      step = searchNb++ >> 6;
      if (ip > mfLimit) {
        ref = -1;
        break;
      }
    }
    if (ref < 0) break;
    while (ip > anchor && ref > 0 && src[ip - 1] == src[ref - 1]) {
      ip--;
      ref--;
    }
    const u32 len = common_length(src + ip, src + ref, matchLimit - ip);
    op = lz4_sequence(src + anchor, src + ip, op, ip - (u32)ref, len);
    ip += len;
    anchor = ip;
    if (ip > mfLimit) break;
    /* a position inside the match, so that runs and repeats are found again */
    table[hash4(load32(src + ip - 2), shift)] = (int32_t)(ip - 2);
  }
  return (u32)(lz4_sequence(src + anchor, src + n, op, 0, 0) - dst);
}

#define BLZ_MAX_HASH_LOG 14
#define BLZ_MAX_NEAR 8191
#define BLZ_MAX_FAR (8192 + 65535)
#define BLZ_MIN_FAR_LEN 6

static int32_t blz_table[1 << BLZ_MAX_HASH_LOG];

/* Literal runs of at most 32 bytes, each after its length - 1. */
static u8 *blz_literals(const u8 *from, const u8 *to, u8 *op) {
  while (from < to) {
    const u32 run = to - from < 32 ? (u32)(to - from) : 32;
    *op++ = (u8)(run - 1);
    copy16(op, from);
    copy16(op + 16, from + 16);
    op += run;
    from += run;
  }
  return op;
}

static u8 *blz_match(u8 *op, u32 len, u32 dist) {
  const int far = dist > BLZ_MAX_NEAR;
  const u32 code = len - 2;
  const u32 hi = far ? 31 : (dist - 1) >> 8;
  if (code < 7) {
    *op++ = (u8)((code << 5) | hi);
  } else {
    *op++ = (u8)((7 << 5) | hi);
    op = write_length(op, len - 9);
  }
  if (far) {
    const u32 d = dist - 8192;
    *op++ = 255;
    *op++ = (u8)(d >> 8);
    *op++ = (u8)d;
  } else {
    *op++ = (u8)(dist - 1);
  }
  return op;
}

/* blosclz.ts `compressStream`: one greedy pass, the table size by clevel. n >= 16. */
static u32 blz_stream(const u8 *src, u32 n, u8 *dst, u32 clevel) {
  const u32 hashLog = clevel < 3 ? 12 : clevel < 6 ? 13 : BLZ_MAX_HASH_LOG;
  const u32 shift = 32 - hashLog;
  int32_t *const table = blz_table;
  __builtin_memset(table, 0xff, sizeof(int32_t) << hashLog);
  /* no match starts in the last 12 bytes nor reaches into the last 4 */
  const u32 ipBound = n - 12;
  const u32 ipLimit = n - 4;
  u8 *op = dst;
  u32 anchor = 0;
  u32 ip = 1;
  table[hash4(load32(src), shift)] = 0;
  while (ip < ipBound) {
    const u32 seq = load32(src + ip);
    const u32 h = hash4(seq, shift);
    const int32_t ref = table[h];
    table[h] = (int32_t)ip;
    const u32 dist = ip - (u32)ref;
    if (ref >= 0 && dist <= BLZ_MAX_FAR && load32(src + ref) == seq) {
      const u32 len = common_length(src + ip, src + ref, ipLimit - ip);
      if (dist <= BLZ_MAX_NEAR || len >= BLZ_MIN_FAR_LEN) {
        op = blz_literals(src + anchor, src + ip, op);
        op = blz_match(op, len, dist);
        ip += len;
        anchor = ip;
        table[hash4(load32(src + ip - 1), shift)] = (int32_t)(ip - 1);
        continue;
      }
    }
    ip += 1 + ((ip - anchor) >> 6);
  }
  return (u32)(blz_literals(src + anchor, src + n, op) - dst);
}

/* Smallest probe compression ratio per clevel for a stream to be compressed. */
static const double BLZ_MIN_RATIO[10] = {0, 2, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0};

/*
 * blosclz.ts `blosclzCompressInto`: the stream length, or 0 when the stream
 * is under 16 bytes or its last quarter compresses less than clevel asks for
 * (Blosc then stores it raw). dst: blosclzCompressBound(n) bytes + slack.
 */
__attribute__((export_name("blosclz_encode"))) u32 blosclz_encode(const u8 *src, u32 n, u8 *dst,
                                                                  u32 clevel) {
  if (n < 16) return 0;
  const u32 probe = n >> 2;
  if (probe >= 16) {
    const u32 c = blz_stream(src + n - probe, probe, dst, clevel);
    if ((double)probe < c * BLZ_MIN_RATIO[clevel > 9 ? 9 : clevel]) return 0;
  }
  return blz_stream(src, n, dst, clevel);
}

/* ---- A whole Blosc 1 chunk, shuffled and compressed --------------------- */

/*
 * Encodes the blocks of the chunk src[0..nbytes) as frame.ts `compressGen`
 * does: each block shuffled into tmp (mode 1: byte shuffle, 2: bitshuffle,
 * through scratch; 0: none), split into `ts` streams when `split` (not the
 * leftover block), each stream compressed (codec 1: LZ4 at acceleration
 * `level`, 0: blosclz at clevel `level`) or stored raw when that does not
 * shrink it. Writes the bstarts table and the streams into out after the
 * 16-byte header (left to the caller); out needs nbytes + 16 +
 * blosclzCompressBound(blocksize) bytes + slack. Returns the chunk length, or
 * 0 when it would exceed nbytes + 16 (the caller stores the chunk memcpyed).
 */
__attribute__((export_name("blosc_encode"))) u32 blosc_encode(const u8 *src, u32 nbytes,
                                                              u32 blocksize, u32 ts, u32 mode,
                                                              u32 split, u32 codec, u32 level,
                                                              u8 *tmp, u8 *scratch, u8 *out) {
  const u32 nblocks = (nbytes + blocksize - 1) / blocksize;
  const u32 leftover = nbytes % blocksize;
  const u32 maxOut = nbytes + 16;
  u32 pos = 16 + 4 * nblocks;
  if (pos > maxOut) return 0;
  for (u32 b = 0; b < nblocks; b++) {
    const int isLeftover = b == nblocks - 1 && leftover > 0;
    const u32 bsize = isLeftover ? leftover : blocksize;
    const u8 *block = src + (u64)b * blocksize;
    store32le(out + 16 + 4 * b, pos);
    if (mode == 1) shuffle(block, tmp, bsize, ts);
    if (mode == 2) bitshuffle(block, tmp, bsize, ts, scratch);
    if (mode != 0) block = tmp;
    const u32 nsplits = split && !isLeftover ? ts : 1;
    const u32 neblock = bsize / nsplits;
    for (u32 j = 0; j < nsplits; j++) {
      const u8 *stream = block + (u64)j * neblock;
      u8 *const dst = out + pos + 4;
      u32 len = codec == 1 ? lz4_encode(stream, neblock, dst, level)
                           : blosclz_encode(stream, neblock, dst, level);
      if (len == 0 || len >= neblock) {
        len = neblock;
        __builtin_memcpy(dst, stream, neblock);
      }
      if (pos + 4 + len > maxOut) return 0;
      store32le(out + pos, len);
      pos += 4 + len;
    }
  }
  return pos;
}
