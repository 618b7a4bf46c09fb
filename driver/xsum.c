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

/* x's integer += (-1)^neg * mag * 2^pos, 0 < mag < 2^63 and pos <= 254 (so the term lies in limbs i
 * and i + 1 of i = pos / 64 <= 3). The term in two's complement over those limbs (negated without
 * a branch: invert, add 1); the limbs above i+1 receive its sign extension mask plus the carry c,
 * i.e. c - neg, which is nonzero only when the sum crosses those limbs (rare), so that loop is the
 * only data-dependent one. */
static inline void xs_add_term(ws_xsum *x, uint64_t mag, unsigned pos, uint32_t neg)
{
    unsigned i = pos >> 6;
    unsigned off = pos & 63u;
    uint64_t lo = mag << off;
    uint64_t hi = (mag >> 1) >> (63 - off); /* mag >> (64 - off), 0 when off == 0 */
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
    xs_add_term(x, sig, shift, neg);
}

/* x's integer += t, a 320-bit two's complement integer (wraps like the accumulator's register). */
static void xs_add_limbs(ws_xsum *x, const uint64_t *t)
{
    uint64_t c = 0;
    for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
        uint64_t a = x->limb[j];
        uint64_t s = a + t[j];
        uint64_t c1 = s < a;
        uint64_t u = s + c;
        uint64_t c2 = u < s;
        x->limb[j] = u;
        c = c1 | c2;
    }
}

void ws_xsum_add_lane(ws_xsum *x, int64_t lane, uint32_t n)
{
    /* lane units of 2^-53 are 2^96 of the accumulator's 2^-149: the lane shifted by 96 bits,
     * sign-extended over the limbs above */
    uint64_t ext = lane < 0 ? UINT64_MAX : 0, u = (uint64_t)lane;
    uint64_t t[WS_XSUM_LIMBS] = {0, u << 32, u >> 32 | (ext << 32), ext, ext};
    xs_add_limbs(x, t);
    if (n) {
        x->not_negzero = 1;
        uint32_t c = x->n + n;
        x->n = c < x->n ? UINT32_MAX : c;
    }
}

/* t = -t over n limbs. */
static void xs_negate(uint64_t *t, unsigned n)
{
    uint64_t c = 1;
    for (unsigned j = 0; j < n; j++) {
        t[j] = ~t[j] + c;
        c = c && t[j] == 0;
    }
}

void ws_xsum_merge(ws_xsum *x, const ws_xsum *y)
{
    xs_add_limbs(x, y->limb);
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

/* |x's integer| into mag; 1 when it is negative. */
static int xs_magnitude(const ws_xsum *x, uint64_t *mag)
{
    memcpy(mag, x->limb, sizeof x->limb);
    if (!(x->limb[WS_XSUM_LIMBS - 1] & XS_SIGN_BIT))
        return 0;
    xs_negate(mag, WS_XSUM_LIMBS);
    return 1;
}

/* Position of the top set bit of mag, -1 when it is zero. */
static int xs_top_bit(const uint64_t *mag)
{
    int top = WS_XSUM_LIMBS - 1;
    while (top >= 0 && mag[top] == 0)
        top--;
    return top < 0 ? -1 : top * 64 + 63 - __builtin_clzll(mag[top]);
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
    uint32_t sign = xs_magnitude(x, mag) ? 0x80000000u : 0;
    int top = xs_top_bit(mag);
    if (top < 0)
        return (x->n > 0 && !x->not_negzero) ? 0x80000000u : 0;

    unsigned p = (unsigned)top;
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

int ws_xsum_encode(const ws_xsum *x, uint64_t words[WS_X64_MAX_WORDS])
{
    if (x->nan || x->pos_inf || x->neg_inf) {
        words[0] = (uint64_t)WS_X64_E_SPECIAL << WS_X64_E_SHIFT | (uint64_t)(x->nan != 0) << 2 |
                   (uint64_t)(x->neg_inf != 0) << 1 | (uint64_t)(x->pos_inf != 0);
        return 1;
    }
    uint64_t mag[WS_XSUM_LIMBS];
    uint64_t s = xs_magnitude(x, mag) ? WS_X64_NEG : 0;
    int top = xs_top_bit(mag);
    if (top < 0) { /* -0 only when every contribution was -0, as ws_xsum_round */
        words[0] = (x->n > 0 && !x->not_negzero) ? WS_X64_NEG : 0;
        return 1;
    }
    int n = 0;
    while (top >= 0) {
        unsigned e = top > 53 ? (unsigned)top - 53 : 0;
        if (e >= WS_X64_E_SPECIAL || n == WS_X64_MAX_WORDS)
            return -1;
        uint64_t m = xs_window(mag, e) & WS_X64_M_MASK;
        top = -1;
        if (xs_any_below(mag, e)) { /* what is left: the bits below 2^e (rare: gradients fit) */
            for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
                unsigned lo = 64 * j;
                mag[j] = lo + 64 <= e ? mag[j] : lo < e ? mag[j] & (((uint64_t)1 << (e - lo)) - 1) : 0;
            }
            top = xs_top_bit(mag);
        }
        words[n++] = s | (uint64_t)e << WS_X64_E_SHIFT | m | (top >= 0 ? WS_X64_ESC : 0);
    }
    return n;
}

void ws_xsum_add_word(ws_xsum *x, uint64_t word, int first)
{
    unsigned e = (unsigned)(word >> WS_X64_E_SHIFT) & 0xffu;
    uint64_t m = word & WS_X64_M_MASK;
    int neg = (word & WS_X64_NEG) != 0;

    if (first)
        xs_count(x);
    if (e == WS_X64_E_SPECIAL) {
        x->pos_inf |= (uint8_t)(m & 1u);
        x->neg_inf |= (uint8_t)(m >> 1 & 1u);
        x->nan |= (uint8_t)(m >> 2 & 1u);
        x->not_negzero = 1;
        return;
    }
    if (!(first && neg && m == 0 && !(word & WS_X64_ESC))) /* the all -0 zero leaves the flag */
        x->not_negzero = 1;
    if (m) /* a zero term: nothing to add (xs_add_term takes a nonzero magnitude) */
        xs_add_term(x, m, e, (uint32_t)neg); /* e <= 254, m < 2^54 */
}

uint32_t ws_sum_f32(const uint32_t *bits, unsigned n)
{
    ws_xsum x;
    ws_xsum_init(&x);
    for (unsigned k = 0; k < n; k++)
        ws_xsum_add(&x, bits[k]);
    return ws_xsum_round(&x);
}
