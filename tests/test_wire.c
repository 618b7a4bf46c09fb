/* test_wire.c - unit tests of the wire protocol v2 codec (driver/wire.c):
 * checksums, build/parse, classification, stateless validation, the reason
 * table, and a randomized robustness run checked against an independent model
 * of docs/protocol.md sections 2 to 5 written here from the specification.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"
#include "rng.h"
#include "wiresum/validate.h"
#include "wiresum/wire.h"
#include "wiresum/reasons.h"

/* ---- configuration used by every test ------------------------------------ */

#define DEV_IP 0x0a0000feu /* ws_config_default: 10.0.0.254 */
#define DEV_PORT 48900u    /* ws_config_default: WS_DEFAULT_UDP_PORT */

#define JOB_A 7u        /* index 0: 4 workers, 8 slots, max 256 */
#define JOB_B 0x1234u   /* index 1: 2 workers, 16 slots, max 2048 */
#define JOB_OFF 9u      /* index 2: disabled, 3 workers, 4 slots, max 64 */
#define JOB_ABSENT 8u   /* not configured */
#define JOB_HIDDEN 42u  /* written in job[3] but beyond n_jobs */

#define MAX_FRAME (WS_OFF_ELEMS + 4 * WS_LIMIT_COUNT + 256)
#define N_MUTATIONS 200000u

static const uint8_t DEV_MAC[6] = {0x02, 0, 0, 0, 0, 0xfe};

static ws_member member_for(unsigned j, unsigned r)
{
    ws_member m;
    memset(&m, 0, sizeof m);
    m.mac[0] = 0x02;
    m.mac[1] = 0x10;
    m.mac[4] = (uint8_t)j;
    m.mac[5] = (uint8_t)r;
    m.ip = 0x0a000000u | (uint32_t)(j + 1) << 16 | (uint32_t)(r + 1);
    m.udp_port = (uint16_t)(50000u + 100u * j + r);
    m.port = (uint8_t)(r % WS_DEFAULT_PORTS);
    return m;
}

static void fill_job(ws_job *job, unsigned j, uint16_t id, bool enable, unsigned workers,
                     unsigned slots, unsigned slot_base, unsigned max_count)
{
    job->id = id;
    job->enable = enable;
    job->workers = workers;
    job->slots = slots;
    job->slot_base = slot_base;
    job->max_count = max_count;
    for (unsigned r = 0; r < workers; r++)
        job->member[r] = member_for(j, r);
}

static ws_config cfg_g; /* large: keep it off the stack */

static const ws_config *make_config(void)
{
    ws_config *cfg = &cfg_g;
    ws_config_default(cfg);
    fill_job(&cfg->job[0], 0, JOB_A, true, 4, 8, 0, 256);
    fill_job(&cfg->job[1], 1, JOB_B, true, 2, 16, 8, WS_LIMIT_COUNT);
    fill_job(&cfg->job[2], 2, JOB_OFF, false, 3, 4, 24, 64);
    fill_job(&cfg->job[3], 3, JOB_HIDDEN, true, 2, 4, 28, 64);
    cfg->n_jobs = 3; /* job[3] is not part of the configuration */
    return cfg;
}

/* ---- independent ones-complement arithmetic ------------------------------- */

/* Plain sum of big-endian 16-bit words (odd tail padded with zero), 64-bit. */
static uint64_t ref_sum(const uint8_t *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i += 2)
        s += (uint64_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0u);
    return s;
}

static uint16_t ref_fold(uint64_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)s;
}

static uint64_t ref_pseudo(uint32_t src, uint32_t dst, size_t udp_len)
{
    uint8_t ph[12];
    ws_put32(ph, src);
    ws_put32(ph + 4, dst);
    ph[8] = 0;
    ph[9] = 17;
    ws_put16(ph + 10, (uint16_t)udp_len);
    return ref_sum(ph, sizeof ph);
}

/* Folded sum over pseudo-header and whole datagram, checksum field as found. */
static uint16_t ref_udp_fold(uint32_t src, uint32_t dst, const uint8_t *udp, size_t n)
{
    return ref_fold(ref_pseudo(src, dst, n) + ref_sum(udp, n));
}

/* The checksum to put in the field: complement of the sum with the field zero. */
static uint16_t ref_udp_checksum(uint32_t src, uint32_t dst, const uint8_t *udp, size_t n)
{
    uint64_t s = ref_pseudo(src, dst, n) + ref_sum(udp, 6) + ref_sum(udp + 8, n - 8);
    return (uint16_t)~ref_fold(s);
}

static int ref_ipv4_ok(const uint8_t *ip, size_t hlen)
{
    return ref_fold(ref_sum(ip, hlen)) == 0xffff;
}

/* ---- frame helpers -------------------------------------------------------- */

static void hdr_for(const ws_config *cfg, unsigned j, unsigned worker, unsigned slot,
                    unsigned count, ws_hdr *h)
{
    ws_hdr_init(h);
    ws_member m = member_for(j, worker);
    memcpy(h->dst_mac, cfg->mac, 6);
    memcpy(h->src_mac, m.mac, 6);
    h->src_ip = m.ip;
    h->dst_ip = cfg->ip;
    h->src_port = m.udp_port;
    h->dst_port = cfg->udp_port;
    h->job = cfg->job[j].id;
    h->worker = (uint16_t)worker;
    h->slot = (uint16_t)slot;
    h->count = (uint16_t)count;
    h->offset = 0x00001000u + 64u * slot;
    h->tensor = 0xcafe0000u | j;
}

static uint32_t elems_g[WS_LIMIT_COUNT + 64];

static void fill_elems(unsigned n, uint32_t seed)
{
    for (unsigned i = 0; i < n; i++)
        elems_g[i] = 0x3f800000u + seed * 0x1000u + i * 7u;
}

/* A valid DATA frame for cfg->job[j]; returns its length. */
static size_t build_valid(uint8_t *buf, const ws_config *cfg, unsigned j, unsigned worker,
                          unsigned slot, unsigned count)
{
    ws_hdr h;
    hdr_for(cfg, j, worker, slot, count, &h);
    fill_elems(count, j * 131u + worker);
    return ws_build(buf, &h, elems_g);
}

/* Rewrite IPv4 total length and UDP length to fit len (IHL 5), fix checksums. */
static void make_consistent(uint8_t *f, size_t len)
{
    if (len >= WS_OFF_UDP)
        ws_put16(f + WS_OFF_IP + 2, (uint16_t)(len - WS_ETH_LEN));
    if (len >= WS_OFF_AGG)
        ws_put16(f + WS_OFF_UDP + 4, (uint16_t)(len - WS_OFF_UDP));
    ws_fix_checksums(f, len);
}

/* Refresh only the IPv4 header checksum (IHL 5). */
static void fix_ip_only(uint8_t *f)
{
    ws_put16(f + WS_OFF_IP + 10, 0);
    ws_put16(f + WS_OFF_IP + 10, (uint16_t)~ref_fold(ref_sum(f + WS_OFF_IP, WS_IPV4_LEN)));
}

static ws_reason validate_at(const uint8_t *f, size_t len, const ws_config *cfg, ws_reason want,
                             const char *file, int line)
{
    static const ws_job sentinel;
    ws_hdr h;
    const ws_job *job = &sentinel; /* must be overwritten */
    ws_reason got = ws_validate(f, len, cfg, &h, &job);
    if (got != want)
        print_error("%s:%d: ws_validate(len %zu) = %s, want %s\n", file, line, len,
                    ws_reason_name(got), ws_reason_name(want));
    assert_int_equal(got, want);
    if (want == WS_OK) {
        assert_non_null(job);
        assert_ptr_equal(job, ws_config_find_job(cfg, h.job));
    } else {
        assert_null(job);
    }
    return got;
}
#define expect_reason(f, len, cfg, want) validate_at(f, len, cfg, want, __FILE__, __LINE__)

static void class_at(const uint8_t *f, size_t len, ws_class want, const char *file, int line)
{
    /* Exact-size copy so that ASan catches any read past len. */
    uint8_t *c = malloc(len ? len : 1);
    assert_non_null(c);
    if (len)
        memcpy(c, f, len);
    ws_class got = ws_classify(c, len, DEV_IP, DEV_PORT);
    if (got != want)
        print_error("%s:%d: ws_classify(len %zu) = %s, want %s\n", file, line, len,
                    got == WS_CLASS_AGG ? "agg" : "bypass", want == WS_CLASS_AGG ? "agg" : "bypass");
    free(c);
    assert_int_equal(got, want);
}
#define expect_class(f, len, want) class_at(f, len, want, __FILE__, __LINE__)

static uint8_t buf_g[MAX_FRAME];
static uint8_t buf2_g[MAX_FRAME];

/* ---- 1. checksums --------------------------------------------------------- */

static void test_checksums(void **state)
{
    (void)state;
    /* RFC 1071 / classic example: 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7. */
    uint8_t ip[24] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                      0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    assert_int_equal(ws_ipv4_checksum(ip, 20), 0xb861);
    assert_true(ref_ipv4_ok(ip, 20));
    ip[10] = 0x12; /* the checksum field is ignored */
    ip[11] = 0x34;
    assert_int_equal(ws_ipv4_checksum(ip, 20), 0xb861);
    ip[10] = ip[11] = 0;
    assert_int_equal(ws_ipv4_checksum(ip, 20), 0xb861);
    /* With a 4-byte option (IHL 6): the option words are summed too. */
    ip[0] = 0x46;
    ip[20] = 0x94;
    ip[21] = 0x04;
    ip[22] = 0x00;
    ip[23] = 0x00;
    uint16_t c6 = ws_ipv4_checksum(ip, 24);
    assert_int_equal(c6, (uint16_t)~ref_fold(ref_sum(ip, 24)));
    assert_int_equal(c6, 0x235d); /* ~(0x479e + 0x0100 + 0x9404) */

    /* Small odd-length datagram: 192.168.0.1 -> 192.168.0.199, ports 0x1234 ->
     * 0x5678, "hello"; 0xd13c computed by hand (and by ref_udp_checksum). */
    uint8_t udp[13] = {0x12, 0x34, 0x56, 0x78, 0x00, 0x0d, 0xaa, 0xbb, 'h', 'e', 'l', 'l', 'o'};
    uint32_t s = 0xc0a80001u, d = 0xc0a800c7u;
    assert_int_equal(ref_udp_checksum(s, d, udp, 13), 0xd13c);
    assert_int_equal(ws_udp_checksum(s, d, udp, 13), 0xd13c);
    ws_put16(udp + 6, 0xd13c);
    assert_int_equal(ref_udp_fold(s, d, udp, 13), 0xffff);

    /* Random datagrams, odd and even lengths, against the reference. */
    ws_rng r = {0x5eed0001u};
    static uint8_t dg[1500];
    for (unsigned it = 0; it < 20000; it++) {
        size_t n = 8 + ws_rng_below(&r, 600);
        for (size_t i = 0; i < n; i++)
            dg[i] = (uint8_t)ws_rng_next(&r);
        ws_put16(dg + 4, (uint16_t)n);
        uint32_t si = (uint32_t)ws_rng_next(&r), di = (uint32_t)ws_rng_next(&r);
        uint16_t want = ref_udp_checksum(si, di, dg, n);
        if (want == 0)
            want = 0xffff;
        uint16_t got = ws_udp_checksum(si, di, dg, n);
        assert_int_equal(got, want);
        assert_int_not_equal(got, 0);
        ws_put16(dg + 6, got);
        assert_int_equal(ref_udp_fold(si, di, dg, n), 0xffff);
        /* IPv4 header checksum of random headers, 20..60 bytes. */
        size_t hl = 20 + 4 * ws_rng_below(&r, 11);
        uint16_t ic = ws_ipv4_checksum(dg, hl);
        uint8_t save[2] = {dg[10], dg[11]};
        dg[10] = dg[11] = 0;
        assert_int_equal(ic, (uint16_t)~ref_fold(ref_sum(dg, hl)));
        dg[10] = save[0];
        dg[11] = save[1];
    }

    /* A datagram whose sum before complement is 0xffff: checksum is 0xffff, never 0. */
    uint8_t z[12] = {0x12, 0x34, 0x56, 0x78, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    uint16_t part = ref_fold(ref_pseudo(s, d, 12) + ref_sum(z, 12));
    ws_put16(z + 8, (uint16_t)~part); /* part + ~part = 0xffff */
    assert_int_equal(ref_fold(ref_pseudo(s, d, 12) + ref_sum(z, 6) + ref_sum(z + 8, 4)), 0xffff);
    assert_int_equal(ref_udp_checksum(s, d, z, 12), 0);
    assert_int_equal(ws_udp_checksum(s, d, z, 12), 0xffff);
    ws_put16(z + 6, 0xffff);
    assert_int_equal(ref_udp_fold(s, d, z, 12), 0xffff); /* 0xffff verifies */

    /* Same in a real frame: tune the last element so that the true checksum is 0. */
    const ws_config *cfg = make_config();
    ws_hdr h;
    hdr_for(cfg, 0, 1, 2, 3, &h);
    fill_elems(3, 5);
    elems_g[2] = 0;
    size_t len = ws_build(buf_g, &h, elems_g);
    ws_put16(buf_g + WS_OFF_UDP + 6, 0);
    part = ref_fold(ref_pseudo(h.src_ip, h.dst_ip, len - WS_OFF_UDP) +
                    ref_sum(buf_g + WS_OFF_UDP, len - WS_OFF_UDP));
    elems_g[2] = (uint32_t)(uint16_t)~part;
    len = ws_build(buf_g, &h, elems_g);
    assert_int_equal(ws_get16(buf_g + WS_OFF_UDP + 6), 0xffff);
    assert_int_equal(ws_udp_checksum(h.src_ip, h.dst_ip, buf_g + WS_OFF_UDP, len - WS_OFF_UDP),
                     0xffff);
    expect_reason(buf_g, len, cfg, WS_OK);
}

/* ---- 2. build / parse ----------------------------------------------------- */

static void test_build_known_frame(void **state)
{
    (void)state;
    static const uint8_t want[72] = {
        0x02, 0x00, 0x00, 0x00, 0x00, 0xfe, 0x02, 0x10, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
        0x45, 0x10, 0x00, 0x3a, 0xbe, 0xef, 0x40, 0x00, 0x40, 0x11, 0x66, 0xb3, 0x0a, 0x01,
        0x00, 0x02, 0x0a, 0x00, 0x00, 0xfe, 0xc3, 0x51, 0xbf, 0x04, 0x00, 0x26, 0xcc, 0x09,
        0x20, 0x00, 0x03, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x05, 0x00, 0x02, 0x01, 0x02,
        0x03, 0x04, 0xa1, 0xb2, 0xc3, 0xd4, 0x00, 0x00, 0x3f, 0x80, 0x00, 0x00, 0xc0, 0x49,
        0x0f, 0xdb,
    };
    const ws_config *cfg = make_config();
    ws_hdr h;
    hdr_for(cfg, 0, 1, 5, 2, &h);
    h.tos = 0x10;
    h.ip_id = 0xbeef;
    h.flags = WS_FLAG_SET | WS_FLAG_RETX;
    h.offset = 0x01020304u;
    h.tensor = 0xa1b2c3d4u;
    uint32_t el[2] = {0x3f800000u, 0xc0490fdbu};
    memset(buf_g, 0xa5, 100);
    size_t len = ws_build(buf_g, &h, el);
    assert_int_equal(len, 72);
    for (size_t i = 0; i < 72; i++) {
        if (buf_g[i] != want[i])
            print_error("byte %zu: 0x%02x, want 0x%02x\n", i, buf_g[i], want[i]);
        assert_int_equal(buf_g[i], want[i]);
    }
    assert_int_equal(buf_g[72], 0xa5); /* nothing written past the frame */
    assert_int_equal(buf_g[WS_OFF_AGG], WS_VERSION << 4); /* ver_type at byte 42 */
    assert_int_equal(buf_g[WS_OFF_ELEMS], 0x3f);    /* first element at 64, big-endian */
    assert_int_equal(ws_elem(buf_g, 1), 0xc0490fdbu);
    expect_reason(buf_g, len, cfg, WS_OK);
}

static void test_build_parse_roundtrip(void **state)
{
    (void)state;
    ws_rng r = {0x0b0b0b0bu};
    for (unsigned it = 0; it < 3000; it++) {
        ws_hdr h;
        memset(&h, 0, sizeof h);
        for (int i = 0; i < 6; i++) {
            h.dst_mac[i] = (uint8_t)ws_rng_next(&r);
            h.src_mac[i] = (uint8_t)ws_rng_next(&r);
        }
        h.tos = (uint8_t)ws_rng_next(&r);
        h.ip_id = (uint16_t)ws_rng_next(&r);
        h.frag = (uint16_t)ws_rng_next(&r);
        h.ttl = (uint8_t)ws_rng_next(&r);
        h.src_ip = (uint32_t)ws_rng_next(&r);
        h.dst_ip = (uint32_t)ws_rng_next(&r);
        h.src_port = (uint16_t)ws_rng_next(&r);
        h.dst_port = (uint16_t)ws_rng_next(&r);
        h.version = (uint8_t)ws_rng_below(&r, 16);
        h.type = (uint8_t)ws_rng_below(&r, 16);
        h.dtype = (uint8_t)ws_rng_next(&r);
        h.flags = (uint8_t)ws_rng_next(&r);
        h.job = (uint16_t)ws_rng_next(&r);
        h.worker = (uint16_t)ws_rng_next(&r);
        h.slot = (uint16_t)ws_rng_next(&r);
        h.count = (uint16_t)(1 + (it % 8 == 0 ? ws_rng_below(&r, WS_LIMIT_COUNT)
                                              : ws_rng_below(&r, 64)));
        if (it == 1)
            h.count = WS_LIMIT_COUNT;
        h.offset = (uint32_t)ws_rng_next(&r);
        h.tensor = (uint32_t)ws_rng_next(&r);
        for (unsigned i = 0; i < h.count; i++)
            elems_g[i] = (uint32_t)ws_rng_next(&r);

        size_t len = ws_build(buf_g, &h, elems_g);
        assert_int_equal(len, 64u + 4u * h.count);
        assert_int_equal(len, ws_frame_len(h.count));

        ws_hdr p;
        memset(&p, 0x5a, sizeof p);
        ws_parse(buf_g, &p);
        assert_memory_equal(p.dst_mac, h.dst_mac, 6);
        assert_memory_equal(p.src_mac, h.src_mac, 6);
        assert_int_equal(p.tos, h.tos);
        assert_int_equal(p.ip_id, h.ip_id);
        assert_int_equal(p.frag, h.frag);
        assert_int_equal(p.ttl, h.ttl);
        assert_int_equal(p.src_ip, h.src_ip);
        assert_int_equal(p.dst_ip, h.dst_ip);
        assert_int_equal(p.src_port, h.src_port);
        assert_int_equal(p.dst_port, h.dst_port);
        assert_int_equal(p.version, h.version);
        assert_int_equal(p.type, h.type);
        assert_int_equal(p.dtype, h.dtype);
        assert_int_equal(p.flags, h.flags);
        assert_int_equal(p.job, h.job);
        assert_int_equal(p.worker, h.worker);
        assert_int_equal(p.slot, h.slot);
        assert_int_equal(p.count, h.count);
        assert_int_equal(p.offset, h.offset);
        assert_int_equal(p.tensor, h.tensor);
        for (unsigned i = 0; i < h.count; i++)
            assert_int_equal(ws_elem(buf_g, i), elems_g[i]);

        /* Raw layout. */
        const uint8_t *ip = buf_g + WS_OFF_IP, *udp = buf_g + WS_OFF_UDP, *a = buf_g + WS_OFF_AGG;
        assert_int_equal(ws_get16(buf_g + 12), 0x0800);
        assert_int_equal(ip[0], 0x45);
        assert_int_equal(ip[9], 17);
        assert_int_equal(ws_get16(ip + 2), len - 14);
        assert_int_equal(ws_get16(udp + 4), len - 34);
        assert_true(ref_ipv4_ok(ip, 20));
        assert_int_not_equal(ws_get16(udp + 6), 0);
        assert_int_equal(ref_udp_fold(h.src_ip, h.dst_ip, udp, len - 34), 0xffff);
        assert_int_equal(a[0], h.version << 4 | h.type);
        assert_int_equal(a[1], h.dtype);
        assert_int_equal(a[2], h.flags);
        assert_int_equal(a[3], 0);
        assert_int_equal(buf_g[46], h.job >> 8);
        assert_int_equal(buf_g[47], h.job & 0xff);
        assert_int_equal(buf_g[52], h.count >> 8);
        assert_int_equal(buf_g[53], h.count & 0xff);
        assert_int_equal(buf_g[54], h.offset >> 24);
        assert_int_equal(buf_g[57], h.offset & 0xff);
        assert_int_equal(a[20], 0);
        assert_int_equal(a[21], 0);
        assert_int_equal(buf_g[64], elems_g[0] >> 24);
        assert_int_equal(buf_g[67], elems_g[0] & 0xff);
        assert_int_equal(buf_g[len - 1], elems_g[h.count - 1] & 0xff);

        /* the same elements to another member (a device's fan-out): the headers alone
         * rewritten from the elements' sum, the checksum right for them */
        uint64_t esum = ws_build_elems(buf_g, h.count, elems_g);
        h.dst_ip = (uint32_t)ws_rng_next(&r);
        h.dst_port = (uint16_t)ws_rng_next(&r);
        h.worker = (uint16_t)ws_rng_next(&r);
        assert_int_equal(ws_build_headers(buf_g, &h, esum), len);
        assert_int_equal(ref_udp_fold(h.src_ip, h.dst_ip, udp, len - 34), 0xffff);
        assert_int_equal(ws_get16(buf_g + 48), h.worker);
        for (unsigned i = 0; i < h.count; i++)
            assert_int_equal(ws_elem(buf_g, i), elems_g[i]);
    }
}

static void test_build_validates(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    ws_rng r = {0xfeedu};
    /* Every member of every enabled job, boundary and random slots/counts,
     * random flags SET/RETX, tos (ECN included), ttl, ip_id, DF on or off. */
    for (unsigned j = 0; j < 2; j++) {
        const ws_job *job = &cfg->job[j];
        for (unsigned w = 0; w < job->workers; w++) {
            for (unsigned it = 0; it < 40; it++) {
                ws_hdr h;
                unsigned slot = it == 0 ? 0 : it == 1 ? job->slots - 1
                                                      : (unsigned)ws_rng_below(&r, job->slots);
                unsigned count = it == 0 ? 1 : it == 1 ? job->max_count
                                                       : 1 + (unsigned)ws_rng_below(&r, 64);
                hdr_for(cfg, j, w, slot, count, &h);
                h.flags = (uint8_t)ws_rng_below(&r, 4);
                h.tos = (uint8_t)ws_rng_next(&r);
                h.ttl = (uint8_t)ws_rng_next(&r);
                h.ip_id = (uint16_t)ws_rng_next(&r);
                h.frag = ws_rng_chance(&r, 0.5) ? 0x4000 : 0;
                h.offset = (uint32_t)ws_rng_next(&r);
                h.tensor = (uint32_t)ws_rng_next(&r);
                for (unsigned i = 0; i < count; i++)
                    elems_g[i] = (uint32_t)ws_rng_next(&r);
                size_t len = ws_build(buf_g, &h, elems_g);
                expect_class(buf_g, len, WS_CLASS_AGG);
                ws_hdr v;
                const ws_job *vj = NULL;
                assert_int_equal(ws_validate(buf_g, len, cfg, &v, &vj), WS_OK);
                assert_ptr_equal(vj, job);
                assert_int_equal(v.job, h.job);
                assert_int_equal(v.worker, w);
                assert_int_equal(v.slot, slot);
                assert_int_equal(v.count, count);
                assert_int_equal(v.flags, h.flags);
                assert_int_equal(v.offset, h.offset);
                assert_int_equal(v.tensor, h.tensor);
                assert_int_equal(v.tos, h.tos);
                assert_int_equal(v.frag, h.frag);
            }
        }
    }
}

/* ---- 3. classification ---------------------------------------------------- */

/* A generic IPv4 packet of len bytes: header IHL 5, protocol proto, given
 * destination, UDP-like ports at 34..37, zero payload. */
static void build_ipv4(uint8_t *f, size_t len, uint8_t proto, uint32_t dst, uint16_t dport)
{
    memset(f, 0, len);
    memcpy(f, DEV_MAC, 6);
    f[6] = 0x02;
    f[11] = 0x33;
    ws_put16(f + 12, 0x0800);
    f[14] = 0x45;
    ws_put16(f + 16, (uint16_t)(len - 14));
    f[22] = 64;
    f[23] = proto;
    ws_put32(f + 26, 0x0a000001u);
    ws_put32(f + 30, dst);
    ws_put16(f + 34, 40000);
    ws_put16(f + 36, dport);
    if (proto == 17)
        ws_put16(f + 38, (uint16_t)(len - 34));
    ws_fix_checksums(f, len);
}

/* Rebuild frame f (IHL 5) into out with a 4-byte IPv4 option (IHL 6). */
static size_t add_ip_option(uint8_t *out, const uint8_t *f, size_t len)
{
    memcpy(out, f, 34);
    out[14] = 0x46;
    out[34] = 0x01; /* NOP NOP NOP EOL */
    out[35] = 0x01;
    out[36] = 0x01;
    out[37] = 0x00;
    memcpy(out + 38, f + 34, len - 34);
    ws_put16(out + 16, (uint16_t)(len + 4 - 14));
    ws_fix_checksums(out, len + 4);
    return len + 4;
}

static void test_classify_bypass(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    size_t len = build_valid(buf_g, cfg, 0, 0, 0, 4);
    expect_class(buf_g, len, WS_CLASS_AGG);

    /* ARP: a real request, and the valid frame relabelled. */
    uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x10, 0, 0, 0, 0, 0x08, 0x06,
                       0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, 0x02, 0x10, 0, 0, 0, 0,
                       10, 1, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 254};
    expect_class(arp, sizeof arp, WS_CLASS_BYPASS);
    memcpy(buf2_g, buf_g, len);
    ws_put16(buf2_g + 12, 0x0806);
    expect_class(buf2_g, len, WS_CLASS_BYPASS);

    /* IPv6 EtherType carrying the same bytes. */
    ws_put16(buf2_g + 12, 0x86dd);
    expect_class(buf2_g, len, WS_CLASS_BYPASS);

    /* VLAN tag 0x8100 in front of an otherwise valid aggregation frame. */
    memcpy(buf2_g, buf_g, 12);
    buf2_g[12] = 0x81;
    buf2_g[13] = 0x00;
    buf2_g[14] = 0x00;
    buf2_g[15] = 0x05;
    memcpy(buf2_g + 16, buf_g + 12, len - 12);
    expect_class(buf2_g, len + 4, WS_CLASS_BYPASS);
    /* QinQ 0x88a8 likewise. */
    ws_put16(buf2_g + 12, 0x88a8);
    expect_class(buf2_g, len + 4, WS_CLASS_BYPASS);

    /* IPv4 to another IP (every other address byte position). */
    for (int b = 0; b < 4; b++) {
        memcpy(buf2_g, buf_g, len);
        buf2_g[30 + b] ^= 0x01;
        ws_fix_checksums(buf2_g, len);
        expect_class(buf2_g, len, WS_CLASS_BYPASS);
    }
    /* ...also with IP version 6 in the header: the address decides first. */
    memcpy(buf2_g, buf_g, len);
    ws_put32(buf2_g + 30, 0x0a000001u);
    buf2_g[14] = 0x65;
    expect_class(buf2_g, len, WS_CLASS_BYPASS);

    /* TCP (and ICMP) to the device IP, even with the aggregation port at 36. */
    const uint8_t protos[] = {6, 1, 0, 18, 0x11 ^ 0x80};
    for (size_t i = 0; i < sizeof protos; i++) {
        memcpy(buf2_g, buf_g, len);
        buf2_g[23] = protos[i];
        ws_fix_checksums(buf2_g, len);
        expect_class(buf2_g, len, WS_CLASS_BYPASS);
        build_ipv4(buf2_g, 60, protos[i], DEV_IP, (uint16_t)DEV_PORT);
        expect_class(buf2_g, 60, WS_CLASS_BYPASS);
        /* Not UDP: a fragment or a bad IHL does not matter. */
        buf2_g[20] = 0x00;
        buf2_g[21] = 0x10;
        expect_class(buf2_g, 60, WS_CLASS_BYPASS);
        buf2_g[14] = 0x44;
        expect_class(buf2_g, 60, WS_CLASS_BYPASS);
    }

    /* UDP to the device IP on another port. */
    const uint16_t ports[] = {(uint16_t)(DEV_PORT + 1), (uint16_t)(DEV_PORT - 1), 0, 53, 0x04bf,
                              0xffff};
    for (size_t i = 0; i < sizeof ports / sizeof ports[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 36, ports[i]);
        ws_fix_checksums(buf2_g, len);
        expect_class(buf2_g, len, WS_CLASS_BYPASS);
        /* The source port being the device's does not matter. */
        ws_put16(buf2_g + 34, (uint16_t)DEV_PORT);
        expect_class(buf2_g, len, WS_CLASS_BYPASS);
    }

    /* Runts: every length 0..33 of a valid frame and of a frame of 0xff. */
    for (size_t n = 0; n < 34; n++) {
        expect_class(buf_g, n, WS_CLASS_BYPASS);
        memset(buf2_g, 0xff, 64);
        memcpy(buf2_g + 12, buf_g + 12, 22 < n ? 22 : n > 12 ? n - 12 : 0);
        expect_class(buf2_g, n, WS_CLASS_BYPASS);
    }

    /* A full-size 1514-byte frame to another host, aggregation port or not. */
    build_ipv4(buf2_g, 1514, 17, 0x0a000001u, (uint16_t)DEV_PORT);
    expect_class(buf2_g, 1514, WS_CLASS_BYPASS);
    build_ipv4(buf2_g, 1514, 17, DEV_IP + 1, 80);
    expect_class(buf2_g, 1514, WS_CLASS_BYPASS);
    /* and the same size to the device, another port: bypass; right port: agg. */
    build_ipv4(buf2_g, 1514, 17, DEV_IP, 80);
    expect_class(buf2_g, 1514, WS_CLASS_BYPASS);
    build_ipv4(buf2_g, 1514, 17, DEV_IP, (uint16_t)DEV_PORT);
    expect_class(buf2_g, 1514, WS_CLASS_AGG);

    /* IHL 6: the port is read at the shifted offset, not at 36. */
    size_t l6 = add_ip_option(buf2_g, buf_g, len);
    ws_put16(buf2_g + 36, (uint16_t)DEV_PORT); /* where an IHL-5 port would be */
    ws_put16(buf2_g + 40, 53);                 /* the real UDP dst port */
    expect_class(buf2_g, l6, WS_CLASS_BYPASS);
}

static void test_classify_agg(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    size_t len = build_valid(buf_g, cfg, 1, 1, 3, 9);

    /* Valid DATA, and a RESULT / garbage header: classification looks at IP and UDP only. */
    expect_class(buf_g, len, WS_CLASS_AGG);
    memcpy(buf2_g, buf_g, len);
    buf2_g[WS_OFF_AGG] = WS_VERSION << 4 | WS_TYPE_RESULT;
    expect_class(buf2_g, len, WS_CLASS_AGG);
    memset(buf2_g + WS_OFF_AGG, 0xff, len - WS_OFF_AGG);
    expect_class(buf2_g, len, WS_CLASS_AGG);
    /* Wrong checksums do not matter either. */
    memcpy(buf2_g, buf_g, len);
    buf2_g[24] ^= 0xff;
    buf2_g[40] ^= 0xff;
    expect_class(buf2_g, len, WS_CLASS_AGG);

    /* IP version != 4 under 0x0800 to the device IP: every version, any IHL. */
    for (unsigned v = 0; v < 16; v++) {
        if (v == 4)
            continue;
        memcpy(buf2_g, buf_g, len);
        buf2_g[14] = (uint8_t)(v << 4 | 5);
        expect_class(buf2_g, len, WS_CLASS_AGG);
        buf2_g[23] = 6; /* protocol is not looked at */
        ws_put16(buf2_g + 36, 80);
        expect_class(buf2_g, len, WS_CLASS_AGG);
        buf2_g[14] = (uint8_t)(v << 4); /* IHL 0 */
        expect_class(buf2_g, 34, WS_CLASS_AGG);
    }

    /* IHL 6 with an option: UDP port read at 14 + 24 + 2 = 40. */
    size_t l6 = add_ip_option(buf2_g, buf_g, len);
    assert_int_equal(ws_get16(buf2_g + 40), DEV_PORT);
    ws_put16(buf2_g + 36, 53); /* the bytes at the IHL-5 position are not the port */
    expect_class(buf2_g, l6, WS_CLASS_AGG);
    /* IHL 15 (40 bytes of options) with the port at 14 + 60 + 2. */
    memset(buf2_g, 0, 200);
    memcpy(buf2_g, buf_g, 34);
    buf2_g[14] = 0x4f;
    ws_put16(buf2_g + 76, (uint16_t)DEV_PORT);
    expect_class(buf2_g, 200, WS_CLASS_AGG);
    expect_class(buf2_g, 78, WS_CLASS_AGG);
    ws_put16(buf2_g + 76, 7);
    expect_class(buf2_g, 200, WS_CLASS_BYPASS);
    expect_class(buf2_g, 78, WS_CLASS_BYPASS);
    expect_class(buf2_g, 77, WS_CLASS_AGG); /* port not readable */

    /* IHL < 5: no UDP header can be located. */
    for (unsigned ihl = 0; ihl < 5; ihl++) {
        memcpy(buf2_g, buf_g, len);
        buf2_g[14] = (uint8_t)(0x40 | ihl);
        ws_put16(buf2_g + 36, 53);
        expect_class(buf2_g, len, WS_CLASS_AGG);
    }

    /* Non-first fragments: whatever is at the UDP port position. */
    const uint16_t frags[] = {0x0001, 0x0100, 0x1fff, 0x2001, 0x4001, 0x6abc, 0x8001};
    for (size_t i = 0; i < sizeof frags / sizeof frags[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 20, frags[i]);
        ws_put16(buf2_g + 36, 53);
        expect_class(buf2_g, len, WS_CLASS_AGG);
        expect_class(buf2_g, 34, WS_CLASS_AGG);
    }
    /* First fragment (MF, offset 0) and DF: classified by the port. */
    const uint16_t firsts[] = {0x2000, 0x4000, 0x0000, 0x8000};
    for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 20, firsts[i]);
        expect_class(buf2_g, len, WS_CLASS_AGG);
        ws_put16(buf2_g + 36, 53);
        expect_class(buf2_g, len, WS_CLASS_BYPASS);
    }

    /* Truncated before the UDP destination port (needs bytes 36..37). */
    for (size_t n = 34; n < 38; n++)
        expect_class(buf_g, n, WS_CLASS_AGG);
    for (size_t n = 38; n <= len; n++)
        expect_class(buf_g, n, WS_CLASS_AGG);
    memcpy(buf2_g, buf_g, len);
    ws_put16(buf2_g + 36, 53);
    for (size_t n = 34; n < 38; n++)
        expect_class(buf2_g, n, WS_CLASS_AGG);
    expect_class(buf2_g, 38, WS_CLASS_BYPASS);
    /* IHL 6 truncated before the shifted port (needs 40..41). */
    l6 = add_ip_option(buf2_g, buf_g, len);
    ws_put16(buf2_g + 40, 53);
    for (size_t n = 34; n < 42; n++)
        expect_class(buf2_g, n, WS_CLASS_AGG);
    expect_class(buf2_g, 42, WS_CLASS_BYPASS);
    expect_class(buf2_g, l6, WS_CLASS_BYPASS);
}

/* ---- 4. ws_validate, one test per drop reason ------------------------------ */

static void test_drop_bad_ipv4(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    size_t len = build_valid(buf_g, cfg, 0, 2, 4, 5);
    expect_reason(buf_g, len, cfg, WS_OK);

    /* Version (IHL 5 kept), checksums fixed. */
    for (unsigned v = 0; v < 16; v++) {
        if (v == 4)
            continue;
        memcpy(buf2_g, buf_g, len);
        buf2_g[14] = (uint8_t)(v << 4 | 5);
        ws_fix_checksums(buf2_g, len);
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);
    }
    /* IHL 6 with a 4-byte option, all lengths and checksums consistent. */
    size_t l6 = add_ip_option(buf2_g, buf_g, len);
    assert_true(ref_ipv4_ok(buf2_g + 14, 24));
    expect_reason(buf2_g, l6, cfg, WS_DROP_BAD_IPV4);
    /* IHL 4 and 15. */
    const uint8_t ihls[] = {0x44, 0x40, 0x4f};
    for (size_t i = 0; i < sizeof ihls; i++) {
        memcpy(buf2_g, buf_g, len);
        buf2_g[14] = ihls[i];
        fix_ip_only(buf2_g);
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);
    }
    /* MF, MF+DF, fragment offsets (with and without DF). */
    const uint16_t frags[] = {0x2000, 0x6000, 0x0001, 0x1fff, 0x4001, 0x0800, 0x3fff};
    for (size_t i = 0; i < sizeof frags / sizeof frags[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 20, frags[i]);
        ws_fix_checksums(buf2_g, len);
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);
    }
    /* DF set or clear is accepted. */
    memcpy(buf2_g, buf_g, len);
    ws_put16(buf2_g + 20, 0x0000);
    ws_fix_checksums(buf2_g, len);
    expect_reason(buf2_g, len, cfg, WS_OK);
    ws_put16(buf2_g + 20, 0x4000);
    ws_fix_checksums(buf2_g, len);
    expect_reason(buf2_g, len, cfg, WS_OK);

    /* Header checksum: every single-bit error of the field, and a changed TTL. */
    for (int bit = 0; bit < 16; bit++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 24, (uint16_t)(ws_get16(buf2_g + 24) ^ (1u << bit)));
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);
    }
    memcpy(buf2_g, buf_g, len);
    buf2_g[22] ^= 0x01; /* TTL, not covered by the UDP checksum */
    expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);
    memcpy(buf2_g, buf_g, len);
    buf2_g[15] ^= 0x01; /* TOS */
    expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);

    /* Total length too big and too small, IPv4 checksum fixed. */
    const int deltas[] = {1, 2, 4, 100, -1, -2, -4, -20};
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 16, (uint16_t)((int)len - 14 + deltas[i]));
        ws_fix_checksums(buf2_g, len);
        assert_true(ref_ipv4_ok(buf2_g + 14, 20));
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_IPV4);
    }
    /* Frame shorter than an IPv4 header (20..33 bytes of frame). */
    for (size_t n = 34 - 14; n < 34; n++) {
        memcpy(buf2_g, buf_g, n);
        expect_reason(buf2_g, n, cfg, WS_DROP_BAD_IPV4);
    }
}

static void test_drop_bad_udp(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    size_t len = build_valid(buf_g, cfg, 1, 0, 15, 7);
    expect_reason(buf_g, len, cfg, WS_OK);

    /* UDP length wrong, everything else consistent. */
    const int deltas[] = {1, 4, -1, -4, -(int)(len - 34) + 8, -(int)(len - 34), 1000};
    for (size_t i = 0; i < sizeof deltas / sizeof deltas[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 38, (uint16_t)((int)len - 34 + deltas[i]));
        ws_fix_checksums(buf2_g, len); /* fixes the UDP sum when the length fits */
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);
        /* Same with checksum "none": only the length check can catch it. */
        ws_put16(buf2_g + 40, 0);
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);
    }
    /* Wrong checksum: field bits, an element byte, a port, the source IP. */
    for (int bit = 0; bit < 16; bit++) {
        memcpy(buf2_g, buf_g, len);
        ws_put16(buf2_g + 40, (uint16_t)(ws_get16(buf2_g + 40) ^ (1u << bit)));
        if (ws_get16(buf2_g + 40) == 0)
            continue;
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);
    }
    memcpy(buf2_g, buf_g, len);
    buf2_g[len - 1] ^= 0x80;
    expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);
    memcpy(buf2_g, buf_g, len);
    buf2_g[WS_OFF_AGG + 10] ^= 0x01; /* count */
    expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);
    memcpy(buf2_g, buf_g, len);
    buf2_g[29] ^= 0x01; /* source IP: pseudo-header, IPv4 checksum fixed */
    fix_ip_only(buf2_g);
    expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);
    /* A datagram whose checksum is right must be 0xffff: 0x0000 is "none",
     * but a field equal to the complement of the correct one is wrong. */
    memcpy(buf2_g, buf_g, len);
    ws_put16(buf2_g + 40, (uint16_t)~ws_get16(buf_g + 40));
    if (ws_get16(buf2_g + 40) != 0)
        expect_reason(buf2_g, len, cfg, WS_DROP_BAD_UDP);

    /* Checksum 0 ("none") is accepted, even when the data would not match. */
    memcpy(buf2_g, buf_g, len);
    ws_put16(buf2_g + 40, 0);
    expect_reason(buf2_g, len, cfg, WS_OK);
    buf2_g[len - 1] ^= 0x80;
    expect_reason(buf2_g, len, cfg, WS_OK);

    /* Frame shorter than 42 with a consistent IPv4 header. */
    for (size_t n = 34; n < 42; n++) {
        memcpy(buf2_g, buf_g, n);
        ws_put16(buf2_g + 16, (uint16_t)(n - 14));
        fix_ip_only(buf2_g);
        expect_reason(buf2_g, n, cfg, WS_DROP_BAD_UDP);
    }
}

static void test_drop_bad_length(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    size_t len = build_valid(buf_g, cfg, 0, 3, 7, 6);
    expect_reason(buf_g, len, cfg, WS_OK);

    /* Short of 64 with consistent lengths and checksums. */
    for (size_t n = 42; n < 64; n++) {
        memcpy(buf2_g, buf_g, n);
        make_consistent(buf2_g, n);
        expect_reason(buf2_g, n, cfg, WS_DROP_BAD_LENGTH);
    }
    /* Trailing bytes (zeros or not) with consistent lengths. */
    const size_t extra[] = {1, 2, 3, 4, 8, 100};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        memcpy(buf2_g, buf_g, len);
        memset(buf2_g + len, i % 2 ? 0x00 : 0x5c, extra[i]);
        make_consistent(buf2_g, len + extra[i]);
        expect_reason(buf2_g, len + extra[i], cfg, WS_DROP_BAD_LENGTH);
    }
    /* Missing last element, or part of it. */
    for (size_t cut = 1; cut <= 4; cut++) {
        memcpy(buf2_g, buf_g, len);
        make_consistent(buf2_g, len - cut);
        expect_reason(buf2_g, len - cut, cfg, WS_DROP_BAD_LENGTH);
    }
    /* count 1 with no element at all: exactly 64 bytes. */
    size_t l1 = build_valid(buf2_g, cfg, 0, 3, 7, 1);
    make_consistent(buf2_g, l1 - 4);
    expect_reason(buf2_g, l1 - 4, cfg, WS_DROP_BAD_LENGTH);
    /* count 3 in a frame carrying 6 elements. */
    memcpy(buf2_g, buf_g, len);
    ws_put16(buf2_g + WS_OFF_AGG + 10, 3);
    ws_fix_checksums(buf2_g, len);
    expect_reason(buf2_g, len, cfg, WS_DROP_BAD_LENGTH);
}

/* Copy the valid frame, set byte off to v, fix checksums, expect want. */
static void poke_expect(const uint8_t *f, size_t len, const ws_config *cfg, size_t off,
                        uint8_t v, ws_reason want, int line)
{
    memcpy(buf2_g, f, len);
    buf2_g[off] = v;
    ws_fix_checksums(buf2_g, len);
    validate_at(buf2_g, len, cfg, want, __FILE__, line);
}

static void test_drop_bad_header(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    size_t len = build_valid(buf_g, cfg, 0, 1, 1, 2);
    expect_reason(buf_g, len, cfg, WS_OK);
    const size_t A = WS_OFF_AGG;

    /* Every version but WS_VERSION (type DATA). */
    for (unsigned v = 0; v < 16; v++)
        if (v != WS_VERSION)
            poke_expect(buf_g, len, cfg, A, (uint8_t)(v << 4), WS_DROP_BAD_HEADER, __LINE__);
    /* Type 2 (PARTIAL, to a device with partial = 0) .. 15. */
    for (unsigned t = 2; t < 16; t++)
        poke_expect(buf_g, len, cfg, A, (uint8_t)(WS_VERSION << 4 | t), WS_DROP_BAD_HEADER,
                    __LINE__);
    /* dtype 1 .. 255 (a few). */
    const uint8_t dts[] = {1, 2, 0x80, 0xff};
    for (size_t i = 0; i < sizeof dts; i++)
        poke_expect(buf_g, len, cfg, A + 1, dts[i], WS_DROP_BAD_HEADER, __LINE__);
    /* Each reserved flag bit, alone and with SET|RETX. */
    for (unsigned bit = 2; bit < 8; bit++) {
        poke_expect(buf_g, len, cfg, A + 2, (uint8_t)(1u << bit), WS_DROP_BAD_HEADER, __LINE__);
        poke_expect(buf_g, len, cfg, A + 2, (uint8_t)(1u << bit | 3u), WS_DROP_BAD_HEADER,
                    __LINE__);
    }
    /* SET and RETX are fine. */
    for (unsigned fl = 0; fl < 4; fl++)
        poke_expect(buf_g, len, cfg, A + 2, (uint8_t)fl, WS_OK, __LINE__);
    /* Reserved byte 3 and bytes 20..21. */
    const uint8_t vals[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < sizeof vals; i++) {
        poke_expect(buf_g, len, cfg, A + 3, vals[i], WS_DROP_BAD_HEADER, __LINE__);
        poke_expect(buf_g, len, cfg, A + 20, vals[i], WS_DROP_BAD_HEADER, __LINE__);
        poke_expect(buf_g, len, cfg, A + 21, vals[i], WS_DROP_BAD_HEADER, __LINE__);
    }
}

static void test_drop_result_to_device(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    ws_hdr h;
    hdr_for(cfg, 1, 1, 0, 3, &h);
    h.type = WS_TYPE_RESULT;
    fill_elems(3, 1);
    size_t len = ws_build(buf_g, &h, elems_g);
    expect_class(buf_g, len, WS_CLASS_AGG);
    expect_reason(buf_g, len, cfg, WS_DROP_RESULT_TO_DEVICE);
    h.flags = WS_FLAG_RETX | WS_FLAG_SET;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_RESULT_TO_DEVICE);
    /* Poked into a DATA frame. */
    len = build_valid(buf_g, cfg, 0, 0, 0, 1);
    poke_expect(buf_g, len, cfg, WS_OFF_AGG, WS_VERSION << 4 | WS_TYPE_RESULT,
                WS_DROP_RESULT_TO_DEVICE, __LINE__);
}

static void test_drop_unknown_job(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    const uint16_t ids[] = {JOB_ABSENT, 0, 6, 0xffff, 0x1235, 0x3412, JOB_HIDDEN};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        ws_hdr h;
        hdr_for(cfg, 0, 0, 0, 1, &h);
        h.job = ids[i];
        fill_elems(1, 0);
        size_t len = ws_build(buf_g, &h, elems_g);
        expect_reason(buf_g, len, cfg, WS_DROP_UNKNOWN_JOB);
    }
    /* Disabled job, a legitimate member of it. */
    ws_hdr h;
    hdr_for(cfg, 2, 1, 0, 1, &h);
    fill_elems(1, 0);
    size_t len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_UNKNOWN_JOB);
    /* Enabling it makes the same frame valid. */
    ws_config *c2 = malloc(sizeof *c2);
    assert_non_null(c2);
    *c2 = *cfg;
    c2->job[2].enable = true;
    expect_reason(buf_g, len, c2, WS_OK);
    /* With no jobs at all. */
    c2->n_jobs = 0;
    expect_reason(buf_g, len, c2, WS_DROP_UNKNOWN_JOB);
    free(c2);
}

static void test_drop_bad_rank(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    for (unsigned j = 0; j < 2; j++) {
        const ws_job *job = &cfg->job[j];
        const unsigned ranks[] = {job->workers, job->workers + 1, WS_LIMIT_WORKERS, 0xffff};
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
            ws_hdr h;
            hdr_for(cfg, j, 0, 0, 1, &h);
            h.worker = (uint16_t)ranks[i];
            fill_elems(1, 0);
            size_t len = ws_build(buf_g, &h, elems_g);
            expect_reason(buf_g, len, cfg, WS_DROP_BAD_RANK);
        }
        size_t len = build_valid(buf_g, cfg, j, job->workers - 1, 0, 1);
        expect_reason(buf_g, len, cfg, WS_OK);
    }
}

static void test_drop_spoofed(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    ws_hdr h0;
    hdr_for(cfg, 0, 2, 3, 4, &h0);
    fill_elems(4, 9);
    size_t len = ws_build(buf_g, &h0, elems_g);
    expect_reason(buf_g, len, cfg, WS_OK);

    for (int i = 0; i < 6; i++) {
        ws_hdr h = h0;
        h.src_mac[i] ^= 0x01;
        len = ws_build(buf_g, &h, elems_g);
        expect_reason(buf_g, len, cfg, WS_DROP_SPOOFED);
    }
    const uint32_t ipx[] = {1u, 0x100u, 0x10000u, 0x80000000u};
    for (size_t i = 0; i < 4; i++) {
        ws_hdr h = h0;
        h.src_ip ^= ipx[i];
        len = ws_build(buf_g, &h, elems_g);
        expect_reason(buf_g, len, cfg, WS_DROP_SPOOFED);
    }
    const uint16_t px[] = {1u, 0x100u, 0x8000u};
    for (size_t i = 0; i < 3; i++) {
        ws_hdr h = h0;
        h.src_port ^= px[i];
        len = ws_build(buf_g, &h, elems_g);
        expect_reason(buf_g, len, cfg, WS_DROP_SPOOFED);
    }
    /* Worker 1's full identity claiming rank 2, and a member of another job. */
    ws_hdr h = h0;
    ws_member m1 = member_for(0, 1);
    memcpy(h.src_mac, m1.mac, 6);
    h.src_ip = m1.ip;
    h.src_port = m1.udp_port;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_SPOOFED);
    h = h0;
    ws_member mb = member_for(1, 0);
    memcpy(h.src_mac, mb.mac, 6);
    h.src_ip = mb.ip;
    h.src_port = mb.udp_port;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_SPOOFED);
    /* Destination MAC is not checked (the device takes what it is given). */
    h = h0;
    h.dst_mac[5] ^= 0x01;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_OK);
}

static void test_drop_bad_slot(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    for (unsigned j = 0; j < 2; j++) {
        const ws_job *job = &cfg->job[j];
        const unsigned slots[] = {job->slots, job->slots + 1, job->slot_base + job->slots,
                                  WS_LIMIT_SLOTS, 0xffff};
        for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
            if (slots[i] < job->slots)
                continue;
            size_t len = build_valid(buf_g, cfg, j, 1, slots[i], 2);
            expect_reason(buf_g, len, cfg, WS_DROP_BAD_SLOT);
        }
        size_t len = build_valid(buf_g, cfg, j, 1, job->slots - 1, 2);
        expect_reason(buf_g, len, cfg, WS_OK);
    }
}

static void test_drop_bad_count(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    for (unsigned j = 0; j < 2; j++) {
        const ws_job *job = &cfg->job[j];
        /* count 0: a 64-byte frame, all lengths matching. */
        size_t len = build_valid(buf_g, cfg, j, 0, 1, 0);
        assert_int_equal(len, 64);
        expect_reason(buf_g, len, cfg, WS_DROP_BAD_COUNT);
        /* max_count + 1 with its full length. */
        len = build_valid(buf_g, cfg, j, 0, 1, job->max_count + 1);
        assert_int_equal(len, 64 + 4 * (job->max_count + 1));
        expect_reason(buf_g, len, cfg, WS_DROP_BAD_COUNT);
        /* max_count is fine. */
        len = build_valid(buf_g, cfg, j, 0, 1, job->max_count);
        expect_reason(buf_g, len, cfg, WS_OK);
    }
    /* A count far beyond any frame: bad_count, not bad_length. */
    size_t len = build_valid(buf_g, cfg, 0, 0, 1, 1);
    ws_put16(buf_g + WS_OFF_AGG + 10, 0xffff);
    ws_fix_checksums(buf_g, len);
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_COUNT);
}

static void test_drop_precedence(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    ws_hdr h0;
    hdr_for(cfg, 0, 1, 2, 3, &h0);
    fill_elems(3, 4);
    ws_hdr h;
    size_t len;

    /* bad IPv4 checksum + unknown job -> bad_ipv4 */
    h = h0;
    h.job = JOB_ABSENT;
    len = ws_build(buf_g, &h, elems_g);
    buf_g[24] ^= 0x10;
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_IPV4);
    /* bad IPv4 total length + bad UDP checksum -> bad_ipv4 */
    len = ws_build(buf_g, &h0, elems_g);
    ws_put16(buf_g + 16, (uint16_t)(len - 13));
    fix_ip_only(buf_g);
    buf_g[41] ^= 1;
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_IPV4);
    /* IP version 6 + everything after wrong -> bad_ipv4 */
    len = ws_build(buf_g, &h0, elems_g);
    buf_g[14] = 0x65;
    buf_g[40] ^= 0xff;
    buf_g[42] = 0x31;
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_IPV4);
    /* fragment + short frame -> bad_ipv4 */
    len = ws_build(buf_g, &h0, elems_g);
    ws_put16(buf_g + 20, 0x2000);
    make_consistent(buf_g, 50);
    expect_reason(buf_g, 50, cfg, WS_DROP_BAD_IPV4);
    /* bad UDP checksum + bad header -> bad_udp */
    len = ws_build(buf_g, &h0, elems_g);
    buf_g[WS_OFF_AGG + 1] = 1;
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_UDP);
    /* bad UDP length + short frame -> bad_udp */
    len = ws_build(buf_g, &h0, elems_g);
    make_consistent(buf_g, 60);
    ws_put16(buf_g + 38, 27);
    ws_fix_checksums(buf_g, 60);
    expect_reason(buf_g, 60, cfg, WS_DROP_BAD_UDP);
    /* short frame whose header would be wrong anyway -> bad_length */
    len = ws_build(buf_g, &h0, elems_g);
    buf_g[WS_OFF_AGG] = (WS_VERSION + 1) << 4 | WS_TYPE_RESULT;
    make_consistent(buf_g, 63);
    expect_reason(buf_g, 63, cfg, WS_DROP_BAD_LENGTH);
    /* header version WS_VERSION + 1 + type RESULT -> bad_header */
    h = h0;
    h.version = WS_VERSION + 1;
    h.type = WS_TYPE_RESULT;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_HEADER);
    /* RESULT + dtype 1 + reserved bits + unknown job -> result_to_device */
    h = h0;
    h.type = WS_TYPE_RESULT;
    h.dtype = 1;
    h.flags = 0xff;
    h.job = JOB_ABSENT;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_RESULT_TO_DEVICE);
    /* bad header (dtype) + unknown job -> bad_header */
    h = h0;
    h.dtype = 1;
    h.job = JOB_ABSENT;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_HEADER);
    /* bad header (reserved bytes 20..21) + bad count -> bad_header */
    h = h0;
    h.count = 0;
    len = ws_build(buf_g, &h, elems_g);
    buf_g[63] = 1;
    ws_fix_checksums(buf_g, len);
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_HEADER);
    /* unknown job + bad rank + spoofed -> unknown_job */
    h = h0;
    h.job = JOB_ABSENT;
    h.worker = 999;
    h.src_ip ^= 1;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_UNKNOWN_JOB);
    /* disabled job + bad rank + bad slot + bad count -> unknown_job */
    hdr_for(cfg, 2, 5, 100, 0, &h);
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_UNKNOWN_JOB);
    /* bad rank + spoofed -> bad_rank */
    h = h0;
    h.worker = 4;
    h.src_port ^= 1;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_RANK);
    /* spoofed + bad slot -> spoofed */
    h = h0;
    h.src_mac[0] ^= 2;
    h.slot = 8;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_SPOOFED);
    /* spoofed + bad count + bad length -> spoofed */
    h = h0;
    h.src_ip ^= 0x100;
    h.count = 0;
    len = ws_build(buf_g, &h, elems_g);
    make_consistent(buf_g, len + 4);
    expect_reason(buf_g, len + 4, cfg, WS_DROP_SPOOFED);
    /* bad slot + bad count -> bad_slot */
    h = h0;
    h.slot = 8;
    h.count = 0;
    len = ws_build(buf_g, &h, elems_g);
    expect_reason(buf_g, len, cfg, WS_DROP_BAD_SLOT);
    /* bad count + wrong length -> bad_count */
    h = h0;
    h.count = 257;
    len = ws_build(buf_g, &h, elems_g);
    make_consistent(buf_g, 64 + 4 * 3);
    expect_reason(buf_g, 64 + 4 * 3, cfg, WS_DROP_BAD_COUNT);
}

/* ---- 5. reason table ------------------------------------------------------- */

static void test_reason_names(void **state)
{
    (void)state;
    static const char *const want[] = {
        "ok",       "bad_ipv4",  "bad_udp",    "bad_header", "result_to_device",
        "unknown_job", "bad_rank", "spoofed", "bad_slot",   "bad_count",
        "bad_length",  "mismatch", "early",   "duplicate",
    };
    assert_int_equal(WS_N_REASONS, 14);
    assert_int_equal(WS_N_DROPS, 13);
    assert_int_equal(sizeof want / sizeof want[0], WS_N_REASONS);
    assert_int_equal(WS_OK, 0);
    assert_int_equal(WS_DROP_BAD_IPV4, 1);
    assert_int_equal(WS_DROP_DUPLICATE, 13);

    for (int r = 0; r < WS_N_REASONS; r++) {
        const char *n = ws_reason_name((ws_reason)r);
        assert_non_null(n);
        assert_string_equal(n, want[r]);
        for (const char *c = n; *c; c++)
            assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_');
        assert_int_equal(ws_reason_from_name(n), r);
        const char *d = ws_reason_desc((ws_reason)r);
        assert_non_null(d);
        assert_true(strlen(d) > 0);
        assert_string_not_equal(d, "?");
        for (int q = 0; q < r; q++) {
            assert_string_not_equal(n, ws_reason_name((ws_reason)q));
            assert_string_not_equal(d, ws_reason_desc((ws_reason)q));
        }
    }
    assert_string_equal(ws_reason_name(WS_OK), "ok");
    assert_string_equal(ws_reason_name(WS_N_REASONS), "?");
    assert_string_equal(ws_reason_name((ws_reason)100), "?");
    assert_string_equal(ws_reason_name((ws_reason)-1), "?");
    assert_string_equal(ws_reason_desc(WS_N_REASONS), "?");
    assert_string_equal(ws_reason_desc((ws_reason)-1), "?");
    const char *bad[] = {"", "?", "OK", "Bad_ipv4", "bad_ipv4 ", "bad", "bad_ipv4x", "none"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ws_reason_from_name(bad[i]), -1);
}

/* ---- 6. randomized robustness against an independent model ---------------- */

static int model_classify(const uint8_t *f, size_t len)
{
    if (len < 34 || f[12] != 0x08 || f[13] != 0x00)
        return WS_CLASS_BYPASS;
    uint32_t dst = (uint32_t)f[30] << 24 | (uint32_t)f[31] << 16 | (uint32_t)f[32] << 8 | f[33];
    if (dst != DEV_IP)
        return WS_CLASS_BYPASS;
    if ((f[14] >> 4) != 4)
        return WS_CLASS_AGG;
    if (f[23] != 17)
        return WS_CLASS_BYPASS;
    unsigned ihl = f[14] & 15u;
    unsigned fragoff = ((unsigned)f[20] << 8 | f[21]) & 0x1fffu;
    if (ihl < 5 || fragoff != 0)
        return WS_CLASS_AGG;
    size_t port_at = 14 + 4 * (size_t)ihl + 2;
    if (len < port_at + 2)
        return WS_CLASS_AGG;
    unsigned port = (unsigned)f[port_at] << 8 | f[port_at + 1];
    return port == DEV_PORT ? WS_CLASS_AGG : WS_CLASS_BYPASS;
}

/* The brief's order, written from the specification (len >= 34). */
static ws_reason model_validate(const uint8_t *f, size_t len, const ws_config *cfg)
{
    const uint8_t *ip = f + 14;
    if (len < 34 || ip[0] != 0x45 || !ref_ipv4_ok(ip, 20))
        return WS_DROP_BAD_IPV4;
    unsigned frag = (unsigned)ip[6] << 8 | ip[7];
    if ((frag & 0x2000u) || (frag & 0x1fffu))
        return WS_DROP_BAD_IPV4;
    if (((unsigned)ip[2] << 8 | ip[3]) != len - 14)
        return WS_DROP_BAD_IPV4;
    if (len < 42)
        return WS_DROP_BAD_UDP;
    const uint8_t *udp = f + 34;
    if (((unsigned)udp[4] << 8 | udp[5]) != len - 34)
        return WS_DROP_BAD_UDP;
    uint32_t src = ws_get32(ip + 12), dst = ws_get32(ip + 16);
    if ((udp[6] | udp[7]) != 0 && ref_udp_fold(src, dst, udp, len - 34) != 0xffff)
        return WS_DROP_BAD_UDP;
    if (len < 64)
        return WS_DROP_BAD_LENGTH;
    const uint8_t *a = f + 42;
    if ((a[0] >> 4) != 2) /* a device with partial = 0 */
        return WS_DROP_BAD_HEADER;
    if ((a[0] & 15) == 1)
        return WS_DROP_RESULT_TO_DEVICE;
    if ((a[0] & 15) != 0 || a[1] != 0 || (a[2] & 0xfc) || a[3] != 0 || a[20] != 0 || a[21] != 0)
        return WS_DROP_BAD_HEADER;
    unsigned id = (unsigned)a[4] << 8 | a[5];
    const ws_job *job = NULL;
    for (unsigned j = 0; j < cfg->n_jobs; j++)
        if (cfg->job[j].id == id)
            job = &cfg->job[j];
    if (!job || !job->enable)
        return WS_DROP_UNKNOWN_JOB;
    unsigned worker = (unsigned)a[6] << 8 | a[7];
    if (worker >= job->workers)
        return WS_DROP_BAD_RANK;
    const ws_member *m = &job->member[worker];
    if (memcmp(f + 6, m->mac, 6) != 0 || src != m->ip ||
        ((unsigned)udp[0] << 8 | udp[1]) != m->udp_port)
        return WS_DROP_SPOOFED;
    if (((unsigned)a[8] << 8 | a[9]) >= job->slots)
        return WS_DROP_BAD_SLOT;
    unsigned count = (unsigned)a[10] << 8 | a[11];
    if (count == 0 || count > job->max_count)
        return WS_DROP_BAD_COUNT;
    if (len != 64 + 4 * (size_t)count)
        return WS_DROP_BAD_LENGTH;
    return WS_OK;
}

#define N_BASE 48

static void test_robustness(void **state)
{
    (void)state;
    const ws_config *cfg = make_config();
    ws_rng r = {0x0dd5eedu};

    /* Valid base frames: mostly small, a few large. */
    static uint8_t base[N_BASE][MAX_FRAME];
    size_t blen[N_BASE];
    for (unsigned b = 0; b < N_BASE; b++) {
        unsigned j = b % 2;
        const ws_job *job = &cfg->job[j];
        unsigned count = b < 2 ? job->max_count : 1 + b % 19;
        ws_hdr h;
        hdr_for(cfg, j, b % job->workers, (unsigned)ws_rng_below(&r, job->slots), count, &h);
        h.flags = (uint8_t)(b & 3);
        h.tos = (uint8_t)ws_rng_next(&r);
        h.frag = b % 3 ? 0x4000 : 0;
        h.ip_id = (uint16_t)ws_rng_next(&r);
        for (unsigned i = 0; i < count; i++)
            elems_g[i] = (uint32_t)ws_rng_next(&r);
        if (b == 5)
            h.job = JOB_OFF; /* starts unknown: mutations may not revive it */
        blen[b] = ws_build(base[b], &h, elems_g);
    }

    unsigned long seen[WS_N_REASONS] = {0}, agg = 0, byp = 0;
    static const size_t fields[] = {12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 30, 33, 34, 35,
                                    36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
                                    50, 51, 52, 53, 62, 63, 6, 11};
    static uint8_t w[MAX_FRAME + 4096];

    for (unsigned it = 0; it < N_MUTATIONS; it++) {
        unsigned b = (unsigned)(it % 64 == 0 ? ws_rng_below(&r, 2) : 2 + ws_rng_below(&r, N_BASE - 2));
        size_t len = blen[b];
        memcpy(w, base[b], len);
        memset(w + len, 0, 512);

        unsigned nmut = (unsigned)(ws_rng_below(&r, 10) == 0 ? 0 : 1 + ws_rng_below(&r, 3));
        for (unsigned m = 0; m < nmut; m++) {
            switch (ws_rng_below(&r, 9)) {
            case 0: /* flip a random bit anywhere */
                if (len)
                    w[ws_rng_below(&r, len)] ^= (uint8_t)(1u << ws_rng_below(&r, 8));
                break;
            case 1: /* random byte in the headers */
                if (len)
                    w[ws_rng_below(&r, len < 72 ? len : 72)] = (uint8_t)ws_rng_next(&r);
                break;
            case 2: { /* header field byte: small or random value */
                size_t off = fields[ws_rng_below(&r, sizeof fields / sizeof fields[0])];
                if (off < len)
                    w[off] = ws_rng_chance(&r, 0.5) ? (uint8_t)ws_rng_below(&r, 20)
                                                     : (uint8_t)ws_rng_next(&r);
                break;
            }
            case 3: /* truncate */
                len = (size_t)ws_rng_below(&r, len + 1);
                if (ws_rng_chance(&r, 0.7) && len < 34)
                    len = 34 + (size_t)ws_rng_below(&r, 40);
                break;
            case 4: { /* extend with random bytes */
                size_t add = 1 + (size_t)ws_rng_below(&r, ws_rng_chance(&r, 0.1) ? 500 : 12);
                for (size_t i = 0; i < add; i++)
                    w[len + i] = (uint8_t)ws_rng_next(&r);
                len += add;
                break;
            }
            case 5: /* checksum "none" */
                if (len >= 42)
                    w[40] = w[41] = 0;
                break;
            case 6: { /* job / worker / slot near the configured values */
                if (len < 54)
                    break;
                const uint16_t ids[] = {JOB_A, JOB_B, JOB_OFF, JOB_ABSENT, JOB_HIDDEN};
                unsigned which = (unsigned)ws_rng_below(&r, 3);
                uint16_t v = which == 0 ? ids[ws_rng_below(&r, 5)] : (uint16_t)ws_rng_below(&r, 20);
                ws_put16(w + 46 + 2 * which, v);
                break;
            }
            case 7: { /* set count and resize the frame to match (or nearly) */
                unsigned c = (unsigned)ws_rng_below(&r, 300);
                if (len < 64)
                    break;
                ws_put16(w + 52, (uint16_t)c);
                size_t nl = ws_frame_len(c) + (ws_rng_chance(&r, 0.8) ? 0 : ws_rng_below(&r, 9));
                if (nl > len)
                    memset(w + len, 0x3c, nl - len);
                len = nl;
                break;
            }
            default: /* source identity of another member */
                if (len >= 42) {
                    ws_member mm = member_for((unsigned)ws_rng_below(&r, 3),
                                              (unsigned)ws_rng_below(&r, 4));
                    unsigned what = (unsigned)ws_rng_below(&r, 3);
                    if (what == 0)
                        memcpy(w + 6, mm.mac, 6);
                    else if (what == 1)
                        ws_put32(w + 26, mm.ip);
                    else
                        ws_put16(w + 34, mm.udp_port);
                }
                break;
            }
        }
        /* Most of the time make lengths and checksums consistent again so
         * that the later checks are reached. */
        if (ws_rng_chance(&r, 0.7)) {
            if (ws_rng_chance(&r, 0.9))
                make_consistent(w, len);
            else
                ws_fix_checksums(w, len);
            if (len >= 42 && ws_rng_chance(&r, 0.05))
                w[40] = w[41] = 0;
        }

        /* Exact-size heap copy: any read past len is an ASan error. */
        uint8_t *f = malloc(len ? len : 1);
        assert_non_null(f);
        if (len)
            memcpy(f, w, len);

        ws_class c = ws_classify(f, len, DEV_IP, DEV_PORT);
        int mc = model_classify(f, len);
        if ((int)c != mc)
            print_error("iteration %u: ws_classify %d, model %d (len %zu)\n", it, c, mc, len);
        assert_int_equal(c, mc);
        if (c == WS_CLASS_AGG)
            agg++;
        else
            byp++;

        if (len >= 34) {
            static const ws_job sentinel;
            ws_hdr h;
            const ws_job *job = &sentinel;
            ws_reason got = ws_validate(f, len, cfg, &h, &job);
            ws_reason want = model_validate(f, len, cfg);
            if (got != want)
                print_error("iteration %u: ws_validate %s, model %s (len %zu)\n", it,
                            ws_reason_name(got), ws_reason_name(want), len);
            assert_int_equal(got, want);
            assert_true((unsigned)got < WS_N_REASONS);
            seen[got]++;
            if (got == WS_OK) {
                /* The invariant, checked directly. */
                assert_non_null(job);
                assert_int_equal(len, 64u + 4u * h.count);
                assert_true(ref_ipv4_ok(f + 14, 20));
                uint16_t uc = ws_get16(f + 40);
                assert_true(uc == 0 || ref_udp_fold(h.src_ip, h.dst_ip, f + 34, len - 34) == 0xffff);
                assert_true(job->enable);
                assert_ptr_equal(job, ws_config_find_job(cfg, h.job));
                assert_true(h.worker < job->workers);
                assert_true(h.slot < job->slots);
                assert_true(h.count >= 1 && h.count <= job->max_count);
                const ws_member *m = &job->member[h.worker];
                assert_memory_equal(f + 6, m->mac, 6);
                assert_memory_equal(h.src_mac, m->mac, 6);
                assert_int_equal(ws_get32(f + 26), m->ip);
                assert_int_equal(h.src_ip, m->ip);
                assert_int_equal(ws_get16(f + 34), m->udp_port);
                assert_int_equal(h.src_port, m->udp_port);
                ws_hdr p;
                ws_parse(f, &p);
                assert_int_equal(p.job, h.job);
                assert_int_equal(p.count, h.count);
                assert_int_equal(p.offset, h.offset);
                assert_int_equal(p.tensor, h.tensor);
                assert_int_equal(p.flags, h.flags);
            } else {
                assert_null(job);
            }
        }
        free(f);
    }

    /* The run reached every stateless outcome; never a stateful one. */
    for (int k = 0; k <= WS_DROP_BAD_LENGTH; k++) {
        if (seen[k] == 0)
            print_error("outcome %s never produced\n", ws_reason_name((ws_reason)k));
        assert_true(seen[k] > 0);
    }
    assert_true(seen[WS_OK] > 1000);
    assert_int_equal(seen[WS_DROP_MISMATCH], 0);
    assert_int_equal(seen[WS_DROP_EARLY], 0);
    assert_int_equal(seen[WS_DROP_DUPLICATE], 0);
    assert_true(agg > 1000 && byp > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checksums),
        cmocka_unit_test(test_build_known_frame),
        cmocka_unit_test(test_build_parse_roundtrip),
        cmocka_unit_test(test_build_validates),
        cmocka_unit_test(test_classify_bypass),
        cmocka_unit_test(test_classify_agg),
        cmocka_unit_test(test_drop_bad_ipv4),
        cmocka_unit_test(test_drop_bad_udp),
        cmocka_unit_test(test_drop_bad_length),
        cmocka_unit_test(test_drop_bad_header),
        cmocka_unit_test(test_drop_result_to_device),
        cmocka_unit_test(test_drop_unknown_job),
        cmocka_unit_test(test_drop_bad_rank),
        cmocka_unit_test(test_drop_spoofed),
        cmocka_unit_test(test_drop_bad_slot),
        cmocka_unit_test(test_drop_bad_count),
        cmocka_unit_test(test_drop_precedence),
        cmocka_unit_test(test_reason_names),
        cmocka_unit_test(test_robustness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
