/*
 * A Node-API addon with one function, adviseHugePages(buffer): asks Linux to
 * back a fresh ArrayBuffer with transparent huge pages (madvise MADV_HUGEPAGE)
 * where it can, as NumPy does for its large arrays. The first
 * write of a fresh 64 MiB array then takes 32 page faults instead of 16,384
 * (see docs/performance.md). Only a hint: the kernel may ignore it, and the
 * function reports whether the call succeeded.
 *
 * Freestanding (no libc): the system call is made directly, and the Node-API
 * functions are resolved from the Node process when it loads the addon, so one
 * binary serves glibc and musl systems alike. x86-64 Linux only.
 *
 * Built and checked by scripts/build-native.mjs (repository root).
 */

typedef unsigned long size_t;
typedef unsigned long uintptr_t;

/* Node-API (js_native_api.h, ABI-stable since N-API version 1). */
typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status;
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);
#define NAPI_OK 0

napi_status napi_get_cb_info(napi_env env, napi_callback_info info, size_t *argc,
                             napi_value *argv, napi_value *this_arg, void **data);
napi_status napi_is_arraybuffer(napi_env env, napi_value value, _Bool *result);
napi_status napi_get_arraybuffer_info(napi_env env, napi_value value, void **data,
                                      size_t *byte_length);
napi_status napi_get_boolean(napi_env env, _Bool value, napi_value *result);
napi_status napi_create_function(napi_env env, const char *utf8name, size_t length,
                                 napi_callback cb, void *data, napi_value *result);
napi_status napi_set_named_property(napi_env env, napi_value object, const char *utf8name,
                                    napi_value value);

#define BASE_PAGE_BYTES ((uintptr_t)4096) /* x86-64 */
#define SYS_MADVISE 28   /* x86-64 */
#define MADV_HUGEPAGE 14

static long madvise_hugepage(uintptr_t start, size_t length) {
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"((long)SYS_MADVISE), "D"(start), "S"(length), "d"((long)MADV_HUGEPAGE)
                   : "rcx", "r11", "memory");
  return result;
}

/* adviseHugePages(buffer: ArrayBuffer): boolean */
static napi_value advise_huge_pages(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  _Bool is_buffer = 0;
  void *data = 0;
  size_t length = 0;
  _Bool advised = 0;
  if (napi_get_cb_info(env, info, &argc, argv, 0, 0) == NAPI_OK && argc >= 1 &&
      napi_is_arraybuffer(env, argv[0], &is_buffer) == NAPI_OK && is_buffer &&
      napi_get_arraybuffer_info(env, argv[0], &data, &length) == NAPI_OK && data != 0) {
    /*
     * The pages the buffer lies on, whole: for a large allocation that is its
     * whole mapping, so that neighbouring advised arrays merge into one kernel
     * mapping instead of splitting theirs (the kernel backs only the 2 MiB-aligned
     * parts with huge pages). Advice never changes memory contents, so the
     * partial first and last pages may hold other data.
     */
    uintptr_t first = (uintptr_t)data;
    /* first + length + BASE_PAGE_BYTES - 1 must not wrap around. */
    if (length != 0 && length <= ~first && ~first - length >= BASE_PAGE_BYTES) {
      uintptr_t start = first & ~(BASE_PAGE_BYTES - 1);
      uintptr_t end = (first + length + BASE_PAGE_BYTES - 1) & ~(BASE_PAGE_BYTES - 1);
      advised = madvise_hugepage(start, end - start) == 0;
    }
  }
  napi_value result = 0;
  napi_get_boolean(env, advised, &result);
  return result;
}

__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env,
                                                                        napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "adviseHugePages", 15, advise_huge_pages, 0, &fn) == NAPI_OK) {
    napi_set_named_property(env, exports, "adviseHugePages", fn);
  }
  return exports;
}
