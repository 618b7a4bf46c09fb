/* bench.h - `wiresum bench`: line rate and latency of the RTL model under saturating load.
 *
 * Owns: one measured configuration of the device (DATA_WIDTH, workers, elements per packet,
 * slots) driven by a closed-loop load generator of its own: W workers of one job, each keeping
 * its window of chunks full (chunk i in slot i mod S, SET (i div S) mod 2, chunk i+S sent as
 * soon as the RESULT of chunk i is out), DATA frames built with the codec (driver/wiresum/wire.h) and pushed
 * so that every ingress port of the model always has its next frame queued (ws_sim_push); the
 * device configured through its registers (driver/wiresum/dev.h). It measures, from the model's
 * counters, statistics and cycle stamps (sim/wiresum/sim.h, ws_sim_stamps):
 *  - phase "load": engine beats accepted per cycle over a window after a warm-up, the ingress
 *    beats per cycle, the wire efficiency (see ws_bench_result), and the latency of every round
 *    that completed inside the window;
 *  - phase "idle": the same job with a window of one chunk per worker, so that a round's last
 *    contribution finds the pipeline empty: the latency of the pipeline itself.
 * Every RESULT is checked element by element against the exact sum (the values are chosen so
 * that the binary32 sum is exact), so a benchmark never reports numbers of a broken run.
 * docs/performance.md explains the method and the definitions.
 */
#ifndef WS_BENCH_H
#define WS_BENCH_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    unsigned width;          /* DATA_WIDTH of the model: 256, 512 or 1024 */
    unsigned workers;        /* 1..64 */
    unsigned count;          /* elements per packet, the job's max_count */
    unsigned slots;          /* the job's slots, the worker window of the load phase */
    unsigned ports;          /* ingress ports used, 0: all of the model's */
    uint64_t warmup;         /* cycles before the load window opens */
    uint64_t cycles;         /* cycles of the load window (0: no load phase) */
    unsigned idle_rounds;    /* rounds of the idle phase (0: no idle phase) */
    double clock_mhz;        /* for rates in Gb/s */
    const char *trace;       /* FST of the load phase, or NULL */
    uint64_t trace_from, trace_to;
} ws_bench_opts;

typedef struct {
    uint64_t n;                         /* rounds measured */
    uint64_t first_min, first_med, first_max; /* last contribution's last beat -> first beat of
                                                 the round's first RESULT */
    uint64_t last_min, last_med, last_max;    /* ... -> last beat of the round's last RESULT */
} ws_bench_latency;

typedef struct {
    /* the frames */
    unsigned frame_bytes;    /* 64 + 4*count */
    unsigned beats;          /* beats a frame takes on the datapath: ceil(frame / (width/8)) */
    unsigned ports;          /* ingress ports driven */
    unsigned engines;        /* the model's aggregation engines (PARAM_ENGINES) */
    /* load phase */
    uint64_t cycles;         /* length of the window */
    uint64_t accepted;       /* frames the engine accepted in the window (device counter) */
    uint64_t beats_in;       /* beats the ingress ports took in the window (model statistics) */
    double util;             /* engine beats per cycle, all engines: accepted * beats / cycles */
    double util_in;          /* ingress beats per cycle: beats_in / cycles */
    double wire_limit;       /* payload / (frame + 24): goodput fraction of a wire */
    double goodput;          /* payload bytes per cycle / (engines*width/8): fraction of the capacity */
    double wire_eff;         /* goodput / wire_limit */
    double goodput_gbps;     /* payload in Gb/s at clock_mhz */
    uint64_t queue_empty;    /* steps of the window in which some ingress port had no frame
                              * queued outside the device */
    uint64_t steps;          /* steps of the window */
    ws_bench_latency load;
    /* idle phase */
    ws_bench_latency idle;
    uint64_t results_checked, bad_results;
    double wall_s;
    uint64_t model_cycles;   /* cycles simulated in all */
} ws_bench_result;

void ws_bench_defaults(ws_bench_opts *o);

/* Run the phases; 0 when every RESULT was right, 1 if any was wrong (reported on out), -1 on an
 * error (err). */
int ws_bench(const ws_bench_opts *o, ws_bench_result *r, FILE *out, char *err, size_t errlen);

#endif
