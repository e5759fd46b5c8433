/* test_utf8.c: UTF-8 validation and repair (src/util/utf8.c): Unicode's
 * own examples, the edges (overlongs, surrogates, > U+10FFFF, truncated
 * sequences), truncation between characters, and a brute-force comparison
 * over random byte strings with glibc's iconv (validity, and where the
 * first error is) and with a reference decoder written the other way round
 * (bit-level decoding, and maximal subparts taken from the prefixes of
 * every encoded code point). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

#include "test_rng.h"
#include "util/utf8.h"

#define R ARI_UTF8_REPLACEMENT

static void expect_fix(const char *in, size_t n, const char *want)
{
    size_t len = 12345;
    char *out = ari_utf8_fix(in, n, &len);
    assert_non_null(out);
    assert_string_equal(out, want);
    assert_int_equal(len, strlen(want));
    assert_true(ari_utf8_valid(out, len));
    free(out);
}

static void test_valid_text(void **state)
{
    (void)state;
    const char *ok[] = {"", "plain ascii", "caf\xC3\xA9", "\xE2\x82\xAC 5", "\xF0\x9F\x98\x80",
                        "\xEF\xBF\xBD", "\xED\x9F\xBF" /* U+D7FF */, "\xEE\x80\x80" /* U+E000 */,
                        "\xF4\x8F\xBF\xBF" /* U+10FFFF */, "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80",
                        "\xF0\x90\x80\x80", "a long line of ascii text, longer than a word or two"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_true(ari_utf8_valid(ok[i], strlen(ok[i])));
        assert_int_equal(ari_utf8_valid_prefix(ok[i], strlen(ok[i])), strlen(ok[i]));
        expect_fix(ok[i], strlen(ok[i]), ok[i]);
    }
    assert_true(ari_utf8_valid("a\0b", 3)); /* NUL is a character */
}

static void test_invalid_text(void **state)
{
    (void)state;
    const char *bad[] = {"\x80", "\xBF", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xE0\x9F\xBF",
                         "\xED\xA0\x80" /* U+D800 */, "\xED\xBF\xBF" /* U+DFFF */,
                         "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80" /* U+110000 */, "\xF5\x80\x80\x80",
                         "\xFE", "\xFF", "\xC3", "\xE2\x82", "\xF0\x9F\x98", "abcdefgh\xC3(ijk"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(ari_utf8_valid(bad[i], strlen(bad[i])));
    assert_int_equal(ari_utf8_valid_prefix("abcdefgh\xC3(ijk", 13), 8);
}

/* The examples of Unicode 15, section 3.9 (U+FFFD substitution of
 * maximal subparts), and the classic cases. */
static void test_replacement(void **state)
{
    (void)state;
    expect_fix("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", 13,
               "a" R R R "b" R "c" R R "d");
    expect_fix("\xC0\xAF", 2, R R);                      /* overlong: C0 starts nothing */
    expect_fix("\xE0\x80\xAF", 3, R R R);                /* overlong: E0 80 is no prefix */
    expect_fix("\xED\xA0\x80", 3, R R R);                /* surrogate */
    expect_fix("\xF4\x90\x80\x80", 4, R R R R);          /* above U+10FFFF */
    expect_fix("\xF0\x9F\x98", 3, R);                    /* truncated: one maximal subpart */
    expect_fix("\xE2\x82(", 3, R "(");
    expect_fix("x\xF0\x9F\x98\x80y\xFF", 7, "x\xF0\x9F\x98\x80y" R);
    size_t len;
    char *out = ari_utf8_fix("a\0\xFF", 3, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(out, "a\0" R, 5);
    free(out);
    assert_int_equal(ari_utf8_bad_length("\xF1\x80\x80\x41", 4), 3);
    assert_int_equal(ari_utf8_bad_length("\xF1\x80\x80", 3), 3);
    assert_int_equal(ari_utf8_bad_length("\xE0\x80", 2), 1);
    assert_int_equal(ari_utf8_bad_length("\xC3\xA9", 2), 0); /* valid: nothing to replace */
    assert_int_equal(ari_utf8_bad_length("A", 1), 0);
}

static void test_cut_and_copy(void **state)
{
    (void)state;
    const char *s = "ab\xC3\xA9\xE2\x82\xAC"; /* a b é € : 7 bytes */
    assert_int_equal(ari_utf8_cut(s, 7, 100), 7);
    assert_int_equal(ari_utf8_cut(s, 7, 7), 7);
    assert_int_equal(ari_utf8_cut(s, 7, 6), 4);
    assert_int_equal(ari_utf8_cut(s, 7, 5), 4);
    assert_int_equal(ari_utf8_cut(s, 7, 4), 4);
    assert_int_equal(ari_utf8_cut(s, 7, 3), 2);
    assert_int_equal(ari_utf8_cut(s, 7, 0), 0);
    char out[8];
    assert_string_equal(ari_utf8_copy(out, sizeof out, s), s);
    assert_string_equal(ari_utf8_copy(out, 6, s), "ab\xC3\xA9");
    assert_string_equal(ari_utf8_copy(out, 4, s), "ab");
    assert_string_equal(ari_utf8_copy(out, 1, s), "");
    assert_string_equal(ari_utf8_copy(out, sizeof out, "a\xFF" "b"), "a" R "b");
    assert_string_equal(ari_utf8_copy(out, 5, "ab\xFF" "c"), "ab"); /* no room for U+FFFD */
    assert_string_equal(ari_utf8_copy(out, 6, "ab\xFF" "c"), "ab" R);
}

/* ---- the reference ---- */

/* Bit-level decoding of one sequence, then the range checks; returns its
 * length when it is well-formed, else 0. */
static size_t ref_decode(const unsigned char *s, size_t n)
{
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        cp = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        cp = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* Every proper prefix (1 to 3 bytes) of the encoding of every scalar
 * value, as bitmaps indexed by the prefix's bytes. */
static unsigned char *prefix1, *prefix2, *prefix3;

static void set_bit(unsigned char *map, uint32_t i)
{
    map[i >> 3] |= (unsigned char)(1u << (i & 7));
}

static int get_bit(const unsigned char *map, uint32_t i)
{
    return map[i >> 3] >> (i & 7) & 1;
}

static size_t encode(uint32_t cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | cp >> 6);
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static void build_prefixes(void)
{
    prefix1 = calloc(1, 1 << 5);
    prefix2 = calloc(1, 1 << 13);
    prefix3 = calloc(1, 1 << 21);
    assert_non_null(prefix1);
    assert_non_null(prefix2);
    assert_non_null(prefix3);
    for (uint32_t cp = 0x80; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        unsigned char b[4];
        size_t len = encode(cp, b);
        set_bit(prefix1, b[0]);
        if (len > 2)
            set_bit(prefix2, (uint32_t)b[0] << 8 | b[1]);
        if (len > 3)
            set_bit(prefix3, (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2]);
    }
}

/* The maximal subpart at s: the longest proper prefix of a well-formed
 * sequence, at least one byte. */
static size_t ref_subpart(const unsigned char *s, size_t n)
{
    if (n >= 3 && get_bit(prefix3, (uint32_t)s[0] << 16 | (uint32_t)s[1] << 8 | s[2]))
        return 3;
    if (n >= 2 && get_bit(prefix2, (uint32_t)s[0] << 8 | s[1]))
        return 2;
    return 1;
}

static size_t ref_fix(const unsigned char *s, size_t n, unsigned char *out, size_t *first_bad)
{
    size_t i = 0, used = 0;
    *first_bad = n;
    while (i < n) {
        size_t len = ref_decode(s + i, n - i);
        if (len) {
            memcpy(out + used, s + i, len);
            used += len;
            i += len;
            continue;
        }
        if (*first_bad == n)
            *first_bad = i;
        memcpy(out + used, R, 3);
        used += 3;
        i += ref_subpart(s + i, n - i);
    }
    return used;
}

/* Where glibc's iconv stops converting s from UTF-8 (n if it does not). */
static size_t iconv_stop(iconv_t cd, const unsigned char *s, size_t n)
{
    char out[4 * 64 + 16];
    char *in = (char *)s, *o = out;
    size_t in_left = n, out_left = sizeof out;
    iconv(cd, NULL, NULL, NULL, NULL);
    if (iconv(cd, &in, &in_left, &o, &out_left) == (size_t)-1)
        assert_true(errno == EILSEQ || errno == EINVAL);
    return n - in_left;
}

static unsigned char random_byte(void)
{
    static const unsigned char edges[] = {0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                          0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3,
                                          0xF4, 0xF5, 0xF7, 0xF8, 0xFE, 0xFF};
    double u = rng_uniform();
    if (u < 0.3)
        return (unsigned char)(0x20 + rng_uniform() * 0x5F);   /* ASCII */
    if (u < 0.6)
        return (unsigned char)(0x80 + rng_uniform() * 0x40);   /* continuation */
    if (u < 0.8)
        return edges[(size_t)(rng_uniform() * sizeof edges)];
    return (unsigned char)(0xC0 + rng_uniform() * 0x40);       /* lead bytes */
}

static void test_random_against_references(void **state)
{
    (void)state;
    build_prefixes();
    iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
    assert_true(cd != (iconv_t)-1);
    rng_state = 0x9e3779b97f4a7c15ULL;
    unsigned char s[64], want[3 * 64 + 1];
    char got[3 * 64 + 1];
    size_t invalid = 0;
    for (int round = 0; round < 300000; round++) {
        size_t n = (size_t)(rng_uniform() * 24);
        for (size_t i = 0; i < n; i++)
            s[i] = random_byte();
        size_t first_bad, want_len = ref_fix(s, n, want, &first_bad);
        size_t got_len = ari_utf8_fix_to((const char *)s, n, got);
        assert_int_equal(got_len, want_len);
        assert_memory_equal(got, want, want_len);
        assert_int_equal(ari_utf8_valid_prefix((const char *)s, n), first_bad);
        assert_int_equal(ari_utf8_valid((const char *)s, n), first_bad == n);
        assert_int_equal(iconv_stop(cd, s, n), first_bad);
        assert_true(ari_utf8_valid(got, got_len));
        invalid += first_bad < n;
    }
    assert_true(invalid > 100000 && invalid < 300000); /* both kinds were drawn */
    iconv_close(cd);
    free(prefix1);
    free(prefix2);
    free(prefix3);
}

/* Every 1- and 2-byte string, and every 3-byte string that starts with a
 * lead byte, exhaustively against the reference. */
static void test_exhaustive_short(void **state)
{
    (void)state;
    build_prefixes();
    unsigned char s[3], want[16];
    char got[16];
    for (uint32_t v = 0; v < (1u << 24); v++) {
        size_t n = v < 256 ? 1 : v < 65536 ? 2 : 3;
        s[0] = (unsigned char)(v >> 16);
        s[1] = (unsigned char)(v >> 8);
        s[2] = (unsigned char)v;
        const unsigned char *p = s + (3 - n);
        if (n == 3 && p[0] < 0xC0)
            continue;
        size_t first_bad, want_len = ref_fix(p, n, want, &first_bad);
        size_t got_len = ari_utf8_fix_to((const char *)p, n, got);
        if (got_len != want_len || memcmp(got, want, want_len) != 0)
            fail_msg("differs from the reference on %06x (%zu bytes)", v, n);
    }
    free(prefix1);
    free(prefix2);
    free(prefix3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_text),
        cmocka_unit_test(test_invalid_text),
        cmocka_unit_test(test_replacement),
        cmocka_unit_test(test_cut_and_copy),
        cmocka_unit_test(test_random_against_references),
        cmocka_unit_test(test_exhaustive_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
