/* wiresum/session.h - one device, whichever it is: the one way the tools, the fuzzer and the
 * tests open a device, configure it, feed it frames and read what it sent.
 *
 * Owns: a device of one kind - the software reference (sim/refdev.c) with a timing model, or the
 * RTL (hw/wiresum_top.v) in Verilator or Icarus (wiresum/sim.h) - and, over all kinds:
 *   - the register bus (ws_regbus, for the driver's ws_dev_* of wiresum/dev.h);
 *   - the configuration of a job (ws_session_configure: the driver's ws_dev_configure over the
 *     register bus for the RTL; the reference is built from the same ws_config);
 *   - frames pushed in one global order: a frame on another port than the previous push's is
 *     offered only once that one is wholly in, so that the device's first-come-first-served
 *     input arbiter sees the frames in push order (ws_session_ready says when a push may go);
 *   - frames popped with cycle stamps, per port or in the order the device sent them;
 *   - draining until the device is quiet, with one set of drain constants (WS_SESSION_*);
 *   - the counters (ws_counters), read through the registers for the RTL.
 *
 * The reference has no register bus (it is configured from the ws_config itself, as the RTL is
 * configured from it through the driver): ws_session_bus gives a bus whose every access fails,
 * and the functions below do the right thing for each kind. Its timing model: a frame of B
 * beats (B = ceil(len / (width/8))) occupies the ingress from max(its push cycle, the end of the
 * previous frame) for B cycles and is judged when wholly in; what it sends leaves on its egress
 * port WS_SESSION_REF_PIPE cycles later, or when the port is free, B' beats of it. Its frames
 * are known at once: they can be popped right after the push, stamped with those cycles.
 *
 * Time: cycles as in wiresum/sim.h (a model's cycle count; the reference's own count, advanced by
 * ws_session_run). A frame is stamped with the cycle of its last beat.
 *
 * Builds without the RTL models (no hw/wiresum_top.f): opening a Verilator or Icarus device
 * fails with a message that says so; the reference always opens.
 */
#ifndef WIRESUM_SESSION_H
#define WIRESUM_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "wiresum/config.h"
#include "wiresum/counters.h"
#include "wiresum/dev.h"
#include "wiresum/sim.h"

/* Drain constants: a run ends once the device has sent nothing for WS_SESSION_QUIET cycles, or
 * for WS_SESSION_QUIET_ALL_IN once every frame expected from it has come out. A model counts as
 * idle after WS_SESSION_SETTLE cycles without a beat in or out; a recorded closed loop waits
 * WS_SESSION_QUIET_RECORD quiet cycles at its end (more than a replay of its recording waits). */
#define WS_SESSION_QUIET 20000
#define WS_SESSION_QUIET_ALL_IN 2000
#define WS_SESSION_SETTLE 256
#define WS_SESSION_QUIET_RECORD 24000
/* The reference's timing model: cycles from a frame wholly in to the first beat it sends */
#define WS_SESSION_REF_PIPE 16

typedef enum { WS_DEVICE_REFERENCE, WS_DEVICE_VERILATOR, WS_DEVICE_ICARUS } ws_device_kind;

typedef struct {
    ws_device_kind kind;
    unsigned width;       /* DATA_WIDTH of the model (256, 512, 1024); the reference's beat */
    int traced;           /* a model that will open a trace (else the faster untraced build) */
} ws_session_opts;

typedef struct ws_session ws_session;

/* The kind's name as the command line spells it: "ref", "verilator", "icarus"; NULL if none. */
const char *ws_device_kind_name(ws_device_kind kind);
/* The kind named name ("ref"/"reference", "verilator", "icarus"): 0, or -1 if none. */
int ws_device_kind_parse(const char *name, ws_device_kind *kind);

/* A device of that kind, reset, not configured. NULL and a message (naming the kind and the
 * width) if it cannot be opened: a width not built in, a build without the models, no Icarus
 * design, memory. */
ws_session *ws_session_open(const ws_session_opts *o, char *err, size_t errlen);
void ws_session_free(ws_session *s); /* NULL is fine */
/* Back to the state of ws_session_open, not configured: a model reset (ws_sim_reset: queues,
 * frames, statistics and its error discarded; its cycle count, stress and trace kept), the
 * reference discarded with its frames; the cycle count goes on. */
void ws_session_reset(ws_session *s);

ws_device_kind ws_session_kind(const ws_session *s);
/* 1 for the models, which are clocked cycle by cycle; 0 for the reference */
int ws_session_clocked(const ws_session *s);
/* "reference", "verilator" or "icarus" */
const char *ws_session_engine(const ws_session *s);
unsigned ws_session_width(const ws_session *s);
/* Ports of the device: the model's N_PORTS; the reference's WS_LIMIT_PORTS (its configuration's
 * once configured). */
unsigned ws_session_ports(const ws_session *s);
/* The model itself, for what only a model has (stress, stamps, tracing): NULL for the reference */
ws_sim *ws_session_sim(ws_session *s);

/* The register bus of the device (every access of the reference's fails with -1). */
ws_regbus ws_session_bus(ws_session *s);
/* The driver's open (ID and build parameters, ws_dev_open) and reset (ws_dev_reset) for the
 * RTL; for the reference, its limits (WS_LIMIT_*, the width of the session). 0, or -1 and err. */
int ws_session_open_driver(ws_session *s, ws_dev_params *p, char *err, size_t errlen);
/* Configure every job of cfg: ws_dev_configure for the RTL, the reference built from cfg. 0, or
 * -1 and err naming the register or what the device cannot hold. */
int ws_session_configure(ws_session *s, const ws_config *cfg, char *err, size_t errlen);

/* 1 when a frame for port may be pushed now without breaking the global order (the port has
 * fewer than two frames waiting, and the port of the previous push has none if it is another);
 * always 1 for the reference. */
int ws_session_ready(const ws_session *s, unsigned port);
/* Queue a frame for ingress port, at the current cycle (a model takes 1..WS_SIM_MAX_FRAME
 * bytes; the reference any length, and judges it). 0, or -1 and the session error for a bad
 * port or length, or a reference not configured. */
int ws_session_push(ws_session *s, unsigned port, const uint8_t *frame, size_t len);
/* Frames pushed to port and not yet wholly in (0 for the reference). */
size_t ws_session_pending(const ws_session *s, unsigned port);
/* 1 if any port has frames pending */
int ws_session_busy(const ws_session *s);

/* Clock the device that many cycles (the reference: advance its count). 0, or -1 once the model
 * reported an error (ws_session_error). */
int ws_session_run(ws_session *s, uint64_t cycles);
uint64_t ws_session_cycle(const ws_session *s);

/* The oldest frame sent on port not yet popped: 1 and *frame, *len, *cycle (its last beat) set,
 * 0 if none. The data stays valid until the next pop of that port. Out pointers may be NULL. */
int ws_session_pop(ws_session *s, unsigned port, const uint8_t **frame, size_t *len,
                   uint64_t *cycle);
/* The next frame sent on any port below n_ports, in the order sent: by cycle, ports in order
 * within a cycle for the models, the order of sending for the reference. 1 and *port too. */
int ws_session_pop_next(ws_session *s, unsigned n_ports, unsigned *port, const uint8_t **frame,
                        size_t *len, uint64_t *cycle);

/* Beats in and out so far (the model's statistics; the reference's timing model's). */
void ws_session_beats(const ws_session *s, uint64_t *in, uint64_t *out);
/* Stamps of the frames taken in: on (1) from now, or off (0); the models: ws_sim_stamps. */
void ws_session_stamps(ws_session *s, int on);
/* Per ingress port, the cycle each frame was wholly in, in push order, while stamps are on: 1
 * and *cycle (may be NULL), or 0 if there is none (ws_sim_pop_ingress_done for the models). */
int ws_session_pop_ingress_done(ws_session *s, unsigned port, uint64_t *cycle);

/* ---- the device on a time line shared with other simulated things ------------------------
 * The closed loops (`wiresum run --shards/--tree`, the cluster's RTL device) keep every device on
 * one time line, in the device's cycles: line time is the cycles clocked since
 * ws_session_line_start plus the idle stretches not clocked. A model is clocked cycle by cycle
 * while it has work (frames pending, or a beat in or out within the last WS_SESSION_SETTLE
 * cycles, ws_session_line_active); idle and settled, a stretch of time costs nothing: its line
 * time jumps. The reference's count simply follows the line. A push marks activity. */
void ws_session_line_start(ws_session *s);
uint64_t ws_session_line_now(const ws_session *s);
/* the cycles clocked since ws_session_line_start: line time less the stretches skipped */
uint64_t ws_session_line_clocked(const ws_session *s);
/* 1 while a model must be clocked through every cycle (above); 0 for the reference */
int ws_session_line_active(const ws_session *s);
/* Bring the device to line time `to` (no earlier than now): clocked, or an idle settled
 * model's stretch skipped. 0, or -1 once the model reported an error (ws_session_error). */
int ws_session_line_advance(ws_session *s, uint64_t to);
/* ws_session_pop_next with the frame's last beat as line time in *t */
int ws_session_line_pop(ws_session *s, unsigned n_ports, unsigned *port, const uint8_t **frame,
                        size_t *len, uint64_t *t);

/* The device's counters of ports 0..n_ports-1 (through the registers for the RTL). 0, or -1. */
int ws_session_counters(ws_session *s, unsigned n_ports, ws_counters *c, char *err,
                        size_t errlen);

/* The first error of the device (a model's protocol error, $stop, a refused push), or NULL;
 * the model's as wiresum/sim.h words it (a caller says "model: ..."). */
const char *ws_session_error(const ws_session *s);

#endif
