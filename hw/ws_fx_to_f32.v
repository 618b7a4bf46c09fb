// ws_fx_to_f32 - round a Kulisch accumulator (LSB 2^-149) and its flags once to binary32, nearest even.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Bit-exact with ws_xsum_round() in driver/xsum.c:
//   NaN flag, or +Inf and -Inf      -> 32'h7fc00000
//   +Inf / -Inf                     -> 32'h7f800000 / 32'hff800000
//   fx == 0                         -> notnegzero ? +0 : -0
//   otherwise p = MSB of |fx|; p <= 23: the encoding is |fx| (subnormal or smallest binade);
//   else shift = p - 23, mant = |fx| >> shift rounded to nearest even on guard and sticky,
//   encoding = (shift << 23) + mant (a carry out of mant bumps the exponent), >= 32'h7f800000 -> Inf.
//
// No ACC_W-bit negation: for fx < 0 the module works on y = ~fx (so |fx| = y + 1) and folds the
// +1 into the rounding. With x = |fx|, the window of y at `shift` and the bits below it:
//   L = y mod 2^shift all ones           -> x's window is y's + 1, guard 0, sticky 0
//   L = 0111..1 (guard 0, rest all ones) -> guard 1, sticky 0 (a tie)
//   otherwise                            -> window as y's, guard = y's guard bit, sticky 1
// and "the bits of y below the guard are all ones" is "the bits of fx below the guard are all
// zeros", i.e. trailing_zeros(fx) >= shift - 1: the same test that gives the sticky bit of a
// positive fx. If |fx| is a power of two 2^(p'+1) (y = 2^(p'+1) - 1), the leading one of y is one
// place lower; the +1 then carries through the whole window and the exponent, giving the same
// encoding. Rounding increments: fx >= 0: guard & (sticky | lsb); fx < 0: guard | (!sticky & lsb).
// For |fx| < 2^24 (shift 0) the guard position reads the sign bit, which supplies the +1.
//
// Structure (stage boundaries, each optionally registered, see PIPELINE):
//   A: y = fx ^ sign; leading-one index q of y[ACC_W-2:24] (q = p - 24), trailing zeros of fx:
//      two log-depth priority-encoder trees over ACC_W bits, side by side.
//   B: the 25-bit window (mantissa + guard) of y at q, a coarse shift by q's high bits in steps
//      of 16 (40 bits) and a fine one by its low 4 bits; sticky = tz < q.
//   C: mant = window + increment (24-bit); encoding = (shift << 23) + mant; overflow; specials.
// With PIPELINE >= 3 the C step is split after the 24-bit increment; with 4 the encoders are
// registered at their middle level (LM); with 5 the window between its two shifts.
module ws_fx_to_f32 #(
    parameter ACC_W    = 284, // accumulator bits, two's complement; >= 278
    parameter PIPELINE = 0    // register stages inside: 0 combinational, 1 after A, 2 also after B, 3 also after the
                              // increment, 4 also inside A (the encoders' middle level), 5 also inside B (the window's coarse shift)
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire             clk,        // used only when PIPELINE > 0
    /* verilator lint_on UNUSEDSIGNAL */
    // Stage enables: en[k] loads the k-th register stage present (PIPELINE of them), given with
    // the valid of the value at its input; all ones for a value every cycle. A stage holds while
    // its value is not valid: the logic toggles once a result, and Verilator evaluates a
    // stage's logic only when its register loads (a lane's rounding runs once a round).
    /* verilator lint_off UNUSEDSIGNAL */  // en[4:PIPELINE] when PIPELINE < 5
    input  wire [4:0]       en,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [ACC_W-1:0] fx,         // exact sum, LSB weight 2^-149
    input  wire             nan,        // a NaN was added
    input  wire             pinf,       // +Inf was added
    input  wire             ninf,       // -Inf was added
    input  wire             notnegzero, // something other than -0 was added
    output wire [31:0]      f           // binary32 nearest to fx (PIPELINE cycles after fx)
);
    // Always inlined into its parent (a metacomment for Verilator; no other tool reads it): its
    // parents, the lanes of ws_acc_lane and ws_comb_lane, are modules whose one function serves
    // every lane. Left to itself, with two parents, it would be a module of its own, emitted
    // once per instance (16 copies at 512 bits, 13 MB of a model's C++).
    /*verilator inline_module*/

    generate if (ACC_W < 278) begin : g_bad_acc_w
        initial begin
            $error("Error: ws_fx_to_f32 %m: ACC_W must be >= 278 (ACC_W = %0d)", ACC_W);
            $finish;
        end
    end endgenerate
    generate if (PIPELINE < 0 || PIPELINE > 5) begin : g_bad_pipeline
        initial begin
            $error("Error: ws_fx_to_f32 %m: PIPELINE must be 0..5 (PIPELINE = %0d)", PIPELINE);
            $finish;
        end
    end endgenerate

    localparam LW = ACC_W - 25;         // bits of y searched for the leading one: y[ACC_W-2:24]
    localparam IW = $clog2(ACC_W);      // index width of both priority encoders
    localparam N  = 1 << IW;            // leaves of the encoder trees (inputs padded with zeros)
    localparam SW = $clog2(LW + 1);     // shift = q + 1 <= LW
    localparam EW = SW + 24;            // encoding before the overflow test: < 2^(SW+23) + 2^24
    localparam LM = (IW + 1) / 2;       // the encoders' level registered with PIPELINE >= 4
    localparam KW = IW - 4;             // the window's coarse shift: b_q[IW-1:4], in steps of 16
    // the enable of each register present, in pipeline order (mid, ab, kb, bc, cd)
    localparam integer I_MID = 0;
    localparam integer I_AB  = (PIPELINE >= 4) ? 1 : 0;
    localparam integer I_KB  = I_AB + ((PIPELINE >= 1) ? 1 : 0);
    localparam integer I_BC  = I_KB + ((PIPELINE >= 5) ? 1 : 0);
    localparam integer I_CD  = I_BC + ((PIPELINE >= 2) ? 1 : 0);

    // ------------------------------------------------------------------------------------
    // A: sign, ones' complement magnitude, leading one and trailing zeros

    wire             a_sign = fx[ACC_W-1];
    wire [ACC_W-2:0] a_y    = fx[ACC_W-2:0] ^ {(ACC_W - 1){a_sign}};

    // priority-encoder trees: t = 0 finds the highest set bit of y[ACC_W-2:24],
    // t = 1 the lowest set bit of fx. Level l has N >> l nodes with an l-bit index each.
    wire [N-1:0] pe_in0 = {{(N - LW){1'b0}}, a_y[ACC_W-2:24]};
    wire [N-1:0] pe_in1 = {{(N - ACC_W){1'b0}}, fx};

    wire          a_big;     // y >= 2^24: the leading one is at p = q + 24
    wire [IW-1:0] a_q;
    wire [IW-1:0] a_tz;      // trailing zeros of fx (meaningless when fx == 0)

    // Two log-depth priority-encoder trees. Level l (1..IW) has N >> l nodes; node j combines
    // nodes 2j and 2j+1 of level l-1: "has a set bit", and an l-bit index whose top bit says
    // that the preferred half has it. t = 0 prefers the high half (leading one of
    // y[ACC_W-2:24]), t = 1 the low half (trailing one of fx). Every node is its own net, not
    // a bit of a level vector or a loop: Icarus then runs it 10x to 100x faster.
    // From level 2 to LM a node takes "has a set bit" of its halves as the OR of their input
    // bits, not from the nodes below (the same gates: synthesis shares the ORs of aligned
    // ranges, as the tree had them): each node of those levels is then read by one node only,
    // its parent's index, and Verilator folds the levels into the load of level LM's register,
    // under its enable (mk/models.mk WS_VOPT raises its limit for that). Read twice, as the
    // parent's "has a set bit" and its choice, the nodes were nets evaluated after every clock.
    // A level computes its nodes in g_c (the leaves from the input bits, the others from the
    // level below) and hands them on in g_o (through registers at level LM with PIPELINE >= 4).
    // Each choice is made once per level, never inside the loop over the nodes: Icarus 11
    // elaborates a conditional block inside a loop in time quadratic in the number of its
    // copies in the whole design (it scans them all for each one), minutes for a model.
    // The trees' nodes are left out of waveforms (/* verilator tracing_off */): ~1000 nets
    // per lane that nobody debugs one by one, which were most of the model's trace code (and
    // of its compile time); their results a_big, a_q, a_tz, a_zero are traced.
    genvar t, l, j;
    /* verilator tracing_off */
    generate
        for (t = 0; t < 2; t = t + 1) begin : g_pe
            for (l = 1; l <= IW; l = l + 1) begin : g_lvl
                if (l == 1) begin : g_c
                    for (j = 0; j < (N >> l); j = j + 1) begin : g_n
                        wire         vlo = (t == 0) ? pe_in0[2*j]   : pe_in1[2*j];
                        wire         vhi = (t == 0) ? pe_in0[2*j+1] : pe_in1[2*j+1];
                        wire         v   = vlo | vhi;
                        wire [l-1:0] ix  = (t == 0) ? vhi : !vlo;
                    end
                end else begin : g_c
                    for (j = 0; j < (N >> l); j = j + 1) begin : g_n
                        // up to LM the halves' ORs of the input bits, above it the nodes'
                        localparam integer HW = 1 << (l - 1);   // input bits of a half
                        wire         vlo = (l > LM) ? g_lvl[l-1].g_o.g_n[2*j].vo :
                                           (t == 0) ? |pe_in0[2*j*HW +: HW] : |pe_in1[2*j*HW +: HW];
                        wire         vhi = (l > LM) ? g_lvl[l-1].g_o.g_n[2*j+1].vo :
                                           (t == 0) ? |pe_in0[(2*j+1)*HW +: HW]
                                                    : |pe_in1[(2*j+1)*HW +: HW];
                        wire         hi  = (t == 0) ? vhi : !vlo;
                        wire         v   = vlo | vhi;
                        wire [l-1:0] ix  = {hi, hi ? g_lvl[l-1].g_o.g_n[2*j+1].ixo
                                                   : g_lvl[l-1].g_o.g_n[2*j].ixo};
                    end
                end
                if (l == LM && PIPELINE >= 4) begin : g_o
                    for (j = 0; j < (N >> l); j = j + 1) begin : g_n
                        reg         vo;
                        reg [l-1:0] ixo;
                        always @(posedge clk) if (en[I_MID]) begin
                            vo  <= g_c.g_n[j].v;
                            ixo <= g_c.g_n[j].ix;
                        end
                    end
                end else begin : g_o   // no ws_pipe_reg: a module boundary per node would
                    for (j = 0; j < (N >> l); j = j + 1) begin : g_n   // keep synthesis from
                        wire         vo  = g_c.g_n[j].v;              // merging the levels
                        wire [l-1:0] ixo = g_c.g_n[j].ix;
                    end
                end
            end
        end
    endgenerate
    /* verilator tracing_on */

    assign a_big = g_pe[0].g_lvl[IW].g_o.g_n[0].vo;
    assign a_q   = g_pe[0].g_lvl[IW].g_o.g_n[0].ixo;
    assign a_tz  = g_pe[1].g_lvl[IW].g_o.g_n[0].ixo;
    wire   a_zero = !g_pe[1].g_lvl[IW].g_o.g_n[0].vo;  // fx == 0

    // ------------------------------------------------------------------------------------
    // A -> B

    wire [ACC_W-2:0] b_y;
    wire             b_sign, b_big, b_zero;
    wire [IW-1:0]    b_q, b_tz;
    wire [3:0]       b_fl;

    localparam AB_W = (ACC_W - 1) + 3 + 2 * IW + 4;
    // with PIPELINE >= 4 the operand and the flags go along with the encoders' middle level
    wire [ACC_W-2:0] m_y;
    wire             m_sign;
    wire [3:0]       m_fl;
    ws_pipe_reg #(.W(ACC_W + 4), .ON(PIPELINE >= 4)) mid_reg (
        .clk(clk), .en(en[I_MID]), .d({a_y, a_sign, nan, pinf, ninf, notnegzero}),
        .q({m_y, m_sign, m_fl}));
    wire [AB_W-1:0] ab_q;
    ws_pipe_reg #(.W(AB_W), .ON(PIPELINE >= 1)) ab_reg (
        .clk(clk), .en(en[I_AB]), .d({m_y, m_sign, a_big, a_zero, a_q, a_tz, m_fl}), .q(ab_q));
    assign {b_y, b_sign, b_big, b_zero, b_q, b_tz, b_fl} = ab_q;

    // ------------------------------------------------------------------------------------
    // B: the window of y: mantissa (24 bits) and guard. For y < 2^24, the window is y itself
    // with the sign bit as guard (the +1 of a negative fx, see above).

    // In two shifts: by b_q's high bits in steps of 16 (40 bits kept), then by its low 4 bits;
    // with PIPELINE >= 5 a register between them. Procedural: Icarus evaluates a wide shift in a
    // continuous assignment ~100x slower.
    localparam YW = 16 * (1 << KW) + 40;   // b_y padded: every coarse window lies inside
    reg  [YW-1:0] b_ypad;
    reg  [39:0]   b_coarse;
    always @(*) begin
        b_ypad = {{(YW - (ACC_W - 1)){1'b0}}, b_y};
        b_coarse = b_ypad[{1'b0, b_q[IW-1:4], 4'd0} +: 40];   // YW < 2^(IW+1)
    end
    wire          b_st    = b_big && ({1'b0, b_tz} < {1'b0, b_q});  // a bit of fx below the guard
    wire [SW-1:0] b_shift = b_big ? b_q[SW-1:0] + 1'b1 : {SW{1'b0}};

    wire [39:0]   k_coarse;
    wire [3:0]    k_fine;
    wire [24:0]   k_small;
    wire          k_big, k_st, k_sign, k_zero;
    wire [SW-1:0] k_shift;
    wire [3:0]    k_fl;
    localparam KB_W = 40 + 4 + 25 + 4 + SW + 4;
    wire [KB_W-1:0] kb_d = {b_coarse, b_q[3:0], b_y[23:0], b_sign, b_big, b_st, b_sign, b_zero,
                            b_shift, b_fl};
    wire [KB_W-1:0] kb_q;
    ws_pipe_reg #(.W(KB_W), .ON(PIPELINE >= 5)) kb_reg (
        .clk(clk), .en(en[I_KB]), .d(kb_d), .q(kb_q));
    assign {k_coarse, k_fine, k_small, k_big, k_st, k_sign, k_zero, k_shift, k_fl} = kb_q;
    reg  [24:0]   b_win;
    always @(*)
        b_win = k_big ? k_coarse[{2'b00, k_fine} +: 25] : k_small;

    // ------------------------------------------------------------------------------------
    // B -> C

    wire [23:0]   c_upper;
    wire          c_guard, c_st, c_sign, c_zero;
    wire [SW-1:0] c_shift;
    wire [3:0]    c_fl;

    localparam BC_W = 25 + 3 + SW + 4;
    wire [BC_W-1:0] bc_q;
    ws_pipe_reg #(.W(BC_W), .ON(PIPELINE >= 2)) bc_reg (
        .clk(clk), .en(en[I_BC]), .d({b_win, k_st, k_sign, k_zero, k_shift, k_fl}), .q(bc_q));
    assign {c_upper, c_guard, c_st, c_sign, c_zero, c_shift, c_fl} = bc_q;

    // C1: rounding increment
    wire        c_inc  = c_sign ? (c_guard | (!c_st & c_upper[0]))
                                : (c_guard & (c_st | c_upper[0]));
    wire [24:0] c_mant = {1'b0, c_upper} + {24'd0, c_inc};

    // C1 -> C2
    wire [24:0]   d_mant;
    wire          d_sign, d_zero;
    wire [SW-1:0] d_shift;
    wire [3:0]    d_fl;

    localparam CD_W = 25 + 2 + SW + 4;
    wire [CD_W-1:0] cd_q;
    ws_pipe_reg #(.W(CD_W), .ON(PIPELINE >= 3)) cd_reg (
        .clk(clk), .en(en[I_CD]), .d({c_mant, c_sign, c_zero, c_shift, c_fl}), .q(cd_q));
    assign {d_mant, d_sign, d_zero, d_shift, d_fl} = cd_q;

    // C2: encoding, overflow, specials
    wire [EW-1:0] d_enc = {1'b0, d_shift, 23'd0} + {{(EW - 25){1'b0}}, d_mant};
    wire          d_ovf = d_enc >= {{(EW - 31){1'b0}}, 31'h7f80_0000};

    wire d_nan = d_fl[3], d_pinf = d_fl[2], d_ninf = d_fl[1], d_notnegzero = d_fl[0];

    assign f = (d_nan || (d_pinf && d_ninf)) ? 32'h7fc0_0000 :
               d_pinf                        ? 32'h7f80_0000 :
               d_ninf                        ? 32'hff80_0000 :
               d_zero                        ? (d_notnegzero ? 32'h0000_0000 : 32'h8000_0000) :
               d_ovf                         ? {d_sign, 31'h7f80_0000} :
                                               {d_sign, d_enc[30:0]};

endmodule

`resetall
