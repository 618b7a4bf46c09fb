/* allreduce.c - example: four workers all-reduce a tensor through the RTL model of wiresum.
 *
 * Shows the driver library, libwiresum, end to end: the device opened and configured over its
 * register bus (wiresum/dev.h), one worker transport per rank (wiresum/transport.h), rank 0
 * calling the blocking ws_allreduce() while its wait callback clocks the model and drives ranks
 * 1..3 with the non-blocking calls, every result checked against the exact sum (wiresum/xsum.h).
 * The model is opened as a device session (wiresum/session.h, libwiresum-sim), which gives the
 * register bus, the clock and the frames in and out.
 *
 * Build, in the tree: `make build/allreduce`. Outside it, against an installed copy
 * (`make install-sim PREFIX=DIR`: libwiresum and the models' library libwiresum-sim):
 *   export PKG_CONFIG_PATH=DIR/lib/pkgconfig
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 allreduce.c \
 *      $(pkg-config --cflags --libs wiresum wiresum-sim) -o allreduce
 * Run: allreduce [ELEMENTS] (with LD_LIBRARY_PATH=DIR/lib where DIR/lib is not on the loader's
 * path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wiresum/config.h>
#include <wiresum/dev.h>
#include <wiresum/session.h>
#include <wiresum/transport.h>
#include <wiresum/xsum.h>

#define WORKERS 4

typedef struct {
    ws_session *dev;
    ws_config cfg;
    ws_worker *w[WORKERS];
    unsigned sending; /* the rank whose frame is being sent */
} world;

/* A worker's frame goes straight into the device port of its member record. */
static void tx(void *ctx, const uint8_t *f, size_t len)
{
    world *x = ctx;
    ws_session_push(x->dev, x->cfg.job[0].member[x->sending].port, f, len);
}

static uint64_t now(void *ctx) { return ws_session_cycle(((world *)ctx)->dev); }

/* Clock the model; hand every frame it sends to the worker it is addressed to; poll ranks
 * 1..3. Returns once rank 0 got a frame or the deadline has passed. */
static int io_wait(void *ctx, ws_worker *self, uint64_t deadline)
{
    world *x = ctx;
    (void)self;
    for (;;) {
        if (ws_session_run(x->dev, 8)) {
            fprintf(stderr, "model: %s\n", ws_session_error(x->dev));
            return -1;
        }
        int got0 = 0;
        for (unsigned p = 0; p < x->cfg.n_ports; p++) {
            const uint8_t *f;
            size_t len;
            while (ws_session_pop(x->dev, p, &f, &len, NULL) == 1)
                for (unsigned r = 0; r < WORKERS; r++)
                    if (!memcmp(f, x->cfg.job[0].member[r].mac, 6)) {
                        x->sending = r;
                        ws_worker_rx(x->w[r], f, len, now(x));
                        got0 |= r == 0;
                    }
        }
        for (unsigned r = 1; r < WORKERS; r++) {
            x->sending = r;
            if (ws_worker_poll(x->w[r], now(x)))
                return -1;
        }
        x->sending = 0;
        if (got0 || now(x) >= deadline)
            return 0;
    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
    if (n == 0 || n > 100000000) {
        fprintf(stderr, "usage: allreduce [ELEMENTS (1..10^8)]\n");
        return 2;
    }
    char err[512];
    static world x;
    ws_session_opts so = {.kind = WS_DEVICE_VERILATOR, .width = 256, .traced = 0};
    x.dev = ws_session_open(&so, err, sizeof err);
    if (!x.dev) {
        fprintf(stderr, "allreduce: %s\n", err);
        return 1;
    }
    /* one job of four workers, one per device port */
    ws_config_default(&x.cfg);
    x.cfg.n_ports = 4;
    for (unsigned p = 0; p < 4; p++)
        x.cfg.bypass[p] = (uint8_t)(p ^ 1);
    ws_job *jb = &x.cfg.job[x.cfg.n_jobs++];
    jb->id = 42;
    jb->enable = true;
    jb->workers = WORKERS;
    jb->slots = 8;
    jb->max_count = 128;
    for (unsigned r = 0; r < WORKERS; r++) {
        const uint8_t mac[6] = {2, 0, 0, 0, 1, (uint8_t)r};
        memcpy(jb->member[r].mac, mac, 6);
        jb->member[r].ip = 0x0a000101u + r;
        jb->member[r].udp_port = 40000;
        jb->member[r].port = (uint8_t)r;
    }
    ws_regbus bus = ws_session_bus(x.dev);
    ws_dev_params par;
    if (ws_config_check(&x.cfg, err, sizeof err) || ws_dev_open(&bus, &par, err, sizeof err) ||
        ws_dev_reset(&bus, &par, err, sizeof err) ||
        ws_dev_set_addresses(&bus, &par, &x.cfg, err, sizeof err) ||
        ws_dev_job_setup(&bus, &par, 0, jb, err, sizeof err)) {
        fprintf(stderr, "allreduce: %s\n", err);
        return 1;
    }
    printf("device: %u-bit datapath, %u ports, %u job records, pool of %u slots\n", par.width,
           par.ports, par.jobs, par.pool);

    float *buf[WORKERS];
    for (unsigned r = 0; r < WORKERS; r++) {
        ws_worker_cfg wc;
        ws_worker_cfg_init(&wc);
        if (ws_worker_cfg_from_config(&wc, &x.cfg, jb->id, r, err, sizeof err))
            return fprintf(stderr, "allreduce: %s\n", err), 1;
        wc.rto = 20000; /* cycles: well above a round trip of this small job */
        wc.rto_min = 1000;
        wc.rto_max = 80000;
        wc.max_retries = 20;
        wc.tx = tx;
        wc.tx_ctx = &x;
        wc.clock = now;
        wc.wait = io_wait;
        wc.io_ctx = &x;
        x.w[r] = ws_worker_new(&wc, err, sizeof err);
        buf[r] = malloc(n * sizeof(float));
        if (!x.w[r] || !buf[r])
            return fprintf(stderr, "allreduce: %s\n", x.w[r] ? "out of memory" : err), 1;
        for (size_t i = 0; i < n; i++)
            buf[r][i] = (float)((double)((i * 7919 + r * 104729) % 20001) - 10000.0) / 1024.0f;
    }
    /* the exact sums, before the buffers are overwritten */
    uint32_t *exact = malloc(n * 4);
    if (!exact)
        return fprintf(stderr, "allreduce: out of memory\n"), 1;
    for (size_t i = 0; i < n; i++) {
        ws_xsum s;
        ws_xsum_init(&s);
        for (unsigned r = 0; r < WORKERS; r++) {
            uint32_t b;
            memcpy(&b, &buf[r][i], 4);
            ws_xsum_add(&s, b);
        }
        exact[i] = ws_xsum_round(&s);
    }

    uint64_t t0 = now(&x);
    for (unsigned r = 1; r < WORKERS; r++) { /* ranks 1..3: non-blocking */
        x.sending = r;
        if (ws_worker_start(x.w[r], buf[r], buf[r], n, now(&x)))
            return fprintf(stderr, "allreduce: %s\n", ws_worker_error(x.w[r])), 1;
    }
    x.sending = 0;
    if (ws_allreduce(x.w[0], buf[0], n)) /* rank 0: blocking, in place */
        return fprintf(stderr, "allreduce: %s\n", ws_worker_error(x.w[0])), 1;
    for (unsigned r = 1; r < WORKERS; r++)
        while (!ws_worker_done(x.w[r]))
            if (io_wait(&x, x.w[0], now(&x) + 64))
                return 1;
    uint64_t cycles = now(&x) - t0;

    size_t bad = 0;
    for (unsigned r = 0; r < WORKERS; r++)
        for (size_t i = 0; i < n; i++) {
            uint32_t b;
            memcpy(&b, &buf[r][i], 4);
            if (b != exact[i] && bad++ < 5)
                printf("rank %u element %zu: 0x%08x, exact sum 0x%08x\n", r, i, b, exact[i]);
        }
    const ws_worker_stats *s = ws_worker_get_stats(x.w[0]);
    printf("all-reduce of %zu elements by %d workers: %llu cycles (%.1f us at 200 MHz), "
           "%llu frames sent by rank 0, %llu retransmissions; %s\n",
           n, WORKERS, (unsigned long long)cycles, (double)cycles / 200.0,
           (unsigned long long)(s->data_frames + s->retx_frames),
           (unsigned long long)s->retx_frames,
           bad ? "MISMATCH" : "every worker holds the exact sum");
    if (ws_dev_job_disable(&bus, 0, err, sizeof err))
        fprintf(stderr, "allreduce: %s\n", err);
    for (unsigned r = 0; r < WORKERS; r++) {
        ws_worker_free(x.w[r]);
        free(buf[r]);
    }
    free(exact);
    ws_session_free(x.dev);
    return bad ? 1 : 0;
}
