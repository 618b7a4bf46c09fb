/* wiresum/wire.h - codec for wire protocol v2 (docs/protocol.md).
 *
 * Owns: frame layout constants, big-endian field access, the IPv4 and UDP
 * checksums, building a frame, parsing one, classifying a frame as bypass or
 * aggregation traffic. The validation against a configuration is
 * wiresum/validate.h's.
 */
#ifndef WIRESUM_WIRE_H
#define WIRESUM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "wiresum/reasons.h"
#include "wiresum/xsum.h"

#define WS_ETH_LEN 14
#define WS_IPV4_LEN 20
#define WS_UDP_LEN 8
#define WS_AGG_LEN 22
#define WS_OFF_IP 14
#define WS_OFF_UDP 34
#define WS_OFF_AGG 42
#define WS_OFF_JOB 46   /* the aggregation header's job (after version, type, dtype, flags) */
#define WS_OFF_ELEMS 64 /* first element: beat-aligned for 256 and 512-bit datapaths */
#define WS_ETHERTYPE_IPV4 0x0800
#define WS_IPPROTO_UDP 17

#define WS_VERSION 2
#define WS_TYPE_DATA 0
#define WS_TYPE_RESULT 1
#define WS_TYPE_PARTIAL 2 /* a child device's exact partial sums, to its parent */
#define WS_DTYPE_F32 0
#define WS_FLAG_SET 0x01
#define WS_FLAG_RETX 0x02
#define WS_FLAGS_RESERVED 0xfc

/* IPv4 header fields the device writes into every RESULT. */
#define WS_RESULT_TTL 64
#define WS_RESULT_FRAG 0x4000 /* DF, offset 0: an atomic datagram, so id 0 (RFC 6864) */
#define WS_RESULT_IP_ID 0

/* Every field of a frame of wire protocol v2, host byte order. */
typedef struct {
    uint8_t dst_mac[6], src_mac[6];
    uint8_t tos;       /* DSCP and ECN */
    uint16_t ip_id;
    uint16_t frag;     /* flags and fragment offset */
    uint8_t ttl;
    uint32_t src_ip, dst_ip;
    uint16_t src_port, dst_port;
    uint8_t version;   /* aggregation header version, WS_VERSION */
    uint8_t type;      /* WS_TYPE_DATA, WS_TYPE_RESULT or WS_TYPE_PARTIAL */
    uint8_t dtype;     /* WS_DTYPE_F32 */
    uint8_t flags;     /* WS_FLAG_SET, WS_FLAG_RETX */
    uint16_t job, worker, slot, count;
    uint32_t offset, tensor;
    uint16_t ext;      /* PARTIAL: record words after the elements; 0 in DATA and RESULT */
} ws_hdr;

static inline uint16_t ws_get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t ws_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void ws_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void ws_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Length of a valid frame carrying count elements. */
static inline size_t ws_frame_len(unsigned count) { return WS_OFF_ELEMS + 4u * (size_t)count; }

/* Length of a PARTIAL of count elements and ext record words (8 bytes each). */
static inline size_t ws_partial_len(unsigned count, unsigned ext)
{
    return WS_OFF_ELEMS + 8u * ((size_t)count + ext);
}
/* The longest PARTIAL of count elements (every one WS_X64_MAX_WORDS words). */
static inline size_t ws_partial_max_len(unsigned count)
{
    return ws_partial_len(count, (WS_X64_MAX_WORDS - 1) * count);
}

/* A DATA header with sane IPv4 defaults (TTL 64, DF, id 0) and SET/RETX clear. */
void ws_hdr_init(ws_hdr *h);

/* Ones-complement sum helpers. ws_ipv4_checksum returns the checksum of an
 * IPv4 header of hlen bytes, computed as if its checksum field were zero. */
uint16_t ws_ipv4_checksum(const uint8_t *ip, size_t hlen);
/* UDP checksum over the IPv4 pseudo-header, the UDP header and the payload,
 * computed as if the checksum field were zero; 0 is returned as 0xffff. */
uint16_t ws_udp_checksum(uint32_t src_ip, uint32_t dst_ip, const uint8_t *udp, size_t udp_len);
/* A received IPv4 header of 20 bytes is intact when the ones'-complement sum over it, checksum
 * field included, is 0xffff (RFC 1071); a UDP datagram of udp_len bytes when the sum over the
 * pseudo-header and the whole datagram is. */
int ws_ipv4_header_ok(const uint8_t *ip);
int ws_udp_checksum_ok(uint32_t src_ip, uint32_t dst_ip, const uint8_t *udp, size_t udp_len);

/* Write a complete frame: Ethernet, IPv4 (with checksum), UDP (with checksum),
 * aggregation header and h->count elements (binary32 bit patterns). buf must
 * hold ws_frame_len(h->count) bytes. Returns the frame length. */
size_t ws_build(uint8_t *buf, const ws_hdr *h, const uint32_t *elems);
/* ws_build in two steps, for one payload to many destinations (a device's RESULTs to the members
 * of a round, as the RTL sums a round's payload once: docs/architecture.md): ws_build_elems
 * writes count elements into buf and returns their ones'-complement sum, not folded;
 * ws_build_headers then writes everything else for h (h->count elements already in buf), the
 * UDP checksum from that sum. ws_build(buf, h, e) is
 * ws_build_headers(buf, h, ws_build_elems(buf, h->count, e)). */
uint64_t ws_build_elems(uint8_t *buf, unsigned count, const uint32_t *elems);
size_t ws_build_headers(uint8_t *buf, const ws_hdr *h, uint64_t elems_sum);

/* Write a PARTIAL: the headers of ws_build with type PARTIAL, the first word of each exact sum
 * acc[0..h->count-1] (ws_xsum_encode), then the further words of the sums that have them, in
 * element order (the records); sets h->type and h->ext. buf must hold ws_partial_max_len(h->count) bytes. Returns the frame length, or 0
 * when a sum is beyond the encoding's range (more than 2^31 binary32 values). */
size_t ws_build_partial(uint8_t *buf, ws_hdr *h, const ws_xsum *acc);
/* Add the h->count elements of a PARTIAL (parsed into h) to acc[0..h->count-1], each as one
 * contribution: an element whose word has X set goes on in the next record word, and so on while
 * X is set and records are left (h->ext of them). */
void ws_partial_add(const uint8_t *f, const ws_hdr *h, ws_xsum *acc);

/* Recompute the IPv4 and UDP checksums of a frame of len bytes in place from
 * its own length fields (used to make deliberately broken frames consistent). */
void ws_fix_checksums(uint8_t *f, size_t len);

/* Read every field of a frame of at least WS_OFF_ELEMS bytes, no checks. */
void ws_parse(const uint8_t *f, ws_hdr *h);
static inline uint32_t ws_elem(const uint8_t *f, unsigned i) { return ws_get32(f + WS_OFF_ELEMS + 4 * i); }

/* A RESULT sent by the device with address dev_ip and port dev_port: IPv4 without options,
 * UDP from (dev_ip, dev_port), aggregation header version WS_VERSION type RESULT, at least 64
 * bytes. Nothing else of the frame is checked. */
int ws_is_result(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port);
/* A RESULT or a PARTIAL sent by the device dev_ip:dev_port: a frame of its own, not one it passed
 * on (a child's PARTIAL goes to its parent in judgment order, as its RESULTs to each member). */
int ws_is_sent(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port);

/* Validation of a RESULT as a worker receives it: untagged IPv4 without options, header checksum
 * right, not a fragment, IPv4 total length and UDP length matching len, UDP checksum non-zero and
 * right, aggregation header version WS_VERSION type RESULT, dtype binary32, reserved bits and
 * bytes zero, count 1.. and len exactly 64 + 4*count. Returns 0 and fills *h when all holds, -1 otherwise.
 * Addresses (who sent it, to whom) are the caller's to check against *h. */
int ws_result_check(const uint8_t *f, size_t len, ws_hdr *h);

typedef enum { WS_CLASS_BYPASS = 0, WS_CLASS_AGG = 1 } ws_class;

/* Bypass or aggregation (docs/protocol.md, "Classification"): aggregation when
 * EtherType 0x0800, IPv4 destination dev_ip and then either IP version not 4,
 * or protocol 17 with a UDP destination port that is dev_port or cannot be read. */
ws_class ws_classify(const uint8_t *f, size_t len, uint32_t dev_ip, uint16_t dev_port);

#endif
