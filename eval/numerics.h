/* numerics.h - what binary32 summation without wiresum costs (`wiresum numerics`,
 * docs/performance.md section 7).
 *
 * Owns: against the correctly rounded exact sum r of each element (ws_sum_f32), the errors of
 * binary32 summation in random arrival orders (and how many distinct results an element takes),
 * of a balanced binary adder tree in worker order (PANAMA's FPGA adder tree), of SwitchML's
 * int32 block quantization with its per-chunk scale, and of wiresum itself (exact sum, one
 * rounding, in the same orders and as a tree of partial accumulators: 0 by construction,
 * checked), and the size of the exact sum in a PARTIAL frame (8-byte words per element).
 *
 * The error of a finite result x in ulps is |x - r| / ulp(r), ulp(r) = 2^(max(E,1) - 150) the
 * spacing of binary32 in r's binade (E its exponent field): 0 exactly when x = r. A result is
 * correctly rounded when x = r as a number (+0 = -0, every NaN equal to every NaN); a result or
 * an r that is Inf or NaN has no ulp error, and counts as not correctly rounded (and
 * "non-finite") unless both are the same Inf or both NaN.
 */
#ifndef WS_NUMERICS_H
#define WS_NUMERICS_H

#include <stddef.h>
#include <stdint.h>

/* The errors of one method over the results it gave. */
typedef struct {
    uint64_t results;   /* results compared with r */
    uint64_t wrong;     /* not correctly rounded */
    uint64_t nonfinite; /* of those, an Inf or NaN on one side, or different ones: no ulp error */
    uint64_t finite;    /* results with an ulp error: both x and r finite */
    double max_ulp, sum_ulp; /* over those */
} ws_num_err;

typedef struct {
    unsigned orders; /* random arrival orders per element */
    unsigned count;  /* elements per packet: SwitchML's chunk */
    uint64_t seed;   /* of the orders */
} ws_num_opts;

/* One row of the table: one input at one workers count, its tensors added one by one. */
typedef struct {
    unsigned workers;
    uint64_t elems;
    ws_num_err seq, tree, switchml, wiresum;
    uint64_t distinct_sum;     /* over elements: distinct results of the sequential sum */
    unsigned distinct_max;
    uint64_t switchml_overflow; /* integer sums beyond int32 (wrapped, as the switch's ALU) */
    uint64_t partial_words;     /* 8-byte words of the exact sums in a PARTIAL frame (the
                                 * encoding of docs/protocol.md section 9) */
    uint64_t partial_escaped;   /* sums that take more than one word */
} ws_num_row;

void ws_num_row_init(ws_num_row *row, unsigned workers);

/* Add one tensor of n elements to the row: v[w * n + i] is worker w's element i (bits). SwitchML's
 * chunks are elements 0..count-1, count..2count-1, ... of the tensor; the orders of element i
 * are drawn from seed and first + i (first: the row's elements before this tensor), so they
 * repeat for a given seed. Returns 0, or -1 with err when wiresum's result is not r (a bug). */
int ws_num_tensor(ws_num_row *row, const ws_num_opts *o, const uint32_t *v, uint64_t n,
                  uint64_t first, char *err, size_t errlen);

#endif
