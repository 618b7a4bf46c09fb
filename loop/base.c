/* base.c - what the two closed loops share (base.h). */
#include "base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/wire.h"

#define MAX_REPORTS 10

int ws_base_fail(ws_base_log *l, const char *fmt, ...)
{
    if (!l->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->err, l->errlen, fmt, ap);
        va_end(ap);
    }
    l->failed = 1;
    return -1;
}

void ws_base_report(ws_base_log *l, const char *fmt, ...)
{
    l->st->check_failures++;
    if (l->reports++ >= MAX_REPORTS)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("run: ", l->out);
    vfprintf(l->out, fmt, ap);
    fputc('\n', l->out);
    va_end(ap);
}

void ws_base_add_worker(ws_run_stats *st, const ws_worker_stats *w)
{
    st->data += w->data_frames;
    st->retx += w->retx_frames;
    st->timeouts += w->timeouts;
    st->results += w->results;
    st->dup_results += w->dup_results;
    st->stale_results += w->stale_results;
    st->bad_frames += w->bad_frames;
    st->foreign += w->foreign_frames;
}

int ws_base_expect_init(ws_base_expect *e, const ws_run_opts *o, unsigned nw, ws_base_log *l)
{
    memset(e, 0, sizeof *e);
    e->v = (ws_values){o->values, o->seed};
    e->nw = nw;
    e->elems = o->elems;
    e->record = o->record;
    for (int k = 0; k < 2; k++)
        if (!(e->sum[k] = malloc(o->elems * 4)))
            return ws_base_fail(l, "out of memory");
    return 0;
}

void ws_base_expect_free(ws_base_expect *e)
{
    free(e->sum[0]);
    free(e->sum[1]);
    e->sum[0] = e->sum[1] = NULL;
}

/* DIR/sum-<job>-<tensor>.f32: n sums, big-endian (docs/traces.md). 0, or -1 with the error. */
static int write_sum(ws_base_log *l, const char *dir, uint32_t tensor, const uint32_t *sum,
                     uint64_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sum-%u-%u.f32", dir, WS_BASE_JOB, tensor);
    FILE *f = fopen(path, "wb");
    if (!f)
        return ws_base_fail(l, "%s: %s", path, strerror(errno));
    uint8_t buf[4096];
    size_t k = 0;
    for (uint64_t i = 0; i < n; i++) {
        ws_put32(buf + k, sum[i]);
        k += 4;
        if (k == sizeof buf || i + 1 == n) {
            if (fwrite(buf, 1, k, f) != k)
                break;
            k = 0;
        }
    }
    if (ferror(f) | fclose(f))
        return ws_base_fail(l, "%s: write failed", path);
    return 0;
}

const uint32_t *ws_base_expected(ws_base_expect *e, ws_base_log *l, unsigned iter)
{
    int k = iter % 2;
    if (e->have[k] && e->iter[k] == iter)
        return e->sum[k];
    ws_values_exact(&e->v, iter, 0, e->nw, 0, e->elems, e->sum[k]);
    e->have[k] = 1;
    e->iter[k] = iter;
    if (e->record)
        write_sum(l, e->record, WS_BASE_TENSOR(iter), e->sum[k], e->elems);
    return e->sum[k];
}

void ws_base_check_tensor(ws_base_expect *e, ws_base_log *l, unsigned w, unsigned iter,
                          const uint32_t *got)
{
    const uint32_t *exp = ws_base_expected(e, l, iter);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < e->elems; i++)
        if (got[i] != exp[i] && bad++ < 3)
            ws_base_report(l, "worker %u all-reduce %u (tensor %u) element %llu: expected "
                           "0x%08x, got 0x%08x", w, iter, WS_BASE_TENSOR(iter),
                           (unsigned long long)i, exp[i], got[i]);
    l->st->tensors++;
    if (bad)
        l->st->bad_elements += bad;
    else
        l->st->tensors_exact++;
}
