/* cdev.c - a wiresum device in the cluster simulation (cdev.h). */
#include "cdev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/refdev.h"
#include "wiresum/session.h"
#include "wiresum/wire.h"
#include "ws_heap.h"

size_t ws_cdev_frame(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6], uint32_t sip,
                        uint32_t dip, uint16_t sport, uint16_t dport, uint8_t tos, uint8_t ttl,
                        const uint8_t *payload, size_t plen, int udp_checksum)
{
    size_t len = WS_OFF_AGG + plen;
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    ws_put16(f + 12, WS_ETHERTYPE_IPV4);
    uint8_t *ip = f + WS_OFF_IP, *udp = f + WS_OFF_UDP;
    memset(ip, 0, WS_IPV4_LEN + WS_UDP_LEN);
    ip[0] = 0x45;
    ip[1] = tos;
    ws_put16(ip + 2, (uint16_t)(len - WS_ETH_LEN));
    ws_put16(ip + 6, WS_RESULT_FRAG); /* DF: atomic datagrams, id 0 (RFC 6864) */
    ip[8] = ttl;
    ip[9] = WS_IPPROTO_UDP;
    ws_put32(ip + 12, sip);
    ws_put32(ip + 16, dip);
    ws_put16(udp, sport);
    ws_put16(udp + 2, dport);
    ws_put16(udp + 4, (uint16_t)(len - WS_OFF_UDP));
    memcpy(f + WS_OFF_AGG, payload, plen);
    if (udp_checksum)
        ws_fix_checksums(f, len);
    else
        ws_put16(ip + 10, ws_ipv4_checksum(ip, WS_IPV4_LEN));
    return len;
}

/* a frame in the ingress buffer: its length and, in the timing model, the end of its service
 * by its engine (the frame itself went through the reference when it arrived; the RTL's
 * session holds a copy of its frames) */
typedef struct {
    uint32_t len;
    uint64_t done;
} qframe;

/* the frames of one engine in the buffer, in the order it serves them (so their ends of
 * service are in order): a ring */
typedef struct {
    qframe *q;
    size_t head, n, cap;
} fifo;

/* a frame that reached a device of several ports, not yet judged: its port stores it whole by
 * `ready`, when the reference takes it, in the order the RTL's judge takes frames from every
 * port (docs/architecture.md section 9: the order of their ports' frame_ready; arrival order
 * on a tie); a heap by (ready, seq) */
typedef struct {
    uint64_t ready, seq;
    uint8_t *f;
    uint32_t len;
    unsigned port;
} pend;

struct ws_cdev {
    ws_cluster_dev p;
    ws_refdev *ref; /* the timing model's device; NULL for the RTL */
    ws_config cfg;
    fifo eq[WS_LIMIT_PORTS]; /* by engine (the RTL: by port, the frames in front of it) */
    uint64_t queued;  /* bytes in the buffer, the frames in service included */
    uint64_t latency_ps;
    double cycle_ps;
    /* the timing model's stages (docs/architecture.md section 9), when each is next free: each
     * port's receive stage, each engine, each engine's result generator, each port's egress */
    uint64_t port_free[WS_LIMIT_PORTS], engine_free[WS_LIMIT_PORTS];
    uint64_t gen_free[WS_LIMIT_PORTS], egress_free[WS_LIMIT_PORTS];
    unsigned group; /* ports an engine serves */
    pend *pq;       /* several ports: the frames not yet judged, a heap */
    size_t pn, pcap;
    uint64_t seq;
    uint64_t emit_at; /* the first beat of the frames of the frame the reference takes */
    ws_cdev_stats st;
    ws_cdev_emit_fn emit;
    void *emit_ctx;
    /* the RTL (model = rtl): the session, the frames pushed and not yet wholly taken (in
     * eq[port]), the next cycle a service call is scheduled for (or none) */
    ws_session *s;
    int wake;
    uint64_t wake_cycle;
    uint8_t *frame; /* a frame being rebuilt (WS_LIMIT_FRAME bytes) */
    ws_counters ctr;
};

static ws_cdev *rtl_new(ws_cdev *d, char *err, size_t errlen);

uint64_t ws_cdev_service_ps(const ws_cluster_dev *p, size_t len)
{
    unsigned bytes = p->data_width / 8;
    double beats = (double)((len + bytes - 1) / bytes);
    return (uint64_t)llround(beats / p->beats_per_cycle / p->f_clk * 1e12);
}

static uint64_t busiest(const uint64_t *ps, unsigned n)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < n; i++)
        m = ps[i] > m ? ps[i] : m;
    return m;
}

uint64_t ws_cdev_port_busy(const ws_cdev_stats *s) { return busiest(s->port_busy_ps, s->ports); }
uint64_t ws_cdev_engine_busy(const ws_cdev_stats *s)
{
    return busiest(s->engine_busy_ps, s->engines);
}
uint64_t ws_cdev_egress_busy(const ws_cdev_stats *s)
{
    return busiest(s->egress_busy_ps, s->ports);
}

ws_cdev *ws_cdev_new(const ws_cluster_dev *p, const ws_config *cfg, char *err, size_t errlen)
{
    ws_cdev *d = calloc(1, sizeof *d);
    if (!d)
        return snprintf(err, errlen, "out of memory"), NULL;
    d->p = *p;
    d->cfg = *cfg;
    d->st.ports = p->ports;
    d->st.engines = p->engines;
    d->group = p->ports / p->engines;
    d->frame = malloc(WS_LIMIT_FRAME);
    d->cycle_ps = 1e12 / p->f_clk;
    if (p->model == WS_CLUSTER_RTL)
        return rtl_new(d, err, errlen);
    d->ref = ws_refdev_new(cfg, err, errlen);
    if (!d->ref || !d->frame) {
        if (d->ref)
            snprintf(err, errlen, "out of memory");
        ws_cdev_free(d);
        return NULL;
    }
    d->latency_ps = (uint64_t)llround(p->idle_latency / p->f_clk * 1e12);
    return d;
}

void ws_cdev_free(ws_cdev *d)
{
    if (!d)
        return;
    for (unsigned e = 0; e < WS_LIMIT_PORTS; e++)
        free(d->eq[e].q);
    for (size_t k = 0; k < d->pn; k++)
        free(d->pq[k].f);
    free(d->pq);
    ws_refdev_free(d->ref);
    ws_session_free(d->s);
    free(d->frame);
    free(d);
}

/* the member or parent at an IPv4 address (its MAC, its port): the device's neighbour table;
 * NULL for an address it does not know */
static const ws_member *neighbour(const ws_cdev *d, uint32_t ip)
{
    for (unsigned j = 0; j < d->cfg.n_jobs; j++) {
        const ws_job *jb = &d->cfg.job[j];
        for (unsigned w = 0; w < jb->workers; w++)
            if (jb->member[w].ip == ip)
                return &jb->member[w];
        if (jb->has_parent && jb->parent.ip == ip)
            return &jb->parent;
    }
    return NULL;
}

unsigned ws_cdev_port_of(const ws_cdev *d, uint32_t ip)
{
    const ws_member *m = neighbour(d, ip);
    return m ? m->port : 0;
}

static const uint8_t *mac_of(const ws_cdev *d, uint32_t ip)
{
    static const uint8_t none[6];
    const ws_member *m = neighbour(d, ip);
    return m ? m->mac : none;
}

/* picoseconds of that many cycles (of the RTL's time line: the picosecond of a cycle) */
static uint64_t cycles_ps(const ws_cdev *d, uint64_t cycles)
{
    return (uint64_t)llround((double)cycles * d->cycle_ps);
}

static uint64_t beats(const ws_cdev *d, size_t len)
{
    unsigned bytes = d->p.data_width / 8;
    return (len + bytes - 1) / bytes;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* room for one more frame in f: 0, or -1 without memory */
static int grow(fifo *f)
{
    if (f->n < f->cap)
        return 0;
    size_t cap = f->cap ? 2 * f->cap : 64;
    qframe *q = calloc(cap, sizeof *q);
    if (!q)
        return -1;
    for (size_t k = 0; k < f->n; k++)
        q[k] = f->q[(f->head + k) % f->cap];
    free(f->q);
    f->q = q;
    f->head = 0;
    f->cap = cap;
    return 0;
}

/* f's first frame leaves the buffer */
static void pop(ws_cdev *d, fifo *f)
{
    d->queued -= f->q[f->head].len;
    f->head = (f->head + 1) % f->cap;
    f->n--;
}

static void rtl_catch_up(ws_cdev *d, uint64_t now);
static uint64_t rtl_wake(ws_cdev *d);
static uint64_t rtl_service(ws_cdev *d, uint64_t now, ws_cdev_emit_fn emit, void *ctx);

/* The record words of the PARTIAL f of len bytes with header h (*owners: its elements that have
 * records, whose first word's X bit is set); 0 for another frame */
static unsigned records(const uint8_t *f, size_t len, const ws_hdr *h, unsigned *owners)
{
    *owners = 0;
    if (h->type != WS_TYPE_PARTIAL)
        return 0;
    for (unsigned j = 0; h->ext && j < h->count && WS_OFF_ELEMS + 8 * (size_t)j < len; j++)
        *owners += f[WS_OFF_ELEMS + 8 * (size_t)j] >> 7;
    return h->ext;
}

/* Cycles the PARTIAL encoder (hw/ws_partial_enc.v) spends beyond a row a cycle on the PARTIAL
 * f: 5 a record word, 3 more an element that has records */
static uint64_t encode_cycles(const uint8_t *f, size_t len)
{
    ws_hdr h;
    ws_parse(f, &h);
    unsigned owners, r = records(f, len, &h, &owners);
    return 5ull * r + 3ull * owners;
}

/* Cycles a parent's engine spends beyond a beat a cycle taking the PARTIAL f in (hw/ws_engine.v,
 * the feed): its record words go one a cycle, not a beat's words at once, each once the owner
 * search has settled, 3 cycles after the mask was last written (by the element words' cycle and
 * by each element's chain end) */
static uint64_t record_feed_cycles(const ws_cdev *d, const uint8_t *f, size_t len,
                                   const ws_hdr *h)
{
    unsigned owners, r = records(f, len, h, &owners), wpb = d->p.data_width / 64;
    return r ? r - (r + wpb - 1) / wpb + 3ull * owners + 4 : 0;
}

static void on_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    ws_cdev *d = ctx;
    unsigned port = egress < d->p.ports ? egress : 0, e = port / d->group;
    d->st.tx_frames++;
    d->st.tx_bytes += len;
    d->st.port_tx_frames[port]++;
    d->st.port_tx_bytes[port] += len;
    /* the engine's result generator sends its frames one after the other, each a beat a cycle
     * out of its port's egress: the frame leaves with its last beat; a PARTIAL once the encoder
     * has written it */
    uint64_t b = beats(d, len), out = cycles_ps(d, b);
    uint64_t ready = d->emit_at + cycles_ps(d, encode_cycles(f, len));
    uint64_t start = max64(ready, max64(d->gen_free[e], d->egress_free[port]));
    d->gen_free[e] = d->egress_free[port] = start + out;
    d->st.egress_busy_ps[port] += out;
    d->emit(d->emit_ctx, start + cycles_ps(d, b - 1), port, f, len);
}

static int before(const pend *a, const pend *b)
{
    return a->ready != b->ready ? a->ready < b->ready : a->seq < b->seq;
}

/* the frames not yet judged: pend_heap_push (0, or -1 without memory) and pend_heap_pop */
WS_HEAP_DEFINE(pend_heap, pend, before)

/* Cycles a device of several engines or one that takes PARTIALs (PARTIAL = 1) spends beyond
 * idle_latency before the first frame of the round that f completes: it sends nothing until the
 * combine has written every result row of the round (one a cycle) and its checksum, a few
 * cycles after the last. Measured from the RTL (`wiresum bench`'s idle latency against a
 * one-engine PARTIAL = 0 build's, counts 16 to 2048, docs/cluster.md section 3): the rows and 8
 * cycles, 11 with several engines at 512 bits, 12 at 1024. */
static uint64_t combine_cycles(const ws_cdev *d, const ws_hdr *h)
{
    if (!d->cfg.partial && d->p.engines == 1)
        return 0;
    unsigned bytes = d->p.data_width / 8;
    unsigned after = d->p.data_width == 1024 ? 12 : d->p.engines > 1 && bytes == 64 ? 11 : 8;
    return (4ull * h->count + bytes - 1) / bytes + after;
}

/* The frame f that port `port` stored whole at `ready`, judged: through its engine, then the
 * reference; what it sends leaves after the latency from the fence */
static void judge(ws_cdev *d, unsigned port, const uint8_t *f, size_t len, uint64_t ready)
{
    unsigned e = port / d->group;
    fifo *fq = &d->eq[e];
    if (grow(fq)) { /* counted as a drop: memory, not the buffer, ran out */
        d->st.drop_frames++;
        d->st.drop_bytes += len;
        d->queued -= len;
        return;
    }
    /* the header, for what the frame costs beyond its beats (a frame too short to hold one
     * costs nothing more: the reference drops it) */
    ws_hdr h;
    int whole = len >= WS_OFF_ELEMS;
    if (whole)
        ws_parse(f, &h);
    uint64_t service = ws_cdev_service_ps(&d->p, len) +
                       (whole ? cycles_ps(d, record_feed_cycles(d, f, len, &h)) : 0);
    d->engine_free[e] = max64(ready, d->engine_free[e]) + service;
    d->st.engine_busy_ps[e] += service;
    fq->q[(fq->head + fq->n) % fq->cap] = (qframe){(uint32_t)len, d->engine_free[e]};
    fq->n++;
    /* a round's combine waits until every engine has served the frames judged before its last
     * (the fence, docs/architecture.md section 9) */
    uint64_t fence = 0;
    for (unsigned k = 0; k < d->p.engines; k++)
        fence = max64(fence, d->engine_free[k]);
    d->st.served_frames++;
    d->emit_at = fence + d->latency_ps + (whole ? cycles_ps(d, combine_cycles(d, &h)) : 0);
    ws_refdev_rx(d->ref, port, f, len, on_emit, d);
}

uint64_t ws_cdev_arrive(ws_cdev *d, uint64_t now, unsigned port, uint32_t sip, uint16_t sport,
                        uint32_t dip, uint16_t dport, uint8_t tos, uint8_t ttl,
                        const uint8_t *payload, size_t plen, ws_cdev_emit_fn emit, void *ctx)
{
    size_t len = WS_OFF_AGG + plen;
    if (port >= d->p.ports)
        port = 0;
    d->st.rx_frames++;
    d->st.rx_bytes += len;
    d->st.port_rx_frames[port]++;
    d->st.port_rx_bytes[port] += len;
    if (d->s)
        rtl_catch_up(d, now);
    else /* the frames whose service has ended by now have left the buffer */
        for (unsigned k = 0; k < d->p.engines; k++)
            while (d->eq[k].n && d->eq[k].q[d->eq[k].head].done <= now)
                pop(d, &d->eq[k]);
    /* a frame beyond the buffer is dropped; so is one that finds no memory (counted as a
     * drop: memory, not the buffer, ran out) */
    if (len > WS_LIMIT_FRAME || d->queued + len > d->p.ingress_bytes ||
        (d->s && grow(&d->eq[port]))) {
        d->st.drop_frames++;
        d->st.drop_bytes += len;
        return WS_CLUSTER_NEVER;
    }
    /* ECN from the device's own queue, as a switch port marks (docs/cluster.md section 9): an
     * ECN-capable frame that finds ecn_bytes or more in the buffer is marked CE */
    if (d->p.ecn_bytes && d->queued >= d->p.ecn_bytes && (tos & 3) && (tos & 3) != 3) {
        tos |= 3;
        d->st.ce_marks++;
    }
    uint8_t *f = d->frame;
    ws_cdev_frame(f, d->cfg.mac, mac_of(d, sip), sip, dip, sport, dport, tos, ttl, payload,
                     plen, 0);
    if (d->s) {
        if (ws_session_push(d->s, port, f, len))
            return WS_CLUSTER_NEVER; /* the session's error, ws_cdev_error */
        fifo *fq = &d->eq[port];
        fq->q[(fq->head + fq->n) % fq->cap] = (qframe){(uint32_t)len, 0};
        fq->n++;
    }
    d->queued += len;
    if (d->queued > d->st.max_queued)
        d->st.max_queued = d->queued;
    if (d->s)
        return rtl_wake(d);
    /* through its port, a beat a cycle (store and forward), then judged */
    uint64_t in = cycles_ps(d, beats(d, len));
    uint64_t ready = d->port_free[port] = max64(now, d->port_free[port]) + in;
    d->st.port_busy_ps[port] += in;
    d->emit = emit;
    d->emit_ctx = ctx;
    if (d->p.ports == 1) { /* the judge's order is the arrival order: taken now, no event */
        judge(d, port, f, len, ready);
        return WS_CLUSTER_NEVER;
    }
    /* several ports: a frame that arrives later on a less busy port may be judged first */
    pend p = {ready, d->seq++, malloc(len), (uint32_t)len, port};
    if (p.f)
        memcpy(p.f, f, len);
    /* memory ran out: counted as a drop */
    if (!p.f || pend_heap_push(&d->pq, &d->pn, &d->pcap, p)) {
        free(p.f);
        d->st.drop_frames++;
        d->st.drop_bytes += len;
        d->queued -= len;
        return WS_CLUSTER_NEVER;
    }
    return ready;
}

uint64_t ws_cdev_service(ws_cdev *d, uint64_t now, ws_cdev_emit_fn emit, void *ctx)
{
    if (d->s)
        return rtl_service(d, now, emit, ctx);
    d->emit = emit;
    d->emit_ctx = ctx;
    while (d->pn && d->pq[0].ready <= now) {
        pend p = pend_heap_pop(d->pq, &d->pn);
        judge(d, p.port, p.f, p.len, p.ready);
        free(p.f);
    }
    return WS_CLUSTER_NEVER;
}

const ws_cdev_stats *ws_cdev_get_stats(const ws_cdev *d) { return &d->st; }

const ws_counters *ws_cdev_counters(ws_cdev *d, char *err, size_t errlen)
{
    if (!d->s)
        return ws_refdev_counters(d->ref);
    return ws_session_counters(d->s, 1, &d->ctr, err, errlen) ? NULL : &d->ctr;
}

/* ---- the RTL: the Verilator model on the simulation's time line --------------------------- */

static ws_cdev *rtl_new(ws_cdev *d, char *err, size_t errlen)
{
    const ws_cluster_dev *p = &d->p;
    ws_session_opts so = {WS_DEVICE_VERILATOR, p->data_width, 0};
    ws_dev_params dp;
    ws_job *jb = &d->cfg.job[0];
    char e[512];
    int bad = !d->frame;
    if (bad)
        snprintf(e, sizeof e, "out of memory");
    else if (!(d->s = ws_session_open(&so, e, sizeof e)) ||
             ws_session_open_driver(d->s, &dp, e, sizeof e))
        bad = 1;
    else if (dp.engines != p->engines || jb->workers > dp.workers || jb->slots > dp.pool ||
             jb->max_count > dp.count || p->ports > dp.ports ||
             (p->engines > 1 && p->ports != dp.ports) || d->cfg.partial != (dp.partial != 0)) {
        /* the same port to engine map as the RTL's (port p on engine p / (ports / engines)):
         * one engine, or every port of the model */
        snprintf(e, sizeof e, "the device takes ENGINES %u, %u ports%s, %u members, %u slots, "
                 "count %u, PARTIAL %d%s; the RTL model of this build has ENGINES %u, %u ports, "
                 "%u, %u, MAX_COUNT %u, PARTIAL %u (models of other builds: make "
                 "WS_VFLAGS='-GMAX_COUNT=... -GENGINES=... -GPARTIAL=...', docs/cluster.md "
                 "section 3)", p->engines, p->ports, p->engines > 1 ? " (each its engine's)" : "",
                 jb->workers, jb->slots, jb->max_count, d->cfg.partial,
                 d->cfg.partial || !dp.partial ? "" : " (partial = 1 in its [device] for a "
                 "build that takes PARTIAL frames)", dp.engines, dp.ports, dp.workers, dp.pool,
                 dp.count, dp.partial);
        bad = 1;
    } else {
        d->cfg.max_jobs = dp.jobs;
        d->cfg.max_workers = dp.workers;
        d->cfg.pool_slots = dp.pool;
        d->cfg.max_count = dp.count;
        d->cfg.max_frame = dp.max_frame;
        bad = ws_config_check(&d->cfg, e, sizeof e) ||
              ws_session_configure(d->s, &d->cfg, e, sizeof e);
    }
    if (bad) {
        snprintf(err, errlen, "device %s (model rtl): %s", p->name, e);
        ws_cdev_free(d);
        return NULL;
    }
    ws_session_line_start(d->s);
    return d;
}

/* the frames the model has taken wholly leave the queues in front of its ports; a port takes
 * them a beat a cycle, as its engine does */
static void rtl_sync(ws_cdev *d)
{
    for (unsigned port = 0; port < d->p.ports; port++) {
        fifo *fq = &d->eq[port];
        size_t pending = ws_session_pending(d->s, port);
        while (fq->n > pending) {
            uint64_t in = cycles_ps(d, beats(d, fq->q[fq->head].len));
            d->st.port_busy_ps[port] += in;
            d->st.engine_busy_ps[port / d->group] += in;
            pop(d, fq);
            d->st.served_frames++;
        }
    }
}

/* the model to the last cycle edge at or before now (clocked, or an idle stretch skipped) */
static void rtl_catch_up(ws_cdev *d, uint64_t now)
{
    uint64_t c = (uint64_t)floor(((double)now + 1) / d->cycle_ps);
    if (c > ws_session_line_now(d->s) && !ws_session_line_advance(d->s, c))
        rtl_sync(d);
}

/* the next cycle to clock, while the model has work and none is scheduled */
static uint64_t rtl_wake(ws_cdev *d)
{
    if (d->wake || ws_session_error(d->s) || !ws_session_line_active(d->s))
        return WS_CLUSTER_NEVER;
    d->wake = 1;
    d->wake_cycle = ws_session_line_now(d->s) + 1;
    return cycles_ps(d, d->wake_cycle);
}

static uint64_t rtl_service(ws_cdev *d, uint64_t now, ws_cdev_emit_fn emit, void *ctx)
{
    d->wake = 0;
    if (ws_session_line_advance(d->s, d->wake_cycle))
        return WS_CLUSTER_NEVER;
    rtl_sync(d);
    const uint8_t *f;
    size_t len;
    uint64_t t;
    unsigned port;
    while (ws_session_line_pop(d->s, d->p.ports, &port, &f, &len, &t) == 1) {
        uint64_t at = cycles_ps(d, t);
        d->st.tx_frames++;
        d->st.tx_bytes += len;
        d->st.port_tx_frames[port]++;
        d->st.port_tx_bytes[port] += len;
        d->st.egress_busy_ps[port] += cycles_ps(d, beats(d, len));
        emit(ctx, at > now ? at : now, port, f, len);
    }
    return rtl_wake(d);
}

const char *ws_cdev_error(const ws_cdev *d) { return d->s ? ws_session_error(d->s) : NULL; }

