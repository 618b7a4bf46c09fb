/* test_security.c - cmocka tests of what a frame or a register write must never be able to do
 * (docs/protocol.md section 4, docs/registers.md "Job table"), through
 * the software reference and the RTL model side by side (tests/ws_pair.h), at every width built:
 *   - a frame whose source MAC, IPv4 address or UDP port is not the member's never contributes,
 *     whatever else it carries: perfect headers and checksums, for a new round, an open round
 *     (where it would complete it), a complete round (where it would get a re-send), claiming
 *     another rank or another job; counted as spoofed, sums unaffected;
 *   - a job cannot reach another job's slots: slot numbers beyond its own range (those that
 *     base + slot would map onto another job's range, also wrapping around the pool) are
 *     bad_slot, the other job's open rounds finish with their exact sums;
 *   - register commits that make no sense are refused with the STATUS code of
 *     docs/registers.md, job disabled, other jobs untouched; ws_dev_configure() names the code.
 * Every sum is checked against values computed here (small integers: exact), on the
 * reference's RESULTs and on the model's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_pair.h"

static unsigned widths[8];
static size_t n_widths;

#define F(x) f32bits((float)(x))

static uint32_t f32bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* ---- helpers ---------------------------------------------------------------------------- */

/* A session of the (traced) Verilator model of that width, and the model in it */
static ws_session *new_dev(unsigned width, ws_sim **sim)
{
    char err[512];
    ws_session_opts o = {WS_DEVICE_VERILATOR, width, 1};
    ws_session *d = ws_session_open(&o, err, sizeof err);
    if (!d)
        fail_msg("ws_session_open(verilator, %u): %s", width, err);
    *sim = ws_session_sim(d);
    return d;
}

static void ok(ws_pair *p, int rc)
{
    if (rc)
        fail_msg("width %u: %s", p->width, p->err);
}

/* Rank r's element i of "honest" round k: small integers, so the sum is exact. */
static uint32_t honest(unsigned k, unsigned r, unsigned i) { return F((int)((r + 1) * (i + 1) + 100 * k)); }

static float honest_sum(unsigned k, unsigned workers, unsigned i)
{
    float s = 0;
    for (unsigned r = 0; r < workers; r++)
        s += (float)((r + 1) * (i + 1) + 100 * k);
    return s;
}

/* Push rank r's honest frame of round k of cfg job j; returns the verdict. */
static ws_verdict send_honest(ws_pair *p, unsigned j, unsigned r, unsigned slot, unsigned set,
                              unsigned k, unsigned count)
{
    uint32_t e[64];
    uint8_t buf[WS_OFF_ELEMS + 4 * 64];
    for (unsigned i = 0; i < count; i++)
        e[i] = honest(k, r, i);
    size_t len = wsp_data(&p->cfg, j, r, slot, set, 1000u * k, 0xabc0u + k, count, e, buf);
    ws_verdict v;
    ok(p, wsp_push(p, p->cfg.job[j].member[r].port, buf, len, &v));
    return v;
}

/* The model's RESULTs of (job j, slot, set) of round k: one per member, sums exact. Looked up
 * in the frames the model sent since the last compare (so call after wsp_drain). */
static void model_results_exact(ws_pair *p, unsigned j, unsigned slot, unsigned set, unsigned k,
                                unsigned count)
{
    const ws_job *jb = &p->cfg.job[j];
    unsigned seen = 0;
    for (unsigned q = 0; q < p->ports; q++)
        for (size_t n = 0; n < p->act[q].n; n++) {
            const wsp_frame *f = &p->act[q].f[n];
            if (!ws_is_result(f->data, f->len, p->cfg.ip, p->cfg.udp_port))
                continue;
            ws_hdr h;
            ws_parse(f->data, &h);
            if (h.job != jb->id || h.slot != slot || (h.flags & WS_FLAG_SET) != set ||
                h.tensor != 0xabc0u + k || (h.flags & WS_FLAG_RETX))
                continue;
            assert_int_equal(h.count, count);
            assert_int_equal(f->len, ws_frame_len(count));
            assert_int_equal(q, jb->member[h.worker].port);
            for (unsigned i = 0; i < count; i++)
                if (ws_elem(f->data, i) != f32bits(honest_sum(k, jb->workers, i)))
                    fail_msg("width %u: model RESULT job %u slot %u set %u rank %u element %u: "
                             "0x%08x, exact sum %g", p->width, jb->id, slot, set, h.worker, i,
                             ws_elem(f->data, i), (double)honest_sum(k, jb->workers, i));
            seen++;
        }
    if (seen != jb->workers)
        fail_msg("width %u: %u RESULTs of the model for job %u slot %u set %u round %u, %u "
                 "workers", p->width, seen, jb->id, slot, set, k, jb->workers);
}

/* The reference's RESULTs just sent (the completing push): exact. */
static void ref_results_exact(ws_pair *p, unsigned j, unsigned k, unsigned count)
{
    const ws_job *jb = &p->cfg.job[j];
    assert_int_equal(p->cap.n, jb->workers);
    for (unsigned r = 0; r < jb->workers; r++)
        for (unsigned i = 0; i < count; i++)
            assert_int_equal(ws_elem(p->cap.f[r].data, i), f32bits(honest_sum(k, jb->workers, i)));
}

/* Spoof variants of a frame built for rank r of job j: change the source fields. */
enum { SP_MAC_LAST, SP_MAC_FIRST, SP_IP, SP_PORT, SP_ALL, SP_OTHER_MAC, SP_OTHER_IP,
       SP_OTHER_PORT, SP_OTHER_MEMBER, SP_DEVICE, SP_N };

static const char *const sp_name[SP_N] = {
    "MAC last byte", "MAC first byte", "IP", "UDP port", "MAC, IP and UDP port",
    "another member's MAC", "another member's IP", "another member's UDP port",
    "another member's MAC, IP and UDP port", "the device's own addresses"};

static size_t spoofed(const ws_pair *p, unsigned j, unsigned r, unsigned slot, unsigned set,
                      unsigned k, unsigned count, int how, uint8_t *buf)
{
    const ws_job *jb = &p->cfg.job[j];
    const ws_member *o = &jb->member[(r + 1) % jb->workers];
    uint32_t e[64];
    for (unsigned i = 0; i < count; i++)
        e[i] = F(1e30); /* anything that got in would show */
    size_t len = wsp_data(&p->cfg, j, r, slot, set, 1000u * k, 0xabc0u + k, count, e, buf);
    switch (how) {
    case SP_MAC_LAST: buf[11] ^= 0x01; break;
    case SP_MAC_FIRST: buf[6] ^= 0x04; break;
    case SP_IP: buf[29] ^= 0x80; break;
    case SP_PORT: ws_put16(buf + 34, (uint16_t)(ws_get16(buf + 34) + 1)); break;
    case SP_ALL: buf[7] ^= 0x20; buf[27] ^= 0x01; buf[35] ^= 0x10; break;
    case SP_OTHER_MAC: memcpy(buf + 6, o->mac, 6); break;
    case SP_OTHER_IP: ws_put32(buf + 26, o->ip); break;
    case SP_OTHER_PORT: ws_put16(buf + 34, o->udp_port); break;
    case SP_OTHER_MEMBER:
        memcpy(buf + 6, o->mac, 6);
        ws_put32(buf + 26, o->ip);
        ws_put16(buf + 34, o->udp_port);
        break;
    default:
        memcpy(buf + 6, p->cfg.mac, 6);
        ws_put32(buf + 26, p->cfg.ip);
        ws_put16(buf + 34, p->cfg.udp_port);
        break;
    }
    ws_fix_checksums(buf, len); /* perfect headers: only the identity is wrong */
    return len;
}

static void expect_spoofed(ws_pair *p, unsigned port, const uint8_t *buf, size_t len,
                           const char *what)
{
    ws_verdict v;
    ok(p, wsp_push(p, port, buf, len, &v));
    if (v.kind != WS_V_DROP || v.reason != WS_DROP_SPOOFED)
        fail_msg("width %u: spoofed frame (%s): verdict %d, reason %s", p->width, what, v.kind,
                 ws_reason_name(v.reason));
}

/* ---- spoofing --------------------------------------------------------------------------- */

static void spoof_run(unsigned width, const ws_sim_stress *st)
{
    ws_sim *s;
    ws_session *d = new_dev(width, &s);
    ws_config cfg;
    const unsigned workers[2] = {3, 2}, slots[2] = {2, 2}, maxc[2] = {8, 8};
    wsp_config(&cfg, 2, workers, slots, maxc, 0);
    ws_pair *p = calloc(1, sizeof *p);
    assert_non_null(p);
    ok(p, wsp_open(p, d, &cfg, st));
    const unsigned count = 8;
    uint8_t buf[WS_OFF_ELEMS + 4 * 64];
    uint64_t n_spoofed = 0;
    unsigned k = 0;
    for (int how = 0; how < SP_N; how++, k++) {
        /* the set of the slot that is complete and empty: a new round may start there */
        unsigned slot = k % 2, set = 0;
        ws_set_state ss[2];
        for (unsigned t = 0; t < 2; t++)
            assert_int_equal(ws_refdev_set_state(p->ref, cfg.job[0].id, slot, t, &ss[t]), 0);
        set = ss[0].complete && ss[0].bitmap == 0 ? 0 : 1;
        assert_true(ss[set].complete && ss[set].bitmap == 0);
        /* a new round: the set is complete and empty; every rank's identity spoofed */
        for (unsigned r = 0; r < 3; r++) {
            size_t len = spoofed(p, 0, r, slot, set, k, count, how, buf);
            expect_spoofed(p, (r + 1) % 4, buf, len, sp_name[how]);
            n_spoofed++;
        }
        /* an open round: rank 0 in, then spoofed frames for ranks 1 and 2 (the last would
         * complete the round) and for rank 0 (would be a duplicate) */
        ws_verdict v = send_honest(p, 0, 0, slot, set, k, count);
        assert_int_equal(v.kind, WS_V_ACCEPT);
        v = send_honest(p, 0, 1, slot, set, k, count);
        assert_int_equal(v.kind, WS_V_ACCEPT);
        for (unsigned r = 0; r < 3; r++) {
            size_t len = spoofed(p, 0, r, slot, set, k, count, how, buf);
            expect_spoofed(p, r % 4, buf, len, sp_name[how]);
            n_spoofed++;
        }
        v = send_honest(p, 0, 2, slot, set, k, count);
        assert_int_equal(v.kind, WS_V_COMPLETE);
        ref_results_exact(p, 0, k, count);
        /* a complete round: a spoofed duplicate gets no re-send */
        for (unsigned r = 0; r < 3; r++) {
            size_t len = spoofed(p, 0, r, slot, set, k, count, how, buf);
            expect_spoofed(p, 3, buf, len, sp_name[how]);
            n_spoofed++;
        }
        /* another job: job 1 rank 0 with job 0's addresses claims job 1 (the job's own
         * members may be anybody, but not someone else) */
        if (how == SP_OTHER_MEMBER) {
            uint32_t e[8];
            for (unsigned i = 0; i < count; i++)
                e[i] = F(7);
            size_t len = wsp_data(&p->cfg, 1, 0, 0, 0, 0, 0, count, e, buf);
            memcpy(buf + 6, cfg.job[0].member[0].mac, 6);
            ws_put32(buf + 26, cfg.job[0].member[0].ip);
            ws_put16(buf + 34, cfg.job[0].member[0].udp_port);
            ws_fix_checksums(buf, len);
            expect_spoofed(p, 0, buf, len, "job 0's member claiming job 1");
            n_spoofed++;
        }
        ok(p, wsp_drain(p));
        model_results_exact(p, 0, slot, set, k, count);
        ok(p, wsp_compare_frames(p));
        ok(p, wsp_compare_counters(p));
    }
    assert_int_equal(ws_refdev_counters(p->ref)->drop[WS_DROP_SPOOFED], n_spoofed);
    assert_int_equal(ws_refdev_counters(p->ref)->resends, 0);
    ok(p, wsp_check(p)); /* the model's spoofed counter equals the reference's */
    wsp_close(p);
    free(p);
    ws_session_free(d);
}

static void test_spoofed_never_contribute(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_widths; i++)
        spoof_run(widths[i], NULL);
}

static void test_spoofed_under_stress(void **state)
{
    (void)state;
    ws_sim_stress st = {30, 40, 77};
    spoof_run(widths[0], &st);
}

/* ---- one job cannot reach another's slots ----------------------------------------------- */

/* Job 0 at the end of the pool (base POOL-4), job 1 at its start: job 0's slot 4 is pool slot
 * POOL, which a 6-bit pool index would wrap onto job 1's slot 0. */
static void isolation_run(unsigned width)
{
    ws_sim *s;
    ws_session *d = new_dev(width, &s);
    ws_config cfg;
    const unsigned workers[2] = {2, 3}, slots[2] = {4, 4}, maxc[2] = {16, 16};
    wsp_config(&cfg, 2, workers, slots, maxc, 0);
    cfg.job[0].slot_base = cfg.pool_slots - 4;
    cfg.job[1].slot_base = 0;
    ws_pair *p = calloc(1, sizeof *p);
    assert_non_null(p);
    ok(p, wsp_open(p, d, &cfg, NULL));
    const unsigned count = 16;
    /* job 1: open rounds in every slot and set it has (rank 0 and 1 in, rank 2 missing) */
    for (unsigned sl = 0; sl < 4; sl++)
        for (unsigned r = 0; r < 2; r++)
            assert_int_equal(send_honest(p, 1, r, sl, 0, sl, count).kind, WS_V_ACCEPT);
    /* job 0's members name slots beyond their range, with job 1's round identity */
    const unsigned bad[] = {4, 5, 7, 8, 60, 63, 64, 65, 68, 127, 128, 255, 256, 4096,
                            0x8000, 0xfffc, 0xfffd, 0xffff};
    uint64_t n_bad = 0;
    uint8_t buf[WS_OFF_ELEMS + 4 * 64];
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
        for (unsigned r = 0; r < 2; r++)
            for (unsigned set = 0; set < 2; set++) {
                uint32_t e[16];
                for (unsigned i = 0; i < count; i++)
                    e[i] = F(1e30);
                unsigned k = bad[b] % 4;
                size_t len = wsp_data(&cfg, 0, r, bad[b], set, 1000u * k, 0xabc0u + k, count, e,
                                      buf);
                ws_verdict v;
                ok(p, wsp_push(p, r, buf, len, &v));
                if (v.kind != WS_V_DROP || v.reason != WS_DROP_BAD_SLOT)
                    fail_msg("width %u: job 0 slot %u: verdict %d reason %s", width, bad[b],
                             v.kind, ws_reason_name(v.reason));
                n_bad++;
            }
    /* job 1's own members, too, cannot go beyond job 1's range (into job 0's) */
    for (unsigned sl = 4; sl < 70; sl += 13) {
        uint32_t e[16];
        for (unsigned i = 0; i < count; i++)
            e[i] = F(3);
        size_t len = wsp_data(&cfg, 1, 2, sl, 0, 0, 0xabc0u, count, e, buf);
        ws_verdict v;
        ok(p, wsp_push(p, 2, buf, len, &v));
        assert_int_equal(v.reason, WS_DROP_BAD_SLOT);
        n_bad++;
    }
    /* job 0's member naming job 1 with its own (job 0) addresses: not job 1's member */
    {
        uint32_t e[16];
        for (unsigned i = 0; i < count; i++)
            e[i] = F(1e30);
        size_t len = wsp_data(&cfg, 1, 2, 0, 0, 0, 0xabc0u, count, e, buf);
        memcpy(buf + 6, cfg.job[0].member[0].mac, 6);
        ws_put32(buf + 26, cfg.job[0].member[0].ip);
        ws_put16(buf + 34, cfg.job[0].member[0].udp_port);
        ws_fix_checksums(buf, len);
        expect_spoofed(p, 0, buf, len, "job 0's member in job 1");
    }
    ok(p, wsp_drain(p));
    ok(p, wsp_compare_frames(p)); /* nothing was sent */
    ok(p, wsp_compare_counters(p));
    assert_int_equal(ws_refdev_counters(p->ref)->drop[WS_DROP_BAD_SLOT], n_bad);
    /* job 1's rounds complete with their exact sums; job 0 works in its own range */
    for (unsigned sl = 0; sl < 4; sl++) {
        assert_int_equal(send_honest(p, 1, 2, sl, 0, sl, count).kind, WS_V_COMPLETE);
        ref_results_exact(p, 1, sl, count);
    }
    for (unsigned sl = 0; sl < 4; sl++)
        for (unsigned r = 0; r < 2; r++)
            assert_int_equal(send_honest(p, 0, r, sl, 1, 20 + sl, count).kind,
                             r == 1 ? WS_V_COMPLETE : WS_V_ACCEPT);
    ok(p, wsp_drain(p));
    for (unsigned sl = 0; sl < 4; sl++) {
        model_results_exact(p, 1, sl, 0, sl, count);
        model_results_exact(p, 0, sl, 1, 20 + sl, count);
    }
    ok(p, wsp_compare_frames(p));
    ok(p, wsp_compare_counters(p));
    wsp_close(p);
    free(p);
    ws_session_free(d);
}

static void test_jobs_isolated(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_widths; i++)
        isolation_run(widths[i]);
}

/* ---- register commits -------------------------------------------------------------------- */

typedef struct {
    unsigned id, workers, slots, base, max_count;
} jobregs;

static int wr(ws_sim *s, uint32_t addr, uint32_t v) { return ws_sim_reg_write(s, addr, v); }

static uint32_t rd(ws_sim *s, uint32_t addr)
{
    uint32_t v = 0xdeadbeef;
    assert_int_equal(ws_sim_reg_read(s, addr, &v), 0);
    return v;
}

static void members(ws_sim *s, unsigned j, unsigned n, unsigned max_workers)
{
    for (unsigned w = 0; w < n; w++) {
        unsigned i = j * max_workers + w;
        assert_int_equal(wr(s, WS_REG_MEMBER_MAC_HI(i), 0x0200), 0);
        assert_int_equal(wr(s, WS_REG_MEMBER_MAC_LO(i), 0x77000000u | j << 8 | w), 0);
        assert_int_equal(wr(s, WS_REG_MEMBER_IP(i), 0x0a020000u | j << 8 | w), 0);
        assert_int_equal(wr(s, WS_REG_MEMBER_PORT(i), (w % 4) << 16 | (5000 + w)), 0);
    }
}

/* Commit job j with these values and enable; returns STATUS.CODE (STATUS.JOB checked). */
static unsigned commit(ws_sim *s, unsigned j, const jobregs *v, unsigned enable)
{
    assert_int_equal(wr(s, WS_REG_JOB_ID(j), v->id), 0);
    assert_int_equal(wr(s, WS_REG_JOB_WORKERS(j), v->workers), 0);
    assert_int_equal(wr(s, WS_REG_JOB_SLOTS(j), v->slots), 0);
    assert_int_equal(wr(s, WS_REG_JOB_SLOT_BASE(j), v->base), 0);
    assert_int_equal(wr(s, WS_REG_JOB_MAX_COUNT(j), v->max_count), 0);
    assert_int_equal(wr(s, WS_REG_JOB_CTRL(j), enable), 0);
    uint32_t st = rd(s, WS_REG_STATUS);
    assert_int_equal((st & WS_STATUS_JOB_MASK) >> WS_STATUS_JOB_LSB, j);
    unsigned code = (st & WS_STATUS_CODE_MASK) >> WS_STATUS_CODE_LSB;
    unsigned active = rd(s, WS_REG_JOB_CTRL(j)) & WS_JOB_CTRL_ENABLE_MASK;
    if (active != (enable && code == 0))
        fail_msg("job %u: STATUS.CODE %u, enable %u, but JOB_CTRL reads active %u", j, code,
                 enable, active);
    return code;
}

#define CODE_OK 0
#define CODE_BAD_WORKERS 1
#define CODE_BAD_SLOTS 2
#define CODE_BAD_MAX_COUNT 3
#define CODE_SLOTS_OUTSIDE_POOL 4
#define CODE_DUP_JOB_ID 5
#define CODE_SLOT_OVERLAP 6
#define CODE_BAD_MEMBER_PORT 7

static void test_commit_codes(void **state)
{
    (void)state;
    for (size_t wi = 0; wi < n_widths; wi++) {
        ws_sim *s;
        ws_session *d = new_dev(widths[wi], &s);
        unsigned W = rd(s, WS_REG_PARAM_WORKERS), P = rd(s, WS_REG_PARAM_POOL),
                 C = rd(s, WS_REG_PARAM_COUNT), J = rd(s, WS_REG_PARAM_JOBS),
                 N = rd(s, WS_REG_PARAM_PORTS);
        assert_true(J >= 4);
        members(s, 0, W, W);
        members(s, 1, W, W);
        members(s, 2, W, W);
        const jobregs good = {7, 4, 8, 0, 16};
        jobregs v;
        /* each field out of range, on its own */
        v = good; v.workers = 0;      assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_WORKERS);
        v = good; v.workers = W + 1;  assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_WORKERS);
        v = good; v.workers = 0xffff; assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_WORKERS);
        v = good; v.slots = 0;        assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_SLOTS);
        v = good; v.slots = P + 1;    assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_SLOTS);
        v = good; v.max_count = 0;    assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_MAX_COUNT);
        v = good; v.max_count = C + 1; assert_int_equal(commit(s, 0, &v, 1), CODE_BAD_MAX_COUNT);
        v = good; v.base = P - 7;     assert_int_equal(commit(s, 0, &v, 1), CODE_SLOTS_OUTSIDE_POOL);
        v = good; v.base = P;  v.slots = 1; assert_int_equal(commit(s, 0, &v, 1), CODE_SLOTS_OUTSIDE_POOL);
        v = good; v.base = 0xffff; v.slots = 1; /* base + slots wraps 16 bits */
        assert_int_equal(commit(s, 0, &v, 1), CODE_SLOTS_OUTSIDE_POOL);
        v = good; v.base = 0xfff8; v.slots = 8;
        assert_int_equal(commit(s, 0, &v, 1), CODE_SLOTS_OUTSIDE_POOL);
        /* the edges are fine: the whole pool, the largest values */
        v = good; v.base = 0; v.slots = P; v.workers = W; v.max_count = C;
        assert_int_equal(commit(s, 0, &v, 1), CODE_OK);
        v = good; v.base = P - 8;     assert_int_equal(commit(s, 0, &v, 1), CODE_OK);
        /* job 0 active at P-8..P-1; job 1 against it */
        v = good; v.base = 0;         assert_int_equal(commit(s, 1, &v, 1), CODE_DUP_JOB_ID);
        v = good; v.id = 8; v.base = P - 8; assert_int_equal(commit(s, 1, &v, 1), CODE_SLOT_OVERLAP);
        v = good; v.id = 8; v.base = P - 9; assert_int_equal(commit(s, 1, &v, 1), CODE_SLOT_OVERLAP);
        v = good; v.id = 8; v.base = P - 2; v.slots = 1;
        assert_int_equal(commit(s, 1, &v, 1), CODE_SLOT_OVERLAP);
        v = good; v.id = 8; v.base = 0; v.slots = P;
        assert_int_equal(commit(s, 1, &v, 1), CODE_SLOT_OVERLAP);
        v = good; v.id = 8; v.base = P - 16; /* adjacent: fine */
        assert_int_equal(commit(s, 1, &v, 1), CODE_OK);
        /* job 2 overlapping both, then a job whose range only a disabled job has */
        v = good; v.id = 9; v.base = P - 12; assert_int_equal(commit(s, 2, &v, 1), CODE_SLOT_OVERLAP);
        v = good; v.id = 8; v.base = P - 16; assert_int_equal(commit(s, 1, &v, 0), CODE_OK);
        v = good; v.id = 8; v.base = P - 12; /* disabling job 1 freed its id and range */
        assert_int_equal(commit(s, 2, &v, 1), CODE_SLOT_OVERLAP); /* job 0 still there */
        v = good; v.id = 8; v.base = P - 16; assert_int_equal(commit(s, 2, &v, 1), CODE_OK);
        /* invalid values with ENABLE 0: just disabled */
        v = good; v.workers = 0; assert_int_equal(commit(s, 3, &v, 0), CODE_OK);
        /* members: rank below workers never written since reset */
        v = good; v.id = 10; v.base = 0; v.workers = 2;
        assert_int_equal(commit(s, 3, &v, 1), CODE_BAD_MEMBER_PORT);
        /* a device port that does not exist is refused (SLVERR), so still not valid */
        assert_int_equal(wr(s, WS_REG_MEMBER_PORT(3 * W + 0), N << 16 | 5000), 2);
        assert_int_equal(wr(s, WS_REG_MEMBER_PORT(3 * W + 1), 0xffu << 16 | 5001), 2);
        assert_int_equal(commit(s, 3, &v, 1), CODE_BAD_MEMBER_PORT);
        assert_int_equal(wr(s, WS_REG_MEMBER_PORT(3 * W + 0), (N - 1) << 16 | 5000), 0);
        assert_int_equal(commit(s, 3, &v, 1), CODE_BAD_MEMBER_PORT); /* rank 1 still missing */
        assert_int_equal(wr(s, WS_REG_MEMBER_PORT(3 * W + 1), 0u << 16 | 5001), 0);
        assert_int_equal(commit(s, 3, &v, 1), CODE_OK);
        /* a bypass egress that does not exist is refused too */
        assert_int_equal(wr(s, WS_REG_BYPASS(0), N), 2);
        /* a refused commit of an active job disables it */
        v = good; v.id = 8; v.base = P - 16; v.max_count = 0;
        assert_int_equal(commit(s, 2, &v, 1), CODE_BAD_MAX_COUNT);
        assert_int_equal(rd(s, WS_REG_JOB_CTRL(2)) & 1, 0);
        /* a job index beyond the build's table answers SLVERR */
        if (J < WS_TBL_JOB_LIMIT)
            assert_int_equal(wr(s, WS_REG_JOB_CTRL(J), 1), 2);
        assert_null(ws_sim_error(s));
        ws_session_free(d);
    }
}

/* A refused commit (and a good one of another job) leaves an active job's rounds alone; a
 * refused re-commit of the active job disables it: its frames are then unknown_job. */
static void test_refused_commit_leaves_state(void **state)
{
    (void)state;
    ws_sim *s;
    ws_session *d = new_dev(widths[0], &s);
    ws_config cfg;
    const unsigned workers[1] = {2}, slots[1] = {4}, maxc[1] = {8};
    wsp_config(&cfg, 1, workers, slots, maxc, 8);
    ws_pair *p = calloc(1, sizeof *p);
    assert_non_null(p);
    ok(p, wsp_open(p, d, &cfg, NULL));
    unsigned W = rd(s, WS_REG_PARAM_WORKERS);
    for (unsigned sl = 0; sl < 4; sl++)
        assert_int_equal(send_honest(p, 0, 0, sl, 0, sl, 8).kind, WS_V_ACCEPT);
    ok(p, wsp_drain(p));
    members(s, 1, 2, W);
    jobregs v = {cfg.job[0].id, 2, 4, 10, 8}; /* overlaps job 0 (8..11), same id */
    assert_int_equal(commit(s, 1, &v, 1), CODE_DUP_JOB_ID);
    v.id = 0x4242;
    assert_int_equal(commit(s, 1, &v, 1), CODE_SLOT_OVERLAP);
    v.workers = 0;
    assert_int_equal(commit(s, 1, &v, 1), CODE_BAD_WORKERS);
    v.workers = 2;
    v.base = 12; /* right after job 0: accepted, clears only 12..15 */
    assert_int_equal(commit(s, 1, &v, 1), CODE_OK);
    v.base = 4; /* just before */
    assert_int_equal(commit(s, 1, &v, 1), CODE_OK);
    for (unsigned sl = 0; sl < 4; sl++) {
        assert_int_equal(send_honest(p, 0, 1, sl, 0, sl, 8).kind, WS_V_COMPLETE);
        ref_results_exact(p, 0, sl, 8);
    }
    ok(p, wsp_drain(p));
    for (unsigned sl = 0; sl < 4; sl++)
        model_results_exact(p, 0, sl, 0, sl, 8);
    ok(p, wsp_compare_frames(p));
    ok(p, wsp_compare_counters(p));
    /* job 0 re-committed with a bad value: disabled, its frames unknown_job on the model */
    jobregs bad = {cfg.job[0].id, 2, 4, 8, 0};
    assert_int_equal(commit(s, 0, &bad, 1), CODE_BAD_MAX_COUNT);
    uint32_t before = rd(s, WS_REG_CNT_DROP(WS_DROP_UNKNOWN_JOB));
    uint32_t e[8] = {0};
    uint8_t buf[WS_OFF_ELEMS + 32];
    size_t len = wsp_data(&cfg, 0, 0, 0, 1, 0, 0, 8, e, buf);
    assert_int_equal(ws_sim_push(s, 0, buf, len), 0);
    ws_sim_run(s, 2000);
    assert_int_equal(rd(s, WS_REG_CNT_DROP(WS_DROP_UNKNOWN_JOB)), before + 1);
    for (unsigned q = 0; q < ws_sim_ports(s); q++)
        assert_int_equal(ws_sim_collected(s, q), 0);
    assert_null(ws_sim_error(s));
    wsp_close(p);
    free(p);
    ws_session_free(d);
}

/* ws_dev_configure refuses what the device refuses, naming the STATUS code: the commit's own
 * refusal (SLOT_OVERLAP, DUP_JOB_ID), or ws_dev_job_setup's check before any write, which names
 * the code the commit would give. */
static void expect_refused(ws_session *d, const ws_config *cfg, const char *name)
{
    char err[512] = "";
    ws_session_reset(d);
    assert_int_equal(ws_session_configure(d, cfg, err, sizeof err), -1);
    if (!strstr(err, name))
        fail_msg("ws_dev_configure: expected \"%s\" in \"%s\"", name, err);
}

static void test_driver_names_codes(void **state)
{
    (void)state;
    ws_sim *s;
    ws_session *d = new_dev(widths[0], &s);
    ws_config cfg, c;
    const unsigned workers[2] = {2, 3}, slots[2] = {4, 4}, maxc[2] = {8, 8};
    wsp_config(&cfg, 2, workers, slots, maxc, 0);
    char err[512];
    assert_int_equal(ws_session_configure(d, &cfg, err, sizeof err), 0);

    c = cfg; c.job[1].slot_base = 2;
    expect_refused(d, &c, "SLOT_OVERLAP");
    c = cfg; c.job[1].id = c.job[0].id;
    expect_refused(d, &c, "DUP_JOB_ID");
    c = cfg; c.job[1].slot_base = c.pool_slots - 2;
    expect_refused(d, &c, "SLOTS_OUTSIDE_POOL");
    c = cfg; c.job[1].max_count = c.max_count + 1;
    expect_refused(d, &c, "BAD_MAX_COUNT");
    c = cfg; c.job[1].workers = 0;
    expect_refused(d, &c, "BAD_WORKERS");
    c = cfg; c.job[1].slots = 0;
    expect_refused(d, &c, "BAD_SLOTS");
    /* the refused job's record and code are named */
    char named[64];
    snprintf(named, sizeof named, "job %u (table record 1)", cfg.job[1].id);
    c = cfg; c.job[1].slot_base = 3;
    expect_refused(d, &c, named);
    /* a member on a port the device does not have: refused before the MEMBER_PORT write that
     * the device would refuse */
    c = cfg; c.job[1].member[2].port = (uint8_t)ws_sim_ports(s);
    expect_refused(d, &c, "MEMBER_PORT");
    /* more workers than the device has: refused before any write */
    c = cfg; c.job[1].workers = rd(s, WS_REG_PARAM_WORKERS) + 1;
    expect_refused(d, &c, "supports");
    assert_null(ws_sim_error(s));
    ws_session_free(d);
}

int main(void)
{
    n_widths = ws_sim_widths(widths, 8);
    if (!n_widths) {
        printf("test_security: no model built in\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spoofed_never_contribute),
        cmocka_unit_test(test_spoofed_under_stress),
        cmocka_unit_test(test_jobs_isolated),
        cmocka_unit_test(test_commit_codes),
        cmocka_unit_test(test_refused_commit_leaves_state),
        cmocka_unit_test(test_driver_names_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
