/* gen.c - trace generator: worker window protocol in closed loop with the reference device. */
#include "f32.h"
#include "gen.h"
#include "ws_err.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "wiresum/config.h"
#include "wiresum/refdev.h"
#include "progress.h"
#include "rng.h"
#include "trace.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"
#include "ws_grow.h"

#define NONE UINT64_MAX
#define STEP_NS 1000 /* one frame per microsecond of trace time */

typedef struct {
    uint64_t chunk;    /* chunk in this slot, NONE before the first */
    uint64_t last_tx;  /* step of its last transmission */
    uint8_t have_result;
} wslot;

typedef struct {
    uint64_t chunk, due;
    uint8_t retx;
} pend_dup;

typedef struct {
    unsigned job, rank;
    uint64_t next; /* next new chunk */
    wslot *slot;
    pend_dup *dup;
    unsigned ndup;
    size_t capdup;
} worker;

typedef struct {
    uint32_t a, b, r;
} f32_vec;

typedef struct {
    const ws_gen_opts *o;
    ws_gen_stats *st;
    ws_config cfg;
    ws_refdev *dev;
    ws_trace_out *out;
    worker *w;
    unsigned nw;
    uint64_t nch, total, step, timeout;
    ws_rng rng;
    f32_vec *vec; /* --vectors: one f32_add case per element (A of worker 0, B of worker 1, R) */
    uint32_t *rec; /* --from: [step][worker][element], the recorded gradients */
    uint16_t disabled_job; /* id of the disabled job, or 0xffff-free marker */
    int has_disabled;
    char *err;
    size_t errlen;
    int failed;
    ws_progress prog;
    uint64_t work, sums_done; /* progress: chunks to send and to sum, sum chunks written */
    uint32_t elems[WS_LIMIT_COUNT + 1];
    uint8_t frame[WS_OFF_ELEMS + 4 * (WS_LIMIT_COUNT + 1) + 64];
    uint8_t big[9100];
} gen;

void ws_gen_defaults(ws_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ports = 4;
    o->jobs = 1;
    o->workers = 4;
    o->slots = 16;
    o->count = 64;
    o->tensors = 1;
    o->pool_slots = WS_DEFAULT_POOL_SLOTS;
    o->elems = 4096;
    o->seed = 1;
    o->values = WS_VALUES_MIXED;
}

static int fail(gen *g, const char *fmt, ...)
{
    if (!g->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err, g->errlen, fmt, ap);
        va_end(ap);
    }
    g->failed = 1;
    return -1;
}

/* ---- values ---------------------------------------------------------------------------- */

static const uint32_t special_finite[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
    0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x33800000, 0xb3800000,
    0x33000000, 0x3f800001, 0x4b800000, 0xcb800000, 0x73000000, 0xf3000000, 0x7f000000,
    0xff000000, 0x00400000, 0x80000003,
};
static const uint32_t special_nonfinite[] = {0x7f800000, 0xff800000, 0x7fc00000,
                                             0x7f800001, 0xffc00001, 0xffffffff};


/* A gradient-like value: bell-shaped significand, magnitude spread over many binades. */
static uint32_t normal_value(uint64_t h)
{
    int64_t x = (int64_t)(h & 0xffff) + (int64_t)(h >> 16 & 0xffff) + (int64_t)(h >> 32 & 0xffff) +
                (int64_t)(h >> 48 & 0xffff) - 2 * 65535;
    uint64_t h2 = ws_mix64(h);
    int e = -(int)(h2 % 28) - 4;
    if ((h2 >> 32) % 64 == 0)
        e += 24; /* an occasional outlier */
    return ws_f32_bits((float)ldexp((double)x, e - 17));
}

static uint32_t special_value(uint64_t h)
{
    uint64_t h2 = ws_mix64(h);
    switch (h % 16) {
    case 0:
        return special_nonfinite[h2 % (sizeof special_nonfinite / 4)];
    case 1: /* any subnormal */
        return (uint32_t)(h2 & 0x807fffff);
    case 2: /* extreme binades */
        return (uint32_t)((h2 & 0x807fffff) | (h2 >> 40 & 1 ? 0x7e800000 : 0x00800000));
    default:
        return special_finite[h2 % (sizeof special_finite / 4)];
    }
}

uint32_t ws_gen_value(ws_values_kind kind, uint64_t seed, unsigned j, unsigned t, unsigned w,
                      uint64_t i)
{
    uint64_t h = ws_mix64(ws_mix64(ws_mix64(seed ^ ((uint64_t)j << 32 | t)) ^ w) ^ i);
    switch (kind) {
    case WS_VALUES_NORMAL:
        return normal_value(h);
    case WS_VALUES_SPECIAL:
        return special_value(h);
    case WS_VALUES_MIXED:
        break;
    }
    return h % 16 == 0 ? special_value(ws_mix64(h)) : normal_value(h);
}

static uint32_t value(const gen *g, unsigned j, unsigned t, unsigned w, uint64_t i)
{
    if (g->vec)
        return w == 0 ? g->vec[i].a : g->vec[i].b;
    if (g->rec)
        return g->rec[(t * g->o->workers + w) * g->o->elems + i];
    return ws_gen_value(g->o->values, g->o->seed, j, t, w, i);
}

/* ---- configuration ---------------------------------------------------------------------- */

static uint16_t job_id(unsigned j) { return (uint16_t)(7 + 4099 * j); }
static uint32_t tensor_id(unsigned j, uint64_t t) { return (uint32_t)job_id(j) << 16 | (uint32_t)(t + 1); }

/* the job of --malformed's frames to a disabled job */
#define DISABLED_JOB 0x0d15

int ws_gen_check(const ws_gen_opts *o, char *err, size_t errlen)
{
    const struct {
        const char *opt;
        double v, max;
    } rates[] = {{"--loss", o->loss, 0.5},
                 {"--dup", o->dup, 1},
                 {"--malformed", o->malformed, 1},
                 {"--bypass", o->bypass, 1},
                 {"--ecn", o->ecn, 1}};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        if (!(rates[i].v >= 0 && rates[i].v <= rates[i].max))
            return ws_errf(err, errlen, "%s %g: must be in 0..%g", rates[i].opt, rates[i].v,
                           rates[i].max);
    if (o->tensors < 1 || o->tensors > 65535)
        return ws_errf(err, errlen, "--tensors %u: must be 1..65535", o->tensors);
    if (o->ports < 1 || o->ports > WS_LIMIT_PORTS)
        return ws_errf(err, errlen, "--ports %u: must be 1..%d", o->ports, WS_LIMIT_PORTS);
    if (o->jobs < 1 || o->jobs > WS_LIMIT_JOBS - 1)
        return ws_errf(err, errlen, "--jobs %u: must be 1..%d", o->jobs, WS_LIMIT_JOBS - 1);
    if (o->workers < 1 || o->workers > WS_LIMIT_WORKERS)
        return ws_errf(err, errlen, "--workers %u: must be 1..%d", o->workers,
                       WS_LIMIT_WORKERS);
    if (o->count < 1 || o->count > WS_LIMIT_COUNT)
        return ws_errf(err, errlen, "--count %u: must be 1..%d", o->count, WS_LIMIT_COUNT);
    if (o->slots < 1 || (uint64_t)o->slots * o->jobs + (o->malformed > 0) > o->pool_slots)
        return ws_errf(err, errlen, "--slots %u x --jobs %u%s do not fit the pool of %u slots "
                       "(--pool)", o->slots, o->jobs,
                       o->malformed > 0 ? " + 1 (disabled job)" : "", o->pool_slots);
    if (o->elems < 1 || o->elems > 0xffffffffull)
        return ws_errf(err, errlen, "--elems %llu: must be 1..2^32-1",
                       (unsigned long long)o->elems);
    return 0;
}

int ws_gen_config(const ws_gen_opts *o, ws_config *c, char *err, size_t errlen)
{
    ws_config_default(c);
    c->n_ports = o->ports;
    for (unsigned p = 0; p < o->ports; p++)
        c->bypass[p] = (uint8_t)((p ^ 1) < o->ports ? p ^ 1 : p);
    c->pool_slots = o->pool_slots;
    c->max_count = o->count > WS_DEFAULT_MAX_COUNT ? o->count : WS_DEFAULT_MAX_COUNT;
    c->max_jobs = o->jobs + 1 > WS_DEFAULT_MAX_JOBS ? o->jobs + 1 : WS_DEFAULT_MAX_JOBS;
    unsigned base = 0;
    for (unsigned j = 0; j < o->jobs; j++) {
        ws_job *jb = &c->job[c->n_jobs++];
        jb->id = job_id(j);
        jb->enable = true;
        jb->workers = o->workers;
        jb->slots = o->slots;
        jb->slot_base = base;
        base += o->slots;
        jb->max_count = o->count;
        for (unsigned w = 0; w < o->workers; w++) {
            ws_member *m = &jb->member[w];
            const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, (uint8_t)(j + 1), (uint8_t)w};
            memcpy(m->mac, mac, 6);
            m->ip = 0x0a000000u | (j + 1) << 8 | (w + 1);
            m->udp_port = (uint16_t)(40000 + j);
            m->port = (uint8_t)((w + j) % o->ports);
        }
    }
    if (o->malformed > 0) { /* a disabled job, so that its drop reason is exercised */
        ws_job *jb = &c->job[c->n_jobs++];
        *jb = c->job[0];
        jb->id = DISABLED_JOB;
        jb->enable = false;
        jb->slots = 1;
        jb->slot_base = base;
    }
    return ws_config_check(c, err, errlen);
}

static int make_config(gen *g)
{
    if (ws_gen_config(g->o, &g->cfg, g->err, g->errlen))
        return g->failed = 1, -1;
    g->has_disabled = g->o->malformed > 0;
    g->disabled_job = DISABLED_JOB;
    return 0;
}

/* ---- frames ----------------------------------------------------------------------------- */

static void chunk_geom(const gen *g, uint64_t c, unsigned *slot, unsigned *set, uint32_t *offset,
                       unsigned *count, uint64_t *tensor)
{
    uint64_t t = c / g->nch, i = c % g->nch;
    uint64_t off = i * g->o->count;
    *slot = (unsigned)(c % g->o->slots);
    *set = (unsigned)((c / g->o->slots) & 1);
    *offset = (uint32_t)off;
    *count = (unsigned)(g->o->elems - off < g->o->count ? g->o->elems - off : g->o->count);
    *tensor = t;
}

static void data_hdr(const gen *g, const worker *w, ws_hdr *h)
{
    const ws_job *jb = &g->cfg.job[w->job];
    const ws_member *m = &jb->member[w->rank];
    ws_hdr_init(h);
    memcpy(h->dst_mac, g->cfg.mac, 6);
    memcpy(h->src_mac, m->mac, 6);
    h->src_ip = m->ip;
    h->dst_ip = g->cfg.ip;
    h->src_port = m->udp_port;
    h->dst_port = g->cfg.udp_port;
    h->job = jb->id;
    h->worker = (uint16_t)w->rank;
}

static size_t build_data(gen *g, const worker *w, uint64_t c, int retx, uint8_t *buf)
{
    ws_hdr h;
    unsigned slot, set, count;
    uint32_t offset;
    uint64_t t;
    chunk_geom(g, c, &slot, &set, &offset, &count, &t);
    data_hdr(g, w, &h);
    h.ip_id = (uint16_t)ws_rng_next(&g->rng);
    if (g->o->ecn > 0)
        h.tos = ws_rng_chance(&g->rng, g->o->ecn) ? 3 : 2;
    h.flags = (uint8_t)(set | (retx ? WS_FLAG_RETX : 0));
    h.slot = (uint16_t)slot;
    h.count = (uint16_t)count;
    h.offset = offset;
    h.tensor = tensor_id(w->job, t);
    for (unsigned i = 0; i < count; i++)
        g->elems[i] = value(g, w->job, (unsigned)t, w->rank, offset + i);
    return ws_build(buf, &h, g->elems);
}

/* A RESULT leaving the device reaches its worker unless the network loses it. */
static void on_output(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    gen *g = ctx;
    (void)egress;
    if (!ws_is_result(f, len, g->cfg.ip, g->cfg.udp_port))
        return;
    ws_hdr h;
    ws_parse(f, &h);
    const ws_job *jb = ws_config_find_job(&g->cfg, h.job);
    if (!jb || h.worker >= jb->workers || h.slot >= jb->slots)
        return;
    if (ws_rng_chance(&g->rng, g->o->loss)) {
        g->st->lost_results++;
        return;
    }
    worker *w = &g->w[(size_t)(jb - g->cfg.job) * g->o->workers + h.worker];
    wslot *s = &w->slot[h.slot];
    if (s->chunk == NONE || s->have_result)
        return;
    unsigned slot, set, count;
    uint32_t offset;
    uint64_t t;
    chunk_geom(g, s->chunk, &slot, &set, &offset, &count, &t);
    if ((h.flags & WS_FLAG_SET) == set && h.offset == offset && h.count == count &&
        h.tensor == tensor_id(w->job, t))
        s->have_result = 1; /* anything else is stale: ignored */
}

/* One frame enters the device on `port` and is written to in<port>.pcap. */
static void emit(gen *g, unsigned port, const uint8_t *f, size_t len)
{
    if (g->failed)
        return;
    if (ws_trace_write(g->out, port, g->step * STEP_NS, f, len, g->err, g->errlen) != 0) {
        g->failed = 1;
        return;
    }
    g->st->frames++;
    g->step++;
    ws_refdev_rx(g->dev, port, f, len, on_output, g);
}

static void push_dup(gen *g, worker *w, uint64_t c, int retx)
{
    pend_dup *p = ws_grow(w->dup, &w->capdup, (size_t)w->ndup + 1, sizeof *p, 8);
    if (!p) {
        fail(g, "out of memory");
        return;
    }
    w->dup = p;
    w->dup[w->ndup++] = (pend_dup){c, g->step + 1 + ws_rng_below(&g->rng, 4 * (uint64_t)g->nw + 8),
                                   (uint8_t)retx};
}

static void transmit(gen *g, worker *w, uint64_t c, int retx)
{
    size_t len = build_data(g, w, c, retx, g->frame);
    w->slot[c % g->o->slots].last_tx = g->step;
    if (retx)
        g->st->retx++;
    else
        g->st->data++;
    if (ws_rng_chance(&g->rng, g->o->loss)) {
        g->st->lost_data++;
        g->step++; /* the frame took its time on the wire before it was lost */
        return;
    }
    emit(g, g->cfg.job[w->job].member[w->rank].port, g->frame, len);
    if (ws_rng_chance(&g->rng, g->o->dup))
        push_dup(g, w, c, retx);
}

static void send_dup(gen *g, worker *w, unsigned k)
{
    pend_dup d = w->dup[k];
    w->dup[k] = w->dup[--w->ndup];
    size_t len = build_data(g, w, d.chunk, d.retx, g->frame);
    g->st->dups++;
    emit(g, g->cfg.job[w->job].member[w->rank].port, g->frame, len);
}

/* ---- malformed and bypass frames -------------------------------------------------------- */

/* Set IPv4 total length and UDP length from the frame length, then the checksums. */
static void set_lengths(uint8_t *f, size_t len)
{
    ws_put16(f + WS_OFF_IP + 2, (uint16_t)(len - WS_ETH_LEN));
    ws_put16(f + WS_OFF_UDP + 4, (uint16_t)(len - WS_OFF_UDP));
    ws_fix_checksums(f, len);
}

/* A frame from w for (slot, set) with the given round identity. */
static size_t build_custom(gen *g, const worker *w, unsigned slot, unsigned set, uint32_t offset,
                           unsigned count, uint32_t tensor, uint8_t *buf)
{
    ws_hdr h;
    data_hdr(g, w, &h);
    h.flags = (uint8_t)set;
    h.slot = (uint16_t)slot;
    h.count = (uint16_t)count;
    h.offset = offset;
    h.tensor = tensor;
    for (unsigned i = 0; i < count; i++)
        g->elems[i] = (uint32_t)ws_rng_next(&g->rng);
    return ws_build(buf, &h, g->elems);
}

/* Find a (worker, slot, set) of the device state: open round the worker has not
 * joined (want_open) or complete, non-empty set the worker has left. */
static size_t state_frame(gen *g, int want_open, uint8_t *buf)
{
    unsigned start = (unsigned)ws_rng_below(&g->rng, g->nw);
    for (unsigned n = 0; n < g->nw; n++) {
        worker *w = &g->w[(start + n) % g->nw];
        const ws_job *jb = &g->cfg.job[w->job];
        for (unsigned k = 0; k < jb->slots * 2; k++) {
            ws_set_state s;
            ws_refdev_set_state(g->dev, jb->id, k / 2, k % 2, &s);
            if (s.bitmap >> w->rank & 1)
                continue;
            if (want_open && !s.complete)
                return build_custom(g, w, k / 2, k % 2, s.offset + (s.count ? s.count : 1),
                                    s.count, s.tensor, buf);
            if (!want_open && s.complete && s.bitmap)
                return build_custom(g, w, k / 2, k % 2, s.offset, s.count, s.tensor, buf);
        }
    }
    return 0;
}

#define N_MALFORMED 26

static size_t malformed_frame(gen *g, unsigned kind, uint8_t *f)
{
    worker *w = &g->w[ws_rng_below(&g->rng, g->nw)];
    uint64_t c = w->next ? w->next - 1 : 0;
    size_t len = build_data(g, w, c, 0, f);
    uint8_t *ip = f + WS_OFF_IP, *a = f + WS_OFF_AGG;
    const ws_job *jb = &g->cfg.job[w->job];
    unsigned r = (unsigned)ws_rng_next(&g->rng);
    switch (kind) {
    case 0: /* IPv6 version under EtherType 0x0800 */
        ip[0] = 0x65;
        break;
    case 1: /* IPv4 options */
        memmove(f + WS_OFF_UDP + 4, f + WS_OFF_UDP, len - WS_OFF_UDP);
        ip[0] = 0x46;
        memset(f + WS_OFF_UDP, 0x01, 4); /* four NOP options */
        len += 4;
        ws_put16(ip + 2, (uint16_t)(len - WS_ETH_LEN));
        ws_fix_checksums(f, len);
        break;
    case 2: /* more fragments */
        ws_put16(ip + 6, ws_get16(ip + 6) | 0x2000);
        ws_fix_checksums(f, len);
        break;
    case 3: /* fragment offset */
        ws_put16(ip + 6, (uint16_t)(0x0001 + r % 0x1fff));
        ws_fix_checksums(f, len);
        break;
    case 4: /* header checksum */
        ws_put16(ip + 10, (uint16_t)(ws_get16(ip + 10) ^ (1u << r % 16)));
        break;
    case 5: /* truncated: IPv4 total length no longer matches */
        len -= 1 + r % (len - WS_OFF_UDP - 4);
        break;
    case 6: /* UDP length */
        ws_put16(f + WS_OFF_UDP + 4, (uint16_t)(ws_get16(f + WS_OFF_UDP + 4) + 1 + r % 8));
        break;
    case 7: /* UDP checksum: one payload bit flipped after it was computed */
        f[WS_OFF_AGG + 12 + r % (len - WS_OFF_AGG - 12)] ^= (uint8_t)(1u << (r >> 8) % 8);
        break;
    case 8: /* header version: any but WS_VERSION */
        a[0] = (uint8_t)((WS_VERSION + 1 + r % 15) % 16 << 4 | WS_TYPE_DATA);
        ws_fix_checksums(f, len);
        break;
    case 9: /* unknown type (PARTIAL, 2, is known, though refused by a device without it) */
        a[0] = (uint8_t)(WS_VERSION << 4 | (3 + r % 13));
        ws_fix_checksums(f, len);
        break;
    case 10: /* dtype */
        a[1] = (uint8_t)(1 + r % 255);
        ws_fix_checksums(f, len);
        break;
    case 11: /* reserved flag bits */
        a[2] |= (uint8_t)(0x04 << r % 6);
        ws_fix_checksums(f, len);
        break;
    case 12: /* reserved byte 3 */
        a[3] = (uint8_t)(1 + r % 255);
        ws_fix_checksums(f, len);
        break;
    case 13: /* reserved bytes 20..21 */
        ws_put16(a + 20, (uint16_t)(1 + r % 0xffff));
        ws_fix_checksums(f, len);
        break;
    case 14: /* a RESULT sent to the device */
        a[0] = WS_VERSION << 4 | WS_TYPE_RESULT;
        ws_fix_checksums(f, len);
        break;
    case 15: /* unknown job */
        ws_put16(a + 4, 0xfffe);
        ws_fix_checksums(f, len);
        break;
    case 16: /* disabled job */
        ws_put16(a + 4, g->disabled_job);
        ws_fix_checksums(f, len);
        break;
    case 17: /* rank out of range */
        ws_put16(a + 6, (uint16_t)(jb->workers + r % 100));
        ws_fix_checksums(f, len);
        break;
    case 18: /* spoofed source MAC */
        f[6 + 1 + r % 5] ^= (uint8_t)(1 + (r >> 8) % 255);
        break;
    case 19: /* spoofed source IP */
        ws_put32(ip + 12, ws_get32(ip + 12) ^ (1u + (r >> 4) % 0xffff));
        ws_fix_checksums(f, len);
        break;
    case 20: /* spoofed source UDP port */
        ws_put16(f + WS_OFF_UDP, (uint16_t)(ws_get16(f + WS_OFF_UDP) + 1 + r % 100));
        ws_fix_checksums(f, len);
        break;
    case 21: /* slot out of range */
        ws_put16(a + 8, (uint16_t)(jb->slots + r % 100));
        ws_fix_checksums(f, len);
        break;
    case 22: /* count 0, or above max_count, with a frame length to match */
        if (r & 1) {
            len = build_custom(g, w, 0, 0, 0, jb->max_count + 1, 1, f);
        } else {
            ws_put16(a + 10, 0);
            len = WS_OFF_ELEMS;
            set_lengths(f, len);
        }
        break;
    case 23: /* trailing bytes */
        memset(f + len, 0, 4);
        len += 1 + r % 4;
        set_lengths(f, len);
        break;
    case 24: /* short: no room for the whole header, or elements missing */
        len = (r & 1) ? (size_t)(WS_OFF_AGG + r % (WS_AGG_LEN)) : len - 1 - (r >> 1) % 3;
        set_lengths(f, len);
        break;
    case 25: /* mismatch or early, from the device's state */
        len = state_frame(g, r & 1, f);
        break;
    }
    return len;
}

#define N_BYPASS 9

static size_t bypass_frame(gen *g, unsigned kind, uint8_t *f)
{
    unsigned r = (unsigned)ws_rng_next(&g->rng);
    worker *w = &g->w[ws_rng_below(&g->rng, g->nw)];
    size_t len;
    uint8_t *ip = f + WS_OFF_IP;
    switch (kind) {
    case 0: /* ARP request */
        len = 42;
        memset(f, 0, len);
        memset(f, 0xff, 6);
        f[6] = 0x02, f[11] = (uint8_t)r;
        ws_put16(f + 12, 0x0806);
        ws_put16(f + 14, 1), ws_put16(f + 16, 0x0800), f[18] = 6, f[19] = 4, ws_put16(f + 20, 1);
        ws_put32(f + 38, g->cfg.ip);
        return len;
    case 1: /* IPv6 UDP to the aggregation port */
        len = 14 + 40 + 8 + 32;
        memset(f, 0, len);
        f[0] = 0x02, f[6] = 0x02;
        ws_put16(f + 12, 0x86dd);
        f[14] = 0x60, ws_put16(f + 18, 40), f[20] = 17, f[21] = 64;
        ws_put16(f + 56, g->cfg.udp_port), ws_put16(f + 58, 40);
        return len;
    case 2: /* TCP to the device's address */
    case 3: /* UDP to the device's address, another port */
    case 4: /* aggregation-like UDP to another address */
    case 5: /* full-size frame to another host */
    case 6: /* jumbo frame to another host */
        len = build_data(g, w, w->next ? w->next - 1 : 0, 0, f);
        if (kind == 2) {
            ip[9] = 6;
        } else if (kind == 3) {
            ws_put16(f + WS_OFF_UDP + 2, (uint16_t)(g->cfg.udp_port + 1 + r % 1000));
        } else if (kind == 4) {
            ws_put32(ip + 16, g->cfg.ip ^ (1u << (8 + r % 24)));
        } else {
            size_t n = kind == 5 ? 1514 : sizeof g->big - 86;
            uint8_t *b = kind == 5 ? f : g->big;
            if (kind == 6)
                memcpy(b, f, len);
            for (size_t i = len; i < n; i++)
                b[i] = (uint8_t)(i * 7 + r);
            ws_put32(b + WS_OFF_IP + 16, 0x0a000001u);
            set_lengths(b, n);
            return n;
        }
        ws_fix_checksums(f, len);
        return len;
    case 7: /* VLAN-tagged aggregation frame */
        len = build_data(g, w, w->next ? w->next - 1 : 0, 0, f + 4);
        memmove(f, f + 4, 12);
        ws_put16(f + 12, 0x8100);
        ws_put16(f + 14, (uint16_t)(r % 4095 + 1));
        return len + 4;
    default: /* runt */
        len = 1 + r % 59;
        for (size_t i = 0; i < len; i++)
            f[i] = (uint8_t)ws_rng_next(&g->rng);
        return len;
    }
}

static void inject(gen *g)
{
    if (ws_rng_chance(&g->rng, g->o->bypass)) {
        unsigned kind = (unsigned)ws_rng_below(&g->rng, N_BYPASS);
        size_t len = bypass_frame(g, kind, g->frame);
        const uint8_t *f = kind == 6 ? g->big : g->frame;
        unsigned port = (unsigned)ws_rng_below(&g->rng, g->cfg.n_ports);
        if (ws_refdev_judge(g->dev, port, f, len).kind == WS_V_BYPASS) {
            g->st->bypass++;
            emit(g, port, f, len);
        }
    }
    if (ws_rng_chance(&g->rng, g->o->malformed)) {
        unsigned kind = (unsigned)ws_rng_below(&g->rng, N_MALFORMED);
        if (kind == 16 && !g->has_disabled)
            kind = 15;
        size_t len = malformed_frame(g, kind, g->frame);
        unsigned port = (unsigned)ws_rng_below(&g->rng, g->cfg.n_ports);
        ws_verdict v = len ? ws_refdev_judge(g->dev, port, g->frame, len) : (ws_verdict){0, 0};
        if (len && v.kind == WS_V_DROP) { /* never let a broken frame change state */
            g->st->malformed[v.reason]++;
            emit(g, port, g->frame, len);
        }
    }
}

/* ---- the protocol loop ------------------------------------------------------------------- */

/* Perform one action of worker w if it has one ready; returns 1 if it did. */
static int worker_act(gen *g, worker *w)
{
    for (unsigned k = 0; k < w->ndup; k++)
        if (w->dup[k].due <= g->step) {
            send_dup(g, w, k);
            return 1;
        }
    for (unsigned k = 0; k < g->o->slots; k++) {
        wslot *s = &w->slot[k];
        if (s->chunk != NONE && !s->have_result && g->step - s->last_tx >= g->timeout) {
            transmit(g, w, s->chunk, 1);
            return 1;
        }
    }
    if (w->next < g->total) {
        wslot *s = &w->slot[w->next % g->o->slots];
        if (s->chunk == NONE || s->have_result) {
            /* duplicates of the chunk leaving this slot must not outlive it */
            for (unsigned k = 0; k < w->ndup;)
                if (w->dup[k].chunk == s->chunk)
                    send_dup(g, w, k);
                else
                    k++;
            s->chunk = w->next++;
            s->have_result = 0;
            transmit(g, w, s->chunk, 0);
            return 1;
        }
    }
    return 0;
}

static int worker_done(const gen *g, const worker *w)
{
    if (w->next < g->total)
        return 0;
    for (unsigned k = 0; k < g->o->slots; k++)
        if (w->slot[k].chunk != NONE && !w->slot[k].have_result)
            return 0;
    return 1;
}

/* The next step at which some worker has something to do (time passes idly until then). */
static uint64_t next_event(const gen *g)
{
    uint64_t t = NONE;
    for (unsigned i = 0; i < g->nw; i++) {
        const worker *w = &g->w[i];
        for (unsigned k = 0; k < w->ndup; k++)
            if (w->dup[k].due < t)
                t = w->dup[k].due;
        for (unsigned k = 0; k < g->o->slots; k++) {
            const wslot *s = &w->slot[k];
            if (s->chunk != NONE && !s->have_result && s->last_tx + g->timeout < t)
                t = s->last_tx + g->timeout;
        }
    }
    return t;
}

/* The progress display: the chunks sent first (not retransmissions), then the sums. */
static void show_progress(gen *g)
{
    uint64_t sent = 0;
    for (unsigned i = 0; i < g->nw; i++)
        sent += g->w[i].next;
    ws_progress_show(&g->prog, (double)(sent + g->sums_done) / (double)g->work,
                     "%llu frames, %llu of %llu chunks sent, %llu of %llu summed",
                     (unsigned long long)g->st->frames, (unsigned long long)sent,
                     (unsigned long long)g->total * g->nw, (unsigned long long)g->sums_done,
                     (unsigned long long)(g->work - g->total * g->nw));
}

static int run_protocol(gen *g)
{
    uint64_t limit = 64 * (g->total * g->nw + 1000) + 100 * g->timeout, polls = 0;
    for (;;) {
        if (g->failed)
            break;
        if ((++polls & 1023) == 0 && ws_progress_due(&g->prog))
            show_progress(g);
        if (g->step > limit) {
            fail(g, "generator stalled after %llu steps (a round never completed)",
                 (unsigned long long)g->step);
            break;
        }
        inject(g);
        /* a random worker among those ready */
        unsigned start = (unsigned)ws_rng_below(&g->rng, g->nw), acted = 0;
        for (unsigned n = 0; n < g->nw && !acted; n++)
            acted = (unsigned)worker_act(g, &g->w[(start + n) % g->nw]);
        if (acted)
            continue;
        int all_done = 1;
        for (unsigned i = 0; i < g->nw && all_done; i++)
            all_done = worker_done(g, &g->w[i]);
        if (all_done)
            break;
        uint64_t t = next_event(g);
        if (t == NONE) {
            fail(g, "generator deadlock: workers wait with nothing scheduled");
            break;
        }
        if (t > g->step)
            g->step = t;
    }
    /* late network duplicates still in flight arrive at the end */
    for (unsigned i = 0; i < g->nw && !g->failed; i++)
        while (g->w[i].ndup)
            send_dup(g, &g->w[i], 0);
    return g->failed ? -1 : 0;
}

/* ---- outputs ---------------------------------------------------------------------------- */

static int write_sums(gen *g, const char *dir)
{
    char path[4096];
    uint8_t buf[4096];
    for (unsigned j = 0; j < g->o->jobs; j++)
        for (unsigned t = 0; t < g->o->tensors; t++) {
            snprintf(path, sizeof path, "%s/sum-%u-%u.f32", dir, job_id(j), tensor_id(j, t));
            FILE *f = fopen(path, "wb");
            if (!f)
                return fail(g, "%s: %s", path, strerror(errno));
            size_t n = 0;
            for (uint64_t i = 0; i < g->o->elems; i++) {
                uint32_t s;
                if (g->vec) {
                    s = g->vec[i].r;
                } else {
                    ws_xsum x;
                    ws_xsum_init(&x);
                    for (unsigned w = 0; w < g->o->workers; w++)
                        ws_xsum_add(&x, value(g, j, t, w, i));
                    s = ws_xsum_round(&x);
                }
                ws_put32(buf + n, s);
                n += 4;
                if (n == sizeof buf || i + 1 == g->o->elems) {
                    if (fwrite(buf, 1, n, f) != n)
                        break;
                    n = 0;
                }
                if ((i + 1) % g->o->count == 0 || i + 1 == g->o->elems) {
                    g->sums_done++;
                    if ((g->sums_done & 255) == 0 && ws_progress_due(&g->prog))
                        show_progress(g);
                }
            }
            if (ferror(f) | fclose(f))
                return fail(g, "%s: write failed", path);
        }
    return 0;
}

static uint32_t *rec_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return NULL;
}

uint32_t *ws_gen_load_recording(const char *dir, unsigned *workers, unsigned *steps,
                                uint64_t *elems, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return rec_fail(err, errlen, "--from %s: %s", dir, strerror(errno));
    unsigned nw = 0, ns = 0, files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned w, st;
        int len = 0;
        if (sscanf(e->d_name, "w%u-s%u.f32%n", &w, &st, &len) != 2 || e->d_name[len] != 0)
            continue;
        if (w >= WS_LIMIT_WORKERS || st >= 65535) {
            closedir(d);
            return rec_fail(err, errlen, "%s/%s: worker %u, step %u: the recording's workers "
                            "are 0..%u, its steps 0..65534", dir, e->d_name, w, st,
                            WS_LIMIT_WORKERS - 1);
        }
        nw = w + 1 > nw ? w + 1 : nw;
        ns = st + 1 > ns ? st + 1 : ns;
        files++;
    }
    closedir(d);
    if (files == 0)
        return rec_fail(err, errlen, "--from %s: no recorded gradients (w<worker>-s<step>.f32, "
                        "docs/traces.md)", dir);
    char path[4096], first[4096];
    uint64_t n = 0;
    for (unsigned st = 0; st < ns; st++)
        for (unsigned w = 0; w < nw; w++) {
            snprintf(path, sizeof path, "%s/w%u-s%u.f32", dir, w, st);
            struct stat sb;
            if (stat(path, &sb) != 0)
                return rec_fail(err, errlen, "%s: %s (the recording has workers 0..%u and steps "
                                "0..%u: every one is needed)", path, strerror(errno), nw - 1,
                                ns - 1);
            if (sb.st_size <= 0 || sb.st_size % 4 != 0 || (uint64_t)sb.st_size / 4 > 0xffffffffu)
                return rec_fail(err, errlen, "%s: %lld bytes: not a positive multiple of 4 "
                                "(binary32 elements)", path, (long long)sb.st_size);
            if (n == 0) {
                n = (uint64_t)sb.st_size / 4;
                snprintf(first, sizeof first, "%s", path);
            } else if ((uint64_t)sb.st_size / 4 != n) {
                return rec_fail(err, errlen, "%s: %lld bytes, but %s has %llu: every tensor of a "
                                "recording has one size", path, (long long)sb.st_size, first,
                                (unsigned long long)n * 4);
            }
        }
    if ((uint64_t)nw * ns > SIZE_MAX / 4 / n)
        return rec_fail(err, errlen, "--from %s: too large", dir);
    uint32_t *rec = malloc((size_t)nw * ns * n * 4);
    uint8_t *buf = malloc(n * 4);
    if (!rec || !buf) {
        free(rec);
        free(buf);
        return rec_fail(err, errlen, "out of memory");
    }
    for (unsigned st = 0; st < ns && rec; st++)
        for (unsigned w = 0; w < nw && rec; w++) {
            snprintf(path, sizeof path, "%s/w%u-s%u.f32", dir, w, st);
            FILE *f = fopen(path, "rb");
            if (!f || fread(buf, 4, n, f) != n) {
                free(rec);
                rec = rec_fail(err, errlen, "%s: cannot read", path);
            } else {
                for (uint64_t i = 0; i < n; i++)
                    rec[((uint64_t)st * nw + w) * n + i] = ws_get32(buf + 4 * i);
            }
            if (f)
                fclose(f);
        }
    free(buf);
    if (rec) {
        *workers = nw;
        *steps = ns;
        *elems = n;
    }
    return rec;
}

/* TestFloat f32_add lines (A B R flags, hex): worker 0 adds A, worker 1 adds B,
 * and the expected sum is R (any NaN as the canonical 0x7fc00000). */
static int load_vectors(gen *g, const char *path, uint64_t *n_out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(g, "%s: %s", path, strerror(errno));
    char line[256];
    uint64_t n = 0, lineno = 0;
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == 0)
            continue;
        unsigned a, b, r, fl;
        char extra;
        if (sscanf(p, "%8x %8x %8x %2x %c", &a, &b, &r, &fl, &extra) != 4) {
            fclose(f);
            return fail(g, "%s:%llu: not an f32_add line (A B R flags, hex)", path,
                        (unsigned long long)lineno);
        }
        f32_vec *nv = ws_grow(g->vec, &cap, (size_t)n + 1, sizeof *nv, 1024);
        if (!nv) {
            fclose(f);
            return fail(g, "out of memory");
        }
        g->vec = nv;
        g->vec[n].a = a;
        g->vec[n].b = b;
        g->vec[n].r = ((r & 0x7f800000) == 0x7f800000 && (r & 0x7fffff)) ? WS_QNAN : r;
        n++;
    }
    fclose(f);
    if (n == 0)
        return fail(g, "%s: no f32_add lines", path);
    *n_out = n;
    return 0;
}

/* Refuse, before writing anything, a trace that would not fit in the free space of the file
 * system of dir (of its parent while it does not exist): its in<P>.pcap and sums come to at
 * least the DATA frames' first transmissions (headers, elements and the pcap record header of
 * each) and the sums; faults only add to it. */
static int check_space(gen *g, const char *dir)
{
    const ws_gen_opts *o = g->o;
    uint64_t frame = WS_OFF_ELEMS + 16; /* headers and the pcap record header */
    double need = (double)o->jobs * o->tensors *
                      ((double)o->workers * ((double)o->elems * 4 + (double)g->nch * frame) +
                       (double)o->elems * 4) +
                  24.0 * o->ports;
    char where[4096];
    snprintf(where, sizeof where, "%s", dir);
    struct statvfs fs;
    while (statvfs(where, &fs) != 0) {
        char *slash = strrchr(where, '/');
        if (errno != ENOENT || !strcmp(where, "."))
            return 0; /* mkdir will say what is wrong with dir */
        if (!slash)
            snprintf(where, sizeof where, ".");
        else if (slash == where)
            where[1] = 0;
        else
            *slash = 0;
    }
    double avail = (double)fs.f_bavail * (double)fs.f_frsize;
    if (need > avail)
        return fail(g, "%s: the trace needs at least %.1f GB (in<P>.pcap and sum-*.f32: %u "
                    "workers x %u tensors x %llu elements), and the file system of %s has %.1f "
                    "GB free", dir, need / 1e9, o->jobs * o->workers, o->tensors,
                    (unsigned long long)o->elems, where, avail / 1e9);
    return 0;
}

int ws_gen(const char *dir, const ws_gen_opts *opts, ws_gen_stats *st, char *err, size_t errlen)
{
    gen *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ws_gen_opts o = *opts;
    g->o = &o;
    g->st = st;
    g->err = err;
    g->errlen = errlen;
    memset(st, 0, sizeof *st);
    g->rng.s = ws_mix64(o.seed ^ 0x5eed);

    if (o.vectors) {
        uint64_t n = 0;
        if (load_vectors(g, o.vectors, &n) == 0) {
            o.jobs = 1;
            o.workers = 2;
            o.tensors = 1;
            o.elems = n;
        }
    } else if (o.from) {
        g->rec = ws_gen_load_recording(o.from, &o.workers, &o.tensors, &o.elems, err, errlen);
        if (g->rec)
            o.jobs = 1;
        else
            g->failed = 1;
    }
    /* the options as --vectors or --from made them */
    if (!g->failed && ws_gen_check(&o, err, errlen))
        g->failed = 1;
    if (!g->failed)
        make_config(g);
    g->nch = (o.elems + o.count - 1) / o.count;
    if (!g->failed)
        check_space(g, dir);
    if (!g->failed && mkdir(dir, 0777) != 0 && errno != EEXIST)
        fail(g, "%s: %s", dir, strerror(errno));
    if (!g->failed && ws_trace_clear(dir, &st->removed, err, errlen))
        g->failed = 1;

    if (!g->failed) {
        char path[4096];
        snprintf(path, sizeof path, "%s/job.ini", dir);
        FILE *f = fopen(path, "w");
        if (!f || ws_config_write(&g->cfg, f) != 0 || fclose(f) != 0)
            fail(g, "%s: %s", path, strerror(errno));
    }
    if (!g->failed) {
        g->dev = ws_refdev_new(&g->cfg, err, errlen);
        g->out = g->dev ? ws_trace_create(dir, "in", o.ports, 0, err, errlen) : NULL;
        if (!g->out)
            g->failed = 1;
    }
    if (!g->failed) {
        g->nw = o.jobs * o.workers;
        g->total = g->nch * o.tensors;
        g->work = g->total * (g->nw + o.jobs);
        g->timeout = 4ull * o.slots * g->nw + 16;
        g->w = calloc(g->nw, sizeof *g->w);
        if (!g->w)
            fail(g, "out of memory");
        for (unsigned i = 0; i < g->nw && !g->failed; i++) {
            g->w[i].job = i / o.workers;
            g->w[i].rank = i % o.workers;
            g->w[i].slot = malloc(o.slots * sizeof(wslot));
            if (!g->w[i].slot) {
                fail(g, "out of memory");
                break;
            }
            for (unsigned k = 0; k < o.slots; k++)
                g->w[i].slot[k] = (wslot){NONE, 0, 0};
        }
    }
    ws_progress_init(&g->prog, "gen", o.progress, o.progress_tty);
    if (!g->failed)
        run_protocol(g);
    char scratch[256];
    if (ws_trace_finish(g->out, g->failed ? scratch : err, g->failed ? sizeof scratch : errlen))
        g->failed = 1;
    if (!g->failed)
        write_sums(g, dir);
    ws_progress_end(&g->prog, 1, "%llu frames, sums written", (unsigned long long)st->frames);

    int rc = g->failed ? -1 : 0;
    for (unsigned i = 0; g->w && i < g->nw; i++) {
        free(g->w[i].slot);
        free(g->w[i].dup);
    }
    free(g->w);
    free(g->vec);
    free(g->rec);
    ws_refdev_free(g->dev);
    free(g);
    return rc;
}
