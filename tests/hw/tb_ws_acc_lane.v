// tb_ws_acc_lane - ws_acc_lane against exact sums from driver/xsum.c (tool_acc_lane_vectors), with and without bubbles.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Reads OPS_FILE and EXP_FILE (formats in tests/tool_acc_lane_vectors.c) and drives the
// operations twice, one pass with BUBBLE_PCT_A % idle cycles between operations and one with
// BUBBLE_PCT_B % (random, seeded from the operations file), so one build covers both. Checks
// every out_valid, in order, against the next expected (address, result), that each result
// comes exactly LATENCY cycles after its last operation, and the count at the end. Prints
// "PASS ..." or "FAIL ..." (after the first MAX_ERR mismatches in detail) and finishes.
module tb_ws_acc_lane #(
    parameter ACC_W        = 284,                                     // lane accumulator bits (>= 284 for these vectors)
    parameter DEPTH        = 64,                                      // lane entries (the vectors use addresses 0..63)
    parameter ADD_CHUNKS   = 4,                                       // lane add pipeline stages
    parameter OPS_FILE     = "build/hw/vectors/acc_lane_ops.hex",     // operations ($readmemh)
    parameter EXP_FILE     = "build/hw/vectors/acc_lane_expected.hex", // expected results ($readmemh)
    parameter MAX_OPS      = 1 << 18,                                 // capacity of the vector arrays
    parameter BUBBLE_PCT_A = 0,                                       // idle cycles, percent, first pass
    parameter BUBBLE_PCT_B = 30,                                      // idle cycles, percent, second pass
    parameter MAX_ERR      = 5                                        // mismatches printed in detail
) ();

    localparam ADDR_W = $clog2(DEPTH);

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg               in_valid = 1'b0;
    reg  [ADDR_W-1:0] in_addr = {ADDR_W{1'b0}};
    reg  [31:0]       in_value = 32'd0;
    reg               in_first = 1'b0;
    reg               in_last = 1'b0;
    wire              out_valid;
    wire [ADDR_W-1:0] out_addr;
    wire [31:0]       out_result;

    ws_acc_lane #(.ACC_W(ACC_W), .DEPTH(DEPTH), .ADDR_W(ADDR_W), .ADD_CHUNKS(ADD_CHUNKS)) dut (
        .clk(clk), .rst(rst),
        .in_valid(in_valid), .in_addr(in_addr), .in_value(in_value), .in_word(1'b0),
        .in_first(in_first), .in_last(in_last),
        .out_valid(out_valid), .out_addr(out_addr), .out_result(out_result),
        .raw_addr({ADDR_W{1'b0}}), .raw_data()
    );

    // the lane's documented latency, read from the instance (not a constant expression in Icarus)
    integer LATENCY;
    initial LATENCY = dut.LATENCY;

    reg [63:0] ops [0:MAX_OPS];
    reg [63:0] exps [0:MAX_OPS];
    integer n_ops, n_exp;

    // cycle counter, read at rising edges (old value)
    integer cyc = 0;
    always @(posedge clk)
        cyc <= cyc + 1;

    // cycles of the operations with `last`, in order (ring), for the latency check: sampled
    // at the edge where the lane takes them, as the checker samples out_valid (no race)
    localparam RING = 256;
    integer last_cyc [0:RING-1];
    integer n_last = 0;
    always @(posedge clk)
        if (!rst && in_valid && in_last) begin
            last_cyc[n_last % RING] = cyc;
            n_last = n_last + 1;
        end

    // ---------------------------------------------------------------------------------
    // checker

    integer n_out = 0, n_err = 0;
    reg [63:0] e;
    always @(posedge clk) begin
        if (!rst && out_valid !== 1'b0) begin
            if (n_out >= 2 * n_exp) begin
                n_err = n_err + 1;
                if (n_err <= MAX_ERR)
                    $display("  mismatch: extra result #%0d addr %0d got %08x (valid %b)",
                             n_out, out_addr, out_result, out_valid);
            end else begin
                e = exps[1 + n_out % n_exp];
                if (out_valid !== 1'b1 || out_addr !== e[32 +: ADDR_W] || out_result !== e[31:0] ||
                    cyc - last_cyc[n_out % RING] != LATENCY) begin
                    n_err = n_err + 1;
                    if (n_err <= MAX_ERR)
                        $display("  mismatch: result #%0d (vector %0d, pass %0d) addr exp %0d got %0d, result exp %08x got %08x, latency %0d (expected %0d)",
                                 n_out, 1 + n_out % n_exp, n_out / n_exp, e[32 +: ADDR_W], out_addr,
                                 e[31:0], out_result, cyc - last_cyc[n_out % RING], LATENCY);
                end
            end
            n_out = n_out + 1;
        end
    end

    // ---------------------------------------------------------------------------------
    // driver

    integer pass, i, pct, n_bubbles, t0;
    reg [63:0] op;

    // xorshift32: the same idle pattern in every simulator ($random(seed) differs)
    reg [31:0] rs;
    task next_rand;
        begin
            rs = rs ^ (rs << 13);
            rs = rs ^ (rs >> 17);
            rs = rs ^ (rs << 5);
        end
    endtask
    initial begin
        $readmemh(OPS_FILE, ops);
        $readmemh(EXP_FILE, exps);
        n_ops = ops[0][31:0];
        n_exp = exps[0][31:0];
        rs = ops[0][63:32] | 32'd1;
        if (^ops[0] === 1'bx || ^exps[0] === 1'bx || n_ops < 1 || n_ops > MAX_OPS ||
            n_exp < 1 || n_exp > MAX_OPS) begin
            $display("FAIL cannot read vectors %s / %s (MAX_OPS = %0d)", OPS_FILE, EXP_FILE, MAX_OPS);
            $finish;
        end
        if (ACC_W < 284) begin
            $display("FAIL ACC_W = %0d: the vectors need >= 284", ACC_W);
            $finish;
        end
        n_bubbles = 0;
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);
        t0 = cyc;
        for (pass = 0; pass < 2; pass = pass + 1) begin
            pct = pass == 0 ? BUBBLE_PCT_A : BUBBLE_PCT_B;
            for (i = 1; i <= n_ops; i = i + 1) begin
                // idle cycles: inputs other than in_valid carry junk
                next_rand;
                while (pct > 0 && rs % 100 < pct) begin
                    in_valid <= 1'b0;
                    in_addr  <= rs[31 -: ADDR_W];
                    in_value <= rs ^ 32'h5a5a_5a5a;
                    in_first <= rs[7];
                    in_last  <= rs[9];
                    n_bubbles = n_bubbles + 1;
                    @(posedge clk);
                    next_rand;
                end
                op = ops[i];
                in_valid <= 1'b1;
                in_first <= op[49];
                in_last  <= op[48];
                in_addr  <= op[32 +: ADDR_W];
                in_value <= op[31:0];
                @(posedge clk);
            end
        end
        in_valid <= 1'b0;
        repeat (LATENCY + 10) @(posedge clk);
        if (n_out != 2 * n_exp || n_last != 2 * n_exp)
            n_err = n_err + 1;
        if (n_err == 0)
            $display("PASS tb_ws_acc_lane: %0d ops x 2 passes (bubbles %0d%% / %0d%%, %0d idle cycles), %0d results, %0d cycles, latency %0d",
                     n_ops, BUBBLE_PCT_A, BUBBLE_PCT_B, n_bubbles, n_out, cyc - t0, LATENCY);
        else
            $display("FAIL tb_ws_acc_lane: %0d errors; %0d results of %0d expected (%0d ops x 2 passes)",
                     n_err, n_out, 2 * n_exp, n_ops);
        $finish;
    end

endmodule

`resetall
