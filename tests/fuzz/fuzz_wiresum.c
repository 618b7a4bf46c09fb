/* fuzz_wiresum.c - fuzz target: arbitrary frames into the software reference and the RTL model.
 *
 * The input is read as a structure, so that the fuzzer reaches the deep states of the protocol
 * (open rounds, complete sets, duplicates, early packets, mismatches) and not only bad
 * checksums. Missing bytes read as 0.
 *
 *   header   W S J   then per job: A B C
 *     W      model width: the (W mod n)-th DATA_WIDTH built in
 *     S      stress: ingress idle (S & 15) * 5 %, egress backpressure (S >> 4) * 5 %
 *     J      jobs 1 + J % 3; bit 6: the last job (of 2 or 3) is configured disabled;
 *            bit 7: the jobs sit at the end of the pool instead of its start
 *     A      workers: 1 + A % 6, or 64 when A is 0xff
 *     B      slots: 1 + B % 4
 *     C      max_count: one of 1, 2, LANES-1, LANES, LANES+1, 16, 40, 256 (C % 8); on a
 *            model that takes PARTIALs, at most what its MAX_FRAME allows the job's longest
 *            PARTIAL (docs/protocol.md section 9: 190 at 9216 bytes)
 *   records, until the input ends: an op byte O (ingress port O & 3, kind (O >> 2) % 8), then
 *     0 DATA    j w ss c v        a valid DATA frame of rank w of job j for slot (ss >> 1),
 *                                 SET ss & 1, chunk c (c fixes offset, tensor and count), values
 *                                 from seed v
 *     1 ROUND   j ss c m v        every rank of job j sends chunk c (rank order rotated by v),
 *                                 each on its member's port, or all on port O & 3 if m & 0x40;
 *                                 rank (m & 0x3f) % workers left out if m & 0x80
 *     2 MUTATE  j w ss c v n {k a b}*  a DATA frame as above, then 1 + n % 4 mutations (k a b);
 *                                 afterwards lengths are made consistent if n & 0x40 and
 *                                 checksums are recomputed unless n & 0x80
 *     3 RAW     L bytes...        1 + L raw bytes taken from the input
 *     4 BYPASS  k l               another protocol, address or port (or an IPv4 version that
 *                                 is not 4 to the device's address), of a length from l: runts,
 *                                 minimum, MTU, jumbo, MAX_FRAME, and oversize frames
 *     5 DUP     q                 the previous frame again, on port q
 *     6 IDLE    n                 4n cycles with no new frame (model only)
 *     7 SPOOF   j w ss c v k      a valid DATA frame whose source MAC, IP, UDP port (k % 8:
 *                                 one byte of one of them, all three, or the addresses of
 *                                 another member) is not rank w's, checksums valid
 *
 * An input that starts with "TREE" is read otherwise: tests/fuzz/fuzz_tree.h, a tree of
 * devices (PARTIAL frames, parents' RESULTs): references, and models beside them when the models
 * linked in take PARTIALs.
 *
 * The models are those linked in (scripts/fuzz.sh links one build's: the default one, or the
 * PARTIAL = 1 build). Through tests/ws_pair.h the reference is the device the model is: its
 * max_frame the model's MAX_FRAME (the BYPASS lengths MAX_FRAME and MAX_FRAME + 1 are the
 * model's), PARTIALs taken if the model takes them.
 *
 * After the records: every enabled job completes every open round of every slot (the missing
 * ranks send the round's chunk), then starts a fresh round in the empty set of each slot with
 * values whose exact sum a double holds (|m| < 2^24 times 2^-10..2^10, 64 workers), so the
 * expected RESULT is computed here without driver/xsum.c; the reference's RESULTs must equal it
 * bit for bit, and the model's must equal the reference's. Then tests/ws_pair.h's checks: every
 * frame and counter of the model equals the reference's, counters account for every frame, no
 * hang, no stream error; per frame, dropped frames change no state and every RESULT is the
 * exact sum of the contributions accepted.
 *
 * Built by scripts/fuzz.sh: with libFuzzer (clang -fsanitize=fuzzer,address,undefined), and
 * with WS_FUZZ_MAIN as a plain program that replays files and directories (the regression
 * corpus, tests/fuzz/corpus and tests/fuzz/regress).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "ws_pair.h"

#define FZ_MAX_RECORDS 64       /* records read per input: bounds the time of one input */
#define FZ_MAX_FRAMES 600       /* frames pushed per input, final rounds excluded */
#define FZ_BIG 13000            /* longest frame built: above every model's MAX_FRAME (12352 at
                                 * most in the builds of the Makefile), so oversize ones too */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- reading the input -------------------------------------------------------------------- */

typedef struct {
    const uint8_t *d;
    size_t n, at;
} rd;

static uint8_t get8(rd *r) { return r->at < r->n ? r->d[r->at++] : 0; }
static int more(const rd *r) { return r->at < r->n; }

/* ---- the models, one per width, kept across inputs (each input resets and reconfigures) ---- */

static ws_session *sims[8];
static ws_dev_params params[8]; /* their build parameters (PARAM_*) */
static unsigned widths[8];
static size_t n_widths;

/* The session of the model of width number idx (mod the number built in), opened on first use
 * (the traced Verilator model), and its build parameters in *pp if pp is not NULL. */
static ws_session *sim_for(unsigned idx, const ws_dev_params **pp, char *err, size_t errlen)
{
    if (!n_widths) {
        n_widths = ws_sim_widths(widths, 8);
        if (!n_widths) {
            snprintf(err, errlen, "no model built in");
            return NULL;
        }
    }
    idx %= (unsigned)n_widths;
    if (!sims[idx]) {
        ws_session_opts o = {WS_DEVICE_VERILATOR, widths[idx], 1};
        ws_session *s = ws_session_open(&o, err, errlen);
        if (!s)
            return NULL;
        if (wsp_params(s, &params[idx], err, errlen)) {
            ws_session_free(s);
            return NULL;
        }
        sims[idx] = s;
    }
    if (pp)
        *pp = &params[idx];
    return sims[idx];
}

#include "fuzz_tree.h" /* inputs that start with "TREE": a tree of devices */

/* ---- values ------------------------------------------------------------------------------ */

static const uint32_t specials[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
    0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u,
    0xbf800000u, 0x33800000u, 0x4b800001u, 0xcb800000u};

/* Element i of rank w's frame from seed v: mostly gradients of mixed magnitudes, with special
 * values (zeros, subnormals, extremes, Inf, NaN) when v says so. */
static uint32_t value(uint8_t v, unsigned w, unsigned i)
{
    uint64_t z = ws_mix64((uint64_t)v << 32 | (uint64_t)w << 16 | i);
    switch (v & 3) {
    case 0:
        if ((z & 7) == 0)
            return specials[(z >> 8) % (sizeof specials / sizeof specials[0])];
        /* fall through */
    case 1:
    case 2: {
        uint32_t ex = 100 + (uint32_t)((z >> 40) % 55);
        return (uint32_t)(z >> 63) << 31 | ex << 23 | ((uint32_t)z & 0x7fffffu);
    }
    default:
        return (uint32_t)(z >> 13);
    }
}

/* ---- building ----------------------------------------------------------------------------- */

typedef struct {
    ws_pair p;
    unsigned lanes;
    unsigned job_ok[3];   /* enabled */
    uint8_t last[FZ_BIG]; /* the previous frame, for DUP */
    size_t last_len;
    uint8_t buf[FZ_BIG];
} fz;

static unsigned pick_count(unsigned c, unsigned lanes)
{
    const unsigned t[8] = {1, 2, lanes - 1, lanes, lanes + 1, 16, 40, 256};
    unsigned v = t[c % 8];
    return v ? v : 1;
}

/* Offset, tensor and count of chunk c of job j. */
static void chunk_id(const ws_job *jb, uint8_t c, uint32_t *off, uint32_t *tensor, unsigned *count)
{
    *off = (uint32_t)c * 64u;
    *tensor = 0x7000u + (c >> 5);
    *count = 1 + (unsigned)(c * 37u + 5u) % jb->max_count;
}

static size_t build_data(fz *z, unsigned j, unsigned w, unsigned slot, unsigned set, uint8_t c,
                         uint8_t v)
{
    const ws_job *jb = &z->p.cfg.job[j];
    uint32_t off, tensor, elems[256];
    unsigned count;
    chunk_id(jb, c, &off, &tensor, &count);
    for (unsigned i = 0; i < count; i++)
        elems[i] = value(v, w, i);
    return wsp_data(&z->p.cfg, j, w, slot, set, off, tensor, count, elems, z->buf);
}

static int push(fz *z, unsigned port, const uint8_t *f, size_t len)
{
    if (len > sizeof z->last)
        len = sizeof z->last;
    if (f != z->last)
        memcpy(z->last, f, len);
    z->last_len = len;
    return wsp_push(&z->p, port % z->p.cfg.n_ports, f, len, NULL);
}

static void set_lengths(uint8_t *f, size_t len)
{
    if (len >= WS_OFF_IP + 4 && len - 14 <= 0xffff)
        ws_put16(f + WS_OFF_IP + 2, (uint16_t)(len - 14));
    if (len >= WS_OFF_UDP + 6 && len - 34 <= 0xffff)
        ws_put16(f + WS_OFF_UDP + 4, (uint16_t)(len - 34));
}

/* One mutation (k, a, b) of the frame in z->buf of *len bytes. */
static void mutate(fz *z, size_t *len, uint8_t k, uint8_t a, uint8_t b)
{
    uint8_t *f = z->buf;
    size_t n = *len;
    switch (k % 12) {
    case 0: /* set a byte */
        f[((size_t)a << 8 | b) % n] = b;
        break;
    case 1: /* flip bits */
        f[((size_t)a * 7 + b) % n] ^= b ? b : 1;
        break;
    case 2: /* truncate */
        *len = 1 + ((size_t)a << 8 | b) % n;
        break;
    case 3: { /* trailing bytes */
        size_t add = 1 + (size_t)b * (a & 0x80 ? 37 : 1);
        if (n + add > FZ_BIG)
            add = FZ_BIG - n;
        memset(f + n, a, add);
        *len = n + add;
        break;
    }
    case 4: { /* one aggregation header field */
        uint8_t *h = f + WS_OFF_AGG;
        if (n < WS_OFF_ELEMS)
            break;
        switch (a % 11) {
        case 0: h[0] = b; break;                                  /* version and type */
        case 1: h[1] = b; break;                                  /* dtype */
        case 2: h[2] = b; break;                                  /* flags */
        case 3: h[3] = b; break;                                  /* reserved */
        case 4:                                                   /* job: another's, or any */
            ws_put16(h + 4, b < 0x80 ? z->p.cfg.job[b % z->p.cfg.n_jobs].id : (uint16_t)(b * 0x0101u));
            break;
        case 5: ws_put16(h + 6, b < 0xf0 ? b % 70 : (uint16_t)(0xff00u | b)); break; /* worker */
        case 6: ws_put16(h + 8, b < 0xf0 ? b % 70 : (uint16_t)(0xff00u | b)); break; /* slot */
        case 7: ws_put16(h + 10, b < 0xf0 ? b : (uint16_t)(0xff00u | b)); break;     /* count */
        case 8: ws_put32(h + 12, ws_get32(h + 12) ^ (1u << (b % 32))); break;        /* offset */
        case 9: ws_put32(h + 16, ws_get32(h + 16) ^ (1u << (b % 32))); break;        /* tensor */
        default: h[20 + (b & 1)] = b | 1; break;                                      /* reserved */
        }
        break;
    }
    case 5: /* source MAC */
        f[6 + a % 6] = b;
        break;
    case 6: /* source IP */
        if (n >= 30)
            f[26 + a % 4] = b;
        break;
    case 7: /* source UDP port */
        if (n >= 36)
            ws_put16(f + 34, (uint16_t)(a << 8 | b));
        break;
    case 8: /* an IPv4 header byte */
        if (n >= 34)
            f[14 + a % 20] = b;
        break;
    case 9: /* a UDP header byte */
        if (n >= 42)
            f[34 + a % 8] = b;
        break;
    case 10: /* UDP checksum "none" (accepted), or ECN bits (accepted) */
        if (n >= 42 && (a & 1))
            ws_put16(f + 40, 0);
        else if (n >= 16)
            f[15] = (uint8_t)((f[15] & 0xfc) | (b & 3));
        break;
    default: /* EtherType, destination IP or port */
        if (a % 3 == 0)
            f[12 + (b & 1)] = b;
        else if (a % 3 == 1 && n >= 34)
            f[30 + b % 4] ^= 1;
        else if (n >= 38)
            ws_put16(f + 36, (uint16_t)(48900 + (b & 3)));
        break;
    }
}

/* A non-aggregation frame (or an IPv4 frame with another version to the device) of a length
 * from l. */
static size_t build_bypass(fz *z, uint8_t k, uint8_t l)
{
    size_t mf = ws_config_max_frame(&z->p.cfg); /* the model's MAX_FRAME */
    const size_t lens[] = {1, 13, 14, 33, 34, 41, 42, 60, 63, 64, 65, 68, 100, 1514,
                           9000, mf, mf + 1, 9600, FZ_BIG};
    size_t len = lens[l % (sizeof lens / sizeof lens[0])];
    if (l >= 0xc0)
        len = 14 + (size_t)(l - 0xc0) * 3;
    if (len > FZ_BIG)
        len = FZ_BIG;
    uint8_t *f = z->buf;
    for (size_t i = 0; i < len; i++)
        f[i] = (uint8_t)(i * 29u + k);
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.dst_mac, z->p.cfg.mac, 6);
    memcpy(h.src_mac, z->p.cfg.job[0].member[0].mac, 6);
    h.src_ip = z->p.cfg.job[0].member[0].ip;
    h.dst_ip = z->p.cfg.ip;
    h.src_port = 1234;
    h.dst_port = z->p.cfg.udp_port;
    h.count = 1;
    uint8_t hdr[WS_OFF_ELEMS + 4];
    uint32_t e = 0;
    ws_build(hdr, &h, &e);
    memcpy(f, hdr, len < sizeof hdr ? len : sizeof hdr);
    set_lengths(f, len);
    switch (k % 8) {
    case 0: if (len >= 14) ws_put16(f + 12, 0x0806); break;  /* ARP */
    case 1: if (len >= 14) ws_put16(f + 12, 0x86dd); break;  /* IPv6 */
    case 2: if (len >= 14) ws_put16(f + 12, 0x8100); break;  /* VLAN */
    case 3: if (len >= 34) f[33] ^= 0x40; break;             /* another IP */
    case 4: if (len >= 24) f[23] = 6; break;                 /* TCP to the device */
    case 5: if (len >= 38) ws_put16(f + 36, 53); break;      /* UDP to another port */
    case 6: if (len >= 15) f[14] = 0x65; break;              /* IPv6 in IPv4: dropped, bad_ipv4 */
    default: break;                                          /* an aggregation frame of any length */
    }
    ws_fix_checksums(f, len);
    return len;
}

/* ---- the final rounds --------------------------------------------------------------------- */

/* A value m * 2^e, |m| < 2^24, -10 <= e <= 10: 64 of them sum exactly in a double. */
static uint32_t exact_value(ws_rng *r, double *as_double)
{
    uint64_t z = ws_rng_next(r);
    int32_t m = (int32_t)(z & 0xffffffu) * ((z >> 24) & 1 ? -1 : 1);
    int e = (int)((z >> 32) % 21) - 10;
    if (((z >> 40) & 15) == 0)
        m = 0; /* zeros, of either sign below */
    double d = ldexp((double)m, e);
    float f = (float)d;
    if (m == 0 && ((z >> 44) & 1))
        f = -0.0f;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    *as_double = (double)f;
    return bits;
}

static int final_rounds(fz *z, uint64_t seed)
{
    ws_pair *p = &z->p;
    ws_rng r = {seed};
    uint32_t elems[256];
    for (unsigned j = 0; j < p->cfg.n_jobs; j++) {
        const ws_job *jb = &p->cfg.job[j];
        if (!jb->enable)
            continue;
        for (unsigned s = 0; s < jb->slots; s++) {
            ws_set_state st[2];
            for (unsigned t = 0; t < 2; t++) {
                ws_refdev_set_state(p->ref, jb->id, s, t, &st[t]);
                if (st[t].complete)
                    continue;
                /* finish the open round: the missing ranks send its chunk */
                for (unsigned w = 0; w < jb->workers; w++) {
                    if (st[t].bitmap >> w & 1)
                        continue;
                    for (unsigned i = 0; i < st[t].count; i++)
                        elems[i] = value((uint8_t)(seed + w), w, i);
                    size_t len = wsp_data(&p->cfg, j, w, s, t, st[t].offset, st[t].tensor,
                                          st[t].count, elems, z->buf);
                    ws_verdict v;
                    if (wsp_push(p, (w + s) % p->cfg.n_ports, z->buf, len, &v))
                        return -1;
                    if (v.kind != WS_V_ACCEPT && v.kind != WS_V_COMPLETE)
                        return wsp_fail(p, "final: job %u slot %u set %u: rank %u's part of the "
                                        "open round was not accepted (%s)", jb->id, s, t, w,
                                        ws_reason_name(v.reason));
                }
            }
            for (unsigned t = 0; t < 2; t++)
                ws_refdev_set_state(p->ref, jb->id, s, t, &st[t]);
            if (!st[0].complete || !st[1].complete)
                return wsp_fail(p, "final: job %u slot %u: a round is still open", jb->id, s);
            int t = st[0].bitmap == 0 ? 0 : st[1].bitmap == 0 ? 1 : -1;
            if (t < 0)
                return wsp_fail(p, "final: job %u slot %u: both sets complete and in use "
                                "(bitmaps 0x%llx, 0x%llx)", jb->id, s,
                                (unsigned long long)st[0].bitmap, (unsigned long long)st[1].bitmap);
            /* a fresh round: all ranks, in an order and on ports drawn from the seed */
            unsigned count = 1 + (unsigned)ws_rng_below(&r, jb->max_count);
            double sum[256];
            memset(sum, 0, sizeof sum);
            unsigned order[64];
            for (unsigned w = 0; w < jb->workers; w++)
                order[w] = w;
            for (unsigned w = jb->workers; w > 1; w--) {
                unsigned k = (unsigned)ws_rng_below(&r, w), tmp = order[w - 1];
                order[w - 1] = order[k];
                order[k] = tmp;
            }
            int all_negzero[256];
            for (unsigned i = 0; i < count; i++)
                all_negzero[i] = 1;
            for (unsigned k = 0; k < jb->workers; k++) {
                unsigned w = order[k];
                for (unsigned i = 0; i < count; i++) {
                    double d;
                    elems[i] = exact_value(&r, &d);
                    sum[i] += d;
                    if (elems[i] != 0x80000000u)
                        all_negzero[i] = 0;
                }
                size_t len = wsp_data(&p->cfg, j, w, s, (unsigned)t, 0xf0000000u + s,
                                      0xfeed0000u + j, count, elems, z->buf);
                ws_verdict v;
                if (wsp_push(p, (unsigned)ws_rng_below(&r, p->cfg.n_ports), z->buf, len, &v))
                    return -1;
                int last = k + 1 == jb->workers;
                if (v.kind != (last ? WS_V_COMPLETE : WS_V_ACCEPT))
                    return wsp_fail(p, "final: job %u slot %u set %d: rank %u of a fresh round: "
                                    "verdict %d (%s)", jb->id, s, t, w, v.kind,
                                    ws_reason_name(v.reason));
            }
            /* the RESULTs the reference just sent against the sums computed here */
            if (p->cap.n != jb->workers)
                return wsp_fail(p, "final: %zu RESULTs for %u workers", p->cap.n, jb->workers);
            for (unsigned k = 0; k < jb->workers; k++)
                for (unsigned i = 0; i < count; i++) {
                    float f = all_negzero[i] ? -0.0f : (float)sum[i];
                    uint32_t want;
                    memcpy(&want, &f, 4);
                    uint32_t got = ws_elem(p->cap.f[k].data, i);
                    if (got != want)
                        return wsp_fail(p, "final: job %u slot %u set %d element %u: RESULT "
                                        "0x%08x, exact sum 0x%08x", jb->id, s, t, i, got, want);
                }
        }
    }
    return 0;
}

/* ---- one input ---------------------------------------------------------------------------- */

static fz *zz; /* large: allocated once */

static int run_input(const uint8_t *data, size_t size, char *msg, size_t msglen)
{
    if (size >= 4 && !memcmp(data, "TREE", 4))
        return tree_input(data + 4, size - 4, msg, msglen);
    rd in = {data, size, 0};
    char err[512];
    if (!zz && !(zz = calloc(1, sizeof *zz))) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    fz *z = zz;
    const ws_dev_params *dp;
    ws_session *sim = sim_for(get8(&in), &dp, err, sizeof err);
    if (!sim) {
        snprintf(msg, msglen, "%s", err);
        return -1;
    }
    uint8_t sb = get8(&in), jb = get8(&in);
    ws_sim_stress stress = {(sb & 15u) * 5u, (sb >> 4) * 5u, ws_mix64(size)};
    unsigned lanes = ws_session_width(sim) / 32;
    unsigned n_jobs = 1 + jb % 3, workers[3], slots[3], maxc[3], total = 0;
    for (unsigned j = 0; j < n_jobs; j++) {
        uint8_t a = get8(&in), b = get8(&in), c = get8(&in);
        workers[j] = a == 0xff ? 64 : 1 + a % 6;
        slots[j] = 1 + b % 4;
        maxc[j] = pick_count(c, lanes);
        /* a device that takes PARTIALs takes its jobs' longest (docs/protocol.md section 9):
         * on one whose MAX_FRAME is short of that, the longest count it can have */
        if (dp->partial && ws_partial_max_len(maxc[j]) > dp->max_frame)
            maxc[j] = (unsigned)((dp->max_frame - WS_OFF_ELEMS) /
                                 (ws_partial_max_len(1) - WS_OFF_ELEMS));
        total += slots[j];
    }
    ws_config cfg;
    wsp_config(&cfg, n_jobs, workers, slots, maxc, jb & 0x80 ? WS_DEFAULT_POOL_SLOTS - total : 0);
    if ((jb & 0x40) && n_jobs >= 2)
        cfg.job[n_jobs - 1].enable = false;
    z->lanes = lanes;
    z->last_len = 0;
    ws_pair *p = &z->p;
    int rc = wsp_open(p, sim, &cfg, &stress);
    for (unsigned rec = 0; rc == 0 && more(&in) && rec < FZ_MAX_RECORDS &&
                           p->frames < FZ_MAX_FRAMES;
         rec++) {
        uint8_t op = get8(&in);
        unsigned port = op & 3u, kind = (op >> 2) % 8u;
        switch (kind) {
        case 0:
        case 2:
        case 7: {
            unsigned j = get8(&in) % n_jobs;
            unsigned w = get8(&in) % cfg.job[j].workers;
            uint8_t ss = get8(&in), c = get8(&in), v = get8(&in);
            size_t len = build_data(z, j, w, (ss >> 1) % cfg.job[j].slots, ss & 1, c, v);
            if (kind == 2) {
                uint8_t n = get8(&in);
                for (unsigned m = 0; m <= (n & 3u); m++) {
                    uint8_t k = get8(&in), a = get8(&in), b = get8(&in);
                    mutate(z, &len, k, a, b);
                }
                if (n & 0x40)
                    set_lengths(z->buf, len);
                if (!(n & 0x80))
                    ws_fix_checksums(z->buf, len);
            } else if (kind == 7) {
                uint8_t k = get8(&in);
                const ws_member *o = &cfg.job[j].member[(w + 1 + k / 8) % cfg.job[j].workers];
                switch (k % 8) {
                case 0: z->buf[6 + k / 8 % 6] ^= 0x10; break;        /* a MAC byte */
                case 1: z->buf[26 + k / 8 % 4] ^= 0x02; break;       /* an IP byte */
                case 2: z->buf[34 + (k / 8 & 1)] ^= 0x01; break;     /* the UDP port */
                case 3: z->buf[11] ^= 0x80; z->buf[29] ^= 0x80; z->buf[35] ^= 0x80; break;
                case 4: memcpy(z->buf + 6, o->mac, 6); break;        /* another member's ... */
                case 5: ws_put32(z->buf + 26, o->ip); break;
                case 6: ws_put16(z->buf + 34, o->udp_port); break;
                default:                                              /* ... whole identity */
                    memcpy(z->buf + 6, o->mac, 6);
                    ws_put32(z->buf + 26, o->ip);
                    ws_put16(z->buf + 34, o->udp_port);
                    break;
                }
                ws_fix_checksums(z->buf, len);
            }
            rc = push(z, port, z->buf, len);
            break;
        }
        case 1: {
            unsigned j = get8(&in) % n_jobs;
            uint8_t ss = get8(&in), c = get8(&in), m = get8(&in), v = get8(&in);
            unsigned n = cfg.job[j].workers, skip = m & 0x80 ? (m & 0x3fu) % n : n;
            for (unsigned k = 0; k < n && rc == 0; k++) {
                unsigned w = (k + v) % n;
                if (w == skip)
                    continue;
                size_t len = build_data(z, j, w, (ss >> 1) % cfg.job[j].slots, ss & 1, c, v);
                rc = push(z, m & 0x40 ? port : cfg.job[j].member[w].port, z->buf, len);
            }
            break;
        }
        case 3: {
            size_t len = 1 + (size_t)get8(&in);
            for (size_t i = 0; i < len; i++)
                z->buf[i] = get8(&in);
            rc = push(z, port, z->buf, len);
            break;
        }
        case 4: {
            uint8_t k = get8(&in), l = get8(&in);
            size_t len = build_bypass(z, k, l);
            rc = push(z, port, z->buf, len);
            break;
        }
        case 5: {
            uint8_t q = get8(&in);
            if (z->last_len)
                rc = push(z, q, z->last, z->last_len);
            break;
        }
        default: {
            unsigned n = get8(&in);
            ws_session_run(sim, 4u * n);
            rc = wsp_collect(p);
            break;
        }
        }
    }
    if (rc == 0)
        rc = final_rounds(z, ws_mix64(size ^ 0x5eed));
    if (rc == 0)
        rc = wsp_check(p);
    if (rc)
        snprintf(msg, msglen, "width %u, %u jobs, stress idle %u%% backpressure %u%%: %s",
                 ws_session_width(sim), n_jobs, stress.idle_pct, stress.backpressure_pct, p->err);
    wsp_close(p);
    return rc ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[WSP_ERRLEN + 200];
    if (run_input(data, size, msg, sizeof msg)) {
        fprintf(stderr, "fuzz_wiresum: invariant failed: %s\n", msg);
        abort();
    }
    return 0;
}

#ifdef WS_FUZZ_MAIN
/* Replay: every file named, and every file of every directory named. */
#include <dirent.h>
#include <sys/stat.h>

static int replay_file(const char *path, unsigned *pass, unsigned *fail)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        ++*fail;
        return -1;
    }
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char msg[WSP_ERRLEN + 200];
    if (run_input(buf, n, msg, sizeof msg)) {
        printf("FAIL %s: %s\n", path, msg);
        ++*fail;
        return -1;
    }
    ++*pass;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    unsigned pass = 0, fail = 0;
    int verbose = argc > 1 && !strcmp(argv[1], "-v");
    for (int i = 1 + verbose; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb)) {
            fprintf(stderr, "%s: no such file or directory\n", argv[i]);
            fail++;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            replay_file(argv[i], &pass, &fail);
            continue;
        }
        DIR *d = opendir(argv[i]);
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                char **nn = realloc(names, cap * sizeof *nn);
                if (!nn)
                    break;
                names = nn;
            }
            size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = malloc(l);
            if (!names[n])
                break;
            snprintf(names[n], l, "%s/%s", argv[i], e->d_name);
            n++;
        }
        if (d)
            closedir(d);
        if (n)
            qsort(names, n, sizeof *names, by_name);
        for (size_t k = 0; k < n; k++) {
            if (replay_file(names[k], &pass, &fail) == 0 && verbose)
                printf("ok   %s\n", names[k]);
            free(names[k]);
        }
        free(names);
    }
    for (size_t k = 0; k < n_widths; k++)
        ws_session_free(sims[k]);
    ft_free_sims();
    free(zz);
    printf("fuzz replay: %u passed, %u failed\n", pass, fail);
    return fail ? 1 : 0;
}
#endif
