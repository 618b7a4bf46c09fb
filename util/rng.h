/* rng.h - small deterministic PRNG (splitmix64) for generators and tests. */
#ifndef WS_RNG_H
#define WS_RNG_H

#include <stdint.h>

static inline uint64_t ws_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct {
    uint64_t s;
} ws_rng;

static inline uint64_t ws_rng_next(ws_rng *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the tiny modulo bias is irrelevant here). */
static inline uint64_t ws_rng_below(ws_rng *r, uint64_t n) { return ws_rng_next(r) % n; }

/* True with probability p (0 <= p <= 1). */
static inline int ws_rng_chance(ws_rng *r, double p)
{
    return p > 0 && (double)(ws_rng_next(r) >> 11) * 0x1p-53 < p;
}

#endif
