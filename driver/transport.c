/* transport.c - the worker's all-reduce transport: chunks, window, sets, timers, results. */
#include "wiresum/transport.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/wire.h"

#define NO_CHUNK UINT64_MAX
#define CC_GAIN (1.0 / 16) /* g of DCTCP's alpha (Alizadeh et al. 2010) */
#define ECN_CE 3
#define ECN_ECT0 2

/* One slot of the window: the last chunk sent in it. */
typedef struct {
    uint64_t chunk;    /* global chunk number, NO_CHUNK before the first */
    uint32_t offset;   /* of the chunk in its tensor */
    uint32_t tensor;
    uint16_t count;
    uint8_t set;
    uint8_t busy;      /* sent, result not in yet */
    uint8_t retried;   /* sent more than once: no round-trip sample (Karn) */
    uint32_t len;      /* the frame's bytes */
    uint64_t delivered; /* the worker's bytes of results when it was first sent */
    unsigned tries;    /* retransmissions so far */
    uint64_t sent_at;  /* first transmission */
    uint64_t last_tx;  /* last transmission */
    uint64_t timer;    /* timeout armed at the last transmission */
    uint64_t deadline;
} slot_t;

struct ws_worker {
    ws_worker_cfg cfg;
    slot_t *slot;
    ws_worker_stats st;
    uint64_t next_base; /* global number of the first chunk of the next all-reduce */
    uint32_t tensor;    /* id of the current (or next) all-reduce */
    uint16_t ip_id;
    int active, failed;
    const float *in;
    float *out;
    size_t n;
    uint64_t base, nch, got;
    uint64_t srtt8, rttvar4; /* RFC 6298 state, scaled by 8 and 4 */
    uint64_t sent;      /* chunks of the current all-reduce sent (first transmissions) */
    unsigned inflight;  /* slots busy */
    uint64_t inflight_bytes; /* their frames' bytes */
    uint64_t frame_len; /* the bytes of a frame of count elements */
    double tick_bps;    /* cfg.rate_bps in bytes a time unit; 0 without a rate */
    /* the delivery rate (bytes a time unit): a running max of the samples over periods of
     * RATE_PERIODS smoothed round trips, the max of this period and the last */
    uint64_t delivered;
    double rate_cur, rate_prev;
    uint64_t rate_stamp;
    /* loss detection with the adaptive timeout: the last RESULT accepted, and the first
     * transmission and round trip of the latest-sent chunk whose result came (RACK) */
    uint64_t last_result, rack_sent, rack_rtt;
    uint64_t next_tx;   /* pacing: the earliest time of the next first transmission */
    /* congestion control: its window (bytes, before the path's bound), the observation window
     * (bytes of results and of CE results since it began, its length in bytes) and whether a
     * timeout has cut the window in it already */
    double cc_cwnd;
    uint64_t win_b, win_ce, win_len;
    int win_cut;
    int alpha_set; /* alpha holds a measured fraction (from the first window on) */
    char err[256];
    uint32_t elems[WS_LIMIT_COUNT];
    float vals[WS_LIMIT_COUNT]; /* a chunk's values for cfg.load and cfg.store */
    uint8_t frame[WS_OFF_ELEMS + 4 * WS_LIMIT_COUNT];
};

static void set_err(ws_worker *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
}

/* ---- the window (docs/driver.md, "Window and pacing") ---------------------------------
 * With a rate, the path's bound is WS_WINDOW_GAIN bandwidth-delay products: the delivery rate
 * measured (at most cfg.rate_bps) times the smallest round trip measured (the path without
 * queues; WS_INIT_CHUNKS chunks before the first one), as BBR's window, and never less than
 * one product of cfg.rate_bps; without a rate, the slots. Congestion control keeps a window of
 * its own under it. */
#define RATE_PERIODS 8

static double path_bound(const ws_worker *w)
{
    double F = (double)w->frame_len, S = (double)w->cfg.slots * F, b = S;
    if (w->tick_bps > 0) {
        double r = w->rate_cur > w->rate_prev ? w->rate_cur : w->rate_prev;
        if (r <= 0 || r > w->tick_bps)
            r = w->tick_bps;
        b = WS_INIT_CHUNKS * F;
        if (w->st.min_rtt) {
            /* never under one product of the rate and the smallest round trip: no spiral down
             * when the round trip grows by a delay the window does not make; with congestion
             * control, of the smoothed round trip: other traffic's queue lengthens it without
             * the window's doing, and the marks say when the queue is the window's own (its
             * law keeps a window of its own under this bound) */
            uint64_t rtt = w->cfg.cc && w->st.srtt > w->st.min_rtt ? w->st.srtt : w->st.min_rtt;
            double lo = w->tick_bps * (double)rtt;
            b = WS_WINDOW_GAIN * r * (double)w->st.min_rtt;
            b = b < lo ? lo : b;
        }
    }
    return b < F ? F : b > S ? S : b;
}

static void window_update(ws_worker *w)
{
    double b = path_bound(w);
    if (w->cfg.cc && w->cc_cwnd < b)
        b = w->cc_cwnd;
    w->st.cwnd = b;
    if (b < w->st.cwnd_min && (w->st.min_rtt || w->tick_bps <= 0))
        w->st.cwnd_min = b;
}

/* one more frame of len bytes fits in the window (one chunk always does) */
static int fits(const ws_worker *w, uint64_t len)
{
    return !w->inflight || (double)(w->inflight_bytes + len) <= w->st.cwnd + 1e-6;
}

/* chunks leave in chunk order, within a window in bytes, when there is a rate or cc */
static int windowed(const ws_worker *w) { return w->cfg.cc || w->tick_bps > 0; }

void ws_worker_cfg_init(ws_worker_cfg *c)
{
    memset(c, 0, sizeof *c);
    ws_config d;
    ws_config_default(&d);
    c->slots = 16;
    c->count = WS_DEFAULT_MAX_COUNT;
    memcpy(c->dev_mac, d.mac, 6);
    c->dev_ip = d.ip;
    c->dev_port = d.udp_port;
    c->first_tensor = 1;
    c->rto = 100000;
    c->rto_min = 1000;
    c->rto_max = 100000000;
    c->adaptive = 1;
}

int ws_worker_cfg_from_config(ws_worker_cfg *c, const ws_config *cfg, uint16_t job,
                              unsigned rank, char *err, size_t errlen)
{
    const ws_job *jb = ws_config_find_job(cfg, job);
    if (!jb) {
        snprintf(err, errlen, "job %u is not configured", job);
        return -1;
    }
    if (rank >= jb->workers) {
        snprintf(err, errlen, "job %u has %u workers: no rank %u", job, jb->workers, rank);
        return -1;
    }
    const ws_member *m = &jb->member[rank];
    c->job = job;
    c->rank = rank;
    c->slots = jb->slots;
    c->count = jb->max_count;
    memcpy(c->mac, m->mac, 6);
    c->ip = m->ip;
    c->udp_port = m->udp_port;
    memcpy(c->dev_mac, cfg->mac, 6);
    c->dev_ip = cfg->ip;
    c->dev_port = cfg->udp_port;
    c->first_tensor = (uint32_t)job << 16 | 1;
    return 0;
}

ws_worker *ws_worker_new(const ws_worker_cfg *c, char *err, size_t errlen)
{
    if (!c->tx) {
        snprintf(err, errlen, "worker: no tx callback");
        return NULL;
    }
    if (c->slots < 1 || c->slots > WS_LIMIT_SLOTS) {
        snprintf(err, errlen, "worker: slots %u not in 1..%d", c->slots, WS_LIMIT_SLOTS);
        return NULL;
    }
    if (c->count < 1 || c->count > WS_LIMIT_COUNT) {
        snprintf(err, errlen, "worker: count %u not in 1..%d", c->count, WS_LIMIT_COUNT);
        return NULL;
    }
    if (c->shards > WS_MAX_SHARDS || (c->shards > 1 && c->shard >= c->shards) ||
        (c->shards <= 1 && c->shard != 0)) {
        snprintf(err, errlen, "worker: shard %u of %u: want shard < shards <= %d", c->shard,
                 c->shards, WS_MAX_SHARDS);
        return NULL;
    }
    if (c->cc != 0 && c->cc != 1) {
        snprintf(err, errlen, "worker: cc %d: 0 (off) or 1 (DCTCP-like window)", c->cc);
        return NULL;
    }
    if (!(c->rate_bps >= 0 && c->rate_bps < 1e15)) {
        snprintf(err, errlen, "worker: rate %g bit/s: want 0 (none) .. 1e15", c->rate_bps);
        return NULL;
    }
    if (c->rto_min == 0 || c->rto_min > c->rto_max || c->rto < c->rto_min || c->rto > c->rto_max) {
        snprintf(err, errlen, "worker: timeouts must satisfy 0 < rto_min <= rto <= rto_max");
        return NULL;
    }
    ws_worker *w = calloc(1, sizeof *w);
    if (w)
        w->slot = malloc(c->slots * sizeof *w->slot);
    if (!w || !w->slot) {
        free(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->cfg = *c;
    for (unsigned k = 0; k < c->slots; k++)
        w->slot[k] = (slot_t){.chunk = NO_CHUNK};
    w->tensor = c->first_tensor;
    w->st.rto = c->rto;
    w->frame_len = ws_frame_len(c->count);
    w->tick_bps = c->rate_bps > 0 ? c->rate_bps / 8 / (double)(c->ticks_per_s ? c->ticks_per_s
                                                                               : 1000000000u)
                                  : 0;
    w->cc_cwnd = (double)c->slots * (double)w->frame_len;
    window_update(w);
    w->st.cwnd_min = w->st.cwnd;
    w->win_len = (uint64_t)w->st.cwnd;
    return w;
}

void ws_worker_free(ws_worker *w)
{
    if (!w)
        return;
    free(w->slot);
    free(w);
}

static uint64_t clamp_rto(const ws_worker *w, uint64_t t)
{
    if (t < w->cfg.rto_min)
        return w->cfg.rto_min;
    return t > w->cfg.rto_max ? w->cfg.rto_max : t;
}

/* Pacing: first transmissions leave at most at the rate (cfg.rate_bps: a worker's share of its
 * link, so that one of its shards does not take the others' share when its window would let it,
 * and the shards progress together), and with a measured round trip at WS_PACE_GAIN x cwnd /
 * srtt when that is below the rate (a window cut by congestion control, or one the path's bound
 * keeps under a queue's round trip), so that a window goes out over a round trip instead of in
 * a burst; `paced` counts those. */
static void pace(ws_worker *w, size_t len, uint64_t now)
{
    if (w->tick_bps <= 0)
        return;
    double r = w->st.srtt ? WS_PACE_GAIN * w->st.cwnd / (double)w->st.srtt : w->tick_bps;
    if (r >= w->tick_bps)
        r = w->tick_bps;
    else
        w->st.paced++;
    w->next_tx = now + (uint64_t)((double)len / r);
}

/* Build and send the chunk of slot k; retx marks a retransmission. */
static void transmit(ws_worker *w, unsigned k, int retx, uint64_t now)
{
    slot_t *s = &w->slot[k];
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.dst_mac, w->cfg.dev_mac, 6);
    memcpy(h.src_mac, w->cfg.mac, 6);
    h.tos = w->cfg.cc ? (uint8_t)((w->cfg.tos & ~3u) | ECN_ECT0) : w->cfg.tos;
    h.ip_id = w->ip_id++;
    h.src_ip = w->cfg.ip;
    h.dst_ip = w->cfg.dev_ip;
    h.src_port = w->cfg.udp_port;
    h.dst_port = w->cfg.dev_port;
    h.flags = (uint8_t)(s->set | (retx ? WS_FLAG_RETX : 0));
    h.job = w->cfg.job;
    h.worker = (uint16_t)w->cfg.rank;
    h.slot = (uint16_t)k;
    h.count = s->count;
    h.offset = s->offset;
    h.tensor = s->tensor;
    if (w->cfg.load) {
        w->cfg.load(w->cfg.data_ctx, s->offset, s->count, w->vals);
        memcpy(w->elems, w->vals, 4 * (size_t)s->count);
    } else {
        memcpy(w->elems, w->in + s->offset, 4 * (size_t)s->count);
    }
    size_t len = ws_build(w->frame, &h, w->elems);
    if (retx) {
        s->retried = 1;
        s->tries++;
        w->st.retx_frames++;
        s->timer = clamp_rto(w, s->timer * 2);
    } else {
        s->retried = 0;
        s->tries = 0;
        s->sent_at = now;
        s->len = (uint32_t)len;
        s->delivered = w->delivered;
        w->st.data_frames++;
        s->timer = w->st.rto;
        pace(w, len, now);
    }
    if (s->timer > w->st.max_timer)
        w->st.max_timer = s->timer;
    s->last_tx = now;
    s->deadline = now + s->timer < now ? WS_NO_DEADLINE : now + s->timer;
    w->st.tx_bytes += len;
    w->cfg.tx(w->cfg.tx_ctx, w->frame, len);
}

/* The next chunk of the current all-reduce for slot k, or NO_CHUNK. */
static uint64_t next_chunk(const ws_worker *w, unsigned k)
{
    const slot_t *s = &w->slot[k];
    if (!w->active || s->busy)
        return NO_CHUNK;
    uint64_t S = w->cfg.slots, c;
    if (s->chunk != NO_CHUNK && s->chunk >= w->base)
        c = s->chunk + S; /* the slot's next chunk */
    else
        c = w->base + (k + S - w->base % S) % S; /* the slot's first chunk of this tensor */
    return c < w->base + w->nch ? c : NO_CHUNK;
}

/* When slot k may take its next chunk (the hold after its last transmission). */
static uint64_t ready_at(const ws_worker *w, unsigned k)
{
    const slot_t *s = &w->slot[k];
    if (s->chunk == NO_CHUNK || !w->cfg.hold)
        return 0;
    return s->last_tx + w->cfg.hold < s->last_tx ? WS_NO_DEADLINE : s->last_tx + w->cfg.hold;
}

/* Put the next chunk of the current all-reduce that belongs to slot k on the wire, if any and
 * if its hold is over. */
static void fill_slot(ws_worker *w, unsigned k, uint64_t now)
{
    slot_t *s = &w->slot[k];
    uint64_t c = next_chunk(w, k);
    if (c == NO_CHUNK || ready_at(w, k) > now)
        return;
    uint64_t S = w->cfg.slots;
    uint64_t T = w->cfg.shards > 1 ? w->cfg.shards : 1;
    uint64_t off = (w->cfg.shard + T * (c - w->base)) * w->cfg.count; /* chunk shard + T*j */
    s->chunk = c;
    s->offset = (uint32_t)off;
    s->count = (uint16_t)(w->n - off < w->cfg.count ? w->n - off : w->cfg.count);
    s->tensor = w->tensor;
    s->set = (uint8_t)((c / S) & 1);
    s->busy = 1;
    w->sent++;
    w->inflight++;
    transmit(w, k, 0, now);
    w->inflight_bytes += s->len;
}

/* ---- congestion control (cfg.cc) ------------------------------------------------------
 * DCTCP's law in bytes: once per window of results (results of cwnd bytes, counted from the
 * last update: about a round trip), alpha += g (F - alpha) with F the fraction of those bytes
 * that came back CE (the first window's F is alpha's first value: an all-reduce lasts tens of
 * windows, too few for g to forget a guess), then cwnd *= 1 - alpha/2 if any did, else cwnd +=
 * one frame; a timeout halves cwnd, once per window. cwnd stays within one frame .. the path's
 * bound. */

static void cc_new_window(ws_worker *w)
{
    w->win_b = w->win_ce = 0;
    w->win_cut = 0;
    w->win_len = (uint64_t)w->st.cwnd;
}

static void cc_set(ws_worker *w, double cwnd)
{
    double F = (double)w->frame_len, S = (double)w->cfg.slots * F;
    /* with a rate, never under one product of it and the smallest round trip: the path's
     * pipe without a queue, which a cut has no reason to drain */
    double pipe = w->tick_bps * (double)w->st.min_rtt;
    F = pipe > F ? (pipe < S ? pipe : S) : F;
    w->cc_cwnd = cwnd < F ? F : cwnd > S ? S : cwnd;
    window_update(w);
}

static void cc_result(ws_worker *w, uint64_t len, int ce)
{
    w->win_b += len;
    w->win_ce += ce ? len : 0;
    w->st.ce_results += ce != 0;
    if (w->win_b < w->win_len)
        return;
    double F = (double)w->win_ce / (double)w->win_b;
    w->st.alpha = w->alpha_set ? w->st.alpha + CC_GAIN * (F - w->st.alpha) : F;
    w->alpha_set = 1;
    if (w->win_ce) {
        w->st.cwnd_cuts++;
        cc_set(w, w->st.cwnd * (1 - w->st.alpha / 2));
    } else {
        cc_set(w, w->st.cwnd + (double)w->frame_len);
    }
    cc_new_window(w);
}

static void cc_timeout(ws_worker *w)
{
    if (w->win_cut)
        return;
    w->win_cut = 1;
    w->st.cwnd_cuts++;
    cc_set(w, w->st.cwnd / 2);
}

/* The next chunk in chunk order and its slot, if it may leave: within the window, its slot
 * free (ready: when its hold and the pacing let it). */
static int win_next(const ws_worker *w, unsigned *k, uint64_t *ready)
{
    uint64_t c = w->base + w->sent;
    if (!w->active || c >= w->base + w->nch)
        return 0;
    uint64_t T = w->cfg.shards > 1 ? w->cfg.shards : 1;
    uint64_t off = (w->cfg.shard + T * (c - w->base)) * w->cfg.count;
    uint64_t n = w->n - off < w->cfg.count ? w->n - off : w->cfg.count;
    if (!fits(w, ws_frame_len((unsigned)n)))
        return 0;
    *k = (unsigned)(c % w->cfg.slots);
    if (next_chunk(w, *k) != c)
        return 0;
    *ready = ready_at(w, *k);
    if (w->next_tx > *ready)
        *ready = w->next_tx;
    return 1;
}

static void win_fill(ws_worker *w, uint64_t now)
{
    unsigned k;
    uint64_t ready;
    while (win_next(w, &k, &ready) && ready <= now)
        fill_slot(w, k, now);
}

/* Every slot that can take a chunk, in chunk order (from the slot of the tensor's first). */
static void fill_all(ws_worker *w, uint64_t now)
{
    if (windowed(w)) {
        win_fill(w, now);
        return;
    }
    for (unsigned j = 0; j < w->cfg.slots; j++)
        fill_slot(w, (unsigned)((w->base + j) % w->cfg.slots), now);
}

static void finish(ws_worker *w)
{
    w->active = 0;
    w->st.allreduces++;
    w->next_base = w->base + w->nch;
    w->tensor++;
}

int ws_worker_start(ws_worker *w, const float *in, float *out, size_t n, uint64_t now)
{
    if (w->failed) {
        set_err(w, "the worker has failed; create a new one (and reconfigure the job)");
        return -1;
    }
    if (w->active) {
        set_err(w, "an all-reduce is under way (tensor %u)", w->tensor);
        return -1;
    }
    if ((uint64_t)n > UINT32_MAX) {
        set_err(w, "%zu elements: at most %u (offsets are 32-bit)", n, UINT32_MAX);
        return -1;
    }
    if (n && ((!in && !w->cfg.load) || (!out && !w->cfg.store))) {
        set_err(w, "no buffer");
        return -1;
    }
    w->in = in;
    w->out = out;
    w->n = n;
    w->base = w->next_base;
    uint64_t all = (n + w->cfg.count - 1) / w->cfg.count, T = w->cfg.shards > 1 ? w->cfg.shards : 1;
    w->nch = all > w->cfg.shard ? (all - w->cfg.shard + T - 1) / T : 0; /* this device's share */
    w->got = 0;
    w->sent = 0;
    w->inflight = 0;
    w->inflight_bytes = 0;
    w->active = 1;
    if (w->nch == 0) {
        finish(w);
        return 0;
    }
    fill_all(w, now);
    return 0;
}

/* A delivery-rate sample: the bytes of results that came in while the chunk was out (its own
 * included) over its round trip; kept as the max over the last one to two periods. */
static void rate_sample(ws_worker *w, const slot_t *s, uint64_t r, uint64_t now)
{
    double x = (double)(w->delivered - s->delivered) / (double)(r ? r : 1);
    if (x > w->tick_bps) /* results bunched: no more than the rate */
        x = w->tick_bps;
    if (now - w->rate_stamp >= RATE_PERIODS * w->st.srtt) {
        w->rate_prev = w->rate_cur;
        w->rate_cur = 0;
        w->rate_stamp = now;
    }
    if (x > w->rate_cur)
        w->rate_cur = x;
    w->st.rate_bps = 8 * (w->rate_cur > w->rate_prev ? w->rate_cur : w->rate_prev) *
                     (double)(w->cfg.ticks_per_s ? w->cfg.ticks_per_s : 1000000000u);
    window_update(w);
}

static void rtt_sample(ws_worker *w, uint64_t r)
{
    w->st.rtt_samples++;
    if (w->st.rtt_samples == 1) {
        w->srtt8 = 8 * r;
        w->rttvar4 = 2 * r;
    } else {
        uint64_t srtt = w->srtt8 / 8, d = srtt > r ? srtt - r : r - srtt;
        w->rttvar4 = w->rttvar4 - w->rttvar4 / 4 + d;
        w->srtt8 = w->srtt8 - w->srtt8 / 8 + r;
    }
    w->st.srtt = w->srtt8 / 8;
    /* the deviation term at least rto_min, as Linux's: a round trip that steadies behind a
     * standing queue has almost no deviation, and its timeout stays clear of the queue's
     * changes by rto_min */
    if (w->cfg.adaptive)
        w->st.rto = clamp_rto(w, w->srtt8 / 8 + (w->rttvar4 > w->cfg.rto_min ? w->rttvar4
                                                                               : w->cfg.rto_min));
    if (!w->st.min_rtt || r < w->st.min_rtt) {
        w->st.min_rtt = r ? r : 1;
        window_update(w);
    }
}

ws_rx_kind ws_worker_rx(ws_worker *w, const uint8_t *f, size_t len, uint64_t now)
{
    ws_hdr h;
    w->st.rx_bytes += len;
    if (ws_result_check(f, len, &h) != 0) {
        w->st.bad_frames++;
        return WS_RX_BAD;
    }
    if (memcmp(h.dst_mac, w->cfg.mac, 6) || h.dst_ip != w->cfg.ip ||
        h.dst_port != w->cfg.udp_port || memcmp(h.src_mac, w->cfg.dev_mac, 6) ||
        h.src_ip != w->cfg.dev_ip || h.src_port != w->cfg.dev_port || h.job != w->cfg.job ||
        h.worker != w->cfg.rank) {
        w->st.foreign_frames++;
        return WS_RX_FOREIGN;
    }
    slot_t *s = h.slot < w->cfg.slots ? &w->slot[h.slot] : NULL;
    if (!s || s->chunk == NO_CHUNK || (h.flags & WS_FLAG_SET) != s->set ||
        h.offset != s->offset || h.count != s->count || h.tensor != s->tensor) {
        w->st.stale_results++;
        return WS_RX_STALE;
    }
    if (!s->busy) {
        w->st.dup_results++;
        return WS_RX_DUPLICATE;
    }
    for (unsigned i = 0; i < h.count; i++)
        w->elems[i] = ws_elem(f, i);
    if (w->cfg.store) {
        memcpy(w->vals, w->elems, 4 * (size_t)h.count);
        w->cfg.store(w->cfg.data_ctx, h.offset, h.count, w->vals);
    } else {
        memcpy(w->out + h.offset, w->elems, 4 * (size_t)h.count);
    }
    s->busy = 0;
    w->inflight--;
    w->inflight_bytes -= s->len;
    w->st.results++;
    w->st.chunks++;
    w->delivered += s->len;
    w->last_result = now;
    if (!s->retried && s->sent_at >= w->rack_sent) {
        w->rack_sent = s->sent_at;
        w->rack_rtt = now - s->sent_at;
    }
    if (!s->retried) {
        rtt_sample(w, now - s->sent_at);
        if (w->tick_bps > 0)
            rate_sample(w, s, now - s->sent_at, now);
    }
    if (w->cfg.cc)
        cc_result(w, s->len, (h.tos & 3) == ECN_CE);
    if (++w->got == w->nch)
        finish(w);
    else if (windowed(w))
        win_fill(w, now);
    else
        fill_slot(w, h.slot, now);
    return WS_RX_RESULT;
}

/* When slot k's chunk is given up for lost. With a fixed timeout: its timer. With the
 * adaptive one (docs/driver.md, "Timeouts and backoff"), as TCP does: a chunk sent before the
 * latest-sent chunk whose result came is lost once that one's round trip and a quarter of the
 * smallest have passed since it left (RACK, RFC 8985: results come in the order the chunks
 * left, unless a contribution is missing); any other waits for its timer counted from its
 * transmission or from the last result, whichever is later (RFC 6298 5.3: while results come
 * in, what is behind them is queued, not lost). */
static uint64_t slot_deadline(const ws_worker *w, const slot_t *s)
{
    if (!w->cfg.adaptive)
        return s->deadline;
    uint64_t t;
    if (s->last_tx < w->rack_sent)
        t = s->last_tx + w->rack_rtt + w->st.min_rtt / 4;
    else
        t = (s->last_tx > w->last_result ? s->last_tx : w->last_result) + s->timer;
    return t < s->last_tx ? WS_NO_DEADLINE : t;
}

int ws_worker_poll(ws_worker *w, uint64_t now)
{
    if (w->failed)
        return -1;
    if (!w->active)
        return 0;
    for (unsigned k = 0; k < w->cfg.slots; k++) {
        slot_t *s = &w->slot[k];
        if (!s->busy || slot_deadline(w, s) > now)
            continue;
        w->st.timeouts++;
        if (w->cfg.max_retries && s->tries >= w->cfg.max_retries) {
            w->failed = 1;
            w->active = 0;
            set_err(w, "job %u rank %u: no result for tensor %u offset %u (slot %u, SET %u) after "
                    "%u retransmissions", w->cfg.job, w->cfg.rank, s->tensor, s->offset, k,
                    s->set, s->tries);
            return -1;
        }
        if (w->cfg.cc)
            cc_timeout(w);
        transmit(w, k, 1, now);
    }
    fill_all(w, now);
    return 0;
}

int ws_worker_done(const ws_worker *w) { return !w->active; }

uint64_t ws_worker_deadline(const ws_worker *w)
{
    uint64_t t = WS_NO_DEADLINE;
    if (!w->active)
        return t;
    for (unsigned k = 0; k < w->cfg.slots; k++) {
        if (w->slot[k].busy) {
            uint64_t d = slot_deadline(w, &w->slot[k]);
            if (d < t)
                t = d;
        } else if (!windowed(w) && next_chunk(w, k) != NO_CHUNK && ready_at(w, k) < t) {
            t = ready_at(w, k);
        }
    }
    unsigned k;
    uint64_t ready;
    if (windowed(w) && win_next(w, &k, &ready) && ready < t)
        t = ready;
    return t;
}

void ws_worker_progress(const ws_worker *w, uint64_t *done, uint64_t *total)
{
    *done = w->got;
    *total = w->nch;
}

uint32_t ws_worker_tensor(const ws_worker *w) { return w->tensor; }
const ws_worker_stats *ws_worker_get_stats(const ws_worker *w) { return &w->st; }
const char *ws_worker_error(const ws_worker *w) { return w->err[0] ? w->err : NULL; }

int ws_allreduce(ws_worker *w, float *buf, size_t n)
{
    if (!w->cfg.clock || !w->cfg.wait) {
        set_err(w, "ws_allreduce needs the clock and wait callbacks");
        return -1;
    }
    if (ws_worker_start(w, buf, buf, n, w->cfg.clock(w->cfg.io_ctx)))
        return -1;
    while (!ws_worker_done(w)) {
        if (ws_worker_poll(w, w->cfg.clock(w->cfg.io_ctx)))
            return -1;
        if (ws_worker_done(w))
            break;
        if (w->cfg.wait(w->cfg.io_ctx, w, ws_worker_deadline(w))) {
            set_err(w, "wait failed: all-reduce of tensor %u abandoned", w->tensor);
            w->active = 0;
            w->failed = 1;
            return -1;
        }
    }
    return 0;
}
