/* simrun.c - replay a trace through the RTL model, compare with the reference, report. */
#include "simrun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "refdev.h"
#include "trace.h"
#include "wire.h"
#include "ws_dev.h"
#include "ws_sim.h"

#define QUIET_CYCLES 20000 /* the run ends once the model has sent nothing for this long, */
#define QUIET_ALL_IN 2000  /* or this long once every expected frame has come out */
#define MAX_REPORTS 10

void ws_simrun_defaults(ws_simrun_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 256;
    o->seed = 1;
    o->clock_mhz = 200.0;
}

/* ---- frames in memory --------------------------------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t len;
    uint64_t ts_ns;
    uint64_t index; /* 1-based frame number in its pcap */
} frame;

typedef struct {
    frame *f;
    size_t n, cap;
} frame_list;

static int list_add(frame_list *l, const uint8_t *data, size_t len, uint64_t ts_ns)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        frame *nf = realloc(l->f, cap * sizeof *nf);
        if (!nf)
            return -1;
        l->f = nf;
        l->cap = cap;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, data, len);
    l->f[l->n] = (frame){copy, len, ts_ns, l->n + 1};
    l->n++;
    return 0;
}

static void list_free(frame_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->f[i].data);
    free(l->f);
    memset(l, 0, sizeof *l);
}

/* ---- the register bus of the model ---------------------------------------------------------- */

static int bus_write(void *ctx, uint32_t addr, uint32_t data)
{
    return ws_sim_reg_write(ctx, addr, data);
}
static int bus_read(void *ctx, uint32_t addr, uint32_t *data)
{
    return ws_sim_reg_read(ctx, addr, data);
}

/* ---- the reference, in process ---------------------------------------------------------- */

typedef struct {
    frame_list *out; /* per egress port */
    uint64_t ts;
    int failed;
} ref_sink;

static void ref_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    ref_sink *s = ctx;
    if (list_add(&s->out[egress], f, len, s->ts))
        s->failed = 1;
}

static int is_result(const ws_config *cfg, const frame *f)
{
    return ws_is_result(f->data, f->len, cfg->ip, cfg->udp_port);
}

/* ---- comparison ------------------------------------------------------------------------- */

typedef struct {
    const char *dir;
    const ws_config *cfg;
    ws_trace_out *mis_exp, *mis_act, *mis_extra;
    uint64_t mismatches, reported;
    FILE *out;
    char err[512];
    int failed;
} comparer;

static void describe(const comparer *c, const frame *f, char *buf, size_t n)
{
    if (is_result(c->cfg, f)) {
        ws_hdr h;
        ws_parse(f->data, &h);
        snprintf(buf, n, "RESULT job %u rank %u slot %u set %u offset %u count %u%s", h.job,
                 h.worker, h.slot, h.flags & WS_FLAG_SET, h.offset, h.count,
                 h.flags & WS_FLAG_RETX ? " RETX" : "");
    } else {
        snprintf(buf, n, "frame of %zu bytes", f->len);
    }
}

static void put(comparer *c, ws_trace_out *t, unsigned port, const frame *f)
{
    if (!c->failed && ws_trace_write(t, port, f->ts_ns, f->data, f->len, c->err, sizeof c->err))
        c->failed = 1;
}

/* Compare the subsequences of expected and actual frames of one class on one port. */
static void compare_class(comparer *c, unsigned port, const char *cls, frame **exp, size_t ne,
                          frame **act, size_t na)
{
    size_t n = ne < na ? ne : na;
    for (size_t i = 0; i < n; i++) {
        if (exp[i]->len == act[i]->len && !memcmp(exp[i]->data, act[i]->data, exp[i]->len))
            continue;
        c->mismatches++;
        put(c, c->mis_exp, port, exp[i]);
        put(c, c->mis_act, port, act[i]);
        if (c->reported++ < MAX_REPORTS) {
            char d1[160], d2[160];
            describe(c, exp[i], d1, sizeof d1);
            describe(c, act[i], d2, sizeof d2);
            size_t at = 0;
            while (at < exp[i]->len && at < act[i]->len && exp[i]->data[at] == act[i]->data[at])
                at++;
            fprintf(c->out,
                    "mismatch: port %u, %s #%zu: expected%u.pcap frame %llu (%s), out%u.pcap "
                    "frame %llu (%s), first difference at byte %zu\n",
                    port, cls, i + 1, port, (unsigned long long)exp[i]->index, d1, port,
                    (unsigned long long)act[i]->index, d2, at);
        }
    }
    for (size_t i = n; i < ne; i++) {
        c->mismatches++;
        put(c, c->mis_exp, port, exp[i]);
        if (c->reported++ < MAX_REPORTS) {
            char d[160];
            describe(c, exp[i], d, sizeof d);
            fprintf(c->out, "missing: port %u, %s #%zu: expected%u.pcap frame %llu (%s)\n", port,
                    cls, i + 1, port, (unsigned long long)exp[i]->index, d);
        }
    }
    for (size_t i = n; i < na; i++) {
        c->mismatches++;
        put(c, c->mis_extra, port, act[i]);
        if (c->reported++ < MAX_REPORTS) {
            char d[160];
            describe(c, act[i], d, sizeof d);
            fprintf(c->out, "extra: port %u, %s #%zu: out%u.pcap frame %llu (%s)\n", port, cls,
                    i + 1, port, (unsigned long long)act[i]->index, d);
        }
    }
}

static int compare_port(comparer *c, unsigned port, const frame_list *exp, const frame_list *act)
{
    frame **e[2], **a[2];
    size_t ne[2] = {0, 0}, na[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        e[k] = malloc((exp->n + 1) * sizeof(frame *));
        a[k] = malloc((act->n + 1) * sizeof(frame *));
    }
    if (!e[0] || !e[1] || !a[0] || !a[1]) {
        for (int k = 0; k < 2; k++)
            free(e[k]), free(a[k]);
        return -1;
    }
    for (size_t i = 0; i < exp->n; i++) {
        int k = is_result(c->cfg, &exp->f[i]);
        e[k][ne[k]++] = &exp->f[i];
    }
    for (size_t i = 0; i < act->n; i++) {
        int k = is_result(c->cfg, &act->f[i]);
        a[k][na[k]++] = &act->f[i];
    }
    compare_class(c, port, "bypass frame", e[0], ne[0], a[0], na[0]);
    compare_class(c, port, "RESULT", e[1], ne[1], a[1], na[1]);
    for (int k = 0; k < 2; k++)
        free(e[k]), free(a[k]);
    return 0;
}

static int compare_counters(FILE *out, const ws_counters *ref, const ws_counters *dev,
                            unsigned n_ports)
{
    int bad = 0;
#define CMP(name, a, b)                                                                            \
    if ((a) != (b)) {                                                                              \
        fprintf(out, "counter %s: reference %llu, device %llu\n", name, (unsigned long long)(a),   \
                (unsigned long long)(b));                                                          \
        bad++;                                                                                     \
    }
    char name[64];
    for (unsigned p = 0; p < n_ports; p++) {
        snprintf(name, sizeof name, "rx_frames[%u]", p);
        CMP(name, ref->rx_frames[p], dev->rx_frames[p]);
        snprintf(name, sizeof name, "rx_bytes[%u]", p);
        CMP(name, ref->rx_bytes[p], dev->rx_bytes[p]);
        snprintf(name, sizeof name, "tx_frames[%u]", p);
        CMP(name, ref->tx_frames[p], dev->tx_frames[p]);
        snprintf(name, sizeof name, "tx_bytes[%u]", p);
        CMP(name, ref->tx_bytes[p], dev->tx_bytes[p]);
    }
    CMP("accepted", ref->accepted, dev->accepted);
    CMP("results", ref->results, dev->results);
    CMP("resends", ref->resends, dev->resends);
    CMP("bypass", ref->bypass, dev->bypass);
    for (int r = 1; r < WS_N_REASONS; r++) {
        snprintf(name, sizeof name, "drop %s", ws_reason_name((ws_reason)r));
        CMP(name, ref->drop[r], dev->drop[r]);
    }
#undef CMP
    return bad;
}

/* ---- the run ------------------------------------------------------------------------------ */

typedef struct {
    const char *dir;
    const ws_simrun_opts *o;
    FILE *out;
    char *err;
    size_t errlen;
    ws_config cfg;
    ws_sim *sim;
    ws_trace_out *actual_out;
    frame_list *act; /* collected per egress port */
    unsigned ports;
    double ns_per_cycle;
    uint64_t last_output_cycle;
} run;

/* Move every collected egress frame into act[] and out<P>.pcap. */
static int collect(run *r)
{
    for (unsigned p = 0; p < r->ports; p++) {
        const uint8_t *data;
        size_t len;
        uint64_t cyc;
        while (ws_sim_pop(r->sim, p, &data, &len, &cyc) == 1) {
            uint64_t ts = (uint64_t)((double)cyc * r->ns_per_cycle);
            if (list_add(&r->act[p], data, len, ts)) {
                snprintf(r->err, r->errlen, "out of memory");
                return -1;
            }
            if (ws_trace_write(r->actual_out, p, ts, data, len, r->err, r->errlen))
                return -1;
            r->last_output_cycle = cyc;
        }
    }
    return 0;
}

static int step(run *r, uint64_t cycles)
{
    ws_sim_run(r->sim, cycles);
    if (ws_sim_error(r->sim)) {
        snprintf(r->err, r->errlen, "model: %s", ws_sim_error(r->sim));
        return -1;
    }
    return collect(r);
}

int ws_simrun(const char *dir, const ws_simrun_opts *o, FILE *out, char *err, size_t errlen)
{
    run r = {.dir = dir, .o = o, .out = out, .err = err, .errlen = errlen};
    char path[4096];
    int rc = -1;
    ws_refdev *ref = NULL;
    ws_trace_in *in = NULL;
    frame_list *exp = NULL;
    frame_list inputs = {0};
    unsigned *in_port = NULL;
    comparer cmp = {.dir = dir, .out = out};
    r.ns_per_cycle = 1000.0 / o->clock_mhz;

    snprintf(path, sizeof path, "%s/job.ini", dir);
    if (ws_config_load(&r.cfg, path, err, errlen))
        goto done;
    cmp.cfg = &r.cfg;
    r.sim = ws_sim_new_engine(o->icarus ? WS_SIM_ICARUS : WS_SIM_VERILATOR, o->width, err,
                              errlen);
    if (!r.sim)
        goto done;
    r.ports = ws_sim_ports(r.sim);
    if (r.cfg.n_ports > r.ports) {
        snprintf(err, errlen, "%s: %u ports, but the model has %u", path, r.cfg.n_ports, r.ports);
        goto done;
    }
    ws_regbus bus = {bus_write, bus_read, r.sim};
    if (ws_dev_configure(&bus, &r.cfg, err, errlen))
        goto done;

    /* the inputs, in global order, and the reference's outputs and counters */
    ref = ws_refdev_new(&r.cfg, err, errlen);
    in = ref ? ws_trace_open(dir, "in", r.cfg.n_ports, 1, err, errlen) : NULL;
    exp = calloc(r.ports, sizeof *exp);
    r.act = calloc(r.ports, sizeof *r.act);
    if (!in || !exp || !r.act)
        goto done;
    ref_sink sink = {.out = exp};
    size_t in_cap = 0;
    ws_pkt pkt;
    int got;
    while ((got = ws_trace_next(in, &pkt, err, errlen)) == 1) {
        if (pkt.len == 0 || pkt.len > WS_SIM_MAX_FRAME) {
            snprintf(err, errlen, "%s/in%u.pcap: frame %llu: a frame of %zu bytes cannot enter "
                     "the model", dir, pkt.port, (unsigned long long)pkt.index, pkt.len);
            goto done;
        }
        if (list_add(&inputs, pkt.data, pkt.len, pkt.ts_ns))
            goto oom;
        if (inputs.n > in_cap) {
            in_cap = inputs.cap;
            unsigned *np = realloc(in_port, in_cap * sizeof *np);
            if (!np)
                goto oom;
            in_port = np;
        }
        in_port[inputs.n - 1] = pkt.port;
        sink.ts = pkt.ts_ns;
        ws_refdev_rx(ref, pkt.port, pkt.data, pkt.len, ref_emit, &sink);
        if (sink.failed)
            goto oom;
    }
    if (got < 0)
        goto done;

    /* expected<P>.pcap: written by the reference if absent, else read (another oracle's) */
    snprintf(path, sizeof path, "%s/expected0.pcap", dir);
    if (access(path, F_OK) != 0) {
        ws_trace_out *eo = ws_trace_create(dir, "expected", r.cfg.n_ports, 0, err, errlen);
        if (!eo)
            goto done;
        for (unsigned p = 0; p < r.cfg.n_ports; p++)
            for (size_t i = 0; i < exp[p].n; i++)
                if (ws_trace_write(eo, p, exp[p].f[i].ts_ns, exp[p].f[i].data, exp[p].f[i].len,
                                   err, errlen)) {
                    ws_trace_finish(eo, NULL, 0);
                    goto done;
                }
        if (ws_trace_finish(eo, err, errlen))
            goto done;
    } else {
        for (unsigned p = 0; p < r.ports; p++)
            list_free(&exp[p]);
        ws_trace_in *ei = ws_trace_open(dir, "expected", r.cfg.n_ports, 1, err, errlen);
        if (!ei)
            goto done;
        uint64_t idx[WS_LIMIT_PORTS] = {0};
        while ((got = ws_trace_next(ei, &pkt, err, errlen)) == 1) {
            if (list_add(&exp[pkt.port], pkt.data, pkt.len, pkt.ts_ns)) {
                ws_trace_close(ei);
                goto oom;
            }
            exp[pkt.port].f[exp[pkt.port].n - 1].index = ++idx[pkt.port];
        }
        ws_trace_close(ei);
        if (got < 0)
            goto done;
    }

    /* the run: frames enter in global order; a frame on another port than the previous
     * one is offered only once the previous one is wholly in, so the device's
     * first-come-first-served input arbiter sees them in the same order */
    ws_sim_stress st = {o->idle_pct, o->bp_pct, o->seed};
    ws_sim_set_stress(r.sim, &st);
    r.actual_out = ws_trace_create(dir, "out", r.cfg.n_ports, 1, err, errlen);
    if (!r.actual_out)
        goto done;
    if (o->trace && ws_sim_trace_open(r.sim, o->trace, o->trace_from, o->trace_to, err, errlen))
        goto done;
    uint64_t start_cycle = ws_sim_cycle(r.sim);
    uint64_t limit = o->max_cycles ? o->max_cycles
                                   : 1000000 + 64 * (uint64_t)inputs.n +
                                         40 * (uint64_t)(inputs.n ? inputs.n : 1) * 64;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned prev = 0;
    for (size_t i = 0; i < inputs.n; i++) {
        unsigned p = in_port[i];
        while (ws_sim_pending(r.sim, p) >= 2 || (p != prev && ws_sim_pending(r.sim, prev) > 0)) {
            if (step(&r, 1))
                goto done;
            if (ws_sim_cycle(r.sim) - start_cycle > limit) {
                snprintf(err, errlen, "model stopped taking frames: frame %zu of %zu (port %u) "
                         "not accepted after %llu cycles", i + 1, inputs.n, p,
                         (unsigned long long)limit);
                goto done;
            }
        }
        ws_sim_push(r.sim, p, inputs.f[i].data, inputs.f[i].len);
        prev = p;
    }
    /* drain: everything in, then quiet */
    r.last_output_cycle = ws_sim_cycle(r.sim);
    for (;;) {
        if (step(&r, 64))
            goto done;
        int pending = 0, short_of = 0;
        for (unsigned p = 0; p < r.ports; p++) {
            pending |= ws_sim_pending(r.sim, p) > 0;
            short_of |= r.act[p].n < exp[p].n;
        }
        uint64_t now = ws_sim_cycle(r.sim);
        if (!pending && now - r.last_output_cycle > (short_of ? QUIET_CYCLES : QUIET_ALL_IN))
            break;
        if (now - start_cycle > limit) {
            snprintf(err, errlen, "model did not finish within %llu cycles",
                     (unsigned long long)limit);
            goto done;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t cycles = r.last_output_cycle > start_cycle ? r.last_output_cycle - start_cycle : 1;
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ws_sim_trace_close(r.sim);
    if (ws_trace_finish(r.actual_out, err, errlen)) {
        r.actual_out = NULL;
        goto done;
    }
    r.actual_out = NULL;

    /* compare */
    cmp.mis_exp = ws_trace_create(dir, "mismatch-expected", r.cfg.n_ports, 0, cmp.err,
                                  sizeof cmp.err);
    cmp.mis_act = ws_trace_create(dir, "mismatch-actual", r.cfg.n_ports, 1, cmp.err,
                                  sizeof cmp.err);
    cmp.mis_extra = ws_trace_create(dir, "mismatch-extra", r.cfg.n_ports, 1, cmp.err,
                                    sizeof cmp.err);
    if (!cmp.mis_exp || !cmp.mis_act || !cmp.mis_extra) {
        snprintf(err, errlen, "%s", cmp.err);
        goto done;
    }
    for (unsigned p = 0; p < r.cfg.n_ports; p++)
        if (compare_port(&cmp, p, &exp[p], &r.act[p]))
            goto oom;
    for (unsigned p = r.cfg.n_ports; p < r.ports; p++)
        if (r.act[p].n)
            cmp.mismatches += r.act[p].n;
    ws_counters dev_ctr;
    if (ws_dev_read_counters(&bus, r.cfg.n_ports, &dev_ctr, err, errlen))
        goto done;
    int bad_ctr = compare_counters(out, ws_refdev_counters(ref), &dev_ctr, r.cfg.n_ports);

    ws_sim_stats ss;
    ws_sim_stats_get(r.sim, &ss);
    uint64_t exp_frames = 0, act_frames = 0;
    for (unsigned p = 0; p < r.ports; p++)
        exp_frames += exp[p].n, act_frames += r.act[p].n;
    if (!o->quiet || cmp.mismatches || bad_ctr) {
        fprintf(out,
                "sim %s: %s, width %u, %llu cycles (%.3f ms at %.0f MHz), %llu beats in "
                "(utilization %.3f), %llu beats out\n",
                dir, ws_sim_engine_name(r.sim), o->width, (unsigned long long)cycles,
                (double)cycles * r.ns_per_cycle * 1e-6, o->clock_mhz, (unsigned long long)ss.beats_in,
                (double)ss.beats_in / (double)cycles, (unsigned long long)ss.beats_out);
        fprintf(out,
                "  frames: %zu in, %llu out, %llu expected; %llu mismatches, %d counters differ; "
                "%.0f cycles/s\n",
                inputs.n, (unsigned long long)act_frames, (unsigned long long)exp_frames,
                (unsigned long long)cmp.mismatches, bad_ctr,
                secs > 0 ? (double)(ws_sim_cycle(r.sim) - start_cycle) / secs : 0.0);
        if (cmp.mismatches)
            fprintf(out, "  mismatching frames in %s/mismatch-{expected,actual,extra}<P>.pcap\n",
                    dir);
    }
    rc = (cmp.mismatches || bad_ctr) ? 1 : 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
    rc = -1;
done:
    if (ws_trace_finish(cmp.mis_exp, cmp.err, sizeof cmp.err) |
        ws_trace_finish(cmp.mis_act, cmp.err, sizeof cmp.err) |
        ws_trace_finish(cmp.mis_extra, cmp.err, sizeof cmp.err))
        if (rc == 0) {
            snprintf(err, errlen, "%s", cmp.err);
            rc = -1;
        }
    if (rc == 0) { /* no mismatch: no mismatch files either */
        for (unsigned p = 0; p < r.cfg.n_ports; p++) {
            const char *pre[] = {"mismatch-expected", "mismatch-actual", "mismatch-extra"};
            for (int k = 0; k < 3; k++) {
                snprintf(path, sizeof path, "%s/%s%u.pcap", dir, pre[k], p);
                unlink(path);
            }
        }
    }
    ws_trace_finish(r.actual_out, NULL, 0);
    ws_trace_close(in);
    ws_refdev_free(ref);
    for (unsigned p = 0; exp && p < r.ports; p++)
        list_free(&exp[p]);
    for (unsigned p = 0; r.act && p < r.ports; p++)
        list_free(&r.act[p]);
    free(exp);
    free(r.act);
    list_free(&inputs);
    free(in_port);
    ws_sim_free(r.sim);
    return rc;
}
