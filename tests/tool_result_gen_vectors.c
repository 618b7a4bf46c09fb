/* tool_result_gen_vectors.c - vectors for tests/hw/tb_ws_result_gen.v: a member table, result
 * RAM contents, a list of ws_result_gen commands and the RESULT frames they must produce, built
 * with driver/wire.c ws_build (so the RTL is checked byte for byte against the C codec).
 *
 * Usage: tool_result_gen_vectors DATA_WIDTH OUTDIR [NCMDS [SEED [MAX_COUNT]]]
 *
 * The RTL parameters other than DATA_WIDTH and MAX_COUNT are the defaults: N_PORTS 4, MAX_JOBS 8,
 * MAX_WORKERS 64, POOL_SLOTS 64. Files written to OUTDIR (hex, one word or record a line):
 *   mem.hex    MAX_JOBS*MAX_WORKERS words {port, udp[15:0], ip[31:0], mac[47:0]}
 *   res.hex    2*POOL_SLOTS*PAY_BEATS rows of DATA_WIDTH bits (lane l at bits l*32)
 *   cmds.hex   q job_idx job_id slot offset tensor count ecn ce csum rank_lo rank_hi retx
 *              (ce: the ranks whose contribution came marked CE, a bit each)
 *   beats.hex  tdata tkeep tlast tuser cmd cmd_end   (one expected output beat a line)
 *   meta.txt   ncmds nbeats nframes nresults nresends phase2_cmd phase3_cmd beats_p1 beats_p2
 *              dev_mac dev_ip dev_udp (decimal, then the device values in hex)
 * Commands p2-1 and NCMDS-1 have rank_lo > rank_hi (no frame).
 * Commands [0, phase2_cmd) are run with random gaps and backpressure, [phase2_cmd, phase3_cmd)
 * back to back without backpressure, the rest with gaps and without backpressure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"

#define N_PORTS 4
#define PORT_W 2
#define MAX_JOBS 8
#define MAX_WORKERS 64
#define POOL_SLOTS 64
#define N_SETS (2 * POOL_SLOTS)
#define N_SPECIAL 8 /* sets 0..7 belong to one special command each */

typedef struct {
    unsigned q, ji, job_id, slot, count, ecn, csum, lo, hi, retx;
    uint32_t offset, tensor;
    uint64_t ce;
} cmd_t;

typedef struct {
    unsigned width, bytes, lanes, max_count, pay_beat0, pay_beats, rows;
    uint32_t *ram; /* rows * lanes words */
    ws_member member[MAX_JOBS * MAX_WORKERS];
    uint8_t dev_mac[6];
    uint32_t dev_ip;
    uint16_t dev_udp;
} ctx_t;

static uint32_t *elem_ref(ctx_t *c, unsigned q, unsigned i)
{
    unsigned pos = 64 + 4 * i, b = pos / c->bytes, lane = (pos % c->bytes) / 4;
    unsigned row = q * c->pay_beats + b - c->pay_beat0;
    return &c->ram[(size_t)row * c->lanes + lane];
}

static uint16_t fold(uint32_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return (uint16_t)acc;
}

/* The command's csum: folded ones-complement sum of the elements' 16-bit words. */
static unsigned payload_csum(ctx_t *c, unsigned q, unsigned count)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i < count; i++) {
        uint32_t w = *elem_ref(c, q, i);
        acc = fold(acc + (w >> 16) + (w & 0xffff));
    }
    return fold(acc);
}

/* Build the RESULT frame of command m for rank r into f; returns the length. */
static size_t build(ctx_t *c, const cmd_t *m, unsigned r, uint8_t *f, unsigned *port)
{
    uint32_t elems[WS_LIMIT_COUNT];
    const ws_member *mb = &c->member[m->ji * MAX_WORKERS + r];
    ws_hdr h;
    ws_hdr_init(&h);
    memcpy(h.dst_mac, mb->mac, 6);
    memcpy(h.src_mac, c->dev_mac, 6);
    /* docs/protocol.md section 7: CE to a rank whose contribution came marked, else the
     * round's OR with CE taken as ECT(0) */
    h.tos = (uint8_t)(m->ce >> r & 1 ? 3 : m->ecn == 3 ? 2 : m->ecn);
    h.src_ip = c->dev_ip;
    h.dst_ip = mb->ip;
    h.src_port = c->dev_udp;
    h.dst_port = mb->udp_port;
    h.type = WS_TYPE_RESULT;
    h.flags = (uint8_t)((m->q & 1 ? WS_FLAG_SET : 0) | (m->retx ? WS_FLAG_RETX : 0));
    h.job = (uint16_t)m->job_id;
    h.worker = (uint16_t)r;
    h.slot = (uint16_t)m->slot;
    h.count = (uint16_t)m->count;
    h.offset = m->offset;
    h.tensor = m->tensor;
    for (unsigned i = 0; i < m->count; i++)
        elems[i] = *elem_ref(c, m->q, i);
    *port = mb->port;
    return ws_build(f, &h, elems);
}

static uint16_t udp_field(const uint8_t *f) { return ws_get16(f + WS_OFF_UDP + 6); }

/* Make the UDP checksum of command m's frame for rank lo compute to 0 (sent as 0xffff) by
 * changing the low 16 bits of its last element. Exits on failure. */
static void force_zero_udp(ctx_t *c, cmd_t *m)
{
    static uint8_t f[WS_OFF_ELEMS + 4 * WS_LIMIT_COUNT];
    unsigned port;
    uint32_t *e = elem_ref(c, m->q, m->count - 1);
    build(c, m, m->lo, f, &port);
    uint16_t ck = udp_field(f);
    if (ck != 0xffff) {
        /* the sum S folds to ~ck; a sum that is 0 mod 0xffff (and not 0) gives checksum 0 */
        uint32_t s = (uint16_t)~ck, w = *e & 0xffff;
        uint32_t w2 = (w + 0xffff - s) % 0xffff;
        for (int t = 0; t < 2; t++, w2 += 0xffff) {
            if (w2 > 0xffff)
                break;
            *e = (*e & 0xffff0000u) | w2;
            build(c, m, m->lo, f, &port);
            if (udp_field(f) == 0xffff)
                break;
        }
    }
    m->csum = payload_csum(c, m->q, m->count);
    build(c, m, m->lo, f, &port);
    /* 0xffff is only ever sent for a computed 0: the sum always holds protocol 0x11 */
    if (udp_field(f) != 0xffff) {
        fprintf(stderr, "tool_result_gen_vectors: could not force a zero UDP checksum\n");
        exit(1);
    }
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tool_result_gen_vectors: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return f;
}

static void close_out(FILE *f, const char *name)
{
    if (ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "tool_result_gen_vectors: writing %s failed\n", name);
        exit(1);
    }
}

static uint32_t rand_elem(ws_rng *rng)
{
    static const uint32_t edge[] = {0x00000000, 0x80000000, 0x7fc00000, 0x7f800000, 0xff800000,
                                    0x00000001, 0xffffffff, 0x0000ffff, 0xffff0000, 0x3f800000};
    if (ws_rng_chance(rng, 0.1))
        return edge[ws_rng_below(rng, sizeof edge / sizeof edge[0])];
    return (uint32_t)ws_rng_next(rng);
}

static unsigned rand_count(ws_rng *rng, const ctx_t *c)
{
    unsigned mc = c->max_count, k = (unsigned)ws_rng_below(rng, 100);
    if (k < 10)
        return 1;
    if (k < 18)
        return mc;
    if (k < 35) { /* a frame ending on a beat boundary, or one element either side */
        unsigned nb = (unsigned)(64 + 4 * mc) / c->bytes;
        unsigned b = 1 + (unsigned)ws_rng_below(rng, nb);
        long n = ((long)b * c->bytes - 64) / 4 + (long)ws_rng_below(rng, 3) - 1;
        if (n < 1)
            n = 1;
        if (n > (long)mc)
            n = mc;
        return (unsigned)n;
    }
    if (k < 65)
        return 1 + (unsigned)ws_rng_below(rng, mc < 32 ? mc : 32);
    return 1 + (unsigned)ws_rng_below(rng, mc);
}

static void rand_ranks(ws_rng *rng, cmd_t *m)
{
    unsigned k = (unsigned)ws_rng_below(rng, 100), n;
    m->lo = (unsigned)ws_rng_below(rng, MAX_WORKERS);
    if (m->retx || k < 35)
        n = 1;
    else if (k < 80)
        n = 2 + (unsigned)ws_rng_below(rng, 7);
    else if (k < 90) {
        m->lo = 0;
        n = MAX_WORKERS;
    } else
        n = 1 + (unsigned)ws_rng_below(rng, MAX_WORKERS);
    m->hi = m->lo + n - 1 < MAX_WORKERS ? m->lo + n - 1 : MAX_WORKERS - 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s DATA_WIDTH OUTDIR [NCMDS [SEED [MAX_COUNT]]]\n", argv[0]);
        return 2;
    }
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.width = (unsigned)strtoul(argv[1], NULL, 10);
    const char *dir = argv[2];
    unsigned ncmds = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 200;
    uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 1;
    c.max_count = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 256;
    if (c.width < 64 || c.width > 2048 || (c.width & (c.width - 1)) || c.max_count < 1 ||
        c.max_count > WS_LIMIT_COUNT || ncmds < 3 * N_SPECIAL) {
        fprintf(stderr, "tool_result_gen_vectors: bad DATA_WIDTH, MAX_COUNT or NCMDS (>= %d)\n",
                3 * N_SPECIAL);
        return 2;
    }
    c.bytes = c.width / 8;
    c.lanes = c.width / 32;
    c.pay_beat0 = 64 / c.bytes;
    c.pay_beats = (64 + 4 * c.max_count + c.bytes - 1) / c.bytes - c.pay_beat0;
    c.rows = N_SETS * c.pay_beats;
    c.ram = calloc((size_t)c.rows * c.lanes, sizeof *c.ram);
    cmd_t *cmds = calloc(ncmds, sizeof *cmds);
    if (!c.ram || !cmds) {
        fprintf(stderr, "tool_result_gen_vectors: out of memory\n");
        return 1;
    }
    ws_rng rng = {seed * 0x9e3779b97f4a7c15ull + c.width + 7919u * c.max_count};

    /* device and member table */
    for (int i = 0; i < 6; i++)
        c.dev_mac[i] = (uint8_t)ws_rng_next(&rng);
    c.dev_mac[0] = (uint8_t)((c.dev_mac[0] & 0xfe) | 0x02);
    c.dev_ip = (uint32_t)ws_rng_next(&rng);
    c.dev_udp = (uint16_t)ws_rng_next(&rng);
    for (unsigned a = 0; a < MAX_JOBS * MAX_WORKERS; a++) {
        ws_member *mb = &c.member[a];
        for (int i = 0; i < 6; i++)
            mb->mac[i] = (uint8_t)ws_rng_next(&rng);
        mb->ip = (uint32_t)ws_rng_next(&rng);
        mb->udp_port = (uint16_t)ws_rng_next(&rng);
        mb->port = (uint8_t)ws_rng_below(&rng, N_PORTS);
        if (a % 97 == 5) { /* extreme values */
            memset(mb->mac, 0xff, 6);
            mb->ip = 0xffffffffu;
            mb->udp_port = 0xffff;
        } else if (a % 97 == 6) {
            memset(mb->mac, 0, 6);
            mb->ip = 0;
            mb->udp_port = 0;
        }
    }

    /* result RAM: every word random, the lanes no element uses included */
    for (size_t i = 0; i < (size_t)c.rows * c.lanes; i++)
        c.ram[i] = rand_elem(&rng);

    /* commands */
    unsigned p2 = ncmds / 2, p3 = ncmds / 2 + ncmds / 4;
    for (unsigned n = 0; n < ncmds; n++) {
        cmd_t *m = &cmds[n];
        m->q = N_SPECIAL + (unsigned)ws_rng_below(&rng, N_SETS - N_SPECIAL);
        m->ji = (unsigned)ws_rng_below(&rng, MAX_JOBS);
        m->job_id = (unsigned)ws_rng_below(&rng, 0x10000);
        m->slot = (unsigned)ws_rng_below(&rng, 0x10000);
        m->offset = (uint32_t)ws_rng_next(&rng);
        m->tensor = (uint32_t)ws_rng_next(&rng);
        m->count = rand_count(&rng, &c);
        m->ecn = (unsigned)ws_rng_below(&rng, 4);
        m->ce = ws_rng_chance(&rng, 0.5) ? ws_rng_next(&rng) & ws_rng_next(&rng) : 0;
        m->retx = ws_rng_chance(&rng, 0.15);
        rand_ranks(&rng, m);
    }
    /* special commands, each on its own set, spread over the phases */
    for (unsigned s = 0; s < N_SPECIAL; s++) {
        unsigned n = s < 4 ? s * (p2 / 4) + 1 : (s < 6 ? p2 + (s - 4) * 3 + 1 : p3 + (s - 6) * 3 + 1);
        cmd_t *m = &cmds[n];
        m->q = s;
        switch (s % 4) {
        case 0: /* all elements zero: csum 0 */
            for (unsigned i = 0; i < m->count; i++)
                *elem_ref(&c, m->q, i) = 0;
            break;
        case 1: /* all ones: csum 0xffff */
            for (unsigned i = 0; i < m->count; i++)
                *elem_ref(&c, m->q, i) = 0xffffffffu;
            break;
        default: /* UDP checksum computing to 0, sent as 0xffff (for rank_lo) */
            break;
        }
        if (s % 4 == 3) {
            m->retx = 1;
            m->hi = m->lo;
        }
    }
    /* commands with rank_lo > rank_hi: accepted, no frame (where gaps between commands are allowed) */
    cmds[p2 - 1].lo = 9;
    cmds[p2 - 1].hi = 8;
    cmds[ncmds - 1].lo = MAX_WORKERS - 1;
    cmds[ncmds - 1].hi = 0;
    for (unsigned n = 0; n < ncmds; n++)
        cmds[n].csum = payload_csum(&c, cmds[n].q, cmds[n].count);
    for (unsigned s = 0; s < N_SPECIAL; s++) {
        unsigned n = s < 4 ? s * (p2 / 4) + 1 : (s < 6 ? p2 + (s - 4) * 3 + 1 : p3 + (s - 6) * 3 + 1);
        if (cmds[n].q % 4 >= 2)
            force_zero_udp(&c, &cmds[n]);
    }

    /* files */
    FILE *fm = open_out(dir, "mem.hex");
    for (unsigned a = 0; a < MAX_JOBS * MAX_WORKERS; a++) {
        const ws_member *mb = &c.member[a];
        fprintf(fm, "%x%04x%08x", mb->port, mb->udp_port, mb->ip);
        for (int i = 0; i < 6; i++)
            fprintf(fm, "%02x", mb->mac[i]);
        fputc('\n', fm);
    }
    close_out(fm, "mem.hex");

    FILE *fr = open_out(dir, "res.hex");
    for (unsigned r = 0; r < c.rows; r++) {
        for (unsigned l = c.lanes; l-- > 0;)
            fprintf(fr, "%08x", c.ram[(size_t)r * c.lanes + l]);
        fputc('\n', fr);
    }
    close_out(fr, "res.hex");

    FILE *fc = open_out(dir, "cmds.hex");
    for (unsigned n = 0; n < ncmds; n++) {
        const cmd_t *m = &cmds[n];
        fprintf(fc, "%x %x %x %x %x %x %x %x %llx %x %x %x %x\n", m->q, m->ji, m->job_id,
                m->slot, m->offset, m->tensor, m->count, m->ecn, (unsigned long long)m->ce,
                m->csum, m->lo, m->hi, m->retx);
    }
    close_out(fc, "cmds.hex");

    FILE *fb = open_out(dir, "beats.hex");
    static uint8_t f[WS_OFF_ELEMS + 4 * WS_LIMIT_COUNT + 256];
    unsigned long nbeats = 0, nframes = 0, nres = 0, nresend = 0, beats_p1 = 0, beats_p2 = 0;
    for (unsigned n = 0; n < ncmds; n++) {
        const cmd_t *m = &cmds[n];
        if (n == p2)
            beats_p1 = nbeats;
        if (n == p3)
            beats_p2 = nbeats;
        for (unsigned r = m->lo; r <= m->hi; r++) {
            unsigned port;
            memset(f, 0, sizeof f);
            size_t len = build(&c, m, r, f, &port);
            unsigned nb = (unsigned)((len + c.bytes - 1) / c.bytes);
            uint32_t tuser = (uint32_t)len | (1u << (16 + N_PORTS + port));
            for (unsigned b = 0; b < nb; b++) {
                int last = b == nb - 1;
                for (unsigned k = c.bytes; k-- > 0;)
                    fprintf(fb, "%02x", f[b * c.bytes + k]);
                fputc(' ', fb);
                /* tkeep, most significant nibble first */
                for (unsigned k = c.bytes / 4; k-- > 0;) {
                    unsigned nib = 0;
                    for (unsigned j = 0; j < 4; j++)
                        if (b * c.bytes + 4 * k + j < len)
                            nib |= 1u << j;
                    fprintf(fb, "%x", nib);
                }
                fprintf(fb, " %x %06x %x %x\n", last, tuser, n, last && r == m->hi);
                nbeats++;
            }
            nframes++;
            if (m->retx)
                nresend++;
            else
                nres++;
        }
    }
    close_out(fb, "beats.hex");

    FILE *ft = open_out(dir, "meta.txt");
    fprintf(ft, "%u %lu %lu %lu %lu %u %u %lu %lu %02x%02x%02x%02x%02x%02x %08x %04x\n", ncmds,
            nbeats, nframes, nres, nresend, p2, p3, beats_p1, beats_p2, c.dev_mac[0], c.dev_mac[1],
            c.dev_mac[2], c.dev_mac[3], c.dev_mac[4], c.dev_mac[5], c.dev_ip, c.dev_udp);
    close_out(ft, "meta.txt");
    printf("result_gen vectors: width %u max_count %u: %u commands, %lu frames, %lu beats -> %s\n",
           c.width, c.max_count, ncmds, nframes, nbeats, dir);
    free(c.ram);
    free(cmds);
    return 0;
}
