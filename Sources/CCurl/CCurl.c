// Linux only: CurlTransport exists where FoundationNetworking does (SOCK_CLOEXEC and the two-argument
// pthread_setname_np are Linux's too). Elsewhere this file compiles to nothing.
#if defined(__linux__)
#define _GNU_SOURCE
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

// libcurl's calling conventions, declared in our words. curl_easy_setopt and curl_multi_setopt are variadic: they
// are called through variadic pointers here, so that each argument travels as the C ABI says, whatever its type.
typedef void *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(void *);
typedef void (*easy_reset_fn)(void *);
typedef int (*easy_setopt_fn)(void *, int, ...);
typedef int (*easy_pause_fn)(void *, int);
typedef const char *(*easy_strerror_fn)(int);
typedef const char *(*multi_strerror_fn)(int);
typedef void *(*slist_append_fn)(void *, const char *);
typedef void (*slist_free_all_fn)(void *);
typedef void *(*multi_init_fn)(void);
typedef int (*multi_cleanup_fn)(void *);
typedef int (*multi_setopt_fn)(void *, int, ...);
typedef int (*multi_handle_fn)(void *, void *);
typedef int (*multi_perform_fn)(void *, int *);
typedef int (*multi_poll_fn)(void *, void *, unsigned int, int, int *);
typedef int (*multi_wakeup_fn)(void *);
typedef void *(*multi_info_read_fn)(void *, int *);
typedef int (*global_init_fn)(long);
typedef char *(*version_fn)(void);
typedef void *(*version_info_fn)(int);

// The start of libcurl's CURLMsg: what finished, the easy handle, and (for a finished transfer) its result code in a
// union the size of a pointer.
struct message_layout {
    int kind;
    void *easy;
    union {
        void *unused;
        int result;
    } data;
};
enum { message_done = 1 };

// The start of libcurl's curl_version_info_data, up to its feature bits.
struct version_layout {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
};
enum { feature_http2 = 1 << 16 };

static struct {
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_setopt_fn easy_setopt;
    easy_pause_fn easy_pause;
    easy_strerror_fn easy_strerror;
    multi_strerror_fn multi_strerror;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    multi_init_fn multi_init;
    multi_cleanup_fn multi_cleanup;
    multi_setopt_fn multi_setopt;
    multi_handle_fn multi_add_handle;
    multi_handle_fn multi_remove_handle;
    multi_perform_fn multi_perform;
    multi_poll_fn multi_poll;
    multi_wakeup_fn multi_wakeup;
    multi_info_read_fn multi_info_read;
    version_fn version;
    version_info_fn version_info;
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512];
static int loaded;
// Read once, when libcurl is loaded: every transfer asks.
static int supports_http2;

static void *resolve(void *library, const char *name, const char *path) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL && load_failure[0] == 0) {
        snprintf(load_failure, sizeof load_failure,
                 "%s has no %s: CurlTransport needs libcurl 7.68 or later (curl_multi_poll and curl_multi_wakeup)",
                 path, name);
    }
    return symbol;
}

// Whether a server asked for a client certificate that none was configured for: OpenSSL calls the client
// certificate callback then, during the handshake, and the transfer that made the connection is noted here by its
// token. A token, not a pointer: a connection may outlive its transfer, and a renegotiation could ask later. Only
// when libcurl's TLS library is OpenSSL; elsewhere nothing is noted.
typedef int (*client_cert_cb_fn)(void *, void **, void **);
static struct {
    void (*set_client_cert_cb)(void *, client_cert_cb_fn);
    void *(*get_ssl_ctx)(const void *);
    int (*ctx_set_ex_data)(void *, int, void *);
    void *(*ctx_get_ex_data)(const void *, int);
    int ex_index;
} openssl;
enum { asked_slots = 256 };
static pthread_mutex_t asked_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t asked[asked_slots];
static unsigned asked_next;

static void load_openssl(void *library) {
    typedef int (*new_index_fn)(int, long, void *, void *, void *, void *);
    // Found through libcurl's handle: dlsym searches the libraries it depends on too.
    new_index_fn new_index = (new_index_fn)dlsym(library, "CRYPTO_get_ex_new_index");
    openssl.set_client_cert_cb = dlsym(library, "SSL_CTX_set_client_cert_cb");
    openssl.get_ssl_ctx = dlsym(library, "SSL_get_SSL_CTX");
    openssl.ctx_set_ex_data = dlsym(library, "SSL_CTX_set_ex_data");
    openssl.ctx_get_ex_data = dlsym(library, "SSL_CTX_get_ex_data");
    // CRYPTO_EX_INDEX_SSL_CTX is 1 from OpenSSL 1.1 on, the first with OpenSSL_version_num (1.0.2 numbered it 2).
    int modern = dlsym(library, "OpenSSL_version_num") != NULL;
    openssl.ex_index = new_index && modern ? new_index(1, 0, NULL, NULL, NULL, NULL) : -1;
    if (openssl.ex_index < 0 || !openssl.set_client_cert_cb || !openssl.get_ssl_ctx || !openssl.ctx_set_ex_data
        || !openssl.ctx_get_ex_data) {
        openssl.set_client_cert_cb = NULL;
    }
}

// OpenSSL asks for a certificate to send; none is configured (or it would not ask). 0: send none, as without us.
static int note_certificate_request(void *ssl, void **certificate, void **key) {
    (void)certificate;
    (void)key;
    void *context = openssl.get_ssl_ctx(ssl);
    uintptr_t token = context ? (uintptr_t)openssl.ctx_get_ex_data(context, openssl.ex_index) : 0;
    if (token != 0) {
        pthread_mutex_lock(&asked_lock);
        asked[asked_next++ % asked_slots] = token;
        pthread_mutex_unlock(&asked_lock);
    }
    return 0;
}

// libcurl's CURLOPT_SSL_CTX_FUNCTION: called with each new connection's SSL_CTX before its handshake.
static int watch_certificate_requests(void *easy, void *context, void *token) {
    (void)easy;
    if (openssl.set_client_cert_cb && context) {
        openssl.ctx_set_ex_data(context, openssl.ex_index, token);
        openssl.set_client_cert_cb(context, note_certificate_request);
    }
    return 0;
}

int nal_curl_watch_certificate_requests(void *easy, uintptr_t token) {
    if (!openssl.set_client_cert_cb) return 0;
    // CURLOPT_SSL_CTX_FUNCTION, CURLOPT_SSL_CTX_DATA.
    int code = api.easy_setopt(easy, 20108, watch_certificate_requests);
    if (code != 0) return code;
    return api.easy_setopt(easy, 10109, (void *)token);
}

int nal_curl_certificate_was_requested(uintptr_t token) {
    int found = 0;
    pthread_mutex_lock(&asked_lock);
    for (unsigned slot = 0; slot < asked_slots; slot++) {
        if (asked[slot] == token) {
            asked[slot] = 0;
            found = 1;
        }
    }
    pthread_mutex_unlock(&asked_lock);
    return found;
}

static void load(void) {
    // secure_getenv: a set-user-ID program never loads a library its caller names.
    const char *path = secure_getenv("NAL_LIBCURL");
    if (path == NULL || path[0] == 0) path = "libcurl.so.4";
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "libcurl could not be loaded from %s: %s", path,
                 reason ? reason : "unknown reason");
        return;
    }
    global_init_fn global_init = (global_init_fn)resolve(library, "curl_global_init", path);
    api.easy_init = (easy_init_fn)resolve(library, "curl_easy_init", path);
    api.easy_cleanup = (easy_cleanup_fn)resolve(library, "curl_easy_cleanup", path);
    api.easy_reset = (easy_reset_fn)resolve(library, "curl_easy_reset", path);
    api.easy_setopt = (easy_setopt_fn)resolve(library, "curl_easy_setopt", path);
    api.easy_pause = (easy_pause_fn)resolve(library, "curl_easy_pause", path);
    api.easy_strerror = (easy_strerror_fn)resolve(library, "curl_easy_strerror", path);
    api.multi_strerror = (multi_strerror_fn)resolve(library, "curl_multi_strerror", path);
    api.slist_append = (slist_append_fn)resolve(library, "curl_slist_append", path);
    api.slist_free_all = (slist_free_all_fn)resolve(library, "curl_slist_free_all", path);
    api.multi_init = (multi_init_fn)resolve(library, "curl_multi_init", path);
    api.multi_cleanup = (multi_cleanup_fn)resolve(library, "curl_multi_cleanup", path);
    api.multi_setopt = (multi_setopt_fn)resolve(library, "curl_multi_setopt", path);
    api.multi_add_handle = (multi_handle_fn)resolve(library, "curl_multi_add_handle", path);
    api.multi_remove_handle = (multi_handle_fn)resolve(library, "curl_multi_remove_handle", path);
    api.multi_perform = (multi_perform_fn)resolve(library, "curl_multi_perform", path);
    api.multi_poll = (multi_poll_fn)resolve(library, "curl_multi_poll", path);
    api.multi_wakeup = (multi_wakeup_fn)resolve(library, "curl_multi_wakeup", path);
    api.multi_info_read = (multi_info_read_fn)resolve(library, "curl_multi_info_read", path);
    api.version = (version_fn)resolve(library, "curl_version", path);
    api.version_info = (version_info_fn)resolve(library, "curl_version_info", path);
    if (load_failure[0] != 0) return;
    // CURL_GLOBAL_ALL. Reference-counted in libcurl, so FoundationNetworking's own call is unaffected.
    int status = global_init(3);
    if (status != 0) {
        snprintf(load_failure, sizeof load_failure, "curl_global_init failed with code %d", status);
        return;
    }
    // The age asked for is the oldest, CURLVERSION_FIRST (0): the fields read here are in every age.
    const struct version_layout *info = api.version_info(0);
    supports_http2 = info != NULL && (info->features & feature_http2) != 0;
    load_openssl(library);
    loaded = 1;
}

const char *nal_curl_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_failure;
}

const char *nal_curl_version(void) { return api.version(); }

int nal_curl_supports_http2(void) { return supports_http2; }

void *nal_curl_easy_init(void) { return api.easy_init(); }
void nal_curl_easy_cleanup(void *easy) { api.easy_cleanup(easy); }
void nal_curl_easy_reset(void *easy) { api.easy_reset(easy); }
int nal_curl_easy_setopt_long(void *easy, int option, long value) { return api.easy_setopt(easy, option, value); }
int nal_curl_easy_setopt_offset(void *easy, int option, int64_t value) {
    return api.easy_setopt(easy, option, value);
}
// libcurl's struct curl_blob, and CURL_BLOB_COPY: libcurl keeps a copy.
struct nal_curl_blob {
    void *data;
    size_t len;
    unsigned int flags;
};
int nal_curl_easy_setopt_blob(void *easy, int option, const void *data, size_t length) {
    struct nal_curl_blob blob = {(void *)data, length, 1};
    return api.easy_setopt(easy, option, &blob);
}
int nal_curl_easy_setopt_pointer(void *easy, int option, const void *value) {
    return api.easy_setopt(easy, option, value);
}
int nal_curl_easy_setopt_data_callback(void *easy, int option, nal_curl_data_callback callback) {
    return api.easy_setopt(easy, option, callback);
}
int nal_curl_easy_setopt_read_callback(void *easy, int option, nal_curl_read_callback callback) {
    return api.easy_setopt(easy, option, callback);
}
int nal_curl_easy_setopt_progress_callback(void *easy, int option, nal_curl_progress_callback callback) {
    return api.easy_setopt(easy, option, callback);
}
int nal_curl_easy_setopt_seek_callback(void *easy, int option, nal_curl_seek_callback callback) {
    return api.easy_setopt(easy, option, callback);
}
// libcurl's struct curl_sockaddr: what it asks a socket for.
struct nal_curl_sockaddr {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;
};

// CURLOPT_OPENSOCKETFUNCTION: the socket libcurl would make, closed on exec. libcurl's own sockets are inherited by
// every child process the program starts, which keeps a connection libcurl closed open until the child exits.
static int open_socket_closed_on_exec(void *context, int purpose, struct nal_curl_sockaddr *address) {
    (void)context;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

int nal_curl_easy_open_sockets_closed_on_exec(void *easy) {
    return api.easy_setopt(easy, 20163, open_socket_closed_on_exec);
}

int nal_curl_easy_pause(void *easy, int bitmask) { return api.easy_pause(easy, bitmask); }
const char *nal_curl_easy_strerror(int code) { return api.easy_strerror(code); }

void *nal_curl_slist_append(void *list, const char *text) { return api.slist_append(list, text); }
void nal_curl_slist_free_all(void *list) { api.slist_free_all(list); }

void *nal_curl_multi_init(void) { return api.multi_init(); }
int nal_curl_multi_cleanup(void *multi) { return api.multi_cleanup(multi); }
int nal_curl_multi_setopt_long(void *multi, int option, long value) {
    return api.multi_setopt(multi, option, value);
}
int nal_curl_multi_add_handle(void *multi, void *easy) { return api.multi_add_handle(multi, easy); }
int nal_curl_multi_remove_handle(void *multi, void *easy) { return api.multi_remove_handle(multi, easy); }
int nal_curl_multi_perform(void *multi, int *running) { return api.multi_perform(multi, running); }
int nal_curl_multi_poll(void *multi, int timeout_ms, int *ready) {
    return api.multi_poll(multi, NULL, 0, timeout_ms, ready);
}
int nal_curl_multi_wakeup(void *multi) { return api.multi_wakeup(multi); }
const char *nal_curl_multi_strerror(int code) { return api.multi_strerror(code); }

int nal_curl_multi_next_done(void *multi, nal_curl_done *done) {
    int waiting = 0;
    const struct message_layout *message;
    while ((message = api.multi_info_read(multi, &waiting)) != NULL) {
        if (message->kind != message_done) continue;
        done->easy = message->easy;
        done->result = message->data.result;
        return 1;
    }
    return 0;
}

// Names the calling thread as the system shows it (at most 15 bytes); a GNU extension, hence here rather than in Swift.
void nal_name_current_thread(const char *name) { (void)pthread_setname_np(pthread_self(), name); }

int nal_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int nal_epoll_watch(int epoll, int descriptor, int adding, int read, int write, uint64_t token) {
    struct epoll_event event = {0};
    event.events = (read ? EPOLLIN : 0) | (write ? EPOLLOUT : 0);
    event.data.u64 = token;
    return epoll_ctl(epoll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, descriptor, &event);
}

int nal_epoll_remove(int epoll, int descriptor) {
    struct epoll_event unused = {0};
    return epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &unused);
}

int nal_epoll_wait(int epoll, nal_epoll_ready *ready, int capacity, int milliseconds) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    if (capacity < 1) return 0;
    int count = epoll_wait(epoll, events, capacity, milliseconds);
    for (int index = 0; index < count; index++) {
        uint32_t flags = events[index].events;
        ready[index].token = events[index].data.u64;
        ready[index].readable = (flags & EPOLLIN) != 0;
        ready[index].writable = (flags & EPOLLOUT) != 0;
        ready[index].hung_up = (flags & EPOLLHUP) != 0;
        ready[index].failed = (flags & EPOLLERR) != 0;
    }
    return count;
}

#endif
