// ws_partial_enc - a child device's PARTIAL payload: a round's exact sums encoded into a frame buffer.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The combine presents a round's exact sums a result-RAM row at a time (row r = DATA frame beat
// PAY_BEAT0 + r, lane l = element (PAY_BEAT0 + r)*LANES + l - 16, each {nan, pinf, ninf,
// notnegzero, fx}, fx ACC_W-bit two's complement in units of 2^-149). This module encodes every
// element as docs/protocol.md section 9 says (driver/xsum.c ws_xsum_encode, bit for bit) into the
// payload of the PARTIAL frame (driver/wire.c ws_build_partial: element j's first word at frame
// word 8 + j, then the record words in element order), pulses `done` with the number of record
// words and the payload's checksum, and holds the payload for the result generators' read ports
// until `buf_release`.
//
// Encoding of one element: a special (NaN or an Inf flag) is one word E = 255, M bits 2, 1, 0 =
// nan, ninf, pinf. Else mag = |fx|, S = fx < 0; mag = 0 is one word, S = !notnegzero (the "all -0"
// zero; every element of a round has a contribution). Else word k = {X, S, E, M}: p the top set bit
// of what is left, E = max(0, p - 53), M = its bits E + 53 .. E, X = bits below E are left.
// A magnitude >= 2^308 (p >= 308, E >= 255), which no sum of fewer than 2^31 binary32 values
// reaches and which the reference refuses to encode (ws_xsum_encode returns -1), is sent here as
// a special, +Inf or -Inf by its sign (binary32's own overflow), one word, no records; so E <= 254
// in every other word and at most 6 words an element.
//
// Datapath: rows enter, through an input register, an input FIFO (ws_fifo, FIFO_DEPTH rows of
// LANES sums, each with the prefix OR of its 16-bit segments, computed on the way in). A row is popped (one a
// cycle) into five stages, LANES extractors side by side, all stopped by `hold` (a register):
//   A  mag = |fx| without a carry chain: bit i of -x is x[i] ^ (a bit of x below i), from the
//      segment's prefix OR and the bits of its own segment; beside it, per 16-bit segment and
//      per byte of mag, whether any bit is set, from fx's own bits (abs_any, abs_bany)
//   B  per segment of mag: the index of its top and of its lowest set bit (a byte's, chosen by
//      A's byte bits); the one-hots of the top and of the lowest nonzero segment (an OR scan of
//      A's segment bits)
//   C  p = top set bit, lo = lowest set bit (AND-ORs of the one-hots and the indices)
//   D  E = max(0, p - 53); X = p - lo >= 54 (a set bit below E); overflow p >= 308; the window
//      of 80 bits at the top bit's segment, selected by p[8:4] (no add), and where M starts in it
//   G  M = 54 bits of the window (a shift by 0 .. 26); the first word assembled
// Everything is one-hot selects and AND-OR trees, no priority chain and no arithmetic on an
// index. Synthesized alone (yosys synth_xilinx, bench/lut_levels.py and the delay model of
// docs/performance.md section 4): at 256 bits (xc7) the deepest path is 4 LUT levels and 3 carry
// (stage D's X into d_xm), the slowest by the estimate stage D's window, 3 LUT levels and 3 wide
// muxes (3.55 ns of 5); about 29.7k LUT, 24.3k FF, 8 RAMB36 (the frame buffer, one reader) and
// 468 RAM32M (the input FIFO). At 1024 bits (xcup) the same deepest path (2.44 ns), the slowest
// the record engine's pending OR, 3 LUT levels and 5 wide muxes (2.80 ns of 2.94 at 340 MHz);
// about 110.9k LUT, 96.1k FF.
// Stage G's row writes its LANES first words into the frame buffer in one cycle (the cycle after
// it enters G). The elements of the row whose first word has X set are pending; while any is,
// `hold` keeps the stages still (the rows behind wait; rows keep arriving into the FIFO, see
// s_room) and one record engine takes them in element order: it picks the lowest pending lane,
// loads that element's magnitude and E from stage G, clears the bits the first word took, then
// per record word runs the steps A (the any bits), B, C, D, G on what is left, a step a
// cycle: 5 cycles a record word, 3 more an element. Records are rare (real gradients need none, docs/performance.md
// section 7); a row without records goes through at one row a cycle. Record words are written at
// frame word 8 + count + k, k counting the round's records (done_ext at the end).
//
// Frame buffer: frame beat PAY_BEAT0 + k is row k. A row's LANES first words are 2*WPB consecutive
// frame words (WPB = DATA_WIDTH/64 words a row), which hit every word column twice, in two
// consecutive rows: so per word column there are two RAMs, the even and the odd rows (bank
// address row/2), and each of the LANES RAMs takes exactly one lane's first word (a fixed lane,
// at bank address r + 0 or r - 1) or the record word of the moment, one write a cycle. The
// writes are registered (wr_*) before the RAMs. The word is stored in result-RAM order: 32-bit
// lane 2c of the row = word[63:32], lane 2c + 1 = word[31:0] (host order, ws_result_gen swaps
// the bytes of each 32-bit lane onto the wire). Header positions (row 0 below byte 64 at 1024
// bits) and the words past the payload's end are never written (stale). READERS copies of the
// RAMs, written alike, one read port each; a read gives the row the cycle after its address: the
// banks' registered reads (block RAM), then a 2:1 select by the row's parity, registered beside
// them (one LUT after the RAMs' outputs: rd_data is not itself a flip-flop).
//
// Checksum: every write's words go through ws_round_csum (2*LANES 32-bit words a beat, the
// payload's ones-complement sum folded to 16 bits, as a RESULT's C_CSUM); the round's final write
// carries `last`, and `done` follows its checksum, clog2(4*LANES) + 5 cycles after that write.
//
// Flow control: s_room is registered, high while the FIFO will have room for FILL_SLACK more rows
// whatever arrives: the combine issues a row only in a cycle with s_room high, and that row must
// reach s_valid at most FILL_SLACK - 1 cycles later. One buffer: after the round's last row has
// been popped, no row (the next round's s_first) is popped until `buf_release` (the frame has been
// read); the next rounds' rows wait in the FIFO, and s_room falls when it fills. (Double
// buffering would overlap the encoding of round n+1 with the sending of round n, at twice the
// buffer RAM and a buffer select for the readers.) buf_release must come only after done.
//
// Latency: a row popped in cycle t writes its first words at t + 6 (the RAMs hold them from t + 7);
// a round whose last row has no records pulses done clog2(4*LANES) + 11 cycles after that row's
// pop (16 at 256 bits, 18 at 1024: measured in tb_ws_partial_enc).
module ws_partial_enc #(
    parameter integer DATA_WIDTH = 256,   // 256, 512, 1024
    parameter integer MAX_COUNT  = 256,   // most elements of a round
    parameter integer ACC_W      = ws_regmap::WS_XSUM_W,  // bits of fx (278 .. 320)
    parameter integer READERS    = 1      // copies of the frame buffer, one read port each
) (
    input  wire                         clk,
    input  wire                         rst,

    // rows of one round, in order, from the combine: row r = result-RAM row r of the set
    input  wire                         s_valid,    // a row this cycle (no backpressure: s_room)
    input  wire                         s_first,    // the round's first row (with s_count)
    input  wire                         s_last,     // the round's last row
    input  wire [CN_W-1:0]              s_count,    // elements of the round (with s_first)
    input  wire [LANES-1:0]             s_mask,     // lanes of the row that hold an element
    input  wire [LANES*(ACC_W+4)-1:0]   s_sums,     // lane l: {nan, pinf, ninf, notnegzero, fx}
    output reg                          s_room,     // registered: room for FILL_SLACK (16) more rows;
                                                    // a row issued while high reaches s_valid
                                                    // within FILL_SLACK - 1 cycles

    // the finished payload
    output reg                          done,       // pulse: the round's words are all in the buffer
    output reg  [15:0]                  done_ext,   // record words
    output reg  [15:0]                  done_csum,  // folded ones-complement sum of the payload's 16-bit words
    input  wire                         buf_release,// the frame has been sent: the buffer may be refilled

    // read ports: row k (frame beat PAY_BEAT0 + k of the PARTIAL) the cycle after its address
    // (registered RAM reads and a 2:1 select after them, see the header)
    input  wire [READERS*PR_W-1:0]      rd_addr,
    output reg  [READERS*DATA_WIDTH-1:0] rd_data    // lane l at [l*32 +: 32], host order
);

import ws_regmap::*;  // WS_XSUM_W, WS_LIMIT_COUNT

// ws_widths.vh derives every width from the device parameters; those this module does not take
// are given their smallest values (the widths used here depend on DATA_WIDTH and MAX_COUNT alone)
localparam integer MAX_JOBS    = 1;
localparam integer MAX_WORKERS = 1;
localparam integer POOL_SLOTS  = 1;
`include "ws_widths.vh"   // BYTES, LANES, CN_W, PAY_BEAT0

localparam integer WPB        = DATA_WIDTH / 64;                 // 64-bit words a row
localparam integer COL_W       = $clog2(WPB);                     // a word column
localparam integer EW         = ACC_W + 4;                       // a lane's sum and flags
localparam integer BANK_D     = (PR_ROWS + 1) / 2;               // rows of one parity
localparam integer BK_W       = BANK_D > 1 ? $clog2(BANK_D) : 1; // a bank address
localparam integer FILL_SLACK = 16;                              // rows s_room leaves room for
localparam integer FIFO_DEPTH = 32;                              // input FIFO RAM rows (+1 register)
localparam integer FIFO_CAP   = FIFO_DEPTH + 1;
localparam integer MW         = 320;                             // magnitude bits handled (>= ACC_W)
localparam integer NSEG       = MW / 16;                         // 16-bit segments
localparam integer NBYTE      = MW / 8;
localparam integer IN_W       = 2 + CN_W + LANES + LANES*(NSEG + EW);  // a FIFO row

// ---------------------------------------------------------------- parameter checks
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_partial_enc %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_partial_enc %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
    if (ACC_W < 278 || ACC_W > MW) begin : g_bad_acc_w
        initial begin
            $error("Error: ws_partial_enc %m: ACC_W must be 278..320 (ACC_W = %0d)", ACC_W);
            $finish;
        end
    end
    if (READERS < 1) begin : g_bad_readers
        initial begin
            $error("Error: ws_partial_enc %m: READERS must be >= 1 (READERS = %0d)", READERS);
            $finish;
        end
    end
endgenerate

// ---------------------------------------------------------------- the steps of an extractor
// Written as one-hot selects and AND-OR trees (no priority chains, no arithmetic on indices), so
// that each stage is a few LUT levels deep.

// |x| (x two's complement): bit i of -x is x[i] ^ (a bit of x below i); sb[s]: a bit below
// segment s. The bits below i within its segment: an OR scan that stops at segment boundaries.
function [MW-1:0] absval(input [MW-1:0] x, input [NSEG-1:0] sb);
    integer s;
    reg [MW-1:0] a, m1, m2, m4, m8, sbx;
    begin
        for (s = 0; s < NSEG; s = s + 1) begin
            m1[16*s +: 16] = 16'hfffe;    // bit j takes bit j - 1 of its segment (j >= 1), ...
            m2[16*s +: 16] = 16'hfffc;
            m4[16*s +: 16] = 16'hfff0;
            m8[16*s +: 16] = 16'hff00;
            sbx[16*s +: 16] = {16{sb[s]}};
        end
        a = (x << 1) & m1;
        a = a | ((a << 1) & m1);
        a = a | ((a << 2) & m2);
        a = a | ((a << 4) & m4);
        a = a | ((a << 8) & m8);
        absval = x ^ ({MW{x[MW-1]}} & (sbx | a));
    end
endfunction

// per 16-bit segment of v: any bit set
function [NSEG-1:0] seg_any(input [MW-1:0] v);
    integer s;
    begin
        for (s = 0; s < NSEG; s = s + 1)
            seg_any[s] = |v[16*s +: 16];
    end
endfunction

// per byte of v: any bit set
function [NBYTE-1:0] byte_any(input [MW-1:0] v);
    integer b;
    begin
        for (b = 0; b < NBYTE; b = b + 1)
            byte_any[b] = |v[8*b +: 8];
    end
endfunction

// the index of a byte's top set bit (hi = 1) or of its lowest (hi = 0); 0 when none. The bit's
// one-hot: the byte less the bits with a set bit above (below) them, an OR scan.
function [2:0] byte_idx(input [7:0] v, input hi);
    reg [7:0] a, oh;
    begin
        if (hi) begin
            a = v >> 1;  a = a | (a >> 1);  a = a | (a >> 2);  a = a | (a >> 4);
        end else begin
            a = v << 1;  a = a | (a << 1);  a = a | (a << 2);  a = a | (a << 4);
        end
        oh = v & ~a;
        byte_idx = {|(oh & 8'hf0), |(oh & 8'hcc), |(oh & 8'haa)};
    end
endfunction

// per segment: the index of its top set bit (hi = 1) or of its lowest (hi = 0), used only for a
// nonzero segment. From its two bytes (each index a function of 8 bits, one LUT and its wide muxes), chosen by
// the bytes' any bits (ba, registered a step before).
function [NSEG*4-1:0] seg_idx(input [MW-1:0] v, input [NBYTE-1:0] ba, input hi);
    integer s;
    begin
        for (s = 0; s < NSEG; s = s + 1)
            if (hi)
                seg_idx[4*s +: 4] = ba[2*s+1] ? {1'b1, byte_idx(v[16*s+8 +: 8], 1'b1)}
                                              : {1'b0, byte_idx(v[16*s +: 8], 1'b1)};
            else
                seg_idx[4*s +: 4] = ba[2*s] ? {1'b0, byte_idx(v[16*s +: 8], 1'b0)}
                                            : {1'b1, byte_idx(v[16*s+8 +: 8], 1'b0)};
    end
endfunction

// per 16-bit segment of |x| (x two's complement, sb as absval's): any bit set, from x itself.
// For x >= 0 the segment's own bits. For x < 0, -x = ~x + 1, whose carry stops at x's lowest set
// bit: a segment with a set bit of x below it is ~segment (nonzero unless all ones), any other
// is -segment mod 2^16 (nonzero when the segment is).
function [NSEG-1:0] abs_any(input [MW-1:0] x, input [NSEG-1:0] sb);
    integer s;
    begin
        for (s = 0; s < NSEG; s = s + 1)
            abs_any[s] = x[MW-1] && sb[s] ? ~&x[16*s +: 16] : |x[16*s +: 16];
    end
endfunction

// the same per byte of |x|: a segment's high byte has a set bit below it when its low byte does
function [NBYTE-1:0] abs_bany(input [MW-1:0] x, input [NSEG-1:0] sb);
    integer b;
    reg below;
    begin
        for (b = 0; b < NBYTE; b = b + 1) begin
            below = b % 2 == 1 ? sb[b/2] || |x[8*(b-1) +: 8] : sb[b/2];
            abs_bany[b] = x[MW-1] && below ? ~&x[8*b +: 8] : |x[8*b +: 8];
        end
    end
endfunction

// the one-hot of the top (hi = 1) or lowest (hi = 0) nonzero segment, from the segments' any
// bits (registered a step before: the scan alone is the step's depth)
function [NSEG-1:0] seg_oh(input [NSEG-1:0] any, input hi);
    reg [NSEG-1:0] a;
    begin
        if (hi) begin
            a = any >> 1;  a = a | (a >> 1);  a = a | (a >> 2);  a = a | (a >> 4);  a = a | (a >> 8);
            a = a | (a >> 16);
        end else begin
            a = any << 1;  a = a | (a << 1);  a = a | (a << 2);  a = a | (a << 4);  a = a | (a << 8);
            a = a | (a << 16);
        end
        seg_oh = any & ~a;
    end
endfunction

// the position of the top or lowest set bit: the segment's one-hot, then an AND-OR of
// {segment, index}
function [8:0] pos(input [NSEG-1:0] oh, input [NSEG*4-1:0] idx);
    integer s;
    begin
        pos = 9'd0;
        for (s = 0; s < NSEG; s = s + 1)
            pos = pos | ({9{oh[s]}} & {5'(s), idx[4*s +: 4]});
    end
endfunction

// E = max(0, p - 53)
function [8:0] exp_of(input [8:0] p);
    exp_of = p >= 9'd54 ? p - 9'd53 : 9'd0;
endfunction

// The word's bits E + 53 .. E from the top bit's segment ts = p[8:4] (a select, no add): the
// window W = mag[16*(ts-4) +: 80] (mag[0 +: 80] for ts < 4) holds them from bit fidx of W:
// t + 11 (t = p[3:0]) for ts >= 4, E itself (0 .. 10) below.
function [79:0] window(input [MW-1:0] v, input [4:0] ts);
    integer s;
    begin
        window = ts < 5'd4 ? v[79:0] : 80'd0;
        for (s = 4; s < NSEG; s = s + 1)
            window = window | ({80{ts == 5'(s)}} & v[16*(s-4) +: 80]);
    end
endfunction

function [4:0] fidx_of(input [8:0] p);
    fidx_of = p[8:4] >= 5'd4 ? {1'b0, p[3:0]} + 5'd11 : p >= 9'd54 ? 5'(p - 9'd53) : 5'd0;
endfunction

/* verilator lint_off UNUSEDSIGNAL */  // the shift's temporary: M is its low bits
function [53:0] fine(input [79:0] w, input [4:0] f);
    reg [79:0] t;
    begin
        t = w >> f;
        fine = t[53:0];
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// v's bits below position e
function [MW-1:0] below(input [MW-1:0] v, input [8:0] e);
    below = v & ~({MW{1'b1}} << e);
endfunction

// ---------------------------------------------------------------- input FIFO
// An input register holds the row and, per lane, which of its 16-bit segments are nonzero; the
// prefix OR of those (per segment: a bit of fx below it, so that |fx| is one step) goes
// into the FIFO with the row. (Split so: from s_sums to the FIFO in one step was 5 LUT levels and
// 8 wide muxes, a chain of ORs.)
reg                    in_v;
reg  [IN_W-LANES*(NSEG+EW)-1:0] in_ctl;     // first, last, count, mask
reg  [LANES*EW-1:0]    in_sums;
reg  [LANES*(NSEG-1)-1:0] in_nz;       // the top segment's is not needed
wire [LANES*(NSEG-1)-1:0] s_nz;
genvar gs;
generate
    for (gs = 0; gs < LANES; gs = gs + 1) begin : g_sb
        wire [ACC_W-1:0] x = s_sums[gs*EW +: ACC_W];
        /* verilator lint_off UNUSEDSIGNAL */  // the top segment's bit
        wire [NSEG-1:0]  any;
        /* verilator lint_on UNUSEDSIGNAL */
        if (ACC_W < MW) begin : g_ext
            assign any = seg_any({{(MW - ACC_W){x[ACC_W-1]}}, x});
        end else begin : g_noext
            assign any = seg_any(x);
        end
        assign s_nz[gs*(NSEG-1) +: NSEG-1] = any[NSEG-2:0];
    end
endgenerate
// per segment: the OR of the nonzero bits of the segments below it. One vector written by one
// process (a generate loop's assign per bit made Verilator build the FIFO's input a bit at a
// time, every cycle: a fifth of a PARTIAL model's time).
reg  [LANES*NSEG-1:0]  in_sb;
integer sl, sg;
always @(*)
    for (sl = 0; sl < LANES; sl = sl + 1)
        for (sg = 0; sg < NSEG; sg = sg + 1)
            in_sb[sl*NSEG + sg] = |(in_nz[sl*(NSEG-1) +: NSEG-1] & ~({(NSEG-1){1'b1}} << sg));
always @(posedge clk) begin
    in_v <= !rst && s_valid;
    if (s_valid) begin
        in_ctl  <= {s_first, s_last, s_count, s_mask};
        in_sums <= s_sums;
        in_nz   <= s_nz;
    end
end

wire [IN_W-1:0]              f_data;
wire                         f_valid;
wire [$clog2(FIFO_DEPTH):0]  f_count;
wire                         pop;
ws_fifo #(.WIDTH(IN_W), .DEPTH(FIFO_DEPTH), .CREDIT(1)) in_fifo (
    .clk(clk), .rst(rst),
    .s_data({in_ctl, in_sb, in_sums}), .s_valid(in_v),
    /* verilator lint_off PINCONNECTEMPTY */  // credit mode: room is s_room
    .s_ready(),
    /* verilator lint_on PINCONNECTEMPTY */
    .m_data(f_data), .m_valid(f_valid), .m_ready(pop),
    .count(f_count)
);
wire                   f_first = f_data[IN_W-1];
wire                   f_last  = f_data[IN_W-2];
wire [CN_W-1:0]        f_cnt   = f_data[LANES + LANES*NSEG + LANES*EW +: CN_W];
wire [LANES-1:0]       f_mask  = f_data[LANES*NSEG + LANES*EW +: LANES];
wire [LANES*NSEG-1:0]  f_sb    = f_data[LANES*EW +: LANES*NSEG];
wire [LANES*EW-1:0]    f_sums  = f_data[LANES*EW-1:0];

// room for FILL_SLACK more rows whatever this cycle pops (counting the rows in the input register
// and on s_valid, which the FIFO takes in the next two cycles)
always @(posedge clk)
    s_room <= !rst && ({{(31 - $clog2(FIFO_DEPTH)){1'b0}}, f_count} + {31'd0, in_v} + {31'd0, s_valid})
                      <= FIFO_CAP - FILL_SLACK;

// ---------------------------------------------------------------- stage control
reg                 blocked;            // the round's last row popped: no pop until buf_release
reg  [PR_W-1:0]     r_next;             // the row index of the next row of the round
reg  [4:1]          v;                  // stage valid (A to D; G: g_new, hold)
reg  [5:1]          c_first, c_last;
reg  [CN_W-1:0]     c_cnt  [1:5];
reg  [LANES-1:0]    c_mask [1:5];
reg  [PR_W-1:0]     c_row  [1:5];
reg                 g_new;              // stage G took a row at the last edge: write its first words
reg  [LANES-1:0]    pend;               // G's elements whose records are still to go
reg  [3:0]          rstate;             // the record engine
localparam [3:0] R_IDLE = 4'd0, R_SEL = 4'd1, R_LOAD = 4'd2, R_TRIM = 4'd3,
                 R_A = 4'd4, R_B = 4'd5, R_C = 4'd6, R_D = 4'd7, R_G = 4'd8;
wire                r_x_now;            // the record engine's word now has X (R_G)
// hold: the row in G has records still to go, so the stages stand still (go = !hold). A register,
// computed for the next cycle: a row entering G holds if one of its elements has X (d_xm, a
// register per lane in D, so that hold is an OR of LANES flip-flops); a held row holds until its
// last element's last record (no element left, the engine back to idle).
reg                 hold;
wire                go  = !hold;
assign              pop = f_valid && go && !blocked;
wire [LANES-1:0]    d_xm;               // stage D: the row's elements that go on in records
reg                 p_any;              // pend is not empty (stale in R_LOAD and R_TRIM, see below)

integer k;
always @(posedge clk) begin
    if (go) begin
        c_first[1] <= f_first;
        c_last[1]  <= f_last;
        c_cnt[1]   <= f_cnt;
        c_mask[1]  <= f_mask;
        c_row[1]   <= f_first ? {PR_W{1'b0}} : r_next;
        for (k = 2; k <= 5; k = k + 1) begin
            c_first[k] <= c_first[k-1];
            c_last[k]  <= c_last[k-1];
            c_cnt[k]   <= c_cnt[k-1];
            c_mask[k]  <= c_mask[k-1];
            c_row[k]   <= c_row[k-1];
        end
    end
    if (rst) begin
        v       <= 4'd0;
        g_new   <= 1'b0;
        hold    <= 1'b0;
        blocked <= 1'b0;
        r_next  <= {PR_W{1'b0}};
    end else begin
        if (go)
            v <= {v[3:1], pop};
        g_new <= go && v[4];
        // pend changes only in R_LOAD, so in R_IDLE and R_G the engine's next state says it
        // (d_xm is empty for a bubble in D)
        if (go)
            hold <= d_xm != {LANES{1'b0}};
        else
            hold <= !(!p_any && (rstate == R_IDLE || (rstate == R_G && !r_x_now)));
        if (pop) begin
            r_next <= (f_first ? {PR_W{1'b0}} : r_next) + 1'b1;
            if (f_last)
                blocked <= 1'b1;
        end else if (buf_release) begin
            blocked <= 1'b0;
        end
    end
end

// ---------------------------------------------------------------- the LANES extractors
wire [LANES*64-1:0]  g_word;        // stage G: the first words
wire [LANES*MW-1:0]  g_mag;         // stage G: magnitudes, exponents, signs (for the records)
wire [LANES*9-1:0]   g_exp;
wire [LANES-1:0]     g_sign;

genvar gl;
generate
    for (gl = 0; gl < LANES; gl = gl + 1) begin : g_lane
        wire [ACC_W-1:0]  fx = f_sums[gl*EW +: ACC_W];
        wire [3:0]        fl = f_sums[gl*EW + ACC_W +: 4];   // nan, pinf, ninf, notnegzero
        wire [NSEG-1:0]   sb = f_sb[gl*NSEG +: NSEG];
        wire [MW-1:0]     fxe;
        if (ACC_W < MW) begin : g_ext
            assign fxe = {{(MW - ACC_W){fx[ACC_W-1]}}, fx};
        end else begin : g_noext
            assign fxe = fx;
        end
        reg  [MW-1:0]     a_mag, b_mag, c_mag, d_mag, g_m;
        reg  [3:0]        a_fl, b_fl, c_fl, d_fl;
        reg               a_s, b_s, c_s, d_s, g_s;
        reg  [NSEG-1:0]   a_any, b_toh, b_loh;
        reg  [NBYTE-1:0]  a_bany;
        reg  [NSEG*4-1:0] b_top, b_low;
        reg  [8:0]        c_p, c_lo;
        reg               c_nz, d_nz, d_x, d_ovf, d_xr;
        /* verilator lint_off UNUSEDSIGNAL */  // bit 8 only when E >= 255 (d_ovf)
        reg  [8:0]        d_e;
        /* verilator lint_on UNUSEDSIGNAL */
        reg  [79:0]       d_w;
        reg  [4:0]        d_f;
        reg  [63:0]       g_w;
        reg  [7:0]        g_e;
        wire [8:0]        c_span = c_p - c_lo;
        wire              c_x    = c_span >= 9'd54;        // a set bit below E
        wire              c_ovf  = c_p >= 9'd308;           // E >= 255: sent as +-Inf
        wire              d_special = |d_fl[3:1];
        always @(posedge clk) begin
            // each stage loads only when a row enters it (its data is meaningless without v)
            if (pop) begin          // A: |fx|
                a_mag <= absval(fxe, sb);
                a_any <= abs_any(fxe, sb);
                a_bany <= abs_bany(fxe, sb);
                a_s   <= fxe[MW-1];
                a_fl  <= fl;
            end
            if (go && v[1]) begin   // B: the segments' facts
                b_mag <= a_mag;  b_s <= a_s;  b_fl <= a_fl;
                b_toh <= seg_oh(a_any, 1'b1);
                b_loh <= seg_oh(a_any, 1'b0);
                b_top <= seg_idx(a_mag, a_bany, 1'b1);
                b_low <= seg_idx(a_mag, a_bany, 1'b0);
            end
            if (go && v[2]) begin   // C: top and lowest set bit
                c_mag <= b_mag;  c_s <= b_s;  c_fl <= b_fl;
                c_p   <= pos(b_toh, b_top);
                c_lo  <= pos(b_loh, b_low);
                c_nz  <= |b_toh;
            end
            if (go && v[3]) begin   // D: E, X, the window
                d_mag <= c_mag;  d_s <= c_s;  d_fl <= c_fl;  d_nz <= c_nz;
                d_e   <= exp_of(c_p);
                d_x   <= c_x;
                d_ovf <= c_ovf;
                d_w   <= window(c_mag, c_p[8:4]);
                d_f   <= fidx_of(c_p);
            end
            if (go)                 // D: the element of a row goes on in records
                d_xr <= v[3] && c_mask[3][gl] && ~|c_fl[3:1] && c_nz && !c_ovf && c_x;
            if (go && v[4]) begin   // G: the first word
                g_m   <= d_mag;  g_s <= d_s;  g_e <= d_e[7:0];
                if (d_special)
                    g_w <= {2'b00, 8'hff, 51'd0, d_fl[3], d_fl[1], d_fl[2]};
                else if (d_nz && d_ovf)
                    g_w <= {2'b00, 8'hff, 51'd0, 1'b0, d_s, !d_s};
                else if (!d_nz)
                    g_w <= {1'b0, !d_fl[0], 62'd0};
                else
                    g_w <= {d_x, d_s, d_e[7:0], fine(d_w, d_f)};
            end
        end
        assign d_xm[gl] = d_xr;
        assign g_word[gl*64 +: 64] = g_w;
        assign g_mag[gl*MW +: MW] = g_m;
        assign g_exp[gl*9 +: 9] = {1'b0, g_e};
        assign g_sign[gl] = g_s;
    end
endgenerate

// ---------------------------------------------------------------- the record engine
// R_SEL picks the lowest pending element (element order) as a one-hot; R_LOAD takes its
// magnitude, E and sign from G (an AND-OR over the lanes) and clears its pending bit; R_TRIM
// clears the bits its first word took; then per record word R_A (the segments' and bytes' any
// bits), R_B, R_C, R_D (the steps of the extractors) and R_G, which emits the word and clears
// its bits: 5 cycles a record word, 3 more an element.
reg  [LANES-1:0]  r_oh;
reg  [MW-1:0]     r_m;          // what is left of the element
reg  [8:0]        r_e;          // E of the word before (R_TRIM), of the word being made (R_D on)
reg               r_s, r_x;
reg  [NSEG-1:0]   r_any, r_toh, r_loh;
reg  [NBYTE-1:0]  r_bany;
reg  [NSEG*4-1:0] r_top, r_low;
reg  [8:0]        r_p, r_lo;
reg  [79:0]       r_w;
reg  [4:0]        r_f;
wire [8:0]        r_span = r_p - r_lo;
wire [63:0]       r_word = {r_x, r_s, r_e[7:0], fine(r_w, r_f)};
wire              r_emit = rstate == R_G;
assign            r_x_now = r_x;

// the lowest pending lane, one-hot
reg  [LANES-1:0]  p_oh;
integer pi;
always @(*)
    for (pi = 0; pi < LANES; pi = pi + 1)
        p_oh[pi] = pend[pi] && ~|(pend & ~({LANES{1'b1}} << pi));

// the chosen lane's magnitude, E and sign
reg  [MW-1:0]     l_m;
reg  [8:0]        l_e;
reg               l_s;
integer li;
always @(*) begin
    l_m = {MW{1'b0}};
    l_e = 9'd0;
    l_s = 1'b0;
    for (li = 0; li < LANES; li = li + 1) begin
        l_m = l_m | ({MW{r_oh[li]}} & g_mag[li*MW +: MW]);
        l_e = l_e | ({9{r_oh[li]}} & g_exp[li*9 +: 9]);
        l_s = l_s | (r_oh[li] & g_sign[li]);
    end
end

// record write position: frame word 8 + count + k as (row, column)
reg  [PR_W-1:0]   rec_row;
reg  [COL_W-1:0]  rec_col;
reg  [15:0]       ext;
wire [PR_W+COL_W:0] w0 = {{(PR_W+COL_W+1-CN_W){1'b0}}, c_cnt[5]} + 8;
/* verilator lint_off UNUSEDSIGNAL */  // the row is below PR_ROWS
wire [PR_W:0]      w0_row = w0[PR_W+COL_W:COL_W] - PAY_BEAT0[PR_W:0];
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    case (rstate)
        R_SEL: r_oh <= p_oh;
        R_LOAD: begin
            r_m <= l_m;
            r_e <= l_e;
            r_s <= l_s;
        end
        R_TRIM: r_m <= below(r_m, r_e);
        R_A: begin
            r_any  <= seg_any(r_m);
            r_bany <= byte_any(r_m);
        end
        R_B: begin
            r_toh <= seg_oh(r_any, 1'b1);
            r_loh <= seg_oh(r_any, 1'b0);
            r_top <= seg_idx(r_m, r_bany, 1'b1);
            r_low <= seg_idx(r_m, r_bany, 1'b0);
        end
        R_C: begin
            r_p  <= pos(r_toh, r_top);
            r_lo <= pos(r_loh, r_low);
        end
        R_D: begin
            r_e <= exp_of(r_p);
            r_x <= r_span >= 9'd54;
            r_w <= window(r_m, r_p[8:4]);
            r_f <= fidx_of(r_p);
        end
        default: r_m <= below(r_m, r_e);    // R_G (R_IDLE: not used)
    endcase
    if (rst) begin
        rstate <= R_IDLE;
        pend   <= {LANES{1'b0}};
        p_any  <= 1'b0;
    end else begin
        case (rstate)
            R_IDLE:  rstate <= p_any ? R_SEL : R_IDLE;
            R_SEL:   rstate <= R_LOAD;
            R_LOAD:  rstate <= R_TRIM;
            R_TRIM:  rstate <= R_A;
            R_A:     rstate <= R_B;
            R_B:     rstate <= R_C;
            R_C:     rstate <= R_D;
            R_D:     rstate <= R_G;
            default: rstate <= r_x ? R_A : p_any ? R_SEL : R_IDLE;   // R_G
        endcase
        if (go && v[4])
            pend <= d_xm;
        else if (rstate == R_LOAD)      // the element R_SEL chose (r_oh) is no longer pending
            pend <= pend & ~r_oh;
        // p_any follows pend: set with it from G's row; after R_LOAD's clear, from pend itself
        // (an OR of registers, not of a next value), so it is stale in R_LOAD and R_TRIM, where
        // no one reads it (the states that do are R_IDLE and R_G; wr_final in G's row's cycle
        // and R_G; hold in R_IDLE and R_G)
        if (go && v[4])
            p_any <= d_xm != {LANES{1'b0}};
        else if (rstate == R_TRIM)
            p_any <= pend != {LANES{1'b0}};
    end
    // the round's record position, from its first row in G (before any record of it)
    if (g_new && c_first[5]) begin
        rec_row <= w0_row[PR_W-1:0];
        rec_col <= w0[COL_W-1:0];
        ext     <= 16'd0;
    end else if (r_emit) begin
        rec_col <= rec_col + 1'b1;
        if (rec_col == COL_W'(WPB - 1))
            rec_row <= rec_row + 1'b1;
        ext <= ext + 1'b1;
    end
end

// ---------------------------------------------------------------- the writes (registered)
// RAM (c, p) of a reader: word column c of the rows of parity p. A row's first words: lane l is
// frame word (PAY_BEAT0 + r)*LANES + l - 8, i.e. buffer row 2r + DR(l), DR(l) = PAY_BEAT0 +
// floor((l - 8)/WPB) (-1, 0 or 1), column (l - 8) mod WPB: so RAM (c, p) takes one fixed lane,
// at bank address r + floor(DR/2).
function integer lane_dr(input integer l);   // DR(l)
    lane_dr = PAY_BEAT0 + (l - 8 + 8*WPB) / WPB - 8;
endfunction
function integer lane_of(input integer c, input integer p);
    integer l;
    begin
        lane_of = 0;
        for (l = 0; l < LANES; l = l + 1)
            if ((l - 8 + 8*WPB) % WPB == c && (lane_dr(l) + 2) % 2 == p)
                lane_of = l;
    end
endfunction

localparam integer NRAM = 2 * WPB;           // = LANES
reg  [NRAM-1:0]      wr_en;
reg  [NRAM*BK_W-1:0] wr_addr;
reg  [NRAM*64-1:0]   wr_data;                // result-RAM order: {word[31:0], word[63:32]}
reg                  wr_final;               // the round's last write
wire                 fw = g_new;             // G's row writes its first words

genvar gc, gp;
generate
    for (gc = 0; gc < WPB; gc = gc + 1) begin : g_col
        for (gp = 0; gp < 2; gp = gp + 1) begin : g_par
            localparam integer L  = lane_of(gc, gp);
            localparam integer AO = (lane_dr(L) + 2) / 2 - 1;   // floor(DR/2): -1 or 0
            localparam integer I  = 2*gc + gp;
            wire rec_hit = r_emit && rec_col == COL_W'(gc) && rec_row[0] == (gp != 0);
            wire [63:0] w = rec_hit ? r_word : g_word[L*64 +: 64];
            always @(posedge clk) begin
                // a record: its row / 2; a first word: input row r + floor(DR/2)
                wr_addr[I*BK_W +: BK_W] <= BK_W'(rec_hit ? rec_row >> 1 : c_row[5] + PR_W'(AO));
                wr_data[I*64 +: 64] <= {w[31:0], w[63:32]};
                wr_en[I] <= !rst && ((fw && c_mask[5][L]) || rec_hit);
            end
        end
    end
endgenerate

always @(posedge clk)
    wr_final <= !rst && c_last[5] &&
                ((fw && !p_any) || (r_emit && !r_x && !p_any));

`ifndef SYNTHESIS
always @(posedge clk)
    if (!rst && fw && r_emit) begin
        $error("Error: ws_partial_enc %m: a record and a row's first words in one cycle");
        $finish;
    end
`endif

// ---------------------------------------------------------------- the frame buffer
genvar gr;
generate
    for (gr = 0; gr < READERS; gr = gr + 1) begin : g_rd
        wire [PR_W-1:0] ra = rd_addr[gr*PR_W +: PR_W];
        wire [BK_W-1:0] rb = BK_W'(ra >> 1);
        reg             ra_odd;         // the parity of the row being read
        always @(posedge clk)
            ra_odd <= ra[0];
        for (gc = 0; gc < WPB; gc = gc + 1) begin : g_col
            reg [63:0] bank0 [0:BANK_D-1];
            reg [63:0] bank1 [0:BANK_D-1];
            reg [63:0] q0, q1;
            always @(posedge clk) begin
                if (wr_en[2*gc])
                    bank0[wr_addr[(2*gc)*BK_W +: BK_W]] <= wr_data[(2*gc)*64 +: 64];
                if (wr_en[2*gc+1])
                    bank1[wr_addr[(2*gc+1)*BK_W +: BK_W]] <= wr_data[(2*gc+1)*64 +: 64];
                q0 <= bank0[rb];
                q1 <= bank1[rb];
            end
            always @(*)
                rd_data[gr*DATA_WIDTH + gc*64 +: 64] = ra_odd ? q1 : q0;
        end
    end
endgenerate

// ---------------------------------------------------------------- the checksum, done
wire        cs_valid;
wire [15:0] cs_csum;
reg  [2*NRAM-1:0] cs_mask;
integer ci;
always @(*)
    for (ci = 0; ci < NRAM; ci = ci + 1)
        cs_mask[2*ci +: 2] = {2{wr_en[ci]}};
/* verilator lint_off UNUSEDSIGNAL */  // one round at a time: never full; no per-set read
wire        cs_ready;
wire [15:0] cs_rd;
/* verilator lint_on UNUSEDSIGNAL */
ws_round_csum #(.LANES(2*NRAM), .Q_N(2), .Q_W(1), .DEPTH(2)) round_csum (
    .clk(clk), .rst(rst),
    .beat(|wr_en), .mask(cs_mask), .words(wr_data), .last(wr_final), .q(1'b0),
    .s_ready(cs_ready), .m_csum(cs_csum), .m_valid(cs_valid), .m_ready(1'b1),
    .rd_q(1'b0), .rd_csum(cs_rd)
);

always @(posedge clk) begin
    done      <= !rst && cs_valid;
    done_csum <= cs_csum;
    done_ext  <= ext;
end

endmodule

`resetall
