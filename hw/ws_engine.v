// ws_engine - slot state, duplicate/early/mismatch judgement and the exact accumulator lanes.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The input goes through a register slice (ws_skid), so the engine's ready to the parser is a
// register. One frame is judged in three cycles from its first beat (docs/protocol.md section
// 5; J1 reads the set's state, J1B compares, J2 decides and updates the slot state), and the
// next frame's first beat is not taken before the update, so it sees the new state even in the
// same set.
// The payload beats drive LANES exact accumulator lanes (ws_acc_lane); the rounded sums of a
// completing frame land in the result RAM and in the round's payload checksum. Commands to
// the result generator leave in frame order: a re-send at once, a completion once its last
// rounded sum is written.
module ws_engine #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count
    parameter ACC_W       = 277 + (MAX_WORKERS > 1 ? $clog2(MAX_WORKERS) : 1) + 1  // accumulator bits
) (
    input  wire                     clk,
    input  wire                     rst,

    // aggregation frames that passed checks 1..12 (ws_parser), header held on every beat
    input  wire [DATA_WIDTH-1:0]    s_agg_tdata,
    input  wire [DATA_WIDTH/8-1:0]  s_agg_tkeep,
    input  wire                     s_agg_tvalid,
    output wire                     s_agg_tready,
    input  wire                     s_agg_tlast,
    input  wire [HDR_W-1:0]         s_agg_hdr,

    // job (re)configuration: clear the job's slot range
    input  wire                     job_clear,
    input  wire [SL_W-1:0]          job_clear_base,   // the job's slot range, with the pulse
    input  wire [SL_W:0]            job_clear_end,    // (one past its last slot)

    // commands to the result generator
    output wire                     cmd_valid,
    input  wire                     cmd_ready,
    output wire [Q_W-1:0]           cmd_q,
    output wire [JI_W-1:0]          cmd_job_idx,
    output wire [15:0]              cmd_job_id,
    output wire [15:0]              cmd_slot,
    output wire [31:0]              cmd_offset,
    output wire [31:0]              cmd_tensor,
    output wire [CN_W-1:0]          cmd_count,
    output wire [1:0]               cmd_ecn,
    output wire [15:0]              cmd_csum,
    output wire [WK_W-1:0]          cmd_rank_lo,
    output wire [WK_W-1:0]          cmd_rank_hi,
    output wire                     cmd_retx,
    input  wire                     frame_done,   // the result generator has read a frame's rows

    // result RAM read port (registered: data the cycle after the address)
    input  wire [RA_W-1:0]          res_rd_addr,
    output reg  [DATA_WIDTH-1:0]    res_rd_data,

    // one pulse per judged frame
    output reg                      stat_accepted,
    output reg                      stat_drop,
    output reg  [ws_regmap::WS_REASON_W-1:0] stat_drop_reason
);

import ws_regmap::*;  // WS_DROP_* (the reasons of driver/wiresum/reasons.h), WS_REASON_W

`include "ws_widths.vh"   // BYTES, LANES, JI_W, WK_W, ..., Q_N, Q_W, PAY_BEAT0, PAY_BEATS, RDEPTH, RA_W, BT_W
`include "ws_agg_hdr.vh"  // H_* positions of the header sideband, HDR_W

// parameters: the limits of driver/wiresum/config.h (WS_LIMIT_*)
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_engine %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)", DATA_WIDTH);
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
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_engine %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Slot state, one entry per set q = 2*pool_slot + SET; a never-used set is complete and empty.

// complete flags and bitmaps are vectors, not arrays, so a job's range can be cleared at once
reg [Q_N-1:0]    st_complete;
reg [Q_N*MAX_WORKERS-1:0] st_bitmap;
reg [Q_N-1:0]    st_empty;   // the set's bitmap is all zeros (kept, so the judge reads one bit)
reg [31:0]       st_offset   [0:Q_N-1];
reg [31:0]       st_tensor   [0:Q_N-1];
reg [CN_W-1:0]   st_count    [0:Q_N-1];
reg [1:0]        st_ecn      [0:Q_N-1];

// The input register slice: every input of the judgement and the lanes below is a register.
localparam SK_W = DATA_WIDTH + DATA_WIDTH/8 + 1 + HDR_W;
wire [DATA_WIDTH-1:0]   a_tdata;
/* verilator lint_off UNUSEDSIGNAL */  // elements are whole: one keep bit per lane decides
wire [DATA_WIDTH/8-1:0] a_tkeep;
/* verilator lint_on UNUSEDSIGNAL */
wire                    a_tvalid, a_tready, a_tlast;
wire [HDR_W-1:0]        a_hdr;
ws_skid #(.WIDTH(SK_W)) in_slice (
    .clk(clk), .rst(rst),
    .s_data({s_agg_tdata, s_agg_tkeep, s_agg_tlast, s_agg_hdr}), .s_valid(s_agg_tvalid),
    .s_ready(s_agg_tready),
    .m_data({a_tdata, a_tkeep, a_tlast, a_hdr}), .m_valid(a_tvalid), .m_ready(a_tready)
);

// the frame at the input
wire [JI_W-1:0]  h_job_idx = a_hdr[H_JOBIDX +: JI_W];
wire [15:0]      h_job_id  = a_hdr[H_JOBID +: 16];
wire [PS_W-1:0]  h_pslot   = a_hdr[H_PSLOT +: PS_W];
wire [15:0]      h_slot    = a_hdr[H_SLOT +: 16];
wire             h_set     = a_hdr[H_SET];
wire [WK_W-1:0]  h_worker  = a_hdr[H_WORKER +: WK_W];
wire [CN_W-1:0]  h_count   = a_hdr[H_COUNT +: CN_W];
wire [31:0]      h_offset  = a_hdr[H_OFFSET +: 32];
wire [31:0]      h_tensor  = a_hdr[H_TENSOR +: 32];
wire [1:0]       h_ecn     = a_hdr[H_ECN +: 2];
wire [WC_W-1:0]  h_workers = a_hdr[H_WORKERS +: WC_W];

wire [Q_W-1:0]   h_q      = {h_pslot, h_set};
wire [Q_W-1:0]   h_q_oth  = {h_pslot, ~h_set};

reg in_first;  // the next input beat is a frame's first
wire in_fire = a_tvalid && a_tready;
wire take    = in_fire && in_first;   // stage J1: a frame's first beat is taken

always @(posedge clk) begin
    if (rst)
        in_first <= 1'b1;
    else if (in_fire)
        in_first <= a_tlast;
end

// The judgement takes three cycles. J1, the cycle the first beat is taken: the set's state is
// read (a row of the bitmaps, the round's fields: muxes by the set number) into registers. J1B:
// the reads are reduced to a few bits (the rank's bit, the completion, the compares), into
// registers (j_*). J2: the verdict from those bits, the state updated, the commands queued. No
// first beat is taken in a J1B or J2 cycle (a frame of one or two beats then takes three
// cycles), nor while a job's sets are cleared, so the state J1 reads is never behind an update.

// J1: reads
wire [MAX_WORKERS-1:0] bit_w = {{(MAX_WORKERS-1){1'b0}}, 1'b1} << h_worker;
wire [MAX_WORKERS-1:0] s_bitmap = st_bitmap[h_q*MAX_WORKERS +: MAX_WORKERS];
wire [MAX_WORKERS-1:0] s_bitmap_oth = st_bitmap[h_q_oth*MAX_WORKERS +: MAX_WORKERS];
// The round completes when every rank's bit is set, exactly as docs/protocol.md section 5 (and
// host/refdev.c) say. Not a count of the contributions still missing: an accepted frame clears
// its rank's bit in the other set even when that set is open, and the rank may then contribute
// to it again, so a count would complete the round early (found by tests/fuzz).
// the job's ranks 0 .. h_workers-1, one compare per bit (a shift and subtract would be a
// MAX_WORKERS-bit carry chain in front of the completion)
reg [MAX_WORKERS-1:0] all_w;
integer r;
always @(*) begin
    for (r = 0; r < MAX_WORKERS; r = r + 1)
        all_w[r] = r < h_workers;
end

reg                    j1b, j2;            // the frame taken one, two cycles ago is in J1B, J2
reg [Q_W-1:0]          j_q;
reg [Q_N-1:0]          j_q_hot;            // j_q decoded in J1, so J2 writes the state without a decoder
reg [JI_W-1:0]         j_job_idx;
reg [15:0]             j_job_id, j_slot;
reg [WK_W-1:0]         j_worker;
reg [WC_W-1:0]         j_workers;
reg [CN_W-1:0]         j_count;
reg [31:0]             j_offset, j_tensor;
reg [1:0]              j_ecn;
reg [BT_W-1:0]         j_beats;
reg [MAX_WORKERS-1:0]  j_bit_w, j_all_w;
reg [MAX_WORKERS-1:0]  j_row, j_row_oth;   // the set's and its other set's bitmap (J1)
reg                    j_complete, j_empty, j_one;
reg [31:0]             j_st_offset, j_st_tensor;
reg [CN_W-1:0]         j_st_count;
reg [1:0]              j_st_ecn;
// J1B
reg [MAX_WORKERS-1:0]  j_or, j_oth_after;
reg                    j_dup, j_full, j_oth_empty;
reg  [2:0]             j_mm_f;             // {offset, tensor, count} differ from the set's round
/* verilator lint_off UNUSEDSIGNAL */  // a frame has fewer than 2^BT_W beats
wire [31:0]            h_beats32 = (64 + 4*{{(32-CN_W){1'b0}}, h_count} + BYTES - 1) / BYTES - PAY_BEAT0;
/* verilator lint_on UNUSEDSIGNAL */

// J1B: the rank added to the set's row, and removed from the other set's
wire [MAX_WORKERS-1:0] jb_or  = j_row | j_bit_w;
wire [MAX_WORKERS-1:0] jb_oth = j_row_oth & ~j_bit_w;

always @(posedge clk) begin
    j1b <= !rst && take;
    j2 <= !rst && j1b;
    if (take) begin
        j_q <= h_q;
        j_q_hot <= {{(Q_N-1){1'b0}}, 1'b1} << h_q;
        j_job_idx <= h_job_idx;
        j_job_id <= h_job_id;
        j_slot <= h_slot;
        j_worker <= h_worker;
        j_workers <= h_workers;
        j_count <= h_count;
        j_offset <= h_offset;
        j_tensor <= h_tensor;
        j_ecn <= h_ecn;
        j_beats <= h_beats32[BT_W-1:0];
        j_bit_w <= bit_w;
        j_all_w <= all_w;
        j_row <= s_bitmap;
        j_row_oth <= s_bitmap_oth;
        j_complete <= st_complete[h_q];
        j_empty <= st_empty[h_q];
        j_one <= h_workers == {{(WC_W-1){1'b0}}, 1'b1};  // a new round of one rank completes at once
        j_st_offset <= st_offset[h_q];
        j_st_tensor <= st_tensor[h_q];
        j_st_count <= st_count[h_q];
        j_st_ecn <= st_ecn[h_q];
    end
    if (j1b) begin
        j_dup <= |(j_row & j_bit_w);                   // the rank's bit
        j_or <= jb_or;
        j_full <= jb_or == j_all_w;                     // completes the open round
        j_oth_after <= jb_oth;                          // the rank leaves the other set
        j_oth_empty <= jb_oth == {MAX_WORKERS{1'b0}};
        // one compare a field; J2 ORs the three
        j_mm_f <= {j_offset != j_st_offset, j_tensor != j_st_tensor, j_count != j_st_count};
    end
end

// J2: the verdict (docs/protocol.md section 5). Accept into a complete set only when no rank is
// left in it (then neither duplicate nor early), into an open one when neither a duplicate nor
// a mismatch.
wire d_dup      = j_dup;
wire d_resend   = j_dup && j_complete;
wire d_early    = !j_dup && j_complete && !j_empty;
wire j_mm       = |j_mm_f;   // the frame's round fields differ from the set's
/* verilator lint_off UNUSEDSIGNAL */  // for the waveform: a drop that is neither of the two above
wire d_mismatch = !j_dup && !j_complete && j_mm;
/* verilator lint_on UNUSEDSIGNAL */
wire d_accept   = j_complete ? j_empty : !j_dup && !j_mm;
wire d_new      = j_complete && j_empty;
wire d_last     = d_accept && (d_new ? j_one : j_full);
wire [MAX_WORKERS-1:0] d_after = d_new ? j_bit_w : j_or;
wire [1:0] d_ecn = (d_new ? 2'b00 : j_st_ecn) | j_ecn;
wire judge      = j2;                       // a frame's verdict (the waveform's marker)
wire upd        = j2 && d_accept;           // the state changes

// job clear range: registers of ws_regs (held from the pulse to the next commit), compared
// with each set's constant slot number, each bound in a register of its own, then ANDed
reg [Q_N-1:0]   clr_ge, clr_lt;   // set q is at or above the base, below the end
reg [Q_N-1:0]   clr_hit_r;        // set q belongs to the job being cleared
genvar gq;
generate
    for (gq = 0; gq < Q_N; gq = gq + 1) begin : g_clr
        localparam [SL_W:0] QS = gq / 2;
        always @(posedge clk) begin
            clr_ge[gq] <= QS >= {1'b0, job_clear_base};
            clr_lt[gq] <= QS < job_clear_end;
        end
    end
endgenerate

// The bounds are compared in the cycle of job_clear, ANDed in the next (clr_go1), and the sets
// cleared in the one after (clr_go). No frame is taken in any of the three cycles, and J2 is two
// cycles after a take, so no J2 meets the clear: a frame taken before job_clear comes before the
// commit, one taken after sees the sets cleared.
reg             clr_go1, clr_go;
always @(posedge clk) begin
    clr_go1 <= !rst && job_clear;
    clr_go <= !rst && clr_go1;
    clr_hit_r <= clr_ge & clr_lt;
end

integer q;
always @(posedge clk) begin
    if (rst) begin
        st_complete <= {Q_N{1'b1}};
        st_bitmap <= {Q_N*MAX_WORKERS{1'b0}};
        st_empty <= {Q_N{1'b1}};
    end else if (clr_go) begin
        for (q = 0; q < Q_N; q = q + 1) begin
            if (clr_hit_r[q]) begin
                st_complete[q] <= 1'b1;
                st_bitmap[q*MAX_WORKERS +: MAX_WORKERS] <= {MAX_WORKERS{1'b0}};
                st_empty[q] <= 1'b1;
            end
        end
    end else if (upd) begin
        // the frame's set and its other set (q ^ 1), by the decoded j_q
        for (q = 0; q < Q_N; q = q + 1) begin
            if (j_q_hot[q]) begin
                st_bitmap[q*MAX_WORKERS +: MAX_WORKERS] <= d_after;
                st_empty[q] <= 1'b0;            // d_after holds the rank's bit
                st_complete[q] <= d_last;
            end
            if (j_q_hot[q ^ 1]) begin
                st_bitmap[q*MAX_WORKERS +: MAX_WORKERS] <= j_oth_after;
                st_empty[q] <= j_oth_empty;
            end
        end
    end
end

always @(posedge clk) begin
    if (upd) begin
        st_ecn[j_q] <= d_ecn;
        if (d_new) begin
            st_offset[j_q] <= j_offset;
            st_tensor[j_q] <= j_tensor;
            st_count[j_q] <= j_count;
        end
    end
end

always @(posedge clk) begin
    stat_accepted <= !rst && judge && d_accept;
    stat_drop <= !rst && judge && !d_accept;
    stat_drop_reason <= d_dup ? WS_DROP_DUPLICATE : (d_early ? WS_DROP_EARLY : WS_DROP_MISMATCH);
end

// ---------------------------------------------------------------------------------------
// Payload beats into the lanes, two cycles after they are taken (stages P and L): a frame's
// first beat reaches L in its J2 cycle, with its verdict; later beats find the verdict held (f_*).

reg              f_accept, f_new, f_last;   // the frame's verdict, held after J2
reg [Q_W-1:0]    f_q;
reg [BT_W-1:0]   f_beat;                    // beat index within the frame (of the next beat)

reg                  p_fire, p_first, l_fire, l_first;
reg [BT_W-1:0]       p_beat, l_beat;
reg [DATA_WIDTH-1:0] p_data, l_data;
reg [LANES-1:0]      p_keep, l_keep;        // one keep bit per lane: elements are whole

integer k;
always @(posedge clk) begin
    if (j2) begin
        f_accept <= d_accept;
        f_new <= d_new;
        f_last <= d_last;
        f_q <= j_q;
    end
    if (rst)
        f_beat <= {BT_W{1'b0}};
    else if (in_fire)
        f_beat <= a_tlast ? {BT_W{1'b0}} : f_beat + 1'b1;
    p_fire <= !rst && in_fire;
    p_first <= in_first;
    p_beat <= in_first ? {BT_W{1'b0}} : f_beat;
    p_data <= a_tdata;
    for (k = 0; k < LANES; k = k + 1)
        p_keep[k] <= a_tkeep[4*k];
    l_fire <= !rst && p_fire;
    l_first <= p_first;
    l_beat <= p_beat;
    l_data <= p_data;
    l_keep <= p_keep;
end

wire          b_accept = l_first ? d_accept : f_accept;   // l_fire && l_first: the J2 cycle
wire          b_new    = l_first ? d_new : f_new;
wire          b_last   = l_first ? d_last : f_last;
wire [Q_W-1:0] b_q     = l_first ? j_q : f_q;
wire [BT_W-1:0] b_beat = l_beat;
wire          b_pay;       // past the header beats (every beat is at 1024 bits)
generate
    if (PAY_BEAT0 == 0) begin : g_pay_all
        assign b_pay = 1'b1;
    end else begin : g_pay_after
        assign b_pay = b_beat >= PAY_BEAT0[BT_W-1:0];
    end
endgenerate
wire [BT_W-1:0] b_rel  = b_beat - PAY_BEAT0[BT_W-1:0];
wire [RA_W-1:0] b_addr = {{(RA_W-Q_W){1'b0}}, b_q} * PAY_BEATS[RA_W-1:0] + {{(RA_W-BT_W){1'b0}}, b_rel};

wire [LANES-1:0]    lo_valid;
wire [LANES*RA_W-1:0] lo_addr;
wire [LANES*32-1:0] lo_result;

genvar l;
generate
    for (l = 0; l < LANES; l = l + 1) begin : g_lane
        // a lane carries an element when its bytes are in the frame and past the header
        wire in_elem = l_keep[l] && (b_beat != 0 || 4*l >= 64);
        wire [31:0] w = l_data[l*32 +: 32];
        ws_acc_lane #(.ACC_W(ACC_W), .DEPTH(RDEPTH), .ADDR_W(RA_W)) lane (
            .clk(clk), .rst(rst),
            .in_valid(l_fire && b_accept && b_pay && in_elem),
            .in_addr(b_addr),
            .in_value({w[7:0], w[15:8], w[23:16], w[31:24]}),  // big-endian on the wire
            .in_first(b_new), .in_last(b_last),
            .out_valid(lo_valid[l]), .out_addr(lo_addr[l*RA_W +: RA_W]),
            .out_result(lo_result[l*32 +: 32]),
            .raw_addr({RA_W{1'b0}}),
            /* verilator lint_off PINCONNECTEMPTY */  // no replica read port (RD_PORT = 0)
            .raw_data()
            /* verilator lint_on PINCONNECTEMPTY */
        );
    end
endgenerate

// The lanes' rounded outputs, one register stage on (stage R), with "any lane" as a register of
// its own: the round's end (o_done) and the pop of its entry are then a compare and a few gates
// behind registers, not behind an OR of every lane's valid.
reg  [LANES-1:0]      r_valid;
reg  [LANES*RA_W-1:0] r_addr;
reg  [LANES*32-1:0]   r_result;
reg                   out_beat;    // an output beat of a round (any r_valid)
always @(posedge clk) begin
    r_valid <= rst ? {LANES{1'b0}} : lo_valid;
    out_beat <= !rst && |lo_valid;
    r_addr <= lo_addr;
    r_result <= lo_result;
end

// ---------------------------------------------------------------------------------------
// Result RAM: one 32-bit word per lane and row, written by the lanes' rounded outputs.

generate
    for (l = 0; l < LANES; l = l + 1) begin : g_res
        reg [31:0] mem [0:RDEPTH-1];
        always @(posedge clk) begin
            if (r_valid[l])
                mem[r_addr[l*RA_W +: RA_W]] <= r_result[l*32 +: 32];
            res_rd_data[l*32 +: 32] <= mem[res_rd_addr];
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Payload checksum of a completing round, from its rounded sums as they come out.

// completions in flight: how many output beats each still owes
localparam CQ_DEPTH = 16;
wire             cq_s_ready, cq_m_valid;
wire [BT_W-1:0]  cq_m_beats;
wire [Q_W-1:0]   o_q;
reg  [BT_W-1:0]  o_nth;    // the round's output beat now is its o_nth (from 1): no add before the compare
wire             o_done = out_beat && cq_m_valid && o_nth == cq_m_beats;

ws_fifo #(.WIDTH(Q_W + BT_W), .DEPTH(CQ_DEPTH)) completion_fifo (
    .clk(clk), .rst(rst),
    .s_data({j_q, j_beats}), .s_valid(j2 && d_last), .s_ready(cq_s_ready),
    .m_data({o_q, cq_m_beats}), .m_valid(cq_m_valid), .m_ready(o_done),
    /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
    .count()
    /* verilator lint_on PINCONNECTEMPTY */
);

always @(posedge clk) begin
    if (rst)
        o_nth <= {{(BT_W-1){1'b0}}, 1'b1};
    else if (out_beat)
        o_nth <= o_done ? {{(BT_W-1){1'b0}}, 1'b1} : o_nth + 1'b1;
end

// the checksums of complete rounds: in order for the commands, per set for re-sends
wire             dq_s_ready, dq_m_valid;
wire [15:0]      dq_m_csum, rs_csum;
wire             dq_pop;
wire [Q_W-1:0]   p_q;
ws_round_csum #(.LANES(LANES), .Q_N(Q_N), .Q_W(Q_W), .DEPTH(CQ_DEPTH)) round_csum (
    .clk(clk), .rst(rst),
    .beat(out_beat), .mask(r_valid), .words(r_result), .last(o_done), .q(o_q),
    .s_ready(dq_s_ready), .m_csum(dq_m_csum), .m_valid(dq_m_valid), .m_ready(dq_pop),
    .rd_q(p_q), .rd_csum(rs_csum)
);

// ---------------------------------------------------------------------------------------
// Commands, in frame order.

localparam PC_W = 1 + Q_W + JI_W + 16 + 16 + 32 + 32 + CN_W + 2 + WK_W + WK_W;
localparam PD_DEPTH = 16;
wire [PC_W-1:0] pd_s_data = {d_resend, j_q, j_job_idx, j_job_id, j_slot,
                             d_resend ? j_st_offset : j_offset,
                             d_resend ? j_st_tensor : j_tensor,
                             d_resend ? j_st_count : j_count,
                             d_resend ? j_st_ecn : d_ecn,
                             d_resend ? j_worker : {WK_W{1'b0}},
                             d_resend ? j_worker : j_workers[WK_W-1:0] - 1'b1};
wire             pd_s_ready, pd_m_valid;
wire [PC_W-1:0]  pd_m_data;
wire [$clog2(PD_DEPTH+1)-1:0] pd_count;
wire             pd_pop;

ws_fifo #(.WIDTH(PC_W), .DEPTH(PD_DEPTH)) pending_fifo (
    .clk(clk), .rst(rst),
    .s_data(pd_s_data), .s_valid(j2 && (d_resend || d_last)), .s_ready(pd_s_ready),
    .m_data(pd_m_data), .m_valid(pd_m_valid), .m_ready(pd_pop),
    .count(pd_count)
);

// ---------------------------------------------------------------------------------------
// Guard of the result RAM: the rows (and checksum) of a set must not change while a command
// for that set still has frames to read. A frame that would open a new round in such a set
// waits. The commands are tracked in order, each with the number of frames it sends.

localparam IF_N = 32;                       // commands tracked (pending FIFO + result generator)
localparam IF_W = $clog2(IF_N);
// The list is a ring of IF_N entries with one-hot write and read pointers, and per entry the
// command's set (one-hot) and its frames left, with "one left" and "two left" kept as bits: the
// push, the pop and the count-down each touch the entry their pointer bit selects, and the
// head's flags are an AND-OR with the read pointer, so no path goes through an index decoder,
// an adder of a pointer, or a read mux of the counts.
reg  [IF_N-1:0]   if_valid;
reg  [Q_N-1:0]    if_q_hot  [0:IF_N-1];     // the command's set, one-hot (from j_q_hot)
reg  [WC_W-1:0]   if_frames [0:IF_N-1];     // frames left to read
reg  [IF_N-1:0]   if_one, if_two;           // if_frames[e] == 1, == 2
reg  [IF_N-1:0]   if_wr_hot, if_rd_hot;     // one-hot ring pointers
reg  [IF_W:0]     if_count;
wire              if_push = j2 && (d_resend || d_last);
wire [WC_W-1:0]   if_push_frames = d_resend ? {{(WC_W-1){1'b0}}, 1'b1} : j_workers;
localparam [WC_W-1:0] FR_ONE = 1, FR_TWO = 2, FR_THREE = 3;
wire              if_push_one = d_resend || j_workers == FR_ONE;
wire              if_push_two = !d_resend && j_workers == FR_TWO;

// The head command has one frame left to read (kept in a register, so the pop is decided by an
// AND, not by a read of the head's count): the next frame_done pops it.
reg               if_head_one;
wire              if_empty = if_count == {(IF_W+1){1'b0}};
wire              if_single = if_count == {{IF_W{1'b0}}, 1'b1};
// A frame_done with no command tracked (the result generator never sends one) is ignored:
// if_head_one is 0 while the list is empty, and the count-down needs a head.
wire              if_pop  = frame_done && if_head_one;
wire              if_dec  = frame_done && !if_empty && !if_head_one;  // the head counts down
wire [IF_N-1:0]   if_rd_nx_hot = {if_rd_hot[IF_N-2:0], if_rd_hot[IF_N-1]};
wire              if_nx_one   = |(if_one & if_rd_nx_hot);   // the next head
wire              if_head_two = |(if_two & if_rd_hot);

wire [IF_W:0]     if_count_inc = if_count + 1'b1;
wire [IF_W:0]     if_count_dec = if_count - 1'b1;

// The sets a tracked command reads, registered: the entries that stay after this cycle's pop,
// and this cycle's push (the pop and the push are decided by registers and the verdict bits, so
// the hold reads one registered bit per set).
reg  [Q_N-1:0]    if_busy;
reg  [Q_N-1:0]    if_busy_nx;
integer e;
always @(*) begin
    if_busy_nx = if_push ? j_q_hot : {Q_N{1'b0}};
    for (e = 0; e < IF_N; e = e + 1)
        if (if_valid[e] && !(if_pop && if_rd_hot[e]))
            if_busy_nx = if_busy_nx | if_q_hot[e];
end

always @(posedge clk) begin
    for (e = 0; e < IF_N; e = e + 1) begin
        if (if_push && if_wr_hot[e]) begin
            if_q_hot[e] <= j_q_hot;
            if_frames[e] <= if_push_frames;
            if_one[e] <= if_push_one;
            if_two[e] <= if_push_two;
        end else if (if_dec && if_rd_hot[e]) begin
            if_frames[e] <= if_frames[e] - 1'b1;
            if_one[e] <= if_two[e];
            if_two[e] <= if_frames[e] == FR_THREE;
        end
    end
    if (rst) begin
        if_valid <= {IF_N{1'b0}};
        if_wr_hot <= {{(IF_N-1){1'b0}}, 1'b1};
        if_rd_hot <= {{(IF_N-1){1'b0}}, 1'b1};
        if_count <= {(IF_W+1){1'b0}};
        if_head_one <= 1'b0;
        if_busy <= {Q_N{1'b0}};
    end else begin
        if_busy <= if_busy_nx;
        if_valid <= (if_valid & ~(if_pop ? if_rd_hot : {IF_N{1'b0}})) |
                    (if_push ? if_wr_hot : {IF_N{1'b0}});
        if (if_push)
            if_wr_hot <= {if_wr_hot[IF_N-2:0], if_wr_hot[IF_N-1]};
        if (if_pop)
            if_rd_hot <= if_rd_nx_hot;
        // the head after this cycle: the next entry after a pop (this push if it was the last),
        // the head counted down, or a push into an empty list
        if (if_pop)
            if_head_one <= if_single ? if_push && if_push_one : if_nx_one;
        else if (if_dec)
            if_head_one <= if_head_two;
        else if (if_empty)
            if_head_one <= if_push && if_push_one;
        // chosen by the late push among values of the register (no add after the judgement)
        case ({if_push, if_pop})
            2'b10:   if_count <= if_count_inc;
            2'b01:   if_count <= if_count_dec;
            default: ;
        endcase
    end
end

// a first beat that would open a new round (its set complete and empty) in a set still read:
// one mux of registered bits
wire [Q_N-1:0] q_wait = st_complete & st_empty & if_busy;
wire hazard = in_first && a_tvalid && q_wait[h_q];

// take a frame only while every queue can take its entry (J1 checks, J2 pushes: nothing else
// pushes in between), not into a set still being read, not in a J1B or J2 cycle, and not while
// a job's sets are cleared
assign a_tready = pd_s_ready && cq_s_ready && pd_count < PD_DEPTH - 2 && dq_s_ready &&
                  if_count < IF_N - 2 && !hazard && !(in_first && (j1b || j2)) &&
                  !job_clear && !clr_go1 && !clr_go;

wire p_resend = pd_m_data[PC_W-1];
assign p_q = pd_m_data[PC_W-2 -: Q_W];
// a completion waits for its checksum, a re-send goes as it is
wire p_ready = pd_m_valid && (p_resend || dq_m_valid);
assign pd_pop = p_ready && cmd_ready;
assign dq_pop = pd_pop && !p_resend;
assign cmd_valid = p_ready;
assign {cmd_retx, cmd_q, cmd_job_idx, cmd_job_id, cmd_slot, cmd_offset, cmd_tensor, cmd_count,
        cmd_ecn, cmd_rank_lo, cmd_rank_hi} = pd_m_data;
assign cmd_csum = p_resend ? rs_csum : dq_m_csum;

endmodule

`resetall
