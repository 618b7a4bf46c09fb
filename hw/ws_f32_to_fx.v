// ws_f32_to_fx - binary32 (or a PARTIAL word) to the exact fixed-point term of a Kulisch accumulator (LSB 2^-149), 0 or 1 register stage.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// A finite binary32 with exponent field E and significand M (hidden bit included when E != 0)
// is the integer M << max(E-1, 0) times 2^-149 (docs/architecture.md section 3); fx is that
// integer with the sign applied, in ACC_W-bit two's complement. Zeros, NaNs and infinities give
// fx = 0; NaNs and infinities are reported by the flags instead.
//
// Logic: the 24-bit significand is negated first (a 25-bit carry chain, not an ACC_W-bit one;
// (x ^ s) + s, so that the sign's select is not behind the chain),
// then shifted left by one barrel shifter: -(M << k) == (-M) << k in two's complement because
// the bits shifted in are zeros. The shift amount max(E-1, 0) is formed without a subtractor:
// shift by max(E, 1) into an (ACC_W+1)-bit word and drop its bit 0, which is always 0.
// With PIPELINE = 1 the decoded, negated significand, the shift amount and the flags are
// registered before the shifter (the carry chain of the negation and the shifter's mux levels
// are then in different cycles; outputs one cycle after f).
//
// WORDS = 1 (a device that takes PARTIALs, docs/protocol.md section 9): f is 64 bits and, with
// word, one word of a PARTIAL: X S E(8) M(54), worth (-1)^S * M << E for E < 255; E = 255 is a
// special whose M bits 2, 1, 0 are the NaN, -Inf and +Inf flags (fx = 0); notnegzero is clear
// only for S = 1, M = 0, X = 0 ("every contribution was -0"). The same negation and shifter
// serve both: the word's M is taken as a significand one bit up (M << 1, shifted by E), the
// binary32's as it is (shifted by max(E, 1)), and bit 0 is dropped either way. Without word,
// f[31:0] is a binary32 as above.
module ws_f32_to_fx #(
    parameter ACC_W    = 284, // accumulator bits, two's complement; >= 278 (largest term 2^277 - 2^253, plus sign)
    parameter PIPELINE = 0,   // register stages inside: 0 combinational, 1 after the negation
    parameter OUT_LO   = 0,   // fx is bits OUT_LO.. of the term (a slice: one chunk of a lane) ..
    parameter OUT_W    = ACC_W - OUT_LO, // .. OUT_W of them; OUT_LO + OUT_W <= ACC_W
    parameter WORDS    = 0,   // 1: f is 64 bits, a PARTIAL word when word is set; ACC_W >= 309
    parameter IN_W     = (WORDS != 0) ? 64 : 32 // bits of f (derived)
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire             clk,        // used only when PIPELINE > 0
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator lint_off UNUSEDSIGNAL */  // WORDS = 0: word is not read
    input  wire [IN_W-1:0]  f,          // binary32 bit pattern (f[31:0]), or a PARTIAL word
    input  wire             word,       // WORDS = 1: f is a PARTIAL word
    /* verilator lint_on UNUSEDSIGNAL */
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
    generate if (WORDS < 0 || WORDS > 1 || IN_W != ((WORDS != 0) ? 64 : 32) || (WORDS == 1 && ACC_W < 309)) begin : g_bad_words
        initial begin
            $error("Error: ws_f32_to_fx %m: WORDS must be 0 or 1, IN_W 32 or 64 with it, and WORDS = 1 needs ACC_W >= 309 to hold one PARTIAL word (WORDS = %0d, IN_W = %0d, ACC_W = %0d)",
                   WORDS, IN_W, ACC_W);
            $finish;
        end
    end endgenerate
    generate if (PIPELINE < 0 || PIPELINE > 1) begin : g_bad_pipeline
        initial begin
            $error("Error: ws_f32_to_fx %m: PIPELINE must be 0 or 1 (PIPELINE = %0d)", PIPELINE);
            $finish;
        end
    end endgenerate

    // the decoded input: the signed significand (SW bits, two's complement), the shift amount
    // (the term is ssig << sh, bit 0 then dropped) and the flags
    localparam SW = (WORDS != 0) ? 56 : 25;
    wire [SW-1:0] a_ssig;
    /* verilator lint_off UNUSEDSIGNAL */  // WORDS = 0: the slice compares E itself
    wire [7:0]    a_sh;
    /* verilator lint_on UNUSEDSIGNAL */
    wire          a_nan, a_pinf, a_ninf, a_notnegzero;
    wire [7:0]    e = f[30:23];
    wire          e_zero = ~|e;

    generate if (WORDS == 0) begin : g_f32
        wire        s = f[31];
        wire [22:0] m = f[22:0];
        wire e_max  = &e;

        assign a_nan        = e_max && (m != 23'd0);
        assign a_pinf       = e_max && (m == 23'd0) && !s;
        assign a_ninf       = e_max && (m == 23'd0) && s;
        assign a_notnegzero = f[31:0] != 32'h8000_0000;

        // significand with the hidden bit; forced to 0 for NaN and Inf
        wire [23:0] sig = e_max ? 24'd0 : {!e_zero, m};
        // signed significand: 25-bit two's complement, |value| < 2^24 (negated as ~x + 1, the
        // complement in the LUTs in front of the carry chain, no select behind it)
        assign a_ssig = ({1'b0, sig} ^ {25{s}}) + {24'd0, s};
        // max(E, 1): E with bit 0 forced for subnormals and zeros
        assign a_sh = {e[7:1], e[0] | e_zero};
    end else begin : g_words
        wire        f_s = f[31];
        wire [22:0] f_m = f[22:0];
        wire        f_emax = &e;
        wire        w_x = f[63];
        wire        w_s = f[62];
        wire [7:0]  w_e = f[61:54];
        wire [53:0] w_m = f[53:0];
        wire        w_emax = &w_e;

        wire s = word ? w_s : f_s;
        assign a_nan        = word ? (w_emax && w_m[2]) : (f_emax && (f_m != 23'd0));
        assign a_pinf       = word ? (w_emax && w_m[0]) : (f_emax && (f_m == 23'd0) && !f_s);
        assign a_ninf       = word ? (w_emax && w_m[1]) : (f_emax && (f_m == 23'd0) && f_s);
        assign a_notnegzero = word ? (w_emax || !(w_s && w_m == 54'd0 && !w_x))
                                   : f[31:0] != 32'h8000_0000;

        // the significand one bit up for a word (shifted by E), as it is for a binary32
        // (shifted by max(E, 1)); 0 for the specials of both
        wire [54:0] sig = word ? (w_emax ? 55'd0 : {w_m, 1'b0})
                               : (f_emax ? 55'd0 : {31'd0, !e_zero, f_m});
        assign a_ssig = ({1'b0, sig} ^ {56{s}}) + {55'd0, s};
        assign a_sh = word ? w_e : {e[7:1], e[0] | e_zero};
    end endgenerate

    generate if (OUT_LO == 0 && OUT_W == ACC_W) begin : g_full
        // the whole term
        // the optional register: {ssig, sh, flags}
        localparam P_W = SW + 8 + 4;
        wire [P_W-1:0] p_q;
        ws_pipe_reg #(.W(P_W), .ON(PIPELINE)) p_reg (
            .clk(clk), .en(1'b1), .d({a_ssig, a_sh, a_nan, a_pinf, a_ninf, a_notnegzero}), .q(p_q));
        wire [SW-1:0] ssig;
        wire [7:0]    sh;
        assign {ssig, sh, nan, pinf, ninf, notnegzero} = p_q;

        // sign-extend to ACC_W+1 bits, shift by max(E, 1), drop bit 0 (shift by max(E-1, 0));
        // procedural: Icarus evaluates a wide shift in a continuous assignment ~100x slower.
        // shifted[0] is always 0 and is dropped: the waiver covers this declaration only
        /* verilator lint_off UNUSEDSIGNAL */
        reg [ACC_W:0] shifted;
        /* verilator lint_on UNUSEDSIGNAL */
        always @(*)
            shifted = {{(ACC_W + 1 - SW){ssig[SW-1]}}, ssig} << sh;

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
        localparam AMAX = OUT_W + SW;
        localparam AW   = $clog2(AMAX + 1);
        localparam [AW-1:0] KA = K[AW-1:0];
        localparam [AW-1:0] AMAXA = AMAX[AW-1:0];
        localparam EH   = K - AMAX;             // sh < EH: a > AMAX
        wire [AW-1:0] a_amt;
        if (WORDS == 0) begin : g_amt_f32
            // the two ends compared with E (not with sh, behind its mux)
            localparam A1   = (K - 1 > AMAX) ? AMAX : K - 1;      // the amount for E = 0
            localparam [AW-1:0] A1A = A1[AW-1:0];
            wire [31:0]   e32    = {24'd0, e};
            wire [AW-1:0] a_d    = KA - e[AW-1:0];                  // a mod 2^AW, for E >= 1
            wire          a_low  = $signed(e32) > K;                // a < 0: the slice is 0
            wire          a_high = $signed(e32) < EH;               // a > OUT_W + 25: sign bits
            assign a_amt = e_zero ? A1A : a_low ? {AW{1'b0}} : a_high ? AMAXA : a_d;
        end else begin : g_amt_words
            // the same ends, compared with the shift amount of either kind
            wire [31:0]   sh32   = {24'd0, a_sh};
            wire [AW-1:0] a_d    = KA - a_sh[AW-1:0];
            wire          a_low  = $signed(sh32) > K;
            wire          a_high = $signed(sh32) < EH;
            assign a_amt = a_low ? {AW{1'b0}} : a_high ? AMAXA : a_d;
        end

        // the optional register: {ssig, amt, flags}
        localparam P_W = SW + AW + 4;
        wire [P_W-1:0] p_q;
        ws_pipe_reg #(.W(P_W), .ON(PIPELINE)) p_reg (
            .clk(clk), .en(1'b1), .d({a_ssig, a_amt, a_nan, a_pinf, a_ninf, a_notnegzero}), .q(p_q));
        wire [SW-1:0] ssig;
        wire [AW-1:0] amt;
        assign {ssig, amt, nan, pinf, ninf, notnegzero} = p_q;

        // procedural, as above; bits above OUT_W of the shifted window are not used
        /* verilator lint_off UNUSEDSIGNAL */
        reg [2*OUT_W+SW-1:0] shifted;
        /* verilator lint_on UNUSEDSIGNAL */
        always @(*)
            shifted = {{OUT_W{ssig[SW-1]}}, ssig, {OUT_W{1'b0}}} >> amt;

        assign fx = shifted[OUT_W-1:0];
    end endgenerate

endmodule

`resetall
