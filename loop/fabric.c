/* fabric.c - `wiresum run --shards T --tree F[xG..]`: one job over several devices.
 *
 * The job's W workers all-reduce through T shards (chunk i of a tensor to shard i mod T); each
 * shard is one device, or a tree of devices (docs/protocol.md section 9): `--tree 2x4` is a root
 * with 2 children of 4 leaves each, the workers spread evenly over the leaves in rank order. Every
 * link (worker to leaf, child to parent, and back) is a one-way latency with the faults of
 * loop/channel.h. A device is the reference with its timing model or an RTL model (in a tree, one
 * built with PARTIAL = 1), all clocked on one time line, the models cycle by cycle while they
 * work.
 *
 * The oracle, independent of the devices: every frame a device sends is checked as it leaves
 * it: a RESULT's sums against the correctly rounded exact sum of every worker's contribution to
 * those elements, a PARTIAL's words and records against the encoding of the exact sum of the
 * workers below its device; every final tensor against the exact sum; every device's counters
 * against what it received and sent. --record DIR writes DIR/<device>/ per device (job.ini,
 * in<P>.pcap, expected<P>.pcap, counters.txt) and the exact sums at DIR/.
 */
#include "fabric.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "counters_file.h"
#include "fabric_cfg.h"
#include "channel.h"
#include "rng.h"
#include "base.h"
#include "trace.h"
#include "wiresum/config.h"
#include "wiresum/dev.h"
#include "wiresum/session.h"
#include "wiresum/transport.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"

#define JOB_ID WS_BASE_JOB
#define NEVER UINT64_MAX
#define MAX_DEVICES 256
#define MAX_SHARDS WS_RUN_MAX_SHARDS
#define MAX_LEVELS 4
#define DEV_PORTS 4
#define UP_PORT 3 /* a device with a parent reaches it on its last port */
#define MAX_STEP 64

typedef struct {
    const ws_fabric_dev *x; /* its description: name, addresses, parent, rank, shard, workers */
    ws_session *s;
    int rtl;
    ws_config cfg;
    unsigned n_members;
    int child[WS_LIMIT_WORKERS]; /* member r: a device, or -1 for worker x->w0 + r */
    ws_channel in;          /* frames on their way to this device (q[0]) */
    ws_frame_set bp;    /* frames corrupted on their way in: they may leave as bypass traffic */
    uint64_t frames_in, frames_out;
    ws_trace_out *rec_in, *rec_exp;
    uint64_t rec_ts;
    ws_counters ctr;
} node;

typedef struct {
    ws_worker *w[MAX_SHARDS]; /* one per shard */
    float *buf;
    unsigned iter;
    int finished;
    int leaf[MAX_SHARDS];      /* its leaf device per shard */
    unsigned rank[MAX_SHARDS]; /* its rank there */
    /* ws_worker_deadline per shard, kept: it changes only when the worker takes a frame, is
     * polled or starts (scanning every window on every cycle a model is busy was a sixth of a
     * tree's run) */
    uint64_t deadline[MAX_SHARDS];
} wkr;

typedef struct {
    const ws_run_opts *o;
    ws_base_log log;
    ws_run_stats *st;
    FILE *out;
    char *err;
    size_t errlen;

    unsigned T, levels, fan[MAX_LEVELS], leaves; /* leaves per shard */
    ws_fabric desc; /* the devices: from --fabric, or made from --shards and --tree */
    node *d;
    unsigned nd;
    wkr *w;
    unsigned nw;
    uint64_t nch;
    ws_rng rng;
    ws_channel hosts; /* frames on their way to the workers (q[1]); port = device << 8 | egress */
    uint64_t now, t_done;
    ws_base_expect exp; /* the exact sums */
    uint64_t checked_results, checked_partials;
    uint8_t scratch[WS_LIMIT_FRAME];
} fabric;

typedef struct {
    fabric *f;
    unsigned w, shard;
} fabric_tx;

#define fail(f, ...) ws_base_fail(&(f)->log, __VA_ARGS__)
#define report(f, ...) ws_base_report(&(f)->log, __VA_ARGS__)

/* ---- topology -------------------------------------------------------------------------- */

/* spec's fan-outs into fan (at most MAX_LEVELS - 1) and their number and product: 0, or -1
 * and err */
static int tree_parse(const char *spec, unsigned *fan, unsigned *levels, unsigned *leaves,
                      char *err, size_t errlen)
{
    *levels = 0;
    *leaves = 1;
    if (!spec)
        return 0;
    const char *p = spec;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || v < 1 || v > 64 || *levels == MAX_LEVELS - 1) {
            snprintf(err, errlen, "--tree %s: fan-outs of 1..64 separated by 'x', at most %d "
                     "levels (e.g. 4 or 2x4)", spec, MAX_LEVELS - 1);
            return -1;
        }
        fan[(*levels)++] = (unsigned)v;
        *leaves *= (unsigned)v;
        p = end;
        if (*p == 'x' && p[1]) /* a fan-out after every 'x' */
            p++;
        else if (*p) {
            snprintf(err, errlen, "--tree %s: fan-outs separated by 'x' (e.g. 4 or 2x4)", spec);
            return -1;
        }
    }
    return 0;
}

int ws_fabric_tree_check(const char *spec, unsigned *leaves, char *err, size_t errlen)
{
    unsigned fan[MAX_LEVELS], levels;
    return tree_parse(spec, fan, &levels, leaves, err, errlen);
}

static int parse_tree(fabric *f, const char *spec)
{
    if (tree_parse(spec, f->fan, &f->levels, &f->leaves, f->err, f->errlen))
        return f->log.failed = 1, -1;
    return 0;
}

static void dev_addr(unsigned k, uint8_t mac[6], uint32_t *ip)
{
    const uint8_t m[6] = {0x02, 0x00, 0x00, 0x0d, (uint8_t)(k >> 8), (uint8_t)k};
    memcpy(mac, m, 6);
    *ip = 0x0a020000u | k; /* 10.2.x.y */
}

/* worker w's addresses (a member of its leaf device) */
static void worker_addr(void *ctx, unsigned w, ws_member *m)
{
    (void)ctx;
    const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x01, (uint8_t)w};
    memcpy(m->mac, mac, 6);
    m->ip = 0x0a000101u + w; /* 10.0.1.(w+1) */
    m->udp_port = 40000;
}


/* The port a device reaches member r on. */
static unsigned member_port(const node *n, unsigned r)
{
    return r % (n->x->parent >= 0 ? DEV_PORTS - 1 : DEV_PORTS);
}

/* Device k of the description, of shard s at depth `level`, covering workers [w0, w1), and its
 * children after it (--tree). Returns its index. */
static int add_node(fabric *f, unsigned shard, unsigned level, int parent, unsigned rank,
                    unsigned w0, unsigned w1, const char *name)
{
    uint8_t mac[6];
    uint32_t ip;
    dev_addr(f->desc.n, mac, &ip);
    int ki = ws_fabric_add(&f->desc, name, mac, ip, parent, rank, shard, w0, w1);
    if (ki < 0)
        return fail(f, "more than %d devices", WS_FABRIC_MAX_DEVICES);
    unsigned k = (unsigned)ki;
    if (level == f->levels)
        return (int)k;
    unsigned fan = f->fan[level], leaves_below = 1;
    for (unsigned l = level + 1; l < f->levels; l++)
        leaves_below *= f->fan[l];
    for (unsigned c = 0; c < fan; c++) { /* the workers split evenly over the leaves, in order */
        unsigned span = w1 - w0, per = fan * leaves_below;
        unsigned a = w0 + (unsigned)((uint64_t)span * c * leaves_below / per);
        unsigned b = w0 + (unsigned)((uint64_t)span * (c + 1) * leaves_below / per);
        char cn[32];
        snprintf(cn, sizeof cn, "%s.%u", name, c);
        if (add_node(f, shard, level + 1, (int)k, c, a, b, cn) < 0)
            return -1;
    }
    return (int)k;
}

/* The devices of the description as nodes. */
static void make_nodes(fabric *f)
{
    const ws_fabric *x = &f->desc;
    f->nd = x->n;
    for (unsigned k = 0; k < x->n; k++) {
        const ws_fabric_dev *d = &x->d[k];
        node *n = &f->d[k];
        n->x = d;
        n->n_members = d->n_children ? d->n_children : d->w1 - d->w0;
        for (unsigned r = 0; r < n->n_members; r++)
            n->child[r] = d->n_children ? d->child[r] : -1;
    }
}

/* Device k's configuration: its members (workers or child devices) and its parent. */
static int make_config(fabric *f, unsigned k, const ws_dev_params *p)
{
    const ws_run_opts *o = f->o;
    node *n = &f->d[k];
    ws_config *c = &n->cfg;
    ws_config_default(c);
    if (o->slots > c->pool_slots)
        c->pool_slots = o->slots;
    if (o->count > c->max_count)
        c->max_count = o->count;
    if (n->rtl) {
        c->max_jobs = p->jobs;
        c->max_workers = p->workers;
        c->pool_slots = p->pool;
        c->max_count = p->count;
    }
    if (ws_fabric_dev_config(&f->desc, k, JOB_ID, DEV_PORTS, o->slots, o->count, worker_addr, NULL,
                             c, f->err, f->errlen))
        return f->log.failed = 1, -1;
    ws_job *jb = &c->job[0];
    for (unsigned r = 0; r < n->n_members; r++)
        jb->member[r].port = (uint8_t)member_port(n, r);
    if (jb->has_parent)
        jb->parent.port = UP_PORT;
    return ws_config_check(c, f->err, f->errlen) ? (f->log.failed = 1, -1) : 0;
}

/* A frame corrupted on its way into a device may be bypass traffic now (its EtherType,
 * address or port hit): it may leave on the bypass egress of its port. */
static int corrupted_in(void *ctx, unsigned port, const uint8_t *fr, size_t len)
{
    node *n = ctx;
    return ws_frame_set_add(&n->bp, fr, len, n->cfg.bypass[port], 0, 0);
}

static int no_bypass(void *ctx, unsigned port, const uint8_t *fr, size_t len)
{
    (void)ctx, (void)port, (void)fr, (void)len; /* towards the workers: no device to pass */
    return 0;
}

static int open_device(fabric *f, unsigned k)
{
    const ws_run_opts *o = f->o;
    node *n = &f->d[k];
    ws_session_opts so = {n->rtl ? WS_DEVICE_VERILATOR : WS_DEVICE_REFERENCE, o->width, 0};
    n->s = ws_session_open(&so, f->err, f->errlen);
    if (!n->s)
        return f->log.failed = 1, -1;
    ws_dev_params p;
    if (ws_session_open_driver(n->s, &p, f->err, f->errlen))
        return f->log.failed = 1, -1;
    if (n->rtl && (n->n_members > p.workers || o->slots > p.pool || o->count > p.count))
        return fail(f, "device %s: %u members, %u slots, count %u; the model supports %u, %u, %u",
                    n->x->name, n->n_members, o->slots, o->count, p.workers, p.pool, p.count);
    if (make_config(f, k, &p))
        return -1;
    if (ws_session_configure(n->s, &n->cfg, f->err, f->errlen)) {
        char e[512];
        snprintf(e, sizeof e, "device %s: %s", n->x->name, f->err);
        snprintf(f->err, f->errlen, "%s", e);
        return f->log.failed = 1, -1;
    }
    ws_session_line_start(n->s);
    ws_channel_opts no = {o->latency, o->loss, o->dup, o->reorder, o->corrupt,
                      {o->fault_up, o->fault_down}};
    ws_channel_init(&n->in, &no, &f->rng, corrupted_in, n);
    return 0;
}

/* ---- the oracle ------------------------------------------------------------------------ */

static int iteration_of(const fabric *f, uint32_t tensor, unsigned *iter)
{
    uint32_t base = WS_BASE_TENSOR(0);
    if (tensor < base || tensor - base >= f->o->iters)
        return -1;
    *iter = tensor - base;
    return 0;
}

/* A RESULT or PARTIAL leaving device k: its payload must be the oracle's, bit for bit. */
static void check_output(fabric *f, unsigned k, const uint8_t *fr, size_t len)
{
    node *n = &f->d[k];
    ws_hdr h;
    if (len < WS_OFF_ELEMS) {
        report(f, "device %s sent a frame of %zu bytes", n->x->name, len);
        return;
    }
    ws_parse(fr, &h);
    unsigned iter;
    if (iteration_of(f, h.tensor, &iter) || (uint64_t)h.offset + h.count > f->o->elems) {
        report(f, "device %s sent tensor 0x%x offset %u count %u: no such chunk", n->x->name,
               h.tensor, h.offset, h.count);
        return;
    }
    if (h.count > WS_LIMIT_COUNT) {
        report(f, "device %s sent a frame of %u elements (at most %u)", n->x->name, h.count,
               WS_LIMIT_COUNT);
        return;
    }
    if (h.type == WS_TYPE_RESULT) {
        ws_hdr v;
        if (ws_result_check(fr, len, &v)) {
            report(f, "device %s sent an invalid RESULT", n->x->name);
            return;
        }
        f->checked_results++;
        uint32_t exact[WS_LIMIT_COUNT];
        ws_values_exact(&f->exp.v, iter, 0, f->nw, h.offset, h.count, exact);
        for (unsigned e = 0; e < h.count; e++) {
            uint32_t want = exact[e], got = ws_elem(fr, e);
            if (got != want) {
                report(f, "device %s: RESULT of tensor 0x%x element %u is 0x%08x, the exact sum "
                       "rounds to 0x%08x", n->x->name, h.tensor, h.offset + e, got, want);
                return;
            }
        }
        return;
    }
    if (h.type != WS_TYPE_PARTIAL || n->x->parent < 0) {
        report(f, "device %s sent a frame of type %u", n->x->name, h.type);
        return;
    }
    /* the exact sums of the workers below, encoded as a device must */
    f->checked_partials++;
    ws_xsum acc[WS_LIMIT_COUNT];
    for (unsigned e = 0; e < h.count; e++)
        ws_xsum_init(&acc[e]);
    for (unsigned w = n->x->w0; w < n->x->w1; w++) {
        uint64_t key = ws_values_key(&f->exp.v, iter, w);
        for (unsigned e = 0; e < h.count; e++)
            ws_xsum_add(&acc[e], ws_values_at(&f->exp.v, key, h.offset + e));
    }
    ws_hdr want = h;
    size_t wl = ws_build_partial(f->scratch, &want, acc);
    if (wl != len || want.ext != h.ext ||
        memcmp(f->scratch + WS_OFF_ELEMS, fr + WS_OFF_ELEMS, len - WS_OFF_ELEMS))
        report(f, "device %s: PARTIAL of tensor 0x%x offset %u (%zu bytes, %u records) is not the "
               "exact sum of workers %u..%u (%zu bytes, %u records)", n->x->name, h.tensor,
               h.offset, len, h.ext, n->x->w0, n->x->w1 - 1, wl, want.ext);
}

/* ---- moving frames ----------------------------------------------------------------------- */

static uint64_t ts_ns(const fabric *f, uint64_t cycle)
{
    return (uint64_t)((double)cycle * 1000.0 / f->o->clock_mhz);
}

/* A frame device k sent on egress port p at cycle t: checked, recorded, and on its way. */
static void route(fabric *f, unsigned k, unsigned p, const uint8_t *fr, size_t len, uint64_t t)
{
    node *n = &f->d[k];
    n->frames_out++;
    f->st->frames_out++;
    if (n->rec_exp && ws_trace_write(n->rec_exp, p, ts_ns(f, t), fr, len, f->err, f->errlen))
        f->log.failed = 1;
    if (!ws_is_result(fr, len, n->cfg.ip, n->cfg.udp_port) &&
        !(len >= WS_OFF_ELEMS && ws_get32(fr + WS_OFF_IP + 12) == n->cfg.ip &&
          ws_get16(fr + WS_OFF_UDP) == n->cfg.udp_port)) {
        /* not the device's own: only a frame corrupted on its way in may be passed on */
        ws_frame_entry *e = ws_frame_set_find(&n->bp, fr, len);
        if (!e)
            report(f, "device %s, port %u: a frame of %zu bytes that was never sent to it", n->x->name,
                   p, len);
        else if (e->egress != p)
            report(f, "device %s: a bypassed frame left on port %u, the bypass map says %u",
                   n->x->name, p, e->egress);
        else
            e->seen = 1, f->st->corrupt_bypassed++;
        return; /* it leaves the fabric */
    }
    check_output(f, k, fr, len);
    if (n->x->parent >= 0 && p == UP_PORT) {
        node *up = &f->d[n->x->parent];
        f->st->uplink_bytes += len;
        if (ws_channel_send(&up->in, 0, member_port(up, n->x->rank), fr, len, t))
            fail(f, "out of memory");
        return;
    }
    for (unsigned r = 0; r < n->n_members; r++) {
        if (member_port(n, r) != p || len < 6 || memcmp(fr, n->cfg.job[0].member[r].mac, 6))
            continue;
        f->st->results_out++;
        int ok = n->child[r] >= 0
                     ? ws_channel_send(&f->d[n->child[r]].in, 0, UP_PORT, fr, len, t)
                     : ws_channel_send(&f->hosts, 1, k << 8 | p, fr, len, t);
        if (ok)
            fail(f, "out of memory");
        return;
    }
    report(f, "device %s, port %u: a frame to no member", n->x->name, p);
}

static void pop_outputs(fabric *f, unsigned k)
{
    node *n = &f->d[k];
    unsigned p;
    const uint8_t *fr;
    size_t len;
    uint64_t t;
    while (ws_session_line_pop(n->s, DEV_PORTS, &p, &fr, &len, &t) == 1)
        route(f, k, p, fr, len, t);
}

/* Offer device k the frames that have reached it, in order, as far as it takes them. */
static void feed(fabric *f, unsigned k)
{
    node *n = &f->d[k];
    ws_channel_queue *q = &n->in.q[0];
    while (q->n && q->a[0].t <= f->now && !f->log.failed) {
        ws_channel_event *e = &q->a[0];
        if (!ws_session_ready(n->s, e->port))
            return;
        if (ws_session_push(n->s, e->port, e->f, e->len)) {
            fail(f, "device %s, port %u: %s", n->x->name, e->port, ws_session_error(n->s));
            return;
        }
        n->frames_in++;
        f->st->frames_in++;
        if (n->rec_in) {
            uint64_t ts = ts_ns(f, f->now);
            if (ts <= n->rec_ts && n->frames_in > 1)
                ts = n->rec_ts + 1; /* strictly increasing: the file order is the order */
            n->rec_ts = ts;
            if (ws_trace_write(n->rec_in, e->port, ts, e->f, e->len, f->err, f->errlen))
                f->log.failed = 1;
        }
        pop_outputs(f, k);
        ws_channel_event x = ws_channel_queue_pop(q);
        free(x.f);
    }
}

static void deliver(fabric *f)
{
    while (f->hosts.q[1].n && f->hosts.q[1].a[0].t <= f->now) {
        ws_channel_event e = ws_channel_queue_pop(&f->hosts.q[1]);
        unsigned k = e.port >> 8, p = e.port & 0xff;
        const node *n = &f->d[k];
        wkr *dst = NULL;
        for (unsigned r = 0; r < n->n_members && !dst; r++)
            if (n->child[r] < 0 && member_port(n, r) == p && e.len >= 6 &&
                !memcmp(e.f, n->cfg.job[0].member[r].mac, 6))
                dst = &f->w[n->x->w0 + r];
        if (!dst)
            f->st->undeliverable++;
        else {
            ws_worker_rx(dst->w[n->x->shard], e.f, e.len, f->now);
            dst->deadline[n->x->shard] = ws_worker_deadline(dst->w[n->x->shard]);
        }
        free(e.f);
    }
}

static void worker_tx(void *ctx, const uint8_t *fr, size_t len)
{
    fabric_tx *c = ctx;
    fabric *f = c->f;
    node *leaf = &f->d[f->w[c->w].leaf[c->shard]];
    f->st->worker_bytes += len;
    if (ws_channel_send(&leaf->in, 0, member_port(leaf, f->w[c->w].rank[c->shard]), fr, len, f->now))
        fail(f, "out of memory");
}

/* ---- the workers ------------------------------------------------------------------------- */

static void fill_input(fabric *f, unsigned w)
{
    uint32_t *b = (uint32_t *)(void *)f->w[w].buf;
    uint64_t key = ws_values_key(&f->exp.v, f->w[w].iter, w);
    for (uint64_t i = 0; i < f->o->elems; i++)
        b[i] = ws_values_at(&f->exp.v, key, i);
}

static int start_worker(fabric *f, unsigned w)
{
    fill_input(f, w);
    for (unsigned s = 0; s < f->T; s++)
        if (ws_worker_start(f->w[w].w[s], f->w[w].buf, f->w[w].buf, f->o->elems, f->now))
            return fail(f, "worker %u shard %u: %s", w, s, ws_worker_error(f->w[w].w[s]));
        else
            f->w[w].deadline[s] = ws_worker_deadline(f->w[w].w[s]);
    return 0;
}

static int make_workers(fabric *f, fabric_tx *ctx)
{
    const ws_run_opts *o = f->o;
    unsigned bytes = o->width / 8;
    uint64_t fb = (ws_partial_max_len(o->count) + bytes - 1) / bytes, L = o->latency;
    unsigned hops = f->levels + 1; /* links from a worker to its root */
    uint64_t members = 1; /* the most members of a device */
    for (unsigned k = 0; k < f->nd; k++)
        if (f->d[k].n_members > members)
            members = f->d[k].n_members;
    uint64_t rtt = 2 * hops * L + 2 * hops * members * o->slots * (fb + 1);
    uint64_t rto = o->rto ? o->rto : rtt + 2 * L;
    uint64_t rto_min = 2 * hops * L + 2 * members * (fb + 1);
    if (rto_min > rto)
        rto_min = rto;
    for (unsigned w = 0; w < f->nw; w++) {
        wkr *k = &f->w[w];
        if (!(k->buf = malloc(o->elems * sizeof(float))))
            return fail(f, "out of memory for worker %u's tensor", w);
        for (unsigned s = 0; s < f->T; s++) {
            node *leaf = &f->d[k->leaf[s]];
            ws_worker_cfg wc;
            ws_worker_cfg_init(&wc);
            if (ws_worker_cfg_from_config(&wc, &leaf->cfg, JOB_ID, k->rank[s], f->err, f->errlen))
                return f->log.failed = 1, -1;
            wc.shard = s;
            wc.shards = f->T;
            ws_channel_worker_path(&wc, o->width, o->clock_mhz,
                               (leaf->n_members + leaf->cfg.n_ports - 1) / leaf->cfg.n_ports,
                               rto, rto_min);
            wc.max_retries = o->max_retries;
            wc.hold = 2 * L + 1;
            wc.tos = 2;
            ctx[w * f->T + s] = (fabric_tx){f, w, s};
            wc.tx = worker_tx;
            wc.tx_ctx = &ctx[w * f->T + s];
            if (!(k->w[s] = ws_worker_new(&wc, f->err, f->errlen)))
                return f->log.failed = 1, -1;
        }
    }
    return 0;
}

static void check_tensor(fabric *f, unsigned w)
{
    ws_base_check_tensor(&f->exp, &f->log, w, f->w[w].iter,
                         (const uint32_t *)(const void *)f->w[w].buf);
}

static uint64_t service_workers(fabric *f)
{
    uint64_t next = NEVER;
    for (unsigned w = 0; w < f->nw && !f->log.failed; w++) {
        wkr *k = &f->w[w];
        if (k->finished)
            continue;
        int done = 1;
        for (unsigned s = 0; s < f->T; s++) {
            if (k->deadline[s] <= f->now) {
                if (ws_worker_poll(k->w[s], f->now)) {
                    fail(f, "worker %u shard %u: %s", w, s, ws_worker_error(k->w[s]));
                    return NEVER;
                }
                k->deadline[s] = ws_worker_deadline(k->w[s]);
            }
            done &= ws_worker_done(k->w[s]);
        }
        if (done) {
            check_tensor(f, w);
            if (++k->iter == f->o->iters) {
                k->finished = 1;
                f->t_done = f->now;
                continue;
            }
            if (start_worker(f, w))
                return NEVER;
        }
        for (unsigned s = 0; s < f->T; s++)
            if (k->deadline[s] < next)
                next = k->deadline[s];
    }
    return next;
}

/* ---- recording --------------------------------------------------------------------------- */

static int open_record(fabric *f)
{
    const char *dir = f->o->record;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return fail(f, "--record %s: %s", dir, strerror(errno));
    char fpath[4096];
    snprintf(fpath, sizeof fpath, "%s/fabric.ini", dir);
    FILE *fo = fopen(fpath, "w");
    if (!fo)
        return fail(f, "%s: %s", fpath, strerror(errno));
    int bad_f = ws_fabric_write(&f->desc, fo) != 0;
    if (fclose(fo) || bad_f)
        return fail(f, "%s: write failed", fpath);
    for (unsigned k = 0; k < f->nd; k++) {
        node *n = &f->d[k];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, n->x->name);
        if (mkdir(path, 0777) != 0)
            return fail(f, "--record %s: %s (give a new directory)", path, strerror(errno));
        snprintf(path, sizeof path, "%s/%s/job.ini", dir, n->x->name);
        FILE *out = fopen(path, "w");
        if (!out)
            return fail(f, "%s: %s", path, strerror(errno));
        int bad = ws_config_write(&n->cfg, out) != 0;
        if (fclose(out) || bad)
            return fail(f, "%s: write failed", path);
        snprintf(path, sizeof path, "%s/%s", dir, n->x->name);
        n->rec_in = ws_trace_create(path, "in", DEV_PORTS, 1, f->err, f->errlen);
        n->rec_exp = n->rec_in ? ws_trace_create(path, "expected", DEV_PORTS, 1, f->err,
                                                 f->errlen)
                               : NULL;
        if (!n->rec_exp)
            return f->log.failed = 1, -1;
    }
    return 0;
}

static int finish_record(fabric *f)
{
    for (unsigned k = 0; k < f->nd; k++) {
        node *n = &f->d[k];
        int bad = ws_trace_finish(n->rec_in, f->err, f->errlen);
        n->rec_in = NULL;
        bad |= ws_trace_finish(n->rec_exp, f->err, f->errlen);
        n->rec_exp = NULL;
        if (bad)
            return f->log.failed = 1, -1;
        ws_counters_file cf;
        memset(&cf, 0, sizeof cf);
        cf.device.present = 1;
        cf.device.ports = DEV_PORTS;
        cf.device.c = n->ctr;
        snprintf(cf.device.source, sizeof cf.device.source, "wiresum run: device %s, %s, "
                 "DATA_WIDTH %u", n->x->name, n->rtl ? "RTL model" : "software reference",
                 f->o->width);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/%s", f->o->record, n->x->name, WS_COUNTERS_FILE);
        if (ws_counters_file_save(path, &cf, f->err, f->errlen))
            return f->log.failed = 1, -1;
    }
    return 0;
}

/* ---- the run ----------------------------------------------------------------------------- */

static int setup(fabric *f, fabric_tx **ctx)
{
    const ws_run_opts *o = f->o; /* checked by ws_run (ws_run_check) */
    if (!(f->d = calloc(MAX_DEVICES, sizeof *f->d)) || !(f->w = calloc(o->workers, sizeof *f->w)))
        return fail(f, "out of memory");
    f->nw = o->workers;
    if (o->fabric) { /* the devices as a file describes them */
        if (ws_fabric_load(&f->desc, o->fabric, f->err, f->errlen))
            return f->log.failed = 1, -1;
        if (f->desc.workers != o->workers)
            return fail(f, "%s: its leaves serve %u workers; give --workers %u", o->fabric,
                        f->desc.workers, f->desc.workers);
        f->T = f->desc.shards;
    } else {
        if (parse_tree(f, o->tree))
            return -1;
        unsigned per_tree = 1, width = 1;
        for (unsigned l = 0; l < f->levels; l++)
            width *= f->fan[l], per_tree += width;
        if ((uint64_t)per_tree * f->T > MAX_DEVICES)
            return fail(f, "%u devices: at most %d", per_tree * f->T, MAX_DEVICES);
        for (unsigned s = 0; s < f->T; s++) {
            char name[32];
            snprintf(name, sizeof name, "s%u", s);
            if (add_node(f, s, 0, -1, 0, 0, f->nw, name) < 0)
                return -1;
        }
        if (ws_fabric_check(&f->desc, f->err, f->errlen))
            return f->log.failed = 1, -1;
    }
    make_nodes(f);
    f->levels = 0; /* the deepest tree: links from a worker to its root, less one */
    for (unsigned k = 0; k < f->nd; k++) {
        unsigned depth = 0;
        for (int up = f->d[k].x->parent; up >= 0; up = f->d[up].x->parent)
            depth++;
        if (depth > f->levels)
            f->levels = depth;
    }
    if (f->levels && ws_partial_max_len(o->count) > WS_LIMIT_FRAME)
        return fail(f, "--count %u: a PARTIAL of that many elements may take %zu bytes, more "
                    "than a frame's %d", o->count, ws_partial_max_len(o->count), WS_LIMIT_FRAME);
    if (!(*ctx = calloc((size_t)o->workers * f->T, sizeof **ctx)))
        return fail(f, "out of memory");
    if (ws_base_expect_init(&f->exp, o, o->workers, &f->log))
        return -1;
    for (unsigned k = 0; k < f->nd; k++) {
        node *n = &f->d[k];
        /* mix: shard by shard, or in a tree device by device (k: the fabric's order) */
        n->rtl = o->device == WS_RUN_RTL ||
                 (o->device == WS_RUN_MIX && (f->levels ? k : n->x->shard) % 2 == 0);
        if (open_device(f, k))
            return -1;
        if (n->n_members == 0 || n->child[0] >= 0)
            continue;
        for (unsigned r = 0; r < n->n_members; r++) { /* a leaf: its workers */
            f->w[n->x->w0 + r].leaf[n->x->shard] = (int)k;
            f->w[n->x->w0 + r].rank[n->x->shard] = r;
        }
    }
    ws_channel_opts no = {o->latency, o->loss, o->dup, o->reorder, o->corrupt,
                      {o->fault_up, o->fault_down}};
    ws_channel_init(&f->hosts, &no, &f->rng, no_bypass, f);
    f->nch = (o->elems + o->count - 1) / o->count;
    if (o->record && open_record(f))
        return -1;
    return make_workers(f, *ctx);
}

static int any_busy_model(fabric *f)
{
    for (unsigned k = 0; k < f->nd; k++) {
        node *n = &f->d[k];
        if (n->rtl && (ws_session_line_active(n->s) || ws_channel_queue_top(&n->in.q[0]) <= f->now))
            return 1;
    }
    return 0;
}

/* Every device to time `to`: a model clocked (or, idle and settled, its stretch skipped), the
 * reference's timing advanced. */
static void advance(fabric *f, uint64_t to)
{
    for (unsigned k = 0; k < f->nd && !f->log.failed; k++) {
        node *n = &f->d[k];
        if (ws_session_line_advance(n->s, to)) {
            fail(f, "device %s: %s", n->x->name, ws_session_error(n->s));
            return;
        }
        if (n->rtl)
            pop_outputs(f, k);
    }
}

static int all_quiet(fabric *f)
{
    for (unsigned k = 0; k < f->nd; k++)
        if (f->d[k].in.q[0].n || (f->d[k].rtl && ws_session_busy(f->d[k].s)))
            return 0;
    return f->hosts.q[1].n == 0;
}

static void print_report(fabric *f, double secs)
{
    const ws_run_opts *o = f->o;
    ws_run_stats *s = f->st;
    double t_s = (double)(s->cycles ? s->cycles : 1) * 1e-6 / o->clock_mhz;
    double bytes = (double)o->elems * 4 * o->iters;
    fprintf(f->out, "run: %u workers, %u shard%s%s%s, %u devices (%s), %llu elements x %u "
            "all-reduces, count %u, slots %u\n", o->workers, f->T, f->T == 1 ? "" : "s",
            o->tree ? ", tree " : o->fabric ? ", devices of " : "",
            o->tree ? o->tree : o->fabric ? o->fabric : "", f->nd,
            o->device == WS_RUN_REF ? "reference" : o->device == WS_RUN_RTL ? "RTL models"
                                                                             : "RTL and reference",
            (unsigned long long)o->elems, o->iters, o->count, o->slots);
    fprintf(f->out, "  faults on every link: loss %g, dup %g, reorder %g, corrupt %g; one-way "
            "latency %llu cycles per link\n", o->loss, o->dup, o->reorder, o->corrupt,
            (unsigned long long)o->latency);
    fprintf(f->out, "  time: %llu cycles = %.3f us simulated (%.3f GB/s of gradient per worker) "
            "in %.2f s\n", (unsigned long long)s->cycles, t_s * 1e6, bytes / t_s / 1e9, secs);
    fprintf(f->out, "  transport: %llu DATA, %llu retransmissions, %llu timeouts; %llu RESULTs "
            "taken, %llu duplicate, %llu stale, %llu corrupted\n",
            (unsigned long long)s->data, (unsigned long long)s->retx,
            (unsigned long long)s->timeouts, (unsigned long long)s->results,
            (unsigned long long)s->dup_results, (unsigned long long)s->stale_results,
            (unsigned long long)s->bad_frames);
    fprintf(f->out, "  oracle: %llu RESULTs and %llu PARTIALs checked as they left their device\n",
            (unsigned long long)f->checked_results, (unsigned long long)f->checked_partials);
    fprintf(f->out, "  bytes: %llu sent by the workers, %llu by devices to their parents\n",
            (unsigned long long)s->worker_bytes, (unsigned long long)s->uplink_bytes);
    for (unsigned k = 0; k < f->nd; k++) {
        const node *n = &f->d[k];
        const ws_counters *c = &n->ctr;
        uint64_t drops = 0;
        for (int r = 1; r < WS_N_REASONS; r++)
            drops += c->drop[r];
        fprintf(f->out, "  device %-10s %s: %llu in, %llu out; accepted %llu, results %llu, "
                "resends %llu, drops %llu (duplicate %llu)", n->x->name, n->rtl ? "rtl" : "ref",
                (unsigned long long)n->frames_in, (unsigned long long)n->frames_out,
                (unsigned long long)c->accepted, (unsigned long long)c->results,
                (unsigned long long)c->resends, (unsigned long long)drops,
                (unsigned long long)c->drop[WS_DROP_DUPLICATE]);
        if (n->rtl) /* what the model cost: the cycles it was clocked, the rest skipped idle */
            fprintf(f->out, "; clocked %llu cycles", (unsigned long long)ws_session_line_clocked(n->s));
        fputc('\n', f->out);
    }
    fprintf(f->out, "  tensors: %llu of %llu exact%s\n", (unsigned long long)s->tensors_exact,
            (unsigned long long)s->tensors, s->check_failures ? "; CHECKS FAILED (see above)" : "");
}

static void check_counters(fabric *f)
{
    for (unsigned k = 0; k < f->nd; k++) {
        node *n = &f->d[k];
        const ws_counters *c = &n->ctr;
        uint64_t rx = 0, tx = 0, drops = 0;
        for (unsigned p = 0; p < DEV_PORTS; p++)
            rx += c->rx_frames[p], tx += c->tx_frames[p];
        for (int r = 1; r < WS_N_REASONS; r++)
            drops += c->drop[r];
        if (rx != n->frames_in || tx != n->frames_out)
            report(f, "device %s counted %llu frames in and %llu out; %llu went in, %llu came out",
                   n->x->name, (unsigned long long)rx, (unsigned long long)tx,
                   (unsigned long long)n->frames_in, (unsigned long long)n->frames_out);
        if (c->accepted + c->bypass + c->oversize + drops != rx)
            report(f, "device %s: accepted + bypass + oversize + drops != received", n->x->name);
        /* every round completes once: members x chunks of its shard x iterations results, or
         * one PARTIAL per round and the fan-out */
        uint64_t rounds = 0;
        for (uint64_t i = n->x->shard; i < f->nch; i += f->T)
            rounds++;
        rounds *= f->o->iters;
        uint64_t want = rounds * n->n_members + (n->x->parent >= 0 ? rounds : 0);
        if (c->results != want)
            report(f, "device %s sent %llu results and PARTIALs on completion, %llu expected",
                   n->x->name, (unsigned long long)c->results, (unsigned long long)want);
    }
}

int ws_fabric_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen)
{
    fabric *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(st, 0, sizeof *st);
    f->o = o;
    f->st = st;
    f->out = out;
    f->err = err;
    f->errlen = errlen;
    f->log = (ws_base_log){st, out, err, errlen, 0, 0};
    f->T = o->shards ? o->shards : 1;
    f->rng.s = ws_mix64(o->seed ^ 0x666162);
    fabric_tx *ctx = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = -1;
    if (setup(f, &ctx))
        goto done;
    ws_base_expected(&f->exp, &f->log, 0);
    for (unsigned w = 0; w < f->nw && !f->log.failed; w++)
        start_worker(f, w);
    uint64_t quiet_since = NEVER;
    while (!f->log.failed) {
        deliver(f);
        uint64_t next = service_workers(f);
        for (unsigned k = 0; k < f->nd && !f->log.failed; k++)
            feed(f, k);
        if (f->log.failed)
            break;
        int finished = 1;
        for (unsigned w = 0; w < f->nw; w++)
            finished &= f->w[w].finished;
        if (finished && all_quiet(f)) {
            uint64_t need = o->record ? WS_SESSION_QUIET_RECORD : WS_SESSION_SETTLE;
            if (quiet_since == NEVER)
                quiet_since = f->now;
            if (f->now - quiet_since >= need)
                break;
        } else {
            quiet_since = NEVER;
        }
        if (o->max_cycles && f->now > o->max_cycles) {
            fail(f, "no completion after %llu cycles (--max-cycles)",
                 (unsigned long long)o->max_cycles);
            break;
        }
        uint64_t t = ws_channel_queue_top(&f->hosts.q[1]);
        if (t < next)
            next = t;
        for (unsigned k = 0; k < f->nd; k++)
            if ((t = ws_channel_queue_top(&f->d[k].in.q[0])) < next)
                next = t;
        uint64_t to;
        if (any_busy_model(f))
            to = f->now + 1;
        else if (finished && quiet_since != NEVER)
            to = f->now + MAX_STEP;
        else if (next == NEVER)
            break; /* nothing left to happen: the checks below say what is missing */
        else
            to = next > f->now ? next : f->now + 1;
        advance(f, to);
        f->now = to;
    }
    if (f->log.failed)
        goto done;
    st->cycles = f->t_done;
    for (unsigned k = 0; k < f->nd; k++)
        if (ws_session_counters(f->d[k].s, DEV_PORTS, &f->d[k].ctr, err, errlen))
            goto done;
    for (unsigned w = 0; w < f->nw; w++)
        for (unsigned s = 0; s < f->T; s++)
            ws_base_add_worker(st, ws_worker_get_stats(f->w[w].w[s]));
    for (unsigned k = 0; k < f->nd; k++)
        for (int d = 0; d < 2; d++) {
            st->lost[d] += f->d[k].in.st.lost[d];
            st->duped[d] += f->d[k].in.st.duped[d];
            st->reordered[d] += f->d[k].in.st.reordered[d];
            st->corrupted[d] += f->d[k].in.st.corrupted[d];
        }
    for (int d = 0; d < 2; d++) {
        st->lost[d] += f->hosts.st.lost[d];
        st->duped[d] += f->hosts.st.duped[d];
        st->reordered[d] += f->hosts.st.reordered[d];
        st->corrupted[d] += f->hosts.st.corrupted[d];
    }
    check_counters(f);
    if (o->record && finish_record(f))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (st->tensors != (uint64_t)f->nw * o->iters)
        report(f, "%llu of %llu tensors completed", (unsigned long long)st->tensors,
               (unsigned long long)f->nw * o->iters);
    print_report(f, st->wall_s);
    st->ctr = f->d[0].ctr;
    rc = st->tensors_exact == st->tensors && st->tensors == (uint64_t)f->nw * o->iters &&
                 !st->check_failures
             ? 0
             : 1;
done:
    if (f->log.failed && rc == 0)
        rc = -1;
    for (unsigned k = 0; f->d && k < f->nd; k++) {
        ws_trace_finish(f->d[k].rec_in, NULL, 0);
        ws_trace_finish(f->d[k].rec_exp, NULL, 0);
        ws_channel_free(&f->d[k].in);
        ws_frame_set_free(&f->d[k].bp);
        ws_session_free(f->d[k].s);
    }
    ws_channel_free(&f->hosts);
    for (unsigned w = 0; f->w && w < f->nw; w++) {
        for (unsigned s = 0; s < f->T; s++)
            ws_worker_free(f->w[w].w[s]);
        free(f->w[w].buf);
    }
    free(ctx);
    free(f->w);
    free(f->d);
    ws_base_expect_free(&f->exp);
    free(f);
    return rc;
}
