#ifndef NAL_TEST_PROBES_H
#define NAL_TEST_PROBES_H

/// Bytes the allocator has handed out and not had back (glibc's `mallinfo2().uordblks`); -1 where unknown.
long long nal_heap_bytes_in_use(void);

/// The same, with the blocks glibc maps on their own (`hblkhd`: allocations past its mmap threshold, which moves with
/// the program's frees); -1 where unknown.
long long nal_allocated_bytes(void);

/// Whether `fsync` was called, in this process, on the file with this device and inode number (among the last 4,096
/// files synced): 1, with the path the file had when it was synced in `path`; 0 when it was not; -1 where `fsync` is
/// not recorded (not Linux, or under a sanitizer).
int nal_fsync_recorded(unsigned long long device, unsigned long long inode, char *path, int capacity);

#endif
