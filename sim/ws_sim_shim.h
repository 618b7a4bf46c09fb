/* ws_sim_shim.h - the C face of the Verilated models of wiresum_top (sim/ws_sim_shim.cpp).
 *
 * Owns: one Verilated model in its own VerilatedContext, one model per DATA_WIDTH built in
 * (Verilated with --prefix Vws256, Vws512, Vws1024), chosen at run time; raw access to the top's
 * ports as arrays of 32-bit words (bit i of a port is bit i%32 of word i/32, as in Verilator's
 * VlWide), eval, simulation time, $finish, and FST tracing. Nothing else: clocking, handshakes,
 * queues and AXI4-Lite sequencing are the caller's (sim/ws_sim.c).
 *
 * No function throws or aborts on a caller error; a port that is an output cannot be set.
 */
#ifndef WS_SIM_SHIM_H
#define WS_SIM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ports of wiresum_top (docs/architecture.md section 5): X(ENUM, verilog_name, is_input). */
#define WS_SHIM_PORTS(X)                                                                           \
    X(CLK, clk, 1)                                                                                 \
    X(RST, rst, 1)                                                                                 \
    X(S_TDATA, s_axis_tdata, 1)                                                                    \
    X(S_TKEEP, s_axis_tkeep, 1)                                                                    \
    X(S_TVALID, s_axis_tvalid, 1)                                                                  \
    X(S_TREADY, s_axis_tready, 0)                                                                  \
    X(S_TLAST, s_axis_tlast, 1)                                                                    \
    X(S_TUSER, s_axis_tuser, 1)                                                                    \
    X(M_TDATA, m_axis_tdata, 0)                                                                    \
    X(M_TKEEP, m_axis_tkeep, 0)                                                                    \
    X(M_TVALID, m_axis_tvalid, 0)                                                                  \
    X(M_TREADY, m_axis_tready, 1)                                                                  \
    X(M_TLAST, m_axis_tlast, 0)                                                                    \
    X(M_TUSER, m_axis_tuser, 0)                                                                    \
    X(AWADDR, s_axil_awaddr, 1)                                                                    \
    X(AWVALID, s_axil_awvalid, 1)                                                                  \
    X(AWREADY, s_axil_awready, 0)                                                                  \
    X(WDATA, s_axil_wdata, 1)                                                                      \
    X(WSTRB, s_axil_wstrb, 1)                                                                      \
    X(WVALID, s_axil_wvalid, 1)                                                                    \
    X(WREADY, s_axil_wready, 0)                                                                    \
    X(BRESP, s_axil_bresp, 0)                                                                      \
    X(BVALID, s_axil_bvalid, 0)                                                                    \
    X(BREADY, s_axil_bready, 1)                                                                    \
    X(ARADDR, s_axil_araddr, 1)                                                                    \
    X(ARVALID, s_axil_arvalid, 1)                                                                  \
    X(ARREADY, s_axil_arready, 0)                                                                  \
    X(RDATA, s_axil_rdata, 0)                                                                      \
    X(RRESP, s_axil_rresp, 0)                                                                      \
    X(RVALID, s_axil_rvalid, 0)                                                                    \
    X(RREADY, s_axil_rready, 1)

typedef enum {
#define WS_SHIM_ENUM_(e, name, in) WS_SHIM_##e,
    WS_SHIM_PORTS(WS_SHIM_ENUM_)
#undef WS_SHIM_ENUM_
    WS_SHIM_N_PORTS
} ws_shim_port;

typedef struct ws_shim ws_shim;

/* The DATA_WIDTHs built into this binary, ascending: up to max of them into widths; returns how
 * many there are. */
size_t ws_shim_widths(unsigned *widths, size_t max);

/* A new model of that DATA_WIDTH at time 0, not yet evaluated, tracing allowed; NULL if that
 * width is not built in or memory ran out. */
ws_shim *ws_shim_new(unsigned data_width);
/* Runs the final blocks, closes an open trace and frees the model. NULL is fine. */
void ws_shim_free(ws_shim *m);

/* Verilator model name, e.g. "Vws256". */
const char *ws_shim_model(const ws_shim *m);
/* How many 32-bit words port p takes (a 1..32-bit port takes 1). 0 for a bad p. */
unsigned ws_shim_words(const ws_shim *m, ws_shim_port p);
/* Copy ws_shim_words() words in (input ports only; -1 for an output or bad p) or out. */
int ws_shim_set(ws_shim *m, ws_shim_port p, const uint32_t *w);
int ws_shim_get(const ws_shim *m, ws_shim_port p, uint32_t *w);

void ws_shim_eval(ws_shim *m);
/* Simulation time in units of the design's time precision, 10^ws_shim_time_precision() s. */
void ws_shim_time_inc(ws_shim *m, uint64_t units);
uint64_t ws_shim_time(const ws_shim *m);
int ws_shim_time_precision(const ws_shim *m);
/* 0 while the design runs; 1 once it executed $finish; 2 once it stopped on an error ($stop, a
 * failed assertion: reported by Verilator on stdout; $fatal still aborts the process). */
int ws_shim_got_finish(const ws_shim *m);

/* FST tracing of the whole hierarchy into path (which the caller has checked is writable):
 * 0, or -1 if a trace is already open or the writer could not be created. dump records the
 * current values at the current time; close flushes and closes (no-op when none is open). */
int ws_shim_trace_open(ws_shim *m, const char *path);
void ws_shim_trace_dump(ws_shim *m);
void ws_shim_trace_close(ws_shim *m);

#ifdef __cplusplus
}
#endif

#endif
