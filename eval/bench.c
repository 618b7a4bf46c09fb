/* bench.c - `wiresum bench`: the RTL model under saturating closed-loop load (bench.h).
 *
 * The device is opened, driven and configured as a session (wiresum/session.h), but the load
 * goes to the model itself (ws_session_sim): every port keeps its next frame queued at once,
 * which the session's one global order would serialize, and the latencies need the model's
 * stamps of first and last beats and its beat statistics. */
#include "f32.h"
#include "bench.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters_file.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"
#include "wiresum/dev.h"
#include "wiresum/regmap.h"
#include "wiresum/session.h"
#include "ws_grow.h"

#define JOB_ID 7
#define TENSOR_ID 1
#define WIRE_OVERHEAD 24 /* FCS 4, preamble and SFD 8, inter-frame gap 12 */
#define LOAD_STEP 16     /* cycles clocked between two looks at the egress, load phase */
#define IDLE_STEP 4      /* the same, idle phase */
#define VALUE_SCALE (1.0 / 4096.0)

void ws_bench_defaults(ws_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 256;
    o->workers = 4;
    o->count = 256;
    o->slots = 16;
    o->warmup = 20000;
    o->cycles = 100000;
    o->idle_rounds = 40;
    o->clock_mhz = 200.0;
}

/* ---- the values: integers times 2^-12, so that any sum of up to 64 is exact in binary32 ---- */

static int32_t value_int(unsigned w, uint64_t chunk, unsigned j)
{
    uint64_t z = ((uint64_t)w << 48) ^ (chunk << 16) ^ j;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (int32_t)(z & 0x3FFF) - 0x2000; /* |v| <= 2^13: a sum of 64 stays below 2^19 */
}


/* ---- one round (chunk) in flight, kept at entry chunk mod 2S ---- */

typedef struct {
    uint64_t chunk;       /* which chunk this entry holds; UINT64_MAX: free */
    unsigned in, out;     /* contributions wholly in, RESULTs out */
    uint64_t last_in;     /* latest last-beat cycle of its contributions */
    uint64_t first_out;   /* earliest first-beat cycle of its RESULTs */
    uint64_t last_out;    /* latest last-beat cycle of its RESULTs */
    int have_sum;
    uint32_t *sum;        /* the expected elements, count of them */
} round_rec;

typedef struct {
    uint64_t *v;
    size_t n, cap;
} u64_list;

typedef struct {
    const ws_bench_opts *o;
    FILE *out;
    char *err;
    size_t errlen;
    ws_session *dev;
    ws_sim *sim;            /* the session's model: its stamps and statistics */
    ws_regbus bus;
    ws_dev_params params;
    ws_config cfg;
    unsigned ports, window;
    uint64_t *done_chunks;  /* per worker: results received */
    uint64_t **port_q;      /* per ingress port: chunk numbers pushed, not yet wholly in */
    size_t *pq_head, *pq_n, pq_cap;
    round_rec *ring;
    size_t ring_n;
    uint8_t *frame;
    uint32_t *elems;
    uint64_t win_from, win_to;    /* latency counted for rounds whose last contribution came
                                   * in within [from, to) */
    u64_list lat_first, lat_last;
    uint64_t checked, bad, reported;
    int failed;
} bench;

static int fail(bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, b->errlen, fmt, ap);
    va_end(ap);
    b->failed = 1;
    return -1;
}

static int list_add(u64_list *l, uint64_t v)
{
    uint64_t *nv = ws_grow(l->v, &l->cap, l->n + 1, sizeof *nv, 256);
    if (!nv)
        return -1;
    l->v = nv;
    l->v[l->n++] = v;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void summarize(const u64_list *first, const u64_list *last, ws_bench_latency *l)
{
    memset(l, 0, sizeof *l);
    l->n = first->n;
    if (first->n == 0)
        return;
    qsort(first->v, first->n, sizeof *first->v, cmp_u64);
    qsort(last->v, last->n, sizeof *last->v, cmp_u64);
    /* the median of an even count: the lower of the two middle values (a cycle count) */
    l->first_min = first->v[0];
    l->first_med = first->v[(first->n - 1) / 2];
    l->first_max = first->v[first->n - 1];
    l->last_min = last->v[0];
    l->last_med = last->v[(last->n - 1) / 2];
    l->last_max = last->v[last->n - 1];
}

static int read_accepted_lo(bench *b, uint32_t *v)
{
    if (ws_sim_reg_read(b->sim, WS_REG_CNT_ACCEPTED, v) != 0)
        return fail(b, "reading the accepted counter: %s",
                    ws_sim_error(b->sim) ? ws_sim_error(b->sim) : "error response");
    return 0;
}

/* A window edge on a frame boundary: read the low word of the accepted counter until it
 * changes; *v is the value seen and *cyc the cycle the read ended. The engine accepted a frame
 * within the last read (a few cycles), and every edge is taken the same way, so the frames
 * counted between two edges are those of the cycles between them to within one read. */
static int accepted_edge(bench *b, uint32_t *v, uint64_t *cyc)
{
    uint32_t first, now;
    if (read_accepted_lo(b, &first))
        return -1;
    uint64_t give_up = ws_sim_cycle(b->sim) + 100000;
    do {
        if (read_accepted_lo(b, &now))
            return -1;
        if (ws_sim_cycle(b->sim) > give_up) { /* show where the frames went */
            ws_counters ctr;
            if (ws_dev_read_counters(&b->bus, b->params.ports, &ctr, b->err, b->errlen) == 0)
                ws_counters_file_print(&ctr, b->params.ports, b->out);
            for (unsigned p = 0; p < b->ports; p++)
                fprintf(b->out, "port %u: %zu frames queued\n", p, ws_sim_pending(b->sim, p));
            return fail(b, "load phase: the device accepted no frame in 100000 cycles");
        }
    } while (now == first);
    *v = now;
    *cyc = ws_sim_cycle(b->sim);
    return 0;
}

static round_rec *rec_of(bench *b, uint64_t chunk)
{
    round_rec *r = &b->ring[chunk % b->ring_n];
    if (r->chunk == chunk)
        return r;
    if (r->chunk != UINT64_MAX) {
        fail(b, "chunk %llu: more rounds in flight than the bench tracks (%zu)",
             (unsigned long long)chunk, b->ring_n);
        return NULL;
    }
    r->chunk = chunk;
    r->in = r->out = 0;
    r->last_in = 0;
    r->first_out = UINT64_MAX;
    r->last_out = 0;
    r->have_sum = 0;
    return r;
}

/* Worker w sends chunk `chunk`: on ingress port (w + chunk) mod ports, so that a job of fewer
 * workers than ports still keeps every port busy (the ingress port of DATA is not checked). */
static int send_chunk(bench *b, unsigned w, uint64_t chunk)
{
    const ws_bench_opts *o = b->o;
    const ws_job *jb = &b->cfg.job[0];
    const ws_member *m = &jb->member[w];
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.dst_mac, b->cfg.mac, 6);
    memcpy(h.src_mac, m->mac, 6);
    h.src_ip = m->ip;
    h.dst_ip = b->cfg.ip;
    h.src_port = m->udp_port;
    h.dst_port = b->cfg.udp_port;
    h.job = JOB_ID;
    h.worker = (uint16_t)w;
    h.slot = (uint16_t)(chunk % o->slots);
    h.flags = (uint8_t)((chunk / o->slots) % 2 ? WS_FLAG_SET : 0);
    h.count = (uint16_t)o->count;
    h.offset = (uint32_t)(chunk * o->count);
    h.tensor = TENSOR_ID + (uint32_t)((chunk * o->count) >> 32);
    for (unsigned j = 0; j < o->count; j++)
        b->elems[j] = ws_f32_bits((float)(value_int(w, chunk, j) * VALUE_SCALE));
    size_t len = ws_build(b->frame, &h, b->elems);
    unsigned p = (unsigned)((w + chunk) % b->ports);
    if (ws_sim_push(b->sim, p, b->frame, len))
        return fail(b, "pushing a frame of %zu bytes on port %u", len, p);
    if (b->pq_n[p] == b->pq_cap) {
        size_t cap = b->pq_cap * 2;
        for (unsigned q = 0; q < b->ports; q++) {
            uint64_t *nq = malloc(cap * sizeof *nq);
            if (!nq)
                return fail(b, "out of memory");
            for (size_t i = 0; i < b->pq_n[q]; i++)
                nq[i] = b->port_q[q][(b->pq_head[q] + i) % b->pq_cap];
            free(b->port_q[q]);
            b->port_q[q] = nq;
            b->pq_head[q] = 0;
        }
        b->pq_cap = cap;
    }
    b->port_q[p][(b->pq_head[p] + b->pq_n[p]) % b->pq_cap] = chunk;
    b->pq_n[p]++;
    return rec_of(b, chunk) ? 0 : -1;
}

/* A round is whole: count its latency if it lies in the window, free its entry. */
static int round_done(bench *b, round_rec *r)
{
    if (r->last_in >= b->win_from && r->last_in < b->win_to) {
        if (list_add(&b->lat_first, r->first_out - r->last_in) ||
            list_add(&b->lat_last, r->last_out - r->last_in))
            return fail(b, "out of memory");
    }
    r->chunk = UINT64_MAX;
    return 0;
}

/* Ingress stamps: match each port's completed frames with the chunks pushed there. */
static int take_ingress(bench *b)
{
    unsigned W = b->o->workers;
    for (unsigned p = 0; p < b->ports; p++) {
        uint64_t cyc;
        while (ws_sim_pop_ingress_done(b->sim, p, &cyc) == 1) {
            if (b->pq_n[p] == 0)
                return fail(b, "port %u: a frame went in that the bench did not push", p);
            uint64_t chunk = b->port_q[p][b->pq_head[p]];
            b->pq_head[p] = (b->pq_head[p] + 1) % b->pq_cap;
            b->pq_n[p]--;
            round_rec *r = rec_of(b, chunk);
            if (!r)
                return -1;
            r->in++;
            if (cyc > r->last_in)
                r->last_in = cyc;
            if (r->in > W)
                return fail(b, "chunk %llu: more contributions than workers",
                            (unsigned long long)chunk);
        }
    }
    return 0;
}

static int check_result(bench *b, round_rec *r, const uint8_t *f, const ws_hdr *h)
{
    unsigned K = b->o->count, W = b->o->workers;
    if (!r->have_sum) {
        for (unsigned j = 0; j < K; j++) {
            int64_t s = 0;
            for (unsigned w = 0; w < W; w++)
                s += value_int(w, r->chunk, j);
            r->sum[j] = ws_f32_bits((float)((double)s * VALUE_SCALE));
        }
        r->have_sum = 1;
    }
    b->checked++;
    for (unsigned j = 0; j < K; j++)
        if (ws_elem(f, j) != r->sum[j]) {
            b->bad++;
            if (b->reported++ < 10)
                fprintf(b->out, "bench: wrong RESULT: chunk %llu rank %u element %u: 0x%08x, "
                        "expected 0x%08x\n", (unsigned long long)r->chunk, h->worker, j,
                        ws_elem(f, j), r->sum[j]);
            return 0;
        }
    return 0;
}

/* RESULTs: check them, stamp their rounds, and let each worker send its next chunk. */
static int take_results(bench *b, uint64_t limit)
{
    unsigned K = b->o->count, W = b->o->workers;
    for (unsigned p = 0; p < b->ports; p++) {
        const uint8_t *f;
        size_t len;
        uint64_t c_first, c_last;
        while (ws_sim_pop_stamped(b->sim, p, &f, &len, &c_first, &c_last) == 1) {
            ws_hdr h;
            if (ws_result_check(f, len, &h) != 0 || h.job != JOB_ID || h.worker >= W ||
                h.count != K || (h.flags & WS_FLAG_RETX))
                return fail(b, "port %u: an unexpected frame of %zu bytes at cycle %llu", p, len,
                            (unsigned long long)c_last);
            uint64_t chunk = ((uint64_t)(h.tensor - TENSOR_ID) << 32 | h.offset) / K;
            round_rec *r = &b->ring[chunk % b->ring_n];
            if (r->chunk != chunk)
                return fail(b, "port %u: RESULT of chunk %llu, which is not in flight", p,
                            (unsigned long long)chunk);
            if (check_result(b, r, f, &h))
                return -1;
            r->out++;
            if (c_first < r->first_out)
                r->first_out = c_first;
            if (c_last > r->last_out)
                r->last_out = c_last;
            unsigned w = h.worker;
            b->done_chunks[w]++;
            uint64_t next = chunk + b->window;
            if (next < limit && send_chunk(b, w, next)) /* each slot runs on its own */
                return -1;
            if (r->out == W) {
                if (r->in != W)
                    return fail(b, "chunk %llu: all RESULTs out with %u of %u contributions "
                                "stamped", (unsigned long long)chunk, r->in, W);
                if (round_done(b, r))
                    return -1;
            }
        }
    }
    return 0;
}

static int step(bench *b, uint64_t cycles, uint64_t limit)
{
    ws_sim_run(b->sim, cycles);
    if (ws_sim_error(b->sim))
        return fail(b, "model: %s", ws_sim_error(b->sim));
    if (take_ingress(b) || take_results(b, limit))
        return -1;
    return 0;
}

static int setup(bench *b, unsigned window)
{
    const ws_bench_opts *o = b->o;
    b->window = window;
    /* without --trace, the model built without tracing (if the binary has one): faster */
    ws_session_opts so = {WS_DEVICE_VERILATOR, o->width, o->trace != NULL};
    b->dev = ws_session_open(&so, b->err, b->errlen);
    if (!b->dev)
        return b->failed = 1, -1;
    b->sim = ws_session_sim(b->dev);
    b->bus = ws_session_bus(b->dev);
    if (ws_session_open_driver(b->dev, &b->params, b->err, b->errlen))
        return b->failed = 1, -1;
    const ws_dev_params *p = &b->params;
    b->ports = o->ports ? o->ports : p->ports;
    if (b->ports > p->ports)
        return fail(b, "--ports %u: the model has %u", o->ports, p->ports);
    if (o->workers < 1 || o->workers > p->workers)
        return fail(b, "--workers %u: the model supports 1..%u", o->workers, p->workers);
    if (o->slots < 1 || o->slots > p->pool)
        return fail(b, "--slots %u: the model has a pool of %u slots", o->slots, p->pool);
    if (o->count < 1 || o->count > p->count)
        return fail(b, "--count %u: the model's MAX_COUNT is %u (build one with "
                    "WS_VFLAGS=-GMAX_COUNT=...)", o->count, p->count);

    ws_config *c = &b->cfg;
    ws_config_default(c);
    c->max_jobs = p->jobs;
    c->max_workers = p->workers;
    c->pool_slots = p->pool;
    c->max_count = p->count;
    ws_job *jb = ws_config_add_workload(c, JOB_ID, p->ports, o->workers, o->slots, o->count);
    if (!jb)
        return fail(b, "%u ports, %u workers: beyond the host's limits", p->ports, o->workers);
    if (ws_config_check(c, b->err, b->errlen))
        return b->failed = 1, -1;
    if (ws_session_configure(b->dev, c, b->err, b->errlen))
        return b->failed = 1, -1;

    unsigned W = o->workers;
    b->done_chunks = calloc(W, sizeof *b->done_chunks);
    b->port_q = calloc(b->ports, sizeof *b->port_q);
    b->pq_head = calloc(b->ports, sizeof *b->pq_head);
    b->pq_n = calloc(b->ports, sizeof *b->pq_n);
    b->pq_cap = 256;
    /* chunks i and i+S of a slot may be in flight together, i+2S only once i is done: one
     * entry per (slot, SET) */
    b->ring_n = 2 * (size_t)window;
    b->ring = calloc(b->ring_n, sizeof *b->ring);
    b->frame = malloc(ws_frame_len(o->count));
    b->elems = malloc(o->count * sizeof *b->elems);
    if (!b->done_chunks || !b->port_q || !b->pq_head || !b->pq_n || !b->ring ||
        !b->frame || !b->elems)
        return fail(b, "out of memory");
    for (unsigned q = 0; q < b->ports; q++)
        if (!(b->port_q[q] = malloc(b->pq_cap * sizeof **b->port_q)))
            return fail(b, "out of memory");
    for (size_t i = 0; i < b->ring_n; i++) {
        b->ring[i].chunk = UINT64_MAX;
        if (!(b->ring[i].sum = malloc(o->count * sizeof *b->ring[i].sum)))
            return fail(b, "out of memory");
    }
    ws_sim_stamps(b->sim, 1);
    return 0;
}

static void teardown(bench *b)
{
    ws_session_free(b->dev);
    b->dev = NULL;
    b->sim = NULL;
    free(b->done_chunks);
    for (unsigned q = 0; b->port_q && q < b->ports; q++)
        free(b->port_q[q]);
    free(b->port_q);
    free(b->pq_head);
    free(b->pq_n);
    for (size_t i = 0; b->ring && i < b->ring_n; i++)
        free(b->ring[i].sum);
    free(b->ring);
    free(b->frame);
    free(b->elems);
    free(b->lat_first.v);
    free(b->lat_last.v);
    b->done_chunks = NULL;
    b->port_q = NULL;
    b->pq_head = b->pq_n = NULL;
    b->ring = NULL;
    b->frame = NULL;
    b->elems = NULL;
    memset(&b->lat_first, 0, sizeof b->lat_first);
    memset(&b->lat_last, 0, sizeof b->lat_last);
}

/* Load phase: windows full, every port with its next frame queued. */
static int phase_load(bench *b, ws_bench_result *res)
{
    const ws_bench_opts *o = b->o;
    if (setup(b, o->slots))
        return -1;
    if (o->trace &&
        ws_sim_trace_open(b->sim, o->trace, o->trace_from, o->trace_to, b->err, b->errlen))
        return b->failed = 1, -1;
    uint64_t limit = UINT64_MAX;
    for (unsigned i = 0; i < o->slots; i++)
        for (unsigned w = 0; w < o->workers; w++)
            if (send_chunk(b, w, i))
                return -1;
    uint64_t t0 = ws_sim_cycle(b->sim);
    b->win_from = UINT64_MAX; /* no latency counted during the warm-up */
    b->win_to = UINT64_MAX;
    while (ws_sim_cycle(b->sim) - t0 < o->warmup)
        if (step(b, LOAD_STEP, limit))
            return -1;
    /* open the window */
    ws_sim_stats s0, s1;
    uint32_t a0, a1;
    uint64_t c0, c1;
    if (accepted_edge(b, &a0, &c0))
        return -1;
    ws_sim_stats_get(b->sim, &s0);
    uint64_t c0s = ws_sim_cycle(b->sim);
    b->win_from = c0s;
    uint64_t queue_empty = 0, steps = 0;
    while (ws_sim_cycle(b->sim) - c0s < o->cycles) {
        if (step(b, LOAD_STEP, limit))
            return -1;
        steps++;
        for (unsigned p = 0; p < b->ports; p++)
            if (ws_sim_pending(b->sim, p) == 0) {
                queue_empty++;
                break;
            }
    }
    ws_sim_stats_get(b->sim, &s1);
    uint64_t c1s = ws_sim_cycle(b->sim);
    b->win_to = c1s;
    if (accepted_edge(b, &a1, &c1))
        return -1;
    /* rounds whose last contribution came in inside the window may still be completing:
     * stop sending and let them finish */
    limit = 0;
    for (int busy = 1; busy;) {
        if (ws_sim_cycle(b->sim) - c1 > 1000000)
            return fail(b, "load phase: rounds still incomplete 10^6 cycles after the window");
        if (step(b, LOAD_STEP, limit))
            return -1;
        busy = 0;
        for (size_t k = 0; k < b->ring_n && !busy; k++)
            busy = b->ring[k].chunk != UINT64_MAX && b->ring[k].in == o->workers;
    }
    ws_sim_trace_close(b->sim);
    unsigned bytes = o->width / 8;
    res->cycles = c1 - c0;
    res->accepted = (uint32_t)(a1 - a0); /* the low words: fewer than 2^32 frames a window */
    res->beats_in = s1.beats_in - s0.beats_in;
    res->util = (double)res->accepted * res->beats / (double)res->cycles;
    res->util_in = (double)res->beats_in / (double)(c1s - c0s);
    double payload = 4.0 * o->count;
    res->wire_limit = payload / (res->frame_bytes + WIRE_OVERHEAD);
    res->engines = b->params.engines ? b->params.engines : 1;
    res->goodput = (double)res->accepted * payload / ((double)res->cycles * bytes * res->engines);
    res->wire_eff = res->goodput / res->wire_limit;
    res->goodput_gbps = (double)res->accepted * payload * 8 / (double)res->cycles * o->clock_mhz *
                        1e-3;
    res->queue_empty = queue_empty;
    res->steps = steps;
    res->ports = b->ports;
    summarize(&b->lat_first, &b->lat_last, &res->load);
    res->model_cycles += ws_sim_cycle(b->sim);
    return 0;
}

/* Idle phase: a window of one chunk per worker. */
static int phase_idle(bench *b, ws_bench_result *res)
{
    const ws_bench_opts *o = b->o;
    if (setup(b, 1))
        return -1;
    res->engines = b->params.engines ? b->params.engines : 1;
    b->win_from = 0;
    b->win_to = UINT64_MAX;
    /* one round more than measured: the first one starts from an empty device, all workers at
     * once; it is not counted */
    uint64_t limit = (uint64_t)o->idle_rounds + 1;
    for (unsigned w = 0; w < o->workers; w++)
        if (send_chunk(b, w, 0))
            return -1;
    uint64_t guard = ws_sim_cycle(b->sim) + 10000 + limit * 4 * (uint64_t)o->workers *
                     (res->beats + 64);
    for (;;) {
        if (step(b, IDLE_STEP, limit))
            return -1;
        int all = 1;
        for (unsigned w = 0; w < o->workers; w++)
            all &= b->done_chunks[w] == limit;
        if (all)
            break;
        if (ws_sim_cycle(b->sim) > guard)
            return fail(b, "idle phase: rounds did not complete by cycle %llu",
                        (unsigned long long)guard);
    }
    /* drop round 0 (lat lists are in completion order) */
    if (b->lat_first.n > 0) {
        memmove(b->lat_first.v, b->lat_first.v + 1, (b->lat_first.n - 1) * sizeof(uint64_t));
        memmove(b->lat_last.v, b->lat_last.v + 1, (b->lat_last.n - 1) * sizeof(uint64_t));
        b->lat_first.n--;
        b->lat_last.n--;
    }
    summarize(&b->lat_first, &b->lat_last, &res->idle);
    res->model_cycles += ws_sim_cycle(b->sim);
    return 0;
}

int ws_bench(const ws_bench_opts *o, ws_bench_result *res, FILE *out, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (o->width != 256 && o->width != 512 && o->width != 1024) {
        snprintf(err, errlen, "--width %u: must be 256, 512 or 1024", o->width);
        return -1;
    }
    if (o->count < 1 || o->count > WS_LIMIT_COUNT || o->workers < 1 ||
        o->workers > WS_LIMIT_WORKERS || o->slots < 1 || o->slots > WS_LIMIT_SLOTS) {
        snprintf(err, errlen, "workers 1..%d, count 1..%d and slots 1..%d", WS_LIMIT_WORKERS,
                 WS_LIMIT_COUNT, WS_LIMIT_SLOTS);
        return -1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    res->frame_bytes = (unsigned)ws_frame_len(o->count);
    res->beats = (res->frame_bytes + o->width / 8 - 1) / (o->width / 8);
    bench b = {.o = o, .out = out, .err = err, .errlen = errlen};
    int rc = 0;
    if (o->cycles)
        rc = phase_load(&b, res);
    uint64_t checked = b.checked, bad = b.bad;
    teardown(&b);
    if (rc == 0 && o->idle_rounds) {
        b = (bench){.o = o, .out = out, .err = err, .errlen = errlen};
        rc = phase_idle(&b, res);
        checked += b.checked;
        bad += b.bad;
        teardown(&b);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    res->results_checked = checked;
    res->bad_results = bad;
    if (rc)
        return -1;
    return bad ? 1 : 0;
}
