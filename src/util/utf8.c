/* utf8.c: UTF-8 validation and repair (see utf8.h). ASCII, by far the
 * common case, is checked eight bytes at a time; a multi-byte sequence is
 * checked against the ranges of Unicode's table 3-7. */
#include "util/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HIGH_BITS 0x8080808080808080ULL

/* Checks the sequence that starts at s[0] (a byte >= 0x80). Returns its
 * length when it is well-formed; otherwise 0, with *bad set to the length
 * of its maximal subpart (the longest prefix of some well-formed sequence,
 * at least 1). */
static size_t check_sequence(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned lead = s[0], lo = 0x80, hi = 0xBF;
    size_t trail;
    if (lead >= 0xC2 && lead <= 0xDF) {
        trail = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        trail = 2;
        if (lead == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (lead == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        trail = 3;
        if (lead == 0xF0)
            lo = 0x90; /* no overlong forms */
        else if (lead == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        *bad = 1; /* 80..C1, F5..FF never start a sequence */
        return 0;
    }
    for (size_t i = 1; i <= trail; i++) {
        if (i >= n || s[i] < lo || s[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return trail + 1;
}

size_t ari_utf8_valid_prefix(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t word;
            memcpy(&word, p + i, sizeof word);
            if ((word & HIGH_BITS) == 0) {
                i += 8;
                continue;
            }
        }
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad, len = check_sequence(p + i, n - i, &bad);
        if (len == 0)
            return i;
        i += len;
    }
    return n;
}

int ari_utf8_valid(const char *s, size_t n)
{
    return ari_utf8_valid_prefix(s, n) == n;
}

size_t ari_utf8_bad_length(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t bad = 1;
    if (n == 0 || p[0] < 0x80 || check_sequence(p, n, &bad) > 0)
        return 0; /* not the start of an ill-formed sequence */
    return bad;
}

size_t ari_utf8_fix_to(const char *s, size_t n, char *out)
{
    size_t i = 0, used = 0;
    while (i < n) {
        size_t good = ari_utf8_valid_prefix(s + i, n - i);
        memcpy(out + used, s + i, good);
        used += good;
        i += good;
        if (i < n) {
            memcpy(out + used, ARI_UTF8_REPLACEMENT, 3);
            used += 3;
            i += ari_utf8_bad_length(s + i, n - i);
        }
    }
    out[used] = '\0';
    return used;
}

char *ari_utf8_fix(const char *s, size_t n, size_t *out_len)
{
    if (n > (SIZE_MAX - 1) / 3)
        return NULL;
    char *out = malloc(3 * n + 1);
    if (!out)
        return NULL;
    size_t len = ari_utf8_fix_to(s, n, out);
    char *shrunk = realloc(out, len + 1);
    if (shrunk)
        out = shrunk;
    if (out_len)
        *out_len = len;
    return out;
}

size_t ari_utf8_cut(const char *s, size_t n, size_t max)
{
    if (max >= n)
        return n;
    size_t len = max;
    /* Back off over continuation bytes (10xxxxxx) to a sequence start. */
    while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
        len--;
    return len;
}

char *ari_utf8_copy(char *out, size_t size, const char *s)
{
    size_t n = strlen(s), i = 0, used = 0, room = size - 1;
    while (i < n) {
        size_t good = ari_utf8_valid_prefix(s + i, n - i);
        size_t take = ari_utf8_cut(s + i, good, room - used);
        memcpy(out + used, s + i, take);
        used += take;
        i += good;
        if (take < good)
            break; /* full */
        if (i < n) {
            if (room - used < 3)
                break;
            memcpy(out + used, ARI_UTF8_REPLACEMENT, 3);
            used += 3;
            i += ari_utf8_bad_length(s + i, n - i);
        }
    }
    out[used] = '\0';
    return out;
}
