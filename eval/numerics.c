/* numerics.c - binary32 summation, an adder tree and SwitchML's quantization against the exact
 * sum (numerics.h). */
#include "f32.h"
#include "numerics.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "wiresum/config.h"
#include "wiresum/xsum.h"

/* Every binary32 operation below rounds once, to binary32: no wider evaluation (x87 without
 * SSE) may creep in. The sums have no product to contract into an FMA (nor would -std=c11,
 * which turns contraction off in GCC). */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "eval/numerics.c needs FLT_EVAL_METHOD 0: binary32 operations evaluated in binary32"
#endif


static int is_finite(uint32_t b) { return (b & 0x7f800000u) != 0x7f800000u; }
static int is_nan(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }

/* a + b in binary32, rounded to nearest even */
static uint32_t add(uint32_t a, uint32_t b) { return ws_f32_bits(ws_f32_from_bits(a) + ws_f32_from_bits(b)); }

void ws_num_row_init(ws_num_row *row, unsigned workers)
{
    memset(row, 0, sizeof *row);
    row->workers = workers;
}

/* Result x of one method against r (numerics.h: ulp error, correctly rounded, non-finite). */
static void judge(ws_num_err *e, uint32_t x, uint32_t r)
{
    e->results++;
    if (!is_finite(x) || !is_finite(r)) {
        if (x != r && !(is_nan(x) && is_nan(r))) {
            e->wrong++;
            e->nonfinite++;
        }
        return;
    }
    int ex = (int)(r >> 23 & 0xff);
    /* both are binary32: exact in double, their difference too unless their exponents are
     * 29 or more apart, where a relative error of 2^-53 does not matter */
    double u = fabs((double)ws_f32_from_bits(x) - (double)ws_f32_from_bits(r)) / ldexp(1, (ex ? ex : 1) - 150);
    e->finite++;
    e->wrong += u > 0;
    e->sum_ulp += u;
    if (u > e->max_ulp)
        e->max_ulp = u;
}

/* ---- SwitchML (Sapio et al., NSDI 2021; its client library p4app-switchML,
 * cpu_exponent_quantizer_ppp.cc): int32 block quantization with a scale per chunk ------------ */

/* The chunk's scale: each worker sends the exponent e = E - 126 of its largest magnitude in the
 * chunk (E its exponent field, so 2^e > every |v|; E = 0 for zero and subnormals), the switch
 * keeps the largest, and every worker scales by f = INT32_MAX / (N x 2^e), a binary32, so that
 * the sum of N values cannot overflow. Non-finite values have no exponent here (SwitchML's
 * integers carry no Inf or NaN). f beyond the binary32 range (a chunk below 2^-97 / N) is taken
 * as FLT_MAX, which only scales less. */
static float switchml_scale(const uint32_t *v, uint64_t n, unsigned workers, uint64_t c0,
                            uint64_t c1)
{
    int e = -126;
    for (unsigned w = 0; w < workers; w++)
        for (uint64_t i = c0; i < c1; i++) {
            uint32_t b = v[w * n + i];
            int ex = (int)(b >> 23 & 0xff) - 126;
            if (is_finite(b) && ex > e)
                e = ex;
        }
    double f = (double)INT32_MAX / ldexp((double)workers, e);
    return f > FLT_MAX ? FLT_MAX : (float)f;
}

/* A worker's integer: round(v x f), the product in binary32, ties away from zero (std::round of
 * the library's scalar path); 0 for Inf and NaN. */
static int64_t switchml_quantize(uint32_t b, float f)
{
    if (!is_finite(b))
        return 0;
    float p = ws_f32_from_bits(b) * f;
    return (int64_t)roundf(p);
}

/* ---- one element -------------------------------------------------------------------------- */

typedef struct {
    const ws_num_opts *o;
    ws_num_row *row;
    uint32_t *res; /* the sequential results of one element, one per order */
    char *err;
    size_t errlen;
} ctx;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Uniform in [0, n) for small n (the bias of 64 / 2^32 does not matter here). */
static unsigned below(ws_rng *rng, unsigned n)
{
    return (unsigned)((ws_rng_next(rng) >> 32) * n >> 32);
}

static int wiresum_differs(ctx *c, const char *how, uint64_t g, uint32_t d, uint32_t r)
{
    snprintf(c->err, c->errlen, "element %llu, %u workers: wiresum's result %08x %s is not the "
             "exact sum's %08x (a bug of the exact sum)", (unsigned long long)g, c->row->workers,
             (unsigned)d, how, (unsigned)r);
    return -1;
}

/* Element g of the row: x[w] is worker w's contribution, r the correctly rounded exact sum. */
static int element(ctx *c, const uint32_t *x, uint32_t r, float scale, uint64_t g)
{
    ws_num_row *row = c->row;
    unsigned n = row->workers, perm[WS_LIMIT_WORKERS];
    uint32_t t[WS_LIMIT_WORKERS] = {0};
    ws_xsum acc[WS_LIMIT_WORKERS];

    /* arrival orders: binary32 sum, rounded after every add, and wiresum's exact sum */
    ws_rng rng = {ws_mix64(c->o->seed ^ ws_mix64(g))};
    for (unsigned w = 0; w < n; w++)
        perm[w] = w;
    for (unsigned k = 0; k < c->o->orders; k++) {
        for (unsigned j = n - 1; j > 0; j--) { /* Fisher-Yates: a uniform order, whatever before */
            unsigned m = below(&rng, j + 1), p = perm[j];
            perm[j] = perm[m];
            perm[m] = p;
        }
        uint32_t s = x[perm[0]];
        ws_xsum_init(&acc[0]);
        ws_xsum_add(&acc[0], s);
        for (unsigned j = 1; j < n; j++) {
            s = add(s, x[perm[j]]);
            ws_xsum_add(&acc[0], x[perm[j]]);
        }
        judge(&row->seq, s, r);
        c->res[k] = is_nan(s) ? WS_QNAN : s;
        uint32_t d = ws_xsum_round(&acc[0]);
        judge(&row->wiresum, d, r);
        if (d != r)
            return wiresum_differs(c, "in a random order", g, d, r);
    }
    qsort(c->res, c->o->orders, sizeof *c->res, cmp_u32);
    unsigned distinct = c->o->orders > 0;
    for (unsigned k = 1; k < c->o->orders; k++)
        distinct += c->res[k] != c->res[k - 1];
    row->distinct_sum += distinct;
    if (distinct > row->distinct_max)
        row->distinct_max = distinct;

    /* a balanced binary tree in worker order: pairs (0,1), (2,3), ..., an odd one out goes up a
     * level as it is; wiresum's partial accumulators merged in the same tree */
    for (unsigned w = 0; w < n; w++) {
        t[w] = x[w];
        ws_xsum_init(&acc[w]);
        ws_xsum_add(&acc[w], x[w]);
    }
    for (unsigned m = n; m > 1; m = (m + 1) / 2) {
        for (unsigned j = 0; j < m / 2; j++) {
            t[j] = add(t[2 * j], t[2 * j + 1]);
            acc[j] = acc[2 * j];
            ws_xsum_merge(&acc[j], &acc[2 * j + 1]);
        }
        if (m % 2) {
            t[m / 2] = t[m - 1];
            acc[m / 2] = acc[m - 1];
        }
    }
    judge(&row->tree, t[0], r);
    uint64_t words[WS_X64_MAX_WORDS]; /* the exact sum of the n workers as a PARTIAL carries it */
    int nw = ws_xsum_encode(&acc[0], words);
    if (nw < 0)
        return wiresum_differs(c, "(beyond the PARTIAL encoding)", g, 0, r);
    row->partial_words += (uint64_t)nw;
    row->partial_escaped += nw > 1;
    uint32_t d = ws_xsum_round(&acc[0]);
    judge(&row->wiresum, d, r);
    if (d != r)
        return wiresum_differs(c, "as a tree of partial sums", g, d, r);

    /* SwitchML: the integers' sum in the switch's 32-bit registers, converted back */
    int64_t q = 0;
    for (unsigned w = 0; w < n; w++)
        q += switchml_quantize(x[w], scale);
    int64_t q32 = (int64_t)(uint32_t)q;
    if (q32 > INT32_MAX)
        q32 -= (int64_t)1 << 32;
    row->switchml_overflow += q32 != q;
    judge(&row->switchml, ws_f32_bits((float)q32 / scale), r);
    return 0;
}

int ws_num_tensor(ws_num_row *row, const ws_num_opts *o, const uint32_t *v, uint64_t n,
                  uint64_t first, char *err, size_t errlen)
{
    ctx c = {o, row, malloc((o->orders ? o->orders : 1) * sizeof(uint32_t)), err, errlen};
    if (!c.res) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint32_t x[WS_LIMIT_WORKERS];
    int rc = 0;
    for (uint64_t c0 = 0; c0 < n && !rc; c0 += o->count) {
        uint64_t c1 = n - c0 < o->count ? n : c0 + o->count;
        float scale = switchml_scale(v, n, row->workers, c0, c1);
        for (uint64_t i = c0; i < c1 && !rc; i++) {
            for (unsigned w = 0; w < row->workers; w++)
                x[w] = v[w * n + i];
            rc = element(&c, x, ws_sum_f32(x, row->workers), scale, first + i);
        }
    }
    row->elems += n;
    free(c.res);
    return rc;
}
