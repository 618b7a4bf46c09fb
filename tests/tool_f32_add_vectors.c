/* tool_f32_add_vectors.c - print f32_add cases in Berkeley TestFloat's format
 * (A B R flags, hex), R computed by this host's IEEE binary32 adder, for the
 * end-to-end tests where testfloat_gen is not installed. Flags are printed as 00. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static uint32_t add(uint32_t a, uint32_t b)
{
    volatile float x, y;
    float r;
    memcpy((void *)&x, &a, 4);
    memcpy((void *)&y, &b, 4);
    r = x + y;
    uint32_t bits;
    memcpy(&bits, &r, 4);
    return bits;
}

int main(int argc, char **argv)
{
    static const uint32_t edge[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff,
                                    0x807fffff, 0x00800000, 0x80800000, 0x3f800000, 0xbf800000,
                                    0x3f800001, 0x33800000, 0x33800001, 0x7f7fffff, 0xff7fffff,
                                    0x73000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001};
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
    const size_t ne = sizeof edge / sizeof edge[0];
    ws_rng rng = {12345};
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++)
            printf("%08X %08X %08X 00\n", edge[i], edge[j], add(edge[i], edge[j]));
    for (unsigned long k = 0; k < n; k++) {
        uint64_t r = ws_rng_next(&rng);
        uint32_t a = (uint32_t)r, b;
        switch (k % 4) {
        case 0: b = (uint32_t)(r >> 32); break;                          /* anything */
        case 1: b = (a ^ 0x80000000u) + (uint32_t)(r >> 40) % 64 - 32; break; /* cancellation */
        case 2: b = (a & 0xff800000u) | (uint32_t)(r >> 41); break;      /* same binade */
        default: a &= 0x80ffffffu; b = (uint32_t)(r >> 32) & 0x80ffffffu; /* tiny values */
        }
        printf("%08X %08X %08X 00\n", a, b, add(a, b));
    }
    return 0;
}
