// ws_engine - the aggregation engine for any ENGINES: the judge of the slot state (ws_judge), a feed and bank of exact lanes per engine (ws_feed), the combine with the result RAMs and the commands (ws_combine).
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// docs/architecture.md section 5. Each engine e has its own ports (an input arbiter and a parser
// in the top), and here its own feed (g_eng[e].feed, ws_feed): a decision FIFO and a bank of
// LANES exact accumulator lanes (ws_acc_lane). Shared:
//   * the judge (ws_judge): the slot state, SwitchML's rules, one frame a cycle in arrival
//     order; the verdict of a frame goes to its engine in a decision FIFO, so the judge runs
//     ahead of the lanes, and the frame's beats move once their decision is there.
//   * the combine (ws_combine). One engine: the lanes round a round's sums themselves at its
//     last frame, and their outputs go straight on (a pass-through). Several: the lanes keep
//     exact partials (a replica read port, no rounding); when a round completes, the judge
//     stamps it with every engine's count of decisions so far (the fence); once each engine's
//     lanes have written that many frames, the combine reads the round's rows from every
//     engine's replica, adds the partials of the engines that took part (integer adds, flags
//     ORed) and rounds each element once (ws_fx_to_f32).
//   * the result RAM (one copy per result generator) and the round's payload checksum, written
//     by the combine's output; the commands, in judgment order, to every result generator (each
//     serves its own ports), a completion once its checksum is there (ws_combine too).
module ws_engine #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter N_PORTS     = 4,    // device ports
    parameter ENGINES     = 1,    // engines, dividing N_PORTS; engine e has ports e*N_PORTS/ENGINES ..
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count
    parameter ORDER_DEPTH = 4096, // arrival records held (power of two): frames all port FIFOs hold
    parameter PARTIAL     = 0,    // 1: the lanes take PARTIAL frames too, and the combine rounds
    // accumulator bits: a binary32 sum of MAX_WORKERS terms; with PARTIAL the reference's own width,
    // modulo which it adds (a PARTIAL word alone is worth up to 2^308, and records add up)
    parameter ACC_W       = (PARTIAL != 0) ? ws_regmap::WS_XSUM_W : 277 + (MAX_WORKERS > 1 ? $clog2(MAX_WORKERS) : 1) + 1
) (
    input  wire                          clk,
    input  wire                          rst,

    input  wire [N_PORTS-1:0]            s_frame_ready,  // ws_rx_port: a frame of port p is whole

    // per engine: aggregation frames of its parser (header from the token)
    input  wire [ENGINES*DATA_WIDTH-1:0] s_agg_tdata,
    /* verilator lint_off UNUSEDSIGNAL */  // elements are whole: one keep bit per lane decides
    input  wire [ENGINES*DATA_WIDTH/8-1:0] s_agg_tkeep,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [ENGINES-1:0]            s_agg_tvalid,
    output wire [ENGINES-1:0]            s_agg_tready,
    input  wire [ENGINES-1:0]            s_agg_tlast,

    // per engine: one token per frame leaving its parser
    input  wire [ENGINES-1:0]            s_tok_valid,
    input  wire [ENGINES-1:0]            s_tok_agg,
    input  wire [ENGINES*HDR_W-1:0]      s_tok_hdr,
    output wire [ENGINES-1:0]            s_tok_ready,

    // job (re)configuration: clear the job's slot range
    input  wire                          job_clear,
    input  wire [SL_W-1:0]               job_clear_base,   // the job's slot range, with the pulse
    input  wire [SL_W:0]                 job_clear_end,    // (one past its last slot)

    // commands, the same to every result generator (cmd_valid/cmd_ready per generator)
    output wire [ENGINES-1:0]            cmd_valid,
    input  wire [ENGINES-1:0]            cmd_ready,
    output wire [CMD_W-1:0]              cmd_data,     // ws_cmd.vh
    // per generator: a rank served (its rows read) or skipped, with the set
    input  wire [ENGINES-1:0]            frame_done,
    input  wire [ENGINES*Q_W-1:0]        frame_done_q,
    input  wire [ENGINES-1:0]            skip_done,
    input  wire [ENGINES*Q_W-1:0]        skip_done_q,

    // result RAM copies, one read port per generator (registered: data the cycle after)
    input  wire [ENGINES*RA_W-1:0]       res_rd_addr,
    output wire [ENGINES*DATA_WIDTH-1:0] res_rd_data,

    // PARTIAL = 1: the PARTIAL frame buffer (ws_partial_enc), one read port per generator
    // (registered), and the generators' pulse when a PARTIAL's last row has been read
    /* verilator lint_off UNUSEDSIGNAL */  // PARTIAL = 0: no PARTIAL is sent
    input  wire [ENGINES*PR_W-1:0]       par_rd_addr,
    input  wire [ENGINES-1:0]            par_sent,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [ENGINES*DATA_WIDTH-1:0] par_rd_data,

    // one pulse per judged aggregation frame, per engine
    output wire [ENGINES-1:0]            stat_accepted,
    output wire [ENGINES-1:0]            stat_drop,
    output wire [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_reason  // engine e at [e*WS_REASON_W +: WS_REASON_W]
);

import ws_regmap::*;  // WS_LIMIT_*

`include "ws_widths.vh"   // BYTES, LANES, JI_W, WK_W, ..., Q_N, Q_W, PAY_BEAT0, PAY_BEATS, RDEPTH, RA_W, BT_W
`include "ws_agg_hdr.vh"  // HDR_W
`include "ws_cmd.vh"      // C_* positions of a command, CMD_W

localparam E         = ENGINES;
localparam FC_W      = 16;                       // fence counters (wrap; far more than frames in flight)
// the combine adds and rounds: with several engines, and with PARTIAL (the lanes stay exact)
localparam COMB      = (E > 1 || PARTIAL != 0) ? 1 : 0;

`include "ws_judge.vh"    // DC_*, CF_* layouts of a decision and a completion

// parameters: the limits of driver/wiresum/config.h (WS_LIMIT_*)
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_engine %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_engine %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (ENGINES < 1 || ENGINES > N_PORTS || N_PORTS % ENGINES != 0) begin : g_bad_engines
        initial begin
            $error("Error: ws_engine %m: ENGINES must be 1..N_PORTS and divide N_PORTS (ENGINES = %0d, N_PORTS = %0d)",
                   ENGINES, N_PORTS);
            $finish;
        end
    end
    if (MAX_JOBS < 1 || MAX_JOBS > WS_LIMIT_JOBS) begin : g_bad_jobs
        initial begin
            $error("Error: ws_engine %m: MAX_JOBS must be 1..WS_LIMIT_JOBS (MAX_JOBS = %0d, WS_LIMIT_JOBS = %0d)",
                   MAX_JOBS, WS_LIMIT_JOBS);
            $finish;
        end
    end
    if (MAX_WORKERS < 1 || MAX_WORKERS > WS_LIMIT_WORKERS) begin : g_bad_workers
        initial begin
            $error("Error: ws_engine %m: MAX_WORKERS must be 1..WS_LIMIT_WORKERS (MAX_WORKERS = %0d, WS_LIMIT_WORKERS = %0d)",
                   MAX_WORKERS, WS_LIMIT_WORKERS);
            $finish;
        end
    end
    if (POOL_SLOTS < 1 || POOL_SLOTS > WS_LIMIT_SLOTS) begin : g_bad_pool
        initial begin
            $error("Error: ws_engine %m: POOL_SLOTS must be 1..WS_LIMIT_SLOTS (POOL_SLOTS = %0d, WS_LIMIT_SLOTS = %0d)",
                   POOL_SLOTS, WS_LIMIT_SLOTS);
            $finish;
        end
    end
    if (PARTIAL < 0 || PARTIAL > 1 || (PARTIAL != 0 && ACC_W != WS_XSUM_W)) begin : g_bad_partial
        initial begin
            $error("Error: ws_engine %m: PARTIAL must be 0 or 1, and PARTIAL = 1 needs ACC_W = WS_XSUM_W, the reference's width (PARTIAL = %0d, ACC_W = %0d, WS_XSUM_W = %0d)",
                   PARTIAL, ACC_W, WS_XSUM_W);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_engine %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
endgenerate
// ---------------------------------------------------------------------------------------
// The judge.

wire              cmd_space;         // room in the combine's queues (ws_combine)
wire [E-1:0]      dc_push, dc_space;
wire [DC_W-1:0]   dc_data;
wire              k_cmd, k_comp;
wire [CMD_W-1:0]  k_cmd_data;
wire [CF_W-1:0]   k_comp_data;
wire              w_rd;              // a round's read of the lanes is done (rounded or encoded)
wire [Q_W-1:0]    w_q;

ws_judge #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .ENGINES(E), .MAX_JOBS(MAX_JOBS),
    .MAX_WORKERS(MAX_WORKERS), .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT),
    .ORDER_DEPTH(ORDER_DEPTH), .FC_W(FC_W)
) judge (
    .clk(clk), .rst(rst),
    .s_frame_ready(s_frame_ready),
    .s_tok_valid(s_tok_valid), .s_tok_agg(s_tok_agg), .s_tok_hdr(s_tok_hdr), .s_tok_ready(s_tok_ready),
    .job_clear(job_clear), .job_clear_base(job_clear_base), .job_clear_end(job_clear_end),
    .dc_space(dc_space), .dc_push(dc_push), .dc_data(dc_data),
    .cmd_space(cmd_space), .k_cmd(k_cmd), .k_cmd_data(k_cmd_data),
    .k_comp(k_comp), .k_comp_data(k_comp_data),
    .rd_o(w_rd), .rd_oq(w_q),
    .frame_done(frame_done), .frame_done_q(frame_done_q),
    .skip_done(skip_done), .skip_done_q(skip_done_q),
    .stat_accepted(stat_accepted), .stat_drop(stat_drop), .stat_drop_reason(stat_drop_reason)
);

// ---------------------------------------------------------------------------------------
// Engines: decisions, payload beats into the lanes, frames written (fence counts).

/* verilator lint_off UNUSEDSIGNAL */  // one engine: the lanes' rounded outputs; several: the replicas
wire [E*LANES*(ACC_W+4)-1:0] part_rd;     // replica reads, engine e lane l
wire [E*LANES-1:0]           eo_valid;    // rounded outputs, engine e lane l
wire [E*LANES*RA_W-1:0]      eo_addr;
wire [E*LANES*32-1:0]        eo_result;
wire [E*FC_W-1:0]            done_cnt;    // frames whose entries are written, per engine
/* verilator lint_on UNUSEDSIGNAL */
wire [RA_W-1:0]              cb_rd_addr;  // the combine's read address, every engine and lane

genvar ge;
generate
    for (ge = 0; ge < E; ge = ge + 1) begin : g_eng
        ws_feed #(
            .DATA_WIDTH(DATA_WIDTH), .ENGINES(E), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
            .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .PARTIAL(PARTIAL), .COMB(COMB),
            .ACC_W(ACC_W), .FC_W(FC_W)
        ) feed (
            .clk(clk), .rst(rst),
            .s_agg_tdata(s_agg_tdata[ge*DATA_WIDTH +: DATA_WIDTH]),
            .s_agg_tkeep(s_agg_tkeep[ge*(DATA_WIDTH/8) +: DATA_WIDTH/8]),
            .s_agg_tvalid(s_agg_tvalid[ge]), .s_agg_tready(s_agg_tready[ge]),
            .s_agg_tlast(s_agg_tlast[ge]),
            .dc_push(dc_push[ge]), .dc_data(dc_data), .dc_space(dc_space[ge]),
            .cb_rd_addr(cb_rd_addr),
            .part_rd(part_rd[ge*LANES*(ACC_W+4) +: LANES*(ACC_W+4)]),
            .eo_valid(eo_valid[ge*LANES +: LANES]),
            .eo_addr(eo_addr[ge*LANES*RA_W +: LANES*RA_W]),
            .eo_result(eo_result[ge*LANES*32 +: LANES*32]),
            .done_cnt(done_cnt[ge*FC_W +: FC_W])
        );
    end
endgenerate

// ---------------------------------------------------------------------------------------
// The combine, the result RAMs and the commands.

ws_combine #(
    .DATA_WIDTH(DATA_WIDTH), .ENGINES(E), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
    .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .PARTIAL(PARTIAL), .COMB(COMB),
    .ACC_W(ACC_W), .FC_W(FC_W)
) combine (
    .clk(clk), .rst(rst),
    .cmd_space(cmd_space),
    .k_cmd(k_cmd), .k_cmd_data(k_cmd_data), .k_comp(k_comp), .k_comp_data(k_comp_data),
    .w_rd(w_rd), .w_q(w_q),
    .part_rd(part_rd), .eo_valid(eo_valid), .eo_addr(eo_addr), .eo_result(eo_result),
    .done_cnt(done_cnt), .cb_rd_addr(cb_rd_addr),
    .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_data(cmd_data),
    .res_rd_addr(res_rd_addr), .res_rd_data(res_rd_data),
    .par_rd_addr(par_rd_addr), .par_sent(par_sent), .par_rd_data(par_rd_data)
);

endmodule

`resetall
