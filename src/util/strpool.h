/* strpool.h: many small strings in few allocations, freed together. Copies
 * go into 64 KiB blocks (a longer string gets a block of its own);
 * interned copies are shared: the second "function" or module name returns
 * the first copy. Used by the profile loader for the node strings of the
 * CCTs an ensemble keeps in memory (hundreds of thousands of them). */
#ifndef ARIADNE_STRPOOL_H
#define ARIADNE_STRPOOL_H

#include <stddef.h>

typedef struct ari_strpool ari_strpool;

ari_strpool *ari_strpool_new(void);
/* Frees every string of the pool; NULL is harmless. */
void ari_strpool_free(ari_strpool *p);
/* A NUL-terminated copy of s[0..len) in the pool; NULL when out of memory. */
char *ari_strpool_copy(ari_strpool *p, const char *s, size_t len);
/* The same, shared with an equal string interned before. */
char *ari_strpool_intern(ari_strpool *p, const char *s, size_t len);

#endif
