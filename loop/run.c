/* run.c - `wiresum run`: the defaults, and the one entry that chooses the loop (run.h). */
#include "run.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fabric.h"
#include "single.h"
#include "wiresum/config.h"
#include "ws_err.h"

void ws_run_defaults(ws_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->device = WS_RUN_RTL;
    o->width = 256;
    o->workers = 4;
    o->ports = 4;
    o->count = 64;
    o->slots = 16;
    o->iters = 2;
    o->elems = 16384;
    o->fault_up = o->fault_down = 1;
    o->values = WS_VALUES_MIXED;
    o->seed = 1;
    o->clock_mhz = 200.0;
    o->latency = 400;
    o->max_retries = 40;
}

int ws_run_check(const ws_run_opts *o, char *err, size_t errlen)
{
    if (o->workers < 1 || o->workers > WS_LIMIT_WORKERS)
        return ws_errf(err, errlen, "--workers %u: must be 1..%d", o->workers, WS_LIMIT_WORKERS);
    if (o->ports < 1 || o->ports > WS_LIMIT_PORTS)
        return ws_errf(err, errlen, "--ports %u: must be 1..%d", o->ports, WS_LIMIT_PORTS);
    if (o->count < 1 || o->count > WS_LIMIT_COUNT)
        return ws_errf(err, errlen, "--count %u: must be 1..%d", o->count, WS_LIMIT_COUNT);
    if (o->slots < 1 || o->slots > WS_LIMIT_SLOTS)
        return ws_errf(err, errlen, "--slots %u: must be 1..%d", o->slots, WS_LIMIT_SLOTS);
    if (o->elems < 1 || o->elems > UINT32_MAX)
        return ws_errf(err, errlen, "--elems %llu: must be 1..%u", (unsigned long long)o->elems,
                   UINT32_MAX);
    if (o->iters < 1 || o->iters > 65535)
        return ws_errf(err, errlen, "--iters %u: must be 1..65535", o->iters);
    if (o->latency < 1 || o->latency > 100000000)
        return ws_errf(err, errlen, "--latency %llu: must be 1..10^8 cycles",
                   (unsigned long long)o->latency);
    if (o->width != 256 && o->width != 512 && o->width != 1024)
        return ws_errf(err, errlen, "--width %u: must be 256, 512 or 1024", o->width);
    if (!(o->clock_mhz > 0))
        return ws_errf(err, errlen, "--clock must be positive");
    const double rates[] = {o->loss, o->dup, o->reorder, o->corrupt, o->bypass};
    for (int i = 0; i < 5; i++)
        if (!(rates[i] >= 0 && rates[i] <= 1))
            return ws_errf(err, errlen, "fault rates must be in 0..1");
    if (o->loss >= 1 && (o->fault_up || o->fault_down))
        return ws_errf(err, errlen, "--loss 1: nothing would ever arrive");
    if (!(o->shards > 1 || o->tree || o->fabric || o->device == WS_RUN_MIX))
        return 0;
    /* several devices */
    if (o->shards > WS_RUN_MAX_SHARDS)
        return ws_errf(err, errlen, "--shards %u: must be 1..%d", o->shards, WS_RUN_MAX_SHARDS);
    if (o->bypass > 0)
        return ws_errf(err, errlen, "--bypass: not with several devices (a device's bypass is "
                   "tested alone)");
    if (o->plot || o->trace)
        return ws_errf(err, errlen, "--plot and --trace: one device at a time (without --shards "
                   "and --tree)");
    if (o->fabric && (o->tree || o->shards > 1))
        return ws_errf(err, errlen, "--fabric: not with --shards or --tree (the file names the "
                   "devices)");
    unsigned leaves;
    if (ws_fabric_tree_check(o->tree, &leaves, err, errlen))
        return -1;
    if (!o->fabric && leaves > o->workers)
        return ws_errf(err, errlen, "--tree %s has %u leaves; --workers %u leaves some without a "
                   "worker", o->tree, leaves, o->workers);
    return 0;
}

int ws_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen)
{
    if (ws_run_check(o, err, errlen))
        return -1;
    if (o->shards > 1 || o->tree || o->fabric || o->device == WS_RUN_MIX)
        return ws_fabric_run(o, st, out, err, errlen);
    return ws_single_run(o, st, out, err, errlen);
}
