/* replay.c - replay a trace through the RTL model, compare with the reference, report. */
#include "replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wiresum/config.h"
#include "counters_file.h"
#include "f32.h"
#include "json.h"
#include "progress.h"
#include "trace.h"
#include "wiresum/wire.h"
#include "wiresum/session.h"
#include "ws_grow.h"

#define MAX_REPORTS 10

void ws_replay_defaults(ws_replay_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 256;
    o->seed = 1;
    o->clock_mhz = 200.0;
    o->trace_before = 2000;
    o->trace_after = 200;
    o->progress = 1;
    o->progress_tty = -1;
}

/* ---- frames in memory --------------------------------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t len;
    uint64_t ts_ns;
    uint64_t index; /* 1-based frame number in its pcap */
    unsigned port;  /* an input: its ingress port */
    uint64_t cycle; /* an RTL output: the cycle of its last beat */
    size_t cause;   /* a reference output: the input (global order, 0-based) that made it;
                     * NO_CAUSE if unknown */
} frame;

#define NO_CAUSE SIZE_MAX
#define NEVER UINT64_MAX

typedef struct {
    frame *f;
    size_t n, cap;
} frame_list;

static int list_add(frame_list *l, const uint8_t *data, size_t len, uint64_t ts_ns)
{
    frame *nf = ws_grow(l->f, &l->cap, l->n + 1, sizeof *nf, 256);
    if (!nf)
        return -1;
    l->f = nf;
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, data, len);
    l->f[l->n] = (frame){.data = copy, .len = len, .ts_ns = ts_ns, .index = l->n + 1,
                         .cause = NO_CAUSE};
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

/* a frame the device sends itself (a RESULT, or a PARTIAL to a parent), not bypass traffic */
static int is_result(const ws_config *cfg, const frame *f)
{
    return ws_is_sent(f->data, f->len, cfg->ip, cfg->udp_port);
}

/* ---- the loaded trace and one pass of the model ----------------------------------------- */

typedef struct {
    const char *dir;
    const ws_replay_opts *o;
    FILE *out;
    char *err;
    size_t errlen;
    ws_config cfg;
    double ns_per_cycle;
    /* the inputs in global order, each with its port, and per port in order (by_port) */
    frame_list inputs;
    size_t *by_port, port_off[WS_SIM_MAX_PORTS + 1];
    uint64_t exp_total;
    frame_list exp[WS_SIM_MAX_PORTS]; /* expected<P>.pcap */
    ws_session *ref;  /* the software reference, fed the same inputs */
    /* one pass */
    ws_session *sim;  /* the model */
    int sim_traced;   /* load() opened it, to dump a trace or not, */
    int sim_fresh;    /* and no pass has taken it yet */
    unsigned ports; /* the model's */
    ws_trace_out *actual_out; /* out<P>.pcap; NULL in a rerun */
    frame_list act[WS_SIM_MAX_PORTS];
    uint64_t *in_done; /* cycle at which input i was wholly in, 0 not yet */
    size_t done[WS_SIM_MAX_PORTS], pushed[WS_SIM_MAX_PORTS], n_done;
    uint64_t act_total, last_output_cycle, start_cycle;
    ws_progress prog;
} run;

/* Move every collected egress frame into act[] (and out<P>.pcap). */
static int collect(run *r)
{
    for (unsigned p = 0; p < r->ports; p++) {
        const uint8_t *data;
        size_t len;
        uint64_t cyc;
        while (ws_session_pop(r->sim, p, &data, &len, &cyc) == 1) {
            uint64_t ts = (uint64_t)((double)cyc * r->ns_per_cycle);
            if (list_add(&r->act[p], data, len, ts)) {
                snprintf(r->err, r->errlen, "out of memory");
                return -1;
            }
            r->act[p].f[r->act[p].n - 1].cycle = cyc;
            r->act_total++;
            if (r->actual_out && ws_trace_write(r->actual_out, p, ts, data, len, r->err, r->errlen))
                return -1;
            r->last_output_cycle = cyc;
        }
    }
    return 0;
}

/* Note the cycle at which each pushed input has gone wholly into the model (frames of a port
 * go in in order). */
static void note_inputs_done(run *r)
{
    uint64_t now = ws_session_cycle(r->sim);
    for (unsigned p = 0; p < r->cfg.n_ports; p++) {
        size_t in = r->pushed[p] - ws_session_pending(r->sim, p);
        while (r->done[p] < in) {
            r->in_done[r->by_port[r->port_off[p] + r->done[p]]] = now;
            r->done[p]++;
            r->n_done++;
        }
    }
}

static void show_progress(run *r)
{
    double total = (double)r->inputs.n + (double)r->exp_total;
    ws_progress_show(&r->prog, total > 0 ? ((double)r->n_done + (double)r->act_total) / total : 1,
                     "cycle %llu, %zu of %zu frames in, %llu of %llu out",
                     (unsigned long long)ws_session_cycle(r->sim), r->n_done, r->inputs.n,
                     (unsigned long long)r->act_total, (unsigned long long)r->exp_total);
}

static int step(run *r, uint64_t cycles)
{
    if (ws_session_run(r->sim, cycles)) {
        snprintf(r->err, r->errlen, "model: %s", ws_session_error(r->sim));
        return -1;
    }
    note_inputs_done(r);
    return collect(r);
}

static void pass_free(run *r)
{
    ws_trace_finish(r->actual_out, NULL, 0);
    r->actual_out = NULL;
    ws_session_free(r->sim);
    r->sim = NULL;
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        list_free(&r->act[p]);
    free(r->in_done);
    r->in_done = NULL;
}

/* One pass: a new model, configured, fed every input in global order, drained. With
 * write_out, out<P>.pcap is written. With trace, the cycles from..to are dumped there; with
 * stop (a cycle), the pass ends once the model has reached it. 0, or -1 and err. */
static int pass(run *r, int write_out, const char *trace, uint64_t from, uint64_t to,
                uint64_t stop)
{
    const ws_replay_opts *o = r->o;
    char *err = r->err;
    size_t errlen = r->errlen;
    memset(r->done, 0, sizeof r->done);
    memset(r->pushed, 0, sizeof r->pushed);
    r->n_done = 0;
    r->act_total = 0;
    r->in_done = calloc(r->inputs.n + 1, sizeof *r->in_done);
    if (!r->in_done) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* the first pass takes the model load() opened; a pass that dumps no trace takes the model
     * built without tracing, if there is one */
    ws_session_opts so = {o->icarus ? WS_DEVICE_ICARUS : WS_DEVICE_VERILATOR, o->width,
                          trace != NULL};
    if (r->sim && (!r->sim_fresh || r->sim_traced != so.traced)) {
        ws_session_free(r->sim);
        r->sim = NULL;
    }
    r->sim_fresh = 0;
    ws_dev_params dp;
    /* a new model goes through the same register reads as load()'s, so that every pass starts
     * at the same cycle (the waveform re-run reproduces the first pass cycle for cycle) */
    if (!r->sim && (!(r->sim = ws_session_open(&so, err, errlen)) ||
                    ws_session_open_driver(r->sim, &dp, err, errlen)))
        return -1;
    r->ports = ws_session_ports(r->sim);
    if (r->cfg.n_ports > r->ports || r->ports > WS_SIM_MAX_PORTS) {
        snprintf(err, errlen, "%s/job.ini: %u ports, but the model has %u", r->dir,
                 r->cfg.n_ports, r->ports);
        return -1;
    }
    if (ws_session_configure(r->sim, &r->cfg, err, errlen))
        return -1;
    /* frames enter in the session's global order (wiresum/session.h) */
    ws_sim_stress st = {o->idle_pct, o->bp_pct, o->seed};
    ws_sim_set_stress(ws_session_sim(r->sim), &st);
    if (write_out) {
        r->actual_out = ws_trace_create(r->dir, "out", r->cfg.n_ports, 1, err, errlen);
        if (!r->actual_out)
            return -1;
    }
    if (trace && ws_sim_trace_open(ws_session_sim(r->sim), trace, from, to, err, errlen))
        return -1;
    r->start_cycle = ws_session_cycle(r->sim);
    uint64_t n = r->inputs.n;
    /* stalls stretch the run: a beat takes 100/(100-PCT) cycles on average; the quiet window
     * that ends the drain stretches with the egress stalls */
    double stretch = 100.0 / (100 - (o->idle_pct < 100 ? o->idle_pct : 99)) * 100.0 /
                     (100 - (o->bp_pct < 100 ? o->bp_pct : 99));
    uint64_t limit = o->max_cycles ? o->max_cycles
                                   : (uint64_t)((1000000.0 + 64.0 * n + 40.0 * (n ? n : 1) * 64) *
                                                stretch);
    /* the session's drain constants, times 100/(100-PCT) with --backpressure PCT */
    uint64_t quiet_all_in =
        WS_SESSION_QUIET_ALL_IN * 100 / (100 - (o->bp_pct < 100 ? o->bp_pct : 99));
    uint64_t quiet_short = WS_SESSION_QUIET * 100 / (100 - (o->bp_pct < 100 ? o->bp_pct : 99));
    char why_limit[200];
    if (o->max_cycles)
        snprintf(why_limit, sizeof why_limit, "--max-cycles %llu", (unsigned long long)limit);
    else
        snprintf(why_limit, sizeof why_limit, "the default limit for %llu frames%s%s; "
                 "--max-cycles sets another", (unsigned long long)n,
                 o->idle_pct || o->bp_pct ? ", stretched for " : "",
                 o->idle_pct && o->bp_pct ? "--idle and --backpressure"
                 : o->idle_pct ? "--idle" : o->bp_pct ? "--backpressure" : "");
    uint64_t polls = 0;
    for (size_t i = 0; i < r->inputs.n; i++) {
        unsigned p = r->inputs.f[i].port;
        while (!ws_session_ready(r->sim, p)) {
            if (step(r, 1))
                return -1;
            if (stop && ws_session_cycle(r->sim) >= stop)
                return 0;
            if (ws_session_cycle(r->sim) - r->start_cycle > limit) {
                snprintf(err, errlen, "%s/in%u.pcap: frame %llu (input %zu of %zu in global "
                         "order) not taken by the model after %llu cycles (%s)",
                         r->dir, p, (unsigned long long)r->inputs.f[i].index, i + 1,
                         r->inputs.n, (unsigned long long)limit, why_limit);
                return -1;
            }
            if ((++polls & 1023) == 0 && ws_progress_due(&r->prog))
                show_progress(r);
        }
        if (ws_session_push(r->sim, p, r->inputs.f[i].data, r->inputs.f[i].len)) {
            snprintf(err, errlen, "%s/in%u.pcap: frame %llu: %s", r->dir, p,
                     (unsigned long long)r->inputs.f[i].index, ws_session_error(r->sim));
            return -1;
        }
        r->pushed[p]++;
    }
    /* drain: everything in, then quiet (cycle by cycle while inputs are going in, so that
     * their cycles are exact) */
    r->last_output_cycle = ws_session_cycle(r->sim);
    for (;;) {
        if (step(r, r->n_done < r->inputs.n ? 1 : 64))
            return -1;
        if (stop && ws_session_cycle(r->sim) >= stop)
            return 0;
        int short_of = 0;
        for (unsigned p = 0; p < r->ports; p++)
            short_of |= r->act[p].n < r->exp[p].n;
        uint64_t now = ws_session_cycle(r->sim);
        if (!ws_session_busy(r->sim) &&
            now - r->last_output_cycle > (short_of ? quiet_short : quiet_all_in))
            break;
        if (now - r->start_cycle > limit) {
            snprintf(err, errlen, "model did not finish within %llu cycles (%s): "
                     "%zu of %zu frames in, %llu of %llu expected frames out",
                     (unsigned long long)limit, why_limit, r->n_done, r->inputs.n,
                     (unsigned long long)r->act_total, (unsigned long long)r->exp_total);
            return -1;
        }
        if ((++polls & 15) == 0 && ws_progress_due(&r->prog))
            show_progress(r);
    }
    return 0;
}

/* ---- comparison ------------------------------------------------------------------------- */

/* The first mismatching frame, in time: what to trace around. */
typedef struct {
    uint64_t cycle;   /* NEVER: none */
    int kind;         /* 0 an RTL frame (port, index), 1 an input wholly in (input) */
    unsigned port;
    size_t index;     /* 0-based in act[port] */
    size_t input;
    char what[400];   /* the frame, and what its cycle is */
} first_mismatch;

typedef struct {
    run *r;
    const ws_config *cfg;
    ws_trace_out *mis_exp, *mis_act, *mis_extra;
    uint64_t mismatches, reported;
    first_mismatch first;
    FILE *out;
    char err[512];
    int failed;
} comparer;

static void describe(const comparer *c, const frame *f, char *buf, size_t n)
{
    if (is_result(c->cfg, f)) {
        ws_hdr h;
        ws_parse(f->data, &h);
        snprintf(buf, n, "%s job %u rank %u slot %u set %u offset %u count %u%s",
                 h.type == WS_TYPE_PARTIAL ? "PARTIAL" : "RESULT", h.job, h.worker, h.slot,
                 h.flags & WS_FLAG_SET, h.offset, h.count,
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

/* A mismatch of an RTL frame (a different or an extra one): its last beat's cycle. */
static void first_actual(comparer *c, unsigned port, const char *cls, size_t i, const frame *a,
                         const char *how)
{
    if (a->cycle >= c->first.cycle)
        return;
    c->first = (first_mismatch){.cycle = a->cycle, .kind = 0, .port = port, .index = a->index - 1};
    snprintf(c->first.what, sizeof c->first.what,
             "port %u, %s #%zu (%s): out%u.pcap frame %llu, its last beat at cycle %llu", port,
             cls, i + 1, how, port, (unsigned long long)a->index, (unsigned long long)a->cycle);
}

/* A missing frame: the cycle at which the input that made the reference send it was wholly in
 * the model; if that is not known (expected<P>.pcap from elsewhere), the last beat of the last
 * frame of its class the RTL did send on the port, or the last input wholly in. */
static void first_missing(comparer *c, unsigned port, const char *cls, size_t i, const frame *e,
                          frame **act, size_t na)
{
    run *r = c->r;
    size_t k = e->cause;
    if (k != NO_CAUSE && k < r->inputs.n && r->in_done[k]) {
        if (r->in_done[k] >= c->first.cycle)
            return;
        c->first = (first_mismatch){.cycle = r->in_done[k], .kind = 1, .input = k};
        snprintf(c->first.what, sizeof c->first.what,
                 "port %u, %s #%zu (missing): expected%u.pcap frame %llu, caused by in%u.pcap "
                 "frame %llu, wholly in at cycle %llu", port, cls, i + 1, port,
                 (unsigned long long)e->index, r->inputs.f[k].port,
                 (unsigned long long)r->inputs.f[k].index, (unsigned long long)r->in_done[k]);
        return;
    }
    if (na > 0) {
        const frame *a = act[na - 1];
        if (a->cycle >= c->first.cycle)
            return;
        c->first = (first_mismatch){.cycle = a->cycle, .kind = 0, .port = port,
                                    .index = a->index - 1};
        snprintf(c->first.what, sizeof c->first.what,
                 "port %u, %s #%zu (missing): expected%u.pcap frame %llu; the last %s the RTL "
                 "sent on the port, out%u.pcap frame %llu, ended at cycle %llu", port, cls, i + 1,
                 port, (unsigned long long)e->index, cls, port, (unsigned long long)a->index,
                 (unsigned long long)a->cycle);
        return;
    }
    for (size_t j = r->inputs.n; j-- > 0;)
        if (r->in_done[j]) {
            if (r->in_done[j] < c->first.cycle) {
                c->first = (first_mismatch){.cycle = r->in_done[j], .kind = 1, .input = j};
                snprintf(c->first.what, sizeof c->first.what,
                         "port %u, %s #%zu (missing): expected%u.pcap frame %llu; the last "
                         "input, in%u.pcap frame %llu, was wholly in at cycle %llu", port, cls,
                         i + 1, port, (unsigned long long)e->index, r->inputs.f[j].port,
                         (unsigned long long)r->inputs.f[j].index,
                         (unsigned long long)r->in_done[j]);
            }
            return;
        }
}

/* The fields of an aggregation frame's headers (docs/protocol.md), to name what differs. */
static const struct {
    unsigned off, len;
    const char *name;
} agg_fields[] = {
    {0, 6, "destination MAC"}, {6, 6, "source MAC"}, {12, 2, "EtherType"},
    {14, 1, "IPv4 version and header length"}, {15, 1, "IPv4 DSCP and ECN"},
    {16, 2, "IPv4 total length"}, {18, 2, "IPv4 id"}, {20, 2, "IPv4 flags and fragment offset"},
    {22, 1, "IPv4 TTL"}, {23, 1, "IPv4 protocol"}, {24, 2, "IPv4 header checksum"},
    {26, 4, "IPv4 source address"}, {30, 4, "IPv4 destination address"},
    {34, 2, "UDP source port"}, {36, 2, "UDP destination port"}, {38, 2, "UDP length"},
    {40, 2, "UDP checksum"}, {42, 1, "header field version and type"},
    {43, 1, "header field dtype"}, {44, 1, "header field flags"},
    {45, 1, "header field reserved"}, {46, 2, "header field job"},
    {48, 2, "header field worker"}, {50, 2, "header field slot"},
    {52, 2, "header field count"}, {54, 4, "header field offset"},
    {58, 4, "header field tensor"}, {62, 2, "header field ext"}};
#define MAX_ELEM_REPORTS 8 /* differing elements listed for one frame; the rest are counted */

static uint64_t field_value(const uint8_t *f, unsigned off, unsigned len)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < len; k++)
        v = v << 8 | f[off + k];
    return v;
}

/* What differs between an expected and an RTL aggregation frame, by name, after head (the
 * frames): the length, every header field and checksum, and the elements of a RESULT, each
 * with both values as float and hex (up to MAX_ELEM_REPORTS, then how many more). A wrong sum
 * changes the UDP checksum too; naming fields rather than the first differing byte keeps the
 * elements in the report. Bytes no field covers (a PARTIAL's records, trailing bytes): the
 * first that differs. */
static void report_agg_diff(FILE *out, const char *head, const frame *e, const frame *a)
{
    char what[1024];
    size_t n = 0;
    what[0] = 0;
#define WHAT(...) \
    (n < sizeof what ? (n += (size_t)snprintf(what + n, sizeof what - n, __VA_ARGS__)) : n)
    if (e->len != a->len)
        WHAT("%slength differs (expected %zu bytes, RTL %zu)", n ? ", " : "", e->len, a->len);
    for (size_t i = 0; i < sizeof agg_fields / sizeof agg_fields[0]; i++) {
        unsigned off = agg_fields[i].off, len = agg_fields[i].len;
        uint64_t x = field_value(e->data, off, len), y = field_value(a->data, off, len);
        if (x != y)
            WHAT("%s%s differs (expected 0x%0*llx, RTL 0x%0*llx)", n ? ", " : "",
                 agg_fields[i].name, (int)(2 * len), (unsigned long long)x, (int)(2 * len),
                 (unsigned long long)y);
    }
    size_t shorter = e->len < a->len ? e->len : a->len, elems = 0, differ = 0;
    int result = (e->data[WS_OFF_AGG] & 0x0f) == WS_TYPE_RESULT &&
                 (a->data[WS_OFF_AGG] & 0x0f) == WS_TYPE_RESULT;
    if (result) {
        elems = ws_get16(e->data + WS_OFF_AGG + 10);
        if (elems > (shorter - WS_OFF_ELEMS) / 4)
            elems = (shorter - WS_OFF_ELEMS) / 4;
        for (size_t i = 0; i < elems; i++)
            differ += ws_elem(e->data, (unsigned)i) != ws_elem(a->data, (unsigned)i);
        if (differ)
            WHAT("%s%zu element%s differ%s", n ? ", " : "", differ, differ == 1 ? "" : "s",
                 differ == 1 ? "s" : "");
    }
    size_t at = WS_OFF_ELEMS + 4 * elems;
    while (at < shorter && e->data[at] == a->data[at])
        at++;
    if (at < shorter || !n)
        WHAT("%sfirst difference at byte %zu%s", n ? ", " : "", at,
             n ? " (after the elements)" : "");
#undef WHAT
    fprintf(out, "%s: %s\n", head, what);
    uint32_t offset = ws_get32(e->data + WS_OFF_AGG + 12);
    size_t listed = 0;
    for (size_t i = 0; i < elems && listed < MAX_ELEM_REPORTS; i++) {
        uint32_t x = ws_elem(e->data, (unsigned)i), y = ws_elem(a->data, (unsigned)i);
        if (x == y)
            continue;
        listed++;
        fprintf(out, "  element %zu (tensor element %llu): expected %.9g (0x%08x), RTL %.9g "
                "(0x%08x)\n", i, (unsigned long long)offset + i, (double)ws_f32_from_bits(x), x,
                (double)ws_f32_from_bits(y), y);
    }
    if (differ > listed)
        fprintf(out, "  and %zu more elements differ\n", differ - listed);
}

/* Compare the subsequences of expected and actual frames of one stream on one port, in order.
 * in_order: the frames are what is left of a stream after matching (compare_port): an equal
 * pair there is a frame that left out of its stream's order. */
static void compare_class(comparer *c, unsigned port, const char *cls, frame **exp, size_t ne,
                          frame **act, size_t na, int in_order)
{
    size_t n = ne < na ? ne : na;
    for (size_t i = 0; i < n; i++) {
        int same = exp[i]->len == act[i]->len && !memcmp(exp[i]->data, act[i]->data, exp[i]->len);
        if (same && !in_order)
            continue;
        c->mismatches++;
        put(c, c->mis_exp, port, exp[i]);
        put(c, c->mis_act, port, act[i]);
        first_actual(c, port, cls, i, act[i], same ? "out of order" : "different");
        if (c->reported++ < MAX_REPORTS) {
            char d1[160], d2[160];
            describe(c, exp[i], d1, sizeof d1);
            describe(c, act[i], d2, sizeof d2);
            size_t at = 0;
            while (at < exp[i]->len && at < act[i]->len && exp[i]->data[at] == act[i]->data[at])
                at++;
            if (same)
                fprintf(c->out,
                        "out of order: port %u, %s: expected%u.pcap frame %llu (%s) left as "
                        "out%u.pcap frame %llu (cycle %llu), after frames expected after it\n",
                        port, cls, port, (unsigned long long)exp[i]->index, d1, port,
                        (unsigned long long)act[i]->index, (unsigned long long)act[i]->cycle);
            else {
                char head[600];
                snprintf(head, sizeof head,
                         "mismatch: port %u, %s #%zu: expected%u.pcap frame %llu (%s), out%u.pcap "
                         "frame %llu (%s, cycle %llu)",
                         port, cls, i + 1, port, (unsigned long long)exp[i]->index, d1, port,
                         (unsigned long long)act[i]->index, d2,
                         (unsigned long long)act[i]->cycle);
                if (is_result(c->cfg, exp[i]) && is_result(c->cfg, act[i]))
                    report_agg_diff(c->out, head, exp[i], act[i]);
                else
                    fprintf(c->out, "%s, first difference at byte %zu\n", head, at);
            }
        }
    }
    for (size_t i = n; i < ne; i++) {
        c->mismatches++;
        put(c, c->mis_exp, port, exp[i]);
        first_missing(c, port, cls, i, exp[i], act, na);
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
        first_actual(c, port, cls, i, act[i], "extra");
        if (c->reported++ < MAX_REPORTS) {
            char d[160];
            describe(c, act[i], d, sizeof d);
            fprintf(c->out, "extra: port %u, %s #%zu: out%u.pcap frame %llu (%s, cycle %llu)\n",
                    port, cls, i + 1, port, (unsigned long long)act[i]->index, d,
                    (unsigned long long)act[i]->cycle);
        }
    }
}

/* The stream of a frame on an egress port: what the device keeps in order (docs/protocol.md,
 * "Order"). A RESULT's stream is its member (job, rank), read from the frame; a bypass frame's
 * is its ingress port, known for a reference frame from its cause (the input that made it);
 * a reference frame of unknown cause (expected<P>.pcap from elsewhere) is in a stream of its
 * own, UNKNOWN_PORT. */
#define UNKNOWN_PORT WS_SIM_MAX_PORTS
static uint32_t member_of(const frame *f)
{
    ws_hdr h;
    ws_parse(f->data, &h);
    return (uint32_t)h.job << 16 | (uint32_t)h.worker;
}

static unsigned ingress_of(const run *r, const frame *e)
{
    return e->cause != NO_CAUSE && e->cause < r->inputs.n ? r->inputs.f[e->cause].port
                                                          : UNKNOWN_PORT;
}

static int same_frame(const frame *a, const frame *b)
{
    return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* Whether reference frame e could be RTL frame a: its input was wholly in the model by the
 * cycle a left (frames of several ports can be byte-identical; this tells them apart). */
static int in_before(const run *r, const frame *e, const frame *a)
{
    size_t k = e->cause;
    return k == NO_CAUSE || k >= r->inputs.n || (r->in_done[k] && r->in_done[k] <= a->cycle);
}

static int by_member(const void *a, const void *b)
{
    const frame *x = *(frame *const *)a, *y = *(frame *const *)b;
    uint32_t mx = member_of(x), my = member_of(y);
    if (mx != my)
        return mx < my ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* stable: pcap order */
}

/* The RESULTs of one port, member by member, each member's in order. */
static void compare_results(comparer *c, unsigned port, frame **e, size_t ne, frame **a, size_t na)
{
    qsort(e, ne, sizeof *e, by_member);
    qsort(a, na, sizeof *a, by_member);
    size_t i = 0, j = 0;
    while (i < ne || j < na) {
        uint32_t m = i < ne && (j >= na || member_of(e[i]) <= member_of(a[j])) ? member_of(e[i])
                                                                             : member_of(a[j]);
        size_t i1 = i, j1 = j;
        while (i1 < ne && member_of(e[i1]) == m)
            i1++;
        while (j1 < na && member_of(a[j1]) == m)
            j1++;
        char cls[64];
        const frame *f0 = i < i1 ? e[i] : a[j]; /* a member takes RESULTs, a parent PARTIALs */
        snprintf(cls, sizeof cls, "%s to job %u rank %u",
                 f0->len > WS_OFF_AGG && (f0->data[WS_OFF_AGG] & 0x0f) == WS_TYPE_PARTIAL
                     ? "PARTIAL" : "RESULT", m >> 16, m & 0xffffu);
        compare_class(c, port, cls, e + i, i1 - i, a + j, j1 - j, 0);
        i = i1, j = j1;
    }
}

/* The bypass frames of one port, matched stream by stream. Each stream (ingress port) is a
 * queue of the frames the reference sent, each RTL frame must be the head of one of them, and
 * the RTL frame may leave only once its input was wholly in (in_before).
 * Frames of several ports can be byte-identical (a malformed frame sent on every port): an RTL
 * frame equal to the heads of several streams is held as a credit, not given to one of them,
 * and a stream takes a credit (one that left after its last matched frame) when its head is
 * that frame and the frame behind it is the next RTL frame, or at the end.
 * What no stream explains, and the frames owed and never matched, are compared in order, an
 * equal pair there being a frame that left out of its stream's order. */
typedef struct {
    run *r;
    frame **e, **a;
    size_t **q, *head, *count, *last; /* per stream: positions in e[], next owed, owed, last a[] */
    size_t *credit, ncredit;          /* positions in a[] */
    uint8_t *matched, *used;          /* by position in e[], in a[] */
} bypass_match;

#define NONE SIZE_MAX

/* The earliest unused credit that can be frame f, after a[after] (NONE: from the start) and
 * before a[before]. */
static size_t credit_for(const bypass_match *m, const frame *f, size_t after, size_t before)
{
    for (size_t k = 0; k < m->ncredit && m->credit[k] < before; k++) {
        size_t j = m->credit[k];
        if (!m->used[j] && (after == NONE || j > after) && same_frame(f, m->a[j]) &&
            in_before(m->r, f, m->a[j]))
            return j;
    }
    return NONE;
}

static void take(bypass_match *m, size_t s, size_t j)
{
    m->matched[m->q[s][m->head[s]++]] = 1;
    m->used[j] = 1;
    m->last[s] = j;
}

/* Whether stream s reaches a[j] through credits alone: then it takes them and a[j]. */
static int reach(bypass_match *m, size_t s, size_t j)
{
    const frame *a = m->a[j];
    size_t h = m->head[s], steps = 0, after = m->last[s];
    while (h + steps < m->count[s] && !same_frame(m->e[m->q[s][h + steps]], a))
        steps++;
    if (h + steps >= m->count[s] || !in_before(m->r, m->e[m->q[s][h + steps]], a))
        return 0;
    for (size_t k = 0; k < steps; k++) /* a dry run: distinct credits, as after only grows */
        if ((after = credit_for(m, m->e[m->q[s][h + k]], after, j)) == NONE)
            return 0;
    for (size_t k = 0; k < steps; k++)
        take(m, s, credit_for(m, m->e[m->q[s][m->head[s]]], m->last[s], j));
    take(m, s, j);
    return 1;
}

static int reach_any(bypass_match *m, size_t nstream, size_t j)
{
    for (size_t s = 0; s < nstream; s++)
        if (reach(m, s, j))
            return 1;
    return 0;
}

/* No stream reaches a[j] through credits: the one that has it nearest behind its head skips
 * the frames before it (left owed: they will be reported), so that one frame out of order is
 * one mismatch, not every later frame of its stream. */
static void resync(bypass_match *m, size_t nstream, size_t j)
{
    size_t best = NONE, best_steps = NONE;
    for (size_t s = 0; s < nstream; s++)
        for (size_t k = m->head[s]; k < m->count[s] && k - m->head[s] < best_steps; k++)
            if (same_frame(m->e[m->q[s][k]], m->a[j]) && in_before(m->r, m->e[m->q[s][k]], m->a[j])) {
                best = s, best_steps = k - m->head[s];
                break;
            }
    if (best == NONE)
        return; /* no stream has it: an extra or different frame */
    m->head[best] += best_steps;
    take(m, best, j);
}

static int compare_bypass(comparer *c, unsigned port, frame **e, size_t ne, frame **a, size_t na)
{
    size_t nstream = UNKNOWN_PORT + 1;
    bypass_match m = {.r = c->r, .e = e, .a = a};
    m.q = calloc(nstream, sizeof *m.q);
    m.head = calloc(nstream, sizeof *m.head);
    m.count = calloc(nstream, sizeof *m.count);
    m.last = malloc(nstream * sizeof *m.last);
    m.credit = malloc((na + 1) * sizeof *m.credit);
    m.matched = calloc(ne + 1, 1);
    m.used = calloc(na + 1, 1);
    frame **le = malloc((ne + 1) * sizeof *le), **la = malloc((na + 1) * sizeof *la);
    int rc = -1;
    if (!m.q || !m.head || !m.count || !m.last || !m.credit || !m.matched || !m.used || !le ||
        !la)
        goto out;
    for (size_t s = 0; s < nstream; s++)
        m.last[s] = NONE;
    for (size_t i = 0; i < ne; i++)
        m.count[ingress_of(c->r, e[i])]++;
    for (size_t s = 0; s < nstream; s++)
        if (m.count[s] && !(m.q[s] = malloc(m.count[s] * sizeof **m.q)))
            goto out;
    memset(m.count, 0, nstream * sizeof *m.count);
    for (size_t i = 0; i < ne; i++) {
        unsigned s = ingress_of(c->r, e[i]);
        m.q[s][m.count[s]++] = i;
    }
    for (size_t j = 0; j < na; j++) {
        size_t best = NONE, ties = 0;
        for (size_t s = 0; s < nstream; s++)
            if (m.head[s] < m.count[s] && same_frame(e[m.q[s][m.head[s]]], a[j]) &&
                in_before(c->r, e[m.q[s][m.head[s]]], a[j]) && ties++ == 0)
                best = s;
        if (ties == 1)
            take(&m, best, j);
        else if (ties > 1)
            m.credit[m.ncredit++] = j;
        else if (!reach_any(&m, nstream, j))
            resync(&m, nstream, j);
    }
    /* the credits left go to the streams whose heads they are */
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t s = 0; s < nstream; s++)
            for (size_t j; m.head[s] < m.count[s] &&
                           (j = credit_for(&m, e[m.q[s][m.head[s]]], m.last[s], NONE)) != NONE;
                 progress = 1)
                take(&m, s, j);
    }
    size_t nle = 0, nla = 0;
    for (size_t i = 0; i < ne; i++)
        if (!m.matched[i])
            le[nle++] = e[i];
    for (size_t j = 0; j < na; j++)
        if (!m.used[j])
            la[nla++] = a[j];
    compare_class(c, port, "bypass frame", le, nle, la, nla, 1);
    rc = 0;
out:
    if (m.q)
        for (size_t s = 0; s < nstream; s++)
            free(m.q[s]);
    free(m.q), free(m.head), free(m.count), free(m.last), free(m.credit), free(m.matched);
    free(m.used), free(le), free(la);
    return rc;
}

/* One egress port: the device keeps order within a stream only (docs/protocol.md, "Order"). */
static int compare_port(comparer *c, unsigned port, const frame_list *exp, const frame_list *act)
{
    frame **e[2], **a[2];
    size_t ne[2] = {0, 0}, na[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        e[k] = malloc((exp->n + 1) * sizeof(frame *));
        a[k] = malloc((act->n + 1) * sizeof(frame *));
    }
    int rc = -1;
    if (!e[0] || !e[1] || !a[0] || !a[1])
        goto out;
    for (size_t i = 0; i < exp->n; i++) {
        int k = is_result(c->cfg, &exp->f[i]);
        e[k][ne[k]++] = &exp->f[i];
    }
    for (size_t i = 0; i < act->n; i++) {
        int k = is_result(c->cfg, &act->f[i]);
        a[k][na[k]++] = &act->f[i];
    }
    rc = compare_bypass(c, port, e[0], ne[0], a[0], na[0]);
    compare_results(c, port, e[1], ne[1], a[1], na[1]);
out:
    for (int k = 0; k < 2; k++)
        free(e[k]), free(a[k]);
    return rc;
}

/* Frames on a port of the model that job.ini does not have: every one is extra. */
static void extra_port(comparer *c, unsigned port, const frame_list *act)
{
    for (size_t i = 0; i < act->n; i++) {
        c->mismatches++;
        first_actual(c, port, "frame", i, &act->f[i], "extra, on a port job.ini does not have");
        if (c->reported++ < MAX_REPORTS) {
            char d[160];
            describe(c, &act->f[i], d, sizeof d);
            fprintf(c->out, "extra: port %u (not in job.ini), frame #%zu (%s, cycle %llu)\n",
                    port, i + 1, d, (unsigned long long)act->f[i].cycle);
        }
    }
}

/* ---- loading the trace -------------------------------------------------------------------- */

/* expected<P>.pcap read from the file: each frame gets the cause of the first frame of the
 * reference on its port with the same bytes not already given (its own position first), so a
 * file whose frames are the reference's in another order still knows each frame's stream. */
static int give_causes(run *r, frame_list *refout)
{
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++) {
        frame_list *l = &r->exp[p], *ref = &refout[p];
        uint8_t *given = calloc(ref->n + 1, 1);
        if (!given) {
            snprintf(r->err, r->errlen, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < l->n; i++) {
            size_t k = i;
            if (!(i < ref->n && !given[i] && same_frame(&ref->f[i], &l->f[i])))
                for (k = 0; k < ref->n && (given[k] || !same_frame(&ref->f[k], &l->f[i])); k++)
                    ;
            if (k < ref->n) {
                given[k] = 1;
                l->f[i].cause = ref->f[k].cause;
            }
        }
        free(given);
    }
    return 0;
}

/* The reference drops what the model's ports drop: its max_frame is the model's MAX_FRAME
 * (PARAM_MAX_FRAME); a job.ini that gives another is refused. It takes PARTIALs if the model
 * does (PARAM_PARTIAL). The model, opened here as the first pass wants it (traced if it dumps
 * a trace), stays open for that pass: one model (under Icarus, one vvp process) a pass. */
static int model_max_frame(run *r, const char *ini)
{
    ws_session_opts so = {r->o->icarus ? WS_DEVICE_ICARUS : WS_DEVICE_VERILATOR, r->o->width,
                          r->o->trace != NULL};
    if (!(r->sim = ws_session_open(&so, r->err, r->errlen)))
        return -1;
    r->sim_traced = so.traced;
    r->sim_fresh = 1;
    ws_dev_params p;
    if (ws_session_open_driver(r->sim, &p, r->err, r->errlen))
        return -1;
    if (r->cfg.max_frame && r->cfg.max_frame != p.max_frame) {
        snprintf(r->err, r->errlen, "%s: max_frame = %u, but the model was built with MAX_FRAME "
                 "= %u (WS_VFLAGS=-GMAX_FRAME=...; or leave max_frame out: the model's is "
                 "used)", ini, r->cfg.max_frame, p.max_frame);
        return -1;
    }
    r->cfg.max_frame = p.max_frame;
    /* a model that takes PARTIALs (PARAM_PARTIAL) checks RESULT and PARTIAL frames as such a
     * device does: so does the reference (a job.ini with partial = 1 on a model without it is
     * refused by the driver) */
    if (p.partial)
        r->cfg.partial = true;
    return 0;
}

/* Say before simulating which inputs the ports will drop as longer than MAX_FRAME. */
static void note_oversize(run *r)
{
    unsigned mf = ws_config_max_frame(&r->cfg);
    for (unsigned p = 0; p < r->cfg.n_ports; p++) {
        size_t n = 0, first = 0;
        for (size_t k = r->port_off[p]; k < r->port_off[p + 1]; k++) {
            const frame *f = &r->inputs.f[r->by_port[k]];
            if (f->len > mf && n++ == 0)
                first = r->by_port[k];
        }
        if (n)
            fprintf(r->out, "sim %s: in%u.pcap: %zu frame%s longer than the device's MAX_FRAME "
                    "of %u bytes (frame %llu: %zu bytes): the port drops %s (counter oversize)\n",
                    r->dir, p, n, n == 1 ? "" : "s", mf,
                    (unsigned long long)r->inputs.f[first].index, r->inputs.f[first].len,
                    n == 1 ? "it" : "them");
    }
}

/* job.ini, the inputs in global order through the reference, and expected<P>.pcap (written
 * from the reference if absent, else read, each frame given the cause of the reference's
 * frame with the same bytes). */
static int load(run *r)
{
    char path[4096];
    char *err = r->err;
    size_t errlen = r->errlen;
    snprintf(path, sizeof path, "%s/job.ini", r->dir);
    if (ws_config_load(&r->cfg, path, err, errlen))
        return -1;
    if (r->cfg.n_ports > WS_SIM_MAX_PORTS) {
        snprintf(err, errlen, "%s: %u ports; the harness takes at most %d", path, r->cfg.n_ports,
                 WS_SIM_MAX_PORTS);
        return -1;
    }
    if (model_max_frame(r, path))
        return -1;
    ws_session_opts so = {WS_DEVICE_REFERENCE, r->o->width, 0};
    r->ref = ws_session_open(&so, err, errlen);
    if (r->ref && ws_session_configure(r->ref, &r->cfg, err, errlen))
        return -1;
    ws_trace_in *in = r->ref ? ws_trace_open(r->dir, "in", r->cfg.n_ports, 1, err, errlen) : NULL;
    if (!in)
        return -1;
    frame_list refout[WS_SIM_MAX_PORTS];
    memset(refout, 0, sizeof refout);
    ws_pkt pkt;
    int got, rc = -1;
    while ((got = ws_trace_next(in, &pkt, err, errlen)) == 1) {
        if (pkt.len == 0 || pkt.len > WS_SIM_MAX_IN_FRAME) {
            snprintf(err, errlen, "%s/in%u.pcap: frame %llu: a frame of %zu bytes cannot enter "
                     "the model", r->dir, pkt.port, (unsigned long long)pkt.index, pkt.len);
            goto out;
        }
        if (list_add(&r->inputs, pkt.data, pkt.len, pkt.ts_ns))
            goto oom;
        r->inputs.f[r->inputs.n - 1].index = pkt.index;
        r->inputs.f[r->inputs.n - 1].port = pkt.port;
        /* what the reference sends for it, stamped with the input's time and number */
        if (ws_session_push(r->ref, pkt.port, pkt.data, pkt.len)) {
            snprintf(err, errlen, "%s/in%u.pcap: frame %llu: %s", r->dir, pkt.port,
                     (unsigned long long)pkt.index, ws_session_error(r->ref));
            goto out;
        }
        unsigned eg;
        const uint8_t *od;
        size_t ol;
        while (ws_session_pop_next(r->ref, WS_SIM_MAX_PORTS, &eg, &od, &ol, NULL) == 1) {
            if (list_add(&refout[eg], od, ol, pkt.ts_ns))
                goto oom;
            refout[eg].f[refout[eg].n - 1].cause = r->inputs.n - 1;
        }
    }
    if (got < 0)
        goto out;
    /* the inputs of each port, in order */
    r->by_port = malloc((r->inputs.n + 1) * sizeof *r->by_port);
    if (!r->by_port)
        goto oom;
    size_t fill[WS_SIM_MAX_PORTS + 1] = {0};
    for (size_t i = 0; i < r->inputs.n; i++)
        r->port_off[r->inputs.f[i].port + 1]++;
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        r->port_off[p + 1] += r->port_off[p];
    for (size_t i = 0; i < r->inputs.n; i++) {
        unsigned p = r->inputs.f[i].port;
        r->by_port[r->port_off[p] + fill[p]++] = i;
    }
    if (!r->o->quiet)
        note_oversize(r);

    /* expected<P>.pcap older than job.ini or an input were made from other inputs: made again */
    char why[600];
    int stale = ws_trace_stale(r->dir, "expected", why, sizeof why);
    if (stale < 0) {
        snprintf(err, errlen, "%s", why);
        goto out;
    }
    if (stale) {
        for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++) {
            snprintf(path, sizeof path, "%s/expected%u.pcap", r->dir, p);
            if (unlink(path) != 0 && errno != ENOENT) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                goto out;
            }
        }
        fprintf(r->out, "sim %s: %s: expected<P>.pcap written again from the reference\n",
                r->dir, why);
    }
    snprintf(path, sizeof path, "%s/expected0.pcap", r->dir);
    if (access(path, F_OK) != 0) {
        ws_trace_out *eo = ws_trace_create(r->dir, "expected", r->cfg.n_ports, 0, err, errlen);
        if (!eo)
            goto out;
        for (unsigned p = 0; p < r->cfg.n_ports; p++)
            for (size_t i = 0; i < refout[p].n; i++)
                if (ws_trace_write(eo, p, refout[p].f[i].ts_ns, refout[p].f[i].data,
                                   refout[p].f[i].len, err, errlen)) {
                    ws_trace_finish(eo, NULL, 0);
                    goto out;
                }
        if (ws_trace_finish(eo, err, errlen))
            goto out;
        memcpy(r->exp, refout, sizeof refout);
        memset(refout, 0, sizeof refout);
    } else {
        ws_trace_in *ei = ws_trace_open(r->dir, "expected", r->cfg.n_ports, 1, err, errlen);
        if (!ei)
            goto out;
        while ((got = ws_trace_next(ei, &pkt, err, errlen)) == 1) {
            frame_list *l = &r->exp[pkt.port];
            if (list_add(l, pkt.data, pkt.len, pkt.ts_ns)) {
                ws_trace_close(ei);
                goto oom;
            }
            l->f[l->n - 1].index = pkt.index;
        }
        ws_trace_close(ei);
        if (got < 0 || give_causes(r, refout))
            goto out;
    }
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        r->exp_total += r->exp[p].n;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        list_free(&refout[p]);
    ws_trace_close(in);
    return rc;
}

/* ---- the waveform of the first mismatch ------------------------------------------------------ */

/* Rerun up to the end of the window around the first mismatch, dumping it to DIR/mismatch.fst,
 * check that the frame came out at the same cycle again, and say how to look at it. */
static int trace_mismatch(run *r, const first_mismatch *m)
{
    const ws_replay_opts *o = r->o;
    char fst[4096];
    snprintf(fst, sizeof fst, "%s/%s", r->dir, WS_REPLAY_MISMATCH_FST);
    uint64_t from = m->cycle > o->trace_before ? m->cycle - o->trace_before : 0;
    uint64_t to = m->cycle + (o->trace_after ? o->trace_after : 1);
    ws_progress_init(&r->prog, "sim (waveform)", o->progress && !o->quiet, o->progress_tty);
    int rc = pass(r, 0, fst, from, to, to + 1);
    ws_progress_end(&r->prog, 1, "cycle %llu",
                    r->sim ? (unsigned long long)ws_session_cycle(r->sim) : 0ull);
    if (rc) {
        pass_free(r);
        return -1;
    }
    uint64_t first = r->start_cycle; /* the trace opens after configuration */
    int same = m->kind == 0
                   ? m->index < r->act[m->port].n && r->act[m->port].f[m->index].cycle == m->cycle
                   : r->in_done[m->input] == m->cycle;
    pass_free(r);
    /* the dump starts at the rising edge of cycle from (10 from - 5 ns), or, when the trace
     * opens later (after configuration), at the falling edge of the cycle it opens in */
    uint64_t t_from = from > first ? 10 * from - 5 : 10 * first;
    if (from < first)
        from = first;
    fprintf(r->out, "  waveform: %s, cycles %llu..%llu (%llu..%llu ns in the waveform)\n", fst,
            (unsigned long long)from, (unsigned long long)to, (unsigned long long)t_from,
            (unsigned long long)(10 * to));
    fprintf(r->out, "  the first mismatch is at cycle %llu = %llu ns in the waveform (rising "
            "edge; 10 ns a cycle)\n", (unsigned long long)m->cycle,
            (unsigned long long)(10 * m->cycle - 5));
    if (!same)
        fprintf(r->out, "  WARNING: the rerun did not reproduce that cycle: the run is not "
                "deterministic, the waveform may not show the frame\n");
    /* the port to show: the RTL frame's, or the ingress of the input a missing frame follows
     * (a member's DATA and its RESULTs use the same port) */
    unsigned port = m->kind == 0 ? m->port : r->inputs.f[m->input].port;
    fprintf(r->out, "  sh scripts/wave.sh %s --at %llu --port %u    (from the repository root: "
            "GTKWave with sim/wiresum.gtkw, the marker at the mismatch, port %u's ingress)\n",
            fst, (unsigned long long)(10 * m->cycle - 5), port, port);
    return same ? 0 : 1;
}

/* ---- ws_replay ---------------------------------------------------------------------------- */

static void source_text(const run *r, const char *engine, char *buf, size_t n)
{
    snprintf(buf, n, "wiresum sim: %s model, DATA_WIDTH %u, idle %u%%, backpressure %u%%, seed "
             "%llu", engine, r->o->width, r->o->idle_pct, r->o->bp_pct,
             (unsigned long long)r->o->seed);
}

int ws_replay(const char *dir, const ws_replay_opts *o, FILE *out, char *err, size_t errlen)
{
    run *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *r = (run){.dir = dir, .o = o, .out = out, .err = err, .errlen = errlen};
    r->ns_per_cycle = 1000.0 / o->clock_mhz;
    char path[4096];
    int rc = -1;
    comparer cmp = {.r = r, .out = out, .cfg = &r->cfg};
    cmp.first.cycle = NEVER;

    /* a waveform of an earlier mismatch would mislead */
    snprintf(path, sizeof path, "%s/%s", dir, WS_REPLAY_MISMATCH_FST);
    unlink(path);
    if (load(r))
        goto done;

    ws_progress_init(&r->prog, "sim", o->progress && !o->quiet, o->progress_tty);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int prc = pass(r, 1, o->trace, o->trace_from, o->trace_to, 0);
    ws_progress_end(&r->prog, 1, "cycle %llu, %zu of %zu frames in, %llu out",
                    r->sim ? (unsigned long long)ws_session_cycle(r->sim) : 0ull, r->n_done,
                    r->inputs.n, (unsigned long long)r->act_total);
    if (prc)
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t cycles =
        r->last_output_cycle > r->start_cycle ? r->last_output_cycle - r->start_cycle : 1;
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ws_sim_trace_close(ws_session_sim(r->sim));
    if (ws_trace_finish(r->actual_out, err, errlen)) {
        r->actual_out = NULL;
        goto done;
    }
    r->actual_out = NULL;

    /* compare */
    cmp.mis_exp = ws_trace_create(dir, "mismatch-expected", r->cfg.n_ports, 0, cmp.err,
                                  sizeof cmp.err);
    cmp.mis_act = ws_trace_create(dir, "mismatch-actual", r->cfg.n_ports, 1, cmp.err,
                                  sizeof cmp.err);
    cmp.mis_extra = ws_trace_create(dir, "mismatch-extra", r->cfg.n_ports, 1, cmp.err,
                                    sizeof cmp.err);
    if (!cmp.mis_exp || !cmp.mis_act || !cmp.mis_extra) {
        snprintf(err, errlen, "%s", cmp.err);
        goto done;
    }
    ws_trace_drop_empty(cmp.mis_exp);
    ws_trace_drop_empty(cmp.mis_act);
    ws_trace_drop_empty(cmp.mis_extra);
    for (unsigned p = 0; p < r->cfg.n_ports; p++)
        if (compare_port(&cmp, p, &r->exp[p], &r->act[p])) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    for (unsigned p = r->cfg.n_ports; p < r->ports; p++)
        extra_port(&cmp, p, &r->act[p]);

    /* the counters: compared, saved, shown */
    ws_counters_file cf;
    memset(&cf, 0, sizeof cf);
    if (ws_session_counters(r->sim, r->cfg.n_ports, &cf.device.c, err, errlen) ||
        ws_session_counters(r->ref, r->cfg.n_ports, &cf.reference.c, err, errlen))
        goto done;
    cf.device.present = cf.reference.present = 1;
    cf.device.ports = cf.reference.ports = r->cfg.n_ports;
    source_text(r, ws_session_engine(r->sim), cf.device.source, sizeof cf.device.source);
    snprintf(cf.reference.source, sizeof cf.reference.source,
             "software reference sim/refdev.c, the same inputs");
    int bad_ctr = (int)ws_counters_file_differ(&cf, out);
    snprintf(path, sizeof path, "%s/%s", dir, WS_COUNTERS_FILE);
    if (ws_counters_file_save(path, &cf, err, errlen))
        goto done;

    uint64_t beats_in, beats_out;
    ws_session_beats(r->sim, &beats_in, &beats_out);
    uint64_t act_frames = 0;
    for (unsigned p = 0; p < r->ports; p++)
        act_frames += r->act[p].n;
    if (!o->quiet || cmp.mismatches || bad_ctr) {
        fprintf(out,
                "sim %s: %s, width %u, %llu cycles, cycle %llu to %llu (%.3f ms at %.0f MHz), "
                "%llu beats in (utilization %.3f), %llu beats out\n",
                dir, ws_session_engine(r->sim), o->width, (unsigned long long)cycles,
                (unsigned long long)r->start_cycle,
                (unsigned long long)(r->start_cycle + cycles),
                (double)cycles * r->ns_per_cycle * 1e-6, o->clock_mhz,
                (unsigned long long)beats_in, (double)beats_in / (double)cycles,
                (unsigned long long)beats_out);
        char ovs[80] = "";
        if (cf.device.c.oversize)
            snprintf(ovs, sizeof ovs, " (%llu oversize, dropped by the ports)",
                     (unsigned long long)cf.device.c.oversize);
        fprintf(out,
                "  frames: %zu in%s, %llu out, %llu expected; %llu mismatches, %d counters differ; "
                "%.0f cycles/s\n",
                r->inputs.n, ovs, (unsigned long long)act_frames, (unsigned long long)r->exp_total,
                (unsigned long long)cmp.mismatches, bad_ctr,
                secs > 0 ? (double)(ws_session_cycle(r->sim) - r->start_cycle) / secs : 0.0);
        if (cmp.mismatches)
            fprintf(out, "  mismatching frames in %s/mismatch-{expected,actual,extra}<P>.pcap\n",
                    dir);
        if (cmp.first.cycle != NEVER)
            fprintf(out, "  first mismatch in time: %s\n", cmp.first.what);
        fprintf(out, "  counters in %s (wiresum counters %s)\n", path, dir);
    }
    if (o->counters)
        ws_counters_file_table(out, &cf);
    rc = (cmp.mismatches || bad_ctr) ? 1 : 0;
    if (o->json) {
        double cps = secs > 0 ? (double)(ws_session_cycle(r->sim) - r->start_cycle) / secs : 0.0;
        json_t *js = json_pack(
            "{s:s, s:s, s:s, s:i, s:I, s:f, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:i, s:f, s:s?, "
            "s:s, s:o, s:o, s:b}",
            "command", "sim", "dir", dir, "simulator", ws_session_engine(r->sim),
            "width", (int)o->width, "cycles", (json_int_t)cycles, "clock_mhz", o->clock_mhz,
            "beats_in", (json_int_t)beats_in, "beats_out", (json_int_t)beats_out,
            "utilization", (double)beats_in / (double)cycles,
            "frames_in", (json_int_t)r->inputs.n, "frames_out", (json_int_t)act_frames,
            "frames_expected", (json_int_t)r->exp_total, "mismatches", (json_int_t)cmp.mismatches,
            "counters_differ", bad_ctr, "cycles_per_second", cps,
            "first_mismatch", cmp.first.cycle != NEVER ? cmp.first.what : NULL,
            "counters_file", path, "device", ws_json_counters(&cf.device.c, r->cfg.n_ports),
            "reference", ws_json_counters(&cf.reference.c, r->cfg.n_ports), "ok", rc == 0);
        if (ws_json_print(js, stdout, "sim")) {
            snprintf(err, errlen, "%s: the JSON summary was not written", dir);
            rc = -1;
        }
    }
    pass_free(r);
    if (o->trace_on_mismatch && rc) {
        if (cmp.first.cycle == NEVER)
            fprintf(out, "  no mismatching frame (the counters differ): no waveform written\n");
        else if (trace_mismatch(r, &cmp.first) < 0)
            rc = -1;
    }
done:
    if (ws_trace_finish(cmp.mis_exp, cmp.err, sizeof cmp.err) |
        ws_trace_finish(cmp.mis_act, cmp.err, sizeof cmp.err) |
        ws_trace_finish(cmp.mis_extra, cmp.err, sizeof cmp.err))
        if (rc == 0) {
            snprintf(err, errlen, "%s", cmp.err);
            rc = -1;
        }
    pass_free(r);
    ws_session_free(r->ref);
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        list_free(&r->exp[p]);
    list_free(&r->inputs);
    free(r->by_port);
    free(r);
    return rc;
}
