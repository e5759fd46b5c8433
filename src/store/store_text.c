/* store_text.c: binding and quoting text as valid UTF-8 (store_text.h).
 * The check is one pass over the bytes, eight ASCII bytes at a time; only
 * an invalid string costs a copy. */
#include "store/store_text.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "util/vec.h"

static int bind_text(ari_stmt *st, int i, const char *s, int n, int copy)
{
    if (!s)
        return ari_bind_null(st, i);
    size_t len = n < 0 ? strlen(s) : (size_t)n;
    if (ari_utf8_valid(s, len))
        return copy ? ari_bind_text_copy(st, i, s, (int)len) : ari_bind_text_static(st, i, s, (int)len);
    size_t fixed_len;
    char *fixed = ari_utf8_fix(s, len, &fixed_len);
    if (!fixed || fixed_len > 0x7fffffff) {
        free(fixed);
        return ARI_NOMEM;
    }
    int rc = ari_bind_text_copy(st, i, fixed, (int)fixed_len);
    free(fixed);
    return rc;
}

int ari_store_bind_text(ari_stmt *st, int i, const char *s, int n)
{
    return bind_text(st, i, s, n, 1);
}

int ari_store_bind_text_static(ari_stmt *st, int i, const char *s, int n)
{
    return bind_text(st, i, s, n, 0);
}

int ari_text_init(ari_text *t, const char *s)
{
    t->heap = NULL;
    t->s = s;
    t->len = s ? strlen(s) : 0;
    if (!s || ari_utf8_valid(s, t->len))
        return 0;
    char *out = t->buf;
    if (t->len > (sizeof t->buf - 1) / 3) {
        out = t->heap = malloc(3 * t->len + 1);
        if (!out) {
            t->s = NULL;
            return -1;
        }
    }
    t->len = ari_utf8_fix_to(s, t->len, out);
    t->s = out;
    return 0;
}

void ari_text_free(ari_text *t)
{
    free(t->heap);
    t->heap = NULL;
}

char *ari_text_dup(const char *s)
{
    if (!s)
        return strdup("");
    size_t len = strlen(s);
    if (!ari_utf8_valid(s, len))
        return ari_utf8_fix(s, len, NULL);
    char *copy = malloc(len + 1);
    return copy ? memcpy(copy, s, len + 1) : NULL;
}

size_t ari_json_quote(char *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0, len = strlen(s), i = 0, valid_end = 0;
    out[n++] = '"';
    while (i < len) {
        if (i == valid_end) { /* past the last valid stretch: measure the next */
            valid_end = i + ari_utf8_valid_prefix(s + i, len - i);
            if (valid_end == i) {
                memcpy(out + n, ARI_UTF8_REPLACEMENT, 3);
                n += 3;
                i += ari_utf8_bad_length(s + i, len - i);
                valid_end = i;
                continue;
            }
        }
        unsigned char c = (unsigned char)s[i++];
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c < 0x20) {
            memcpy(out + n, "\\u00", 4);
            out[n + 4] = hex[c >> 4];
            out[n + 5] = hex[c & 15];
            n += 6;
        } else {
            out[n++] = (char)c; /* ASCII, or a byte of a valid character */
        }
    }
    out[n++] = '"';
    return n;
}

int ari_json_members_add(ari_json_members *o, const char *key, const char *value, size_t vlen, int quote)
{
    /* separator, quoted key, colon, value, and room for the closing brace and the NUL */
    size_t need = o->len + 6 * strlen(key) + (quote ? 6 * vlen + 2 : vlen) + 6;
    if (ari_vec_reserve((void **)&o->text, &o->cap, need, 1) < 0)
        return -1;
    char *out = o->text + o->len;
    *out++ = o->len ? ',' : '{';
    out += ari_json_quote(out, key);
    *out++ = ':';
    if (quote) {
        out += ari_json_quote(out, value);
    } else {
        memcpy(out, value, vlen);
        out += vlen;
    }
    *out = '\0';
    o->len = (size_t)(out - o->text);
    return 0;
}

const char *ari_json_members_close(ari_json_members *o)
{
    if (!o->len)
        return "{}";
    o->text[o->len] = '}'; /* add left room for it */
    o->text[o->len + 1] = '\0';
    return o->text;
}

void ari_json_members_free(ari_json_members *o)
{
    free(o->text);
    o->text = NULL;
    o->len = o->cap = 0;
}
