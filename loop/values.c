/* values.c - the inputs of the closed loops and their exact sums (values.h). */
#include "values.h"

#include <stdlib.h>

#include "rng.h"
#include "wiresum/xsum.h"

static const uint32_t specials[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
    0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x33800000, 0x3f800001,
    0x4b800000, 0xcb800000, 0x7f000000, 0xff000000, 0x00400000, 0x7f800000, 0xff800000,
    0x7fc00000, 0x7f800001, 0xffc00001,
};

uint64_t ws_values_key(const ws_values *v, unsigned iter, unsigned w)
{
    return ws_mix64(v->seed ^ ((uint64_t)iter << 32 | w) ^ 0x72756e);
}

uint32_t ws_values_at(const ws_values *v, uint64_t key, uint64_t i)
{
    uint64_t h = ws_mix64(key ^ i);
    int special = v->kind == WS_VALUES_SPECIAL ||
                  (v->kind == WS_VALUES_MIXED && (h >> 58) == 0); /* 1 in 64 */
    uint64_t h2 = ws_mix64(h);
    if (special) {
        switch (h2 % 8) {
        case 0: /* any subnormal */
            return (uint32_t)(h2 >> 8) & 0x807fffff;
        case 1: /* near the overflow threshold */
            return ((uint32_t)(h2 >> 8) & 0x807fffff) | 0x7f000000;
        default:
            return specials[(h2 >> 16) % (sizeof specials / sizeof specials[0])];
        }
    }
    /* a gradient: random sign and significand, magnitudes 2^-30 .. 2^-3 */
    uint32_t sign = (uint32_t)(h >> 63) << 31;
    uint32_t e = (uint32_t)(127 - 3 - (h2 % 28));
    return sign | e << 23 | ((uint32_t)h & 0x7fffff);
}

uint32_t ws_values_get(const ws_values *v, unsigned iter, unsigned w, uint64_t i)
{
    return ws_values_at(v, ws_values_key(v, iter, w), i);
}

void ws_values_exact(const ws_values *v, unsigned iter, unsigned w0, unsigned w1, uint64_t i0,
                     uint64_t n, uint32_t *out)
{
    /* the workers' keys once, not once an element (a third of the work of a value) */
    uint64_t stack[256], *key = stack;
    if (w1 - w0 > 256 && !(key = malloc((size_t)(w1 - w0) * sizeof *key)))
        key = NULL; /* out of memory: each value computes its key */
    for (unsigned w = w0; key && w < w1; w++)
        key[w - w0] = ws_values_key(v, iter, w);
    for (uint64_t i = i0; i < i0 + n; i++) {
        ws_xsum x;
        ws_xsum_init(&x);
        for (unsigned w = w0; w < w1; w++)
            ws_xsum_add(&x, key ? ws_values_at(v, key[w - w0], i) : ws_values_get(v, iter, w, i));
        out[i - i0] = ws_xsum_round(&x);
    }
    if (key != stack)
        free(key);
}
