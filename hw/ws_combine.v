// ws_combine - the engine's output side: completed rounds' sums (a pass-through with one engine, else the engines' partials added and rounded once), the result RAMs, the PARTIAL encoder, the commands.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// docs/architecture.md section 5; ws_engine has one of these (engine.combine). The judge's
// completions (k_comp) come in round order. COMB = 0 (one engine, PARTIAL = 0): the lanes have
// rounded the round themselves, and their outputs (eo_*) go straight on (g_pass). COMB = 1: once
// each engine's done count has reached the round's fence, each row is read from every engine's
// replica (cb_rd_addr, part_rd), the partials of the engines that took part are added (integer
// adds, flags ORed) and rounded once (ws_fx_to_f32), or, for a round that leaves as a PARTIAL,
// the exact sums go to the PARTIAL encoder (ws_partial_enc) (g_combine). The rounded rows are
// written to the result RAMs (one copy per result generator) and summed into the round's
// payload checksum (ws_round_csum); w_rd tells the judge a round's read of the lanes is done.
// The commands (k_cmd) go in judgment order to every result generator, a completion once its
// checksum is there, a PARTIAL once its frame is.
module ws_combine #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter ENGINES     = 1,    // engines: partials to add, result generators to serve
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count
    parameter PARTIAL     = 0,    // 1: rounds may leave as PARTIAL frames (ws_partial_enc)
    parameter COMB        = 0,    // 1: add and round the lanes' exact partials (ENGINES > 1 or PARTIAL = 1); 0: pass the lanes' rounded sums on
    parameter ACC_W       = 284,  // accumulator bits: ws_engine's ACC_W (284, its default at MAX_WORKERS = 64)
    parameter FC_W        = 16    // the fence counts (wrap; far more than frames in flight)
) (
    input  wire                          clk,
    input  wire                          rst,

    // from the judge: commands and completions in judgment order, and room for them
    output reg                           cmd_space,  // registered: room for this and two more of each
    input  wire                          k_cmd,
    input  wire [CMD_W-1:0]              k_cmd_data,
    input  wire                          k_comp,
    input  wire [CF_W-1:0]               k_comp_data,
    // to the judge: a round's read of the lanes is done (rounded or encoded)
    output wire                          w_rd,
    output wire [Q_W-1:0]                w_q,

    // from the feeds, engine e's lane l at e*LANES + l
    /* verilator lint_off UNUSEDSIGNAL */  // COMB = 0: the lanes' rounded outputs; 1: the replicas
    input  wire [ENGINES*LANES*(ACC_W+4)-1:0] part_rd,
    input  wire [ENGINES*LANES-1:0]      eo_valid,
    input  wire [ENGINES*LANES*RA_W-1:0] eo_addr,
    input  wire [ENGINES*LANES*32-1:0]   eo_result,
    input  wire [ENGINES*FC_W-1:0]       done_cnt,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [RA_W-1:0]               cb_rd_addr,  // the combine's read address, every engine and lane

    // commands, the same to every result generator (cmd_valid/cmd_ready per generator)
    output wire [ENGINES-1:0]            cmd_valid,
    input  wire [ENGINES-1:0]            cmd_ready,
    output wire [CMD_W-1:0]              cmd_data,     // ws_cmd.vh

    // result RAM copies, one read port per generator (registered: data the cycle after)
    input  wire [ENGINES*RA_W-1:0]       res_rd_addr,
    output reg  [ENGINES*DATA_WIDTH-1:0] res_rd_data,

    // PARTIAL = 1: the PARTIAL frame buffer (ws_partial_enc), one read port per generator
    // (registered), and the generators' pulse when a PARTIAL's last row has been read
    /* verilator lint_off UNUSEDSIGNAL */  // PARTIAL = 0: no PARTIAL is sent
    input  wire [ENGINES*PR_W-1:0]       par_rd_addr,
    input  wire [ENGINES-1:0]            par_sent,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [ENGINES*DATA_WIDTH-1:0] par_rd_data
);

`include "ws_widths.vh"   // BYTES, LANES, CN_W, Q_N, Q_W, PAY_BEAT0, PAY_BEATS, RDEPTH, RA_W, BT_W, PR_W
`include "ws_cmd.vh"      // C_* positions of a command, CMD_W
`include "ws_judge.vh"    // CF_*: the layout of a completion

localparam E        = ENGINES;
localparam PD_DEPTH = 16;   // commands waiting for their checksum or a generator
localparam CF_DEPTH = 16;   // completions waiting for the combine

// check configuration
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_combine %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (COMB != (ENGINES > 1 || PARTIAL != 0 ? 1 : 0)) begin : g_bad_comb
        initial begin
            $error("Error: ws_combine %m: COMB must be 1 with several engines or PARTIAL = 1, else 0 (COMB = %0d, ENGINES = %0d, PARTIAL = %0d)",
                   COMB, ENGINES, PARTIAL);
            $finish;
        end
    end
endgenerate

wire [$clog2(PD_DEPTH):0] pd_count;
wire [$clog2(CF_DEPTH):0] cf_count;
wire pd_s_ready, cf_s_ready;
// registered: room for the pushes not yet counted (the one of the cycle before, the one in the
// judge's K register, this judgment's) and one more
always @(posedge clk)
    cmd_space <= !rst && pd_s_ready && cf_s_ready && pd_count < PD_DEPTH - 3 && cf_count < CF_DEPTH - 3;

wire              w_valid, w_last;   // a beat of rounded sums (below), the round's last

// ---------------------------------------------------------------------------------------
// Completions, and per completed round its rounded sums, one row a cycle, onto w_* (the result
// RAMs and the checksum below).

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

genvar gl, ge;
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
        // each lane: the partials of the engines that took part in the round added (stages 2 to
        // 2+CH: carry-save, then chunk by chunk), the sum rounded (to 2+CH+CR), ws_comb_lane
        for (gl = 0; gl < LANES; gl = gl + 1) begin : g_comb
            wire [E*(ACC_W+4)-1:0] lane_part;
            for (ge = 0; ge < E; ge = ge + 1) begin : g_part
                assign lane_part[ge*(ACC_W+4) +: ACC_W+4] = part_rd[(ge*LANES + gl)*(ACC_W+4) +: ACC_W+4];
            end
            ws_comb_lane #(.ENGINES(E), .ACC_W(ACC_W), .CH(CH), .CR(CR)) lane (
                .clk(clk), .en(cp_valid[1 +: CH+CR+1]), .touch(cp_touch), .part(lane_part),
                .sum(cb_sums[gl*(ACC_W+4) +: ACC_W+4]), .f(cb_f[gl*32 +: 32])
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
