/* wire.c - codec for wire protocol v2: checksums, build, parse, classify. */
#include "wiresum/wire.h"

#include <string.h>

static const struct {
    const char *name, *desc;
} reasons[WS_N_REASONS] = {
    [WS_OK] = {"ok", "accepted"},
#define WS_X_TABLE(e, n, d) [WS_DROP_##e] = {n, d},
    WS_DROP_REASONS(WS_X_TABLE)
#undef WS_X_TABLE
};

const char *ws_reason_name(ws_reason r)
{
    return (unsigned)r < WS_N_REASONS ? reasons[r].name : "?";
}

const char *ws_reason_desc(ws_reason r)
{
    return (unsigned)r < WS_N_REASONS ? reasons[r].desc : "?";
}

int ws_reason_from_name(const char *name)
{
    for (int r = 0; r < WS_N_REASONS; r++)
        if (strcmp(reasons[r].name, name) == 0)
            return r;
    return -1;
}

void ws_hdr_init(ws_hdr *h)
{
    memset(h, 0, sizeof *h);
    h->ttl = WS_RESULT_TTL;
    h->frag = WS_RESULT_FRAG;
    h->ip_id = WS_RESULT_IP_ID;
    h->version = WS_VERSION;
    h->type = WS_TYPE_DATA;
    h->dtype = WS_DTYPE_F32;
}

/* Ones-complement sum of big-endian 16-bit words, not yet folded: a 64-bit accumulator takes
 * any frame's words without a carry out (RFC 1071: the carries are folded back at the end), so
 * the loop has no branch and the compiler vectorises it. */
static uint64_t sum16(const uint8_t *p, size_t n, uint64_t acc)
{
    for (; n >= 2; p += 2, n -= 2)
        acc += (uint32_t)p[0] << 8 | p[1];
    if (n)
        acc += (uint32_t)p[0] << 8;
    return acc;
}

static uint16_t fold(uint64_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return (uint16_t)acc;
}

uint16_t ws_ipv4_checksum(const uint8_t *ip, size_t hlen)
{
    uint64_t acc = sum16(ip, 10, 0);
    acc = sum16(ip + 12, hlen - 12, acc);
    return (uint16_t)~fold(acc);
}

/* The sum of UDP's IPv4 pseudo-header (addresses, protocol, length), not yet folded. */
static uint64_t pseudo_sum(uint32_t src_ip, uint32_t dst_ip, size_t udp_len)
{
    return (src_ip >> 16) + (src_ip & 0xffff) + (dst_ip >> 16) + (dst_ip & 0xffff) +
           WS_IPPROTO_UDP + (uint64_t)udp_len;
}

uint16_t ws_udp_checksum(uint32_t src_ip, uint32_t dst_ip, const uint8_t *udp, size_t udp_len)
{
    uint64_t acc = sum16(udp, 6, pseudo_sum(src_ip, dst_ip, udp_len)); /* not the checksum */
    acc = sum16(udp + 8, udp_len - 8, acc);
    uint16_t c = (uint16_t)~fold(acc);
    return c ? c : 0xffff;
}

int ws_ipv4_header_ok(const uint8_t *ip) { return fold(sum16(ip, WS_IPV4_LEN, 0)) == 0xffff; }

int ws_udp_checksum_ok(uint32_t src_ip, uint32_t dst_ip, const uint8_t *udp, size_t udp_len)
{
    return fold(sum16(udp, udp_len, pseudo_sum(src_ip, dst_ip, udp_len))) == 0xffff;
}

void ws_fix_checksums(uint8_t *f, size_t len)
{
    if (len < WS_OFF_IP + WS_IPV4_LEN)
        return;
    uint8_t *ip = f + WS_OFF_IP;
    size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
    if (ihl < WS_IPV4_LEN || WS_OFF_IP + ihl > len)
        return;
    ws_put16(ip + 10, ws_ipv4_checksum(ip, ihl));
    size_t uoff = WS_OFF_IP + ihl;
    if (uoff + WS_UDP_LEN > len)
        return;
    uint8_t *udp = f + uoff;
    size_t ulen = ws_get16(udp + 4);
    if (ulen < WS_UDP_LEN || uoff + ulen > len)
        return;
    ws_put16(udp + 6, ws_udp_checksum(ws_get32(ip + 12), ws_get32(ip + 16), udp, ulen));
}

/* Everything of a frame of len bytes but its payload and UDP checksum. */
static void put_headers(uint8_t *f, const ws_hdr *h, size_t len)
{
    memcpy(f, h->dst_mac, 6);
    memcpy(f + 6, h->src_mac, 6);
    ws_put16(f + 12, WS_ETHERTYPE_IPV4);

    uint8_t *ip = f + WS_OFF_IP;
    ip[0] = 0x45;
    ip[1] = h->tos;
    ws_put16(ip + 2, (uint16_t)(len - WS_ETH_LEN));
    ws_put16(ip + 4, h->ip_id);
    ws_put16(ip + 6, h->frag);
    ip[8] = h->ttl;
    ip[9] = WS_IPPROTO_UDP;
    ws_put32(ip + 12, h->src_ip);
    ws_put32(ip + 16, h->dst_ip);
    ws_put16(ip + 10, ws_ipv4_checksum(ip, WS_IPV4_LEN));

    uint8_t *udp = f + WS_OFF_UDP;
    ws_put16(udp, h->src_port);
    ws_put16(udp + 2, h->dst_port);
    ws_put16(udp + 4, (uint16_t)(len - WS_OFF_UDP));

    uint8_t *a = f + WS_OFF_AGG;
    a[0] = (uint8_t)(h->version << 4 | (h->type & 0x0f));
    a[1] = h->dtype;
    a[2] = h->flags;
    a[3] = 0;
    ws_put16(a + 4, h->job);
    ws_put16(a + 6, h->worker);
    ws_put16(a + 8, h->slot);
    ws_put16(a + 10, h->count);
    ws_put32(a + 12, h->offset);
    ws_put32(a + 16, h->tensor);
    ws_put16(a + 20, h->type == WS_TYPE_PARTIAL ? h->ext : 0);
}

static void put64(uint8_t *p, uint64_t v)
{
    ws_put32(p, (uint32_t)(v >> 32));
    ws_put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p) { return (uint64_t)ws_get32(p) << 32 | ws_get32(p + 4); }

static void put_udp_checksum(uint8_t *f, const ws_hdr *h, size_t len)
{
    uint8_t *udp = f + WS_OFF_UDP;
    ws_put16(udp + 6, ws_udp_checksum(h->src_ip, h->dst_ip, udp, len - WS_OFF_UDP));
}

uint64_t ws_build_elems(uint8_t *f, unsigned count, const uint32_t *elems)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < count; i++) {
        ws_put32(f + WS_OFF_ELEMS + 4 * i, elems[i]);
        acc += (elems[i] >> 16) + (elems[i] & 0xffff); /* its two 16-bit words */
    }
    return acc;
}

size_t ws_build_headers(uint8_t *f, const ws_hdr *h, uint64_t elems_sum)
{
    size_t len = ws_frame_len(h->count);
    put_headers(f, h, len);
    uint8_t *udp = f + WS_OFF_UDP;
    uint64_t acc = pseudo_sum(h->src_ip, h->dst_ip, len - WS_OFF_UDP) + elems_sum;
    acc = sum16(udp, 6, acc); /* ports and length, not the checksum field */
    acc = sum16(udp + 8, WS_OFF_ELEMS - WS_OFF_UDP - 8, acc); /* the aggregation header */
    uint16_t c = (uint16_t)~fold(acc);
    ws_put16(udp + 6, c ? c : 0xffff);
    return len;
}

size_t ws_build(uint8_t *f, const ws_hdr *h, const uint32_t *elems)
{
    return ws_build_headers(f, h, ws_build_elems(f, h->count, elems));
}

size_t ws_build_partial(uint8_t *f, ws_hdr *h, const ws_xsum *acc)
{
    uint8_t *w = f + WS_OFF_ELEMS, *rec = w + 8 * (size_t)h->count;
    unsigned ext = 0;
    for (unsigned i = 0; i < h->count; i++) {
        uint64_t words[WS_X64_MAX_WORDS];
        int n = ws_xsum_encode(&acc[i], words);
        if (n < 0)
            return 0;
        put64(w + 8 * i, words[0]);
        for (int k = 1; k < n; k++)
            put64(rec + 8 * (size_t)ext++, words[k]);
    }
    h->type = WS_TYPE_PARTIAL;
    h->ext = (uint16_t)ext;
    size_t len = ws_partial_len(h->count, ext);
    put_headers(f, h, len);
    put_udp_checksum(f, h, len);
    return len;
}

void ws_partial_add(const uint8_t *f, const ws_hdr *h, ws_xsum *acc)
{
    const uint8_t *w = f + WS_OFF_ELEMS, *rec = w + 8 * (size_t)h->count;
    unsigned k = 0;
    for (unsigned i = 0; i < h->count; i++) {
        uint64_t word = get64(w + 8 * i);
        ws_xsum_add_word(&acc[i], word, 1);
        while ((word & WS_X64_ESC) && k < h->ext) { /* the element goes on in the records */
            word = get64(rec + 8 * (size_t)k++);
            ws_xsum_add_word(&acc[i], word, 0);
        }
    }
}

void ws_parse(const uint8_t *f, ws_hdr *h)
{
    const uint8_t *ip = f + WS_OFF_IP, *udp = f + WS_OFF_UDP, *a = f + WS_OFF_AGG;
    memcpy(h->dst_mac, f, 6);
    memcpy(h->src_mac, f + 6, 6);
    h->tos = ip[1];
    h->ip_id = ws_get16(ip + 4);
    h->frag = ws_get16(ip + 6);
    h->ttl = ip[8];
    h->src_ip = ws_get32(ip + 12);
    h->dst_ip = ws_get32(ip + 16);
    h->src_port = ws_get16(udp);
    h->dst_port = ws_get16(udp + 2);
    h->version = a[0] >> 4;
    h->type = a[0] & 0x0f;
    h->dtype = a[1];
    h->flags = a[2];
    h->job = ws_get16(a + 4);
    h->worker = ws_get16(a + 6);
    h->slot = ws_get16(a + 8);
    h->count = ws_get16(a + 10);
    h->offset = ws_get32(a + 12);
    h->tensor = ws_get32(a + 16);
    h->ext = ws_get16(a + 20);
}

/* An aggregation frame of type `type` sent by the device dev_ip:dev_port. */
static int sent_by(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port, unsigned type)
{
    return len >= WS_OFF_ELEMS && ws_get16(f + 12) == WS_ETHERTYPE_IPV4 && f[WS_OFF_IP] == 0x45 &&
           f[WS_OFF_IP + 9] == WS_IPPROTO_UDP && ws_get32(f + WS_OFF_IP + 12) == dev_ip &&
           ws_get16(f + WS_OFF_UDP) == dev_port && f[WS_OFF_AGG] == (WS_VERSION << 4 | type);
}

int ws_is_result(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port)
{
    return sent_by(f, len, dev_ip, dev_port, WS_TYPE_RESULT);
}

int ws_is_sent(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port)
{
    return sent_by(f, len, dev_ip, dev_port, WS_TYPE_RESULT) ||
           sent_by(f, len, dev_ip, dev_port, WS_TYPE_PARTIAL);
}

int ws_result_check(const uint8_t *f, size_t len, ws_hdr *h)
{
    if (len < WS_OFF_ELEMS || ws_get16(f + 12) != WS_ETHERTYPE_IPV4)
        return -1;
    const uint8_t *ip = f + WS_OFF_IP, *udp = f + WS_OFF_UDP, *a = f + WS_OFF_AGG;
    if (ip[0] != 0x45 || ip[9] != WS_IPPROTO_UDP || fold(sum16(ip, WS_IPV4_LEN, 0)) != 0xffff ||
        (ws_get16(ip + 6) & 0x3fff) || ws_get16(ip + 2) != len - WS_ETH_LEN)
        return -1;
    if (ws_get16(udp + 4) != len - WS_OFF_UDP || ws_get16(udp + 6) == 0 ||
        !ws_udp_checksum_ok(ws_get32(ip + 12), ws_get32(ip + 16), udp, len - WS_OFF_UDP))
        return -1;
    if (a[0] != (WS_VERSION << 4 | WS_TYPE_RESULT) || a[1] != WS_DTYPE_F32 ||
        (a[2] & WS_FLAGS_RESERVED) || a[3] != 0 || ws_get16(a + 20) != 0)
        return -1;
    unsigned count = ws_get16(a + 10);
    if (count == 0 || len != ws_frame_len(count))
        return -1;
    ws_parse(f, h);
    return 0;
}

ws_class ws_classify(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port)
{
    if (len < WS_OFF_IP + WS_IPV4_LEN || ws_get16(f + 12) != WS_ETHERTYPE_IPV4)
        return WS_CLASS_BYPASS;
    const uint8_t *ip = f + WS_OFF_IP;
    if (ws_get32(ip + 16) != dev_ip)
        return WS_CLASS_BYPASS;
    if (ip[0] >> 4 != 4)
        return WS_CLASS_AGG; /* addressed to us but unreadable: dropped, not bypassed */
    if (ip[9] != WS_IPPROTO_UDP)
        return WS_CLASS_BYPASS;
    size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
    if (ihl < WS_IPV4_LEN || (ws_get16(ip + 6) & 0x1fff) != 0)
        return WS_CLASS_AGG; /* no UDP header to read: cannot be told apart */
    size_t uoff = WS_OFF_IP + ihl;
    if (len < uoff + 4)
        return WS_CLASS_AGG;
    return ws_get16(f + uoff + 2) == dev_port ? WS_CLASS_AGG : WS_CLASS_BYPASS;
}
