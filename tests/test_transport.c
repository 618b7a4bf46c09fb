/* test_transport.c - cmocka tests of driver/transport.c, the workers' all-reduce transport,
 * against the software reference of the device (sim/refdev.c) through a fault-injecting
 * channel, and of the job setup and teardown of driver/dev.c on a recording register bus.
 *
 * The closed loop (run_job) keeps its own time: frames to the device and to the workers wait in
 * one queue ordered by arrival; loss, duplication (the copy up to one latency later), reordering
 * (a delay of up to one latency) and single-bit corruption apply in each direction at their own
 * rates. Every final tensor is compared bit for bit with an exact sum computed here with
 * driver/xsum.c, and the device counters must add up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"
#include "wiresum/refdev.h"
#include "rng.h"
#include "wiresum/validate.h"
#include "wiresum/wire.h"
#include "wiresum/dev.h"
#include "wiresum/regmap.h"
#include "wiresum/transport.h"
#include "wiresum/xsum.h"

#define MAXW 16
#define LAT 10 /* one-way latency of the test network */

/* ---- the closed loop ---------------------------------------------------------------------- */

typedef struct {
    uint64_t t, seq;
    int to_dev;      /* 1: to the device (port), 0: to worker `dst` */
    unsigned port, dst;
    size_t len;
    uint8_t *f;
} msg;

typedef struct {
    double loss, dup, reorder, corrupt;
    double mark; /* ECN: CE set on ECN-capable frames (as a switch above its threshold) */
} faults;

typedef struct {
    unsigned workers, slots, count, tensors;
    size_t n;
    faults up, down;
    uint64_t seed, hold;
    int in_place;
    int cc; /* the workers' congestion control */
} job_params;

typedef struct {
    ws_config cfg;
    ws_refdev *dev;
    ws_worker *w[MAXW];
    unsigned nw;
    msg *q;
    size_t nq, capq;
    uint64_t now, seq;
    ws_rng rng;
    const job_params *p;
    unsigned cur_w; /* the worker whose tx is being called */
    uint64_t lost, duped, reordered, corrupted, marked;
    uint64_t max_outstanding; /* largest number of chunks a worker had in flight */
} loop;

static void q_add(loop *l, int to_dev, unsigned port, unsigned dst, const uint8_t *f, size_t len,
                  uint64_t t, const faults *fx)
{
    if (l->nq == l->capq) {
        l->capq = l->capq ? 2 * l->capq : 256;
        l->q = realloc(l->q, l->capq * sizeof *l->q);
        assert_non_null(l->q);
    }
    msg *m = &l->q[l->nq++];
    *m = (msg){t, l->seq++, to_dev, port, dst, len, malloc(len)};
    assert_non_null(m->f);
    memcpy(m->f, f, len);
    if (len > WS_OFF_IP + 1 && (m->f[WS_OFF_IP + 1] & 3) && ws_rng_chance(&l->rng, fx->mark)) {
        m->f[WS_OFF_IP + 1] |= 3; /* CE */
        ws_fix_checksums(m->f, len);
        l->marked++;
    }
    if (ws_rng_chance(&l->rng, fx->corrupt)) {
        uint64_t bit = ws_rng_below(&l->rng, 8 * (uint64_t)len);
        m->f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        l->corrupted++;
    }
}

static void net(loop *l, int to_dev, unsigned port, unsigned dst, const uint8_t *f, size_t len,
                const faults *fx)
{
    if (ws_rng_chance(&l->rng, fx->loss)) {
        l->lost++;
        return;
    }
    uint64_t t = l->now + LAT;
    if (ws_rng_chance(&l->rng, fx->reorder)) {
        t += 1 + ws_rng_below(&l->rng, LAT);
        l->reordered++;
    }
    q_add(l, to_dev, port, dst, f, len, t, fx);
    if (ws_rng_chance(&l->rng, fx->dup)) {
        l->duped++;
        q_add(l, to_dev, port, dst, f, len, l->now + LAT + 1 + ws_rng_below(&l->rng, LAT), fx);
    }
}

static void tx_cb(void *ctx, const uint8_t *f, size_t len)
{
    loop *l = ctx;
    const ws_job *jb = &l->cfg.job[0];
    net(l, 1, jb->member[l->cur_w].port, 0, f, len, &l->p->up);
}

static void dev_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    loop *l = ctx;
    const ws_job *jb = &l->cfg.job[0];
    (void)egress;
    for (unsigned i = 0; i < l->nw; i++)
        if (!memcmp(f, jb->member[i].mac, 6)) {
            net(l, 0, 0, i, f, len, &l->p->down);
            return;
        }
}

/* Index of the earliest message, or SIZE_MAX. */
static size_t q_first(const loop *l)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < l->nq; i++)
        if (best == SIZE_MAX || l->q[i].t < l->q[best].t ||
            (l->q[i].t == l->q[best].t && l->q[i].seq < l->q[best].seq))
            best = i;
    return best;
}

static uint32_t value(uint64_t seed, unsigned t, unsigned w, size_t i)
{
    uint64_t h = ws_mix64(ws_mix64(seed ^ ((uint64_t)t << 20 | w)) ^ i);
    if (h % 23 == 0)
        return (uint32_t)(h >> 16) & 0x807fffff; /* subnormals and zeros */
    return (uint32_t)(h >> 63) << 31 | (uint32_t)(100 + (h >> 40) % 50) << 23 |
           ((uint32_t)h & 0x7fffff);
}

static void make_cfg(ws_config *c, unsigned workers, unsigned slots, unsigned count)
{
    ws_config_default(c);
    c->n_ports = 4;
    for (unsigned p = 0; p < 4; p++)
        c->bypass[p] = (uint8_t)(p ^ 1);
    ws_job *jb = &c->job[c->n_jobs++];
    jb->id = 7;
    jb->enable = true;
    jb->workers = workers;
    jb->slots = slots;
    jb->max_count = count;
    for (unsigned w = 0; w < workers; w++) {
        const uint8_t mac[6] = {2, 0, 0, 0, 1, (uint8_t)w};
        memcpy(jb->member[w].mac, mac, 6);
        jb->member[w].ip = 0x0a000101u + w;
        jb->member[w].udp_port = 40000;
        jb->member[w].port = (uint8_t)(w % 4);
    }
    char err[256];
    assert_int_equal(ws_config_check(c, err, sizeof err), 0);
}

static ws_worker *make_worker(loop *l, unsigned rank, uint64_t hold)
{
    ws_worker_cfg wc;
    char err[256];
    ws_worker_cfg_init(&wc);
    assert_int_equal(ws_worker_cfg_from_config(&wc, &l->cfg, 7, rank, err, sizeof err), 0);
    wc.rto = 8 * LAT;
    wc.rto_min = 4 * LAT;
    wc.rto_max = 32 * LAT;
    wc.adaptive = 0;
    wc.max_retries = 200;
    wc.hold = hold;
    wc.cc = l->p->cc;
    wc.tx = tx_cb;
    wc.tx_ctx = l;
    ws_worker *w = ws_worker_new(&wc, err, sizeof err);
    assert_non_null(w);
    return w;
}

typedef struct {
    uint64_t retx, timeouts, bad, stale, dup;
    uint64_t ce, cuts, marked; /* congestion control: CE results, window decreases; CE set */
    double cwnd_min;
    ws_counters ctr;
} job_result;

/* Outstanding chunks of worker i: sent, result not in (from its progress and the device). */
static void track_outstanding(loop *l, unsigned i)
{
    const ws_worker_stats *s = ws_worker_get_stats(l->w[i]);
    uint64_t out = s->data_frames - s->chunks;
    if (out > l->max_outstanding)
        l->max_outstanding = out;
}

/* All-reduce p->tensors tensors of p->n elements with p->workers workers; assert exactness. */
static void run_job(const job_params *p, job_result *res)
{
    loop *l = calloc(1, sizeof *l);
    assert_non_null(l);
    l->p = p;
    l->nw = p->workers;
    l->rng.s = ws_mix64(p->seed);
    make_cfg(&l->cfg, p->workers, p->slots, p->count);
    char err[256];
    l->dev = ws_refdev_new(&l->cfg, err, sizeof err);
    assert_non_null(l->dev);
    float *in[MAXW], *out[MAXW];
    unsigned tensor[MAXW] = {0};
    uint32_t *expect = malloc((p->n ? p->n : 1) * p->tensors * 4);
    assert_non_null(expect);
    for (unsigned t = 0; t < p->tensors; t++)
        for (size_t i = 0; i < p->n; i++) {
            ws_xsum x;
            ws_xsum_init(&x);
            for (unsigned w = 0; w < p->workers; w++)
                ws_xsum_add(&x, value(p->seed, t, w, i));
            expect[t * p->n + i] = ws_xsum_round(&x);
        }
    for (unsigned w = 0; w < l->nw; w++) {
        l->w[w] = make_worker(l, w, p->hold);
        in[w] = malloc((p->n ? p->n : 1) * 4);
        out[w] = p->in_place ? in[w] : malloc((p->n ? p->n : 1) * 4);
        assert_non_null(in[w]);
        assert_non_null(out[w]);
    }
    for (unsigned w = 0; w < l->nw; w++) {
        for (size_t i = 0; i < p->n; i++) {
            uint32_t b = value(p->seed, 0, w, i);
            memcpy(&in[w][i], &b, 4);
        }
        assert_int_equal(ws_worker_start(l->w[w], in[w], out[w], p->n, 0), 0);
        assert_int_equal(ws_worker_tensor(l->w[w]), (7u << 16 | 1));
        track_outstanding(l, w);
    }
    unsigned finished = 0;
    while (finished < l->nw) {
        assert_true(l->now < 50000000); /* no livelock */
        size_t k;
        while ((k = q_first(l)) != SIZE_MAX && l->q[k].t <= l->now) {
            msg m = l->q[k];
            l->q[k] = l->q[--l->nq];
            if (m.to_dev) {
                ws_refdev_rx(l->dev, m.port, m.f, m.len, dev_emit, l);
            } else {
                l->cur_w = m.dst;
                ws_worker_rx(l->w[m.dst], m.f, m.len, l->now);
                track_outstanding(l, m.dst);
            }
            free(m.f);
        }
        uint64_t next = UINT64_MAX;
        for (unsigned w = 0; w < l->nw; w++) {
            if (tensor[w] == p->tensors)
                continue;
            l->cur_w = w;
            if (ws_worker_deadline(l->w[w]) <= l->now)
                assert_int_equal(ws_worker_poll(l->w[w], l->now), 0);
            if (ws_worker_done(l->w[w])) {
                /* the all-reduce is complete: every element is the exact sum */
                for (size_t i = 0; i < p->n; i++) {
                    uint32_t b;
                    memcpy(&b, &out[w][i], 4);
                    if (b != expect[tensor[w] * p->n + i])
                        fail_msg("worker %u tensor %u element %zu: 0x%08x, expected 0x%08x", w,
                                 tensor[w], i, b, expect[tensor[w] * p->n + i]);
                }
                if (++tensor[w] == p->tensors) {
                    finished++;
                    continue;
                }
                for (size_t i = 0; i < p->n; i++) {
                    uint32_t b = value(p->seed, tensor[w], w, i);
                    memcpy(&in[w][i], &b, 4);
                }
                assert_int_equal(ws_worker_tensor(l->w[w]), (7u << 16 | 1) + tensor[w]);
                assert_int_equal(ws_worker_start(l->w[w], in[w], out[w], p->n, l->now), 0);
                track_outstanding(l, w);
            }
            uint64_t d = ws_worker_deadline(l->w[w]);
            if (d < next)
                next = d;
        }
        if ((k = q_first(l)) != SIZE_MAX && l->q[k].t < next)
            next = l->q[k].t;
        if (finished == l->nw)
            break;
        assert_true(next != UINT64_MAX);
        l->now = next > l->now ? next : l->now;
    }
    assert_true(l->max_outstanding <= p->slots);
    memset(res, 0, sizeof *res);
    res->marked = l->marked;
    res->cwnd_min = (double)p->slots * ws_frame_len(p->count);
    for (unsigned w = 0; w < l->nw; w++) {
        const ws_worker_stats *s = ws_worker_get_stats(l->w[w]);
        assert_int_equal(s->allreduces, p->tensors);
        res->retx += s->retx_frames;
        res->timeouts += s->timeouts;
        res->bad += s->bad_frames;
        res->stale += s->stale_results;
        res->dup += s->dup_results;
        res->ce += s->ce_results;
        res->cuts += s->cwnd_cuts;
        if (s->cwnd_min < res->cwnd_min)
            res->cwnd_min = s->cwnd_min;
    }
    res->ctr = *ws_refdev_counters(l->dev);
    uint64_t chunks = p->count ? (p->n + p->count - 1) / p->count : 0;
    assert_int_equal(res->ctr.results, (uint64_t)p->workers * chunks * p->tensors);
    assert_int_equal(res->ctr.accepted, (uint64_t)p->workers * chunks * p->tensors);
    assert_int_equal(res->ctr.drop[WS_DROP_MISMATCH], 0);
    for (size_t i = 0; i < l->nq; i++)
        free(l->q[i].f);
    free(l->q);
    for (unsigned w = 0; w < l->nw; w++) {
        ws_worker_free(l->w[w]);
        if (!p->in_place)
            free(out[w]);
        free(in[w]);
    }
    free(expect);
    ws_refdev_free(l->dev);
    free(l);
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_one_element(void **state)
{
    (void)state;
    job_result r;
    for (unsigned w = 1; w <= 3; w++) {
        job_params p = {.workers = w, .slots = 4, .count = 8, .tensors = 3, .n = 1, .seed = w};
        run_job(&p, &r);
        assert_int_equal(r.retx, 0);
    }
}

/* Window sizes 1..S, counts that do and do not divide the tensor, in place and not. */
static void test_shapes(void **state)
{
    (void)state;
    static const unsigned counts[] = {1, 3, 7, 64};
    static const size_t sizes[] = {1, 2, 10, 23, 64, 65, 200};
    job_result r;
    for (unsigned s = 1; s <= 5; s++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                job_params p = {.workers = 1 + (unsigned)(z % 4), .slots = s,
                                .count = counts[c], .tensors = 3, .n = sizes[z],
                                .seed = 100 * s + 10 * c + z, .in_place = (int)(z & 1)};
                run_job(&p, &r);
                assert_int_equal(r.retx, 0);
                assert_int_equal(r.stale + r.dup + r.bad, 0);
            }
}

/* Loss, duplication, reordering and corruption in both directions, several workers and
 * consecutive tensors: every tensor exact, and the faults were really exercised. */
static void test_faults_both_ways(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        faults f = {0.1, 0.1, 0.1, 0.1, 0};
        job_params p = {.workers = 2 + (unsigned)seed % 5, .slots = 1 + (unsigned)seed % 4,
                        .count = 5 + (unsigned)seed, .tensors = 4, .n = 97 + 31 * seed,
                        .up = f, .down = f, .seed = seed, .hold = 2 * LAT + 1};
        job_result r;
        run_job(&p, &r);
        assert_true(r.retx > 0);
        assert_true(r.bad > 0); /* corrupted RESULTs reached the workers and were refused */
        assert_true(r.ctr.drop[WS_DROP_BAD_UDP] + r.ctr.drop[WS_DROP_BAD_IPV4] > 0);
        assert_true(r.ctr.drop[WS_DROP_DUPLICATE] > 0);
        assert_true(r.ctr.resends > 0);
    }
    /* heavy faults one way at a time */
    faults none = {0, 0, 0, 0, 0}, heavy = {0.3, 0.3, 0.3, 0.3, 0};
    job_params up = {.workers = 4, .slots = 3, .count = 4, .tensors = 3, .n = 50,
                     .up = heavy, .down = none, .seed = 77, .hold = 2 * LAT + 1};
    job_params down = up;
    down.up = none;
    down.down = heavy;
    job_result r;
    run_job(&up, &r);
    assert_true(r.retx > 0);
    run_job(&down, &r);
    assert_true(r.retx > 0 && r.bad > 0 && r.stale + r.dup > 0);
}

/* ---- a worker on its own, the frames it sends captured ----------------------------------- */

typedef struct {
    uint8_t f[64][WS_OFF_ELEMS + 4 * 64];
    size_t len[64];
    unsigned n;
} capture;

static void cap_tx(void *ctx, const uint8_t *f, size_t len)
{
    capture *c = ctx;
    assert_true(c->n < 64);
    memcpy(c->f[c->n], f, len);
    c->len[c->n++] = len;
}

/* The configuration of rank 1 of a 2-worker job whose frames go to the capture c (emptied). */
static void solo_cfg(capture *c, ws_worker_cfg *wc, unsigned slots, unsigned count)
{
    ws_worker_cfg_init(wc);
    ws_config cfg;
    make_cfg(&cfg, 2, slots, count);
    char err[256];
    assert_int_equal(ws_worker_cfg_from_config(wc, &cfg, 7, 1, err, sizeof err), 0);
    wc->rto = 100;
    wc->rto_min = 50;
    wc->rto_max = 800;
    wc->adaptive = 0;
    wc->max_retries = 6;
    wc->tx = cap_tx;
    wc->tx_ctx = c;
    memset(c, 0, sizeof *c);
}

static ws_worker *solo_shard(capture *c, unsigned slots, unsigned count, uint64_t hold,
                             unsigned shard, unsigned shards)
{
    ws_worker_cfg wc;
    solo_cfg(c, &wc, slots, count);
    wc.hold = hold;
    wc.shard = shard;
    wc.shards = shards;
    char err[256];
    ws_worker *w = ws_worker_new(&wc, err, sizeof err);
    assert_non_null(w);
    return w;
}

static ws_worker *solo(capture *c, unsigned slots, unsigned count, uint64_t hold)
{
    return solo_shard(c, slots, count, hold, 0, 1);
}

/* The RESULT the device would send to rank 1 for the DATA frame d, with these sums. */
static size_t result_for(const uint8_t *d, const uint32_t *sums, uint8_t *out, int retx)
{
    ws_hdr h;
    ws_parse(d, &h);
    ws_hdr r = h;
    memcpy(r.dst_mac, h.src_mac, 6);
    memcpy(r.src_mac, h.dst_mac, 6);
    r.dst_ip = h.src_ip;
    r.src_ip = h.dst_ip;
    r.dst_port = h.src_port;
    r.src_port = h.dst_port;
    r.type = WS_TYPE_RESULT;
    r.flags = (uint8_t)((h.flags & WS_FLAG_SET) | (retx ? WS_FLAG_RETX : 0));
    return ws_build(out, &r, sums);
}

/* The device's answer to the oldest frame captured: it leaves the capture, its RESULT (with
 * these sums, ECN CE if ce) must complete its chunk. */
static void answer_oldest_at(capture *c, ws_worker *w, const uint32_t *sums, int ce,
                             uint64_t now);
static void answer_oldest(capture *c, ws_worker *w, const uint32_t *sums, int ce)
{
    answer_oldest_at(c, w, sums, ce, 1);
}

/* The same at time now. */
static void answer_oldest_at(capture *c, ws_worker *w, const uint32_t *sums, int ce,
                             uint64_t now)
{
    uint8_t res[WS_OFF_ELEMS + 4 * 64];
    size_t len = result_for(c->f[0], sums, res, 0);
    if (ce) {
        res[WS_OFF_IP + 1] |= 3;
        ws_fix_checksums(res, len);
    }
    memmove(&c->f[0], &c->f[1], (c->n - 1) * sizeof c->f[0]);
    memmove(&c->len[0], &c->len[1], (c->n - 1) * sizeof c->len[0]);
    c->n--;
    assert_int_equal(ws_worker_rx(w, res, len, now), WS_RX_RESULT);
}

static void answer_first(capture *c, ws_worker *w, const uint32_t *sums)
{
    answer_oldest(c, w, sums, 0);
}

/* Chunk i in slot i mod S with SET (i div S) mod 2, the sequence running on across tensors,
 * tensor ids fresh, at most S chunks outstanding, chunk i+S only after the result of i. */
static void test_sequence_and_sets(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    const unsigned S = 3, K = 4;
    ws_worker *w = solo(c, S, K, 0);
    float buf[10] = {0};
    uint32_t sums[4] = {1, 2, 3, 4};
    uint64_t chunk = 0;
    for (unsigned t = 0; t < 4; t++) {
        size_t n = t == 2 ? 1 : 10; /* 3 chunks, or 1 */
        unsigned nch = (unsigned)((n + K - 1) / K);
        assert_int_equal(ws_worker_start(w, buf, buf, n, 0), 0);
        for (unsigned i = 0; i < nch; i++, chunk++) {
            /* each chunk was sent when its slot freed, which is now */
            assert_true(c->n >= 1);
            ws_hdr h;
            ws_parse(c->f[0], &h);
            assert_int_equal(h.slot, chunk % S);
            assert_int_equal(h.flags & WS_FLAG_SET, (chunk / S) % 2);
            assert_int_equal(h.flags & WS_FLAG_RETX, 0);
            assert_int_equal(h.offset, i * K);
            assert_int_equal(h.count, n - i * K < K ? n - i * K : K);
            assert_int_equal(h.tensor, (7u << 16 | 1) + t);
            assert_int_equal(h.worker, 1);
            assert_int_equal(h.job, 7);
            assert_true(c->n <= S); /* never more than S outstanding */
            answer_first(c, w, sums);
        }
        assert_int_equal(c->n, 0);
        assert_true(ws_worker_done(w));
        assert_int_equal(ws_worker_deadline(w), WS_NO_DEADLINE);
    }
    /* a zero-length all-reduce completes at once and takes a tensor id */
    assert_int_equal(ws_worker_start(w, buf, buf, 0, 5), 0);
    assert_true(ws_worker_done(w));
    assert_int_equal(ws_worker_tensor(w), (7u << 16 | 1) + 5);
    assert_int_equal(ws_worker_get_stats(w)->allreduces, 5);
    ws_worker_free(w);
    free(c);
}

/* Sharded over T devices: the worker of shard d sends chunks d, d+T, d+2T, ... of each tensor, at
 * their offsets in the whole tensor, numbered on its own sequence (slot j mod S, SET (j div S)
 * mod 2 for its j-th chunk); a shard with no chunk of a tensor is done at once. */
static void test_shards(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    const unsigned S = 2, K = 4, T = 3;
    float buf[30] = {0};
    uint32_t sums[4] = {1, 2, 3, 4};
    for (unsigned d = 0; d < T; d++) {
        ws_worker *w = solo_shard(c, S, K, 0, d, T);
        unsigned j = 0; /* this shard's sequence, across tensors */
        for (unsigned t = 0; t < 2; t++) {
            size_t n = t == 0 ? 30 : 5; /* 8 chunks, then 2 */
            unsigned nch = t == 0 ? (d < 2 ? 3 : 2) : (d < 2 ? 1 : 0);
            assert_int_equal(ws_worker_start(w, buf, buf, n, 0), 0);
            uint64_t done, total;
            ws_worker_progress(w, &done, &total);
            assert_int_equal(total, nch);
            for (unsigned i = 0; i < nch; i++, j++) {
                ws_hdr h;
                assert_true(c->n >= 1);
                ws_parse(c->f[0], &h);
                unsigned chunk = d + T * i;
                assert_int_equal(h.offset, chunk * K);
                assert_int_equal(h.count, n - chunk * K < K ? n - chunk * K : K);
                assert_int_equal(h.slot, j % S);
                assert_int_equal(h.flags & WS_FLAG_SET, (j / S) % 2);
                assert_int_equal(h.tensor, (7u << 16 | 1) + t);
                answer_first(c, w, sums);
            }
            assert_int_equal(c->n, 0);
            assert_true(ws_worker_done(w));
        }
        ws_worker_free(w);
    }
    /* shard out of range */
    ws_worker_cfg wc;
    ws_worker_cfg_init(&wc);
    wc.tx = cap_tx;
    wc.tx_ctx = c;
    wc.shard = 3;
    wc.shards = 3;
    char err[256];
    assert_null(ws_worker_new(&wc, err, sizeof err));
    assert_non_null(strstr(err, "shard 3 of 3"));
    free(c);
}

/* Retransmissions carry RETX, the first transmission does not; each timeout doubles up to
 * rto_max; max_retries ends the all-reduce with an error naming the chunk. */
static void test_retx_and_backoff(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    ws_worker *w = solo(c, 2, 4, 0);
    float buf[4] = {1, 2, 3, 4};
    assert_int_equal(ws_worker_start(w, buf, buf, 4, 1000), 0);
    assert_int_equal(c->n, 1);
    ws_hdr h0;
    ws_parse(c->f[0], &h0);
    assert_int_equal(h0.flags & WS_FLAG_RETX, 0);
    assert_int_equal(ws_worker_deadline(w), 1100);
    /* nothing happens before the deadline */
    assert_int_equal(ws_worker_poll(w, 1099), 0);
    assert_int_equal(c->n, 1);
    uint64_t now = 1000, expect_gap[] = {100, 200, 400, 800, 800, 800, 800};
    for (unsigned k = 0; k < 6; k++) {
        uint64_t d = ws_worker_deadline(w);
        assert_int_equal(d - now, expect_gap[k]);
        now = d;
        assert_int_equal(ws_worker_poll(w, now), 0);
        assert_int_equal(c->n, 2 + k);
        ws_hdr h;
        ws_parse(c->f[1 + k], &h);
        assert_int_equal(h.flags & WS_FLAG_RETX, WS_FLAG_RETX);
        assert_int_equal(h.flags & WS_FLAG_SET, h0.flags & WS_FLAG_SET);
        assert_int_equal(h.offset, h0.offset);
        assert_int_equal(h.tensor, h0.tensor);
        /* the same elements, a valid frame */
        assert_memory_equal(c->f[1 + k] + WS_OFF_ELEMS, c->f[0] + WS_OFF_ELEMS, 16);
        ws_config cfg;
        make_cfg(&cfg, 2, 2, 4);
        const ws_job *jb;
        assert_int_equal(ws_validate(c->f[1 + k], c->len[1 + k], &cfg, &h, &jb), WS_OK);
    }
    const ws_worker_stats *s = ws_worker_get_stats(w);
    assert_int_equal(s->retx_frames, 6);
    assert_int_equal(s->max_timer, 800);
    /* the seventh timeout exceeds max_retries = 6 */
    assert_int_equal(ws_worker_poll(w, ws_worker_deadline(w)), -1);
    assert_non_null(ws_worker_error(w));
    assert_non_null(strstr(ws_worker_error(w), "after 6 retransmissions"));
    assert_int_equal(ws_worker_start(w, buf, buf, 4, now), -1);
    ws_worker_free(w);

    /* a late result still completes the chunk; the timer of the next chunk starts afresh */
    w = solo(c, 1, 4, 0);
    float two[8] = {0};
    assert_int_equal(ws_worker_start(w, two, two, 8, 0), 0);
    assert_int_equal(ws_worker_poll(w, 100), 0);
    assert_int_equal(ws_worker_poll(w, 300), 0);
    assert_int_equal(c->n, 3);
    uint32_t sums[4] = {5, 6, 7, 8};
    uint8_t res[WS_OFF_ELEMS + 16];
    size_t len = result_for(c->f[2], sums, res, 1);
    assert_int_equal(ws_worker_rx(w, res, len, 350), WS_RX_RESULT);
    assert_int_equal(c->n, 4); /* chunk 1 (SET 1, slot 0) went out at once */
    ws_hdr h;
    ws_parse(c->f[3], &h);
    assert_int_equal(h.flags, WS_FLAG_SET);
    assert_int_equal(ws_worker_deadline(w), 450);
    ws_worker_free(w);
    free(c);
}

/* Duplicate, stale, corrupted and foreign RESULTs are ignored and counted. */
static void test_results_filtered(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    ws_worker *w = solo(c, 2, 4, 0);
    float buf[12];
    for (int i = 0; i < 12; i++)
        buf[i] = (float)i;
    assert_int_equal(ws_worker_start(w, buf, buf, 12, 0), 0);
    assert_int_equal(c->n, 2); /* chunks 0 and 1 */
    uint32_t s0[4] = {0x3f800000, 0x40000000, 0x40400000, 0x40800000};
    uint8_t res[WS_OFF_ELEMS + 16], bad[WS_OFF_ELEMS + 16];
    size_t len = result_for(c->f[0], s0, res, 0);

    /* every single-bit error anywhere in the frame is refused (or, in the Ethernet source or
     * destination, not from the device / not for this worker) and stores nothing */
    for (size_t bit = 0; bit < 8 * len; bit++) {
        memcpy(bad, res, len);
        bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ws_rx_kind k = ws_worker_rx(w, bad, len, 1);
        if (bit < 96) /* destination and source MAC: not covered by a checksum */
            assert_int_equal(k, WS_RX_FOREIGN);
        else
            assert_int_equal(k, WS_RX_BAD);
    }
    float zero = 0.0f;
    assert_memory_equal(&buf[0], &zero, 4);
    /* truncated and overlong copies */
    assert_int_equal(ws_worker_rx(w, res, len - 1, 1), WS_RX_BAD);
    assert_int_equal(ws_worker_rx(w, res, 10, 1), WS_RX_BAD);
    /* another rank's copy */
    memcpy(bad, res, len);
    ws_put16(bad + WS_OFF_AGG + 6, 0);
    ws_fix_checksums(bad, len);
    assert_int_equal(ws_worker_rx(w, bad, len, 1), WS_RX_FOREIGN);
    /* another job */
    memcpy(bad, res, len);
    ws_put16(bad + WS_OFF_AGG + 4, 8);
    ws_fix_checksums(bad, len);
    assert_int_equal(ws_worker_rx(w, bad, len, 1), WS_RX_FOREIGN);
    /* the wrong SET, another tensor, another offset: stale */
    memcpy(bad, res, len);
    bad[WS_OFF_AGG + 2] ^= WS_FLAG_SET;
    ws_fix_checksums(bad, len);
    assert_int_equal(ws_worker_rx(w, bad, len, 1), WS_RX_STALE);
    memcpy(bad, res, len);
    ws_put32(bad + WS_OFF_AGG + 16, 12345);
    ws_fix_checksums(bad, len);
    assert_int_equal(ws_worker_rx(w, bad, len, 1), WS_RX_STALE);
    memcpy(bad, res, len);
    ws_put32(bad + WS_OFF_AGG + 12, 4);
    ws_fix_checksums(bad, len);
    assert_int_equal(ws_worker_rx(w, bad, len, 1), WS_RX_STALE);
    /* a DATA frame is not a RESULT */
    assert_int_equal(ws_worker_rx(w, c->f[1], c->len[1], 1), WS_RX_BAD);
    /* the real one: stored, and chunk 2 takes slot 0 with SET 1 at once */
    assert_int_equal(ws_worker_rx(w, res, len, 2), WS_RX_RESULT);
    assert_memory_equal(&buf[0], s0, 16);
    assert_int_equal(c->n, 3);
    ws_hdr h;
    ws_parse(c->f[2], &h);
    assert_int_equal(h.slot, 0);
    assert_int_equal(h.flags & WS_FLAG_SET, 1);
    assert_int_equal(h.offset, 8);
    /* so a re-send (RETX) of chunk 0's RESULT is stale now */
    size_t len2 = result_for(c->f[0], s0, bad, 1);
    assert_int_equal(ws_worker_rx(w, bad, len2, 3), WS_RX_STALE);
    /* chunk 1 is the last of slot 1: its RESULT twice is a duplicate the second time */
    uint32_t s1[4] = {5, 6, 7, 8};
    len2 = result_for(c->f[1], s1, bad, 0);
    assert_int_equal(ws_worker_rx(w, bad, len2, 4), WS_RX_RESULT);
    bad[WS_OFF_AGG + 2] |= WS_FLAG_RETX;
    ws_fix_checksums(bad, len2);
    assert_int_equal(ws_worker_rx(w, bad, len2, 5), WS_RX_DUPLICATE);
    assert_memory_equal(&buf[4], s1, 16);
    const ws_worker_stats *s = ws_worker_get_stats(w);
    assert_int_equal(s->results, 2);
    assert_int_equal(s->dup_results, 1);
    assert_int_equal(s->stale_results, 4);
    assert_int_equal(s->foreign_frames, 96 + 2);
    assert_int_equal(s->bad_frames, 8 * len - 96 + 3);
    assert_false(ws_worker_done(w));
    /* buffers untouched by all the refused frames: elements 4..11 are the inputs */
    for (int i = 8; i < 12; i++)
        assert_true(buf[i] == (float)i);
    ws_worker_free(w);
    free(c);
}

/* The hold: a slot's next chunk does not leave before hold after the last transmission of the
 * previous one, and the deadline says when. */
static void test_hold(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    ws_worker *w = solo(c, 1, 4, 500);
    float buf[8] = {0};
    assert_int_equal(ws_worker_start(w, buf, buf, 8, 0), 0);
    assert_int_equal(ws_worker_poll(w, 100), 0); /* a retransmission at 100 */
    assert_int_equal(c->n, 2);
    uint32_t s0[4] = {1, 2, 3, 4};
    uint8_t res[WS_OFF_ELEMS + 16];
    size_t len = result_for(c->f[0], s0, res, 0);
    assert_int_equal(ws_worker_rx(w, res, len, 150), WS_RX_RESULT);
    assert_int_equal(c->n, 2);                     /* held */
    assert_int_equal(ws_worker_deadline(w), 600); /* last transmission 100, hold 500 */
    assert_int_equal(ws_worker_poll(w, 599), 0);
    assert_int_equal(c->n, 2);
    assert_int_equal(ws_worker_poll(w, 600), 0);
    assert_int_equal(c->n, 3);
    ws_hdr h;
    ws_parse(c->f[2], &h);
    assert_int_equal(h.offset, 4);
    assert_int_equal(h.flags, WS_FLAG_SET);
    ws_worker_free(w);
    free(c);
}

/* Congestion control: DATA ECN-capable; chunks in chunk order, never more than cwnd bytes
 * outstanding; DCTCP's update once per window of results (alpha from the first window's
 * fraction, gain 1/16): a window of CE results cuts cwnd by alpha/2, a clean one adds one
 * frame; down to one frame, never below, and back up to the slots' frames, never above; a
 * timeout halves it once per window. */
static void test_cc_window(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    const unsigned S = 8, K = 4;
    ws_worker_cfg wc;
    solo_cfg(c, &wc, S, K);
    wc.rto = 100000;
    wc.rto_max = 800000;
    wc.cc = 1;
    char err[256];
    ws_worker *w = ws_worker_new(&wc, err, sizeof err);
    assert_non_null(w);
    const ws_worker_stats *st = ws_worker_get_stats(w);
    static float buf[4 * 400];
    uint32_t sums[4] = {1, 2, 3, 4};
    const double F = (double)ws_frame_len(K); /* the window counts frames' bytes */
    assert_int_equal(ws_worker_start(w, buf, buf, 4 * 400, 0), 0);
    assert_int_equal(c->n, S);
    assert_true(st->cwnd == S * F);
    ws_hdr h;
    ws_parse(c->f[0], &h);
    assert_int_equal(h.tos & 3, 2); /* ECT(0) */
    uint32_t next_off = S * K;
    /* one window of CE results: alpha is 1, cwnd halves (8 -> 4) at its last result;
     * chunks leave in chunk order */
    for (unsigned i = 0; i < S; i++) {
        unsigned before = c->n;
        answer_oldest(c, w, sums, 1);
        for (unsigned k = before - 1; k < c->n; k++, next_off += K) {
            ws_parse(c->f[k], &h);
            assert_int_equal(h.offset, next_off);
        }
    }
    assert_true(st->cwnd == 4 * F && st->alpha == 1.0);
    assert_int_equal(c->n, S - 1); /* the 7 sent before the cut stay out; none leaves */
    assert_int_equal(st->ce_results, S);
    /* a clean window of 4: nothing leaves while 4 or more are out; at its end alpha decays
     * by g, cwnd + 1, and the window is filled to 5 */
    for (unsigned i = 0; i < 3; i++) {
        answer_oldest(c, w, sums, 0);
        assert_int_equal(c->n, S - 2 - i);
    }
    answer_oldest(c, w, sums, 0);
    assert_true(st->cwnd == 5 * F && st->alpha == 1.0 - 1.0 / 16);
    assert_int_equal(c->n, 5);
    /* marks on every result: down to one chunk, and never below; a chunk leaves only into
     * the window */
    for (unsigned i = 0; i < 60; i++) {
        uint64_t sent = st->data_frames;
        answer_oldest(c, w, sums, 1);
        assert_true(st->cwnd >= F);
        assert_true(c->n >= 1);
        if (st->data_frames > sent)
            assert_true(c->n * F <= st->cwnd);
    }
    assert_true(st->cwnd == F && st->cwnd_min == F);
    assert_int_equal(c->n, 1);
    /* no marks: one chunk more per window, up to S (1 + 2 + ... + 7 = 28 results), no more */
    for (unsigned i = 0; i < 28; i++) {
        assert_true(st->cwnd < S * F);
        answer_oldest(c, w, sums, 0);
    }
    assert_true(st->cwnd == S * F);
    assert_int_equal(c->n, S);
    for (unsigned i = 0; i < 3 * S; i++)
        answer_oldest(c, w, sums, 0);
    assert_true(st->cwnd == S * F);
    assert_int_equal(c->n, S);
    /* every outstanding chunk times out at once: one cut (8 -> 4), then nothing leaves until
     * results bring the outstanding count under the window */
    uint64_t cuts = st->cwnd_cuts;
    assert_int_equal(ws_worker_poll(w, 1 + wc.rto), 0);
    assert_true(st->cwnd == 4 * F);
    assert_int_equal(st->cwnd_cuts, cuts + 1);
    assert_int_equal(c->n, 2 * S); /* 8 retransmissions, no new chunk */
    ws_worker_free(w);

    /* off (the default): CE marks change nothing, the window stays S */
    w = solo(c, S, K, 0);
    st = ws_worker_get_stats(w);
    assert_int_equal(ws_worker_start(w, buf, buf, 4 * 400, 0), 0);
    ws_parse(c->f[0], &h);
    assert_int_equal(h.tos, 0);
    for (unsigned i = 0; i < 40; i++) {
        answer_oldest(c, w, sums, 1);
        assert_int_equal(c->n, S);
    }
    assert_true(st->cwnd == S * F && st->ce_results == 0 && st->cwnd_cuts == 0);
    ws_worker_free(w);

    /* alpha starts at the first window's fraction, not at 1: a clean window leaves it 0, and
     * one CE result in the next window of 8 cuts cwnd by alpha/2 = 1/256 (from 1, alpha would
     * be 0.887 there and the window nearly halve) */
    memset(c, 0, sizeof *c);
    w = ws_worker_new(&wc, err, sizeof err);
    assert_non_null(w);
    st = ws_worker_get_stats(w);
    assert_int_equal(ws_worker_start(w, buf, buf, 4 * 400, 0), 0);
    for (unsigned i = 0; i < S; i++)
        answer_oldest(c, w, sums, 0);
    assert_true(st->alpha == 0.0 && st->cwnd == S * F && st->cwnd_cuts == 0);
    for (unsigned i = 0; i < S; i++)
        answer_oldest(c, w, sums, i == 3);
    assert_true(st->alpha == 1.0 / 128);
    assert_true(fabs(st->cwnd - S * F * (1 - 1.0 / 256)) < 1e-9);
    assert_int_equal(st->cwnd_cuts, 1);
    ws_worker_free(w);
    wc.cc = 2;
    assert_null(ws_worker_new(&wc, err, sizeof err));
    assert_non_null(strstr(err, "cc 2"));
    free(c);
}

/* A worker with a rate of a byte a nanosecond (ticks of 1 ns), S slots of K = 4 elements
 * (80-byte frames), an adaptive timeout with rto_min 50. */
static ws_worker *rate_worker(capture *c, ws_worker_cfg *wc, unsigned S, int cc)
{
    solo_cfg(c, wc, S, 4);
    wc->cc = cc;
    wc->rate_bps = 8e9;
    wc->ticks_per_s = 1000000000;
    wc->rto = 100000;
    wc->rto_min = 50;
    wc->rto_max = 800000;
    wc->adaptive = 1;
    wc->max_retries = 0;
    char err[256];
    ws_worker *w = ws_worker_new(wc, err, sizeof err);
    assert_non_null(w);
    return w;
}

/* The device and the network for a worker with a rate: each frame captured is answered rtt
 * after it left (sent_at, in capture order), n answers from *t on; the worker polled at every
 * deadline in between. Whatever leaves goes into the window; returns the most frames out. */
static unsigned run_rtt_ce(capture *c, ws_worker *w, uint64_t *t, uint64_t *sent_at,
                           unsigned n, uint64_t rtt, int ce)
{
    const ws_worker_stats *st = ws_worker_get_stats(w);
    const double F = (double)ws_frame_len(4);
    static const uint32_t sums[4] = {1, 2, 3, 4};
    unsigned most = c->n;
    for (unsigned i = 0; i < n; i++) {
        uint64_t due = c->n ? sent_at[0] + rtt : UINT64_MAX, d;
        while ((d = ws_worker_deadline(w)) < due) {
            assert_true(d >= *t);
            *t = d;
            unsigned k = c->n;
            assert_int_equal(ws_worker_poll(w, *t), 0);
            for (; k < c->n; k++)
                sent_at[k] = *t;
            if (due == UINT64_MAX && c->n)
                due = sent_at[0] + rtt;
        }
        assert_true(c->n > 0);
        *t = due > *t ? due : *t;
        unsigned k = c->n;
        uint64_t sent = st->data_frames;
        double cwnd = st->cwnd; /* a cut by this result may come after its next chunk left */
        answer_oldest_at(c, w, sums, ce, *t);
        memmove(&sent_at[0], &sent_at[1], (k - 1) * sizeof sent_at[0]);
        for (k = k - 1; k < c->n; k++)
            sent_at[k] = *t;
        if (st->data_frames > sent)
            assert_true(c->n * F <= (st->cwnd > cwnd ? st->cwnd : cwnd) + 1e-9 || c->n == 1);
        if (c->n > most)
            most = c->n;
    }
    return most;
}

static unsigned run_rtt(capture *c, ws_worker *w, uint64_t *t, uint64_t *sent_at, unsigned n,
                        uint64_t rtt)
{
    return run_rtt_ce(c, w, t, sent_at, n, rtt, 0);
}

/* With a rate: WS_INIT_CHUNKS chunks before the first round trip, then a window of
 * WS_WINDOW_GAIN x (delivery rate, at most the rate) x the smallest round trip, growing with
 * the rate delivered up to the rate's bound; the adaptive timeout srtt + rto_min once the
 * round trips steady; first transmissions never faster than the rate, and not paced below it
 * while cwnd / srtt is above the rate. */
static void test_rate_window(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    ws_worker_cfg wc;
    ws_worker *w = rate_worker(c, &wc, 32, 0);
    const ws_worker_stats *st = ws_worker_get_stats(w);
    static float buf[4 * 4000];
    const uint64_t gap = ws_frame_len(4); /* ns a frame at 8 Gb/s: 1 byte a ns */
    uint64_t t = 0, sent_at[64] = {0};
    assert_int_equal(ws_worker_start(w, buf, buf, 4 * 4000, 0), 0);
    /* the first window's chunks leave at the rate, one a frame's time */
    assert_int_equal(c->n, 1);
    for (unsigned k = 1; k < WS_INIT_CHUNKS; k++) {
        assert_int_equal(ws_worker_deadline(w), k * gap);
        assert_int_equal(ws_worker_poll(w, k * gap), 0);
        assert_int_equal(c->n, k + 1);
    }
    assert_int_equal(ws_worker_deadline(w), wc.rto); /* the window is full: its timer next */
    for (unsigned k = 0; k < WS_INIT_CHUNKS; k++)
        sent_at[k] = k * gap;
    t = (WS_INIT_CHUNKS - 1) * gap;
    /* round trips of 1000 ns: a window of 2 x 1 x 1000 = 2000 bytes (25 frames), of which the
     * rate lets one product of itself and the round trip be out: 1000 bytes, 12 frames */
    unsigned most = run_rtt(c, w, &t, sent_at, 300, 1000);
    assert_int_equal(st->min_rtt, 1000);
    assert_true(fabs(st->cwnd - 2000) < 1e-9);
    assert_int_equal(most, 1000 / gap);
    assert_int_equal(st->paced, 0);
    assert_true(c->n >= 2);
    assert_true(sent_at[c->n - 1] - sent_at[c->n - 2] >= gap);
    /* the deviation term is at least rto_min: a timeout of srtt + 50 */
    assert_int_equal(st->srtt, 1000);
    assert_int_equal(st->rto, 1050);
    /* from the first round trip on at least one product of the rate (12 frames), then
     * growing with the rate delivered: near the whole window within the first 4 round trips */
    ws_worker_free(w);
    w = rate_worker(c, &wc, 32, 0);
    st = ws_worker_get_stats(w);
    t = 0;
    memset(sent_at, 0, sizeof sent_at);
    assert_int_equal(ws_worker_start(w, buf, buf, 4 * 4000, 0), 0);
    run_rtt(c, w, &t, sent_at, 4 + 12 + 12, 1000);
    assert_true(st->cwnd > 1.9 * 1000); /* near 2 products: the rate delivered near the rate */
    assert_true(t <= 4000);
    ws_worker_free(w);
    /* a rate out of range is refused */
    char err[256];
    wc.rate_bps = -1;
    assert_null(ws_worker_new(&wc, err, sizeof err));
    assert_non_null(strstr(err, "rate"));
    free(c);
}

/* With a rate and congestion control: the path's bound follows the smoothed round trip, since
 * the marks say when a queue is the window's own: round trips of 1000, then growing to 3000
 * with no mark (other traffic's queue), and the window is one product of the rate and srtt, about 3000
 * bytes, where without congestion control it stays 2 x 1 x 1000. Marked results then cut it
 * (DCTCP), never below one product of the rate and the smallest round trip (1000 bytes). */
static void test_rate_cc(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    static float buf[4 * 40000];
    for (int cc = 0; cc <= 1; cc++) {
        ws_worker_cfg wc;
        ws_worker *w = rate_worker(c, &wc, 64, cc);
        const ws_worker_stats *st = ws_worker_get_stats(w);
        uint64_t t = 0, sent_at[128] = {0};
        assert_int_equal(ws_worker_start(w, buf, buf, 4 * 40000, 0), 0);
        run_rtt(c, w, &t, sent_at, 300, 1000);
        assert_true(fabs(st->cwnd - 2000) < 1e-9);
        for (uint64_t rtt = 1100; rtt <= 3000; rtt += 100) /* a queue standing up */
            run_rtt(c, w, &t, sent_at, 40, rtt);
        run_rtt(c, w, &t, sent_at, 600, 3000);
        assert_int_equal(st->min_rtt, 1000);
        assert_int_equal(st->retx_frames, 0);
        if (!cc) { /* the rate delivered falls, and the window to its floor */
            assert_true(fabs(st->cwnd - 1000) < 1e-9);
            ws_worker_free(w);
            continue;
        }
        assert_true(st->srtt > 2950 && st->cwnd > 2950 && st->cwnd <= (double)st->srtt + 1e-9);
        assert_int_equal(st->cwnd_cuts, 0);
        run_rtt_ce(c, w, &t, sent_at, 600, 3000, 1);
        assert_true(st->cwnd_cuts > 3);
        assert_true(fabs(st->cwnd - 1000) < 1e-9);
        assert_int_equal(st->timeouts, 0);
        ws_worker_free(w);
    }
    free(c);
}

/* The adaptive timeout behind a queue that stands up: round trips steady at 1000, then 1040
 * (less than rto_min = 50 more): no timeout fires (srtt + 4 x its deviation alone would be
 * about 1000 and fire); then round trips growing by 100 every 20 results to 4000 (results keep
 * coming: the timers restart on them), a delay the window does not make: the rate
 * delivered falls, and the window with it down to one product of the rate and the smallest
 * round trip (1000 bytes), no lower; 1.25 x cwnd / srtt is below the rate: the frames leave
 * paced. */
static void test_rate_queue(void **state)
{
    (void)state;
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    ws_worker_cfg wc;
    ws_worker *w = rate_worker(c, &wc, 32, 0);
    const ws_worker_stats *st = ws_worker_get_stats(w);
    static float buf[4 * 40000];
    uint64_t t = 0, sent_at[64] = {0};
    assert_int_equal(ws_worker_start(w, buf, buf, 4 * 40000, 0), 0);
    run_rtt(c, w, &t, sent_at, 300, 1000);
    uint64_t paced = st->paced; /* the window's start is paced, its steady state not */
    run_rtt(c, w, &t, sent_at, 300, 1000);
    assert_int_equal(st->paced, paced);
    run_rtt(c, w, &t, sent_at, 300, 1040);
    assert_int_equal(st->timeouts, 0);
    for (uint64_t rtt = 1100; rtt <= 4000; rtt += 100) /* a queue standing up */
        run_rtt(c, w, &t, sent_at, 20, rtt);
    run_rtt(c, w, &t, sent_at, 200, 4000);
    assert_int_equal(st->timeouts, 0);
    assert_int_equal(st->retx_frames, 0);
    assert_true(st->srtt > 3500 && st->paced > 0);
    assert_true(fabs(st->cwnd - 1000) < 1e-9);
    double gap = (double)ws_frame_len(4) / (WS_PACE_GAIN * st->cwnd / (double)st->srtt);
    assert_true(c->n >= 2);
    assert_true((double)(sent_at[c->n - 1] - sent_at[c->n - 2]) >= gap - 1);
    ws_worker_free(w);
    free(c);
}

/* The closed loop with congestion control, CE on a third of the DATA frames and every other
 * fault: every tensor exact, the windows cut and never under one chunk. */
static void test_cc_closed_loop(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        faults f = {0.05, 0.05, 0.05, 0.05, 0.3}, clean = {0, 0, 0, 0, 0};
        job_params p = {.workers = 3 + (unsigned)seed % 3, .slots = 4 + (unsigned)seed,
                        .count = 5, .tensors = 3, .n = 400 + 37 * seed, .up = f,
                        .down = seed % 2 ? clean : f, .seed = seed, .hold = 2 * LAT + 1,
                        .cc = 1};
        job_result r;
        run_job(&p, &r);
        assert_true(r.marked > 0 && r.ce > 0 && r.cuts > 0);
        double F = ws_frame_len(p.count);
        assert_true(r.cwnd_min >= F && r.cwnd_min < p.slots * F);
    }
}

static void test_bad_use(void **state)
{
    (void)state;
    char err[256];
    ws_worker_cfg wc;
    ws_worker_cfg_init(&wc);
    assert_null(ws_worker_new(&wc, err, sizeof err)); /* no tx */
    assert_non_null(strstr(err, "tx"));
    capture *c = malloc(sizeof *c);
    assert_non_null(c);
    wc.tx = cap_tx;
    wc.tx_ctx = c;
    wc.slots = 0;
    assert_null(ws_worker_new(&wc, err, sizeof err));
    wc.slots = 4;
    wc.count = 0;
    assert_null(ws_worker_new(&wc, err, sizeof err));
    wc.count = 4;
    wc.rto = 0;
    assert_null(ws_worker_new(&wc, err, sizeof err));
    wc.rto = 100;
    wc.rto_min = 10;
    ws_config cfg;
    make_cfg(&cfg, 2, 4, 4);
    assert_int_equal(ws_worker_cfg_from_config(&wc, &cfg, 8, 0, err, sizeof err), -1);
    assert_int_equal(ws_worker_cfg_from_config(&wc, &cfg, 7, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 2"));
    memset(c, 0, sizeof *c);
    ws_worker *w = ws_worker_new(&wc, err, sizeof err);
    assert_non_null(w);
    float buf[4] = {0};
    assert_int_equal(ws_worker_start(w, buf, buf, 4, 0), 0);
    assert_int_equal(ws_worker_start(w, buf, buf, 4, 0), -1); /* busy */
    assert_non_null(strstr(ws_worker_error(w), "under way"));
    ws_worker_free(w);
    w = ws_worker_new(&wc, err, sizeof err);
    assert_int_equal(ws_worker_start(w, buf, buf, (size_t)UINT32_MAX + 1, 0), -1);
    assert_int_equal(ws_allreduce(w, buf, 4), -1); /* no clock, no wait */
    ws_worker_free(w);
    free(c);
}

/* ---- the blocking call, its wait driving the device and the other workers ---------------- */

typedef struct {
    loop *l;
    float *bufs[MAXW];
    size_t n;
} block_io;

static uint64_t io_clock(void *ctx) { return ((block_io *)ctx)->l->now; }

/* Runs the world until a frame reaches worker 0 or the deadline passes. */
static int io_wait(void *ctx, ws_worker *w0, uint64_t deadline)
{
    block_io *b = ctx;
    loop *l = b->l;
    (void)w0;
    for (;;) {
        int got0 = 0;
        size_t k;
        while ((k = q_first(l)) != SIZE_MAX && l->q[k].t <= l->now) {
            msg m = l->q[k];
            l->q[k] = l->q[--l->nq];
            if (m.to_dev) {
                ws_refdev_rx(l->dev, m.port, m.f, m.len, dev_emit, l);
            } else {
                l->cur_w = m.dst;
                ws_worker_rx(l->w[m.dst], m.f, m.len, l->now);
                got0 |= m.dst == 0;
            }
            free(m.f);
        }
        uint64_t next = deadline;
        for (unsigned i = 1; i < l->nw; i++) {
            l->cur_w = i;
            if (ws_worker_deadline(l->w[i]) <= l->now && ws_worker_poll(l->w[i], l->now))
                return -1;
            if (ws_worker_deadline(l->w[i]) < next)
                next = ws_worker_deadline(l->w[i]);
        }
        l->cur_w = 0;
        if (got0 || l->now >= deadline)
            return 0;
        if ((k = q_first(l)) != SIZE_MAX && l->q[k].t < next)
            next = l->q[k].t;
        if (next == UINT64_MAX)
            return -1;
        l->now = next > l->now ? next : l->now;
    }
}

static void test_blocking_allreduce(void **state)
{
    (void)state;
    loop *l = calloc(1, sizeof *l);
    assert_non_null(l);
    faults f = {0.1, 0.1, 0.1, 0.1, 0};
    job_params p = {.workers = 3, .slots = 2, .count = 5, .tensors = 3, .n = 37, .up = f,
                    .down = f, .seed = 9, .hold = 2 * LAT + 1};
    l->p = &p;
    l->nw = p.workers;
    l->rng.s = 99;
    make_cfg(&l->cfg, p.workers, p.slots, p.count);
    char err[256];
    l->dev = ws_refdev_new(&l->cfg, err, sizeof err);
    assert_non_null(l->dev);
    block_io io = {.l = l, .n = p.n};
    for (unsigned w = 0; w < l->nw; w++) {
        ws_worker_cfg wc;
        ws_worker_cfg_init(&wc);
        assert_int_equal(ws_worker_cfg_from_config(&wc, &l->cfg, 7, w, err, sizeof err), 0);
        wc.rto = 8 * LAT;
        wc.rto_min = 4 * LAT;
        wc.rto_max = 32 * LAT;
        wc.hold = p.hold;
        wc.tx = tx_cb;
        wc.tx_ctx = l;
        wc.clock = io_clock;
        wc.wait = io_wait;
        wc.io_ctx = &io;
        l->w[w] = ws_worker_new(&wc, err, sizeof err);
        assert_non_null(l->w[w]);
        io.bufs[w] = malloc(p.n * 4);
        assert_non_null(io.bufs[w]);
    }
    for (unsigned t = 0; t < p.tensors; t++) {
        for (unsigned w = 0; w < l->nw; w++)
            for (size_t i = 0; i < p.n; i++) {
                uint32_t b = value(p.seed, t, w, i);
                memcpy(&io.bufs[w][i], &b, 4);
            }
        /* workers 1.. non-blocking, worker 0 blocking: its wait runs the others */
        for (unsigned w = 1; w < l->nw; w++) {
            l->cur_w = w;
            assert_int_equal(ws_worker_start(l->w[w], io.bufs[w], io.bufs[w], p.n, l->now), 0);
        }
        l->cur_w = 0;
        assert_int_equal(ws_allreduce(l->w[0], io.bufs[0], p.n), 0);
        /* let the others finish too */
        int all;
        do {
            all = 1;
            for (unsigned w = 1; w < l->nw; w++)
                all &= ws_worker_done(l->w[w]);
            if (!all) {
                l->cur_w = 0;
                assert_int_equal(io_wait(&io, l->w[0], l->now + LAT), 0);
            }
        } while (!all);
        for (size_t i = 0; i < p.n; i++) {
            ws_xsum x;
            ws_xsum_init(&x);
            for (unsigned w = 0; w < l->nw; w++)
                ws_xsum_add(&x, value(p.seed, t, w, i));
            uint32_t e = ws_xsum_round(&x);
            for (unsigned w = 0; w < l->nw; w++) {
                uint32_t b;
                memcpy(&b, &io.bufs[w][i], 4);
                assert_int_equal(b, e);
            }
        }
    }
    for (size_t i = 0; i < l->nq; i++)
        free(l->q[i].f);
    free(l->q);
    for (unsigned w = 0; w < l->nw; w++) {
        ws_worker_free(l->w[w]);
        free(io.bufs[w]);
    }
    ws_refdev_free(l->dev);
    free(l);
}

/* ---- ws_dev on a register bus that records what it is asked ------------------------------ */

typedef struct {
    uint32_t addr[4096], data[4096];
    unsigned n;
    uint32_t job_ctrl[8];
    uint32_t status;    /* returned for STATUS */
    int refuse_commit;  /* STATUS code after an enabling commit */
    uint32_t partial;   /* returned for PARAM_PARTIAL */
} fake_bus;

static int fb_write(void *ctx, uint32_t addr, uint32_t data)
{
    fake_bus *b = ctx;
    assert_true(b->n < 4096);
    b->addr[b->n] = addr;
    b->data[b->n++] = data;
    for (unsigned j = 0; j < 8; j++)
        if (addr == WS_REG_JOB_CTRL(j)) {
            b->job_ctrl[j] = (data & 1) && !b->refuse_commit;
            b->status = (data & 1) && b->refuse_commit ? (uint32_t)b->refuse_commit : 0;
        }
    return 0;
}

static int fb_read(void *ctx, uint32_t addr, uint32_t *data)
{
    fake_bus *b = ctx;
    static const struct {
        uint32_t a, v;
    } params[] = {{WS_REG_ID, WS_ID_VALUE},      {WS_REG_PARAM_WIDTH, 256},
                  {WS_REG_PARAM_PORTS, 4},       {WS_REG_PARAM_JOBS, 8},
                  {WS_REG_PARAM_WORKERS, 64},    {WS_REG_PARAM_POOL, 64},
                  {WS_REG_PARAM_COUNT, 256},     {WS_REG_PARAM_ENGINES, 1},
                  {WS_REG_PARAM_MAX_FRAME, WS_DEFAULT_MAX_FRAME}};
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (addr == params[i].a) {
            *data = params[i].v;
            return 0;
        }
    if (addr == WS_REG_STATUS) {
        *data = b->status;
        return 0;
    }
    if (addr == WS_REG_PARAM_PARTIAL) {
        *data = b->partial;
        return 0;
    }
    for (unsigned j = 0; j < 8; j++)
        if (addr == WS_REG_JOB_CTRL(j)) {
            *data = b->job_ctrl[j];
            return 0;
        }
    *data = 0;
    return 0;
}

static unsigned find_write(const fake_bus *b, uint32_t addr, unsigned from)
{
    for (unsigned i = from; i < b->n; i++)
        if (b->addr[i] == addr)
            return i;
    return UINT32_MAX;
}

static void test_dev_job_setup_teardown(void **state)
{
    fake_bus *b = *state;
    ws_regbus bus = {fb_write, fb_read, b};
    ws_dev_params p;
    char err[256];
    assert_int_equal(ws_dev_open(&bus, &p, err, sizeof err), 0);
    assert_int_equal(p.ports, 4);
    assert_int_equal(p.workers, 64);
    b->job_ctrl[3] = 1;
    assert_int_equal(ws_dev_reset(&bus, &p, err, sizeof err), 0);
    for (unsigned j = 0; j < 8; j++)
        assert_int_equal(b->job_ctrl[j], 0);
    assert_int_not_equal(find_write(b, WS_REG_CTRL, 0), UINT32_MAX);

    ws_config cfg;
    make_cfg(&cfg, 3, 4, 16);
    b->n = 0;
    b->job_ctrl[2] = 1; /* record 2 active: setup must disable it before touching members */
    assert_int_equal(ws_dev_job_setup(&bus, &p, 2, &cfg.job[0], err, sizeof err), 0);
    unsigned dis = find_write(b, WS_REG_JOB_CTRL(2), 0);
    assert_int_equal(b->data[dis], 0);
    for (unsigned w = 0; w < 3; w++) {
        unsigned m = find_write(b, WS_REG_MEMBER_PORT(2 * 64 + w), 0);
        assert_true(m != UINT32_MAX && m > dis);
        assert_int_equal(b->data[m], (uint32_t)(w % 4) << 16 | 40000);
        unsigned ip = find_write(b, WS_REG_MEMBER_IP(2 * 64 + w), 0);
        assert_int_equal(b->data[ip], 0x0a000101u + w);
    }
    unsigned en = find_write(b, WS_REG_JOB_CTRL(2), dis + 1);
    assert_true(en != UINT32_MAX && en > find_write(b, WS_REG_JOB_MAX_COUNT(2), 0));
    assert_int_equal(b->data[en], 1);
    assert_int_equal(b->data[find_write(b, WS_REG_JOB_ID(2), 0)], 7);
    assert_int_equal(b->data[find_write(b, WS_REG_JOB_SLOTS(2), 0)], 4);
    assert_int_equal(b->job_ctrl[2], 1);

    assert_int_equal(ws_dev_job_disable(&bus, 2, err, sizeof err), 0);
    int active = 1;
    assert_int_equal(ws_dev_job_active(&bus, 2, &active, err, sizeof err), 0);
    assert_int_equal(active, 0);

    /* a refused commit is reported by the name of its status code */
    b->refuse_commit = 6;
    assert_int_equal(ws_dev_job_setup(&bus, &p, 1, &cfg.job[0], err, sizeof err), -1);
    assert_non_null(strstr(err, "SLOT_OVERLAP"));
    b->refuse_commit = 0;
    /* what the device cannot hold is refused before any write */
    b->n = 0;
    ws_job big = cfg.job[0];
    big.max_count = 300;
    assert_int_equal(ws_dev_job_setup(&bus, &p, 1, &big, err, sizeof err), -1);
    assert_int_equal(b->n, 0);
    assert_int_equal(ws_dev_job_setup(&bus, &p, 8, &cfg.job[0], err, sizeof err), -1);
    ws_member m = cfg.job[0].member[0];
    m.port = 4;
    assert_int_equal(ws_dev_set_member(&bus, &p, 0, 0, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "port 4"));
}

/* partial = 1 needs PARAM_PARTIAL, and is refused before any write without it; with it, a job
 * with a parent is configured, its parent's registers before its JOB_CTRL */
static void test_dev_partial(void **state)
{
    fake_bus *b = *state;
    ws_regbus bus = {fb_write, fb_read, b};
    ws_dev_params p;
    char err[256];
    assert_int_equal(ws_dev_open(&bus, &p, err, sizeof err), 0);
    assert_int_equal(p.partial, 0);
    ws_config cfg;
    make_cfg(&cfg, 3, 4, 16);
    cfg.partial = true;
    b->n = 0;
    assert_int_equal(ws_dev_configure(&bus, &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "PARAM_PARTIAL = 0"));
    assert_int_equal(b->n, 0);

    b->partial = 1;
    assert_int_equal(ws_dev_open(&bus, &p, err, sizeof err), 0);
    assert_int_equal(p.partial, 1);
    assert_int_equal(ws_dev_configure(&bus, &cfg, err, sizeof err), 0);
    assert_int_not_equal(find_write(b, WS_REG_JOB_CTRL(0), 0), UINT32_MAX);

    ws_job *jb = &cfg.job[0];
    jb->has_parent = true;
    static const uint8_t pmac[6] = {0x02, 0x00, 0x00, 0x00, 0x0b, 0x01};
    memcpy(jb->parent.mac, pmac, 6);
    jb->parent.ip = 0x0a010009u;
    jb->parent.udp_port = 48900;
    jb->parent.port = 2;
    jb->parent_job = 7;
    b->n = 0;
    assert_int_equal(ws_dev_configure(&bus, &cfg, err, sizeof err), 0);
    unsigned par = find_write(b, WS_REG_JOB_PARENT(0), 0);
    assert_int_not_equal(par, UINT32_MAX);
    assert_int_equal(b->data[par], 1);
    assert_true(par < find_write(b, WS_REG_JOB_CTRL(0), par));
}

/* a job's parent goes to JOB_PARENT .. JOB_PAR_RANK before the commit; what the commit would
 * refuse of it is refused before any write, by its STATUS code */
static void test_dev_parent_registers(void **state)
{
    fake_bus *b = *state;
    ws_regbus bus = {fb_write, fb_read, b};
    ws_dev_params p;
    char err[256];
    b->partial = 1;
    assert_int_equal(ws_dev_open(&bus, &p, err, sizeof err), 0);
    ws_config cfg;
    make_cfg(&cfg, 3, 4, 16);
    ws_job jb = cfg.job[0];
    jb.has_parent = true;
    static const uint8_t pmac[6] = {0x02, 0x00, 0x00, 0x00, 0x0a, 0x01};
    memcpy(jb.parent.mac, pmac, 6);
    jb.parent.ip = 0x0a010001u;
    jb.parent.udp_port = 48901;
    jb.parent.port = 3;
    jb.parent_job = 300;
    jb.parent_rank = 5;
    b->n = 0;
    assert_int_equal(ws_dev_job_setup(&bus, &p, 2, &jb, err, sizeof err), 0);
    static const struct {
        uint32_t addr, v;
    } want[] = {{WS_REG_JOB_PARENT(2), 1},           {WS_REG_JOB_PAR_MAC_HI(2), 0x0200},
                {WS_REG_JOB_PAR_MAC_LO(2), 0x00000a01u}, {WS_REG_JOB_PAR_IP(2), 0x0a010001u},
                {WS_REG_JOB_PAR_PORT(2), 3u << 16 | 48901}, {WS_REG_JOB_PAR_JOB(2), 300},
                {WS_REG_JOB_PAR_RANK(2), 5}};
    unsigned en = find_write(b, WS_REG_JOB_CTRL(2), find_write(b, WS_REG_JOB_CTRL(2), 0) + 1);
    assert_int_not_equal(en, UINT32_MAX);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        unsigned k = find_write(b, want[i].addr, 0);
        assert_true(k != UINT32_MAX && k < en);
        assert_int_equal(b->data[k], want[i].v);
    }
    /* no parent: JOB_PARENT written 0, the others left alone */
    b->n = 0;
    assert_int_equal(ws_dev_job_setup(&bus, &p, 2, &cfg.job[0], err, sizeof err), 0);
    assert_int_equal(b->data[find_write(b, WS_REG_JOB_PARENT(2), 0)], 0);
    assert_int_equal(find_write(b, WS_REG_JOB_PAR_IP(2), 0), UINT32_MAX);
    /* refused before any write */
    static const struct {
        int field;
        const char *code;
    } bad[] = {{0, "BAD_PARENT_ADDR"}, {1, "BAD_PARENT_ADDR"}, {2, "BAD_PARENT_PORT"},
               {3, "BAD_PARENT_RANK"}, {4, "PARENT_NOT_PARTIAL"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ws_job x = jb;
        ws_dev_params q = p;
        switch (bad[i].field) {
        case 0: x.parent.mac[0] = 0x03; break;
        case 1: x.parent.udp_port = 0; break;
        case 2: x.parent.port = 4; break;
        case 3: x.parent_rank = WS_LIMIT_WORKERS; break;
        default: q.partial = 0; break;
        }
        b->n = 0;
        assert_int_equal(ws_dev_job_setup(&bus, &q, 2, &x, err, sizeof err), -1);
        assert_non_null(strstr(err, bad[i].code));
        assert_int_equal(b->n, 0);
    }
}

/* the fake device bus of the ws_dev tests, zeroed for each */
static int fake_bus_new(void **state)
{
    return (*state = calloc(1, sizeof(fake_bus))) ? 0 : -1;
}

static int fake_bus_free(void **state)
{
    free(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_element),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_faults_both_ways),
        cmocka_unit_test(test_sequence_and_sets),
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_retx_and_backoff),
        cmocka_unit_test(test_results_filtered),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_cc_window),
        cmocka_unit_test(test_cc_closed_loop),
        cmocka_unit_test(test_rate_window),
        cmocka_unit_test(test_rate_queue),
        cmocka_unit_test(test_rate_cc),
        cmocka_unit_test(test_bad_use),
        cmocka_unit_test(test_blocking_allreduce),
        cmocka_unit_test_setup_teardown(test_dev_job_setup_teardown, fake_bus_new, fake_bus_free),
        cmocka_unit_test_setup_teardown(test_dev_partial, fake_bus_new, fake_bus_free),
        cmocka_unit_test_setup_teardown(test_dev_parent_registers, fake_bus_new, fake_bus_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
