/* test_channel.c - unit tests of the closed loop's simulated network (loop/channel.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "channel.h"

#define LAT 100

static ws_channel_event pop(ws_channel_queue *q)
{
    assert_true(q->n > 0);
    return ws_channel_queue_pop(q);
}

/* The queue hands out events by cycle, and in the order pushed within a cycle. */
static void test_queue_order(void **state)
{
    (void)state;
    ws_channel_queue q = {0};
    ws_rng rng = {42};
    enum { N = 3000 };
    for (uint64_t i = 0; i < N; i++) {
        ws_channel_event e = {ws_rng_below(&rng, 50), i, malloc(1), 1, (unsigned)(i % 7)};
        assert_non_null(e.f);
        assert_int_equal(ws_channel_queue_push(&q, e), 0);
    }
    uint64_t t = 0, seq = 0;
    for (size_t i = 0; i < N; i++) {
        assert_true(ws_channel_queue_top(&q) >= t);
        ws_channel_event e = pop(&q);
        assert_true(e.t > t || (e.t == t && (i == 0 || e.seq > seq)));
        t = e.t;
        seq = e.seq;
        free(e.f);
    }
    assert_true(ws_channel_queue_top(&q) == WS_CHANNEL_NEVER);
    /* freeing a queue frees the frames still in it */
    for (int i = 0; i < 10; i++)
        assert_int_equal(ws_channel_queue_push(&q, (ws_channel_event){(uint64_t)i, 0, malloc(4), 4, 0}), 0);
    ws_channel_queue_free(&q);
}

static int corrupted_up;
static int on_corrupt(void *ctx, unsigned port, const uint8_t *f, size_t len)
{
    (void)ctx, (void)port, (void)f, (void)len;
    corrupted_up++;
    return 0;
}

static void net_new(ws_channel *n, ws_rng *rng, double loss, double dup, double reorder,
                    double corrupt, int up, int down)
{
    ws_channel_opts o = {LAT, loss, dup, reorder, corrupt, {up, down}};
    ws_channel_init(n, &o, rng, on_corrupt, NULL);
}

/* Without faults a frame arrives unchanged, latency cycles later, in the order sent. */
static void test_no_faults(void **state)
{
    (void)state;
    ws_rng rng = {1};
    ws_channel n;
    net_new(&n, &rng, 1, 1, 1, 1, 0, 0);
    uint8_t f[64];
    for (int i = 0; i < 64; i++)
        f[i] = (uint8_t)i;
    for (unsigned k = 0; k < 5; k++)
        assert_int_equal(ws_channel_send(&n, k & 1, k, f, sizeof f, 1000), 0);
    for (int dir = 0; dir < 2; dir++) {
        unsigned want = (unsigned)dir;
        while (n.q[dir].n) {
            ws_channel_event e = pop(&n.q[dir]);
            assert_true(e.t == 1000 + LAT);
            assert_int_equal(e.port, want);
            want += 2;
            assert_memory_equal(e.f, f, sizeof f);
            free(e.f);
        }
    }
    assert_int_equal(n.st.lost[0] + n.st.duped[0] + n.st.corrupted[0] + n.st.reordered[1], 0);
    ws_channel_free(&n);
}

/* Loss 1 on the way up loses every frame up, none down. */
static void test_loss(void **state)
{
    (void)state;
    ws_rng rng = {2};
    ws_channel n;
    net_new(&n, &rng, 1, 0, 0, 0, 1, 0);
    uint8_t f[60] = {0};
    for (int i = 0; i < 100; i++) {
        assert_int_equal(ws_channel_send(&n, 0, 0, f, sizeof f, 0), 0);
        assert_int_equal(ws_channel_send(&n, 1, 0, f, sizeof f, 0), 0);
    }
    assert_int_equal(n.q[0].n, 0);
    assert_int_equal(n.q[1].n, 100);
    assert_int_equal(n.st.lost[0], 100);
    assert_int_equal(n.st.lost[1], 0);
    ws_channel_free(&n);
}

/* Reordering delays by 1..latency cycles; a duplicate follows 1..latency cycles after the
 * latency; corruption flips exactly one bit and, up, is told to the caller. */
static void test_reorder_dup_corrupt(void **state)
{
    (void)state;
    ws_rng rng = {3};
    ws_channel n;
    net_new(&n, &rng, 0, 1, 1, 1, 1, 1);
    uint8_t f[80];
    memset(f, 0x5a, sizeof f);
    corrupted_up = 0;
    for (int i = 0; i < 50; i++)
        assert_int_equal(ws_channel_send(&n, i & 1, 3, f, sizeof f, 500), 0);
    assert_int_equal(n.q[0].n + n.q[1].n, 100);
    assert_int_equal(n.st.reordered[0] + n.st.reordered[1], 50);
    assert_int_equal(n.st.duped[0] + n.st.duped[1], 50);
    assert_int_equal(n.st.corrupted[0] + n.st.corrupted[1], 100);
    assert_int_equal(corrupted_up, (int)n.st.corrupted[0]);
    for (int dir = 0; dir < 2; dir++)
        while (n.q[dir].n) {
            ws_channel_event e = pop(&n.q[dir]);
            assert_true(e.t > 500 + LAT && e.t <= 500 + 2 * LAT);
            unsigned bits = 0;
            for (size_t i = 0; i < sizeof f; i++)
                bits += (unsigned)__builtin_popcount((unsigned)(e.f[i] ^ f[i]));
            assert_int_equal(bits, 1);
            free(e.f);
        }
    ws_channel_free(&n);
}

/* The same generator state gives the same network. */
static void test_repeatable(void **state)
{
    (void)state;
    uint64_t sig[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        ws_rng rng = {99};
        ws_channel n;
        net_new(&n, &rng, 0.2, 0.2, 0.2, 0.1, 1, 1);
        uint8_t f[64] = {1, 2, 3};
        for (int i = 0; i < 500; i++)
            assert_int_equal(ws_channel_send(&n, i % 2, (unsigned)i % 4, f, sizeof f, (uint64_t)i), 0);
        for (int dir = 0; dir < 2; dir++)
            while (n.q[dir].n) {
                ws_channel_event e = pop(&n.q[dir]);
                sig[k] = ws_mix64(sig[k] ^ e.t ^ (uint64_t)e.port << 40 ^ e.f[0]);
                free(e.f);
            }
        ws_channel_free(&n);
    }
    assert_true(sig[0] == sig[1]);
}

/* Frames by contents: found while not seen; one that must come out before one that may. */
static void test_frame_set(void **state)
{
    (void)state;
    ws_frame_set t = {0};
    uint8_t f[70] = {0};
    assert_null(ws_frame_set_find(&t, f, sizeof f));
    for (unsigned i = 0; i < 2000; i++) {
        memset(f, 0, sizeof f);
        memcpy(f, &i, sizeof i);
        assert_int_equal(ws_frame_set_add(&t, f, sizeof f, i % 4, 1, i % 6), 0);
    }
    for (unsigned i = 0; i < 2000; i++) {
        memset(f, 0, sizeof f);
        memcpy(f, &i, sizeof i);
        ws_frame_entry *e = ws_frame_set_find(&t, f, sizeof f);
        assert_non_null(e);
        assert_int_equal(e->egress, i % 4);
        assert_int_equal(e->kind, i % 6);
        assert_null(ws_frame_set_find(&t, f, sizeof f - 1)); /* the length counts */
        e->seen = 1;
        assert_null(ws_frame_set_find(&t, f, sizeof f));
    }
    /* a frame that may come out, then the same that must: the one that must is found first */
    memset(f, 0xee, sizeof f);
    assert_int_equal(ws_frame_set_add(&t, f, sizeof f, 1, 0, 255), 0);
    assert_int_equal(ws_frame_set_add(&t, f, sizeof f, 2, 1, 0), 0);
    ws_frame_entry *e = ws_frame_set_find(&t, f, sizeof f);
    assert_non_null(e);
    assert_int_equal(e->must, 1);
    e->seen = 1;
    e = ws_frame_set_find(&t, f, sizeof f);
    assert_non_null(e);
    assert_int_equal(e->must, 0);
    ws_frame_set_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_order),
        cmocka_unit_test(test_no_faults),
        cmocka_unit_test(test_loss),
        cmocka_unit_test(test_reorder_dup_corrupt),
        cmocka_unit_test(test_repeatable),
        cmocka_unit_test(test_frame_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
