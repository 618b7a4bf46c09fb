/* replay.h - `wiresum sim`: replay a trace directory through the RTL model and compare.
 *
 * Owns: configuring the model from job.ini through its registers, injecting in<P>.pcap in
 * global order, collecting out<P>.pcap, comparing every egress port with expected<P>.pcap
 * (per port, the RESULT frames in order and the other frames in order), writing
 * mismatch-{expected,actual,extra}<P>.pcap on a difference, checking the device counters
 * against the reference's and saving both to DIR/counters.txt (trace/counters_file.h), the progress
 * display, the summary, and on request the rerun that dumps the cycles around the first
 * mismatching frame to DIR/mismatch.fst (docs/debugging.md).
 */
#ifndef WS_REPLAY_H
#define WS_REPLAY_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    unsigned width;        /* DATA_WIDTH of the model: 256, 512 or 1024 */
    int icarus;            /* 1: Icarus Verilog instead of the Verilator model */
    unsigned idle_pct;     /* ingress idle insertion, percent of cycles */
    unsigned bp_pct;       /* egress backpressure, percent of cycles */
    uint64_t seed;         /* of the stress patterns */
    double clock_mhz;      /* for timestamps and rates */
    const char *trace;     /* FST file, or NULL */
    uint64_t trace_from, trace_to; /* cycle window of the trace (to 0: to the end) */
    uint64_t max_cycles;   /* 0: a limit derived from the trace */
    int quiet;
    int trace_on_mismatch; /* on a frame mismatch, rerun and write DIR/mismatch.fst */
    uint64_t trace_before, trace_after; /* its window: cycles before and after the frame */
    int counters;          /* print the counters table after the run */
    int json;              /* print the summary as one JSON object on stdout (docs/traces.md,
                            * "JSON summaries"); the lines for people still go to out */
    int progress;          /* 1: progress bar (a terminal) or periodic lines on stderr */
    int progress_tty;      /* 1 bar, 0 lines, -1: a bar if stderr is a terminal */
} ws_replay_opts;

#define WS_REPLAY_MISMATCH_FST "mismatch.fst"

void ws_replay_defaults(ws_replay_opts *o);

/* 0 when every frame and counter matches, 1 on a mismatch (reported on out), -1 on an error
 * (err). */
int ws_replay(const char *dir, const ws_replay_opts *o, FILE *out, char *err, size_t errlen);

#endif
