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

/* The exact partial sum of a PARTIAL frame (docs/protocol.md, "PARTIAL encoding"): a 64-bit word
 * X S E(8) M(54) worth (-1)^S * M * 2^E (units of 2^-149) for E < 255; E = 255 carries the NaN,
 * -Inf and +Inf flags in M bits 2, 1 and 0; the word S=1, E<255, M=0, X=0 is the zero of
 * contributions that were all -0. X (escape) means the value goes on in a record of
 * WS_X64_RECORD bytes: a 256-bit two's complement integer in the same units, big-endian. */
#define WS_X64_RECORD 32
#define WS_X64_ESC ((uint64_t)1 << 63)
#define WS_X64_NEG ((uint64_t)1 << 62)
#define WS_X64_E_SHIFT 54
#define WS_X64_E_SPECIAL 255u
#define WS_X64_M_MASK (((uint64_t)1 << 54) - 1)
/* Encode x: the word, and the record when the value needs more than 54 significant bits
 * (the escape: returns 1 and fills rec). Canonical: E = 0 if the value fits M, else E puts the
 * value's top bit at bit 53 of M; the record holds the bits below 2^E. Returns -1 (nothing
 * written) when |x| >= 2^308, a sum of more than 2^31 binary32 values. */
int ws_xsum_encode(const ws_xsum *x, uint64_t *word, uint8_t rec[WS_X64_RECORD]);
/* Add, as one contribution, the value a word stands for plus rec's (NULL: no record). Every
 * word and record has a value: the decoding has no invalid input. */
void ws_xsum_add_encoded(ws_xsum *x, uint64_t word, const uint8_t *rec);

/* Convenience: the correctly rounded sum of n values. */
uint32_t ws_sum_f32(const uint32_t *bits, unsigned n);

#endif
