/* wiresum/xsum.h - exact sum of binary32 values, rounded once (docs/protocol.md section 6).
 *
 * Owns: a Kulisch-style fixed-point accumulator whose least significant bit is
 * 2^-149 (the smallest subnormal) and which holds any sum of up to 2^40
 * binary32 values exactly, plus the flags that carry the zero, NaN and Inf
 * rules. Adding is order-independent; ws_xsum_round() is the only rounding.
 */
#ifndef WIRESUM_XSUM_H
#define WIRESUM_XSUM_H

#include <stdint.h>

#define WS_XSUM_LIMBS 5 /* 320-bit two's complement, LSB weight 2^-149 */
#define WS_QNAN 0x7fc00000u

typedef struct {
    uint64_t limb[WS_XSUM_LIMBS]; /* little-endian limbs */
    uint8_t nan;       /* a NaN was added */
    uint8_t pos_inf;   /* +Inf was added */
    uint8_t neg_inf;   /* -Inf was added */
    uint8_t not_negzero; /* something other than -0 was added */
    uint32_t n;        /* contributions added (saturating) */
} ws_xsum;

void ws_xsum_init(ws_xsum *x);
/* Add one binary32 value given by its bit pattern. */
void ws_xsum_add(ws_xsum *x, uint32_t bits);
/* Add another accumulator (a partial sum) into x. */
void ws_xsum_merge(ws_xsum *x, const ws_xsum *y);
/* The binary32 nearest to the exact sum, ties to even; +0 for an exact zero
 * unless every contribution was -0; 0x7fc00000 for NaN or +Inf with -Inf;
 * +-Inf on overflow. With no contribution at all the result is +0. */
uint32_t ws_xsum_round(const ws_xsum *x);

/* Convenience: the correctly rounded sum of n values. */
uint32_t ws_sum_f32(const uint32_t *bits, unsigned n);

#endif
