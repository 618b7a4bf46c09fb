/* refdev.c - software reference of the aggregation device: slots, sets, rounds, results. */
#include "wiresum/refdev.h"

#include <stdlib.h>
#include <string.h>

#include "wiresum/validate.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"

typedef struct {
    uint8_t complete; /* 1: complete or never used; 0: accumulating or waiting */
    uint8_t waiting;  /* complete here, PARTIAL sent: waiting for the parent's RESULT */
    uint8_t ecn;      /* OR of the ECN bits of the round's contributions (the parent's RESULT's) */
    uint16_t count;
    uint64_t bitmap;
    uint64_t ce;      /* the ranks whose contribution came marked CE (docs/protocol.md section 7) */
    uint32_t offset, tensor;
    ws_xsum *acc;     /* job max_count accumulators, allocated on first use */
    uint32_t *result; /* the rounded sums of the last complete round */
} set_state;

struct ws_refdev {
    ws_config cfg;
    set_state *sets[WS_LIMIT_JOBS]; /* per job: slots x 2 sets */
    ws_counters ctr;
    uint8_t frame[WS_LIMIT_FRAME]; /* a RESULT or a PARTIAL being sent */
};

ws_refdev *ws_refdev_new(const ws_config *cfg, char *err, size_t errlen)
{
    if (ws_config_check(cfg, err, errlen) != 0)
        return NULL;
    ws_refdev *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->cfg = *cfg;
    for (unsigned j = 0; j < cfg->n_jobs; j++) {
        d->sets[j] = calloc((size_t)cfg->job[j].slots * 2, sizeof(set_state));
        if (!d->sets[j]) {
            ws_refdev_free(d);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        for (unsigned s = 0; s < cfg->job[j].slots * 2; s++)
            d->sets[j][s].complete = 1;
    }
    return d;
}

void ws_refdev_free(ws_refdev *d)
{
    if (!d)
        return;
    for (unsigned j = 0; j < d->cfg.n_jobs; j++) {
        if (!d->sets[j])
            continue;
        for (unsigned s = 0; s < d->cfg.job[j].slots * 2; s++) {
            free(d->sets[j][s].acc);
            free(d->sets[j][s].result);
        }
        free(d->sets[j]);
    }
    free(d);
}

const ws_counters *ws_refdev_counters(const ws_refdev *d) { return &d->ctr; }
const ws_config *ws_refdev_config(const ws_refdev *d) { return &d->cfg; }

/* The decision for one frame, and where it applies; no state is changed. */
typedef struct {
    ws_verdict v;
    ws_hdr h;
    const ws_job *job;
    set_state *set, *other;
} decision;

static decision decide(const ws_refdev *d, const uint8_t *f, size_t len)
{
    decision x = {.v = {WS_V_DROP, WS_OK}};
    if (len > ws_config_max_frame(&d->cfg)) {
        x.v.kind = WS_V_OVERSIZE;
        return x;
    }
    if (ws_classify(f, len, d->cfg.ip, d->cfg.udp_port) == WS_CLASS_BYPASS) {
        x.v.kind = WS_V_BYPASS;
        return x;
    }
    x.v.reason = ws_validate(f, len, &d->cfg, &x.h, &x.job);
    if (x.v.reason != WS_OK)
        return x;

    unsigned j = (unsigned)(x.job - d->cfg.job);
    unsigned s = x.h.flags & WS_FLAG_SET;
    x.set = &d->sets[j][x.h.slot * 2 + s];
    x.other = &d->sets[j][x.h.slot * 2 + (s ^ 1)];
    const set_state *st = x.set;

    if (x.h.type == WS_TYPE_RESULT) { /* the parent's: only a round waiting for it takes it */
        if (st->complete)
            x.v.reason = WS_DROP_DUPLICATE;
        else if (!st->waiting || x.h.offset != st->offset || x.h.tensor != st->tensor ||
                 x.h.count != st->count)
            x.v.reason = WS_DROP_MISMATCH;
        else
            x.v.kind = WS_V_FANOUT;
        return x;
    }
    uint64_t bit = 1ull << x.h.worker;
    /* a waiting set holds every member's contribution: a member whose bit has left it (gone on
     * to the other set outside its window) sends a duplicate too (docs/protocol.md section 9) */
    if ((st->bitmap & bit) || st->waiting) {
        x.v.reason = WS_DROP_DUPLICATE;
        /* a complete round sends its RESULT again to the member; a waiting one its PARTIAL
         * again, for the duplicate of rank 0 only: once a wave of retransmissions, not once a
         * member (docs/protocol.md section 9) */
        if (st->complete || (st->waiting && x.h.worker == 0))
            x.v.kind = WS_V_RESEND;
        return x;
    }
    if (st->complete && st->bitmap != 0) {
        x.v.reason = WS_DROP_EARLY;
        return x;
    }
    if (!st->complete &&
        (x.h.offset != st->offset || x.h.tensor != st->tensor || x.h.count != st->count)) {
        x.v.reason = WS_DROP_MISMATCH;
        return x;
    }
    uint64_t all = x.job->workers == 64 ? ~0ull : (1ull << x.job->workers) - 1;
    uint64_t after = (st->complete ? 0 : st->bitmap) | bit;
    x.v.kind = after == all ? WS_V_COMPLETE : WS_V_ACCEPT;
    return x;
}

ws_verdict ws_refdev_judge(const ws_refdev *d, unsigned port, const uint8_t *f, size_t len)
{
    if (port >= d->cfg.n_ports) /* as ws_refdev_rx: nothing enters */
        return (ws_verdict){WS_V_DROP, WS_OK};
    return decide(d, f, len).v;
}

static void emit_frame(ws_refdev *d, unsigned egress, const uint8_t *f, size_t len,
                       ws_emit_fn emit, void *ctx)
{
    d->ctr.tx_frames[egress]++;
    d->ctr.tx_bytes[egress] += len;
    if (emit)
        emit(ctx, egress, f, len);
}

/* The ECN bits of what the device sends about round st (docs/protocol.md section 7): to member
 * `rank`, CE if its own contribution came marked (its path was congested), else the round's OR
 * of ECN bits with CE taken as ECT(0); to the parent (rank -1) the same as to an unmarked
 * member: one marked path is that worker's congestion, not everyone's. */
static uint8_t out_ecn(const set_state *st, int rank)
{
    if (rank >= 0 && (st->ce >> rank & 1))
        return 3;
    return st->ecn == 3 ? 2 : st->ecn;
}

/* The header of a frame the device sends about set st of the round rq named: to `to` (a member,
 * or the parent), as job `job` and rank `rank` there, with the ECN bits ecn. */
static void out_hdr(const ws_refdev *d, const ws_member *to, const ws_hdr *rq, const set_state *st,
                    unsigned job, unsigned rank, int retx, uint8_t ecn, ws_hdr *h)
{
    ws_hdr_init(h);
    memcpy(h->dst_mac, to->mac, 6);
    memcpy(h->src_mac, d->cfg.mac, 6);
    h->tos = ecn;
    h->src_ip = d->cfg.ip;
    h->dst_ip = to->ip;
    h->src_port = d->cfg.udp_port;
    h->dst_port = to->udp_port;
    h->flags = (uint8_t)((rq->flags & WS_FLAG_SET) | (retx ? WS_FLAG_RETX : 0));
    h->job = (uint16_t)job;
    h->worker = (uint16_t)rank;
    h->slot = rq->slot;
    h->count = st->count;
    h->offset = st->offset;
    h->tensor = st->tensor;
}

/* The RESULT of set st of (job, slot, set) for one member rank. */
static void send_result(ws_refdev *d, const ws_job *job, const ws_hdr *rq, const set_state *st,
                        unsigned rank, int retx, ws_emit_fn emit, void *ctx)
{
    const ws_member *m = &job->member[rank];
    ws_hdr h;
    out_hdr(d, m, rq, st, job->id, rank, retx, out_ecn(st, (int)rank), &h);
    h.type = WS_TYPE_RESULT;
    size_t len = ws_build(d->frame, &h, st->result);
    emit_frame(d, m->port, d->frame, len, emit, ctx);
}

/* The RESULTs of set st to every member in rank order: the elements and their sum once. */
static void send_results(ws_refdev *d, const ws_job *job, const ws_hdr *rq, const set_state *st,
                         ws_emit_fn emit, void *ctx)
{
    uint64_t sum = ws_build_elems(d->frame, st->count, st->result);
    for (unsigned r = 0; r < job->workers; r++) {
        const ws_member *m = &job->member[r];
        ws_hdr h;
        out_hdr(d, m, rq, st, job->id, r, 0, out_ecn(st, (int)r), &h);
        h.type = WS_TYPE_RESULT;
        emit_frame(d, m->port, d->frame, ws_build_headers(d->frame, &h, sum), emit, ctx);
    }
    d->ctr.results += job->workers;
}

/* The PARTIAL of set st to the job's parent (retx: re-sent for a duplicate). */
static void send_partial(ws_refdev *d, const ws_job *job, const ws_hdr *rq, const set_state *st,
                         int retx, ws_emit_fn emit, void *ctx)
{
    ws_hdr h;
    out_hdr(d, &job->parent, rq, st, job->parent_job, job->parent_rank, retx, out_ecn(st, -1),
            &h);
    size_t len = ws_build_partial(d->frame, &h, st->acc);
    if (len == 0)
        abort(); /* a sum of more than 2^31 binary32 values: impossible with 64 members of 2^24 */
    emit_frame(d, job->parent.port, d->frame, len, emit, ctx);
}

/* The parent's RESULT f of a round waiting for it: its sums are the round's result, sent to every
 * member in rank order with the parent's ECN bits: CE to every member if it came marked (this
 * device's path up or down was congested), and to each member whose own contribution was. Each element is taken as the one contribution
 * of an exact sum and rounded, as the device's lanes take it: the same value, but that a NaN
 * becomes the quiet NaN every sum gives (docs/protocol.md section 9). */
static void fanout(ws_refdev *d, const ws_job *job, const ws_hdr *rq, set_state *st,
                   const uint8_t *f, ws_emit_fn emit, void *ctx)
{
    for (unsigned i = 0; i < st->count; i++) {
        ws_xsum x;
        ws_xsum_init(&x);
        ws_xsum_add(&x, ws_elem(f, i));
        st->result[i] = ws_xsum_round(&x);
    }
    st->ecn = rq->tos & 3;
    if (st->ecn == 3)
        st->ce = ~0ull;
    st->waiting = 0;
    st->complete = 1;
    send_results(d, job, rq, st, emit, ctx);
}

ws_verdict ws_refdev_rx(ws_refdev *d, unsigned port, const uint8_t *f, size_t len, ws_emit_fn emit,
                        void *ctx)
{
    if (port >= d->cfg.n_ports) /* not a port of this device: nothing enters */
        return (ws_verdict){WS_V_DROP, WS_OK};
    d->ctr.rx_frames[port]++;
    d->ctr.rx_bytes[port] += len < WS_RX_BYTES_MAX ? len : WS_RX_BYTES_MAX;

    decision x = decide(d, f, len);
    switch (x.v.kind) {
    case WS_V_BYPASS:
        d->ctr.bypass++;
        emit_frame(d, d->cfg.bypass[port], f, len, emit, ctx);
        return x.v;
    case WS_V_DROP:
        d->ctr.drop[x.v.reason]++;
        return x.v;
    case WS_V_OVERSIZE:
        d->ctr.oversize++;
        return x.v;
    case WS_V_RESEND:
        d->ctr.drop[x.v.reason]++;
        d->ctr.resends++;
        if (x.set->waiting)
            send_partial(d, x.job, &x.h, x.set, 1, emit, ctx);
        else
            send_result(d, x.job, &x.h, x.set, x.h.worker, 1, emit, ctx);
        return x.v;
    case WS_V_FANOUT:
        d->ctr.accepted++;
        fanout(d, x.job, &x.h, x.set, f, emit, ctx);
        return x.v;
    case WS_V_ACCEPT:
    case WS_V_COMPLETE:
        break;
    }

    set_state *st = x.set;
    if (st->complete) { /* a new round starts with this packet */
        if (!st->acc) {
            st->acc = malloc(sizeof(ws_xsum) * x.job->max_count);
            st->result = malloc(sizeof(uint32_t) * x.job->max_count);
            if (!st->acc || !st->result)
                abort(); /* a few hundred kB at most: treat as fatal */
        }
        for (unsigned i = 0; i < x.h.count; i++)
            ws_xsum_init(&st->acc[i]);
        st->complete = 0;
        st->waiting = 0;
        st->bitmap = 0;
        st->ecn = 0;
        st->ce = 0;
        st->offset = x.h.offset;
        st->tensor = x.h.tensor;
        st->count = x.h.count;
    }
    uint64_t bit = 1ull << x.h.worker;
    x.other->bitmap &= ~bit;
    st->bitmap |= bit;
    st->ecn |= x.h.tos & 3;
    if ((x.h.tos & 3) == 3)
        st->ce |= bit;
    if (x.h.type == WS_TYPE_PARTIAL)
        ws_partial_add(f, &x.h, st->acc);
    else
        for (unsigned i = 0; i < x.h.count; i++)
            ws_xsum_add(&st->acc[i], ws_elem(f, i));
    d->ctr.accepted++;

    if (x.v.kind != WS_V_COMPLETE)
        return x.v;
    if (x.job->has_parent) { /* the exact sums go up; the result comes back down */
        st->waiting = 1;
        send_partial(d, x.job, &x.h, st, 0, emit, ctx);
        d->ctr.results++;
        return x.v;
    }
    for (unsigned i = 0; i < st->count; i++)
        st->result[i] = ws_xsum_round(&st->acc[i]);
    st->complete = 1;
    send_results(d, x.job, &x.h, st, emit, ctx);
    return x.v;
}

int ws_refdev_set_state(const ws_refdev *d, uint16_t job, unsigned slot, unsigned set,
                        ws_set_state *out)
{
    const ws_job *jb = ws_config_find_job(&d->cfg, job);
    if (!jb || slot >= jb->slots || set > 1)
        return -1;
    const set_state *st = &d->sets[jb - d->cfg.job][slot * 2 + set];
    out->complete = st->complete;
    out->waiting = st->waiting;
    out->bitmap = st->bitmap;
    out->offset = st->offset;
    out->tensor = st->tensor;
    out->count = st->count;
    return 0;
}
