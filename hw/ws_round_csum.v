// ws_round_csum - UDP payload checksum of each round an engine completes, from its rounded sums.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The rounded sums of a completing round come out a beat (LANES 32-bit words, `mask` marking the
// words of the payload) at a time; the last beat of the round carries `last` and the round's set
// `q`. The ones-complement sum of the payload's 16-bit halves (RFC 1071, not inverted) is then
//   - pushed into a FIFO, in completion order: the RESULT command that sends the round pops it;
//   - stored per set, for the commands that re-send a complete round (rd_q -> rd_csum, read
//     combinationally). The store and the push happen on the same cycle, so a re-send, which
//     the command queue keeps behind the completion of its round, always reads the new value.
// Used by ws_engine; the result generator adds the header's part.
//
// Pipeline (one adder deep per stage, for the clock at any width): the 2*LANES halves of a beat
// are summed by a binary tree of LVL = clog2(2*LANES) registered levels of plain (wide) adds; a
// 32-bit accumulator adds the beat sums of a round; the round's total is folded to 16 bits
// (end-around carry) in two more stages. Ones-complement sums do not depend on where the carries
// are folded, so this equals folding after every add. The pipeline adds LVL + 2 cycles between a
// round's last beat and its checksum; the command that sends the round waits for it. A round's
// payload has fewer than 2^13 halves (MAX_FRAME), so its plain sum fits 32 bits.
module ws_round_csum #(
    parameter LANES = 8,    // words per beat
    parameter Q_N   = 16,   // sets (two per slot)
    parameter Q_W   = 4,    // $clog2(Q_N)
    parameter DEPTH = 16    // completions the FIFO holds, a power of two
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire                 beat,       // a beat of rounded sums this cycle
    input  wire [LANES-1:0]     mask,       // its words that belong to the payload
    input  wire [LANES*32-1:0]  words,
    input  wire                 last,       // the round's last beat
    input  wire [Q_W-1:0]       q,          // the round's set (with last)

    output wire                 s_ready,    // the FIFO can take a completion
    output wire [15:0]          m_csum,     // checksums of complete rounds, in order
    output wire                 m_valid,
    input  wire                 m_ready,

    input  wire [Q_W-1:0]       rd_q,       // per set: the checksum of its last complete round
    output wire [15:0]          rd_csum
);

localparam N   = 2 * LANES;         // halves per beat, a power of two
localparam LVL = $clog2(N);         // tree levels
localparam SW  = 16 + LVL;          // width of a beat sum

generate
    if (LANES < 1 || (LANES & (LANES - 1)) != 0) begin : g_bad_lanes
        initial begin
            $error("Error: ws_round_csum %m: LANES must be a power of two (LANES = %0d)", LANES);
            $finish;
        end
    end
    if (Q_N < 2 || Q_W != $clog2(Q_N)) begin : g_bad_sets
        initial begin
            $error("Error: ws_round_csum %m: Q_N must be >= 2 and Q_W = $clog2(Q_N) (Q_N = %0d, Q_W = %0d)",
                   Q_N, Q_W);
            $finish;
        end
    end
endgenerate

// the payload's words of the beat, the others zero
wire [LANES*32-1:0] mw;
genvar g;
generate
    for (g = 0; g < LANES; g = g + 1) begin : g_mask
        assign mw[g*32 +: 32] = mask[g] ? words[g*32 +: 32] : 32'd0;
    end
endgenerate

// the tree as a heap: node i (1 .. N-1) = node 2i + node 2i+1, where nodes N .. 2N-1 are the
// halves; every node a register, so a level is a stage and node 1 is the beat's sum LVL cycles on
reg  [(N-1)*SW-1:0] nodes;
reg  [LVL-1:0]      p_beat, p_last;     // [s]: the beat s+1 levels up the tree
reg  [LVL*Q_W-1:0]  p_q;

function [SW-1:0] child;
    input integer c;
    begin
        if (c >= N)
            child = {{(SW-16){1'b0}}, mw[(c-N)*16 +: 16]};
        else
            child = nodes[(c-1)*SW +: SW];
    end
endfunction

integer i;
always @(posedge clk) begin
    for (i = 1; i < N; i = i + 1)
        nodes[(i-1)*SW +: SW] <= child(2*i) + child(2*i + 1);
    p_q[0 +: Q_W] <= q;
    for (i = 1; i < LVL; i = i + 1)
        p_q[i*Q_W +: Q_W] <= p_q[(i-1)*Q_W +: Q_W];
    if (rst) begin
        p_beat <= {LVL{1'b0}};
        p_last <= {LVL{1'b0}};
    end else begin
        p_beat[0] <= beat;
        p_last[0] <= beat && last;
        for (i = 1; i < LVL; i = i + 1) begin
            p_beat[i] <= p_beat[i-1];
            p_last[i] <= p_last[i-1];
        end
    end
end

wire [SW-1:0]  root = nodes[SW-1:0];
wire           r_beat = p_beat[LVL-1];
wire           r_last = p_last[LVL-1];
wire [Q_W-1:0] r_q = p_q[(LVL-1)*Q_W +: Q_W];

// the round's plain sum, then its fold: 32 -> 17 bits, then the end-around carry
reg  [31:0]    acc, total;
reg  [16:0]    f1;
reg            a_done, f_done;
reg  [Q_W-1:0] a_q, f_q;
wire [31:0]    acc_next = acc + {{(32-SW){1'b0}}, root};
always @(posedge clk) begin
    total <= acc_next;
    a_q   <= r_q;
    f1    <= {1'b0, total[31:16]} + {1'b0, total[15:0]};
    f_q   <= a_q;
    if (rst) begin
        acc    <= 32'd0;
        a_done <= 1'b0;
        f_done <= 1'b0;
    end else begin
        if (r_beat)
            acc <= r_last ? 32'd0 : acc_next;
        a_done <= r_last;
        f_done <= a_done;
    end
end
wire [15:0] csum = f1[15:0] + {15'd0, f1[16]};

reg [15:0] ram [0:Q_N-1];
always @(posedge clk)
    if (f_done)
        ram[f_q] <= csum;
assign rd_csum = ram[rd_q];

ws_fifo #(.WIDTH(16), .DEPTH(DEPTH)) done_fifo (
    .clk(clk), .rst(rst),
    .s_data(csum), .s_valid(f_done), .s_ready(s_ready),
    .m_data(m_csum), .m_valid(m_valid), .m_ready(m_ready),
    /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
    .count()
    /* verilator lint_on PINCONNECTEMPTY */
);

endmodule

`resetall
