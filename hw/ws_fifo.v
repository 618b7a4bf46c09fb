// ws_fifo - synchronous first-word-fall-through FIFO on an inferred block RAM with a registered read port.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Storage: DEPTH words of RAM plus the RAM's output (read) register, which is also m_data, so the
// FIFO holds up to DEPTH + 1 words. m_data is valid whenever m_valid (first-word fall-through).
// One push and one pop per cycle, simultaneously, without bubbles.
// Latency: a word pushed at clock edge t is on m_data after edge t+1 (2 cycles s_valid -> m_valid).
// s_ready and count are registers; count is the number of words held (RAM + output register).
module ws_fifo #(
    parameter WIDTH = 8,    // word width in bits (>= 1)
    parameter DEPTH = 16,   // RAM words, a power of two (>= 2)
    parameter CREDIT = 0    // 1: the source pushes only into room it has counted (from count),
                            // so a push is s_valid alone, not gated by s_ready (a word pushed
                            // without room stops the simulation)
) (
    input  wire                     clk,
    input  wire                     rst,

    input  wire [WIDTH-1:0]         s_data,
    input  wire                     s_valid,
    output reg                      s_ready,

    output reg  [WIDTH-1:0]         m_data,
    output reg                      m_valid,
    input  wire                     m_ready,

    output reg  [$clog2(DEPTH):0]   count
);

    localparam AW = $clog2(DEPTH);
    localparam FILL_LAST = DEPTH - 1;

    generate if (DEPTH < 2 || (1 << AW) != DEPTH || WIDTH < 1) begin : g_bad_param
        initial begin
            $error("Error: ws_fifo %m: DEPTH must be a power of two >= 2, WIDTH >= 1 (DEPTH = %0d, WIDTH = %0d)",
                   DEPTH, WIDTH);
            $finish;
        end
    end endgenerate

    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW:0]      wr_ptr;     // one extra bit tells full from empty
    reg [AW:0]      rd_ptr;

    wire [AW:0] ram_fill  = wr_ptr - rd_ptr;
    wire        ram_empty = (wr_ptr == rd_ptr);
    wire        push      = CREDIT != 0 ? s_valid : s_valid && s_ready;
    wire        pop_ram   = !ram_empty && (!m_valid || m_ready);   // RAM -> output register
    wire        pop_out   = m_valid && m_ready;                    // output register -> sink

    // push and the pops come late in the cycle (s_valid and m_ready are the neighbours'
    // judgements): the next s_ready and count are chosen by them among values computed from
    // the registers alone, one LUT after them, not at the end of an add chain
    wire        ram_full  = ram_fill[AW];                               // fill == DEPTH
    wire        ram_last  = ram_fill == FILL_LAST[AW:0];                // fill == DEPTH - 1
    wire [AW:0] count_inc = count + 1'b1;
    wire [AW:0] count_dec = count - 1'b1;

    // control
    always @(posedge clk) begin
        if (rst) begin
            wr_ptr  <= {AW+1{1'b0}};
            rd_ptr  <= {AW+1{1'b0}};
            m_valid <= 1'b0;
            s_ready <= 1'b0;
            count   <= {AW+1{1'b0}};
        end else begin
            if (push) begin
                wr_ptr <= wr_ptr + 1'b1;
            end
            if (pop_ram) begin
                rd_ptr  <= rd_ptr + 1'b1;
                m_valid <= 1'b1;
            end else if (pop_out) begin
                m_valid <= 1'b0;
            end
            // the next fill is below DEPTH (fill never exceeds DEPTH)
            case ({push, pop_ram})
                2'b10:   s_ready <= !ram_full && !ram_last;
                2'b01:   s_ready <= 1'b1;
                default: s_ready <= !ram_full;
            endcase
            case ({push, pop_out})
                2'b10:   count <= count_inc;
                2'b01:   count <= count_dec;
                default: ;
            endcase
        end
    end

`ifndef SYNTHESIS
    always @(posedge clk)
        if (CREDIT != 0 && !rst && s_valid && !s_ready) begin
            $error("Error: ws_fifo %m: a word pushed without room (CREDIT = 1, count = %0d)", count);
            $finish;
        end
`endif

    // datapath: RAM write port and registered read port (block-RAM inference)
    always @(posedge clk) begin
        if (push) begin
            mem[wr_ptr[AW-1:0]] <= s_data;
        end
    end

    always @(posedge clk) begin
        if (pop_ram) begin
            m_data <= mem[rd_ptr[AW-1:0]];
        end
    end

endmodule

`resetall
