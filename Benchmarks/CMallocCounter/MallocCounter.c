// Counts allocations by overriding the allocator entry points in the nal-bench executable and forwarding each
// call to glibc's internal implementation. Only nal-bench links this target.
#include <stdlib.h>

#include "MallocCounter.h"

// Sanitizers replace the allocator themselves; overriding malloc on top of them crashes at start-up
// (`swift test --sanitize=thread` builds this target too). Under a sanitizer, counting is reported unavailable.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define NAL_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define NAL_UNDER_SANITIZER 1
#endif

#if defined(__GLIBC__) && !defined(NAL_UNDER_SANITIZER)
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic long long allocations;
// Blocks allocated and not yet freed: what a leak makes grow, call after call.
static _Atomic long long live;
// Counting paused: a CPU measurement must not pay the counter's atomic additions, which contend between cores.
static _Atomic int paused;

static inline int counting(void) { return !atomic_load_explicit(&paused, memory_order_relaxed); }

static inline void count_one(void) {
    if (!counting()) return;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    void *result = __libc_realloc(pointer, size);
    if (!counting()) return result;
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    if (pointer == NULL && result != NULL) atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
    if (pointer != NULL && size == 0) atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
    return result;
}

void free(void *pointer) {
    if (pointer != NULL && counting()) atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

long long nal_malloc_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
long long nal_live_allocations(void) { return atomic_load_explicit(&live, memory_order_relaxed); }
int nal_malloc_counting_available(void) { return 1; }
void nal_malloc_counting_pause(int pause) { atomic_store_explicit(&paused, pause != 0, memory_order_relaxed); }
#else
long long nal_malloc_count(void) { return 0; }
long long nal_live_allocations(void) { return 0; }
int nal_malloc_counting_available(void) { return 0; }
void nal_malloc_counting_pause(int pause) { (void)pause; }
#endif
