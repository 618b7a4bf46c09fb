/* session.c - one device session over the reference and the models (wiresum/session.h). */
#include "wiresum/session.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/refdev.h"
#include "ws_grow.h"

/* ---- the reference's frames: in the order sent, each with its port and cycle -------------- */

typedef struct {
    uint8_t *data;
    size_t len;
    unsigned port;
    uint64_t cycle;
    int taken;
} ref_frame;

typedef struct {
    uint64_t *c;
    size_t head, n, cap;
} stamp_queue;

struct ws_session {
    ws_device_kind kind;
    unsigned width, bytes;
    char err[512];
    int failed;
    /* the models */
    ws_sim *sim;
    unsigned prev_port; /* the port of the previous push: the global order */
    /* the reference and its timing model */
    ws_refdev *ref;
    uint64_t now, busy, free_at[WS_SIM_MAX_PORTS], beats_in, beats_out;
    ref_frame *q;
    size_t qn, qcap, qhead, port_head[WS_SIM_MAX_PORTS];
    uint8_t *popped[WS_SIM_MAX_PORTS]; /* the data of each port's last popped frame */
    int stamps;
    stamp_queue done[WS_SIM_MAX_PORTS];
    /* a model's frame popped from its port but not yet handed out by ws_session_pop_next */
    struct {
        int have;
        const uint8_t *f;
        size_t len;
        uint64_t cycle;
    } head[WS_SIM_MAX_PORTS];
    /* the time line: cycle at its start, cycles skipped, last activity, beats seen then */
    uint64_t line_c0, line_skipped, line_act, line_beats;
};

static void set_err(ws_session *s, const char *fmt, ...)
{
    if (s->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    s->failed = 1;
}

static const char *const kind_names[] = {"ref", "verilator", "icarus"};

const char *ws_device_kind_name(ws_device_kind kind)
{
    return (unsigned)kind < 3 ? kind_names[kind] : NULL;
}

int ws_device_kind_parse(const char *name, ws_device_kind *kind)
{
    for (unsigned k = 0; k < 3; k++)
        if (!strcmp(name, kind_names[k])) {
            *kind = (ws_device_kind)k;
            return 0;
        }
    if (!strcmp(name, "reference")) {
        *kind = WS_DEVICE_REFERENCE;
        return 0;
    }
    return -1;
}

ws_session *ws_session_open(const ws_session_opts *o, char *err, size_t errlen)
{
    if (o->width != 256 && o->width != 512 && o->width != 1024) {
        snprintf(err, errlen, "DATA_WIDTH %u: the device is built at 256, 512 or 1024 bits",
                 o->width);
        return NULL;
    }
    if (o->kind != WS_DEVICE_REFERENCE && o->kind != WS_DEVICE_VERILATOR &&
        o->kind != WS_DEVICE_ICARUS) {
        snprintf(err, errlen, "device kind %d: no such device", (int)o->kind);
        return NULL;
    }
    if (o->kind != WS_DEVICE_REFERENCE && ws_sim_widths(NULL, 0) == 0) {
        snprintf(err, errlen, "%s device: this build has no RTL model (%s was missing when it "
                 "was built); only the software reference can be opened",
                 ws_device_kind_name(o->kind), "hw/wiresum_top.f");
        return NULL;
    }
    ws_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->kind = o->kind;
    s->width = o->width;
    s->bytes = o->width / 8;
    if (o->kind != WS_DEVICE_REFERENCE) {
        ws_sim_engine e = o->kind == WS_DEVICE_ICARUS ? WS_SIM_ICARUS : WS_SIM_VERILATOR;
        s->sim = o->traced ? ws_sim_new_engine(e, o->width, err, errlen)
                           : ws_sim_new_untraced(e, o->width, err, errlen);
        if (!s->sim) {
            free(s);
            return NULL;
        }
    }
    return s;
}

void ws_session_free(ws_session *s)
{
    if (!s)
        return;
    ws_sim_free(s->sim);
    ws_refdev_free(s->ref);
    for (size_t i = 0; i < s->qn; i++)
        free(s->q[i].data);
    free(s->q);
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++) {
        free(s->popped[p]);
        free(s->done[p].c);
    }
    free(s);
}

void ws_session_reset(ws_session *s)
{
    if (s->sim)
        ws_sim_reset(s->sim);
    s->prev_port = 0;
    memset(s->head, 0, sizeof s->head);
    ws_refdev_free(s->ref);
    s->ref = NULL;
    for (size_t i = 0; i < s->qn; i++)
        free(s->q[i].data);
    s->qn = s->qhead = 0;
    memset(s->port_head, 0, sizeof s->port_head);
    s->busy = s->beats_in = s->beats_out = 0;
    memset(s->free_at, 0, sizeof s->free_at);
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        s->done[p].head = s->done[p].n = 0;
    s->failed = 0;
    s->err[0] = 0;
}

ws_device_kind ws_session_kind(const ws_session *s) { return s->kind; }
int ws_session_clocked(const ws_session *s) { return s->sim != NULL; }
unsigned ws_session_width(const ws_session *s) { return s->width; }
ws_sim *ws_session_sim(ws_session *s) { return s->sim; }

const char *ws_session_engine(const ws_session *s)
{
    return s->sim ? ws_sim_engine_name(s->sim) : "reference";
}

unsigned ws_session_ports(const ws_session *s)
{
    if (s->sim)
        return ws_sim_ports(s->sim);
    return s->ref ? ws_refdev_config(s->ref)->n_ports : WS_LIMIT_PORTS;
}

/* ---- the register bus and the configuration -------------------------------------------- */

static int bus_write(void *ctx, uint32_t addr, uint32_t data)
{
    ws_session *s = ctx;
    return s->sim ? ws_sim_reg_write(s->sim, addr, data) : -1;
}

static int bus_read(void *ctx, uint32_t addr, uint32_t *data)
{
    ws_session *s = ctx;
    if (!s->sim) {
        *data = 0;
        return -1;
    }
    return ws_sim_reg_read(s->sim, addr, data);
}

ws_regbus ws_session_bus(ws_session *s) { return (ws_regbus){bus_write, bus_read, s}; }

int ws_session_open_driver(ws_session *s, ws_dev_params *p, char *err, size_t errlen)
{
    if (!s->sim) {
        /* the reference: the software limits, and the default device's MAX_FRAME (its
         * configuration's max_frame decides, ws_config_max_frame); it takes PARTIALs */
        *p = (ws_dev_params){s->width, WS_LIMIT_PORTS, WS_LIMIT_JOBS, WS_LIMIT_WORKERS,
                             WS_LIMIT_SLOTS, WS_LIMIT_COUNT, 1, WS_DEFAULT_MAX_FRAME, 1};
        return 0;
    }
    ws_regbus bus = ws_session_bus(s);
    return ws_dev_open(&bus, p, err, errlen) || ws_dev_reset(&bus, p, err, errlen) ? -1 : 0;
}

int ws_session_configure(ws_session *s, const ws_config *cfg, char *err, size_t errlen)
{
    if (s->sim) {
        ws_regbus bus = ws_session_bus(s);
        return ws_dev_configure(&bus, cfg, err, errlen);
    }
    if (cfg->n_ports > WS_SIM_MAX_PORTS) {
        snprintf(err, errlen, "%u ports; a session takes at most %d", cfg->n_ports,
                 WS_SIM_MAX_PORTS);
        return -1;
    }
    ws_refdev *d = ws_refdev_new(cfg, err, errlen);
    if (!d)
        return -1;
    ws_refdev_free(s->ref);
    s->ref = d;
    return 0;
}

/* ---- frames in ---------------------------------------------------------------------------- */

int ws_session_ready(const ws_session *s, unsigned port)
{
    if (!s->sim)
        return 1;
    unsigned q = s->prev_port;
    return !(ws_sim_pending(s->sim, port) >= 2 || (port != q && ws_sim_pending(s->sim, q) > 0));
}

static int stamp_add(stamp_queue *q, uint64_t c)
{
    if (q->head == q->n)
        q->head = q->n = 0;
    uint64_t *nc = ws_grow(q->c, &q->cap, q->n + 1, sizeof *nc, 64);
    if (!nc)
        return -1;
    q->c = nc;
    q->c[q->n++] = c;
    return 0;
}

/* The reference sends a frame: on its egress port after the pipeline, when the port is free. */
static void ref_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    ws_session *s = ctx;
    uint64_t beats = (len + s->bytes - 1) / s->bytes;
    uint64_t t = s->busy + WS_SESSION_REF_PIPE;
    if (s->free_at[egress] > t)
        t = s->free_at[egress];
    t += beats;
    s->free_at[egress] = t;
    s->beats_out += beats;
    ref_frame *nq = ws_grow(s->q, &s->qcap, s->qn + 1, sizeof *nq, 64);
    if (!nq) {
        set_err(s, "out of memory");
        return;
    }
    s->q = nq;
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) {
        set_err(s, "out of memory");
        return;
    }
    memcpy(copy, f, len);
    s->q[s->qn++] = (ref_frame){copy, len, egress, t, 0};
}

int ws_session_push(ws_session *s, unsigned port, const uint8_t *frame, size_t len)
{
    if (s->sim) {
        if (ws_sim_push(s->sim, port, frame, len)) {
            set_err(s, "a frame of %zu bytes refused on port %u", len, port);
            return -1;
        }
        s->prev_port = port;
        s->line_act = ws_session_line_now(s);
        return 0;
    }
    if (!s->ref) {
        set_err(s, "the reference is not configured (ws_session_configure)");
        return -1;
    }
    if (port >= ws_refdev_config(s->ref)->n_ports) { /* any length: the reference judges it */
        set_err(s, "a frame of %zu bytes refused on port %u", len, port);
        return -1;
    }
    uint64_t start = s->busy > s->now ? s->busy : s->now;
    uint64_t beats = (len + s->bytes - 1) / s->bytes;
    s->busy = start + beats;
    s->beats_in += beats;
    if (s->stamps && stamp_add(&s->done[port], s->busy)) {
        set_err(s, "out of memory");
        return -1;
    }
    ws_refdev_rx(s->ref, port, frame, len, ref_emit, s);
    return s->failed ? -1 : 0;
}

size_t ws_session_pending(const ws_session *s, unsigned port)
{
    return s->sim ? ws_sim_pending(s->sim, port) : 0;
}

int ws_session_busy(const ws_session *s)
{
    if (!s->sim)
        return 0;
    for (unsigned p = 0; p < ws_sim_ports(s->sim); p++)
        if (ws_sim_pending(s->sim, p))
            return 1;
    return 0;
}

int ws_session_run(ws_session *s, uint64_t cycles)
{
    if (!s->sim) {
        s->now += cycles;
        return s->failed ? -1 : 0;
    }
    ws_sim_run(s->sim, cycles);
    if (ws_sim_error(s->sim)) {
        set_err(s, "%s", ws_sim_error(s->sim));
        return -1;
    }
    return 0;
}

uint64_t ws_session_cycle(const ws_session *s) { return s->sim ? ws_sim_cycle(s->sim) : s->now; }

/* ---- frames out ----------------------------------------------------------------------------- */

/* Hand out the reference's frame k (data valid until the next pop of its port). */
static int ref_take(ws_session *s, size_t k, unsigned *port, const uint8_t **frame, size_t *len,
                    uint64_t *cycle)
{
    ref_frame *rf = &s->q[k];
    rf->taken = 1;
    free(s->popped[rf->port]);
    s->popped[rf->port] = rf->data;
    rf->data = NULL;
    if (port)
        *port = rf->port;
    if (frame)
        *frame = s->popped[rf->port];
    if (len)
        *len = rf->len;
    if (cycle)
        *cycle = rf->cycle;
    /* every frame handed out: start the list again */
    while (s->qhead < s->qn && s->q[s->qhead].taken)
        s->qhead++;
    if (s->qhead == s->qn) {
        s->qn = s->qhead = 0;
        memset(s->port_head, 0, sizeof s->port_head);
    }
    return 1;
}

int ws_session_pop(ws_session *s, unsigned port, const uint8_t **frame, size_t *len,
                   uint64_t *cycle)
{
    if (port >= WS_SIM_MAX_PORTS)
        return 0;
    if (s->sim) {
        if (s->head[port].have) {
            s->head[port].have = 0;
            if (frame)
                *frame = s->head[port].f;
            if (len)
                *len = s->head[port].len;
            if (cycle)
                *cycle = s->head[port].cycle;
            return 1;
        }
        return ws_sim_pop(s->sim, port, frame, len, cycle);
    }
    size_t k = s->port_head[port] > s->qhead ? s->port_head[port] : s->qhead;
    while (k < s->qn && (s->q[k].taken || s->q[k].port != port))
        k++;
    s->port_head[port] = k;
    if (k == s->qn)
        return 0;
    return ref_take(s, k, NULL, frame, len, cycle);
}

int ws_session_pop_next(ws_session *s, unsigned n_ports, unsigned *port, const uint8_t **frame,
                        size_t *len, uint64_t *cycle)
{
    if (!s->sim) {
        for (size_t k = s->qhead; k < s->qn; k++)
            if (!s->q[k].taken && s->q[k].port < n_ports)
                return ref_take(s, k, port, frame, len, cycle);
        return 0;
    }
    if (n_ports > WS_SIM_MAX_PORTS)
        n_ports = WS_SIM_MAX_PORTS;
    unsigned best = n_ports;
    for (unsigned p = 0; p < n_ports; p++) {
        if (!s->head[p].have)
            s->head[p].have = ws_sim_pop(s->sim, p, &s->head[p].f, &s->head[p].len,
                                         &s->head[p].cycle) == 1;
        if (s->head[p].have && (best == n_ports || s->head[p].cycle < s->head[best].cycle))
            best = p;
    }
    if (best == n_ports)
        return 0;
    if (port)
        *port = best;
    return ws_session_pop(s, best, frame, len, cycle);
}

void ws_session_beats(const ws_session *s, uint64_t *in, uint64_t *out)
{
    if (s->sim) {
        ws_sim_stats st;
        ws_sim_stats_get(s->sim, &st);
        *in = st.beats_in;
        *out = st.beats_out;
        return;
    }
    *in = s->beats_in;
    *out = s->beats_out;
}

void ws_session_stamps(ws_session *s, int on)
{
    if (s->sim)
        ws_sim_stamps(s->sim, on);
    s->stamps = on;
}

int ws_session_pop_ingress_done(ws_session *s, unsigned port, uint64_t *cycle)
{
    if (s->sim)
        return ws_sim_pop_ingress_done(s->sim, port, cycle);
    if (port >= WS_SIM_MAX_PORTS || s->done[port].head == s->done[port].n)
        return 0;
    uint64_t c = s->done[port].c[s->done[port].head++];
    if (cycle)
        *cycle = c;
    return 1;
}

/* ---- the time line ------------------------------------------------------------------------ */

void ws_session_line_start(ws_session *s)
{
    s->line_c0 = ws_session_cycle(s);
    s->line_skipped = s->line_act = 0;
    uint64_t in, out;
    ws_session_beats(s, &in, &out);
    s->line_beats = in + out;
}

uint64_t ws_session_line_now(const ws_session *s)
{
    return ws_session_cycle(s) - s->line_c0 + s->line_skipped;
}

uint64_t ws_session_line_clocked(const ws_session *s)
{
    return ws_session_cycle(s) - s->line_c0;
}

int ws_session_line_active(const ws_session *s)
{
    return s->sim &&
           (ws_session_busy(s) || ws_session_line_now(s) - s->line_act < WS_SESSION_SETTLE);
}

int ws_session_line_advance(ws_session *s, uint64_t to)
{
    uint64_t now = ws_session_line_now(s);
    if (to <= now)
        return 0;
    uint64_t gap = to - now;
    if (s->sim && !ws_session_busy(s) && to - s->line_act > WS_SESSION_SETTLE) {
        s->line_skipped += gap;
        return 0;
    }
    if (ws_session_run(s, gap))
        return -1;
    if (s->sim) {
        uint64_t in, out;
        ws_session_beats(s, &in, &out);
        if (in + out != s->line_beats)
            s->line_beats = in + out, s->line_act = to;
    }
    return 0;
}

int ws_session_line_pop(ws_session *s, unsigned n_ports, unsigned *port, const uint8_t **frame,
                        size_t *len, uint64_t *t)
{
    uint64_t cyc;
    if (ws_session_pop_next(s, n_ports, port, frame, len, &cyc) != 1)
        return 0;
    *t = cyc - s->line_c0 + s->line_skipped;
    return 1;
}

/* ---- counters, errors ---------------------------------------------------------------------- */

int ws_session_counters(ws_session *s, unsigned n_ports, ws_counters *c, char *err,
                        size_t errlen)
{
    if (s->sim) {
        ws_regbus bus = ws_session_bus(s);
        return ws_dev_read_counters(&bus, n_ports, c, err, errlen);
    }
    if (!s->ref) {
        snprintf(err, errlen, "the reference is not configured (ws_session_configure)");
        return -1;
    }
    *c = *ws_refdev_counters(s->ref);
    return 0;
}

const char *ws_session_error(const ws_session *s)
{
    if (s->failed)
        return s->err;
    return s->sim ? ws_sim_error(s->sim) : NULL;
}
