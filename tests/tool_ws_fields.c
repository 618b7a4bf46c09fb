/* tool_ws_fields.c - the fields of every wiresum aggregation header of a pcap, read with the C
 * codec (driver/wiresum/wire.h ws_parse, ws_elem), in the tab-separated layout of
 *
 *   tshark -X lua_script:tools/wireshark/wiresum.lua -r FILE -T fields -E aggregator=';' \
 *          -e frame.number -e wiresum.ver_type -e wiresum.version ... (FIELDS below)
 *
 * so that tests/dissector.sh can diff the dissector against the codec.
 *
 * Usage: tool_ws_fields [--port N]... [--floats] FILE.pcap
 *
 * One line per frame of FILE. A frame carries an aggregation header when its UDP source or
 * destination port is one of the N (default 48900: the device's aggregation port) and the headers before it can be read as Wireshark
 * reads them: Ethernet with up to two VLAN tags, then IPv4 (version 4, IHL >= 5, not a fragment,
 * protocol 17) or IPv6 (next header 17), then a UDP header with a length of at least 8. The
 * aggregation header is the UDP payload, bounded by the frame, the IP length and the UDP length.
 * It is copied to byte 42 of a frame of the standard layout (docs/protocol.md section 2: the
 * frame itself when it is untagged IPv4 without options) and read there with ws_parse. Fields
 * whose bytes the payload does not hold are left empty, as is every field of another frame.
 *
 * Columns: frame number, ver_type, version, type, dtype, flags, flags.set, flags.retx,
 * flags.reserved (bits 7..2, shifted down as Wireshark shows a masked field), reserved (byte 3),
 * job, worker, slot, count, offset, tensor, reserved2 (bytes 20-21) or, in a PARTIAL, ext,
 * element indexes and raw binary32 elements, a PARTIAL's element words and record words (each a
 * ';'-separated list, 64-bit words as 0x%016x), and the expert infos the dissector must raise,
 * by name, ';'-separated in a fixed order (see EXPERTS).
 *
 * --floats: instead, frame number and the elements as binary32 values ("%.9g", "nan", "inf"),
 * ';'-separated, for the frames that have elements.
 */
#include <math.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"
#include "wiresum/wire.h"

#define MAX_PAYLOAD 65536

typedef struct {
    size_t off; /* payload start in the frame */
    size_t len; /* payload bytes */
} payload;

#define MAX_PORTS 8
static unsigned ports[MAX_PORTS], n_ports;

static int is_port(unsigned port)
{
    for (unsigned i = 0; i < n_ports; i++)
        if (ports[i] == port)
            return 1;
    return 0;
}

/* Where Wireshark finds the UDP payload of f, if it is to or from one of the ports: 1, else 0. */
static int locate(const uint8_t *f, size_t len, payload *p)
{
    size_t off = 12;
    if (len < 14)
        return 0;
    unsigned et = ws_get16(f + off);
    for (int tags = 0; (et == 0x8100 || et == 0x88a8) && tags < 2; tags++) {
        off += 4;
        if (len < off + 2)
            return 0;
        et = ws_get16(f + off);
    }
    off += 2;
    size_t end, udp;
    if (et == 0x0800) {
        if (len < off + 20 || f[off] >> 4 != 4)
            return 0;
        size_t ihl = (size_t)(f[off] & 0x0f) * 4, total = ws_get16(f + off + 2);
        if (ihl < 20 || total < ihl || (ws_get16(f + off + 6) & 0x3fff) || f[off + 9] != 17)
            return 0;
        end = off + total < len ? off + total : len;
        udp = off + ihl;
    } else if (et == 0x86dd) {
        if (len < off + 40 || f[off] >> 4 != 6 || f[off + 6] != 17)
            return 0;
        size_t plen = ws_get16(f + off + 4);
        end = off + 40 + plen < len ? off + 40 + plen : len;
        udp = off + 40;
    } else {
        return 0;
    }
    if (end < udp + WS_UDP_LEN)
        return 0;
    if (!is_port(ws_get16(f + udp)) && !is_port(ws_get16(f + udp + 2)))
        return 0;
    size_t ulen = ws_get16(f + udp + 4);
    if (ulen < WS_UDP_LEN)
        return 0;
    if (udp + ulen < end)
        end = udp + ulen;
    p->off = udp + WS_UDP_LEN;
    p->len = end - p->off;
    return 1;
}

/* The dissector's expert infos, in the order the script sorts them into. */
enum { E_TRUNCATED, E_BAD_VERSION, E_BAD_TYPE, E_BAD_DTYPE, E_BAD_FLAGS, E_BAD_RESERVED,
       E_BAD_COUNT, E_BAD_LENGTH, E_RETX, N_EXPERTS };
static const char *const EXPERTS[N_EXPERTS] = {"truncated", "bad_version", "bad_type",
                                               "bad_dtype", "bad_flags", "bad_reserved",
                                               "bad_count", "bad_length", "retx"};

static void print_experts(unsigned mask)
{
    const char *sep = "";
    for (int i = 0; i < N_EXPERTS; i++)
        if (mask >> i & 1) {
            printf("%s%s", sep, EXPERTS[i]);
            sep = ";";
        }
}

static void print_fields(unsigned long n, const uint8_t *canon, size_t plen)
{
    ws_hdr h;
    ws_parse(canon, &h);
    const uint8_t *a = canon + WS_OFF_AGG;
    unsigned rsvd = a[3], rsvd2 = ws_get16(a + 20);
    printf("%lu", n);
#define HAVE(o, s) (plen >= (size_t)(o) + (s))
    if (HAVE(0, 1))
        printf("\t0x%02x\t%u\t%u", a[0], h.version, h.type);
    else
        printf("\t\t\t");
    if (HAVE(1, 1))
        printf("\t%u", h.dtype);
    else
        printf("\t");
    if (HAVE(2, 1))
        printf("\t0x%02x\t%u\t%u\t0x%02x", h.flags, h.flags & WS_FLAG_SET ? 1u : 0u,
               h.flags & WS_FLAG_RETX ? 1u : 0u, (unsigned)(h.flags & WS_FLAGS_RESERVED) >> 2);
    else
        printf("\t\t\t\t");
    printf(HAVE(3, 1) ? "\t0x%02x" : "\t", rsvd);
    printf(HAVE(4, 2) ? "\t%u" : "\t", h.job);
    printf(HAVE(6, 2) ? "\t%u" : "\t", h.worker);
    printf(HAVE(8, 2) ? "\t%u" : "\t", h.slot);
    printf(HAVE(10, 2) ? "\t%u" : "\t", h.count);
    printf(HAVE(12, 4) ? "\t%lu" : "\t", (unsigned long)h.offset);
    printf(HAVE(16, 4) ? "\t0x%08lx" : "\t", (unsigned long)h.tensor);
    int full = HAVE(WS_AGG_LEN, 0);
    int partial = full && h.type == WS_TYPE_PARTIAL;
    printf(full && !partial ? "\t0x%04x" : "\t", rsvd2);
    printf(partial ? "\t%u" : "\t", rsvd2);
#undef HAVE

    /* elements: the whole ones present, at most count (a PARTIAL's: 8-byte words) */
    unsigned ne = 0, size = partial ? 8 : 4;
    if (full && plen > WS_AGG_LEN) {
        size_t room = (plen - WS_AGG_LEN) / size;
        ne = h.count < room ? h.count : (unsigned)room;
    }
    printf("\t");
    for (unsigned i = 0; i < ne; i++)
        printf("%s%u", i ? ";" : "", i);
    printf("\t");
    for (unsigned i = 0; i < ne && !partial; i++)
        printf("%s0x%08lx", i ? ";" : "", (unsigned long)ws_elem(canon, i));
    const uint8_t *w = canon + WS_OFF_ELEMS;
    printf("\t");
    for (unsigned i = 0; i < ne && partial; i++)
        printf("%s0x%08lx%08lx", i ? ";" : "", (unsigned long)ws_get32(w + 8 * i),
               (unsigned long)ws_get32(w + 8 * i + 4));
    printf("\t");
    if (partial && ne == h.count) /* the record words present, at most ext */
        for (unsigned k = 0; k < rsvd2 && WS_AGG_LEN + 8 * ((size_t)h.count + k + 1) <= plen; k++)
            printf("%s0x%08lx%08lx", k ? ";" : "", (unsigned long)ws_get32(w + 8 * (h.count + k)),
                   (unsigned long)ws_get32(w + 8 * (h.count + k) + 4));

    /* expert infos: docs/protocol.md section 4, the stateless header checks */
    unsigned ex = 0;
    if (!full) {
        ex |= 1u << E_TRUNCATED;
    } else {
        if (h.version != WS_VERSION)
            ex |= 1u << E_BAD_VERSION;
        if (h.type != WS_TYPE_DATA && h.type != WS_TYPE_RESULT && h.type != WS_TYPE_PARTIAL)
            ex |= 1u << E_BAD_TYPE;
        if (h.dtype != WS_DTYPE_F32)
            ex |= 1u << E_BAD_DTYPE;
        if (h.flags & WS_FLAGS_RESERVED)
            ex |= 1u << E_BAD_FLAGS;
        if (rsvd || (rsvd2 && !partial))
            ex |= 1u << E_BAD_RESERVED;
        if (h.count == 0)
            ex |= 1u << E_BAD_COUNT;
        /* a frame of exactly 64 + 4*count bytes (a PARTIAL: 64 + 8*(count + ext)), in the
         * standard layout */
        if (WS_OFF_AGG + plen != (partial ? ws_partial_len(h.count, rsvd2) : ws_frame_len(h.count)))
            ex |= 1u << E_BAD_LENGTH;
        if (h.flags & WS_FLAG_RETX)
            ex |= 1u << E_RETX;
    }
    printf("\t");
    print_experts(ex);
    printf("\n");
}

static void print_floats(unsigned long n, const uint8_t *canon, size_t plen)
{
    ws_hdr h;
    ws_parse(canon, &h);
    if (plen < WS_AGG_LEN + 4 || h.count == 0 || h.type == WS_TYPE_PARTIAL)
        return; /* a PARTIAL's words are no binary32 */
    size_t room = (plen - WS_AGG_LEN) / 4;
    unsigned ne = h.count < room ? h.count : (unsigned)room;
    printf("%lu\t", n);
    for (unsigned i = 0; i < ne; i++) {
        uint32_t bits = ws_elem(canon, i);
        float v;
        memcpy(&v, &bits, 4);
        if (isnan(v))
            printf("%snan", i ? ";" : "");
        else if (isinf(v))
            printf("%s%sinf", i ? ";" : "", v < 0 ? "-" : "");
        else
            printf("%s%.9g", i ? ";" : "", (double)v);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    int floats = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc && n_ports < MAX_PORTS)
            ports[n_ports++] = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--floats") == 0)
            floats = 1;
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else {
            fprintf(stderr, "usage: tool_ws_fields [--port N]... [--floats] FILE.pcap\n");
            return 2;
        }
    }
    if (n_ports == 0)
        ports[n_ports++] = WS_DEFAULT_UDP_PORT;
    if (!file) {
        fprintf(stderr, "usage: tool_ws_fields [--port N]... [--floats] FILE.pcap\n");
        return 2;
    }
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_open_offline(file, err);
    if (!pc) {
        fprintf(stderr, "tool_ws_fields: %s: %s\n", file, err);
        return 1;
    }
    if (pcap_datalink(pc) != DLT_EN10MB) {
        fprintf(stderr, "tool_ws_fields: %s: not an Ethernet capture\n", file);
        pcap_close(pc);
        return 1;
    }
    static uint8_t canon[WS_OFF_AGG + MAX_PAYLOAD + 64];
    struct pcap_pkthdr *ph;
    const u_char *data;
    unsigned long n = 0;
    int rc;
    while ((rc = pcap_next_ex(pc, &ph, &data)) == 1) {
        n++;
        payload p;
        if (!locate(data, ph->caplen, &p)) {
            if (!floats)
                printf("%lu\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", n); /* 22 empty fields */
            continue;
        }
        /* the standard layout: the payload at byte 42, zeros where the frame has no bytes */
        memset(canon, 0, WS_OFF_ELEMS);
        memcpy(canon, data, 12);
        memcpy(canon + WS_OFF_AGG, data + p.off, p.len);
        if (floats)
            print_floats(n, canon, p.len);
        else
            print_fields(n, canon, p.len);
    }
    if (rc == PCAP_ERROR) {
        fprintf(stderr, "tool_ws_fields: %s: frame %lu: %s\n", file, n + 1, pcap_geterr(pc));
        pcap_close(pc);
        return 1;
    }
    pcap_close(pc);
    return 0;
}
