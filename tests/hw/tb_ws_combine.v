// tb_ws_combine - ws_combine: directed rounds through the combine (or the pass-through), the result RAMs and the commands, checked bit for bit.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The testbench plays the judge (commands and completions, the fence) and the feeds: with
// ENGINES > 1 or PARTIAL = 1 (COMB = 1) a model of the lanes' replicas answers every read of
// cb_rd_addr the cycle after with the entry it holds for that engine, row and lane (an integer
// v as v * 2^S, S = 149 (v itself) or 0 (v units of 2^-149, subnormals), and the four flags);
// with COMB = 0 it sends the lanes' rounded words on eo_* itself. Each case writes a round's
// entries, pushes its command and completion, and checks: nothing is read before every engine's
// done count has reached the round's fence (modulo 2^16); the round's read retires once (w_rd,
// w_q); each of the ENGINES result generators takes the command once (ready at random, the
// shared monitor on each command channel), with every field as pushed but the checksum, which
// must be the ones-complement sum of the round's rounded words (a re-send: of its set's last
// round); and every result RAM copy holds, word by word, the round's expected sum where the
// payload is, and the word there before elsewhere.
// Cases: integer sums across the engines that took part (an engine that did not take part has
// its entries ignored), a round that needs rounding (ties to even, carry into the exponent),
// cancellation to +0 and to -0, subnormal sums, the NaN and Inf flags, a short last row (count
// not a multiple of LANES), a fence that waits and one across the counters' wrap, a re-send, and
// two rounds back to back. Prints PASS or FAIL.
module tb_ws_combine #(
    parameter ENGINES = 2,
    parameter PARTIAL = 0
);

import ws_regmap::*;

localparam DATA_WIDTH  = 256;
localparam MAX_JOBS    = 2;
localparam MAX_WORKERS = 4;
localparam POOL_SLOTS  = 4;
localparam MAX_COUNT   = 40;
localparam FC_W        = 16;
localparam ACC_W       = PARTIAL != 0 ? WS_XSUM_W : 277 + 2 + 1;
localparam COMB        = (ENGINES > 1 || PARTIAL != 0) ? 1 : 0;
localparam E           = ENGINES;
`include "ws_widths.vh"
`include "ws_cmd.vh"
`include "ws_judge.vh"

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;
integer cycle = 0;
always @(posedge clk) cycle <= cycle + 1;
integer errors = 0;

reg                      k_cmd = 1'b0, k_comp = 1'b0;
reg  [CMD_W-1:0]         k_cmd_data = {CMD_W{1'b0}};
reg  [CF_W-1:0]          k_comp_data = {CF_W{1'b0}};
wire                     cmd_space, w_rd;
wire [Q_W-1:0]           w_q;
reg  [E*LANES*(ACC_W+4)-1:0] part_rd;
reg  [E*LANES-1:0]       eo_valid = {E*LANES{1'b0}};
reg  [E*LANES*RA_W-1:0]  eo_addr = {E*LANES*RA_W{1'b0}};
reg  [E*LANES*32-1:0]    eo_result = {E*LANES*32{1'b0}};
reg  [E*FC_W-1:0]        done_cnt = {E*FC_W{1'b0}};
wire [RA_W-1:0]          cb_rd_addr;
wire [E-1:0]             cmd_valid;
reg  [E-1:0]             cmd_ready = {E{1'b0}};
wire [CMD_W-1:0]         cmd_data;
reg  [E*RA_W-1:0]        res_rd_addr = {E*RA_W{1'b0}};
wire [E*DATA_WIDTH-1:0]  res_rd_data;
wire [E*DATA_WIDTH-1:0]  par_rd_data;

ws_combine #(
    .DATA_WIDTH(DATA_WIDTH), .ENGINES(E), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
    .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .PARTIAL(PARTIAL), .COMB(COMB),
    .ACC_W(ACC_W), .FC_W(FC_W)
) dut (
    .clk(clk), .rst(rst),
    .cmd_space(cmd_space),
    .k_cmd(k_cmd), .k_cmd_data(k_cmd_data), .k_comp(k_comp), .k_comp_data(k_comp_data),
    .w_rd(w_rd), .w_q(w_q),
    .part_rd(part_rd), .eo_valid(eo_valid), .eo_addr(eo_addr), .eo_result(eo_result),
    .done_cnt(done_cnt), .cb_rd_addr(cb_rd_addr),
    .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_data(cmd_data),
    .res_rd_addr(res_rd_addr), .res_rd_data(res_rd_data),
    .par_rd_addr({E*PR_W{1'b0}}), .par_sent({E{1'b0}}), .par_rd_data(par_rd_data)
);

// the AXI-Stream rules on each generator's command channel (data held while not taken)
wire [E-1:0] mon_bad;
genvar gm;
generate
    for (gm = 0; gm < E; gm = gm + 1) begin : g_mon
        axis_tb_monitor #(.DATA_WIDTH(8), .USER_WIDTH(CMD_W), .KEEP(0)) mon (
            .clk(clk), .rst(rst), .tdata(8'd0), .tkeep(1'b1), .tvalid(cmd_valid[gm]),
            .tready(cmd_ready[gm]), .tlast(1'b1), .tuser(cmd_data)
        );
        assign mon_bad[gm] = mon.errors != 0;
    end
endgenerate

// ---- the lanes' replicas: entry of engine e, row a, lane l: value and flags
localparam NE = RDEPTH * LANES;
integer    rv [0:E*NE-1];        // v
integer    rs [0:E*NE-1];        // S: 149 or 0
reg [3:0]  rf [0:E*NE-1];        // {nan, pinf, ninf, notnegzero}
integer    ri;
initial for (ri = 0; ri < E*NE; ri = ri + 1) begin rv[ri] = 0; rs[ri] = 149; rf[ri] = 4'b0001; end

function [ACC_W-1:0] fx_of(input integer v, input integer s);
    reg [ACC_W-1:0] x;
    begin
        x = {{(ACC_W-32){v[31]}}, v[31:0]};
        fx_of = x << s;
    end
endfunction

// before the fence the lanes have not written the round yet: a read then returns junk
reg     unwritten = 1'b0;
integer re, rl;
always @(posedge clk)
    for (re = 0; re < E; re = re + 1)
        for (rl = 0; rl < LANES; rl = rl + 1)
            part_rd[(re*LANES + rl)*(ACC_W+4) +: ACC_W+4] <= unwritten ? {(ACC_W+4){1'b1}} :
                {rf[re*NE + cb_rd_addr*LANES + rl], fx_of(rv[re*NE + cb_rd_addr*LANES + rl], rs[re*NE + cb_rd_addr*LANES + rl])};

// binary32 of the integer n * 2^-149 when s = 0, of n when s = 149 (|n| < 2^31): nearest even
function [31:0] f32_of(input integer n, input integer s);
    reg        sg;
    reg [31:0] m;
    integer    p, sh, e;
    reg [31:0] mant, rem, half;
    begin
        sg = n < 0;
        m = sg ? -n : n;
        if (s == 0) begin               // |n| < 2^23 here: a subnormal or the smallest binade
            f32_of = {sg, m[30:0]};
        end else begin
            p = 31;
            while (p > 0 && !m[p]) p = p - 1;
            if (m == 0) begin
                f32_of = 32'd0;
            end else begin
                sh = p > 23 ? p - 23 : 0;
                mant = m >> sh;
                rem = m & ((32'd1 << sh) - 1);
                half = sh > 0 ? 32'd1 << (sh - 1) : 32'd0;
                if (sh > 0 && (rem > half || (rem == half && mant[0]))) mant = mant + 1;
                e = p + 127;
                if (mant[24]) begin mant = mant >> 1; e = e + 1; end
                if (p < 23) mant = mant << (23 - p);
                f32_of = {sg, e[7:0], mant[22:0]};
            end
        end
    end
endfunction

// ---- the result RAMs' expected words (X: never written, not checked)
reg [31:0] xr [0:NE-1];
initial for (ri = 0; ri < NE; ri = ri + 1) xr[ri] = 32'hxxxx_xxxx;
reg [15:0] last_csum [0:Q_N-1];

// the ones-complement sum of 16-bit halves, folded (RFC 1071, not inverted)
function [15:0] oc_add(input [15:0] a, input [15:0] b);
    reg [16:0] t;
    begin
        t = {1'b0, a} + {1'b0, b};
        oc_add = t[15:0] + {15'd0, t[16]};
    end
endfunction

// ---- the generators: each takes every command once, ready at random
reg [31:0] rs_gen = 32'h1234_5678;
function [31:0] xs(input [31:0] x);
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        xs = y ^ (y << 5);
    end
endfunction
integer     got_cmds [0:E-1];
reg [CMD_W-1:0] exp_cmd;
integer     want_cmds = 0;
integer     ge;
initial for (ge = 0; ge < E; ge = ge + 1) got_cmds[ge] = 0;
always @(posedge clk) begin
    rs_gen <= xs(rs_gen);
    cmd_ready <= rs_gen[E-1:0] | {E{rs_gen[31]}};
    for (ge = 0; ge < E; ge = ge + 1)
        if (!rst && cmd_valid[ge] && cmd_ready[ge]) begin
            got_cmds[ge] = got_cmds[ge] + 1;
            if (got_cmds[ge] > want_cmds) begin
                $display("FAIL cycle %0d: generator %0d took a command with none expected", cycle, ge);
                errors = errors + 1;
            end else if (cmd_data !== exp_cmd) begin
                $display("FAIL cycle %0d: generator %0d: command %h, expected %h (checksum %h, expected %h)",
                         cycle, ge, cmd_data, exp_cmd, cmd_data[C_CSUM +: 16], exp_cmd[C_CSUM +: 16]);
                errors = errors + 1;
            end
        end
end

// ---- reads retired: counted per set
integer n_rd = 0;
reg [Q_W-1:0] rd_q;
always @(posedge clk)
    if (!rst && w_rd) begin
        n_rd = n_rd + 1;
        rd_q = w_q;
    end

// ---- a round
// set the entry of engine e, row r of set q, lane l
task put(input integer e, input integer q, input integer r, input integer l,
         input integer v, input integer s, input [3:0] f);
    integer a;
    begin
        a = (q * PAY_BEATS + r) * LANES + l;
        rv[e*NE + a] = v;
        rs[e*NE + a] = s;
        rf[e*NE + a] = f;
    end
endtask

// the expected word of a row and lane of set q, from the engines of touch (COMB = 1), and
// whether it is in the payload of a round of cnt elements
function [31:0] expect_word(input integer q, input integer r, input integer l, input [E-1:0] touch);
    integer a, e, sum, s;
    reg [3:0] f;
    begin
        a = (q * PAY_BEATS + r) * LANES + l;
        sum = 0; f = 4'd0; s = 149;
        for (e = 0; e < E; e = e + 1)
            if (touch[e]) begin
                sum = sum + rv[e*NE + a];
                f = f | rf[e*NE + a];
                s = rs[e*NE + a];
            end
        if (f[3] || (f[2] && f[1])) expect_word = 32'h7fc0_0000;
        else if (f[2])              expect_word = 32'h7f80_0000;
        else if (f[1])              expect_word = 32'hff80_0000;
        else if (sum == 0)          expect_word = f[0] ? 32'h0000_0000 : 32'h8000_0000;
        else                        expect_word = f32_of(sum, s);
    end
endfunction
function in_payload(input integer r, input integer l, input integer cnt);
    integer byte0;
    begin
        byte0 = (r + PAY_BEAT0) * BYTES + 4 * l;
        in_payload = byte0 >= 64 && byte0 < 64 + 4 * cnt;
    end
endfunction

// the command of a round (any fields; the checksum is the combine's)
function [CMD_W-1:0] make_cmd(input integer q, input integer cnt, input retx, input [31:0] tag);
    reg [CMD_W-1:0] c;
    begin
        c = {CMD_W{1'b0}};
        c[C_RANK_LO +: WK_W] = tag[WK_W-1:0];
        c[C_RETX] = retx;
        c[C_RANK_HI +: WK_W] = {WK_W{1'b1}};
        c[C_CSUM +: 16] = 16'hdead;             // replaced by the combine
        c[C_ECN +: 2] = tag[1:0];
        c[C_COUNT +: CN_W] = cnt[CN_W-1:0];
        c[C_TENSOR +: 32] = tag ^ 32'h5a5a_0000;
        c[C_OFFSET +: 32] = tag * 7;
        c[C_SLOT +: 16] = q / 2;
        c[C_JOBID +: 16] = 16'hbeef ^ tag[15:0];
        c[C_JOBIDX +: JI_W] = tag[JI_W-1:0];
        c[C_Q +: Q_W] = q[Q_W-1:0];
        c[C_CE +: MAX_WORKERS] = tag[MAX_WORKERS-1:0];
        make_cmd = c;
    end
endfunction

// run a round of set q, cnt elements, engines touch, fence per engine (the done counts are held
// at done_from until `wait_cyc` cycles after the push, then set to the fence); retx: a re-send
// of the set's last round (no completion)
integer run_rows, rr, rl2, n_rd0, wt;
reg [15:0] csum;
reg [31:0] w;
task round(input integer q, input integer cnt, input [E-1:0] touch, input [FC_W-1:0] fence,
           input [FC_W-1:0] done_from, input integer wait_cyc, input retx, input [31:0] tag);
    integer e;
    begin
        run_rows = (64 + 4 * cnt + BYTES - 1) / BYTES - PAY_BEAT0;
        // the expected words and checksum
        csum = 16'd0;
        if (!retx) begin
            for (rr = 0; rr < run_rows; rr = rr + 1)
                for (rl2 = 0; rl2 < LANES; rl2 = rl2 + 1)
                    if (in_payload(rr, rl2, cnt)) begin
                        w = expect_word(q, rr, rl2, touch);
                        xr[(q * PAY_BEATS + rr) * LANES + rl2] = w;
                        csum = oc_add(oc_add(csum, w[31:16]), w[15:0]);
                    end
            last_csum[q] = csum;
        end else begin
            csum = last_csum[q];
        end
        for (e = 0; e < E; e = e + 1) done_cnt[e*FC_W +: FC_W] = done_from;
        exp_cmd = make_cmd(q, cnt, retx, tag);
        exp_cmd[C_CSUM +: 16] = csum;
        want_cmds = want_cmds + 1;
        n_rd0 = n_rd;
        @(negedge clk);
        while (!cmd_space) @(negedge clk);
        k_cmd = 1'b1;
        k_cmd_data = make_cmd(q, cnt, retx, tag);
        k_comp = !retx;
        k_comp_data = {CF_W{1'b0}};
        k_comp_data[CF_Q +: Q_W] = q[Q_W-1:0];
        k_comp_data[CF_COUNT +: CN_W] = cnt[CN_W-1:0];
        k_comp_data[CF_ROWS +: BT_W] = run_rows[BT_W-1:0];
        k_comp_data[CF_TOUCH +: E] = touch;
        for (e = 0; e < E; e = e + 1) k_comp_data[CF_FENCE + e*FC_W +: FC_W] = fence;
        @(negedge clk);
        k_cmd = 1'b0;
        k_comp = 1'b0;
        if (!retx) begin
            // before the fence: no read retired, no command offered
            unwritten = wait_cyc > 0;
            for (wt = 0; wt < wait_cyc; wt = wt + 1) begin
                @(negedge clk);
                if (n_rd != n_rd0 || cmd_valid != 0) begin
                    $display("FAIL cycle %0d: set %0d: the round went before its fence (done %0d, fence %0d)",
                             cycle, q, done_from, fence);
                    errors = errors + 1;
                end
            end
            unwritten = 1'b0;
            if (COMB != 0) begin
                for (e = 0; e < E; e = e + 1) done_cnt[e*FC_W +: FC_W] = fence;
            end else begin
                // the lanes' rounded outputs, a row a cycle (one engine), its payload lanes valid
                for (rr = 0; rr < run_rows; rr = rr + 1) begin
                    for (rl2 = 0; rl2 < LANES; rl2 = rl2 + 1) begin
                        eo_valid[rl2] = in_payload(rr, rl2, cnt);
                        eo_addr[rl2*RA_W +: RA_W] = q * PAY_BEATS + rr;
                        eo_result[rl2*32 +: 32] = expect_word(q, rr, rl2, touch);
                    end
                    @(negedge clk);
                    eo_valid = {E*LANES{1'b0}};
                end
            end
        end
        // the round's read retired once, then every generator takes the command
        for (wt = 0; wt < 200 && (n_rd == n_rd0 && !retx); wt = wt + 1) @(negedge clk);
        if (!retx && (n_rd != n_rd0 + 1 || rd_q != q[Q_W-1:0])) begin
            $display("FAIL cycle %0d: set %0d: %0d reads retired (set %0d), expected 1", cycle, q, n_rd - n_rd0, rd_q);
            errors = errors + 1;
        end
        for (wt = 0; wt < 200 && !all_took(want_cmds); wt = wt + 1) @(negedge clk);
        if (!all_took(want_cmds)) begin
            $display("FAIL cycle %0d: set %0d: the command did not reach every generator", cycle, q);
            errors = errors + 1;
        end
        repeat (3) @(negedge clk);
        check_ram(q);
    end
endtask

function all_took(input integer n);
    integer e;
    begin
        all_took = 1'b1;
        for (e = 0; e < E; e = e + 1)
            if (got_cmds[e] != n) all_took = 1'b0;
    end
endfunction

// every generator's copy of set q's rows against xr
integer cr, cl, cg;
task check_ram(input integer q);
    begin
        for (cr = 0; cr < PAY_BEATS; cr = cr + 1) begin
            for (cg = 0; cg < E; cg = cg + 1)
                res_rd_addr[cg*RA_W +: RA_W] = q * PAY_BEATS + cr;
            @(negedge clk);
            for (cg = 0; cg < E; cg = cg + 1)
                for (cl = 0; cl < LANES; cl = cl + 1)
                    if (xr[(q * PAY_BEATS + cr) * LANES + cl] !== 32'hxxxx_xxxx &&
                        res_rd_data[cg*DATA_WIDTH + cl*32 +: 32] !== xr[(q * PAY_BEATS + cr) * LANES + cl]) begin
                        $display("FAIL cycle %0d: RAM %0d set %0d row %0d lane %0d: %h, expected %h", cycle,
                                 cg, q, cr, cl, res_rd_data[cg*DATA_WIDTH + cl*32 +: 32],
                                 xr[(q * PAY_BEATS + cr) * LANES + cl]);
                        errors = errors + 1;
                    end
        end
    end
endtask

// ---- the cases
integer t, r, l, e1, i;
localparam [E-1:0] ALL = {E{1'b1}};
initial begin
    repeat (4) @(negedge clk);
    rst = 1'b0;
    repeat (4) @(negedge clk);

    // 1. integers across every engine: engine e, row r, lane l holds (e+1)*1000 + 37*r + l - 50
    for (e1 = 0; e1 < E; e1 = e1 + 1)
        for (r = 0; r < PAY_BEATS; r = r + 1)
            for (l = 0; l < LANES; l = l + 1)
                put(e1, 1, r, l, (e1 + 1) * 1000 + 37 * r + l - 50 - 20 * e1 * l, 149, 4'b0001);
    round(1, MAX_COUNT, ALL, 16'd5, 16'd4, 30, 1'b0, 32'd1);

    // 2. the same set again, a short last row (count 13), engine 0 alone took part (the others'
    // entries, changed, are ignored); the words past the count keep the first round's
    for (e1 = 1; e1 < E; e1 = e1 + 1)
        for (r = 0; r < PAY_BEATS; r = r + 1)
            for (l = 0; l < LANES; l = l + 1)
                put(e1, 1, r, l, 999999, 149, 4'b1111);
    round(1, 13, {{(E-1){1'b0}}, 1'b1}, 16'd9, 16'd7, 25, 1'b0, 32'd2);

    // 3. rounding: 2^24 + 1 (a tie, down to even), 2^24 + 3 (a tie, up), 2^25 - 1 (a carry into
    // the exponent), -(2^24 + 3), 2^31 - 1 spread over the engines; cancellation to +0 and -0
    // (notnegzero clear on every engine's entry); subnormals
    for (r = 0; r < PAY_BEATS; r = r + 1)
        for (l = 0; l < LANES; l = l + 1)
            for (e1 = 0; e1 < E; e1 = e1 + 1)
                put(e1, 2, r, l, 0, 149, 4'b0001);
    put(0, 2, 0, 0, 16777217 - (E - 1) * 3, 149, 4'b0001);
    put(0, 2, 0, 1, 16777219 - (E - 1) * 3, 149, 4'b0001);
    put(0, 2, 0, 2, 33554431 - (E - 1) * 3, 149, 4'b0001);
    put(0, 2, 0, 3, -16777219 - (E - 1) * 3, 149, 4'b0001);
    put(0, 2, 0, 4, 2147483647 - (E - 1) * 3, 149, 4'b0001);
    for (e1 = 1; e1 < E; e1 = e1 + 1)
        for (l = 0; l < 5; l = l + 1)
            put(e1, 2, 0, l, 3, 149, 4'b0001);
    put(0, 2, 0, 5, 77, 149, 4'b0001);                       // cancels to +0 (notnegzero set)
    put(0, 2, 0, 6, 77, 149, 4'b0000);                       // ... and to -0 (clear everywhere)
    for (e1 = 1; e1 < E; e1 = e1 + 1) begin
        put(e1, 2, 0, 5, e1 == 1 ? -77 : 0, 149, 4'b0000);
        put(e1, 2, 0, 6, e1 == 1 ? -77 : 0, 149, 4'b0000);
    end
    if (E == 1) begin
        put(0, 2, 0, 5, 0, 149, 4'b0001);
        put(0, 2, 0, 6, 0, 149, 4'b0000);
    end
    put(0, 2, 0, 7, 5, 0, 4'b0001);                          // 5 + 2*(E-1) x 2^-149
    for (e1 = 1; e1 < E; e1 = e1 + 1) put(e1, 2, 0, 7, 2, 0, 4'b0001);
    // the flags: NaN, +Inf, -Inf, +Inf with -Inf (NaN), each from the last engine
    put(E - 1, 2, 1, 0, 1, 149, 4'b1001);
    put(E - 1, 2, 1, 1, 1, 149, 4'b0101);
    put(E - 1, 2, 1, 2, 1, 149, 4'b0011);
    put(E - 1, 2, 1, 3, 1, 149, 4'b0101);
    put(0, 2, 1, 3, 1, 149, 4'b0011);
    if (E == 1) put(0, 2, 1, 3, 1, 149, 4'b0111);
    round(2, 2 * LANES - 8, ALL, 16'h0002, 16'hfffe, 30, 1'b0, 32'd3);   // the fence across the wrap

    // 4. a re-send of set 1's last round (count 13): the stored checksum, no read
    round(1, 13, ALL, 16'h0002, 16'h0002, 0, 1'b1, 32'd4);

    // 5. rounds back to back in the other sets, random integers
    for (i = 0; i < 4; i = i + 1) begin
        for (e1 = 0; e1 < E; e1 = e1 + 1)
            for (r = 0; r < PAY_BEATS; r = r + 1)
                for (l = 0; l < LANES; l = l + 1) begin
                    rs_gen = xs(rs_gen);
                    put(e1, 4 + i, r, l, $signed(rs_gen[19:0]) - 524288, 149, {1'b0, 2'b00, rs_gen[25]});
                end
        round(4 + i, 1 + 9 * i, i == 2 ? ALL ^ (E > 1 ? 2 : 0) : ALL, 16'h0003 + i, 16'h0003 + i, 0, 1'b0, 32'd5 + i);
    end

    repeat (20) @(negedge clk);
    for (e1 = 0; e1 < E; e1 = e1 + 1) errors = errors + mon_bad[e1];
    if (errors == 0) $display("PASS tb_ws_combine ENGINES=%0d PARTIAL=%0d: %0d rounds", E, PARTIAL, want_cmds);
    else $display("FAIL tb_ws_combine: %0d errors", errors);
    $finish;
end

initial begin
    #2000000;
    $display("FAIL tb_ws_combine: timeout");
    $finish;
end

endmodule

`resetall
