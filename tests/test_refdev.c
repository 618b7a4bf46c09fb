/* test_refdev.c - cmocka tests of host/refdev.c, the software reference of the device,
 * against PRODUCT.md sections 2 (numerics), 3 (wire protocol) and 4 (aggregation semantics).
 *
 * Every frame goes through deliver(), which also checks, for every frame:
 *   - ws_refdev_judge() returns the verdict ws_refdev_rx() then returns and changes no counter;
 *   - the frames emitted have the shape the verdict requires (one RESULT per member in rank
 *     order on completion, one RESULT with RETX to the sender on a resend, the unchanged
 *     frame on cfg.bypass[ingress] for bypass, nothing otherwise), and every RESULT has the
 *     agreed Ethernet/IPv4/UDP/aggregation header with checksums verified by this file's
 *     own ones-complement code;
 *   - a tally of what the test saw, compared with ws_refdev_counters() by final_checks().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "refdev.h"
#include "rng.h"
#include "wire.h"
#include "xsum.h"

#define MAX_FRAME 9216 /* a 9000-byte jumbo frame fits */
#define CAP_MAX 160    /* frames captured per delivered frame (64-worker job: 64) */
#define SNAP_MAX 256   /* (job, slot, set) states in a snapshot */
#define MAXC 256       /* largest count used by the tests' own frames */
#define N_OWNED 16

#define F_PZERO 0x00000000u
#define F_NZERO 0x80000000u
#define F_ONE 0x3f800000u
#define F_MONE 0xbf800000u
#define F_PINF 0x7f800000u
#define F_NINF 0xff800000u
#define F_MAX 0x7f7fffffu
#define F_NMAX 0xff7fffffu
#define F_QNAN 0x7fc00000u
#define F_1E30 0x7149f2cau
#define F_M1E30 0xf149f2cau

#define ECT0 0x02
#define ECT1 0x01
#define CE 0x03

/* ---- byte helpers (independent of wire.h) -------------------------------- */

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Ones-complement arithmetic (RFC 1071), written here so that the checks do not use wire.c. */
static uint64_t oc_add(const uint8_t *p, size_t n, uint64_t acc)
{
    size_t i;
    for (i = 0; i + 1 < n; i += 2)
        acc += (uint64_t)p[i] << 8 | p[i + 1];
    if (n & 1)
        acc += (uint64_t)p[n - 1] << 8;
    return acc;
}

static uint16_t oc_fold(uint64_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return (uint16_t)acc;
}

/* The IPv4 header checksum computed from scratch (field taken as zero). */
static uint16_t ipv4_csum_calc(const uint8_t *ip)
{
    uint8_t h[20];
    memcpy(h, ip, 20);
    h[10] = h[11] = 0;
    return (uint16_t)~oc_fold(oc_add(h, 20, 0));
}

/* The UDP checksum of the datagram of frame f (len bytes) from scratch; 0 sent as 0xffff. */
static uint16_t udp_csum_calc(const uint8_t *f, size_t len)
{
    size_t ulen = len - 34;
    uint64_t acc = oc_add(f + 14 + 12, 8, 0) + 17 + ulen;
    acc = oc_add(f + 34, 6, acc);
    acc = oc_add(f + 42, ulen - 8, acc);
    uint16_t c = (uint16_t)~oc_fold(acc);
    return c ? c : 0xffff;
}

/* Receiver-side verifications: the sum over the covered bytes, checksum included, is 0xffff. */
static int ipv4_csum_ok(const uint8_t *ip) { return oc_fold(oc_add(ip, 20, 0)) == 0xffff; }

static int udp_csum_ok(const uint8_t *f, size_t len)
{
    size_t ulen = len - 34;
    uint64_t acc = oc_add(f + 14 + 12, 8, 0) + 17 + ulen;
    return oc_fold(oc_add(f + 34, ulen, acc)) == 0xffff;
}

/* Binary32 values of varied magnitudes (2^-27 .. 2^27, some subnormals and zeros), so that
 * the order of additions would matter to a naive adder. */
static uint32_t gen_bits(uint64_t z)
{
    uint32_t sign = (uint32_t)(z >> 63) << 31;
    uint32_t mant = (uint32_t)z & 0x7fffffu;
    unsigned sel = (unsigned)(z >> 40) & 63;
    uint32_t ex;
    if (sel == 0)
        ex = 0;
    else if (sel == 1)
        ex = 1 + (uint32_t)((z >> 46) % 3);
    else
        ex = 100 + (uint32_t)((z >> 46) % 55);
    return sign | ex << 23 | mant;
}

static uint32_t gen_val(ws_rng *r) { return gen_bits(ws_rng_next(r)); }

static float b2f(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t f2b(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* want[e] = correctly rounded sum over w < nw of v[w * count + e]. */
static void expect_sums(const uint32_t *v, unsigned nw, unsigned count, uint32_t *want)
{
    uint32_t col[WS_LIMIT_WORKERS + 4];
    for (unsigned e = 0; e < count; e++) {
        for (unsigned w = 0; w < nw; w++)
            col[w] = v[w * count + e];
        want[e] = ws_sum_f32(col, nw);
    }
}

/* ---- fixture --------------------------------------------------------------- */

typedef struct {
    unsigned egress;
    size_t len;
    uint8_t *buf;
} cap_frame;

typedef struct {
    cap_frame f[CAP_MAX];
    unsigned n;
    unsigned overflow;
    uint8_t *store;
} capture;

typedef struct {
    unsigned n;
    ws_set_state s[SNAP_MAX];
} snapshot;

typedef struct {
    ws_config cfg;
    ws_refdev *dev;
    capture cap;
    ws_counters tally; /* what the tests saw, to compare with the device's counters */
    int deep;          /* deliver() also checks that judge leaves every set state alone */
    void *owned[N_OWNED];
    uint8_t frame[MAX_FRAME];
} fx;

static int setup(void **state)
{
    fx *x = calloc(1, sizeof *x);
    if (!x)
        return -1;
    x->cap.store = malloc((size_t)CAP_MAX * MAX_FRAME);
    if (!x->cap.store) {
        free(x);
        return -1;
    }
    for (unsigned i = 0; i < CAP_MAX; i++)
        x->cap.f[i].buf = x->cap.store + (size_t)i * MAX_FRAME;
    ws_config_default(&x->cfg);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    ws_refdev_free(x->dev);
    for (unsigned i = 0; i < N_OWNED; i++)
        free(x->owned[i]);
    free(x->cap.store);
    free(x);
    return 0;
}

/* Zeroed memory freed by teardown (also when an assertion fails). */
static void *fx_alloc(fx *x, size_t n)
{
    for (unsigned i = 0; i < N_OWNED; i++)
        if (!x->owned[i]) {
            x->owned[i] = calloc(1, n ? n : 1);
            assert_non_null(x->owned[i]);
            return x->owned[i];
        }
    fail_msg("fx_alloc: too many allocations");
    return NULL;
}

static void cap_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    capture *c = ctx;
    if (c->n >= CAP_MAX || len > MAX_FRAME) {
        c->overflow++;
        return;
    }
    cap_frame *k = &c->f[c->n++];
    k->egress = egress;
    k->len = len;
    memcpy(k->buf, f, len);
}

/* A job with distinct members: MAC 02:00:5e:(10+idx):rank:01, IP 10.0.(10+idx).(rank+1),
 * UDP port 20000 + 100*idx + rank, device port (rank + idx) mod n_ports. */
static ws_job *add_job(ws_config *c, uint16_t id, unsigned workers, unsigned slots,
                       unsigned slot_base, unsigned max_count)
{
    unsigned idx = c->n_jobs++;
    ws_job *j = &c->job[idx];
    memset(j, 0, sizeof *j);
    j->id = id;
    j->enable = true;
    j->workers = workers;
    j->slots = slots;
    j->slot_base = slot_base;
    j->max_count = max_count;
    for (unsigned r = 0; r < workers; r++) {
        ws_member *m = &j->member[r];
        m->mac[0] = 0x02;
        m->mac[1] = 0x00;
        m->mac[2] = 0x5e;
        m->mac[3] = (uint8_t)(0x10 + idx);
        m->mac[4] = (uint8_t)r;
        m->mac[5] = 0x01;
        m->ip = 0x0a000000u | (uint32_t)(10 + idx) << 8 | (r + 1);
        m->udp_port = (uint16_t)(20000 + 100 * idx + r);
        m->port = (uint8_t)((r + idx) % c->n_ports);
    }
    return j;
}

static void start(fx *x)
{
    char err[256] = "";
    x->dev = ws_refdev_new(&x->cfg, err, sizeof err);
    if (!x->dev)
        fail_msg("ws_refdev_new: %s", err);
}

static const ws_job *job_of(const fx *x, uint16_t id)
{
    const ws_job *jb = ws_config_find_job(&x->cfg, id);
    assert_non_null(jb);
    return jb;
}

/* ---- snapshots of every (job, slot, set) --------------------------------- */

static void snap(const fx *x, snapshot *sn)
{
    sn->n = 0;
    for (unsigned j = 0; j < x->cfg.n_jobs; j++)
        for (unsigned s = 0; s < x->cfg.job[j].slots; s++)
            for (unsigned t = 0; t < 2; t++) {
                assert_true(sn->n < SNAP_MAX);
                ws_set_state *o = &sn->s[sn->n++];
                memset(o, 0, sizeof *o);
                assert_int_equal(ws_refdev_set_state(x->dev, x->cfg.job[j].id, s, t, o), 0);
            }
}

static void snap_equal(const snapshot *a, const snapshot *b)
{
    assert_int_equal(a->n, b->n);
    for (unsigned i = 0; i < a->n; i++) {
        const ws_set_state *p = &a->s[i], *q = &b->s[i];
        if (p->complete != q->complete || p->bitmap != q->bitmap || p->offset != q->offset ||
            p->tensor != q->tensor || p->count != q->count)
            fail_msg("set state %u changed: complete %d->%d bitmap %llx->%llx offset %u->%u "
                     "tensor %u->%u count %u->%u",
                     i, p->complete, q->complete, (unsigned long long)p->bitmap,
                     (unsigned long long)q->bitmap, (unsigned)p->offset, (unsigned)q->offset,
                     (unsigned)p->tensor, (unsigned)q->tensor, (unsigned)p->count,
                     (unsigned)q->count);
    }
}

static ws_set_state get_state(const fx *x, uint16_t job, unsigned slot, unsigned set)
{
    ws_set_state s;
    memset(&s, 0, sizeof s);
    assert_int_equal(ws_refdev_set_state(x->dev, job, slot, set, &s), 0);
    return s;
}

static void check_state(const fx *x, uint16_t job, unsigned slot, unsigned set, int complete,
                        uint64_t bitmap)
{
    ws_set_state s = get_state(x, job, slot, set);
    if (s.complete != complete || s.bitmap != bitmap)
        fail_msg("job %u slot %u set %u: complete %d bitmap %llx, want %d %llx", (unsigned)job,
                 slot, set, s.complete, (unsigned long long)s.bitmap, complete,
                 (unsigned long long)bitmap);
}

/* ---- DATA frames ---------------------------------------------------------- */

typedef struct {
    uint16_t job, rank, slot, count;
    uint8_t set, retx, tos;
    uint32_t offset, tensor;
} dspec;

static dspec mk(uint16_t job, unsigned rank, unsigned slot, unsigned set, unsigned count,
                uint32_t offset, uint32_t tensor)
{
    dspec d;
    memset(&d, 0, sizeof d);
    d.job = job;
    d.rank = (uint16_t)rank;
    d.slot = (uint16_t)slot;
    d.set = (uint8_t)set;
    d.count = (uint16_t)count;
    d.offset = offset;
    d.tensor = tensor;
    return d;
}

/* A DATA frame from src to the device described by d, elements el. */
static size_t build_from(const fx *x, const ws_member *src, const dspec *d, const uint32_t *el,
                         uint8_t *buf)
{
    static const uint32_t none[1] = {0};
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.dst_mac, x->cfg.mac, 6);
    memcpy(h.src_mac, src->mac, 6);
    h.tos = d->tos;
    h.src_ip = src->ip;
    h.dst_ip = x->cfg.ip;
    h.src_port = src->udp_port;
    h.dst_port = x->cfg.udp_port;
    h.type = WS_TYPE_DATA;
    h.flags = (uint8_t)((d->set & 1) | (d->retx ? WS_FLAG_RETX : 0));
    h.job = d->job;
    h.worker = d->rank;
    h.slot = d->slot;
    h.count = d->count;
    h.offset = d->offset;
    h.tensor = d->tensor;
    return ws_build(buf, &h, el ? el : none);
}

/* Set the IPv4 total length and UDP length from the frame length, recompute checksums. */
static void fix_lengths(uint8_t *f, size_t len)
{
    put16(f + 14 + 2, (uint16_t)(len - 14));
    put16(f + 34 + 4, (uint16_t)(len - 34));
    ws_fix_checksums(f, len);
}

/* ---- delivery and the checks made on every frame ------------------------ */

static void fail_unless_result_frame(const fx *x, const cap_frame *k, const ws_job *jb,
                                     unsigned rank, int retx)
{
    const ws_member *m = &jb->member[rank];
    const uint8_t *f = k->buf, *ip = f + 14, *udp = f + 34, *a = f + 42;
    assert_true(k->len >= 68);
    unsigned count = be16(a + 10);
    assert_int_equal(k->len, 64 + 4 * (size_t)count);
    assert_true(count >= 1 && count <= jb->max_count);
    assert_int_equal(k->egress, m->port);
    /* Ethernet */
    assert_memory_equal(f, m->mac, 6);
    assert_memory_equal(f + 6, x->cfg.mac, 6);
    assert_int_equal(be16(f + 12), 0x0800);
    /* IPv4 */
    assert_int_equal(ip[0], 0x45);
    assert_int_equal(ip[1] & 0xfc, 0); /* DSCP 0: only the ECN bits */
    assert_int_equal(be16(ip + 2), k->len - 14);
    assert_int_equal(be16(ip + 4), 0);
    assert_int_equal(be16(ip + 6), 0x4000);
    assert_int_equal(ip[8], 64);
    assert_int_equal(ip[9], 17);
    assert_int_equal(be32(ip + 12), x->cfg.ip);
    assert_int_equal(be32(ip + 16), m->ip);
    assert_true(ipv4_csum_ok(ip));
    assert_int_equal(be16(ip + 10), ipv4_csum_calc(ip));
    /* UDP */
    assert_int_equal(be16(udp), x->cfg.udp_port);
    assert_int_equal(be16(udp + 2), m->udp_port);
    assert_int_equal(be16(udp + 4), k->len - 34);
    assert_int_not_equal(be16(udp + 6), 0);
    assert_true(udp_csum_ok(f, k->len));
    assert_int_equal(be16(udp + 6), udp_csum_calc(f, k->len));
    /* aggregation header */
    assert_int_equal(a[0], 0x11);
    assert_int_equal(a[1], 0);
    assert_int_equal(a[2] & 0xfe, retx ? 0x02 : 0x00);
    assert_int_equal(a[3], 0);
    assert_int_equal(be16(a + 4), jb->id);
    assert_int_equal(be16(a + 6), rank);
    assert_true(be16(a + 8) < jb->slots);
    assert_int_equal(be16(a + 20), 0);
}

/* The round-specific part of a RESULT: SET, slot, count, offset, tensor, TOS, elements. */
static void check_round(const cap_frame *k, const dspec *r, const uint32_t *want)
{
    const uint8_t *f = k->buf, *a = f + 42;
    assert_int_equal(be16(a + 4), r->job);
    assert_int_equal(a[2] & WS_FLAG_SET, r->set);
    assert_int_equal(be16(a + 8), r->slot);
    assert_int_equal(be16(a + 10), r->count);
    assert_int_equal(be32(a + 12), r->offset);
    assert_int_equal(be32(a + 16), r->tensor);
    assert_int_equal(f[15], r->tos);
    assert_int_equal(k->len, 64 + 4 * (size_t)r->count);
    for (unsigned e = 0; e < r->count; e++) {
        uint32_t got = be32(f + 64 + 4 * e);
        if (got != want[e])
            fail_msg("job %u rank %u element %u: got %08x want %08x", (unsigned)r->job,
                     (unsigned)be16(a + 6), e, (unsigned)got, (unsigned)want[e]);
    }
}

static void tally(fx *x, unsigned port, size_t len, ws_verdict v)
{
    ws_counters *t = &x->tally;
    t->rx_frames[port]++;
    t->rx_bytes[port] += len;
    switch (v.kind) {
    case WS_V_BYPASS:
        t->bypass++;
        break;
    case WS_V_ACCEPT:
        t->accepted++;
        break;
    case WS_V_COMPLETE:
        t->accepted++;
        t->results += x->cap.n;
        break;
    case WS_V_RESEND:
        t->resends++;
        t->drop[v.reason]++;
        break;
    case WS_V_DROP:
        t->drop[v.reason]++;
        break;
    }
    for (unsigned i = 0; i < x->cap.n; i++) {
        t->tx_frames[x->cap.f[i].egress]++;
        t->tx_bytes[x->cap.f[i].egress] += x->cap.f[i].len;
    }
}

/* One frame into ingress `port`: judge first (it must change nothing), then rx; the verdicts
 * must agree, and the emitted frames must be what the verdict says. */
static ws_verdict deliver(fx *x, unsigned port, const uint8_t *f, size_t len)
{
    ws_counters before = *ws_refdev_counters(x->dev);
    snapshot *sb = NULL, *sa = NULL;
    if (x->deep) {
        sb = malloc(sizeof *sb);
        sa = malloc(sizeof *sa);
        assert_non_null(sb);
        assert_non_null(sa);
        snap(x, sb);
    }
    ws_verdict j = ws_refdev_judge(x->dev, port, f, len);
    assert_memory_equal(&before, ws_refdev_counters(x->dev), sizeof before);
    if (x->deep) {
        snap(x, sa);
        snap_equal(sb, sa);
        free(sb);
        free(sa);
    }

    x->cap.n = 0;
    x->cap.overflow = 0;
    ws_verdict v = ws_refdev_rx(x->dev, port, f, len, cap_emit, &x->cap);
    if (v.kind != j.kind || v.reason != j.reason)
        fail_msg("judge said %d/%s, rx did %d/%s", j.kind, ws_reason_name(j.reason), v.kind,
                 ws_reason_name(v.reason));
    assert_int_equal(x->cap.overflow, 0);
    tally(x, port, len, v);

    switch (v.kind) {
    case WS_V_BYPASS:
        assert_int_equal(v.reason, WS_OK);
        assert_int_equal(x->cap.n, 1);
        assert_int_equal(x->cap.f[0].egress, x->cfg.bypass[port]);
        assert_int_equal(x->cap.f[0].len, len);
        assert_memory_equal(x->cap.f[0].buf, f, len);
        break;
    case WS_V_ACCEPT:
        assert_int_equal(v.reason, WS_OK);
        assert_int_equal(x->cap.n, 0);
        break;
    case WS_V_DROP:
        assert_int_not_equal(v.reason, WS_OK);
        assert_int_equal(x->cap.n, 0);
        break;
    case WS_V_COMPLETE: {
        assert_int_equal(v.reason, WS_OK);
        const ws_job *jb = job_of(x, be16(f + 46));
        assert_int_equal(x->cap.n, jb->workers);
        for (unsigned r = 0; r < jb->workers; r++) /* rank order */
            fail_unless_result_frame(x, &x->cap.f[r], jb, r, 0);
        break;
    }
    case WS_V_RESEND: {
        assert_int_equal(v.reason, WS_DROP_DUPLICATE);
        const ws_job *jb = job_of(x, be16(f + 46));
        assert_int_equal(x->cap.n, 1);
        fail_unless_result_frame(x, &x->cap.f[0], jb, be16(f + 48), 1);
        break;
    }
    default:
        fail_msg("unknown verdict kind %d", v.kind);
    }
    return v;
}

/* A DATA frame of d's rank (its own addresses), on its own device port. */
static ws_verdict send(fx *x, const dspec *d, const uint32_t *el)
{
    const ws_job *jb = job_of(x, d->job);
    const ws_member *m = &jb->member[d->rank];
    size_t len = build_from(x, m, d, el, x->frame);
    return deliver(x, m->port, x->frame, len);
}

#define EXPECT_V(v, k, r)                                                                        \
    do {                                                                                         \
        ws_verdict ev_ = (v);                                                                    \
        if (ev_.kind != (k) || ev_.reason != (r))                                                \
            fail_msg("verdict %d/%s, want %d/%s", ev_.kind, ws_reason_name(ev_.reason), (k),     \
                     ws_reason_name(r));                                                         \
    } while (0)

/* Device counters equal the tally; rx == accepted + bypass + sum(drop); tx == results +
 * resends + bypass. */
static void final_checks(const fx *x)
{
    const ws_counters *c = ws_refdev_counters(x->dev), *t = &x->tally;
    uint64_t rx = 0, tx = 0, drops = 0;
    for (unsigned p = 0; p < WS_LIMIT_PORTS; p++) {
        assert_int_equal(c->rx_frames[p], t->rx_frames[p]);
        assert_int_equal(c->rx_bytes[p], t->rx_bytes[p]);
        assert_int_equal(c->tx_frames[p], t->tx_frames[p]);
        assert_int_equal(c->tx_bytes[p], t->tx_bytes[p]);
        rx += c->rx_frames[p];
        tx += c->tx_frames[p];
    }
    assert_int_equal(c->accepted, t->accepted);
    assert_int_equal(c->results, t->results);
    assert_int_equal(c->resends, t->resends);
    assert_int_equal(c->bypass, t->bypass);
    assert_int_equal(c->drop[WS_OK], 0);
    for (int r = 1; r < WS_N_REASONS; r++) {
        if (c->drop[r] != t->drop[r])
            fail_msg("drop[%s] = %llu, want %llu", ws_reason_name((ws_reason)r),
                     (unsigned long long)c->drop[r], (unsigned long long)t->drop[r]);
        drops += c->drop[r];
    }
    assert_int_equal(rx, c->accepted + c->bypass + drops);
    assert_int_equal(tx, c->results + c->resends + c->bypass);
}

/* ---- malformed frames ----------------------------------------------------- */

typedef enum {
    M_IP_CSUM,
    M_IP_LEN,
    M_IP_MF,
    M_IP_FRAGOFF,
    M_IP_OPTIONS,
    M_IP_VER6,
    M_UDP_CSUM,
    M_UDP_LEN,
    M_VERSION,
    M_TYPE_RESULT,
    M_TYPE_OTHER,
    M_DTYPE,
    M_FLAGS_RSVD,
    M_RSVD_BYTE,
    M_RSVD_TAIL,
    M_UNKNOWN_JOB,
    M_BAD_RANK,
    M_SPOOF_MAC,
    M_SPOOF_IP,
    M_SPOOF_PORT,
    M_BAD_SLOT,
    M_COUNT0,
    M_COUNT_BIG,
    M_COUNT_OFF,
    M_TRAILING,
    M_TRUNC_RAW,
    M_TRUNC_FIXED,
    M_N
} mutation;

/* Turn the valid DATA frame f (len bytes, buffer of MAX_FRAME) into a malformed one; returns
 * its length and the reason the device must give. */
static size_t mutate(const fx *x, uint8_t *f, size_t len, mutation m, ws_reason *want)
{
    uint8_t *ip = f + 14, *udp = f + 34, *a = f + 42;
    const ws_job *jb = job_of(x, be16(a + 4));
    unsigned count = be16(a + 10);
    switch (m) {
    case M_IP_CSUM:
        ip[11] ^= 0x01;
        *want = WS_DROP_BAD_IPV4;
        return len;
    case M_IP_LEN:
        put16(ip + 2, (uint16_t)(be16(ip + 2) + 4));
        ws_fix_checksums(f, len);
        *want = WS_DROP_BAD_IPV4;
        return len;
    case M_IP_MF:
        put16(ip + 6, 0x2000);
        ws_fix_checksums(f, len);
        *want = WS_DROP_BAD_IPV4;
        return len;
    case M_IP_FRAGOFF:
        put16(ip + 6, 0x0010);
        ws_fix_checksums(f, len);
        *want = WS_DROP_BAD_IPV4;
        return len;
    case M_IP_OPTIONS: /* four NOP options: the UDP header moves to byte 38 */
        memmove(f + 38, f + 34, len - 34);
        memset(f + 34, 0x01, 4);
        len += 4;
        ip[0] = 0x46;
        put16(ip + 2, (uint16_t)(len - 14));
        ws_fix_checksums(f, len);
        *want = WS_DROP_BAD_IPV4;
        return len;
    case M_IP_VER6:
        ip[0] = 0x65;
        ws_fix_checksums(f, len);
        *want = WS_DROP_BAD_IPV4;
        return len;
    case M_UDP_CSUM: {
        uint16_t c = be16(udp + 6), b = c ^ 0x0100;
        if (b == 0)
            b = c ^ 0x0200;
        put16(udp + 6, b);
        *want = WS_DROP_BAD_UDP;
        return len;
    }
    case M_UDP_LEN:
        put16(udp + 4, (uint16_t)(be16(udp + 4) - 4));
        ws_fix_checksums(f, len);
        *want = WS_DROP_BAD_UDP;
        return len;
    case M_VERSION:
        a[0] = 0x20;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_TYPE_RESULT:
        a[0] = 0x11;
        *want = WS_DROP_RESULT_TO_DEVICE;
        break;
    case M_TYPE_OTHER:
        a[0] = 0x12;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_DTYPE:
        a[1] = 1;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_FLAGS_RSVD:
        a[2] |= 0x04;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_RSVD_BYTE:
        a[3] = 0x80;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_RSVD_TAIL:
        a[21] = 0x01;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_UNKNOWN_JOB:
        put16(a + 4, 0xbeef);
        assert_null(ws_config_find_job(&x->cfg, 0xbeef));
        *want = WS_DROP_UNKNOWN_JOB;
        break;
    case M_BAD_RANK:
        put16(a + 6, (uint16_t)jb->workers);
        *want = WS_DROP_BAD_RANK;
        break;
    case M_SPOOF_MAC:
        f[11] ^= 0x80;
        *want = WS_DROP_SPOOFED;
        return len;
    case M_SPOOF_IP:
        ip[15] ^= 0x40;
        *want = WS_DROP_SPOOFED;
        break;
    case M_SPOOF_PORT:
        udp[0] ^= 0x40;
        *want = WS_DROP_SPOOFED;
        break;
    case M_BAD_SLOT:
        put16(a + 8, (uint16_t)jb->slots);
        *want = WS_DROP_BAD_SLOT;
        break;
    case M_COUNT0:
        put16(a + 10, 0);
        *want = WS_DROP_BAD_COUNT;
        break;
    case M_COUNT_BIG: {
        unsigned n = jb->max_count + 1;
        memset(f + len, 0, 64 + 4 * (size_t)n - len);
        len = 64 + 4 * (size_t)n;
        put16(a + 10, (uint16_t)n);
        fix_lengths(f, len);
        *want = WS_DROP_BAD_COUNT;
        return len;
    }
    case M_COUNT_OFF: {
        unsigned n = count >= 2 ? count - 1 : count + 1;
        put16(a + 10, (uint16_t)n);
        *want = n <= jb->max_count ? WS_DROP_BAD_LENGTH : WS_DROP_BAD_COUNT;
        break;
    }
    case M_TRAILING:
        memset(f + len, 0, 4);
        len += 4;
        fix_lengths(f, len);
        *want = WS_DROP_BAD_LENGTH;
        return len;
    case M_TRUNC_RAW:
        *want = WS_DROP_BAD_IPV4;
        return 50;
    case M_TRUNC_FIXED:
        fix_lengths(f, 60);
        *want = WS_DROP_BAD_LENGTH;
        return 60;
    case M_N:
        break;
    }
    ws_fix_checksums(f, len);
    return len;
}

/* ---- bypass frames -------------------------------------------------------- */

static size_t make_arp(uint8_t *f, uint32_t target_ip)
{
    static const uint8_t hdr[22] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x11, 0x22,
                                    0x33, 0x44, 0x55, 0x08, 0x06, 0x00, 0x01, 0x08, 0x00,
                                    0x06, 0x04, 0x00, 0x01};
    memset(f, 0, 42);
    memcpy(f, hdr, 22);
    memcpy(f + 22, hdr + 6, 6);
    put32(f + 28, 0x0a000001u);
    put32(f + 38, target_ip);
    return 42;
}

/* An untagged IPv4 frame of len bytes (>= 42) with a UDP-shaped header after the IP header. */
static size_t make_ipv4(const fx *x, uint8_t *f, size_t len, uint32_t dst_ip, uint8_t proto,
                        uint16_t dport, uint8_t fill)
{
    memcpy(f, x->cfg.mac, 6);
    static const uint8_t src[6] = {0x02, 0x99, 0x88, 0x77, 0x66, 0x55};
    memcpy(f + 6, src, 6);
    put16(f + 12, 0x0800);
    uint8_t *ip = f + 14;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(len - 14));
    put16(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = proto;
    put32(ip + 12, 0x0a0000c8u);
    put32(ip + 16, dst_ip);
    put16(ip + 10, ipv4_csum_calc(ip));
    put16(f + 34, 5555);
    put16(f + 36, dport);
    put16(f + 38, (uint16_t)(len - 34));
    put16(f + 40, 0);
    for (size_t i = 42; i < len; i++)
        f[i] = (uint8_t)(fill + i);
    return len;
}

/* ---- stream engine: workers following the SwitchML window rule ----------- */

#define ENG_JOBS 3

typedef struct {
    uint16_t id;
    const ws_job *jb;
    unsigned n_chunks;
    uint32_t tensor_base;
    unsigned next[WS_LIMIT_WORKERS]; /* next chunk each worker sends for the first time */
    uint8_t *st;    /* [w * n_chunks + i]: 0 unsent, 1 sent, 2 result received */
    uint8_t *dlv;   /* [w * n_chunks + i]: the contribution reached the device */
    unsigned *ndlv; /* per chunk: contributions that reached the device */
    uint8_t *done;  /* per chunk: round complete */
    unsigned n_recv, completes, resends, dups;
} jstream;

typedef struct {
    fx *x;
    ws_rng rng;
    double p_loss, p_rloss, p_retx, p_dup, p_noise;
    unsigned n;
    jstream js[ENG_JOBS];
    unsigned noise_kind[M_N + 5];
    snapshot before, after;
} engine;

static void eng_init(engine *g, fx *x, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->x = x;
    g->rng.s = seed;
}

static void eng_add(engine *g, uint16_t id, unsigned n_chunks, uint32_t tensor_base)
{
    assert_true(g->n < ENG_JOBS);
    jstream *s = &g->js[g->n++];
    s->id = id;
    s->jb = job_of(g->x, id);
    s->n_chunks = n_chunks;
    s->tensor_base = tensor_base;
    size_t wn = (size_t)s->jb->workers * n_chunks;
    s->st = fx_alloc(g->x, wn);
    s->dlv = fx_alloc(g->x, wn);
    s->ndlv = fx_alloc(g->x, n_chunks * sizeof(unsigned));
    s->done = fx_alloc(g->x, n_chunks);
}

static unsigned chunk_count(const jstream *s, unsigned i)
{
    return 1 + (unsigned)(ws_mix64((uint64_t)s->id << 32 | i) % s->jb->max_count);
}

/* Chunk i of a stream: slot i mod S, SET (i div S) mod 2; the tensor changes every 10 chunks
 * and the chunk sequence continues across tensors. */
static dspec chunk_spec(const jstream *s, unsigned i, unsigned w)
{
    unsigned S = s->jb->slots;
    dspec d = mk(s->id, w, i % S, (i / S) & 1, chunk_count(s, i), i * 4096u,
                 s->tensor_base + i / 10);
    d.tos = ECT0;
    return d;
}

static uint32_t chunk_val(const jstream *s, unsigned i, unsigned w, unsigned e)
{
    return gen_bits(ws_mix64((uint64_t)s->id << 48 ^ (uint64_t)i << 24 ^ (uint64_t)w << 16 ^ e));
}

static void chunk_vals(const jstream *s, unsigned i, unsigned w, uint32_t *el)
{
    unsigned n = chunk_count(s, i);
    for (unsigned e = 0; e < n; e++)
        el[e] = chunk_val(s, i, w, e);
}

static void chunk_expect(const jstream *s, unsigned i, uint32_t *want)
{
    unsigned n = chunk_count(s, i), W = s->jb->workers;
    uint32_t col[WS_LIMIT_WORKERS];
    for (unsigned e = 0; e < n; e++) {
        for (unsigned w = 0; w < W; w++)
            col[w] = chunk_val(s, i, w, e);
        want[e] = ws_sum_f32(col, W);
    }
}

static void mark_received(jstream *s, unsigned w, unsigned i)
{
    uint8_t *p = &s->st[(size_t)w * s->n_chunks + i];
    if (*p != 2) {
        *p = 2;
        s->n_recv++;
    }
}

/* Worker w sends chunk i (first time or again); the engine predicts the verdict. */
static void eng_send(engine *g, jstream *s, unsigned w, unsigned i, int retx)
{
    fx *x = g->x;
    unsigned W = s->jb->workers;
    size_t wi = (size_t)w * s->n_chunks + i;
    dspec d = chunk_spec(s, i, w);
    d.retx = (uint8_t)retx;
    uint32_t el[MAXC];
    chunk_vals(s, i, w, el);
    const ws_member *m = &s->jb->member[w];
    size_t len = build_from(x, m, &d, el, x->frame);
    if (s->st[wi] == 0)
        s->st[wi] = 1;
    if (ws_rng_chance(&g->rng, g->p_loss))
        return; /* lost before the device */

    ws_verdict v = deliver(x, m->port, x->frame, len);
    if (s->dlv[wi]) {
        s->dups++;
        if (s->done[i])
            EXPECT_V(v, WS_V_RESEND, WS_DROP_DUPLICATE);
        else
            EXPECT_V(v, WS_V_DROP, WS_DROP_DUPLICATE);
    } else {
        s->dlv[wi] = 1;
        if (++s->ndlv[i] == W) {
            EXPECT_V(v, WS_V_COMPLETE, WS_OK);
            s->done[i] = 1;
            s->completes++;
        } else {
            EXPECT_V(v, WS_V_ACCEPT, WS_OK);
        }
    }
    if (v.kind == WS_V_COMPLETE || v.kind == WS_V_RESEND) {
        uint32_t want[MAXC];
        chunk_expect(s, i, want);
        dspec r = chunk_spec(s, i, 0);
        for (unsigned k = 0; k < x->cap.n; k++) {
            check_round(&x->cap.f[k], &r, want);
            if (!ws_rng_chance(&g->rng, g->p_rloss))
                mark_received(s, be16(x->cap.f[k].buf + 48), i);
        }
        if (v.kind == WS_V_RESEND)
            s->resends++;
    }
}

