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

/* The exact partial sum of a PARTIAL frame (docs/protocol.md, "PARTIAL encoding"): 64-bit words
 * X S E(8) M(54), each worth (-1)^S * M * 2^E (units of 2^-149) for E < 255; E = 255 carries the
 * NaN, -Inf and +Inf flags in M bits 2, 1 and 0. An element is one word, or, when X is set, that
 * word plus the next record word, and so on while X is set; its value is their sum. The first
 * word S=1, E<255, M=0, X=0 is the zero of contributions that were all -0. */
#define WS_X64_ESC ((uint64_t)1 << 63)
#define WS_X64_NEG ((uint64_t)1 << 62)
#define WS_X64_E_SHIFT 54
#define WS_X64_E_SPECIAL 255u
#define WS_X64_M_MASK (((uint64_t)1 << 54) - 1)
#define WS_X64_MAX_WORDS 6 /* of one sum below 2^308 (54 significant bits a word) */
/* Encode x into words[0..n-1], returning n: the first word holds the top 54 bits of |x| from its
 * top set bit (E = 0 when it has no more than 54), each next word the top 54 bits of what is left
 * below the previous word's 2^E, X set on every word but the last (canonical: one encoding per
 * value). -1 (nothing meaningful written) when |x| >= 2^308, a sum of more than 2^31 binary32. */
int ws_xsum_encode(const ws_xsum *x, uint64_t words[WS_X64_MAX_WORDS]);
/* Add the value of one word of an element; first: the element's first word, which counts as
 * one contribution (and carries the -0 rule). Every word has a value: no input is invalid. */
void ws_xsum_add_word(ws_xsum *x, uint64_t word, int first);

/* A lane: a 64-bit integer that sums binary32 values of a window of exponents exactly, for a hot
 * loop of many values into few sums (8 bytes a sum where an accumulator takes 48). A value whose
 * exponent field E is WS_XSUM_LANE_E0 .. WS_XSUM_LANE_E0 + WS_XSUM_LANE_SPAN - 1 (a normal of
 * magnitude 2^-30 up to below 2^-2, where gradients are) is its significand shifted left by
 * E - WS_XSUM_LANE_E0, in units of 2^-53: below 2^51, so a lane holds any 4096 of them
 * (WS_XSUM_LANE_MAX). ws_xsum_lane
 * adds such a value and returns 1, or returns 0 (lane unchanged) for any other value, which the
 * caller adds to an accumulator; ws_xsum_add_lane then adds the lane's sum, n values (none of
 * them -0), to that accumulator, exactly: the same accumulator as if every value had been added
 * to it. */
#define WS_XSUM_LANE_E0 97u
#define WS_XSUM_LANE_SPAN 28u
#define WS_XSUM_LANE_MAX 4096u
static inline int ws_xsum_lane(int64_t *lane, uint32_t bits)
{
    uint32_t e = (bits >> 23) & 0xffu;
    if (e - WS_XSUM_LANE_E0 >= WS_XSUM_LANE_SPAN)
        return 0;
    int64_t t = (int64_t)((uint64_t)((bits & 0x7fffffu) | 0x800000u) << (e - WS_XSUM_LANE_E0));
    *lane += (bits >> 31) ? -t : t;
    return 1;
}
void ws_xsum_add_lane(ws_xsum *x, int64_t lane, uint32_t n);

/* Convenience: the correctly rounded sum of n values. */
uint32_t ws_sum_f32(const uint32_t *bits, unsigned n);

#endif
