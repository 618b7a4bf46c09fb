// ws_judge - the slot state of every set and SwitchML's rules on it: one frame judged a cycle, in arrival order, for every engine.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The judge of ws_engine (docs/architecture.md section 5). Each engine's parser sends a token
// for every frame as soon as its verdict is known (bypass, drop or aggregation, with the
// header; ahead of the frame's beats). With one engine the tokens are in arrival order already;
// with several, the judge walks the records of s_frame_ready (ports whose frame became whole in
// a cycle, as ws_input_arbiter orders them, lower port first) and takes the token of each
// port's engine. Bypass and drop tokens end in J0. An aggregation frame is judged
// (docs/protocol.md section 5) in three stages that move together:
//   J0  the token is popped; an aggregation token's header is registered.
//   JA  the set's state is read into registers: its complete bit, both sets' bitmap rows, the
//       round's fields, the engines that touched it in this round.
//   JB  the verdict from those registers, the state updated, the decision pushed to the
//       frame's engine (dc_*), the command and the completion registered (k_*).
// A judgment that cannot go (no room in its engine's decision FIFO or in the command queues, or
// its set complete and still being read) waits in JB, and J0 and JA wait behind it. Every write
// of the state is JB's; when the stages move, JB's writes of that cycle are forwarded into the
// rows entering JA and JB, so no judgment reads a row behind an earlier one. While a job's sets
// are cleared nothing moves, and the clear is applied to the rows held in JA and JB as well.
// The read guard: per set, the reads of its rows still owed (the combine's or the lanes' write
// of the round, one per rank per result generator); a judgment on a complete set waits while
// reads are owed, so a new round never overwrites rows that are still to be sent.
module ws_judge #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter N_PORTS     = 4,    // device ports
    parameter ENGINES     = 1,    // engines, dividing N_PORTS; engine e has ports e*N_PORTS/ENGINES ..
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count
    parameter ORDER_DEPTH = 4096, // arrival records held (power of two): frames all port FIFOs hold
    parameter FC_W        = 16    // decision counters (the fences: wrap; far more than frames in flight)
) (
    input  wire                          clk,
    input  wire                          rst,

    /* verilator lint_off UNUSEDSIGNAL */  // one engine: its tokens are in arrival order already
    input  wire [N_PORTS-1:0]            s_frame_ready,  // ws_rx_port: a frame of port p is whole
    /* verilator lint_on UNUSEDSIGNAL */

    // per engine: one token per frame leaving its parser
    input  wire [ENGINES-1:0]            s_tok_valid,
    input  wire [ENGINES-1:0]            s_tok_agg,
    input  wire [ENGINES*HDR_W-1:0]      s_tok_hdr,
    output wire [ENGINES-1:0]            s_tok_ready,

    // job (re)configuration: clear the job's slot range
    input  wire                          job_clear,
    input  wire [SL_W-1:0]               job_clear_base,   // the job's slot range, with the pulse
    input  wire [SL_W:0]                 job_clear_end,    // (one past its last slot)

    // decisions to the engines' lanes: dc_data to the engines of dc_push
    input  wire [ENGINES-1:0]            dc_space,   // room for this and one more decision
    output wire [ENGINES-1:0]            dc_push,
    output wire [DC_W-1:0]               dc_data,    // {accept, first of the engine in the round, last, set}

    // commands and completions, registered, in judgment order
    input  wire                          cmd_space,  // room for this and two more of each
    output reg                           k_cmd,
    output reg  [CMD_W-1:0]              k_cmd_data, // the command, checksum field 0 (ws_cmd.vh)
    output reg                           k_comp,
    output reg  [CF_W-1:0]               k_comp_data, // {set, count, engines touched, fence}

    // reads retired: the round written (lanes or combine), per generator a rank sent or skipped
    input  wire                          rd_o,
    input  wire [Q_W-1:0]                rd_oq,
    input  wire [ENGINES-1:0]            frame_done,
    input  wire [ENGINES*Q_W-1:0]        frame_done_q,
    input  wire [ENGINES-1:0]            skip_done,
    input  wire [ENGINES*Q_W-1:0]        skip_done_q,

    // one pulse per judged aggregation frame, per engine
    output reg  [ENGINES-1:0]            stat_accepted,
    output reg  [ENGINES-1:0]            stat_drop,
    output reg  [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_reason  // engine e at [e*WS_REASON_W +: WS_REASON_W]
);

import ws_regmap::*;  // WS_DROP_* (the reasons of driver/wiresum/reasons.h), WS_REASON_W

`include "ws_widths.vh"   // JI_W, WK_W, WC_W, SL_W, PS_W, CN_W, Q_N, Q_W
`include "ws_agg_hdr.vh"  // H_* positions of the header sideband, HDR_W
`include "ws_cmd.vh"      // C_* positions of a command, CMD_W
`include "ws_judge.vh"    // DC_*, CF_* layouts of a decision and a completion

localparam E         = ENGINES;
localparam PPE       = N_PORTS / ENGINES;
localparam MW        = MAX_WORKERS;
localparam BZ_W      = 16;                       // reads owed per set

// parameters: the limits of driver/wiresum/config.h (WS_LIMIT_*)
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_judge %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_judge %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (ENGINES < 1 || ENGINES > N_PORTS || N_PORTS % ENGINES != 0) begin : g_bad_engines
        initial begin
            $error("Error: ws_judge %m: ENGINES must be 1..N_PORTS and divide N_PORTS (ENGINES = %0d, N_PORTS = %0d)",
                   ENGINES, N_PORTS);
            $finish;
        end
    end
    if (MAX_JOBS < 1 || MAX_JOBS > WS_LIMIT_JOBS) begin : g_bad_jobs
        initial begin
            $error("Error: ws_judge %m: MAX_JOBS must be 1..WS_LIMIT_JOBS (MAX_JOBS = %0d, WS_LIMIT_JOBS = %0d)",
                   MAX_JOBS, WS_LIMIT_JOBS);
            $finish;
        end
    end
    if (MAX_WORKERS < 1 || MAX_WORKERS > WS_LIMIT_WORKERS) begin : g_bad_workers
        initial begin
            $error("Error: ws_judge %m: MAX_WORKERS must be 1..WS_LIMIT_WORKERS (MAX_WORKERS = %0d, WS_LIMIT_WORKERS = %0d)",
                   MAX_WORKERS, WS_LIMIT_WORKERS);
            $finish;
        end
    end
    if (POOL_SLOTS < 1 || POOL_SLOTS > WS_LIMIT_SLOTS) begin : g_bad_pool
        initial begin
            $error("Error: ws_judge %m: POOL_SLOTS must be 1..WS_LIMIT_SLOTS (POOL_SLOTS = %0d, WS_LIMIT_SLOTS = %0d)",
                   POOL_SLOTS, WS_LIMIT_SLOTS);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_judge %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Tokens, and with several engines the arrival order they are taken in.

localparam TF_W = 1 + HDR_W;
localparam TF_DEPTH = 32;
localparam EI_W = E > 1 ? $clog2(E) : 1;
wire [E-1:0]      tf_valid;
wire [E*TF_W-1:0] tf_data;
wire [E-1:0]      tf_pop;

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
        // the judge pops the tokens from a register slice: its pop does not reach into the
        // FIFO's pointers in the same cycle
        ws_skid #(.WIDTH(TF_W)) token_slice (
            .clk(clk), .rst(rst),
            .s_data(f_data), .s_valid(f_valid), .s_ready(f_ready),
            .m_data(tf_data[ge*TF_W +: TF_W]), .m_valid(tf_valid[ge]), .m_ready(tf_pop[ge])
        );
    end
endgenerate

wire            advance;       // the three stages move (below)
wire            j0_take;       // a token is popped
wire [EI_W-1:0] sel_e;         // the engine whose token is next in arrival order
wire            sel_any;       // there is one (its token may not be there yet)

generate
if (E == 1) begin : g_order_one
    assign sel_e = {EI_W{1'b0}};
    assign sel_any = 1'b1;
end else begin : g_order
    // the arrival records, one a cycle in which some frame became whole
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
    ws_skid #(.WIDTH(N_PORTS)) order_slice (
        .clk(clk), .rst(rst),
        .s_data(of_head), .s_valid(of_valid), .s_ready(of_ready),
        .m_data(ord_head), .m_valid(ord_valid), .m_ready(ord_pop)
    );
    // the head record's lowest port not yet served, and its engine
    reg  [N_PORTS-1:0] served;
    wire [N_PORTS-1:0] todo = ord_valid ? ord_head & ~served : {N_PORTS{1'b0}};
    reg  [N_PORTS-1:0] sel;
    reg  [EI_W-1:0]    sel_r;
    integer sp;
    /* verilator lint_off UNUSEDSIGNAL */  // an engine index: the low bits
    integer se0;
    /* verilator lint_on UNUSEDSIGNAL */
    always @(*) begin
        sel = {N_PORTS{1'b0}};
        sel_r = {EI_W{1'b0}};
        se0 = 0;
        for (sp = N_PORTS - 1; sp >= 0; sp = sp - 1) begin
            if (todo[sp]) begin
                sel = {{(N_PORTS-1){1'b0}}, 1'b1} << sp;
                se0 = sp / PPE;
                sel_r = se0[EI_W-1:0];
            end
        end
    end
    assign sel_e = sel_r;
    assign sel_any = todo != {N_PORTS{1'b0}};
    assign ord_pop = j0_take && (served | sel) == ord_head;
    always @(posedge clk) begin
        if (rst)
            served <= {N_PORTS{1'b0}};
        else if (j0_take)
            served <= (served | sel) == ord_head ? {N_PORTS{1'b0}} : served | sel;
    end
end
endgenerate

wire [TF_W-1:0] sel_tok = tf_data[sel_e*TF_W +: TF_W];
assign j0_take = advance && sel_any && tf_valid[sel_e];
assign tf_pop  = j0_take ? {{(E-1){1'b0}}, 1'b1} << sel_e : {E{1'b0}};

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
reg [Q_N*BZ_W-1:0] busy;        // reads of the set's rows still owed

reg [E*FC_W-1:0]   dec_cnt;     // decisions pushed per engine

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
// J0, JA, JB.

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

// JB: the verdict (docs/protocol.md section 5). Accept into a complete set only when no rank is
// left in it (then neither duplicate nor early), into an open one when neither a duplicate nor
// a mismatch.
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
// The round completes when every rank's bit is set, exactly as docs/protocol.md section 5 (and
// host/refdev.c) say. Not a count of the contributions still missing: an accepted frame clears
// its rank's bit in the other set even when that set is open, and the rank may then contribute
// to it again, so a count would complete the round early (found by tests/fuzz).
// The job's ranks 0 .. workers-1, one compare per bit (no carry chain).
reg  [MW-1:0]    all_w;
integer jk;
always @(*)
    for (jk = 0; jk < MW; jk = jk + 1)
        all_w[jk] = jk < b_workers;
wire s_empty    = jb_row == {MW{1'b0}};
wire d_dup      = (jb_row & bit_w) != {MW{1'b0}};
wire d_resend   = d_dup && jb_complete;
wire d_early    = !d_dup && jb_complete && !s_empty;
/* verilator lint_off UNUSEDSIGNAL */  // for the waveform: a drop that is neither of the two above
wire d_mismatch = !d_dup && !jb_complete &&
                  (b_offset != jb_offset || b_tensor != jb_tensor || b_count != jb_count);
/* verilator lint_on UNUSEDSIGNAL */
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
    end else if (advance) begin
        j0_v <= j0_take && sel_tok[TF_W-1];
        ja_v <= j0_v;
        jb_v <= ja_v;
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

assign dc_push = jb_fire ? bit_e : {E{1'b0}};
assign dc_data = {d_accept, d_first, d_last, jq};

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

// commands and completions of JB: a completion sends the round to every rank, a re-send to the
// rank that asked, with the round's fields as the set holds them
wire             j_resend = jb_fire && d_resend;
wire             j_comp   = jb_fire && d_last;
wire             j_cmd    = j_resend || j_comp;
// reads owed: per generator one per rank sent, and for a completion the round's write
wire [BZ_W-1:0]  j_busy_inc = d_last ? E[BZ_W-1:0] * {{(BZ_W-WC_W){1'b0}}, b_workers} + 1'b1 : E[BZ_W-1:0];
reg  [CMD_W-1:0] j_cmd_data;
always @(*) begin
    j_cmd_data = {CMD_W{1'b0}};
    j_cmd_data[C_Q +: Q_W]        = jq;
    j_cmd_data[C_JOBIDX +: JI_W]  = jb_h[H_JOBIDX +: JI_W];
    j_cmd_data[C_JOBID +: 16]     = jb_h[H_JOBID +: 16];
    j_cmd_data[C_SLOT +: 16]      = jb_h[H_SLOT +: 16];
    j_cmd_data[C_RETX]            = !d_last;
    if (d_last) begin
        j_cmd_data[C_OFFSET +: 32]   = b_offset;
        j_cmd_data[C_TENSOR +: 32]   = b_tensor;
        j_cmd_data[C_COUNT +: CN_W]  = b_count;
        j_cmd_data[C_ECN +: 2]       = d_ecn;
        j_cmd_data[C_RANK_LO +: WK_W] = {WK_W{1'b0}};
        j_cmd_data[C_RANK_HI +: WK_W] = b_workers[WK_W-1:0] - 1'b1;
    end else begin
        j_cmd_data[C_OFFSET +: 32]   = jb_offset;
        j_cmd_data[C_TENSOR +: 32]   = jb_tensor;
        j_cmd_data[C_COUNT +: CN_W]  = jb_count;
        j_cmd_data[C_ECN +: 2]       = jb_ecn;
        j_cmd_data[C_RANK_LO +: WK_W] = b_worker;
        j_cmd_data[C_RANK_HI +: WK_W] = b_worker;
    end
end
// the fence: every engine's decisions so far, this one included
reg  [E*FC_W-1:0] j_fence;
integer fe0;
always @(*) begin
    j_fence = dec_cnt;
    for (fe0 = 0; fe0 < E; fe0 = fe0 + 1)
        if (bit_e[fe0])
            j_fence[fe0*FC_W +: FC_W] = dec_cnt[fe0*FC_W +: FC_W] + 1'b1;
end

// K: the command and the completion are registered before their FIFOs
always @(posedge clk) begin
    k_cmd <= !rst && j_cmd;
    k_comp <= !rst && j_comp;
    k_cmd_data <= j_cmd_data;
    k_comp_data <= {jq, b_count, d_touched, j_fence};
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
// Read guard: per set, the reads still owed (the round's write, one per rank per generator).

// The events of a cycle are registered, then counted per set: a decrement reaches `busy` two
// cycles after it happened (a judgment may wait a cycle longer than it must), an increment too,
// and the judge sees the last two cycles' commands through ev_* and p_* (b_busy above).
reg              ev_o;
reg  [Q_W-1:0]   ev_oq;
reg  [E-1:0]     ev_fd, ev_sd;
reg  [E*Q_W-1:0] ev_fdq, ev_sdq;
reg  [BZ_W-1:0]  ev_ci;
always @(posedge clk) begin
    ev_o   <= !rst && rd_o;
    ev_oq  <= rd_oq;
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
localparam NR   = 2*E + 1;                 // retirement events a cycle: the round, E x (sent, skipped)
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
