/* ws_sim.c - the cycle loop around the Verilated wiresum_top (wiresum/sim.h): ingress queues and
 * beats, egress reassembly and protocol checks, stress, AXI4-Lite, the trace window. */
#include "wiresum/sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_sim_shim.h"

#define ERRMAX 512
#define HALF_PERIOD_NS 5 /* 10 ns clock in the trace */

typedef struct frame {
    struct frame *next;
    size_t len;
    uint64_t cycle; /* egress: cycle of the tlast beat */
    uint64_t cycle_first; /* egress: cycle of the first beat (ws_sim_pop_stamped) */
    uint8_t data[];
} frame;

typedef struct {
    frame *head, *tail;
    size_t n;
} fqueue;

typedef struct {
    fqueue q;        /* head is the frame on the wire */
    size_t off;      /* bytes of the head already accepted */
    size_t beat_len; /* bytes of the beat offered, when offering */
    int offering;    /* tvalid is high for this cycle */
} in_port;

typedef struct {
    fqueue done;       /* collected, not yet popped */
    frame *popped;     /* returned by the last pop, freed at the next */
    uint8_t *buf;      /* the frame being reassembled: WS_SIM_MAX_FRAME bytes */
    size_t len;        /* bytes of it so far */
    uint64_t beats;    /* beats of it so far */
    unsigned tuser_len; /* tuser length of its first beat */
    uint64_t first_cycle; /* cycle of its first beat (ws_sim_pop_stamped) */
    int bad;           /* a protocol error hit it: dropped at its end */
} out_port;

typedef struct {
    int busy, write;       /* an access is under way */
    int aw, w, ar;         /* handshakes still to happen */
    int done;              /* response taken */
    uint32_t addr, data;
    unsigned resp;
    uint32_t rdata;
} axil_state;

typedef struct {
    uint64_t *c;
    size_t head, n, cap; /* a ring of cycles */
} stamp_ring;

struct ws_sim {
    const ws_shim_ops *ops;
    void *m;
    unsigned width, bytes, ports, tuser_w;
    unsigned data_words, keep_words, user_words; /* of the flattened multi-port buses */
    uint64_t half;  /* half a clock period in time units */
    int untraced;   /* made by ws_sim_new_untraced: the model may have no tracing */
    uint64_t cycle;
    int in_reset, finished;

    in_port in[WS_SIM_MAX_PORTS];
    out_port out[WS_SIM_MAX_PORTS];

    /* input port values, set at every falling edge */
    uint32_t *s_tdata, *s_tkeep, *s_tuser;
    uint32_t s_tvalid, s_tlast, m_tready, rst;
    /* the values last handed to the simulator, per input port (clk aside): set_inputs passes
     * on only what changed, and an eval without a clock edge is skipped when nothing did */
    uint32_t *in_cache[WS_SHIM_N_PORTS];
    unsigned in_words[WS_SHIM_N_PORTS];
    int in_cached; /* in_cache holds what the simulator has */
    /* egress bus this cycle and, for the stability check, last cycle */
    uint32_t *m_tdata, *m_tkeep, *m_tuser;
    uint32_t *p_tdata, *p_tkeep, *p_tuser;
    uint32_t m_tlast, p_tlast;
    uint32_t stalled; /* ports with tvalid && !tready last cycle */

    axil_state ax;
    ws_sim_stress stress;
    uint64_t rng;

    int tr_open, tr_dumped;
    uint64_t tr_from, tr_to, tr_last; /* window; time of the last dump */

    ws_sim_stats st;
    char err[ERRMAX];
    int has_err;

    /* ws_sim_stamps: per ingress port, the cycles of the frames' last beats not yet popped */
    int stamps_on;
    stamp_ring in_done[WS_SIM_MAX_PORTS];
};

/* ---- small helpers ---- */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The sticky error: the first one is kept, all are counted. */
static void sim_err(ws_sim *s, const char *fmt, ...)
{
    s->st.errors++;
    if (s->has_err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    s->has_err = 1;
}

static uint64_t bits_get(const uint32_t *w, unsigned lsb, unsigned n) /* 1 <= n <= 64 */
{
    unsigned i = lsb / 32, got = 32 - lsb % 32;
    uint64_t v = w[i] >> (lsb % 32);
    while (got < n) {
        v |= (uint64_t)w[++i] << got;
        got += 32;
    }
    return n == 64 ? v : v & ((1ull << n) - 1);
}

static void bits_put(uint32_t *w, unsigned lsb, unsigned n, uint64_t v) /* n <= 64 */
{
    while (n > 0) { /* a word at a time */
        unsigned o = lsb % 32, k = 32 - o < n ? 32 - o : n;
        uint32_t mask = (k == 32 ? 0xFFFFFFFFu : (1u << k) - 1u) << o;
        w[lsb / 32] = (w[lsb / 32] & ~mask) | ((uint32_t)v << o & mask);
        v >>= k;
        lsb += k;
        n -= k;
    }
}

static int bits_equal(const uint32_t *a, const uint32_t *b, unsigned lsb, unsigned n)
{
    if (lsb % 32 == 0 && n % 32 == 0) /* tdata and tkeep slices */
        return memcmp(a + lsb / 32, b + lsb / 32, n / 8) == 0;
    for (unsigned i = 0; i < n; i += 64) {
        unsigned k = n - i < 64 ? n - i : 64;
        if (bits_get(a, lsb + i, k) != bits_get(b, lsb + i, k))
            return 0;
    }
    return 1;
}

static unsigned rnd_pct(ws_sim *s) /* splitmix64, 0..99 */
{
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (unsigned)((z >> 32) % 100u);
}

static void q_push(fqueue *q, frame *f)
{
    f->next = NULL;
    if (q->tail)
        q->tail->next = f;
    else
        q->head = f;
    q->tail = f;
    q->n++;
}

static frame *q_pop(fqueue *q)
{
    frame *f = q->head;
    if (f) {
        q->head = f->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
    }
    return f;
}

static void q_clear(fqueue *q)
{
    frame *f;
    while ((f = q_pop(q)) != NULL)
        free(f);
}

/* ---- the cycle ---- */

/* Hand input port p the value w if it differs from what the simulator has; 1 if it did. Most
 * ports are a word, compared as one (a call of memcmp for each of 16 ports, twice a cycle, was
 * 2 % of a simulation). */
static int put_input(ws_sim *s, ws_shim_port p, const uint32_t *w)
{
    uint32_t *c = s->in_cache[p];
    size_t n = s->in_words[p];
    if (s->in_cached && (n == 1 ? c[0] == w[0] : memcmp(c, w, n * sizeof *c) == 0))
        return 0;
    memcpy(c, w, n * sizeof *c);
    s->ops->set(s->m, p, w);
    return 1;
}

/* Apply the input values (all but clk); 1 if any of them changed. */
static int set_inputs(ws_sim *s)
{
    uint32_t zero = 0;
    int changed = 0;
    changed |= put_input(s, WS_SHIM_RST, &s->rst);
    changed |= put_input(s, WS_SHIM_S_TDATA, s->s_tdata);
    changed |= put_input(s, WS_SHIM_S_TKEEP, s->s_tkeep);
    changed |= put_input(s, WS_SHIM_S_TVALID, &s->s_tvalid);
    changed |= put_input(s, WS_SHIM_S_TLAST, &s->s_tlast);
    changed |= put_input(s, WS_SHIM_S_TUSER, s->s_tuser);
    changed |= put_input(s, WS_SHIM_M_TREADY, &s->m_tready);
    uint32_t awv = (uint32_t)s->ax.aw, wv = (uint32_t)s->ax.w, arv = (uint32_t)s->ax.ar;
    uint32_t bready = (uint32_t)(s->ax.busy && s->ax.write);
    uint32_t rready = (uint32_t)(s->ax.busy && !s->ax.write);
    uint32_t strb = 0xFu;
    changed |= put_input(s, WS_SHIM_AWADDR, &s->ax.addr);
    changed |= put_input(s, WS_SHIM_AWVALID, &awv);
    changed |= put_input(s, WS_SHIM_WDATA, &s->ax.data);
    changed |= put_input(s, WS_SHIM_WSTRB, s->ax.busy ? &strb : &zero);
    changed |= put_input(s, WS_SHIM_WVALID, &wv);
    changed |= put_input(s, WS_SHIM_BREADY, &bready);
    changed |= put_input(s, WS_SHIM_ARADDR, &s->ax.addr);
    changed |= put_input(s, WS_SHIM_ARVALID, &arv);
    changed |= put_input(s, WS_SHIM_RREADY, &rready);
    s->in_cached = 1;
    return changed;
}

/* Put the next beat of port p's head frame on the bus. */
static void offer_beat(ws_sim *s, unsigned p)
{
    in_port *ip = &s->in[p];
    const frame *f = ip->q.head;
    size_t n = f->len - ip->off;
    if (n > s->bytes)
        n = s->bytes;
    const uint8_t *b = f->data + ip->off;
    uint32_t *d = s->s_tdata + (size_t)p * (s->width / 32);
    uint32_t *k = s->s_tkeep + (size_t)p * (s->bytes / 32);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n == s->bytes) { /* a whole beat: byte k is bits 8k.. of the words as they lie */
        memcpy(d, b, n);
    } else
#endif
    {
        for (unsigned j = 0; j < s->bytes / 4; j++) {
            uint32_t v = 0;
            for (unsigned i = 0; i < 4; i++)
                if (4 * j + i < n)
                    v |= (uint32_t)b[4 * j + i] << (8 * i);
            d[j] = v;
        }
    }
    for (unsigned j = 0; j < s->bytes / 32; j++) {
        size_t lo = 32 * (size_t)j;
        k[j] = n >= lo + 32 ? 0xFFFFFFFFu : n > lo ? (1u << (n - lo)) - 1u : 0u;
    }
    uint64_t user = (f->len & 0xFFFFu) | (1ull << (16 + p));
    bits_put(s->s_tuser, p * s->tuser_w, 16 + s->ports, user);
    bits_put(s->s_tuser, p * s->tuser_w + 16 + s->ports, s->ports, 0);
    s->s_tvalid |= 1u << p;
    if (ip->off + n == f->len)
        s->s_tlast |= 1u << p;
    else
        s->s_tlast &= ~(1u << p);
    ip->beat_len = n;
    ip->offering = 1;
}

/* ws_sim_stamps: the last beat of port p's head frame was taken at rising edge s->cycle. */
static void stamp_ingress_done(ws_sim *s, unsigned p)
{
    stamp_ring *q = &s->in_done[p];
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        uint64_t *c = malloc(cap * sizeof *c);
        if (!c) {
            sim_err(s, "port %u: out of memory recording an ingress stamp at cycle %llu", p,
                    (unsigned long long)s->cycle);
            return;
        }
        for (size_t i = 0; i < q->n; i++)
            c[i] = q->c[(q->head + i) % q->cap];
        free(q->c);
        q->c = c;
        q->cap = cap;
        q->head = 0;
    }
    q->c[(q->head + q->n) % q->cap] = s->cycle;
    q->n++;
}

/* Falling edge: account the beats accepted at the rising edge, choose the next ones. */
static void drive_ingress(ws_sim *s, uint32_t fired)
{
    unsigned idle = s->stress.idle_pct > 100 ? 100 : s->stress.idle_pct;
    for (unsigned p = 0; p < s->ports; p++) {
        in_port *ip = &s->in[p];
        if (ip->offering && (fired >> p & 1u)) {
            ip->off += ip->beat_len;
            s->st.beats_in++;
            s->st.bytes_in += ip->beat_len;
            ip->offering = 0;
            if (ip->off == ip->q.head->len) {
                free(q_pop(&ip->q));
                ip->off = 0;
                s->st.frames_in++;
                if (s->stamps_on)
                    stamp_ingress_done(s, p);
            }
        }
        if (ip->offering)
            continue; /* tvalid stays until the beat is taken */
        s->s_tvalid &= ~(1u << p);
        s->s_tlast &= ~(1u << p);
        if (!ip->q.head || s->in_reset)
            continue;
        if (idle && rnd_pct(s) < idle)
            continue;
        offer_beat(s, p);
    }
}

static void out_end_frame(ws_sim *s, unsigned p, int deliver)
{
    out_port *op = &s->out[p];
    if (deliver && !op->bad) {
        frame *f = malloc(sizeof *f + op->len);
        if (!f) {
            sim_err(s, "port %u: out of memory collecting an egress frame at cycle %llu", p,
                    (unsigned long long)s->cycle);
        } else {
            f->len = op->len;
            f->cycle = s->cycle;
            f->cycle_first = op->first_cycle;
            memcpy(f->data, op->buf, op->len);
            q_push(&op->done, f);
            s->st.frames_out++;
        }
    }
    op->len = 0;
    op->beats = 0;
    op->bad = 0;
}

/* One egress beat of port p taken at rising edge s->cycle. */
static void collect_beat(ws_sim *s, unsigned p)
{
    out_port *op = &s->out[p];
    unsigned long long cyc = (unsigned long long)s->cycle;
    const uint32_t *k = s->m_tkeep + (size_t)p * (s->bytes / 32);
    const uint32_t *d = s->m_tdata + (size_t)p * (s->width / 32);
    int last = (int)(s->m_tlast >> p & 1u);
    unsigned n = 0, contiguous = 1, words = s->bytes / 32;
    for (unsigned j = 0; j < words; j++)
        n += (unsigned)__builtin_popcount(k[j]);
    for (unsigned j = 0; j < words; j++) { /* bytes 0..n-1 exactly */
        size_t lo = 32 * (size_t)j;
        uint32_t want = n >= lo + 32 ? 0xFFFFFFFFu : n > lo ? (1u << (n - lo)) - 1u : 0u;
        if (k[j] != want)
            contiguous = 0;
    }
    s->st.beats_out++;
    s->st.bytes_out += n;
    if (op->beats == 0)
        op->tuser_len = (unsigned)bits_get(s->m_tuser, p * s->tuser_w, 16);
    if (op->beats == 0)
        op->first_cycle = s->cycle;
    op->beats++;
    if (!contiguous || n == 0) {
        sim_err(s, "port %u: m_axis_tkeep not contiguous from bit 0 at cycle %llu (beat %llu of "
                   "a frame)", p, cyc, (unsigned long long)op->beats);
        op->bad = 1;
    }
    size_t room = WS_SIM_MAX_FRAME - op->len;
    size_t take = n < room ? n : room;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(op->buf + op->len, d, take); /* byte i is bits 8i.. of the words as they lie */
#else
    for (size_t i = 0; i < take; i++)
        op->buf[op->len + i] = (uint8_t)(d[i / 4] >> (8 * (i % 4)));
#endif
    op->len += take;
    if (last) {
        if (!op->bad && op->len != op->tuser_len) {
            sim_err(s, "port %u: egress frame of %zu bytes ending at cycle %llu has tuser length "
                       "%u", p, op->len, cyc, op->tuser_len);
            op->bad = 1;
        }
        out_end_frame(s, p, 1);
        return;
    }
    if (n != s->bytes) {
        if (!op->bad)
            sim_err(s, "port %u: m_axis_tkeep not all ones without tlast at cycle %llu (missing "
                       "tlast?)", p, cyc);
        op->bad = 1;
        out_end_frame(s, p, 0); /* resynchronise: the next beat opens a frame */
    } else if (take < n) {
        sim_err(s, "port %u: egress frame longer than %u bytes at cycle %llu (missing tlast?)", p,
                (unsigned)WS_SIM_MAX_FRAME, cyc);
        op->bad = 1;
        out_end_frame(s, p, 0);
    } else if (op->len >= op->tuser_len && !op->bad) {
        sim_err(s, "port %u: no tlast after the %u bytes of tuser length at cycle %llu (missing "
                   "tlast?)", p, op->tuser_len, cyc);
        op->bad = 1;
        out_end_frame(s, p, 0);
    }
}

/* Before the rising edge: look at the egress bus, check it, take the beats handed over. */
static uint32_t sample_egress(ws_sim *s)
{
    uint32_t valid = 0;
    s->ops->get(s->m, WS_SHIM_M_TVALID, &valid);
    valid &= s->ports == 32 ? 0xFFFFFFFFu : (1u << s->ports) - 1u;
    if (s->in_reset) {
        s->stalled = 0;
        return 0;
    }
    if (valid | s->stalled) {
        s->ops->get(s->m, WS_SHIM_M_TDATA, s->m_tdata);
        s->ops->get(s->m, WS_SHIM_M_TKEEP, s->m_tkeep);
        s->ops->get(s->m, WS_SHIM_M_TUSER, s->m_tuser);
        s->ops->get(s->m, WS_SHIM_M_TLAST, &s->m_tlast);
    }
    for (unsigned p = 0; p < s->ports; p++) {
        if (!(s->stalled >> p & 1u))
            continue;
        unsigned long long cyc = (unsigned long long)s->cycle + 1;
        if (!(valid >> p & 1u)) {
            sim_err(s, "port %u: m_axis_tvalid dropped before tready at cycle %llu", p, cyc);
        } else if (!bits_equal(s->m_tdata, s->p_tdata, p * s->width, s->width) ||
                   !bits_equal(s->m_tkeep, s->p_tkeep, p * s->bytes, s->bytes) ||
                   !bits_equal(s->m_tuser, s->p_tuser, p * s->tuser_w, s->tuser_w) ||
                   ((s->m_tlast ^ s->p_tlast) >> p & 1u)) {
            sim_err(s, "port %u: m_axis_tdata/tkeep/tlast/tuser changed while stalled at cycle "
                       "%llu", p, cyc);
        }
    }
    uint32_t fire = valid & s->m_tready;
    s->stalled = valid & ~s->m_tready;
    if (valid) {
        memcpy(s->p_tdata, s->m_tdata, s->data_words * sizeof *s->p_tdata);
        memcpy(s->p_tkeep, s->m_tkeep, s->keep_words * sizeof *s->p_tkeep);
        memcpy(s->p_tuser, s->m_tuser, s->user_words * sizeof *s->p_tuser);
        s->p_tlast = s->m_tlast;
    }
    return fire;
}

static void sample_axil(ws_sim *s, int *aw, int *w, int *ar, int *b, int *r)
{
    axil_state *ax = &s->ax;
    uint32_t v = 0;
    *aw = *w = *ar = *b = *r = 0;
    if (!ax->busy || s->in_reset)
        return;
    if (ax->aw && s->ops->get(s->m, WS_SHIM_AWREADY, &v) == 0 && (v & 1u))
        *aw = 1;
    if (ax->w && s->ops->get(s->m, WS_SHIM_WREADY, &v) == 0 && (v & 1u))
        *w = 1;
    if (ax->ar && s->ops->get(s->m, WS_SHIM_ARREADY, &v) == 0 && (v & 1u))
        *ar = 1;
    if (ax->write && s->ops->get(s->m, WS_SHIM_BVALID, &v) == 0 && (v & 1u)) {
        *b = 1;
        s->ops->get(s->m, WS_SHIM_BRESP, &v);
        ax->resp = v & 3u;
        if (ax->aw || ax->w)
            sim_err(s, "register 0x%04x write: BVALID before the address and data handshakes at "
                       "cycle %llu", ax->addr, (unsigned long long)s->cycle + 1);
    }
    if (!ax->write && s->ops->get(s->m, WS_SHIM_RVALID, &v) == 0 && (v & 1u)) {
        *r = 1;
        s->ops->get(s->m, WS_SHIM_RRESP, &v);
        ax->resp = v & 3u;
        s->ops->get(s->m, WS_SHIM_RDATA, &ax->rdata);
        if (ax->ar)
            sim_err(s, "register 0x%04x read: RVALID before the address handshake at cycle %llu",
                    ax->addr, (unsigned long long)s->cycle + 1);
    }
}

/* Dump the values now if cycle s->cycle is in the window. The falling edge of a cycle is dumped
 * lazily, just before the next rising edge (or at close), so that inputs set between two calls
 * (a push, a register access) show at the falling edge where they took effect. */
static void trace_dump(ws_sim *s)
{
    if (!s->tr_open || s->cycle < s->tr_from || (s->tr_to != 0 && s->cycle > s->tr_to))
        return;
    uint64_t t = s->ops->time(s->m);
    if (s->tr_dumped && t <= s->tr_last)
        return;
    s->ops->trace_dump(s->m);
    s->tr_dumped = 1;
    s->tr_last = t;
}

/* Between cycles: offer beats on idle ingress ports that now have frames, apply the inputs. */
static void refresh_inputs(ws_sim *s)
{
    drive_ingress(s, 0);
    if (set_inputs(s)) /* unchanged inputs: the design is settled as it is */
        s->ops->eval(s->m);
}

static void clock_cycle(ws_sim *s)
{
    /* the inputs of this cycle were set and evaluated at the last falling edge */
    trace_dump(s);
    if (s->tr_open && s->tr_to && s->cycle >= s->tr_to)
        ws_sim_trace_close(s);
    uint32_t tready = 0;
    s->ops->get(s->m, WS_SHIM_S_TREADY, &tready);
    uint32_t in_fire = s->in_reset ? 0 : s->s_tvalid & tready;
    uint32_t out_fire = sample_egress(s);
    int aw, w, ar, b, r;
    sample_axil(s, &aw, &w, &ar, &b, &r);

    uint32_t clk = 1;
    s->ops->time_inc(s->m, s->half);
    s->ops->set(s->m, WS_SHIM_CLK, &clk);
    s->ops->eval(s->m);
    s->cycle++;
    trace_dump(s);

    for (unsigned p = 0; p < s->ports; p++)
        if (out_fire >> p & 1u)
            collect_beat(s, p);
    if (aw)
        s->ax.aw = 0;
    if (w)
        s->ax.w = 0;
    if (ar)
        s->ax.ar = 0;
    if (b || r) {
        s->ax.busy = 0;
        s->ax.done = 1;
    }

    clk = 0;
    s->ops->time_inc(s->m, s->half);
    s->ops->set(s->m, WS_SHIM_CLK, &clk);
    drive_ingress(s, in_fire);
    unsigned bp = s->stress.backpressure_pct > 100 ? 100 : s->stress.backpressure_pct;
    s->m_tready = 0;
    for (unsigned p = 0; p < s->ports; p++)
        if (!(bp && rnd_pct(s) < bp))
            s->m_tready |= 1u << p;
    set_inputs(s);
    s->ops->eval(s->m);
    int fin = s->finished ? 0 : s->ops->got_finish(s->m);
    if (fin) {
        s->finished = 1;
        sim_err(s, "the design %s at cycle %llu",
                fin == 2 ? "stopped on an error ($stop or an assertion; see the output)"
                         : "executed $finish",
                (unsigned long long)s->cycle);
    }
}

/* ---- the API ---- */

size_t ws_sim_widths(unsigned *widths, size_t max)
{
    return ws_shim_verilator_widths(widths, max);
}

ws_sim *ws_sim_new(unsigned width, char *err, size_t errlen)
{
    return ws_sim_new_engine(WS_SIM_VERILATOR, width, err, errlen);
}

const char *ws_sim_engine_name(const ws_sim *s)
{
    return s->ops->engine;
}

static int check_ports(ws_sim *s, char *err, size_t errlen)
{
    const char *model = s->ops->model(s->m);
    unsigned dw = s->ops->words(s->m, WS_SHIM_S_TDATA);
    if (dw == 0 || (dw * 32u) % s->width != 0 || dw * 32u / s->width > WS_SIM_MAX_PORTS) {
        set_err(err, errlen, "%s: s_axis_tdata is %u words, not N_PORTS*DATA_WIDTH bits with "
                "DATA_WIDTH %u and 1 <= N_PORTS <= %u", model, dw, s->width, WS_SIM_MAX_PORTS);
        return -1;
    }
    unsigned n = dw * 32u / s->width;
    s->ports = n;
    s->tuser_w = 16 + 2 * n;
    s->data_words = dw;
    s->keep_words = n * s->bytes / 32;
    s->user_words = (n * s->tuser_w + 31) / 32;
    static const struct {
        ws_shim_port p;
        const char *name;
        int kind; /* 0 data, 1 keep, 2 user, 3 per-port bit, 4 one word */
    } want[] = {
        {WS_SHIM_CLK, "clk", 4},
        {WS_SHIM_RST, "rst", 4},
        {WS_SHIM_S_TDATA, "s_axis_tdata", 0},
        {WS_SHIM_S_TKEEP, "s_axis_tkeep", 1},
        {WS_SHIM_S_TVALID, "s_axis_tvalid", 3},
        {WS_SHIM_S_TREADY, "s_axis_tready", 3},
        {WS_SHIM_S_TLAST, "s_axis_tlast", 3},
        {WS_SHIM_S_TUSER, "s_axis_tuser", 2},
        {WS_SHIM_M_TDATA, "m_axis_tdata", 0},
        {WS_SHIM_M_TKEEP, "m_axis_tkeep", 1},
        {WS_SHIM_M_TVALID, "m_axis_tvalid", 3},
        {WS_SHIM_M_TREADY, "m_axis_tready", 3},
        {WS_SHIM_M_TLAST, "m_axis_tlast", 3},
        {WS_SHIM_M_TUSER, "m_axis_tuser", 2},
        {WS_SHIM_AWADDR, "s_axil_awaddr", 4},
        {WS_SHIM_AWVALID, "s_axil_awvalid", 4},
        {WS_SHIM_AWREADY, "s_axil_awready", 4},
        {WS_SHIM_WDATA, "s_axil_wdata", 4},
        {WS_SHIM_WSTRB, "s_axil_wstrb", 4},
        {WS_SHIM_WVALID, "s_axil_wvalid", 4},
        {WS_SHIM_WREADY, "s_axil_wready", 4},
        {WS_SHIM_BRESP, "s_axil_bresp", 4},
        {WS_SHIM_BVALID, "s_axil_bvalid", 4},
        {WS_SHIM_BREADY, "s_axil_bready", 4},
        {WS_SHIM_ARADDR, "s_axil_araddr", 4},
        {WS_SHIM_ARVALID, "s_axil_arvalid", 4},
        {WS_SHIM_ARREADY, "s_axil_arready", 4},
        {WS_SHIM_RDATA, "s_axil_rdata", 4},
        {WS_SHIM_RRESP, "s_axil_rresp", 4},
        {WS_SHIM_RVALID, "s_axil_rvalid", 4},
        {WS_SHIM_RREADY, "s_axil_rready", 4},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        unsigned expect = want[i].kind == 0   ? s->data_words
                          : want[i].kind == 1 ? s->keep_words
                          : want[i].kind == 2 ? s->user_words
                                              : 1;
        unsigned got = s->ops->words(s->m, want[i].p);
        if (got != expect) {
            set_err(err, errlen, "%s: port %s is %u words of 32 bits, expected %u (N_PORTS %u, "
                    "DATA_WIDTH %u, TUSER_WIDTH 16+2*N_PORTS; docs/architecture.md section 5)",
                    model, want[i].name, got, expect, n, s->width);
            return -1;
        }
    }
    return 0;
}

static ws_sim *sim_new(ws_sim_engine engine, unsigned width, int untraced, char *err,
                       size_t errlen)
{
    const ws_shim_ops *ops;
    void *m = NULL;
    if (engine == WS_SIM_ICARUS) {
        ops = &ws_shim_icarus;
        if (width != 256 && width != 512 && width != 1024) {
            set_err(err, errlen, "DATA_WIDTH %u: Icarus designs exist for 256, 512 and 1024", width);
            return NULL;
        }
        m = ws_shim_icarus_new(width, err, errlen);
        if (!m)
            return NULL;
    } else {
        ops = &ws_shim_verilator;
        unsigned built[8];
        size_t nb = ws_shim_verilator_widths(built, 8);
        int found = 0;
        for (size_t i = 0; i < nb && i < 8; i++)
            found |= built[i] == width;
        if (found)
            m = ws_shim_verilator_new_model(width, untraced);
        if (!m) {
            if (found) {
                set_err(err, errlen, "DATA_WIDTH %u: out of memory creating the model", width);
            } else {
                char list[64] = "";
                size_t o = 0;
                for (size_t i = 0; i < nb && i < 8 && o < sizeof list; i++)
                    o += (size_t)snprintf(list + o, sizeof list - o, " %u", built[i]);
                set_err(err, errlen, "DATA_WIDTH %u is not built into this binary (built:%s; "
                        "`make` builds every width, `make demo` 256 alone)",
                        width, nb ? list : " none");
            }
            return NULL;
        }
    }
    ws_sim *s = calloc(1, sizeof *s);
    if (!s) {
        ops->free(m);
        set_err(err, errlen, "DATA_WIDTH %u: out of memory", width);
        return NULL;
    }
    s->ops = ops;
    s->m = m;
    s->untraced = untraced && engine == WS_SIM_VERILATOR;
    s->width = width;
    s->bytes = width / 8;
    if (check_ports(s, err, errlen) != 0) {
        ws_sim_free(s);
        return NULL;
    }
    size_t dw = s->data_words, kw = s->keep_words, uw = s->user_words;
    s->s_tdata = calloc(dw, 4);
    s->s_tkeep = calloc(kw, 4);
    s->s_tuser = calloc(uw, 4);
    s->m_tdata = calloc(dw, 4);
    s->m_tkeep = calloc(kw, 4);
    s->m_tuser = calloc(uw, 4);
    s->p_tdata = calloc(dw, 4);
    s->p_tkeep = calloc(kw, 4);
    s->p_tuser = calloc(uw, 4);
    int ok = s->s_tdata && s->s_tkeep && s->s_tuser && s->m_tdata && s->m_tkeep && s->m_tuser &&
             s->p_tdata && s->p_tkeep && s->p_tuser;
    for (int p = 0; p < WS_SHIM_N_PORTS && ok; p++) {
        s->in_words[p] = ops->words(m, (ws_shim_port)p);
        ok = (s->in_cache[p] = calloc(s->in_words[p] ? s->in_words[p] : 1, 4)) != NULL;
    }
    for (unsigned p = 0; p < s->ports && ok; p++)
        ok = (s->out[p].buf = malloc(WS_SIM_MAX_FRAME)) != NULL;
    if (!ok) {
        ws_sim_free(s);
        set_err(err, errlen, "DATA_WIDTH %u: out of memory", width);
        return NULL;
    }
    int prec = ops->time_precision(m);
    s->half = HALF_PERIOD_NS;
    for (int e = prec; e < -9; e++)
        s->half *= 10;
    if (prec > -9)
        s->half = 1; /* a design in coarser units: one unit per half period */
    s->rng = 1;
    s->rst = 1;
    uint32_t clk = 0;
    ops->set(m, WS_SHIM_CLK, &clk);
    set_inputs(s);
    ops->eval(m);
    ws_sim_reset(s);
    return s;
}

ws_sim *ws_sim_new_engine(ws_sim_engine engine, unsigned width, char *err, size_t errlen)
{
    return sim_new(engine, width, 0, err, errlen);
}

ws_sim *ws_sim_new_untraced(ws_sim_engine engine, unsigned width, char *err, size_t errlen)
{
    return sim_new(engine, width, 1, err, errlen);
}

static void stamps_clear(ws_sim *s)
{
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++)
        s->in_done[p].head = s->in_done[p].n = 0;
}

void ws_sim_free(ws_sim *s)
{
    if (!s)
        return;
    ws_sim_trace_close(s);
    for (unsigned p = 0; p < WS_SIM_MAX_PORTS; p++) {
        free(s->in_done[p].c);
        q_clear(&s->in[p].q);
        q_clear(&s->out[p].done);
        free(s->out[p].popped);
        free(s->out[p].buf);
    }
    free(s->s_tdata);
    free(s->s_tkeep);
    free(s->s_tuser);
    free(s->m_tdata);
    free(s->m_tkeep);
    free(s->m_tuser);
    free(s->p_tdata);
    free(s->p_tkeep);
    free(s->p_tuser);
    for (int p = 0; p < WS_SHIM_N_PORTS; p++)
        free(s->in_cache[p]);
    s->ops->free(s->m);
    free(s);
}

void ws_sim_reset(ws_sim *s)
{
    for (unsigned p = 0; p < s->ports; p++) {
        in_port *ip = &s->in[p];
        q_clear(&ip->q);
        ip->off = 0;
        ip->offering = 0;
        out_port *op = &s->out[p];
        q_clear(&op->done);
        free(op->popped);
        op->popped = NULL;
        op->len = 0;
        op->beats = 0;
        op->bad = 0;
    }
    stamps_clear(s);
    memset(&s->ax, 0, sizeof s->ax);
    s->s_tvalid = 0;
    s->s_tlast = 0;
    s->stalled = 0;
    s->rst = 1;
    s->in_reset = 1;
    for (unsigned i = 0; i < WS_SIM_RESET_CYCLES; i++) {
        if (i == WS_SIM_RESET_CYCLES - 1)
            s->rst = 0; /* set at the last falling edge of the reset */
        clock_cycle(s);
    }
    s->in_reset = 0;
    memset(&s->st, 0, sizeof s->st);
    s->has_err = 0;
    s->err[0] = '\0';
    s->finished = 0;
}

void ws_sim_set_stress(ws_sim *s, const ws_sim_stress *st)
{
    if (st) {
        s->stress = *st;
        s->rng = st->seed;
    } else {
        memset(&s->stress, 0, sizeof s->stress);
    }
}

unsigned ws_sim_ports(const ws_sim *s) { return s->ports; }
unsigned ws_sim_width(const ws_sim *s) { return s->width; }
uint64_t ws_sim_cycle(const ws_sim *s) { return s->cycle; }

int ws_sim_push(ws_sim *s, unsigned port, const uint8_t *frame_data, size_t len)
{
    if (port >= s->ports || len == 0 || len > WS_SIM_MAX_IN_FRAME || !frame_data)
        return -1;
    frame *f = malloc(sizeof *f + len);
    if (!f)
        return -1;
    f->len = len;
    f->cycle = 0;
    memcpy(f->data, frame_data, len);
    q_push(&s->in[port].q, f);
    return 0;
}

size_t ws_sim_pending(const ws_sim *s, unsigned port)
{
    return port < s->ports ? s->in[port].q.n : 0;
}

void ws_sim_run(ws_sim *s, uint64_t cycles)
{
    if (cycles == 0 || s->finished)
        return;
    refresh_inputs(s);
    for (uint64_t i = 0; i < cycles && !s->finished; i++)
        clock_cycle(s);
}

int ws_sim_pop(ws_sim *s, unsigned port, const uint8_t **frame_data, size_t *len,
               uint64_t *cycle_last_beat)
{
    if (port >= s->ports || !s->out[port].done.head)
        return 0;
    out_port *op = &s->out[port];
    free(op->popped);
    op->popped = q_pop(&op->done);
    if (frame_data)
        *frame_data = op->popped->data;
    if (len)
        *len = op->popped->len;
    if (cycle_last_beat)
        *cycle_last_beat = op->popped->cycle;
    return 1;
}

size_t ws_sim_collected(const ws_sim *s, unsigned port)
{
    return port < s->ports ? s->out[port].done.n : 0;
}

static int axil_access(ws_sim *s, int write, uint32_t addr, uint32_t data, uint32_t *rdata)
{
    const char *op = write ? "write" : "read";
    if (addr > 0xFFFFu || s->finished)
        return -1; /* a caller's error, not the design's: no sticky error */
    axil_state *ax = &s->ax;
    memset(ax, 0, sizeof *ax);
    ax->busy = 1;
    ax->write = write;
    ax->aw = ax->w = write;
    ax->ar = !write;
    ax->addr = addr;
    ax->data = data;
    /* the valids go up now, at the falling edge that ended the last cycle */
    refresh_inputs(s);
    for (uint64_t i = 0; i < WS_SIM_REG_TIMEOUT && !ax->done && !s->finished; i++)
        clock_cycle(s);
    if (!ax->done) {
        if (!s->finished)
            sim_err(s, "register 0x%04x %s: no %s within %u cycles (cycle %llu)", addr, op,
                    ax->aw ? "AWREADY" : ax->w ? "WREADY" : ax->ar ? "ARREADY"
                    : write ? "BVALID" : "RVALID",
                    (unsigned)WS_SIM_REG_TIMEOUT, (unsigned long long)s->cycle);
        memset(ax, 0, sizeof *ax);
        set_inputs(s);
        s->ops->eval(s->m);
        return -1;
    }
    if (rdata)
        *rdata = ax->rdata;
    int resp = (int)ax->resp;
    memset(ax, 0, sizeof *ax);
    set_inputs(s);
    s->ops->eval(s->m);
    return resp;
}

int ws_sim_reg_write(ws_sim *s, uint32_t addr, uint32_t data)
{
    return axil_access(s, 1, addr, data, NULL);
}

int ws_sim_reg_read(ws_sim *s, uint32_t addr, uint32_t *data)
{
    uint32_t v = 0;
    int rc = axil_access(s, 0, addr, 0, &v);
    if (rc >= 0 && data)
        *data = v;
    return rc;
}

int ws_sim_trace_open(ws_sim *s, const char *fst_path, uint64_t from_cycle, uint64_t to_cycle,
                      char *err, size_t errlen)
{
    if (s->tr_open) {
        set_err(err, errlen, "trace %s: a trace is already open", fst_path);
        return -1;
    }
    if (to_cycle != 0 && (to_cycle < from_cycle || to_cycle <= s->cycle)) {
        set_err(err, errlen, "trace %s: empty window %llu..%llu at cycle %llu", fst_path,
                (unsigned long long)from_cycle, (unsigned long long)to_cycle,
                (unsigned long long)s->cycle);
        return -1;
    }
    if (s->ops == &ws_shim_verilator && !ws_shim_verilator_traced(s->width)) {
        set_err(err, errlen, "trace %s: this binary's %u-bit model was built without tracing "
                "(make WS_SIM_TRACED_WIDTHS=%u, with any other width to trace, builds one)",
                fst_path, s->width, s->width);
        return -1;
    }
    FILE *f = fopen(fst_path, "wb");
    if (!f) {
        set_err(err, errlen, "trace %s: %s", fst_path, strerror(errno));
        return -1;
    }
    fclose(f);
    if (s->ops->trace_open(s->m, fst_path) != 0) {
        if (s->untraced)
            set_err(err, errlen, "trace %s: this simulation was created without tracing "
                    "(ws_sim_new_untraced)", fst_path);
        else
            set_err(err, errlen, "trace %s: the FST writer could not open it", fst_path);
        return -1;
    }
    s->tr_open = 1;
    s->tr_dumped = 0;
    s->tr_from = from_cycle;
    s->tr_to = to_cycle;
    return 0;
}

void ws_sim_trace_close(ws_sim *s)
{
    if (!s->tr_open)
        return;
    trace_dump(s); /* the pending falling edge */
    s->ops->trace_close(s->m);
    s->tr_open = 0;
}

void ws_sim_stats_get(const ws_sim *s, ws_sim_stats *st)
{
    *st = s->st;
}

const char *ws_sim_error(const ws_sim *s)
{
    return s->has_err ? s->err : NULL;
}

/* ---- stamps for benchmarks (ws_sim_stamps) ---- */

void ws_sim_stamps(ws_sim *s, int on)
{
    s->stamps_on = on != 0;
}

int ws_sim_pop_ingress_done(ws_sim *s, unsigned port, uint64_t *cycle_last_beat)
{
    if (port >= s->ports || s->in_done[port].n == 0)
        return 0;
    stamp_ring *q = &s->in_done[port];
    if (cycle_last_beat)
        *cycle_last_beat = q->c[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return 1;
}

int ws_sim_pop_stamped(ws_sim *s, unsigned port, const uint8_t **frame_data, size_t *len,
                       uint64_t *cycle_first_beat, uint64_t *cycle_last_beat)
{
    if (!ws_sim_pop(s, port, frame_data, len, cycle_last_beat))
        return 0;
    if (cycle_first_beat)
        *cycle_first_beat = s->out[port].popped->cycle_first;
    return 1;
}
