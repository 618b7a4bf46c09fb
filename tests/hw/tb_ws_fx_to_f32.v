// tb_ws_fx_to_f32 - the lane's converters, ws_f32_to_fx and ws_fx_to_f32, against driver/xsum.c vectors.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Reads VEC_FILE (tool_acc_lane_vectors --units; format in tests/tool_acc_lane_vectors.c), one
// vector a cycle:
//   kind 0 (f -> fx): ws_f32_to_fx must give the vector's fx and flags, and ws_fx_to_f32 fed
//     with them must give f back (the canonical NaN for a NaN);
//   kind 1 (fx, flags -> f): ws_fx_to_f32 must give the vector's f (every leading-one
//     position, both signs, each rounding case, every flag combination).
// ws_fx_to_f32 runs with PIPELINE register stages; its result is checked PIPELINE cycles
// after its input. Prints "PASS ..." or "FAIL ..." and finishes.
module tb_ws_fx_to_f32 #(
    parameter ACC_W    = 284,                             // converter width (>= 284 for these vectors)
    parameter PIPELINE = 0,                               // ws_fx_to_f32 register stages, 0..5
    parameter VEC_FILE = "build/hw/vectors/units.hex",    // vectors ($readmemh)
    parameter MAX_VEC  = 1 << 17,                         // capacity of the vector array
    parameter MAX_ERR  = 5                                // mismatches printed in detail
) ();

    reg clk = 1'b0;

    reg  [31:0]      cv_f = 32'd0;
    wire [ACC_W-1:0] cv_fx;
    wire [3:0]       cv_fl;
    reg  [ACC_W-1:0] rn_fx = {ACC_W{1'b0}};
    reg  [3:0]       rn_fl = 4'd0;
    wire [31:0]      rn_f;

    ws_f32_to_fx #(.ACC_W(ACC_W)) cv (
        .clk(clk), .f(cv_f), .word(1'b0), .fx(cv_fx),  // combinational (PIPELINE 0): clk unused
        .nan(cv_fl[3]), .pinf(cv_fl[2]), .ninf(cv_fl[1]), .notnegzero(cv_fl[0])
    );
    ws_fx_to_f32 #(.ACC_W(ACC_W), .PIPELINE(PIPELINE)) rn (
        .clk(clk), .en(5'b11111), .fx(rn_fx),   // a value every cycle
        .nan(rn_fl[3]), .pinf(rn_fl[2]), .ninf(rn_fl[1]), .notnegzero(rn_fl[0]), .f(rn_f)
    );

    reg [359:0] vec [0:MAX_VEC];
    integer n_vec, i, j, n_err, n_conv, n_round;
    reg [359:0] v;
    reg [319:0] fx320;
    reg [31:0]  exp_f;

    // the value ws_fx_to_f32 must give for vector j
    task expected_round;
        input integer jj;
        begin
            v = vec[jj];
            if (v[359:356] == 4'd0 && v[323])  // kind 0 with the NaN flag
                exp_f = 32'h7fc0_0000;
            else
                exp_f = v[355:324];
        end
    endtask

    initial begin
        $readmemh(VEC_FILE, vec);
        n_vec = vec[0][31:0];
        n_err = 0;
        n_conv = 0;
        n_round = 0;
        if (^vec[0] === 1'bx || n_vec < 1 || n_vec > MAX_VEC) begin
            $display("FAIL cannot read vectors %s (MAX_VEC = %0d)", VEC_FILE, MAX_VEC);
            $finish;
        end
        if (ACC_W < 284) begin
            $display("FAIL ACC_W = %0d: the vectors need >= 284", ACC_W);
            $finish;
        end
        for (i = 1; i <= n_vec + PIPELINE; i = i + 1) begin
            #5;  // falling edge: apply vector i
            clk = 1'b0;
            if (i <= n_vec) begin
                v = vec[i];
                fx320 = v[319:0];
                cv_f  = v[355:324];
                rn_fl = v[323:320];
                rn_fx = fx320[ACC_W-1:0];
                if (fx320 !== {{(320 - ACC_W){fx320[ACC_W-1]}}, fx320[ACC_W-1:0]}) begin
                    n_err = n_err + 1;
                    $display("  vector %0d: fx does not fit ACC_W = %0d", i, ACC_W);
                end
            end
            #1;
            // ws_f32_to_fx, combinational
            if (i <= n_vec && v[359:356] == 4'd0) begin
                n_conv = n_conv + 1;
                if (cv_fx !== rn_fx || cv_fl !== rn_fl) begin
                    n_err = n_err + 1;
                    if (n_err <= MAX_ERR)
                        $display("  mismatch: vector %0d f32_to_fx(%08x): fx exp %h got %h, flags exp %b got %b",
                                 i, cv_f, rn_fx, cv_fx, rn_fl, cv_fl);
                end
            end
            // ws_fx_to_f32, PIPELINE cycles behind
            j = i - PIPELINE;
            if (j >= 1) begin
                expected_round(j);
                n_round = n_round + 1;
                if (rn_f !== exp_f) begin
                    n_err = n_err + 1;
                    if (n_err <= MAX_ERR)
                        $display("  mismatch: vector %0d (kind %0d) fx_to_f32(%h, flags %b): exp %08x got %08x",
                                 j, vec[j][359:356], vec[j][319:0], vec[j][323:320], exp_f, rn_f);
                end
            end
            #4;
            clk = 1'b1;  // rising edge
        end
        #1;  // let the last updates settle (Verilator 5.006 --timing printed stale counts without it)
        if (n_round != n_vec)
            n_err = n_err + 1;
        if (n_err == 0)
            $display("PASS tb_ws_fx_to_f32: %0d vectors (%0d f32_to_fx, %0d fx_to_f32), PIPELINE %0d",
                     n_vec, n_conv, n_round, PIPELINE);
        else
            $display("FAIL tb_ws_fx_to_f32: %0d errors in %0d vectors, PIPELINE %0d", n_err, n_vec, PIPELINE);
        $finish;
    end

endmodule

`resetall
