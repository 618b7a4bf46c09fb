/* wiresum/sim.h - the simulated device (hw/wiresum_top.v, in Verilator or Icarus) behind a C ABI.
 *
 * Owns: one cycle-based simulation of wiresum_top at one DATA_WIDTH (256, 512 or 1024, each
 * built into the binary as its own Verilated model): the clock and reset; per ingress port a
 * queue of frames driven onto s_axis beat by beat, honouring tready; per egress port the frames
 * reassembled from m_axis, checked against AXI4-Stream and the tkeep/tlast/tuser rules of
 * docs/architecture.md section 2; AXI4-Lite register access; idle and backpressure stress;
 * FST tracing of a window of cycles. The Verilator C++ stays in sim/ws_sim_shim.cpp.
 *
 * Time: cycle n is the n-th rising edge of clk since ws_sim_new (ws_sim_cycle() counts them).
 * The clock period is 10 ns in the trace (for a design timed in 1 ns or finer precision, as
 * `timescale 1ns / 1ps is): rising edge n at 10n-5 ns, falling edge at 10n ns.
 * Inputs change at the falling edge, never at the active edge. A beat is transferred at rising
 * edge n when tvalid and tready are both high just before it; it is stamped with cycle n.
 *
 * Errors: functions that take err/errlen write a message there. Everything the design does
 * wrong (an egress protocol violation, a register access that never completes, $finish, $stop) is
 * reported through a sticky error, ws_sim_error(): the first message, naming the port or the
 * register and the cycle. The simulation goes on: a malformed egress frame is dropped and
 * counted, and the monitor starts a new frame after the tlast, or right after a beat that shows
 * a tlast was missing (a partial beat, or more bytes than the first beat's tuser length).
 *
 * No global state: any number of simulations, of any widths, may live in one process (one
 * thread each at a time).
 */
#ifndef WIRESUM_SIM_H
#define WIRESUM_SIM_H

#include <stddef.h>
#include <stdint.h>

#define WS_SIM_MAX_PORTS 32          /* N_PORTS of a model this harness accepts */
#define WS_SIM_MAX_FRAME 65535       /* the longest frame the device sends (tuser length is 16 bits) */
#define WS_SIM_MAX_IN_FRAME 262144   /* the longest frame push accepts (as a pcap file can hold;
                                      * the ports drop those above MAX_FRAME) */
#define WS_SIM_RESET_CYCLES 16       /* rst is held high this many cycles */
#define WS_SIM_REG_TIMEOUT 100000    /* cycles a register access may take before it fails */

typedef struct ws_sim ws_sim;

/* Stress patterns, each a percentage of cycles (0..100), drawn from a generator seeded with
 * seed, so a run is repeatable. idle_pct: an ingress port with a frame to send leaves tvalid
 * low for the next beat (never once a beat is offered: tvalid stays until accepted).
 * backpressure_pct: an egress port's tready is low. */
typedef struct {
    unsigned idle_pct;
    unsigned backpressure_pct;
    uint64_t seed;
} ws_sim_stress;

typedef struct {
    uint64_t beats_in;    /* ingress beats accepted by the device */
    uint64_t beats_out;   /* egress beats taken from the device */
    uint64_t frames_in;   /* ingress frames whose last beat was accepted */
    uint64_t frames_out;  /* egress frames collected whole and well formed */
    uint64_t bytes_in;    /* bytes of those ingress beats (tkeep) */
    uint64_t bytes_out;   /* bytes of those egress beats */
    uint64_t errors;      /* protocol errors seen (the first is ws_sim_error) */
} ws_sim_stats;

/* The DATA_WIDTHs built into this binary, ascending: up to max of them into widths; returns how
 * many there are (0 when the build has no model). */
size_t ws_sim_widths(unsigned *widths, size_t max);

/* A simulation of the model of that width, already reset, no stress. NULL and a message if the
 * width is not built in, the model's ports do not match docs/architecture.md section 5 or
 * memory ran out. */
ws_sim *ws_sim_new(unsigned width, char *err, size_t errlen);

/* The simulators: the Verilator models built into the binary, or the same RTL under Icarus
 * Verilog (a vvp child process per simulation, driven through a VPI bridge; build/icarus/ holds
 * the compiled designs, or $WIRESUM_ICARUS_DIR). Icarus is a second opinion on the RTL, two to
 * three orders of magnitude slower. ws_sim_new(width, ...) is the Verilator one. */
typedef enum { WS_SIM_VERILATOR, WS_SIM_ICARUS } ws_sim_engine;
ws_sim *ws_sim_new_engine(ws_sim_engine engine, unsigned width, char *err, size_t errlen);
const char *ws_sim_engine_name(const ws_sim *s); /* "verilator" or "icarus" */
/* The same, for a simulation that will open no trace: Verilator then uses the model of that
 * width built without FST tracing when the binary has one (make WS_SIM_FAST_WIDTHS, ~1.3x
 * faster; the same RTL, cycle for cycle), and ws_sim_trace_open on it fails. */
ws_sim *ws_sim_new_untraced(ws_sim_engine engine, unsigned width, char *err, size_t errlen);

/* Closes an open trace. NULL is fine. */
void ws_sim_free(ws_sim *s);

/* rst high for WS_SIM_RESET_CYCLES cycles with all valids low. Discards every queued ingress
 * frame (also one half sent), every collected egress frame, the statistics and the sticky
 * error; keeps the cycle count, the stress settings and an open trace. */
void ws_sim_reset(ws_sim *s);

/* Takes effect from the next cycle and restarts the generator from st->seed; NULL means no
 * stress. Percentages above 100 count as 100:
 * idle 100 holds every ingress port (after the beats already offered), backpressure 100 holds
 * every egress port. */
void ws_sim_set_stress(ws_sim *s, const ws_sim_stress *st);

unsigned ws_sim_ports(const ws_sim *s); /* N_PORTS of the model */
unsigned ws_sim_width(const ws_sim *s); /* DATA_WIDTH */
uint64_t ws_sim_cycle(const ws_sim *s);

/* Queue a copy of frame (1..WS_SIM_MAX_IN_FRAME bytes) for ingress port. 0, or -1 for a bad port
 * or length. Frames of a port enter in order, back to back unless stressed; tuser carries the
 * length and the one-hot source port (the device ignores it). */
int ws_sim_push(ws_sim *s, unsigned port, const uint8_t *frame, size_t len);
/* Frames queued for port and not yet wholly accepted by the device (0 for a bad port). */
size_t ws_sim_pending(const ws_sim *s, unsigned port);

/* Clock the model that many cycles, driving and collecting as above. Stops early if the design
 * executes $finish or $stop or fails an assertion (which sets the sticky error); from then on
 * the model does not run again (run returns at once, register accesses return -1). */
void ws_sim_run(ws_sim *s, uint64_t cycles);

/* The oldest collected egress frame of port: 1 and *frame, *len and *cycle_last_beat (the cycle
 * its tlast beat was taken) set, 0 if there is none or port is bad. The data stays valid until
 * the next ws_sim_pop of that port, ws_sim_reset or ws_sim_free. Any out pointer may be NULL. */
int ws_sim_pop(ws_sim *s, unsigned port, const uint8_t **frame, size_t *len,
               uint64_t *cycle_last_beat);
/* Collected egress frames of port not yet popped. */
size_t ws_sim_collected(const ws_sim *s, unsigned port);

/* AXI4-Lite write of data to the byte address addr (< 0x10000; all four strobes), clocking the
 * model (and the streams) until the response: the BRESP (0 OKAY, 2 SLVERR, 3 DECERR), or -1 if
 * addr is out of range, or the access did not complete within WS_SIM_REG_TIMEOUT cycles (then
 * the sticky error names the register and the missing handshake, and the bus is left idle:
 * reset before trusting it again). */
int ws_sim_reg_write(ws_sim *s, uint32_t addr, uint32_t data);
/* The same for a read: the RRESP, *data set (also on an error response). */
int ws_sim_reg_read(ws_sim *s, uint32_t addr, uint32_t *data);

/* FST dump of cycles from_cycle..to_cycle (both edges of each; to_cycle 0 means until
 * ws_sim_trace_close). The file is created now; it is closed by ws_sim_trace_close, after
 * to_cycle, or by ws_sim_free. -1 and a message if a trace is already open, the window is
 * empty or the file cannot be created. */
int ws_sim_trace_open(ws_sim *s, const char *fst_path, uint64_t from_cycle, uint64_t to_cycle,
                      char *err, size_t errlen);
void ws_sim_trace_close(ws_sim *s);

void ws_sim_stats_get(const ws_sim *s, ws_sim_stats *st);

/* The first error since ws_sim_new or ws_sim_reset, or NULL if none. */
const char *ws_sim_error(const ws_sim *s);

/* Stamps, for benchmarks (eval/bench.c). Off by default.
 * ws_sim_stamps(s, 1): from the next cycle on, record per ingress port the cycle of the last
 * beat of every frame the device takes wholly (in push order, so the k-th record of a port is
 * the k-th frame pushed there since stamps went on, if none was pending then); 0 stops
 * recording (records already taken stay). ws_sim_reset discards the records, keeps the setting.
 * ws_sim_pop_ingress_done: the oldest record of port, removed: 1 and *cycle_last_beat (may be
 * NULL), 0 if there is none or port is bad.
 * ws_sim_pop_stamped: ws_sim_pop, plus the cycle of the frame's first beat (*cycle_first_beat,
 * may be NULL); always available, whether stamps are on or not. */
void ws_sim_stamps(ws_sim *s, int on);
int ws_sim_pop_ingress_done(ws_sim *s, unsigned port, uint64_t *cycle_last_beat);
int ws_sim_pop_stamped(ws_sim *s, unsigned port, const uint8_t **frame, size_t *len,
                       uint64_t *cycle_first_beat, uint64_t *cycle_last_beat);

#endif
