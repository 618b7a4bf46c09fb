/* ws_sim_shim.h - the simulators under sim/ws_sim.c: the Verilated models of wiresum_top
 * (sim/ws_sim_shim.cpp) and the same RTL under Icarus Verilog (sim/ws_shim_icarus.c).
 *
 * Owns: raw access to the top's ports, eval, simulation time, $finish, and FST tracing, behind
 * one table of functions per simulator. Nothing else: clocking, handshakes, queues and AXI4-Lite
 * sequencing are the caller's (sim/ws_sim.c), the same for both simulators.
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

/* One simulation backend: a model instance (opaque, void *) and the functions on it. Ports are
 * arrays of 32-bit words (bit i of a port is bit i%32 of word i/32, as in Verilator's VlWide).
 *   words:  how many 32-bit words port p takes (a 1..32-bit port takes 1); 0 for a bad p.
 *   set/get: copy words() words in (input ports only; -1 for an output or bad p) or out.
 *   time_inc, time: simulation time in units of 10^time_precision() s.
 *   eval:   settle the design with the inputs set and the time reached.
 *   got_finish: 0 while the design runs; 1 once it executed $finish (or the simulator ended);
 *           2 once it stopped on an error ($stop, a failed assertion).
 *   trace_open: FST of the whole hierarchy into path (checked writable by the caller); 0, or -1
 *           if a trace is already open or the writer could not be created. trace_dump records
 *           the values at the current time; trace_close flushes and stops (no-op when none). */
typedef struct {
    const char *engine; /* "verilator", "icarus" */
    void (*free)(void *m);
    const char *(*model)(const void *m);
    unsigned (*words)(const void *m, ws_shim_port p);
    int (*set)(void *m, ws_shim_port p, const uint32_t *w);
    int (*get)(const void *m, ws_shim_port p, uint32_t *w);
    void (*eval)(void *m);
    void (*time_inc)(void *m, uint64_t units);
    uint64_t (*time)(const void *m);
    int (*time_precision)(const void *m);
    int (*got_finish)(const void *m);
    int (*trace_open)(void *m, const char *path);
    void (*trace_dump)(void *m);
    void (*trace_close)(void *m);
} ws_shim_ops;

/* Verilator (sim/ws_sim_shim.cpp): one Verilated model in its own VerilatedContext, one model
 * per DATA_WIDTH built in (Verilated with --prefix Vws256, Vws512, Vws1024). */
extern const ws_shim_ops ws_shim_verilator;
/* The DATA_WIDTHs built into this binary, ascending: up to max of them into widths; returns how
 * many there are. */
size_t ws_shim_verilator_widths(unsigned *widths, size_t max);
/* A new model of that DATA_WIDTH at time 0, not yet evaluated; NULL if that width is not built
 * in or memory ran out. Free with ws_shim_verilator.free. */
void *ws_shim_verilator_new(unsigned data_width);
/* The same; untraced != 0 takes the model of that width Verilated without tracing (faster; its
 * trace_open fails) when the binary has one (make's WS_SIM_FAST_WIDTHS), else the traced one;
 * untraced == 0 the traced one (WS_SIM_TRACED_WIDTHS) when the binary has it, else the other. */
void *ws_shim_verilator_new_model(unsigned data_width, int untraced);
/* Whether the binary has a model of that DATA_WIDTH that writes waveforms (1) or not (0). */
int ws_shim_verilator_traced(unsigned data_width);

/* Icarus Verilog (sim/ws_shim_icarus.c): the same top compiled by iverilog (build/icarus/
 * ws<width>.vvp, testbench sim/icarus/ws_icarus_tb.v), run by vvp in a child process and driven
 * through the VPI bridge sim/icarus/ws_vpi.c over a socket. NULL and a message in err if the
 * compiled design or vvp cannot be found or started. */
extern const ws_shim_ops ws_shim_icarus;
void *ws_shim_icarus_new(unsigned data_width, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
