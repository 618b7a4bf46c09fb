/* tool_acc_lane_vectors.c - test vectors for the exact accumulator lane (hw/ws_acc_lane.v) and
 * its converters (hw/ws_f32_to_fx.v, hw/ws_fx_to_f32.v), expected values from driver/xsum.c.
 *
 *   tool_acc_lane_vectors OPS.hex EXPECTED.hex [N_OPS] [SEED]
 *       Operations for tests/hw/tb_ws_acc_lane.v: many rounds of 1..64 contributions over a few
 *       addresses, interleaved, so that operations on one address follow each other at every
 *       distance (back to back included) and a round often starts right after the previous
 *       round on the same address ends. Values: TestFloat-style edge cases, ties, cancellation,
 *       subnormals, near-overflow, NaN/Inf mixes, random gradients and random bit patterns.
 *       OPS.hex, one 64-bit hex word a line ($readmemh):
 *         word 0       {bubble seed[31:0], number of operations[31:0]}
 *         word 1..N    {14'b0, first, last, addr[15:0], value[31:0]}
 *       EXPECTED.hex: word 0 the number of results, then {16'b0, addr[15:0], result[31:0]} in
 *       the order of the operations that carry `last`.
 *   tool_acc_lane_vectors --units UNITS.hex [N_RANDOM] [SEED]
 *       Converter vectors for tests/hw/tb_ws_fx_to_f32.v, one 360-bit hex word a line:
 *         {kind[3:0], f[31:0], flags[3:0] (nan, pinf, ninf, notnegzero), fx[319:0]}
 *       kind 0: f -> fx, flags (ws_f32_to_fx);  kind 1: fx, flags -> f (ws_fx_to_f32).
 *       fx is two's complement with LSB 2^-149, |fx| < 2^283 (fits ACC_W = 284). Word 0 is the
 *       number of vectors.
 * N_OPS defaults to 20000 (more are written to close the rounds still open), N_RANDOM to
 * 20000, SEED to 1. Prints a one-line summary on stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "wiresum/xsum.h"

#define MAX_ROUND 64  /* contributions per round: ACC_W = 284 holds 64 of the largest terms */
#define MAX_OPEN 8    /* rounds open at once */
#define ADDR_POOL 64  /* addresses used (the testbench's DEPTH must be at least this) */

static const uint32_t edge[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff,
    0x00400000, 0x00800000, 0x80800000, 0x00800001, 0x00ffffff, 0x01000000, 0x3f800000,
    0xbf800000, 0x3f800001, 0x3f7fffff, 0x33800000, 0x33800001, 0xb3800000, 0x34000000,
    0x7f7fffff, 0xff7fffff, 0x7f7ffffe, 0x7f000000, 0xff000000, 0x73000000, 0xf3000000,
    0x72800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff,
    0x4b800000, 0x4b7fffff, 0x0b000000, 0x40000000, 0xc0400000};
#define N_EDGE (sizeof edge / sizeof edge[0])

static uint32_t f32(uint32_t s, uint32_t e, uint32_t m)
{
    return (s << 31) | ((e & 0xffu) << 23) | (m & 0x7fffffu);
}

/* A finite binary32 with exponent field in [lo, hi] (clamped to 0..254), random sign/mantissa. */
static uint32_t rnd_finite(ws_rng *r, int lo, int hi)
{
    if (lo < 0)
        lo = 0;
    if (hi > 254)
        hi = 254;
    if (hi < lo)
        hi = lo;
    uint64_t x = ws_rng_next(r);
    return f32((uint32_t)(x >> 63), (uint32_t)lo + (uint32_t)ws_rng_below(r, (uint64_t)(hi - lo + 1)),
               (uint32_t)x);
}

/* 2^k as binary32 bits, k in -149..127. */
static uint32_t pow2(int k)
{
    if (k >= -126)
        return f32(0, (uint32_t)(k + 127), 0);
    return 1u << (k + 149);
}

static void shuffle(ws_rng *r, uint32_t *v, unsigned n)
{
    for (unsigned i = n; i > 1; i--) {
        unsigned j = (unsigned)ws_rng_below(r, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Round size: often tiny, otherwise uniform in 1..64. */
static unsigned rnd_size(ws_rng *r)
{
    if (ws_rng_chance(r, 0.3))
        return 1 + (unsigned)ws_rng_below(r, 4);
    return 1 + (unsigned)ws_rng_below(r, MAX_ROUND);
}

/* Fill v with the values of one round; returns the size (1..64). */
static unsigned gen_round(ws_rng *r, uint32_t *v, unsigned *kind_out)
{
    unsigned kind = (unsigned)ws_rng_below(r, 13);
    unsigned n = rnd_size(r);
    *kind_out = kind;
    switch (kind) {
    case 0: { /* random gradients around a random scale */
        int c = 90 + (int)ws_rng_below(r, 60);
        for (unsigned i = 0; i < n; i++)
            v[i] = rnd_finite(r, c - 10, c + 3);
        break;
    }
    case 1: /* random bit patterns, NaN/Inf made rare */
        for (unsigned i = 0; i < n; i++) {
            v[i] = (uint32_t)ws_rng_next(r);
            if (((v[i] >> 23) & 0xffu) == 0xffu && !ws_rng_chance(r, 0.05))
                v[i] &= 0xbfffffffu;
        }
        break;
    case 2: /* edge values */
        for (unsigned i = 0; i < n; i++)
            v[i] = edge[ws_rng_below(r, N_EDGE)];
        break;
    case 3: /* subnormals and the smallest normals */
        for (unsigned i = 0; i < n; i++)
            v[i] = rnd_finite(r, 0, ws_rng_chance(r, 0.8) ? 0 : 2);
        break;
    case 4: { /* zeros: all -0, or a mix with +0, or zeros plus a cancelling pair */
        unsigned sub = (unsigned)ws_rng_below(r, 3);
        for (unsigned i = 0; i < n; i++)
            v[i] = sub == 0 ? 0x80000000u : (ws_rng_chance(r, 0.5) ? 0x80000000u : 0);
        if (sub == 2 && n >= 2) {
            v[0] = rnd_finite(r, 0, 254);
            v[1] = v[0] ^ 0x80000000u;
            shuffle(r, v, n);
        }
        break;
    }
    case 5: { /* cancellation: random values, then most of their negations */
        unsigned h = (n + 1) / 2;
        for (unsigned i = 0; i < h; i++)
            v[i] = rnd_finite(r, 0, 254);
        for (unsigned i = h; i < n; i++)
            v[i] = v[i - h] ^ 0x80000000u;
        if (n > 2 && ws_rng_chance(r, 0.5)) /* leave a residue */
            v[n - 1] = rnd_finite(r, 0, 40 + (int)ws_rng_below(r, 200));
        shuffle(r, v, n);
        break;
    }
    case 6: /* near overflow: the top binade, FLT_MAX, half an ulp of FLT_MAX */
        for (unsigned i = 0; i < n; i++) {
            switch (ws_rng_below(r, 6)) {
            case 0: v[i] = 0x7f7fffffu; break;
            case 1: v[i] = 0x73000000u; break;               /* 2^103, half ulp at the top */
            case 2: v[i] = rnd_finite(r, 100, 102); break;   /* below half an ulp */
            case 3: v[i] = rnd_finite(r, 254, 254) & 0x7fffffffu; break;
            case 4: v[i] = rnd_finite(r, 240, 254); break;
            default: v[i] = 0xff7fffffu; break;
            }
        }
        break;
    case 7: { /* ties: B + half an ulp of B (+ a sticky bit), the rest cancelling pairs */
        uint32_t e = 2 + (uint32_t)ws_rng_below(r, 252);
        uint32_t b = f32(0, e, (uint32_t)ws_rng_next(r));
        uint32_t half = pow2((int)e - 127 - 24); /* ulp(B) = 2^(e-150), half = 2^(e-151) */
        unsigned k = 0;
        v[k++] = b;
        if (n >= 2)
            v[k++] = half;
        if (n >= 3 && ws_rng_chance(r, 0.4)) {
            int lo = (int)e - 127 - 60;
            if (lo < -149)
                lo = -149;
            v[k++] = f32(ws_rng_chance(r, 0.5), 0, 0) | pow2(lo + (int)ws_rng_below(r, 20));
        }
        while (k + 1 < n) {
            uint32_t x = rnd_finite(r, 0, 254);
            v[k++] = x;
            v[k++] = x ^ 0x80000000u;
        }
        if (k < n)
            v[k++] = ws_rng_chance(r, 0.5) ? 0 : 0x80000000u;
        if (ws_rng_chance(r, 0.5))
            for (unsigned i = 0; i < n; i++)
                v[i] ^= 0x80000000u;
        shuffle(r, v, n);
        break;
    }
    case 8: { /* sums at and around -2^k and +2^k: pieces of a power of two, plus a nudge */
        int k = -120 + (int)ws_rng_below(r, 246); /* 2^k, k in -120..125 */
        uint32_t s = ws_rng_chance(r, 0.7) ? 1u : 0u;
        unsigned m = 0;
        int rest = k; /* 2^k = 2^(k-1) + 2^(k-2) + ... + 2^(k-j) + 2^(k-j) */
        while (m + 2 < n && m < 8 && rest - 1 >= -149) {
            v[m++] = f32(s, 0, 0) | pow2(rest - 1);
            rest--;
        }
        v[m++] = f32(s, 0, 0) | pow2(rest);
        if (m < n && ws_rng_chance(r, 0.7)) { /* nudge below the rounding position or at it */
            int j = k - 30 + (int)ws_rng_below(r, 10);
            if (j < -149)
                j = -149;
            v[m++] = f32(ws_rng_chance(r, 0.5), 0, 0) | pow2(j);
        }
        n = m;
        shuffle(r, v, n);
        break;
    }
    case 9: /* the whole dynamic range, both signs */
        for (unsigned i = 0; i < n; i++)
            v[i] = rnd_finite(r, 0, 254);
        if (n >= 3) { /* huge + tiny - huge */
            v[1] = v[0] ^ 0x80000000u;
            v[2] = rnd_finite(r, 0, 30);
        }
        break;
    case 10: { /* NaN / Inf mixes with ordinary values */
        uint32_t sp[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc00001u};
        unsigned sub = (unsigned)ws_rng_below(r, 4); /* +Inf / -Inf / both / NaNs */
        for (unsigned i = 0; i < n; i++)
            v[i] = rnd_finite(r, 0, 254);
        v[0] = sub == 0 ? sp[0] : sub == 1 ? sp[1] : sub == 2 ? sp[0] : sp[2 + ws_rng_below(r, 3)];
        if (n >= 2 && sub == 2)
            v[1] = sp[1];
        if (n >= 3 && ws_rng_chance(r, 0.5))
            v[2] = sp[ws_rng_below(r, sub == 3 ? 5 : 1) + (sub == 1 ? 1 : 0)];
        shuffle(r, v, n);
        break;
    }
    case 11: { /* two contributions, f32_add style: edge pairs, cancellation, same binade, tiny */
        n = 2;
        uint64_t x = ws_rng_next(r);
        uint32_t a = (uint32_t)x;
        switch (x >> 62) {
        case 0: a = edge[ws_rng_below(r, N_EDGE)]; v[1] = edge[ws_rng_below(r, N_EDGE)]; break;
        case 1: v[1] = (a ^ 0x80000000u) + (uint32_t)((x >> 40) % 64) - 32; break;
        case 2: v[1] = (a & 0xff800000u) | (uint32_t)((x >> 41) & 0x7fffffu); break;
        default: a &= 0x80ffffffu; v[1] = (uint32_t)(x >> 32) & 0x80ffffffu; break;
        }
        v[0] = a;
        break;
    }
    default: { /* carries across binades, up to 64 of the largest terms */
        uint32_t e = (uint32_t)ws_rng_below(r, 255);
        uint32_t s = ws_rng_chance(r, 0.5) ? 1u : 0u;
        uint32_t m0 = ws_rng_chance(r, 0.5) ? 0x7fffffu : (uint32_t)ws_rng_next(r);
        for (unsigned i = 0; i < n; i++)
            v[i] = f32(s, e, m0 - (uint32_t)ws_rng_below(r, 3));
        break;
    }
    }
    return n;
}

typedef struct {
    unsigned addr;
    unsigned n, done;
    uint32_t v[MAX_ROUND];
    ws_xsum x;
} lane_round;

static int write_ops(const char *ops_path, const char *exp_path, unsigned long n_ops, uint64_t seed)
{
    ws_rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
    FILE *fo = fopen(ops_path, "w");
    FILE *fe = fopen(exp_path, "w");
    if (!fo || !fe) {
        perror(!fo ? ops_path : exp_path);
        if (fo)
            fclose(fo);
        if (fe)
            fclose(fe);
        return 1;
    }
    /* headers are rewritten at the end, fixed width */
    fprintf(fo, "%016llx\n", 0ull);
    fprintf(fe, "%016llx\n", 0ull);

    static lane_round open[MAX_OPEN];
    unsigned n_open = 0, max_open = 1, pool = 1, prev = 0;
    double stick = 0.5;
    unsigned long ops = 0, results = 0, phase_left = 0;
    unsigned long dist[6] = {0}; /* same-address distance of each op: 1..4, 5 = >= 5 or none */
    unsigned long last_seen[ADDR_POOL];
    unsigned long kinds[13] = {0};
    for (unsigned a = 0; a < ADDR_POOL; a++)
        last_seen[a] = 0;

    while (ops < n_ops || n_open > 0) {
        if (phase_left == 0) { /* new traffic phase */
            static const unsigned mo[] = {1, 1, 2, 2, 3, 4, 6, 8};
            static const double st[] = {0.0, 0.3, 0.6, 0.9};
            max_open = mo[ws_rng_below(&r, 8)];
            pool = max_open + (unsigned)ws_rng_below(&r, ws_rng_chance(&r, 0.5) ? 2 : ADDR_POOL - max_open + 1);
            if (pool > ADDR_POOL)
                pool = ADDR_POOL;
            stick = st[ws_rng_below(&r, 4)];
            phase_left = 200 + ws_rng_below(&r, 3000);
        }
        phase_left--;
        /* open rounds up to max_open (none once enough operations are written) */
        while (ops < n_ops && n_open < max_open) {
            unsigned a, clash;
            do { /* a free address of the pool; the round just closed is a candidate too */
                a = (unsigned)ws_rng_below(&r, pool);
                clash = 0;
                for (unsigned i = 0; i < n_open; i++)
                    clash |= open[i].addr == a;
            } while (clash);
            lane_round *o = &open[n_open++];
            unsigned kind;
            o->addr = a;
            o->done = 0;
            o->n = gen_round(&r, o->v, &kind);
            kinds[kind]++;
            ws_xsum_init(&o->x);
        }
        /* which round gets this operation */
        unsigned i = n_open;
        for (unsigned j = 0; j < n_open; j++)
            if (open[j].addr == prev && ws_rng_chance(&r, stick))
                i = j;
        if (i == n_open)
            i = (unsigned)ws_rng_below(&r, n_open);
        lane_round *o = &open[i];
        uint32_t v = o->v[o->done];
        unsigned first = o->done == 0, last = o->done + 1 == o->n;
        ws_xsum_add(&o->x, v);
        o->done++;
        ops++;
        unsigned long d = last_seen[o->addr] ? ops - last_seen[o->addr] : 5;
        dist[d < 5 ? d : 5]++;
        last_seen[o->addr] = ops;
        prev = o->addr;
        fprintf(fo, "%016llx\n", (unsigned long long)(((uint64_t)first << 49) | ((uint64_t)last << 48) |
                                                      ((uint64_t)o->addr << 32) | v));
        if (last) {
            fprintf(fe, "%016llx\n", (unsigned long long)(((uint64_t)o->addr << 32) | ws_xsum_round(&o->x)));
            results++;
            open[i] = open[--n_open];
        }
    }
    uint32_t bubble_seed = (uint32_t)ws_rng_next(&r);
    rewind(fo);
    fprintf(fo, "%016llx\n", (unsigned long long)(((uint64_t)bubble_seed << 32) | ops));
    rewind(fe);
    fprintf(fe, "%016llx\n", (unsigned long long)results);
    int bad = ferror(fo) || ferror(fe);
    bad |= fclose(fo) != 0;
    bad |= fclose(fe) != 0;
    if (bad) {
        fprintf(stderr, "tool_acc_lane_vectors: write error\n");
        return 1;
    }
    printf("acc_lane vectors: %lu ops, %lu rounds; same-address distance 1:%lu 2:%lu 3:%lu 4:%lu "
           "other:%lu; kinds", ops, results, dist[1], dist[2], dist[3], dist[4], dist[5]);
    for (unsigned k = 0; k < 13; k++)
        printf(" %lu", kinds[k]);
    printf("\n");
    return 0;
}

/* ---- converter vectors ---- */

typedef struct {
    uint64_t l[WS_XSUM_LIMBS];
} big;

static void big_setbit(big *b, unsigned k)
{
    b->l[k / 64] |= (uint64_t)1 << (k % 64);
}

static void big_neg(big *b)
{
    uint64_t c = 1;
    for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
        b->l[j] = ~b->l[j] + c;
        c = c && b->l[j] == 0;
    }
}

static void put_unit(FILE *f, unsigned kind, uint32_t bits, unsigned flags, const big *b)
{
    fprintf(f, "%x%08x%x", kind, bits, flags);
    for (int j = WS_XSUM_LIMBS - 1; j >= 0; j--)
        fprintf(f, "%016llx", (unsigned long long)b->l[j]);
    fputc('\n', f);
}

static unsigned xs_flags(const ws_xsum *x)
{
    return (unsigned)(x->nan << 3 | x->pos_inf << 2 | x->neg_inf << 1 | x->not_negzero);
}

static void unit_convert(FILE *f, uint32_t bits, unsigned long *n)
{
    ws_xsum x;
    big b;
    ws_xsum_init(&x);
    ws_xsum_add(&x, bits);
    memcpy(b.l, x.limb, sizeof b.l);
    put_unit(f, 0, bits, xs_flags(&x), &b);
    (*n)++;
}

/* A rounding vector: magnitude with its leading one at p and the given low pattern, signed. */
static void unit_round(FILE *f, const big *mag, int neg, unsigned flags, unsigned long *n)
{
    ws_xsum x;
    big b = *mag;
    if (neg)
        big_neg(&b);
    ws_xsum_init(&x);
    memcpy(x.limb, b.l, sizeof b.l);
    x.nan = (uint8_t)(flags >> 3 & 1);
    x.pos_inf = (uint8_t)(flags >> 2 & 1);
    x.neg_inf = (uint8_t)(flags >> 1 & 1);
    x.not_negzero = (uint8_t)(flags & 1);
    x.n = 1;
    put_unit(f, 1, ws_xsum_round(&x), flags, &b);
    (*n)++;
}

#define FX_TOP 282 /* highest magnitude bit of a positive 284-bit value */

static int write_units(const char *path, unsigned long n_random, uint64_t seed)
{
    ws_rng r = {seed * 0x9e3779b97f4a7c15ull + 7};
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    unsigned long n = 0;
    fprintf(f, "%090x\n", 0); /* count, rewritten at the end */

    /* f32 -> fx: edges, every exponent with a few mantissas, random patterns */
    for (unsigned i = 0; i < N_EDGE; i++)
        unit_convert(f, edge[i], &n);
    for (uint32_t s = 0; s < 2; s++)
        for (uint32_t e = 0; e < 256; e++) {
            static const uint32_t ms[] = {0, 1, 2, 0x400000, 0x7ffffe, 0x7fffff};
            for (unsigned i = 0; i < 6; i++)
                unit_convert(f, f32(s, e, ms[i]), &n);
            unit_convert(f, f32(s, e, (uint32_t)ws_rng_next(&r)), &n);
        }
    for (unsigned long i = 0; i < n_random; i++)
        unit_convert(f, (uint32_t)ws_rng_next(&r), &n);

    /* fx -> f32: every leading-one position, both signs, each rounding case */
    for (unsigned p = 0; p <= FX_TOP; p++)
        for (int neg = 0; neg < 2; neg++)
            for (unsigned pat = 0; pat < 12; pat++) {
                big m = {{0}};
                big_setbit(&m, p);
                /* random bits between the leading one and the guard position */
                for (unsigned k = 0; k < p; k++)
                    if (ws_rng_chance(&r, 0.5))
                        big_setbit(&m, k);
                if (p >= 24) {
                    unsigned g = p - 24; /* guard position */
                    for (unsigned k = 0; k <= g; k++) /* clear guard and below */
                        m.l[k / 64] &= ~((uint64_t)1 << (k % 64));
                    switch (pat) {
                    case 0: break;                                  /* exact */
                    case 1: big_setbit(&m, g); break;               /* tie */
                    case 2:                                         /* tie, odd lsb */
                        big_setbit(&m, g);
                        big_setbit(&m, g + 1);
                        break;
                    case 3:                                         /* tie, even lsb */
                        big_setbit(&m, g);
                        m.l[(g + 1) / 64] &= ~((uint64_t)1 << ((g + 1) % 64));
                        break;
                    case 4:                                         /* above half */
                        big_setbit(&m, g);
                        if (g > 0)
                            big_setbit(&m, (unsigned)ws_rng_below(&r, g));
                        break;
                    case 5:                                         /* below half */
                        if (g > 0)
                            big_setbit(&m, (unsigned)ws_rng_below(&r, g));
                        break;
                    case 6:                                         /* all ones: carry out */
                        for (unsigned k = 0; k < p; k++)
                            big_setbit(&m, k);
                        break;
                    case 7:                                         /* all ones below guard */
                        for (unsigned k = 0; k < g; k++)
                            big_setbit(&m, k);
                        break;
                    case 8:                                         /* only the lowest bit */
                        big_setbit(&m, 0);
                        break;
                    case 9:                                         /* a power of two */
                        memset(&m, 0, sizeof m);
                        big_setbit(&m, p);
                        break;
                    case 10:                                        /* 2^p + 1 */
                        memset(&m, 0, sizeof m);
                        big_setbit(&m, p);
                        big_setbit(&m, 0);
                        break;
                    default:                                        /* random tail */
                        for (unsigned k = 0; k <= g; k++)
                            if (ws_rng_chance(&r, 0.5))
                                big_setbit(&m, k);
                        break;
                    }
                }
                unit_round(f, &m, neg, 1, &n);
            }
    {
        big m = {{0}};
        big_setbit(&m, FX_TOP + 1); /* -2^283, the most negative 284-bit value */
        unit_round(f, &m, 1, 1, &n);
        for (unsigned fl = 0; fl < 16; fl++) { /* every flag combination, zero and non-zero */
            big z = {{0}};
            unit_round(f, &z, 0, fl, &n);
            big_setbit(&z, (unsigned)ws_rng_below(&r, FX_TOP + 1));
            unit_round(f, &z, (int)(fl & 1), fl, &n);
        }
    }
    for (unsigned long i = 0; i < n_random; i++) {
        big m = {{0}};
        unsigned p = (unsigned)ws_rng_below(&r, FX_TOP + 1);
        for (unsigned j = 0; j < WS_XSUM_LIMBS; j++)
            m.l[j] = ws_rng_next(&r);
        for (unsigned k = p; k < 64 * WS_XSUM_LIMBS; k++)
            m.l[k / 64] &= ~((uint64_t)1 << (k % 64));
        big_setbit(&m, p);
        unit_round(f, &m, ws_rng_chance(&r, 0.5), ws_rng_chance(&r, 0.02) ? (unsigned)ws_rng_below(&r, 16) : 1,
                   &n);
    }
    rewind(f);
    fprintf(f, "%090lx\n", n);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "tool_acc_lane_vectors: write error on %s\n", path);
        return 1;
    }
    printf("converter vectors: %lu\n", n);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: tool_acc_lane_vectors OPS.hex EXPECTED.hex [N_OPS] [SEED]\n"
                    "       tool_acc_lane_vectors --units UNITS.hex [N_RANDOM] [SEED]\n");
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--units") == 0) {
        unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 0) : 20000;
        uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 1;
        if (argc > 5) {
            usage();
            return 2;
        }
        return write_units(argv[2], n, seed);
    }
    if (argc < 3 || argc > 5 || argv[1][0] == '-') {
        usage();
        return 2;
    }
    unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 0) : 20000;
    uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 1;
    if (n == 0 || n > 0xffffffffUL) {
        fprintf(stderr, "tool_acc_lane_vectors: N_OPS must be 1..2^32-1\n");
        return 2;
    }
    return write_ops(argv[1], argv[2], n, seed);
}
