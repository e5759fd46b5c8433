/* utf8.h: checking and repairing UTF-8 text.
 *
 * Every string that enters the database must be valid UTF-8: SQLite's JSON
 * functions and jansson refuse anything else, and one bad name would empty
 * a whole listing. Validity follows Unicode's table 3-7 of well-formed byte
 * sequences: overlong forms, surrogates (U+D800..U+DFFF) and code points
 * above U+10FFFF are invalid. Repair replaces each maximal subpart of an
 * ill-formed sequence with U+FFFD, Unicode's "best practice" (the W3C and
 * WHATWG decoders do the same), so "a\xE2\x82b" becomes "a\uFFFDb" and
 * "\xC0\xAF" two U+FFFD.
 */
#ifndef ARIADNE_UTF8_H
#define ARIADNE_UTF8_H

#include <stddef.h>

/* The UTF-8 encoding of U+FFFD, the replacement character. */
#define ARI_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* 1 if s[0..n) is valid UTF-8 (NUL bytes are valid), else 0. */
int ari_utf8_valid(const char *s, size_t n);

/* Length of the longest valid prefix of s[0..n). */
size_t ari_utf8_valid_prefix(const char *s, size_t n);

/* Where s[0..n) does not start with a valid sequence (n > 0): the length of
 * its maximal subpart, the bytes one U+FFFD replaces (1 to 3). */
size_t ari_utf8_bad_length(const char *s, size_t n);

/* Writes s[0..n) to out with every maximal subpart replaced by U+FFFD, and
 * a NUL; out must hold 3 * n + 1 bytes. Returns the length written. */
size_t ari_utf8_fix_to(const char *s, size_t n, char *out);

/* A malloc'd, NUL-terminated repaired copy of s[0..n) (its length in
 * *out_len if not NULL), or NULL when out of memory. */
char *ari_utf8_fix(const char *s, size_t n, size_t *out_len);

/* The longest length <= max that does not cut a sequence of the valid
 * text s[0..n) in two: where to truncate a name to fit a buffer. */
size_t ari_utf8_cut(const char *s, size_t n, size_t max);

/* Copies s into out[0..size) repaired and, if it must be truncated, cut
 * between two characters; always NUL-terminates (size > 0). Returns out. */
char *ari_utf8_copy(char *out, size_t size, const char *s);

#endif
