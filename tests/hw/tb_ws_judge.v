// tb_ws_judge - ws_judge: directed cases for every verdict, checked in judgment order.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// Tokens go in as the parser sends them (bypass and drop tokens mixed in: the judge skips them);
// each aggregation frame carries its expected verdict, and every judgment (a decision pushed,
// then the stat pulse, the command and the completion the cycle after) is compared with the
// oldest expectation. The reads the judge counts as owed (the round's write, one per rank sent)
// are retired by the testbench a few cycles after each command, unless a case holds them.
// Cases: a round of three ranks (accept, duplicate before completion, the completing frame, a
// duplicate after completion = re-send), an early frame (a rank gone on to the other set), a
// mismatched frame (the round's fields differ) and the right one after it, a re-send judged
// at once while its round's rows are still read and a new round waiting for those reads, a round
// of one rank, and a job cleared while three of its frames are held in J0, JA and JB (they are
// then judged against the cleared sets), and the first write of a cleared pool slot followed by
// its next frame at every spacing, a re-send right behind its round's completing frame at every
// spacing (not held), a new round right behind the frames that emptied its set at every spacing
// (held while the set's reads are owed), and one behind another group's frame or held in JA
// before one, and a job cleared with a frame of another set in JA. Prints PASS or FAIL.
// 12. A job with a parent (docs/protocol.md section 9): the completing frame sends a PARTIAL (a
// command with C_PART, a completion with CF_PART; the set waits); a duplicate re-sends it; the
// parent's RESULT for another round is a mismatch, the right one completes the round (the
// RESULTs to every rank), a second copy is a duplicate, and a rank's duplicate now re-sends its
// RESULT; a frame of the next round waits while the fan-out's reads are owed; a set still waits
// when a rank's bit leaves it for the other set.
// ENGINES = 4 (tests/hw.sh runs both): rank r's frames come in on engine r mod ENGINES (its
// first port), each announced by that port's frame_ready pulse as the arrival order wants; every
// decision must go to its frame's engine, and each generator retires its own reads.
module tb_ws_judge #(
    parameter ENGINES = 1
);

import ws_regmap::*;

localparam DATA_WIDTH  = 256;
localparam N_PORTS     = 4;
localparam MAX_JOBS    = 2;
localparam MAX_WORKERS = 4;
localparam POOL_SLOTS  = 16;   // 32 sets: two groups of the read guard's look
localparam MAX_COUNT   = 16;
localparam FC_W        = 16;
`include "ws_widths.vh"
`include "ws_agg_hdr.vh"
`include "ws_cmd.vh"
`include "ws_judge.vh"

// expected verdicts
localparam V_ACC = 0, V_LAST = 1, V_RESEND = 2, V_DUP = 3, V_EARLY = 4, V_MISMATCH = 5;
// a job with a parent: the PARTIAL sent, re-sent; the parent's RESULT taken (fan-out)
localparam V_PART = 6, V_PRESEND = 7, V_FANOUT = 8;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

reg                  tok_valid = 1'b0, tok_agg = 1'b0;
reg  [HDR_W-1:0]     tok_hdr = {HDR_W{1'b0}};
integer              tok_e = 0;                  // the token's engine
wire [ENGINES-1:0]   tok_ready;
reg  [N_PORTS-1:0]   frame_ready = {N_PORTS{1'b0}};
reg                  job_clear = 1'b0;
reg  [SL_W-1:0]      job_clear_base = 0;
reg  [SL_W:0]        job_clear_end = 0;
reg                  cmd_space = 1'b1;
wire [ENGINES-1:0]   dc_push;
wire [DC_W-1:0]      dc_data;
wire                 k_cmd, k_comp;
wire [CMD_W-1:0]     k_cmd_data;
wire [CF_W-1:0]      k_comp_data;
reg                  rd_o = 1'b0, frame_done = 1'b0;
reg  [Q_W-1:0]       rd_oq = 0, frame_done_q = 0;
wire [ENGINES-1:0]   stat_acc_e, stat_drop_e;
wire [ENGINES*WS_REASON_W-1:0] stat_reason_e;
wire                 stat_accepted = |stat_acc_e, stat_drop = |stat_drop_e;
reg  [WS_REASON_W-1:0] stat_drop_reason;
integer              se;
always @(*) begin
    stat_drop_reason = {WS_REASON_W{1'b0}};
    for (se = 0; se < ENGINES; se = se + 1)
        if (stat_acc_e[se] || stat_drop_e[se])
            stat_drop_reason = stat_reason_e[se*WS_REASON_W +: WS_REASON_W];
end

ws_judge #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .ENGINES(ENGINES), .MAX_JOBS(MAX_JOBS),
    .MAX_WORKERS(MAX_WORKERS), .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .ORDER_DEPTH(16),
    .FC_W(FC_W)
) dut (
    .clk(clk), .rst(rst),
    .s_frame_ready(frame_ready),
    .s_tok_valid(tok_valid ? {{(ENGINES-1){1'b0}}, 1'b1} << tok_e : {ENGINES{1'b0}}),
    .s_tok_agg({ENGINES{tok_agg}}), .s_tok_hdr({ENGINES{tok_hdr}}), .s_tok_ready(tok_ready),
    .job_clear(job_clear), .job_clear_base(job_clear_base), .job_clear_end(job_clear_end),
    .dc_space({ENGINES{1'b1}}), .dc_push(dc_push), .dc_data(dc_data),
    .cmd_space(cmd_space), .k_cmd(k_cmd), .k_cmd_data(k_cmd_data),
    .k_comp(k_comp), .k_comp_data(k_comp_data),
    .rd_o(rd_o), .rd_oq(rd_oq),
    .frame_done({ENGINES{frame_done}}), .frame_done_q({ENGINES{frame_done_q}}),
    .skip_done({ENGINES{1'b0}}), .skip_done_q({ENGINES*Q_W{1'b0}}),
    .stat_accepted(stat_acc_e), .stat_drop(stat_drop_e), .stat_drop_reason(stat_reason_e)
);

integer errors = 0;
integer cycle = 0;
always @(posedge clk) cycle <= cycle + 1;

// ---- expectations, in judgment order
integer exp_v [0:255];
integer exp_e [0:255];
integer exp_ce [0:255];   // the command's CE row expected (-1: not checked)
integer exp_fe [0:255];   // a fan-out's ECN bits expected (the parent's RESULT's)
reg [1:0] chk_fe;
integer exp_n = 0, got_n = 0;
reg [DC_W-1:0]     dc_r;
reg                dc_r_v = 1'b0;
reg [ENGINES-1:0]  dc_r_e;
always @(posedge clk) begin
    dc_r <= dc_data;
    dc_r_v <= |dc_push;
    dc_r_e <= dc_push;
    if (!rst && dc_r_v !== (stat_accepted || stat_drop)) begin
        $display("FAIL cycle %0d: a decision without its stat pulse (or the reverse)", cycle);
        errors = errors + 1;
    end
    if (stat_accepted || stat_drop) begin
        if (got_n >= exp_n) begin
            $display("FAIL cycle %0d: a judgment with none expected", cycle);
            errors = errors + 1;
        end else begin
            if (dc_r_e != {{(ENGINES-1){1'b0}}, 1'b1} << exp_e[got_n] ||
                stat_acc_e != (stat_accepted ? dc_r_e : {ENGINES{1'b0}}) ||
                stat_drop_e != (stat_drop ? dc_r_e : {ENGINES{1'b0}})) begin
                $display("FAIL cycle %0d: judgment %0d: decision to engines %b, stat pulses %b %b, expected engine %0d",
                         cycle, got_n, dc_r_e, stat_acc_e, stat_drop_e, exp_e[got_n]);
                errors = errors + 1;
            end
            if (exp_ce[got_n] >= 0 && k_cmd_data[C_CE +: MAX_WORKERS] != exp_ce[got_n][MAX_WORKERS-1:0]) begin
                $display("FAIL cycle %0d: judgment %0d: CE row %b, expected %b", cycle, got_n,
                         k_cmd_data[C_CE +: MAX_WORKERS], exp_ce[got_n][MAX_WORKERS-1:0]);
                errors = errors + 1;
            end
            chk_fe = exp_fe[got_n][1:0];
            if (!check(exp_v[got_n])) begin
                $display("FAIL cycle %0d: judgment %0d: expected verdict %0d, got accepted %b drop %b reason %0d last %b cmd %b retx %b comp %b",
                         cycle, got_n, exp_v[got_n], stat_accepted, stat_drop, stat_drop_reason,
                         dc_r[DC_LAST], k_cmd, k_cmd_data[C_RETX], k_comp);
                errors = errors + 1;
            end
        end
        got_n = got_n + 1;
    end else if (k_cmd || k_comp) begin
        $display("FAIL cycle %0d: a command without a judgment", cycle);
        errors = errors + 1;
    end
end

function check(input integer v);
    begin
        case (v)
        V_ACC:      check = stat_accepted && dc_r[DC_ACCEPT] && !dc_r[DC_LAST] && !k_cmd && !k_comp;
        V_LAST:     check = stat_accepted && dc_r[DC_ACCEPT] && dc_r[DC_LAST] && k_cmd && !k_cmd_data[C_RETX] && k_comp &&
                            !k_cmd_data[C_PART] && !k_comp_data[CF_PART];
        V_RESEND:   check = stat_drop && stat_drop_reason == WS_DROP_DUPLICATE && !dc_r[DC_ACCEPT] &&
                            k_cmd && k_cmd_data[C_RETX] && !k_comp && !k_cmd_data[C_PART];
        V_PART:     check = stat_accepted && dc_r[DC_ACCEPT] && dc_r[DC_LAST] && k_cmd && !k_cmd_data[C_RETX] &&
                            k_cmd_data[C_PART] && k_cmd_data[C_RANK_HI +: WK_W] == 0 && k_comp && k_comp_data[CF_PART];
        V_PRESEND:  check = stat_drop && stat_drop_reason == WS_DROP_DUPLICATE && !dc_r[DC_ACCEPT] &&
                            k_cmd && k_cmd_data[C_RETX] && k_cmd_data[C_PART] && k_comp && k_comp_data[CF_PART] &&
                            k_comp_data[CF_COUNT +: CN_W] == 8;
        V_FANOUT:   check = stat_accepted && dc_r[DC_ACCEPT] && dc_r[DC_LAST] && dc_r[DC_FIRST] && k_cmd &&
                            !k_cmd_data[C_RETX] && !k_cmd_data[C_PART] && k_comp && !k_comp_data[CF_PART] &&
                            k_cmd_data[C_RANK_HI +: WK_W] == 2 && k_cmd_data[C_ECN +: 2] == chk_fe;
        V_DUP:      check = stat_drop && stat_drop_reason == WS_DROP_DUPLICATE && !dc_r[DC_ACCEPT] && !k_cmd;
        V_EARLY:    check = stat_drop && stat_drop_reason == WS_DROP_EARLY && !dc_r[DC_ACCEPT] && !k_cmd;
        V_MISMATCH: check = stat_drop && stat_drop_reason == WS_DROP_MISMATCH && !dc_r[DC_ACCEPT] && !k_cmd;
        default:    check = 1'b0;
        endcase
    end
endfunction

// ---- reads owed: retired a few cycles after each command, unless held (each of the ENGINES
// result generators retires its own: frame_done goes to all of them at once)
reg     hold_reads = 1'b0;
integer owed_o [0:Q_N-1];
integer owed_f [0:Q_N-1];
integer rq, wait_n = 0;
initial for (rq = 0; rq < Q_N; rq = rq + 1) begin owed_o[rq] = 0; owed_f[rq] = 0; end
always @(posedge clk) begin
    rd_o <= 1'b0;
    frame_done <= 1'b0;
    if (k_cmd) begin
        if (k_cmd_data[C_PART]) begin   // the encoder's read of the lanes only
            owed_o[k_cmd_data[C_Q +: Q_W]] = owed_o[k_cmd_data[C_Q +: Q_W]] + 1;
        end else if (k_cmd_data[C_RETX]) begin
            owed_f[k_cmd_data[C_Q +: Q_W]] = owed_f[k_cmd_data[C_Q +: Q_W]] + 1;
        end else begin
            owed_o[k_cmd_data[C_Q +: Q_W]] = owed_o[k_cmd_data[C_Q +: Q_W]] + 1;
            owed_f[k_cmd_data[C_Q +: Q_W]] = owed_f[k_cmd_data[C_Q +: Q_W]] +
                k_cmd_data[C_RANK_HI +: WK_W] - k_cmd_data[C_RANK_LO +: WK_W] + 1;
        end
        wait_n = 6;
    end else if (wait_n > 0) begin
        wait_n = wait_n - 1;
    end else if (!hold_reads) begin
        // one retirement a cycle, the lowest set that owes one
        begin : pick
            for (rq = 0; rq < Q_N; rq = rq + 1) begin
                if (owed_o[rq] > 0) begin
                    rd_o <= 1'b1; rd_oq <= rq; owed_o[rq] = owed_o[rq] - 1; disable pick;
                end
                if (owed_f[rq] > 0) begin
                    frame_done <= 1'b1; frame_done_q <= rq; owed_f[rq] = owed_f[rq] - 1; disable pick;
                end
            end
        end
    end
end

// ---- tokens
// arrive E: engine E's first port announces a whole frame (with several engines the judge takes
// the engines' tokens in the order of these pulses)
task arrive(input integer e);
    begin
        frame_ready[e * (N_PORTS / ENGINES)] = 1'b1;
        @(posedge clk);
        #1 frame_ready = {N_PORTS{1'b0}};
        tok_e = e;
    end
endtask
// A burst: aggregation tokens (count 8, tensor 1) queued with `queue`, then sent on consecutive
// cycles by `burst` (each on engine WORKER mod ENGINES, announced in that order first), so that
// they move through J0, JA and JB side by side.
integer bq_n = 0;
integer bq_job [0:7];
integer bq_worker [0:7];
integer bq_pslot [0:7];
integer bq_set [0:7];
integer bq_offset [0:7];
integer bq_workers [0:7];
integer bq_par [0:7];     // the job has a parent
integer bq_fan [0:7];     // the token is the parent's RESULT (ECN 01)
integer bq_count [0:7];
integer bq_ecn [0:7];     // the token's ECN bits (-1: as q_fan says)
integer q_ecn = -1;       // queue's tokens: their ECN bits, -1: 01 for the parent's RESULT, else 00
integer q_want_ce = -1;   // queue's verdicts: the command's CE row expected, -1: not checked
reg     q_par = 1'b0;     // queue's tokens: of a job with a parent
reg     q_fan = 1'b0;     // ... the parent's RESULT
integer q_count = 8;
// queue JOB WORKER PSLOT SET OFFSET WORKERS VERDICT: a token of the next burst, judged VERDICT
task queue(input integer job, input integer worker, input integer pslot, input integer set,
           input integer offset, input integer workers, input integer v);
    begin
        bq_job[bq_n] = job;
        bq_worker[bq_n] = worker;
        bq_pslot[bq_n] = pslot;
        bq_set[bq_n] = set;
        bq_offset[bq_n] = offset;
        bq_workers[bq_n] = workers;
        bq_par[bq_n] = q_par;
        bq_fan[bq_n] = q_fan;
        bq_count[bq_n] = q_count;
        bq_ecn[bq_n] = q_ecn;
        bq_n = bq_n + 1;
        exp_v[exp_n] = v;
        exp_e[exp_n] = worker % ENGINES;
        exp_ce[exp_n] = q_want_ce;
        exp_fe[exp_n] = q_ecn >= 0 ? q_ecn : 1;
        exp_n = exp_n + 1;
    end
endtask
task burst;
    integer i;
    begin
        for (i = 0; i < bq_n; i = i + 1)
            arrive(bq_worker[i] % ENGINES);
        for (i = 0; i < bq_n; i = i + 1) begin
            tok_e = bq_worker[i] % ENGINES;
            tok_hdr = {HDR_W{1'b0}};
            tok_hdr[H_JOBIDX +: JI_W]   = bq_job[i];
            tok_hdr[H_JOBID +: 16]      = 16'h100 + bq_job[i];
            tok_hdr[H_PSLOT +: PS_W]    = bq_pslot[i];
            tok_hdr[H_SLOT +: 16]       = bq_pslot[i];
            tok_hdr[H_SET]              = bq_set[i];
            tok_hdr[H_WORKER +: WK_W]   = bq_worker[i];
            tok_hdr[H_COUNT +: CN_W]    = bq_count[i];
            tok_hdr[H_OFFSET +: 32]     = bq_offset[i];
            tok_hdr[H_TENSOR +: 32]     = 1;
            tok_hdr[H_ECN +: 2]         = bq_ecn[i] >= 0 ? bq_ecn[i][1:0] : bq_fan[i] ? 2'b01 : 2'b00;
            tok_hdr[H_WORKERS +: WC_W]  = bq_workers[i];
            tok_hdr[H_PARENT]           = bq_par[i];
            tok_hdr[H_FANOUT]           = bq_fan[i];
            tok_agg = 1'b1;
            tok_valid = 1'b1;
            @(posedge clk);
            while (!tok_ready[tok_e]) @(posedge clk);
            #1;
        end
        tok_valid = 1'b0;
        bq_n = 0;
    end
endtask
// frame JOB WORKER PSLOT SET OFFSET WORKERS VERDICT: one token
task frame(input integer job, input integer worker, input integer pslot, input integer set,
           input integer offset, input integer workers, input integer v);
    begin
        queue(job, worker, pslot, set, offset, workers, v);
        burst;
    end
endtask
// a bypass or drop token: no judgment (on the last engine)
task other;
    begin
        arrive(ENGINES - 1);
        tok_hdr = {HDR_W{1'b1}};
        tok_agg = 1'b0;
        tok_valid = 1'b1;
        @(posedge clk);
        while (!tok_ready[tok_e]) @(posedge clk);
        #1 tok_valid = 1'b0;
    end
endtask
task settle(input integer n);
    integer i;
    begin
        for (i = 0; i < n; i = i + 1) @(posedge clk);
        #1;
    end
endtask
// clear BASE END: a job clear of pool slots BASE..END-1, one cycle
task clear(input integer base, input integer end_);
    begin
        job_clear_base = base;
        job_clear_end = end_;
        job_clear = 1'b1;
        settle(1);
        job_clear = 1'b0;
    end
endtask
// open2 PSLOT OFFSET: after the reads so far retire, pool slot PSLOT cleared and ranks 0 and 1 of
// three in its set 0 at OFFSET; then the reads of the commands to come are held
task open2(input integer pslot, input integer offset);
    begin
        settle(60);
        clear(pslot, pslot + 1);
        frame(0, 0, pslot, 0, offset, 3, V_ACC);
        frame(0, 1, pslot, 0, offset, 3, V_ACC);
        judged(20);
        hold_reads = 1'b1;
    end
endtask
// held N CASE: 40 cycles on, the last N frames are not judged (they wait for the reads held; CASE
// names the case in a failure: 8x is case 8 at spacing x);
// then the reads go and every frame is judged
task held(input integer n, input integer case_n);
    begin
        settle(40);
        if (got_n != exp_n - n) begin
            $display("FAIL cycle %0d: case %0d: %0d of %0d frames judged; %0d must wait for the reads owed",
                     cycle, case_n, got_n, exp_n, n);
            errors = errors + 1;
        end
        hold_reads = 1'b0;
        judged(80);
    end
endtask
task judged(input integer n);   // every expectation so far has been judged within n cycles
    integer i;
    begin
        for (i = 0; i < n && got_n < exp_n; i = i + 1) @(posedge clk);
        #1;
        if (got_n != exp_n) begin
            $display("FAIL cycle %0d: %0d of %0d frames judged", cycle, got_n, exp_n);
            errors = errors + 1;
        end
    end
endtask

integer n0;
initial begin
    settle(4);
    rst = 1'b0;
    settle(4);

    // 1. a round of three ranks in pool slot 0, set 0: accept, a duplicate before completion,
    //    the completing frame, a duplicate after completion (a re-send of the RESULT)
    frame(0, 0, 0, 0, 100, 3, V_ACC);
    other;
    frame(0, 1, 0, 0, 100, 3, V_ACC);
    frame(0, 0, 0, 0, 100, 3, V_DUP);
    frame(0, 2, 0, 0, 100, 3, V_LAST);
    other;
    frame(0, 1, 0, 0, 100, 3, V_RESEND);
    judged(40);

    // 2. rank 0 goes on to set 1 (a new round there; its bit leaves set 0): its old frame for
    //    set 0 is then early (set 0 complete, other ranks still in it)
    frame(0, 0, 0, 1, 200, 3, V_ACC);
    frame(0, 0, 0, 0, 100, 3, V_EARLY);
    // 3. a mismatched frame (another offset than set 1's round), then the right one
    frame(0, 1, 0, 1, 300, 3, V_MISMATCH);
    frame(0, 1, 0, 1, 200, 3, V_ACC);
    // a duplicate in the open round, then the completing frame and a re-send
    frame(0, 1, 0, 1, 200, 3, V_DUP);
    frame(0, 2, 0, 1, 200, 3, V_LAST);
    frame(0, 2, 0, 1, 200, 3, V_RESEND);
    judged(40);

    // 4. a new round in set 0 (every rank left it) waits while its rows are still read
    settle(60);                 // the reads of the commands so far retire
    hold_reads = 1'b1;
    frame(0, 0, 0, 0, 400, 3, V_ACC);   // set 0 is complete and empty now: a new round
    frame(0, 1, 0, 0, 400, 3, V_ACC);
    frame(0, 2, 0, 0, 400, 3, V_LAST);
    judged(40);
    // set 0's round is complete and its reads held: a duplicate re-sends the RESULT at once (a
    // re-send only reads the rows; the input does not wait for the round's RESULTs to go)
    frame(0, 1, 0, 0, 400, 3, V_RESEND);
    judged(20);
    // every rank goes on to set 1 (its reads retired before the hold), which empties set 0: a
    // new round there waits while set 0's reads are owed
    frame(0, 0, 0, 1, 500, 3, V_ACC);
    frame(0, 1, 0, 1, 500, 3, V_ACC);
    frame(0, 2, 0, 1, 500, 3, V_LAST);
    frame(0, 0, 0, 0, 600, 3, V_ACC);
    held(1, 4);

    // 5. a job of one rank (job 1, pool slot 2): every frame completes a round; a second copy
    //    is a re-send
    frame(1, 0, 2, 0, 0, 1, V_LAST);
    frame(1, 0, 2, 0, 0, 1, V_RESEND);
    frame(1, 0, 2, 1, 8, 1, V_LAST);
    judged(60);
    settle(60);

    // 6. a job cleared while three of its frames are held in J0, JA and JB: an open round in
    //    pool slot 3 (rank 0 in), then rank 0's duplicate, ranks 1 and 2 wait behind a full
    //    command queue; the clear of slots 3..3 makes set 3/0 complete and empty, so the held
    //    frames open a new round instead: accept, accept, the completing frame
    frame(0, 0, 3, 0, 500, 3, V_ACC);
    judged(20);
    cmd_space = 1'b0;
    frame(0, 0, 3, 0, 500, 3, V_ACC);   // was a duplicate before the clear
    frame(0, 1, 3, 0, 500, 3, V_ACC);
    frame(0, 2, 3, 0, 500, 3, V_LAST);
    settle(10);
    if (got_n != exp_n - 3) begin
        $display("FAIL cycle %0d: frames judged without room for a command", cycle);
        errors = errors + 1;
    end
    clear(3, 4);
    settle(2);
    cmd_space = 1'b1;
    judged(40);
    // and a cleared open round: rank 0 in set 3/1, the job cleared, rank 0 again is accepted
    frame(0, 0, 3, 1, 600, 3, V_ACC);
    judged(20);
    clear(3, 4);
    frame(0, 0, 3, 1, 600, 3, V_ACC);
    judged(20);

    // 7. the first write of a cleared pool slot and the next frame for it, at every spacing:
    //    rank 1's frame comes in g cycles after rank 0's (whose JB write clears the slot's
    //    "cleared" bit, with rank 1 anywhere from JA to J0 to the token slice), and must find
    //    rank 0's bit in the row: accept, accept, and rank 2 completes the round
    for (n0 = 0; n0 < 5; n0 = n0 + 1) begin
        settle(60);
        clear(1, 2);
        frame(0, 0, 1, 0, 700 + n0, 3, V_ACC);
        settle(n0);
        frame(0, 1, 1, 0, 700 + n0, 3, V_ACC);
        frame(0, 2, 1, 0, 700 + n0, 3, V_LAST);
        judged(40);
    end

    // 8. a re-send right behind its round's completing frame is judged at once though the
    //    completion's reads are owed, at every spacing: the copy's token on the next cycle (in JA
    //    when the completion fires in JB), then 2 to 5 cycles after
    for (n0 = 0; n0 < 5; n0 = n0 + 1) begin
        open2(1, 800 + n0);
        if (n0 == 0) begin
            queue(0, 2, 1, 0, 800, 3, V_LAST);
            queue(0, 2, 1, 0, 800, 3, V_RESEND);
            burst;
        end else begin
            frame(0, 2, 1, 0, 800 + n0, 3, V_LAST);
            settle(n0 - 1);
            frame(0, 2, 1, 0, 800 + n0, 3, V_RESEND);
        end
        judged(20);
        hold_reads = 1'b0;
    end
    //    ... and a new round waits while the reads of its set's last round are owed, at every
    //    spacing up to where the read guard's counts hold them: job 1 (one rank) completes a
    //    round in pool slot 1's set 0, then one in set 1 (the rank's bit leaves set 0, which is
    //    then complete and empty), then a new round in set 0 on the next cycle (in JA when set
    //    1's frame fires in JB, set 0's command two cycles before) or 1 to 4 cycles later
    for (n0 = 0; n0 < 5; n0 = n0 + 1) begin
        settle(60);
        clear(1, 2);
        hold_reads = 1'b1;
        queue(1, 0, 1, 0, 850 + n0, 1, V_LAST);
        queue(1, 0, 1, 1, 850 + n0, 1, V_LAST);
        if (n0 == 0)
            queue(1, 0, 1, 0, 860 + n0, 1, V_LAST);
        burst;
        if (n0 > 0) begin
            settle(n0 - 1);
            frame(1, 0, 1, 0, 860 + n0, 1, V_LAST);
        end
        held(1, 85 + n0);
    end

    // 9. the read guard looks at the set's group of 16 (JA's, chosen as JA is loaded): a new
    //    round in pool slot 9 (sets 18, 19: group 1) behind a frame of another group (job 1's
    //    round of one rank in pool slot 2, set 0: group 0) waits while the reads of set 18's last
    //    round are owed
    settle(60);
    clear(9, 10);
    hold_reads = 1'b1;
    frame(1, 0, 9, 0, 900, 1, V_LAST);
    frame(1, 0, 9, 1, 900, 1, V_LAST);          // set 18 complete and empty, its reads owed
    frame(1, 0, 2, 0, 16, 1, V_LAST);
    frame(1, 0, 9, 0, 901, 1, V_LAST);
    held(1, 9);

    // 10. ... and the group kept while JA waits: the new round held in JA (no room for a
    //    command) between a frame in JB and one of the other group in J0
    settle(60);
    clear(9, 10);
    hold_reads = 1'b1;
    frame(1, 0, 9, 0, 1000, 1, V_LAST);
    frame(1, 0, 9, 1, 1000, 1, V_LAST);
    judged(20);
    cmd_space = 1'b0;
    queue(1, 0, 2, 1, 24, 1, V_LAST);           // JB: a new round in job 1's set 2/1
    queue(1, 0, 9, 0, 1001, 1, V_LAST);         // JA: a new round in set 18
    queue(1, 0, 2, 0, 32, 1, V_LAST);           // J0: group 0
    burst;
    settle(10);
    cmd_space = 1'b1;
    held(2, 10);

    // 11. a job cleared while JA holds a frame of a set other than JB's: pool slot 3's set 1 has
    //    an open round (rank 0 at offset 600, case 6); cleared, rank 1's frame at offset 1100
    //    opens a new round (accept, not a mismatch with the cleared round's fields)
    settle(60);
    cmd_space = 1'b0;
    queue(1, 0, 2, 1, 40, 1, V_LAST);           // JB: job 1, pool slot 2 (not cleared)
    queue(0, 1, 3, 1, 1100, 3, V_ACC);          // JA
    burst;
    settle(4);
    clear(3, 4);
    cmd_space = 1'b1;
    judged(40);

    // 12. a job with a parent (job 0 here, pool slot 5): the round completes with a PARTIAL and
    //    waits; rank 0's duplicate (with another count: the PARTIAL is the round's) re-sends
    //    it, another rank's is a duplicate and sends nothing (docs/protocol.md section 9)
    settle(60);
    q_par = 1'b1;
    frame(0, 0, 5, 0, 1200, 3, V_ACC);
    frame(0, 1, 5, 0, 1200, 3, V_ACC);
    frame(0, 2, 5, 0, 1200, 3, V_PART);
    q_count = 4;
    frame(0, 1, 5, 0, 1200, 3, V_DUP);
    frame(0, 0, 5, 0, 1200, 3, V_PRESEND);
    q_count = 8;
    // the parent's RESULT: for another offset a mismatch, for an open set (6/0) a mismatch
    frame(0, 0, 6, 0, 1250, 3, V_ACC);
    q_fan = 1'b1;
    frame(0, 0, 5, 0, 1300, 3, V_MISMATCH);
    frame(0, 0, 6, 0, 1250, 3, V_MISMATCH);
    judged(40);
    // ... the right one: the round is complete (after the PARTIALs' reads of the lanes), the
    //    RESULTs go to ranks 0..2 with the parent's ECN; a second copy is a duplicate
    frame(0, 0, 5, 0, 1200, 3, V_FANOUT);
    frame(0, 0, 5, 0, 1200, 3, V_DUP);
    q_fan = 1'b0;
    // a rank's duplicate is a re-send of its RESULT now
    frame(0, 2, 5, 0, 1200, 3, V_RESEND);
    judged(60);
    // the parent's RESULT waits while a PARTIAL re-sent before it still reads the lanes
    settle(60);
    frame(0, 0, 5, 1, 1400, 3, V_ACC);
    frame(0, 1, 5, 1, 1400, 3, V_ACC);
    frame(0, 2, 5, 1, 1400, 3, V_PART);
    judged(20);
    settle(20);
    hold_reads = 1'b1;
    frame(0, 0, 5, 1, 1400, 3, V_PRESEND);
    q_fan = 1'b1;
    frame(0, 0, 5, 1, 1400, 3, V_FANOUT);
    q_fan = 1'b0;
    held(1, 12);
    // ... and the set still waits when a rank goes on to the other set (its bit leaves the row):
    //    rank 1's duplicate sends nothing, rank 0's frame of the waiting round re-sends the
    //    PARTIAL (a waiting set takes nothing again); the parent's RESULT is taken; once the
    //    others go on, the set is empty and takes a new round
    settle(60);
    frame(0, 0, 7, 0, 1500, 3, V_ACC);
    frame(0, 1, 7, 0, 1500, 3, V_ACC);
    frame(0, 2, 7, 0, 1500, 3, V_PART);
    frame(0, 0, 7, 1, 1600, 3, V_ACC);
    frame(0, 1, 7, 0, 1500, 3, V_DUP);
    frame(0, 0, 7, 0, 1500, 3, V_PRESEND);
    q_fan = 1'b1;
    frame(0, 0, 7, 0, 1500, 3, V_FANOUT);
    q_fan = 1'b0;
    frame(0, 1, 7, 1, 1600, 3, V_ACC);
    frame(0, 2, 7, 1, 1600, 3, V_PART);
    frame(0, 0, 7, 0, 1700, 3, V_ACC);
    judged(80);
    // ... the parent's RESULT into a waiting set that every rank has left (each went on to the
    //    other set, which waits too): the set is complete with an empty row, and a frame right
    //    behind the RESULT (its row forwarded from the RESULT's write) starts a new round there
    settle(60);
    frame(0, 0, 11, 0, 1800, 3, V_ACC);
    frame(0, 1, 11, 0, 1800, 3, V_ACC);
    frame(0, 2, 11, 0, 1800, 3, V_PART);
    frame(0, 0, 11, 1, 1900, 3, V_ACC);
    frame(0, 1, 11, 1, 1900, 3, V_ACC);
    frame(0, 2, 11, 1, 1900, 3, V_PART);
    judged(60);
    settle(60);
    q_fan = 1'b1;
    queue(0, 0, 11, 0, 1800, 3, V_FANOUT);
    q_fan = 1'b0;
    queue(0, 0, 11, 0, 2000, 3, V_ACC);
    burst;
    judged(80);

    // 13. the CE row (docs/protocol.md section 7): a rank whose frame came marked CE has its bit
    //    in the round's command, and in a re-send's; a child's fan-out keeps its ranks' bits, and
    //    a parent's RESULT marked CE sets every rank's
    settle(60);
    frame(0, 0, 13, 0, 2100, 3, V_ACC);
    q_ecn = 3;
    frame(0, 2, 13, 0, 2100, 3, V_ACC);
    q_ecn = 2;
    q_want_ce = 4'b0100;
    frame(0, 1, 13, 0, 2100, 3, V_PART);
    q_want_ce = -1;
    q_fan = 1'b1;
    q_want_ce = 4'b0100;          // the parent's RESULT not marked: rank 2's bit alone
    frame(0, 0, 13, 0, 2100, 3, V_FANOUT);
    q_fan = 1'b0;
    frame(0, 2, 13, 0, 2100, 3, V_RESEND);
    q_want_ce = -1;
    frame(0, 0, 13, 1, 2200, 3, V_ACC);
    frame(0, 1, 13, 1, 2200, 3, V_ACC);
    frame(0, 2, 13, 1, 2200, 3, V_PART);
    q_fan = 1'b1;
    q_ecn = 3;                    // the parent's RESULT marked: every rank's bit
    q_want_ce = 4'b1111;
    frame(0, 0, 13, 1, 2200, 3, V_FANOUT);
    q_fan = 1'b0;
    q_ecn = 2;
    frame(0, 1, 13, 1, 2200, 3, V_RESEND);
    q_want_ce = -1;
    judged(80);
    q_par = 1'b0;
    //    ... and without a parent: the round's command carries the row, a new round clears it
    settle(60);
    frame(1, 0, 14, 0, 2300, 2, V_ACC);
    q_ecn = 3;
    q_want_ce = 4'b0010;
    frame(1, 1, 14, 0, 2300, 2, V_LAST);
    q_ecn = 2;
    q_want_ce = 4'b0000;
    frame(1, 0, 14, 1, 2400, 2, V_ACC);
    frame(1, 1, 14, 1, 2400, 2, V_LAST);
    q_want_ce = -1;
    q_ecn = -1;
    judged(60);

    settle(100);
    if (got_n != exp_n) begin
        $display("FAIL: %0d frames expected, %0d judged", exp_n, got_n);
        errors = errors + 1;
    end
    if (errors == 0)
        $display("PASS tb_ws_judge: %0d judgments", got_n);
    else
        $display("FAIL tb_ws_judge: %0d errors", errors);
    $finish;
end

initial begin
    #200000;
    $display("FAIL tb_ws_judge: timeout");
    $finish;
end

endmodule

`resetall
