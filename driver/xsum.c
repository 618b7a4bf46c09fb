/* xsum.c - exact Kulisch accumulator for binary32 sums, rounded once (docs/protocol.md section 6). */
#include "wiresum/xsum.h"

#include <string.h>

/* Layout: bit k of the 320-bit two's complement integer has weight 2^(k-149).
 * A finite binary32 with exponent field E and integer significand S (hidden
 * bit included for normals) is S * 2^(max(E,1) - 150), i.e. S shifted left by
 * max(E,1) - 1 bits. The largest single term has its top bit at 253 + 23 = 276;
 * 2^40 such terms stay below 2^317, leaving the sign bit (319) clear. */

#define XS_SIGN_BIT ((uint64_t)1 << 63)

void ws_xsum_init(ws_xsum *x)
{
    memset(x, 0, sizeof *x);
}

static void xs_count(ws_xsum *x)
{
    if (x->n != UINT32_MAX)
        x->n++;
}

void ws_xsum_add(ws_xsum *x, uint32_t bits)
{
    uint32_t neg = bits >> 31;
    uint32_t e = (bits >> 23) & 0xffu;
    uint32_t m = bits & 0x7fffffu;

    xs_count(x);
    x->not_negzero |= (uint8_t)(bits != 0x80000000u); /* branch-free: signs are random */
    if (e == 0xffu) {
        if (m != 0)
            x->nan = 1;
        else if (neg)
            x->neg_inf = 1;
        else
            x->pos_inf = 1;
        return;
    }
    if (e == 0 && m == 0)
        return;

    uint64_t sig = m;
    unsigned shift = 0;
    if (e != 0) {
        sig |= (uint64_t)1 << 23;
        shift = e - 1; /* 0 .. 253 */
    }
    unsigned i = shift >> 6; /* 0 .. 3, so i + 1 is a valid limb */
    unsigned off = shift & 63u;
    uint64_t lo = sig << off;
    uint64_t hi = (sig >> 1) >> (63 - off); /* sig >> (64 - off), 0 when off == 0 */

    /* The term in two's complement over limbs i and i+1 (negated without a
     * branch: invert, add 1); the limbs above i+1 receive its sign extension
     * mask plus the carry c, i.e. c - neg, which is nonzero only when the sum
     * crosses those limbs (rare), so that loop is the only data-dependent one. */
    uint64_t mask = 0 - (uint64_t)neg;
    uint64_t tlo = (lo ^ mask) + neg;
    uint64_t thi = (hi ^ mask) + (uint64_t)(tlo < (uint64_t)neg); /* carry when lo == 0 */
    uint64_t a = x->limb[i];
    uint64_t s0 = a + tlo;
    uint64_t c = s0 < a;
    x->limb[i] = s0;
    a = x->limb[i + 1];
    uint64_t s1 = a + thi;
    uint64_t c1 = s1 < a;
    uint64_t s2 = s1 + c;
    c1 |= s2 < s1;
    x->limb[i + 1] = s2;
    if (c1 == neg)
        return;
    for (unsigned j = i + 2; j < WS_XSUM_LIMBS; j++) {
        uint64_t old = x->limb[j];
        if (c1) { /* +1 */
            x->limb[j] = old + 1;
            if (old != UINT64_MAX)
                break;
        } else { /* -1 */
            x->limb[j] = old - 1;
            if (old != 0)
                break;
        }
    }
}

void ws_xsum_merge(ws_xsum *x, const ws_xsum *y)
{
    uint64_t c = 0;
    for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
        uint64_t a = x->limb[j];
        uint64_t s = a + y->limb[j];
        uint64_t c1 = s < a;
        uint64_t t = s + c;
        uint64_t c2 = t < s;
        x->limb[j] = t;
        c = c1 | c2;
    }
    x->nan |= y->nan;
    x->pos_inf |= y->pos_inf;
    x->neg_inf |= y->neg_inf;
    x->not_negzero |= y->not_negzero;
    uint32_t n = x->n + y->n;
    x->n = n < x->n ? UINT32_MAX : n;
}

/* The 64 bits of mag starting at bit position pos (bits above 319 read as 0). */
static uint64_t xs_window(const uint64_t *mag, unsigned pos)
{
    unsigned i = pos >> 6, off = pos & 63u;
    if (i >= WS_XSUM_LIMBS)
        return 0;
    uint64_t w = mag[i] >> off;
    if (off && i + 1 < WS_XSUM_LIMBS)
        w |= mag[i + 1] << (64 - off);
    return w;
}

/* Whether any bit of mag below position pos is set. */
static int xs_any_below(const uint64_t *mag, unsigned pos)
{
    unsigned i = pos >> 6, off = pos & 63u;
    for (unsigned j = 0; j < i; j++)
        if (mag[j])
            return 1;
    return off && (mag[i] & (((uint64_t)1 << off) - 1)) != 0;
}

uint32_t ws_xsum_round(const ws_xsum *x)
{
    if (x->nan || (x->pos_inf && x->neg_inf))
        return WS_QNAN;
    if (x->pos_inf)
        return 0x7f800000u;
    if (x->neg_inf)
        return 0xff800000u;

    uint64_t mag[WS_XSUM_LIMBS];
    uint32_t sign = (x->limb[WS_XSUM_LIMBS - 1] & XS_SIGN_BIT) ? 0x80000000u : 0;
    if (sign) {
        uint64_t c = 1;
        for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
            mag[j] = ~x->limb[j] + c;
            c = c && mag[j] == 0;
        }
    } else {
        memcpy(mag, x->limb, sizeof mag);
    }

    int top = WS_XSUM_LIMBS - 1;
    while (top >= 0 && mag[top] == 0)
        top--;
    if (top < 0)
        return (x->n > 0 && !x->not_negzero) ? 0x80000000u : 0;

    unsigned p = (unsigned)top * 64u + 63u - (unsigned)__builtin_clzll(mag[top]);
    if (p <= 23) /* subnormal or smallest normal binade: exact, encoding is the integer */
        return sign | (uint32_t)mag[0];

    unsigned shift = p - 23;
    if (shift >= 254) /* 2^(shift+23-149) >= 2^128 */
        return sign | 0x7f800000u;
    uint64_t mant = xs_window(mag, shift) & 0xffffffu;
    uint64_t guard = (xs_window(mag, shift - 1) & 1u);
    if (guard && ((mant & 1u) || xs_any_below(mag, shift - 1)))
        mant++;
    uint64_t enc = ((uint64_t)shift << 23) + mant;
    if (enc >= 0x7f800000u)
        enc = 0x7f800000u;
    return sign | (uint32_t)enc;
}

uint32_t ws_sum_f32(const uint32_t *bits, unsigned n)
{
    ws_xsum x;
    ws_xsum_init(&x);
    for (unsigned k = 0; k < n; k++)
        ws_xsum_add(&x, bits[k]);
    return ws_xsum_round(&x);
}
