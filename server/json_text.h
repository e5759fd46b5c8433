/* json_text.h: JSON written as text by hand, for the answers too large to
 * build as jansson values first (the timeline's rows: hundreds of
 * thousands of small arrays). Numbers come out exactly as json_dumps
 * writes them (integers in decimal; reals as "%.<precision>g" with ".0"
 * added to a whole number and the exponent without '+' or leading zeros);
 * other values go through json_dumpb. A text that could not grow (out of
 * memory) is marked failed and ignores later writes. */
#ifndef ARIADNE_JSON_TEXT_H
#define ARIADNE_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sbuf.h"

/* The text is an ari_sbuf: p (NUL-terminated while not failed), len, failed. */
typedef ari_sbuf ari_json_text;

void ari_json_text_free(ari_json_text *t);
void ari_json_text_raw(ari_json_text *t, const char *s, size_t n);
void ari_json_text_char(ari_json_text *t, char c);
void ari_json_text_int(ari_json_text *t, int64_t v);
/* v finite; precision 1..17 as JSON_REAL_PRECISION (0 = 17). */
void ari_json_text_real(ari_json_text *t, double v, int precision);
/* The real k / 1e4 (1 <= k <= 10^4) as written at 5 or more digits: "0."
 * and at most 4 decimals, or "1.0" (the double nearest k / 10^4 prints
 * as that decimal); no printf. */
void ari_json_text_ten_thousandths(ari_json_text *t, int k);
/* A value as json_dumpb(v, flags) writes it. */
void ari_json_text_value(ari_json_text *t, const json_t *v, size_t flags);

/* doc_text with the first member `"key":null` replaced by `"key":` and
 * value_text (the member must exist: the caller put it there as null; no
 * string can hold that sequence unescaped). A new string, or NULL when
 * out of memory or the member is missing. */
char *ari_json_text_splice(const char *doc_text, const char *key, const char *value_text, size_t value_len);

#endif
