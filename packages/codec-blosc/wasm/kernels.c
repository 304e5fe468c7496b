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

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64; /* lengths: 255-byte runs cannot overflow them */

#define MIN_MATCH 4

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

/*
 * Copies a match of `len` bytes from `offset` bytes back (both checked by the
 * caller: offset <= op - start, len <= oend - op); returns the end of it.
 */
static inline u8 *copy_match(u8 *op, u32 offset, u32 len, u8 *const oend) {
  const u8 *match = op - offset;
  u8 *const mend = op + len;
  if (offset >= 16 && (u64)(oend - op) >= (u64)len + 16) {
    /* 16 bytes at a time: each source block lies wholly before its
     * destination, and the overshoot stays inside the output. */
    do {
      copy16(op, match);
      op += 16;
      match += 16;
    } while (op < mend);
  } else if (offset >= len) {
    __builtin_memcpy(op, match, len);
  } else {
    /* Overlapping match: a pattern of `offset` bytes repeated. Copy what is
     * already written after `match`, doubling each time; every copy's source
     * ends where its destination starts, and the gap stays a multiple of the
     * pattern. */
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
    if (lit <= 16 && (iend - ip) >= 16 && (oend - op) >= 16) {
      copy16(op, ip); /* short literals: one wide copy, inside both buffers */
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

#include <wasm_simd128.h>

/*
 * Byte unshuffle of n elements of ts bytes: src holds byte plane j (byte j of
 * every element) at src[j * n]; element e goes to dst[e * ts].
 */
__attribute__((export_name("unshuffle"))) void unshuffle(const u8 *src, u8 *dst, u32 n, u32 ts) {
  u32 e = 0;
  if (ts == 4) {
    const u8 *p0 = src, *p1 = src + n, *p2 = src + 2 * n, *p3 = src + 3 * n;
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
  }
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

/*
 * Bit unshuffle of n elements of ts bytes, n a multiple of 8: src holds, for
 * byte j and bit k, the row of bit k of byte j of every element at
 * src[(8 j + k) * n / 8] (bit i of row byte g: element 8 g + i).
 */
__attribute__((export_name("bitunshuffle"))) void bitunshuffle(const u8 *src, u8 *dst, u32 n,
                                                              u32 ts) {
  const u32 rowBytes = n >> 3;
  for (u32 j = 0; j < ts; j++) {
    const u8 *rows = src + (u64)8 * j * rowBytes;
    for (u32 g = 0; g < rowBytes; g++) {
      u64 x = 0;
      for (u32 k = 0; k < 8; k++) x |= (u64)rows[(u64)k * rowBytes + g] << (8 * k);
      x = transpose8(x);
      u8 *o = dst + (u64)8 * g * ts + j;
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
  if (mode == 1) {
    const u32 n = bsize / ts;
    unshuffle(tmp, out, n, ts);
    const u32 done = n * ts;
    if (done < bsize) __builtin_memcpy(out + done, tmp + done, bsize - done);
  } else if (mode == 2) {
    const u32 n = bsize / ts;
    if (bsize < ts || n % 8 != 0) {
      __builtin_memcpy(out, tmp, bsize);
    } else {
      bitunshuffle(tmp, out, n, ts);
      const u32 done = n * ts;
      if (done < bsize) __builtin_memcpy(out + done, tmp + done, bsize - done);
    }
  }
  return 0;
}
