/* test_tree.c - unit tests of several devices per job (docs/protocol.md section 9): the PARTIAL
 * encoding (driver/xsum.c, driver/wire.c), job.ini's parent key (driver/config.c) and the
 * hierarchy of the software reference (sim/refdev.c): two children under a parent, every result
 * bit-identical to one device's, and the duplicate rules at every level.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wiresum/refdev.h"
#include "rng.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"

/* ---- the encoding --------------------------------------------------------------------- */

/* A value of every kind the encoding meets: wide exponents, subnormals, zeros, specials. */
static uint32_t any_bits(ws_rng *r, int specials)
{
    uint64_t z = ws_rng_next(r);
    switch (z % 8) {
    case 0:
        return (uint32_t)(z >> 32) & 0x807fffffu; /* subnormal or zero */
    case 1:
        return (z >> 40) & 1 ? 0x80000000u : 0;
    case 2:
        if (specials)
            return (uint32_t[]){0x7f800000u, 0xff800000u, 0x7fc00001u}[(z >> 40) % 3];
        /* fall through */
    default: { /* finite, any exponent */
        uint32_t b = (uint32_t)(z >> 32);
        return (b & 0x7f800000u) == 0x7f800000u ? b & 0xbfffffffu : b;
    }
    }
}

/* x's words, at least one */
static int encode(const ws_xsum *x, uint64_t *w)
{
    int n = ws_xsum_encode(x, w);
    assert_in_range(n, 1, WS_X64_MAX_WORDS);
    for (int k = 0; k < n; k++) /* X on every word but the last */
        assert_int_equal(!!(w[k] & WS_X64_ESC), k + 1 < n);
    return n;
}

static void add_words(ws_xsum *x, const uint64_t *w, int n)
{
    for (int k = 0; k < n; k++)
        ws_xsum_add_word(x, w[k], k == 0);
}

/* x re-read from its encoding: the same integer, flags and result. */
static void expect_round_trip(const ws_xsum *x)
{
    uint64_t w[WS_X64_MAX_WORDS];
    int n = encode(x, w);
    ws_xsum y;
    ws_xsum_init(&y);
    add_words(&y, w, n);
    assert_int_equal(ws_xsum_round(&y), ws_xsum_round(x));
    if (!x->nan && !x->pos_inf && !x->neg_inf)
        assert_memory_equal(y.limb, x->limb, sizeof x->limb);
    assert_int_equal(y.nan, x->nan);
    assert_int_equal(y.pos_inf, x->pos_inf);
    assert_int_equal(y.neg_inf, x->neg_inf);
}

static void test_encoding_known_words(void **state)
{
    (void)state;
    ws_xsum x;
    uint64_t w[WS_X64_MAX_WORDS];

    ws_xsum_init(&x);
    ws_xsum_add(&x, 0x3f800000u); /* 1.0 = 2^149 units: top bit 149, E = 96, M = 2^53 */
    assert_int_equal(encode(&x, w), 1);
    assert_int_equal(w[0], (uint64_t)96 << 54 | (uint64_t)1 << 53);

    ws_xsum_add(&x, 0xbf800000u); /* 1 - 1: +0, a contribution that was not -0 */
    assert_int_equal(encode(&x, w), 1);
    assert_int_equal(w[0], 0);

    ws_xsum_init(&x);
    ws_xsum_add(&x, 0x80000000u);
    ws_xsum_add(&x, 0x80000000u); /* all -0 */
    encode(&x, w);
    assert_int_equal(w[0], WS_X64_NEG);

    ws_xsum_init(&x);
    ws_xsum_add(&x, 0x80000003u); /* -3 units: fits M with E = 0 */
    encode(&x, w);
    assert_int_equal(w[0], WS_X64_NEG | 3);

    ws_xsum_init(&x);
    ws_xsum_add(&x, 0x7f800000u);
    ws_xsum_add(&x, 0x7fc00000u);
    assert_int_equal(encode(&x, w), 1);
    assert_int_equal(w[0], (uint64_t)255 << 54 | 5); /* NaN and +Inf flags */

    /* 2^100 + 2^-149: 250 significant bits, but two set: two words */
    ws_xsum_init(&x);
    ws_xsum_add(&x, 0x71800000u);
    ws_xsum_add(&x, 0x00000001u);
    assert_int_equal(encode(&x, w), 2);
    assert_int_equal(w[0], WS_X64_ESC | (uint64_t)(249 - 53) << 54 | (uint64_t)1 << 53);
    assert_int_equal(w[1], 1);
    expect_round_trip(&x);

    /* the same negated: every word carries the sign */
    ws_xsum_init(&x);
    ws_xsum_add(&x, 0xf1800000u);
    ws_xsum_add(&x, 0x80000001u);
    assert_int_equal(encode(&x, w), 2);
    assert_int_equal(w[0], WS_X64_NEG | WS_X64_ESC | (uint64_t)(249 - 53) << 54 | (uint64_t)1 << 53);
    assert_int_equal(w[1], WS_X64_NEG | 1);
    expect_round_trip(&x);

    /* bits 276, 222, 168, 114, 60 and 6 (2^127, 2^73, 2^19, 2^-35, 2^-89, 2^-143): each 54 below
     * the last, so each starts a word of its own: the most words */
    static const uint32_t six[] = {0x7f000000u, 0x64000000u, 0x49000000u,
                                   0x2e000000u, 0x13000000u, 0x00000040u};
    ws_xsum_init(&x);
    for (unsigned k = 0; k < 6; k++)
        ws_xsum_add(&x, six[k]);
    assert_int_equal(encode(&x, w), WS_X64_MAX_WORDS);
    for (unsigned k = 0; k < 6; k++)
        assert_int_equal(w[k] & ~WS_X64_ESC, (uint64_t)(k < 5 ? 223 - 54 * k : 0) << 54 |
                                                 (k < 5 ? (uint64_t)1 << 53 : 64));
    expect_round_trip(&x);
}

static void test_encoding_round_trip(void **state)
{
    (void)state;
    ws_rng r = {0x7ee5eedu};
    unsigned longer = 0;
    for (unsigned t = 0; t < 20000; t++) {
        ws_xsum x;
        ws_xsum_init(&x);
        unsigned n = 1 + (unsigned)ws_rng_below(&r, 64);
        int specials = t % 4 == 0;
        for (unsigned k = 0; k < n; k++)
            ws_xsum_add(&x, any_bits(&r, specials));
        uint64_t w[WS_X64_MAX_WORDS];
        longer += encode(&x, w) > 1;
        expect_round_trip(&x);
    }
    assert_true(longer > 1000); /* the wide mixes do take more words */
}

/* Partials of any split of the contributions, added at a parent, give the flat sum's bits. */
static void test_partials_merge_exactly(void **state)
{
    (void)state;
    ws_rng r = {0x5eed7u};
    for (unsigned t = 0; t < 5000; t++) {
        unsigned children = 1 + (unsigned)ws_rng_below(&r, 8);
        ws_xsum flat, parent;
        ws_xsum_init(&flat);
        ws_xsum_init(&parent);
        for (unsigned c = 0; c < children; c++) {
            ws_xsum child;
            ws_xsum_init(&child);
            unsigned n = 1 + (unsigned)ws_rng_below(&r, 16);
            for (unsigned k = 0; k < n; k++) {
                uint32_t b = any_bits(&r, t % 8 == 0);
                ws_xsum_add(&child, b);
                ws_xsum_add(&flat, b);
            }
            uint64_t w[WS_X64_MAX_WORDS];
            add_words(&parent, w, encode(&child, w));
        }
        assert_int_equal(ws_xsum_round(&parent), ws_xsum_round(&flat));
    }
}

/* Any words decode without harm: the decoding has no invalid input. */
static void test_decoding_is_total(void **state)
{
    (void)state;
    ws_rng r = {0xdecaf};
    for (unsigned t = 0; t < 20000; t++) {
        ws_xsum x;
        ws_xsum_init(&x);
        for (unsigned k = 0; k < 64; k++)
            ws_xsum_add_word(&x, ws_rng_next(&r), k % 3 == 0);
        (void)ws_xsum_round(&x);
    }
}

/* ---- frames and devices ------------------------------------------------------------------ */

enum { A, B, P, N_DEV }; /* two children under a parent */
#define JOB_LEAF 5
#define JOB_ROOT 9
#define N_EL 24
#define MAX_OUT 64

typedef struct {
    unsigned dev; /* the device it left */
    unsigned egress;
    size_t len;
    uint8_t f[2048];
} out_frame;

typedef struct {
    ws_config cfg[N_DEV];
    ws_refdev *d[N_DEV];
    out_frame out[MAX_OUT];
    unsigned n_out;
    unsigned cur; /* the device emitting */
} tree;

static void on_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    tree *t = ctx;
    assert_true(t->n_out < MAX_OUT);
    assert_true(len <= sizeof t->out[0].f);
    out_frame *o = &t->out[t->n_out++];
    o->dev = t->cur;
    o->egress = egress;
    o->len = len;
    memcpy(o->f, f, len);
}

static void dev_addr(unsigned d, uint8_t mac[6], uint32_t *ip)
{
    static const uint8_t base[6] = {0x02, 0, 0, 0, 0x0d, 0};
    memcpy(mac, base, 6);
    mac[5] = (uint8_t)(0xe0 + d);
    *ip = 0x0a000000u | (0xe0 + d);
}

/* Children A and B with 2 workers each (ranks 0 and 1 of A are workers 0 and 1, of B 2 and 3),
 * parent P with A as rank 0 and B as rank 1; port 3 of a child faces the parent, port d of the
 * parent faces child d. */
static void build_tree(tree *t, unsigned slots)
{
    char err[256];
    memset(t, 0, sizeof *t);
    for (unsigned d = 0; d < N_DEV; d++) {
        ws_config *c = &t->cfg[d];
        ws_config_default(c);
        dev_addr(d, c->mac, &c->ip);
        c->partial = true;
        ws_job *j = ws_config_add_workload(c, d == P ? JOB_ROOT : JOB_LEAF, 4, 2, slots, N_EL);
        assert_non_null(j);
        if (d == P) {
            for (unsigned r = 0; r < 2; r++) {
                ws_member *m = &j->member[r];
                dev_addr(r, m->mac, &m->ip);
                m->udp_port = WS_DEFAULT_UDP_PORT;
                m->port = (uint8_t)r;
            }
        } else {
            for (unsigned r = 0; r < 2; r++) /* distinct worker addresses per child */
                j->member[r].ip += 2 * d, j->member[r].mac[5] = (uint8_t)(2 * d + r);
            j->has_parent = true;
            dev_addr(P, j->parent.mac, &j->parent.ip);
            j->parent.udp_port = WS_DEFAULT_UDP_PORT;
            j->parent.port = 3;
            j->parent_job = JOB_ROOT;
            j->parent_rank = (uint16_t)d;
        }
        t->d[d] = ws_refdev_new(c, err, sizeof err);
        if (!t->d[d])
            fail_msg("device %u: %s", d, err);
    }
}

static void free_tree(tree *t)
{
    for (unsigned d = 0; d < N_DEV; d++)
        ws_refdev_free(t->d[d]);
}

static ws_verdict rx(tree *t, unsigned d, unsigned port, const uint8_t *f, size_t len)
{
    t->cur = d;
    ws_verdict v = ws_refdev_judge(t->d[d], port, f, len);
    ws_verdict w = ws_refdev_rx(t->d[d], port, f, len, on_emit, t);
    assert_int_equal(v.kind, w.kind);
    assert_int_equal(v.reason, w.reason);
    return w;
}

static uint32_t value(unsigned w, unsigned chunk, unsigned e)
{
    /* wide exponents, so that partial sums need more than binary32 */
    static const uint32_t v[] = {0x4b800001u, 0xcb800000u, 0x33d6bf95u, 0x80000000u,
                                 0x7f7fffffu, 0x00000007u, 0xc2f6e979u, 0x3f800001u};
    return v[(w * 3 + chunk * 5 + e) % 8] ^ (e % 5 == 1 ? (uint32_t)w << 3 : 0);
}

/* Worker w (0..3: child w / 2, rank w % 2) sends chunk `chunk` in slot `slot`, SET `set`. */
static size_t data_frame_in(const tree *t, unsigned w, unsigned chunk, unsigned slot,
                            unsigned set, int retx, uint8_t *f)
{
    const ws_config *c = &t->cfg[w / 2];
    const ws_member *m = &c->job[0].member[w % 2];
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.src_mac, m->mac, 6);
    memcpy(h.dst_mac, c->mac, 6);
    h.src_ip = m->ip;
    h.dst_ip = c->ip;
    h.src_port = m->udp_port;
    h.dst_port = c->udp_port;
    h.job = JOB_LEAF;
    h.worker = (uint16_t)(w % 2);
    h.slot = (uint16_t)slot;
    h.count = N_EL;
    h.offset = chunk * N_EL;
    h.tensor = 77;
    h.flags = (uint8_t)((set ? WS_FLAG_SET : 0) | (retx ? WS_FLAG_RETX : 0));
    uint32_t el[N_EL];
    for (unsigned e = 0; e < N_EL; e++)
        el[e] = value(w, chunk, e);
    return ws_build(f, &h, el);
}

/* ... chunk `chunk` in slot `chunk`, SET 0 */
static size_t data_frame(const tree *t, unsigned w, unsigned chunk, int retx, uint8_t *f)
{
    return data_frame_in(t, w, chunk, chunk, 0, retx, f);
}

/* The frames emitted since mark, as (device, count) expectations. */
static const out_frame *only_out(const tree *t, unsigned mark, unsigned n)
{
    assert_int_equal(t->n_out - mark, n);
    return n ? &t->out[mark] : NULL;
}

static void expect_type(const out_frame *o, unsigned type, unsigned retx)
{
    ws_hdr h;
    ws_parse(o->f, &h);
    assert_int_equal(h.version, WS_VERSION);
    assert_int_equal(h.type, type);
    assert_int_equal(!!(h.flags & WS_FLAG_RETX), retx);
}

/* A duplicate into a waiting round: v is a re-send, and the one frame emitted since mark is the
 * round's PARTIAL pa again, RETX set, with the same payload. That frame. */
static const out_frame *expect_partial_again(const tree *t, unsigned mark, ws_verdict v,
                                             const out_frame *pa)
{
    assert_int_equal(v.kind, WS_V_RESEND);
    assert_int_equal(v.reason, WS_DROP_DUPLICATE);
    const out_frame *pa2 = only_out(t, mark, 1);
    expect_type(pa2, WS_TYPE_PARTIAL, 1);
    assert_int_equal(pa2->len, pa->len);
    assert_memory_equal(pa2->f + WS_OFF_ELEMS, pa->f + WS_OFF_ELEMS, pa->len - WS_OFF_ELEMS);
    return pa2;
}

/* The sums a worker must receive: one device's flat sum of the four workers. */
static void expect_flat(const out_frame *o, unsigned chunk)
{
    ws_hdr h;
    assert_int_equal(ws_result_check(o->f, o->len, &h), 0);
    assert_int_equal(h.count, N_EL);
    assert_int_equal(h.offset, chunk * N_EL);
    for (unsigned e = 0; e < N_EL; e++) {
        uint32_t in[4];
        for (unsigned w = 0; w < 4; w++)
            in[w] = value(w, chunk, e);
        assert_int_equal(ws_elem(o->f, e), ws_sum_f32(in, 4));
    }
}

static void test_tree_round(void **state)
{
    (void)state;
    static tree t;
    uint8_t f[2048];
    build_tree(&t, 2);

    /* child A completes: one PARTIAL, to the parent port, nothing else */
    ws_verdict v = rx(&t, A, 0, f, data_frame(&t, 0, 0, 0, f));
    assert_int_equal(v.kind, WS_V_ACCEPT);
    v = rx(&t, A, 1, f, data_frame(&t, 1, 0, 0, f));
    assert_int_equal(v.kind, WS_V_COMPLETE);
    const out_frame *pa = only_out(&t, 0, 1);
    assert_int_equal(pa->egress, 3);
    expect_type(pa, WS_TYPE_PARTIAL, 0);
    ws_set_state st;
    assert_int_equal(ws_refdev_set_state(t.d[A], JOB_LEAF, 0, 0, &st), 0);
    assert_true(st.waiting && !st.complete);

    /* a duplicate DATA into the waiting round re-sends the PARTIAL, RETX set, same payload */
    v = rx(&t, A, 0, f, data_frame(&t, 0, 0, 1, f));
    const out_frame *pa2 = expect_partial_again(&t, 1, v, pa);
    /* ... rank 0's alone: rank 1's duplicate is dropped and sends nothing, so a wave of the
     * members' retransmissions sends one PARTIAL up, not one a member */
    unsigned m1 = t.n_out;
    v = rx(&t, A, 1, f, data_frame(&t, 1, 0, 1, f));
    assert_int_equal(v.kind, WS_V_DROP);
    assert_int_equal(v.reason, WS_DROP_DUPLICATE);
    only_out(&t, m1, 0);
    assert_int_equal(ws_refdev_counters(t.d[A])->resends, 1);

    /* the parent takes A's PARTIAL; a RESULT to a waiting child from elsewhere is refused */
    v = rx(&t, P, 0, pa->f, pa->len);
    assert_int_equal(v.kind, WS_V_ACCEPT);
    v = rx(&t, P, 0, pa2->f, pa2->len); /* its duplicate: open round, nothing sent */
    assert_int_equal(v.reason, WS_DROP_DUPLICATE);
    assert_int_equal(v.kind, WS_V_DROP);
    unsigned mark = t.n_out;

    /* child B completes; its PARTIAL completes the parent: one RESULT per child */
    rx(&t, B, 0, f, data_frame(&t, 2, 0, 0, f));
    rx(&t, B, 1, f, data_frame(&t, 3, 0, 0, f));
    const out_frame *pb = only_out(&t, mark, 1);
    v = rx(&t, P, 1, pb->f, pb->len);
    assert_int_equal(v.kind, WS_V_COMPLETE);
    const out_frame *res = only_out(&t, mark + 1, 2);
    assert_int_equal(res[0].egress, 0);
    assert_int_equal(res[1].egress, 1);
    expect_flat(&res[0], 0);
    expect_flat(&res[1], 0);

    /* each child fans its parent's RESULT out to its workers, bits unchanged */
    mark = t.n_out;
    for (unsigned c = 0; c < 2; c++) {
        v = rx(&t, c, 3, res[c].f, res[c].len);
        assert_int_equal(v.kind, WS_V_FANOUT);
    }
    const out_frame *fan = only_out(&t, mark, 4);
    for (unsigned k = 0; k < 4; k++) {
        expect_type(&fan[k], WS_TYPE_RESULT, 0);
        expect_flat(&fan[k], 0);
        ws_hdr h;
        ws_parse(fan[k].f, &h);
        assert_int_equal(h.worker, k % 2);
        assert_int_equal(h.dst_ip, t.cfg[k / 2].job[0].member[k % 2].ip);
    }

    /* the parent's RESULT again: the child's round is complete, a duplicate, nothing sent */
    mark = t.n_out;
    v = rx(&t, A, 3, res[0].f, res[0].len);
    assert_int_equal(v.kind, WS_V_DROP);
    assert_int_equal(v.reason, WS_DROP_DUPLICATE);
    only_out(&t, mark, 0);

    /* a duplicate PARTIAL into the complete parent round: the RESULT to that child alone */
    v = rx(&t, P, 1, pb->f, pb->len);
    assert_int_equal(v.kind, WS_V_RESEND);
    const out_frame *again = only_out(&t, mark, 1);
    assert_int_equal(again->egress, 1);
    expect_type(again, WS_TYPE_RESULT, 1);
    expect_flat(again, 0);

    /* a duplicate DATA into a complete child round: the RESULT to that worker alone */
    mark = t.n_out;
    v = rx(&t, B, 0, f, data_frame(&t, 3, 0, 1, f));
    assert_int_equal(v.kind, WS_V_RESEND);
    const out_frame *w3 = only_out(&t, mark, 1);
    expect_type(w3, WS_TYPE_RESULT, 1);
    expect_flat(w3, 0);

    const ws_counters *ca = ws_refdev_counters(t.d[A]);
    assert_int_equal(ca->accepted, 3); /* 2 DATA + the parent's RESULT */
    assert_int_equal(ca->results, 3);  /* 1 PARTIAL + 2 RESULTs */
    assert_int_equal(ca->resends, 1);
    /* ranks 0 and 1's DATA into the waiting round, the parent's RESULT again */
    assert_int_equal(ca->drop[WS_DROP_DUPLICATE], 3);
    free_tree(&t);
}

/* The frame f with its IPv4 ECN bits set to ecn (a switch's mark on the way), checksums fixed */
static void set_ecn(uint8_t *f, size_t len, unsigned ecn)
{
    f[WS_OFF_IP + 1] = (uint8_t)((f[WS_OFF_IP + 1] & ~3u) | ecn);
    ws_fix_checksums(f, len);
}

static unsigned ecn_of(const out_frame *o) { return o->f[WS_OFF_IP + 1] & 3; }

/* ECN through a tree (docs/protocol.md sections 7 and 9): each worker sees CE exactly when a link
 * of its own path was marked. Worker 1's DATA comes marked: only its RESULT is CE; child A's
 * PARTIAL goes up unmarked; child B's PARTIAL is marked on its way up: the parent's RESULT to B is
 * CE, to A not, and B's workers both get CE. */
static void test_tree_ecn(void **state)
{
    (void)state;
    static tree t;
    uint8_t f[2048];
    build_tree(&t, 2);
    for (unsigned w = 0; w < 4; w++) {
        size_t len = data_frame(&t, w, 0, 0, f);
        set_ecn(f, len, w == 1 ? 3 : 2);
        rx(&t, w / 2, w % 2, f, len);
    }
    const out_frame *pa = only_out(&t, 0, 2), *pb = pa + 1;
    assert_int_equal(ecn_of(pa), 2); /* a member's mark stays with that member */
    assert_int_equal(ecn_of(pb), 2);
    static uint8_t pbm[WS_LIMIT_FRAME];
    memcpy(pbm, pb->f, pb->len);
    set_ecn(pbm, pb->len, 3); /* marked between B and the parent */
    rx(&t, P, 0, pa->f, pa->len);
    ws_verdict v = rx(&t, P, 1, pbm, pb->len);
    assert_int_equal(v.kind, WS_V_COMPLETE);
    const out_frame *res = only_out(&t, 2, 2);
    assert_int_equal(ecn_of(&res[0]), 2);
    assert_int_equal(ecn_of(&res[1]), 3);
    unsigned mark = t.n_out;
    for (unsigned c = 0; c < 2; c++)
        assert_int_equal(rx(&t, c, 3, res[c].f, res[c].len).kind, WS_V_FANOUT);
    const out_frame *fan = only_out(&t, mark, 4);
    static const unsigned want[4] = {2, 3, 3, 3};
    for (unsigned k = 0; k < 4; k++) {
        expect_flat(&fan[k], 0);
        assert_int_equal(ecn_of(&fan[k]), want[k]);
    }
    /* a re-send keeps the worker's own mark: worker 1's duplicate gets CE, worker 0's not */
    for (unsigned w = 0; w < 2; w++) {
        mark = t.n_out;
        rx(&t, A, w, f, data_frame(&t, w, 0, 1, f));
        assert_int_equal(ecn_of(only_out(&t, mark, 1)), w == 1 ? 3 : 2);
    }
    free_tree(&t);
}

/* A waiting set holds every member's contribution: a rank that went on to the other set (outside
 * its window) and sends its DATA of the waiting round again sends a duplicate, which re-sends the
 * PARTIAL unchanged; after the parent's RESULT the slot is used on as usual. */
static void test_waiting_set_takes_nothing(void **state)
{
    (void)state;
    static tree t;
    uint8_t f[2048];
    build_tree(&t, 1);
    rx(&t, A, 0, f, data_frame_in(&t, 0, 0, 0, 0, 0, f));
    assert_int_equal(rx(&t, A, 1, f, data_frame_in(&t, 1, 0, 0, 0, 0, f)).kind, WS_V_COMPLETE);
    const out_frame *pa = only_out(&t, 0, 1);

    /* rank 0 goes on to SET 1 before the parent has answered: its bit leaves the waiting set */
    assert_int_equal(rx(&t, A, 0, f, data_frame_in(&t, 0, 1, 0, 1, 0, f)).kind, WS_V_ACCEPT);
    only_out(&t, 1, 0);
    ws_set_state st;
    assert_int_equal(ws_refdev_set_state(t.d[A], JOB_LEAF, 0, 0, &st), 0);
    assert_true(st.waiting && st.bitmap == 2);

    /* its DATA of the waiting round again: a duplicate, the same PARTIAL re-sent */
    expect_partial_again(&t, 1, rx(&t, A, 0, f, data_frame_in(&t, 0, 0, 0, 0, 1, f)), pa);

    /* B and the parent complete the round; A fans the exact sums out */
    rx(&t, B, 0, f, data_frame_in(&t, 2, 0, 0, 0, 0, f));
    rx(&t, B, 1, f, data_frame_in(&t, 3, 0, 0, 0, 0, f));
    const out_frame *pb = only_out(&t, 2, 1);
    rx(&t, P, 0, pa->f, pa->len);
    assert_int_equal(rx(&t, P, 1, pb->f, pb->len).kind, WS_V_COMPLETE);
    const out_frame *res = only_out(&t, 3, 2);
    assert_int_equal(rx(&t, A, 3, res[0].f, res[0].len).kind, WS_V_FANOUT);
    const out_frame *fan = only_out(&t, 5, 2);
    expect_flat(&fan[0], 0);
    expect_flat(&fan[1], 0);

    /* rank 1 goes on too: SET 1 completes (a PARTIAL), SET 0 is empty and takes a new round */
    assert_int_equal(rx(&t, A, 1, f, data_frame_in(&t, 1, 1, 0, 1, 0, f)).kind, WS_V_COMPLETE);
    only_out(&t, 7, 1);
    assert_int_equal(rx(&t, A, 0, f, data_frame_in(&t, 0, 2, 0, 0, 0, f)).kind, WS_V_ACCEPT);

    const ws_counters *ca = ws_refdev_counters(t.d[A]);
    assert_int_equal(ca->accepted, 6); /* 5 DATA + the parent's RESULT */
    assert_int_equal(ca->resends, 1);
    assert_int_equal(ca->drop[WS_DROP_DUPLICATE], 1);
    free_tree(&t);
}

/* A RESULT to a child that is not its parent's answer for a waiting round changes nothing. */
static void test_parent_result_checks(void **state)
{
    (void)state;
    static tree t;
    uint8_t f[2048], g[2048];
    build_tree(&t, 2);
    rx(&t, A, 0, f, data_frame(&t, 0, 0, 0, f));
    rx(&t, A, 1, f, data_frame(&t, 1, 0, 0, f));
    rx(&t, B, 0, f, data_frame(&t, 2, 0, 0, f));
    rx(&t, B, 1, f, data_frame(&t, 3, 0, 0, f));
    rx(&t, P, 0, t.out[0].f, t.out[0].len);
    rx(&t, P, 1, t.out[1].f, t.out[1].len);
    const out_frame *res = &t.out[2]; /* the parent's RESULT to A */
    size_t len = res->len;
    unsigned mark = t.n_out;

    struct {
        unsigned off, val;
        ws_reason want;
    } cases[] = {
        {WS_OFF_AGG + 7, 1, WS_DROP_BAD_RANK},         /* rank of B at the parent */
        {6 + 5, 0x99, WS_DROP_SPOOFED},                /* source MAC */
        {WS_OFF_AGG + 9, 2, WS_DROP_BAD_SLOT},
        {WS_OFF_AGG + 11, 0, WS_DROP_BAD_COUNT},
        {WS_OFF_AGG + 5, JOB_ROOT + 1, WS_DROP_RESULT_TO_DEVICE}, /* not the parent's job */
        {WS_OFF_AGG + 15, 1, WS_DROP_MISMATCH},        /* offset not the waiting round's */
        {WS_OFF_AGG + 9, 1, WS_DROP_DUPLICATE},        /* slot 1: never used, so complete */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(g, res->f, len);
        g[cases[k].off] = (uint8_t)cases[k].val;
        ws_fix_checksums(g, len);
        ws_verdict v = rx(&t, A, 3, g, len);
        if (v.kind != WS_V_DROP || v.reason != cases[k].want)
            fail_msg("case %zu: %s, want %s", k, ws_reason_name(v.reason),
                     ws_reason_name(cases[k].want));
    }
    only_out(&t, mark, 0);
    ws_set_state st;
    assert_int_equal(ws_refdev_set_state(t.d[A], JOB_LEAF, 0, 0, &st), 0);
    assert_true(st.waiting);
    /* and the right one still works */
    assert_int_equal(rx(&t, A, 3, res->f, len).kind, WS_V_FANOUT);
    free_tree(&t);
}

/* A PARTIAL to a device without partial = 1 is a bad header; a wrong ext is a bad length. */
static void test_partial_validation(void **state)
{
    (void)state;
    static tree t;
    uint8_t f[2048];
    build_tree(&t, 2);
    rx(&t, A, 0, f, data_frame(&t, 0, 0, 0, f));
    rx(&t, A, 1, f, data_frame(&t, 1, 0, 0, f));
    const out_frame *pa = &t.out[0];
    ws_hdr h;
    ws_parse(pa->f, &h);
    assert_true(h.ext > 0); /* these values need more than one word */
    assert_int_equal(pa->len, ws_partial_len(N_EL, h.ext));

    memcpy(f, pa->f, pa->len);
    ws_put16(f + WS_OFF_AGG + 20, (uint16_t)(h.ext - 1));
    ws_fix_checksums(f, pa->len);
    ws_verdict v = rx(&t, P, 0, f, pa->len);
    assert_int_equal(v.reason, WS_DROP_BAD_LENGTH);

    ws_config c = t.cfg[P];
    c.partial = false;
    char err[256];
    ws_refdev *plain = ws_refdev_new(&c, err, sizeof err);
    assert_non_null(plain);
    v = ws_refdev_rx(plain, 0, pa->f, pa->len, NULL, NULL);
    assert_int_equal(v.reason, WS_DROP_BAD_HEADER);
    ws_refdev_free(plain);
    free_tree(&t);
}

/* ---- configuration ----------------------------------------------------------------------- */

static void expect_config_error(const char *text, const char *want)
{
    static ws_config c;
    char err[512];
    assert_int_equal(ws_config_parse_string(&c, text, "t.ini", err, sizeof err), -1);
    if (!strstr(err, want))
        fail_msg("error '%s' lacks '%s'", err, want);
}

#define DEV "[device]\nmac = 02:00:00:00:00:fe\nip = 10.0.0.254\nbypass = 1 0\n"
#define JOB                                                                                  \
    "[job 3]\nworkers = 1\nslots = 2\nmax_count = 64\n"                                       \
    "member0 = 02:00:00:00:01:00 10.0.1.1 40000 0\n"

static void test_parent_config(void **state)
{
    (void)state;
    static ws_config c;
    char err[512];
    const char *good =
        DEV "partial = 1\n" JOB "parent = 02:00:00:00:00:aa 10.0.9.1 48900 1 7 5\n";
    assert_int_equal(ws_config_parse_string(&c, good, "t.ini", err, sizeof err), 0);
    assert_true(c.partial);
    assert_true(c.job[0].has_parent);
    assert_int_equal(c.job[0].parent.ip, 0x0a000901u);
    assert_int_equal(c.job[0].parent.port, 1);
    assert_int_equal(c.job[0].parent_job, 7);
    assert_int_equal(c.job[0].parent_rank, 5);

    /* written and read back: the same configuration */
    char buf[4096];
    FILE *m = fmemopen(buf, sizeof buf, "w");
    assert_non_null(m);
    assert_int_equal(ws_config_write(&c, m), 0);
    fclose(m);
    static ws_config d;
    assert_int_equal(ws_config_parse_string(&d, buf, "w.ini", err, sizeof err), 0);
    assert_memory_equal(&d.job[0].parent, &c.job[0].parent, sizeof c.job[0].parent);
    assert_int_equal(d.job[0].parent_rank, 5);
    assert_true(d.partial);

    expect_config_error(DEV JOB "parent = 02:00:00:00:00:aa 10.0.9.1 48900 1 7 5\n",
                        "t.ini:10: job 3: parent: the device does not take PARTIAL frames");
    expect_config_error(DEV "partial = 1\n" JOB "parent = 02:00:00:00:00:aa 10.0.9.1 48900 1 7\n",
                        "t.ini:11: parent: expected 6 fields");
    expect_config_error(DEV "partial = 1\n" JOB "parent = 02:00:00:00:00:aa 10.0.9.1 48900 2 7 5\n",
                        "t.ini:11: job 3: parent: device port 2 out of range 0..1");
    expect_config_error(DEV "partial = 1\n" JOB
                        "parent = 02:00:00:00:00:aa 10.0.9.1 48900 1 7 64\n",
                        "t.ini:11: parent: rank 64 out of range 0..63");
    expect_config_error(DEV "partial = 1\n" JOB
                        "parent = 03:00:00:00:00:aa 10.0.9.1 48900 1 7 5\n", "multicast");
    expect_config_error(DEV "partial = 1\n" JOB
                        "parent = 02:00:00:00:00:aa 10.0.0.254 48900 1 7 5\n",
                        "is the device's own");
    expect_config_error(DEV "partial = 2\n", "t.ini:5: partial 2 out of range 0..1");
    /* a device that takes PARTIALs must take its jobs' longest: 64 + 48 * 256 > 9216 */
    expect_config_error(DEV "partial = 1\n[job 3]\nworkers = 1\nslots = 2\nmax_count = 256\n"
                        "member0 = 02:00:00:00:01:00 10.0.1.1 40000 0\n",
                        "t.ini:9: job 3: max_count 256: a PARTIAL of that many elements takes up "
                        "to 12352 bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encoding_known_words),
        cmocka_unit_test(test_encoding_round_trip),
        cmocka_unit_test(test_partials_merge_exactly),
        cmocka_unit_test(test_decoding_is_total),
        cmocka_unit_test(test_tree_round),
        cmocka_unit_test(test_tree_ecn),
        cmocka_unit_test(test_waiting_set_takes_nothing),
        cmocka_unit_test(test_parent_result_checks),
        cmocka_unit_test(test_partial_validation),
        cmocka_unit_test(test_parent_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
