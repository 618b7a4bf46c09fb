/* tool_pcap_edit.c - small edits and reads of one frame of a classic pcap file, for tests that
 * need a mismatch on purpose (tests/ux.sh).
 *
 *   tool_pcap_edit flip FILE N BYTE   XOR byte BYTE (0-based) of frame N (1-based) with 0x01,
 *                                     in place
 *   tool_pcap_edit word FILE N BYTE   print the big-endian 32-bit word at byte BYTE of frame N
 *                                     as hex and as a binary32 value: "0x3fc00000 1.5" (%.9g)
 *   tool_pcap_edit ts FILE N          print the timestamp of frame N in nanoseconds
 *   tool_pcap_edit count FILE         print the number of frames
 *   tool_pcap_edit list FILE          print "N LENGTH HASH" for every frame (HASH: FNV-1a 64 of
 *                                     its bytes, to find the same frame in another file)
 *   tool_pcap_edit swap FILE N M      exchange frames N and M (records whole), in place
 *   tool_pcap_edit append FILE LEN    append an IPv4/TCP frame of LEN (>= 54) bytes, 1 us after
 *                                     the last frame (as a host captures with segmentation
 *                                     offload: frames up to 256 KiB)
 *
 * Reads the record headers itself (either byte order, micro- or nanosecond timestamps), so
 * that it changes nothing but the one byte. Exit 0, or 1 with a message naming the file and
 * the frame.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_NAME "tool_pcap_edit"
#include "tool_pcap.h"


/* The byte order and timestamp unit of a classic pcap header: 0, or -1 if its magic is none */
static int pcap_magic(const uint8_t *gh, int *swap, int *nano)
{
    uint32_t magic = pcap_get32(gh, 0);
    *swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
    *nano = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
    return *swap || *nano || magic == 0xa1b2c3d4u ? 0 : -1;
}

/* file opened with fmode, its header read into gh and checked; NULL (and the message) if not */
static FILE *pcap_open(const char *file, const char *fmode, uint8_t *gh, int *swap, int *nano)
{
    FILE *f = fopen(file, fmode);
    if (!f) {
        fprintf(stderr, "tool_pcap_edit: %s: %s\n", file, strerror(errno));
        return NULL;
    }
    if (fread(gh, 1, 24, f) != 24) {
        tool_die(f, NULL, file, 0, "no pcap header");
        return NULL;
    }
    if (pcap_magic(gh, swap, nano)) {
        tool_die(f, NULL, file, 0, "not a classic pcap file (magic)");
        return NULL;
    }
    return f;
}

/* append: the last record's timestamp read, a TCP segment to 10.9.9.9 written after it */
static int append_frame(const char *file, unsigned long len)
{
    if (len < 54 || len > 262144)
        return tool_die(NULL, NULL, file, 0, "append LEN: LEN must be 54..262144");
    uint8_t gh[24], rh[16];
    int swap, nano;
    FILE *f = pcap_open(file, "r+b", gh, &swap, &nano);
    if (!f)
        return 1;
    if (pcap_get32(gh + 16, swap) < len)
        pcap_put32(gh + 16, 262144, swap); /* the snapshot length must cover the frame */
    uint64_t t = 0;
    while (fread(rh, 1, 16, f) == 16) {
        t = (uint64_t)pcap_get32(rh, swap) * (nano ? 1000000000u : 1000000u) +
            pcap_get32(rh + 4, swap);
        if (fseek(f, (long)pcap_get32(rh + 8, swap), SEEK_CUR))
            return tool_die(f, NULL, file, 0, "cut short");
    }
    t += nano ? 1000 : 1;
    uint8_t *fr = calloc(1, len);
    if (!fr)
        return tool_die(f, NULL, file, 0, "out of memory");
    static const uint8_t eth[14] = {2, 0, 0, 0, 9, 9, 2, 0, 0, 0, 8, 8, 0x08, 0x00};
    memcpy(fr, eth, 14);
    size_t ip_len = len - 14 > 65535 ? 0 : len - 14; /* 0, as TSO captures show, above 64 KiB */
    uint8_t ip[20] = {0x45, 0, (uint8_t)(ip_len >> 8), (uint8_t)ip_len, 0, 1, 0x40, 0, 64, 6, 0, 0,
                      10, 8, 8, 8, 10, 9, 9, 9};
    memcpy(fr + 14, ip, 20);
    fr[34] = 0x9c, fr[35] = 0x40, fr[36] = 0x01, fr[37] = 0xbb; /* TCP 40000 -> 443 */
    fr[46] = 0x50, fr[47] = 0x10;                              /* data offset 5, ACK */
    for (unsigned long i = 54; i < len; i++)
        fr[i] = (uint8_t)(i * 7);
    pcap_put32(rh, (uint32_t)(t / (nano ? 1000000000u : 1000000u)), swap);
    pcap_put32(rh + 4, (uint32_t)(t % (nano ? 1000000000u : 1000000u)), swap);
    pcap_put32(rh + 8, (uint32_t)len, swap);
    pcap_put32(rh + 12, (uint32_t)len, swap);
    int bad = fseek(f, 0, SEEK_SET) || fwrite(gh, 1, 24, f) != 24 || fseek(f, 0, SEEK_END) ||
              fwrite(rh, 1, 16, f) != 16 || fwrite(fr, 1, len, f) != len;
    free(fr);
    if (fclose(f) || bad)
        return tool_die(NULL, NULL, file, 0, "could not append");
    return 0;
}

/* swap: the whole file in memory, the two records exchanged, written back. */
static int swap_frames(const char *file, unsigned long a, unsigned long b)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "tool_pcap_edit: %s: %s\n", file, strerror(errno));
        return 1;
    }
    size_t cap = 1 << 20, len = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;)
        if ((len += got) == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    fclose(f);
    if (!buf)
        return tool_die(NULL, NULL, file, 0, "out of memory");
    int swap, nano;
    if (len < 24 || a == 0 || b <= a || pcap_magic(buf, &swap, &nano)) {
        free(buf);
        return tool_die(NULL, NULL, file, 0,
                        "swap N M: needs 1 <= N < M and a classic pcap header");
    }
    size_t off = 24, at[2] = {0, 0}, sz[2] = {0, 0};
    for (unsigned long n = 1; off + 16 <= len && n <= b; n++) {
        size_t rec = 16 + pcap_get32(buf + off + 8, swap);
        if (off + rec > len)
            break;
        if (n == a || n == b)
            at[n == b] = off, sz[n == b] = rec;
        off += rec;
    }
    if (!sz[0] || !sz[1]) {
        free(buf);
        return tool_die(NULL, NULL, file, sz[0] ? b : a, "no such frame");
    }
    /* A B C -> C B A: the bytes between the records stay */
    uint8_t *out = malloc(len);
    if (!out) {
        free(buf);
        return tool_die(NULL, NULL, file, 0, "out of memory");
    }
    size_t o = 0, mid = at[0] + sz[0];
    memcpy(out, buf, at[0]), o = at[0];
    memcpy(out + o, buf + at[1], sz[1]), o += sz[1];
    memcpy(out + o, buf + mid, at[1] - mid), o += at[1] - mid;
    memcpy(out + o, buf + at[0], sz[0]), o += sz[0];
    memcpy(out + o, buf + at[1] + sz[1], len - at[1] - sz[1]);
    free(buf);
    f = fopen(file, "wb");
    int bad = !f || fwrite(out, 1, len, f) != len;
    if (f && fclose(f))
        bad = 1;
    free(out);
    return bad ? tool_die(NULL, NULL, file, 0, "could not write") : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "count") && strcmp(argv[1], "list") && argc < 4) ||
        ((!strcmp(argv[1], "flip") || !strcmp(argv[1], "swap") || !strcmp(argv[1], "word")) &&
         argc < 5)) {
        fprintf(stderr, "usage: tool_pcap_edit flip FILE N BYTE | word FILE N BYTE | ts FILE N | "
                        "count FILE | list FILE | swap FILE N M\n");
        return 2;
    }
    if (!strcmp(argv[1], "append"))
        return append_frame(argv[2], strtoul(argv[3], NULL, 10));
    if (!strcmp(argv[1], "swap"))
        return swap_frames(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
    const char *mode = argv[1], *file = argv[2];
    unsigned long want = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
    unsigned long byte = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
    uint8_t gh[24], rh[16];
    int swap, nano;
    FILE *f = pcap_open(file, strcmp(mode, "flip") ? "rb" : "r+b", gh, &swap, &nano);
    if (!f)
        return 1;
    unsigned long n = 0;
    while (fread(rh, 1, 16, f) == 16) {
        n++;
        uint32_t sec = pcap_get32(rh, swap), frac = pcap_get32(rh + 4, swap),
                 incl = pcap_get32(rh + 8, swap);
        long data = ftell(f);
        if (!strcmp(mode, "list")) {
            uint64_t h = 0xcbf29ce484222325ull;
            for (uint32_t i = 0; i < incl; i++) {
                int c = fgetc(f);
                if (c == EOF)
                    return tool_die(f, NULL, file, n, "cut short");
                h = (h ^ (uint8_t)c) * 0x100000001b3ull;
            }
            printf("%lu %lu %016llx\n", n, (unsigned long)incl, (unsigned long long)h);
        }
        if (n == want && !strcmp(mode, "ts")) {
            printf("%llu\n", (unsigned long long)sec * 1000000000ull +
                                 (unsigned long long)frac * (nano ? 1u : 1000u));
            fclose(f);
            return 0;
        }
        if (n == want && !strcmp(mode, "flip")) {
            if (byte >= incl)
                return tool_die(f, NULL, file, n, "shorter than the byte to flip");
            int c;
            if (fseek(f, data + (long)byte, SEEK_SET) || (c = fgetc(f)) == EOF ||
                fseek(f, data + (long)byte, SEEK_SET) || fputc(c ^ 1, f) == EOF)
                return tool_die(f, NULL, file, n, "could not rewrite the byte");
            if (fclose(f))
                return tool_die(NULL, NULL, file, n, "could not rewrite the byte");
            return 0;
        }
        if (n == want && !strcmp(mode, "word")) {
            uint8_t w[4];
            if (byte + 4 > incl || fseek(f, data + (long)byte, SEEK_SET) || fread(w, 1, 4, f) != 4)
                return tool_die(f, NULL, file, n, "shorter than the word to read");
            uint32_t v = (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3];
            float x;
            memcpy(&x, &v, 4);
            printf("0x%08x %.9g\n", v, (double)x);
            fclose(f);
            return 0;
        }
        if (fseek(f, data + (long)incl, SEEK_SET))
            return tool_die(f, NULL, file, n, "cut short");
    }
    fclose(f);
    if (!strcmp(mode, "list"))
        return 0;
    if (!strcmp(mode, "count")) {
        printf("%lu\n", n);
        return 0;
    }
    return tool_die(NULL, NULL, file, want, "no such frame");
}
