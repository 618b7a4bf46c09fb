/* cluster_job.c - the collectives of `wiresum cluster` on the workers' side (cluster_job.h). */
#include "cluster_job.h"

#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "wiresum/transport.h"
#include "wiresum/wire.h"

#define JOB_ID 7
/* the transport's timers: a retransmission waits long enough for a window of every worker to
 * pass the device (no loss is expected in a provisioned rack; a drop costs one timeout) */
#define RTO_MIN_PS 20000000ull /* 20 us */

typedef struct {
    ws_cjob *job;
    unsigned w;
} worker_ref;

typedef struct {
    uint32_t *buf;       /* the tensor: input, then the sums */
    unsigned iter;       /* iterations completed */
    int running;         /* an all-reduce under way */
    uint64_t next_start; /* when the next one starts (WS_CLUSTER_NEVER: none) */
    /* wiresum */
    ws_worker *ww;
    /* ring: the step being received (0 .. 2W-3), the stream in and out */
    unsigned step;
    uint8_t *in;
    size_t in_len, in_off, in_cap;
    uint8_t *out;
    size_t out_len, out_off, out_cap;
} worker;

struct ws_cjob {
    ws_cluster c;
    ws_cluster_mode mode;
    ws_run_opts vals; /* the inputs: ws_run_value with this seed, mixed values */
    unsigned nw;
    uint64_t n;
    worker *w;
    worker_ref *ctx;
    ws_cjob_tx_fn tx;
    void *tx_ctx;
    /* wiresum */
    ws_config cfg;
    ws_cdev *dev;
    /* expected values of iterations k (slot k % 2): the exact sums, the ring-order sums */
    uint32_t *exact[2], *ring[2];
    int have[2];
    unsigned have_iter[2];
    /* results */
    uint64_t start_min[1000], done_max[1000];
    unsigned done_count[1000];
    ws_cluster_result r;
};

/* ---- expected values ------------------------------------------------------------------ */

static float as_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t as_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* segment s of the ring: elements [seg_lo(s), seg_lo(s + 1)) */
static uint64_t seg_lo(const ws_cjob *j, unsigned s) { return j->n * s / j->nw; }

/* The ring-order binary32 sum of element i in segment s: it starts at worker s and each next
 * worker adds its own value to the partial sum it received (partial + own, as the ring does). */
static uint32_t ring_sum(const ws_cjob *j, unsigned iter, unsigned s, uint64_t i)
{
    float p = as_float(ws_run_value(&j->vals, iter, s, i));
    for (unsigned k = 1; k < j->nw; k++)
        p = p + as_float(ws_run_value(&j->vals, iter, (s + k) % j->nw, i));
    return as_bits(p);
}

static void expect(ws_cjob *j, unsigned iter)
{
    int k = iter % 2;
    if (j->have[k] && j->have_iter[k] == iter)
        return;
    for (uint64_t i = 0; i < j->n; i++)
        j->exact[k][i] = ws_run_exact(&j->vals, iter, 0, j->nw, i);
    if (j->mode == WS_MODE_RING)
        for (unsigned s = 0; s < j->nw; s++)
            for (uint64_t i = seg_lo(j, s); i < seg_lo(j, s + 1); i++)
                j->ring[k][i] = ring_sum(j, iter, s, i);
    j->have[k] = 1;
    j->have_iter[k] = iter;
}

/* worker w completed iteration w->iter at now: its tensor checked, the time recorded */
static void completed(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    unsigned it = x->iter;
    expect(j, it);
    const uint32_t *ex = j->exact[it % 2], *rg = j->ring[it % 2];
    uint64_t bad = 0, badring = 0;
    for (uint64_t i = 0; i < j->n; i++) {
        bad += x->buf[i] != ex[i];
        if (j->mode == WS_MODE_RING)
            badring += x->buf[i] != rg[i];
    }
    j->r.tensors++;
    j->r.tensors_exact += bad == 0;
    j->r.inexact_elements += bad;
    j->r.tensors_consistent += j->mode == WS_MODE_RING ? badring == 0 : bad == 0;
    if (now > j->done_max[it])
        j->done_max[it] = now;
    j->done_count[it]++;
    x->running = 0;
    x->iter++;
    x->next_start = x->iter < j->c.job.iterations ? now + j->c.job.compute_ns * 1000
                                                   : WS_CLUSTER_NEVER;
}

/* ---- ring ------------------------------------------------------------------------------ */

static int grow(uint8_t **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 65536;
    while (c < need)
        c *= 2;
    uint8_t *nb = realloc(*b, c);
    if (!nb)
        return -1;
    *b = nb;
    *cap = c;
    return 0;
}

/* the segment worker w sends at step t (reduce-scatter t < W-1, then all-gather) and the one it
 * receives */
static unsigned seg_sent(const ws_cjob *j, unsigned w, unsigned t)
{
    unsigned N = j->nw;
    return t < N - 1 ? (w + N - t % N) % N : (w + 1 + N - (t - (N - 1)) % N) % N;
}

static unsigned seg_recv(const ws_cjob *j, unsigned w, unsigned t)
{
    return seg_sent(j, (w + j->nw - 1) % j->nw, t);
}

static void ring_queue(ws_cjob *j, unsigned w, unsigned t)
{
    worker *x = &j->w[w];
    unsigned s = seg_sent(j, w, t);
    size_t len = (size_t)(seg_lo(j, s + 1) - seg_lo(j, s)) * 4;
    if (x->out_off == x->out_len)
        x->out_off = x->out_len = 0;
    if (grow(&x->out, &x->out_cap, x->out_len + len)) {
        j->r.failed = 1;
        snprintf(j->r.error, sizeof j->r.error, "worker %u: out of memory", w);
        return;
    }
    memcpy(x->out + x->out_len, x->buf + seg_lo(j, s), len);
    x->out_len += len;
}

/* the steps of the stream received so far that the worker can take now */
static void ring_progress(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    unsigned N = j->nw;
    while (x->running) {
        unsigned t = x->step, s = seg_recv(j, w, t);
        uint64_t lo = seg_lo(j, s), n = seg_lo(j, s + 1) - lo;
        if (x->in_len - x->in_off < n * 4)
            return;
        const uint8_t *p = x->in + x->in_off;
        for (uint64_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, p + 4 * i, 4);
            x->buf[lo + i] = t < N - 1 ? as_bits(as_float(v) + as_float(x->buf[lo + i])) : v;
        }
        x->in_off += n * 4;
        if (x->in_off == x->in_len)
            x->in_off = x->in_len = 0;
        x->step++;
        if (x->step == 2 * (N - 1)) {
            completed(j, w, now);
            return;
        }
        ring_queue(j, w, x->step);
    }
}

void ws_cjob_stream_rx(ws_cjob *j, unsigned w, const uint8_t *data, size_t len, uint64_t now)
{
    worker *x = &j->w[w];
    j->r.rx_bytes += len;
    if (grow(&x->in, &x->in_cap, x->in_len + len)) {
        j->r.failed = 1;
        snprintf(j->r.error, sizeof j->r.error, "worker %u: out of memory", w);
        return;
    }
    memcpy(x->in + x->in_len, data, len);
    x->in_len += len;
    ring_progress(j, w, now);
}

size_t ws_cjob_stream_pending(ws_cjob *j, unsigned w, const uint8_t **data)
{
    worker *x = &j->w[w];
    *data = x->out + x->out_off;
    return x->out_len - x->out_off;
}

void ws_cjob_stream_sent(ws_cjob *j, unsigned w, size_t n)
{
    worker *x = &j->w[w];
    x->out_off += n;
    j->r.tx_bytes += n;
}

/* ---- wiresum ----------------------------------------------------------------------------- */

static void worker_tx(void *ctx, const uint8_t *f, size_t len)
{
    worker_ref *c = ctx;
    ws_cjob *j = c->job;
    j->r.tx_bytes += len;
    /* the UDP payload of the frame, to the frame's destination */
    j->tx(j->tx_ctx, c->w, ws_get32(f + WS_OFF_IP + 16), ws_get16(f + WS_OFF_UDP + 2),
          f[WS_OFF_IP + 1], f + WS_OFF_AGG, len - WS_OFF_AGG);
}

void ws_cjob_rx(ws_cjob *j, unsigned w, const uint8_t *payload, size_t plen, uint32_t sip,
                uint16_t sport, uint8_t tos, uint8_t ttl, uint64_t now)
{
    static uint8_t f[WS_LIMIT_FRAME + WS_OFF_AGG];
    if (plen > WS_LIMIT_FRAME)
        return;
    const ws_member *m = &j->cfg.job[0].member[w];
    size_t len = ws_cluster_frame(f, m->mac, j->cfg.mac, sip, m->ip, sport, m->udp_port, tos,
                                  ttl, payload, plen);
    j->r.rx_bytes += len;
    worker *x = &j->w[w];
    ws_worker_rx(x->ww, f, len, now);
    if (x->running && ws_worker_done(x->ww))
        completed(j, w, now);
}

/* ---- the workers ------------------------------------------------------------------------- */

static void start(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    for (uint64_t i = 0; i < j->n; i++)
        x->buf[i] = ws_run_value(&j->vals, x->iter, w, i);
    x->running = 1;
    x->next_start = WS_CLUSTER_NEVER;
    if (now < j->start_min[x->iter])
        j->start_min[x->iter] = now;
    if (j->mode == WS_MODE_RING) {
        x->step = 0;
        ring_queue(j, w, 0);
        ring_progress(j, w, now); /* the predecessor's first step may be in already */
        return;
    }
    if (ws_worker_start(x->ww, (const float *)(void *)x->buf, (float *)(void *)x->buf, j->n,
                        now)) {
        j->r.failed = 1;
        snprintf(j->r.error, sizeof j->r.error, "worker %u: %s", w, ws_worker_error(x->ww));
        return;
    }
    if (ws_worker_done(x->ww))
        completed(j, w, now);
}

uint64_t ws_cjob_deadline(const ws_cjob *j, unsigned w)
{
    const worker *x = &j->w[w];
    if (j->r.failed)
        return WS_CLUSTER_NEVER;
    if (!x->running)
        return x->next_start;
    return j->mode == WS_MODE_WIRESUM ? ws_worker_deadline(x->ww) : WS_CLUSTER_NEVER;
}

void ws_cjob_poll(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    if (j->r.failed)
        return;
    if (!x->running) {
        if (now >= x->next_start)
            start(j, w, now);
        return;
    }
    if (j->mode == WS_MODE_WIRESUM && ws_worker_poll(x->ww, now)) {
        j->r.failed = 1;
        snprintf(j->r.error, sizeof j->r.error, "worker %u: %s", w, ws_worker_error(x->ww));
    }
}

int ws_cjob_finished(const ws_cjob *j)
{
    if (j->r.failed)
        return 1;
    for (unsigned w = 0; w < j->nw; w++)
        if (j->w[w].iter < j->c.job.iterations)
            return 0;
    return 1;
}

/* the job's configuration: one device port (its link), the members at the hosts' addresses */
static int make_config(ws_cjob *j, const uint32_t *host_ip, uint32_t dev_ip, char *err,
                       size_t errlen)
{
    const ws_cluster_dev *d = &j->c.dev[j->c.job.device];
    ws_config *cfg = &j->cfg;
    ws_config_default(cfg);
    cfg->ip = dev_ip;
    cfg->max_count = d->max_count;
    cfg->pool_slots = d->slots;
    ws_job *jb = ws_config_add_workload(cfg, JOB_ID, 1, j->nw, j->c.job.window, j->c.job.count);
    if (!jb)
        return snprintf(err, errlen, "%u workers: beyond the device's limits", j->nw), -1;
    for (unsigned w = 0; w < j->nw; w++) {
        jb->member[w].ip = host_ip[j->c.job.host[w]];
        jb->member[w].udp_port = WS_CLUSTER_WORKER_PORT;
    }
    return ws_config_check(cfg, err, errlen);
}

static int make_workers(ws_cjob *j, char *err, size_t errlen)
{
    const ws_cluster_dev *d = &j->c.dev[j->c.job.device];
    /* a round trip under load: the worker's window queued at its own link, every worker's
     * window through the device; twice that, plus the minimum */
    size_t fb = ws_frame_len(j->c.job.count);
    uint64_t fr = ws_cdev_service_ps(d, fb);
    uint64_t wire = (uint64_t)((double)fb * 8 / j->c.topo.host_link.rate * 1e12);
    uint64_t rtt = (uint64_t)j->c.job.window * (wire + (uint64_t)j->nw * fr) +
                   4 * (j->c.topo.host_link.delay_ns + d->link.delay_ns) * 1000;
    uint64_t rto = 2 * rtt + RTO_MIN_PS;
    for (unsigned w = 0; w < j->nw; w++) {
        ws_worker_cfg wc;
        ws_worker_cfg_init(&wc);
        if (ws_worker_cfg_from_config(&wc, &j->cfg, JOB_ID, w, err, errlen))
            return -1;
        wc.count = j->c.job.count;
        wc.rto = rto;
        wc.rto_min = RTO_MIN_PS;
        wc.rto_max = 16 * rto;
        wc.adaptive = 0; /* round trips include the queue of the worker's own window */
        wc.max_retries = 64;
        wc.tos = 2; /* ECT(0) */
        j->ctx[w] = (worker_ref){j, w};
        wc.tx = worker_tx;
        wc.tx_ctx = &j->ctx[w];
        j->w[w].ww = ws_worker_new(&wc, err, errlen);
        if (!j->w[w].ww)
            return -1;
    }
    j->dev = ws_cdev_new(d, &j->cfg, err, errlen);
    return j->dev ? 0 : -1;
}

ws_cjob *ws_cjob_new(const ws_cluster *c, ws_cluster_mode mode, const uint32_t *host_ip,
                     uint32_t dev_ip, ws_cjob_tx_fn tx, void *tx_ctx, char *err, size_t errlen)
{
    ws_cjob *j = calloc(1, sizeof *j);
    if (!j)
        return snprintf(err, errlen, "out of memory"), NULL;
    j->c = *c;
    j->mode = mode;
    j->vals.seed = c->job.seed;
    j->vals.values = WS_RUN_MIXED;
    j->nw = c->job.workers;
    j->n = c->job.elems;
    j->tx = tx;
    j->tx_ctx = tx_ctx;
    j->w = calloc(j->nw, sizeof *j->w);
    j->ctx = calloc(j->nw, sizeof *j->ctx);
    int ok = j->w && j->ctx;
    for (int k = 0; k < 2 && ok; k++) {
        j->exact[k] = malloc(j->n * 4);
        j->ring[k] = malloc(j->n * 4);
        ok = j->exact[k] && j->ring[k];
    }
    for (unsigned w = 0; w < j->nw && ok; w++) {
        j->w[w].buf = malloc(j->n * 4);
        ok = j->w[w].buf != NULL;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory for %u tensors of %llu elements", j->nw + 4,
                 (unsigned long long)j->n);
        ws_cjob_free(j);
        return NULL;
    }
    for (unsigned i = 0; i < c->job.iterations; i++)
        j->start_min[i] = WS_CLUSTER_NEVER;
    if (mode == WS_MODE_WIRESUM &&
        (make_config(j, host_ip, dev_ip, err, errlen) || make_workers(j, err, errlen))) {
        ws_cjob_free(j);
        return NULL;
    }
    j->r.mode = mode;
    j->r.workers = j->nw;
    j->r.iterations = c->job.iterations;
    j->r.bytes = j->n * 4;
    j->r.link_bps = c->topo.host_link.rate;
    return j;
}

void ws_cjob_free(ws_cjob *j)
{
    if (!j)
        return;
    for (unsigned w = 0; j->w && w < j->nw; w++) {
        ws_worker_free(j->w[w].ww);
        free(j->w[w].buf);
        free(j->w[w].in);
        free(j->w[w].out);
    }
    for (int k = 0; k < 2; k++) {
        free(j->exact[k]);
        free(j->ring[k]);
    }
    ws_cdev_free(j->dev);
    free(j->w);
    free(j->ctx);
    free(j);
}

ws_cdev *ws_cjob_dev(ws_cjob *j) { return j->dev; }

uint16_t ws_cjob_dev_port(const ws_cjob *j) { return j->cfg.udp_port; }

void ws_cjob_result(const ws_cjob *j, ws_cluster_result *r)
{
    *r = j->r;
    double sum = 0;
    unsigned n = 0;
    for (unsigned i = 0; i < j->c.job.iterations; i++) {
        if (j->done_count[i] != j->nw)
            continue;
        r->iter_seconds[i] = (double)(j->done_max[i] - j->start_min[i]) * 1e-12;
        sum += r->iter_seconds[i];
        n++;
    }
    r->seconds = n ? sum / n : 0;
    uint64_t want = (uint64_t)j->nw * j->c.job.iterations;
    if (!r->failed && r->tensors != want) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "%llu of %llu tensors completed",
                 (unsigned long long)r->tensors, (unsigned long long)want);
    }
    r->exact = !r->failed && r->tensors_exact == want;
    r->consistent = !r->failed && r->tensors_consistent == want;
    for (unsigned w = 0; w < j->nw && j->mode == WS_MODE_WIRESUM; w++) {
        const ws_worker_stats *s = ws_worker_get_stats(j->w[w].ww);
        r->data += s->data_frames;
        r->retx += s->retx_frames;
        r->timeouts += s->timeouts;
        r->results += s->results;
        r->dup_results += s->dup_results;
        r->stale_results += s->stale_results;
        r->bad_frames += s->bad_frames;
    }
    if (j->dev)
        r->dev = *ws_cdev_get_stats(j->dev);
}
