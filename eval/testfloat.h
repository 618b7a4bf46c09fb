/* testfloat.h - check ws_sum_f32 against Berkeley TestFloat f32_add vectors.
 *
 * Owns: parsing the output of `testfloat_gen f32_add` (lines "A B R flags",
 * hex) and comparing each two-operand sum with the expected result.
 */
#ifndef WS_TESTFLOAT_H
#define WS_TESTFLOAT_H

#include <stdio.h>

/* Read f32_add vectors from in, report mismatches to out (prefixed "name:LINE:")
 * and a final "testfloat: N cases, M mismatches" line; N into *cases when cases is not NULL.
 * Returns M, or -1 after reporting the first malformed line, a read error, or an input with
 * no case at all (zero cases checked is not a pass). */
int ws_testfloat_run(FILE *in, FILE *out, const char *name, unsigned long *cases);

#endif
