#ifndef NAL_HEAP_STATISTICS_H
#define NAL_HEAP_STATISTICS_H

/// Bytes the allocator has handed out and not had back (glibc's `mallinfo2().uordblks`); -1 where unknown.
long long nal_heap_bytes_in_use(void);

#endif
