/* test_xsum.c - unit tests of the exact binary32 accumulator (xsum) and the TestFloat runner. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testfloat.h"
#include "wiresum/xsum.h"

#define SIGN 0x80000000u
#define PINF 0x7f800000u
#define NINF 0xff800000u
#define FMAX 0x7f7fffffu  /* FLT_MAX = (2^24-1) * 2^104 */
#define HALF_ULP_MAX 0x73000000u /* 2^103, half an ulp of FLT_MAX */
#define ONE 0x3f800000u

/* Iteration counts (kept so that the -O2 binary runs in a few seconds). */
#define N_PAIRS 8000000u    /* random two-operand sums checked against the FPU */
#define N_REF_PAIRS 1000000u /* pairs checking the reference method itself against the FPU */
#define N_SETS 200000u      /* random sets of 2..64 values checked against the reference */
#define N_BIG_SETS 30u      /* random sets of BIG_SET values checked against the reference */
#define BIG_SET 10000u

/* ---- helpers ----------------------------------------------------------- */

/* splitmix64: small deterministic generator, state passed explicitly. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint32_t rng32(uint64_t *s)
{
    return (uint32_t)(rng_next(s) >> 32);
}

/* Uniform in [0, n). */
static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((uint64_t)rng32(s) * n) >> 32);
}

static void shuffle(uint32_t *v, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_below(s, (uint32_t)i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static uint32_t f2b(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float b2f(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static int is_nan_bits(uint32_t b)
{
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0;
}

/* The FPU's binary32 a + b (SSE, round to nearest even, no FTZ/DAZ), NaN canonicalised. */
static uint32_t hw_add(uint32_t a, uint32_t b)
{
    volatile float x = b2f(a), y = b2f(b);
    float r = x + y;
    uint32_t rb = f2b(r);
    return is_nan_bits(rb) ? WS_QNAN : rb;
}

static uint32_t sum_arr(const uint32_t *v, size_t n)
{
    return ws_sum_f32(v, (unsigned)n);
}

static uint32_t sum_rev(const uint32_t *v, size_t n)
{
    ws_xsum x;
    ws_xsum_init(&x);
    for (size_t i = n; i > 0; i--)
        ws_xsum_add(&x, v[i - 1]);
    return ws_xsum_round(&x);
}

#define ARR(...) ((const uint32_t[]){__VA_ARGS__})
#define NARR(...) (sizeof(ARR(__VA_ARGS__)) / sizeof(uint32_t))
/* Assert the sum of the listed values, added forward and backward, is want. */
#define CHECK_SUM(want, ...)                                                   \
    do {                                                                       \
        assert_int_equal(sum_arr(ARR(__VA_ARGS__), NARR(__VA_ARGS__)), want);  \
        assert_int_equal(sum_rev(ARR(__VA_ARGS__), NARR(__VA_ARGS__)), want);  \
    } while (0)

/* Two operands: both orders through xsum, and the FPU agrees with the expectation. */
static void check2_at(uint32_t a, uint32_t b, uint32_t want, int line)
{
    uint32_t v1[2] = {a, b}, v2[2] = {b, a};
    uint32_t r1 = ws_sum_f32(v1, 2), r2 = ws_sum_f32(v2, 2), h = hw_add(a, b);
    if (r1 != want || r2 != want || h != want) {
        print_error("line %d: %08x + %08x: want %08x, xsum %08x/%08x, fpu %08x\n", line,
                    (unsigned)a, (unsigned)b, (unsigned)want, (unsigned)r1, (unsigned)r2,
                    (unsigned)h);
        fail();
    }
}
#define CHECK2(a, b, want) check2_at((a), (b), (want), __LINE__)

/* ---- second exact method (independent of xsum.c) ------------------------
 * Sign-magnitude: positive and negative contributions are summed separately
 * into base-2^32 digits whose bit 0 weighs 2^-160 (not 2^-149), normalised,
 * subtracted, and the result is rounded by comparing the discarded remainder
 * with a separately built half-ulp number. Finite inputs only. */

#define REF_DIGITS 12
#define REF_LSB_EXP (-160)

static void ref_normalise(uint64_t *d)
{
    uint64_t carry = 0;
    for (int i = 0; i < REF_DIGITS; i++) {
        uint64_t t = d[i] + carry;
        d[i] = t % 4294967296u;
        carry = t / 4294967296u;
    }
    assert_true(carry == 0);
}

/* -1, 0, 1 as a <, ==, > b */
static int ref_cmp(const uint64_t *a, const uint64_t *b)
{
    for (int i = REF_DIGITS - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int ref_bit(const uint64_t *d, int k)
{
    return (int)((d[k / 32] >> (k % 32)) & 1u);
}

static uint32_t ref_sum(const uint32_t *v, size_t n)
{
    uint64_t pos[REF_DIGITS] = {0}, neg[REF_DIGITS] = {0};
    int nonneg_zero_seen = 0;
    assert_true(n < (1u << 28));
    for (size_t k = 0; k < n; k++) {
        uint32_t b = v[k];
        uint32_t ef = (b >> 23) & 0xffu, frac = b & 0x7fffffu;
        int negative = (b & SIGN) != 0;
        assert_true(ef != 0xffu);
        if (!negative || ef != 0 || frac != 0)
            nonneg_zero_seen = 1;
        if (ef == 0 && frac == 0)
            continue;
        /* value = sig * 2^(max(ef,1) - 150) = sig * 2^(bitpos + REF_LSB_EXP) */
        uint64_t sig = ef ? (frac + 8388608u) : frac;
        int bitpos = (ef ? (int)ef : 1) - 150 - REF_LSB_EXP;
        uint64_t chunk = sig << (bitpos % 32);
        uint64_t *acc = negative ? neg : pos;
        acc[bitpos / 32] += chunk % 4294967296u;
        acc[bitpos / 32 + 1] += chunk / 4294967296u;
    }
    ref_normalise(pos);
    ref_normalise(neg);

    int c = ref_cmp(pos, neg);
    if (c == 0)
        return (n > 0 && !nonneg_zero_seen) ? SIGN : 0;
    uint32_t sign = c < 0 ? SIGN : 0;
    const uint64_t *big = c < 0 ? neg : pos, *small = c < 0 ? pos : neg;
    uint64_t mag[REF_DIGITS];
    int64_t borrow = 0;
    for (int i = 0; i < REF_DIGITS; i++) {
        int64_t t = (int64_t)big[i] - (int64_t)small[i] - borrow;
        borrow = t < 0;
        mag[i] = (uint64_t)(t + (borrow ? 4294967296 : 0));
    }
    assert_true(borrow == 0);

    int top = 32 * REF_DIGITS - 1;
    while (!ref_bit(mag, top))
        top--;
    /* bit 11 weighs 2^-149: below 2^-126 (top < 34) the ulp is fixed at bit 11 */
    int ulpbit = top >= 34 ? top - 23 : 11;
    uint64_t q = 0;
    for (int k = ulpbit + 23; k >= ulpbit; k--)
        q = 2 * q + (uint64_t)(k < 32 * REF_DIGITS ? ref_bit(mag, k) : 0);
    uint64_t rem[REF_DIGITS], half[REF_DIGITS] = {0};
    for (int i = 0; i < REF_DIGITS; i++) {
        int lo = 32 * i;
        if (lo + 32 <= ulpbit)
            rem[i] = mag[i];
        else if (lo >= ulpbit)
            rem[i] = 0;
        else
            rem[i] = mag[i] % ((uint64_t)1 << (ulpbit - lo));
    }
    half[(ulpbit - 1) / 32] = (uint64_t)1 << ((ulpbit - 1) % 32);
    int rc = ref_cmp(rem, half);
    if (rc > 0 || (rc == 0 && (q % 2) == 1))
        q++;
    if (q == 16777216u) {
        q = 8388608u;
        ulpbit++;
    }
    if (q < 8388608u) /* subnormal: only possible with the fixed ulp */
        return sign | (uint32_t)q;
    int ebias = ulpbit + REF_LSB_EXP + 23 + 127; /* value = q * 2^(ulpbit-160), q in [2^23, 2^24) */
    if (ebias >= 255)
        return sign | PINF;
    return sign | ((uint32_t)ebias << 23) | (uint32_t)(q - 8388608u);
}

/* ---- random value generators ------------------------------------------- */

static uint32_t mk(uint32_t sign, uint32_t ef, uint32_t frac)
{
    return (sign << 31) | (ef << 23) | (frac & 0x7fffffu);
}

/* A fraction biased towards edge patterns. */
static uint32_t rand_frac(uint64_t *s)
{
    switch (rng_below(s, 8)) {
    case 0: return 0;
    case 1: return 0x7fffffu;
    case 2: return rng_below(s, 4);
    case 3: return 0x7fffffu - rng_below(s, 4);
    case 4: return 0x400000u + rng_below(s, 3) - 1u;
    default: return rng32(s) & 0x7fffffu;
    }
}

static uint32_t clamp_ef(int e, int lo, int hi)
{
    return (uint32_t)(e < lo ? lo : e > hi ? hi : e);
}

/* A random finite value, exponent field in [elo, ehi], random sign; some zeros. */
static uint32_t rand_finite(uint64_t *s, int elo, int ehi)
{
    if (rng_below(s, 32) == 0)
        return rng_below(s, 2) ? SIGN : 0;
    uint32_t ef = (uint32_t)elo + rng_below(s, (uint32_t)(ehi - elo + 1));
    return mk(rng_below(s, 2), ef, rand_frac(s));
}

enum { SET_WIDE, SET_WINDOW, SET_CANCEL, SET_SUBNORMAL, SET_HUGE, SET_BIGCANCEL, SET_KINDS };

static void gen_set(uint64_t *s, int kind, uint32_t *v, size_t n)
{
    int c = 1 + (int)rng_below(s, 254);
    size_t h = n / 2, t = n / 3;
    switch (kind) {
    case SET_WIDE:
        for (size_t i = 0; i < n; i++)
            v[i] = rand_finite(s, 0, 254);
        break;
    case SET_WINDOW:
        for (size_t i = 0; i < n; i++)
            v[i] = rand_finite(s, (int)clamp_ef(c - 12, 0, 254), (int)clamp_ef(c + 12, 0, 254));
        break;
    case SET_CANCEL: /* exact negations, some perturbed in the last bit */
        for (size_t i = 0; i < h; i++)
            v[i] = rng_below(s, 2) ? rand_finite(s, 0, 254)
                                   : rand_finite(s, (int)clamp_ef(c - 8, 0, 254),
                                                 (int)clamp_ef(c + 8, 0, 254));
        for (size_t i = h; i < 2 * h; i++) {
            v[i] = v[i - h] ^ SIGN;
            if (rng_below(s, 4) == 0)
                v[i] ^= 1u;
        }
        for (size_t i = 2 * h; i < n; i++)
            v[i] = rand_finite(s, 0, 30);
        shuffle(v, n, s);
        break;
    case SET_SUBNORMAL:
        for (size_t i = 0; i < n; i++)
            v[i] = rand_finite(s, 0, 3);
        break;
    case SET_HUGE: /* overflow on the way, possibly back in range at the end */
        for (size_t i = 0; i < n; i++)
            v[i] = rand_finite(s, 248, 254);
        break;
    case SET_BIGCANCEL: /* large values cancel exactly, small ones decide the result */
        for (size_t i = 0; i < t; i++)
            v[i] = rand_finite(s, 150 + (int)rng_below(s, 50), 254);
        for (size_t i = t; i < 2 * t; i++)
            v[i] = v[i - t] ^ SIGN;
        for (size_t i = 2 * t; i < n; i++)
            v[i] = rand_finite(s, 0, 140);
        shuffle(v, n, s);
        break;
    default:
        fail();
    }
}

/* A random operand pair from one of several distributions. */
static void gen_pair(uint64_t *s, uint32_t *a, uint32_t *b)
{
    static const uint32_t special[] = {0, SIGN, PINF, NINF, WS_QNAN, 0xffc00000u, 0x7f800001u,
                                       0xffffffffu, FMAX, FMAX | SIGN, 1, SIGN | 1, 0x800000u,
                                       ONE, HALF_ULP_MAX};
    uint32_t x = rng32(s), ea = (x >> 23) & 0xffu;
    switch (rng_below(s, 8)) {
    case 0: /* random bits */
        *a = x;
        *b = rng32(s);
        break;
    case 1: /* nearby exponents */
        *a = x;
        *b = mk(rng_below(s, 2), clamp_ef((int)ea - 26 + (int)rng_below(s, 53), 0, 254),
                rand_frac(s));
        break;
    case 2: /* subnormals and the smallest normals */
        *a = rand_finite(s, 0, 2);
        *b = rand_finite(s, 0, 2);
        break;
    case 3: /* near FLT_MAX, including the half-ulp threshold */
        *a = rand_finite(s, 252, 254);
        *b = rng_below(s, 2) ? rand_finite(s, 226, 254)
                             : ((HALF_ULP_MAX + rng_below(s, 5) - 2u) | (rng32(s) & SIGN));
        break;
    case 4: /* exact or nearly exact negatives */
        *a = rand_finite(s, 0, 254);
        *b = (*a ^ SIGN) + (rng_below(s, 2) ? rng_below(s, 5) - 2u : 0u);
        break;
    case 5: /* rounding ties and near ties: b about half an ulp of a */
        ea = 25 + rng_below(s, 230);
        *a = mk(rng_below(s, 2), ea, rand_frac(s));
        *b = mk(rng_below(s, 2), ea - 24 - rng_below(s, 2), rand_frac(s));
        break;
    case 6: /* specials against anything */
        *a = special[rng_below(s, sizeof special / sizeof special[0])];
        *b = rng_below(s, 2) ? x : special[rng_below(s, sizeof special / sizeof special[0])];
        break;
    default: /* both finite, exponents anywhere */
        *a = rand_finite(s, 0, 254);
        *b = rand_finite(s, 0, 254);
        break;
    }
}

/* ---- tests --------------------------------------------------------------- */

static void test_zeros(void **state)
{
    (void)state;
    ws_xsum x;
    ws_xsum_init(&x);
    assert_int_equal(ws_xsum_round(&x), 0);      /* empty sum */
    assert_int_equal(ws_sum_f32(NULL, 0), 0);
    CHECK2(0, SIGN, 0);
    CHECK2(0, 0, 0);
    CHECK2(SIGN, SIGN, SIGN);
    CHECK_SUM(SIGN, SIGN);
    CHECK_SUM(0, 0);
    CHECK_SUM(0, SIGN, SIGN, 0);
    CHECK_SUM(0, SIGN, ONE, ONE | SIGN);
    static const uint32_t xs[] = {1, 2, 0x7fffffu, 0x800000u, 0x800001u, ONE, 0x12345678u,
                                  HALF_ULP_MAX, FMAX};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        CHECK2(xs[i], xs[i] ^ SIGN, 0);
        CHECK_SUM(0, SIGN, xs[i], SIGN, xs[i] ^ SIGN, SIGN);
    }
    uint32_t negz[100];
    for (size_t i = 0; i < 100; i++)
        negz[i] = SIGN;
    assert_int_equal(sum_arr(negz, 100), SIGN);
    negz[57] = 0;
    assert_int_equal(sum_arr(negz, 100), 0);
}

static void test_subnormal_boundaries(void **state)
{
    (void)state;
    CHECK_SUM(1, 1);
    CHECK_SUM(SIGN | 1, SIGN | 1);
    CHECK_SUM(0x7fffffu, 0x7fffffu);
    CHECK_SUM(0x800000u, 0x800000u);
    CHECK_SUM(0x80800000u, 0x80800000u);
    CHECK2(1, 1, 2);
    CHECK2(0x7fffffu, 1, 0x800000u);                 /* max subnormal + min -> min normal */
    CHECK2(0x807fffffu, SIGN | 1, 0x80800000u);
    CHECK2(0x400000u, 0x400000u, 0x800000u);
    CHECK2(0x7fffffu, 0x7fffffu, 0xfffffeu);         /* exact, exponent field 1 */
    CHECK2(0xffffffu, 1, 0x1000000u);                /* exponent field 1 -> 2 */
    CHECK2(0x80ffffffu, SIGN | 1, 0x81000000u);
    CHECK2(0x1000000u, SIGN | 1, 0xffffffu);         /* 2^-125 - 2^-149, exact */
    CHECK2(0x800000u, SIGN | 1, 0x7fffffu);          /* min normal - min subnormal */
    CHECK2(0x800001u, 0x80800000u, 1);               /* normal - normal = min subnormal */
    CHECK2(0xc00000u, 0x80800000u, 0x400000u);       /* normal - normal into subnormals */
    CHECK2(0x1800000u, 0x81400000u, 0x800000u);      /* 2^-124 - 1.5*2^-125 = 2^-126 */
    CHECK2(0x123456u, 0x80654321u, 0x80530ecbu);     /* subnormal - subnormal */
    CHECK2(ONE, 1, ONE);                             /* far below half an ulp */
    CHECK_SUM(0x800000u, 0x7ffffeu, 1, 1);
    CHECK_SUM(0x7fffffu, 0x800000u, 0x800000u, 0x80800001u, 0x80000000u);
    uint32_t ones[1000];
    for (size_t i = 0; i < 1000; i++)
        ones[i] = 1;
    assert_int_equal(sum_arr(ones, 1000), 1000);
    /* 2^23 min subnormals = min normal, built with merges */
    ws_xsum x;
    ws_xsum_init(&x);
    ws_xsum_add(&x, 1);
    for (int i = 0; i < 23; i++) {
        ws_xsum y = x;
        ws_xsum_merge(&x, &y);
    }
    assert_int_equal(ws_xsum_round(&x), 0x800000u);
    ws_xsum_add(&x, SIGN | 1);
    assert_int_equal(ws_xsum_round(&x), 0x7fffffu);
}

static void test_ties_to_even(void **state)
{
    (void)state;
    /* two operands, binade [1,2): ulp 2^-23, half ulp 2^-24 = 0x33800000 */
    CHECK2(ONE, 0x33800000u, ONE);                   /* tie, down to even */
    CHECK2(0x3f800001u, 0x33800000u, 0x3f800002u);   /* tie, up to even */
    CHECK2(ONE, 0x33800001u, 0x3f800001u);           /* just above half */
    CHECK2(ONE, 0x337fffffu, ONE);                   /* just below half */
    CHECK2(0x3f800001u, 0x337fffffu, 0x3f800001u);
    CHECK2(0x3f800001u, 0xb3800000u, ONE);           /* 1 + 2^-24: tie to even 1.0 */
    CHECK2(ONE, 0xb3800000u, 0x3f7fffffu);           /* 1 - 2^-24: exact */
    CHECK2(ONE, 0xb3000000u, ONE);                   /* 1 - 2^-25: tie, up to even */
    CHECK2(0x3f7fffffu, 0x33000000u, 0x3f800000u);   /* tie, odd goes up */
    CHECK2(0x3f7ffffeu, 0x33000000u, 0x3f7ffffeu);   /* tie, even stays */
    CHECK2(0x3fffffffu, 0x33800000u, 0x40000000u);   /* tie carries into next binade */
    CHECK2(0xbf800000u, 0xb3800000u, 0xbf800000u);   /* negative ties */
    CHECK2(0xbf800001u, 0xb3800000u, 0xbf800002u);
    CHECK2(0x71800000u, 0x65800000u, 0x71800000u);   /* 2^100 + 2^76 */
    CHECK2(0x71800001u, 0x65800000u, 0x71800002u);
    CHECK2(0x00ffffffu, 0x00000001u, 0x01000000u);
    /* many contributions: the sticky bit comes from far away */
    CHECK_SUM(0x3f800001u, ONE, 0x33800000u, 1);     /* 1 + 2^-24 + 2^-149 */
    CHECK_SUM(ONE, ONE, 0x33800000u, SIGN | 1);      /* 1 + 2^-24 - 2^-149 */
    CHECK_SUM(ONE, ONE, 0x33800000u, 1, SIGN | 1);   /* sticky cancelled exactly */
    CHECK_SUM(0x3f800001u, 0x3f800001u, 0x33800000u, SIGN | 1);
    CHECK_SUM(ONE, ONE, 0x33000000u, 0x33000000u);   /* 2^-25 + 2^-25 = half */
    CHECK_SUM(0x3f800002u, 0x3f800001u, 0x33000000u, 0x33000000u);
    CHECK_SUM(0x3f800001u, ONE, 0x33000000u, 0x33000000u, 1);
    CHECK_SUM(0x71800001u, 0x71800000u, 0x65800000u, 1);          /* across all limbs */
    CHECK_SUM(0x71800000u, 0x71800000u, 0x65800000u, SIGN | 1);
    CHECK_SUM(0x71800000u, 0x71800000u, 0x65800000u, 1, SIGN | 1, 0x80000000u);
    CHECK_SUM(0xf1800001u, 0xf1800000u, 0xe5800000u, SIGN | 1);
    /* big + tiny halves cancelling back to a tie */
    CHECK_SUM(ONE, ONE, 0x7f000000u, 0x33800000u, 0xff000000u);
}

static void test_overflow_threshold(void **state)
{
    (void)state;
    CHECK2(FMAX, 0x72ffffffu, FMAX);                 /* below half an ulp */
    CHECK2(FMAX, HALF_ULP_MAX, PINF);                /* tie: even neighbour is 2^128 */
    CHECK2(FMAX, 0x73000001u, PINF);
    CHECK2(FMAX, FMAX, PINF);
    CHECK2(FMAX | SIGN, FMAX | SIGN, NINF);
    CHECK2(FMAX | SIGN, HALF_ULP_MAX | SIGN, NINF);
    CHECK2(FMAX | SIGN, 0xf2ffffffu, FMAX | SIGN);
    CHECK2(FMAX, 0xf3800000u, 0x7f7ffffeu);          /* FLT_MAX - ulp */
    CHECK2(0x7f000000u, 0x7f000000u, PINF);          /* 2^127 + 2^127 */
    CHECK2(0x7f7ffffeu, 0x73800000u, FMAX);
    CHECK_SUM(FMAX, FMAX, HALF_ULP_MAX, SIGN | 1);   /* half minus a tiny bit */
    CHECK_SUM(PINF, FMAX, HALF_ULP_MAX, 1);
    CHECK_SUM(PINF, FMAX, 0x72ffffffu, 0x72ffffffu);
    CHECK_SUM(FMAX, FMAX, FMAX, FMAX | SIGN);        /* over and back: exact */
    CHECK_SUM(FMAX, FMAX | SIGN, FMAX, FMAX);
    CHECK_SUM(FMAX | SIGN, FMAX | SIGN, FMAX | SIGN, FMAX);
    CHECK_SUM(PINF, FMAX, FMAX, FMAX | SIGN, HALF_ULP_MAX);
    CHECK_SUM(0x7f7ffffeu, FMAX, FMAX, FMAX | SIGN, 0xf3800000u);
    uint32_t *v = malloc(200000 * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < 200000; i++)
        v[i] = i < 100000 ? FMAX : FMAX | SIGN;
    v[150000] = 0;
    assert_int_equal(sum_arr(v, 200000), FMAX);
    v[150000] = FMAX | SIGN;
    assert_int_equal(sum_arr(v, 200000), 0);
    v[150000] = PINF;
    assert_int_equal(sum_arr(v, 200000), PINF);
    free(v);
}

/* The accumulator stays exact with 2^40 times FLT_MAX (merges double it). */
static void test_capacity(void **state)
{
    (void)state;
    ws_xsum p, m;
    ws_xsum_init(&p);
    ws_xsum_init(&m);
    ws_xsum_add(&p, FMAX);
    ws_xsum_add(&m, FMAX | SIGN);
    for (int i = 0; i < 40; i++) {
        ws_xsum t = p;
        ws_xsum_merge(&p, &t);
        t = m;
        ws_xsum_merge(&m, &t);
    }
    assert_int_equal(ws_xsum_round(&p), PINF);
    assert_int_equal(ws_xsum_round(&m), NINF);
    ws_xsum_add(&p, 0x7f000000u);
    assert_int_equal(ws_xsum_round(&p), PINF);
    ws_xsum_merge(&p, &m);
    assert_int_equal(ws_xsum_round(&p), 0x7f000000u);
    ws_xsum_add(&p, 0xff000000u);
    assert_int_equal(ws_xsum_round(&p), 0);
    ws_xsum_add(&p, SIGN | 1);
    assert_int_equal(ws_xsum_round(&p), SIGN | 1);
}

static void test_total_cancellation(void **state)
{
    (void)state;
    uint64_t s = 0x5eed0001u;
    enum { H = 5000 };
    uint32_t *v = malloc(2 * H * sizeof *v);
    assert_non_null(v);
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < H; i++) {
            v[i] = rand_finite(&s, round == 1 ? 0 : 200 * (round == 2), round == 1 ? 3 : 254);
            v[H + i] = v[i] ^ SIGN;
        }
        shuffle(v, 2 * H, &s);
        assert_int_equal(sum_arr(v, 2 * H), 0);
        assert_int_equal(ref_sum(v, 2 * H), 0);
    }
    /* all -0 except cancelling pairs: still +0 */
    for (size_t i = 0; i < 2 * H; i++)
        v[i] = SIGN;
    v[17] = 0x3f812345u;
    v[4321] = 0xbf812345u;
    assert_int_equal(sum_arr(v, 2 * H), 0);
    free(v);
}

static void test_nan_inf(void **state)
{
    (void)state;
    CHECK2(WS_QNAN, ONE, WS_QNAN);
    CHECK2(0x7f800001u, 0, WS_QNAN);                 /* signalling NaN */
    CHECK2(0xffc00000u, ONE, WS_QNAN);               /* negative NaN */
    CHECK2(0xffc00000u, PINF, WS_QNAN);
    CHECK2(0x7fffffffu, NINF, WS_QNAN);
    CHECK2(WS_QNAN, SIGN, WS_QNAN);
    CHECK2(PINF, NINF, WS_QNAN);
    CHECK2(PINF, ONE, PINF);
    CHECK2(PINF, SIGN, PINF);
    CHECK2(NINF, 0x3f800000u, NINF);
    CHECK2(NINF, NINF, NINF);
    CHECK2(PINF, PINF, PINF);
    CHECK2(PINF, FMAX, PINF);
    CHECK2(NINF, FMAX, NINF);
    CHECK_SUM(WS_QNAN, 0xffffffffu);
    CHECK_SUM(WS_QNAN, 0x7f800001u);
    CHECK_SUM(WS_QNAN, SIGN, 0xff800001u, SIGN);
    CHECK_SUM(WS_QNAN, PINF, NINF, WS_QNAN);
    CHECK_SUM(WS_QNAN, PINF, ONE, NINF, ONE);
    CHECK_SUM(WS_QNAN, ONE, 0x7fc00001u, ONE | SIGN);
    CHECK_SUM(PINF, PINF, FMAX, FMAX);
    CHECK_SUM(PINF, PINF, FMAX | SIGN, FMAX | SIGN); /* finite part overflows the other way */
    CHECK_SUM(NINF, NINF, FMAX, FMAX, FMAX);
    CHECK_SUM(NINF, NINF, SIGN);
    CHECK_SUM(PINF, PINF, PINF, PINF);
}

static void test_merge(void **state)
{
    (void)state;
    ws_xsum a, b;
    /* -0 only in both partials (or one empty) keeps -0 */
    ws_xsum_init(&a);
    ws_xsum_init(&b);
    ws_xsum_add(&b, SIGN);
    ws_xsum_merge(&a, &b);
    assert_int_equal(ws_xsum_round(&a), SIGN);
    ws_xsum_merge(&a, &b);
    assert_int_equal(a.n, 2);
    assert_int_equal(ws_xsum_round(&a), SIGN);
    ws_xsum_init(&b);
    ws_xsum_add(&b, 0);
    ws_xsum_merge(&a, &b);
    assert_int_equal(ws_xsum_round(&a), 0);
    /* flags travel through merges */
    ws_xsum_init(&a);
    ws_xsum_init(&b);
    ws_xsum_add(&a, ONE);
    ws_xsum_add(&b, PINF);
    ws_xsum_merge(&a, &b);
    assert_int_equal(ws_xsum_round(&a), PINF);
    ws_xsum_init(&b);
    ws_xsum_add(&b, NINF);
    ws_xsum_merge(&a, &b);
    assert_int_equal(ws_xsum_round(&a), WS_QNAN);
    ws_xsum_init(&a);
    ws_xsum_init(&b);
    ws_xsum_add(&b, 0xffc00000u);
    ws_xsum_merge(&a, &b);
    assert_int_equal(ws_xsum_round(&a), WS_QNAN);
    /* negative and positive partials: carries across all limbs */
    ws_xsum_init(&a);
    ws_xsum_init(&b);
    ws_xsum_add(&a, 1);
    ws_xsum_add(&b, 0xbf800000u);
    ws_xsum_merge(&a, &b);
    assert_int_equal(ws_xsum_round(&a), 0xbf800000u);
    ws_xsum_add(&a, ONE);
    assert_int_equal(ws_xsum_round(&a), 1);
    /* n saturates */
    ws_xsum_init(&a);
    ws_xsum_init(&b);
    a.n = UINT32_MAX - 1;
    b.n = 5;
    ws_xsum_merge(&a, &b);
    assert_int_equal(a.n, UINT32_MAX);
    ws_xsum_add(&a, ONE);
    assert_int_equal(a.n, UINT32_MAX);
    assert_int_equal(ws_xsum_round(&a), ONE);
}

/* A lane and the accumulator it joins equal the accumulator of every value added directly, limb
 * for limb: values in the lane's window and out of it (specials, subnormals, large, the window's
 * edges), lanes of every sign up to WS_XSUM_LANE_MAX values, cancellation to exactly zero. */
static void test_lane(void **state)
{
    (void)state;
    uint64_t s = 0x1a9e5u;
    const uint32_t lo = WS_XSUM_LANE_E0 << 23, hi = (WS_XSUM_LANE_E0 + WS_XSUM_LANE_SPAN) << 23;
    const uint32_t edges[] = {lo, lo - 1, hi, hi - 1, lo | SIGN, (hi - 1) | SIGN, 0, SIGN, 1,
                              ONE, PINF, 0x7fc00000u};
    for (unsigned it = 0; it < 3000; it++) {
        ws_xsum direct, mixed;
        ws_xsum_init(&direct);
        ws_xsum_init(&mixed);
        int64_t lane = 0;
        uint32_t n_lane = 0;
        unsigned n = it == 0 ? WS_XSUM_LANE_MAX : 1 + (unsigned)(rng_next(&s) % 300);
        for (unsigned k = 0; k < n; k++) {
            uint64_t r = rng_next(&s);
            uint32_t b;
            if (it == 0) /* the most the lane takes, every one the largest, one sign */
                b = hi - 1;
            else if (r % 16 == 0)
                b = edges[(r >> 8) % (sizeof edges / sizeof edges[0])];
            else if (r % 16 == 1)
                b = (uint32_t)(r >> 32); /* any pattern */
            else /* in the window */
                b = (uint32_t)((r >> 40) & 1) << 31 |
                    (WS_XSUM_LANE_E0 + (uint32_t)((r >> 8) % WS_XSUM_LANE_SPAN)) << 23 |
                    (uint32_t)(r >> 41 & 0x7fffff);
            ws_xsum_add(&direct, b);
            if (ws_xsum_lane(&lane, b))
                n_lane++;
            else
                ws_xsum_add(&mixed, b);
        }
        if (it == 1) { /* cancelled to zero in the lane: still values that were not -0 */
            ws_xsum_init(&direct);
            ws_xsum_init(&mixed);
            ws_xsum_add(&direct, SIGN);
            ws_xsum_add(&mixed, SIGN);
            lane = 0;
            n_lane = 0;
            for (uint32_t b = lo; b < lo + 4; b++) {
                ws_xsum_add(&direct, b);
                ws_xsum_add(&direct, b | SIGN);
                assert_true(ws_xsum_lane(&lane, b) && ws_xsum_lane(&lane, b | SIGN));
                n_lane += 2;
            }
            assert_int_equal(lane, 0);
        }
        ws_xsum_add_lane(&mixed, lane, n_lane);
        assert_memory_equal(direct.limb, mixed.limb, sizeof direct.limb);
        assert_int_equal(direct.n, mixed.n);
        assert_int_equal(direct.not_negzero, mixed.not_negzero);
        assert_int_equal(direct.nan, mixed.nan);
        assert_int_equal(direct.pos_inf, mixed.pos_inf);
        assert_int_equal(direct.neg_inf, mixed.neg_inf);
        assert_int_equal(ws_xsum_round(&direct), ws_xsum_round(&mixed));
    }
}

static void test_order_independence(void **state)
{
    (void)state;
    uint64_t s = 0x0bde4u;
    enum { N = 2000, PARTS = 16 };
    uint32_t *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (int kind = 0; kind < SET_KINDS; kind++) {
        gen_set(&s, kind, v, N);
        uint32_t want = sum_arr(v, N);
        assert_int_equal(want, ref_sum(v, N));
        assert_int_equal(sum_rev(v, N), want);
        for (int perm = 0; perm < 10; perm++) {
            shuffle(v, N, &s);
            assert_int_equal(sum_arr(v, N), want);
        }
        for (int split = 0; split < 10; split++) {
            ws_xsum part[PARTS], all;
            uint32_t k = 2 + rng_below(&s, PARTS - 1);
            for (uint32_t p = 0; p < k; p++)
                ws_xsum_init(&part[p]);
            for (size_t i = 0; i < N; i++)
                ws_xsum_add(&part[rng_below(&s, k)], v[i]);
            ws_xsum_init(&all);
            for (uint32_t p = 0; p < k; p++) /* merge in a rotated order */
                ws_xsum_merge(&all, &part[(p + (uint32_t)split) % k]);
            assert_int_equal(all.n, N);
            assert_int_equal(ws_xsum_round(&all), want);
            /* pairwise tree merge */
            for (uint32_t w = 1; w < k; w *= 2)
                for (uint32_t p = 0; p + w < k; p += 2 * w)
                    ws_xsum_merge(&part[p], &part[p + w]);
            assert_int_equal(ws_xsum_round(&part[0]), want);
        }
    }
    free(v);
}

static void test_random_pairs_vs_fpu(void **state)
{
    (void)state;
    uint64_t s = 0xfeedf00du;
    for (uint32_t i = 0; i < N_PAIRS; i++) {
        uint32_t a, b;
        gen_pair(&s, &a, &b);
        uint32_t v1[2] = {a, b}, v2[2] = {b, a};
        uint32_t want = hw_add(a, b), g1 = ws_sum_f32(v1, 2), g2 = ws_sum_f32(v2, 2);
        if (g1 != want || g2 != want) {
            print_error("pair %u: %08x + %08x: fpu %08x, xsum %08x / %08x\n", (unsigned)i,
                        (unsigned)a, (unsigned)b, (unsigned)want, (unsigned)g1, (unsigned)g2);
            fail();
        }
    }
}

/* The second exact method must itself agree with the FPU on two operands. */
static void test_reference_vs_fpu(void **state)
{
    (void)state;
    uint64_t s = 0x12345u;
    for (uint32_t i = 0; i < N_REF_PAIRS; i++) {
        uint32_t v[2];
        gen_pair(&s, &v[0], &v[1]);
        if (((v[0] >> 23) & 0xffu) == 0xffu || ((v[1] >> 23) & 0xffu) == 0xffu)
            continue;
        uint32_t want = hw_add(v[0], v[1]), got = ref_sum(v, 2);
        if (got != want) {
            print_error("ref %08x + %08x: fpu %08x, ref %08x\n", (unsigned)v[0],
                        (unsigned)v[1], (unsigned)want, (unsigned)got);
            fail();
        }
    }
}

static void check_set(const uint32_t *v, size_t n, const char *what, unsigned idx)
{
    uint32_t want = ref_sum(v, n), got = sum_arr(v, n);
    if (got != want) {
        print_error("%s set %u (n=%zu): reference %08x, xsum %08x\n", what, idx, n,
                    (unsigned)want, (unsigned)got);
        fail();
    }
}

static void test_random_sets_vs_reference(void **state)
{
    (void)state;
    uint64_t s = 0xabcdef01u;
    uint32_t v[64];
    for (uint32_t i = 0; i < N_SETS; i++) {
        size_t n = 2 + rng_below(&s, 63);
        gen_set(&s, (int)(i % SET_KINDS), v, n);
        check_set(v, n, "small", i);
    }
}

static void test_big_sets_vs_reference(void **state)
{
    (void)state;
    uint64_t s = 0x77u;
    uint32_t *v = malloc(BIG_SET * sizeof *v);
    assert_non_null(v);
    for (uint32_t i = 0; i < N_BIG_SETS; i++) {
        gen_set(&s, (int)(i % SET_KINDS), v, BIG_SET);
        check_set(v, BIG_SET, "big", i);
        shuffle(v, BIG_SET, &s);
        check_set(v, BIG_SET, "big shuffled", i);
    }
    free(v);
}

/* Run ws_testfloat_run on text; return its result and the output in out (malloc'd). */
static int run_tf(const char *text, char **out)
{
    char *in = strdup(text);
    assert_non_null(in);
    FILE *fi = fmemopen(in, strlen(in), "r");
    assert_non_null(fi);
    size_t len = 0;
    FILE *fo = open_memstream(out, &len);
    assert_non_null(fo);
    int rc = ws_testfloat_run(fi, fo, "t", NULL);
    fclose(fo);
    fclose(fi);
    free(in);
    return rc;
}

static int count_lines_with(const char *text, const char *needle)
{
    int c = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        c++;
    return c;
}

static void test_testfloat_runner(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run_tf("# f32_add vectors\n"
                    "3F800000 BF800000 00000000 00\n"
                    "\n"
                    "3F800000 3F800000 40000000 00\n"
                    "7F800000 FF800000 FFFFFFFF 10\n"   /* any NaN expects 0x7fc00000 */
                    "7F7FFFFF 7F7FFFFF 7F800000 05\n"
                    "  00000001\t00000001 00000002 00\r\n"
                    "3f800000 33800000 3f800000 01\n",
                    &out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "testfloat: 6 cases, 0 mismatches\n"));
    free(out);

    rc = run_tf("3F800000 BF800000 00000000 00\n"
                "\n"
                "3F800000 3F800000 40000001 00\n"
                "7F800000 3F800000 7F800000 00\n",
                &out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "t:3: 3F800000 + 3F800000: expected 40000001, got 40000000\n"));
    assert_non_null(strstr(out, "testfloat: 3 cases, 1 mismatches\n"));
    free(out);

    /* a NaN result where a number is expected is a mismatch */
    rc = run_tf("7F800000 FF800000 00000000 00\n", &out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "t:1: 7F800000 + FF800000: expected 00000000, got 7FC00000\n"));
    free(out);

    /* more than 20 mismatches: 20 shown, then a count */
    char many[64 * 40] = "";
    for (int i = 0; i < 25; i++)
        strcat(many, "00000000 00000000 00000001 00\n");
    rc = run_tf(many, &out);
    assert_int_equal(rc, 25);
    assert_int_equal(count_lines_with(out, ": expected 00000001, got 00000000\n"), 20);
    assert_non_null(strstr(out, "t:20: "));
    assert_null(strstr(out, "t:21: "));
    assert_non_null(strstr(out, "5 more mismatches"));
    assert_non_null(strstr(out, "testfloat: 25 cases, 25 mismatches\n"));
    free(out);

    static const char *const bad[] = {
        "3F800000 BF800000 00000000 00\n3F800000 BF800000 00000000\n",
        "3F800000 BF800000 00000000 00\n3F800000 BF800000 00000000 00 00\n",
        "3F800000 BF800000 00000000 00\n3F80000G BF800000 00000000 00\n",
        "3F800000 BF800000 00000000 00\n13F800000 BF800000 00000000 00\n",
        "3F800000 BF800000 00000000 00\n0x3F8000 BF800000 00000000 00\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = run_tf(bad[i], &out);
        assert_int_equal(rc, -1);
        assert_non_null(strstr(out, "t:2: malformed f32_add line: "));
        assert_null(strstr(out, "testfloat:"));
        free(out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zeros),
        cmocka_unit_test(test_subnormal_boundaries),
        cmocka_unit_test(test_ties_to_even),
        cmocka_unit_test(test_overflow_threshold),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_total_cancellation),
        cmocka_unit_test(test_nan_inf),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_lane),
        cmocka_unit_test(test_order_independence),
        cmocka_unit_test(test_random_pairs_vs_fpu),
        cmocka_unit_test(test_reference_vs_fpu),
        cmocka_unit_test(test_random_sets_vs_reference),
        cmocka_unit_test(test_big_sets_vs_reference),
        cmocka_unit_test(test_testfloat_runner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
