#ifndef NAL_CINFLATE_H
#define NAL_CINFLATE_H

// A gzip and deflate decoder on the zlib that libcurl links (libz.so.1), opened at run time like libcurl: no headers,
// no link step. CurlTransport decodes content codings itself so that it can tell a coding that ends early, which
// libcurl 7.88 hands over as complete.

#include <stddef.h>
#include <stdint.h>

/// What nal_inflate returns.
enum {
    /// Every byte given was used; more input is needed before the stream ends.
    nal_inflate_more = 0,
    /// The stream ended; `consumed` says how much of the input it used.
    nal_inflate_ended = 1,
    /// The output buffer is full; call again with the rest of the input.
    nal_inflate_output_full = 2,
    /// The input is not what its coding says.
    nal_inflate_bad_data = -1,
    /// zlib could not be loaded, or ran out of memory.
    nal_inflate_unavailable = -2,
};

/// Opens zlib once per process; NULL when it is ready, else why not (a sentence naming the library).
const char *nal_inflate_load(void);

/// A decoder for `gzip` (1) or `deflate` (0): a zlib stream, or a raw deflate stream as some servers send.
/// NULL when zlib is unavailable or out of memory.
void *nal_inflate_new(int gzip);
/// Decodes from `input` into `output`; `consumed` and `produced` say how much of each it used.
int nal_inflate(void *decoder, const uint8_t *input, size_t input_count, size_t *consumed, uint8_t *output,
                size_t output_capacity, size_t *produced);
/// Starts the next member of a gzip file made of several (RFC 1952 2.2), after nal_inflate_ended.
int nal_inflate_next_member(void *decoder);
/// zlib's message for the last failure, or NULL.
const char *nal_inflate_message(void *decoder);
void nal_inflate_free(void *decoder);

#endif
