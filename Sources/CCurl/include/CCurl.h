#ifndef NAL_CCURL_H
#define NAL_CCURL_H

// NAL's own declarations of the few libcurl functions CurlTransport uses. Nothing here includes libcurl's headers or
// links libcurl: the library FoundationNetworking already links (libcurl.so.4) is opened at run time, so a machine
// without libcurl's development files builds NAL. Handles are opaque pointers; numbers for options, infos and
// result codes live in Swift (CurlOption, CurlInfo, CurlCode). Every function but nal_curl_load must be called only
// after nal_curl_load returned NULL.

#include <stddef.h>
#include <stdint.h>

#include "CInflate.h"

/// Receives bytes from libcurl (body or header lines): returns how many it took; anything else stops the transfer.
typedef size_t (*nal_curl_data_callback)(char *bytes, size_t size, size_t count, void *context);
/// Gives libcurl up to size * count bytes of request body: returns how many it wrote, 0 at the end.
typedef size_t (*nal_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);
/// Moves the request body back to `offset` from `origin` (SEEK_SET) so that libcurl can send it again on a new
/// connection: 0 when done, 1 to fail the transfer, 2 when it cannot.
typedef int (*nal_curl_seek_callback)(void *context, int64_t offset, int origin);
/// Reports progress; non-zero stops the transfer.
typedef int (*nal_curl_progress_callback)(void *context, int64_t download_total, int64_t downloaded,
                                          int64_t upload_total, int64_t uploaded);

/// A finished transfer, as libcurl's multi interface reports it.
typedef struct nal_curl_done {
    void *easy;
    int result;
} nal_curl_done;

/// Opens libcurl once per process (the library named by the NAL_LIBCURL environment variable, else libcurl.so.4),
/// resolves every function below and initialises it. Returns NULL when it is ready, or a sentence saying what is
/// missing; the answer is the same on every call.
const char *nal_curl_load(void);
/// libcurl's version text, such as "libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 nghttp2/1.52.0".
const char *nal_curl_version(void);
/// Whether the loaded libcurl can speak HTTP/2.
int nal_curl_supports_http2(void);

void *nal_curl_easy_init(void);
void nal_curl_easy_cleanup(void *easy);
/// curl_easy_reset: every option back to libcurl's default, connections and caches kept.
void nal_curl_easy_reset(void *easy);
int nal_curl_easy_setopt_long(void *easy, int option, long value);
/// Notes, under `token` (not 0), when a server asks `easy`'s new connections for a client certificate that none was
/// configured for (OpenSSL's client certificate callback). 0, or libcurl's error; with another TLS library it does
/// nothing.
int nal_curl_watch_certificate_requests(void *easy, uintptr_t token);
/// Whether a server asked the transfer of `token` for a client certificate; forgets it.
int nal_curl_certificate_was_requested(uintptr_t token);
int nal_curl_easy_setopt_offset(void *easy, int option, int64_t value);
int nal_curl_easy_setopt_pointer(void *easy, int option, const void *value);
/// Sets a blob option (CURLOPT_*_BLOB) to a copy of `length` bytes at `data`.
int nal_curl_easy_setopt_blob(void *easy, int option, const void *data, size_t length);
int nal_curl_easy_setopt_data_callback(void *easy, int option, nal_curl_data_callback callback);
int nal_curl_easy_setopt_read_callback(void *easy, int option, nal_curl_read_callback callback);
int nal_curl_easy_setopt_progress_callback(void *easy, int option, nal_curl_progress_callback callback);
int nal_curl_easy_setopt_seek_callback(void *easy, int option, nal_curl_seek_callback callback);
/// Makes libcurl open the handle's sockets with SOCK_CLOEXEC, so that no child process inherits a connection.
int nal_curl_easy_open_sockets_closed_on_exec(void *easy);
int nal_curl_easy_pause(void *easy, int bitmask);
const char *nal_curl_easy_strerror(int code);

void *nal_curl_slist_append(void *list, const char *text);
void nal_curl_slist_free_all(void *list);

void *nal_curl_multi_init(void);
int nal_curl_multi_cleanup(void *multi);
int nal_curl_multi_setopt_long(void *multi, int option, long value);
int nal_curl_multi_add_handle(void *multi, void *easy);
int nal_curl_multi_remove_handle(void *multi, void *easy);
int nal_curl_multi_perform(void *multi, int *running);
int nal_curl_multi_poll(void *multi, int timeout_ms, int *ready);
/// libcurl's sentence for a multi interface's result code.
const char *nal_curl_multi_strerror(int code);
int nal_curl_multi_wakeup(void *multi);
/// Takes the next finished transfer; returns 0 when there is none.
int nal_curl_multi_next_done(void *multi, nal_curl_done *done);

/// Names the calling thread (at most 15 bytes) where `top -H`, `perf` and `/proc/<pid>/task/<tid>/comm` show it.
void nal_name_current_thread(const char *name);

// epoll, for the stub listener's loops: Swift's Glibc does not export <sys/epoll.h>. Level-triggered.

/// What one wait found ready on one descriptor (each flag 0 or 1).
typedef struct nal_epoll_ready {
    uint64_t token;
    int readable;
    int writable;
    int hung_up;
    int failed;
} nal_epoll_ready;

/// A close-on-exec epoll instance, or -1 (errno says why).
int nal_epoll_create(void);
/// Watches `descriptor` under `token` for reading and writing as asked (`adding`: 1 for a new one, 0 to change
/// one watched already): 0, or -1.
int nal_epoll_watch(int epoll, int descriptor, int adding, int read, int write, uint64_t token);
/// Stops watching `descriptor`: 0, or -1.
int nal_epoll_remove(int epoll, int descriptor);
/// Waits up to `milliseconds` (-1: without end) and fills up to `capacity` (at most 256) entries: how many, or -1.
int nal_epoll_wait(int epoll, nal_epoll_ready *ready, int capacity, int milliseconds);

#endif
