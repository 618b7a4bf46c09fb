/* tool_partial_enc_vectors.c - vectors for tests/hw/tb_ws_partial_enc.v: rounds of exact sums as
 * the combine presents them to hw/ws_partial_enc.v (result-RAM rows of 320-bit two's complement
 * sums and flags), and the PARTIAL payloads they must give, built with driver/wire.c
 * ws_build_partial (so the RTL is checked word for word against the C codec).
 *
 * Usage: tool_partial_enc_vectors DATA_WIDTH OUTDIR [ROUNDS [SEED [MAX_COUNT]]]
 *
 * The sums are drawn by adding random binary32 values with ws_xsum_add (gradient-like values,
 * which need no record word; mixed magnitudes, which do; zeros of -0 only, +0 and cancelling
 * pairs; NaN and Infs among finite values), or set directly to random 320-bit values with
 * |v| < 2^307 (up to 6 words), a few with 2^307 <= |v| < 2^308 (E = 254), and, rarely, beyond:
 * |v| >= 2^308, which ws_xsum_encode refuses and the RTL sends as +-Inf (so the expected payload
 * is built from +-Inf for those). Rounds come in styles (plain, with records, mixed) so that some
 * run at one row a cycle and others are mostly records. Lanes outside the payload get garbage.
 *
 * Files written to OUTDIR (hex, one record a line):
 *   rows.hex   per input row: {2'b0, first, last, count[15:0], mask[LANES-1:0], sums}, sums lane l
 *              at [l*324 +: 324] = {nan, pinf, ninf, notnegzero, fx[319:0]}
 *   words.hex  the expected payload words (elements then records), round after round
 *   meta.hex   per round: {offset[31:0] into words.hex, count[15:0], ext[15:0], csum[15:0]}
 *   info.txt   nrows nrounds nwords (decimal)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"

#define SUM_BITS 320
#define LANE_BITS (SUM_BITS + 4)

typedef struct {
    ws_xsum x;    /* the exact sum the lane holds */
    ws_xsum want; /* what the encoder must send (x, or +-Inf beyond the encoding's range) */
} elem_t;

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tool_partial_enc_vectors: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return f;
}

static void close_out(FILE *f, const char *name)
{
    if (ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "tool_partial_enc_vectors: writing %s failed\n", name);
        exit(1);
    }
}

/* binary32 of random sign with exponent field e and a random significand */
static uint32_t f32(ws_rng *r, unsigned e)
{
    return (uint32_t)ws_rng_below(r, 2) << 31 | (uint32_t)e << 23 | ((uint32_t)ws_rng_next(r) & 0x7fffffu);
}

/* top set bit of the magnitude of x (-1 for 0) */
static int mag_top(const ws_xsum *x)
{
    uint64_t m[WS_XSUM_LIMBS];
    memcpy(m, x->limb, sizeof m);
    if (m[WS_XSUM_LIMBS - 1] >> 63) {
        uint64_t c = 1;
        for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
            m[j] = ~m[j] + c;
            c = c && m[j] == 0;
        }
    }
    for (int j = WS_XSUM_LIMBS - 1; j >= 0; j--)
        if (m[j])
            return j * 64 + 63 - __builtin_clzll(m[j]);
    return -1;
}

/* x = a random integer whose magnitude has its top bit at t, random sign */
static void raw_value(ws_rng *r, ws_xsum *x, unsigned t)
{
    ws_xsum_init(x);
    for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
        uint64_t w = ws_rng_next(r);
        switch (ws_rng_below(r, 4)) { /* runs of zeros and ones end words early or late */
        case 0: w = 0; break;
        case 1: w = UINT64_MAX; break;
        default: break;
        }
        unsigned lo = 64 * j;
        if (lo > t)
            w = 0;
        else if (t - lo < 63)
            w &= ((uint64_t)1 << (t - lo + 1)) - 1;
        if (t >= lo && t - lo < 64)
            w |= (uint64_t)1 << (t - lo);
        x->limb[j] = w;
    }
    if (ws_rng_below(r, 2)) { /* negate */
        uint64_t c = 1;
        for (unsigned j = 0; j < WS_XSUM_LIMBS; j++) {
            x->limb[j] = ~x->limb[j] + c;
            c = c && x->limb[j] == 0;
        }
    }
    x->n = 1;
    x->not_negzero = 1;
}

/* one element's sum; style 0: plain gradients, 1: records likely, 2: anything */
static void draw(ws_rng *r, elem_t *e, unsigned style)
{
    ws_xsum *x = &e->x;
    ws_xsum_init(x);
    unsigned k = (unsigned)ws_rng_below(r, 100), n = 1 + (unsigned)ws_rng_below(r, 8);
    if (style == 0)
        k = k < 90 ? 0 : k < 95 ? 60 : 70; /* gradients, a few zeros and specials */
    else if (style == 1)
        k = k < 10 ? 0 : 30 + k % 30;      /* mostly mixed magnitudes and raw values */
    if (k < 30) { /* gradient-like: exponents 100..126 */
        for (unsigned i = 0; i < n; i++)
            ws_xsum_add(x, f32(r, 100 + (unsigned)ws_rng_below(r, 27)));
    } else if (k < 45) { /* mixed magnitudes: any exponent (subnormals too) */
        for (unsigned i = 0; i < n + 1; i++)
            ws_xsum_add(x, f32(r, (unsigned)ws_rng_below(r, 255)));
    } else if (k < 52) { /* a big and a tiny value: a long run of zeros between them */
        ws_xsum_add(x, f32(r, 150 + (unsigned)ws_rng_below(r, 105)));
        ws_xsum_add(x, f32(r, (unsigned)ws_rng_below(r, 60)));
    } else if (k < 60) { /* raw 320-bit values, |v| < 2^307 */
        raw_value(r, x, (unsigned)ws_rng_below(r, 307));
    } else if (k < 66) { /* zeros */
        unsigned z = (unsigned)ws_rng_below(r, 3);
        for (unsigned i = 0; i < n; i++)
            ws_xsum_add(x, z == 0 ? 0x80000000u : (i & 1) ? 0x80000000u : 0);
        if (z == 2) { /* a value and its negation: zero, not all -0 */
            uint32_t v = f32(r, (unsigned)ws_rng_below(r, 255));
            ws_xsum_add(x, v);
            ws_xsum_add(x, v ^ 0x80000000u);
        }
    } else if (k < 72) { /* specials among finite values */
        static const uint32_t sp[] = {0x7fc00000u, 0x7f800000u, 0xff800000u, 0xffc00001u};
        for (unsigned i = 0; i < n; i++)
            ws_xsum_add(x, ws_rng_below(r, 3) ? f32(r, (unsigned)ws_rng_below(r, 255))
                                                : sp[ws_rng_below(r, 4)]);
    } else if (k < 76) { /* the largest finite values: exponent 254 */
        for (unsigned i = 0; i < n; i++)
            ws_xsum_add(x, f32(r, 254));
    } else if (k < 78) { /* 2^307 <= |v| < 2^308: E = 254 */
        raw_value(r, x, 307);
    } else if (k < 79) { /* beyond the encoding: +-Inf; rarely -2^319 itself */
        raw_value(r, x, 308 + (unsigned)ws_rng_below(r, 11));
        if (ws_rng_below(r, 8) == 0) {
            memset(x->limb, 0, sizeof x->limb);
            x->limb[WS_XSUM_LIMBS - 1] = (uint64_t)1 << 63;
        }
    } else { /* one value of any kind */
        ws_xsum_add(x, (uint32_t)ws_rng_next(r));
    }
    e->want = *x;
    if (!x->nan && !x->pos_inf && !x->neg_inf && mag_top(x) >= 308) {
        int neg = (int)(x->limb[WS_XSUM_LIMBS - 1] >> 63);
        ws_xsum_init(&e->want);
        e->want.n = 1;
        e->want.not_negzero = 1;
        e->want.pos_inf = (uint8_t)!neg;
        e->want.neg_inf = (uint8_t)neg;
    }
}

static unsigned rand_count(ws_rng *r, unsigned mc, unsigned bytes)
{
    unsigned k = (unsigned)ws_rng_below(r, 100);
    if (k < 10)
        return 1;
    if (k < 18)
        return mc;
    if (k < 35) { /* a payload ending on a beat boundary, or one element either side */
        unsigned nb = (64 + 4 * mc) / bytes;
        unsigned b = 1 + (unsigned)ws_rng_below(r, nb);
        long n = ((long)b * bytes - 64) / 4 + (long)ws_rng_below(r, 3) - 1;
        return n < 1 ? 1 : n > (long)mc ? mc : (unsigned)n;
    }
    if (k < 70)
        return 1 + (unsigned)ws_rng_below(r, mc < 40 ? mc : 40);
    return 1 + (unsigned)ws_rng_below(r, mc);
}

/* a lane as hex, MSB first: {nan, pinf, ninf, notnegzero} then the 320-bit sum */
static void put_lane(FILE *f, const ws_xsum *x)
{
    fprintf(f, "%x", (x->nan ? 8 : 0) | (x->pos_inf ? 4 : 0) | (x->neg_inf ? 2 : 0) | (x->not_negzero ? 1 : 0));
    for (int j = WS_XSUM_LIMBS - 1; j >= 0; j--)
        fprintf(f, "%016llx", (unsigned long long)x->limb[j]);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tool_partial_enc_vectors DATA_WIDTH OUTDIR [ROUNDS [SEED [MAX_COUNT]]]\n");
        return 2;
    }
    unsigned width = (unsigned)atoi(argv[1]);
    const char *dir = argv[2];
    unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 30;
    uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 1;
    unsigned mc = argc > 5 ? (unsigned)atoi(argv[5]) : 256;
    if ((width != 256 && width != 512 && width != 1024) || mc < 1 || mc > WS_LIMIT_COUNT || rounds < 1) {
        fprintf(stderr, "tool_partial_enc_vectors: bad arguments\n");
        return 2;
    }
    unsigned bytes = width / 8, lanes = width / 32, pay_beat0 = 64 / bytes;
    ws_rng r = {seed * 0x9e3779b97f4a7c15ull + 7};
    FILE *frows = open_out(dir, "rows.hex"), *fwords = open_out(dir, "words.hex"),
         *fmeta = open_out(dir, "meta.hex"), *finfo = open_out(dir, "info.txt");
    elem_t *el = calloc(mc, sizeof *el);
    ws_xsum *want = calloc(mc, sizeof *want);
    uint8_t *frame = malloc(ws_partial_max_len(mc));
    if (!el || !want || !frame) {
        fprintf(stderr, "tool_partial_enc_vectors: out of memory\n");
        return 1;
    }
    unsigned long nrows = 0, nwords = 0, nrec = 0, nspecial = 0, novf = 0, ne254 = 0, nnegz = 0, nposz = 0;
    for (unsigned rd = 0; rd < rounds; rd++) {
        unsigned count = rand_count(&r, mc, bytes);
        unsigned style = rd % 4 == 1 ? 1 : rd % 4 == 3 ? 2 : 0;
        for (unsigned i = 0; i < count; i++) {
            draw(&r, &el[i], style);
            want[i] = el[i].want;
            const ws_xsum *x = &el[i].x;
            int top = mag_top(x);
            if (x->nan || x->pos_inf || x->neg_inf)
                nspecial++;
            else if (top >= 308)
                novf++;
            else if (top == 307)
                ne254++;
            else if (top < 0 && !x->not_negzero)
                nnegz++;
            else if (top < 0)
                nposz++;
        }
        /* the expected payload: ws_build_partial on a header, the bytes after 64 */
        ws_hdr h;
        ws_hdr_init(&h);
        h.count = (uint16_t)count;
        size_t len = ws_build_partial(frame, &h, want);
        if (len == 0) {
            fprintf(stderr, "tool_partial_enc_vectors: ws_build_partial refused round %u\n", rd);
            return 1;
        }
        unsigned nw = (unsigned)(len - WS_OFF_ELEMS) / 8;
        if (nw != count + h.ext) {
            fprintf(stderr, "tool_partial_enc_vectors: round %u: %u words, count %u ext %u\n", rd, nw, count, h.ext);
            return 1;
        }
        uint32_t acc = 0;
        for (unsigned w = 0; w < nw; w++) {
            const uint8_t *p = frame + WS_OFF_ELEMS + 8 * w;
            uint64_t v = 0;
            for (unsigned b = 0; b < 8; b++)
                v = v << 8 | p[b];
            fprintf(fwords, "%016llx\n", (unsigned long long)v);
            for (unsigned b = 0; b < 8; b += 2) {
                acc += (uint32_t)(p[b] << 8 | p[b + 1]);
                acc = (acc & 0xffff) + (acc >> 16);
            }
        }
        acc = (acc & 0xffff) + (acc >> 16);
        fprintf(fmeta, "%08lx%04x%04x%04x\n", nwords, count, h.ext, acc & 0xffff);
        nwords += nw;
        nrec += h.ext;
        /* the rows, as the combine presents them */
        unsigned nr = (64 + 4 * count + bytes - 1) / bytes - pay_beat0;
        for (unsigned row = 0; row < nr; row++) {
            unsigned long long mask = 0;
            for (unsigned l = 0; l < lanes; l++) {
                long j = (long)(pay_beat0 + row) * lanes + l - 16;
                if (j >= 0 && j < (long)count)
                    mask |= 1ull << l;
            }
            fprintf(frows, "%x%04x%0*llx", (row == 0 ? 2 : 0) | (row == nr - 1 ? 1 : 0), count,
                    (int)(lanes / 4), mask);
            for (int l = (int)lanes - 1; l >= 0; l--) {
                long j = (long)(pay_beat0 + row) * lanes + l - 16;
                if (j >= 0 && j < (long)count) {
                    put_lane(frows, &el[j].x);
                } else { /* garbage the encoder must not look at */
                    ws_xsum g;
                    raw_value(&r, &g, (unsigned)ws_rng_below(&r, SUM_BITS));
                    g.nan = (uint8_t)ws_rng_below(&r, 2);
                    g.pos_inf = (uint8_t)ws_rng_below(&r, 2);
                    put_lane(frows, &g);
                }
            }
            fputc('\n', frows);
            nrows++;
        }
    }
    fprintf(finfo, "%lu %u %lu\n", nrows, rounds, nwords);
    close_out(frows, "rows.hex");
    close_out(fwords, "words.hex");
    close_out(fmeta, "meta.hex");
    close_out(finfo, "info.txt");
    printf("tool_partial_enc_vectors: %u rounds, %lu rows, %lu words (%lu records), width %u, max_count %u; "
           "elements: %lu special, %lu beyond 2^308, %lu with E = 254, %lu -0, %lu +0\n",
           rounds, nrows, nwords, nrec, width, mc, nspecial, novf, ne254, nnegz, nposz);
    free(el);
    free(want);
    free(frame);
    return 0;
}
