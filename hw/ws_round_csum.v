// ws_round_csum - UDP payload checksum of each round an engine completes, from its rounded sums.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The rounded sums of a completing round come out a beat (LANES 32-bit words, `mask` marking the
// words of the payload) at a time; the last beat of the round carries `last` and the round's set
// `q`. The ones-complement sum of the payload's 16-bit halves (RFC 1071, not inverted) is then
//   - pushed into a FIFO, in completion order: the RESULT command that sends the round pops it;
//   - stored per set, for the commands that re-send a complete round (rd_q -> rd_csum, read
//     combinationally).
// Used by ws_engine and ws_multi_engine; the result generator adds the header's part.
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

// ones-complement sum of the valid 16-bit halves of one beat
reg [31:0] beat_sum;
integer k;
always @(*) begin
    beat_sum = 32'd0;
    for (k = 0; k < LANES; k = k + 1)
        if (mask[k])
            beat_sum = beat_sum + {16'd0, words[k*32 + 16 +: 16]} + {16'd0, words[k*32 +: 16]};
end

function [15:0] fold;
    input [31:0] v;
    reg [31:0] t;
    begin
        t = {16'd0, v[31:16]} + {16'd0, v[15:0]};
        t = {16'd0, t[31:16]} + {16'd0, t[15:0]};
        fold = t[15:0];
    end
endfunction

reg  [15:0] acc;
wire [15:0] acc_next = fold({16'd0, acc} + {16'd0, fold(beat_sum)});
wire        done = beat && last;
always @(posedge clk) begin
    if (rst)
        acc <= 16'd0;
    else if (beat)
        acc <= last ? 16'd0 : acc_next;
end

reg [15:0] ram [0:Q_N-1];
always @(posedge clk)
    if (done)
        ram[q] <= acc_next;
assign rd_csum = ram[rd_q];

ws_fifo #(.WIDTH(16), .DEPTH(DEPTH)) done_fifo (
    .clk(clk), .rst(rst),
    .s_data(acc_next), .s_valid(done), .s_ready(s_ready),
    .m_data(m_csum), .m_valid(m_valid), .m_ready(m_ready),
    /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
    .count()
    /* verilator lint_on PINCONNECTEMPTY */
);

endmodule

`resetall
