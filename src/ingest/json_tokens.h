/* json_tokens.h: the one JSON tokenizer of the readers.
 *
 * Two halves. In memory: validating scanners that find where a value,
 * string or number ends in a byte range, walkers over the members of an
 * object and the elements of an array given as text, and a decoder of
 * string tokens; they never allocate. Streaming: ari_json_stream, a window
 * over an ari_input (or a memory buffer) that skips blanks and cuts one
 * complete value at a time (resumable across refills, so a long value is
 * scanned once), so that a reader holds the largest value, not the file.
 * The Chrome trace reader cuts each event with it; the Caliper reader pulls
 * its tokens through it.
 *
 * Strictness. Without flags the scanners accept what jansson accepts. With
 * ARI_JSON_CAUTIOUS they also refuse what a plain strtod/strtoll reading
 * might get wrong or jansson might decode differently (numbers of more than
 * 18 digits, exponents of more than 2 digits, \u0000 and surrogate escapes,
 * nesting deeper than 32): a reader's fast path uses it and leaves such
 * values to jansson.
 */
#ifndef ARIADNE_JSON_TOKENS_H
#define ARIADNE_JSON_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/input.h"
#include "util/error.h"

#define ARI_JSON_CAUTIOUS 1

/* ---- in memory ---- */

int ari_json_is_ws(char c);
const char *ari_json_skip_ws(const char *p, const char *end);
/* p at '"': the byte after the closing quote, NULL if the string is bad
 * (or, cautious, has an escape left to jansson). *plain: 1 without escapes. */
const char *ari_json_skip_string(const char *p, const char *end, int flags, int *plain);
/* p at a value's first byte: the byte after it, NULL if it is not valid. */
const char *ari_json_skip_value(const char *p, const char *end, int flags);

/* A member of an object given as text: the key as written (between its
 * quotes, escapes not decoded) and the value's text. */
typedef struct ari_json_member {
    const char *key, *value;
    size_t key_len, value_len;
} ari_json_member;

/* Walks the members of the object text[0..len): start with *pos = 0;
 * returns 1 and m for each member, 0 after the last (or at the first
 * thing that does not scan). */
int ari_json_member_next(const char *text, size_t len, int flags, size_t *pos, ari_json_member *m);
/* The same over the elements of an array: 1 and the element's text. */
int ari_json_element_next(const char *text, size_t len, int flags, size_t *pos, const char **value,
                          size_t *value_len);
/* The value of the last member named key (as jansson keeps duplicates) of
 * the object text: 1 and the value's text, 0 if there is none. */
int ari_json_member_get(const char *text, size_t len, const char *key, const char **value, size_t *value_len);
/* Decodes the string token t[0..n) (quotes included) into out (size bytes,
 * NUL-terminated, cut short if needed; n bytes always suffice); \u0000
 * becomes '?'. 0, or -1 if t is not a valid string token. */
int ari_json_string_decode(const char *t, size_t n, char *out, size_t size);
/* 1 and *out for a token that is an integer as jansson reads one (no
 * fraction, no exponent, within int64_t), else 0. */
int ari_json_integer(const char *t, size_t n, int64_t *out);

/* ---- streaming ---- */

typedef struct ari_json_stream {
    ari_input *in;          /* NULL for memory */
    const char *mem;
    size_t mem_len, mem_pos;
    const char *name;       /* for messages */
    size_t max_value;       /* the largest value a cut may hold */
    char *buf;
    size_t start, len, cap; /* live bytes are buf[start..len) */
    uint64_t base;          /* stream offset of buf[0] */
    int eof;
    int count_lines;        /* set to have ari_json_stream_line */
    uint64_t lines;         /* newlines in the bytes dropped so far */
} ari_json_stream;

/* Over an open input (the caller keeps it) or a memory buffer. */
void ari_json_stream_init(ari_json_stream *s, ari_input *in, const char *data, size_t len, const char *name,
                          size_t max_value);
void ari_json_stream_free(ari_json_stream *s);
/* Stream offset of buf[start] (the next unread byte). */
uint64_t ari_json_stream_offset(const ari_json_stream *s);
/* With count_lines set (before the first peek): the 1-based line of the
 * byte at `at`, a pointer into buf[0..len]. */
uint64_t ari_json_stream_line(const ari_json_stream *s, const char *at);
/* Bytes consumed so far, and the total, for progress (compressed bytes for
 * a file). */
uint64_t ari_json_stream_done(const ari_json_stream *s);
uint64_t ari_json_stream_total(const ari_json_stream *s);
/* Skips blanks; returns the next byte (not consumed), -1 at the end of the
 * input, -2 on error (err set). */
int ari_json_stream_peek(ari_json_stream *s, ari_error *err);
/* Finds the end of the JSON value at buf[start]: on success *vlen is its
 * length (the value stays at buf[start..start+vlen) until the next call).
 * With discard, the bytes are dropped while scanning (values nobody
 * needs). Returns 0, 1 if the input ended inside the value, -1 on error.
 * Only brackets and strings are tracked: the value itself is checked by
 * whoever parses it. */
int ari_json_stream_cut(ari_json_stream *s, size_t *vlen, int discard, ari_error *err);

#endif
