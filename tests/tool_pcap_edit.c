/* tool_pcap_edit.c - small edits and reads of one frame of a classic pcap file, for tests that
 * need a mismatch on purpose (tests/run_ux.sh).
 *
 *   tool_pcap_edit flip FILE N BYTE   XOR byte BYTE (0-based) of frame N (1-based) with 0x01,
 *                                     in place
 *   tool_pcap_edit ts FILE N          print the timestamp of frame N in nanoseconds
 *   tool_pcap_edit count FILE         print the number of frames
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

static uint32_t get32(const uint8_t *b, int swap)
{
    return swap ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
                : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* "tool_pcap_edit: FILE: frame N: what" (frame 0: the file as a whole) */
static int die(FILE *f, const char *file, unsigned long n, const char *what)
{
    if (f)
        fclose(f);
    if (n)
        fprintf(stderr, "tool_pcap_edit: %s: frame %lu: %s\n", file, n, what);
    else
        fprintf(stderr, "tool_pcap_edit: %s: %s\n", file, what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "count") && argc < 4) ||
        (!strcmp(argv[1], "flip") && argc < 5)) {
        fprintf(stderr, "usage: tool_pcap_edit flip FILE N BYTE | ts FILE N | count FILE\n");
        return 2;
    }
    const char *mode = argv[1], *file = argv[2];
    unsigned long want = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
    unsigned long byte = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
    FILE *f = fopen(file, strcmp(mode, "flip") ? "rb" : "r+b");
    if (!f) {
        fprintf(stderr, "tool_pcap_edit: %s: %s\n", file, strerror(errno));
        return 1;
    }
    uint8_t gh[24], rh[16];
    if (fread(gh, 1, 24, f) != 24)
        return die(f, file, 0, "no pcap header");
    uint32_t magic = get32(gh, 0);
    int swap, nano;
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du)
        swap = 0, nano = magic == 0xa1b23c4du;
    else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u)
        swap = 1, nano = magic == 0x4d3cb2a1u;
    else
        return die(f, file, 0, "not a classic pcap file (magic)");
    unsigned long n = 0;
    while (fread(rh, 1, 16, f) == 16) {
        n++;
        uint32_t sec = get32(rh, swap), frac = get32(rh + 4, swap), incl = get32(rh + 8, swap);
        long data = ftell(f);
        if (n == want && !strcmp(mode, "ts")) {
            printf("%llu\n", (unsigned long long)sec * 1000000000ull +
                                 (unsigned long long)frac * (nano ? 1u : 1000u));
            fclose(f);
            return 0;
        }
        if (n == want && !strcmp(mode, "flip")) {
            if (byte >= incl)
                return die(f, file, n, "shorter than the byte to flip");
            int c;
            if (fseek(f, data + (long)byte, SEEK_SET) || (c = fgetc(f)) == EOF ||
                fseek(f, data + (long)byte, SEEK_SET) || fputc(c ^ 1, f) == EOF)
                return die(f, file, n, "could not rewrite the byte");
            if (fclose(f))
                return die(NULL, file, n, "could not rewrite the byte");
            return 0;
        }
        if (fseek(f, data + (long)incl, SEEK_SET))
            return die(f, file, n, "cut short");
    }
    fclose(f);
    if (!strcmp(mode, "count")) {
        printf("%lu\n", n);
        return 0;
    }
    return die(NULL, file, want, "no such frame");
}
