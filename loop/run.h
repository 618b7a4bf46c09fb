/* run.h - `wiresum run`: worker transports in closed loop with the device, or with several
 * devices (shards, trees). One entry (run.c) for two loops: one device (single.c) and several
 * (fabric.c), which share base.c and call nothing of each other.
 *
 * Owns: one job of W workers spread over the device ports, each a ws_worker
 * (driver/wiresum/transport.h) all-reducing its own tensor `iters` times; the network between them and the
 * device (a one-way latency, loss, duplication, reordering and single-bit corruption in either
 * direction, background bypass frames); the device, either the RTL model (sim/wiresum/sim.h,
 * configured through its registers with driver/wiresum/dev.h) fed one frame at a time in one global
 * order exactly as `wiresum sim` replays a trace, or the software reference with a timing model;
 * the verification of every final tensor against the exact sum, of every bypass frame and of the
 * device counters; the optional recording of a trace directory (with its counters.txt); the
 * optional plot (util/plot.h); the progress display (util/progress.h); the report.
 * docs/driver.md.
 */
#ifndef WS_RUN_H
#define WS_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "wiresum/counters.h"
#include "values.h"
#include "wiresum/transport.h"

typedef enum { WS_RUN_RTL, WS_RUN_REF, WS_RUN_MIX } ws_run_device;

typedef struct {
    ws_run_device device;  /* mix: RTL models and references alternate, device by device */
    unsigned shards;       /* devices (trees) the job is sharded over; 0 or 1: one */
    const char *tree;      /* "F" or "FxG..": a tree of devices per shard (fan-outs from the
                            * root down; loop/fabric.c); NULL: one device per shard */
    const char *fabric;    /* fabric.ini naming the devices (loop/fabric_cfg.h), or NULL */
    unsigned width;        /* DATA_WIDTH of the RTL model; beat size of the reference's timing */
    unsigned workers;      /* 1..64 */
    unsigned ports;        /* device ports used, 1..16 (the model's at most) */
    unsigned count;        /* elements per packet: the job's max_count */
    unsigned slots;        /* the job's slots: the window */
    unsigned iters;        /* consecutive all-reduces */
    uint64_t elems;        /* elements per tensor */
    double loss, dup, reorder, corrupt, bypass; /* rates 0..1 */
    int fault_up, fault_down; /* faults on worker->device, device->worker frames */
    ws_values_kind values; /* the inputs (values.h), from seed */
    uint64_t seed;
    double clock_mhz;
    uint64_t latency;      /* one-way network latency in cycles, >= 1 */
    uint64_t rto;          /* initial retransmission timeout in cycles; 0: derived */
    unsigned max_retries;  /* per chunk; 0: no limit */
    uint64_t max_cycles;   /* simulated cycles before giving up; 0: derived */
    const char *record;    /* trace directory to write, or NULL */
    const char *trace;     /* FST file (RTL), or NULL */
    uint64_t trace_from, trace_to;
    int progress;          /* 1: progress bar (a terminal) or periodic lines; 0: none */
    int progress_tty;      /* the progress goes to a terminal; -1: stderr is one? */
    const char *plot;      /* PNG of utilization and latency over time (gnuplot), or NULL */
} ws_run_opts;

typedef struct {
    uint64_t cycles;        /* simulated cycles until the last worker completed */
    uint64_t model_cycles;  /* cycles the RTL model was clocked (idle stretches are skipped) */
    double wall_s;
    uint64_t tensors, tensors_exact, bad_elements;
    uint64_t data, retx, timeouts, results, dup_results, stale_results, bad_frames, foreign;
    uint64_t lost[2], duped[2], reordered[2], corrupted[2], undeliverable; /* [0] up, [1] down */
    uint64_t bypass_sent, bypass_out, corrupt_bypassed;
    uint64_t frames_in, frames_out, results_out;
    uint64_t check_failures; /* bypass, counter and model checks that failed */
    uint64_t worker_bytes, uplink_bytes; /* several devices: bytes the workers sent, and the
                                          * devices to their parents (first copies, loop/fabric.c) */
    ws_counters ctr;
} ws_run_stats;

#define WS_RUN_MAX_SHARDS 64

void ws_run_defaults(ws_run_opts *o);

/* Whether the options can make a run at all, before any device: the ranges, the fault rates
 * (--loss 1 would lose everything), what several devices (--shards, --tree, --fabric, --device
 * mix) do not take (--bypass, --plot, --trace; --fabric with --shards or --tree) and the
 * --tree syntax. 0, or -1 and err naming the option. ws_run checks them first too; the tool
 * calls it before, so that such a mistake is a usage error. */
int ws_run_check(const ws_run_opts *o, char *err, size_t errlen);

/* 0 when every tensor is exact and every check passes, 1 otherwise (reported on out), -1 on an
 * error (err). */
int ws_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen);

#endif
