/*
 * A Node-API addon with one function, readValue, that reads a store value in
 * ONE job of libuv's thread pool: open, the confinement check, fstat, the
 * reads and close. Through node:fs the same read is four jobs (open, fstat,
 * read, close), each a round trip through the pool and the event loop, which
 * dominate reads of small chunks (about 40 us of the calling thread per chunk).
 * The checks are the ones src/tree.ts makes, in the same order:
 *
 *   1. open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
 *   2. readlink("/proc/self/fd/N") must be exactly `expected` (or `expected`
 *      followed by " (deleted)"): a link anywhere on the path makes it differ;
 *   3. fstat: a directory is "nothing there", anything but a regular file is
 *      refused;
 *   4. the whole file is read into the caller's spans of memory, and the
 *      descriptor is closed whatever happened.
 *
 * readValue(path, expected, memory, spans, exact, result, bounce) -> Promise<number | string>
 *   path, expected: strings (no NUL; at most PATH_BYTES - 2 bytes in UTF-8)
 *   memory: a Uint8Array; spans: a Float64Array of (offset, length) pairs in
 *          it, filled end to end (each checked to lie inside `memory`)
 *   bounce: null, or a Uint8Array of at least the spans' total. Memory that
 *          JavaScript can detach, transfer or shrink while the job runs must
 *          not be written from the pool's thread (the write would land in
 *          freed memory): the job then reads into `bounce` (memory only the
 *          caller holds), and the bytes are copied into the spans on the
 *          calling thread when the job completes, after checking that
 *          `memory` is still there and as long (else READ_MEMORY_GONE). With
 *          null, the job reads into `memory` directly: for memory nothing
 *          else can take away (a SharedArrayBuffer, the caller's own buffers).
 *   exact: true: read only when the file's size equals the spans' total
 *          (else READ_SIZE_DIFFERS); false: read when it fits (else the same)
 *   result: a Float64Array of 3, set before the promise settles:
 *           [size or failing system call, bytes read, st_mode]
 * The promise resolves to a status (below), to a negative errno (result[0]
 * names the system call), or to the descriptor's real path (a string) when
 * the confinement check fails. It never rejects; bad arguments throw.
 *
 * Freestanding (no C library headers or startup files): system calls are made
 * directly, and the Node-API functions and `memcpy` are resolved from the
 * Node process when it loads the addon, so one binary serves glibc and musl
 * systems alike. x86-64 Linux only.
 *
 * Built and checked by scripts/build-native.mjs (repository root).
 */

typedef unsigned long size_t;
typedef long ssize_t;
typedef unsigned long uintptr_t;

/* Node-API (js_native_api.h, node_api.h; all in N-API version 1). */
typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef struct napi_deferred__ *napi_deferred;
typedef struct napi_ref__ *napi_ref;
typedef struct napi_async_work__ *napi_async_work;
typedef int napi_status;
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);
typedef void (*napi_async_execute_callback)(napi_env env, void *data);
typedef void (*napi_async_complete_callback)(napi_env env, napi_status status, void *data);
#define NAPI_OK 0
#define NAPI_UINT8_ARRAY 1
#define NAPI_FLOAT64_ARRAY 8

napi_status napi_get_cb_info(napi_env env, napi_callback_info info, size_t *argc,
                             napi_value *argv, napi_value *this_arg, void **data);
napi_status napi_get_value_string_utf8(napi_env env, napi_value value, char *buf,
                                       size_t bufsize, size_t *result);
typedef int napi_valuetype;
#define NAPI_NULL 1
napi_status napi_typeof(napi_env env, napi_value value, napi_valuetype *result);
napi_status napi_get_value_bool(napi_env env, napi_value value, _Bool *result);
napi_status napi_is_typedarray(napi_env env, napi_value value, _Bool *result);
napi_status napi_get_typedarray_info(napi_env env, napi_value typedarray, int *type,
                                     size_t *length, void **data, napi_value *arraybuffer,
                                     size_t *byte_offset);
napi_status napi_create_arraybuffer(napi_env env, size_t byte_length, void **data,
                                    napi_value *result);
napi_status napi_create_reference(napi_env env, napi_value value, unsigned initial_refcount,
                                  napi_ref *result);
napi_status napi_delete_reference(napi_env env, napi_ref ref);
napi_status napi_get_reference_value(napi_env env, napi_ref ref, napi_value *result);
napi_status napi_create_promise(napi_env env, napi_deferred *deferred, napi_value *promise);
napi_status napi_resolve_deferred(napi_env env, napi_deferred deferred, napi_value resolution);
napi_status napi_create_string_utf8(napi_env env, const char *str, size_t length,
                                    napi_value *result);
napi_status napi_create_int32(napi_env env, int value, napi_value *result);
napi_status napi_create_async_work(napi_env env, napi_value async_resource,
                                   napi_value async_resource_name,
                                   napi_async_execute_callback execute,
                                   napi_async_complete_callback complete, void *data,
                                   napi_async_work *result);
napi_status napi_queue_async_work(napi_env env, napi_async_work work);
napi_status napi_delete_async_work(napi_env env, napi_async_work work);
napi_status napi_throw_type_error(napi_env env, const char *code, const char *msg);
napi_status napi_create_function(napi_env env, const char *utf8name, size_t length,
                                 napi_callback cb, void *data, napi_value *result);
napi_status napi_set_named_property(napi_env env, napi_value object, const char *utf8name,
                                    napi_value value);

/* Statuses (keep in step with src/native-read.ts). */
#define READ_DONE 0         /* read: result[1] bytes (fewer than the size if truncated meanwhile) */
#define READ_DIRECTORY 1    /* a directory: nothing read */
#define READ_NOT_REGULAR 2  /* not a regular file: result[2] is its st_mode */
#define READ_SIZE_DIFFERS 3 /* the size (result[0]) does not match / fit the spans */
#define READ_MEMORY_GONE 4  /* read into bounce, but `memory` was detached or shrunk: not copied */

/* System calls used, as reported in result[0] with a negative status. */
#define CALL_OPEN 1
#define CALL_READLINK 2
#define CALL_FSTAT 3
#define CALL_READ 4

/* x86-64 Linux. */
#define SYS_READ 0
#define SYS_OPEN 2
#define SYS_CLOSE 3
#define SYS_FSTAT 5
#define SYS_PREAD64 17
#define SYS_PREADV 295
#define SYS_READLINK 89
/* open(2) flags: read only, never through a link at the path, never waiting on a FIFO. */
#define O_RDONLY 0
#define O_NONBLOCK 04000
#define O_NOCTTY 0400
#define O_NOFOLLOW 0400000
#define O_CLOEXEC 02000000
#define OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define EINTR 4
#define IOV_MAX 1024

/* Room for a path; longer ones (past PATH_MAX anyway) are refused by the caller. */
#define PATH_BYTES 4096
/* Spans one call takes; more are refused by the caller. */
#define MAX_SPANS 65536

static long syscall1(long n, long a) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a) : "rcx", "r11", "memory");
  return r;
}
static long syscall2(long n, long a, long b) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b) : "rcx", "r11", "memory");
  return r;
}
static long syscall3(long n, long a, long b, long c) {
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c)
                   : "rcx", "r11", "memory");
  return r;
}
static long syscall4(long n, long a, long b, long c, long d) {
  long r;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return r;
}
static long syscall5(long n, long a, long b, long c, long d, long e) {
  long r;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
  return r;
}

struct iovec {
  void *base;
  size_t length;
};

/* struct stat on x86-64 Linux (144 bytes). */
struct kernel_stat {
  unsigned long dev, ino, nlink;
  unsigned mode, uid, gid, pad0;
  unsigned long rdev;
  long size, blksize, blocks;
  unsigned long times[6];
  long reserved[3];
};

struct request {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref memory;  /* this request's own ArrayBuffer */
  napi_ref target;  /* the memory read into, kept alive while read into */
  napi_ref result;  /* the caller's Float64Array */
  napi_ref bounce;  /* the bounce memory, or 0 */
  size_t memory_length; /* `memory`'s length when called */
  struct iovec bounce_iov; /* where the job reads with a bounce memory */
  _Bool exact;
  unsigned view_count;
  size_t total;     /* the spans' total length */
  long status;      /* READ_* or a negative errno */
  long call;        /* CALL_* of a failure */
  long size;
  long bytes_read;
  unsigned mode;
  long actual_length; /* readlink's length, for the mismatch string */
  char *path;        /* NUL-terminated, in this request's memory */
  char *expected;    /* the same */
  char *actual;      /* room for readlink's answer: `actual_room` bytes */
  size_t actual_room;
  struct iovec iov[]; /* view_count (offsets into `memory` with a bounce), then the strings */
};

/* "/proc/self/fd/" + decimal fd, NUL-terminated. */
static void fd_link(char *out, long fd) {
  static const char prefix[] = "/proc/self/fd/";
  size_t n = 0;
  for (; prefix[n] != 0; n++) out[n] = prefix[n];
  char digits[24];
  size_t d = 0;
  do {
    digits[d++] = (char)('0' + fd % 10);
    fd /= 10;
  } while (fd > 0);
  while (d > 0) out[n++] = digits[--d];
  out[n] = 0;
}

static size_t text_length(const char *s) {
  size_t n = 0;
  while (s[n] != 0) n++;
  return n;
}

/* The descriptor's real path is `expected`, or `expected` + " (deleted)". */
static _Bool is_expected(const char *actual, long length, const char *expected) {
  static const char deleted[] = " (deleted)";
  size_t e = text_length(expected);
  if (length < (long)e) return 0;
  for (size_t i = 0; i < e; i++) {
    if (actual[i] != expected[i]) return 0;
  }
  if ((size_t)length == e) return 1;
  if ((size_t)length != e + sizeof(deleted) - 1) return 0;
  for (size_t i = 0; i < sizeof(deleted) - 1; i++) {
    if (actual[e + i] != deleted[i]) return 0;
  }
  return 1;
}

/* Fills the spans from file offset 0 until they are full or the file ends. */
static long read_spans(struct request *r, long fd) {
  struct iovec *iov = r->iov;
  unsigned left = r->view_count;
  long done = 0;
  while (left > 0) {
    if (iov->length == 0) {
      iov++;
      left--;
      continue;
    }
    long n = left == 1 ? syscall4(SYS_PREAD64, fd, (long)iov->base, (long)iov->length, done)
                       : syscall5(SYS_PREADV, fd, (long)iov, left > IOV_MAX ? IOV_MAX : left,
                                  done, 0);
    if (n == -EINTR) continue;
    if (n < 0) return n;
    if (n == 0) break; /* truncated by someone else since the fstat */
    done += n;
    /* Skip the spans filled; a partly filled one continues where it stopped. */
    while (left > 0 && (size_t)n >= iov->length) {
      n -= (long)iov->length;
      iov++;
      left--;
    }
    if (left > 0 && n > 0) {
      iov->base = (char *)iov->base + n;
      iov->length -= (size_t)n;
    }
  }
  return done;
}

/* Fills the bounce memory from file offset 0 until the size is read or the file ends. */
static long read_bounce(struct request *r, long fd) {
  char *at = r->bounce_iov.base;
  size_t left = r->bounce_iov.length;
  long done = 0;
  while (left > 0) {
    long n = syscall4(SYS_PREAD64, fd, (long)at, (long)left, done);
    if (n == -EINTR) continue;
    if (n < 0) return n;
    if (n == 0) break; /* truncated by someone else since the fstat */
    at += n;
    left -= (size_t)n;
    done += n;
  }
  return done;
}

/* From the C library Node runs on (glibc or musl), resolved when the addon loads. */
void *memcpy(void *to, const void *from, size_t length);

/*
 * On the calling thread, where no JavaScript runs meanwhile: copies what the
 * job read into the bounce memory to the spans, if `memory` is still as long.
 */
static void copy_out(napi_env env, struct request *r) {
  napi_value memory, buffer;
  int type;
  size_t length = 0, offset;
  void *data = 0;
  if (r->bytes_read == 0) return; /* nothing to copy (an empty file, empty views) */
  if (napi_get_reference_value(env, r->target, &memory) != NAPI_OK ||
      napi_get_typedarray_info(env, memory, &type, &length, &data, &buffer, &offset) !=
          NAPI_OK ||
      data == 0 || length < r->memory_length) {
    r->status = READ_MEMORY_GONE;
    return;
  }
  const char *from = r->bounce_iov.base;
  size_t left = (size_t)r->bytes_read;
  for (unsigned i = 0; i < r->view_count && left > 0; i++) {
    /* iov[i].base holds the span's offset into `memory` in this mode. */
    size_t n = r->iov[i].length < left ? r->iov[i].length : left;
    memcpy((char *)data + (uintptr_t)r->iov[i].base, from, n);
    from += n;
    left -= n;
  }
}

static void execute(napi_env env, void *data) {
  (void)env;
  struct request *r = data;
  long fd = syscall3(SYS_OPEN, (long)r->path, OPEN_FLAGS, 0);
  if (fd < 0) {
    r->status = fd;
    r->call = CALL_OPEN;
    return;
  }
  char link[32];
  fd_link(link, fd);
  long length = syscall3(SYS_READLINK, (long)link, (long)r->actual, (long)r->actual_room);
  struct kernel_stat info;
  long n;
  if (length < 0) {
    r->status = length;
    r->call = CALL_READLINK;
  } else if (r->actual_length = length,
             length >= (long)r->actual_room || !is_expected(r->actual, length, r->expected)) {
    r->status = -1000; /* mismatch: resolved as the string in `actual` */
  } else if ((n = syscall2(SYS_FSTAT, fd, (long)&info)) < 0) {
    r->status = n;
    r->call = CALL_FSTAT;
  } else if ((info.mode & S_IFMT) == S_IFDIR) {
    r->status = READ_DIRECTORY;
  } else if ((info.mode & S_IFMT) != S_IFREG) {
    r->status = READ_NOT_REGULAR;
    r->mode = info.mode;
  } else {
    r->size = info.size;
    if (r->exact ? (size_t)info.size != r->total : (size_t)info.size > r->total) {
      r->status = READ_SIZE_DIFFERS;
    } else {
      /* Never more than the size: memory past it stays as it is. */
      if (!r->exact) {
        size_t room = (size_t)info.size;
        for (unsigned i = 0; i < r->view_count; i++) {
          if (r->iov[i].length > room) r->iov[i].length = room;
          room -= r->iov[i].length;
        }
      }
      n = r->bounce != 0 ? read_bounce(r, fd) : read_spans(r, fd);
      if (n < 0) {
        r->status = n;
        r->call = CALL_READ;
      } else {
        r->status = READ_DONE;
        r->bytes_read = n;
      }
    }
  }
  /* Nothing was written: a failed close loses nothing (and is not retried on Linux). */
  syscall1(SYS_CLOSE, fd);
}

static void complete(napi_env env, napi_status status, void *data) {
  struct request *r = data;
  napi_value value = 0;
  napi_value result;
  if (status == NAPI_OK && r->bounce != 0 && r->status == READ_DONE) copy_out(env, r);
  if (napi_get_reference_value(env, r->result, &result) == NAPI_OK) {
    int type;
    size_t length;
    void *slots;
    napi_value buffer;
    size_t offset;
    if (napi_get_typedarray_info(env, result, &type, &length, &slots, &buffer, &offset) ==
            NAPI_OK &&
        type == NAPI_FLOAT64_ARRAY && length >= 3 && slots != 0) {
      double *out = slots;
      out[0] = r->status < 0 && r->status != -1000 ? (double)r->call : (double)r->size;
      /* A mismatch: 1 when the real path was longer than the room for it (shown cut). */
      out[1] = r->status == -1000 ? (double)(r->actual_length >= (long)r->actual_room)
                                  : (double)r->bytes_read;
      out[2] = (double)r->mode;
    }
  }
  if (status != NAPI_OK) {
    napi_create_int32(env, -4 /* EINTR: cancelled */, &value);
  } else if (r->status == -1000) {
    size_t shown = (size_t)r->actual_length;
    if (shown > r->actual_room) shown = r->actual_room;
    napi_create_string_utf8(env, r->actual, shown, &value);
  } else {
    napi_create_int32(env, (int)r->status, &value);
  }
  napi_resolve_deferred(env, r->deferred, value);
  napi_delete_reference(env, r->target);
  napi_delete_reference(env, r->result);
  if (r->bounce != 0) napi_delete_reference(env, r->bounce);
  napi_delete_async_work(env, r->work);
  napi_delete_reference(env, r->memory); /* last: `r` lives in that memory */
}

/* A string argument's length in UTF-8; 0 when it is not a string, empty or too long. */
static size_t path_length(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, 0, 0, &length) != NAPI_OK) return 0;
  return length > PATH_BYTES - 2 ? 0 : length;
}

/* Copies a string argument of `length` bytes (and a NUL); 0 unless all of it, with no NUL inside. */
static _Bool copy_path(napi_env env, napi_value value, char *out, size_t length) {
  size_t copied = 0;
  if (napi_get_value_string_utf8(env, value, out, length + 1, &copied) != NAPI_OK) return 0;
  return copied == length && text_length(out) == length;
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, 0, message);
  return 0;
}

/* A span's offset or length: a whole number from 0 to `limit`; -1 when not. */
static double span_value(double value, size_t limit) {
  if (!(value >= 0) || value > (double)limit || value != (double)(size_t)value) return -1;
  return value;
}

static napi_value read_value(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  if (napi_get_cb_info(env, info, &argc, argv, 0, 0) != NAPI_OK || argc < 7) {
    return fail(env, "readValue(path, expected, memory, spans, exact, result, bounce)");
  }
  _Bool is_typed = 0;
  int type = 0;
  size_t memory_length = 0, span_slots = 0, result_slots = 0;
  void *memory_data = 0, *span_data = 0, *result_data = 0;
  napi_value buffer;
  size_t offset = 0;
  if (napi_is_typedarray(env, argv[2], &is_typed) != NAPI_OK || !is_typed ||
      napi_get_typedarray_info(env, argv[2], &type, &memory_length, &memory_data, &buffer,
                               &offset) != NAPI_OK ||
      type != NAPI_UINT8_ARRAY || (memory_data == 0 && memory_length != 0)) {
    return fail(env, "readValue: memory must be a Uint8Array (not detached)");
  }
  if (napi_is_typedarray(env, argv[3], &is_typed) != NAPI_OK || !is_typed ||
      napi_get_typedarray_info(env, argv[3], &type, &span_slots, &span_data, &buffer,
                               &offset) != NAPI_OK ||
      type != NAPI_FLOAT64_ARRAY || span_slots < 2 || span_slots % 2 != 0 ||
      span_slots / 2 > MAX_SPANS || span_data == 0) {
    return fail(env, "readValue: spans must be a Float64Array of 1 to 65536 (offset, length) pairs");
  }
  if (napi_is_typedarray(env, argv[5], &is_typed) != NAPI_OK || !is_typed ||
      napi_get_typedarray_info(env, argv[5], &type, &result_slots, &result_data, &buffer,
                               &offset) != NAPI_OK ||
      type != NAPI_FLOAT64_ARRAY || result_slots < 3) {
    return fail(env, "readValue: result must be a Float64Array of at least 3");
  }
  unsigned count = (unsigned)(span_slots / 2);
  size_t path_bytes = path_length(env, argv[0]);
  size_t expected_bytes = path_length(env, argv[1]);
  if (path_bytes == 0 || expected_bytes == 0) {
    return fail(env, "readValue: path and expected must be strings of 1 to 4094 bytes");
  }
  /* The real path is compared with `expected` (+ " (deleted)"): more room shows a mismatch. */
  size_t actual_room = expected_bytes + 64;
  size_t head = sizeof(struct request) + count * sizeof(struct iovec);
  napi_value memory;
  void *raw = 0;
  if (napi_create_arraybuffer(env, head + path_bytes + 1 + expected_bytes + 1 + actual_room, &raw,
                              &memory) != NAPI_OK ||
      raw == 0) {
    return fail(env, "readValue: out of memory");
  }
  struct request *r = raw;
  r->path = (char *)raw + head;
  r->expected = r->path + path_bytes + 1;
  r->actual = r->expected + expected_bytes + 1;
  r->actual_room = actual_room;
  if (!copy_path(env, argv[0], r->path, path_bytes) ||
      !copy_path(env, argv[1], r->expected, expected_bytes)) {
    return fail(env, "readValue: path and expected must not hold a NUL");
  }
  if (napi_get_value_bool(env, argv[4], &r->exact) != NAPI_OK) {
    return fail(env, "readValue: exact must be a boolean");
  }
  /* A bounce memory: null, or a Uint8Array. */
  napi_valuetype bounce_type;
  void *bounce_data = 0;
  size_t bounce_length = 0;
  if (napi_typeof(env, argv[6], &bounce_type) != NAPI_OK) return 0;
  _Bool bounced = bounce_type != NAPI_NULL;
  if (bounced && (napi_is_typedarray(env, argv[6], &is_typed) != NAPI_OK || !is_typed ||
                  napi_get_typedarray_info(env, argv[6], &type, &bounce_length, &bounce_data,
                                           &buffer, &offset) != NAPI_OK ||
                  type != NAPI_UINT8_ARRAY || (bounce_data == 0 && bounce_length != 0))) {
    return fail(env, "readValue: bounce must be null or a Uint8Array (not detached)");
  }
  const double *spans = span_data;
  size_t total = 0;
  for (unsigned i = 0; i < count; i++) {
    double start = span_value(spans[2 * i], memory_length);
    double length = start < 0 ? -1 : span_value(spans[2 * i + 1], memory_length - (size_t)start);
    if (length < 0) return fail(env, "readValue: a span lies outside the memory");
    /* With a bounce memory: the offset, resolved against `memory` when copying out. */
    r->iov[i].base = bounced ? (void *)(uintptr_t)start : (char *)memory_data + (size_t)start;
    r->iov[i].length = (size_t)length;
    total += (size_t)length;
  }
  if (bounced && bounce_length < total) {
    return fail(env, "readValue: bounce must be at least as long as the spans");
  }
  r->view_count = count;
  r->total = total;
  r->memory_length = memory_length;
  r->bounce_iov.base = bounce_data;
  r->bounce_iov.length = total;
  napi_value promise, name;
  if (napi_create_string_utf8(env, "zarr:readValue", 14, &name) != NAPI_OK ||
      napi_create_async_work(env, 0, name, execute, complete, r, &r->work) != NAPI_OK) {
    return fail(env, "readValue: could not create the job");
  }
  if (napi_create_reference(env, memory, 1, &r->memory) != NAPI_OK ||
      napi_create_reference(env, argv[2], 1, &r->target) != NAPI_OK ||
      napi_create_reference(env, argv[5], 1, &r->result) != NAPI_OK ||
      (bounced && napi_create_reference(env, argv[6], 1, &r->bounce) != NAPI_OK) ||
      napi_create_promise(env, &r->deferred, &promise) != NAPI_OK ||
      napi_queue_async_work(env, r->work) != NAPI_OK) {
    /* Never queued: nothing will settle; drop what was made (a reference not made is 0). */
    if (r->memory) napi_delete_reference(env, r->memory);
    if (r->target) napi_delete_reference(env, r->target);
    if (r->result) napi_delete_reference(env, r->result);
    if (r->bounce) napi_delete_reference(env, r->bounce);
    napi_delete_async_work(env, r->work);
    return fail(env, "readValue: could not queue the read");
  }
  return promise;
}

__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env,
                                                                        napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "readValue", 9, read_value, 0, &fn) == NAPI_OK) {
    napi_set_named_property(env, exports, "readValue", fn);
  }
  return exports;
}
