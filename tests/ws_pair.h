/* ws_pair.h - the software reference and the RTL model side by side, for tests and the fuzzer.
 *
 * Owns: one ws_refdev and one model (a device session, wiresum/session.h) configured from the
 * same ws_config (the model through its registers, by driver/dev.c), every frame given to both
 * (to the model in the session's global order), and the checks that hold whatever the frames
 * are. The reference is the device the model is: its max_frame is the model's MAX_FRAME and it
 * takes PARTIALs when the model does (PARAM_MAX_FRAME, PARAM_PARTIAL, read at wsp_open). The
 * checks:
 *   - per frame, on the reference: ws_refdev_judge() predicts ws_refdev_rx(); the frames it
 *     emits have the shape of the verdict (the bypassed frame unchanged on the bypass egress,
 *     one RESULT per member on completion, one RETX RESULT to the sender on a re-send, nothing
 *     else); a dropped frame changes no (job, slot, set) state; every RESULT carries the exact
 *     sum of the contributions this file saw accepted into the round (its own ledger, kept with
 *     driver/xsum.c but independent of the reference's bookkeeping);
 *   - per drain, on the model: it takes every frame and sends what the reference sent, per
 *     egress port, bit for bit (RESULTs in order, bypass frames in order; the two streams may
 *     interleave differently), nothing more, within a cycle budget (no hang), with no
 *     AXI4-Stream error;
 *   - the counters: the reference's equal this file's tally of the verdicts; the model's equal
 *     the reference's (rx adds the oversize frames, which only the model sees); on the model,
 *     sum of rx_frames = accepted + bypass + drops + oversize.
 * A failed check records the first message in p->err and makes the call return -1.
 * The reference is used here as an oracle whose state is inspected (ws_refdev_judge,
 * ws_refdev_set_state), so it is the ws_refdev itself, not a session. A harness that checks the
 * reference its own way (tests/fuzz/fuzz_tree.h: devices with parents, PARTIALs) sets p->ref_rx:
 * wsp_push then gives it the frame instead of the checks above, and keeps the rest (the tally,
 * the model, its frames and counters against the reference's).
 * Header only (static inline), so that a cmocka test and the fuzz target share it; link with
 * libwssim.a (the session, the reference, the models' C side) and the Verilated archives.
 */
#ifndef WS_PAIR_H
#define WS_PAIR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"
#include "wiresum/refdev.h"
#include "wiresum/wire.h"
#include "wiresum/dev.h"
#include "wiresum/regmap.h"
#include "wiresum/session.h"
#include "wiresum/xsum.h"

#define WSP_EXTRA_CYCLES 400     /* cycles run after the last expected frame, to see extras */
#define WSP_BUDGET_BASE 200000u  /* drain budget: base cycles ... */
#define WSP_BUDGET_PER_BEAT 64u  /* ... plus this per ingress beat (results included, generous) */
#define WSP_ERRLEN 1024

typedef struct {
    uint8_t *data;
    size_t len;
    unsigned port; /* ingress port, for the pushed list */
} wsp_frame;

typedef struct {
    wsp_frame *f;
    size_t n, cap;
} wsp_list;

/* The ledger of one (job, slot, set): what this file saw accepted into its open round. */
typedef struct {
    int open;
    unsigned count;
    ws_xsum *acc;     /* max_count entries, allocated on first use */
    uint32_t *result; /* the last complete round's sums */
    int have_result;
    unsigned result_count;
} wsp_ledger;

typedef struct ws_pair ws_pair;

/* The reference's side of one frame when the caller checks it its own way: ws_refdev_rx on
 * p->ref, what it sent left in p->cap (wsp_capture, in the order sent), the verdict in *v.
 * 0, or -1 with p->err (wsp_fail). */
typedef int (*wsp_ref_fn)(void *ctx, ws_pair *p, unsigned port, const uint8_t *f, size_t len,
                          ws_verdict *v);

struct ws_pair {
    ws_config cfg;   /* as given, with the model's max_frame and partial (wsp_open) */
    ws_refdev *ref;
    ws_session *dev; /* the model */
    ws_dev_params params; /* the model's build parameters */
    unsigned ports, width;
    wsp_ref_fn ref_rx; /* NULL: wsp_ref_rx; set after wsp_open */
    void *ref_ctx;
    wsp_list exp_res[WS_SIM_MAX_PORTS]; /* what the reference sent, per egress port: RESULTs */
    wsp_list exp_byp[WS_SIM_MAX_PORTS]; /* ... and bypass frames */
    wsp_list act[WS_SIM_MAX_PORTS];     /* what the model sent */
    wsp_list cap;                       /* emitted by the reference during one rx */
    unsigned cap_port[512];
    wsp_ledger *ledger[WS_LIMIT_JOBS]; /* per job: slots x 2 */
    ws_counters tally;                 /* from the verdicts */
    uint64_t ovs_frames[WS_SIM_MAX_PORTS], ovs_bytes[WS_SIM_MAX_PORTS], ovs_total;
    uint64_t beats_in;  /* ingress beats pushed since the last drain, for the budget */
    unsigned prev_port;
    uint64_t frames;    /* frames pushed */
    uint64_t completes; /* rounds completed (reference verdicts) */
    uint64_t verdicts[WS_N_VERDICTS];
    int failed;
    char err[WSP_ERRLEN];
};

static inline int wsp_fail(ws_pair *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int wsp_fail(ws_pair *p, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, sizeof p->err, fmt, ap);
        va_end(ap);
        p->failed = 1;
    }
    return -1;
}

/* ---- frame lists ------------------------------------------------------------------------- */

static inline int wsp_list_add(wsp_list *l, const uint8_t *d, size_t len, unsigned port)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        wsp_frame *nf = realloc(l->f, cap * sizeof *nf);
        if (!nf)
            return -1;
        l->f = nf;
        l->cap = cap;
    }
    uint8_t *c = malloc(len ? len : 1);
    if (!c)
        return -1;
    memcpy(c, d, len);
    l->f[l->n++] = (wsp_frame){c, len, port};
    return 0;
}

static inline void wsp_list_clear(wsp_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->f[i].data);
    l->n = 0;
}

static inline void wsp_list_free(wsp_list *l)
{
    wsp_list_clear(l);
    free(l->f);
    memset(l, 0, sizeof *l);
}

static inline int wsp_same(const wsp_frame *a, const wsp_frame *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

static inline void wsp_describe(const ws_pair *p, const wsp_frame *f, char *buf, size_t n)
{
    if (ws_is_result(f->data, f->len, p->cfg.ip, p->cfg.udp_port)) {
        ws_hdr h;
        ws_parse(f->data, &h);
        snprintf(buf, n, "RESULT job %u rank %u slot %u set %u offset %u tensor 0x%x count %u%s",
                 h.job, h.worker, h.slot, h.flags & WS_FLAG_SET, h.offset, h.tensor, h.count,
                 h.flags & WS_FLAG_RETX ? " RETX" : "");
    } else {
        snprintf(buf, n, "frame of %zu bytes", f->len);
    }
}

/* ---- the ledger -------------------------------------------------------------------------- */

static inline wsp_ledger *wsp_ledger_of(ws_pair *p, const ws_hdr *h)
{
    for (unsigned j = 0; j < p->cfg.n_jobs; j++) {
        const ws_job *jb = &p->cfg.job[j];
        if (jb->id != h->job)
            continue;
        if (h->slot >= jb->slots)
            return NULL;
        if (!p->ledger[j]) {
            p->ledger[j] = calloc((size_t)jb->slots * 2, sizeof(wsp_ledger));
            if (!p->ledger[j])
                return NULL;
        }
        wsp_ledger *l = &p->ledger[j][h->slot * 2 + (h->flags & WS_FLAG_SET)];
        if (!l->acc) {
            l->acc = malloc(sizeof(ws_xsum) * jb->max_count);
            l->result = malloc(sizeof(uint32_t) * jb->max_count);
            if (!l->acc || !l->result)
                return NULL;
        }
        return l;
    }
    return NULL;
}

/* Every (job, slot, set) state of the reference, in a fixed order; returns how many. */
static inline size_t wsp_snapshot(const ws_pair *p, ws_set_state *out, size_t max)
{
    size_t n = 0;
    for (unsigned j = 0; j < p->cfg.n_jobs; j++)
        for (unsigned s = 0; s < p->cfg.job[j].slots; s++)
            for (unsigned t = 0; t < 2 && n < max; t++) {
                memset(&out[n], 0, sizeof out[n]);
                ws_refdev_set_state(p->ref, p->cfg.job[j].id, s, t, &out[n]);
                n++;
            }
    return n;
}

/* ---- set up ------------------------------------------------------------------------------ */

/* The build parameters of a model's session (its PARAM_* registers). 0, or -1 and err. */
static inline int wsp_params(ws_session *dev, ws_dev_params *params, char *err, size_t errlen)
{
    ws_regbus bus = ws_session_bus(dev);
    return ws_dev_read_params(&bus, params, err, errlen);
}

/* Reset dev (a model's session), configure it and a new reference from cfg, stress st (NULL:
 * none). The reference is the device the model is: cfg's max_frame, when not given, is the
 * model's MAX_FRAME (a cfg that gives another is refused by the driver), and it takes PARTIALs
 * if the model does (the checks of RESULT and PARTIAL frames differ). The pair does not own
 * dev. 0, or -1 with p->err. */
static inline int wsp_open(ws_pair *p, ws_session *dev, const ws_config *cfg,
                           const ws_sim_stress *st)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->dev = dev;
    p->ports = ws_session_ports(dev);
    p->width = ws_session_width(dev);
    ws_sim *sim = ws_session_sim(dev);
    if (!sim)
        return wsp_fail(p, "the pair's device must be a model, not the reference");
    ws_session_reset(dev);
    ws_sim_set_stress(sim, NULL);
    char err[512];
    if (wsp_params(dev, &p->params, err, sizeof err))
        return wsp_fail(p, "the model's parameters: %s", err);
    if (!p->cfg.max_frame)
        p->cfg.max_frame = p->params.max_frame;
    if (p->params.partial)
        p->cfg.partial = true;
    if (ws_session_configure(dev, &p->cfg, err, sizeof err))
        return wsp_fail(p, "configure the model: %s", err);
    p->ref = ws_refdev_new(&p->cfg, err, sizeof err);
    if (!p->ref)
        return wsp_fail(p, "configure the reference: %s", err);
    ws_sim_set_stress(sim, st);
    return 0;
}

static inline void wsp_close(ws_pair *p)
{
    for (unsigned q = 0; q < WS_SIM_MAX_PORTS; q++) {
        wsp_list_free(&p->exp_res[q]);
        wsp_list_free(&p->exp_byp[q]);
        wsp_list_free(&p->act[q]);
    }
    wsp_list_free(&p->cap);
    for (unsigned j = 0; j < WS_LIMIT_JOBS; j++) {
        if (!p->ledger[j])
            continue;
        for (unsigned k = 0; k < p->cfg.job[j].slots * 2; k++) {
            free(p->ledger[j][k].acc);
            free(p->ledger[j][k].result);
        }
        free(p->ledger[j]);
        p->ledger[j] = NULL;
    }
    ws_refdev_free(p->ref);
    p->ref = NULL;
}

/* ---- the model side ---------------------------------------------------------------------- */

static inline int wsp_collect(ws_pair *p)
{
    for (unsigned q = 0; q < p->ports; q++) {
        const uint8_t *d;
        size_t len;
        while (ws_session_pop(p->dev, q, &d, &len, NULL) == 1)
            if (wsp_list_add(&p->act[q], d, len, q))
                return wsp_fail(p, "out of memory");
    }
    if (ws_session_error(p->dev))
        return wsp_fail(p, "model: %s", ws_session_error(p->dev));
    return 0;
}

/* Offer a frame to the model as `wiresum sim` does: in the session's global order. */
static inline int wsp_sim_push(ws_pair *p, unsigned port, const uint8_t *f, size_t len)
{
    uint64_t start = ws_session_cycle(p->dev);
    uint64_t budget = WSP_BUDGET_BASE + WSP_BUDGET_PER_BEAT * (p->beats_in + len / 32 + 1);
    while (!ws_session_ready(p->dev, port)) {
        ws_session_run(p->dev, 1);
        if (wsp_collect(p))
            return -1;
        if (ws_session_cycle(p->dev) - start > budget)
            return wsp_fail(p, "hang: the model took no frame on port %u for %llu cycles "
                            "(frame %llu)", p->prev_port, (unsigned long long)budget,
                            (unsigned long long)p->frames + 1);
    }
    if (ws_session_push(p->dev, port, f, len))
        return wsp_fail(p, "ws_session_push(port %u, %zu bytes) refused", port, len);
    p->prev_port = port;
    p->beats_in += (len + p->width / 8 - 1) / (p->width / 8);
    return 0;
}

/* ---- the reference side ------------------------------------------------------------------ */

static inline void wsp_capture(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    ws_pair *p = ctx;
    if (p->cap.n < sizeof p->cap_port / sizeof p->cap_port[0])
        p->cap_port[p->cap.n] = egress;
    if (wsp_list_add(&p->cap, f, len, egress))
        wsp_fail(p, "out of memory");
}

/* The RESULT the reference sent for h's round to `rank`, checked against the ledger. */
static inline int wsp_check_result(ws_pair *p, const wsp_frame *f, unsigned egress,
                                   const ws_job *jb, const ws_hdr *rq, unsigned rank, int retx,
                                   const uint32_t *sums, unsigned count)
{
    ws_hdr h;
    if (f->len != ws_frame_len(count) ||
        !ws_is_result(f->data, f->len, p->cfg.ip, p->cfg.udp_port))
        return wsp_fail(p, "frame %llu: reference sent a frame of %zu bytes, not the RESULT of "
                        "%u elements", (unsigned long long)p->frames, f->len, count);
    ws_parse(f->data, &h);
    if (egress != jb->member[rank].port || h.job != jb->id || h.worker != rank ||
        h.slot != rq->slot || (h.flags & WS_FLAG_SET) != (rq->flags & WS_FLAG_SET) ||
        !!(h.flags & WS_FLAG_RETX) != !!retx || h.dst_ip != jb->member[rank].ip ||
        h.dst_port != jb->member[rank].udp_port || memcmp(h.dst_mac, jb->member[rank].mac, 6))
        return wsp_fail(p, "frame %llu: RESULT for job %u rank %u on port %u has the wrong "
                        "header (rank %u, slot %u, flags 0x%x)", (unsigned long long)p->frames,
                        jb->id, rank, egress, h.worker, h.slot, h.flags);
    for (unsigned i = 0; i < count; i++)
        if (ws_elem(f->data, i) != sums[i])
            return wsp_fail(p, "frame %llu: RESULT job %u slot %u set %u element %u is "
                            "0x%08x, the exact sum of the accepted contributions is 0x%08x",
                            (unsigned long long)p->frames, jb->id, rq->slot,
                            rq->flags & WS_FLAG_SET, i, ws_elem(f->data, i), sums[i]);
    return 0;
}

static inline int wsp_ref_rx(ws_pair *p, unsigned port, const uint8_t *f, size_t len,
                             ws_verdict *out)
{
    ws_set_state before[256], after[256]; /* pool slots x 2 at most (64 x 2) */
    ws_verdict judged = ws_refdev_judge(p->ref, port, f, len);
    size_t nb = wsp_snapshot(p, before, sizeof before / sizeof before[0]);
    ws_hdr h;
    memset(&h, 0, sizeof h);
    if (len >= WS_OFF_ELEMS)
        ws_parse(f, &h);
    const ws_job *jb = ws_config_find_job(&p->cfg, h.job);
    wsp_ledger *lg = NULL;
    ws_set_state st_before;
    memset(&st_before, 0, sizeof st_before);
    if (judged.kind == WS_V_ACCEPT || judged.kind == WS_V_COMPLETE ||
        judged.kind == WS_V_RESEND) {
        lg = jb ? wsp_ledger_of(p, &h) : NULL;
        if (!lg)
            return wsp_fail(p, "frame %llu: verdict %d for a frame whose job %u / slot %u is "
                            "not configured", (unsigned long long)p->frames, judged.kind, h.job,
                            h.slot);
        ws_refdev_set_state(p->ref, h.job, h.slot, h.flags & WS_FLAG_SET, &st_before);
    }

    wsp_list_clear(&p->cap);
    ws_verdict v = ws_refdev_rx(p->ref, port, f, len, wsp_capture, p);
    if (p->failed)
        return -1;
    if (v.kind != judged.kind || v.reason != judged.reason)
        return wsp_fail(p, "frame %llu: ws_refdev_judge said %d/%s, ws_refdev_rx did %d/%s",
                        (unsigned long long)p->frames, judged.kind, ws_reason_name(judged.reason),
                        v.kind, ws_reason_name(v.reason));
    *out = v;
    if (getenv("WSP_TRACE")) {
        fprintf(stderr, "frame %llu: port %u, %zu bytes", (unsigned long long)p->frames, port, len);
        if (len >= WS_OFF_ELEMS)
            fprintf(stderr, ", job %u rank %u slot %u flags 0x%x offset %u count %u", h.job,
                    h.worker, h.slot, h.flags, h.offset, h.count);
        fprintf(stderr, ": verdict %d %s, %zu sent\n", v.kind, ws_reason_name(v.reason), p->cap.n);
    }

    size_t ncap = p->cap.n;
    switch (v.kind) {
    case WS_V_BYPASS:
        if (ncap != 1 || p->cap_port[0] != p->cfg.bypass[port] || p->cap.f[0].len != len ||
            memcmp(p->cap.f[0].data, f, len))
            return wsp_fail(p, "frame %llu: bypass frame not sent unchanged on port %u",
                            (unsigned long long)p->frames, p->cfg.bypass[port]);
        break;
    case WS_V_OVERSIZE:
        if (ncap != 0)
            return wsp_fail(p, "frame %llu: oversize but %zu frames sent",
                            (unsigned long long)p->frames, ncap);
        break;
    case WS_V_DROP:
        if (v.reason == WS_OK)
            return wsp_fail(p, "frame %llu: dropped without a reason", (unsigned long long)p->frames);
        if (ncap != 0)
            return wsp_fail(p, "frame %llu: dropped (%s) but %zu frames sent",
                            (unsigned long long)p->frames, ws_reason_name(v.reason), ncap);
        if (wsp_snapshot(p, after, sizeof after / sizeof after[0]) != nb ||
            memcmp(before, after, nb * sizeof before[0]))
            return wsp_fail(p, "frame %llu: dropped (%s) but the slot state changed",
                            (unsigned long long)p->frames, ws_reason_name(v.reason));
        break;
    case WS_V_RESEND:
        if (v.reason != WS_DROP_DUPLICATE || ncap != 1 || !lg->have_result ||
            !st_before.complete)
            return wsp_fail(p, "frame %llu: re-send with reason %s, %zu frames, %s",
                            (unsigned long long)p->frames, ws_reason_name(v.reason), ncap,
                            lg->have_result ? "round complete" : "no complete round seen");
        if (wsp_check_result(p, &p->cap.f[0], p->cap_port[0], jb, &h, h.worker, 1, lg->result,
                             lg->result_count))
            return -1;
        if (wsp_snapshot(p, after, sizeof after / sizeof after[0]) != nb ||
            memcmp(before, after, nb * sizeof before[0]))
            return wsp_fail(p, "frame %llu: a duplicate changed the slot state",
                            (unsigned long long)p->frames);
        break;
    case WS_V_FANOUT: /* the pair's configurations have no parent */
        return wsp_fail(p, "frame %llu: taken as a parent's RESULT, but no job has a parent",
                        (unsigned long long)p->frames);
    case WS_V_ACCEPT:
    case WS_V_COMPLETE:
        if (st_before.complete) { /* a new round */
            lg->open = 1;
            lg->count = h.count;
            for (unsigned i = 0; i < h.count; i++)
                ws_xsum_init(&lg->acc[i]);
        } else if (!lg->open || lg->count != h.count) {
            return wsp_fail(p, "frame %llu: accepted into an open round the ledger does not "
                            "know", (unsigned long long)p->frames);
        }
        if (h.type == WS_TYPE_PARTIAL) /* from a member, on a device that takes PARTIALs */
            ws_partial_add(f, &h, lg->acc);
        else
            for (unsigned i = 0; i < h.count; i++)
                ws_xsum_add(&lg->acc[i], ws_elem(f, i));
        if (v.kind == WS_V_ACCEPT) {
            if (ncap != 0)
                return wsp_fail(p, "frame %llu: accepted but %zu frames sent",
                                (unsigned long long)p->frames, ncap);
            break;
        }
        lg->open = 0;
        for (unsigned i = 0; i < lg->count; i++)
            lg->result[i] = ws_xsum_round(&lg->acc[i]);
        lg->have_result = 1;
        lg->result_count = lg->count;
        if (ncap != jb->workers)
            return wsp_fail(p, "frame %llu: round complete, %zu RESULTs for %u workers",
                            (unsigned long long)p->frames, ncap, jb->workers);
        for (unsigned r = 0; r < jb->workers; r++)
            if (wsp_check_result(p, &p->cap.f[r], p->cap_port[r], jb, &h, r, 0, lg->result,
                                 lg->count))
                return -1;
        break;
    }
    return 0;
}

/* A frame the reference took (verdict v, what it sent in p->cap): this file's tally of the
 * verdicts (the reference's counters must equal it) and what the model must send, per egress
 * port, RESULTs (and PARTIALs) apart from bypass frames. */
static inline int wsp_account(ws_pair *p, unsigned port, size_t len, ws_verdict v)
{
    size_t ncap = p->cap.n;
    if (ncap > sizeof p->cap_port / sizeof p->cap_port[0])
        return wsp_fail(p, "frame %llu: %zu frames sent", (unsigned long long)p->frames, ncap);
    p->verdicts[v.kind]++;
    p->tally.rx_frames[port]++;
    p->tally.rx_bytes[port] += len < WS_RX_BYTES_MAX ? len : WS_RX_BYTES_MAX;
    switch (v.kind) {
    case WS_V_BYPASS:
        p->tally.bypass++;
        break;
    case WS_V_OVERSIZE:
        p->tally.oversize++;
        break;
    case WS_V_DROP:
        p->tally.drop[v.reason]++;
        break;
    case WS_V_RESEND:
        p->tally.drop[WS_DROP_DUPLICATE]++;
        p->tally.resends++;
        break;
    case WS_V_ACCEPT:
        p->tally.accepted++;
        break;
    case WS_V_COMPLETE: /* RESULTs to the members, or the PARTIAL to the parent */
        p->completes++;
        p->tally.accepted++;
        p->tally.results += ncap;
        break;
    case WS_V_FANOUT: /* the parent's RESULT taken, RESULTs to the members */
        p->tally.accepted++;
        p->tally.results += ncap;
        break;
    }
    for (size_t i = 0; i < ncap; i++) {
        unsigned q = p->cap_port[i];
        if (q >= p->cfg.n_ports)
            return wsp_fail(p, "frame %llu: the reference sent a frame on port %u",
                            (unsigned long long)p->frames, q);
        p->tally.tx_frames[q]++;
        p->tally.tx_bytes[q] += p->cap.f[i].len;
        wsp_list *l = v.kind == WS_V_BYPASS ? &p->exp_byp[q] : &p->exp_res[q];
        if (wsp_list_add(l, p->cap.f[i].data, p->cap.f[i].len, q))
            return wsp_fail(p, "out of memory");
    }
    return 0;
}

/* ---- frames into both -------------------------------------------------------------------- */

/* One frame of len (1..WS_SIM_MAX_IN_FRAME) bytes into ingress port (< cfg.n_ports) of both.
 * A frame longer than the device's MAX_FRAME goes to the model only (cut and counted
 * oversize there); *v is then a drop without a reason. v may be NULL. */
static inline int wsp_push(ws_pair *p, unsigned port, const uint8_t *f, size_t len, ws_verdict *v)
{
    ws_verdict dummy;
    if (!v)
        v = &dummy;
    *v = (ws_verdict){WS_V_DROP, WS_OK};
    if (p->failed)
        return -1;
    if (port >= p->cfg.n_ports || len == 0 || len > WS_SIM_MAX_IN_FRAME)
        return wsp_fail(p, "wsp_push: bad port %u or length %zu", port, len);
    p->frames++;
    if (len > ws_config_max_frame(&p->cfg)) {
        p->ovs_frames[port]++;
        p->ovs_bytes[port] += len;
        p->ovs_total++;
    } else if ((p->ref_rx ? p->ref_rx(p->ref_ctx, p, port, f, len, v)
                          : wsp_ref_rx(p, port, f, len, v)) ||
               wsp_account(p, port, len, *v)) {
        return -1;
    }
    return wsp_sim_push(p, port, f, len);
}

static inline int wsp_compare_frames(ws_pair *p);

/* Run the model until it has taken every frame and sent as many as the reference did, then
 * WSP_EXTRA_CYCLES more. -1 on a hang (cycle budget) or a model error. */
static inline int wsp_drain(ws_pair *p)
{
    if (p->failed)
        return -1;
    uint64_t start = ws_session_cycle(p->dev);
    uint64_t budget = WSP_BUDGET_BASE + WSP_BUDGET_PER_BEAT * p->beats_in;
    for (;;) {
        int busy = 0;
        for (unsigned q = 0; q < p->ports; q++)
            busy |= ws_session_pending(p->dev, q) > 0 ||
                    p->act[q].n < p->exp_res[q].n + p->exp_byp[q].n;
        if (!busy)
            break;
        ws_session_run(p->dev, 16);
        if (wsp_collect(p))
            return -1;
        if (ws_session_cycle(p->dev) - start > budget) {
            char msg[WSP_ERRLEN];
            size_t at = 0;
            for (unsigned q = 0; q < p->ports && at < sizeof msg - 100; q++)
                at += (size_t)snprintf(msg + at, sizeof msg - at,
                                       " port %u: %zu queued, %zu of %zu sent;", q,
                                       ws_session_pending(p->dev, q), p->act[q].n,
                                       p->exp_res[q].n + p->exp_byp[q].n);
            wsp_fail(p, "hang: not done after %llu cycles:%s", (unsigned long long)budget, msg);
            p->failed = 0; /* say which frame is missing, after the hang message */
            char hang[WSP_ERRLEN];
            snprintf(hang, sizeof hang, "%s", p->err);
            if (wsp_compare_frames(p))
                snprintf(p->err + strlen(p->err), sizeof p->err - strlen(p->err), " [%s]", hang);
            else
                snprintf(p->err, sizeof p->err, "%s", hang);
            p->failed = 1;
            return -1;
        }
    }
    ws_session_run(p->dev, WSP_EXTRA_CYCLES);
    p->beats_in = 0;
    return wsp_collect(p);
}

/* act is an interleaving of res and byp, each in order. */
static inline int wsp_interleaved(const wsp_list *act, const wsp_list *res, const wsp_list *byp)
{
    if (act->n != res->n + byp->n)
        return 0;
    size_t nb = byp->n + 1;
    unsigned char *row = calloc(nb, 1);
    if (!row)
        return 0;
    /* row[j]: act[0..i+j) is an interleaving of res[0..i) and byp[0..j) */
    row[0] = 1;
    for (size_t j = 1; j < nb; j++)
        row[j] = row[j - 1] && wsp_same(&act->f[j - 1], &byp->f[j - 1]);
    for (size_t i = 1; i <= res->n; i++) {
        row[0] = row[0] && wsp_same(&act->f[i - 1], &res->f[i - 1]);
        for (size_t j = 1; j < nb; j++)
            row[j] = (row[j] && wsp_same(&act->f[i + j - 1], &res->f[i - 1])) ||
                     (row[j - 1] && wsp_same(&act->f[i + j - 1], &byp->f[j - 1]));
    }
    int ok = row[nb - 1];
    free(row);
    return ok;
}

/* The model's frames against the reference's, port by port; consumed when they match. */
static inline int wsp_compare_frames(ws_pair *p)
{
    if (p->failed)
        return -1;
    for (unsigned q = 0; q < p->ports; q++) {
        if (wsp_interleaved(&p->act[q], &p->exp_res[q], &p->exp_byp[q])) {
            wsp_list_clear(&p->act[q]);
            wsp_list_clear(&p->exp_res[q]);
            wsp_list_clear(&p->exp_byp[q]);
            continue;
        }
        /* say where: greedy walk to the first frame that is neither next */
        size_t i = 0, j = 0, k = 0;
        for (; k < p->act[q].n; k++) {
            if (i < p->exp_res[q].n && wsp_same(&p->act[q].f[k], &p->exp_res[q].f[i]))
                i++;
            else if (j < p->exp_byp[q].n && wsp_same(&p->act[q].f[k], &p->exp_byp[q].f[j]))
                j++;
            else
                break;
        }
        char a[200] = "nothing", e[200] = "nothing", at[120] = "";
        const wsp_frame *fa = k < p->act[q].n ? &p->act[q].f[k] : NULL, *fe = NULL;
        if (fa)
            wsp_describe(p, fa, a, sizeof a);
        if (i < p->exp_res[q].n)
            fe = &p->exp_res[q].f[i];
        else if (j < p->exp_byp[q].n)
            fe = &p->exp_byp[q].f[j];
        if (fe)
            wsp_describe(p, fe, e, sizeof e);
        if (fa && fe) {
            size_t b = 0;
            while (b < fa->len && b < fe->len && fa->data[b] == fe->data[b])
                b++;
            if (b < fa->len && b < fe->len)
                snprintf(at, sizeof at, "; first difference at byte %zu: 0x%02x, expected 0x%02x",
                         b, fa->data[b], fe->data[b]);
            if (getenv("WSP_DUMP")) { /* both frames in hex, for debugging */
                const wsp_frame *two[2] = {fa, fe};
                for (int t = 0; t < 2; t++) {
                    fprintf(stderr, "%s (%zu bytes):", t ? "expected" : "model", two[t]->len);
                    for (size_t x = 0; x < two[t]->len; x++)
                        fprintf(stderr, "%s%02x", x % 32 ? " " : "\n  ", two[t]->data[x]);
                    fprintf(stderr, "\n");
                }
            }
        }
        return wsp_fail(p, "egress port %u: the model sent %zu frames, the reference %zu RESULTs "
                        "and %zu bypass frames; after %zu matching, the model sent %s, the "
                        "reference next %s%s", q, p->act[q].n, p->exp_res[q].n, p->exp_byp[q].n,
                        k, a, e, at);
    }
    return 0;
}

/* Counters: reference against the tally, model against the reference. */
static inline int wsp_compare_counters(ws_pair *p)
{
    if (p->failed)
        return -1;
    const ws_counters *r = ws_refdev_counters(p->ref), *t = &p->tally;
    ws_counters d;
    char err[512];
    if (ws_session_counters(p->dev, p->ports, &d, err, sizeof err))
        return wsp_fail(p, "read the model's counters: %s", err);
    ws_regbus bus = ws_session_bus(p->dev);
    uint32_t lo = 0, hi = 0;
    if (bus.read(bus.ctx, WS_REG_CNT_OVERSIZE, &lo) ||
        bus.read(bus.ctx, WS_REG_CNT_OVERSIZE + 4, &hi))
        return wsp_fail(p, "read CNT_OVERSIZE failed");
    uint64_t ovs = (uint64_t)hi << 32 | lo;
#define WSP_CMP(what, a, b)                                                                        \
    do {                                                                                           \
        if ((uint64_t)(a) != (uint64_t)(b))                                                        \
            return wsp_fail(p, "counter %s: %llu, expected %llu", what, (unsigned long long)(a),   \
                            (unsigned long long)(b));                                              \
    } while (0)
    char name[80];
    uint64_t rx_sum = 0, drops = 0;
    for (unsigned q = 0; q < p->ports; q++) {
        unsigned qq = q < WS_LIMIT_PORTS ? q : 0;
        snprintf(name, sizeof name, "reference rx_frames[%u] (tally)", q);
        WSP_CMP(name, r->rx_frames[qq], t->rx_frames[qq]);
        snprintf(name, sizeof name, "reference rx_bytes[%u] (tally)", q);
        WSP_CMP(name, r->rx_bytes[qq], t->rx_bytes[qq]);
        snprintf(name, sizeof name, "reference tx_frames[%u] (tally)", q);
        WSP_CMP(name, r->tx_frames[qq], t->tx_frames[qq]);
        snprintf(name, sizeof name, "reference tx_bytes[%u] (tally)", q);
        WSP_CMP(name, r->tx_bytes[qq], t->tx_bytes[qq]);
        snprintf(name, sizeof name, "model rx_frames[%u] (reference + oversize)", q);
        WSP_CMP(name, d.rx_frames[qq], r->rx_frames[qq] + p->ovs_frames[q]);
        snprintf(name, sizeof name, "model rx_bytes[%u] (reference + oversize)", q);
        WSP_CMP(name, d.rx_bytes[qq], r->rx_bytes[qq] + p->ovs_bytes[q]);
        snprintf(name, sizeof name, "model tx_frames[%u]", q);
        WSP_CMP(name, d.tx_frames[qq], r->tx_frames[qq]);
        snprintf(name, sizeof name, "model tx_bytes[%u]", q);
        WSP_CMP(name, d.tx_bytes[qq], r->tx_bytes[qq]);
        rx_sum += d.rx_frames[qq];
    }
    WSP_CMP("reference accepted (tally)", r->accepted, t->accepted);
    WSP_CMP("reference results (tally)", r->results, t->results);
    WSP_CMP("reference resends (tally)", r->resends, t->resends);
    WSP_CMP("reference bypass (tally)", r->bypass, t->bypass);
    WSP_CMP("model accepted", d.accepted, r->accepted);
    WSP_CMP("model results", d.results, r->results);
    WSP_CMP("model resends", d.resends, r->resends);
    WSP_CMP("model bypass", d.bypass, r->bypass);
    WSP_CMP("model oversize", ovs, p->ovs_total);
    for (int k = 1; k < WS_N_REASONS; k++) {
        snprintf(name, sizeof name, "reference drop %s (tally)", ws_reason_name((ws_reason)k));
        WSP_CMP(name, r->drop[k], t->drop[k]);
        snprintf(name, sizeof name, "model drop %s", ws_reason_name((ws_reason)k));
        WSP_CMP(name, d.drop[k], r->drop[k]);
        drops += d.drop[k];
    }
    WSP_CMP("model: sum of rx_frames = accepted + bypass + drops + oversize", rx_sum,
            d.accepted + d.bypass + drops + ovs);
    WSP_CMP("frames pushed = sum of rx_frames", p->frames, rx_sum);
#undef WSP_CMP
    return 0;
}

/* Drain, then compare frames and counters. */
static inline int wsp_check(ws_pair *p)
{
    if (wsp_drain(p) || wsp_compare_frames(p) || wsp_compare_counters(p))
        return -1;
    return 0;
}

/* ---- building frames ------------------------------------------------------------------- */

/* A DATA frame of member `rank` of cfg job index j, ws_build'd into buf. */
static inline size_t wsp_data(const ws_config *cfg, unsigned j, unsigned rank, unsigned slot,
                              unsigned set, uint32_t offset, uint32_t tensor, unsigned count,
                              const uint32_t *elems, uint8_t *buf)
{
    const ws_job *jb = &cfg->job[j];
    const ws_member *m = &jb->member[rank];
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.dst_mac, cfg->mac, 6);
    memcpy(h.src_mac, m->mac, 6);
    h.src_ip = m->ip;
    h.dst_ip = cfg->ip;
    h.src_port = m->udp_port;
    h.dst_port = cfg->udp_port;
    h.flags = (uint8_t)(set & 1);
    h.job = jb->id;
    h.worker = (uint16_t)rank;
    h.slot = (uint16_t)slot;
    h.count = (uint16_t)count;
    h.offset = offset;
    h.tensor = tensor;
    return ws_build(buf, &h, elems);
}

/* A configuration of n_jobs jobs (workers[j], slots[j], max_count[j]) side by side in the
 * pool from slot base0, members spread over the device's 4 ports. */
static inline void wsp_config(ws_config *cfg, unsigned n_jobs, const unsigned *workers,
                              const unsigned *slots, const unsigned *max_count, unsigned base0)
{
    ws_config_default(cfg);
    cfg->n_jobs = n_jobs;
    unsigned base = base0;
    for (unsigned j = 0; j < n_jobs; j++) {
        ws_job *jb = &cfg->job[j];
        jb->id = (uint16_t)(0x100 + 0x1111 * j);
        jb->enable = true;
        jb->workers = workers[j];
        jb->slots = slots[j];
        jb->slot_base = base;
        jb->max_count = max_count[j];
        base += slots[j];
        for (unsigned w = 0; w < workers[j]; w++) {
            ws_member *m = &jb->member[w];
            const uint8_t mac[6] = {0x02, 0x00, 0x5e, (uint8_t)j, (uint8_t)w, 0x01};
            memcpy(m->mac, mac, 6);
            m->ip = 0x0a010000u | j << 8 | (w + 1);
            m->udp_port = (uint16_t)(40000 + 100 * j + w);
            m->port = (uint8_t)((j + w) % cfg->n_ports);
        }
    }
}

#endif
