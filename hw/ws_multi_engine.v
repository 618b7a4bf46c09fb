// ws_multi_engine - ENGINES > 1: shared slot state judged in global arrival order, per-engine exact partial lanes, adder-tree combine, one rounding.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The aggregation engine of wiresum_top when ENGINES > 1 (docs/architecture.md section 9).
// Each engine e has its own ports (an input arbiter and a parser in the top), and here its own
// LANES exact partial-accumulator lanes (ws_acc_lane with a replica read port). Shared:
//   * the judge: the slot state of every set (complete, bitmap, offset, tensor, count, ECN, and
//     per engine a "touched in this round" bit). Frames are judged in the order they became
//     whole on their ports (s_frame_ready, as ws_input_arbiter orders them): each parser sends a
//     token for every frame as soon as its verdict is known (bypass, drop or aggregation, with the
//     header; ahead of the frame's beats), the judge
//     walks the oldest arrival record port by port and takes the token of that port's engine;
//     up to one per engine per cycle, each judgment seeing the state the earlier ones of the
//     cycle left. Bypass and drop tokens are skipped in order. The verdict goes to the engine
//     in a decision FIFO, so the judge runs ahead of the engines' lanes.
//   * the combine: when a round completes, the judge stamps it with every engine's count of
//     decisions so far (the fence); once each engine's lanes have written that many frames, the
//     combine reads the round's rows from every engine's replica RAM, adds the partials of the
//     engines that contributed to this round (integer adds, flags ORed), rounds each element once
//     (ws_fx_to_f32) and writes the result RAM (one copy per result generator) and the round's
//     payload checksum. Commands then go to every result generator, each serving its own ports.
//   * the read guard: a frame that would open a new round in a set waits while the combine or
//     any result generator still has rows of that set to read (per-set count of reads owed).
module ws_multi_engine #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter N_PORTS     = 4,    // device ports
    parameter ENGINES     = 2,    // engines, >= 2, dividing N_PORTS; engine e has ports e*N_PORTS/ENGINES ..
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count
    parameter ORDER_DEPTH = 4096, // arrival records held (power of two): frames all port FIFOs hold
    parameter ACC_W       = 277 + (MAX_WORKERS > 1 ? $clog2(MAX_WORKERS) : 1) + 1  // accumulator bits
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
    output wire [Q_W-1:0]                cmd_q,
    output wire [JI_W-1:0]               cmd_job_idx,
    output wire [15:0]                   cmd_job_id,
    output wire [15:0]                   cmd_slot,
    output wire [31:0]                   cmd_offset,
    output wire [31:0]                   cmd_tensor,
    output wire [CN_W-1:0]               cmd_count,
    output wire [1:0]                    cmd_ecn,
    output wire [15:0]                   cmd_csum,
    output wire [WK_W-1:0]               cmd_rank_lo,
    output wire [WK_W-1:0]               cmd_rank_hi,
    output wire                          cmd_retx,
    // per generator: a rank served (its rows read) or skipped, with the set
    input  wire [ENGINES-1:0]            frame_done,
    input  wire [ENGINES*Q_W-1:0]        frame_done_q,
    input  wire [ENGINES-1:0]            skip_done,
    input  wire [ENGINES*Q_W-1:0]        skip_done_q,

    // result RAM copies, one read port per generator (registered: data the cycle after)
    input  wire [ENGINES*RA_W-1:0]       res_rd_addr,
    output reg  [ENGINES*DATA_WIDTH-1:0] res_rd_data,

    // one pulse per judged aggregation frame, per engine
    output reg  [ENGINES-1:0]            stat_accepted,
    output reg  [ENGINES-1:0]            stat_drop,
    output reg  [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_reason  // engine e at [e*WS_REASON_W +: WS_REASON_W]
);

import ws_regmap::*;  // WS_DROP_* (the reasons of driver/wiresum/reasons.h), WS_REASON_W

`include "ws_widths.vh"   // BYTES, LANES, JI_W, WK_W, ..., Q_N, Q_W, PAY_BEAT0, PAY_BEATS, RDEPTH, RA_W, BT_W

localparam E         = ENGINES;
localparam PPE       = N_PORTS / ENGINES;
localparam MW        = MAX_WORKERS;
localparam FC_W      = 16;                       // fence counters (wrap; far more than frames in flight)
localparam ADD_CHUNKS = 4;                       // the lanes' add split
localparam SETTLE    = ADD_CHUNKS + 5 + 1;       // lane in_valid to a replica read seeing it, cycles
localparam BZ_W      = 16;                       // reads owed per set

`include "ws_agg_hdr.vh"  // H_* positions of the header sideband, HDR_W

// parameters: the limits of driver/wiresum/config.h (WS_LIMIT_*)
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_multi_engine %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_multi_engine %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (ENGINES < 2 || ENGINES > N_PORTS || N_PORTS % ENGINES != 0) begin : g_bad_engines
        initial begin
            $error("Error: ws_multi_engine %m: ENGINES must be 2..N_PORTS here and divide N_PORTS (ENGINES = %0d, N_PORTS = %0d)",
                   ENGINES, N_PORTS);
            $finish;
        end
    end
    if (MAX_JOBS < 1 || MAX_JOBS > WS_LIMIT_JOBS) begin : g_bad_jobs
        initial begin
            $error("Error: ws_multi_engine %m: MAX_JOBS must be 1..WS_LIMIT_JOBS (MAX_JOBS = %0d, WS_LIMIT_JOBS = %0d)",
                   MAX_JOBS, WS_LIMIT_JOBS);
            $finish;
        end
    end
    if (MAX_WORKERS < 1 || MAX_WORKERS > WS_LIMIT_WORKERS) begin : g_bad_workers
        initial begin
            $error("Error: ws_multi_engine %m: MAX_WORKERS must be 1..WS_LIMIT_WORKERS (MAX_WORKERS = %0d, WS_LIMIT_WORKERS = %0d)",
                   MAX_WORKERS, WS_LIMIT_WORKERS);
            $finish;
        end
    end
    if (POOL_SLOTS < 1 || POOL_SLOTS > WS_LIMIT_SLOTS) begin : g_bad_pool
        initial begin
            $error("Error: ws_multi_engine %m: POOL_SLOTS must be 1..WS_LIMIT_SLOTS (POOL_SLOTS = %0d, WS_LIMIT_SLOTS = %0d)",
                   POOL_SLOTS, WS_LIMIT_SLOTS);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_multi_engine %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Arrival order and tokens.

wire               ord_valid;
wire [N_PORTS-1:0] ord_head;
wire               ord_pop;
/* verilator lint_off UNUSEDSIGNAL */  // the records always fit: see ORDER_DEPTH
wire               ord_in_ready;
wire [$clog2(ORDER_DEPTH):0] ord_count;
/* verilator lint_on UNUSEDSIGNAL */
wire               of_valid, of_ready;
wire [N_PORTS-1:0] of_head;
ws_fifo #(.WIDTH(N_PORTS), .DEPTH(ORDER_DEPTH)) order_fifo (
    .clk(clk), .rst(rst),
    .s_data(s_frame_ready), .s_valid(|s_frame_ready), .s_ready(ord_in_ready),
    .m_data(of_head), .m_valid(of_valid), .m_ready(of_ready),
    .count(ord_count)
);
// the judge pops the records (and the tokens below) from register slices: its pop does not
// reach into the FIFOs' pointers in the same cycle
ws_skid #(.WIDTH(N_PORTS)) order_slice (
    .clk(clk), .rst(rst),
    .s_data(of_head), .s_valid(of_valid), .s_ready(of_ready),
    .m_data(ord_head), .m_valid(ord_valid), .m_ready(ord_pop)
);

localparam TF_W = 1 + HDR_W;
localparam TF_DEPTH = 32;
wire [E-1:0]      tf_valid;
wire [E*TF_W-1:0] tf_data;
wire [E-1:0]      tf_pop;

// decisions to the engines' lanes: {accept, first touch of this engine in the round, set}
localparam DC_W = 2 + Q_W;
localparam DC_DEPTH = 16;
wire [E-1:0]      dc_push;
wire [E*DC_W-1:0] dc_data;
wire [E-1:0]      dc_space;

genvar ge;
generate
    for (ge = 0; ge < E; ge = ge + 1) begin : g_tok
        wire [$clog2(TF_DEPTH):0] cnt;
        /* verilator lint_off UNUSEDSIGNAL */  // never full: the parser takes beats only with room
        wire                      ready;
        /* verilator lint_on UNUSEDSIGNAL */
        // room for the three tokens the parser may still have in flight, and this cycle's push
        assign s_tok_ready[ge] = cnt < TF_DEPTH - 4;
        wire            f_valid, f_ready;
        wire [TF_W-1:0] f_data;
        ws_fifo #(.WIDTH(TF_W), .DEPTH(TF_DEPTH)) token_fifo (
            .clk(clk), .rst(rst),
            .s_data({s_tok_agg[ge], s_tok_hdr[ge*HDR_W +: HDR_W]}), .s_valid(s_tok_valid[ge]),
            .s_ready(ready),
            .m_data(f_data), .m_valid(f_valid), .m_ready(f_ready),
            .count(cnt)
        );
        ws_skid #(.WIDTH(TF_W)) token_slice (
            .clk(clk), .rst(rst),
            .s_data(f_data), .s_valid(f_valid), .s_ready(f_ready),
            .m_data(tf_data[ge*TF_W +: TF_W]), .m_valid(tf_valid[ge]), .m_ready(tf_pop[ge])
        );
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Slot state, one entry per set q = 2*pool_slot + SET; a never-used set is complete and empty.
// Packed vectors: JA reads a set's row by the set number, JB writes one set (and the other set's
// row) a cycle.

reg [Q_N-1:0]      st_complete;
reg [Q_N*MW-1:0]   st_bitmap;
reg [Q_N*E-1:0]    st_touched;
reg [Q_N*32-1:0]   st_offset;
reg [Q_N*32-1:0]   st_tensor;
reg [Q_N*CN_W-1:0] st_count;
reg [Q_N*2-1:0]    st_ecn;
reg [Q_N*BZ_W-1:0] busy;        // reads of the set's rows still owed (combine, generators)

reg [E*FC_W-1:0]   dec_cnt;     // decisions pushed per engine
wire [E*FC_W-1:0]  done_cnt;    // frames whose entries are written, per engine

// commands and completions
localparam PC_W = 1 + Q_W + JI_W + 16 + 16 + 32 + 32 + CN_W + 2 + WK_W + WK_W;
localparam PD_DEPTH = 16;
localparam CF_W = Q_W + CN_W + E + E*FC_W;
localparam CF_DEPTH = 16;
wire [$clog2(PD_DEPTH+1)-1:0] pd_count;
wire [$clog2(CF_DEPTH+1)-1:0] cf_count;
wire pd_s_ready, cf_s_ready;
// registered: room for the pushes not yet counted (the one of the cycle before, the one in the
// K register, this judgment's) and one more
reg  cmd_space;
always @(posedge clk)
    cmd_space <= !rst && pd_s_ready && cf_s_ready && pd_count < PD_DEPTH - 3 && cf_count < CF_DEPTH - 3;

// job clear range: registers of ws_regs, compared with each set's constant slot number
wire [Q_N-1:0]  clr_hit;
genvar gq;
generate
    for (gq = 0; gq < Q_N; gq = gq + 1) begin : g_clr
        localparam [SL_W:0] QS = gq / 2;
        assign clr_hit[gq] = QS >= {1'b0, job_clear_base} && QS < job_clear_end;
    end
endgenerate

// ---------------------------------------------------------------------------------------
// The judge: one token a cycle, in arrival order (the head record's ports, lower port first),
// through three stages that move together:
//   J0  the token of the head record's lowest port not yet served is popped from its engine's
//       FIFO; a bypass or drop token ends there, an aggregation token's header is registered.
//   JA  the set's state is read into registers: its complete bit, both sets' bitmap rows, the
//       round's fields, the engines that touched it.
//   JB  the verdict from those registers (docs/protocol.md section 5), the state updated, the
//       decision pushed to the engine, the commands and the completion queued.
// A judgment that cannot go (no room in its engine's decision FIFO or in the command queues, or
// its set complete and still being read) waits in JB, and J0 and JA wait behind it. Every write of the
// state is JB's; when the stages move, JB's writes of that cycle are forwarded into the rows
// entering JA and JB, so no judgment reads a row behind an earlier one. While a job's sets are
// cleared nothing moves, and the clear is applied to the rows held in JA and JB as well.

localparam EI_W = $clog2(E);

// J0: select and pop
reg  [N_PORTS-1:0] served;   // ports of the head record already popped
wire [N_PORTS-1:0] todo = ord_valid ? ord_head & ~served : {N_PORTS{1'b0}};
reg  [N_PORTS-1:0] sel;      // the lowest port of todo (one-hot)
reg  [EI_W-1:0]    sel_e;    // its engine
integer sp;
/* verilator lint_off UNUSEDSIGNAL */  // an engine index: the low bits
integer se0;
/* verilator lint_on UNUSEDSIGNAL */
always @(*) begin
    sel = {N_PORTS{1'b0}};
    sel_e = {EI_W{1'b0}};
    se0 = 0;
    for (sp = N_PORTS - 1; sp >= 0; sp = sp - 1) begin
        if (todo[sp]) begin
            sel = {{(N_PORTS-1){1'b0}}, 1'b1} << sp;
            se0 = sp / PPE;
            sel_e = se0[EI_W-1:0];
        end
    end
end
wire [TF_W-1:0] sel_tok = tf_data[sel_e*TF_W +: TF_W];

wire advance;                                 // the three stages move (below)
wire j0_take = advance && todo != {N_PORTS{1'b0}} && tf_valid[sel_e];
reg              j0_v, ja_v, jb_v;
reg              jb_new;       // JB was loaded in the cycle before
reg              rd_a, rd_b;   // reads owed, at JA's and at JB's set, in the cycle before
reg              ev_c;         // a command in the cycle before, with its set
reg  [Q_W-1:0]   ev_cq;
reg              q1;           // JB's set was JA's in the cycle before (a command then was on it)
reg              p_adv, p_hold; // the command two cycles ago was on JA's, on JB's set
reg  [EI_W-1:0]  j0_e, ja_e, jb_e;
reg  [HDR_W-1:0] j0_h, ja_h, jb_h;

// the set and its other set of a header
function [Q_W-1:0] hq;
    input [HDR_W-1:0] h;
    hq = {h[H_PSLOT +: PS_W], h[H_SET]};
endfunction
function [Q_W-1:0] hq_oth;
    input [HDR_W-1:0] h;
    hq_oth = {h[H_PSLOT +: PS_W], ~h[H_SET]};
endfunction

// the rows held in JA and JB
reg              ja_complete, jb_complete;
reg  [MW-1:0]    ja_row, ja_row_oth, jb_row, jb_row_oth;
reg  [31:0]      ja_offset, ja_tensor, jb_offset, jb_tensor;
reg  [CN_W-1:0]  ja_count, jb_count;
reg  [1:0]       ja_ecn, jb_ecn;
reg  [E-1:0]     ja_touched, jb_touched;

// JB: the verdict
wire [Q_W-1:0]   jq       = hq(jb_h);
wire [Q_W-1:0]   jq_oth   = hq_oth(jb_h);
wire [WK_W-1:0]  b_worker  = jb_h[H_WORKER +: WK_W];
wire [CN_W-1:0]  b_count   = jb_h[H_COUNT +: CN_W];
wire [31:0]      b_offset  = jb_h[H_OFFSET +: 32];
wire [31:0]      b_tensor  = jb_h[H_TENSOR +: 32];
wire [1:0]       b_ecn     = jb_h[H_ECN +: 2];
wire [WC_W-1:0]  b_workers = jb_h[H_WORKERS +: WC_W];
wire [MW-1:0]    bit_w     = {{(MW-1){1'b0}}, 1'b1} << b_worker;
wire [E-1:0]     bit_e     = {{(E-1){1'b0}}, 1'b1} << jb_e;
reg  [MW-1:0]    all_w;
integer jk;
always @(*)
    for (jk = 0; jk < MW; jk = jk + 1)
        all_w[jk] = jk < b_workers;         // the job's ranks, no carry chain
wire s_empty    = jb_row == {MW{1'b0}};
wire d_dup      = (jb_row & bit_w) != {MW{1'b0}};
wire d_resend   = d_dup && jb_complete;
wire d_early    = !d_dup && jb_complete && !s_empty;
wire d_mismatch = !d_dup && !jb_complete &&
                  (b_offset != jb_offset || b_tensor != jb_tensor || b_count != jb_count);
// as in ws_engine: the same as !dup && !early && !mismatch
wire d_accept   = jb_complete ? s_empty : !d_dup && !d_mismatch;
wire d_new      = jb_complete && s_empty;
wire [MW-1:0] d_after   = (d_new ? {MW{1'b0}} : jb_row) | bit_w;     // the set's row, written
wire [MW-1:0] d_oth     = jb_row_oth & ~bit_w;                       // the other set's row
wire          d_last    = d_accept && d_after == all_w;
wire [1:0]    d_ecn     = (d_new ? 2'b00 : jb_ecn) | b_ecn;
wire          d_first   = d_new || !jb_touched[jb_e];
wire [E-1:0]  d_touched = (d_new ? {E{1'b0}} : jb_touched) | bit_e;
// The read guard, from registers: "reads owed" of the set as read in the cycle before (rd_a
// at JA's set when JB was loaded then, rd_b at JB's own set when it waited), and the commands
// of the last two cycles, which that read does not hold yet (section "Read guard" below). A
// judgment on a complete set waits while reads are owed (a new round must: its rows would be
// overwritten; a re-send or an early frame waits too, which keeps the wait off the verdict's
// logic), and every judgment waits for room for a command.
wire          b_busy    = (jb_new ? rd_a || p_adv : rd_b || p_hold) || (ev_c && q1);
wire          b_ok      = dc_space[jb_e] && cmd_space && !(jb_complete && b_busy);
wire          jb_fire   = jb_v && b_ok && !job_clear;
wire          b_wr      = jb_v && d_accept;   // JB's writes, forwarded (taken only when it fires)
assign advance = !job_clear && (!jb_v || b_ok);

// forwarding: a row read for set q, with JB's writes of this cycle
function fw_complete;
    input [Q_W-1:0] q;
    input           old;
    fw_complete = (b_wr && q == jq) ? d_last : old;
endfunction
function [MW-1:0] fw_row;
    input [Q_W-1:0] q;
    input [MW-1:0]  old;
    fw_row = !b_wr ? old : q == jq ? d_after : q == jq_oth ? d_oth : old;
endfunction
wire [Q_W-1:0] a_q   = hq(ja_h);
wire [Q_W-1:0] a_qo  = hq_oth(ja_h);
wire [Q_W-1:0] z_q   = hq(j0_h);
wire [Q_W-1:0] z_qo  = hq_oth(j0_h);
wire           a_same = b_wr && a_q == jq;   // JA's set is the one JB writes
wire           z_same = b_wr && z_q == jq;
wire           a_clr_q = clr_hit[a_q], a_clr_qo = clr_hit[a_qo];
wire           b_clr_q = clr_hit[jq], b_clr_qo = clr_hit[jq_oth];

always @(posedge clk) begin
    if (rst) begin
        j0_v <= 1'b0;
        ja_v <= 1'b0;
        jb_v <= 1'b0;
        served <= {N_PORTS{1'b0}};
    end else if (advance) begin
        j0_v <= j0_take && sel_tok[TF_W-1];
        ja_v <= j0_v;
        jb_v <= ja_v;
        if (j0_take)
            served <= (served | sel) == ord_head ? {N_PORTS{1'b0}} : served | sel;
    end
end

always @(posedge clk) begin
    jb_new <= !rst && advance;
    rd_a <= busy[a_q*BZ_W +: BZ_W] != {BZ_W{1'b0}};
    rd_b <= busy[jq*BZ_W +: BZ_W] != {BZ_W{1'b0}};
    q1 <= jq == a_q;
    p_adv <= ev_c && ev_cq == a_q;
    p_hold <= ev_c && ev_cq == jq;
    if (advance) begin
        j0_e <= sel_e;
        j0_h <= sel_tok[HDR_W-1:0];
        // JA: read, forwarded
        ja_e <= j0_e;
        ja_h <= j0_h;
        ja_complete <= fw_complete(z_q, st_complete[z_q]);
        ja_row      <= fw_row(z_q, st_bitmap[z_q*MW +: MW]);
        ja_row_oth  <= fw_row(z_qo, st_bitmap[z_qo*MW +: MW]);
        ja_offset   <= z_same ? b_offset  : st_offset[z_q*32 +: 32];
        ja_tensor   <= z_same ? b_tensor  : st_tensor[z_q*32 +: 32];
        ja_count    <= z_same ? b_count   : st_count[z_q*CN_W +: CN_W];
        ja_ecn      <= z_same ? d_ecn     : st_ecn[z_q*2 +: 2];
        ja_touched  <= z_same ? d_touched : st_touched[z_q*E +: E];
        // JB: JA's rows, forwarded
        jb_e <= ja_e;
        jb_h <= ja_h;
        jb_complete <= fw_complete(a_q, ja_complete);
        jb_row      <= fw_row(a_q, ja_row);
        jb_row_oth  <= fw_row(a_qo, ja_row_oth);
        jb_offset   <= a_same ? b_offset  : ja_offset;
        jb_tensor   <= a_same ? b_tensor  : ja_tensor;
        jb_count    <= a_same ? b_count   : ja_count;
        jb_ecn      <= a_same ? d_ecn     : ja_ecn;
        jb_touched  <= a_same ? d_touched : ja_touched;
    end else if (job_clear) begin
        // the clear, on the rows held (as on the state below)
        if (a_clr_q) begin
            ja_complete <= 1'b1;
            ja_row <= {MW{1'b0}};
        end
        if (a_clr_qo)
            ja_row_oth <= {MW{1'b0}};
        if (b_clr_q) begin
            jb_complete <= 1'b1;
            jb_row <= {MW{1'b0}};
        end
        if (b_clr_qo)
            jb_row_oth <= {MW{1'b0}};
    end
end

assign tf_pop   = j0_take ? {{(E-1){1'b0}}, 1'b1} << sel_e : {E{1'b0}};
assign ord_pop  = j0_take && (served | sel) == ord_head;
assign dc_push  = jb_fire ? bit_e : {E{1'b0}};
assign dc_data  = {E{d_accept, d_first, jq}};

// the state: JB's writes, one set (and its other set's row) at a time; the clear
wire b_fw = jb_fire && d_accept;
integer q;
always @(posedge clk) begin
    if (rst) begin
        st_complete <= {Q_N{1'b1}};
        st_bitmap <= {Q_N*MW{1'b0}};
    end else begin
        for (q = 0; q < Q_N; q = q + 1) begin
            if (job_clear && clr_hit[q]) begin
                st_complete[q] <= 1'b1;
                st_bitmap[q*MW +: MW] <= {MW{1'b0}};
            end else if (b_fw && jq == q[Q_W-1:0]) begin
                st_complete[q] <= d_last;
                st_bitmap[q*MW +: MW] <= d_after;
            end else if (b_fw && jq_oth == q[Q_W-1:0]) begin
                st_bitmap[q*MW +: MW] <= d_oth;
            end
        end
    end
end

integer qf;
always @(posedge clk) begin
    for (qf = 0; qf < Q_N; qf = qf + 1) begin
        if (b_fw && jq == qf[Q_W-1:0]) begin
            st_ecn[qf*2 +: 2] <= d_ecn;
            st_touched[qf*E +: E] <= d_touched;
            if (d_new) begin
                st_offset[qf*32 +: 32] <= b_offset;
                st_tensor[qf*32 +: 32] <= b_tensor;
                st_count[qf*CN_W +: CN_W] <= b_count;
            end
        end
    end
end

// commands and completions of JB
wire             j_resend = jb_fire && d_resend;
wire             j_comp   = jb_fire && d_last;
wire             j_cmd    = j_resend || j_comp;
wire [BZ_W-1:0]  j_busy_inc = d_last ? E[BZ_W-1:0] * {{(BZ_W-WC_W){1'b0}}, b_workers} + 1'b1 : E[BZ_W-1:0];
wire [JI_W-1:0]  b_job_idx = jb_h[H_JOBIDX +: JI_W];
wire [15:0]      b_job_id  = jb_h[H_JOBID +: 16];
wire [15:0]      b_slot    = jb_h[H_SLOT +: 16];
wire [PC_W-1:0]  j_cmd_data = d_last ?
    {1'b0, jq, b_job_idx, b_job_id, b_slot, b_offset, b_tensor, b_count, d_ecn, {WK_W{1'b0}},
     b_workers[WK_W-1:0] - 1'b1} :
    {1'b1, jq, b_job_idx, b_job_id, b_slot, jb_offset, jb_tensor, jb_count, jb_ecn, b_worker, b_worker};
// the fence: every engine's decisions so far, this one included
reg  [E*FC_W-1:0] j_fence;
integer fe0;
always @(*) begin
    j_fence = dec_cnt;
    for (fe0 = 0; fe0 < E; fe0 = fe0 + 1)
        if (bit_e[fe0])
            j_fence[fe0*FC_W +: FC_W] = dec_cnt[fe0*FC_W +: FC_W] + 1'b1;
end
wire [CF_W-1:0]  j_comp_data = {jq, b_count, d_touched, j_fence};

// K: the command and the completion are registered before their FIFOs
reg              k_cmd, k_comp;
reg  [PC_W-1:0]  k_cmd_data;
reg  [CF_W-1:0]  k_comp_data;
always @(posedge clk) begin
    k_cmd <= !rst && j_cmd;
    k_comp <= !rst && j_comp;
    k_cmd_data <= j_cmd_data;
    k_comp_data <= j_comp_data;
end

integer se;
always @(posedge clk) begin
    stat_accepted <= rst ? {E{1'b0}} : (jb_fire && d_accept ? bit_e : {E{1'b0}});
    stat_drop <= rst ? {E{1'b0}} : (jb_fire && !d_accept ? bit_e : {E{1'b0}});
    stat_drop_reason <= {E{d_dup ? WS_DROP_DUPLICATE : (d_early ? WS_DROP_EARLY : WS_DROP_MISMATCH)}};
    if (rst) begin
        dec_cnt <= {E*FC_W{1'b0}};
    end else begin
        for (se = 0; se < E; se = se + 1)
            if (dc_push[se])
                dec_cnt[se*FC_W +: FC_W] <= dec_cnt[se*FC_W +: FC_W] + 1'b1;
    end
end
// ---------------------------------------------------------------------------------------
// Engines: decisions, payload beats into the partial lanes, frames written (fence counts).

wire [E*LANES*(ACC_W+4)-1:0] part_rd;     // replica reads, engine e lane l
wire [RA_W-1:0]              cb_rd_addr;  // the combine's read address, every engine and lane

generate
    for (ge = 0; ge < E; ge = ge + 1) begin : g_eng
        wire            dv;
        wire [DC_W-1:0] dd;
        wire [$clog2(DC_DEPTH):0] dcnt;
        wire            in_fire = s_agg_tvalid[ge] && s_agg_tready[ge];
        wire            in_last = s_agg_tlast[ge];
        /* verilator lint_off UNUSEDSIGNAL */  // never full: the judge checks dc_space
        wire            ds_ready;
        /* verilator lint_on UNUSEDSIGNAL */
        ws_fifo #(.WIDTH(DC_W), .DEPTH(DC_DEPTH)) decision_fifo (
            .clk(clk), .rst(rst),
            .s_data(dc_data[ge*DC_W +: DC_W]), .s_valid(dc_push[ge]), .s_ready(ds_ready),
            .m_data(dd), .m_valid(dv), .m_ready(in_fire && in_last),
            .count(dcnt)
        );
        // registered: room for the push of the cycle before, this judgment's and one more
        reg space_r;
        always @(posedge clk)
            space_r <= !rst && dcnt < DC_DEPTH - 3;
        assign dc_space[ge] = space_r;
        // a frame's beats move once its decision is there; the decision leaves with the last beat
        assign s_agg_tready[ge] = dv;

        wire            b_accept = dd[DC_W-1];
        wire            b_first  = dd[DC_W-2];
        wire [Q_W-1:0]  b_q      = dd[Q_W-1:0];
        reg  [BT_W-1:0] b_beat;
        always @(posedge clk) begin
            if (rst)
                b_beat <= {BT_W{1'b0}};
            else if (in_fire)
                b_beat <= in_last ? {BT_W{1'b0}} : b_beat + 1'b1;
        end
        wire b_pay;
        if (PAY_BEAT0 == 0) begin : g_pay_all
            assign b_pay = 1'b1;
        end else begin : g_pay_after
            assign b_pay = b_beat >= PAY_BEAT0[BT_W-1:0];
        end
        wire [BT_W-1:0] b_rel  = b_beat - PAY_BEAT0[BT_W-1:0];
        wire [RA_W-1:0] b_addr = {{(RA_W-Q_W){1'b0}}, b_q} * PAY_BEATS[RA_W-1:0] +
                                 {{(RA_W-BT_W){1'b0}}, b_rel};

        genvar l;
        for (l = 0; l < LANES; l = l + 1) begin : g_lane
            wire in_elem = s_agg_tkeep[ge*(DATA_WIDTH/8) + 4*l] && (b_beat != 0 || 4*l >= 64);
            wire [31:0] w = s_agg_tdata[ge*DATA_WIDTH + l*32 +: 32];
            /* verilator lint_off UNUSEDSIGNAL */  // the partial lanes never round (in_last = 0)
            wire            lo_valid;
            wire [RA_W-1:0] lo_addr;
            wire [31:0]     lo_result;
            /* verilator lint_on UNUSEDSIGNAL */
            ws_acc_lane #(.ACC_W(ACC_W), .DEPTH(RDEPTH), .ADDR_W(RA_W), .ADD_CHUNKS(ADD_CHUNKS),
                          .RD_PORT(1)) lane (
                .clk(clk), .rst(rst),
                .in_valid(in_fire && b_accept && b_pay && in_elem),
                .in_addr(b_addr),
                .in_value({w[7:0], w[15:8], w[23:16], w[31:24]}),  // big-endian on the wire
                .in_first(b_first), .in_last(1'b0),
                .out_valid(lo_valid), .out_addr(lo_addr), .out_result(lo_result),
                .raw_addr(cb_rd_addr),
                .raw_data(part_rd[(ge*LANES + l)*(ACC_W+4) +: ACC_W+4])
            );
        end

        // frames through the lanes, counted SETTLE cycles after their last beat
        reg [SETTLE:1]  fdone;
        reg [FC_W-1:0]  fcount;
        always @(posedge clk) begin
            if (rst) begin
                fdone <= {SETTLE{1'b0}};
                fcount <= {FC_W{1'b0}};
            end else begin
                fdone <= {fdone[SETTLE-1:1], in_fire && in_last};
                if (fdone[SETTLE])
                    fcount <= fcount + 1'b1;
            end
        end
        assign done_cnt[ge*FC_W +: FC_W] = fcount;
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Combine: per completed round, after its fence, each row: read every engine's partials,
// add those of the engines that contributed (integer), round once, write the result RAMs.

wire             cf_valid;
wire [CF_W-1:0]  cf_data;
wire             cf_pop;
ws_fifo #(.WIDTH(CF_W), .DEPTH(CF_DEPTH)) completion_fifo (
    .clk(clk), .rst(rst),
    .s_data(k_comp_data), .s_valid(k_comp), .s_ready(cf_s_ready),
    .m_data(cf_data), .m_valid(cf_valid), .m_ready(cf_pop),
    .count(cf_count)
);
wire [Q_W-1:0]    cf_q       = cf_data[CF_W-1 -: Q_W];
wire [CN_W-1:0]   cf_cnt     = cf_data[E*FC_W + E +: CN_W];
wire [E-1:0]      cf_touched = cf_data[E*FC_W +: E];
wire [E*FC_W-1:0] cf_fence   = cf_data[E*FC_W-1:0];
/* verilator lint_off UNUSEDSIGNAL */  // a frame has fewer than 2^BT_W beats
wire [31:0]       cf_rows32  = (64 + 4*{{(32-CN_W){1'b0}}, cf_cnt} + BYTES - 1) / BYTES - PAY_BEAT0;
/* verilator lint_on UNUSEDSIGNAL */
wire [BT_W-1:0]   cf_rows    = cf_rows32[BT_W-1:0];

reg fence_ok;
integer fe;
always @(*) begin
    fence_ok = 1'b1;
    for (fe = 0; fe < E; fe = fe + 1)
        if ((done_cnt[fe*FC_W +: FC_W] - cf_fence[fe*FC_W +: FC_W]) >= (1 << (FC_W - 1)))
            fence_ok = 1'b0;    // done < fence (modulo 2^FC_W)
end

reg             cb_run;
reg [BT_W-1:0]  cb_row;
// registered: the head's fence compared in the cycle before, used when the head was there and
// stayed (done counts only grow, so "reached" stays true for the same head)
reg fence_ok_r, cf_seen;
always @(posedge clk) begin
    fence_ok_r <= fence_ok;
    cf_seen <= !rst && cf_valid && !cf_pop;
end
wire            cb_issue = cb_run || (cf_valid && cf_seen && fence_ok_r);
wire            cb_last  = cb_issue && cb_row + 1'b1 == cf_rows;
assign cf_pop = cb_last;

// lanes of this row that hold elements
reg [LANES-1:0] cb_mask;
integer ml;
always @(*) begin
    for (ml = 0; ml < LANES; ml = ml + 1)
        cb_mask[ml] = ({{(32-BT_W){1'b0}}, cb_row} * BYTES + 4*ml + PAY_BEAT0*BYTES) >= 64 &&
                      ({{(32-BT_W){1'b0}}, cb_row} * BYTES + 4*ml + PAY_BEAT0*BYTES) <
                      64 + 4*{{(32-CN_W){1'b0}}, cf_cnt};
end

always @(posedge clk) begin
    if (rst) begin
        cb_run <= 1'b0;
        cb_row <= {BT_W{1'b0}};
    end else if (cb_issue) begin
        cb_run <= !cb_last;
        cb_row <= cb_last ? {BT_W{1'b0}} : cb_row + 1'b1;
    end
end
// read in the issue cycle (the replicas' registered read): the data is there in stage 1
assign cb_rd_addr = {{(RA_W-Q_W){1'b0}}, cf_q} * PAY_BEATS[RA_W-1:0] + {{(RA_W-BT_W){1'b0}}, cb_row};

// control alongside: [1] the replica data, [2] the carry-save pair, [2+CH] the sum, [5+CH] the rounded value
localparam CH = 4;                          // the combine's add: chunks, one a stage
localparam CW = (ACC_W + CH - 1) / CH;      // chunk width
localparam PW = CH * CW;                    // the operands padded to whole chunks
localparam CP = 5 + CH;
reg [CP:1]       cp_valid;
reg [CP:1]       cp_last;
reg [Q_W-1:0]    cp_q     [1:CP];
reg [RA_W-1:0]   cp_addr  [1:CP];
reg [LANES-1:0]  cp_mask  [1:CP];
reg [E-1:0]      cp_touch;
integer cs;
always @(posedge clk) begin
    cp_q[1] <= cf_q;
    cp_addr[1] <= cb_rd_addr;
    cp_mask[1] <= cb_mask;
    cp_touch <= cf_touched;
    cp_last[1] <= cb_last;
    for (cs = 2; cs <= CP; cs = cs + 1) begin
        cp_q[cs] <= cp_q[cs-1];
        cp_addr[cs] <= cp_addr[cs-1];
        cp_mask[cs] <= cp_mask[cs-1];
        cp_last[cs] <= cp_last[cs-1];
    end
    if (rst)
        cp_valid <= {CP{1'b0}};
    else
        cp_valid <= {cp_valid[CP-1:1], cb_issue};
end

wire [LANES*32-1:0] cb_f;
genvar gl;
generate
    for (gl = 0; gl < LANES; gl = gl + 1) begin : g_comb
        // the adder tree: the partials of the engines that took part in the round. Stage 2:
        // carry-save, E operands into two (full adders bit by bit, no carry chain), the flags
        // ORed. Stages 3 to 2+CH: their sum, one CW-bit chunk a stage, the carry registered
        // between chunks (as in the lanes). The sum, its chunks aligned, at stage 2+CH.
        reg [(CH+1)*PW-1:0] vs, vc;       // per stage 2 .. 2+CH: the two operands
        reg [(CH+1)*4-1:0]  vf;           //   and the flags
        reg [CH*PW-1:0]     vr;           // per stage 3 .. 2+CH: the chunks summed so far
        reg [CH-1:0]        vk;           //   and the carry out of the last one
        reg [PW-1:0]        x, a, b;
        reg [3:0]           fl;
        integer             te, ti;
        always @(*) begin
            a = {PW{1'b0}};
            b = {PW{1'b0}};
            fl = 4'd0;
            for (te = 0; te < E; te = te + 1) begin
                x = cp_touch[te] ? {{(PW-ACC_W){1'b0}}, part_rd[(te*LANES + gl)*(ACC_W+4) +: ACC_W]} : {PW{1'b0}};
                fl = fl | (cp_touch[te] ? part_rd[(te*LANES + gl)*(ACC_W+4) + ACC_W +: 4] : 4'd0);
                if (te == 0) begin
                    a = x;
                end else if (te == 1) begin
                    b = x;
                end else begin
                    {a, b} = {a ^ b ^ x, ((a & b) | (a & x) | (b & x)) << 1};
                end
            end
        end
        always @(posedge clk) begin
            vs[0 +: PW] <= a;
            vc[0 +: PW] <= b;
            vf[0 +: 4] <= fl;
            for (ti = 1; ti <= CH; ti = ti + 1) begin
                vs[ti*PW +: PW] <= vs[(ti-1)*PW +: PW];
                vc[ti*PW +: PW] <= vc[(ti-1)*PW +: PW];
                vf[ti*4 +: 4] <= vf[(ti-1)*4 +: 4];
            end
            // stage 3: chunk 0
            vr[0 +: PW] <= {PW{1'b0}};
            {vk[0], vr[0 +: CW]} <= {1'b0, vs[0 +: CW]} + {1'b0, vc[0 +: CW]};
            // stage 2+ti: chunk ti-1, with the carry of the stage before
            for (ti = 2; ti <= CH; ti = ti + 1) begin
                vr[(ti-1)*PW +: PW] <= vr[(ti-2)*PW +: PW];
                {vk[ti-1], vr[(ti-1)*PW + (ti-1)*CW +: CW]} <=
                    {1'b0, vs[(ti-1)*PW + (ti-1)*CW +: CW]} + {1'b0, vc[(ti-1)*PW + (ti-1)*CW +: CW]} +
                    {{CW{1'b0}}, vk[ti-2]};
            end
        end
        wire [ACC_W+3:0] sum_q = {vf[CH*4 +: 4], vr[(CH-1)*PW +: ACC_W]};   // stage 2 + CH
        ws_fx_to_f32 #(.ACC_W(ACC_W), .PIPELINE(3)) rnd (
            .clk(clk), .fx(sum_q[ACC_W-1:0]),
            .nan(sum_q[ACC_W+3]), .pinf(sum_q[ACC_W+2]), .ninf(sum_q[ACC_W+1]),
            .notnegzero(sum_q[ACC_W]), .f(cb_f[gl*32 +: 32])
        );
    end
endgenerate

// stage CP + 1: the output register, written to the result RAMs and summed into the checksum
reg                 o_valid, o_last;
reg  [Q_W-1:0]      o_q;
reg  [RA_W-1:0]     o_addr;
reg  [LANES-1:0]    o_mask;
reg  [LANES*32-1:0] o_f;
always @(posedge clk) begin
    o_q <= cp_q[CP];
    o_addr <= cp_addr[CP];
    o_mask <= cp_mask[CP];
    o_f <= cb_f;
    o_last <= cp_last[CP];
    o_valid <= !rst && cp_valid[CP];
end

genvar gr, gw;
generate
    for (gr = 0; gr < E; gr = gr + 1) begin : g_res
        for (gw = 0; gw < LANES; gw = gw + 1) begin : g_word
            reg [31:0] mem [0:RDEPTH-1];
            always @(posedge clk) begin
                if (o_valid && o_mask[gw])
                    mem[o_addr] <= o_f[gw*32 +: 32];
                res_rd_data[gr*DATA_WIDTH + gw*32 +: 32] <= mem[res_rd_addr[gr*RA_W +: RA_W]];
            end
        end
    end
endgenerate

// the payload checksums of complete rounds: in order for the commands, per set for re-sends
wire             o_done = o_valid && o_last;
wire             dq_m_valid;
wire [15:0]      dq_m_csum, rs_csum;
wire             dq_pop;
wire [Q_W-1:0]   p_q;
/* verilator lint_off UNUSEDSIGNAL */  // never full: at most one per pending completion
wire             dq_s_ready;
/* verilator lint_on UNUSEDSIGNAL */
ws_round_csum #(.LANES(LANES), .Q_N(Q_N), .Q_W(Q_W), .DEPTH(PD_DEPTH)) round_csum (
    .clk(clk), .rst(rst),
    .beat(o_valid), .mask(o_mask), .words(o_f), .last(o_last), .q(o_q),
    .s_ready(dq_s_ready), .m_csum(dq_m_csum), .m_valid(dq_m_valid), .m_ready(dq_pop),
    .rd_q(p_q), .rd_csum(rs_csum)
);

// ---------------------------------------------------------------------------------------
// Commands, in judgment order, to every result generator.

wire             pd_m_valid;
wire [PC_W-1:0]  pd_m_data;
wire             pd_pop;
ws_fifo #(.WIDTH(PC_W), .DEPTH(PD_DEPTH)) pending_fifo (
    .clk(clk), .rst(rst),
    .s_data(k_cmd_data), .s_valid(k_cmd), .s_ready(pd_s_ready),
    .m_data(pd_m_data), .m_valid(pd_m_valid), .m_ready(pd_pop),
    .count(pd_count)
);

wire p_resend = pd_m_data[PC_W-1];
assign p_q = pd_m_data[PC_W-2 -: Q_W];
wire p_ready = pd_m_valid && (p_resend || dq_m_valid);
reg  [E-1:0] taken;      // generators that have the head command already
wire [E-1:0] take = cmd_valid & cmd_ready;
assign cmd_valid = p_ready ? ~taken : {E{1'b0}};
assign pd_pop = p_ready && (taken | take) == {E{1'b1}};
assign dq_pop = pd_pop && !p_resend;
always @(posedge clk) begin
    if (rst || pd_pop)
        taken <= {E{1'b0}};
    else
        taken <= taken | take;
end
assign {cmd_retx, cmd_q, cmd_job_idx, cmd_job_id, cmd_slot, cmd_offset, cmd_tensor, cmd_count,
        cmd_ecn, cmd_rank_lo, cmd_rank_hi} = pd_m_data;
assign cmd_csum = p_resend ? rs_csum : dq_m_csum;

// ---------------------------------------------------------------------------------------
// Read guard: per set, the reads still owed (the combine's, one per rank per generator).

// The events of a cycle are registered, then counted per set: a decrement reaches `busy` two
// cycles after it happened (a judgment may wait a cycle longer than it must), an increment too,
// and the judge sees the last two cycles' commands through ev_* and ev2_* (b_busy above).
reg              ev_o;
reg  [Q_W-1:0]   ev_oq;
reg  [E-1:0]     ev_fd, ev_sd;
reg  [E*Q_W-1:0] ev_fdq, ev_sdq;
reg  [BZ_W-1:0]  ev_ci;
always @(posedge clk) begin
    ev_o   <= !rst && o_done;
    ev_oq  <= o_q;
    ev_fd  <= rst ? {E{1'b0}} : frame_done;
    ev_fdq <= frame_done_q;
    ev_sd  <= rst ? {E{1'b0}} : skip_done;
    ev_sdq <= skip_done_q;
    ev_c   <= !rst && j_cmd;
    ev_cq  <= jq;
    ev_ci  <= j_busy_inc;
end

// Then the retirements are matched with each set (registered: m_dn), counted without carry
// chains (full adders on the match bits) and subtracted; a command's increment is added from
// ev_* directly.
localparam NR   = 2*E + 1;                 // retirement events a cycle: combine, E x (sent, skipped)
localparam DN_W = $clog2(NR + 1);
reg [Q_N*NR-1:0] m_dn;
integer bq, bg;
always @(posedge clk) begin
    for (bq = 0; bq < Q_N; bq = bq + 1) begin
        m_dn[bq*NR] <= ev_o && ev_oq == bq[Q_W-1:0];
        for (bg = 0; bg < E; bg = bg + 1) begin
            m_dn[bq*NR + 1 + 2*bg] <= ev_fd[bg] && ev_fdq[bg*Q_W +: Q_W] == bq[Q_W-1:0];
            m_dn[bq*NR + 2 + 2*bg] <= ev_sd[bg] && ev_sdq[bg*Q_W +: Q_W] == bq[Q_W-1:0];
        end
    end
end

// ones in up to 9 bits, as a tree of full adders (more: an add per bit)
function [DN_W-1:0] ones;
    input [NR-1:0] x;
    reg   [8:0]    y;
    reg            s0, c0, s1, c1, s2, c2, b0, k1, t, k2, k3;
    integer        i;
    begin
        if (NR <= 9) begin
            y = {{(9-NR){1'b0}}, x};
            s0 = y[0] ^ y[1] ^ y[2]; c0 = (y[0] & y[1]) | (y[0] & y[2]) | (y[1] & y[2]);
            s1 = y[3] ^ y[4] ^ y[5]; c1 = (y[3] & y[4]) | (y[3] & y[5]) | (y[4] & y[5]);
            s2 = y[6] ^ y[7] ^ y[8]; c2 = (y[6] & y[7]) | (y[6] & y[8]) | (y[7] & y[8]);
            b0 = s0 ^ s1 ^ s2;       k1 = (s0 & s1) | (s0 & s2) | (s1 & s2);   // weight 2
            t  = c0 ^ c1 ^ c2;       k2 = (c0 & c1) | (c0 & c2) | (c1 & c2);   // weight 2, 4
            k3 = k1 & t;                                                      // weight 4
            ones = {{(DN_W-1){1'b0}}, b0} | ({{(DN_W-1){1'b0}}, k1 ^ t} << 1) |
                   ({{(DN_W-1){1'b0}}, k2 ^ k3} << 2) | ({{(DN_W-1){1'b0}}, k2 & k3} << 3);
        end else begin
            ones = {DN_W{1'b0}};
            for (i = 0; i < NR; i = i + 1)
                ones = ones + {{(DN_W-1){1'b0}}, x[i]};
        end
    end
endfunction

integer bb;
always @(posedge clk) begin
    for (bb = 0; bb < Q_N; bb = bb + 1) begin
        if (rst)
            busy[bb*BZ_W +: BZ_W] <= {BZ_W{1'b0}};
        else
            busy[bb*BZ_W +: BZ_W] <= busy[bb*BZ_W +: BZ_W] - {{(BZ_W-DN_W){1'b0}}, ones(m_dn[bb*NR +: NR])} +
                                     (ev_c && ev_cq == bb[Q_W-1:0] ? ev_ci : {BZ_W{1'b0}});
    end
end

endmodule

`resetall
