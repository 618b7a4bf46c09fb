// ws_engine - the aggregation engine for any ENGINES: one judge of the slot state, a bank of exact lanes per engine, the combine (a pass-through with one engine), the result RAMs and the commands.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// docs/architecture.md section 5. Each engine e has its own ports (an input arbiter and a parser
// in the top), and here its own bank of LANES exact accumulator lanes (ws_acc_lane). Shared:
//   * the judge (ws_judge): the slot state, SwitchML's rules, one frame a cycle in arrival
//     order; the verdict of a frame goes to its engine in a decision FIFO, so the judge runs
//     ahead of the lanes, and the frame's beats move once their decision is there.
//   * the combine. One engine: the lanes round a round's sums themselves at its last frame
//     (in_last), and their outputs go straight on (a pass-through). Several: the lanes keep
//     exact partials (a replica read port, no rounding); when a round completes, the judge
//     stamps it with every engine's count of decisions so far (the fence); once each engine's
//     lanes have written that many frames, the combine reads the round's rows from every
//     engine's replica, adds the partials of the engines that took part (integer adds, flags
//     ORed) and rounds each element once (ws_fx_to_f32).
//   * the result RAM (one copy per result generator) and the round's payload checksum, written
//     by the combine's output; the commands, in judgment order, to every result generator (each
//     serves its own ports), a completion once its checksum is there.
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
    output reg  [ENGINES*DATA_WIDTH-1:0] res_rd_data,

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
localparam ADD_CHUNKS = 4;                       // the lanes' add split
localparam SETTLE    = ADD_CHUNKS + 5 + 1;       // lane in_valid to a replica read seeing it, cycles
// the combine adds and rounds: with several engines, and with PARTIAL (the lanes stay exact)
localparam COMB      = (E > 1 || PARTIAL != 0) ? 1 : 0;

// The PARTIAL feed's owner search (g_feed_partial): the frame's element words' X bits by word
// index (8 + MAX_COUNT of them), in groups of 8, and the steps over them
localparam XG_N      = (8 + MAX_COUNT + 7) / 8;
localparam XG_LG     = $clog2(LANES);

// a PARTIAL frame's word by its index (8-byte words from byte 0; 0 to 7 are the headers), given
// the index of its first record word (8 + count): {element word, record word}
function [1:0] word_class(input [16:0] idx, input [16:0] rec0);
    word_class = {idx >= 17'd8 && idx < rec0, idx >= rec0};
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

localparam PD_DEPTH = 16;   // commands waiting for their checksum or a generator
localparam CF_DEPTH = 16;   // completions waiting for the combine
wire [$clog2(PD_DEPTH):0] pd_count;
wire [$clog2(CF_DEPTH):0] cf_count;
wire pd_s_ready, cf_s_ready;
// registered: room for the pushes not yet counted (the one of the cycle before, the one in the
// judge's K register, this judgment's) and one more
reg  cmd_space;
always @(posedge clk)
    cmd_space <= !rst && pd_s_ready && cf_s_ready && pd_count < PD_DEPTH - 3 && cf_count < CF_DEPTH - 3;

wire [E-1:0]      dc_push, dc_space;
wire [DC_W-1:0]   dc_data;
wire              k_cmd, k_comp;
wire [CMD_W-1:0]  k_cmd_data;
wire [CF_W-1:0]   k_comp_data;
wire              w_valid, w_last;   // a beat of rounded sums (below), the round's last
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

localparam DC_DEPTH = 16;
/* verilator lint_off UNUSEDSIGNAL */  // one engine: the lanes' rounded outputs; several: the replicas
wire [E*LANES*(ACC_W+4)-1:0] part_rd;     // replica reads, engine e lane l
wire [E*LANES-1:0]           eo_valid;    // rounded outputs, engine e lane l
wire [E*LANES*RA_W-1:0]      eo_addr;
wire [E*LANES*32-1:0]        eo_result;
wire [E*FC_W-1:0]            done_cnt;    // frames whose entries are written, per engine
/* verilator lint_on UNUSEDSIGNAL */
wire [RA_W-1:0]              cb_rd_addr;  // the combine's read address, every engine and lane

genvar ge, gl;
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
        // credit mode: a push is dc_push alone (the judge's dc_space is the credit), one gate
        // less on the path from the judge's verdict to the count
        ws_fifo #(.WIDTH(DC_W), .DEPTH(DC_DEPTH), .CREDIT(1)) decision_fifo (
            .clk(clk), .rst(rst),
            .s_data(dc_data), .s_valid(dc_push[ge]), .s_ready(ds_ready),
            .m_data(dd), .m_valid(dv), .m_ready(in_fire && in_last),
            .count(dcnt)
        );
        // registered: room for the push of the cycle before, this judgment's and one more
        reg space_r;
        always @(posedge clk)
            space_r <= !rst && dcnt < DC_DEPTH - 3;
        assign dc_space[ge] = space_r;
        // a frame's beats move once its decision is there (and, a PARTIAL's, once the feed has
        // taken its record words); the decision leaves with the last beat
        wire            f_go;
        assign s_agg_tready[ge] = dv && f_go;

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
        if (PAY_BEAT0 == 0) begin : g_pay_all
            assign b_pay = 1'b1;
        end else begin : g_pay_after
            assign b_pay = b_beat >= PAY_BEAT0[BT_W-1:0];
        end
        wire [BT_W-1:0] b_rel  = b_beat - PAY_BEAT0[BT_W-1:0];
        wire [RA_W-1:0] b_q0   = {{(RA_W-Q_W){1'b0}}, b_q} * PAY_BEATS[RA_W-1:0];  // the set's first row
        wire [RA_W-1:0] b_addr = b_q0 + {{(RA_W-BT_W){1'b0}}, b_rel};
        wire [DATA_WIDTH-1:0] td = s_agg_tdata[ge*DATA_WIDTH +: DATA_WIDTH];

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
        if (PARTIAL == 0) begin : g_feed
            assign f_go = 1'b1;
            for (l = 0; l < LANES; l = l + 1) begin : g_lane_op
                // a lane carries an element when its bytes are in the frame and past the header
                wire in_elem = s_agg_tkeep[ge*(DATA_WIDTH/8) + 4*l] && (b_beat != 0 || 4*l >= 64);
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
            // 0) are classed from the count in the beat itself: compares with constants.
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
                assign {h_elem[k], h_rec[k]} = word_class(HI, {1'b0, cnt_now} + 17'd8);
                wire kept = s_agg_tkeep[ge*(DATA_WIDTH/8) + 8*k];
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
            reg  [XN-1:0]    xmask;
            wire             beat_in  = s_agg_tvalid[ge] && dv;
            wire             has_rec  = is_p && b_accept && |w_rec;
            wire [WPB-1:0]   r_one    = rpend & (~rpend + 1'b1);   // the next record word
            wire             r_last   = rpend == r_one;
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
                if (e_cyc)
                    rpend <= w_rec;
                else if (r_take)
                    rpend <= rpend & ~r_one;
                if (rst)
                    rph <= 1'b0;
                else if (e_cyc && has_rec)
                    rph <= 1'b1;
                else if (r_take && r_last)
                    rph <= 1'b0;
            end

            for (l = 0; l < LANES; l = l + 1) begin : g_lane_op
                wire in_elem = s_agg_tkeep[ge*(DATA_WIDTH/8) + 4*l] && (b_beat != 0 || 4*l >= 64);
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
                .out_valid(eo_valid[ge*LANES + l]), .out_addr(eo_addr[(ge*LANES + l)*RA_W +: RA_W]),
                .out_result(eo_result[(ge*LANES + l)*32 +: 32]),
                .raw_addr(cb_rd_addr),
                .raw_data(part_rd[(ge*LANES + l)*(ACC_W+4) +: ACC_W+4])
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
            assign done_cnt[ge*FC_W +: FC_W] = fcount;
        end else begin : g_no_fence
            assign done_cnt[ge*FC_W +: FC_W] = {FC_W{1'b0}};
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Combine: per completed round, its rounded sums, one row a cycle, onto w_* (the result RAMs
// and the checksum below).

wire             cf_valid;
wire [CF_W-1:0]  cf_data;
wire             cf_pop;
ws_fifo #(.WIDTH(CF_W), .DEPTH(CF_DEPTH)) completion_fifo (
    .clk(clk), .rst(rst),
    .s_data(k_comp_data), .s_valid(k_comp), .s_ready(cf_s_ready),
    .m_data(cf_data), .m_valid(cf_valid), .m_ready(cf_pop),
    .count(cf_count)
);
wire [Q_W-1:0]    cf_q       = cf_data[CF_Q +: Q_W];
/* verilator lint_off UNUSEDSIGNAL */  // one engine: neither the count, the engines nor the fence matter
wire [CN_W-1:0]   cf_cnt     = cf_data[CF_COUNT +: CN_W];
wire [E-1:0]      cf_touched = cf_data[CF_TOUCH +: E];
wire [E*FC_W-1:0] cf_fence   = cf_data[CF_FENCE +: E*FC_W];
/* verilator lint_on UNUSEDSIGNAL */
wire [BT_W-1:0]   cf_rows    = cf_data[CF_ROWS +: BT_W];   // the round's rows

/* verilator lint_off UNUSEDSIGNAL */  // one engine without PARTIAL: no round is encoded
wire                  enc_room, enc_done;   // the PARTIAL encoder: room for rows, a frame ready
wire [15:0]           enc_ext, enc_csum;
wire                  cf_part    = cf_data[CF_PART];
/* verilator lint_on UNUSEDSIGNAL */
wire [LANES-1:0]      w_mask;     // the beat's words that belong to the payload
wire [LANES*RA_W-1:0] w_addr;     // per word, its row
wire [LANES*32-1:0]   w_f;

generate
if (COMB == 0) begin : g_pass
    // The lanes' rounded outputs, one register stage on (stage R), with "any lane" as a
    // register of its own: the round's end (w_last) and the pop of its completion are then a
    // compare and a few gates behind registers, not behind an OR of every lane's valid.
    reg  [LANES-1:0]      r_valid;
    reg  [LANES*RA_W-1:0] r_addr;
    reg  [LANES*32-1:0]   r_result;
    reg                   out_beat;    // an output beat of a round (any r_valid)
    always @(posedge clk) begin
        r_valid <= rst ? {LANES{1'b0}} : eo_valid;
        out_beat <= !rst && |eo_valid;
        r_addr <= eo_addr;
        r_result <= eo_result;
    end
    // the round's output beat now is its o_nth (from 1): no add before the compare
    reg  [BT_W-1:0] o_nth;
    wire            o_done = out_beat && cf_valid && o_nth == cf_rows;
    always @(posedge clk) begin
        if (rst)
            o_nth <= {{(BT_W-1){1'b0}}, 1'b1};
        else if (out_beat)
            o_nth <= o_done ? {{(BT_W-1){1'b0}}, 1'b1} : o_nth + 1'b1;
    end
    assign cf_pop = o_done;
    assign cb_rd_addr = {RA_W{1'b0}};
    assign w_rd = out_beat && o_done;
    assign enc_room = 1'b0;
    assign enc_done = 1'b0;
    assign enc_ext = 16'd0;
    assign enc_csum = 16'd0;
    assign par_rd_data = {E*DATA_WIDTH{1'b0}};
    assign w_valid = out_beat;
    assign w_last = o_done;
    assign w_q = cf_q;
    assign w_mask = r_valid;
    assign w_addr = r_addr;
    assign w_f = r_result;
end else begin : g_combine
    // After the round's fence, each row: read every engine's partials, add those of the engines
    // that took part (integer), round once.
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
    // registered: the head's fence compared in the cycle before, used when the head was there
    // and stayed (done counts only grow, so "reached" stays true for the same head)
    reg fence_ok_r, cf_seen;
    always @(posedge clk) begin
        fence_ok_r <= fence_ok;
        cf_seen <= !rst && cf_valid && !cf_pop;
    end
    // a round for the PARTIAL encoder goes a row at a time while it has room (records stall it)
    wire            cb_issue = (cb_run || (cf_valid && cf_seen && fence_ok_r)) && (!cf_part || enc_room);
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

    // control alongside: [1] the replica data, [2] the carry-save pair, [2+CH] the sum, [2+CH+CR] the rounded value
    localparam CH = 4;                          // the combine's add: chunks, one a stage
    localparam CW = (ACC_W + CH - 1) / CH;      // chunk width
    localparam PW = CH * CW;                    // the operands padded to whole chunks
    localparam CR = 5;                          // the rounding's stages (ws_fx_to_f32 PIPELINE), as in the lanes
    localparam CP = 2 + CH + CR;
    reg [CP:1]       cp_valid;
    reg [CP:1]       cp_last;
    reg [CP:1]       cp_part;     // the row goes to the PARTIAL encoder (at stage 2 + CH), not rounded
    reg [CP:1]       cp_first;
    reg [CN_W-1:0]   cp_cnt   [1:CP];
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
        cp_part[1] <= cf_part;
        cp_first[1] <= cb_row == {BT_W{1'b0}};
        cp_cnt[1] <= cf_cnt;
        for (cs = 2; cs <= CP; cs = cs + 1) begin
            cp_q[cs] <= cp_q[cs-1];
            cp_addr[cs] <= cp_addr[cs-1];
            cp_mask[cs] <= cp_mask[cs-1];
            cp_last[cs] <= cp_last[cs-1];
            cp_part[cs] <= cp_part[cs-1];
            cp_first[cs] <= cp_first[cs-1];
            cp_cnt[cs] <= cp_cnt[cs-1];
        end
        if (rst)
            cp_valid <= {CP{1'b0}};
        else
            cp_valid <= {cp_valid[CP-1:1], cb_issue};
    end

    wire [LANES*32-1:0] cb_f;
    /* verilator lint_off UNUSEDSIGNAL */  // PARTIAL = 0: no round is encoded
    wire [LANES*(ACC_W+4)-1:0] cb_sums;   // stage 2 + CH: the row's exact sums
    /* verilator lint_on UNUSEDSIGNAL */
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
            assign cb_sums[gl*(ACC_W+4) +: ACC_W+4] = sum_q;
            ws_fx_to_f32 #(.ACC_W(ACC_W), .PIPELINE(CR)) rnd (
                .clk(clk), .fx(sum_q[ACC_W-1:0]),
                .nan(sum_q[ACC_W+3]), .pinf(sum_q[ACC_W+2]), .ninf(sum_q[ACC_W+1]),
                .notnegzero(sum_q[ACC_W]), .f(cb_f[gl*32 +: 32])
            );
        end

    // stage CP + 1: the output register, written to the result RAMs and summed into the checksum
    // (a PARTIAL's rows are not written; its last retires the lanes' read at this stage too, so
    // that the judge sees at most one retirement a cycle)
    reg                 o_valid, o_last, o_rd;
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
        o_valid <= !rst && cp_valid[CP] && !cp_part[CP];
        o_rd <= !rst && cp_valid[CP] && cp_last[CP];
    end
    assign w_valid = o_valid;
    assign w_last = o_last;
    assign w_q = o_q;
    assign w_mask = o_mask;
    assign w_addr = {LANES{o_addr}};
    assign w_f = o_f;
    assign w_rd = o_rd;

    if (PARTIAL != 0) begin : g_enc
        // The PARTIAL encoder: the exact sums of a waiting round, row by row, into the frame
        // buffer the generators send from
        ws_partial_enc #(.DATA_WIDTH(DATA_WIDTH), .MAX_COUNT(MAX_COUNT), .ACC_W(ACC_W),
                         .READERS(E)) enc (
            .clk(clk), .rst(rst),
            .s_valid(cp_valid[2+CH] && cp_part[2+CH]), .s_first(cp_first[2+CH]),
            .s_last(cp_last[2+CH]), .s_count(cp_cnt[2+CH]), .s_mask(cp_mask[2+CH]),
            .s_sums(cb_sums), .s_room(enc_room),
            .done(enc_done), .done_ext(enc_ext), .done_csum(enc_csum),
            .buf_release(|par_sent),
            .rd_addr(par_rd_addr), .rd_data(par_rd_data)
        );
    end else begin : g_no_enc
        assign enc_room = 1'b0;
        assign enc_done = 1'b0;
        assign enc_ext = 16'd0;
        assign enc_csum = 16'd0;
        assign par_rd_data = {E*DATA_WIDTH{1'b0}};
    end
end
endgenerate

// ---------------------------------------------------------------------------------------
// The result RAMs, one per generator: one 32-bit word per lane and row.

genvar gr, gw;
generate
    for (gr = 0; gr < E; gr = gr + 1) begin : g_res
        for (gw = 0; gw < LANES; gw = gw + 1) begin : g_word
            reg [31:0] mem [0:RDEPTH-1];
            always @(posedge clk) begin
                if (w_valid && w_mask[gw])
                    mem[w_addr[gw*RA_W +: RA_W]] <= w_f[gw*32 +: 32];
                res_rd_data[gr*DATA_WIDTH + gw*32 +: 32] <= mem[res_rd_addr[gr*RA_W +: RA_W]];
            end
        end
    end
endgenerate

// the payload checksums of complete rounds: in order for the commands, per set for re-sends
wire             dq_m_valid;
wire [15:0]      dq_m_csum, rs_csum;
wire             dq_pop;
wire [Q_W-1:0]   p_q;
/* verilator lint_off UNUSEDSIGNAL */  // never full: at most one per pending completion
wire             dq_s_ready;
/* verilator lint_on UNUSEDSIGNAL */
ws_round_csum #(.LANES(LANES), .Q_N(Q_N), .Q_W(Q_W), .DEPTH(PD_DEPTH)) round_csum (
    .clk(clk), .rst(rst),
    .beat(w_valid), .mask(w_mask), .words(w_f), .last(w_last), .q(w_q),
    .s_ready(dq_s_ready), .m_csum(dq_m_csum), .m_valid(dq_m_valid), .m_ready(dq_pop),
    .rd_q(p_q), .rd_csum(rs_csum)
);

// ---------------------------------------------------------------------------------------
// Commands, in judgment order, to every result generator.

wire             pd_m_valid;
wire [CMD_W-1:0] pd_m_data;
wire             pd_pop;
ws_fifo #(.WIDTH(CMD_W), .DEPTH(PD_DEPTH)) pending_fifo (
    .clk(clk), .rst(rst),
    .s_data(k_cmd_data), .s_valid(k_cmd), .s_ready(pd_s_ready),
    .m_data(pd_m_data), .m_valid(pd_m_valid), .m_ready(pd_pop),
    .count(pd_count)
);

// the PARTIAL encoder's frames, one at a time (its buffer is released once a generator sent it)
reg          pq_valid;
reg  [15:0]  pq_ext, pq_csum;
wire p_part   = pd_m_data[C_PART];
wire p_resend = pd_m_data[C_RETX] && !p_part;
assign p_q = pd_m_data[C_Q +: Q_W];
// a completion waits for its checksum, a PARTIAL for its frame, a re-send goes as it is
wire p_ready = pd_m_valid && (p_part ? pq_valid : p_resend || dq_m_valid);
reg  [E-1:0] taken;      // generators that have the head command already
wire [E-1:0] take = cmd_valid & cmd_ready;
assign cmd_valid = p_ready ? ~taken : {E{1'b0}};
assign pd_pop = p_ready && (taken | take) == {E{1'b1}};
assign dq_pop = pd_pop && !p_resend && !p_part;
always @(posedge clk) begin
    if (rst || pd_pop)
        taken <= {E{1'b0}};
    else
        taken <= taken | take;
    if (rst || (pd_pop && p_part))
        pq_valid <= 1'b0;
    else if (enc_done)
        pq_valid <= 1'b1;
    if (enc_done) begin
        pq_ext <= enc_ext;
        pq_csum <= enc_csum;
    end
end
reg [CMD_W-1:0] cmd_out;
always @(*) begin
    cmd_out = pd_m_data;
    cmd_out[C_CSUM +: 16] = p_part ? pq_csum : p_resend ? rs_csum : dq_m_csum;
    cmd_out[C_EXT +: 16] = p_part ? pq_ext : 16'd0;
end
assign cmd_data = cmd_out;

endmodule

`resetall
