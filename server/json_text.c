/* json_text.c: a growable JSON text with numbers written the way jansson
 * writes them (see json_text.h), and the splice of such a text into a
 * document dumped by jansson. */
#include "json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ari_json_text_free(ari_json_text *t)
{
    ari_sbuf_free(t);
}

void ari_json_text_raw(ari_json_text *t, const char *s, size_t n)
{
    ari_sbuf_add(t, s, n);
}

void ari_json_text_char(ari_json_text *t, char c)
{
    ari_sbuf_add_char(t, c);
}

/* The decimal digits of v into the end of buf[24]; the first one. */
static char *digits(char *end, uint64_t v)
{
    *--end = '\0';
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void ari_json_text_int(ari_json_text *t, int64_t v)
{
    char buf[24];
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = digits(buf + sizeof buf, mag);
    if (v < 0)
        *--p = '-';
    ari_json_text_raw(t, p, (size_t)(buf + sizeof buf - 1 - p));
}

void ari_json_text_real(ari_json_text *t, double v, int precision)
{
    /* A whole number of at most `precision` digits prints as itself and
     * ".0" ("%g" keeps the fixed style below 10^precision). */
    int p = precision ? precision : 17;
    double lim = p >= 15 ? 1e15 : pow(10, p);
    if (v == trunc(v) && fabs(v) < lim && !(v == 0 && signbit(v))) {
        char buf[24];
        char *q = digits(buf + sizeof buf - 2, (uint64_t)fabs(v));
        if (v < 0)
            *--q = '-';
        buf[sizeof buf - 3] = '.';
        buf[sizeof buf - 2] = '0';
        buf[sizeof buf - 1] = '\0';
        ari_json_text_raw(t, q, (size_t)(buf + sizeof buf - 1 - q));
        return;
    }
    char buf[40];
    int n = ari_json_real_format(buf, sizeof buf, v, precision);
    if (n < 0)
        t->failed = 1;
    else
        ari_json_text_raw(t, buf, (size_t)n);
}

void ari_json_text_ten_thousandths(ari_json_text *t, int k)
{
    if (k >= 10000) {
        ari_json_text_raw(t, "1.0", 3);
        return;
    }
    char buf[6] = {'0',
                   '.',
                   (char)('0' + k / 1000),
                   (char)('0' + k / 100 % 10),
                   (char)('0' + k / 10 % 10),
                   (char)('0' + k % 10)};
    size_t n = 6;
    while (buf[n - 1] == '0')
        n--;
    ari_json_text_raw(t, buf, n);
}

static int dump_cb(const char *buffer, size_t size, void *data)
{
    ari_json_text *t = data;
    ari_json_text_raw(t, buffer, size);
    return t->failed ? -1 : 0;
}

void ari_json_text_value(ari_json_text *t, const json_t *v, size_t flags)
{
    if (t->failed)
        return;
    if (!v || json_dump_callback(v, dump_cb, t, flags) < 0)
        t->failed = 1;
}

char *ari_json_text_splice(const char *doc_text, const char *key, const char *value_text, size_t value_len)
{
    char member[64];
    int m = snprintf(member, sizeof member, "\"%s\":null", key);
    if (m < 0 || (size_t)m >= sizeof member)
        return NULL;
    const char *at = strstr(doc_text, member);
    if (!at)
        return NULL;
    size_t head = (size_t)(at - doc_text) + (size_t)m - 4, tail = strlen(at + m);
    char *out = malloc(head + value_len + tail + 1);
    if (!out)
        return NULL;
    memcpy(out, doc_text, head);
    memcpy(out + head, value_text, value_len);
    memcpy(out + head + value_len, at + m, tail + 1);
    return out;
}
