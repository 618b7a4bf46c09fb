// tb_ws_round_csum - ws_round_csum: the payload checksum of every round, in order, and per set.
`timescale 1ns / 1ps
`default_nettype none

// Rounds of 1..7 beats with random word masks, random words (with runs of 0xffff and 0x0000
// halves, so the end-around carries and the all-zero payload are exercised), random idle cycles
// between beats and none between rounds, into random sets; every third round ends with a half
// that makes the low 16 bits of its plain sum all ones (a carry out of the fold). The expected checksum of a round is
// the RFC 1071 ones-complement sum folded after every 16-bit add (the definition, not the DUT's
// method). Checked: every m_csum, in completion order, with random backpressure on m_ready; and
// at each pop, rd_csum of the popped round's set when no later round to that set has been fed
// (so the RAM must already hold this round's value: it is stored when the FIFO takes it). At
// most DEPTH rounds are outstanding, as the engine guarantees. The end: every round popped.
module tb_ws_round_csum;

    parameter LANES  = 8;
    parameter SEED   = 1;
    parameter ROUNDS = 3000;

    localparam Q_N = 16, Q_W = 4, DEPTH = 16;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;

    reg                 beat = 1'b0, last = 1'b0;
    reg  [LANES-1:0]    mask = {LANES{1'b0}};
    reg  [LANES*32-1:0] words = {LANES*32{1'b0}};
    reg  [Q_W-1:0]      q = {Q_W{1'b0}};
    wire                s_ready, m_valid;
    wire [15:0]         m_csum, rd_csum;
    reg                 m_ready = 1'b0;
    reg  [Q_W-1:0]      rd_q = {Q_W{1'b0}};

    ws_round_csum #(.LANES(LANES), .Q_N(Q_N), .Q_W(Q_W), .DEPTH(DEPTH)) dut (
        .clk(clk), .rst(rst),
        .beat(beat), .mask(mask), .words(words), .last(last), .q(q),
        .s_ready(s_ready), .m_csum(m_csum), .m_valid(m_valid), .m_ready(m_ready),
        .rd_q(rd_q), .rd_csum(rd_csum)
    );

    reg [31:0] rs;
    localparam AXIS_BYTES = 4;   // the beat of the shared source/sink helpers
    `include "axis_tb.vh"         // xs, axis_word, axis_keep
    task rnd;
        begin
            rs = xs(rs);
        end
    endtask

    function [15:0] oc_add(input [15:0] a, input [15:0] b);
        reg [16:0] s;
        begin
            s = {1'b0, a} + {1'b0, b};
            oc_add = s[15:0] + {15'd0, s[16]};
        end
    endfunction

    // expected rounds, in order of their last beat
    reg [15:0]   exp_csum [0:ROUNDS-1];
    reg [Q_W-1:0] exp_q   [0:ROUNDS-1];
    integer fed = 0, popped = 0, errors = 0, rd_checks = 0, cycle = 0;
    integer k, h, later;
    reg [15:0] acc;
    reg [15:0] half;
    reg [31:0] plain;
    integer kk, carries = 0;

    // the set of the round at the head, set up half a cycle before the edge that may pop it
    always @(negedge clk)
        rd_q <= exp_q[popped < ROUNDS ? popped : 0];

    // sink: random backpressure; check every pop, and the set's stored checksum
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (!rst && m_valid && m_ready) begin
            if (popped >= fed) begin
                $display("FAIL cycle %0d: a checksum with no round fed", cycle);
                errors = errors + 1;
            end else begin
                if (m_csum !== exp_csum[popped]) begin
                    $display("FAIL round %0d (set %0d): m_csum %04h, expected %04h", popped,
                             exp_q[popped], m_csum, exp_csum[popped]);
                    errors = errors + 1;
                end
                later = 0;
                for (h = popped + 1; h < fed; h = h + 1)
                    if (exp_q[h] == exp_q[popped]) later = 1;
                if (!later) begin
                    rd_checks = rd_checks + 1;
                    if (rd_csum !== exp_csum[popped]) begin
                        $display("FAIL round %0d (set %0d): rd_csum %04h, expected %04h", popped,
                                 exp_q[popped], rd_csum, exp_csum[popped]);
                        errors = errors + 1;
                    end
                end
            end
            popped = popped + 1;
        end
        rnd;
        m_ready <= (rs[7:0] < 8'd170);
    end

    integer r, b, nb, idle;
    reg [Q_W-1:0] qn;
    initial begin
        rs = 32'h1234_5678 ^ SEED;
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        for (r = 0; r < ROUNDS; r = r + 1) begin
            // at most DEPTH rounds outstanding (the engine keeps to that)
            if (fed - popped >= DEPTH) begin
                @(negedge clk); beat = 1'b0; last = 1'b0;
                while (fed - popped >= DEPTH) @(posedge clk);
            end
            rnd; nb = 1 + rs % 7;
            rnd; qn = rs[Q_W-1:0];          // drives q from the first beat's negedge on
            acc = 16'd0;
            plain = 32'd0;
            for (b = 0; b < nb; b = b + 1) begin
                rnd; idle = (rs[3:0] < 4'd5) ? rs[9:8] : 0;
                while (idle > 0) begin
                    @(negedge clk); beat = 1'b0; last = 1'b0;
                    @(posedge clk); idle = idle - 1;
                end
                @(negedge clk);
                beat = 1'b1;
                q = qn;
                last = (b == nb - 1);
                rnd;
                if (rs[2:0] == 3'd0) mask = {LANES{1'b0}};
                else if (rs[3]) mask = {LANES{1'b1}};
                else for (k = 0; k < LANES; k = k + 1) begin rnd; mask[k] = rs[4]; end
                for (k = 0; k < LANES * 2; k = k + 1) begin
                    rnd;
                    half = (rs[5:0] < 6'd8) ? 16'hffff : (rs[5:0] < 6'd12 ? 16'h0000 : rs[31:16]);
                    if (r % 97 == 5) half = 16'h0000;           // now and then a zero payload
                    words[k*16 +: 16] = half;
                end
                // every third round: the last payload half makes the plain sum's low 16 bits
                // all ones, so the fold has a carry out (hi + 0xffff) whenever the sum >= 2^16
                kk = -1;
                if (last && r % 3 == 0 && r % 97 != 5)
                    for (k = 0; k < LANES * 2; k = k + 1)
                        if (mask[k/2]) kk = k;
                for (k = 0; k < LANES * 2; k = k + 1)
                    if (mask[k/2] && k != kk) begin
                        acc = oc_add(acc, words[k*16 +: 16]);
                        plain = plain + words[k*16 +: 16];
                    end
                if (kk >= 0) begin
                    words[kk*16 +: 16] = 16'hffff - plain[15:0];
                    acc = oc_add(acc, words[kk*16 +: 16]);
                    plain = plain + words[kk*16 +: 16];
                    if (plain >= 32'h10000) carries = carries + 1;
                end
                if (last) begin
                    exp_csum[fed] = acc;
                    exp_q[fed] = q;
                    fed = fed + 1;
                end
                @(posedge clk);
            end
        end
        @(negedge clk); beat = 1'b0; last = 1'b0;
        // drain
        k = 0;
        while (popped < fed && k < 2000) begin
            @(posedge clk); k = k + 1;
        end
        if (popped != fed) begin
            $display("FAIL %0d rounds fed, %0d checksums out", fed, popped);
            errors = errors + 1;
        end
        if (carries < ROUNDS / 8) begin
            $display("FAIL only %0d rounds with a carry out of the fold", carries);
            errors = errors + 1;
        end
        if (rd_checks < ROUNDS / 4) begin
            $display("FAIL only %0d rd_csum checks", rd_checks);
            errors = errors + 1;
        end
        if (errors == 0)
            $display("PASS %0d rounds (%0d with a fold carry), %0d per-set reads checked (LANES %0d)",
                     fed, carries, rd_checks, LANES);
        else
            $display("FAIL %0d errors", errors);
        $finish;
    end

endmodule
