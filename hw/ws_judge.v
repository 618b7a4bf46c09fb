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
//       round's fields, the engines that touched it in this round. On the way to JB the
//       compares over them are made (the rank's bit, an empty row, every rank's bit with this
//       one, the round's fields against the frame's) and registered with the rows.
//   JB  the verdict from those registers, the state updated, the decision pushed to the
//       frame's engine (dc_*), the command and the completion registered (k_*).
// A judgment that cannot go (no room in its engine's decision FIFO or in the command queues, or
// a write of rows still being read) waits in JB, and J0 and JA wait behind it. Every write
// of the state is JB's; when the stages move, JB's writes of that cycle are forwarded into the
// rows entering JA and JB, so no judgment reads a row behind an earlier one. While a job's sets
// are cleared nothing moves, and the clear is applied to the rows held in JA and JB as well.
// The read guard: per set, the reads of its rows still owed (the combine's or the lanes' write
// of the round, one per rank per result generator); a judgment that writes over them (a new
// round, or the parent's RESULT) waits while reads are owed, so no round overwrites rows that
// are still to be sent. Every other judgment goes on: a re-send of a complete round only reads
// its rows (its command queues behind the round's, and adds its own reads to the count), and a
// duplicate, early or mismatched frame writes nothing.
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
// reads owed per set: at most one completion's (a new round waits until none is owed: the
// round's write and one per rank per generator), and one per generator for each re-send of the
// round still on its way. Those are commands between JB and a generator's last read: the K
// register, ws_combine's queue (PD_DEPTH, 16) and in each generator its skid, its rank iterator
// and the DESC_DEPTH (5) frames it prepares (ws_result_gen): 24, and 3 more while a read
// retired reaches the count (below); CMD_HELD rounds that up.
localparam CMD_HELD  = 32;
localparam BZ_W      = $clog2(E * MW + 1 + E * CMD_HELD + 1);

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
    // the head record's ports not yet served, taken from the slice into a register of their own
    // (rem, 0 when none is held) so that the next port's select is a function of rem alone; its
    // lowest port is next, with its engine
    reg  [N_PORTS-1:0] rem;
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
            if (rem[sp]) begin
                sel = {{(N_PORTS-1){1'b0}}, 1'b1} << sp;
                se0 = sp / PPE;
                sel_r = se0[EI_W-1:0];
            end
        end
    end
    assign sel_e = sel_r;
    assign sel_any = rem != {N_PORTS{1'b0}};
    wire [N_PORTS-1:0] rem_after = j0_take ? rem & ~sel : rem;
    assign ord_pop = ord_valid && rem_after == {N_PORTS{1'b0}};
    always @(posedge clk) begin
        if (rst)
            rem <= {N_PORTS{1'b0}};
        else
            rem <= ord_pop ? ord_head : rem_after;
    end
end
endgenerate

wire [TF_W-1:0] sel_tok = tf_data[sel_e*TF_W +: TF_W];
assign j0_take = advance && sel_any && tf_valid[sel_e];
assign tf_pop  = j0_take ? {{(E-1){1'b0}}, 1'b1} << sel_e : {E{1'b0}};

// The token J0 takes when the stages move (t_v: there is one), and its engine. One engine: the
// head of its token slice. Several: JS, a register stage after the arrival order's pick, which
// moves with the other stages; J0's lookups by the token's set (its cleared bit, its set
// against JA's) then start from a register, not from a select over the engines' slices (a
// select, a 64-way mux of st_clr and its register's enable were 4 LUT levels and 6 MUXF at
// 512 bits with four engines, over the budget of docs/performance.md section 4).
wire            t_v;
wire [TF_W-1:0] t_tok;
wire [EI_W-1:0] t_e;
generate
if (E == 1) begin : g_js_none
    assign t_v   = sel_any && tf_valid[sel_e];
    assign t_tok = sel_tok;
    assign t_e   = sel_e;
end else begin : g_js
    reg            js_v;
    reg [TF_W-1:0] js_tok;
    reg [EI_W-1:0] js_e;
    always @(posedge clk) begin
        if (rst)
            js_v <= 1'b0;
        else if (advance)
            js_v <= j0_take;
        if (advance) begin
            js_tok <= sel_tok;
            js_e <= sel_e;
        end
    end
    assign t_v   = js_v;
    assign t_tok = js_tok;
    assign t_e   = js_e;
end
endgenerate

// ---------------------------------------------------------------------------------------
// Slot state, one entry per set q = 2*pool_slot + SET; a never-used set is complete and empty.
// JA reads a set's rows by its pool slot, JB writes one pool slot's rows (the set's and the
// other set's) a cycle. The rows and the round fields are distributed RAM (one write port,
// read asynchronously); what the job clear resets in one cycle is in flip-flops: the complete
// bits, and per pool slot a "cleared" bit under which its rows read as empty until JB writes
// them again.

localparam P_N  = 1 << PS_W;                     // pool slots addressable by a header
localparam FD_W = 32 + 32 + CN_W + MW + 2 + E;   // a set's round fields: offset, tensor, count, CE row, ECN, touched
reg [Q_N-1:0]      st_complete;
reg [Q_N-1:0]      st_wait;                      // waiting for the parent's RESULT (PARTIAL sent)
reg [P_N-1:0]      st_clr;                       // the pool slot's rows read as empty
reg [2*MW-1:0]     st_rows [0:P_N-1];            // per pool slot the bitmap rows of set 1 (high) and set 0
reg [FD_W-1:0]     st_fields [0:2*P_N-1];
reg [BZ_W-1:0]     busy [0:Q_N-1];  // reads of the set's rows still owed
reg [Q_N-1:0]      busy_nz;     // busy != 0, registered with it

reg [E*FC_W-1:0]   dec_cnt;     // decisions pushed per engine

// job clear range: registers of ws_regs; a pool slot is in it (each pool slot's constant
// number against it, below)
// (the range is an argument: a continuous assignment follows its arguments only)
function in_clr(input [PS_W-1:0] p, input [SL_W-1:0] base, input [SL_W:0] last1);
    reg [SL_W:0] q;
    begin
        q = {{(SL_W+1-PS_W){1'b0}}, p};
        in_clr = q >= {1'b0, base} && q < last1;
    end
endfunction
genvar gq;

// ---------------------------------------------------------------------------------------
// J0, JA, JB.

reg              j0_v, ja_v, jb_v;
reg              jb_new;       // JB was loaded in the cycle before
reg              bz_new, bz_hold; // reads owed at JB's set if JB was loaded, if it waited (below)
reg              bz_cmd;          // JB's command of the cycle before was at the set JB holds now
reg              ev_c;         // a command in the cycle before, with its set
reg  [Q_W-1:0]   ev_cq;
reg              ev_c2;        // ... two cycles before
reg  [Q_W-1:0]   ev_cq2;
reg              ab_eq, ab_oth; // JA's set is JB's set, JB's other set
reg              zb_eq, zb_oth; // J0's set is JB's set, JB's other set
reg  [EI_W-1:0]  j0_e, ja_e, jb_e;
reg  [HDR_W-1:0] j0_h, ja_h, jb_h;
reg              j0_clr_st;    // J0's pool slot's cleared bit as J0 was loaded (st_clr[z_p])
reg              j0_clr_wr;    // ... and JB wrote that pool slot in that cycle (then it is not)

// the set and its other set of a header
function [Q_W-1:0] hq;
    input [HDR_W-1:0] h;
    hq = {h[H_PSLOT +: PS_W], h[H_SET]};
endfunction
function [Q_W-1:0] hq_oth;
    input [HDR_W-1:0] h;
    hq_oth = {h[H_PSLOT +: PS_W], ~h[H_SET]};
endfunction
// the fields a frame must match in an open round, as st_fields holds them
function [63+CN_W:0] hf;
    /* verilator lint_off UNUSEDSIGNAL */  // the header's other fields
    input [HDR_W-1:0] h;
    /* verilator lint_on UNUSEDSIGNAL */
    hf = {h[H_OFFSET +: 32], h[H_TENSOR +: 32], h[H_COUNT +: CN_W]};
endfunction

// the rows held in JA and JB
reg              jb_complete;
// JB's judgment writes over the set's rows: a new round (its set complete and empty) or the
// parent's RESULT; found on the way from JA like the facts below, so the read guard's wait is
// one register bit (b_ok)
reg              jb_guard;
// JA's complete bit as stored and as JB wrote it in the cycle JA was loaded, with the choice:
// registered apart, so that the verdict (d_last) and the 128-way select each end in a register
reg              ja_cmp_st, ja_cmp_wr, ja_cmp_fw;
wire             ja_complete = ja_cmp_fw ? ja_cmp_wr : ja_cmp_st;
// ... and its waiting bit the same way (a job with a parent: its PARTIAL sent)
reg              ja_wt_st, ja_wt_wr, jb_waiting;
wire             ja_waiting = ja_cmp_fw ? ja_wt_wr : ja_wt_st;
reg  [MW-1:0]    ja_row, ja_row_oth;
reg  [MW-1:0]    jb_after;   // JB's set's row with the frame's rank: what JB writes, accepted
reg  [MW-1:0]    jb_oth;     // the other set's row without the frame's rank: what JB writes there
reg  [31:0]      ja_offset, ja_tensor, jb_offset, jb_tensor;
reg  [CN_W-1:0]  ja_count, jb_count;
reg  [1:0]       ja_ecn, jb_ecn;
reg  [MW-1:0]    ja_ce, jb_ce;     // the ranks whose contribution came marked CE
reg  [E-1:0]     ja_touched, jb_touched;
reg  [MW-1:0]    ja_bit, jb_bit;   // the frame's rank's bit
reg  [MW-1:0]    ja_need;          // the job's other ranks: 0 .. workers-1 but the frame's
// and JB's facts about its row and fields, found while the frame moved from JA (below). The
// facts over the row are found for each row JA's set can have in JB (_s: JB wrote it, _o: JB
// wrote it as its other set, _n: neither) and registered side by side with the choice (jb_fs,
// jb_fo), which JB makes (jb_dup, jb_empty, jb_full below): so the 64-bit reductions end in
// registers. With the choice made on the way to JB, a reduction and the select were one path of
// 4 LUT levels and 5 or 6 MUXF at 512 bits, over the budget of docs/performance.md section 4.
reg              jb_fs, jb_fo;
reg              jb_dup_s, jb_dup_o, jb_dup_n;    // the rank's bit is set
reg              jb_emp_s, jb_emp_o, jb_emp_n;    // no bit is set (a row JB wrote may be empty:
                                                  // the parent's RESULT writes no bit)
reg              jb_full_s, jb_full_o, jb_full_n; // with the rank's bit, every rank's is set
reg              jb_one;       // the rank's bit alone is every rank's (a job of one worker)
reg              jb_match;     // the frame's offset, tensor and count are the round's
// the fields a frame must match in an open round (hf, above), compared a stage ahead so that
// JB's match is an OR of register bits: JA's frame's fields XOR the round's as JA loaded them
// (zero: equal), and JA's frame's against JB's (equal when JB writes JA's set)
localparam MF_W = 64 + CN_W;
reg  [MF_W-1:0]  ja_fx;
reg              ab_fm;

// JB: the verdict (docs/protocol.md section 5). Accept into a complete set only when no rank is
// left in it (then neither duplicate nor early), into an open one when neither a duplicate nor
// a mismatch. The verdict is a few gates on JB's registers: the compares over the row and the
// fields were made on the way from JA (with JB's writes of that cycle forwarded).
wire [Q_W-1:0]   jq       = hq(jb_h);
wire [PS_W-1:0]  jp       = jb_h[H_PSLOT +: PS_W];
wire [WK_W-1:0]  b_worker  = jb_h[H_WORKER +: WK_W];
wire [CN_W-1:0]  b_count   = jb_h[H_COUNT +: CN_W];
wire [31:0]      b_offset  = jb_h[H_OFFSET +: 32];
wire [31:0]      b_tensor  = jb_h[H_TENSOR +: 32];
wire [1:0]       b_ecn     = jb_h[H_ECN +: 2];
wire [WC_W-1:0]  b_workers = jb_h[H_WORKERS +: WC_W];
wire [E-1:0]     bit_e     = {{(E-1){1'b0}}, 1'b1} << jb_e;
wire jb_dup     = jb_fs ? jb_dup_s : jb_fo ? jb_dup_o : jb_dup_n;
wire jb_empty   = jb_fs ? jb_emp_s : jb_fo ? jb_emp_o : jb_emp_n;
wire jb_full    = jb_fs ? jb_full_s : jb_fo ? jb_full_o : jb_full_n;
// A job with a parent (docs/protocol.md section 9): the set whose every rank's bit is set is
// complete here but not yet done: it is *waiting* for the parent's RESULT (its waiting bit set,
// its complete bit clear), and its exact sums have gone up in a PARTIAL. A bit of its own, not
// "the row is full": a rank that goes on to the other set clears its bit here, and the set
// still waits. It holds every rank's contribution, so every DATA or PARTIAL into it is a
// duplicate, the rank's bit set or not (sim/refdev.c). b_fan: the frame is that RESULT.
wire b_par      = jb_h[H_PARENT];
wire b_fan      = jb_h[H_FANOUT];
wire d_dup      = jb_dup || (!b_fan && jb_waiting);   // never for the parent's RESULT
wire s_empty    = jb_empty;
wire d_resend   = d_dup && jb_complete;                  // the RESULT again, to the rank
// waiting: the PARTIAL again, to the parent, for rank 0's duplicate alone (once a wave of the
// members' retransmissions, not once a member: docs/protocol.md section 9)
wire d_presend  = d_dup && jb_waiting && b_worker == {WK_W{1'b0}};
wire d_early    = !b_fan && !d_dup && jb_complete && !s_empty;
/* verilator lint_off UNUSEDSIGNAL */  // for the waveform: a drop that is neither of the two above
wire d_mismatch = !d_dup && !jb_complete && !jb_match;
/* verilator lint_on UNUSEDSIGNAL */
// the parent's RESULT is taken by the set waiting for it (its round's offset, tensor, count);
// by a complete set it is a duplicate, by any other a mismatch
wire d_fanout   = b_fan && jb_waiting && jb_match;
wire d_accept   = b_fan ? d_fanout : jb_complete ? s_empty : !d_dup && jb_match;
wire d_new      = !b_fan && jb_complete && s_empty;
// The round completes when every rank's bit is set, exactly as docs/protocol.md section 5 (and
// sim/refdev.c) say. Not a count of the contributions still missing: an accepted frame clears
// its rank's bit in the other set even when that set is open, and the rank may then contribute
// to it again, so a count would complete the round early (found by tests/fuzz; a waiting set
// takes no contribution again: d_dup). The parent's
// RESULT completes its round too: the lanes take its elements (as a first contribution: they
// round back to the same values) and the combine sends them to every rank.
wire d_last     = b_fan ? d_fanout : d_accept && (d_new ? jb_one : jb_full);
wire d_part     = !b_fan && b_par && d_last;             // the round's PARTIAL goes up
wire d_done     = d_last && !d_part;                     // the set's complete bit, written
// ... its waiting bit: set by a PARTIAL, cleared by the parent's RESULT (a waiting set takes
// nothing else)
wire d_wait     = d_part;
wire [MW-1:0] d_after   = jb_after;   // the set's row, written (a new round's row is empty)
wire [MW-1:0] d_oth     = jb_oth;     // the other set's row
wire [1:0]    d_ecn     = (d_new || b_fan ? 2'b00 : jb_ecn) | b_ecn;
// the CE row (docs/protocol.md section 7): a contribution marked CE sets its rank's bit; the
// parent's RESULT marked CE sets every rank's (this device's path was congested)
wire          b_ce      = b_ecn == 2'b11;
wire [MW-1:0] d_ce      = b_fan ? jb_ce | {MW{b_ce}}
                                : (d_new ? {MW{1'b0}} : jb_ce) | (b_ce ? jb_bit : {MW{1'b0}});
wire          d_first   = b_fan || d_new || !jb_touched[jb_e];
wire [E-1:0]  d_touched = (d_new || b_fan ? {E{1'b0}} : jb_touched) | bit_e;
// The read guard, from registers: "reads owed" of the set as read in the cycle before (at JA's
// set for JB loaded then, bz_new; at JB's own set for JB waiting, bz_hold), with the commands of
// the last two cycles, which that read does not hold yet (section "Read guard" below). A
// judgment that writes over the set's rows (jb_guard) waits while reads are owed: a new round
// would overwrite the rows still to be sent, and the parent's RESULT the lanes that a PARTIAL
// still owed (a re-send queued before it) reads. A re-send does not wait: with a duplicate in
// the input (a worker's copy right behind the frame that completed the round) the whole input
// would stop for as long as the round's RESULTs take to send. Every judgment waits for room
// for a command.
wire          b_busy    = bz_cmd || (jb_new ? bz_new : bz_hold);
wire          b_ok      = dc_space[jb_e] && cmd_space && !(jb_guard && b_busy);
wire          jb_fire   = jb_v && b_ok && !job_clear;
wire          b_wr      = jb_v && d_accept;   // JB's writes, forwarded (taken only when it fires)
assign advance = !job_clear && (!jb_v || b_ok);
// a command goes with the judgment: a completion (the RESULTs to every rank), a re-send (the
// RESULT to one), or a PARTIAL (the first or a re-send); all but the re-send of a RESULT go
// through the combine (k_comp): a round to round, or exact sums to encode
wire             j_resend = jb_fire && d_resend;
wire             c_part   = d_part || d_presend;
wire             j_comp   = jb_fire && (d_last || d_presend);
wire             j_cmd    = j_resend || j_comp;

// forwarding: the rows entering JA and JB with JB's writes of this cycle, by the sets' equality
// registered when the stages moved (ab_*, zb_*)
wire [Q_W-1:0] a_q   = hq(ja_h);
wire [Q_W-1:0] a_qo  = hq_oth(ja_h);
wire [Q_W-1:0] z_q   = hq(j0_h);
wire [PS_W-1:0] z_p  = j0_h[H_PSLOT +: PS_W];
wire           a_same = b_wr && ab_eq;    // JA's set is the one JB writes
// the read guard's looks at `busy_nz` in two steps of a cycle each (a 128-way select in one is
// over the 322 MHz budget): the group of 16 sets holding the set JA and JB will have next cycle,
// then the set's bit in it (bz_new, bz_hold). The group is a cycle older than `busy_nz`, so the
// commands of the last three cycles come in beside it (bz_cmd, ev_c, ev_c2); a read retired in
// that cycle is seen a cycle later (a judgment may wait longer than it must, never shorter).
localparam QG_LO = Q_W < 4 ? Q_W : 4;     // set bits of the second step
localparam QG_S  = 1 << QG_LO;            // sets a group
localparam QG_T  = 1 << Q_W;              // sets, padded to groups
wire [QG_T-1:0]  busy_pad;
generate if (QG_T > Q_N) begin : g_busy_pad
    assign busy_pad = {{(QG_T-Q_N){1'b0}}, busy_nz};
end else begin : g_busy_full
    assign busy_pad = busy_nz;
end endgenerate
wire [QG_S-1:0] g_z = busy_pad[(z_q >> QG_LO) * QG_S +: QG_S];   // J0's set's group
wire [QG_S-1:0] g_a = busy_pad[(a_q >> QG_LO) * QG_S +: QG_S];   // JA's
wire [QG_S-1:0] g_b = busy_pad[(jq >> QG_LO) * QG_S +: QG_S];    // JB's
reg  [QG_S-1:0] grp_a, grp_b;   // the group of JA's set, of JB's set, from the cycle before
wire           a_oth  = b_wr && ab_oth;   // ... is the other set of the one JB writes
wire           z_same = b_wr && zb_eq;    // J0's set is the one JB writes
wire           z_oth  = b_wr && zb_oth;
wire [PS_W-1:0] a_p   = ja_h[H_PSLOT +: PS_W];
// JA's and JB's pool slots in the range cleared (compared here, as each slot's in g_st)
wire           a_clr_q = in_clr(a_p, job_clear_base, job_clear_end);
wire           b_clr_q = in_clr(jp, job_clear_base, job_clear_end);

// JA: the rows of J0's pool slot (empty when cleared: j0_clr, below) and the set's fields, as
// stored
wire            j0_clr   = j0_clr_st && !j0_clr_wr;   // J0's pool slot reads as cleared
wire [2*MW-1:0] z_rows   = j0_clr ? {2*MW{1'b0}} : st_rows[z_p];
wire [MW-1:0]   z_row    = j0_h[H_SET] ? z_rows[MW +: MW] : z_rows[0 +: MW];
wire [MW-1:0]   z_row_o  = j0_h[H_SET] ? z_rows[0 +: MW] : z_rows[MW +: MW];
wire [FD_W-1:0] z_fields = st_fields[z_q];

// J0 -> JA: the rank's bit and the job's ranks as masks, one compare per bit (no carry chain)
wire [WK_W-1:0] z_worker  = j0_h[H_WORKER +: WK_W];
wire [WC_W-1:0] z_workers = j0_h[H_WORKERS +: WC_W];
// the parent's RESULT has no rank's bit: it finds the set waiting when every rank's bit is set
// ("full"), and it writes neither row
wire            z_fan     = j0_h[H_FANOUT];
// as a one-hot shift and a thermometer (the same gates as a compare per bit, which Verilator
// evaluates as MW compares a cycle); a shift by MW or more gives zero
wire [MW-1:0]   z_bit = z_fan ? {MW{1'b0}} : {{(MW-1){1'b0}}, 1'b1} << z_worker;
wire [MW-1:0]   z_all = ~({MW{1'b1}} << z_workers);

// JA -> JB: JB's facts, for each row JA's set can have in JB (JB writes it, JB writes it as its
// other set, or neither) side by side, chosen by JB's write at the end; each an AND or OR of
// per-bit terms of registers
// A row holds only ranks of its job (the parser drops a rank >= workers), so "every rank's bit"
// is "every bit of ja_need, and the frame's".
wire [MW-1:0]   a_bit     = ja_bit;
wire [MW-1:0]   a_need    = ja_need;
wire            f_dup_s   = (d_after & a_bit) != {MW{1'b0}};
wire            f_dup_o   = (d_oth & a_bit) != {MW{1'b0}};
wire            f_dup_n   = (ja_row & a_bit) != {MW{1'b0}};
wire            f_emp_s   = d_after == {MW{1'b0}};
wire            f_emp_o   = d_oth == {MW{1'b0}};
wire            f_emp_n   = ja_row == {MW{1'b0}};
wire            f_full_s  = (a_need & ~d_after) == {MW{1'b0}};
wire            f_full_o  = (a_need & ~d_oth) == {MW{1'b0}};
wire            f_full_n  = (a_need & ~ja_row) == {MW{1'b0}};
wire            f_match_s = ab_fm;
wire            f_match_n = ja_fx == {MF_W{1'b0}};

always @(posedge clk) begin
    if (rst) begin
        j0_v <= 1'b0;
        ja_v <= 1'b0;
        jb_v <= 1'b0;
    end else if (advance) begin
        j0_v <= t_v && t_tok[TF_W-1];
        ja_v <= j0_v;
        jb_v <= ja_v;
    end
end

always @(posedge clk) begin
    jb_new <= !rst && advance;
    // JB's command of this cycle, at the set JB holds next cycle (JA's if JB is loaded, its own
    // if it waits: a command means JB fired, so then JB is loaded), as a term of its own: ORed
    // after the register, it keeps the completion verdict off the 128-way select's path
    bz_cmd <= j_cmd && ab_eq;
    bz_new <= grp_a[a_q[QG_LO-1:0]] || (ev_c && ev_cq == a_q) || (ev_c2 && ev_cq2 == a_q);
    bz_hold <= grp_b[jq[QG_LO-1:0]] || (ev_c && ev_cq == jq) || (ev_c2 && ev_cq2 == jq);
    grp_a <= advance ? g_z : g_a;
    grp_b <= advance ? g_a : g_b;
    if (advance) begin
        ab_eq  <= z_q == a_q;
        ab_fm  <= hf(j0_h) == hf(ja_h);
        ab_oth <= z_q == a_qo;
        zb_eq  <= hq(t_tok[HDR_W-1:0]) == a_q;
        zb_oth <= hq(t_tok[HDR_W-1:0]) == a_qo;
        j0_e <= t_e;
        j0_h <= t_tok[HDR_W-1:0];
        // JA: read, forwarded
        ja_e <= j0_e;
        ja_h <= j0_h;
        ja_cmp_st   <= st_complete[z_q];
        ja_cmp_wr   <= d_done;
        ja_wt_st    <= st_wait[z_q];
        ja_wt_wr    <= d_wait;
        ja_cmp_fw   <= z_same;
        ja_row      <= z_same ? d_after : z_oth ? d_oth : z_row;
        ja_row_oth  <= z_oth ? d_after : z_same ? d_oth : z_row_o;
        ja_offset   <= z_same ? b_offset  : z_fields[FD_W-1 -: 32];
        ja_tensor   <= z_same ? b_tensor  : z_fields[FD_W-33 -: 32];
        ja_count    <= z_same ? b_count   : z_fields[E+2+MW +: CN_W];
        ja_ce       <= z_same ? d_ce      : z_fields[E+2 +: MW];
        ja_ecn      <= z_same ? d_ecn     : z_fields[E +: 2];
        ja_touched  <= z_same ? d_touched : z_fields[0 +: E];
        ja_fx       <= hf(j0_h) ^ (z_same ? hf(jb_h) : z_fields[FD_W-1 -: MF_W]);
        ja_bit      <= z_bit;
        ja_need     <= z_all & ~z_bit;
        // JB: JA's rows, forwarded, and the facts about them
        jb_e <= ja_e;
        jb_h <= ja_h;
        jb_complete <= a_same ? d_done : ja_complete;
        jb_waiting  <= a_same ? d_wait : ja_waiting;
        // complete and empty as JB will have it: JB's write of the set (a_same) leaves it empty
        // only for the parent's RESULT, which completes it (an accepted rank sets its bit);
        // otherwise the set's complete bit and its row, JB's write of the other set forwarded
        jb_guard    <= ja_h[H_FANOUT] ||
                       (a_same ? f_emp_s : ja_complete && (a_oth ? f_emp_o : f_emp_n));
        jb_after    <= (a_same ? d_after : a_oth ? d_oth : ja_row) | ja_bit;
        jb_oth      <= (a_oth ? d_after : a_same ? d_oth : ja_row_oth) & ~ja_bit;
        jb_offset   <= a_same ? b_offset  : ja_offset;
        jb_tensor   <= a_same ? b_tensor  : ja_tensor;
        jb_count    <= a_same ? b_count   : ja_count;
        jb_ecn      <= a_same ? d_ecn     : ja_ecn;
        jb_ce       <= a_same ? d_ce      : ja_ce;
        jb_touched  <= a_same ? d_touched : ja_touched;
        jb_bit      <= ja_bit;
        jb_dup_s    <= f_dup_s;
        jb_dup_o    <= f_dup_o;
        jb_dup_n    <= f_dup_n;
        jb_emp_s    <= f_emp_s;
        jb_emp_o    <= f_emp_o;
        jb_emp_n    <= f_emp_n;
        jb_full_s   <= f_full_s;
        jb_full_o   <= f_full_o;
        jb_full_n   <= f_full_n;
        jb_fs       <= a_same;
        jb_fo       <= a_oth;
        jb_match    <= a_same ? f_match_s : f_match_n;
        jb_one      <= a_need == {MW{1'b0}};
    end else if (job_clear) begin
        // the clear, on the rows held (as on the state below); a set and its other set are one
        // pool slot's
        if (a_clr_q) begin
            ja_cmp_wr <= 1'b1;
            ja_cmp_fw <= 1'b1;
            ja_wt_wr <= 1'b0;
            ja_row <= {MW{1'b0}};
            ja_row_oth <= {MW{1'b0}};
        end
        if (b_clr_q) begin
            jb_complete <= 1'b1;
            jb_guard <= 1'b1;   // complete and empty
            jb_waiting <= 1'b0;
            jb_after <= jb_bit;
            jb_oth <= {MW{1'b0}};
            jb_fs <= 1'b0;      // the row as read: empty, and the rank's bit not in it
            jb_fo <= 1'b0;
            jb_dup_n <= 1'b0;
            jb_emp_n <= 1'b1;
        end
    end
end

assign dc_push = jb_fire ? bit_e : {E{1'b0}};
assign dc_data = {d_accept, d_first, d_last, jq};

// the state: JB's writes, one pool slot's rows and one set's fields at a time; the clear
wire b_fw = jb_fire && d_accept;

// J0's cleared bit, registered so that JA's read of the rows does not wait for a select of
// st_clr by pool slot: looked up for the token J0 takes (st_clr by its pool slot), beside
// whether JB writes that pool slot in the cycle J0 is loaded (JB fires in a cycle the stages
// move exactly when it writes, b_wr), which clears the bit. Two registers, not one: the 64-way
// select of st_clr and JB's compare of pool slots are two paths. Kept while J0 holds: only a
// clear changes st_clr then (JB writes only when the stages move), and sets the bit if J0's
// slot is in range.
wire [PS_W-1:0] t_p     = t_tok[H_PSLOT +: PS_W];
wire            z_clr_q = in_clr(z_p, job_clear_base, job_clear_end);
always @(posedge clk) begin
    if (advance) begin
        j0_clr_st <= st_clr[t_p];
        j0_clr_wr <= b_wr && t_p == jp;
    end else if (job_clear && z_clr_q) begin
        j0_clr_st <= 1'b1;
        j0_clr_wr <= 1'b0;
    end
end
// a set's bits: a generate loop (a copy per set, as a loop in a block is to synthesis), so that
// the simulator indexes them by constants. Each pool slot's compare with the cleared range
// (in_clr of its constant number) and each set's with JB's are made only in a cycle that can
// change a bit (st_upd: a reset, a clear or a JB write), as a clock enable: Verilator then
// evaluates the Q_N sets' and P_N slots' logic only then, not every cycle.
wire st_upd = rst || job_clear || b_fw;
generate
    for (gq = 0; gq < Q_N; gq = gq + 1) begin : g_st
        localparam [Q_W-1:0]  QQ = gq;
        localparam integer    QI = gq / 2;   // its pool slot
        always @(posedge clk) begin
            if (st_upd) begin
                if (rst) begin
                    st_complete[gq] <= 1'b1;
                    st_wait[gq] <= 1'b0;
                end else if (job_clear && in_clr(QI[PS_W-1:0], job_clear_base, job_clear_end)) begin
                    st_complete[gq] <= 1'b1;
                    st_wait[gq] <= 1'b0;
                end else if (b_fw && jq == QQ) begin
                    st_complete[gq] <= d_done;   // a PARTIAL sent: waiting
                    st_wait[gq] <= d_wait;
                end
            end
        end
    end
endgenerate
integer q;
always @(posedge clk) begin
    if (rst) begin
        st_clr <= {P_N{1'b1}};
    end else if (job_clear || b_fw) begin
        for (q = 0; q < P_N; q = q + 1) begin
            if (job_clear && in_clr(q[PS_W-1:0], job_clear_base, job_clear_end))
                st_clr[q] <= 1'b1;
            else if (b_fw && jp == q[PS_W-1:0])
                st_clr[q] <= 1'b0;
        end
    end
end

always @(posedge clk) begin
    if (b_fw) begin
        st_rows[jp] <= jb_h[H_SET] ? {d_after, d_oth} : {d_oth, d_after};
        st_fields[jq] <= {d_new ? b_offset : jb_offset, d_new ? b_tensor : jb_tensor,
                          d_new ? b_count : jb_count, d_ce, d_ecn, d_touched};
    end
end
// commands and completions of JB: a completion sends the round to every rank, a re-send to the
// rank that asked, with the round's fields as the set holds them
// reads owed: per generator one per rank sent, and for a completion the round's write; for a
// PARTIAL the encoder's read of the lanes (the generators read the encoder's frame buffer)
/* verilator lint_off UNUSEDSIGNAL */  // at most E * MW + 1, BZ_W bits
wire [31:0]      j_busy32   = c_part ? 32'd1 : d_last ? E * {{(32-WC_W){1'b0}}, b_workers} + 1 : E;
/* verilator lint_on UNUSEDSIGNAL */
wire [BZ_W-1:0]  j_busy_inc = j_busy32[BZ_W-1:0];
reg  [CMD_W-1:0] j_cmd_data;
always @(*) begin
    j_cmd_data = {CMD_W{1'b0}};
    j_cmd_data[C_Q +: Q_W]        = jq;
    j_cmd_data[C_JOBIDX +: JI_W]  = jb_h[H_JOBIDX +: JI_W];
    j_cmd_data[C_JOBID +: 16]     = jb_h[H_JOBID +: 16];
    j_cmd_data[C_SLOT +: 16]      = jb_h[H_SLOT +: 16];
    j_cmd_data[C_RETX]            = !d_last;
    j_cmd_data[C_PART]            = c_part;   // its ext and checksum: the encoder's (ws_engine)
    if (d_last) begin
        j_cmd_data[C_OFFSET +: 32]   = b_offset;
        j_cmd_data[C_TENSOR +: 32]   = b_tensor;
        j_cmd_data[C_COUNT +: CN_W]  = b_count;
        j_cmd_data[C_ECN +: 2]       = d_ecn;
        j_cmd_data[C_CE +: MW]       = d_ce;
        j_cmd_data[C_RANK_LO +: WK_W] = {WK_W{1'b0}};
        j_cmd_data[C_RANK_HI +: WK_W] = c_part ? {WK_W{1'b0}} : b_workers[WK_W-1:0] - 1'b1;
    end else begin
        j_cmd_data[C_OFFSET +: 32]   = jb_offset;
        j_cmd_data[C_TENSOR +: 32]   = jb_tensor;
        j_cmd_data[C_COUNT +: CN_W]  = jb_count;
        j_cmd_data[C_ECN +: 2]       = jb_ecn;
        j_cmd_data[C_CE +: MW]       = jb_ce;
        j_cmd_data[C_RANK_LO +: WK_W] = c_part ? {WK_W{1'b0}} : b_worker;
        j_cmd_data[C_RANK_HI +: WK_W] = c_part ? {WK_W{1'b0}} : b_worker;
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

// the round's result RAM rows (its payload beats), for the combine's end of round
// (a PARTIAL re-sent: the round's count, not the duplicate's; and the engines of the round)
wire [CN_W-1:0]  m_count  = d_presend ? jb_count : b_count;
/* verilator lint_off UNUSEDSIGNAL */  // a frame has fewer than 2^BT_W beats
wire [31:0]      b_rows32 = (64 + 4*{{(32-CN_W){1'b0}}, m_count} + BYTES - 1) / BYTES - PAY_BEAT0;
/* verilator lint_on UNUSEDSIGNAL */
wire [BT_W-1:0]  b_rows   = b_rows32[BT_W-1:0];

// K: the command and the completion are registered before their FIFOs
always @(posedge clk) begin
    k_cmd <= !rst && j_cmd;
    k_comp <= !rst && j_comp;
    k_cmd_data <= j_cmd_data;
    k_comp_data <= {c_part, jq, m_count, b_rows, d_presend ? jb_touched : d_touched, j_fence};
end

integer se;
always @(posedge clk) begin
    stat_accepted <= rst ? {E{1'b0}} : (jb_fire && d_accept ? bit_e : {E{1'b0}});
    stat_drop <= rst ? {E{1'b0}} : (jb_fire && !d_accept ? bit_e : {E{1'b0}});
    stat_drop_reason <= {E{d_dup || (b_fan && jb_complete) ? WS_DROP_DUPLICATE :
                           (d_early ? WS_DROP_EARLY : WS_DROP_MISMATCH)}};
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

// The events of a cycle are registered, then counted per set: a decrement reaches `busy` three
// cycles after it happened (a judgment may wait longer than it must), an increment two, and the
// judge sees the last three cycles' commands through ev_c2, ev_c and j_cmd (bz_new, bz_hold
// and bz_cmd above).
reg              ev_o;
reg  [Q_W-1:0]   ev_oq;
reg  [E-1:0]     ev_fd, ev_sd;
reg  [E*Q_W-1:0] ev_fdq, ev_sdq;
reg  [BZ_W-1:0]  ev_ci;
reg  [Q_N-1:0]   ev_ch;     // ev_c, per set
// a decoder: the set's bit when the event is there. As a one-hot shift, not a compare per
// set: the same gates, which Verilator evaluates as a few word operations instead of Q_N
// compares a cycle, though events are rare
function [Q_N-1:0] dec;
    input         ev;
    input [Q_W-1:0] dq;
    dec = ev ? {{(Q_N-1){1'b0}}, 1'b1} << dq : {Q_N{1'b0}};   // no event: 0, dq unknown or not
endfunction
always @(posedge clk) begin
    ev_o   <= !rst && rd_o;
    ev_oq  <= rd_oq;
    ev_fd  <= rst ? {E{1'b0}} : frame_done;
    ev_fdq <= frame_done_q;
    ev_sd  <= rst ? {E{1'b0}} : skip_done;
    ev_sdq <= skip_done_q;
    ev_c   <= !rst && j_cmd;
    ev_cq  <= jq;
    ev_c2  <= !rst && ev_c;
    ev_cq2 <= ev_cq;
    ev_ch  <= dec(!rst && j_cmd, jq);
    ev_ci  <= j_busy_inc;
end

// Then the retirements are matched with each set (registered: m_dn), counted without carry
// chains (full adders on the match bits, registered: n_dn) and subtracted; a command's increment
// is added from ev_* directly. m_dn and n_dn are held as rows of Q_N bits, a set a column (m_dn:
// a row per event; n_dn: a row per bit of the count), so that the matches are decoders and the
// full adders work on whole rows: the same gates per set as a column at a time, in a few word
// operations for the simulator.
localparam NR   = 2*E + 1;                 // retirement events a cycle: the round, E x (sent, skipped)
localparam DN_W = $clog2(NR + 1);
reg [NR*Q_N-1:0] m_dn;                     // event k of set q at k*Q_N + q
integer bg;
always @(posedge clk) begin
    m_dn[0 +: Q_N] <= dec(ev_o, ev_oq);
    for (bg = 0; bg < E; bg = bg + 1) begin
        m_dn[(1 + 2*bg)*Q_N +: Q_N] <= dec(ev_fd[bg], ev_fdq[bg*Q_W +: Q_W]);
        m_dn[(2 + 2*bg)*Q_N +: Q_N] <= dec(ev_sd[bg], ev_sdq[bg*Q_W +: Q_W]);
    end
end

// per set, the ones among its NR bits (x: a row per event) in DN_W rows (bit d of set q's at
// d*Q_N + q): up to 9, a tree of full adders on the rows; more, an add per bit of each set
function [DN_W*Q_N-1:0] ones;
    input [NR*Q_N-1:0] x;
    reg   [9*Q_N-1:0]  y;
    reg   [Q_N-1:0]    s0, c0, s1, c1, s2, c2, b0, k1, t, k2, k3;
    /* verilator lint_off UNUSEDSIGNAL */  // DN_W of its 4 rows
    reg   [4*Q_N-1:0]  o4;
    /* verilator lint_on UNUSEDSIGNAL */
    reg   [DN_W-1:0]   n;
    integer            i, k;
    begin
        if (NR <= 9) begin
            y = {9*Q_N{1'b0}};
            y[NR*Q_N-1:0] = x;
            s0 = y[0*Q_N +: Q_N] ^ y[1*Q_N +: Q_N] ^ y[2*Q_N +: Q_N];
            c0 = (y[0*Q_N +: Q_N] & y[1*Q_N +: Q_N]) | (y[0*Q_N +: Q_N] & y[2*Q_N +: Q_N]) |
                 (y[1*Q_N +: Q_N] & y[2*Q_N +: Q_N]);
            s1 = y[3*Q_N +: Q_N] ^ y[4*Q_N +: Q_N] ^ y[5*Q_N +: Q_N];
            c1 = (y[3*Q_N +: Q_N] & y[4*Q_N +: Q_N]) | (y[3*Q_N +: Q_N] & y[5*Q_N +: Q_N]) |
                 (y[4*Q_N +: Q_N] & y[5*Q_N +: Q_N]);
            s2 = y[6*Q_N +: Q_N] ^ y[7*Q_N +: Q_N] ^ y[8*Q_N +: Q_N];
            c2 = (y[6*Q_N +: Q_N] & y[7*Q_N +: Q_N]) | (y[6*Q_N +: Q_N] & y[8*Q_N +: Q_N]) |
                 (y[7*Q_N +: Q_N] & y[8*Q_N +: Q_N]);
            b0 = s0 ^ s1 ^ s2;       k1 = (s0 & s1) | (s0 & s2) | (s1 & s2);   // weight 2
            t  = c0 ^ c1 ^ c2;       k2 = (c0 & c1) | (c0 & c2) | (c1 & c2);   // weight 2, 4
            k3 = k1 & t;                                                      // weight 4
            o4 = {k2 & k3, k2 ^ k3, k1 ^ t, b0};
            ones = o4[DN_W*Q_N-1:0];
        end else begin
            ones = {DN_W*Q_N{1'b0}};
            for (k = 0; k < Q_N; k = k + 1) begin
                n = {DN_W{1'b0}};
                for (i = 0; i < NR; i = i + 1)
                    n = n + {{(DN_W-1){1'b0}}, x[i*Q_N + k]};
                for (i = 0; i < DN_W; i = i + 1)
                    ones[i*Q_N + k] = n[i];
            end
        end
    end
endfunction

// busy_nz: "reads owed" of each set as a bit of its own, so that the read guard's looks at JA's
// and JB's sets (bz_new, bz_hold) select one bit, not a count
reg [DN_W*Q_N-1:0] n_dn;
always @(posedge clk)
    n_dn <= rst ? {DN_W*Q_N{1'b0}} : ones(m_dn);

// each set's count, a generate loop (a copy per set, as a loop in a block is to synthesis): the
// simulator then indexes by constants. Loaded only in a cycle with a retirement or a command
// (bz_upd; else every count stays, and busy_nz, registered from the same value, with it): the
// same registers with a clock enable, and Verilator evaluates the Q_N subtractions only then.
wire bz_upd = rst || (|n_dn) || (|ev_ch);
// set qi's retirements of the cycle, from its column of n_dn
function [BZ_W-1:0] dn_of(input integer qi);
    integer d;
    begin
        dn_of = {BZ_W{1'b0}};
        for (d = 0; d < DN_W && d < BZ_W; d = d + 1)
            dn_of[d] = n_dn[d*Q_N + qi];
    end
endfunction
generate
    for (gq = 0; gq < Q_N; gq = gq + 1) begin : g_busy
        always @(posedge clk)
            if (bz_upd) begin
                busy[gq] <= rst ? {BZ_W{1'b0}}
                                : busy[gq] - dn_of(gq) + (ev_ch[gq] ? ev_ci : {BZ_W{1'b0}});
                busy_nz[gq] <= !rst &&
                               busy[gq] - dn_of(gq) + (ev_ch[gq] ? ev_ci : {BZ_W{1'b0}}) != {BZ_W{1'b0}};
            end
    end
endgenerate

endmodule

`resetall
