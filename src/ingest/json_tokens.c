/* json_tokens.c: the readers' JSON tokenizer (see json_tokens.h): the
 * in-memory scanners and walkers, then the streaming window. */
#include "ingest/json_tokens.h"

#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define CAUTIOUS_DEPTH 32
#define MAX_DEPTH 2048 /* jansson's own limit */
#define CHUNK ((size_t)1 << 20)

/* ---- in memory ---- */

int ari_json_is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *ari_json_skip_ws(const char *p, const char *end)
{
    while (p < end && ari_json_is_ws(*p))
        p++;
    return p;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), 0 if bad. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    int n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || p[0] > 0xf4 || end - p < n)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
        (p[0] == 0xf4 && p[1] >= 0x90))
        return 0; /* overlong, surrogate, beyond U+10FFFF */
    return n;
}

static unsigned hex4(const char *p)
{
    return (unsigned)strtoul((char[5]){p[0], p[1], p[2], p[3], 0}, NULL, 16);
}

/* p at a backslash: the byte after the escape, NULL if bad. */
static const char *skip_escape(const char *p, const char *end, int flags)
{
    if (end - p < 2)
        return NULL;
    char e = p[1];
    if (e != 'u')
        return e && strchr("\"\\/bfnrt", e) ? p + 2 : NULL;
    if (end - p < 6 || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) || !is_hex(p[5]))
        return NULL;
    unsigned v = hex4(p + 2);
    if ((flags & ARI_JSON_CAUTIOUS) && (v == 0 || (v >= 0xd800 && v <= 0xdfff)))
        return NULL; /* NUL and surrogates: jansson decides */
    return p + 6;
}

const char *ari_json_skip_string(const char *p, const char *end, int flags, int *plain)
{
    *plain = 1;
    for (p++; p < end;) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            *plain = 0;
            if (!(p = skip_escape(p, end, flags)))
                return NULL;
        } else if (c >= 0x80) {
            int n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
            if (!n)
                return NULL;
            p += n;
        } else {
            p++;
        }
    }
    return NULL;
}

static const char *skip_digits(const char *p, const char *end, int *count)
{
    const char *q = p;
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    *count = (int)(q - p);
    return q;
}

/* JSON number grammar; cautious: NULL where jansson might overflow. */
static const char *skip_number(const char *p, const char *end, int flags)
{
    int n, cautious = flags & ARI_JSON_CAUTIOUS;
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9')
        return NULL;
    p = skip_digits(p, end, &n);
    if (n == 0 || (cautious && n > 18))
        return NULL;
    if (p < end && *p == '.') {
        p = skip_digits(p + 1, end, &n);
        if (n == 0)
            return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        p = skip_digits(p, end, &n);
        if (n == 0 || (cautious && n > 2))
            return NULL;
    }
    return p;
}

static const char *skip_literal(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

static const char *skip_value(const char *p, const char *end, int flags, int depth);

/* An object or array: the byte after its close, NULL if invalid. */
static const char *skip_container(const char *p, const char *end, int flags, int depth, char close)
{
    if (depth > ((flags & ARI_JSON_CAUTIOUS) ? CAUTIOUS_DEPTH : MAX_DEPTH))
        return NULL;
    p = ari_json_skip_ws(p + 1, end);
    if (p < end && *p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            int plain;
            if (p >= end || *p != '"' || !(p = ari_json_skip_string(p, end, flags, &plain)))
                return NULL;
            p = ari_json_skip_ws(p, end);
            if (p >= end || *p != ':')
                return NULL;
            p = ari_json_skip_ws(p + 1, end);
        }
        if (!(p = skip_value(p, end, flags, depth + 1)))
            return NULL;
        p = ari_json_skip_ws(p, end);
        if (p < end && *p == close)
            return p + 1;
        if (p >= end || *p != ',')
            return NULL;
        p = ari_json_skip_ws(p + 1, end);
    }
}

static const char *skip_value(const char *p, const char *end, int flags, int depth)
{
    if (p >= end)
        return NULL;
    int plain;
    switch (*p) {
    case '"': return ari_json_skip_string(p, end, flags, &plain);
    case '{': return skip_container(p, end, flags, depth, '}');
    case '[': return skip_container(p, end, flags, depth, ']');
    case 't': return skip_literal(p, end, "true");
    case 'f': return skip_literal(p, end, "false");
    case 'n': return skip_literal(p, end, "null");
    default: return (*p == '-' || (*p >= '0' && *p <= '9')) ? skip_number(p, end, flags) : NULL;
    }
}

const char *ari_json_skip_value(const char *p, const char *end, int flags)
{
    return skip_value(p, end, flags, 1);
}

int ari_json_member_next(const char *text, size_t len, int flags, size_t *pos, ari_json_member *m)
{
    const char *end = text + len, *p = ari_json_skip_ws(text + *pos, end);
    if (p < end && (*p == '{' || *p == ','))
        p = ari_json_skip_ws(p + 1, end);
    if (p >= end || *p != '"')
        return 0;
    int plain;
    const char *k = p;
    if (!(p = ari_json_skip_string(p, end, flags, &plain)))
        return 0;
    m->key = k + 1;
    m->key_len = (size_t)(p - k - 2);
    p = ari_json_skip_ws(p, end);
    if (p >= end || *p != ':')
        return 0;
    const char *v = ari_json_skip_ws(p + 1, end);
    if (!(p = ari_json_skip_value(v, end, flags)))
        return 0;
    m->value = v;
    m->value_len = (size_t)(p - v);
    *pos = (size_t)(p - text);
    return 1;
}

int ari_json_element_next(const char *text, size_t len, int flags, size_t *pos, const char **value,
                          size_t *value_len)
{
    const char *end = text + len, *p = ari_json_skip_ws(text + *pos, end);
    if (p < end && (*p == '[' || *p == ','))
        p = ari_json_skip_ws(p + 1, end);
    if (p >= end || *p == ']')
        return 0;
    const char *v = p;
    if (!(p = ari_json_skip_value(v, end, flags)))
        return 0;
    *value = v;
    *value_len = (size_t)(p - v);
    *pos = (size_t)(p - text);
    return 1;
}

int ari_json_member_get(const char *text, size_t len, const char *key, const char **value, size_t *value_len)
{
    size_t pos = 0, klen = strlen(key);
    ari_json_member m;
    int found = 0;
    if (!text || len == 0 || *ari_json_skip_ws(text, text + len) != '{')
        return 0;
    while (ari_json_member_next(text, len, 0, &pos, &m)) {
        char k[256];
        if (ari_json_string_decode(m.key - 1, m.key_len + 2, k, sizeof k) == 0 && strlen(k) == klen &&
            memcmp(k, key, klen) == 0) {
            *value = m.value;
            *value_len = m.value_len;
            found = 1;
        }
    }
    return found;
}

/* Appends the UTF-8 of code point cp to out[*o..size-1). */
static void put_utf8(char *out, size_t size, size_t *o, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    if (*o + n < size) {
        memcpy(out + *o, b, n);
        *o += n;
    }
}

/* The code point of the \u escape at p (a surrogate pair counts as one);
 * *used: the bytes it took. */
static unsigned escaped_code_point(const char *p, const char *end, size_t *used)
{
    unsigned cp = hex4(p + 2);
    *used = 6;
    if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
        unsigned lo = hex4(p + 8);
        if (lo >= 0xdc00 && lo < 0xe000) {
            *used = 12;
            return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
    }
    return cp;
}

int ari_json_string_decode(const char *t, size_t n, char *out, size_t size)
{
    int plain;
    const char *end = t + n;
    if (size == 0 || n < 2 || *t != '"' || ari_json_skip_string(t, end, 0, &plain) != end)
        return -1;
    size_t o = 0;
    for (const char *p = t + 1; p < end - 1;) {
        if (*p != '\\') {
            if (o + 1 < size)
                out[o++] = *p;
            p++;
            continue;
        }
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *e = strchr(from, p[1]);
        if (p[1] != 'u' && e) {
            if (o + 1 < size)
                out[o++] = to[e - from];
            p += 2;
            continue;
        }
        size_t used;
        unsigned cp = escaped_code_point(p, end, &used);
        put_utf8(out, size, &o, cp ? cp : '?'); /* no NUL inside a C string */
        p += used;
    }
    out[o] = '\0';
    return 0;
}

int ari_json_integer(const char *t, size_t n, int64_t *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf || !(*t == '-' || (*t >= '0' && *t <= '9')) || memchr(t, '.', n) ||
        memchr(t, 'e', n) || memchr(t, 'E', n))
        return 0;
    memcpy(buf, t, n);
    buf[n] = '\0';
    char *stop;
    long long v = strtoll(buf, &stop, 10);
    if (*stop)
        return 0;
    *out = v;
    return 1;
}

/* ---- streaming ---- */

void ari_json_stream_init(ari_json_stream *s, ari_input *in, const char *data, size_t len, const char *name,
                          size_t max_value)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->mem = data;
    s->mem_len = len;
    s->name = name;
    s->max_value = max_value;
}

void ari_json_stream_free(ari_json_stream *s)
{
    free(s->buf);
    s->buf = NULL;
    s->cap = s->len = s->start = 0;
}

uint64_t ari_json_stream_offset(const ari_json_stream *s)
{
    return s->base + s->start;
}

uint64_t ari_json_stream_done(const ari_json_stream *s)
{
    return s->in ? ari_input_bytes_read(s->in) : s->mem_pos;
}

uint64_t ari_json_stream_total(const ari_json_stream *s)
{
    return s->in ? ari_input_total_bytes(s->in) : s->mem_len;
}

static uint64_t count_newlines(const char *p, size_t n)
{
    uint64_t k = 0;
    for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        k++;
    return k;
}

uint64_t ari_json_stream_line(const ari_json_stream *s, const char *at)
{
    return 1 + s->lines + (s->buf ? count_newlines(s->buf, (size_t)(at - s->buf)) : 0);
}

/* Room for one more chunk after buf[len]. */
static int make_room(ari_json_stream *s, ari_error *err)
{
    if (s->cap - s->len >= CHUNK)
        return 0;
    if (s->len > s->max_value)
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: offset %llu: a value larger than %zu MiB", s->name,
                             (unsigned long long)s->base, s->max_value >> 20);
    if (ari_vec_reserve((void **)&s->buf, &s->cap, s->len + CHUNK, 1) < 0)
        return ari_error_set(err, ARI_E_NOMEM, "out of memory");
    return 0;
}

/* Appends more input after buf[len]; drops buf[0..keep) first. Returns 1
 * if bytes were added, 0 at the end, -1 on error. */
static int fill(ari_json_stream *s, size_t keep, ari_error *err)
{
    if (keep > 0) {
        if (s->count_lines)
            s->lines += count_newlines(s->buf, keep);
        memmove(s->buf, s->buf + keep, s->len - keep);
        s->len -= keep;
        s->start -= keep;
        s->base += keep;
    }
    if (s->eof)
        return 0;
    if (make_room(s, err) < 0)
        return -1;
    size_t room = s->cap - s->len;
    long got;
    if (s->in) {
        got = ari_input_read(s->in, s->buf + s->len, room, err);
        if (got < 0)
            return -1;
    } else {
        got = (long)(s->mem_len - s->mem_pos < room ? s->mem_len - s->mem_pos : room);
        memcpy(s->buf + s->len, s->mem + s->mem_pos, (size_t)got);
        s->mem_pos += (size_t)got;
    }
    if (got == 0) {
        s->eof = 1;
        return 0;
    }
    if (memchr(s->buf + s->len, '\0', (size_t)got))
        return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: binary data (NUL byte), not JSON", s->name);
    s->len += (size_t)got;
    return 1;
}

int ari_json_stream_peek(ari_json_stream *s, ari_error *err)
{
    for (;;) {
        while (s->start < s->len && ari_json_is_ws(s->buf[s->start]))
            s->start++;
        if (s->start < s->len)
            return (unsigned char)s->buf[s->start];
        int rc = fill(s, s->start, err);
        if (rc < 0)
            return -2;
        if (rc == 0)
            return -1;
    }
}

/* The scan state of a cut, kept across refills. */
typedef struct cut_state {
    int depth, in_str, esc, scalar;
} cut_state;

/* Scans buf[*i..len): 0 and *vlen when the value ends, 1 to read on, -1
 * on an unbalanced bracket. */
static int cut_scan(ari_json_stream *s, cut_state *c, size_t *i, size_t *vlen, ari_error *err)
{
    for (; *i < s->len; (*i)++) {
        char ch = s->buf[*i];
        if (c->scalar < 0)
            c->scalar = !(ch == '{' || ch == '[' || ch == '"');
        if (c->in_str) {
            if (c->esc)
                c->esc = 0;
            else if (ch == '\\')
                c->esc = 1;
            else if (ch == '"') {
                c->in_str = 0;
                if (c->depth == 0) {
                    *vlen = *i + 1 - s->start;
                    return 0;
                }
            }
        } else if (c->scalar) {
            if (ch == ',' || ch == '}' || ch == ']' || ari_json_is_ws(ch)) {
                *vlen = *i - s->start;
                return 0;
            }
        } else if (ch == '"') {
            c->in_str = 1;
        } else if (ch == '{' || ch == '[') {
            c->depth++;
        } else if (ch == '}' || ch == ']') {
            if (--c->depth == 0) {
                *vlen = *i + 1 - s->start;
                return 0;
            }
            if (c->depth < 0)
                return ari_error_set(err, ARI_E_INVALID_INPUT, "%s: offset %llu: unbalanced '%c'", s->name,
                                     (unsigned long long)(s->base + *i), ch);
        }
    }
    return 1;
}

int ari_json_stream_cut(ari_json_stream *s, size_t *vlen, int discard, ari_error *err)
{
    size_t i = s->start;
    cut_state c = {0, 0, 0, -1};
    for (;;) {
        int rc = cut_scan(s, &c, &i, vlen, err);
        if (rc <= 0)
            return rc;
        size_t keep = s->start;
        if (discard) { /* nothing before i is needed */
            keep = i;
            s->start = i;
        }
        rc = fill(s, keep, err);
        if (rc < 0)
            return -1;
        i -= keep; /* the window moved down by keep bytes */
        if (rc == 0) {
            if (c.scalar == 1 && i > s->start) {
                *vlen = i - s->start;
                return 0;
            }
            return 1;
        }
    }
}
