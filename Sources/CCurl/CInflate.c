// Linux only, as the rest of this target.
#if defined(__linux__)
#define _GNU_SOURCE
#include "CInflate.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// zlib's z_stream, as its ABI has defined it since 1.0: declared in our words.
typedef struct {
    const uint8_t *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    uint8_t *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} zstream;

typedef int (*inflate_init2_fn)(zstream *, int, const char *, int);
typedef int (*inflate_fn)(zstream *, int);
typedef int (*inflate_end_fn)(zstream *);
typedef int (*inflate_reset_fn)(zstream *);
typedef const char *(*zlib_version_fn)(void);

enum { z_ok = 0, z_stream_end = 1, z_need_dict = 2, z_buf_error = -5, z_no_flush = 0 };
// 15-bit window; +32 reads a zlib or a gzip header, whichever comes; negative is raw deflate.
enum { window_auto = 15 + 32, window_raw = -15 };

static struct {
    inflate_init2_fn init2;
    inflate_fn inflate;
    inflate_end_fn end;
    inflate_reset_fn reset;
    const char *version;
} zlib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[256];
static int loaded;

static void load(void) {
    void *library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "zlib could not be loaded from libz.so.1: %s",
                 reason ? reason : "unknown reason");
        return;
    }
    zlib.init2 = (inflate_init2_fn)dlsym(library, "inflateInit2_");
    zlib.inflate = (inflate_fn)dlsym(library, "inflate");
    zlib.end = (inflate_end_fn)dlsym(library, "inflateEnd");
    zlib.reset = (inflate_reset_fn)dlsym(library, "inflateReset");
    zlib_version_fn version = (zlib_version_fn)dlsym(library, "zlibVersion");
    if (!zlib.init2 || !zlib.inflate || !zlib.end || !zlib.reset || !version) {
        snprintf(load_failure, sizeof load_failure,
                 "libz.so.1 lacks one of inflateInit2_, inflate, inflateEnd, inflateReset and zlibVersion");
        return;
    }
    zlib.version = version();
    loaded = 1;
}

const char *nal_inflate_load(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_failure;
}

struct decoder {
    zstream stream;
    int gzip;
    // "deflate" is a zlib stream (RFC 9110), or a raw deflate stream as many servers send it: told apart by its first
    // two bytes, held here until both came (a server may send one at a time).
    int decided;
    unsigned char held[2];
    unsigned int held_count;
};

static int start(struct decoder *decoder, int raw) {
    memset(&decoder->stream, 0, sizeof decoder->stream);
    int window = raw ? window_raw : window_auto;
    return zlib.init2(&decoder->stream, window, zlib.version, (int)sizeof(zstream)) == z_ok;
}

void *nal_inflate_new(int gzip) {
    if (nal_inflate_load() != NULL) return NULL;
    struct decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->gzip = gzip;
    if (gzip) {
        if (!start(decoder, 0)) {
            free(decoder);
            return NULL;
        }
        decoder->decided = 1;
    }
    return decoder;
}

// One call of zlib's inflate over what it is given: how much it used and made, and its status as nal_inflate's.
static int run(struct decoder *decoder, const uint8_t *input, size_t input_count, size_t *consumed, uint8_t *output,
               size_t output_capacity, size_t *produced) {
    // zlib counts in unsigned int: a larger buffer is simply used in part, and the caller comes back for the rest.
    unsigned int in = input_count > 0x40000000u ? 0x40000000u : (unsigned int)input_count;
    unsigned int out = output_capacity > 0x40000000u ? 0x40000000u : (unsigned int)output_capacity;
    decoder->stream.next_in = input;
    decoder->stream.avail_in = in;
    decoder->stream.next_out = output;
    decoder->stream.avail_out = out;
    int status = zlib.inflate(&decoder->stream, z_no_flush);
    *consumed = in - decoder->stream.avail_in;
    *produced = out - decoder->stream.avail_out;
    switch (status) {
    case z_stream_end:
        return nal_inflate_ended;
    case z_ok:
    case z_buf_error:
        return decoder->stream.avail_out == 0 ? nal_inflate_output_full : nal_inflate_more;
    case z_need_dict:
    default:
        return nal_inflate_bad_data;
    }
}

int nal_inflate(void *opaque, const uint8_t *input, size_t input_count, size_t *consumed, uint8_t *output,
                size_t output_capacity, size_t *produced) {
    struct decoder *decoder = opaque;
    *consumed = 0;
    *produced = 0;
    if (!decoder->decided) {
        while (decoder->held_count < 2 && *consumed < input_count) {
            decoder->held[decoder->held_count++] = input[(*consumed)++];
        }
        if (decoder->held_count < 2) return nal_inflate_more;
        // A zlib header: compression method 8, and the two bytes a multiple of 31 (RFC 1950 2.2).
        unsigned int cmf = decoder->held[0], flg = decoder->held[1];
        int zlib_wrapped = (cmf & 0x0f) == 8 && ((cmf << 8) | flg) % 31 == 0;
        if (!start(decoder, !zlib_wrapped)) return nal_inflate_unavailable;
        decoder->decided = 1;
        size_t used = 0, made = 0;
        int status = run(decoder, decoder->held, 2, &used, output, output_capacity, &made);
        *produced = made;
        // Two bytes of deflate never fill a caller's output: zlib takes both, unless they end or break the stream.
        if (status == nal_inflate_bad_data || status == nal_inflate_ended) return status;
        if (used < 2) return nal_inflate_bad_data;
        size_t more_used = 0, more_made = 0;
        status = run(decoder, input + *consumed, input_count - *consumed, &more_used, output + made,
                     output_capacity - made, &more_made);
        *consumed += more_used;
        *produced += more_made;
        return status;
    }
    return run(decoder, input, input_count, consumed, output, output_capacity, produced);
}

int nal_inflate_next_member(void *opaque) {
    struct decoder *decoder = opaque;
    return zlib.reset(&decoder->stream) == z_ok;
}

const char *nal_inflate_message(void *opaque) {
    struct decoder *decoder = opaque;
    return decoder->stream.msg;
}

void nal_inflate_free(void *opaque) {
    struct decoder *decoder = opaque;
    if (decoder == NULL) return;
    if (decoder->decided) zlib.end(&decoder->stream);
    free(decoder);
}
#endif
