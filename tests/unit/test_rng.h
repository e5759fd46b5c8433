/* test_rng.h: the xorshift64 generator the unit tests draw their random
 * inputs from: deterministic for a given seed, the same on every machine.
 * A test sets rng_state (non-zero) before drawing. */
#ifndef ARIADNE_TEST_RNG_H
#define ARIADNE_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state;

/* Uniform in [0, 1), 53 bits. */
static inline double rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

#endif
