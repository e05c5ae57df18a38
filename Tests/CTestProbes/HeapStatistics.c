// The heap's size in use, for tests that show a long-running loop keeps no memory. Swift's Glibc module does not
// export <malloc.h>, hence this file.
#include "TestProbes.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc

// A sanitizer's allocator bypasses glibc's arenas, which would then look flat whatever the code does.
#include "UnderSanitizer.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && !defined(NAL_UNDER_SANITIZER)
#include <malloc.h>

long long nal_heap_bytes_in_use(void) { return (long long)mallinfo2().uordblks; }
long long nal_allocated_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#else
long long nal_heap_bytes_in_use(void) { return -1; }
long long nal_allocated_bytes(void) { return -1; }
#endif
