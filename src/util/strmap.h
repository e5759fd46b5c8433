/* strmap.h: a small open-addressing hash map from byte strings to pointers.
 *
 * Keys are copied into the map (so callers may pass pointers into a line
 * buffer that is about to be overwritten); values are opaque pointers that
 * the map never frees. Linear probing with backward-shift deletion, so
 * removals leave no tombstones and lookups stay short. Used by readers to
 * resolve aliases (containers, types, values, link keys) in O(1).
 */
#ifndef ARIADNE_STRMAP_H
#define ARIADNE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ari_strmap ari_strmap;

ari_strmap *ari_strmap_new(void);
void ari_strmap_free(ari_strmap *m);

/* Number of keys in the map. */
size_t ari_strmap_count(const ari_strmap *m);

/* The value stored under key[0..len), or NULL if absent. */
void *ari_strmap_get(const ari_strmap *m, const char *key, size_t len);

/* Stores value under key[0..len), replacing any previous value. Returns a
 * pointer to the map's own NUL-terminated copy of the key (stable until the
 * key is removed or the map freed), or NULL when out of memory. */
const char *ari_strmap_put(ari_strmap *m, const char *key, size_t len, void *value);

/* Removes key[0..len); returns its value, or NULL if it was absent. */
void *ari_strmap_remove(ari_strmap *m, const char *key, size_t len);

/* Calls fn for every entry, in no particular order. The map must not be
 * modified during the iteration. */
void ari_strmap_foreach(const ari_strmap *m, void (*fn)(void *ctx, const char *key, void *value),
                        void *ctx);

/* The hash function used by the map (64-bit FNV-1a), for callers that
 * build composite keys. */
uint64_t ari_strmap_hash(const char *key, size_t len);

#endif
