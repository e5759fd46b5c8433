/* strpool.c: blocks of strings and an index of the interned ones
 * (strpool.h). */
#include "util/strpool.h"

#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"

#define BLOCK_BYTES 65536

typedef struct block {
    struct block *next;
    size_t used, size;
    char data[];
} block;

struct ari_strpool {
    block *blocks; /* the current block first */
    ari_strmap *interned;
};

ari_strpool *ari_strpool_new(void)
{
    ari_strpool *p = calloc(1, sizeof *p);
    if (p && !(p->interned = ari_strmap_new())) {
        free(p);
        return NULL;
    }
    return p;
}

void ari_strpool_free(ari_strpool *p)
{
    if (!p)
        return;
    for (block *b = p->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    ari_strmap_free(p->interned);
    free(p);
}

static block *new_block(ari_strpool *p, size_t size)
{
    block *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->used = 0;
    b->size = size;
    if (p->blocks && size > BLOCK_BYTES) { /* an oversized one goes behind the current */
        b->next = p->blocks->next;
        p->blocks->next = b;
    } else {
        b->next = p->blocks;
        p->blocks = b;
    }
    return b;
}

char *ari_strpool_copy(ari_strpool *p, const char *s, size_t len)
{
    block *b = p->blocks;
    if (!b || b->size - b->used < len + 1)
        b = new_block(p, len + 1 > BLOCK_BYTES ? len + 1 : BLOCK_BYTES);
    if (!b)
        return NULL;
    char *out = b->data + b->used;
    memcpy(out, s, len);
    out[len] = '\0';
    b->used += len + 1;
    return out;
}

char *ari_strpool_intern(ari_strpool *p, const char *s, size_t len)
{
    char *have = ari_strmap_get(p->interned, s, len);
    if (have)
        return have;
    char *copy = ari_strpool_copy(p, s, len);
    return copy && ari_strmap_put(p->interned, s, len, copy) ? copy : NULL;
}
