// ws_counters - the device's 64-bit event counters: per-port and device-wide, every event of a cycle counted, one read port.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The counters of ws_regs (as Corundum keeps its statistics counters apart from the register
// file), in the register map's order: PC_PER per port, then the device-wide ones
// (WS_CNT_DEV_*; docs/registers.md). stat_* inputs are registered, then added: every input (one
// per engine for the device events) may pulse every cycle, all at once; the drop inputs may carry
// the same reason in the same cycle (all are counted). A drop with a reason outside
// 1..WS_N_DROPS is not counted. clr clears every counter; the events of that cycle are lost.
// rd_en: counter rd_idx is registered into cnt_q (data the cycle after).
module ws_counters #(
    parameter N_PORTS     = 4,    // device ports, 1..16: per-port counters, event inputs per port
    parameter ENGINES     = 1     // aggregation engines: event inputs per device-wide counter
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       clr,             // clear every counter, a pulse

    // counter events, each a 1-cycle pulse
    input  wire [N_PORTS-1:0]         stat_rx,
    input  wire [N_PORTS*16-1:0]      stat_rx_len,
    input  wire [N_PORTS-1:0]         stat_tx,
    input  wire [N_PORTS*16-1:0]      stat_tx_len,
    input  wire [ENGINES-1:0]         stat_accepted,
    input  wire [ENGINES-1:0]         stat_result,
    input  wire [ENGINES-1:0]         stat_resend,
    input  wire [ENGINES-1:0]         stat_bypass,
    input  wire [N_PORTS-1:0]         stat_oversize,   // one per port, summed
    input  wire [ENGINES-1:0]         stat_drop_a,     // a drop (parser) ...
    input  wire [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_a_reason, // ... with its ws_reason code, 1..WS_N_DROPS
    input  wire [ENGINES-1:0]         stat_drop_b,     // a drop (engine) ...
    input  wire [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_b_reason,

    // the read port: counter rd_idx (in address order) into cnt_q the cycle after rd_en
    input  wire                       rd_en,
    input  wire [CI_W-1:0]            rd_idx,
    output reg  [63:0]                cnt_q
);

import ws_regmap::*;

// Counters, in address order: PC_PER per port, then the device-wide ones (ws_regs decodes the
// same layout from the register map's constants).
localparam PC_PER  = WS_TBL_PORT_CNT_STRIDE / 8;
localparam N_CNT   = N_PORTS * PC_PER + WS_CNT_DEV_COUNT;
localparam CI_W    = $clog2(N_CNT);
localparam INC_W   = 17;                                   // largest increment: a 16-bit length
localparam C_RXF   = WS_REG_CNT_RX_FRAMES_OFF / 8;
localparam C_RXB   = WS_REG_CNT_RX_BYTES_OFF / 8;
localparam C_TXF   = WS_REG_CNT_TX_FRAMES_OFF / 8;
localparam C_TXB   = WS_REG_CNT_TX_BYTES_OFF / 8;
localparam C_DEV   = N_PORTS * PC_PER;
localparam C_ACC   = dev_cnt(WS_REG_CNT_ACCEPTED);
localparam C_RES   = dev_cnt(WS_REG_CNT_RESULTS);
localparam C_RSD   = dev_cnt(WS_REG_CNT_RESENDS);
localparam C_BYP   = dev_cnt(WS_REG_CNT_BYPASS);
localparam C_OVS   = dev_cnt(WS_REG_CNT_OVERSIZE);
localparam C_DROP1 = dev_cnt(WS_CNT_DROP_BASE);            // counter of reason 1

// Index of the device-wide counter at byte offset off.
function integer dev_cnt(input [15:0] off);
    begin
        dev_cnt = C_DEV + ({16'd0, off} - {16'd0, WS_CNT_DEV_BASE}) / 8;
    end
endfunction

// check configuration
generate
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_counters %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (ENGINES < 1 || ENGINES > N_PORTS) begin : g_bad_engines
        initial begin
            $error("Error: ws_counters %m: ENGINES must be 1..N_PORTS (ENGINES = %0d, N_PORTS = %0d)",
                   ENGINES, N_PORTS);
            $finish;
        end
    end
endgenerate

reg  [N_PORTS-1:0]    sq_rx, sq_tx, sq_ovs;
reg  [N_PORTS*16-1:0] sq_rx_len, sq_tx_len;
reg  [ENGINES-1:0]    sq_acc, sq_res, sq_rsd, sq_byp, sq_da, sq_db;
reg  [ENGINES*WS_REASON_W-1:0] sq_da_r, sq_db_r;

always @(posedge clk) begin
    sq_rx <= stat_rx;
    sq_tx <= stat_tx;
    sq_ovs <= stat_oversize;
    sq_rx_len <= stat_rx_len;
    sq_tx_len <= stat_tx_len;
    sq_acc <= stat_accepted;
    sq_res <= stat_result;
    sq_rsd <= stat_resend;
    sq_byp <= stat_bypass;
    sq_da <= stat_drop_a;
    sq_da_r <= stat_drop_a_reason;
    sq_db <= stat_drop_b;
    sq_db_r <= stat_drop_b_reason;
    if (rst) begin
        sq_rx <= {N_PORTS{1'b0}};
        sq_tx <= {N_PORTS{1'b0}};
        sq_ovs <= {N_PORTS{1'b0}};
        sq_acc <= {ENGINES{1'b0}};
        sq_res <= {ENGINES{1'b0}};
        sq_rsd <= {ENGINES{1'b0}};
        sq_byp <= {ENGINES{1'b0}};
        sq_da <= {ENGINES{1'b0}};
        sq_db <= {ENGINES{1'b0}};
    end
end

// increment of every counter this cycle, counter i at [i*INC_W +: INC_W]; registered (inc_q)
// before the 64-bit adds, so that the compare of the reasons and the sum over the engines are
// not in the same cycle as the carry chain
reg  [N_CNT*INC_W-1:0] inc, inc_q;
reg  [INC_W-1:0]       inc_ovs;
integer ip, ir, ie;
always @(*) begin
    inc = {N_CNT*INC_W{1'b0}};
    inc_ovs = {INC_W{1'b0}};
    for (ip = 0; ip < N_PORTS; ip = ip + 1) begin
        inc[(ip*PC_PER + C_RXF)*INC_W +: INC_W] = {{(INC_W-1){1'b0}}, sq_rx[ip]};
        inc[(ip*PC_PER + C_RXB)*INC_W +: INC_W] = sq_rx[ip] ? {1'b0, sq_rx_len[ip*16 +: 16]} : {INC_W{1'b0}};
        inc[(ip*PC_PER + C_TXF)*INC_W +: INC_W] = {{(INC_W-1){1'b0}}, sq_tx[ip]};
        inc[(ip*PC_PER + C_TXB)*INC_W +: INC_W] = sq_tx[ip] ? {1'b0, sq_tx_len[ip*16 +: 16]} : {INC_W{1'b0}};
        inc_ovs = inc_ovs + {{(INC_W-1){1'b0}}, sq_ovs[ip]};
    end
    for (ie = 0; ie < ENGINES; ie = ie + 1) begin
        inc[C_ACC*INC_W +: INC_W] = inc[C_ACC*INC_W +: INC_W] + {{(INC_W-1){1'b0}}, sq_acc[ie]};
        inc[C_RES*INC_W +: INC_W] = inc[C_RES*INC_W +: INC_W] + {{(INC_W-1){1'b0}}, sq_res[ie]};
        inc[C_RSD*INC_W +: INC_W] = inc[C_RSD*INC_W +: INC_W] + {{(INC_W-1){1'b0}}, sq_rsd[ie]};
        inc[C_BYP*INC_W +: INC_W] = inc[C_BYP*INC_W +: INC_W] + {{(INC_W-1){1'b0}}, sq_byp[ie]};
        for (ir = 1; ir <= WS_N_DROPS; ir = ir + 1)
            inc[(C_DROP1 + ir - 1)*INC_W +: INC_W] = inc[(C_DROP1 + ir - 1)*INC_W +: INC_W] +
                {{(INC_W-1){1'b0}}, sq_da[ie] && {{(32-WS_REASON_W){1'b0}}, sq_da_r[ie*WS_REASON_W +: WS_REASON_W]} == ir} +
                {{(INC_W-1){1'b0}}, sq_db[ie] && {{(32-WS_REASON_W){1'b0}}, sq_db_r[ie*WS_REASON_W +: WS_REASON_W]} == ir};
    end
    inc[C_OVS*INC_W +: INC_W] = inc_ovs;
end

always @(posedge clk) begin
    inc_q <= inc;
    if (rst)
        inc_q <= {N_CNT*INC_W{1'b0}};
end

// counter i, a word of its own: a vector written a slice per process is copied whole on every
// clock by Verilator (to keep its other bits), 36 and more counters of 64 bits. A counter loads
// only when it is cleared or its increment is not zero: the same value, and the adds of a
// cycle without events are not evaluated.
reg  [63:0] cnt [0:N_CNT-1];

genvar gc;
generate
    for (gc = 0; gc < N_CNT; gc = gc + 1) begin : g_cnt
        always @(posedge clk) begin
            if (rst || clr)
                cnt[gc] <= 64'd0;
            else if (inc_q[gc*INC_W +: INC_W] != {INC_W{1'b0}})
                cnt[gc] <= cnt[gc] + {{(64-INC_W){1'b0}}, inc_q[gc*INC_W +: INC_W]};
        end
    end
endgenerate

always @(posedge clk) begin
    if (rd_en)
        cnt_q <= cnt[rd_idx];
end

endmodule

`resetall
