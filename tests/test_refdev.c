/* test_refdev.c - cmocka tests of sim/refdev.c, the software reference of the device,
 * against docs/protocol.md: numbers (section 6), the frame layout (section 2) and the aggregation
 * semantics (sections 4 and 5).
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

#include "wiresum/config.h"
#include "wiresum/refdev.h"
#include "rng.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"

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
    assert_int_equal(a[0], WS_VERSION << 4 | WS_TYPE_RESULT);
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
    t->rx_bytes[port] += len < WS_RX_BYTES_MAX ? len : WS_RX_BYTES_MAX;
    switch (v.kind) {
    case WS_V_OVERSIZE:
        t->oversize++;
        break;
    case WS_V_BYPASS:
        t->bypass++;
        break;
    case WS_V_ACCEPT:
        t->accepted++;
        break;
    case WS_V_COMPLETE:
    case WS_V_FANOUT:
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
    case WS_V_OVERSIZE:
        assert_int_equal(v.reason, WS_OK);
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
    assert_int_equal(c->oversize, t->oversize);
    assert_int_equal(c->drop[WS_OK], 0);
    for (int r = 1; r < WS_N_REASONS; r++) {
        if (c->drop[r] != t->drop[r])
            fail_msg("drop[%s] = %llu, want %llu", ws_reason_name((ws_reason)r),
                     (unsigned long long)c->drop[r], (unsigned long long)t->drop[r]);
        drops += c->drop[r];
    }
    assert_int_equal(rx, c->accepted + c->bypass + c->oversize + drops);
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
        a[0] = (WS_VERSION + 1) << 4;
        *want = WS_DROP_BAD_HEADER;
        break;
    case M_TYPE_RESULT:
        a[0] = WS_VERSION << 4 | WS_TYPE_RESULT;
        *want = WS_DROP_RESULT_TO_DEVICE;
        break;
    case M_TYPE_OTHER:
        a[0] = WS_VERSION << 4 | WS_TYPE_PARTIAL; /* a device with partial = 0 */
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
    unsigned base; /* local chunk i is chunk base + i of the job's sequence */
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

static void eng_add(engine *g, uint16_t id, unsigned n_chunks, uint32_t tensor_base,
                    unsigned base)
{
    assert_true(g->n < ENG_JOBS);
    jstream *s = &g->js[g->n++];
    s->id = id;
    s->jb = job_of(g->x, id);
    s->n_chunks = n_chunks;
    s->tensor_base = tensor_base;
    s->base = base;
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
    unsigned S = s->jb->slots, q = s->base + i;
    dspec d = mk(s->id, w, q % S, (q / S) & 1, chunk_count(s, i), q * 4096u,
                 s->tensor_base + q / 10);
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

/* A frame the device must drop (or bypass) without any change to any set state. */
#define NZ_ARP (M_N + 0)
#define NZ_OTHER_HOST (M_N + 1)
#define NZ_OTHER_PORT (M_N + 2)
#define NZ_MISMATCH (M_N + 3)
#define NZ_EARLY (M_N + 4)

static void eng_noise(engine *g, jstream *s)
{
    fx *x = g->x;
    unsigned W = s->jb->workers, S = s->jb->slots, n = s->n_chunks;
    unsigned kind = (unsigned)ws_rng_below(&g->rng, M_N + 5);
    unsigned w = (unsigned)ws_rng_below(&g->rng, W);
    unsigned i = s->next[w] < n ? s->next[w] : n - 1;
    unsigned port = s->jb->member[w].port;
    ws_reason want = WS_OK;
    size_t len = 0;
    uint32_t el[MAXC];
    dspec d;

    if (kind == NZ_MISMATCH) { /* into an open round, from a worker not in it yet */
        unsigned start = (unsigned)ws_rng_below(&g->rng, n), j, k;
        for (k = 0; k < n; k++) {
            j = (start + k) % n;
            if (s->ndlv[j] > 0 && s->ndlv[j] < W)
                break;
        }
        if (k == n) {
            kind = (unsigned)ws_rng_below(&g->rng, M_N);
        } else {
            unsigned v = 0;
            while (s->dlv[(size_t)v * n + j])
                v++;
            d = chunk_spec(s, j, v);
            unsigned how = (unsigned)ws_rng_below(&g->rng, 3);
            if (how == 0)
                d.offset += 4;
            else if (how == 1)
                d.tensor ^= 0x8000u;
            else if (s->jb->max_count > 1)
                d.count = (uint16_t)(d.count % s->jb->max_count + 1);
            else
                d.offset += 8;
            for (unsigned e = 0; e < d.count; e++)
                el[e] = gen_val(&g->rng);
            port = s->jb->member[v].port;
            len = build_from(x, &s->jb->member[v], &d, el, x->frame);
            want = WS_DROP_MISMATCH;
        }
    } else if (kind == NZ_EARLY) { /* w moved on to j+S, somebody has not: j's set is early */
        unsigned start = (unsigned)ws_rng_below(&g->rng, n), j = 0, k;
        for (k = 0; k < n; k++) {
            j = (start + k) % n;
            if (s->done[j] && j + S < n && s->ndlv[j + S] > 0 && s->ndlv[j + S] < W)
                break;
        }
        if (k == n) {
            kind = (unsigned)ws_rng_below(&g->rng, M_N);
        } else {
            unsigned v = 0;
            while (!s->dlv[(size_t)v * n + j + S])
                v++;
            d = chunk_spec(s, j + 2 * S, v);
            ws_set_state st = get_state(x, s->id, d.slot, d.set);
            assert_int_equal(st.complete, 1);
            assert_true(st.bitmap != 0 && !(st.bitmap >> v & 1));
            for (unsigned e = 0; e < d.count; e++)
                el[e] = gen_val(&g->rng);
            port = s->jb->member[v].port;
            len = build_from(x, &s->jb->member[v], &d, el, x->frame);
            want = WS_DROP_EARLY;
        }
    }
    if (kind == NZ_ARP) {
        len = make_arp(x->frame, x->cfg.ip);
        port = (unsigned)ws_rng_below(&g->rng, x->cfg.n_ports);
    } else if (kind == NZ_OTHER_HOST) {
        len = make_ipv4(x, x->frame, 60 + (size_t)ws_rng_below(&g->rng, 1455), 0x0a000063u, 17,
                        x->cfg.udp_port, (uint8_t)ws_rng_next(&g->rng));
        port = (unsigned)ws_rng_below(&g->rng, x->cfg.n_ports);
    } else if (kind == NZ_OTHER_PORT) {
        len = make_ipv4(x, x->frame, 100, x->cfg.ip, 17, (uint16_t)(x->cfg.udp_port + 1), 7);
        port = (unsigned)ws_rng_below(&g->rng, x->cfg.n_ports);
    } else if (kind < M_N) {
        d = chunk_spec(s, i, w);
        for (unsigned e = 0; e < d.count; e++)
            el[e] = gen_val(&g->rng);
        len = build_from(x, &s->jb->member[w], &d, el, x->frame);
        len = mutate(x, x->frame, len, (mutation)kind, &want);
    }
    g->noise_kind[kind]++;

    snap(x, &g->before);
    ws_verdict v = deliver(x, port, x->frame, len);
    snap(x, &g->after);
    snap_equal(&g->before, &g->after);
    if (kind == NZ_ARP || kind == NZ_OTHER_HOST || kind == NZ_OTHER_PORT)
        EXPECT_V(v, WS_V_BYPASS, WS_OK);
    else
        EXPECT_V(v, WS_V_DROP, want);
}

static int stream_finished(const jstream *s)
{
    return s->n_recv == s->jb->workers * s->n_chunks;
}

/* One action of one worker; 0 when every stream is finished. */
static int eng_step(engine *g)
{
    unsigned live[ENG_JOBS], nl = 0;
    for (unsigned j = 0; j < g->n; j++)
        if (!stream_finished(&g->js[j]))
            live[nl++] = j;
    if (nl == 0)
        return 0;
    jstream *s = &g->js[live[ws_rng_below(&g->rng, nl)]];
    if (ws_rng_chance(&g->rng, g->p_noise)) {
        eng_noise(g, s);
        return 1;
    }
    unsigned S = s->jb->slots, n = s->n_chunks;
    unsigned w = (unsigned)ws_rng_below(&g->rng, s->jb->workers);
    unsigned nx = s->next[w], lo = nx >= S ? nx - S : 0;
    int first_ok = nx < n && (nx < S || s->st[(size_t)w * n + nx - S] == 2);
    unsigned out[WS_LIMIT_SLOTS < 64 ? WS_LIMIT_SLOTS : 64], rcv[64], nout = 0, nrcv = 0;
    for (unsigned j = lo; j < nx; j++) {
        uint8_t v = s->st[(size_t)w * n + j];
        if (v == 1 && nout < 64)
            out[nout++] = j;
        else if (v == 2 && nrcv < 64)
            rcv[nrcv++] = j;
    }
    if (nrcv && ws_rng_chance(&g->rng, g->p_dup)) /* a duplicate of a chunk it has the result of */
        eng_send(g, s, w, rcv[ws_rng_below(&g->rng, nrcv)], 1);
    else if (nout && ws_rng_chance(&g->rng, g->p_retx)) /* timeout: send again */
        eng_send(g, s, w, out[ws_rng_below(&g->rng, nout)], 1);
    else if (first_ok) {
        s->next[w]++;
        eng_send(g, s, w, nx, 0);
    }
    return 1;
}

static void eng_run(engine *g)
{
    unsigned long total = 0, steps = 0;
    for (unsigned j = 0; j < g->n; j++)
        total += (unsigned long)g->js[j].jb->workers * g->js[j].n_chunks;
    while (eng_step(g))
        if (++steps > 200 * total + 10000)
            fail_msg("stream engine made no progress after %lu steps", steps);
    for (unsigned j = 0; j < g->n; j++) {
        const jstream *s = &g->js[j];
        assert_int_equal(s->completes, s->n_chunks);
        for (unsigned i = 0; i < s->n_chunks; i++)
            assert_int_equal(s->ndlv[i], s->jb->workers);
    }
}

/* ======================================================================== */
/* 1. two workers, one chunk                                                */

static void test_two_workers_one_chunk(void **state)
{
    fx *x = *state;
    enum { N = 37 };
    ws_job *jb = add_job(&x->cfg, 7, 2, 4, 0, 64);
    jb->member[0].port = 3;
    jb->member[1].port = 1;
    start(x);

    ws_rng rng = {0x1234};
    uint32_t v[2 * N], want[N];
    for (unsigned k = 0; k < 2 * N; k++)
        v[k] = gen_val(&rng);
    v[0] = F_ONE; /* a tie: 1 + 2^-24 rounds to even */
    v[N] = 0x33800000u;
    expect_sums(v, 2, N, want);
    assert_int_equal(want[0], F_ONE);
    for (unsigned e = 0; e < N; e++) /* two operands: the FPU's a + b */
        assert_int_equal(want[e], f2b(b2f(v[e]) + b2f(v[N + e])));

    dspec d0 = mk(7, 0, 1, 1, N, 1000, 0xdeadbeefu), d1 = mk(7, 1, 1, 1, N, 1000, 0xdeadbeefu);
    EXPECT_V(send(x, &d0, v), WS_V_ACCEPT, WS_OK);
    assert_int_equal(x->cap.n, 0);
    ws_set_state st = get_state(x, 7, 1, 1);
    assert_int_equal(st.complete, 0);
    assert_int_equal(st.bitmap, 1);
    assert_int_equal(st.offset, 1000);
    assert_int_equal(st.tensor, 0xdeadbeefu);
    assert_int_equal(st.count, N);
    check_state(x, 7, 1, 0, 1, 0);

    EXPECT_V(send(x, &d1, v + N), WS_V_COMPLETE, WS_OK);
    assert_int_equal(x->cap.n, 2);
    check_state(x, 7, 1, 1, 1, 3);
    static const uint8_t devmac[6] = {0x02, 0, 0, 0, 0, 0xfe};
    for (unsigned r = 0; r < 2; r++) {
        const cap_frame *k = &x->cap.f[r];
        const uint8_t *f = k->buf, *ip = f + 14, *udp = f + 34, *a = f + 42;
        const ws_member *m = &jb->member[r];
        assert_int_equal(k->egress, r == 0 ? 3 : 1);
        assert_int_equal(k->len, 64 + 4 * N);
        assert_memory_equal(f, m->mac, 6);
        assert_memory_equal(f + 6, devmac, 6);
        assert_int_equal(f[12], 0x08);
        assert_int_equal(f[13], 0x00);
        assert_int_equal(ip[0], 0x45);
        assert_int_equal(ip[1], 0x00);
        assert_int_equal(be16(ip + 2), 50 + 4 * N);
        assert_int_equal(be16(ip + 4), 0);
        assert_int_equal(ip[6], 0x40);
        assert_int_equal(ip[7], 0x00);
        assert_int_equal(ip[8], 64);
        assert_int_equal(ip[9], 17);
        assert_int_equal(be32(ip + 12), 0x0a0000feu);
        assert_int_equal(be32(ip + 16), m->ip);
        assert_true(ipv4_csum_ok(ip));
        assert_int_equal(be16(udp), 48900);
        assert_int_equal(be16(udp + 2), m->udp_port);
        assert_int_equal(be16(udp + 4), 30 + 4 * N);
        assert_int_not_equal(be16(udp + 6), 0);
        assert_true(udp_csum_ok(f, k->len));
        assert_int_equal(a[0], WS_VERSION << 4 | WS_TYPE_RESULT);
        assert_int_equal(a[1], 0);    /* binary32 */
        assert_int_equal(a[2], 0x01); /* SET 1, no RETX */
        assert_int_equal(a[3], 0);
        assert_int_equal(be16(a + 4), 7);
        assert_int_equal(be16(a + 6), r);
        assert_int_equal(be16(a + 8), 1);
        assert_int_equal(be16(a + 10), N);
        assert_int_equal(be32(a + 12), 1000);
        assert_int_equal(be32(a + 16), 0xdeadbeefu);
        assert_int_equal(be16(a + 20), 0);
        for (unsigned e = 0; e < N; e++)
            assert_int_equal(be32(f + 64 + 4 * e), want[e]);
    }
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->accepted, 2);
    assert_int_equal(c->results, 2);
    assert_int_equal(c->resends, 0);
    assert_int_equal(c->rx_frames[3], 1);
    assert_int_equal(c->rx_frames[1], 1);
    assert_int_equal(c->tx_frames[3], 1);
    assert_int_equal(c->tx_frames[1], 1);
    assert_int_equal(c->tx_bytes[3], 64 + 4 * N);
    assert_int_equal(c->tx_frames[0] + c->tx_frames[2], 0);
    final_checks(x);
}

/* ======================================================================== */
/* 2. loss then retransmission                                              */

static void test_loss_then_retx(void **state)
{
    fx *x = *state;
    enum { N = 16 };
    add_job(&x->cfg, 1, 2, 2, 0, 32);
    start(x);
    ws_rng rng = {2};
    uint32_t v[2 * N], want[N];
    for (unsigned k = 0; k < 2 * N; k++)
        v[k] = gen_val(&rng);
    expect_sums(v, 2, N, want);

    dspec d0 = mk(1, 0, 0, 0, N, 0, 3), d1 = mk(1, 1, 0, 0, N, 0, 3);
    EXPECT_V(send(x, &d0, v), WS_V_ACCEPT, WS_OK);
    /* worker 1's packet is lost: never sent. Worker 0 times out and sends again. */
    d0.retx = 1;
    EXPECT_V(send(x, &d0, v), WS_V_DROP, WS_DROP_DUPLICATE);
    check_state(x, 1, 0, 0, 0, 1);
    /* worker 1 retransmits with RETX: an ordinary contribution that completes the round */
    d1.retx = 1;
    EXPECT_V(send(x, &d1, v + N), WS_V_COMPLETE, WS_OK);
    dspec r = mk(1, 0, 0, 0, N, 0, 3);
    for (unsigned k = 0; k < 2; k++)
        check_round(&x->cap.f[k], &r, want); /* RETX clear: deliver() checked it */
    /* worker 0 lost its RESULT: its next retransmission gets it again */
    EXPECT_V(send(x, &d0, v), WS_V_RESEND, WS_DROP_DUPLICATE);
    assert_int_equal(be16(x->cap.f[0].buf + 48), 0);
    check_round(&x->cap.f[0], &r, want);
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->accepted, 2);
    assert_int_equal(c->results, 2);
    assert_int_equal(c->resends, 1);
    assert_int_equal(c->drop[WS_DROP_DUPLICATE], 2);
    final_checks(x);
}

/* ======================================================================== */
/* 3. duplicate before completion                                           */

static void test_dup_before_completion(void **state)
{
    fx *x = *state;
    enum { N = 8 };
    add_job(&x->cfg, 2, 3, 2, 0, 16);
    start(x);
    ws_rng rng = {3};
    uint32_t v[3 * N], want[N], twice[4 * N], want2[N];
    for (unsigned k = 0; k < 3 * N; k++)
        v[k] = gen_val(&rng);
    v[0] = F_ONE;
    expect_sums(v, 3, N, want);
    memcpy(twice, v, sizeof v);
    memcpy(twice + 3 * N, v, N * sizeof *v);
    expect_sums(twice, 4, N, want2);
    int differs = 0;
    for (unsigned e = 0; e < N; e++)
        differs |= want[e] != want2[e];
    assert_true(differs); /* adding worker 0 twice would show */

    dspec d[3];
    for (unsigned w = 0; w < 3; w++)
        d[w] = mk(2, w, 1, 0, N, 64, 9);
    EXPECT_V(send(x, &d[0], v), WS_V_ACCEPT, WS_OK);
    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    EXPECT_V(send(x, &d[0], v), WS_V_DROP, WS_DROP_DUPLICATE);
    assert_int_equal(x->cap.n, 0);
    d[0].retx = 1; /* with RETX and other values: still a duplicate */
    uint32_t other[N];
    for (unsigned e = 0; e < N; e++)
        other[e] = F_1E30;
    EXPECT_V(send(x, &d[0], other), WS_V_DROP, WS_DROP_DUPLICATE);
    snap(x, b);
    snap_equal(a, b);
    EXPECT_V(send(x, &d[1], v + N), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &d[0], v), WS_V_DROP, WS_DROP_DUPLICATE);
    EXPECT_V(send(x, &d[2], v + 2 * N), WS_V_COMPLETE, WS_OK);
    dspec r = mk(2, 0, 1, 0, N, 64, 9);
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &r, want);
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->accepted, 3);
    assert_int_equal(c->drop[WS_DROP_DUPLICATE], 3);
    assert_int_equal(c->resends, 0);
    assert_int_equal(c->results, 3);
    final_checks(x);
}

/* ======================================================================== */
/* 4. duplicate after completion                                            */

static void test_dup_after_completion(void **state)
{
    fx *x = *state;
    enum { N = 21 };
    ws_job *jb = add_job(&x->cfg, 300, 2, 2, 0, 32);
    jb->member[0].port = 0;
    jb->member[1].port = 2;
    start(x);
    ws_rng rng = {4};
    uint32_t v[2 * N], want[N];
    for (unsigned k = 0; k < 2 * N; k++)
        v[k] = gen_val(&rng);
    expect_sums(v, 2, N, want);
    dspec d0 = mk(300, 0, 1, 1, N, 7777, 42), d1 = mk(300, 1, 1, 1, N, 7777, 42);
    EXPECT_V(send(x, &d0, v), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &d1, v + N), WS_V_COMPLETE, WS_OK);
    uint8_t orig[64 + 4 * N];
    assert_int_equal(x->cap.f[1].len, sizeof orig);
    memcpy(orig, x->cap.f[1].buf, sizeof orig); /* worker 1's RESULT */

    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    for (unsigned rep = 0; rep < 3; rep++) {
        d1.retx = (uint8_t)(rep & 1);
        EXPECT_V(send(x, &d1, v + N), WS_V_RESEND, WS_DROP_DUPLICATE);
        assert_int_equal(x->cap.n, 1);
        const cap_frame *k = &x->cap.f[0];
        assert_int_equal(k->egress, 2);
        assert_int_equal(k->len, sizeof orig);
        assert_int_equal(k->buf[44], WS_FLAG_SET | WS_FLAG_RETX);
        /* identical to the original except the RETX flag and the UDP checksum */
        assert_memory_equal(k->buf, orig, 40);
        assert_memory_equal(k->buf + 42, orig + 42, 2);
        assert_memory_equal(k->buf + 45, orig + 45, sizeof orig - 45);
        dspec r = mk(300, 1, 1, 1, N, 7777, 42);
        check_round(k, &r, want);
        const ws_counters *c = ws_refdev_counters(x->dev);
        assert_int_equal(c->resends, rep + 1);
        assert_int_equal(c->drop[WS_DROP_DUPLICATE], rep + 1);
        assert_int_equal(c->results, 2);
        assert_int_equal(c->tx_frames[2], rep + 2);
        assert_int_equal(c->tx_frames[0], 1);
    }
    /* a duplicate is judged by the worker's bit alone: with another offset, tensor and count
     * it still gets the round's own RESULT */
    dspec odd = mk(300, 1, 1, 1, 5, 1, 99);
    EXPECT_V(send(x, &odd, v), WS_V_RESEND, WS_DROP_DUPLICATE);
    dspec rr = mk(300, 1, 1, 1, N, 7777, 42);
    check_round(&x->cap.f[0], &rr, want);
    assert_memory_equal(x->cap.f[0].buf + 45, orig + 45, sizeof orig - 45);
    /* worker 0's duplicate goes to worker 0 only */
    EXPECT_V(send(x, &d0, v), WS_V_RESEND, WS_DROP_DUPLICATE);
    assert_int_equal(x->cap.f[0].egress, 0);
    assert_int_equal(be16(x->cap.f[0].buf + 48), 0);
    snap(x, b);
    snap_equal(a, b);
    final_checks(x);
}

/* ======================================================================== */
/* 5. early packet                                                          */

static void test_early(void **state)
{
    fx *x = *state;
    enum { S = 2, N = 6, C = 1 };
    add_job(&x->cfg, 5, 2, S, 0, 8);
    start(x);
    ws_rng rng = {5};
    uint32_t v[3][2 * N], want[N];
    for (unsigned c = 0; c < 3; c++)
        for (unsigned k = 0; k < 2 * N; k++)
            v[c][k] = gen_val(&rng);
    /* chunk c: slot c mod S, SET (c div S) mod 2 */
    dspec c1[2], c3[2], c5[2];
    for (unsigned w = 0; w < 2; w++) {
        c1[w] = mk(5, w, C % S, (C / S) & 1, N, C * N, 1);
        c3[w] = mk(5, w, (C + S) % S, ((C + S) / S) & 1, N, (C + S) * N, 1);
        c5[w] = mk(5, w, (C + 2 * S) % S, ((C + 2 * S) / S) & 1, N, (C + 2 * S) * N, 1);
    }
    assert_int_equal(c1[0].set, 0);
    assert_int_equal(c3[0].set, 1);
    assert_int_equal(c5[0].set, 0);
    EXPECT_V(send(x, &c1[0], v[0]), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &c1[1], v[0] + N), WS_V_COMPLETE, WS_OK);
    check_state(x, 5, 1, 0, 1, 3);
    EXPECT_V(send(x, &c3[0], v[1]), WS_V_ACCEPT, WS_OK); /* worker 0 moves on */
    check_state(x, 5, 1, 0, 1, 2);                        /* its bit left set 0 */
    check_state(x, 5, 1, 1, 0, 1);

    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    EXPECT_V(send(x, &c5[0], v[2]), WS_V_DROP, WS_DROP_EARLY);
    c5[0].retx = 1;
    EXPECT_V(send(x, &c5[0], v[2]), WS_V_DROP, WS_DROP_EARLY);
    c5[0].retx = 0;
    snap(x, b);
    snap_equal(a, b);
    assert_int_equal(ws_refdev_counters(x->dev)->drop[WS_DROP_EARLY], 2);
    assert_int_equal(ws_refdev_counters(x->dev)->accepted, 3);

    EXPECT_V(send(x, &c3[1], v[1] + N), WS_V_COMPLETE, WS_OK);
    check_state(x, 5, 1, 0, 1, 0); /* everybody moved on: set 0 free */
    check_state(x, 5, 1, 1, 1, 3);
    EXPECT_V(send(x, &c5[0], v[2]), WS_V_ACCEPT, WS_OK);
    ws_set_state st = get_state(x, 5, 1, 0);
    assert_int_equal(st.complete, 0);
    assert_int_equal(st.bitmap, 1);
    assert_int_equal(st.offset, (C + 2 * S) * N);
    check_state(x, 5, 1, 1, 1, 2);
    EXPECT_V(send(x, &c5[1], v[2] + N), WS_V_COMPLETE, WS_OK);
    expect_sums(v[2], 2, N, want);
    dspec r = c5[0];
    for (unsigned k = 0; k < 2; k++)
        check_round(&x->cap.f[k], &r, want);
    final_checks(x);
}

/* ======================================================================== */
/* 6. mismatch                                                              */

static void test_mismatch(void **state)
{
    fx *x = *state;
    enum { N = 16 };
    add_job(&x->cfg, 6, 2, 2, 0, 32);
    start(x);
    ws_rng rng = {6};
    uint32_t v[2 * N], bad[32], want[N];
    for (unsigned k = 0; k < 2 * N; k++)
        v[k] = gen_val(&rng);
    for (unsigned k = 0; k < 32; k++)
        bad[k] = F_1E30;
    expect_sums(v, 2, N, want);
    dspec d0 = mk(6, 0, 0, 0, N, 256, 5), d1 = mk(6, 1, 0, 0, N, 256, 5);
    EXPECT_V(send(x, &d0, v), WS_V_ACCEPT, WS_OK);

    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    dspec m = d1;
    m.offset = 272;
    EXPECT_V(send(x, &m, bad), WS_V_DROP, WS_DROP_MISMATCH);
    m = d1;
    m.tensor = 6;
    EXPECT_V(send(x, &m, bad), WS_V_DROP, WS_DROP_MISMATCH);
    m = d1;
    m.count = 8; /* frame of 64 + 32 bytes: valid by itself */
    EXPECT_V(send(x, &m, bad), WS_V_DROP, WS_DROP_MISMATCH);
    m = d1;
    m.count = 17;
    EXPECT_V(send(x, &m, bad), WS_V_DROP, WS_DROP_MISMATCH);
    m = d1;
    m.offset = 0;
    m.tensor = 0;
    m.retx = 1;
    EXPECT_V(send(x, &m, bad), WS_V_DROP, WS_DROP_MISMATCH);
    snap(x, b);
    snap_equal(a, b);
    assert_int_equal(ws_refdev_counters(x->dev)->drop[WS_DROP_MISMATCH], 5);

    EXPECT_V(send(x, &d1, v + N), WS_V_COMPLETE, WS_OK);
    for (unsigned k = 0; k < 2; k++)
        check_round(&x->cap.f[k], &d0, want);
    assert_int_equal(ws_refdev_counters(x->dev)->accepted, 2);
    final_checks(x);
}

/* ======================================================================== */
/* 7. no state change from any dropped frame                                */

static void test_state_after_drops(void **state)
{
    fx *x = *state;
    enum { N = 12 };
    add_job(&x->cfg, 3, 3, 2, 0, 16);
    ws_job *off = add_job(&x->cfg, 4, 2, 2, 2, 16);
    off->enable = false;
    start(x);
    ws_rng rng = {7};
    uint32_t v[3][3 * N], want[N];
    for (unsigned c = 0; c < 3; c++)
        for (unsigned k = 0; k < 3 * N; k++)
            v[c][k] = gen_val(&rng);
    dspec c0[3], c1[3], c2[3];
    for (unsigned w = 0; w < 3; w++) {
        c0[w] = mk(3, w, 0, 0, N, 0, 77);
        c1[w] = mk(3, w, 1, 0, N, N, 77);
        c2[w] = mk(3, w, 0, 1, N, 2 * N, 77);
    }
    for (unsigned w = 0; w < 3; w++)
        send(x, &c0[w], v[0] + w * N);
    EXPECT_V(send(x, &c2[0], v[2]), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &c1[2], v[1] + 2 * N), WS_V_ACCEPT, WS_OK);
    check_state(x, 3, 0, 0, 1, 6);
    check_state(x, 3, 0, 1, 0, 1);
    check_state(x, 3, 1, 0, 0, 4);

    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    ws_counters before = *ws_refdev_counters(x->dev);
    unsigned drops = 0;
    const ws_member *m1 = &x->cfg.job[0].member[1];
    for (int mu = 0; mu < M_N; mu++) { /* worker 1's chunk 1 would be accepted if valid */
        ws_reason want_r;
        size_t len = build_from(x, m1, &c1[1], v[1] + N, x->frame);
        len = mutate(x, x->frame, len, (mutation)mu, &want_r);
        ws_verdict vd = deliver(x, m1->port, x->frame, len);
        if (vd.kind != WS_V_DROP || vd.reason != want_r)
            fail_msg("mutation %d: verdict %d/%s, want drop/%s", mu, vd.kind,
                     ws_reason_name(vd.reason), ws_reason_name(want_r));
        snap(x, b);
        snap_equal(a, b);
        drops++;
    }
    /* a disabled job */
    dspec dj = mk(4, 0, 0, 0, N, 0, 1);
    EXPECT_V(send(x, &dj, v[1]), WS_V_DROP, WS_DROP_UNKNOWN_JOB);
    /* early: worker 0 has moved on to set 1 of slot 0, workers 1 and 2 have not */
    dspec e0 = mk(3, 0, 0, 0, N, 4 * N, 77);
    EXPECT_V(send(x, &e0, v[1]), WS_V_DROP, WS_DROP_EARLY);
    /* mismatch in the open round of slot 1 */
    dspec mm = c1[1];
    mm.offset = 5;
    EXPECT_V(send(x, &mm, v[1] + N), WS_V_DROP, WS_DROP_MISMATCH);
    /* duplicates into open rounds */
    EXPECT_V(send(x, &c1[2], v[1] + 2 * N), WS_V_DROP, WS_DROP_DUPLICATE);
    EXPECT_V(send(x, &c2[0], v[2]), WS_V_DROP, WS_DROP_DUPLICATE);
    drops += 5;
    /* duplicate into a complete round: a resend, still no state change */
    EXPECT_V(send(x, &c0[1], v[0] + N), WS_V_RESEND, WS_DROP_DUPLICATE);
    drops++;
    snap(x, b);
    snap_equal(a, b);
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->accepted, before.accepted);
    assert_int_equal(c->results, before.results);
    assert_int_equal(c->resends, before.resends + 1);
    uint64_t dsum = 0, dbefore = 0;
    for (int r = 1; r < WS_N_REASONS; r++) {
        dsum += c->drop[r];
        dbefore += before.drop[r];
        if (r != WS_DROP_DUPLICATE && r != WS_DROP_EARLY && r != WS_DROP_MISMATCH)
            assert_true(c->drop[r] > 0); /* every validation reason was exercised */
    }
    assert_int_equal(dsum - dbefore, drops);

    /* the all-reduce completes with exact values */
    EXPECT_V(send(x, &c1[1], v[1] + N), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &c1[0], v[1]), WS_V_COMPLETE, WS_OK);
    expect_sums(v[1], 3, N, want);
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &c1[0], want);
    EXPECT_V(send(x, &c2[2], v[2] + 2 * N), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &c2[1], v[2] + N), WS_V_COMPLETE, WS_OK);
    expect_sums(v[2], 3, N, want);
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &c2[0], want);
    check_state(x, 3, 0, 0, 1, 0);
    final_checks(x);
}

/* ======================================================================== */
/* 8. spoofing                                                              */

static void test_spoofing(void **state)
{
    fx *x = *state;
    enum { N = 10 };
    const ws_job *jb = add_job(&x->cfg, 8, 3, 1, 0, 16);
    start(x);
    ws_rng rng = {8};
    uint32_t v[3 * N], fake[N], want[N], with_fake[4 * N], want_f[N];
    for (unsigned k = 0; k < 3 * N; k++)
        v[k] = gen_val(&rng);
    for (unsigned e = 0; e < N; e++)
        fake[e] = 0x49742400u; /* 1e6 */
    expect_sums(v, 3, N, want);
    memcpy(with_fake, v, sizeof v);
    memcpy(with_fake + 3 * N, fake, sizeof fake);
    expect_sums(with_fake, 4, N, want_f);
    for (unsigned e = 0; e < N; e++)
        assert_int_not_equal(want[e], want_f[e]);

    dspec d[3];
    for (unsigned w = 0; w < 3; w++)
        d[w] = mk(8, w, 0, 0, N, 0, 1);
    EXPECT_V(send(x, &d[0], v), WS_V_ACCEPT, WS_OK);
    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    const ws_member *m1 = &jb->member[1], *m2 = &jb->member[2];
    ws_member forged[5];
    forged[0] = *m2; /* all of worker 2's addresses */
    forged[1] = *m1; /* worker 2's MAC */
    memcpy(forged[1].mac, m2->mac, 6);
    forged[2] = *m1; /* worker 2's IP */
    forged[2].ip = m2->ip;
    forged[3] = *m1; /* worker 2's UDP port */
    forged[3].udp_port = m2->udp_port;
    forged[4] = *m1; /* a host outside the job */
    forged[4].mac[5] = 0x77;
    forged[4].ip = 0x0a000063u;
    for (unsigned k = 0; k < 5; k++) {
        size_t len = build_from(x, &forged[k], &d[1], fake, x->frame);
        EXPECT_V(deliver(x, m2->port, x->frame, len), WS_V_DROP, WS_DROP_SPOOFED);
        EXPECT_V(deliver(x, m1->port, x->frame, len), WS_V_DROP, WS_DROP_SPOOFED);
    }
    /* worker 2 claiming rank 0 (which has contributed): spoofed, not a duplicate */
    size_t len = build_from(x, m2, &d[0], fake, x->frame);
    EXPECT_V(deliver(x, m2->port, x->frame, len), WS_V_DROP, WS_DROP_SPOOFED);
    assert_int_equal(ws_refdev_counters(x->dev)->drop[WS_DROP_SPOOFED], 11);
    assert_int_equal(ws_refdev_counters(x->dev)->resends, 0);
    snap(x, b);
    snap_equal(a, b);
    EXPECT_V(send(x, &d[1], v + N), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &d[2], v + 2 * N), WS_V_COMPLETE, WS_OK);
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &d[0], want);
    final_checks(x);
}

/* ======================================================================== */
/* 9. several jobs sharing ports                                            */

static void test_jobs_share_ports(void **state)
{
    fx *x = *state;
    enum { N = 8 };
    add_job(&x->cfg, 1, 2, 2, 0, 16);      /* ports 0 1 */
    add_job(&x->cfg, 2, 3, 2, 2, 32);      /* ports 1 2 3 */
    add_job(&x->cfg, 0x1234, 4, 3, 4, 8); /* ports 2 3 0 1 */
    start(x);
    ws_rng rng = {9};
    uint32_t va[2 * N], vb[3 * N], want[N];
    for (unsigned k = 0; k < 2 * N; k++)
        va[k] = gen_val(&rng);
    for (unsigned k = 0; k < 3 * N; k++)
        vb[k] = gen_val(&rng);

    /* slot 0 set 0 open in all three jobs with different rounds */
    dspec a0 = mk(1, 0, 0, 0, N, 100, 11), a1 = mk(1, 1, 0, 0, N, 100, 11);
    dspec b0 = mk(2, 0, 0, 0, N, 200, 22), b1 = mk(2, 1, 0, 0, N, 200, 22),
          b2 = mk(2, 2, 0, 0, N, 200, 22);
    dspec z0 = mk(0x1234, 0, 0, 0, 4, 300, 33);
    EXPECT_V(send(x, &a0, va), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &b0, vb), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &b1, vb + N), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &z0, va), WS_V_ACCEPT, WS_OK);
    ws_set_state sa = get_state(x, 1, 0, 0), sb = get_state(x, 2, 0, 0),
                 sz = get_state(x, 0x1234, 0, 0);
    assert_int_equal(sa.bitmap, 1);
    assert_int_equal(sa.offset, 100);
    assert_int_equal(sb.bitmap, 3);
    assert_int_equal(sb.offset, 200);
    assert_int_equal(sz.bitmap, 1);
    assert_int_equal(sz.count, 4);

    snapshot *s1 = fx_alloc(x, sizeof *s1), *s2 = fx_alloc(x, sizeof *s2);
    snap(x, s1);
    /* job 1's worker 1 cannot contribute to job 2 (as rank 1 or 2) nor reach job 2's slots
     * through its own slot numbers */
    const ws_member *am1 = &x->cfg.job[0].member[1];
    dspec cross = b2;
    size_t len = build_from(x, am1, &cross, va, x->frame);
    EXPECT_V(deliver(x, am1->port, x->frame, len), WS_V_DROP, WS_DROP_SPOOFED);
    cross.rank = 1;
    len = build_from(x, am1, &cross, va, x->frame);
    EXPECT_V(deliver(x, am1->port, x->frame, len), WS_V_DROP, WS_DROP_SPOOFED);
    dspec beyond = a1;
    beyond.slot = 2; /* job 2's first pool slot, but beyond job 1's range */
    EXPECT_V(send(x, &beyond, va + N), WS_V_DROP, WS_DROP_BAD_SLOT);
    snap(x, s2);
    snap_equal(s1, s2);

    /* job 1 completes; job 2 is untouched */
    EXPECT_V(send(x, &a1, va + N), WS_V_COMPLETE, WS_OK);
    expect_sums(va, 2, N, want);
    for (unsigned k = 0; k < 2; k++)
        check_round(&x->cap.f[k], &a0, want);
    sb = get_state(x, 2, 0, 0);
    assert_int_equal(sb.complete, 0);
    assert_int_equal(sb.bitmap, 3);
    EXPECT_V(send(x, &b2, vb + 2 * N), WS_V_COMPLETE, WS_OK);
    expect_sums(vb, 3, N, want);
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &b0, want);
    check_state(x, 0x1234, 0, 0, 0, 1);
    check_state(x, 1, 0, 0, 1, 3);

    /* job 0x1234's round in slot 0 set 0 is still open with worker 0's contribution: the
     * other three workers finish it */
    uint32_t vz[4 * 4];
    memcpy(vz, va, 4 * sizeof *va);
    for (unsigned w = 1; w < 4; w++) {
        dspec zw = mk(0x1234, w, 0, 0, 4, 300, 33);
        for (unsigned e = 0; e < 4; e++)
            vz[w * 4 + e] = gen_val(&rng);
        EXPECT_V(send(x, &zw, vz + w * 4), w == 3 ? WS_V_COMPLETE : WS_V_ACCEPT, WS_OK);
    }
    expect_sums(vz, 4, 4, want);
    for (unsigned k = 0; k < 4; k++)
        check_round(&x->cap.f[k], &z0, want);

    /* Then interleaved streams of the three jobs. Each continues its chunk sequence after
     * the round done by hand (chunk 0: slot 0, set 0), so it starts at chunk 1. */
    engine *g = fx_alloc(x, sizeof *g);
    eng_init(g, x, 99);
    g->p_loss = 0.05;
    g->p_rloss = 0.05;
    g->p_retx = 0.1;
    g->p_dup = 0.02;
    eng_add(g, 1, 300, 1000, 1);
    eng_add(g, 2, 300, 2000, 1);
    eng_add(g, 0x1234, 300, 3000, 1);
    eng_run(g);
    final_checks(x);
}

/* ======================================================================== */
/* 10. sets alternate over a long stream                                    */

static void test_sets_alternate(void **state)
{
    fx *x = *state;
    add_job(&x->cfg, 10, 4, 2, 0, 64);
    start(x);
    engine *g = fx_alloc(x, sizeof *g);
    eng_init(g, x, 0x10);
    eng_add(g, 10, 3000, 0, 0); /* 3000 chunks, 1500 windows; the tensor changes every 10 */
    eng_run(g);
    const jstream *s = &g->js[0];
    assert_int_equal(s->dups, 0);
    /* last chunks: 2998 (slot 0, set 1) and 2999 (slot 1, set 1) complete; set 0 of both
     * slots free (everybody moved on) */
    check_state(x, 10, 0, 1, 1, 0xf);
    check_state(x, 10, 1, 1, 1, 0xf);
    check_state(x, 10, 0, 0, 1, 0);
    check_state(x, 10, 1, 0, 1, 0);
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->accepted, 12000);
    assert_int_equal(c->results, 12000);
    assert_int_equal(c->resends, 0);
    for (int r = 1; r < WS_N_REASONS; r++)
        assert_int_equal(c->drop[r], 0);
    final_checks(x);
}

/* ======================================================================== */
/* 11. special values through the engine                                    */

static void test_special_values(void **state)
{
    fx *x = *state;
    /* three contributions per element and the required result (docs/protocol.md section 6) */
    static const uint32_t sp[][4] = {
        {0x7f800001u, F_ONE, F_NZERO, F_QNAN},   /* signalling NaN */
        {0x7fc12345u, F_NZERO, F_NZERO, F_QNAN}, /* NaN payload: canonical */
        {0xffc00000u, F_PINF, F_NINF, F_QNAN},   /* negative NaN */
        {F_PINF, F_NINF, F_NZERO, F_QNAN},       /* +Inf + -Inf */
        {F_PINF, F_ONE, F_MAX, F_PINF},
        {F_NINF, F_NMAX, F_NZERO, F_NINF},
        {F_PINF, F_PINF, F_ONE, F_PINF},
        {F_NZERO, F_NZERO, F_NZERO, F_NZERO},   /* -0 + -0 = -0 */
        {F_PZERO, F_NZERO, F_NZERO, F_PZERO},
        {F_ONE, F_MONE, F_NZERO, F_PZERO},      /* exact zero: +0 */
        {0x00000001u, 0x80000001u, F_NZERO, F_PZERO},
        {0x00000001u, 0x00000001u, F_NZERO, 0x00000002u}, /* subnormals */
        {0x00400000u, 0x00400000u, F_NZERO, 0x00800000u}, /* into the normals */
        {0x80000003u, 0x00000001u, F_NZERO, 0x80000002u},
        {0x007fffffu, 0x00000001u, 0x80000000u, 0x00800000u},
        {F_MAX, F_MAX, F_NZERO, F_PINF},        /* overflow */
        {F_NMAX, F_NMAX, F_NZERO, F_NINF},
        {F_MAX, 0x73000000u, F_NZERO, F_PINF},  /* half an ulp above FLT_MAX: tie, to even */
        {F_MAX, 0x72ffffffu, F_NZERO, F_MAX},
        {F_MAX, F_MAX, F_NMAX, F_MAX},          /* exact: no intermediate overflow */
        {F_ONE, 0x33800000u, F_NZERO, F_ONE},   /* 1 + 2^-24: tie to even */
        {F_ONE, 0x33800001u, F_NZERO, 0x3f800001u},
        {0x3f800001u, 0x33800000u, F_NZERO, 0x3f800002u},
        {F_1E30, F_ONE, F_M1E30, F_ONE},        /* exact: 1e30 + 1 - 1e30 = 1 */
    };
    enum { N = sizeof sp / sizeof sp[0] };
    add_job(&x->cfg, 11, 3, 2, 0, 32);
    start(x);
    uint32_t v[3 * N], want[N];
    for (unsigned e = 0; e < N; e++) {
        for (unsigned w = 0; w < 3; w++)
            v[w * N + e] = sp[e][w];
        want[e] = sp[e][3];
    }
    uint32_t ref[N];
    expect_sums(v, 3, N, ref);
    for (unsigned e = 0; e < N; e++)
        if (ref[e] != want[e])
            fail_msg("ws_sum_f32 row %u: %08x, contract %08x", e, (unsigned)ref[e],
                     (unsigned)want[e]);

    static const unsigned orders[3][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}};
    for (unsigned o = 0; o < 3; o++) { /* three rounds, three orders, bit-identical results */
        unsigned slot = o % 2, set = o / 2;
        for (unsigned k = 0; k < 3; k++) {
            unsigned w = orders[o][k];
            dspec d = mk(11, w, slot, set, N, 0, o);
            EXPECT_V(send(x, &d, v + w * N), k == 2 ? WS_V_COMPLETE : WS_V_ACCEPT, WS_OK);
        }
        dspec r = mk(11, 0, slot, set, N, 0, o);
        for (unsigned k = 0; k < 3; k++)
            check_round(&x->cap.f[k], &r, want);
    }
    final_checks(x);
}

/* ======================================================================== */
/* 12. 64 workers (full bitmap) and 1 worker                                */

static void test_64_and_1_workers(void **state)
{
    fx *x = *state;
    enum { N = 8 };
    add_job(&x->cfg, 64, 64, 1, 0, N);
    add_job(&x->cfg, 1, 1, 2, 1, 4);
    start(x);
    ws_rng rng = {12};
    uint32_t *v = fx_alloc(x, 64 * N * sizeof *v), want[N];
    unsigned order[64];
    for (unsigned k = 0; k < 64; k++)
        order[k] = k;
    for (unsigned round = 0; round < 2; round++) {
        for (unsigned k = 0; k < 64 * N; k++)
            v[k] = gen_val(&rng);
        expect_sums(v, 64, N, want);
        for (unsigned k = 63; k > 0; k--) {
            unsigned j = (unsigned)ws_rng_below(&rng, k + 1), t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
        for (unsigned k = 0; k < 64; k++) {
            unsigned w = order[k];
            dspec d = mk(64, w, 0, round, N, round * N, 5);
            EXPECT_V(send(x, &d, v + w * N), k == 63 ? WS_V_COMPLETE : WS_V_ACCEPT, WS_OK);
            if (k == 62)
                check_state(x, 64, 0, round, 0, ~0ull ^ 1ull << order[63]);
        }
        assert_int_equal(x->cap.n, 64);
        dspec r = mk(64, 0, 0, round, N, round * N, 5);
        for (unsigned k = 0; k < 64; k++)
            check_round(&x->cap.f[k], &r, want);
        check_state(x, 64, 0, round, 1, ~0ull);
        if (round == 1)
            check_state(x, 64, 0, 0, 1, 0); /* all 64 moved on */
    }
    dspec d63 = mk(64, 63, 0, 1, N, N, 5);
    EXPECT_V(send(x, &d63, v + 63 * N), WS_V_RESEND, WS_DROP_DUPLICATE);
    assert_int_equal(x->cap.f[0].egress, x->cfg.job[0].member[63].port);
    dspec r1 = mk(64, 63, 0, 1, N, N, 5);
    check_round(&x->cap.f[0], &r1, want);
    assert_int_equal(ws_refdev_counters(x->dev)->results, 128);

    /* one worker: every packet completes its round */
    uint32_t one[4] = {F_NZERO, 0x7fc12345u, 0x00000001u, F_ONE};
    uint32_t one_want[4] = {F_NZERO, F_QNAN, 0x00000001u, F_ONE};
    for (unsigned e = 0; e < 4; e++)
        assert_int_equal(ws_sum_f32(&one[e], 1), one_want[e]);
    dspec s0 = mk(1, 0, 0, 0, 4, 0, 9);
    EXPECT_V(send(x, &s0, one), WS_V_COMPLETE, WS_OK);
    assert_int_equal(x->cap.n, 1);
    check_round(&x->cap.f[0], &s0, one_want);
    check_state(x, 1, 0, 0, 1, 1);
    EXPECT_V(send(x, &s0, one), WS_V_RESEND, WS_DROP_DUPLICATE);
    check_round(&x->cap.f[0], &s0, one_want);
    dspec s1 = mk(1, 0, 1, 0, 4, 4, 9), s2 = mk(1, 0, 0, 1, 4, 8, 9), s4 = mk(1, 0, 0, 0, 4, 16, 9);
    EXPECT_V(send(x, &s1, one), WS_V_COMPLETE, WS_OK);
    EXPECT_V(send(x, &s2, one), WS_V_COMPLETE, WS_OK);
    check_state(x, 1, 0, 0, 1, 0);
    EXPECT_V(send(x, &s4, one), WS_V_COMPLETE, WS_OK); /* a new round in the freed set */
    check_round(&x->cap.f[0], &s4, one_want);
    final_checks(x);
}

/* ======================================================================== */
/* 13. bypass                                                               */

static void test_bypass(void **state)
{
    fx *x = *state;
    static const uint8_t map[4] = {2, 3, 1, 0};
    memcpy(x->cfg.bypass, map, 4);
    add_job(&x->cfg, 13, 2, 2, 0, 16);
    start(x);
    uint8_t *f = fx_alloc(x, MAX_FRAME);
    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    uint32_t el[16] = {F_ONE};
    const ws_member *m0 = &x->cfg.job[0].member[0];
    dspec d = mk(13, 0, 0, 0, 16, 0, 1);
    unsigned n_frames = 0;
    for (unsigned kind = 0; kind < 10; kind++) {
        size_t len = 0;
        switch (kind) {
        case 0: /* ARP asking for the device's address */
            len = make_arp(f, x->cfg.ip);
            break;
        case 1: { /* an aggregation frame with an 802.1Q tag */
            len = build_from(x, m0, &d, el, f);
            memmove(f + 16, f + 12, len - 12);
            f[12] = 0x81;
            f[13] = 0x00;
            f[14] = 0x00;
            f[15] = 0x05;
            len += 4;
            break;
        }
        case 2: /* runt of 1 byte */
            f[0] = 0x45;
            len = 1;
            break;
        case 3: /* runt: Ethernet header cut short */
            len = build_from(x, m0, &d, el, f);
            len = 13;
            break;
        case 4: /* 9000-byte jumbo to another host */
            len = make_ipv4(x, f, 9000, 0x0a000063u, 17, x->cfg.udp_port, 3);
            break;
        case 5: /* 9000-byte TCP to the device's IP */
            len = make_ipv4(x, f, 9000, x->cfg.ip, 6, x->cfg.udp_port, 4);
            break;
        case 6: /* UDP to the device's IP, another port */
            len = make_ipv4(x, f, 200, x->cfg.ip, 17, 53, 5);
            break;
        case 7: /* IPv6 */
            len = make_ipv4(x, f, 120, x->cfg.ip, 17, x->cfg.udp_port, 6);
            put16(f + 12, 0x86dd);
            break;
        case 8: /* a DATA frame to the aggregation port of another IP */
            len = build_from(x, m0, &d, el, f);
            put32(f + 14 + 16, 0x0a000063u);
            ws_fix_checksums(f, len);
            break;
        case 9: /* a DATA frame with an EtherType other than IPv4 */
            len = build_from(x, m0, &d, el, f);
            put16(f + 12, 0x88b5);
            break;
        }
        for (unsigned p = 0; p < 4; p++) {
            EXPECT_V(deliver(x, p, f, len), WS_V_BYPASS, WS_OK);
            assert_int_equal(x->cap.n, 1);
            assert_int_equal(x->cap.f[0].egress, map[p]);
            assert_int_equal(x->cap.f[0].len, len);
            assert_memory_equal(x->cap.f[0].buf, f, len);
            n_frames++;
        }
    }
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->bypass, n_frames);
    assert_int_equal(c->accepted, 0);
    for (unsigned p = 0; p < 4; p++)
        assert_int_equal(c->tx_frames[map[p]], c->rx_frames[p]);

    /* addressed to the device's aggregation port: dropped, never bypassed */
    size_t len = build_from(x, m0, &d, el, f);
    f[14] = 0x65; /* IPv4 version 6 under EtherType 0x0800 */
    ws_fix_checksums(f, len);
    EXPECT_V(deliver(x, 0, f, len), WS_V_DROP, WS_DROP_BAD_IPV4);
    len = build_from(x, m0, &d, el, f); /* oversize: 9000 bytes, count 16 */
    memset(f + len, 0, 9000 - len);
    fix_lengths(f, 9000);
    EXPECT_V(deliver(x, 1, f, 9000), WS_V_DROP, WS_DROP_BAD_LENGTH);
    put16(f + 52, (9000 - 64) / 4); /* count 2234 > max */
    ws_fix_checksums(f, 9000);
    EXPECT_V(deliver(x, 2, f, 9000), WS_V_DROP, WS_DROP_BAD_COUNT);
    snap(x, b);
    snap_equal(a, b);
    final_checks(x);
}

/* Frames longer than the device's max_frame: dropped as oversize before any rule, whatever
 * they hold, and no state changes; rx_bytes adds at most 65535 a frame. */
static void test_oversize(void **state)
{
    fx *x = *state;
    x->cfg.max_frame = 1518;
    add_job(&x->cfg, 13, 2, 2, 0, 16);
    start(x);
    enum { BIG = 70000 };
    uint8_t *f = fx_alloc(x, BIG);
    snapshot *a = fx_alloc(x, sizeof *a), *b = fx_alloc(x, sizeof *b);
    snap(x, a);
    size_t len = make_ipv4(x, f, 1518, 0x0a000063u, 6, 80, 3); /* exactly max_frame: carried */
    EXPECT_V(deliver(x, 0, f, len), WS_V_BYPASS, WS_OK);
    len = make_ipv4(x, f, 1519, 0x0a000063u, 6, 80, 3);
    EXPECT_V(deliver(x, 0, f, len), WS_V_OVERSIZE, WS_OK);
    assert_int_equal(x->cap.n, 0);
    /* a DATA frame of the job padded past max_frame: oversize, not bad_length */
    uint32_t el[16] = {F_ONE};
    dspec d = mk(13, 0, 0, 0, 16, 0, 1);
    len = build_from(x, &x->cfg.job[0].member[0], &d, el, f);
    memset(f + len, 0, 2000 - len);
    EXPECT_V(deliver(x, 1, f, 2000), WS_V_OVERSIZE, WS_OK);
    memset(f, 0x5a, BIG); /* above 64 KiB, as a capture with segmentation offload holds */
    EXPECT_V(deliver(x, 2, f, BIG), WS_V_OVERSIZE, WS_OK);
    const ws_counters *c = ws_refdev_counters(x->dev);
    assert_int_equal(c->oversize, 3);
    assert_int_equal(c->bypass, 1);
    assert_int_equal(c->rx_bytes[2], WS_RX_BYTES_MAX);
    assert_int_equal(c->rx_frames[0] + c->rx_frames[1] + c->rx_frames[2],
                     c->bypass + c->oversize);
    snap(x, b);
    snap_equal(a, b);
    final_checks(x);
}

/* ======================================================================== */
/* 14. ECN                                                                  */

/* One round of 3 workers whose DATA carry tos[w]; the RESULT to rank k carries want_tos[k]. */
static void ecn_round(fx *x, unsigned chunk, const uint8_t tos[3], const uint8_t want_tos[3],
                      ws_rng *rng)
{
    enum { N = 4 };
    uint32_t v[3 * N], want[N];
    for (unsigned k = 0; k < 3 * N; k++)
        v[k] = gen_val(rng);
    expect_sums(v, 3, N, want);
    for (unsigned w = 0; w < 3; w++) {
        dspec d = mk(14, w, chunk % 2, (chunk / 2) & 1, N, chunk * N, 1);
        d.tos = tos[w];
        EXPECT_V(send(x, &d, v + w * N), w == 2 ? WS_V_COMPLETE : WS_V_ACCEPT, WS_OK);
    }
    for (unsigned k = 0; k < 3; k++) {
        dspec r = mk(14, k, chunk % 2, (chunk / 2) & 1, N, chunk * N, 1);
        r.tos = want_tos[k];
        check_round(&x->cap.f[k], &r, want);
    }
}

static void test_ecn(void **state)
{
    fx *x = *state;
    enum { N = 4 };
    add_job(&x->cfg, 14, 3, 2, 0, 8);
    start(x);
    ws_rng rng = {14};
    static const uint8_t t_a[3] = {ECT0, ECT0, CE}, t_b[3] = {0, 0, 0}, t_c[3] = {ECT1, ECT0, 0},
                         t_d[3] = {0xb8 | ECT1, 0x48, ECT1};
    /* CE to the rank whose DATA came marked, the others the round's OR with CE as ECT(0) */
    static const uint8_t w_a[3] = {ECT0, ECT0, CE}, w_b[3] = {0, 0, 0},
                         w_c[3] = {ECT0, ECT0, ECT0}, w_d[3] = {ECT1, ECT1, ECT1};
    ecn_round(x, 0, t_a, w_a, &rng);
    /* a resend carries the round's ECN for that rank */
    dspec dup = mk(14, 1, 0, 0, N, 0, 1);
    uint32_t any[N] = {0};
    EXPECT_V(send(x, &dup, any), WS_V_RESEND, WS_DROP_DUPLICATE);
    assert_int_equal(x->cap.f[0].buf[15], ECT0);
    dup = mk(14, 2, 0, 0, N, 0, 1);
    EXPECT_V(send(x, &dup, any), WS_V_RESEND, WS_DROP_DUPLICATE);
    assert_int_equal(x->cap.f[0].buf[15], CE);
    ecn_round(x, 1, t_b, w_b, &rng);
    ecn_round(x, 2, t_c, w_c, &rng); /* ECT(1) | ECT(0): not CE, ECT(0) */
    ecn_round(x, 3, t_d, w_d, &rng); /* DSCP of DATA is not copied */

    /* chunk 4: dropped frames marked CE do not count */
    uint32_t v[3 * N], want[N];
    for (unsigned k = 0; k < 3 * N; k++)
        v[k] = gen_val(&rng);
    expect_sums(v, 3, N, want);
    dspec d[3];
    for (unsigned w = 0; w < 3; w++)
        d[w] = mk(14, w, 0, 0, N, 4 * N, 1);
    EXPECT_V(send(x, &d[0], v), WS_V_ACCEPT, WS_OK);
    dspec ce = d[0];
    ce.tos = CE;
    EXPECT_V(send(x, &ce, v), WS_V_DROP, WS_DROP_DUPLICATE);
    ce = d[1];
    ce.tos = CE;
    ce.offset = 1;
    EXPECT_V(send(x, &ce, v + N), WS_V_DROP, WS_DROP_MISMATCH);
    ce = d[1];
    ce.tos = CE;
    ce.slot = 2;
    EXPECT_V(send(x, &ce, v + N), WS_V_DROP, WS_DROP_BAD_SLOT);
    EXPECT_V(send(x, &d[1], v + N), WS_V_ACCEPT, WS_OK);
    EXPECT_V(send(x, &d[2], v + 2 * N), WS_V_COMPLETE, WS_OK);
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &d[0], want);

    /* chunk 5: DATA with UDP checksum 0, with DF clear, with another TTL and id: accepted */
    for (unsigned k = 0; k < 3 * N; k++)
        v[k] = gen_val(&rng);
    expect_sums(v, 3, N, want);
    for (unsigned w = 0; w < 3; w++) {
        const ws_member *m = &x->cfg.job[0].member[w];
        d[w] = mk(14, w, 1, 0, N, 5 * N, 1);
        size_t len = build_from(x, m, &d[w], v + w * N, x->frame);
        if (w == 0) {
            put16(x->frame + 40, 0);
        } else if (w == 1) {
            put16(x->frame + 20, 0);
            ws_fix_checksums(x->frame, len);
        } else {
            x->frame[22] = 1;
            put16(x->frame + 18, 0x1234);
            ws_fix_checksums(x->frame, len);
        }
        EXPECT_V(deliver(x, m->port, x->frame, len), w == 2 ? WS_V_COMPLETE : WS_V_ACCEPT,
                 WS_OK);
    }
    for (unsigned k = 0; k < 3; k++)
        check_round(&x->cap.f[k], &d[0], want);
    final_checks(x);
}

/* ======================================================================== */
/* 15. judge == rx, and judge changes nothing                               */

static void test_judge_equals_rx(void **state)
{
    fx *x = *state;
    enum { MAXN = 4 };
    add_job(&x->cfg, 15, 3, 2, 0, MAXN);
    start(x);
    x->deep = 1; /* deliver(): set states before and after judge are compared too */
    ws_rng rng = {15};
    unsigned seen_kind[5] = {0}, seen_reason[WS_N_REASONS] = {0};
    for (unsigned it = 0; it < 30000; it++) {
        unsigned w = (unsigned)ws_rng_below(&rng, 3);
        const ws_member *m = &x->cfg.job[0].member[w];
        dspec d = mk(15, w, (unsigned)ws_rng_below(&rng, 2), (unsigned)ws_rng_below(&rng, 2),
                     3 + (unsigned)ws_rng_below(&rng, 2), 64 * (uint32_t)ws_rng_below(&rng, 2),
                     1 + (uint32_t)ws_rng_below(&rng, 2));
        d.retx = (uint8_t)ws_rng_below(&rng, 2);
        d.tos = (uint8_t)ws_rng_below(&rng, 4);
        uint32_t el[MAXN];
        for (unsigned e = 0; e < MAXN; e++)
            el[e] = gen_val(&rng);
        size_t len = build_from(x, m, &d, el, x->frame);
        unsigned port = ws_rng_chance(&rng, 0.8) ? m->port
                                                 : (unsigned)ws_rng_below(&rng, x->cfg.n_ports);
        unsigned what = (unsigned)ws_rng_below(&rng, 20);
        if (what == 0) { /* random bit flip, checksums fixed or not */
            size_t pos = (size_t)ws_rng_below(&rng, len);
            x->frame[pos] ^= (uint8_t)(1u << ws_rng_below(&rng, 8));
            if (ws_rng_chance(&rng, 0.5))
                ws_fix_checksums(x->frame, len);
        } else if (what == 1) { /* truncated or extended */
            size_t nl = 1 + (size_t)ws_rng_below(&rng, len + 16);
            if (nl > len)
                memset(x->frame + len, 0xa5, nl - len);
            len = nl;
            if (ws_rng_chance(&rng, 0.5) && len >= 42)
                fix_lengths(x->frame, len);
        } else if (what == 2) {
            ws_reason r;
            len = mutate(x, x->frame, len, (mutation)ws_rng_below(&rng, M_N), &r);
        } else if (what == 3) {
            len = make_ipv4(x, x->frame, 60 + (size_t)ws_rng_below(&rng, 200), 0x0a000063u, 17,
                            x->cfg.udp_port, 1);
        }
        ws_verdict v = deliver(x, port, x->frame, len);
        seen_kind[v.kind]++;
        if (v.kind == WS_V_DROP || v.kind == WS_V_RESEND)
            seen_reason[v.reason]++;
    }
    for (unsigned k = 0; k < 5; k++)
        assert_true(seen_kind[k] > 0);
    assert_true(seen_reason[WS_DROP_DUPLICATE] > 0);
    assert_true(seen_reason[WS_DROP_EARLY] > 0);
    assert_true(seen_reason[WS_DROP_MISMATCH] > 0);
    final_checks(x);
}

/* ======================================================================== */
/* 16. counters after a random mixed workload                               */

static void test_counters_invariant(void **state)
{
    fx *x = *state;
    add_job(&x->cfg, 21, 5, 3, 0, 32);
    add_job(&x->cfg, 22, 2, 1, 3, 64);
    add_job(&x->cfg, 23, 7, 4, 4, 16);
    start(x);
    engine *g = fx_alloc(x, sizeof *g);
    eng_init(g, x, 0x16);
    g->p_loss = 0.1;
    g->p_rloss = 0.1;
    g->p_retx = 0.15;
    g->p_dup = 0.05;
    g->p_noise = 0.1;
    eng_add(g, 21, 1200, 0, 0);
    eng_add(g, 22, 1200, 500, 0);
    eng_add(g, 23, 800, 900, 0);
    eng_run(g);
    const ws_counters *c = ws_refdev_counters(x->dev);
    uint64_t contributions = 0, resends = 0, dups = 0;
    for (unsigned j = 0; j < g->n; j++) {
        contributions += (uint64_t)g->js[j].jb->workers * g->js[j].n_chunks;
        resends += g->js[j].resends;
        dups += g->js[j].dups;
    }
    assert_int_equal(c->accepted, contributions); /* each contribution added exactly once */
    assert_int_equal(c->results, contributions);  /* workers RESULTs per round */
    assert_int_equal(c->resends, resends);
    assert_int_equal(c->drop[WS_DROP_DUPLICATE], dups);
    assert_true(resends > 0);
    assert_true(g->noise_kind[NZ_EARLY] > 0);
    assert_true(g->noise_kind[NZ_MISMATCH] > 0);
    uint64_t rx = 0, drops = 0;
    for (unsigned p = 0; p < x->cfg.n_ports; p++)
        rx += c->rx_frames[p];
    for (int r = 1; r < WS_N_REASONS; r++)
        drops += c->drop[r];
    assert_int_equal(rx, c->accepted + c->bypass + drops);
    final_checks(x);
}

/* ======================================================================== */
/* 17. invalid configuration; a port the device does not have               */

static void test_bad_config_and_port(void **state)
{
    fx *x = *state;
    char err[256];
    ws_config *c = fx_alloc(x, sizeof *c);

    ws_config_default(c);
    add_job(c, 1, 2, 2, 0, 16);
    c->job[0].workers = 0;
    strcpy(err, "");
    assert_null(ws_refdev_new(c, err, sizeof err));
    assert_true(strlen(err) > 0);
    assert_non_null(strstr(err, "workers"));

    ws_config_default(c); /* overlapping slot ranges */
    add_job(c, 1, 2, 4, 0, 16);
    add_job(c, 2, 2, 4, 2, 16);
    strcpy(err, "");
    assert_null(ws_refdev_new(c, err, sizeof err));
    assert_true(strlen(err) > 0);

    ws_config_default(c); /* a member on a port the device does not have */
    add_job(c, 1, 2, 2, 0, 16);
    c->job[0].member[1].port = 4;
    strcpy(err, "");
    assert_null(ws_refdev_new(c, err, sizeof err));
    assert_true(strlen(err) > 0);

    add_job(&x->cfg, 17, 1, 2, 0, 8);
    start(x);
    ws_set_state st;
    assert_int_equal(ws_refdev_set_state(x->dev, 17, 2, 0, &st), -1);
    assert_int_equal(ws_refdev_set_state(x->dev, 17, 0, 2, &st), -1);
    assert_int_equal(ws_refdev_set_state(x->dev, 18, 0, 0, &st), -1);

    uint32_t el[8] = {F_ONE};
    dspec d = mk(17, 0, 0, 0, 8, 0, 0);
    size_t len = build_from(x, &x->cfg.job[0].member[0], &d, el, x->frame);
    static const unsigned bad_ports[] = {4, WS_LIMIT_PORTS - 1, WS_LIMIT_PORTS, 1000};
    ws_counters zero;
    memset(&zero, 0, sizeof zero);
    for (unsigned k = 0; k < 4; k++) {
        x->cap.n = 0;
        ws_verdict v = ws_refdev_rx(x->dev, bad_ports[k], x->frame, len, cap_emit, &x->cap);
        assert_int_equal(v.kind, WS_V_DROP);
        assert_int_equal(x->cap.n, 0);
        assert_memory_equal(ws_refdev_counters(x->dev), &zero, sizeof zero);
        x->cap.n = 0;
        v = ws_refdev_rx(x->dev, bad_ports[k], x->frame, 1, cap_emit, &x->cap);
        assert_int_equal(v.kind, WS_V_DROP);
        assert_int_equal(x->cap.n, 0);
        assert_memory_equal(ws_refdev_counters(x->dev), &zero, sizeof zero);
    }
    check_state(x, 17, 0, 0, 1, 0);
    /* the same frame on a real port completes the round */
    EXPECT_V(deliver(x, x->cfg.job[0].member[0].port, x->frame, len), WS_V_COMPLETE, WS_OK);
    final_checks(x);
}

/* judge on a port the device does not have must say what rx says there: nothing enters. */
static void test_judge_bad_port(void **state)
{
    fx *x = *state;
    add_job(&x->cfg, 18, 2, 2, 0, 8);
    start(x);
    uint32_t el[8] = {F_ONE};
    dspec d = mk(18, 0, 0, 0, 8, 0, 0);
    size_t len = build_from(x, &x->cfg.job[0].member[0], &d, el, x->frame);
    static const uint8_t runt[1] = {0};
    for (unsigned port = x->cfg.n_ports; port < x->cfg.n_ports + 2; port++) {
        ws_verdict j = ws_refdev_judge(x->dev, port, x->frame, len);
        x->cap.n = 0;
        ws_verdict v = ws_refdev_rx(x->dev, port, x->frame, len, cap_emit, &x->cap);
        if (j.kind != v.kind || j.reason != v.reason)
            fail_msg("port %u (n_ports %u), valid DATA: judge %d/%s, rx %d/%s", port,
                     x->cfg.n_ports, j.kind, ws_reason_name(j.reason), v.kind,
                     ws_reason_name(v.reason));
        j = ws_refdev_judge(x->dev, port, runt, 1);
        v = ws_refdev_rx(x->dev, port, runt, 1, cap_emit, &x->cap);
        if (j.kind != v.kind || j.reason != v.reason)
            fail_msg("port %u (n_ports %u), runt: judge %d/%s, rx %d/%s", port,
                     x->cfg.n_ports, j.kind, ws_reason_name(j.reason), v.kind,
                     ws_reason_name(v.reason));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_workers_one_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loss_then_retx, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dup_before_completion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dup_after_completion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_early, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_state_after_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spoofing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jobs_share_ports, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sets_alternate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_special_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_64_and_1_workers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversize, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bypass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ecn, setup, teardown),
        cmocka_unit_test_setup_teardown(test_judge_equals_rx, setup, teardown),
        cmocka_unit_test_setup_teardown(test_counters_invariant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_config_and_port, setup, teardown),
        cmocka_unit_test_setup_teardown(test_judge_bad_port, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
