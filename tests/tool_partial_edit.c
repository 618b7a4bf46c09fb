/* tool_partial_edit.c - PARTIAL frames made malformed or unusual on purpose, for the RTL's parent
 * side against the reference, and a parent's RESULT frames broken, for its child side
 * (tests/partial.sh).
 *
 *   tool_partial_edit IN.pcap OUT.pcap SEED
 *   tool_partial_edit --result MODE IN.pcap OUT.pcap SEED
 *
 * Copies every frame of IN.pcap to OUT.pcap; each PARTIAL frame (docs/protocol.md section 9:
 * IPv4, UDP, aggregation header version 2 type 2) is, by a draw of SEED's generator, kept as
 * it is or replaced by one of:
 *   words    its element words and record words drawn anew (the same count, ext 0..2*count):
 *            X chains of any length, chains that run past the last record, records no
 *            element takes, specials (E = 255, flags in M bits 2..0, in element and record
 *            words), the "all -0" zero (S = 1, M = 0, X = 0) and its near misses, the largest
 *            words (E = 254), ordinary ones; each element keeps its original word half the time
 *   ext+1    ext one above the words the frame holds               (bad_length)
 *   count+1  count one above                                        (bad_length, or bad_count)
 *   short    the last word cut off (lengths fixed)                  (bad_length)
 *   result   type 1, a RESULT: to a root it is result_to_device, or bad_header with ext != 0
 *   type3    type 3                                                 (bad_header)
 *   data     type 0, a DATA frame: bad_header with ext != 0, else bad_length
 *   rsvd     byte 45 (reserved) set                                 (bad_header)
 * The IPv4 total length, the IPv4 checksum and the UDP length are made right for the new frame
 * and the UDP checksum 0 ("none", accepted), so that the check that fails is the one named.
 *
 * With --result, IN.pcap is a child device's input (`wiresum run --tree ... --record`: the port
 * towards its parent), and its RESULT frames (type 1: the parent's, no worker sends one) are
 * edited instead, each by a draw of SEED's generator kept or changed by MODE (docs/protocol.md
 * section 4, the parent's RESULT; section 9, its verdicts):
 *   rank     worker + 1, not our rank at the parent                  (bad_rank)
 *   mac      the source MAC's last byte XOR 1                        (spoofed)
 *   slot     slot with bit 15 set, beyond any job's slots            (bad_slot)
 *   count    count 0 or 65535, the length kept                       (bad_count)
 *   length   4 bytes more, count kept                                (bad_length)
 *   job      job XOR 0x8000: no job has that parent job              (result_to_device)
 *   ip       the source IPv4 address's last byte XOR 1               (result_to_device)
 *   port     the source UDP port XOR 1                               (result_to_device)
 *   offset   offset + count, another round                           (mismatch, or duplicate
 *   tensor   tensor XOR 1                                             for a set complete by then)
 *   short    count - 1 and its last element cut off (count > 1)      (mismatch, or duplicate)
 *   dup      the frame twice                                         (duplicate)
 *   mixed    each changed frame by one of the above, drawn
 * Lengths, the IPv4 checksum and the UDP checksum (over the pseudo-header) are made right, so
 * that only the check named fails.
 *
 * Prints "kept N, changed M" and exits 0, or 1 with a message naming the file and the frame.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_NAME "tool_partial_edit"
#include "tool_pcap.h"

#define MAX_LEN 65536

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

static unsigned get16(const uint8_t *b) { return (unsigned)b[0] << 8 | b[1]; }
static void put16(uint8_t *b, unsigned v)
{
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
}
static uint64_t get64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}
static void put64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* a word of the PARTIAL encoding: X S E(8) M(54) */
static uint64_t word(int x, int s, unsigned e, uint64_t m)
{
    return (uint64_t)(x != 0) << 63 | (uint64_t)(s != 0) << 62 | (uint64_t)(e & 0xff) << 54 |
           (m & ((1ull << 54) - 1));
}

/* a word drawn for the "words" edit; x: the chance of X in 1/8 */
static uint64_t draw_word(unsigned x8)
{
    int x = below(8) < x8, s = (int)below(2);
    switch (below(10)) {
    case 0: /* a special: the flags, and other bits of M that do not matter */
        return word(x, s, 255, rnd() & (below(2) ? 7u : ~0ull));
    case 1: /* the "all -0" zero, or a near miss (+0, -0 with X) */
        return word(below(4) == 0 ? x : 0, below(4) ? 1 : s, below(2) ? 0 : below(255), 0);
    case 2: /* the largest words */
        return word(x, s, 254, rnd() | (below(2) ? (1ull << 53) : 0));
    case 3: /* a long mantissa at a large exponent */
        return word(x, s, 100 + below(155), rnd());
    default: /* an ordinary one: a mantissa of up to 54 bits at a small exponent */
        return word(x, s, below(80), rnd() >> below(64));
    }
}

/* the IPv4 header checksum (RFC 1071) of bytes 14..33 */
static void ip_checksum(uint8_t *f)
{
    f[24] = f[25] = 0;
    uint32_t sum = 0;
    for (int i = 14; i < 34; i += 2)
        sum += get16(f + i);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(f + 24, ~sum & 0xffff);
}

static size_t fix_lengths(uint8_t *f, size_t len)
{
    put16(f + 16, (unsigned)(len - 14));
    ip_checksum(f);
    put16(f + 38, (unsigned)(len - 34));
    put16(f + 40, 0);
    return len;
}

/* one PARTIAL frame f of len bytes edited in place; returns the new length (0: kept) */
static size_t edit(uint8_t *f, size_t len)
{
    unsigned count = get16(f + 52), ext = get16(f + 62);
    if (len != 64 + 8 * ((size_t)count + ext) || count == 0)
        return 0; /* malformed already: as it is */
    unsigned pick = below(16);
    if (pick < 6)
        return 0;
    if (pick < 11) { /* words: at most three words an element, within the longest PARTIAL */
        unsigned next = below(2 * count + 1);
        uint8_t *w = f + 64, *rec = w + 8 * (size_t)count;
        for (unsigned i = 0; i < count; i++)
            if (below(2))
                put64(w + 8 * i, draw_word(3));
            else if (below(4) == 0)
                put64(w + 8 * i, get64(w + 8 * i) | 1ull << 63); /* goes on in the records */
        for (unsigned k = 0; k < next; k++)
            put64(rec + 8 * (size_t)k, draw_word(below(2) ? 2 : 6));
        put16(f + 62, next);
        return fix_lengths(f, 64 + 8 * ((size_t)count + next));
    }
    switch (pick) {
    case 11:
        put16(f + 62, ext + 1);
        break;
    case 12:
        put16(f + 52, count + 1);
        break;
    case 13:
        if (len <= 72)
            return 0;
        return fix_lengths(f, len - 8);
    case 14:
        f[42] = (uint8_t)(0x20 | (below(2) ? 1 : 3));
        break;
    default:
        if (below(2)) {
            f[42] = 0x20;
        } else {
            f[45] = (uint8_t)(1 + below(255));
        }
        break;
    }
    return fix_lengths(f, len);
}

/* ---- a parent's RESULTs (--result) ---------------------------------------------------- */

static const char *const result_modes[] = {"rank", "mac",    "slot",   "count", "length",
                                           "job",  "ip",     "port",   "offset", "tensor",
                                           "short", "dup",   "mixed"};
enum { R_MIXED = sizeof result_modes / sizeof result_modes[0] - 1 };

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}
static void put32(uint8_t *b, uint32_t v)
{
    put16(b, v >> 16);
    put16(b + 2, v & 0xffff);
}

/* lengths, the IPv4 checksum and the UDP checksum over the pseudo-header, for len bytes */
static size_t fix_all(uint8_t *f, size_t len)
{
    fix_lengths(f, len);
    uint32_t sum = get16(f + 26) + get16(f + 28) + get16(f + 30) + get16(f + 32) + 17 +
                   (uint32_t)(len - 34);
    for (size_t i = 34; i < len; i += 2)
        sum += i + 1 < len ? get16(f + i) : (unsigned)f[i] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(f + 40, ~sum & 0xffff ? ~sum & 0xffff : 0xffff);
    return len;
}

/* one RESULT f of len bytes edited in place by mode (room for 4 bytes more); returns the new
 * length (0: kept), *copies 2 for "dup" */
static size_t edit_result(uint8_t *f, size_t len, unsigned mode, int *copies)
{
    unsigned count = get16(f + 52);
    if (len != 64 + 4 * (size_t)count || count == 0 || below(2))
        return 0; /* malformed already, or kept */
    if (mode == R_MIXED)
        mode = below(R_MIXED);
    switch (mode) {
    case 0: put16(f + 48, get16(f + 48) + 1); break;
    case 1: f[11] ^= 1; break;
    case 2: put16(f + 50, get16(f + 50) | 0x8000); break;
    case 3: put16(f + 52, below(2) ? 0 : 0xffff); break;
    case 4: memset(f + len, 0, 4); len += 4; break;
    case 5: put16(f + 46, get16(f + 46) ^ 0x8000); break;
    case 6: f[29] ^= 1; break;
    case 7: f[35] ^= 1; break;
    case 8: put32(f + 54, get32(f + 54) + count); break;
    case 9: put32(f + 58, get32(f + 58) ^ 1); break;
    case 10:
        if (count < 2)
            return 0;
        put16(f + 52, count - 1);
        len -= 4;
        break;
    default: *copies = 2; return len;
    }
    return fix_all(f, len);
}

int main(int argc, char **argv)
{
    int rmode = -1; /* --result MODE: its index in result_modes */
    if (argc == 6 && !strcmp(argv[1], "--result")) {
        for (unsigned i = 0; i <= R_MIXED; i++)
            if (!strcmp(argv[2], result_modes[i]))
                rmode = (int)i;
        if (rmode < 0) {
            fprintf(stderr, "tool_partial_edit: --result %s: not a mode (rank mac slot count "
                    "length job ip port offset tensor short dup mixed)\n", argv[2]);
            return 2;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: tool_partial_edit [--result MODE] IN.pcap OUT.pcap SEED\n");
        return 2;
    }
    rng_state = strtoull(argv[3], NULL, 10);
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        fprintf(stderr, "tool_partial_edit: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        fprintf(stderr, "tool_partial_edit: %s: %s\n", argv[2], strerror(errno));
        fclose(in);
        return 1;
    }
    uint8_t gh[24], rh[16];
    static uint8_t f[MAX_LEN + 4]; /* + 4: a RESULT's "length" edit */
    if (fread(gh, 1, 24, in) != 24)
        return tool_die(in, out, argv[1], 0, "no pcap header");
    uint32_t magic = pcap_get32(gh, 0);
    int swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
    if (!swap && magic != 0xa1b2c3d4u && magic != 0xa1b23c4du)
        return tool_die(in, out, argv[1], 0, "not a classic pcap file (magic)");
    if (pcap_get32(gh + 16, swap) < MAX_LEN)
        pcap_put32(gh + 16, MAX_LEN, swap);
    if (fwrite(gh, 1, 24, out) != 24)
        return tool_die(in, out, argv[2], 0, "could not write");
    unsigned long n = 0, kept = 0, changed = 0;
    while (fread(rh, 1, 16, in) == 16) {
        n++;
        uint32_t incl = pcap_get32(rh + 8, swap);
        if (incl > MAX_LEN || fread(f, 1, incl, in) != incl)
            return tool_die(in, out, argv[1], n, "cut short or longer than 64 KiB");
        size_t len = incl;
        int ours = len >= 64 && get16(f + 12) == 0x0800 && f[14] == 0x45 && f[23] == 17 &&
                   f[42] == (rmode < 0 ? 0x22 : 0x21);
        int copies = 1;
        size_t nl = !ours      ? 0
                    : rmode < 0 ? edit(f, len)
                                : edit_result(f, len, (unsigned)rmode, &copies);
        if (nl) {
            len = nl;
            pcap_put32(rh + 8, (uint32_t)len, swap);
            pcap_put32(rh + 12, (uint32_t)len, swap);
            changed++;
        } else if (ours) {
            kept++;
        }
        for (int k = 0; k < copies; k++)
            if (fwrite(rh, 1, 16, out) != 16 || fwrite(f, 1, len, out) != len)
                return tool_die(in, out, argv[2], n, "could not write");
    }
    fclose(in);
    if (fclose(out))
        return tool_die(NULL, NULL, argv[2], 0, "could not write");
    printf("kept %lu, changed %lu\n", kept, changed);
    return 0;
}
