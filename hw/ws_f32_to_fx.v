// ws_f32_to_fx - binary32 to the exact fixed-point term of a Kulisch accumulator (LSB 2^-149), 0 or 1 register stage.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// A finite binary32 with exponent field E and significand M (hidden bit included when E != 0)
// is the integer M << max(E-1, 0) times 2^-149 (docs/architecture.md section 3); fx is that
// integer with the sign applied, in ACC_W-bit two's complement. Zeros, NaNs and infinities give
// fx = 0; NaNs and infinities are reported by the flags instead.
//
// Logic: the 24-bit significand is negated first (a 25-bit carry chain, not an ACC_W-bit one),
// then shifted left by one barrel shifter: -(M << k) == (-M) << k in two's complement because
// the bits shifted in are zeros. The shift amount max(E-1, 0) is formed without a subtractor:
// shift by max(E, 1) into an (ACC_W+1)-bit word and drop its bit 0, which is always 0.
// With PIPELINE = 1 the decoded, negated significand, the shift amount and the flags are
// registered before the shifter (the carry chain of the negation and the shifter's mux levels
// are then in different cycles; outputs one cycle after f).
module ws_f32_to_fx #(
    parameter ACC_W    = 284, // accumulator bits, two's complement; >= 278 (largest term 2^277 - 2^253, plus sign)
    parameter PIPELINE = 0,   // register stages inside: 0 combinational, 1 after the negation
    parameter OUT_LO   = 0,   // fx is bits OUT_LO.. of the term (a slice: one chunk of a lane) ..
    parameter OUT_W    = ACC_W - OUT_LO  // .. OUT_W of them; OUT_LO + OUT_W <= ACC_W
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire             clk,        // used only when PIPELINE > 0
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0]      f,          // binary32 bit pattern
    output wire [OUT_W-1:0] fx,         // ((-1)^s * M << max(E-1, 0))[OUT_LO +: OUT_W]; 0 for zeros, NaN and Inf
    output wire             nan,        // f is a NaN (any payload, either sign)
    output wire             pinf,       // f is +Inf
    output wire             ninf,       // f is -Inf
    output wire             notnegzero  // f is anything other than -0 (32'h80000000)
);

    generate if (ACC_W < 278) begin : g_bad_acc_w
        initial begin
            $error("Error: ws_f32_to_fx %m: ACC_W must be >= 278 to hold one binary32 term (ACC_W = %0d)",
                   ACC_W);
            $finish;
        end
    end endgenerate
    generate if (OUT_LO < 0 || OUT_W < 1 || OUT_LO + OUT_W > ACC_W) begin : g_bad_slice
        initial begin
            $error("Error: ws_f32_to_fx %m: the slice OUT_LO +: OUT_W must lie in ACC_W bits (OUT_LO = %0d, OUT_W = %0d, ACC_W = %0d)",
                   OUT_LO, OUT_W, ACC_W);
            $finish;
        end
    end endgenerate
    generate if (PIPELINE < 0 || PIPELINE > 1) begin : g_bad_pipeline
        initial begin
            $error("Error: ws_f32_to_fx %m: PIPELINE must be 0 or 1 (PIPELINE = %0d)", PIPELINE);
            $finish;
        end
    end endgenerate

    wire        s = f[31];
    wire [7:0]  e = f[30:23];
    wire [22:0] m = f[22:0];

    wire e_max  = &e;
    wire e_zero = ~|e;

    wire a_nan        = e_max && (m != 23'd0);
    wire a_pinf       = e_max && (m == 23'd0) && !s;
    wire a_ninf       = e_max && (m == 23'd0) && s;
    wire a_notnegzero = f != 32'h8000_0000;

    // significand with the hidden bit; forced to 0 for NaN and Inf
    wire [23:0] sig = e_max ? 24'd0 : {!e_zero, m};
    // signed significand: 25-bit two's complement, |value| < 2^24
    wire [24:0] a_ssig = s ? (25'd0 - {1'b0, sig}) : {1'b0, sig};

    generate if (OUT_LO == 0 && OUT_W == ACC_W) begin : g_full
        // the whole term
        // the optional register: {ssig, sh, flags}
        localparam P_W = 25 + 8 + 4;
        // max(E, 1): E with bit 0 forced for subnormals and zeros
        wire [7:0] a_sh = {e[7:1], e[0] | e_zero};
        wire [P_W-1:0] p_q;
        ws_pipe_reg #(.W(P_W), .ON(PIPELINE)) p_reg (
            .clk(clk), .d({a_ssig, a_sh, a_nan, a_pinf, a_ninf, a_notnegzero}), .q(p_q));
        wire [24:0] ssig;
        wire [7:0]  sh;
        assign {ssig, sh, nan, pinf, ninf, notnegzero} = p_q;

        // sign-extend to ACC_W+1 bits, shift by max(E, 1), drop bit 0 (shift by max(E-1, 0));
        // procedural: Icarus evaluates a wide shift in a continuous assignment ~100x slower.
        // shifted[0] is always 0 and is dropped: the waiver covers this declaration only
        /* verilator lint_off UNUSEDSIGNAL */
        reg [ACC_W:0] shifted;
        /* verilator lint_on UNUSEDSIGNAL */
        always @(*)
            shifted = {{(ACC_W + 1 - 25){ssig[24]}}, ssig} << sh;

        assign fx = shifted[ACC_W:1];
    end else begin : g_slice
        // Only the slice: bit i of fx is bit j = OUT_LO + 1 + i - sh of the sign-extended
        // significand (0 below bit 0, the sign above bit 24). In the window
        // win = {OUT_W sign bits, ssig, OUT_W zeros} that bit is win[a + i] with
        // a = OUT_W + OUT_LO + 1 - sh, so fx = win >> a while 0 <= a <= OUT_W + 25; a < 0 puts
        // the whole slice below the significand (0, as a = 0 gives: win's OUT_W zeros), a >
        // OUT_W + 25 above it (sign bits, as a = OUT_W + 25 gives). The shift amount is formed
        // next to the negation, before the optional register, so that nothing but the shifter
        // follows the register; the shifter is OUT_W bits wide instead of ACC_W.
        // For E >= 1 (sh = E) the two ends are compares of E with constants, beside the
        // subtract rather than behind it; E = 0 (sh = 1) has a constant amount of its own.
        localparam K    = OUT_W + OUT_LO + 1;   // a = K - sh
        localparam AMAX = OUT_W + 25;
        localparam AW   = $clog2(AMAX + 1);
        localparam [AW-1:0] KA = K[AW-1:0];
        localparam [AW-1:0] AMAXA = AMAX[AW-1:0];
        localparam EH   = K - AMAX;             // E < EH: a > AMAX
        localparam A1   = (K - 1 > AMAX) ? AMAX : K - 1;      // the amount for E = 0
        localparam [AW-1:0] A1A = A1[AW-1:0];
        wire [31:0]   e32    = {24'd0, e};
        wire [AW-1:0] a_d    = KA - e[AW-1:0];                  // a mod 2^AW, for E >= 1
        wire          a_low  = $signed(e32) > K;                // a < 0: the slice is 0
        wire          a_high = $signed(e32) < EH;               // a > OUT_W + 25: sign bits
        wire [AW-1:0] a_amt  = e_zero ? A1A : a_low ? {AW{1'b0}} : a_high ? AMAXA : a_d;

        // the optional register: {ssig, amt, flags}
        localparam P_W = 25 + AW + 4;
        wire [P_W-1:0] p_q;
        ws_pipe_reg #(.W(P_W), .ON(PIPELINE)) p_reg (
            .clk(clk), .d({a_ssig, a_amt, a_nan, a_pinf, a_ninf, a_notnegzero}), .q(p_q));
        wire [24:0]   ssig;
        wire [AW-1:0] amt;
        assign {ssig, amt, nan, pinf, ninf, notnegzero} = p_q;

        // procedural, as above; bits above OUT_W of the shifted window are not used
        /* verilator lint_off UNUSEDSIGNAL */
        reg [2*OUT_W+24:0] shifted;
        /* verilator lint_on UNUSEDSIGNAL */
        always @(*)
            shifted = {{OUT_W{ssig[24]}}, ssig, {OUT_W{1'b0}}} >> amt;

        assign fx = shifted[OUT_W-1:0];
    end endgenerate

endmodule

`resetall
