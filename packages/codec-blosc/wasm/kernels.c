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
    const u8 *match = op - offset;
    u8 *const mend = op + len;
    if (offset >= 16 && (u64)(oend - op) >= len + 16) {
      /* 16 bytes at a time: each source block lies wholly before its
       * destination, and the overshoot stays inside the output. */
      do {
        copy16(op, match);
        op += 16;
        match += 16;
      } while (op < mend);
      op = mend;
    } else if (offset >= len) {
      __builtin_memcpy(op, match, (u32)len);
      op = mend;
    } else {
      /* Overlapping match: a pattern of `offset` bytes repeated. Copy what is
       * already written after `match`, doubling each time; every copy's source
       * ends where its destination starts, and the gap stays a multiple of
       * the pattern. */
      while (op < mend) {
        u32 n = (u32)(op - match);
        if (n > (u32)(mend - op)) n = (u32)(mend - op);
        __builtin_memcpy(op, match, n);
        op += n;
      }
    }
    if (ip == iend) return E_ENDS_MATCH;
  }
}
