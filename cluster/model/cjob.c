/* cjob.c - the collectives of `wiresum cluster` on the workers' side (cjob.h). */
#include "f32.h"
#include "cjob.h"

#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "fabric_cfg.h"
#include "values.h"
#include "wiresum/transport.h"
#include "wiresum/wire.h"

#define JOB_ID 7
/* the transport's timers (docs/cluster.md section 4): adaptive from the round trips measured,
 * at least RTO_MIN_PS; RTO_INIT_PS until the first is; backoff up to RTO_MAX_PS */
#define RTO_MIN_PS 20000000ull      /* 20 us */
#define RTO_INIT_PS 1000000000ull   /* 1 ms */
#define RTO_MAX_PS 100000000000ull  /* 100 ms */

/* worker w's transport object of shard (tree) s: the device it talks to, its member entry
 * there (job JOB_ID + s) */
typedef struct {
    ws_cjob *job;
    unsigned w, shard;
    unsigned dev;          /* cluster device */
    uint32_t ip;           /* its address */
    const ws_member *m;    /* the worker as that device's job has it */
} worker_ref;

/* one tree of devices: a description as fabric.ini's, d[i] being cluster device dev_of[i] */
typedef struct {
    ws_fabric f;
    int dev_of[WS_FABRIC_MAX_DEVICES];
} tree;

/* a byte stream, in or out */
typedef struct {
    unsigned peer;
    uint8_t *b;
    size_t len, off, cap;
} stream;

/* One step of a baseline: send elements [send_lo, send_hi) to send_to, receive
 * [recv_lo, recv_hi) from recv_from and combine them with the own (-1: no send or receive). */
enum { OP_RECV_FIRST, OP_OWN_FIRST, OP_COPY };
typedef struct {
    int send_to, recv_from;
    uint64_t send_lo, send_hi, recv_lo, recv_hi;
    int op;
} step;

typedef struct {
    uint32_t *buf;       /* baselines: the tensor, input then the sums (wiresum modes hold none:
                          * their inputs are generated per chunk, their sums checked per chunk) */
    uint64_t bad;        /* wiresum modes: elements of the current tensor not the exact sum */
    unsigned iter;       /* iterations completed */
    int running;         /* an all-reduce under way */
    uint64_t next_start; /* when the next one starts (WS_CLUSTER_NEVER: none) */
    /* wiresum modes: one transport per shard (tree) */
    ws_worker **ww;
    /* baselines: the step under way, the streams to and from its peers */
    unsigned step;
    unsigned n_out, n_in;
    stream out[WS_CJOB_MAX_PEERS], in[WS_CJOB_MAX_PEERS];
} worker;

struct ws_cjob {
    ws_cluster c;
    ws_cluster_mode mode;
    ws_values vals; /* the inputs (values.h) */
    unsigned nw;
    uint64_t n;
    worker *w;
    worker_ref *ctx;
    ws_cjob_tx_fn tx;
    void *tx_ctx;
    /* wiresum modes: the T trees of devices (shards: one device each; hierarchical: trees
     * that share their leaves), per cluster device its configuration (a job per tree it
     * serves) and its model (NULL: unused), the devices used in the order the trees name them */
    tree *tree;
    unsigned T;
    ws_config *cfg;
    ws_cdev **dev;
    unsigned n_used;
    int used[WS_CLUSTER_MAX_DEVICES];
    const uint32_t *host_ip;
    /* baselines: halving-doubling's power of two P <= N (the first 2(N - P) workers fold in
     * pairs before and after), log2 P; the steps of an all-reduce */
    unsigned P, logP, steps;
    /* baselines: expected values of iterations k (slot k % 2): the exact sums, their own order's */
    uint32_t *exact[2], *order[2];
    /* wiresum modes: the exact sums of the chunks whose RESULTs are arriving, by global chunk
     * number g = iteration x chunks + offset / count at g % n_sums (a window of the run: every
     * worker gets a chunk's sums within a round trip of the others) */
    struct chunk_sums *sums;
    size_t n_sums;
    uint64_t chunks; /* of a tensor */
    int have[2];
    unsigned have_iter[2];
    /* results */
    uint64_t start_min[1000], done_max[1000];
    unsigned done_count[1000];
    ws_cluster_result r;
};

/* ---- expected values ------------------------------------------------------------------ */


static float value(const ws_cjob *j, unsigned iter, unsigned w, uint64_t i)
{
    return ws_f32_from_bits(ws_values_get(&j->vals, iter, w, i));
}

/* part s of `parts` of the tensor: elements [bound(s), bound(s + 1)) */
static uint64_t bound(const ws_cjob *j, unsigned s, unsigned parts) { return j->n * s / parts; }

/* The ring's binary32 sum of element i in segment s: it starts at worker s and each next worker
 * adds its own value to the partial sum it received (partial + own, as the ring does). */
static uint32_t ring_sum(const ws_cjob *j, unsigned iter, unsigned s, uint64_t i)
{
    float p = value(j, iter, s, i);
    for (unsigned k = 1; k < j->nw; k++)
        p = p + value(j, iter, (s + k) % j->nw, i);
    return ws_f32_bits(p);
}

/* halving-doubling: the first segment (of P) of the range participant v holds after its first
 * `steps` halvings: each halving keeps the lower or the upper half of the range by v's bit of
 * that step (step s: bit s, the partner at distance 2^s), so after all log2 P of them v holds
 * segment hd_lo(P, v, log2 P), v's bits reversed */
static unsigned hd_lo(unsigned P, unsigned v, unsigned steps)
{
    unsigned lo = 0;
    for (unsigned b = 0; b < steps; b++)
        lo += (v >> b & 1) * (P >> (b + 1));
    return lo;
}

/* Halving-doubling's: participant v's value before the first halving (the first 2r workers fold
 * in pairs, the even one's own first), then after halving step s (the partner v ^ 2^s) the sum
 * of the two partners' values, the lower participant's first. */
static float hd_part(const ws_cjob *j, unsigned iter, unsigned v, int s, uint64_t i)
{
    unsigned r = j->nw - j->P;
    if (s < 0)
        return v < r ? value(j, iter, 2 * v, i) + value(j, iter, 2 * v + 1, i)
                     : value(j, iter, v + r, i);
    unsigned pv = v ^ (1u << s), lo = v < pv ? v : pv, hi = v ^ pv ^ lo;
    return hd_part(j, iter, lo, s - 1, i) + hd_part(j, iter, hi, s - 1, i);
}

static void expect(ws_cjob *j, unsigned iter)
{
    int k = iter % 2;
    if (j->have[k] && j->have_iter[k] == iter)
        return;
    ws_values_exact(&j->vals, iter, 0, j->nw, 0, j->n, j->exact[k]);
    if (j->mode == WS_MODE_RING)
        for (unsigned s = 0; s < j->nw; s++)
            for (uint64_t i = bound(j, s, j->nw); i < bound(j, s + 1, j->nw); i++)
                j->order[k][i] = ring_sum(j, iter, s, i);
    if (j->mode == WS_MODE_HD) /* participant v ends reduce-scatter with segment g of P */
        for (unsigned v = 0; v < j->P; v++) {
            unsigned g = hd_lo(j->P, v, j->logP);
            for (uint64_t i = bound(j, g, j->P); i < bound(j, g + 1, j->P); i++)
                j->order[k][i] = ws_f32_bits(hd_part(j, iter, v, (int)j->logP - 1, i));
        }
    j->have[k] = 1;
    j->have_iter[k] = iter;
}

/* The exact sums of one chunk: accumulated from each worker's inputs as the worker first sends
 * them (the values the transport loads: generated once, not again for the check), rounded when
 * the first RESULT arrives (when every worker has sent the chunk: a RESULT answers them all),
 * and dropped once every worker has checked its copy against them. An element's gradients go
 * into a 64-bit lane (ws_xsum_lane: 8 bytes an element for the hot loop over every worker's
 * inputs, where the accumulators take 48), its other values into its accumulator; the lane
 * joins the accumulator, exactly, before the rounding. */
_Static_assert(WS_CLUSTER_MAX_HOSTS <= WS_XSUM_LANE_MAX && WS_CLUSTER_MAX_HOSTS <= UINT16_MAX,
               "a lane and its count take every worker's value");
struct chunk_sums {
    uint64_t g;       /* global chunk number, UINT64_MAX: free */
    unsigned seen;    /* workers that checked it */
    unsigned added;   /* workers whose inputs are in acc and lane */
    uint64_t *sent;   /* a bit a worker: its inputs are in acc and lane */
    ws_xsum *acc;     /* count accumulators, until v */
    int64_t *lane;    /* count lanes, until v */
    uint16_t *lane_n; /* the values in each lane (at most the workers: WS_CLUSTER_MAX_HOSTS) */
    uint32_t *v;      /* count sums, from the first RESULT on */
};

static void sums_free(struct chunk_sums *e)
{
    free(e->sent);
    free(e->acc);
    free(e->lane);
    free(e->lane_n);
    free(e->v);
    *e = (struct chunk_sums){UINT64_MAX, 0, 0, NULL, NULL, NULL, NULL, NULL};
}

/* A table of twice the size or more in which the live chunks and chunk g each have a place of
 * their own (live chunks span a window of the run, so a table wider than it always does). */
static int sums_grow(ws_cjob *j, uint64_t g)
{
    for (size_t n = j->n_sums ? 2 * j->n_sums : 64; n <= ((size_t)1 << 24); n *= 2) {
        struct chunk_sums *t = malloc(n * sizeof *t);
        if (!t)
            return -1;
        for (size_t k = 0; k < n; k++)
            t[k] = (struct chunk_sums){UINT64_MAX, 0, 0, NULL, NULL, NULL, NULL, NULL};
        int clash = 0;
        t[g % n].g = g;
        for (size_t k = 0; k < j->n_sums && !clash; k++) {
            const struct chunk_sums *e = &j->sums[k];
            if (e->g == UINT64_MAX)
                continue;
            clash = t[e->g % n].g != UINT64_MAX;
            t[e->g % n] = *e;
        }
        if (clash) {
            free(t);
            continue;
        }
        t[g % n].g = UINT64_MAX;
        free(j->sums);
        j->sums = t;
        j->n_sums = n;
        return 0;
    }
    return -1;
}

/* The entry of chunk (iteration it, offset, count), made if it has none; NULL without memory. */
static struct chunk_sums *chunk_sums_of(ws_cjob *j, unsigned it, size_t offset, unsigned count)
{
    uint64_t g = (uint64_t)it * j->chunks + offset / j->c.job.count;
    struct chunk_sums *e = j->n_sums ? &j->sums[g % j->n_sums] : NULL;
    if (e && e->g == g)
        return e;
    if (!e || e->g != UINT64_MAX) {
        if (sums_grow(j, g))
            return NULL;
        e = &j->sums[g % j->n_sums];
    }
    e->sent = calloc((j->nw + 63) / 64, sizeof *e->sent);
    e->acc = malloc((size_t)count * sizeof *e->acc);
    e->lane = calloc(count, sizeof *e->lane);
    e->lane_n = calloc(count, sizeof *e->lane_n);
    if (!e->sent || !e->acc || !e->lane || !e->lane_n) {
        sums_free(e);
        return NULL;
    }
    for (unsigned i = 0; i < count; i++)
        ws_xsum_init(&e->acc[i]);
    e->g = g;
    return e;
}

/* The chunk's exact sums: rounded from the accumulators at the first call; from the inputs
 * again if a worker's are missing (none should be: every worker has sent the chunk). */
static const uint32_t *chunk_sums_final(ws_cjob *j, struct chunk_sums *e, unsigned it,
                                        size_t offset, unsigned count)
{
    if (e->v)
        return e->v;
    if (!(e->v = malloc((size_t)count * 4)))
        return NULL;
    if (e->added == j->nw)
        for (unsigned i = 0; i < count; i++) {
            ws_xsum_add_lane(&e->acc[i], e->lane[i], e->lane_n[i]);
            e->v[i] = ws_xsum_round(&e->acc[i]);
        }
    else
        ws_values_exact(&j->vals, it, 0, j->nw, offset, count, e->v);
    free(e->acc);
    free(e->lane);
    free(e->lane_n);
    free(e->sent);
    e->acc = NULL;
    e->lane = NULL;
    e->lane_n = NULL;
    e->sent = NULL;
    return e->v;
}

static void failed(ws_cjob *j, unsigned w, const char *why);

/* the transport's chunks on demand (driver/wiresum/transport.h): worker w's inputs of its
 * current iteration, generated; its sums, checked against the exact ones as they arrive */
static void chunk_load(void *ctx, size_t offset, unsigned count, float *dst)
{
    const worker_ref *c = ctx;
    ws_cjob *j = c->job;
    unsigned it = j->w[c->w].iter;
    uint64_t key = ws_values_key(&j->vals, it, c->w);
    struct chunk_sums *e = chunk_sums_of(j, it, offset, count);
    int add = e && !e->v && !(e->sent[c->w / 64] >> (c->w % 64) & 1);
    for (unsigned i = 0; i < count; i++) {
        uint32_t b = ws_values_at(&j->vals, key, offset + i);
        dst[i] = ws_f32_from_bits(b);
        if (add) {
            if (ws_xsum_lane(&e->lane[i], b))
                e->lane_n[i]++;
            else
                ws_xsum_add(&e->acc[i], b);
        }
    }
    if (add) {
        e->sent[c->w / 64] |= (uint64_t)1 << (c->w % 64);
        e->added++;
    }
}

static void chunk_store(void *ctx, size_t offset, unsigned count, const float *sums)
{
    const worker_ref *c = ctx;
    ws_cjob *j = c->job;
    worker *x = &j->w[c->w];
    struct chunk_sums *e = chunk_sums_of(j, x->iter, offset, count);
    const uint32_t *v = e ? chunk_sums_final(j, e, x->iter, offset, count) : NULL;
    if (!v) {
        failed(j, c->w, "out of memory for the exact sums of a chunk");
        return;
    }
    for (unsigned i = 0; i < count; i++)
        x->bad += ws_f32_bits(sums[i]) != v[i];
    if (++e->seen == j->nw)
        sums_free(e);
}

/* a baseline's element equal to its reference: the same bits, or both NaN (C leaves to the
 * compiler which operand's payload a binary32 addition of two NaNs keeps: it may commute a + b) */
static int same(uint32_t a, uint32_t b)
{
    return a == b || ((a & 0x7fffffffu) > 0x7f800000u && (b & 0x7fffffffu) > 0x7f800000u);
}

/* worker w completed iteration w->iter at now: its tensor checked, the time recorded */
static void completed(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    unsigned it = x->iter;
    int baseline = !WS_MODE_IS_WIRESUM(j->mode);
    uint64_t bad = x->bad, badorder = 0; /* wiresum modes: checked chunk by chunk */
    if (baseline) {
        expect(j, it);
        const uint32_t *ex = j->exact[it % 2], *od = j->order[it % 2];
        for (uint64_t i = 0; i < j->n; i++) {
            bad += x->buf[i] != ex[i];
            badorder += !same(x->buf[i], od[i]);
        }
    }
    j->r.tensors++;
    j->r.tensors_exact += bad == 0;
    j->r.inexact_elements += bad;
    j->r.tensors_consistent += baseline ? badorder == 0 : bad == 0;
    if (now > j->done_max[it])
        j->done_max[it] = now;
    j->done_count[it]++;
    x->running = 0;
    x->iter++;
    x->next_start = x->iter < j->c.job.iterations ? now + j->c.job.compute_ns * 1000
                                                   : WS_CLUSTER_NEVER;
}

static void failed(ws_cjob *j, unsigned w, const char *why)
{
    if (j->r.failed)
        return;
    j->r.failed = 1;
    snprintf(j->r.error, sizeof j->r.error, "worker %u: %s", w, why);
}

/* ---- the baselines' schedules ----------------------------------------------------------- */

static step no_step(void) { return (step){-1, -1, 0, 0, 0, 0, OP_COPY}; }

/* ring: 2(N-1) steps; worker w sends to w+1 and receives from w-1 a segment of N: in
 * reduce-scatter step t the one it sends is w-t, then in all-gather the one it completed last */
static step ring_step(const ws_cjob *j, unsigned w, unsigned t)
{
    unsigned N = j->nw, pred = (w + N - 1) % N;
    unsigned s_out = t < N - 1 ? (w + N - t % N) % N : (w + 1 + N - (t - (N - 1)) % N) % N;
    unsigned s_in = t < N - 1 ? (pred + N - t % N) % N : (pred + 1 + N - (t - (N - 1)) % N) % N;
    step st = {(int)((w + 1) % N), (int)pred, bound(j, s_out, N), bound(j, s_out + 1, N),
               bound(j, s_in, N), bound(j, s_in + 1, N), t < N - 1 ? OP_RECV_FIRST : OP_COPY};
    return st;
}

/* halving-doubling over P = 2^m participants, the partners nearest first: reduce-scatter by
 * recursive halving (step s: the partner at distance 2^s, each keeps the half of its range its
 * bit s says and sends the other), then all-gather by recursive doubling in the mirror order
 * (distance P/2, ..., 2, 1, each sends what it has). Hosts are numbered switch by switch, so the
 * first halvings and the last doublings, the largest exchanges, stay within a rack, and the
 * steps that cross racks carry the smallest ranges (docs/cluster.md section 4). With N = P + r
 * workers, r > 0, a first step folds worker 2i+1 into 2i (i < r: the whole tensor) and a last
 * one sends 2i's result back (as MPICH's Rabenseifner reduce-scatter). */
static step hd_step(const ws_cjob *j, unsigned w, unsigned t)
{
    unsigned r = j->nw - j->P, m = j->logP;
    uint64_t all = j->n;
    if (r) {
        int extra = w < 2 * r && w % 2, pair = w < 2 * r && !extra;
        if (t == 0 || t == 2 * m + 1) {
            step st = no_step();
            int first = t == 0;
            if (extra && first)
                st.send_to = (int)w - 1, st.send_hi = all;
            else if (extra)
                st.recv_from = (int)w - 1, st.recv_hi = all;
            else if (pair && first)
                st.recv_from = (int)w + 1, st.recv_hi = all, st.op = OP_OWN_FIRST;
            else if (pair)
                st.send_to = (int)w + 1, st.send_hi = all;
            return st;
        }
        if (extra)
            return no_step();
        t--;
    }
    unsigned v = w < 2 * r ? w / 2 : w - r;
    /* halving step t splits v's range of P/2^t segments by bit t; doubling step t - m joins the
     * two halves that halving step 2m - 1 - t split, bit 2m - 1 - t */
    unsigned b = t < m ? t : 2 * m - 1 - t, d = 1u << b, pv = v ^ d, h = j->P >> (b + 1);
    unsigned send_lo, recv_lo, peer = pv < r ? 2 * pv : pv + r;
    int op = OP_COPY;
    if (t < m) { /* keep v's half, send the other, add the partner's partial of v's half */
        unsigned lo = hd_lo(j->P, v, b);
        recv_lo = lo + (v & d ? h : 0);
        send_lo = lo + (v & d ? 0 : h);
        op = v < pv ? OP_OWN_FIRST : OP_RECV_FIRST;
    } else { /* send the sums v has, receive the partner's */
        send_lo = hd_lo(j->P, v, b + 1);
        recv_lo = hd_lo(j->P, pv, b + 1);
    }
    step st = {(int)peer,
               (int)peer,
               bound(j, send_lo, j->P),
               bound(j, send_lo + h, j->P),
               bound(j, recv_lo, j->P),
               bound(j, recv_lo + h, j->P),
               op};
    return st;
}

static step step_of(const ws_cjob *j, unsigned w, unsigned t)
{
    return j->mode == WS_MODE_RING ? ring_step(j, w, t) : hd_step(j, w, t);
}

static int grow(stream *s, size_t need)
{
    if (need <= s->cap)
        return 0;
    size_t c = s->cap ? s->cap : 65536;
    while (c < need)
        c *= 2;
    uint8_t *nb = realloc(s->b, c);
    if (!nb)
        return -1;
    s->b = nb;
    s->cap = c;
    return 0;
}

static stream *find(stream *s, unsigned n, unsigned peer)
{
    for (unsigned k = 0; k < n; k++)
        if (s[k].peer == peer)
            return &s[k];
    return NULL;
}

/* the peers of every step, once each: the streams of worker w */
static void make_streams(ws_cjob *j, unsigned w)
{
    worker *x = &j->w[w];
    for (unsigned t = 0; t < j->steps; t++) {
        step st = step_of(j, w, t);
        if (st.send_to >= 0 && !find(x->out, x->n_out, (unsigned)st.send_to))
            x->out[x->n_out++].peer = (unsigned)st.send_to;
        if (st.recv_from >= 0 && !find(x->in, x->n_in, (unsigned)st.recv_from))
            x->in[x->n_in++].peer = (unsigned)st.recv_from;
    }
}

/* step x->step begins: what it sends, queued */
static void begin_step(ws_cjob *j, unsigned w)
{
    worker *x = &j->w[w];
    step st = step_of(j, w, x->step);
    if (st.send_to < 0)
        return;
    stream *o = find(x->out, x->n_out, (unsigned)st.send_to);
    size_t len = (size_t)(st.send_hi - st.send_lo) * 4;
    if (o->off == o->len)
        o->off = o->len = 0;
    if (grow(o, o->len + len)) {
        failed(j, w, "out of memory");
        return;
    }
    memcpy(o->b + o->len, x->buf + st.send_lo, len);
    o->len += len;
}

/* the steps worker w can complete with what it received so far */
static void progress(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    while (x->running && !j->r.failed) {
        step st = step_of(j, w, x->step);
        if (st.recv_from >= 0) {
            stream *in = find(x->in, x->n_in, (unsigned)st.recv_from);
            uint64_t n = st.recv_hi - st.recv_lo;
            if (in->len - in->off < n * 4)
                return;
            const uint8_t *p = in->b + in->off;
            uint32_t *own = x->buf + st.recv_lo;
            for (uint64_t i = 0; i < n; i++) {
                uint32_t v;
                memcpy(&v, p + 4 * i, 4);
                if (st.op == OP_RECV_FIRST)
                    own[i] = ws_f32_bits(ws_f32_from_bits(v) + ws_f32_from_bits(own[i]));
                else if (st.op == OP_OWN_FIRST)
                    own[i] = ws_f32_bits(ws_f32_from_bits(own[i]) + ws_f32_from_bits(v));
                else
                    own[i] = v;
            }
            in->off += n * 4;
            if (in->off == in->len)
                in->off = in->len = 0;
        }
        if (++x->step == j->steps) {
            completed(j, w, now);
            return;
        }
        begin_step(j, w);
    }
}

unsigned ws_cjob_peers(const ws_cjob *j, unsigned w, unsigned out[WS_CJOB_MAX_PEERS])
{
    const worker *x = &j->w[w];
    for (unsigned k = 0; k < x->n_out; k++)
        out[k] = x->out[k].peer;
    return x->n_out;
}

void ws_cjob_stream_rx(ws_cjob *j, unsigned w, unsigned from, const uint8_t *data, size_t len,
                       uint64_t now)
{
    worker *x = &j->w[w];
    stream *in = find(x->in, x->n_in, from);
    j->r.rx_bytes += len;
    if (!in) {
        failed(j, w, "bytes from a worker that is not its peer");
        return;
    }
    if (grow(in, in->len + len)) {
        failed(j, w, "out of memory");
        return;
    }
    memcpy(in->b + in->len, data, len);
    in->len += len;
    progress(j, w, now);
}

size_t ws_cjob_stream_pending(ws_cjob *j, unsigned w, unsigned k, const uint8_t **data)
{
    stream *o = &j->w[w].out[k];
    *data = o->b + o->off;
    return o->len - o->off;
}

void ws_cjob_stream_sent(ws_cjob *j, unsigned w, unsigned k, size_t n)
{
    j->w[w].out[k].off += n;
    j->r.tx_bytes += n;
}

/* ---- the wiresum modes ------------------------------------------------------------------- */

static void worker_tx(void *ctx, const uint8_t *f, size_t len)
{
    worker_ref *c = ctx;
    ws_cjob *j = c->job;
    j->r.tx_bytes += len;
    j->tx(j->tx_ctx, c->w, f, len);
}

static int shards_done(const ws_cjob *j, unsigned w)
{
    for (unsigned s = 0; s < j->T; s++)
        if (!ws_worker_done(j->w[w].ww[s]))
            return 0;
    return 1;
}

void ws_cjob_rx(ws_cjob *j, unsigned w, const uint8_t *payload, size_t plen, uint32_t sip,
                uint16_t sport, uint8_t tos, uint8_t ttl, uint64_t now)
{
    static uint8_t f[WS_LIMIT_FRAME + WS_OFF_AGG];
    worker *x = &j->w[w];
    j->r.rx_bytes += plen + WS_OFF_AGG;
    /* the shard: the device that sent it and, where trees share a device, the job */
    unsigned job = plen >= WS_OFF_JOB - WS_OFF_AGG + 2 ? ws_get16(payload + WS_OFF_JOB - WS_OFF_AGG)
                                                      : 0;
    for (unsigned s = 0; s < j->T && plen <= WS_LIMIT_FRAME; s++) {
        const worker_ref *ref = &j->ctx[(size_t)w * j->T + s];
        if (ref->ip != sip || (j->T > 1 && job != JOB_ID + s))
            continue;
        size_t len = ws_cdev_frame(f, ref->m->mac, j->cfg[ref->dev].mac, sip, ref->m->ip, sport,
                                      ref->m->udp_port, tos, ttl, payload, plen, 1);
        ws_worker_rx(x->ww[s], f, len, now);
        if (x->running && shards_done(j, w))
            completed(j, w, now);
        return;
    }
    j->r.bad_frames++; /* from no device of the worker's */
}

/* the members' addresses: worker w at its host's address */
static void member_addr(void *ctx, unsigned w, ws_member *m)
{
    const ws_cjob *j = ctx;
    const uint8_t mac[6] = {0x02, 0x00, 0x00, (uint8_t)(w >> 8), 0x01, (uint8_t)w};
    memcpy(m->mac, mac, 6);
    m->ip = j->host_ip[j->c.job.host[w]];
    m->udp_port = WS_CLUSTER_WORKER_PORT;
}

/* a device of tree tr: cluster device k at its place (loop/fabric_cfg.h); its index there */
static int add_dev(ws_cjob *j, tree *tr, int k, const uint32_t *dev_ip, int parent,
                   unsigned rank, unsigned shard, unsigned w0, unsigned w1)
{
    const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x0d, (uint8_t)(k >> 8), (uint8_t)k};
    int i = ws_fabric_add(&tr->f, j->c.dev[k].name, mac, dev_ip[k], parent, rank, shard, w0,
                          w1); /* at most a root, its mids and leaves: within the limit */
    tr->dev_of[i] = k;
    return i;
}

/* The trees of the mode (wiresum: one of one device; sharded: one a device; hierarchical: a
 * root each, the mids of its group, the leaves every tree shares), each checked as fabric.ini's */
static int make_trees(ws_cjob *j, const uint32_t *dev_ip, char *err, size_t errlen)
{
    const ws_cluster_job *cj = &j->c.job;
    j->T = j->mode == WS_MODE_SHARDED ? cj->n_shards : j->mode == WS_MODE_HIER ? cj->n_trees : 1;
    if (!(j->tree = calloc(j->T, sizeof *j->tree)))
        return snprintf(err, errlen, "out of memory"), -1;
    for (unsigned t = 0; t < j->T; t++) {
        tree *tr = &j->tree[t];
        if (j->mode != WS_MODE_HIER) {
            add_dev(j, tr, j->mode == WS_MODE_WIRESUM ? cj->device : cj->shard_dev[t], dev_ip,
                    -1, 0, 0, 0, j->nw);
        } else {
            /* the root 0, its mids 1.. (three levels), then the leaves under the root or a mid */
            unsigned g = cj->mid_groups == 1 ? 0 : t;
            unsigned m0 = cj->n_mids ? cj->mid_group0[g] : 0;
            unsigned m1 = cj->n_mids ? cj->mid_group0[g + 1] : 0;
            add_dev(j, tr, cj->root_dev[t], dev_ip, -1, 0, 0, 0, j->nw);
            for (unsigned m = m0; m < m1; m++)
                add_dev(j, tr, cj->mid_dev[m], dev_ip, 0, m - m0, 0, cj->leaf_w0[cj->mid_l0[m]],
                        cj->leaf_w1[cj->mid_l1[m] - 1]);
            for (unsigned m = m0, l = 0; l < cj->n_leaves; l++) {
                while (m1 > m0 && l >= cj->mid_l1[m])
                    m++;
                add_dev(j, tr, cj->leaf_dev[l], dev_ip, m1 > m0 ? (int)(1 + m - m0) : 0,
                        m1 > m0 ? l - cj->mid_l0[m] : l, 0, cj->leaf_w0[l], cj->leaf_w1[l]);
            }
        }
        if (ws_fabric_check(&tr->f, err, errlen))
            return -1;
    }
    return 0;
}

/* Every device of the trees: its configuration, a job (JOB_ID + t) for each tree t it serves,
 * and its model */
static int make_devices(ws_cjob *j, const uint32_t *dev_ip, char *err, size_t errlen)
{
    const ws_cluster_job *cj = &j->c.job;
    if (make_trees(j, dev_ip, err, errlen))
        return -1;
    j->cfg = calloc(j->c.n_dev, sizeof *j->cfg);
    j->dev = calloc(j->c.n_dev, sizeof *j->dev);
    if (!j->cfg || !j->dev)
        return snprintf(err, errlen, "out of memory"), -1;
    static unsigned char seen[WS_CLUSTER_MAX_DEVICES];
    memset(seen, 0, sizeof seen);
    for (unsigned t = 0; t < j->T; t++)
        for (unsigned i = 0; i < j->tree[t].f.n; i++) {
            int k = j->tree[t].dev_of[i];
            const ws_cluster_dev *d = &j->c.dev[k];
            ws_config *cfg = &j->cfg[k];
            if (!seen[k]) {
                seen[k] = 1;
                j->used[j->n_used++] = k;
                ws_config_default(cfg);
                cfg->max_count = d->max_count;
                cfg->pool_slots = d->slots;
            }
            if (ws_fabric_dev_config(&j->tree[t].f, i, (uint16_t)(JOB_ID + t), d->ports,
                                     cj->window, cj->count, member_addr, j, cfg, err, errlen))
                return -1;
        }
    for (unsigned u = 0; u < j->n_used; u++) {
        int k = j->used[u];
        const ws_cluster_dev *d = &j->c.dev[k];
        ws_config *cfg = &j->cfg[k];
        /* each job's members on its ports in rank order, round robin (rank r on port r mod
         * ports): each port and each engine's group within one member of another, for any
         * number of members, and a hierarchy's consecutive ranks (a rack) spread over every
         * port; job n's parent on the next port of the round and n after it, so one parent is
         * on one of the ports with the fewest members and several trees' parents spread. A
         * worker has the same rank, so the same port, in every tree's job on a leaf. */
        for (unsigned n = 0; n < cfg->n_jobs; n++) {
            ws_job *jb = &cfg->job[n];
            for (unsigned r = 0; r < jb->workers; r++)
                jb->member[r].port = (uint8_t)(r % d->ports);
            jb->parent.port = (uint8_t)((jb->workers + n) % d->ports);
        }
        /* a flat job's device built to take PARTIALs (partial = 1) must take the longest */
        if (d->partial == 1 && !cfg->partial) {
            cfg->partial = 1;
            if (ws_partial_max_len(cj->count) > ws_config_max_frame(cfg))
                cfg->max_frame = (unsigned)ws_partial_max_len(cj->count);
        }
        if (ws_config_check(cfg, err, errlen))
            return -1;
        if (!(j->dev[k] = ws_cdev_new(d, cfg, err, errlen)))
            return -1;
    }
    return 0;
}

/* worker w's place in tree s: the device it sends to and its member entry there */
static int worker_place(ws_cjob *j, unsigned w, unsigned s, worker_ref *ref, unsigned *rank,
                        char *err, size_t errlen)
{
    const ws_cluster_job *cj = &j->c.job;
    unsigned k = (unsigned)(j->mode == WS_MODE_WIRESUM ? cj->device
                            : j->mode == WS_MODE_SHARDED ? cj->shard_dev[s] : -1);
    *rank = w;
    if (j->mode == WS_MODE_HIER) { /* the leaf that serves w: leaves in rank order */
        unsigned lo = 0, hi = cj->n_leaves - 1;
        while (lo < hi) {
            unsigned mid = (lo + hi + 1) / 2;
            if (cj->leaf_w0[mid] <= w)
                lo = mid;
            else
                hi = mid - 1;
        }
        k = (unsigned)cj->leaf_dev[lo];
        *rank = w - cj->leaf_w0[lo];
    }
    const ws_config *cfg = &j->cfg[k];
    for (unsigned n = 0; n < cfg->n_jobs; n++)
        if (cfg->job[n].id == JOB_ID + s) {
            *ref = (worker_ref){j, w, s, k, cfg->ip, &cfg->job[n].member[*rank]};
            return 0;
        }
    return snprintf(err, errlen, "device %s has no job of tree %u", j->c.dev[k].name, s), -1;
}

static int make_workers(ws_cjob *j, char *err, size_t errlen)
{
    const ws_cluster *c = &j->c;
    for (unsigned w = 0; w < j->nw; w++) {
        if (!(j->w[w].ww = calloc(j->T, sizeof *j->w[w].ww)))
            return snprintf(err, errlen, "out of memory"), -1;
        for (unsigned s = 0; s < j->T; s++) {
            worker_ref *ref = &j->ctx[(size_t)w * j->T + s];
            unsigned rank;
            if (worker_place(j, w, s, ref, &rank, err, errlen))
                return -1;
            ws_worker_cfg wc;
            ws_worker_cfg_init(&wc);
            if (ws_worker_cfg_from_config(&wc, &j->cfg[ref->dev], (uint16_t)(JOB_ID + s), rank,
                                          err, errlen))
                return -1;
            wc.count = c->job.count;
            wc.shard = j->T > 1 ? s : 0;
            wc.shards = j->T > 1 ? j->T : 0;
            /* the window from the path: the host's link, shared by the worker's shards */
            wc.rate_bps = c->topo.host_link.rate / j->T;
            wc.ticks_per_s = 1000000000000ull;
            wc.rto = RTO_INIT_PS;
            wc.rto_min = RTO_MIN_PS;
            wc.rto_max = RTO_MAX_PS;
            wc.adaptive = 1;
            wc.max_retries = 64;
            wc.tos = 2; /* ECT(0) */
            wc.cc = c->job.cc;
            wc.tx = worker_tx;
            wc.tx_ctx = ref;
            wc.load = chunk_load;
            wc.store = chunk_store;
            wc.data_ctx = ref;
            if (!(j->w[w].ww[s] = ws_worker_new(&wc, err, errlen)))
                return -1;
        }
    }
    return 0;
}

/* ---- the workers ------------------------------------------------------------------------- */

static void start(ws_cjob *j, unsigned w, uint64_t now)
{
    worker *x = &j->w[w];
    uint64_t key = ws_values_key(&j->vals, x->iter, w);
    for (uint64_t i = 0; x->buf && i < j->n; i++)
        x->buf[i] = ws_values_at(&j->vals, key, i);
    x->bad = 0;
    x->running = 1;
    x->next_start = WS_CLUSTER_NEVER;
    if (now < j->start_min[x->iter])
        j->start_min[x->iter] = now;
    if (!WS_MODE_IS_WIRESUM(j->mode)) {
        x->step = 0;
        begin_step(j, w);
        progress(j, w, now); /* the peers' first steps may be in already */
        return;
    }
    for (unsigned s = 0; s < j->T; s++)
        if (ws_worker_start(x->ww[s], NULL, NULL, j->n, now)) {
            failed(j, w, ws_worker_error(x->ww[s]));
            return;
        }
    if (shards_done(j, w))
        completed(j, w, now);
}

uint64_t ws_cjob_deadline(const ws_cjob *j, unsigned w)
{
    const worker *x = &j->w[w];
    if (j->r.failed)
        return WS_CLUSTER_NEVER;
    if (!x->running)
        return x->next_start;
    uint64_t t = WS_CLUSTER_NEVER;
    for (unsigned s = 0; s < j->T && WS_MODE_IS_WIRESUM(j->mode); s++) {
        uint64_t d = ws_worker_deadline(x->ww[s]);
        if (d < t)
            t = d;
    }
    return t;
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
    for (unsigned s = 0; s < j->T && WS_MODE_IS_WIRESUM(j->mode); s++)
        if (ws_worker_poll(x->ww[s], now)) {
            failed(j, w, ws_worker_error(x->ww[s]));
            return;
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

ws_cjob *ws_cjob_new(const ws_cluster *c, ws_cluster_mode mode, const uint32_t *host_ip,
                     const uint32_t *dev_ip, ws_cjob_tx_fn tx, void *tx_ctx, char *err,
                     size_t errlen)
{
    ws_cjob *j = calloc(1, sizeof *j);
    if (!j)
        return snprintf(err, errlen, "out of memory"), NULL;
    j->c = *c;
    j->mode = mode;
    j->vals.seed = c->job.seed;
    j->vals.kind = c->job.values;
    j->nw = c->job.workers;
    j->n = c->job.elems;
    j->tx = tx;
    j->tx_ctx = tx_ctx;
    j->host_ip = host_ip;
    j->T = 1;
    for (j->P = 1, j->logP = 0; 2 * j->P <= j->nw; j->P *= 2)
        j->logP++;
    j->steps = mode == WS_MODE_RING ? 2 * (j->nw - 1)
                                    : 2 * j->logP + (j->P < j->nw ? 2 : 0);
    unsigned shards = mode == WS_MODE_SHARDED ? c->job.n_shards
                      : mode == WS_MODE_HIER  ? c->job.n_trees : 1;
    j->w = calloc(j->nw, sizeof *j->w);
    j->ctx = calloc((size_t)j->nw * shards, sizeof *j->ctx);
    j->chunks = (j->n + c->job.count - 1) / c->job.count;
    int ok = j->w && j->ctx, baseline = !WS_MODE_IS_WIRESUM(mode);
    for (int k = 0; k < 2 && ok && baseline; k++) {
        j->exact[k] = malloc(j->n * 4);
        j->order[k] = malloc(j->n * 4);
        ok = j->exact[k] && j->order[k];
    }
    for (unsigned w = 0; w < j->nw && ok && baseline; w++) {
        j->w[w].buf = malloc(j->n * 4);
        ok = j->w[w].buf != NULL;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory for %u tensors of %llu elements (a baseline holds "
                 "every worker's)", j->nw + 4, (unsigned long long)j->n);
        ws_cjob_free(j);
        return NULL;
    }
    for (unsigned i = 0; i < c->job.iterations; i++)
        j->start_min[i] = WS_CLUSTER_NEVER;
    if (WS_MODE_IS_WIRESUM(mode) ? make_devices(j, dev_ip, err, errlen) ||
                                       make_workers(j, err, errlen)
                                 : 0) {
        ws_cjob_free(j);
        return NULL;
    }
    if (!WS_MODE_IS_WIRESUM(mode))
        for (unsigned w = 0; w < j->nw; w++)
            make_streams(j, w);
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
        worker *x = &j->w[w];
        for (unsigned s = 0; x->ww && s < j->T; s++)
            ws_worker_free(x->ww[s]);
        free(x->ww);
        free(x->buf);
        for (unsigned k = 0; k < WS_CJOB_MAX_PEERS; k++) {
            free(x->in[k].b);
            free(x->out[k].b);
        }
    }
    for (int k = 0; k < 2; k++) {
        free(j->exact[k]);
        free(j->order[k]);
    }
    for (unsigned u = 0; j->dev && u < j->n_used; u++)
        ws_cdev_free(j->dev[j->used[u]]);
    free(j->dev);
    free(j->cfg);
    free(j->tree);
    for (size_t k = 0; k < j->n_sums; k++)
        sums_free(&j->sums[k]);
    free(j->sums);
    free(j->w);
    free(j->ctx);
    free(j);
}

ws_cdev *ws_cjob_dev(ws_cjob *j, unsigned k)
{
    return j->dev && k < j->c.n_dev ? j->dev[k] : NULL;
}

uint16_t ws_cjob_dev_port(const ws_cjob *j) { (void)j; return WS_DEFAULT_UDP_PORT; }

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
    for (unsigned u = 0; u < j->n_used && !r->failed; u++)
        if (ws_cdev_error(j->dev[j->used[u]])) { /* an RTL model's */
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "device %s: model: %s",
                     j->c.dev[j->used[u]].name, ws_cdev_error(j->dev[j->used[u]]));
        }
    uint64_t want = (uint64_t)j->nw * j->c.job.iterations;
    if (!r->failed && r->tensors != want) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "%llu of %llu tensors completed",
                 (unsigned long long)r->tensors, (unsigned long long)want);
    }
    r->exact = !r->failed && r->tensors_exact == want;
    r->consistent = !r->failed && r->tensors_consistent == want;
    for (unsigned w = 0; w < j->nw && WS_MODE_IS_WIRESUM(j->mode); w++)
        for (unsigned s = 0; s < j->T; s++) {
            const ws_worker_stats *st = ws_worker_get_stats(j->w[w].ww[s]);
            r->data += st->data_frames;
            r->retx += st->retx_frames;
            r->timeouts += st->timeouts;
            r->results += st->results;
            r->dup_results += st->dup_results;
            r->stale_results += st->stale_results;
            r->bad_frames += st->bad_frames;
            r->ce_results += st->ce_results;
            r->cwnd_cuts += st->cwnd_cuts;
            if ((w == 0 && s == 0) || st->cwnd_min < r->cwnd_min)
                r->cwnd_min = st->cwnd_min;
        }
    memset(&r->dev, 0, sizeof r->dev);
    r->n_devices = j->n_used;
    for (unsigned i = 0; i < j->n_used; i++) {
        const ws_cdev_stats *d = ws_cdev_get_stats(j->dev[j->used[i]]);
        r->dev_index[i] = j->used[i];
        r->dev_each[i] = *d;
        r->dev.rx_frames += d->rx_frames;
        r->dev.rx_bytes += d->rx_bytes;
        r->dev.drop_frames += d->drop_frames;
        r->dev.drop_bytes += d->drop_bytes;
        r->dev.served_frames += d->served_frames;
        r->dev.tx_frames += d->tx_frames;
        r->dev.tx_bytes += d->tx_bytes;
        if (d->max_queued > r->dev.max_queued)
            r->dev.max_queued = d->max_queued;
        r->dev.ce_marks += d->ce_marks;
    }
}
