/* le.h: little-endian fields in byte buffers (the packed chunks of the
 * store, the event readers' wire frames, profile values): the one set of
 * readers and writers, byte by byte so that alignment and the host's byte
 * order do not matter. */
#ifndef ARIADNE_LE_H
#define ARIADNE_LE_H

#include <stdint.h>
#include <string.h>

static inline void ari_le_put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t ari_le_get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline void ari_le_put_u32(unsigned char *p, uint32_t v)
{
    ari_le_put(p, v, 4);
}

static inline void ari_le_put_u64(unsigned char *p, uint64_t v)
{
    ari_le_put(p, v, 8);
}

static inline uint32_t ari_le_get_u32(const unsigned char *p)
{
    return (uint32_t)ari_le_get(p, 4);
}

static inline uint64_t ari_le_get_u64(const unsigned char *p)
{
    return ari_le_get(p, 8);
}

static inline void ari_le_put_f64(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    ari_le_put(p, v, 8);
}

static inline double ari_le_get_f64(const unsigned char *p)
{
    uint64_t v = ari_le_get(p, 8);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

#endif
