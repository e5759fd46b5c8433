/* store_text.h: text enters the database as valid UTF-8.
 *
 * Every string a writer binds goes through ari_store_bind_text (or its
 * _static twin): valid UTF-8, the common case, is bound as is; anything
 * else is bound as a repaired copy, each ill-formed sequence replaced by
 * U+FFFD (util/utf8.h). A writer that also maps names to ids keys its maps
 * by the repaired form (ari_text), so that two names the database stores
 * alike get one id. ari_json_quote writes a JSON string the same way.
 */
#ifndef ARIADNE_STORE_TEXT_H
#define ARIADNE_STORE_TEXT_H

#include "store/store_stmt.h"
#include <stddef.h>

/* Binds s[0..n) (n < 0: up to its NUL) to parameter i; the backend copies it.
 * A NULL s binds NULL. Returns ARI_OK or an error code. */
int ari_store_bind_text(ari_stmt *st, int i, const char *s, int n);

/* The same for a string that stays unchanged until the statement is
 * stepped or rebound : valid text is not copied. */
int ari_store_bind_text_static(ari_stmt *st, int i, const char *s, int n);

/* The valid UTF-8 form of a string, for map keys and copies: the caller's
 * string itself when it is valid (nothing copied), else a repaired copy
 * kept in buf or, when too long for it, on the heap. */
typedef struct ari_text {
    const char *s;  /* NULL if the string was NULL */
    size_t len;
    char *heap;
    char buf[192];
} ari_text;

/* Fills t for s; returns -1 (t->s NULL) when out of memory. */
int ari_text_init(ari_text *t, const char *s);
void ari_text_free(ari_text *t);

/* A malloc'd valid copy of s ("" for NULL), or NULL when out of memory. */
char *ari_text_dup(const char *s);

/* Writes s to out as a quoted JSON string: '"' and '\' escaped, control
 * characters as \u00XX, ill-formed sequences as U+FFFD; no NUL. out must
 * hold 6 * strlen(s) + 2 bytes. Returns the length written. */
size_t ari_json_quote(char *out, const char *s);

/* A JSON object written member by member (a task trace's configuration,
 * a profile's metadata), keys quoted by ari_json_quote. */
typedef struct ari_json_members {
    char *text; /* "{" member ("," member)*, NUL-terminated; NULL while empty */
    size_t len, cap;
} ari_json_members;

/* Appends "key":value: value is quoted as a string when `quote`, else it
 * is JSON text of vlen bytes copied as is. 0, or -1 when out of memory. */
int ari_json_members_add(ari_json_members *o, const char *key, const char *value, size_t vlen, int quote);
/* The object's text with its closing brace ("{}" when it has no member),
 * valid until the next add or free. */
const char *ari_json_members_close(ari_json_members *o);
void ari_json_members_free(ari_json_members *o);

#endif
