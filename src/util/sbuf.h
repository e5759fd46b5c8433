/* sbuf.h: the one growable string buffer, and JSON text appended the way
 * jansson writes it (compact), for code that must produce the same bytes
 * without a JSON tree.
 *
 * The buffer is always NUL-terminated once anything was added. Appends
 * never fail loudly: the first allocation failure sets `failed`, later
 * appends do nothing, and the owner checks ari_sbuf_failed() once at the
 * end. A buffer may be given a cap (`max`, 0 = none): growing past it fails
 * the same way. */
#ifndef ARIADNE_SBUF_H
#define ARIADNE_SBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct ari_sbuf {
    char *p;     /* NULL until the first append; owned, free with ari_sbuf_free */
    size_t len, cap;
    size_t max;  /* longest allowed text, 0 for no limit */
    int failed;
} ari_sbuf;

void ari_sbuf_add(ari_sbuf *b, const char *s, size_t n);
void ari_sbuf_add_str(ari_sbuf *b, const char *s);
void ari_sbuf_add_char(ari_sbuf *b, char c);
void ari_sbuf_printf(ari_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* JSON: a string with jansson's escapes (", \, control characters), a
 * real as jansson prints it (17 significant digits, ".0" added to whole
 * numbers, no "+" nor leading zeros in the exponent), an integer. A
 * non-finite real fails the buffer (jansson refuses them too). */
void ari_sbuf_json_string(ari_sbuf *b, const char *s);
void ari_sbuf_json_real(ari_sbuf *b, double v);
void ari_sbuf_json_int(ari_sbuf *b, int64_t v);
/* A real as jansson 2.14's jsonp_dtostr writes it at `precision`
 * significant digits (1..17, 0 = 17; JSON_REAL_PRECISION), in the C
 * locale, into buf: its length, or -1 when buf (at least 32 bytes for 17
 * digits) is too short. v finite. */
int ari_json_real_format(char *buf, size_t size, double v, int precision);

/* Empties the text, keeping the memory and the cap. */
void ari_sbuf_reset(ari_sbuf *b);
int ari_sbuf_failed(const ari_sbuf *b);
/* The text ("" when empty); valid until the next append. */
const char *ari_sbuf_text(const ari_sbuf *b);
/* Hands the text over (caller frees); NULL if the buffer failed. The
 * buffer is left empty. */
char *ari_sbuf_take(ari_sbuf *b);
void ari_sbuf_free(ari_sbuf *b);

#endif
