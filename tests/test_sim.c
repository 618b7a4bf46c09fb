/* test_sim.c - cmocka tests of sim/ws_sim.c, sim/wiresum/sim.h against the Verilated wiresum_top, every width
 * built in: the ABI's argument checks, registers of docs/registers.md, bypass traffic of every
 * size on every port with and without idle insertion and backpressure, reset, FST windows.
 * Only what holds for the real device: frames that are not aggregation traffic come back
 * untouched on the port the bypass map names, in order (docs/protocol.md sections 1 and 3). */
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wiresum/regmap.h"
#include "wiresum/sim.h"

#define ERRLEN 512
#define MAX_FRAME 9216       /* the device's MAX_FRAME default */
#define DRAIN_LIMIT 4000000u /* cycles a test may wait for its frames */

static unsigned widths[8];
static size_t n_widths;

typedef struct {
    ws_sim *s;
    char err[ERRLEN];
    char dir[64];
} fx;

/* ---- helpers ---- */

static ws_sim *open_sim(fx *f, unsigned width)
{
    ws_sim *s = ws_sim_new(width, f->err, sizeof f->err);
    if (!s)
        fail_msg("ws_sim_new(%u): %s", width, f->err);
    return s;
}

static void no_error(const ws_sim *s)
{
    if (ws_sim_error(s))
        fail_msg("model: %s", ws_sim_error(s));
}

/* A frame nobody aggregates: EtherType 0x88B5 (local experimental), then a pattern. */
static void make_frame(uint8_t *b, size_t len, unsigned port, unsigned index)
{
    for (size_t i = 0; i < len; i++)
        b[i] = (uint8_t)(port * 59u + index * 13u + i * 7u + (i >> 8));
    static const uint8_t hdr[14] = {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xB5};
    memcpy(b, hdr, len < 14 ? len : 14);
}

/* Bypass map p -> p: every frame comes back on its own port. */
static void bypass_to_self(ws_sim *s)
{
    for (unsigned p = 0; p < ws_sim_ports(s); p++)
        assert_int_equal(ws_sim_reg_write(s, WS_REG_BYPASS(p), p), 0);
}

static size_t total_pending(const ws_sim *s)
{
    size_t n = 0;
    for (unsigned p = 0; p < ws_sim_ports(s); p++)
        n += ws_sim_pending(s, p);
    return n;
}

static size_t total_collected(const ws_sim *s)
{
    size_t n = 0;
    for (unsigned p = 0; p < ws_sim_ports(s); p++)
        n += ws_sim_collected(s, p);
    return n;
}

/* Run until want frames are collected in all (bounded), then a little more to see extras. */
static void run_until_collected(ws_sim *s, size_t want)
{
    uint64_t start = ws_sim_cycle(s);
    while (total_collected(s) < want) {
        ws_sim_run(s, 500);
        no_error(s);
        if (ws_sim_cycle(s) - start > DRAIN_LIMIT)
            fail_msg("%zu of %zu frames after %u cycles, %zu still queued", total_collected(s),
                     want, DRAIN_LIMIT, total_pending(s));
    }
    ws_sim_run(s, 2000);
    no_error(s);
}

/* The frame sizes of a sweep at this width: every small size around the beat boundaries, then
 * the usual Ethernet sizes and the largest. */
static size_t sizes(unsigned width, size_t *out, size_t max)
{
    size_t n = 0, bytes = width / 8;
    for (size_t len = 14; len <= 3 * bytes + 1 && n < max; len++)
        out[n++] = len;
    static const size_t more[] = {60, 64, 68, 1500, 1514, 1518, 4096, 9000, MAX_FRAME};
    for (size_t i = 0; i < sizeof more / sizeof more[0] && n < max; i++)
        out[n++] = more[i];
    return n;
}

/* Push a sweep on every port (port p starts at a different size), collect, compare. */
static void sweep(unsigned width, const ws_sim_stress *st)
{
    fx f = {0};
    ws_sim *s = open_sim(&f, width);
    unsigned ports = ws_sim_ports(s);
    bypass_to_self(s);
    ws_sim_set_stress(s, st);
    size_t len[512];
    size_t n = sizes(width, len, 512);
    uint8_t *buf = malloc(MAX_FRAME);
    assert_non_null(buf);
    uint64_t beats = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        for (unsigned p = 0; p < ports; p++) {
            size_t l = len[(i + p) % n];
            make_frame(buf, l, p, (unsigned)i);
            assert_int_equal(ws_sim_push(s, p, buf, l), 0);
            beats += (l + width / 8 - 1) / (width / 8);
            bytes += l;
        }
    }
    run_until_collected(s, n * ports);
    for (unsigned p = 0; p < ports; p++) {
        assert_int_equal(ws_sim_pending(s, p), 0);
        uint64_t last = 0;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *d;
            size_t got;
            uint64_t cyc;
            size_t l = len[(i + p) % n];
            if (ws_sim_pop(s, p, &d, &got, &cyc) != 1)
                fail_msg("width %u port %u: frame %zu (%zu bytes) missing", width, p, i, l);
            make_frame(buf, l, p, (unsigned)i);
            if (got != l || memcmp(d, buf, l) != 0)
                fail_msg("width %u port %u: frame %zu is %zu bytes, %s (expected %zu)", width, p,
                         i, got, got == l ? "content differs" : "length differs", l);
            assert_true(cyc > last);
            assert_true(cyc <= ws_sim_cycle(s));
            last = cyc;
        }
        assert_int_equal(ws_sim_pop(s, p, NULL, NULL, NULL), 0); /* nothing extra */
    }
    ws_sim_stats ss;
    ws_sim_stats_get(s, &ss);
    assert_int_equal(ss.frames_in, n * ports);
    assert_int_equal(ss.frames_out, n * ports);
    assert_int_equal(ss.beats_in, beats);
    assert_int_equal(ss.beats_out, beats);
    assert_int_equal(ss.bytes_in, bytes);
    assert_int_equal(ss.bytes_out, bytes);
    assert_int_equal(ss.errors, 0);
    free(buf);
    ws_sim_free(s);
}

/* ---- tests ---- */

static void test_widths(void **state)
{
    (void)state;
    fx f = {0};
    assert_true(n_widths >= 1);
    for (size_t i = 0; i < n_widths; i++) {
        ws_sim *s = open_sim(&f, widths[i]);
        assert_int_equal(ws_sim_width(s), widths[i]);
        assert_int_equal(ws_sim_ports(s), 4); /* N_PORTS default */
        assert_int_equal(ws_sim_cycle(s), WS_SIM_RESET_CYCLES);
        assert_null(ws_sim_error(s));
        ws_sim_free(s);
    }
    assert_null(ws_sim_new(384, f.err, sizeof f.err));
    assert_non_null(strstr(f.err, "384"));
    ws_sim_free(NULL);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    fx f = {0};
    ws_sim *s = open_sim(&f, widths[0]);
    uint8_t b[16] = {0};
    static uint8_t big[WS_SIM_MAX_IN_FRAME + 1];
    assert_int_equal(ws_sim_push(s, ws_sim_ports(s), b, sizeof b), -1);
    assert_int_equal(ws_sim_push(s, 0, b, 0), -1);
    assert_int_equal(ws_sim_push(s, 0, big, sizeof big), -1);
    assert_int_equal(ws_sim_push(s, 0, NULL, 10), -1);
    assert_int_equal(ws_sim_pending(s, 99), 0);
    assert_int_equal(ws_sim_collected(s, 99), 0);
    assert_int_equal(ws_sim_pop(s, 99, NULL, NULL, NULL), 0);
    assert_int_equal(ws_sim_pop(s, 0, NULL, NULL, NULL), 0);
    uint64_t c = ws_sim_cycle(s);
    ws_sim_run(s, 0);
    assert_int_equal(ws_sim_cycle(s), c);
    ws_sim_run(s, 37);
    assert_int_equal(ws_sim_cycle(s), c + 37);
    assert_null(ws_sim_error(s));
    uint32_t v;
    assert_int_equal(ws_sim_reg_read(s, 0x10000, &v), -1);
    assert_int_equal(ws_sim_reg_write(s, 0x10000, 0), -1);
    assert_null(ws_sim_error(s)); /* the caller's error, not the design's */
    ws_sim_free(s);
}

static void test_registers(void **state)
{
    (void)state;
    fx f = {0};
    for (size_t i = 0; i < n_widths; i++) {
        ws_sim *s = open_sim(&f, widths[i]);
        uint32_t v = 0;
        assert_int_equal(ws_sim_reg_read(s, WS_REG_ID, &v), 0);
        assert_int_equal(v, WS_ID_VALUE);
        assert_int_equal(ws_sim_reg_read(s, WS_REG_PARAM_WIDTH, &v), 0);
        assert_int_equal(v, widths[i]);
        assert_int_equal(ws_sim_reg_read(s, WS_REG_PARAM_PORTS, &v), 0);
        assert_int_equal(v, ws_sim_ports(s));
        assert_int_equal(ws_sim_reg_read(s, WS_REG_PARAM_ENGINES, &v), 0);
        assert_true(v >= 1 && v <= ws_sim_ports(s) && ws_sim_ports(s) % v == 0);
        assert_int_equal(ws_sim_reg_read(s, WS_REG_DEV_IP, &v), 0);
        assert_int_equal(v, WS_RESET_DEV_IP);
        assert_int_equal(ws_sim_reg_write(s, WS_REG_DEV_IP, 0xC0A80A01u), 0);
        assert_int_equal(ws_sim_reg_read(s, WS_REG_DEV_IP, &v), 0);
        assert_int_equal(v, 0xC0A80A01u);
        /* read-only, and an address no register covers: SLVERR, nothing changes, reads 0 */
        assert_int_equal(ws_sim_reg_write(s, WS_REG_ID, 0), 2);
        assert_int_equal(ws_sim_reg_read(s, WS_REG_ID, &v), 0);
        assert_int_equal(v, WS_ID_VALUE);
        v = 1;
        assert_int_equal(ws_sim_reg_read(s, 0x0200, &v), 2);
        assert_int_equal(v, 0);
        assert_int_equal(ws_sim_reg_write(s, 0x0200, 1), 2);
        /* a bypass port beyond N_PORTS is refused */
        assert_int_equal(ws_sim_reg_write(s, WS_REG_BYPASS(0), ws_sim_ports(s)), 2);
        /* reset brings the reset values back */
        ws_sim_reset(s);
        assert_int_equal(ws_sim_reg_read(s, WS_REG_DEV_IP, &v), 0);
        assert_int_equal(v, WS_RESET_DEV_IP);
        assert_null(ws_sim_error(s));
        ws_sim_free(s);
    }
}

static void test_bypass_plain(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_widths; i++)
        sweep(widths[i], NULL);
}

static void test_bypass_idle(void **state)
{
    (void)state;
    ws_sim_stress st = {50, 0, 11};
    for (size_t i = 0; i < n_widths; i++)
        sweep(widths[i], &st);
}

static void test_bypass_backpressure(void **state)
{
    (void)state;
    ws_sim_stress st = {0, 60, 12};
    for (size_t i = 0; i < n_widths; i++)
        sweep(widths[i], &st);
}

static void test_bypass_both(void **state)
{
    (void)state;
    ws_sim_stress st = {30, 30, 13};
    for (size_t i = 0; i < n_widths; i++)
        sweep(widths[i], &st);
}

/* Idle 100 holds ingress, backpressure 100 holds egress; lifting them lets everything through. */
static void test_hold(void **state)
{
    (void)state;
    fx f = {0};
    ws_sim *s = open_sim(&f, widths[0]);
    bypass_to_self(s);
    uint8_t b[200];
    ws_sim_stress hold_in = {100, 0, 1}, hold_out = {0, 100, 1};
    ws_sim_set_stress(s, &hold_in);
    for (unsigned p = 0; p < ws_sim_ports(s); p++) {
        make_frame(b, sizeof b, p, 0);
        assert_int_equal(ws_sim_push(s, p, b, sizeof b), 0);
    }
    ws_sim_run(s, 2000);
    ws_sim_stats ss;
    ws_sim_stats_get(s, &ss);
    assert_int_equal(ss.beats_in, 0);
    assert_int_equal(total_pending(s), ws_sim_ports(s));
    ws_sim_set_stress(s, &hold_out);
    ws_sim_run(s, 5000);
    assert_int_equal(total_pending(s), 0);
    assert_int_equal(total_collected(s), 0);
    ws_sim_set_stress(s, NULL);
    run_until_collected(s, ws_sim_ports(s));
    for (unsigned p = 0; p < ws_sim_ports(s); p++) {
        const uint8_t *d;
        size_t len;
        assert_int_equal(ws_sim_pop(s, p, &d, &len, NULL), 1);
        make_frame(b, sizeof b, p, 0);
        assert_int_equal(len, sizeof b);
        assert_memory_equal(d, b, sizeof b);
    }
    ws_sim_free(s);
}

/* Reset in the middle of traffic: queues, statistics and errors go; the model works on. */
static void test_reset(void **state)
{
    (void)state;
    fx f = {0};
    ws_sim *s = open_sim(&f, widths[0]);
    bypass_to_self(s);
    uint8_t b[1500];
    for (unsigned k = 0; k < 4; k++) {
        make_frame(b, sizeof b, 0, k);
        assert_int_equal(ws_sim_push(s, 0, b, sizeof b), 0);
    }
    ws_sim_run(s, 30);
    assert_true(ws_sim_pending(s, 0) > 0);
    uint64_t c = ws_sim_cycle(s);
    ws_sim_reset(s);
    assert_int_equal(ws_sim_cycle(s), c + WS_SIM_RESET_CYCLES);
    assert_int_equal(ws_sim_pending(s, 0), 0);
    assert_int_equal(ws_sim_collected(s, 0), 0);
    ws_sim_stats ss;
    ws_sim_stats_get(s, &ss);
    assert_int_equal(ss.beats_in, 0);
    assert_null(ws_sim_error(s));
    /* the reset restored the bypass map: set it again, then traffic flows */
    bypass_to_self(s);
    make_frame(b, 100, 2, 9);
    assert_int_equal(ws_sim_push(s, 2, b, 100), 0);
    run_until_collected(s, 1);
    const uint8_t *d;
    size_t len;
    assert_int_equal(ws_sim_pop(s, 2, &d, &len, NULL), 1);
    assert_int_equal(len, 100);
    assert_memory_equal(d, b, 100);
    assert_int_equal(total_collected(s), 0);
    ws_sim_free(s);
}

/* Models of every width side by side in one process, run in turns. */
static void test_side_by_side(void **state)
{
    (void)state;
    fx f = {0};
    ws_sim *s[8];
    uint8_t b[300];
    for (size_t i = 0; i < n_widths; i++) {
        s[i] = open_sim(&f, widths[i]);
        bypass_to_self(s[i]);
        make_frame(b, sizeof b, 1, (unsigned)i);
        assert_int_equal(ws_sim_push(s[i], 1, b, sizeof b), 0);
    }
    for (unsigned round = 0; round < 20; round++)
        for (size_t i = 0; i < n_widths; i++)
            ws_sim_run(s[i], 50);
    for (size_t i = 0; i < n_widths; i++) {
        const uint8_t *d;
        size_t len;
        no_error(s[i]);
        assert_int_equal(ws_sim_pop(s[i], 1, &d, &len, NULL), 1);
        make_frame(b, sizeof b, 1, (unsigned)i);
        assert_int_equal(len, sizeof b);
        assert_memory_equal(d, b, sizeof b);
        ws_sim_free(s[i]);
    }
}

/* Two models of the same device in lockstep: the same bypass map (every port to itself, then
 * port 3 to port 0 when cross is set), the same stress, each of the n frame lengths of len[]
 * pushed on every port, 1500 cycles; then they must agree on the cycle count, on every egress
 * frame and the cycle that stamps it, and on the statistics. Returns the frames compared. */
static size_t lockstep(ws_sim *a, ws_sim *b, const ws_sim_stress *st, const size_t *len, size_t n,
                       bool cross)
{
    ws_sim *both[2] = {a, b};
    uint8_t buf[1514];
    assert_int_equal(ws_sim_ports(b), ws_sim_ports(a));
    assert_int_equal(ws_sim_cycle(b), ws_sim_cycle(a));
    for (int k = 0; k < 2; k++) {
        bypass_to_self(both[k]);
        if (cross)
            assert_int_equal(ws_sim_reg_write(both[k], WS_REG_BYPASS(3), 0), 0);
        ws_sim_set_stress(both[k], st);
        for (unsigned p = 0; p < ws_sim_ports(both[k]); p++)
            for (size_t i = 0; i < n; i++) {
                assert_true(len[i] <= sizeof buf);
                make_frame(buf, len[i], p, (unsigned)i);
                assert_int_equal(ws_sim_push(both[k], p, buf, len[i]), 0);
            }
        ws_sim_run(both[k], 1500);
        no_error(both[k]);
    }
    assert_int_equal(ws_sim_cycle(b), ws_sim_cycle(a));
    size_t frames = 0;
    for (unsigned p = 0; p < ws_sim_ports(a); p++) {
        assert_int_equal(ws_sim_collected(b, p), ws_sim_collected(a, p));
        const uint8_t *da, *db;
        size_t la, lb;
        uint64_t ca, cb;
        while (ws_sim_pop(a, p, &da, &la, &ca) == 1) {
            assert_int_equal(ws_sim_pop(b, p, &db, &lb, &cb), 1);
            assert_int_equal(lb, la);
            assert_memory_equal(db, da, la);
            assert_int_equal(cb, ca);
            frames++;
        }
        assert_int_equal(ws_sim_collected(b, p), 0);
    }
    ws_sim_stats sa, sb;
    ws_sim_stats_get(a, &sa);
    ws_sim_stats_get(b, &sb);
    assert_memory_equal(&sb, &sa, sizeof sa);
    return frames;
}

/* The same RTL under Icarus, in lockstep with the Verilator model: the same pushes, stress and
 * register accesses give the same egress frames, stamped with the same cycles, and the same
 * register values (counters included). */
static void test_icarus_lockstep(void **state)
{
    (void)state;
    fx f = {0};
    /* no compiled design there: a message saying how to build it */
    setenv("WIRESUM_ICARUS_DIR", "/nonexistent-wiresum-icarus", 1);
    assert_null(ws_sim_new_engine(WS_SIM_ICARUS, 256, f.err, sizeof f.err));
    assert_non_null(strstr(f.err, "/nonexistent-wiresum-icarus"));
    assert_non_null(strstr(f.err, "make icarus WS_ICARUS_WIDTHS=256"));
    unsetenv("WIRESUM_ICARUS_DIR");
    assert_null(ws_sim_new_engine(WS_SIM_ICARUS, 128, f.err, sizeof f.err));
    ws_sim *iv = ws_sim_new_engine(WS_SIM_ICARUS, 256, f.err, sizeof f.err);
    if (!iv)
        fail_msg("ws_sim_new_engine(icarus, 256): %s", f.err);
    ws_sim *v = open_sim(&f, 256);
    assert_string_equal(ws_sim_engine_name(iv), "icarus");
    assert_string_equal(ws_sim_engine_name(v), "verilator");
    ws_sim_stress st = {20, 30, 7};
    static const size_t len[] = {14, 31, 32, 33, 60, 64, 95, 200, 1514};
    size_t n = sizeof len / sizeof len[0];
    assert_int_equal(lockstep(v, iv, &st, len, n, true), ws_sim_ports(v) * n);
    assert_int_equal(ws_sim_collected(iv, 0), 0);
    static const uint32_t regs[] = {WS_REG_ID, WS_REG_CTRL, WS_REG_STATUS, WS_REG_BYPASS(3)};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
        uint32_t a = 1, c = 2;
        assert_int_equal(ws_sim_reg_read(v, regs[i], &a), 0);
        assert_int_equal(ws_sim_reg_read(iv, regs[i], &c), 0);
        assert_int_equal(c, a);
    }
    for (uint32_t a = 0x400; a < 0x480; a += 4) { /* per-port rx/tx counters */
        uint32_t x = 1, y = 2;
        assert_int_equal(ws_sim_reg_read(v, a, &x), ws_sim_reg_read(iv, a, &y));
        assert_int_equal(y, x);
    }
    ws_sim_free(iv);
    ws_sim_free(v);
}

/* The model built without tracing (ws_sim_new_untraced; the traced one when the build has none)
 * in lockstep with the traced one at every width (the untraced one when the build has no traced
 * model of that width, make's WS_SIM_TRACED_WIDTHS): the same egress frames at the same cycles,
 * the same statistics; a trace cannot be opened on it, or, without a fast model, can; on the
 * other a trace opens, or, without a traced model, is refused with the make variable named and
 * no file made. */
static void test_untraced(void **state)
{
    fx *f = *state;
    static const size_t len[] = {14, 60, 64, 95, 200, 1514};
    size_t n = sizeof len / sizeof len[0];
    for (size_t w = 0; w < n_widths; w++) {
        ws_sim *u = ws_sim_new_untraced(WS_SIM_VERILATOR, widths[w], f->err, sizeof f->err);
        if (!u)
            fail_msg("ws_sim_new_untraced(%u): %s", widths[w], f->err);
        ws_sim *t = open_sim(f, widths[w]);
        assert_string_equal(ws_sim_engine_name(u), "verilator");
        ws_sim_stress st = {25, 35, 11};
        assert_int_equal(lockstep(t, u, &st, len, n, false), ws_sim_ports(t) * n);
        char path[160];
        snprintf(path, sizeof path, "%s/untraced.fst", f->dir);
        if (ws_sim_trace_open(u, path, 0, 0, f->err, sizeof f->err) != 0)
            assert_non_null(strstr(f->err, "without tracing"));
        ws_sim_free(u);
        unlink(path);
        snprintf(path, sizeof path, "%s/traced.fst", f->dir);
        if (ws_sim_trace_open(t, path, 0, 0, f->err, sizeof f->err) == 0) {
            ws_sim_trace_close(t);
        } else {
            assert_non_null(strstr(f->err, "built without tracing"));
            assert_non_null(strstr(f->err, "WS_SIM_TRACED_WIDTHS"));
            assert_int_equal(access(path, F_OK), -1);
        }
        unlink(path);
        snprintf(path, sizeof path, "%s/traced.fst.hier", f->dir);
        unlink(path);
        ws_sim_free(t);
    }
}

static int tmpdir_setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/test_sim.XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int tmpdir_teardown(void **state)
{
    fx *f = *state;
    const char *names[] = {"a.fst", "b.fst", "c.fst", "a.fst.hier", "b.fst.hier", "c.fst.hier"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", f->dir, names[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The last timestamp fst2vcd reports, or -1 (no fst2vcd, or no times). */
static long long last_time(const char *fst)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "fst2vcd '%s' 2>/dev/null", fst);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[4096];
    long long t = -1;
    while (fgets(line, sizeof line, p))
        if (line[0] == '#')
            t = atoll(line + 1);
    pclose(p);
    return t;
}

static void test_trace(void **state)
{
    fx *f = *state;
    ws_sim *s = open_sim(f, widths[0]);
    char a[128], b[128], c[128], bad[160];
    snprintf(a, sizeof a, "%s/a.fst", f->dir);
    snprintf(b, sizeof b, "%s/b.fst", f->dir);
    snprintf(c, sizeof c, "%s/c.fst", f->dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.fst", f->dir);

    assert_int_equal(ws_sim_trace_open(s, bad, 0, 0, f->err, sizeof f->err), -1);
    assert_non_null(strstr(f->err, bad));
    uint64_t now = ws_sim_cycle(s);
    assert_int_equal(ws_sim_trace_open(s, a, now + 10, now + 5, f->err, sizeof f->err), -1);
    assert_non_null(strstr(f->err, "window"));

    /* a window of cycles 20..29 from now: closes itself after it */
    uint64_t from = now + 20, to = now + 29;
    assert_int_equal(ws_sim_trace_open(s, a, from, to, f->err, sizeof f->err), 0);
    assert_int_equal(ws_sim_trace_open(s, b, 0, 0, f->err, sizeof f->err), -1);
    assert_non_null(strstr(f->err, "already"));
    ws_sim_run(s, 100);
    assert_true(file_size(a) > 0);
    long long t = last_time(a);
    if (t >= 0)
        assert_int_equal(t, (long long)to * 10000); /* falling edge of cycle to, in ps */

    /* a second trace on the same model, until closed, with traffic and a register access */
    assert_int_equal(ws_sim_trace_open(s, b, 0, 0, f->err, sizeof f->err), 0);
    bypass_to_self(s);
    uint8_t fr[777];
    make_frame(fr, sizeof fr, 3, 1);
    assert_int_equal(ws_sim_push(s, 3, fr, sizeof fr), 0);
    run_until_collected(s, 1);
    uint64_t end = ws_sim_cycle(s);
    ws_sim_trace_close(s);
    ws_sim_trace_close(s); /* twice is fine */
    assert_true(file_size(b) > 0);
    t = last_time(b);
    if (t >= 0)
        assert_int_equal(t, (long long)end * 10000);

    /* a trace left open is closed by ws_sim_free */
    assert_int_equal(ws_sim_trace_open(s, c, 0, 0, f->err, sizeof f->err), 0);
    ws_sim_run(s, 10);
    no_error(s);
    ws_sim_free(s);
    assert_true(file_size(c) > 0);
}

int main(void)
{
    n_widths = ws_sim_widths(widths, 8);
    if (n_widths > 8)
        n_widths = 8;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_registers),
        cmocka_unit_test(test_bypass_plain),
        cmocka_unit_test(test_bypass_idle),
        cmocka_unit_test(test_bypass_backpressure),
        cmocka_unit_test(test_bypass_both),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_side_by_side),
        cmocka_unit_test(test_icarus_lockstep),
        cmocka_unit_test_setup_teardown(test_trace, tmpdir_setup, tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_untraced, tmpdir_setup, tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
