/* strmap.c: open-addressing hash map from byte strings to pointers.
 *
 * Each slot holds the key's hash, a malloc'ed copy of the key (length-
 * prefixed and NUL-terminated) and the value. The table is a power of two
 * kept at most 70% full; deletion shifts the following cluster back.
 */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint64_t hash;
    char *key;   /* NULL: empty slot */
    size_t len;
    void *value;
} slot;

struct ari_strmap {
    slot *slots;
    size_t cap;   /* power of two */
    size_t count;
};

uint64_t ari_strmap_hash(const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ULL;
    }
    /* Final mix so that the low bits (the slot index) depend on all bytes. */
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return h;
}

ari_strmap *ari_strmap_new(void)
{
    ari_strmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 16;
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots) {
        free(m);
        return NULL;
    }
    return m;
}

void ari_strmap_free(ari_strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    free(m);
}

size_t ari_strmap_count(const ari_strmap *m)
{
    return m ? m->count : 0;
}

/* Index of the slot holding key, or of the empty slot where it would go. */
static size_t find_slot(const ari_strmap *m, const char *key, size_t len, uint64_t hash)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash & mask;
    for (;;) {
        const slot *s = &m->slots[i];
        if (!s->key)
            return i;
        if (s->hash == hash && s->len == len && memcmp(s->key, key, len) == 0)
            return i;
        i = (i + 1) & mask;
    }
}

void *ari_strmap_get(const ari_strmap *m, const char *key, size_t len)
{
    if (!m || m->count == 0)
        return NULL;
    size_t i = find_slot(m, key, len, ari_strmap_hash(key, len));
    return m->slots[i].key ? m->slots[i].value : NULL;
}

static int grow(ari_strmap *m)
{
    size_t ncap = m->cap * 2;
    slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        slot *s = &m->slots[i];
        if (!s->key)
            continue;
        size_t j = (size_t)s->hash & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

const char *ari_strmap_put(ari_strmap *m, const char *key, size_t len, void *value)
{
    if ((m->count + 1) * 10 > m->cap * 7 && grow(m) != 0)
        return NULL;
    uint64_t hash = ari_strmap_hash(key, len);
    size_t i = find_slot(m, key, len, hash);
    slot *s = &m->slots[i];
    if (s->key) {
        s->value = value;
        return s->key;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, key, len);
    copy[len] = '\0';
    s->hash = hash;
    s->key = copy;
    s->len = len;
    s->value = value;
    m->count++;
    return copy;
}

void *ari_strmap_remove(ari_strmap *m, const char *key, size_t len)
{
    if (!m || m->count == 0)
        return NULL;
    size_t mask = m->cap - 1;
    size_t i = find_slot(m, key, len, ari_strmap_hash(key, len));
    if (!m->slots[i].key)
        return NULL;
    void *value = m->slots[i].value;
    free(m->slots[i].key);
    m->slots[i].key = NULL;
    m->count--;
    /* Backward-shift: move later members of the cluster into the hole when
     * their home slot is not between the hole and their position. */
    size_t hole = i;
    size_t j = (i + 1) & mask;
    while (m->slots[j].key) {
        size_t home = (size_t)m->slots[j].hash & mask;
        int movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            m->slots[hole] = m->slots[j];
            m->slots[j].key = NULL;
            hole = j;
        }
        j = (j + 1) & mask;
    }
    return value;
}

void ari_strmap_foreach(const ari_strmap *m, void (*fn)(void *ctx, const char *key, void *value),
                        void *ctx)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            fn(ctx, m->slots[i].key, m->slots[i].value);
}
