/* single.c - `wiresum run` through one device: worker transports, a faulty network and the
 * device, in closed loop (single.h). */
#include "single.h"

#include "base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wiresum/config.h"
#include "counters_file.h"
#include "channel.h"
#include "plot.h"
#include "progress.h"
#include "rng.h"
#include "trace.h"
#include "wiresum/wire.h"
#include "wiresum/dev.h"
#include "wiresum/session.h"
#include "wiresum/transport.h"
#include "wiresum/xsum.h"

#define JOB_ID WS_BASE_JOB
#define NEVER UINT64_MAX
#define MAX_STEP 64        /* cycles clocked at once while nothing is due */

/* ---- the run ----------------------------------------------------------------------------- */

typedef struct {
    ws_worker *w;
    float *buf;
    unsigned iter;   /* all-reduces completed */
    int finished;
    unsigned port;
} wk;

typedef struct {
    ws_run_opts o;
    ws_base_log log;
    ws_run_stats *st;
    FILE *out;
    char *err;
    size_t errlen;

    ws_config cfg;
    const ws_job *job;
    wk *w;
    struct single_tx *ctx; /* one per worker: the tx callback's context */
    unsigned nw;
    uint64_t nch;        /* chunks per tensor */
    unsigned bytes;      /* bytes per beat */
    double ns_per_cycle;
    uint64_t now;        /* simulated cycle (the model's, plus the idle stretches skipped) */
    uint64_t t_done;     /* when the last worker completed */
    ws_rng rng;
    ws_channel net;          /* net.q[0]: towards the device, net.q[1]: towards the workers */
    ws_frame_set bp;     /* the frames expected on the bypass egress */
    uint64_t bp_serial;

    ws_base_expect exp;  /* the exact sums */

    /* the device: a model (clocked) or the reference (its cycle follows now) */
    ws_session *dev;
    ws_dev_params params;
    uint64_t cycle0, skipped, last_activity, last_beats;
    /* recording */
    ws_trace_out *rec_in, *rec_exp;
    uint64_t rec_last_ts;

    ws_plot *plot;     /* --plot */
    ws_progress prog;
    uint8_t scratch[WS_MAX_FRAME];
} run;

#define fail(r, ...) ws_base_fail(&(r)->log, __VA_ARGS__)
#define report(r, ...) ws_base_report(&(r)->log, __VA_ARGS__)

static void fill_input(run *r, unsigned w)
{
    uint32_t *b = (uint32_t *)(void *)r->w[w].buf;
    uint64_t key = ws_values_key(&r->exp.v, r->w[w].iter, w);
    for (uint64_t i = 0; i < r->o.elems; i++)
        b[i] = ws_values_at(&r->exp.v, key, i);
}

/* ---- the network ------------------------------------------------------------------------ */

/* A frame corrupted on its way to the device may be bypass traffic now (EtherType, address or
 * port hit): it may come out of the bypass egress of its port. */
static int corrupted_up(void *ctx, unsigned port, const uint8_t *f, size_t len)
{
    run *r = ctx;
    return ws_frame_set_add(&r->bp, f, len, r->cfg.bypass[port], 0, 255);
}

/* A frame entering the network at time now, towards the device (dir 0) or a worker (dir 1). */
static void net_send(run *r, int dir, unsigned port, const uint8_t *f, size_t len, uint64_t now)
{
    if (ws_channel_send(&r->net, dir, port, f, len, now))
        fail(r, "out of memory");
}

/* A background frame that is not aggregation traffic, unique by its serial number. */
static size_t bypass_frame(run *r, unsigned kind, uint8_t *f)
{
    uint32_t serial = (uint32_t)r->bp_serial++;
    size_t len;
    switch (kind) {
    case 0: /* ARP request for the device's address, padded to 60 bytes */
        len = 60;
        memset(f, 0, len);
        memset(f, 0xff, 6);
        f[6] = 0x02, f[7] = 0xbb;
        ws_put32(f + 8, serial);
        ws_put16(f + 12, 0x0806);
        ws_put16(f + 14, 1), ws_put16(f + 16, 0x0800), f[18] = 6, f[19] = 4, ws_put16(f + 20, 1);
        ws_put32(f + 38, r->cfg.ip);
        ws_put32(f + 42, serial);
        return len;
    case 1: /* IPv6 UDP to the aggregation port */
        len = 14 + 40 + 8 + 32;
        memset(f, 0, len);
        f[0] = 0x02, f[6] = 0x02, f[7] = 0xbb;
        ws_put16(f + 12, 0x86dd);
        f[14] = 0x60, ws_put16(f + 18, 40), f[20] = 17, f[21] = 64;
        ws_put16(f + 56, r->cfg.udp_port), ws_put16(f + 58, 40);
        ws_put32(f + 62, serial);
        return len;
    default: { /* IPv4 UDP or TCP that is not for the aggregation engine */
        ws_hdr h;
        ws_hdr_init(&h);
        memcpy(h.dst_mac, r->cfg.mac, 6);
        const uint8_t smac[6] = {0x02, 0xbb, 0, 0, 0, 1};
        memcpy(h.src_mac, smac, 6);
        h.src_ip = 0x0a000901u;
        h.dst_ip = r->cfg.ip;
        h.src_port = 5000;
        h.dst_port = r->cfg.udp_port;
        h.count = (uint16_t)(1 + ws_rng_below(&r->rng, 64));
        h.offset = serial;
        uint32_t el[64];
        for (unsigned i = 0; i < h.count; i++)
            el[i] = (uint32_t)ws_rng_next(&r->rng);
        len = ws_build(f, &h, el);
        if (kind == 2) { /* UDP to the device on another port */
            ws_put16(f + WS_OFF_UDP + 2, (uint16_t)(r->cfg.udp_port + 1));
        } else if (kind == 3) { /* TCP to the device's address */
            f[WS_OFF_IP + 9] = 6;
        } else if (kind == 4) { /* aggregation-looking UDP to another host */
            ws_put32(f + WS_OFF_IP + 16, 0x0a000902u);
        } else { /* full-size frame to another host */
            memset(f + len, 0xa5, 1514 - len);
            len = 1514;
            ws_put32(f + WS_OFF_IP + 16, 0x0a000902u);
            ws_put16(f + WS_OFF_IP + 2, (uint16_t)(len - WS_ETH_LEN));
            ws_put16(f + WS_OFF_UDP + 4, (uint16_t)(len - WS_OFF_UDP));
        }
        ws_fix_checksums(f, len);
        return len;
    }
    }
}

#define N_BYPASS_KINDS 6

static void inject_bypass(run *r, uint64_t now)
{
    unsigned kind = (unsigned)ws_rng_below(&r->rng, N_BYPASS_KINDS);
    size_t len = bypass_frame(r, kind, r->scratch);
    unsigned port = (unsigned)ws_rng_below(&r->rng, r->cfg.n_ports);
    if (ws_classify(r->scratch, len, r->cfg.ip, r->cfg.udp_port) != WS_CLASS_BYPASS) {
        fail(r, "internal: bypass frame of kind %u classified as aggregation", kind);
        return;
    }
    r->st->bypass_sent++;
    if (ws_frame_set_add(&r->bp, r->scratch, len, r->cfg.bypass[port], 1, kind)) {
        fail(r, "out of memory");
        return;
    }
    if (ws_channel_schedule(&r->net, 0, port, r->scratch, len, now + r->o.latency, 0))
        fail(r, "out of memory");
}

/* Called by a worker's transport for every frame it sends. */
typedef struct single_tx {
    run *r;
    unsigned w;
} single_tx;

/* --plot: the chunk number of a worker's DATA or RESULT frame, across its all-reduces */
static uint64_t plot_chunk(const run *r, const uint8_t *f)
{
    ws_hdr h;
    ws_parse(f, &h);
    return (uint64_t)(h.tensor - WS_BASE_TENSOR(0)) * r->nch + h.offset / r->o.count;
}

static void worker_tx(void *ctx, const uint8_t *f, size_t len)
{
    single_tx *c = ctx;
    run *r = c->r;
    r->st->worker_bytes += len;
    if (r->plot && len >= WS_OFF_ELEMS)
        ws_plot_sent(r->plot, c->w, plot_chunk(r, f), r->now);
    net_send(r, 0, r->w[c->w].port, f, len, r->now);
    if (r->o.bypass > 0 && ws_rng_chance(&r->rng, r->o.bypass))
        inject_bypass(r, r->now);
}

/* ---- what the device sends ----------------------------------------------------------- */

static uint64_t ts_ns(const run *r, uint64_t cycle) { return (uint64_t)((double)cycle * r->ns_per_cycle); }

static void on_output(run *r, unsigned port, const uint8_t *f, size_t len, uint64_t cycle)
{
    r->st->frames_out++;
    if (r->rec_exp && ws_trace_write(r->rec_exp, port, ts_ns(r, cycle), f, len, r->err, r->errlen))
        r->log.failed = 1;
    if (ws_is_result(f, len, r->cfg.ip, r->cfg.udp_port)) {
        r->st->results_out++;
        net_send(r, 1, port, f, len, cycle);
        return;
    }
    ws_frame_entry *e = ws_frame_set_find(&r->bp, f, len);
    if (!e) {
        report(r, "egress port %u, cycle %llu: a frame of %zu bytes that was never sent (or sent "
               "changed)", port, (unsigned long long)cycle, len);
        return;
    }
    e->seen = 1;
    if (e->egress != port)
        report(r, "egress port %u, cycle %llu: a bypass frame of %zu bytes left on port %u, the "
               "bypass map says %u", port, (unsigned long long)cycle, len, port, e->egress);
    if (e->must)
        r->st->bypass_out++;
    else
        r->st->corrupt_bypassed++;
}

static void record_in(run *r, unsigned port, const uint8_t *f, size_t len)
{
    r->st->frames_in++;
    if (!r->rec_in)
        return;
    uint64_t ts = ts_ns(r, r->now);
    if (ts <= r->rec_last_ts && r->st->frames_in > 1)
        ts = r->rec_last_ts + 1; /* strictly increasing: the global order is the file order */
    r->rec_last_ts = ts;
    if (ws_trace_write(r->rec_in, port, ts, f, len, r->err, r->errlen))
        r->log.failed = 1;
}

/* The device's cycle as the run's time (idle stretches skipped are not clocked). */
static uint64_t dev_now(const run *r)
{
    return ws_session_cycle(r->dev) - r->cycle0 + r->skipped;
}

/* Clock the model one cycle: the time, the activity and the plot follow. */
static int model_tick(run *r, uint64_t n, uint64_t *beats)
{
    if (ws_session_run(r->dev, n))
        return fail(r, "model: %s", ws_session_error(r->dev));
    r->now = dev_now(r);
    r->st->model_cycles += n;
    uint64_t in, out;
    ws_session_beats(r->dev, &in, &out);
    if (r->plot)
        ws_plot_beats_total(r->plot, r->now, in, out);
    if (in + out != *beats) {
        *beats = in + out;
        r->last_activity = r->now;
    }
    return 0;
}

/* Clock the model n cycles and take what it sent, port by port. */
static void model_step(run *r, uint64_t n)
{
    if (model_tick(r, n, &r->last_beats))
        return;
    for (unsigned p = 0; p < r->cfg.n_ports; p++) {
        const uint8_t *f;
        size_t len;
        uint64_t cyc;
        while (ws_session_pop(r->dev, p, &f, &len, &cyc) == 1)
            on_output(r, p, f, len, cyc - r->cycle0 + r->skipped);
    }
}

/* Whether feed() would push the frame at the head of to_dev now (it is due and the model's
 * queues allow it). */
static int feedable(const run *r)
{
    return ws_session_ready(r->dev, r->net.q[0].a[0].port);
}

/* The model has frames queued, or a frame waits at the head of to_dev: clock it cycle by cycle,
 * without going round the main loop, for as long as the loop would only have clocked it again:
 * until due (the earliest worker deadline or arrival of a frame, either way), the waiting frame
 * becoming feedable, the queues running empty, or latency cycles (an output leaves for a
 * worker at its own cycle + latency, so none is due within the stretch). The frames the model
 * sent are then handled in the order of their cycles (ports in order within a cycle), as
 * stepping one cycle at a time would: the same run, cycle for cycle. */
static void model_busy(run *r, uint64_t due)
{
    uint64_t end = r->now + r->o.latency;
    if (due < end)
        end = due > r->now ? due : r->now + 1;
    int waiting = ws_channel_queue_top(&r->net.q[0]) <= r->now;
    uint64_t beats = r->last_beats;
    do {
        if (model_tick(r, 1, &beats))
            return;
    } while (r->now < end && (waiting ? !feedable(r) : ws_session_busy(r->dev)));
    r->last_beats = beats;
    unsigned p;
    const uint8_t *f;
    size_t len;
    uint64_t cyc;
    while (ws_session_pop_next(r->dev, r->cfg.n_ports, &p, &f, &len, &cyc) == 1)
        on_output(r, p, f, len, cyc - r->cycle0 + r->skipped);
}

/* Offer the device every frame that has arrived, in order, as far as it takes them. */
static void feed(run *r)
{
    while (r->net.q[0].n && r->net.q[0].a[0].t <= r->now && !r->log.failed) {
        ws_channel_event *e = &r->net.q[0].a[0];
        /* as wiresum sim: the session's global order */
        if (!ws_session_ready(r->dev, e->port))
            return;
        if (ws_session_push(r->dev, e->port, e->f, e->len)) {
            fail(r, "port %u: %s", e->port, ws_session_error(r->dev));
            return;
        }
        r->last_activity = r->now;
        /* what the device sent already: the reference's frames, known at once and stamped by
         * its timing model (a model's come out as it is clocked); their beats for the plot */
        uint64_t done, beats = (e->len + r->bytes - 1) / r->bytes;
        if (r->plot && ws_session_pop_ingress_done(r->dev, e->port, &done) == 1)
            ws_plot_beats(r->plot, 0, done - beats, beats);
        unsigned p;
        const uint8_t *f;
        size_t len;
        uint64_t cyc;
        while (ws_session_pop_next(r->dev, r->cfg.n_ports, &p, &f, &len, &cyc) == 1) {
            beats = (len + r->bytes - 1) / r->bytes;
            if (r->plot)
                ws_plot_beats(r->plot, 1, cyc - beats, beats);
            on_output(r, p, f, len, cyc - r->cycle0 + r->skipped);
        }
        record_in(r, e->port, e->f, e->len);
        ws_channel_event x = ws_channel_queue_pop(&r->net.q[0]);
        free(x.f);
    }
}

/* Hand the frames that have reached the hosts to their workers. */
static void deliver(run *r)
{
    while (r->net.q[1].n && r->net.q[1].a[0].t <= r->now) {
        ws_channel_event e = ws_channel_queue_pop(&r->net.q[1]);
        wk *dst = NULL;
        for (unsigned i = 0; i < r->nw && !dst; i++)
            if (r->w[i].port == e.port && e.len >= 6 && !memcmp(e.f, r->job->member[i].mac, 6))
                dst = &r->w[i];
        if (!dst)
            r->st->undeliverable++; /* a corrupted destination MAC: no host takes it */
        else if (ws_worker_rx(dst->w, e.f, e.len, r->now) == WS_RX_RESULT && r->plot)
            ws_plot_done(r->plot, (unsigned)(dst - r->w), plot_chunk(r, e.f), r->now);
        free(e.f);
    }
}

static void check_tensor(run *r, unsigned w)
{
    ws_base_check_tensor(&r->exp, &r->log, w, r->w[w].iter,
                         (const uint32_t *)(const void *)r->w[w].buf);
}

/* Poll every worker that is due, check what completed, start the next all-reduce. Returns the
 * earliest deadline. */
static uint64_t service_workers(run *r)
{
    uint64_t next = NEVER;
    for (unsigned i = 0; i < r->nw && !r->log.failed; i++) {
        wk *w = &r->w[i];
        if (w->finished)
            continue;
        if (ws_worker_deadline(w->w) <= r->now && ws_worker_poll(w->w, r->now)) {
            fail(r, "worker %u: %s", i, ws_worker_error(w->w));
            break;
        }
        if (ws_worker_done(w->w)) {
            check_tensor(r, i);
            if (++w->iter == r->o.iters) {
                w->finished = 1;
                r->t_done = r->now;
                continue;
            }
            fill_input(r, i);
            if (ws_worker_start(w->w, w->buf, w->buf, r->o.elems, r->now)) {
                fail(r, "worker %u: %s", i, ws_worker_error(w->w));
                break;
            }
            ws_base_expected(&r->exp, &r->log, w->iter);
        }
        uint64_t d = ws_worker_deadline(w->w);
        if (d < next)
            next = d;
    }
    return next;
}

static int all_finished(const run *r)
{
    for (unsigned i = 0; i < r->nw; i++)
        if (!r->w[i].finished)
            return 0;
    return 1;
}

/* ---- progress --------------------------------------------------------------------------- */

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The progress display (util/progress.h): chunks with their result in, of all. */
static void progress(run *r, int final)
{
    uint64_t done = 0, total = (uint64_t)r->nw * r->o.iters * (r->nch ? r->nch : 1);
    for (unsigned i = 0; i < r->nw; i++) {
        uint64_t d, t;
        ws_worker_progress(r->w[i].w, &d, &t);
        done += (uint64_t)r->w[i].iter * (r->nch ? r->nch : 1) + (r->w[i].finished ? 0 : d);
    }
    double frac = total ? (double)done / (double)total : 1.0;
    uint64_t retx = 0;
    for (unsigned i = 0; i < r->nw; i++)
        retx += ws_worker_get_stats(r->w[i].w)->retx_frames;
    if (final)
        ws_progress_end(&r->prog, frac, "cycle %llu, %llu retransmissions",
                        (unsigned long long)r->now, (unsigned long long)retx);
    else
        ws_progress_show(&r->prog, frac, "cycle %llu, %llu retransmissions",
                         (unsigned long long)r->now, (unsigned long long)retx);
}

/* ---- setup ----------------------------------------------------------------------------- */

static int make_config(run *r)
{
    const ws_run_opts *o = &r->o;
    ws_config *c = &r->cfg;
    ws_config_default(c);
    if (o->slots > c->pool_slots)
        c->pool_slots = o->slots;
    if (o->count > c->max_count)
        c->max_count = o->count;
    if (ws_session_clocked(r->dev)) { /* describe the build of the model */
        c->max_jobs = r->params.jobs;
        c->max_workers = r->params.workers;
        c->pool_slots = r->params.pool;
        c->max_count = r->params.count;
    }
    ws_job *jb = ws_config_add_workload(c, JOB_ID, o->ports, o->workers, o->slots, o->count);
    if (!jb)
        return fail(r, "%u ports, %u workers: beyond the host's limits", o->ports, o->workers);
    r->job = jb;
    return ws_config_check(c, r->err, r->errlen) ? (r->log.failed = 1, -1) : 0;
}

/* The options themselves are checked by ws_run (ws_run_check); here what the machine has. */
static int check_opts(run *r)
{
    const ws_run_opts *o = &r->o;
    /* the workers' tensors and two iterations of exact sums */
    double need = (double)o->elems * 4 * (o->workers + 2);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0 && need > 0.8 * (double)pages * (double)psize)
        return fail(r, "--elems %llu with %u workers needs %.1f GB of tensors; this machine has "
                    "%.1f GB", (unsigned long long)o->elems, o->workers, need / 1e9,
                    (double)pages * (double)psize / 1e9);
    return 0;
}

/* The device, of its kind: the model through the driver (open, reset, build parameters checked
 * against the options), or the reference. */
static int new_device(run *r)
{
    /* without --trace, the model built without tracing (if the binary has one): faster */
    ws_session_opts so = {r->o.device == WS_RUN_RTL ? WS_DEVICE_VERILATOR : WS_DEVICE_REFERENCE,
                          r->o.width, r->o.trace != NULL};
    r->dev = ws_session_open(&so, r->err, r->errlen);
    if (!r->dev)
        return r->log.failed = 1, -1;
    if (!ws_session_clocked(r->dev))
        return 0;
    if (ws_session_open_driver(r->dev, &r->params, r->err, r->errlen))
        return r->log.failed = 1, -1;
    const ws_dev_params *p = &r->params;
    if (r->o.ports > p->ports)
        return fail(r, "--ports %u: the model has %u", r->o.ports, p->ports);
    if (r->o.workers > p->workers)
        return fail(r, "--workers %u: the model supports %u", r->o.workers, p->workers);
    if (r->o.slots > p->pool)
        return fail(r, "--slots %u: the model has a pool of %u slots", r->o.slots, p->pool);
    if (r->o.count > p->count)
        return fail(r, "--count %u: the model's MAX_COUNT is %u", r->o.count, p->count);
    return 0;
}

/* The job configured, and on a model the trace opened; time starts here. */
static int configure_device(run *r)
{
    if (ws_session_configure(r->dev, &r->cfg, r->err, r->errlen))
        return r->log.failed = 1, -1;
    if (ws_session_clocked(r->dev) && r->o.trace &&
        ws_sim_trace_open(ws_session_sim(r->dev), r->o.trace, r->o.trace_from, r->o.trace_to,
                          r->err, r->errlen))
        return r->log.failed = 1, -1;
    r->cycle0 = ws_session_cycle(r->dev);
    if (r->plot && !ws_session_clocked(r->dev))
        ws_session_stamps(r->dev, 1); /* the reference's ingress beats for the plot */
    return 0;
}

static int open_record(run *r)
{
    const char *dir = r->o.record;
    if (mkdir(dir, 0777) != 0) {
        if (errno != EEXIST)
            return fail(r, "--record %s: %s", dir, strerror(errno));
        /* an existing directory must be empty: stale sums or pcaps would confuse sim and check */
        struct stat sb;
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return fail(r, "--record %s: exists and is not a directory", dir);
        char path[4096];
        snprintf(path, sizeof path, "%s/job.ini", dir);
        if (access(path, F_OK) == 0)
            return fail(r, "--record %s: already holds a trace (job.ini); give a new directory",
                        dir);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/job.ini", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(r, "%s: %s", path, strerror(errno));
    if (ws_config_write(&r->cfg, f) != 0) {
        fclose(f);
        return fail(r, "%s: write failed", path);
    }
    if (fclose(f) != 0)
        return fail(r, "%s: %s", path, strerror(errno));
    r->rec_in = ws_trace_create(dir, "in", r->cfg.n_ports, 1, r->err, r->errlen);
    r->rec_exp = r->rec_in ? ws_trace_create(dir, "expected", r->cfg.n_ports, 1, r->err,
                                             r->errlen)
                           : NULL;
    return r->rec_exp ? 0 : (r->log.failed = 1, -1);
}

static int make_workers(run *r)
{
    r->w = calloc(r->nw, sizeof *r->w);
    single_tx *ctx = r->ctx = calloc(r->nw, sizeof *ctx);
    if (!r->w || !ctx)
        return fail(r, "out of memory");
    const ws_run_opts *o = &r->o;
    uint64_t fb = (ws_frame_len(o->count) + r->bytes - 1) / r->bytes; /* beats of a frame */
    uint64_t L = o->latency;
    /* a round trip under full load: every worker's window queued at the device's input, and as
     * many RESULTs queued at its output (the engine and the result generator each move one beat
     * per cycle); measured: 32 workers, 16 slots, count 64 at 256 bits need 12000 cycles */
    uint64_t rtt = 2 * L + 2 * (uint64_t)r->nw * o->slots * (fb + 1);
    uint64_t rto = o->rto ? o->rto : rtt + 2 * L;
    uint64_t rto_min = 2 * L + 2 * (uint64_t)r->nw * (fb + 1);
    if (rto_min > rto)
        rto_min = rto;
    for (unsigned i = 0; i < r->nw; i++) {
        wk *w = &r->w[i];
        w->port = r->job->member[i].port;
        w->buf = malloc(o->elems * sizeof(float));
        if (!w->buf)
            return fail(r, "out of memory for worker %u's tensor", i);
        ws_worker_cfg wc;
        ws_worker_cfg_init(&wc);
        if (ws_worker_cfg_from_config(&wc, &r->cfg, JOB_ID, i, r->err, r->errlen))
            return r->log.failed = 1, -1;
        /* the port's beat a cycle, shared by its members (rank r on port r mod ports) */
        ws_channel_worker_path(&wc, r->bytes * 8, o->clock_mhz,
                           (r->nw + r->cfg.n_ports - 1) / r->cfg.n_ports, rto, rto_min);
        wc.max_retries = o->max_retries;
        wc.hold = 2 * L + 1; /* the largest one-way delay of this network */
        wc.tos = 2;          /* ECT(0) */
        ctx[i] = (single_tx){r, i};
        wc.tx = worker_tx;
        wc.tx_ctx = &ctx[i];
        w->w = ws_worker_new(&wc, r->err, r->errlen);
        if (!w->w)
            return r->log.failed = 1, -1;
    }
    return 0;
}

/* --record: DIR/counters.txt, the device's counters as read back (docs/traces.md) */
static int save_counters(run *r)
{
    ws_counters_file cf;
    memset(&cf, 0, sizeof cf);
    cf.device.present = 1;
    cf.device.ports = r->cfg.n_ports;
    cf.device.c = r->st->ctr;
    snprintf(cf.device.source, sizeof cf.device.source, "wiresum run: %s, DATA_WIDTH %u",
             r->o.device == WS_RUN_RTL ? "RTL model" : "software reference with timing",
             r->o.width);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->o.record, WS_COUNTERS_FILE);
    return ws_counters_file_save(path, &cf, r->err, r->errlen) ? (r->log.failed = 1, -1) : 0;
}

/* ---- the report -------------------------------------------------------------------------- */

/* The network's faults into the statistics */
static void net_stats(run *r)
{
    for (int d = 0; d < 2; d++) {
        r->st->lost[d] = r->net.st.lost[d];
        r->st->duped[d] = r->net.st.duped[d];
        r->st->reordered[d] = r->net.st.reordered[d];
        r->st->corrupted[d] = r->net.st.corrupted[d];
    }
}

static void check_counters(run *r)
{
    const ws_counters *c = &r->st->ctr;
    uint64_t rx = 0, tx = 0, drops = 0;
    for (unsigned p = 0; p < r->cfg.n_ports; p++)
        rx += c->rx_frames[p], tx += c->tx_frames[p];
    for (int k = 1; k < WS_N_REASONS; k++)
        drops += c->drop[k];
    ws_run_stats *s = r->st;
    if (rx != s->frames_in)
        report(r, "device counted %llu frames received, %llu were sent in", (unsigned long long)rx,
               (unsigned long long)s->frames_in);
    if (c->accepted + c->bypass + drops != rx)
        report(r, "device counters: accepted %llu + bypass %llu + drops %llu != received %llu",
               (unsigned long long)c->accepted, (unsigned long long)c->bypass,
               (unsigned long long)drops, (unsigned long long)rx);
    if (tx != s->frames_out)
        report(r, "device counted %llu frames sent, %llu came out", (unsigned long long)tx,
               (unsigned long long)s->frames_out);
    if (c->results + c->resends != s->results_out)
        report(r, "device counted %llu results + %llu resends, %llu RESULTs came out",
               (unsigned long long)c->results, (unsigned long long)c->resends,
               (unsigned long long)s->results_out);
    if (c->bypass != s->bypass_out + s->corrupt_bypassed)
        report(r, "device counted %llu bypass frames, %llu came out",
               (unsigned long long)c->bypass,
               (unsigned long long)(s->bypass_out + s->corrupt_bypassed));
    if (c->results != (uint64_t)r->nw * r->nch * r->o.iters)
        report(r, "device sent %llu results on completion, expected workers x chunks x iters = "
               "%llu", (unsigned long long)c->results,
               (unsigned long long)((uint64_t)r->nw * r->nch * r->o.iters));
}

static void print_report(run *r, double secs)
{
    const ws_run_opts *o = &r->o;
    ws_run_stats *s = r->st;
    FILE *out = r->out;
    uint64_t cyc = s->cycles ? s->cycles : 1;
    double t_s = (double)cyc * r->ns_per_cycle * 1e-9;
    double tensor_bytes = (double)o->elems * 4 * o->iters;
    fprintf(out,
            "run: %s, %u workers on %u ports, %llu elements x %u all-reduces, count %u, "
            "slots %u\n",
            o->device == WS_RUN_RTL ? "RTL model" : "software reference", o->workers, o->ports,
            (unsigned long long)o->elems, o->iters, o->count, o->slots);
    fprintf(out, "  (datapath %u bits at %.0f MHz; one-way latency %llu cycles)\n", o->width,
            o->clock_mhz, (unsigned long long)o->latency);
    fprintf(out,
            "  faults %s: loss %g, dup %g, reorder %g, corrupt %g; bypass %g\n",
            o->fault_up && o->fault_down ? "both ways" : o->fault_up ? "worker->device"
                                                        : o->fault_down ? "device->worker"
                                                                        : "off",
            o->loss, o->dup, o->reorder, o->corrupt, o->bypass);
    fprintf(out,
            "  time: %llu cycles = %.3f us simulated; %llu cycles clocked in %.2f s (%.0f "
            "cycles/s)\n",
            (unsigned long long)s->cycles, t_s * 1e6, (unsigned long long)s->model_cycles, secs,
            secs > 0 ? (double)s->model_cycles / secs : 0.0);
    fprintf(out,
            "  throughput: %.3f GB/s of gradient per worker (%.2f Gb/s), %.3f GB/s for all "
            "workers; datapath limit %.2f GB/s\n",
            tensor_bytes / t_s / 1e9, tensor_bytes * 8 / t_s / 1e9,
            tensor_bytes * o->workers / t_s / 1e9, (double)o->width / 8 * o->clock_mhz * 1e6 / 1e9);
    fprintf(out,
            "  transport: %llu DATA, %llu retransmissions, %llu timeouts; RESULTs: %llu taken, "
            "%llu duplicate, %llu stale, %llu corrupted, %llu foreign\n",
            (unsigned long long)s->data, (unsigned long long)s->retx,
            (unsigned long long)s->timeouts, (unsigned long long)s->results,
            (unsigned long long)s->dup_results, (unsigned long long)s->stale_results,
            (unsigned long long)s->bad_frames, (unsigned long long)s->foreign);
    fprintf(out,
            "  network: up lost %llu dup %llu reordered %llu corrupted %llu; down lost %llu dup "
            "%llu reordered %llu corrupted %llu, %llu undeliverable\n",
            (unsigned long long)s->lost[0], (unsigned long long)s->duped[0],
            (unsigned long long)s->reordered[0], (unsigned long long)s->corrupted[0],
            (unsigned long long)s->lost[1], (unsigned long long)s->duped[1],
            (unsigned long long)s->reordered[1], (unsigned long long)s->corrupted[1],
            (unsigned long long)s->undeliverable);
    fprintf(out, "  bypass: %llu sent, %llu came out (and %llu corrupted frames bypassed)\n",
            (unsigned long long)s->bypass_sent, (unsigned long long)s->bypass_out,
            (unsigned long long)s->corrupt_bypassed);
    fprintf(out, "  device (%llu frames in, %llu out):\n", (unsigned long long)s->frames_in,
            (unsigned long long)s->frames_out);
    ws_counters_file_print(&s->ctr, r->cfg.n_ports, out);
    fprintf(out, "  tensors: %llu of %llu exact%s\n", (unsigned long long)s->tensors_exact,
            (unsigned long long)s->tensors,
            s->check_failures ? "; CHECKS FAILED (see above)" : "");
}

/* ---- ws_run ------------------------------------------------------------------------------- */

/* The faults a run applies, for the plot's title: every nonzero rate and, when not both, the
 * direction they apply in; "no faults" without any. */
static void fault_text(const ws_run_opts *o, char *buf, size_t n)
{
    const struct {
        const char *name;
        double rate;
    } f[] = {{"loss", o->loss},       {"dup", o->dup},       {"reorder", o->reorder},
             {"corrupt", o->corrupt}, {"bypass", o->bypass}};
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].rate > 0 && at < n)
            at += (size_t)snprintf(buf + at, n - at, "%s%s %g", at ? ", " : "", f[i].name,
                                   f[i].rate);
    if (at == 0)
        snprintf(buf, n, "no faults");
    else if (at < n && !(o->fault_up && o->fault_down))
        snprintf(buf + at, n - at, " (--faults %s)",
                 o->fault_up ? "up" : o->fault_down ? "down" : "none");
}

int ws_single_run(const ws_run_opts *opts, ws_run_stats *st, FILE *out, char *err,
                  size_t errlen)
{
    run *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(st, 0, sizeof *st);
    r->o = *opts;
    ws_progress_init(&r->prog, "run", opts->progress, opts->progress_tty);
    r->st = st;
    r->out = out;
    r->err = err;
    r->errlen = errlen;
    r->log = (ws_base_log){st, out, err, errlen, 0, 0};
    r->nw = opts->workers;
    r->bytes = opts->width / 8;
    r->ns_per_cycle = 1000.0 / opts->clock_mhz;
    r->rng.s = ws_mix64(opts->seed ^ 0x72756e0a);
    ws_channel_opts no = {opts->latency, opts->loss, opts->dup, opts->reorder, opts->corrupt,
                      {opts->fault_up, opts->fault_down}};
    ws_channel_init(&r->net, &no, &r->rng, corrupted_up, r);
    int rc = -1;
    double t0 = wall();

    if (check_opts(r))
        goto done;
    r->nch = (opts->elems + opts->count - 1) / opts->count;
    if (opts->plot) {
        if (ws_plot_check(opts->plot, err, errlen)) {
            r->log.failed = 1;
            goto done;
        }
        r->plot = ws_plot_new(r->nw, r->nch * opts->iters);
        if (!r->plot) {
            fail(r, "--plot: out of memory");
            goto done;
        }
    }
    if (new_device(r) || make_config(r) || configure_device(r))
        goto done;
    if (opts->record && open_record(r))
        goto done;
    if (ws_base_expect_init(&r->exp, opts, r->nw, &r->log))
        goto done;
    if (make_workers(r))
        goto done;

    /* every worker starts its first all-reduce at cycle 0 */
    ws_base_expected(&r->exp, &r->log, 0);
    for (unsigned i = 0; i < r->nw && !r->log.failed; i++) {
        fill_input(r, i);
        if (ws_worker_start(r->w[i].w, r->w[i].buf, r->w[i].buf, opts->elems, 0))
            fail(r, "worker %u: %s", i, ws_worker_error(r->w[i].w));
    }
    uint64_t loops = 0;
    int drained = 0;
    while (!r->log.failed) {
        deliver(r);
        uint64_t next = service_workers(r), wnext = next;
        feed(r);
        if (r->log.failed)
            break;
        if (opts->max_cycles && r->now > opts->max_cycles) {
            fail(r, "no completion after %llu cycles (--max-cycles)",
                 (unsigned long long)opts->max_cycles);
            break;
        }
        if (r->o.progress && (++loops & 63) == 0 && ws_progress_due(&r->prog))
            progress(r, 0);
        int finished = all_finished(r) && r->net.q[0].n == 0;
        uint64_t tw = ws_channel_queue_top(&r->net.q[1]), td = ws_channel_queue_top(&r->net.q[0]);
        if (tw < next)
            next = tw;
        if (td < next)
            next = td;
        if (ws_session_clocked(r->dev)) {
            int busy = ws_session_busy(r->dev) || td <= r->now;
            if (finished && !busy) {
                /* the end: wait for the device to fall quiet */
                uint64_t quiet = opts->record ? WS_SESSION_QUIET_RECORD : WS_SESSION_SETTLE;
                if (r->now - r->last_activity >= quiet) {
                    drained = 1;
                    break;
                }
                model_step(r, MAX_STEP);
                continue;
            }
            if (busy) {
                /* next without a frame that waits to be fed (td <= now): it is fed once
                 * feedable, which model_busy watches for */
                uint64_t due = tw < wnext ? tw : wnext;
                if (td > r->now && td < due)
                    due = td;
                model_busy(r, due);
                continue;
            }
            uint64_t gap = next == NEVER ? MAX_STEP : next - r->now;
            if (gap > 1 && r->now - r->last_activity >= WS_SESSION_SETTLE) {
                /* the model is idle and nothing is due before next: skip the stretch */
                r->skipped += gap;
                r->now += gap;
                continue;
            }
            model_step(r, gap < MAX_STEP ? gap : MAX_STEP);
            continue;
        }
        /* the reference: straight to the next event */
        if (finished) {
            drained = 1;
            break;
        }
        if (next == NEVER) {
            fail(r, "internal: nothing left to happen, but the workers are not done");
            break;
        }
        uint64_t to = next > r->now ? next : r->now + 1;
        if (ws_session_run(r->dev, to - r->now)) {
            fail(r, "%s", ws_session_error(r->dev));
            break;
        }
        r->now = to;
    }
    if (r->w)
        progress(r, 1);
    if (r->log.failed || !drained)
        goto done;

    st->cycles = r->t_done;
    if (ws_session_clocked(r->dev))
        ws_sim_trace_close(ws_session_sim(r->dev));
    if (ws_session_counters(r->dev, r->cfg.n_ports, &st->ctr, err, errlen))
        goto done;
    if (ws_session_clocked(r->dev)) {
        /* teardown: the job disabled, as a driver leaves the device */
        ws_regbus bus = ws_session_bus(r->dev);
        if (ws_dev_job_disable(&bus, 0, err, errlen))
            goto done;
    }
    for (unsigned i = 0; i < r->nw; i++)
        ws_base_add_worker(st, ws_worker_get_stats(r->w[i].w));
    for (size_t k = 0; k < r->bp.n; k++)
        if (r->bp.e[k].must && !r->bp.e[k].seen)
            report(r, "bypass frame %zu (kind %u, %u bytes) never came out on port %u", k,
                   r->bp.e[k].kind, r->bp.e[k].len, r->bp.e[k].egress);
    check_counters(r);
    if (r->rec_in) {
        int bad = ws_trace_finish(r->rec_in, err, errlen);
        r->rec_in = NULL;
        bad |= ws_trace_finish(r->rec_exp, err, errlen);
        r->rec_exp = NULL;
        if (bad || save_counters(r))
            goto done;
    }
    st->wall_s = wall() - t0;
    net_stats(r);
    print_report(r, st->wall_s);
    if (r->plot) {
        char title[512];
        int n = snprintf(title, sizeof title, "wiresum run: %s, %u workers, %llu elements x %u, "
                         "count %u, slots %u, latency %llu, ",
                         opts->device == WS_RUN_RTL ? "RTL" : "reference", opts->workers,
                         (unsigned long long)opts->elems, opts->iters, opts->count, opts->slots,
                         (unsigned long long)opts->latency);
        fault_text(opts, title + n, sizeof title - (size_t)n);
        if (ws_plot_write(r->plot, opts->plot, title, err, errlen)) {
            r->log.failed = 1;
            goto done;
        }
        fprintf(out, "  plot: %s (utilization and latency over time)\n", opts->plot);
    }
    rc = (st->tensors_exact == st->tensors && st->tensors == (uint64_t)r->nw * opts->iters &&
          !st->check_failures)
             ? 0
             : 1;
done:
    if (r->log.failed && rc == 0)
        rc = -1;
    net_stats(r);
    ws_trace_finish(r->rec_in, NULL, 0);
    ws_trace_finish(r->rec_exp, NULL, 0);
    ws_plot_free(r->plot);
    ws_channel_free(&r->net);
    ws_frame_set_free(&r->bp);
    for (unsigned i = 0; r->w && i < r->nw; i++) {
        ws_worker_free(r->w[i].w);
        free(r->w[i].buf);
    }
    free(r->ctx);
    free(r->w);
    ws_base_expect_free(&r->exp);
    ws_session_free(r->dev);
    free(r);
    return rc;
}
