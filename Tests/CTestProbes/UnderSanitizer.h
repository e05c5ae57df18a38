#ifndef NAL_UNDER_SANITIZER_H
#define NAL_UNDER_SANITIZER_H

// Defines NAL_UNDER_SANITIZER when TSan or ASan replaces libc's allocator and entry points: the probes are then off.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define NAL_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define NAL_UNDER_SANITIZER 1
#endif

#endif
