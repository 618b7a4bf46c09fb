/* gen.h - the trace generator behind `wiresum gen` (docs/traces.md).
 *
 * Owns: worker models that follow the window protocol of docs/protocol.md section 5
 * against the reference device in closed loop, fault injection (loss with
 * RETX retransmission, network duplicates, malformed and bypass frames), and
 * writing a trace directory: job.ini, in<P>.pcap and the exact sum of every
 * job's tensors (sum-<job>-<tensor>.f32). Also the inputs other tools take from it: the value
 * distributions and the reader of recorded gradients (`wiresum numerics`, eval/numerics.c).
 */
#ifndef WS_GEN_H
#define WS_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "values_kind.h"
#include "wiresum/config.h"
#include "wiresum/reasons.h"

typedef struct {
    unsigned ports;      /* device ports, 1..16 */
    unsigned jobs;       /* jobs sharing the device, each with `workers` members */
    unsigned workers;    /* members per job, 1..64 */
    unsigned slots;      /* slots per job (the worker window) */
    unsigned count;      /* elements per packet (the job's max_count) */
    unsigned tensors;    /* consecutive all-reduces per job */
    unsigned pool_slots; /* device slot pool */
    uint64_t elems;      /* elements per tensor */
    uint64_t seed;
    ws_values_kind values;
    double dup, loss, malformed, bypass, ecn; /* rates, 0..1 */
    const char *vectors; /* TestFloat f32_add file: one two-worker job, or NULL */
    const char *from;    /* recorded gradients (docs/traces.md): w<W>-s<S>.f32 of each worker W
                          * and step S; one job, a tensor a step; or NULL */
    int progress;        /* 1: progress bar (a terminal) or periodic lines on stderr */
    int progress_tty;    /* 1 bar, 0 lines, -1: a bar if stderr is a terminal */
} ws_gen_opts;

typedef struct {
    uint64_t frames;       /* frames written, all ports */
    uint64_t data;         /* DATA transmissions, first ones */
    uint64_t retx;         /* DATA retransmissions (RETX set) */
    uint64_t lost_data;    /* DATA frames lost before the device */
    uint64_t lost_results; /* RESULT frames lost after the device */
    uint64_t dups;         /* network duplicates of DATA frames */
    uint64_t bypass;       /* bypass frames */
    uint64_t malformed[WS_N_REASONS]; /* injected malformed frames by the reason they get */
    unsigned removed;      /* files of a previous trace removed from dir first */
} ws_gen_stats;

void ws_gen_defaults(ws_gen_opts *o);

/* The binary32 (bits) that gen writes for element i of tensor t (0, 1, ...) of job j (0, 1, ...)
 * from worker w with --values kind and --seed seed: a function of these alone. */
uint32_t ws_gen_value(ws_values_kind kind, uint64_t seed, unsigned j, unsigned t, unsigned w,
                      uint64_t i);

/* Recorded gradients (`gen --from DIR`, docs/traces.md): DIR/w<W>-s<S>.f32, binary32 big-endian,
 * one file per worker W and step S, every worker of every step, all of one size; other files of
 * DIR are not read. Returns the values, [step][worker][element] (malloc'd), and sets the
 * workers, the steps and the elements of a tensor; or NULL with err naming the file. */
uint32_t *ws_gen_load_recording(const char *dir, unsigned *workers, unsigned *steps,
                                uint64_t *elems, char *err, size_t errlen);

/* Whether the options can make a trace: the rates (--loss at most 0.5), the shape within the
 * limits of wiresum/config.h, the job's slots within the pool. 0, or -1 and err naming the
 * option. ws_gen checks them too, as --vectors or --from set them. */
int ws_gen_check(const ws_gen_opts *o, char *err, size_t errlen);
/* The device configuration (job.ini) of a trace of these options (checked by ws_gen_check):
 * 0, or -1 and err. */
int ws_gen_config(const ws_gen_opts *o, ws_config *cfg, char *err, size_t errlen);
/* Write a trace into dir (created if missing), after removing the files of any previous trace
 * there (ws_trace_clear: its outputs would not belong to the new inputs); refused before
 * anything is written when the trace would not fit in the free space of dir's file system.
 * Returns 0, or -1 with err. */
int ws_gen(const char *dir, const ws_gen_opts *o, ws_gen_stats *st, char *err, size_t errlen);

#endif
