/* base.h - what the two closed loops of `wiresum run` share (single.c: one device; fabric.c:
 * several): the run's messages (the first error, the check failures reported), the exact sums of
 * an iteration computed once (and recorded with --record), the check of a worker's final tensor
 * against them, and a worker's transport statistics added to the run's. Neither loop calls the
 * other, and run.c, which chooses between them, is above both.
 */
#ifndef WS_BASE_H
#define WS_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"
#include "values.h"
#include "wiresum/transport.h"

/* The job id and the tensor ids of a closed loop's all-reduces */
#define WS_BASE_JOB 7
#define WS_BASE_TENSOR(iter) (((uint32_t)WS_BASE_JOB << 16 | 1) + (iter))

/* The messages of a run: the first error (err) and the reported check failures (at most a few
 * printed on out, all counted in st->check_failures). */
typedef struct {
    ws_run_stats *st;
    FILE *out;
    char *err;
    size_t errlen;
    int failed;
    unsigned reports;
} ws_base_log;

/* Record the first error; -1. */
int ws_base_fail(ws_base_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check that failed: counted, and printed while few. */
void ws_base_report(ws_base_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A worker's transport statistics added to the run's. */
void ws_base_add_worker(ws_run_stats *st, const ws_worker_stats *w);

/* The exact sums of the last two iterations asked for, each computed once. */
typedef struct {
    ws_values v;
    unsigned nw;        /* workers */
    uint64_t elems;
    const char *record; /* trace directory the sums are written to, or NULL */
    uint32_t *sum[2];   /* iteration k's in sum[k % 2] */
    unsigned iter[2];
    int have[2];
} ws_base_expect;

/* For o's values, elements and --record; 0, or -1 (out of memory) with the error in l. */
int ws_base_expect_init(ws_base_expect *e, const ws_run_opts *o, unsigned nw, ws_base_log *l);
void ws_base_expect_free(ws_base_expect *e);
/* The sums of iteration iter (DIR/sum-<job>-<tensor>.f32 written the first time, with --record;
 * a failed write is an error in l). */
const uint32_t *ws_base_expected(ws_base_expect *e, ws_base_log *l, unsigned iter);
/* Worker w's tensor of iteration iter against the exact sums: counted in l->st (tensors,
 * tensors_exact, bad_elements), the first three elements that differ reported. */
void ws_base_check_tensor(ws_base_expect *e, ws_base_log *l, unsigned w, unsigned iter,
                          const uint32_t *got);

#endif
