/* fuzz_tree.h - fuzz inputs for a tree of devices (docs/protocol.md section 9), part of
 * fuzz_wiresum.c: an input that starts with "TREE" drives two leaves, A and B (two workers
 * each), under a parent P. Each device is the software reference with partial = 1 and, when the
 * models linked in take PARTIALs (PARAM_PARTIAL, read at run time: the fuzz programs built
 * against the PARTIAL = 1 build), an RTL model beside it, through tests/ws_pair.h.
 *
 *   header   S K           slots 1 + S % 3, elements per chunk 1 + K % 12; the models: device d
 *                          (A, B, P) is the width number (S / 3) / n^d mod n of the n built in,
 *                          ingress idle (K / 12 % 4) * 10 %, egress backpressure
 *                          (K / 48 % 4) * 10 %
 *   records, until the input ends: an op byte O, kind O % 8:
 *     0 DATA    w c v      worker w % 4 (leaf w / 2, rank w % 2) sends chunk c % 8 (slot c mod S,
 *                          SET (c div S) mod 2), values from seed v (specials among them)
 *     1 DELIVER k          the k-th frame in flight between the devices reaches its device
 *     2 DUP     k          ... a copy of it does, it stays in flight
 *     3 MUTATE  k n {p x}* a copy with 1 + n % 4 bytes XORed, checksums fixed if n & 0x80
 *     4 PARTIAL m c e {8}* leaf m % 2 sends P a PARTIAL of chunk c whose words are the input's
 *                          bytes (any word), with e % 4 record words: valid header and checksums
 *     5 DROP    k          the k-th frame in flight is lost
 *     6 RESULT  m c        P's RESULT of chunk c to leaf m % 2 with sums from the input, its
 *                          offset or count perhaps another round's
 *     7 ROUND   c          every worker sends chunk c
 * then every frame still in flight is delivered, in order.
 *
 * Checked at every frame: the verdict of ws_refdev_judge is the one of ws_refdev_rx; a dropped
 * frame changes no set's state; at the end every device's counters account for every frame. And
 * against a ledger of what each round accepted (the elements of its DATA, the decoded words of its
 * PARTIALs): a leaf's PARTIAL, first or re-sent, is the encoding of its ledger, bit for bit; P's
 * RESULTs are the rounded ledger; a leaf fans out exactly the payload of P's RESULT it took, and
 * re-sends exactly what it sent.
 *
 * With the models: every frame a device receives goes to its reference and its model (wsp_push;
 * the checks above are the pair's reference side, ws_pair.ref_rx), and the frames routed between
 * the devices are the reference's. After the records and the frames in flight, each model is run
 * until it has sent what its reference sent (a cycle budget: no hang); its frames must be the
 * reference's bit for bit per egress port (PARTIALs and RESULTs in order), with no AXI4-Stream
 * error, and its counters the reference's; the reference's counters must equal the pair's tally of
 * its verdicts (wsp_check). No model's output feeds another device, so one comparison at the end
 * is as exact as one per frame, and cheaper.
 */
#include <errno.h>
#include <sys/stat.h>

#include "wiresum/refdev.h"
#include "trace.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"
#include "ws_pair.h"

#define FT_A 0
#define FT_B 1
#define FT_P 2
#define FT_Q 48         /* frames in flight between the devices */
#define FT_MAXN 12      /* elements per chunk */
#define FT_FRAME 1024   /* > ws_partial_max_len(FT_MAXN) */
#define FT_SETS 6       /* 3 slots x 2 sets */

typedef struct {
    unsigned to, port;
    size_t len;
    uint8_t f[FT_FRAME];
} ft_frame;

typedef struct {
    int open;                /* the ledger holds the round being summed or just completed */
    ws_xsum acc[FT_MAXN];    /* what the round accepted */
    unsigned count;
    size_t res_len;          /* its last RESULT (leaves: fanned out; P: sent) */
    uint8_t res[FT_FRAME];
} ft_set;

typedef struct {
    ws_config cfg[3];
    ws_refdev *d[3];
    ft_set set[3][FT_SETS];
    ft_frame q[FT_Q];
    unsigned nq, slots, count;
    ft_frame out[16];        /* what one rx emitted */
    unsigned nout;
    unsigned frames;
    unsigned kinds[WS_N_VERDICTS]; /* verdicts seen, for WSP_TRACE */
    int verbose;             /* WSP_TRACE=2: every frame */
    ws_trace_out *rec[3];    /* WSP_RECORD=DIR: each device's input, DIR/<name>/in<P>.pcap */
    int models;              /* 1: pair[d] holds device d's reference (pair[d].ref) and model */
    unsigned opened;         /* pairs opened (wsp_close them) */
    ws_pair pair[3];
    char *err;
    size_t errlen;
    int failed;
} ft;

static const char *const ft_name[3] = {"A", "B", "P"};
static ws_session *ft_sims[3][8]; /* device d's model of width number i, kept across inputs */

static int ft_fail(ft *t, const char *fmt, ...)
{
    if (!t->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->err, t->errlen, fmt, ap);
        va_end(ap);
    }
    t->failed = 1;
    return -1;
}

static void ft_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    ft *t = ctx;
    if (t->nout == 16 || len > FT_FRAME) {
        ft_fail(t, "frame %u: more than 16 frames or one of %zu bytes sent", t->frames, len);
        return;
    }
    ft_frame *o = &t->out[t->nout++];
    o->port = egress;
    o->len = len;
    memcpy(o->f, f, len);
}

static void ft_addr(unsigned d, uint8_t mac[6], uint32_t *ip)
{
    const uint8_t m[6] = {0x02, 0, 0, 0, 0x0d, (uint8_t)(0xe0 + d)};
    memcpy(mac, m, 6);
    *ip = 0x0a000ae0u + d;
}

static int ft_ref_rx(void *ctx, ws_pair *p, unsigned port, const uint8_t *f, size_t len,
                     ws_verdict *v);

/* The models of the three devices beside their references, configured with cfg[d], if the
 * models built in take PARTIALs: device d's is the width number (sel / n^d) mod n of the n
 * built in. 1 with t->pair[] open, 0 if the models do not take PARTIALs (or there is none), -1
 * on an error. */
static int ft_open_models(ft *t, unsigned sel, const ws_sim_stress *st)
{
    char err[256];
    const ws_dev_params *dp;
    unsigned idx[3];
    if (!ws_sim_widths(NULL, 0))
        return 0;
    for (unsigned d = 0; d < 3; d++) {
        if (!sim_for(sel, &dp, err, sizeof err)) /* the build's parameters at that width */
            return ft_fail(t, "%s", err);
        if (!dp->partial)
            return 0;
        idx[d] = sel % (unsigned)n_widths;
        sel /= (unsigned)n_widths;
    }
    for (unsigned d = 0; d < 3; d++) {
        if (!ft_sims[d][idx[d]]) {
            ws_session_opts o = {WS_DEVICE_VERILATOR, widths[idx[d]], 1};
            ft_sims[d][idx[d]] = ws_session_open(&o, err, sizeof err);
            if (!ft_sims[d][idx[d]])
                return ft_fail(t, "device %s: %s", ft_name[d], err);
        }
        ws_pair *p = &t->pair[d];
        ws_sim_stress s = *st;
        s.seed += d;
        t->opened = d + 1;
        if (wsp_open(p, ft_sims[d][idx[d]], &t->cfg[d], &s))
            return ft_fail(t, "device %s's model: %s", ft_name[d], p->err);
        p->ref_rx = ft_ref_rx;
        p->ref_ctx = t;
        t->cfg[d] = p->cfg; /* with the model's max_frame */
        t->d[d] = p->ref;
    }
    t->models = 1;
    return 1;
}

static inline void ft_free_sims(void) /* the replay program's, at exit */
{
    for (unsigned d = 0; d < 3; d++)
        for (unsigned i = 0; i < 8; i++) {
            ws_session_free(ft_sims[d][i]);
            ft_sims[d][i] = NULL;
        }
}

static int ft_setup(ft *t, unsigned slots, unsigned count, unsigned sel, const ws_sim_stress *st)
{
    char err[256];
    t->slots = slots;
    t->count = count;
    for (unsigned d = 0; d < 3; d++) {
        ws_config *c = &t->cfg[d];
        ws_config_default(c);
        ft_addr(d, c->mac, &c->ip);
        c->partial = true;
        ws_job *j = ws_config_add_workload(c, d == FT_P ? 9 : 5, 4, 2, slots, count);
        for (unsigned r = 0; r < 2; r++) {
            ws_member *m = &j->member[r];
            if (d == FT_P) {
                ft_addr(r, m->mac, &m->ip);
                m->udp_port = WS_DEFAULT_UDP_PORT;
            } else {
                m->ip += 2 * d;
                m->mac[5] = (uint8_t)(2 * d + r);
            }
            m->port = (uint8_t)r;
        }
        if (d != FT_P) {
            j->has_parent = true;
            ft_addr(FT_P, j->parent.mac, &j->parent.ip);
            j->parent.udp_port = WS_DEFAULT_UDP_PORT;
            j->parent.port = 3;
            j->parent_job = 9;
            j->parent_rank = (uint16_t)d;
        }
    }
    int m = ft_open_models(t, sel, st);
    if (m < 0)
        return -1;
    for (unsigned d = 0; d < 3 && !m; d++) {
        t->d[d] = ws_refdev_new(&t->cfg[d], err, sizeof err);
        if (!t->d[d])
            return ft_fail(t, "device %s: %s", ft_name[d], err);
    }
    return 0;
}

/* WSP_RECORD=DIR: DIR/A, DIR/B and DIR/P, each device's job.ini and, as it goes, what entered
 * its ports (in<P>.pcap, a nanosecond a frame): trace directories that `wiresum sim` replays (with
 * --sim icarus, in a waveform of every signal). */
static int ft_record(ft *t, const char *dir)
{
    char path[512], err[256];
    if (mkdir(dir, 0777) && errno != EEXIST)
        return ft_fail(t, "WSP_RECORD: %s: %s", dir, strerror(errno));
    for (unsigned d = 0; d < 3; d++) {
        snprintf(path, sizeof path, "%s/%s", dir, ft_name[d]);
        if (mkdir(path, 0777) && errno != EEXIST)
            return ft_fail(t, "WSP_RECORD: %s: %s", path, strerror(errno));
        snprintf(path, sizeof path, "%s/%s/job.ini", dir, ft_name[d]);
        FILE *fp = fopen(path, "w");
        if (!fp || ws_config_write(&t->cfg[d], fp) || fclose(fp)) {
            if (fp)
                fclose(fp);
            return ft_fail(t, "WSP_RECORD: %s: not written", path);
        }
        snprintf(path, sizeof path, "%s/%s", dir, ft_name[d]);
        t->rec[d] = ws_trace_create(path, "in", 4, 1, err, sizeof err);
        if (!t->rec[d])
            return ft_fail(t, "WSP_RECORD: %s", err);
    }
    return 0;
}

static void ft_free(ft *t)
{
    for (unsigned d = 0; d < 3; d++) {
        if (t->rec[d] && ws_trace_finish(t->rec[d], NULL, 0))
            fprintf(stderr, "WSP_RECORD: device %s's trace not finished\n", ft_name[d]);
        t->rec[d] = NULL;
        if (d < t->opened)
            wsp_close(&t->pair[d]); /* and its reference */
        else
            ws_refdev_free(t->d[d]);
        t->d[d] = NULL;
    }
}

/* Every set's state of device d's job. */
static void ft_snap(const ft *t, unsigned d, ws_set_state *s)
{
    memset(s, 0, sizeof(ws_set_state) * FT_SETS); /* padding too: compared with memcmp */
    for (unsigned q = 0; q < 2 * t->slots; q++)
        ws_refdev_set_state(t->d[d], t->cfg[d].job[0].id, q / 2, q % 2, &s[q]);
}

/* A PARTIAL, first or re-sent, must be the encoding of the ledger of its round. */
static int ft_check_partial(ft *t, unsigned d, const ft_set *s, const ft_frame *o)
{
    ws_hdr h;
    ws_parse(o->f, &h);
    uint8_t want[FT_FRAME];
    ws_hdr w = h;
    size_t len = ws_build_partial(want, &w, s->acc);
    if (h.type != WS_TYPE_PARTIAL || len != o->len ||
        memcmp(want + WS_OFF_ELEMS, o->f + WS_OFF_ELEMS, len - WS_OFF_ELEMS))
        return ft_fail(t, "frame %u: leaf %u's PARTIAL (%zu bytes) is not the encoding of its "
                       "round's sums (%zu bytes)", t->frames, d, o->len, len);
    return 0;
}

/* A frame into device d's reference: judged, taken, checked (*out its verdict); what it sends is
 * in t->out, and what goes between the devices is in flight. */
static int ft_ref(ft *t, unsigned d, unsigned port, const uint8_t *f, size_t len, ws_verdict *out)
{
    t->frames++;
    ws_set_state before[FT_SETS], after[FT_SETS];
    ft_snap(t, d, before);
    ws_verdict v = ws_refdev_judge(t->d[d], port, f, len);
    t->nout = 0;
    ws_verdict w = ws_refdev_rx(t->d[d], port, f, len, ft_emit, t);
    *out = w;
    if (t->failed)
        return -1;
    if (v.kind != w.kind || v.reason != w.reason)
        return ft_fail(t, "frame %u: judged %d/%s, taken %d/%s", t->frames, v.kind,
                       ws_reason_name(v.reason), w.kind, ws_reason_name(w.reason));
    ft_snap(t, d, after);
    t->kinds[w.kind]++;
    if (t->verbose) { /* WSP_TRACE=2: every frame the reference takes, with its verdict */
        ws_hdr g;
        if (len >= WS_OFF_ELEMS) {
            ws_parse(f, &g);
            fprintf(stderr, "frame %u: %s port %u type %u rank %u slot %u set %u offset %u "
                    "count %u: verdict %d %s, %u out\n", t->frames, ft_name[d], port, g.type,
                    g.worker, g.slot, g.flags & WS_FLAG_SET, g.offset, g.count, w.kind,
                    ws_reason_name(w.reason), t->nout);
        } else {
            fprintf(stderr, "frame %u: %s port %u, %zu bytes: verdict %d %s\n", t->frames,
                    ft_name[d], port, len, w.kind, ws_reason_name(w.reason));
        }
    }
    if ((w.kind == WS_V_DROP || w.kind == WS_V_OVERSIZE) &&
        memcmp(before, after, sizeof(ws_set_state) * 2 * t->slots))
        return ft_fail(t, "frame %u: dropped by device %u (%s) but a set changed", t->frames, d,
                       ws_reason_name(w.reason));
    ws_hdr h;
    if (w.kind != WS_V_BYPASS && w.kind != WS_V_DROP && w.kind != WS_V_OVERSIZE)
        ws_parse(f, &h);
    unsigned q = w.kind == WS_V_BYPASS || w.kind == WS_V_DROP || w.kind == WS_V_OVERSIZE
                     ? 0
                     : (unsigned)(h.slot * 2 + (h.flags & WS_FLAG_SET));
    ft_set *s = &t->set[d][q];
    switch (w.kind) {
    case WS_V_ACCEPT:
    case WS_V_COMPLETE:
        if (before[q].complete) { /* a new round */
            for (unsigned i = 0; i < h.count; i++)
                ws_xsum_init(&s->acc[i]);
            s->count = h.count;
        }
        if (h.type == WS_TYPE_PARTIAL)
            ws_partial_add(f, &h, s->acc);
        else
            for (unsigned i = 0; i < h.count; i++)
                ws_xsum_add(&s->acc[i], ws_elem(f, i));
        if (w.kind == WS_V_ACCEPT)
            break;
        if (d != FT_P) { /* one PARTIAL up */
            if (t->nout != 1 || t->out[0].port != 3)
                return ft_fail(t, "frame %u: leaf %u completed a round with %u frames out",
                               t->frames, d, t->nout);
            if (ft_check_partial(t, d, s, &t->out[0]))
                return -1;
            break;
        }
        if (t->nout != 2)
            return ft_fail(t, "frame %u: P completed a round with %u frames out", t->frames,
                           t->nout);
        for (unsigned k = 0; k < 2; k++)
            for (unsigned i = 0; i < s->count; i++)
                if (ws_elem(t->out[k].f, i) != ws_xsum_round(&s->acc[i]))
                    return ft_fail(t, "frame %u: P's RESULT element %u is %08x, its round's "
                                   "sum %08x", t->frames, i, ws_elem(t->out[k].f, i),
                                   ws_xsum_round(&s->acc[i]));
        s->res_len = t->out[0].len;
        memcpy(s->res, t->out[0].f, s->res_len);
        break;
    case WS_V_RESEND:
        if (t->nout != 1)
            return ft_fail(t, "frame %u: a re-send of %u frames", t->frames, t->nout);
        if (d != FT_P && !before[q].complete) { /* waiting: the PARTIAL again */
            if (ft_check_partial(t, d, s, &t->out[0]))
                return -1;
        } else if (memcmp(t->out[0].f + WS_OFF_ELEMS, s->res + WS_OFF_ELEMS,
                          t->out[0].len - WS_OFF_ELEMS) || t->out[0].len != s->res_len) {
            return ft_fail(t, "frame %u: device %u re-sent other sums than it sent", t->frames,
                           d);
        }
        break;
    case WS_V_FANOUT:
        if (d == FT_P || t->nout != 2)
            return ft_fail(t, "frame %u: a fan-out of %u frames by device %u", t->frames, t->nout,
                           d);
        for (unsigned k = 0; k < 2; k++)
            if (t->out[k].len != len || memcmp(t->out[k].f + WS_OFF_ELEMS, f + WS_OFF_ELEMS,
                                               len - WS_OFF_ELEMS))
                return ft_fail(t, "frame %u: leaf %u fanned out other sums than its parent's",
                               t->frames, d);
        s->res_len = t->out[0].len;
        memcpy(s->res, t->out[0].f, s->res_len);
        break;
    case WS_V_BYPASS:
    case WS_V_DROP:
    case WS_V_OVERSIZE:
        break;
    }
    /* what went out between the devices is in flight; RESULTs to workers leave */
    for (unsigned k = 0; k < t->nout; k++) {
        const ft_frame *o = &t->out[k];
        unsigned to = d == FT_P ? o->port : (o->port == 3 ? FT_P : 3);
        if (to == 3 || t->nq == FT_Q)
            continue;
        ft_frame *e = &t->q[t->nq++];
        *e = *o;
        e->to = to;
        e->port = d == FT_P ? 3 : d;
    }
    return 0;
}

/* The pair's reference side (ws_pair.ref_rx): ft_ref, and what the reference sent for the pair
 * to expect from the model. */
static int ft_ref_rx(void *ctx, ws_pair *p, unsigned port, const uint8_t *f, size_t len,
                     ws_verdict *v)
{
    ft *t = ctx;
    if (ft_ref(t, (unsigned)(p - t->pair), port, f, len, v))
        return wsp_fail(p, "%s", t->err);
    wsp_list_clear(&p->cap);
    for (unsigned k = 0; k < t->nout; k++)
        wsp_capture(p, t->out[k].port, t->out[k].f, t->out[k].len);
    return p->failed ? -1 : 0;
}

/* A frame into device d's port: its reference (ft_ref) and its model. */
static int ft_rx(ft *t, unsigned d, unsigned port, const uint8_t *f, size_t len)
{
    ws_verdict v;
    char err[256];
    if (t->rec[d] && ws_trace_write(t->rec[d], port, t->frames + 1, f, len, err, sizeof err))
        return ft_fail(t, "WSP_RECORD: %s", err);
    if (!t->models)
        return ft_ref(t, d, port, f, len, &v);
    ws_pair *p = &t->pair[d];
    if (wsp_push(p, port, f, len, &v) && !t->failed)
        return ft_fail(t, "frame %u into %s: its model (%u bits): %s", t->frames, ft_name[d],
                       p->width, p->err);
    return t->failed ? -1 : 0;
}

/* A header from (mac, ip, udp) to device `to` as rank `rank` of job `job`, for chunk c. */
static void ft_hdr(const ft *t, const uint8_t *mac, uint32_t ip, uint16_t udp, const ws_config *to,
                   unsigned job, unsigned rank, unsigned c, ws_hdr *h)
{
    ws_hdr_init(h);
    memcpy(h->src_mac, mac, 6);
    memcpy(h->dst_mac, to->mac, 6);
    h->src_ip = ip;
    h->dst_ip = to->ip;
    h->src_port = udp;
    h->dst_port = to->udp_port;
    h->job = (uint16_t)job;
    h->worker = (uint16_t)rank;
    h->slot = (uint16_t)(c % t->slots);
    h->flags = (uint8_t)((c / t->slots) % 2);
    h->count = (uint16_t)t->count;
    h->offset = c * t->count;
    h->tensor = 1;
}

static size_t ft_data(const ft *t, unsigned w, unsigned c, unsigned seed, uint8_t *f)
{
    static const uint32_t sp[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                  0x7fc00000u, 0x00000001u, 0x7f7fffffu, 0xff7fffffu,
                                  0x3f800000u, 0xcb800000u, 0x4b800001u, 0x33800000u};
    const ws_config *cfg = &t->cfg[w / 2];
    const ws_member *m = &cfg->job[0].member[w % 2];
    ws_hdr h;
    ft_hdr(t, m->mac, m->ip, m->udp_port, cfg, cfg->job[0].id, w % 2, c, &h);
    uint32_t el[FT_MAXN];
    ws_rng r = {ws_mix64(seed * 0x9e37u + w * 131u + c)};
    for (unsigned i = 0; i < t->count; i++) {
        uint64_t z = ws_rng_next(&r);
        el[i] = z % 4 == 0 ? sp[(z >> 8) % (sizeof sp / sizeof sp[0])] : (uint32_t)(z >> 32);
    }
    return ws_build(f, &h, el);
}

/* The whole input after "TREE". 0, or -1 with err. */
static int tree_input(const uint8_t *data, size_t size, char *err, size_t errlen)
{
    static ft t0;
    ft *t = &t0;
    memset(t, 0, sizeof *t);
    t->err = err;
    t->errlen = errlen;
    const char *tr = getenv("WSP_TRACE");
    t->verbose = tr && atoi(tr) >= 2;
    rd r = {data, size, 0};
    uint8_t hs = get8(&r), hk = get8(&r);
    unsigned slots = 1 + hs % 3, count = 1 + hk % FT_MAXN;
    ws_sim_stress st = {(hk / 12u % 4u) * 10u, (hk / 48u % 4u) * 10u, ws_mix64(size)};
    const char *rec = getenv("WSP_RECORD");
    if (ft_setup(t, slots, count, hs / 3u, &st) || (rec && ft_record(t, rec))) {
        ft_free(t);
        return -1;
    }
    uint8_t f[FT_FRAME];
    for (unsigned n = 0; more(&r) && n < FZ_MAX_RECORDS && !t->failed; n++) {
        uint8_t op = get8(&r);
        unsigned k;
        switch (op % 8) {
        case 0: {
            unsigned w = get8(&r) % 4, c = get8(&r) % 8, v = get8(&r);
            ft_rx(t, w / 2, w % 2, f, ft_data(t, w, c, v, f));
            break;
        }
        case 1:
        case 2:
        case 5:
            k = get8(&r);
            if (!t->nq)
                break;
            k %= t->nq;
            {
                ft_frame e = t->q[k];
                if (op % 8 != 2) { /* out of flight */
                    memmove(&t->q[k], &t->q[k + 1], (t->nq - k - 1) * sizeof t->q[0]);
                    t->nq--;
                }
                if (op % 8 != 5)
                    ft_rx(t, e.to, e.port, e.f, e.len);
            }
            break;
        case 3: {
            k = get8(&r);
            unsigned m = get8(&r);
            if (!t->nq) {
                for (unsigned j = 0; j <= (m & 3); j++)
                    get8(&r), get8(&r);
                break;
            }
            ft_frame e = t->q[k % t->nq];
            for (unsigned j = 0; j <= (m & 3); j++) {
                unsigned p = get8(&r) % e.len;
                e.f[p] ^= (uint8_t)(get8(&r) | 1);
            }
            if (m & 0x80)
                ws_fix_checksums(e.f, e.len);
            ft_rx(t, e.to, e.port, e.f, e.len);
            break;
        }
        case 4: { /* a PARTIAL of any words */
            unsigned m = get8(&r) % 2, c = get8(&r) % 8, ext = get8(&r) % 4;
            ws_hdr h;
            const ws_config *src = &t->cfg[m];
            ft_hdr(t, src->mac, src->ip, src->udp_port, &t->cfg[FT_P], 9, m, c, &h);
            size_t len = ws_partial_len(h.count, ext);
            ws_xsum zero[FT_MAXN];
            for (unsigned i = 0; i < FT_MAXN; i++)
                ws_xsum_init(&zero[i]);
            ws_build_partial(f, &h, zero); /* the headers; the words and lengths follow */
            for (size_t b = WS_OFF_ELEMS; b < len; b++)
                f[b] = get8(&r);
            ws_put16(f + WS_OFF_AGG + 20, (uint16_t)ext);
            ws_put16(f + WS_OFF_IP + 2, (uint16_t)(len - WS_ETH_LEN));
            ws_put16(f + WS_OFF_UDP + 4, (uint16_t)(len - WS_OFF_UDP));
            ws_fix_checksums(f, len);
            ft_rx(t, FT_P, m, f, len);
            break;
        }
        case 6: { /* a RESULT from P's address, sums from the input */
            unsigned m = get8(&r) % 2, c = get8(&r) % 8;
            ws_hdr h;
            const ws_config *src = &t->cfg[FT_P];
            ft_hdr(t, src->mac, src->ip, src->udp_port, &t->cfg[m], 9, m, c, &h);
            h.type = WS_TYPE_RESULT;
            h.offset = (c + (get8(&r) % 3 == 0)) * t->count;
            uint32_t el[FT_MAXN];
            for (unsigned i = 0; i < t->count; i++)
                el[i] = (uint32_t)get8(&r) << 24 | 0x3f0000u;
            ft_rx(t, m, 3, f, ws_build(f, &h, el));
            break;
        }
        case 7: {
            unsigned c = get8(&r) % 8;
            for (unsigned w = 0; w < 4 && !t->failed; w++)
                ft_rx(t, w / 2, w % 2, f, ft_data(t, w, c, 7, f));
            break;
        }
        }
    }
    for (unsigned n = 0; t->nq && n < 4 * FT_Q && !t->failed; n++) { /* what is in flight lands */
        ft_frame e = t->q[0];
        memmove(&t->q[0], &t->q[1], (t->nq - 1) * sizeof t->q[0]);
        t->nq--;
        ft_rx(t, e.to, e.port, e.f, e.len);
    }
    for (unsigned d = 0; d < 3 && !t->failed; d++) { /* every frame accounted for */
        const ws_counters *c = ws_refdev_counters(t->d[d]);
        uint64_t rx = 0, drops = 0;
        for (unsigned p = 0; p < 4; p++)
            rx += c->rx_frames[p];
        for (int k2 = 1; k2 < WS_N_REASONS; k2++)
            drops += c->drop[k2];
        if (rx != c->accepted + c->bypass + c->oversize + drops)
            ft_fail(t, "device %u: %llu frames in, %llu accounted for", d,
                    (unsigned long long)rx,
                    (unsigned long long)(c->accepted + c->bypass + c->oversize + drops));
    }
    for (unsigned d = 0; d < 3 && t->models && !t->failed; d++) /* the models against them */
        if (wsp_check(&t->pair[d]))
            ft_fail(t, "%s's model (%u bits, %u engines): %s", ft_name[d], t->pair[d].width,
                    t->pair[d].params.engines, t->pair[d].err);
    if (getenv("WSP_TRACE")) { /* how deep the input went */
        fprintf(stderr, "tree: %u frames: accept %u complete %u resend %u fanout %u drop %u; ",
                t->frames, t->kinds[WS_V_ACCEPT], t->kinds[WS_V_COMPLETE], t->kinds[WS_V_RESEND],
                t->kinds[WS_V_FANOUT], t->kinds[WS_V_DROP]);
        if (t->models)
            fprintf(stderr, "models A %u/%u B %u/%u P %u/%u bits/engines, stress %u%%/%u%%\n",
                    t->pair[0].width, t->pair[0].params.engines, t->pair[1].width,
                    t->pair[1].params.engines, t->pair[2].width, t->pair[2].params.engines,
                    st.idle_pct, st.backpressure_pct);
        else
            fprintf(stderr, "no model (the models do not take PARTIALs)\n");
    }
    ft_free(t);
    return t->failed ? -1 : 0;
}
