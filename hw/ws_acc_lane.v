// ws_acc_lane - one exact accumulator lane: a RAM of Kulisch sums and flags, add at II = 1, round once.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Each entry is an ACC_W-bit two's complement sum (LSB 2^-149) and four flags (NaN, +Inf, -Inf,
// not -0). An operation adds one binary32 (or, WORDS = 1, one word of a PARTIAL frame, whose
// value ws_f32_to_fx converts the same way) to an entry: entry = (in_first ? empty : entry) +
// value, flags ORed; with in_last the new entry is also rounded once to binary32
// (ws_fx_to_f32, the rules of driver/xsum.c) and leaves on out_* exactly LATENCY cycles later,
// in operation order. One operation per cycle, any address pattern, no stall.
//
// The add is split into ADD_CHUNKS pieces of CW bits, each in its own stage, the carry
// registered between them (a skewed pipeline). The RAM is split the same way: chunk k has its
// own RAM and runs the same read / select / add / write schedule as chunk 0, k cycles later,
// so every chunk sees the same forwarding distances. Per chunk k, for an operation accepted
// in cycle t (stage s = registers loaded at the clock edge that ends cycle t+s-1):
//   t+1+k  RAM read (registered read; chunk 0 takes in_addr straight to the RAM)
//   t+2+k  RAM output register
//   t+2+k  the value decoded and its significand negated (ws_f32_to_fx, first half)
//   t+3+k  operand preselect: 0 (in_first), the sum of the newest older operation to the same
//          address at distance 2..4 (from the chunk's result history), or the RAM word;
//          the chunk of the converted value (ws_f32_to_fx, the shifter)
//   t+4+k  add: (distance 1 ? own previous result : preselected operand) + value + carry in
//   t+5+k  RAM write
// A read at t+1+k sees the writes of operations at distance >= 5 (for distance 4 the write
// and the read share a clock edge, and it is forwarded), so the RAM's read-during-write
// behaviour never matters. Only the chunk's own result loops back (a 2:1 mux in front of a
// CW-bit carry chain); the address compares are done in stage 1, off the data path.
// The new sum, all chunks aligned, is ready at t+3+ADD_CHUNKS; a last operation's sum is
// captured at t+4+ADD_CHUNKS, ws_fx_to_f32 adds five register stages, out_* is registered:
//   LATENCY = ADD_CHUNKS + 10 (14 with the default 4 chunks).
module ws_acc_lane #(
    parameter ACC_W      = 284,            // accumulator bits: 277 + clog2(max contributions per round) + 1; >= 278
    parameter DEPTH      = 4096,           // entries (>= 2)
    parameter ADDR_W     = $clog2(DEPTH),  // address bits; 2^ADDR_W >= DEPTH
    parameter ADD_CHUNKS = 4,              // pipeline stages the ACC_W-bit add is split into (1..16)
    parameter RD_PORT    = 0,              // 1: a replica of the RAM with its own read port (raw_*)
    parameter WORDS      = 0,              // 1: in_value is 64 bits, a PARTIAL word with in_word (ws_f32_to_fx)
    parameter IN_W       = (WORDS != 0) ? 64 : 32 // bits of in_value (derived)
) (
    input  wire              clk,
    input  wire              rst,

    // The inputs are public to Verilator (a metacomment; no other tool reads it), so that it
    // keeps each an own variable of the lane. Otherwise it reads the parent's bus slice in the
    // lane's code, which then differs per instance: one copy of the lane's C++ per lane (8 at
    // 256 bits, 32 at 1024, 430 KB each). With them, one function serves every lane: a third to
    // a fifth of a model's C++, faster to compile and to run (docs/performance.md section 3).
    input  wire              in_valid /*verilator public*/,
    input  wire [ADDR_W-1:0] in_addr /*verilator public*/,
    // binary32 bit pattern (or, WORDS = 1, a PARTIAL word)
    input  wire [IN_W-1:0]   in_value /*verilator public*/,
    /* verilator lint_off UNUSEDSIGNAL */  // WORDS = 0: not read
    // WORDS = 1: in_value is a PARTIAL word, not a binary32
    input  wire              in_word /*verilator public*/,
    /* verilator lint_on UNUSEDSIGNAL */
    // first contribution of a round: the entry is taken as empty
    input  wire              in_first /*verilator public*/,
    // last contribution of a round: produce the rounded result
    input  wire              in_last /*verilator public*/,

    output reg               out_valid,   // one cycle, LATENCY cycles after an in_valid with in_last
    output reg  [ADDR_W-1:0] out_addr,
    output reg  [31:0]       out_result,

    // RD_PORT = 1: the raw entry {flags, sum} at raw_addr, the cycle after (registered read of a
    // replica RAM written alongside each chunk's RAM). An operation's entry is wholly written
    // RD_SETTLE cycles after in_valid; a read from then on returns it. RD_PORT = 0: zero, and no RAM.
    /* verilator lint_off UNUSEDSIGNAL */  // not read when RD_PORT = 0
    input  wire [ADDR_W-1:0] raw_addr /*verilator public*/,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [ACC_W+3:0]  raw_data
);

    localparam C        = ADD_CHUNKS;
    localparam CW       = (ACC_W + C - 1) / C;       // chunk width (the top chunk may be narrower)
    localparam TOPW     = ACC_W - (C - 1) * CW;      // top chunk width
    localparam FWD      = 4;                         // forwarding distances 1..FWD
    localparam NCTL     = (C + 3 > FWD + 1) ? C + 3 : FWD + 1;  // control stages
    localparam RND_PIPE = 5;                         // register stages inside ws_fx_to_f32
    // in_valid (with in_last) to out_valid, cycles; not used inside (it documents the schedule
    // above for integrators and testbenches, which may read it as <instance>.LATENCY)
    /* verilator lint_off UNUSEDPARAM */
    localparam LATENCY  = C + 5 + RND_PIPE;
    localparam RD_SETTLE = C + 5;                    // in_valid to the last chunk's write, cycles
    /* verilator lint_on UNUSEDPARAM */

    generate if (ACC_W < 278) begin : g_bad_acc_w
        initial begin
            $error("Error: ws_acc_lane %m: ACC_W must be >= 278 (ACC_W = %0d)", ACC_W);
            $finish;
        end
    end endgenerate
    generate if (DEPTH < 2 || ADDR_W < 1 || (1 << ADDR_W) < DEPTH) begin : g_bad_depth
        initial begin
            $error("Error: ws_acc_lane %m: DEPTH must be 2..2^ADDR_W (DEPTH = %0d, ADDR_W = %0d)",
                   DEPTH, ADDR_W);
            $finish;
        end
    end endgenerate
    generate if (C < 1 || C > 16 || TOPW < 1) begin : g_bad_chunks
        initial begin
            $error("Error: ws_acc_lane %m: ADD_CHUNKS must be 1..16 and leave a top chunk (ADD_CHUNKS = %0d, ACC_W = %0d)",
                   ADD_CHUNKS, ACC_W);
            $finish;
        end
    end endgenerate

    // ------------------------------------------------------------------------------------
    // Control pipeline, stages 1..NCTL, shifting every cycle (bubbles included, so that a
    // distance in stages is a distance in cycles). Only the valid bits are reset.

    reg  [NCTL:1]     c_valid;
    reg  [NCTL:1]     c_first;
    reg  [NCTL:1]     c_last;
    reg  [ADDR_W-1:0] c_addr  [1:NCTL];
    reg  [IN_W:0]     c_value [1:C];       // {word, value}: chunk k decodes it in stage 2+k, shifts in 3+k
    reg  [FWD:1]      c_hit   [2:C+2];     // one-hot: distance of the newest older op, same address

    // stage 1: the newest operation at distance d (in stage 1+d) with the same address
    wire [FWD:1] s1_match;
    genvar g;
    generate
        for (g = 1; g <= FWD; g = g + 1) begin : g_match
            assign s1_match[g] = c_valid[1+g] && c_addr[1+g] == c_addr[1];
        end
    endgenerate
    wire [FWD:1] s1_hit = s1_match & (~s1_match + 1'b1);  // lowest set bit: the nearest

    integer s;
    always @(posedge clk) begin
        c_first[1]  <= in_first;
        c_last[1]   <= in_last;
        c_addr[1]   <= in_addr;
        c_value[1]  <= {WORDS != 0 && in_word, in_value};
        for (s = 2; s <= NCTL; s = s + 1) begin
            c_first[s] <= c_first[s-1];
            c_last[s]  <= c_last[s-1];
            c_addr[s]  <= c_addr[s-1];
        end
        for (s = 2; s <= C; s = s + 1)
            c_value[s] <= c_value[s-1];
        c_hit[2] <= s1_hit;
        for (s = 3; s <= C + 2; s = s + 1)
            c_hit[s] <= c_hit[s-1];
        if (rst)
            c_valid <= {NCTL{1'b0}};
        else
            c_valid <= {c_valid[NCTL-1:1], in_valid};
    end

    // ------------------------------------------------------------------------------------
    // Chunks

    wire [ACC_W-1:0] sum_aligned;     // the new sum, all chunks of one operation, stage 3+C
    wire [3:0]       flags_aligned;   // its flags {nan, pinf, ninf, notnegzero}
    wire [C-1:0]     carry;           // carry[k]: into chunk k, registered by chunk k-1
    wire [ACC_W+3:0] rd_word;         // the replica read, {flags, sum}

    assign carry[0] = 1'b0;

    genvar k;
    generate
        for (k = 0; k < C; k = k + 1) begin : g_chunk
            localparam LO  = k * CW;
            localparam TOP = (k == C - 1);
            localparam W   = TOP ? TOPW : CW;
            localparam FW  = TOP ? 4 : 0;               // flags live in the top chunk
            localparam RW  = W + FW;                    // RAM word: {flags, sum chunk}
            localparam AGE = C - 1 - k;                 // deskew to the top chunk's stage
            localparam HN  = (AGE > 2) ? AGE : 2;       // result history depth

            // the value, converted in this chunk's stages 2+k (decode and negate, registered
            // inside) and 3+k (shift); the converter makes only this chunk's slice (a W-bit
            // shifter); the flags are used in the top chunk only
            wire [W-1:0] cv_fx;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [3:0]   cv_fl;
            /* verilator lint_on UNUSEDSIGNAL */
            ws_f32_to_fx #(.ACC_W(ACC_W), .PIPELINE(1), .OUT_LO(LO), .OUT_W(W), .WORDS(WORDS)) conv (
                .clk(clk), .f(c_value[1+k][IN_W-1:0]), .word(c_value[1+k][IN_W]), .fx(cv_fx),
                .nan(cv_fl[3]), .pinf(cv_fl[2]), .ninf(cv_fl[1]), .notnegzero(cv_fl[0])
            );
            wire [RW-1:0] cv;
            if (TOP) begin : g_cv_top
                assign cv = {cv_fl, cv_fx};
            end else begin : g_cv
                assign cv = cv_fx;
            end

            // RAM: simple dual port, registered read plus output register (block RAM)
            reg  [RW-1:0] mem [0:DEPTH-1];
            reg  [RW-1:0] rd_q, rd_qq;
            wire [ADDR_W-1:0] rd_addr = (k == 0) ? in_addr : c_addr[(k == 0) ? 1 : k];
            reg  [RW-1:0] acc;                          // this chunk's result, stage 4+k
            always @(posedge clk) begin
                if (c_valid[4+k])
                    mem[c_addr[4+k]] <= acc;
                rd_q <= mem[rd_addr];
            end
            always @(posedge clk)
                rd_qq <= rd_q;

            // result history: hist[a] is the result of the operation a cycles older than acc's
            reg [RW-1:0] hist [1:HN];
            integer h;
            always @(posedge clk) begin
                hist[1] <= acc;
                for (h = 2; h <= HN; h = h + 1)
                    hist[h] <= hist[h-1];
            end

            // stage 3+k: operand preselect and value (decisions of the operation in stage 2+k)
            reg [RW-1:0] pre, val;
            always @(posedge clk) begin
                val <= cv;
                if (c_first[2+k])
                    pre <= {RW{1'b0}};
                else if (c_hit[2+k][2])
                    pre <= acc;
                else if (c_hit[2+k][3])
                    pre <= hist[1];
                else if (c_hit[2+k][4])
                    pre <= hist[2];
                else
                    pre <= rd_qq;
            end

            // stage 4+k: add (the operation in stage 3+k); distance 1 takes the result of the
            // previous cycle, which is the only data loop of the lane
            wire          near = c_hit[3+k][1] && !c_first[3+k];
            wire [RW-1:0] opnd = near ? acc : pre;
            /* verilator lint_off UNUSEDSIGNAL */  // sum[W], the carry out, is unused in the top chunk
            wire [W:0]    sum  = {1'b0, opnd[W-1:0]} + {1'b0, val[W-1:0]} + {{W{1'b0}}, carry[k]};
            /* verilator lint_on UNUSEDSIGNAL */
            if (TOP) begin : g_top_add
                // the top chunk's carry out is dropped (sum modulo 2^ACC_W); flags are ORed
                always @(posedge clk)
                    acc <= {opnd[RW-1:W] | val[RW-1:W], sum[W-1:0]};
            end else begin : g_add
                reg acc_carry;
                always @(posedge clk) begin
                    acc       <= sum[W-1:0];
                    acc_carry <= sum[W];
                end
                assign carry[k+1] = acc_carry;
            end

            // replica of the RAM for the rd_* port, written with it
            if (RD_PORT != 0) begin : g_replica
                reg [RW-1:0] rmem [0:DEPTH-1];
                reg [RW-1:0] rmem_q;
                always @(posedge clk) begin
                    if (c_valid[4+k])
                        rmem[c_addr[4+k]] <= acc;
                    rmem_q <= rmem[raw_addr];
                end
                assign rd_word[LO +: W] = rmem_q[W-1:0];
                if (TOP) begin : g_rd_flags
                    assign rd_word[ACC_W +: 4] = rmem_q[RW-1:W];
                end
            end else begin : g_no_replica
                assign rd_word[LO +: W] = {W{1'b0}};
                if (TOP) begin : g_rd_flags
                    assign rd_word[ACC_W +: 4] = 4'd0;
                end
            end

            // aligned with the top chunk: AGE cycles older than acc
            wire [RW-1:0] aligned = (AGE == 0) ? acc : hist[(AGE == 0) ? 1 : AGE];
            assign sum_aligned[LO +: W] = aligned[W-1:0];
            if (TOP) begin : g_flags
                assign flags_aligned = aligned[RW-1:W];
            end
        end
    endgenerate

    assign raw_data = rd_word;

    // ------------------------------------------------------------------------------------
    // Rounding. The aligned new sum of a last operation (stage 3+C) is captured in rnd_in
    // (with a clock enable: the rounding logic toggles once per round, not every cycle; it
    // also makes event-driven simulation ~4x faster), then RND_PIPE register stages inside
    // ws_fx_to_f32, each enabled by the valid of its input (r_valid: Verilator then evaluates
    // a stage only when a value goes through it), then the output register. Consecutive last
    // operations are captured in consecutive cycles, so any pattern of results is carried at
    // one per cycle.

    reg [ACC_W+3:0] rnd_in;  // {flags, sum}
    always @(posedge clk)
        if (c_valid[C+3] && c_last[C+3])
            rnd_in <= {flags_aligned, sum_aligned};

    wire [31:0] rnd_f;
    reg [RND_PIPE+1:1] r_valid;   // r_valid[k]: the value at the input of the k-th stage is valid
    ws_fx_to_f32 #(.ACC_W(ACC_W), .PIPELINE(RND_PIPE)) rnd (
        .clk(clk), .en(r_valid[RND_PIPE:1]), .fx(rnd_in[ACC_W-1:0]),
        .nan(rnd_in[ACC_W+3]), .pinf(rnd_in[ACC_W+2]), .ninf(rnd_in[ACC_W+1]),
        .notnegzero(rnd_in[ACC_W]), .f(rnd_f)
    );

    // valid and address alongside: r_*[1] with rnd_in, r_*[1+RND_PIPE] with rnd_f
    reg [ADDR_W-1:0]   r_addr [1:RND_PIPE+1];
    integer r;
    always @(posedge clk) begin
        r_addr[1] <= c_addr[C+3];
        for (r = 2; r <= RND_PIPE + 1; r = r + 1)
            r_addr[r] <= r_addr[r-1];
        if (r_valid[RND_PIPE+1]) begin
            out_addr   <= r_addr[RND_PIPE+1];
            out_result <= rnd_f;
        end
        if (rst) begin
            r_valid   <= {(RND_PIPE + 1){1'b0}};
            out_valid <= 1'b0;
        end else begin
            r_valid   <= {r_valid[RND_PIPE:1], c_valid[C+3] && c_last[C+3]};
            out_valid <= r_valid[RND_PIPE+1];
        end
    end

endmodule

`resetall
