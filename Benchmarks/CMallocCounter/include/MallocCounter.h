#ifndef NAL_MALLOC_COUNTER_H
#define NAL_MALLOC_COUNTER_H

/// Number of allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) since start.
long long nal_malloc_count(void);

/// Blocks allocated and not freed yet: a leak makes it grow call after call.
long long nal_live_allocations(void);

/// 1 when allocations are counted (glibc), 0 where the counter is not available.
int nal_malloc_counting_available(void);

/// Pauses counting (non-zero) or resumes it (0), for a measurement of CPU time that the counter's own atomic
/// additions would inflate. Blocks allocated or freed while paused are not counted, so `nal_live_allocations` means
/// nothing once counting has been paused.
void nal_malloc_counting_pause(int pause);

#endif
