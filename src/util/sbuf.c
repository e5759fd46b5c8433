/* sbuf.c: the growable string buffer and its JSON appenders (sbuf.h). */
#include "util/sbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* Room for n more bytes and the NUL. */
static int reserve(ari_sbuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n > SIZE_MAX - b->len - 1 || (b->max && b->len + n > b->max) ||
        ari_vec_reserve((void **)&b->p, &b->cap, b->len + n + 1, 1) < 0) {
        b->failed = 1;
        return -1;
    }
    return 0;
}

void ari_sbuf_add(ari_sbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void ari_sbuf_add_str(ari_sbuf *b, const char *s)
{
    ari_sbuf_add(b, s, strlen(s));
}

void ari_sbuf_add_char(ari_sbuf *b, char c)
{
    ari_sbuf_add(b, &c, 1);
}

void ari_sbuf_printf(ari_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) < 0) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void ari_sbuf_json_string(ari_sbuf *b, const char *s)
{
    ari_sbuf_add_char(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p != '"' && *p != '\\')
            p++;
        ari_sbuf_add(b, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        switch (*p) {
        case '"': ari_sbuf_add(b, "\\\"", 2); break;
        case '\\': ari_sbuf_add(b, "\\\\", 2); break;
        case '\b': ari_sbuf_add(b, "\\b", 2); break;
        case '\f': ari_sbuf_add(b, "\\f", 2); break;
        case '\n': ari_sbuf_add(b, "\\n", 2); break;
        case '\r': ari_sbuf_add(b, "\\r", 2); break;
        case '\t': ari_sbuf_add(b, "\\t", 2); break;
        default: ari_sbuf_printf(b, "\\u%04X", *p); break;
        }
    }
    ari_sbuf_add_char(b, '"');
}

int ari_json_real_format(char *buf, size_t size, double v, int precision)
{
    int n = snprintf(buf, size, "%.*g", precision ? precision : 17, v);
    if (n < 0 || (size_t)n + 3 >= size)
        return -1;
    size_t len = (size_t)n;
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        buf[len++] = '.';
        buf[len++] = '0';
        buf[len] = '\0';
    }
    char *start = strchr(buf, 'e');
    if (start) { /* no '+' nor leading zeros in the exponent */
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - buf) + 1);
            len -= (size_t)(end - start);
        }
    }
    return (int)len;
}

void ari_sbuf_json_real(ari_sbuf *b, double v)
{
    char buf[64];
    int n = isfinite(v) ? ari_json_real_format(buf, sizeof buf, v, 17) : -1;
    if (n < 0) {
        b->failed = 1;
        return;
    }
    ari_sbuf_add(b, buf, (size_t)n);
}

void ari_sbuf_json_int(ari_sbuf *b, int64_t v)
{
    ari_sbuf_printf(b, "%lld", (long long)v);
}

void ari_sbuf_reset(ari_sbuf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->p)
        b->p[0] = '\0';
}

int ari_sbuf_failed(const ari_sbuf *b)
{
    return b->failed;
}

const char *ari_sbuf_text(const ari_sbuf *b)
{
    return b->p ? b->p : "";
}

char *ari_sbuf_take(ari_sbuf *b)
{
    if (!b->failed && !b->p && reserve(b, 0) == 0)
        b->p[0] = '\0'; /* nothing was added: the empty text */
    char *p = b->failed ? NULL : b->p;
    if (b->failed)
        free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
    return p;
}

void ari_sbuf_free(ari_sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
