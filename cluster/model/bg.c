/* bg.c - the background traffic of `wiresum cluster` (bg.h). */
#include "bg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "rng.h"

/* ---- one run's flows -------------------------------------------------------------- */

struct ws_bg {
    size_t n, done;
    ws_bg_flow *f;
    uint64_t *ideal; /* ps */
    double offered, mean;
};

static double uniform(ws_rng *r) { return (double)(ws_rng_next(r) >> 11) * 0x1p-53; }

ws_bg *ws_bg_new(const ws_cluster *c, uint64_t start_ps, char *err, size_t errlen)
{
    const ws_cluster_bg *b = &c->bg;
    unsigned hosts = c->topo.hosts;
    double link_bps = c->topo.host_link.rate;
    if (hosts < 2)
        return snprintf(err, errlen, "background traffic needs at least 2 hosts"), NULL;
    ws_bg *g = calloc(1, sizeof *g);
    if (!g)
        return snprintf(err, errlen, "out of memory"), NULL;
    ws_rng r = {ws_mix64(b->seed ^ 0x6267)}; /* "bg" */
    double rate = b->load * hosts * link_bps / (8 * b->dist.mean); /* flows per second */
    double t = 0, span = 0;
    size_t cap = 0;
    uint64_t bytes = 0;
    for (;;) {
        t += -log(1 - uniform(&r)) / rate;
        if (b->flows ? g->n == b->flows : t * 1e9 >= (double)b->duration_ns)
            break;
        if (g->n == WS_BG_MAX_FLOWS)
            break;
        if (g->n == cap) {
            cap = cap ? 2 * cap : 1024;
            ws_bg_flow *nf = realloc(g->f, cap * sizeof *nf);
            if (!nf) {
                ws_bg_free(g);
                return snprintf(err, errlen, "out of memory for %zu flows", cap), NULL;
            }
            g->f = nf;
        }
        ws_bg_flow *f = &g->f[g->n++];
        memset(f, 0, sizeof *f);
        f->start_ps = start_ps + (uint64_t)(t * 1e12);
        f->src = (unsigned)ws_rng_below(&r, hosts);
        f->dst = (unsigned)ws_rng_below(&r, hosts - 1);
        f->dst += f->dst >= f->src;
        f->bytes = ws_cdf_sample(&b->dist, uniform(&r));
        bytes += f->bytes;
        span = t;
    }
    g->ideal = calloc(g->n ? g->n : 1, sizeof *g->ideal);
    if (!g->ideal) {
        ws_bg_free(g);
        return snprintf(err, errlen, "out of memory"), NULL;
    }
    for (size_t i = 0; i < g->n; i++)
        g->ideal[i] = ws_bg_ideal_ps(c, g->f[i].src, g->f[i].dst, g->f[i].bytes);
    g->mean = b->dist.mean;
    g->offered = span > 0 ? (double)bytes * 8 / (hosts * link_bps * span) : 0;
    return g;
}

void ws_bg_free(ws_bg *g)
{
    if (!g)
        return;
    free(g->f);
    free(g->ideal);
    free(g);
}

size_t ws_bg_count(const ws_bg *g) { return g->n; }
const ws_bg_flow *ws_bg_flow_at(const ws_bg *g, size_t i) { return &g->f[i]; }

void ws_bg_rx(ws_bg *g, size_t i, uint64_t len, uint64_t now)
{
    ws_bg_flow *f = &g->f[i];
    int was = f->rx_bytes >= f->bytes;
    f->rx_bytes += len;
    if (!was && f->rx_bytes >= f->bytes) {
        f->done_ps = now;
        g->done++;
    }
}

int ws_bg_done(const ws_bg *g) { return g->done == g->n; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the nearest-rank percentile p of the n sorted values */
static double pct(const double *v, size_t n, double p)
{
    if (!n)
        return 0;
    size_t k = (size_t)ceil(p * (double)n);
    return v[k ? k - 1 : 0];
}

static void summarise(const ws_bg *g, int small, ws_bg_class *c, double *fct, double *slow)
{
    size_t m = 0;
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < g->n; i++) {
        const ws_bg_flow *f = &g->f[i];
        if ((f->bytes < WS_BG_SHORT_BYTES) != small)
            continue;
        c->flows++;
        if (!f->done_ps)
            continue;
        fct[m] = (double)(f->done_ps - f->start_ps) * 1e-12;
        slow[m++] = (double)(f->done_ps - f->start_ps) / (double)g->ideal[i];
    }
    c->completed = m;
    qsort(fct, m, sizeof *fct, cmp_double);
    qsort(slow, m, sizeof *slow, cmp_double);
    c->fct_p50 = pct(fct, m, 0.5);
    c->fct_p99 = pct(fct, m, 0.99);
    c->slow_p50 = pct(slow, m, 0.5);
    c->slow_p99 = pct(slow, m, 0.99);
}

void ws_bg_result_get(const ws_bg *g, ws_bg_result *r)
{
    memset(r, 0, sizeof *r);
    r->flows = g->n;
    r->completed = g->done;
    r->offered_load = g->offered;
    r->mean_bytes = g->mean;
    for (size_t i = 0; i < g->n; i++) {
        r->bytes += g->f[i].bytes;
        r->rx_bytes += g->f[i].rx_bytes;
    }
    double *a = malloc((g->n ? g->n : 1) * 2 * sizeof *a);
    if (!a)
        return;
    summarise(g, 1, &r->small, a, a + g->n);
    summarise(g, 0, &r->large, a, a + g->n);
    free(a);
}

uint64_t ws_bg_ideal_ps(const ws_cluster *c, unsigned src, unsigned dst, uint64_t bytes)
{
    uint64_t mss = c->topo.mtu - 52, segs = (bytes + mss - 1) / mss;
    double seg = (double)((bytes < mss ? bytes : mss) + 54) * 8; /* bits of one segment */
    double delay = 0, slowest = 0, fwd = 0; /* ps, bits per second, ps */
    unsigned node = src, l = src, hops = 0;
    while (node != dst && hops++ < 16) { /* link l leaves node */
        unsigned a, b;
        ws_cluster_link props;
        ws_topo_link(c, l, &a, &b, &props);
        node = a == node ? b : a;
        delay += (double)props.delay_ns * 1000;
        fwd += seg / props.rate * 1e12;
        if (slowest == 0 || props.rate < slowest)
            slowest = props.rate;
        if (node != dst)
            l = ws_topo_route(c, node - c->topo.hosts - c->n_dev, dst, 0);
    }
    fwd -= seg / slowest * 1e12; /* the slowest link's segment is in the wire time */
    double wire = (double)(bytes + 54 * segs) * 8 / slowest * 1e12;
    return (uint64_t)(wire + fwd + 3 * delay);
}
