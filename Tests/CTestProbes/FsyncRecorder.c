// Records which files `fsync` flushed, so that a test can show a download reaches the disk before it is renamed into
// place: nothing else can observe an fsync short of a power cut. This definition takes the place of libc's `fsync` in
// the test executable (as the benchmark's allocation counter does for `malloc`) and makes the system call itself.
#include "TestProbes.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define NAL_UNDER_SANITIZER 1
#endif
#endif

#if defined(__linux__) && !defined(NAL_UNDER_SANITIZER)
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RECORDED_FILES 4096

static _Atomic unsigned long long devices[RECORDED_FILES];
static _Atomic unsigned long long inodes[RECORDED_FILES];
static _Atomic unsigned long long next_slot;

int fsync(int descriptor) {
    struct stat info;
    if (fstat(descriptor, &info) == 0) {
        unsigned long long slot = atomic_fetch_add(&next_slot, 1) % RECORDED_FILES;
        atomic_store(&devices[slot], (unsigned long long)info.st_dev);
        atomic_store(&inodes[slot], (unsigned long long)info.st_ino);
    }
    return (int)syscall(SYS_fsync, descriptor);
}

int nal_fsync_recorded(unsigned long long device, unsigned long long inode) {
    for (int slot = 0; slot < RECORDED_FILES; slot++) {
        if (atomic_load(&inodes[slot]) == inode && atomic_load(&devices[slot]) == device) return 1;
    }
    return 0;
}
#else
int nal_fsync_recorded(unsigned long long device, unsigned long long inode) {
    (void)device;
    (void)inode;
    return -1;
}
#endif
