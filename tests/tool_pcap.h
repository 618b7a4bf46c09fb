/* tool_pcap.h - what the pcap tools of tests/ (tool_pcap_edit, tool_partial_edit) share: their
 * one error exit and the classic pcap file's 32-bit words, in either byte order.
 *
 * A tool defines TOOL_NAME (its name in messages) before it includes this header. */
#ifndef WS_TOOL_PCAP_H
#define WS_TOOL_PCAP_H

#include <stdint.h>
#include <stdio.h>

#ifndef TOOL_NAME
#error "define TOOL_NAME before including tool_pcap.h"
#endif

/* "TOOL_NAME: FILE: frame N: what" (frame 0: the file as a whole) on stderr, after closing a
 * and b (either may be NULL); returns 1, the tools' exit status for it */
static inline int tool_die(FILE *a, FILE *b, const char *file, unsigned long n, const char *what)
{
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    if (n)
        fprintf(stderr, TOOL_NAME ": %s: frame %lu: %s\n", file, n, what);
    else
        fprintf(stderr, TOOL_NAME ": %s: %s\n", file, what);
    return 1;
}

/* a 32-bit word of a pcap header: little-endian, or big-endian when swap */
static inline uint32_t pcap_get32(const uint8_t *b, int swap)
{
    return swap ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
                : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline void pcap_put32(uint8_t *b, uint32_t v, int swap)
{
    for (int i = 0; i < 4; i++)
        b[swap ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

#endif
