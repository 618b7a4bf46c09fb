// tb_ws_feed - ws_feed: directed DATA frames through one engine's feed into its lanes, every entry checked bit for bit.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The testbench plays the judge (decisions: accept, first, last, set) and the engine's parser (a
// stream of DATA frames, 64 + 4*count bytes, elements small integers as binary32, with idle
// cycles at random; the shared monitor checks the stream's rules). It keeps the sums each lane
// entry must hold. ENGINES = 1 (COMB = 0): every operation of a round's last frame must come out
// of its lane (eo_*) once, in order, rounded (the entry's exact sum, here an integer); a lane
// with no element must not. ENGINES > 1 or PARTIAL = 1 (COMB = 1; PARTIAL = 1 takes the PARTIAL
// feed's DATA path): done_cnt must count each frame once, and then every payload entry read
// through cb_rd_addr must be the exact sum (v * 2^149, flags {0, 0, 0, not -0}).
// Cases: a round of three frames of MAX_COUNT elements (first, then added), a frame the judge
// dropped in the middle (its beats taken, nothing added), the same set again (first clears the
// old sums) with a short last beat, a frame of one element, decisions pushed long before their
// frames (dc_space must fall once the FIFO holds 13, and rise again), and no beat taken while no
// decision waits. Prints PASS or FAIL.
module tb_ws_feed #(
    parameter DATA_WIDTH = 256,
    parameter ENGINES    = 1,
    parameter PARTIAL    = 0
);

import ws_regmap::*;

localparam MAX_JOBS    = 2;
localparam MAX_WORKERS = 4;
localparam POOL_SLOTS  = 4;
localparam MAX_COUNT   = 40;
localparam FC_W        = 16;
localparam ACC_W       = PARTIAL != 0 ? WS_XSUM_W : 277 + 2 + 1;
localparam COMB        = (ENGINES > 1 || PARTIAL != 0) ? 1 : 0;
`include "ws_widths.vh"
`include "ws_judge.vh"
localparam AXIS_BYTES  = BYTES;
`include "axis_tb.vh"

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;
integer cycle = 0;
always @(posedge clk) cycle <= cycle + 1;
integer errors = 0;

reg  [DATA_WIDTH-1:0]     tdata = {DATA_WIDTH{1'b0}};
reg  [BYTES-1:0]          tkeep = {BYTES{1'b0}};
reg                       tvalid = 1'b0, tlast = 1'b0;
wire                      tready;
reg                       dc_push = 1'b0;
reg  [DC_W-1:0]           dc_data = {DC_W{1'b0}};
wire                      dc_space;
reg  [RA_W-1:0]           cb_rd_addr = {RA_W{1'b0}};
wire [LANES*(ACC_W+4)-1:0] part_rd;
wire [LANES-1:0]          eo_valid;
wire [LANES*RA_W-1:0]     eo_addr;
wire [LANES*32-1:0]       eo_result;
wire [FC_W-1:0]           done_cnt;

ws_feed #(
    .DATA_WIDTH(DATA_WIDTH), .ENGINES(ENGINES), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
    .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .PARTIAL(PARTIAL), .COMB(COMB),
    .ACC_W(ACC_W), .FC_W(FC_W)
) dut (
    .clk(clk), .rst(rst),
    .s_agg_tdata(tdata), .s_agg_tkeep(tkeep), .s_agg_tvalid(tvalid), .s_agg_tready(tready),
    .s_agg_tlast(tlast),
    .dc_push(dc_push), .dc_data(dc_data), .dc_space(dc_space),
    .cb_rd_addr(cb_rd_addr), .part_rd(part_rd),
    .eo_valid(eo_valid), .eo_addr(eo_addr), .eo_result(eo_result),
    .done_cnt(done_cnt)
);

axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(1)) mon (
    .clk(clk), .rst(rst), .tdata(tdata), .tkeep(tkeep), .tvalid(tvalid), .tready(tready),
    .tlast(tlast), .tuser(1'b0)
);

// binary32 of a small integer (|n| < 2^24: exact)
function [31:0] f32_of(input integer n);
    reg        sg;
    reg [31:0] m;
    integer    p;
    begin
        sg = n < 0;
        m = sg ? -n : n;
        if (m == 0) begin
            f32_of = 32'd0;
        end else begin
            p = 23;
            while (!m[p]) p = p - 1;
            m = m << (23 - p);
            f32_of = {sg, 8'(p + 127), m[22:0]};
        end
    end
endfunction

// element j of frame f: an integer in -1000..1000
function integer elem(input integer f, input integer j);
    reg [31:0] h;
    begin
        h = axis_word(32'h0fee_d5ed, 0, f, j);
        elem = h % 2001;
        elem = elem - 1000;
    end
endfunction

// ---- the lanes' expected entries, by row and lane (an integer sum), and the outputs owed
localparam NE = RDEPTH * LANES;
integer    xs_sum [0:NE-1];
reg        xs_set [0:NE-1];
integer    ii;
initial for (ii = 0; ii < NE; ii = ii + 1) begin xs_sum[ii] = 0; xs_set[ii] = 1'b0; end
// COMB = 0: per lane, the outputs owed in order: {addr, word}
localparam QD = 4096;
reg [RA_W+31:0] oq [0:LANES*QD-1];
integer         oq_w [0:LANES-1];
integer         oq_r [0:LANES-1];
initial for (ii = 0; ii < LANES; ii = ii + 1) begin oq_w[ii] = 0; oq_r[ii] = 0; end

integer ol;
always @(posedge clk)
    if (!rst)
        for (ol = 0; ol < LANES; ol = ol + 1)
            if (eo_valid[ol]) begin
                if (COMB != 0) begin
                    $display("FAIL cycle %0d: lane %0d: a rounded output with COMB = 1", cycle, ol);
                    errors = errors + 1;
                end else if (oq_r[ol] >= oq_w[ol]) begin
                    $display("FAIL cycle %0d: lane %0d: an output (row %0d, %h) with none owed", cycle, ol,
                             eo_addr[ol*RA_W +: RA_W], eo_result[ol*32 +: 32]);
                    errors = errors + 1;
                end else begin
                    if ({eo_addr[ol*RA_W +: RA_W], eo_result[ol*32 +: 32]} !== oq[ol*QD + oq_r[ol]]) begin
                        $display("FAIL cycle %0d: lane %0d: output row %0d %h, expected row %0d %h", cycle, ol,
                                 eo_addr[ol*RA_W +: RA_W], eo_result[ol*32 +: 32],
                                 oq[ol*QD + oq_r[ol]][RA_W+31:32], oq[ol*QD + oq_r[ol]][31:0]);
                        errors = errors + 1;
                    end
                    oq_r[ol] = oq_r[ol] + 1;
                end
            end

// ---- decisions and frames, in order: the decision of frame k is dq_*[k]
integer    n_dec = 0, n_sent = 0;
reg        dq_acc [0:255];
reg        dq_first [0:255];
reg        dq_last [0:255];
integer    dq_q [0:255];

task decide(input acc, input first, input last, input integer q);
    begin
        @(negedge clk);
        while (!dc_space) @(negedge clk);
        dc_push = 1'b1;
        dc_data = {DC_W{1'b0}};
        dc_data[DC_ACCEPT] = acc;
        dc_data[DC_FIRST] = first;
        dc_data[DC_LAST] = last;
        dc_data[DC_Q +: Q_W] = q[Q_W-1:0];
        dq_acc[n_dec] = acc;
        dq_first[n_dec] = first;
        dq_last[n_dec] = last;
        dq_q[n_dec] = q;
        n_dec = n_dec + 1;
        @(negedge clk);
        dc_push = 1'b0;
    end
endtask

// no beat taken while no decision waits
integer n_done = 0;
always @(posedge clk)
    if (!rst) begin
        if (tvalid && tready && n_done >= n_dec) begin
            $display("FAIL cycle %0d: a beat taken with no decision waiting", cycle);
            errors = errors + 1;
        end
        if (tvalid && tready && tlast) n_done = n_done + 1;
    end

// byte k of frame f of cnt elements: the header (version 2, type DATA at 42, count at 52..53),
// then the elements big-endian
function [7:0] fbyte(input integer f, input integer cnt, input integer k);
    reg [31:0] w;
    begin
        if (k == 42)       fbyte = 8'h20;
        else if (k == 52)  fbyte = cnt[15:8];
        else if (k == 53)  fbyte = cnt[7:0];
        else if (k < 64)   begin w = axis_word(32'h0bad_cafe, 1, f, k); fbyte = w[7:0]; end
        else begin
            w = f32_of(elem(f, (k - 64) / 4));
            fbyte = w[31 - 8 * ((k - 64) % 4) -: 8];
        end
    end
endfunction

// send frame f of cnt elements (its decision is the n_sent-th), idle cycles at idle_pct; the
// expected entries follow its decision
integer idle_pct = 30;
reg [31:0] rsd = 32'h9e37_79b9;
integer fb, fk, flen, fbeats, a, j, lane, row;
reg [RA_W-1:0] ta;
task send(input integer f, input integer cnt);
    integer d;
    begin
        d = n_sent;
        n_sent = n_sent + 1;
        flen = 64 + 4 * cnt;
        fbeats = (flen + BYTES - 1) / BYTES;
        for (fb = 0; fb < fbeats; fb = fb + 1) begin
            rsd = xs(rsd);
            while ((rsd % 100) < idle_pct) begin
                tvalid = 1'b0;
                @(negedge clk);
                rsd = xs(rsd);
            end
            for (fk = 0; fk < BYTES; fk = fk + 1)
                tdata[8*fk +: 8] = fb * BYTES + fk < flen ? fbyte(f, cnt, fb * BYTES + fk) : 8'hee;
            tkeep = axis_keep(flen, fb);
            tlast = fb == fbeats - 1;
            tvalid = 1'b1;
            // ready as the next rising edge sees it: sampled a moment after the inputs changed,
            // never at the edge itself (where a simulator may show it before or after the
            // edge's updates)
            #1;
            while (!tready) begin
                @(negedge clk);
                #1;
            end
            @(negedge clk);
        end
        tvalid = 1'b0;
        tlast = 1'b0;
        // the model: an accepted frame's elements into their entries
        if (dq_acc[d]) begin
            for (j = 0; j < cnt; j = j + 1) begin
                row = (64 + 4 * j) / BYTES - PAY_BEAT0;
                lane = ((64 + 4 * j) % BYTES) / 4;
                a = (dq_q[d] * PAY_BEATS + row) * LANES + lane;
                xs_sum[a] = (dq_first[d] ? 0 : xs_sum[a]) + elem(f, j);
                xs_set[a] = 1'b1;
                if (COMB == 0 && dq_last[d]) begin
                    ta = a / LANES;
                    oq[lane*QD + oq_w[lane]] = {ta, f32_of(xs_sum[a])};
                    oq_w[lane] = oq_w[lane] + 1;
                end
            end
        end
    end
endtask

// COMB = 1: once done_cnt has counted every frame, every entry of set q's payload of cnt elements
integer cw, cr, cl, ca;
reg [ACC_W+3:0] want;
task check_entries(input integer q, input integer cnt);
    begin
        for (cw = 0; cw < 100 && done_cnt != n_sent[FC_W-1:0]; cw = cw + 1) @(negedge clk);
        if (done_cnt != n_sent[FC_W-1:0]) begin
            $display("FAIL cycle %0d: done_cnt %0d, %0d frames sent", cycle, done_cnt, n_sent);
            errors = errors + 1;
        end
        for (cr = 0; cr < PAY_BEATS; cr = cr + 1) begin
            cb_rd_addr = q * PAY_BEATS + cr;
            @(negedge clk);
            for (cl = 0; cl < LANES; cl = cl + 1) begin
                ca = (q * PAY_BEATS + cr) * LANES + cl;
                if ((cr + PAY_BEAT0) * BYTES + 4 * cl >= 64 && (cr + PAY_BEAT0) * BYTES + 4 * cl < 64 + 4 * cnt) begin
                    want = {4'b0001, {{(ACC_W-32){xs_sum[ca][31]}}, xs_sum[ca][31:0]} << 149};
                    if (part_rd[cl*(ACC_W+4) +: ACC_W+4] !== want) begin
                        $display("FAIL cycle %0d: set %0d row %0d lane %0d: entry flags %b value %0d x 2^-149 wrong, expected %0d",
                                 cycle, q, cr, cl, part_rd[cl*(ACC_W+4) + ACC_W +: 4], $signed(part_rd[cl*(ACC_W+4) +: 64]),
                                 xs_sum[ca]);
                        errors = errors + 1;
                    end
                end
            end
        end
    end
endtask

// COMB = 1: the done count rises only SETTLE cycles after a frame's last beat, and by one
reg [FC_W-1:0] done_prev = 0;
always @(posedge clk) begin
    if (!rst && done_cnt != done_prev && done_cnt != done_prev + 1'b1) begin
        $display("FAIL cycle %0d: done_cnt went from %0d to %0d", cycle, done_prev, done_cnt);
        errors = errors + 1;
    end
    if (!rst && COMB == 0 && done_cnt != 0) begin
        $display("FAIL cycle %0d: done_cnt %0d with COMB = 0", cycle, done_cnt);
        errors = errors + 1;
    end
    done_prev <= done_cnt;
end

// wait until every owed output is out (COMB = 0)
integer wl, ww;
task drain;
    begin
        repeat (30) @(negedge clk);
        for (wl = 0; wl < LANES; wl = wl + 1)
            if (oq_r[wl] != oq_w[wl]) begin
                $display("FAIL cycle %0d: lane %0d: %0d outputs owed, %0d came", cycle, wl, oq_w[wl], oq_r[wl]);
                errors = errors + 1;
                oq_r[wl] = oq_w[wl];
            end
    end
endtask

integer k, sp, f0;
initial begin
    repeat (4) @(negedge clk);
    rst = 1'b0;
    repeat (4) @(negedge clk);

    // 1. a round of three frames of MAX_COUNT elements in set 3, a dropped frame in the middle
    decide(1, 1, 0, 3);
    decide(1, 0, 0, 3);
    decide(0, 0, 0, 3);
    decide(1, 0, 1, 3);
    send(1, MAX_COUNT);
    send(2, MAX_COUNT);
    send(3, MAX_COUNT);
    send(4, MAX_COUNT);
    drain;
    if (COMB != 0) check_entries(3, MAX_COUNT);

    // 2. the same set again: first clears; a short last beat (LANES + 3 elements); in set 0, a
    // frame of one element, a round of its own
    decide(1, 1, 0, 3);
    decide(1, 0, 1, 3);
    decide(1, 1, 1, 0);
    send(5, LANES + 3);
    send(6, LANES + 3);
    send(7, 1);
    drain;
    if (COMB != 0) begin
        check_entries(3, LANES + 3);
        check_entries(0, 1);
    end

    // 3. decisions far ahead: 13 pushed without a frame fill the FIFO as far as dc_space allows
    f0 = 8;
    sp = 0;
    for (k = 0; k < 13; k = k + 1)
        decide(1, k == 0, k == 12, 5);
    repeat (3) @(negedge clk);
    if (dc_space) begin
        $display("FAIL cycle %0d: dc_space still high with 13 decisions waiting", cycle);
        errors = errors + 1;
    end
    idle_pct = 0;
    for (k = 0; k < 13; k = k + 1)
        send(f0 + k, 17);
    repeat (3) @(negedge clk);
    if (!dc_space) begin
        $display("FAIL cycle %0d: dc_space low with the FIFO empty", cycle);
        errors = errors + 1;
    end
    drain;
    if (COMB != 0) check_entries(5, 17);

    // 4. a long round, one frame dropped, little idle
    idle_pct = 10;
    for (k = 0; k < 10; k = k + 1) begin
        decide(k != 4, k == 0, k == 9, 6);
        send(30 + k, MAX_COUNT - 1);
    end
    drain;
    if (COMB != 0) check_entries(6, MAX_COUNT - 1);

    repeat (20) @(negedge clk);
    errors = errors + mon.errors;
    if (mon.frames != n_sent) begin
        $display("FAIL: the monitor saw %0d frames, %0d sent", mon.frames, n_sent);
        errors = errors + 1;
    end
    if (errors == 0) $display("PASS tb_ws_feed DATA_WIDTH=%0d ENGINES=%0d PARTIAL=%0d: %0d frames", DATA_WIDTH, ENGINES, PARTIAL, n_sent);
    else $display("FAIL tb_ws_feed: %0d errors", errors);
    $finish;
end

initial begin
    #5000000;
    $display("FAIL tb_ws_feed: timeout");
    $finish;
end

endmodule

`resetall
