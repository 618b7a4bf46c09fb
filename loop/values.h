/* values.h - the inputs of the closed loops and their exact sums: the value each worker
 * contributes to each element of each all-reduce, the same in every run of the same seed, and the
 * correctly rounded exact sums they must come back as. Shared by `wiresum run` (single.c,
 * fabric.c) and `wiresum cluster` (cluster/model/cjob.c).
 */
#ifndef WS_VALUES_H
#define WS_VALUES_H

#include <stdint.h>

#include "values_kind.h"

/* The inputs of a kind (values_kind.h), as this maker draws them: normal, gradients (random
 * sign and significand, magnitudes 2^-30 .. 2^-3); special, every value a special one (zeros,
 * subnormals, near overflow, infinities, NaNs); mixed, one in 64 special. */

typedef struct {
    ws_values_kind kind;
    uint64_t seed;
} ws_values;

/* The value worker w contributes to element i in all-reduce iter. */
uint32_t ws_values_get(const ws_values *v, unsigned iter, unsigned w, uint64_t i);
/* The same in two steps, for loops over elements: worker w's key of iter, then the value of
 * element i from the key (ws_values_get is ws_values_at(v, ws_values_key(v, iter, w), i)). */
uint64_t ws_values_key(const ws_values *v, unsigned iter, unsigned w);
uint32_t ws_values_at(const ws_values *v, uint64_t key, uint64_t i);
/* The correctly rounded exact sums of workers [w0, w1) for elements [i0, i0 + n) of all-reduce
 * iter, into out[0 .. n). */
void ws_values_exact(const ws_values *v, unsigned iter, unsigned w0, unsigned w1, uint64_t i0,
                     uint64_t n, uint32_t *out);

#endif
