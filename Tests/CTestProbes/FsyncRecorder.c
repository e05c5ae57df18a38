// Records which files `fsync` flushed, and under which name, so that a test can show a download reaches the disk
// before it is renamed into place: nothing else can observe an fsync short of a power cut. This definition takes the
// place of libc's `fsync` in the test executable (as the benchmark's allocation counter does for `malloc`) and makes
// the system call itself.
#include "TestProbes.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc

#include "UnderSanitizer.h"

#if defined(__linux__) && !defined(NAL_UNDER_SANITIZER)
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RECORDED_FILES 4096
#define RECORDED_PATH 512

struct synced_file {
    unsigned long long device;
    unsigned long long inode;
    char path[RECORDED_PATH];
};

static struct synced_file synced[RECORDED_FILES];
static unsigned long long next_slot;
static pthread_mutex_t synced_lock = PTHREAD_MUTEX_INITIALIZER;

int fsync(int descriptor) {
    struct stat info;
    char link[64];
    char path[RECORDED_PATH] = {0};
    snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (fstat(descriptor, &info) == 0 && length > 0) {
        pthread_mutex_lock(&synced_lock);
        struct synced_file *slot = &synced[next_slot++ % RECORDED_FILES];
        slot->device = (unsigned long long)info.st_dev;
        slot->inode = (unsigned long long)info.st_ino;
        memcpy(slot->path, path, sizeof path);
        pthread_mutex_unlock(&synced_lock);
    }
    return (int)syscall(SYS_fsync, descriptor);
}

int nal_fsync_recorded(unsigned long long device, unsigned long long inode, char *path, int capacity) {
    int found = 0;
    pthread_mutex_lock(&synced_lock);
    // The latest record of the file wins: an inode of a deleted file may have been reused.
    for (unsigned long long back = 1; back <= RECORDED_FILES && back <= next_slot; back++) {
        struct synced_file *slot = &synced[(next_slot - back) % RECORDED_FILES];
        if (slot->device == device && slot->inode == inode) {
            if (capacity > 0) {
                strncpy(path, slot->path, (size_t)capacity - 1);
                path[capacity - 1] = 0;
            }
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&synced_lock);
    return found;
}
#else
int nal_fsync_recorded(unsigned long long device, unsigned long long inode, char *path, int capacity) {
    (void)device;
    (void)inode;
    if (capacity > 0) path[0] = 0;
    return -1;
}
#endif
