// ws_feed - one engine's feed: its decision FIFO, its frames' beats into its bank of exact accumulator lanes, and its fence count.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// docs/architecture.md section 5; ws_engine has one of these per engine (g_eng[e].feed). The
// judge's verdict on each aggregation frame of the engine's parser arrives in the decision FIFO
// (dc_push, dc_data) ahead of the frame's beats; the beats move (s_agg_tready) once it is
// there, and it leaves with the last beat. An accepted frame's elements go to the lanes
// (ws_acc_lane, LANES of them): the element in lane l of a payload beat to lane l at the row of
// the beat in its set. COMB = 0 (one engine, PARTIAL = 0): the lanes round a round's sums at its
// last frame and they leave on eo_*. COMB = 1: the lanes keep exact partials, which ws_combine
// reads through their replica port (cb_rd_addr, part_rd) once done_cnt, the frames whose
// entries are written, has reached the round's fence.
module ws_feed #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter ENGINES     = 1,    // engines of the device (the layouts of ws_judge.vh)
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count
    parameter PARTIAL     = 0,    // 1: the lanes take PARTIAL frames too
    parameter COMB        = 0,    // 1: the lanes keep exact partials for ws_combine (ENGINES > 1 or PARTIAL = 1); 0: they round
    parameter ACC_W       = 284,  // accumulator bits: ws_engine's ACC_W (284, its default at MAX_WORKERS = 64)
    parameter FC_W        = 16    // the fence count (wraps; far more than frames in flight)
) (
    input  wire                          clk,
    input  wire                          rst,

    // aggregation frames of the engine's parser (header from the token)
    input  wire [DATA_WIDTH-1:0]         s_agg_tdata,
    /* verilator lint_off UNUSEDSIGNAL */  // elements are whole: one keep bit per lane decides
    input  wire [DATA_WIDTH/8-1:0]       s_agg_tkeep,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                          s_agg_tvalid,
    output wire                          s_agg_tready,
    input  wire                          s_agg_tlast,

    // the judge's decisions on the engine's frames, in order (ws_judge.vh DC_*)
    input  wire                          dc_push,
    input  wire [DC_W-1:0]               dc_data,
    output wire                          dc_space,   // registered: room for this and one more

    // COMB = 1: the combine's read of every lane's exact entry (registered: data the cycle after)
    input  wire [RA_W-1:0]               cb_rd_addr,
    output wire [LANES*(ACC_W+4)-1:0]    part_rd,    // lane l at [l*(ACC_W+4) +: ACC_W+4]
    // COMB = 0: the lanes' rounded outputs
    output wire [LANES-1:0]              eo_valid,
    output wire [LANES*RA_W-1:0]         eo_addr,
    output wire [LANES*32-1:0]           eo_result,
    // COMB = 1: frames whose entries are written (0 when COMB = 0)
    output wire [FC_W-1:0]               done_cnt
);

import ws_regmap::*;  // WS_PROTO_PARTIAL

`include "ws_widths.vh"   // BYTES, LANES, Q_W, PAY_BEAT0, PAY_BEATS, RDEPTH, RA_W, BT_W
`include "ws_judge.vh"    // DC_*: the layout of a decision

localparam DC_DEPTH   = 16;                      // decisions ahead of their frames' beats
localparam ADD_CHUNKS = 4;                       // the lanes' add split
localparam SETTLE     = ADD_CHUNKS + 5 + 1;      // lane in_valid to a replica read seeing it, cycles

// The PARTIAL feed's owner search (g_feed_partial): the frame's element words' X bits by word
// index (8 + MAX_COUNT of them), in groups of 8, and the steps over them
localparam XG_N      = (8 + MAX_COUNT + 7) / 8;
localparam XG_LG     = $clog2(LANES);

// a PARTIAL frame's word by its index (8-byte words from byte 0; 0 to 7 are the headers), given
// the index of its first record word (8 + count): {element word, record word}
function [1:0] word_class(input [16:0] idx, input [16:0] rec0);
    word_class = {idx >= 17'd8 && idx < rec0, idx >= rec0};
endfunction

// count <= lim for a constant lim, as logic on the count's bits, lowest first (no adder and
// no carry chain: the header beat's word classes lie on the path to s_agg_tready)
function cnt_le(input [15:0] c, input [15:0] lim);
    integer i;
    begin
        cnt_le = 1'b1;
        for (i = 0; i < 16; i = i + 1)
            cnt_le = lim[i] ? !c[i] || cnt_le : !c[i] && cnt_le;
    end
endfunction

// at most one bit of v set (an OR scan, no adder)
function one_or_none(input [LANES/2-1:0] v);
    integer i;
    reg seen;
    begin
        one_or_none = 1'b1;
        seen = 1'b0;
        for (i = 0; i < LANES / 2; i = i + 1) begin
            one_or_none = one_or_none && !(seen && v[i]);
            seen = seen || v[i];
        end
    end
endfunction

// per group of 8 bits: any bit set
function [XG_N-1:0] grp_any(input [XG_N*8-1:0] v);
    integer g;
    begin
        for (g = 0; g < XG_N; g = g + 1)
            grp_any[g] = |v[8*g +: 8];
    end
endfunction

// per group of 8 bits: the one-hot of its lowest set bit (an OR scan within the group)
function [XG_N*8-1:0] grp_low(input [XG_N*8-1:0] v);
    integer g;
    reg [7:0] a;
    begin
        for (g = 0; g < XG_N; g = g + 1) begin
            a = v[8*g +: 8] << 1;  a = a | (a << 1);  a = a | (a << 2);  a = a | (a << 4);
            grp_low[8*g +: 8] = v[8*g +: 8] & ~a;
        end
    end
endfunction

// the one-hot of the lowest set bit of v (a log-step OR scan, no chain)
function [XG_N-1:0] low_one(input [XG_N-1:0] v);
    integer sh;
    reg [XG_N-1:0] a;
    begin
        a = v << 1;
        for (sh = 1; sh < XG_N; sh = sh * 2)
            a = a | (a << sh);
        low_one = v & ~a;
    end
endfunction

// the owner's lane, from the lowest group's one-hot and the groups' lowest bits: element
// 8*g + i - 8 is at position 8*(g + 1) + i, lane (8*(g + 1)) mod LANES + i (LANES >= 8)
function [XG_LG-1:0] own_lane_sel(input [XG_N-1:0] goh, input [XG_N*8-1:0] boh);
    integer g;
    reg [XG_LG-1:0] hi;
    reg [2:0] lo;
    reg [7:0] b;
    begin
        own_lane_sel = {XG_LG{1'b0}};
        for (g = 0; g < XG_N; g = g + 1) begin
            b  = boh[8*g +: 8];
            lo = {|(b & 8'hf0), |(b & 8'hcc), |(b & 8'haa)};
            hi = XG_LG'((8 * (g + 1)) % LANES);
            own_lane_sel = own_lane_sel | ({XG_LG{goh[g]}} & (hi | XG_LG'(lo)));
        end
    end
endfunction

// the owner's row: (8*(g + 1)) / LANES - PAY_BEAT0, a constant of its group
function [BT_W-1:0] own_row_sel(input [XG_N-1:0] goh);
    integer g;
    begin
        own_row_sel = {BT_W{1'b0}};
        for (g = 0; g < XG_N; g = g + 1)
            own_row_sel = own_row_sel | ({BT_W{goh[g]}} & BT_W'((8 * (g + 1)) / LANES - PAY_BEAT0));
    end
endfunction
localparam IN_W      = PARTIAL != 0 ? 64 : 32;   // a lane's operand: a binary32, or a PARTIAL word

// check configuration
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_feed %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (COMB != (ENGINES > 1 || PARTIAL != 0 ? 1 : 0)) begin : g_bad_comb
        initial begin
            $error("Error: ws_feed %m: COMB must be 1 with several engines or PARTIAL = 1, else 0 (COMB = %0d, ENGINES = %0d, PARTIAL = %0d)",
                   COMB, ENGINES, PARTIAL);
            $finish;
        end
    end
endgenerate

wire            dv;
wire [DC_W-1:0] dd;
wire [$clog2(DC_DEPTH):0] dcnt;
wire            in_fire = s_agg_tvalid && s_agg_tready;
wire            in_last = s_agg_tlast;
/* verilator lint_off UNUSEDSIGNAL */  // never full: the judge checks dc_space
wire            ds_ready;
/* verilator lint_on UNUSEDSIGNAL */
// credit mode: a push is dc_push alone (the judge's dc_space is the credit), one gate
// less on the path from the judge's verdict to the count
ws_fifo #(.WIDTH(DC_W), .DEPTH(DC_DEPTH), .CREDIT(1)) decision_fifo (
    .clk(clk), .rst(rst),
    .s_data(dc_data), .s_valid(dc_push), .s_ready(ds_ready),
    .m_data(dd), .m_valid(dv), .m_ready(in_fire && in_last),
    .count(dcnt)
);
// registered: room for the push of the cycle before, this judgment's and one more
reg space_r;
always @(posedge clk)
    space_r <= !rst && dcnt < DC_DEPTH - 3;
assign dc_space = space_r;
// a frame's beats move once its decision is there (and, a PARTIAL's, once the feed has
// taken its record words); the decision leaves with the last beat
wire            f_go;
assign s_agg_tready = dv && f_go;

wire            b_accept = dd[DC_ACCEPT];
wire            b_first  = dd[DC_FIRST];
wire            b_last   = dd[DC_LAST];
wire [Q_W-1:0]  b_q      = dd[DC_Q +: Q_W];
reg  [BT_W-1:0] b_beat;
always @(posedge clk) begin
    if (rst)
        b_beat <= {BT_W{1'b0}};
    else if (in_fire)
        b_beat <= in_last ? {BT_W{1'b0}} : b_beat + 1'b1;
end
wire b_pay;       // past the header beats (every beat is at 1024 bits)
generate
    if (PAY_BEAT0 == 0) begin : g_pay_all
        assign b_pay = 1'b1;
    end else begin : g_pay_after
        assign b_pay = b_beat >= PAY_BEAT0[BT_W-1:0];
    end
endgenerate
wire [BT_W-1:0] b_rel  = b_beat - PAY_BEAT0[BT_W-1:0];
wire [RA_W-1:0] b_q0   = {{(RA_W-Q_W){1'b0}}, b_q} * PAY_BEATS[RA_W-1:0];  // the set's first row
wire [RA_W-1:0] b_addr = b_q0 + {{(RA_W-BT_W){1'b0}}, b_rel};
wire [DATA_WIDTH-1:0] td = s_agg_tdata;

// The feed: per lane the operation of this cycle. A DATA frame's element in lane l of a
// payload beat goes to lane l at the beat's row. With PARTIAL, a PARTIAL frame's words
// (docs/protocol.md section 9) go to their elements' lanes: element j (word 8 + j of the
// frame, 8-byte words from byte 0) to lane (16 + j) mod LANES, row (16 + j) / LANES -
// PAY_BEAT0, where DATA element j lives; a beat's LANES/2 element words take as many
// lanes in one cycle. The record words after the count element words go one a cycle:
// the X bits of the frame's element words are kept in a mask (xmask, by word index),
// and each record word belongs to the lowest element still set there, whose bit it
// clears when its own X is clear (the element's chain ends); with no bit left, records
// are ignored (the owner search: below, three registered steps, so a record waits 3
// cycles after each write of the mask). A beat holding records is taken from the
// stream once the last of them has gone (a cycle for its element words first).
wire [LANES-1:0]      l_valid;
wire [LANES*RA_W-1:0] l_addr;
wire [LANES*IN_W-1:0] l_value;
wire [LANES-1:0]      l_word;
wire [LANES-1:0]      l_first;
genvar l;
generate
if (PARTIAL == 0) begin : g_feed
    assign f_go = 1'b1;
    for (l = 0; l < LANES; l = l + 1) begin : g_lane_op
        // a lane carries an element when its bytes are in the frame and past the header
        wire in_elem = s_agg_tkeep[4*l] && (b_beat != 0 || 4*l >= 64);
        wire [31:0] w = td[l*32 +: 32];
        assign l_valid[l] = in_fire && b_accept && b_pay && in_elem;
        assign l_addr[l*RA_W +: RA_W] = b_addr;
        assign l_value[l*IN_W +: IN_W] = {w[7:0], w[15:8], w[23:16], w[31:24]};  // big-endian on the wire
        assign l_word[l] = 1'b0;
        assign l_first[l] = b_first;
    end
end else begin : g_feed_partial
    localparam WPB  = LANES / 2;                   // 8-byte words of a beat
    localparam PB_W = 17 - $clog2(BYTES);          // a beat of any frame (16-bit lengths)
    localparam XN   = 8 + MAX_COUNT;               // xmask: by word index, elements from 8
    localparam HB   = 42 / BYTES;                  // the beat of the type and count fields
    localparam LG   = $clog2(LANES);
    reg  [PB_W-1:0] pb;                            // the beat within the frame
    reg             at_hdr;                        // pb is the header beat
    wire [PB_W-1:0] pb_1 = pb + 1'b1;
    wire [PB_W-1:0] pb_n = in_last ? {PB_W{1'b0}} : pb_1;
    always @(posedge clk) begin
        if (rst) begin
            pb <= {PB_W{1'b0}};
            at_hdr <= HB == 0;
        end else if (in_fire) begin
            pb <= pb_n;
            at_hdr <= pb_n == HB[PB_W-1:0];
        end
    end
    // the frame's type and count, from its header beat (held for the later beats)
    wire        p_now   = td[(42 % BYTES)*8 +: 4] == 4'(WS_PROTO_PARTIAL);
    wire [15:0] cnt_now = {td[(52 % BYTES)*8 +: 8], td[(53 % BYTES)*8 +: 8]};
    // reset: they decide whether a frame's first beats (before its header beat) hold
    // records, which they never do, but a beat must not wait on an unknown
    reg         p_r;
    reg  [15:0] cnt_r;
    always @(posedge clk)
        if (rst) begin
            p_r <= 1'b0;
            cnt_r <= 16'd0;
        end else if (in_fire && at_hdr) begin
            p_r <= p_now;
            cnt_r <= cnt_now;
        end
    wire        is_p = at_hdr ? p_now : p_r;
    wire [15:0] f_cnt = at_hdr ? cnt_now : cnt_r;

    // the beat's words: big-endian, kept, element or record by their index (a frame has
    // fewer than 2^13 words). The class of each word of a beat after the header beat is
    // registered when the beat before it is taken (c_elem, c_rec, from that beat's index
    // and the count), so that no compare of the index and the count lies on the path to
    // s_agg_tready. The header beat's words (element words at 1024 bits, where it is beat
    // 0) are classed from the count in the beat itself: word HI >= 8 is a record word when
    // count <= HI - 8, else an element word; words below 8 are headers.
    wire [63:0]    wd [0:WPB-1];
    wire [WPB-1:0] w_elem, w_rec, w_x;
    wire [WPB-1:0] h_elem, h_rec, n_elem, n_rec;
    reg  [WPB-1:0] c_elem, c_rec;
    wire [15:0]    w0 = {{(17-PB_W-LG){1'b0}}, pb, {(LG-1){1'b0}}};     // pb * WPB
    wire [16:0]    n0 = {{(17-PB_W-LG+1){1'b0}}, pb_1, {(LG-1){1'b0}}};   // the next beat's
    wire [16:0]    c8 = {1'b0, f_cnt} + 17'd8;     // the first record word's index
    genvar k, bb;
    for (k = 0; k < WPB; k = k + 1) begin : g_word
        localparam [16:0] K17 = k;
        localparam [16:0] HI  = 17'(HB * WPB + k);     // the header beat's word k
        for (bb = 0; bb < 8; bb = bb + 1) begin : g_byte
            assign wd[k][(7-bb)*8 +: 8] = td[(8*k + bb)*8 +: 8];
        end
        assign {n_elem[k], n_rec[k]} = word_class(n0 + K17, c8);
        if (HI < 17'd8) begin : g_hdr_head
            assign h_elem[k] = 1'b0;
            assign h_rec[k]  = 1'b0;
        end else begin : g_hdr_body
            assign h_rec[k]  = cnt_le(cnt_now, 16'(HI - 17'd8));
            assign h_elem[k] = !h_rec[k];
        end
        wire kept = s_agg_tkeep[8*k];
        assign w_elem[k] = kept && (at_hdr ? h_elem[k] : c_elem[k]);
        assign w_rec[k]  = kept && (at_hdr ? h_rec[k] : c_rec[k]);
        assign w_x[k]    = wd[k][63];
    end
    always @(posedge clk)
        if (rst || (in_fire && in_last)) begin
            c_elem <= {WPB{1'b0}};                 // beat 0 is never after the header
            c_rec  <= {WPB{1'b0}};
        end else if (in_fire) begin
            c_elem <= n_elem;
            c_rec  <= n_rec;
        end

    reg              rph;                          // the beat's element cycle is done
    reg  [WPB-1:0]   rpend;                        // its record words not yet taken
    reg              r_last;                       // rpend has one word left (or none): registered
                                                   // with it, on the path to s_agg_tready
    reg  [XN-1:0]    xmask;
    wire             beat_in  = s_agg_tvalid && dv;
    wire             has_rec  = is_p && b_accept && |w_rec;
    wire [WPB-1:0]   r_one    = rpend & (~rpend + 1'b1);   // the next record word
    wire [WPB-1:0]   r_rest   = rpend & ~r_one;
    wire             e_cyc    = beat_in && !rph;   // the element cycle of a beat
    wire             r_cyc    = beat_in && rph;

    // the record word of this cycle
    reg  [63:0]      r_word;
    integer ri;
    always @(*) begin
        r_word = 64'd0;
        for (ri = 0; ri < WPB; ri = ri + 1)
            if (r_one[ri])
                r_word = wd[ri];
    end

    // The element a record word belongs to, the lowest one set in xmask, comes from three
    // registered steps over xmask, never from a search in the word's cycle: O1 per group
    // of 8 bits its any bit and the one-hot of its lowest bit; O2 the lowest group's
    // one-hot; O3 the owner's bit, lane and row (a group's element j = 8*g + i - 8 is
    // at position 16 + j = 8*(g + 1) + i: its lane's bits above the low 3 and its row are
    // constants of the group, the low 3 bits are i). They hold for xmask as it is once
    // it has not been written for 3 cycles (own_ok); a record word waits until then (a
    // beat's element cycle writes xmask, and so does a chain's end).
    localparam NG = XG_N;
    wire [NG*8-1:0]  xm = {{(NG*8-XN){1'b0}}, xmask};
    reg  [NG-1:0]    o1_any, o2_goh;
    reg  [NG*8-1:0]  o1_oh, o2_oh;
    reg              o2_v;
    reg  [NG*8-1:0]  own_oh;                       // O3: the owner's bit in xmask
    reg  [LG-1:0]    own_lane;
    reg  [BT_W-1:0]  own_row;
    reg              own_v;                        // there is an owner
    reg  [2:0]       x_wr_q;                       // xmask written at each of the last 3 edges
    wire             own_ok = x_wr_q == 3'b000;
    wire             r_take = r_cyc && own_ok;     // the record word goes this cycle
    wire             r_op   = r_take && own_v;     // ... to its owner's lane
    wire             x_end  = r_op && !r_word[63]; // the owner's chain ends
    assign f_go = rph ? r_last && own_ok : !has_rec;
    wire [RA_W-1:0]  r_addr = b_q0 + {{(RA_W-BT_W){1'b0}}, own_row};

    integer og;
    always @(posedge clk) begin
        o1_any <= grp_any(xm);
        o1_oh  <= grp_low(xm);
        o2_goh <= low_one(o1_any);
        o2_oh  <= o1_oh;
        o2_v   <= |o1_any;
        own_v  <= o2_v;
        for (og = 0; og < NG; og = og + 1)
            own_oh[8*og +: 8] <= {8{o2_goh[og]}} & o2_oh[8*og +: 8];
        own_lane <= own_lane_sel(o2_goh, o2_oh);
        own_row  <= own_row_sel(o2_goh);
        if (rst)
            x_wr_q <= 3'b111;
        else
            x_wr_q <= {x_wr_q[1:0], e_cyc || x_end};
    end

    integer xg;
    always @(posedge clk) begin
        if (e_cyc) begin
            // a frame's first beat clears the mask; a PARTIAL's beats set their element
            // words' X bits
            for (xg = 0; xg < XN; xg = xg + 1)
                if (xg / WPB == {{(32-PB_W){1'b0}}, pb})
                    xmask[xg] <= is_p && w_elem[xg % WPB] && w_x[xg % WPB];
                else if (pb == 0)
                    xmask[xg] <= 1'b0;
        end else if (x_end) begin
            xmask <= xmask & ~own_oh[XN-1:0];     // the element's chain ends
        end
        if (e_cyc) begin
            rpend <= w_rec;
            r_last <= one_or_none(w_rec);
        end else if (r_take) begin
            rpend <= r_rest;
            r_last <= one_or_none(r_rest);
        end
        if (rst)
            rph <= 1'b0;
        else if (e_cyc && has_rec)
            rph <= 1'b1;
        else if (r_take && r_last)
            rph <= 1'b0;
    end

    for (l = 0; l < LANES; l = l + 1) begin : g_lane_op
        wire in_elem = s_agg_tkeep[4*l] && (b_beat != 0 || 4*l >= 64);
        wire [31:0] w = td[l*32 +: 32];
        // the beat's word for this lane: position pb*WPB + 8 + kk has residue l
        localparam [LG-1:0] LL = l;
        localparam [15:0]   P0 = PAY_BEAT0[15:0];
        /* verilator lint_off UNUSEDSIGNAL */  // a row has BT_W bits
        wire [15:0] start = w0 + 16'd8;
        wire [LG-1:0] kl  = LL - start[LG-1:0];
        wire [15:0] kk    = {{(16-LG){1'b0}}, kl};
        wire [15:0] pos   = start + kk;
        wire [15:0] row   = (pos >> LG) - P0;
        /* verilator lint_on UNUSEDSIGNAL */
        wire             k_in  = !kl[LG-1];             // kl < WPB = LANES / 2
        wire [LG-2:0]    ks    = kl[LG-2:0];
        wire             e_op  = e_cyc && is_p && b_accept && k_in && w_elem[ks];
        wire             d_op  = in_fire && !is_p && b_accept && b_pay && in_elem;
        wire             rl_op = r_op && own_lane == LL;
        assign l_valid[l] = d_op || e_op || rl_op;
        assign l_addr[l*RA_W +: RA_W] = !is_p ? b_addr : rph ? r_addr :
                                        b_q0 + {{(RA_W-BT_W){1'b0}}, row[BT_W-1:0]};
        assign l_value[l*IN_W +: IN_W] = !is_p ? {32'd0, w[7:0], w[15:8], w[23:16], w[31:24]} :
                                         rph ? {1'b1, r_word[62:0]} : wd[ks];
        assign l_word[l] = is_p;
        assign l_first[l] = b_first && !rph;
    end
end

// one engine without PARTIAL: the lanes round at the round's last frame; else exact
// partials only, read by the combine through a replica
for (l = 0; l < LANES; l = l + 1) begin : g_lane
    ws_acc_lane #(.ACC_W(ACC_W), .DEPTH(RDEPTH), .ADDR_W(RA_W), .ADD_CHUNKS(ADD_CHUNKS),
                  .RD_PORT(COMB), .WORDS(PARTIAL)) lane (
        .clk(clk), .rst(rst),
        .in_valid(l_valid[l]),
        .in_addr(l_addr[l*RA_W +: RA_W]),
        .in_value(l_value[l*IN_W +: IN_W]), .in_word(l_word[l]),
        .in_first(l_first[l]), .in_last(COMB == 0 && b_last),
        .out_valid(eo_valid[l]), .out_addr(eo_addr[l*RA_W +: RA_W]),
        .out_result(eo_result[l*32 +: 32]),
        .raw_addr(cb_rd_addr),
        .raw_data(part_rd[l*(ACC_W+4) +: ACC_W+4])
    );
end

if (COMB != 0) begin : g_fence
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
    assign done_cnt = fcount;
end else begin : g_no_fence
    assign done_cnt = {FC_W{1'b0}};
end
endgenerate

endmodule

`resetall
