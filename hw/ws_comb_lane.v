// ws_comb_lane - one lane of the combine: the engines' exact partials of an element added, rounded once.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// ws_combine's per-lane data path (its g_combine: several engines, or rounds that may leave as
// PARTIAL frames). A row's part and touch are the combine's stage 1 (the replicas' data
// registered); per stage:
//   2        carry-save: the partials of the engines in touch (E operands) into two, bit by bit,
//            no carry chain; their flags (NaN, +Inf, -Inf, not -0) ORed
//   3..2+CH  the two added, one CW-bit chunk a stage, the carry registered between chunks (as
//            in the lanes, ws_acc_lane); sum = {flags, exact sum} at stage 2 + CH
//   +CR      rounded once to binary32 (ws_fx_to_f32, PIPELINE = CR): f, CR cycles after sum
// Stage enables, as ws_fx_to_f32's: en[k] loads stage 2 + k, given with the valid of the row at
// stage 1 + k (a row a cycle, no stall). A stage holds while no row goes through, and the
// outputs are taken only with their row's valid: Verilator then evaluates a stage's adds only
// when a row passes (rows come a round at a time).
module ws_comb_lane #(
    parameter ENGINES = 1,    // partials to add
    parameter ACC_W   = 284,  // accumulator bits (ws_engine's ACC_W)
    parameter CH      = 4,    // chunks of the add, one a stage
    parameter CR      = 5     // register stages of the rounding (ws_fx_to_f32 PIPELINE)
) (
    input  wire                           clk,
    // The inputs are public to Verilator (a metacomment), as ws_acc_lane's are: one function
    // then serves every lane, instead of one copy of the lane's C++ per lane (16 at 512 bits).
    input  wire [CH+CR:0]                 en /*verilator public*/,     // the row's valid at stages 1 .. 1+CH+CR
    input  wire [ENGINES-1:0]             touch /*verilator public*/,  // engines that took part in the round
    input  wire [ENGINES*(ACC_W+4)-1:0]   part /*verilator public*/,   // engine e's {flags, sum} at e*(ACC_W+4)
    output wire [ACC_W+3:0]               sum,                         // stage 2 + CH
    output wire [31:0]                    f                            // stage 2 + CH + CR
);

    localparam E  = ENGINES;
    localparam CW = (ACC_W + CH - 1) / CH;      // chunk width
    localparam PW = CH * CW;                    // the operands padded to whole chunks

    // per stage 2 .. 1+CH (index 0 .. CH-1): the two operands; per stage 2 .. 2+CH (0 .. CH): the
    // flags; per stage 3 .. 2+CH (0 .. CH-1): the chunks summed so far and the carry out of the
    // last one. Arrays of whole words, each written whole: a vector written a slice at a time is
    // copied whole on every clock by Verilator, to keep its other bits (the lane's largest cost
    // before).
    reg [PW-1:0]        vs [0:CH-1];
    reg [PW-1:0]        vc [0:CH-1];
    reg [3:0]           vf [0:CH];
    reg [PW-1:0]        vr [0:CH-1];
    reg                 vk [0:CH-1];
    integer             ti;

    // Temporaries of the clocked process below (blocking assignments, each read only after it is
    // written in the same branch): stage 2's carry-save, a + b = the sum of the partials in touch
    // with their flags ORed, and a stage's sum so far with its new chunk. Under the stages'
    // enables, so that Verilator evaluates them only when a row enters the stage (as processes of
    // their own they ran every cycle).
    reg [PW-1:0]        x, a, b, n, r;
    reg                 k;
    reg [3:0]           fl;
    integer             te;
    always @(posedge clk) begin
        /* verilator lint_off BLKSEQ */  // the temporaries (above)
        if (en[0]) begin
            a = {PW{1'b0}};
            b = {PW{1'b0}};
            n = {PW{1'b0}};
            fl = 4'd0;
            for (te = 0; te < E; te = te + 1) begin
                x = touch[te] ? {{(PW-ACC_W){1'b0}}, part[te*(ACC_W+4) +: ACC_W]} : {PW{1'b0}};
                fl = fl | (touch[te] ? part[te*(ACC_W+4) + ACC_W +: 4] : 4'd0);
                if (te == 0) begin
                    a = x;
                end else if (te == 1) begin
                    b = x;
                end else begin
                    n = a ^ b ^ x;
                    b = ((a & b) | (a & x) | (b & x)) << 1;
                    a = n;
                end
            end
            vs[0] <= a;
            vc[0] <= b;
            vf[0] <= fl;
        end
        for (ti = 1; ti <= CH; ti = ti + 1)
            if (en[ti]) begin
                if (ti < CH) begin
                    vs[ti] <= vs[ti-1];
                    vc[ti] <= vc[ti-1];
                end
                vf[ti] <= vf[ti-1];
                // stage 2+ti: chunk ti-1 of the sum, with the carry of the stage before (none
                // for chunk 0)
                r = ti == 1 ? {PW{1'b0}} : vr[ti-2];
                {k, r[(ti-1)*CW +: CW]} = {1'b0, vs[ti-1][(ti-1)*CW +: CW]} +
                                          {1'b0, vc[ti-1][(ti-1)*CW +: CW]} +
                                          {{CW{1'b0}}, ti == 1 ? 1'b0 : vk[ti-2]};
                vr[ti-1] <= r;
                vk[ti-1] <= k;
            end
        /* verilator lint_on BLKSEQ */
    end
    assign sum = {vf[CH], vr[CH-1][ACC_W-1:0]};
    ws_fx_to_f32 #(.ACC_W(ACC_W), .PIPELINE(CR)) rnd (
        .clk(clk), .en(en[CH+1 +: CR]), .fx(sum[ACC_W-1:0]),   // each stage with its row
        .nan(sum[ACC_W+3]), .pinf(sum[ACC_W+2]), .ninf(sum[ACC_W+1]),
        .notnegzero(sum[ACC_W]), .f(f)
    );

endmodule

`resetall
