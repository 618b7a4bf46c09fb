/* bg.c - the background traffic of `wiresum cluster` (bg.h). */
#include "bg.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cjob.h"
#include "topo.h"
#include "ini_lines.h"
#include "rng.h"

/* ---- the distribution ---------------------------------------------------------------- */

int ws_cdf_load(ws_cdf *d, const char *path, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    char line[512];
    unsigned ln = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\r' || !*p)
            continue;
        char *end;
        errno = 0;
        double b = strtod(p, &end), q = end != p ? strtod(end, &end) : NAN;
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (errno || *end || !isfinite(b) || !isfinite(q)) {
            snprintf(err, errlen, "%s:%u: expected \"BYTES PROBABILITY\"", path, ln);
            rc = -1;
        } else if (b < 0 || b > 1e12 || q < 0 || q > 1) {
            snprintf(err, errlen, "%s:%u: bytes 0..1e12 and a probability 0..1, not %g %g", path,
                     ln, b, q);
            rc = -1;
        } else if (d->n && (b < d->bytes[d->n - 1] || q < d->cdf[d->n - 1])) {
            snprintf(err, errlen, "%s:%u: %g %g: bytes and probabilities must not decrease "
                     "(previous point %g %g)", path, ln, b, q, d->bytes[d->n - 1],
                     d->cdf[d->n - 1]);
            rc = -1;
        } else if (d->n == WS_CDF_MAX_POINTS) {
            snprintf(err, errlen, "%s:%u: more than %d points", path, ln, WS_CDF_MAX_POINTS);
            rc = -1;
        } else {
            d->bytes[d->n] = b;
            d->cdf[d->n++] = q;
        }
    }
    if (rc == 0 && ferror(f))
        rc = -1, snprintf(err, errlen, "%s: cannot read", path);
    fclose(f);
    if (rc)
        return rc;
    if (d->n < 2 || d->cdf[d->n - 1] != 1)
        return snprintf(err, errlen, "%s:%u: the last point's probability must be 1 (%u points "
                        "read, at least 2)", path, ln, d->n), -1;
    if (d->bytes[d->n - 1] < 1)
        return snprintf(err, errlen, "%s:%u: the largest flow is under 1 byte", path, ln), -1;
    /* the mass at the first point, then each segment's at its midpoint */
    d->mean = d->cdf[0] * d->bytes[0];
    for (unsigned i = 1; i < d->n; i++)
        d->mean += (d->cdf[i] - d->cdf[i - 1]) * (d->bytes[i] + d->bytes[i - 1]) / 2;
    return 0;
}

uint64_t ws_cdf_sample(const ws_cdf *d, double u)
{
    double b = d->bytes[d->n - 1];
    if (u < d->cdf[0]) {
        b = d->bytes[0];
    } else {
        for (unsigned i = 1; i < d->n; i++)
            if (u < d->cdf[i]) {
                double t = (u - d->cdf[i - 1]) / (d->cdf[i] - d->cdf[i - 1]);
                b = d->bytes[i - 1] + t * (d->bytes[i] - d->bytes[i - 1]);
                break;
            }
    }
    uint64_t n = (uint64_t)llround(b);
    return n ? n : 1;
}

/* ---- the section ------------------------------------------------------------------- */

static const char *const bg_keys[] = {"distribution", "load", "seed", "flows", "duration", NULL};
enum { B_DIST, B_LOAD, B_SEED, B_FLOWS, B_DURATION };

int ws_cluster_bg_key(ws_cluster_bg *b, const char *cluster_path, const char *key,
                      const char *value, unsigned line, unsigned *own_line, char *why,
                      size_t whylen)
{
    *own_line = line;
    int k = -1;
    for (int i = 0; bg_keys[i]; i++)
        if (!strcmp(key, bg_keys[i]))
            k = i;
    if (k < 0)
        return snprintf(why, whylen, "[background]: unknown key '%s' (known: distribution, "
                        "load, seed, flows, duration)", key), -1;
    if (b->key_line[k])
        return snprintf(why, whylen, "[background]: duplicate key '%s' (first at line %u)", key,
                        b->key_line[k]), -1;
    b->key_line[k] = line;
    unsigned long long u;
    char *end;
    switch (k) {
    case B_DIST: {
        const char *slash = strrchr(cluster_path, '/');
        int dir = value[0] != '/' && slash;
        if ((size_t)snprintf(b->path, sizeof b->path, "%.*s%s", dir ? (int)(slash - cluster_path
                             + 1) : 0, cluster_path, value) >= sizeof b->path)
            return snprintf(why, whylen, "background: distribution '%s': path too long", value),
                   -1;
        if (ws_cdf_load(&b->dist, b->path, why, whylen)) {
            *own_line = 0;
            return -1;
        }
        return 0;
    }
    case B_LOAD: {
        errno = 0;
        double x = strtod(value, &end);
        int pct = *end == '%';
        if (pct)
            x /= 100, end++;
        if (end == value || *end || errno || !(x > 0 && x < 1))
            return snprintf(why, whylen, "background: load '%s': a fraction of the hosts' link "
                            "capacity above 0 and under 1, as 0.3 or 30%%", value), -1;
        b->load = x;
        return 0;
    }
    case B_SEED:
        if (ws_ini_uint(value, 0, UINT64_MAX, &u))
            return snprintf(why, whylen, "background: seed '%s': a decimal integer", value), -1;
        b->seed = u;
        return 0;
    case B_FLOWS:
        if (ws_ini_uint(value, 1, WS_BG_MAX_FLOWS, &u))
            return snprintf(why, whylen, "background: flows '%s': 1..%d", value,
                            WS_BG_MAX_FLOWS), -1;
        b->flows = u;
        return 0;
    case B_DURATION:
        if (ws_cluster_time_ns(value, &b->duration_ns) || !b->duration_ns ||
            b->duration_ns > 10000000000ull)
            return snprintf(why, whylen, "background: duration '%s': a time with its unit (ns, "
                            "us, ms, s), above 0, at most 10 s", value), -1;
        return 0;
    }
    return 0;
}

int ws_cluster_bg_check(const ws_cluster_bg *b, unsigned *line, char *why, size_t whylen)
{
    *line = b->line;
    if (!b->on)
        return 0;
    if (!b->key_line[B_DIST] || !b->key_line[B_LOAD])
        return snprintf(why, whylen, "[background]: '%s' is required",
                        b->key_line[B_DIST] ? "load" : "distribution"), -1;
    if (!b->key_line[B_FLOWS] == !b->key_line[B_DURATION]) {
        if (b->key_line[B_FLOWS])
            *line = b->key_line[B_FLOWS] > b->key_line[B_DURATION] ? b->key_line[B_FLOWS]
                                                                   : b->key_line[B_DURATION];
        return snprintf(why, whylen, "[background]: give 'flows' (a number of flows) or "
                        "'duration' (the time they arrive in), %s",
                        b->key_line[B_FLOWS] ? "not both" : "one of them"), -1;
    }
    return 0;
}

/* ---- one run's flows -------------------------------------------------------------- */

struct ws_bg {
    size_t n, done;
    ws_bg_flow *f;
    uint64_t *ideal; /* ps */
    double offered, mean;
};

static double uniform(ws_rng *r) { return (double)(ws_rng_next(r) >> 11) * 0x1p-53; }

ws_bg *ws_bg_new(const ws_cluster_bg *b, unsigned hosts, double link_bps, uint64_t start_ps,
                 uint64_t (*ideal_fn)(const void *ctx, unsigned src, unsigned dst,
                                      uint64_t bytes),
                 const void *ideal_ctx, char *err, size_t errlen)
{
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
        g->ideal[i] = ideal_fn(ideal_ctx, g->f[i].src, g->f[i].dst, g->f[i].bytes);
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

uint64_t ws_bg_ideal_ps(const void *cluster, unsigned src, unsigned dst, uint64_t bytes)
{
    const ws_cluster *c = cluster;
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

static void print_class(FILE *out, const char *name, const ws_bg_class *c)
{
    fprintf(out, "  background %s: %llu flows, %llu completed; FCT p50 %.1f us, p99 %.1f us; "
            "slowdown p50 %.2f, p99 %.2f\n", name, (unsigned long long)c->flows,
            (unsigned long long)c->completed, c->fct_p50 * 1e6, c->fct_p99 * 1e6, c->slow_p50,
            c->slow_p99);
}

static void bg_print(FILE *out, const ws_bg_result *r)
{
    fprintf(out, "  background: %llu flows (%llu completed), %llu bytes (%llu received), "
            "offered load %.2f; flow sizes of mean %.3f MB\n", (unsigned long long)r->flows,
            (unsigned long long)r->completed, (unsigned long long)r->bytes,
            (unsigned long long)r->rx_bytes, r->offered_load, r->mean_bytes / 1e6);
    print_class(out, "short (< 100 KB)", &r->small);
    print_class(out, "long", &r->large);
}

static json_t *class_json(const ws_bg_class *c)
{
    return json_pack("{s:I, s:I, s:f, s:f, s:f, s:f}", "flows", (json_int_t)c->flows,
                     "completed", (json_int_t)c->completed, "fct_p50", c->fct_p50,
                     "fct_p99", c->fct_p99, "slowdown_p50", c->slow_p50,
                     "slowdown_p99", c->slow_p99);
}

static json_t *bg_json(const ws_bg_result *r)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:o}", "flows", (json_int_t)r->flows,
                     "completed", (json_int_t)r->completed, "bytes", (json_int_t)r->bytes,
                     "rx_bytes", (json_int_t)r->rx_bytes, "offered_load", r->offered_load,
                     "mean_flow_bytes", r->mean_bytes,
                     "short", class_json(&r->small), "long", class_json(&r->large));
}

void ws_cluster_cc_print(FILE *out, const ws_cluster *c, const ws_cluster_result *r)
{
    if (c->topo.ecn_bytes || (c->job.cc && WS_MODE_IS_WIRESUM(r->mode)))
        fprintf(out, "  congestion: %llu CE marks at the switches (threshold %llu bytes)%s",
                (unsigned long long)r->net_ce_marks, (unsigned long long)c->topo.ecn_bytes,
                WS_MODE_IS_WIRESUM(r->mode) ? "" : "\n");
    if (WS_MODE_IS_WIRESUM(r->mode) && (c->topo.ecn_bytes || c->job.cc))
        fprintf(out, ", %llu at the devices' ingress buffers",
                (unsigned long long)r->dev.ce_marks);
    if (WS_MODE_IS_WIRESUM(r->mode) && (c->topo.ecn_bytes || c->job.cc))
        fprintf(out, "; transport cc %s: %llu RESULTs with CE, %llu window cuts, smallest "
                "window %.0f bytes\n", c->job.cc ? "on" : "off",
                (unsigned long long)r->ce_results, (unsigned long long)r->cwnd_cuts,
                r->cwnd_min);
    if (r->has_bg)
        bg_print(out, &r->bg);
}

void ws_cluster_cc_json(json_t *run, const ws_cluster_result *r)
{
    json_object_set_new(run, "net_ce_marks", json_integer((json_int_t)r->net_ce_marks));
    if (WS_MODE_IS_WIRESUM(r->mode))
        json_object_set_new(run, "cc", json_pack("{s:I, s:I, s:f}", "ce_results",
                                                 (json_int_t)r->ce_results, "cwnd_cuts",
                                                 (json_int_t)r->cwnd_cuts, "cwnd_min",
                                                 r->cwnd_min));
    if (r->has_bg)
        json_object_set_new(run, "background", bg_json(&r->bg));
}
