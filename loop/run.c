/* run.c - `wiresum run`: the defaults, and the one entry that chooses the loop (run.h). */
#include "run.h"

#include <string.h>

#include "fabric.h"
#include "single.h"

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

int ws_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen)
{
    if (o->shards > 1 || o->tree || o->fabric || o->device == WS_RUN_MIX)
        return ws_fabric_run(o, st, out, err, errlen);
    return ws_single_run(o, st, out, err, errlen);
}
