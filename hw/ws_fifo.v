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
    parameter DEPTH = 16    // RAM words, a power of two (>= 2)
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

    generate if (DEPTH < 2 || (1 << AW) != DEPTH || WIDTH < 1) begin : g_bad_param
        initial begin
            $error("ws_fifo %m: DEPTH = %0d must be a power of two >= 2 and WIDTH = %0d >= 1",
                   DEPTH, WIDTH);
            $finish;
        end
    end endgenerate

    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW:0]      wr_ptr;     // one extra bit tells full from empty
    reg [AW:0]      rd_ptr;

    wire [AW:0] ram_fill  = wr_ptr - rd_ptr;
    wire        ram_empty = (wr_ptr == rd_ptr);
    wire        push      = s_valid && s_ready;
    wire        pop_ram   = !ram_empty && (!m_valid || m_ready);   // RAM -> output register
    wire        pop_out   = m_valid && m_ready;                    // output register -> sink

    wire [AW:0] ram_fill_next = ram_fill + {{AW{1'b0}}, push} - {{AW{1'b0}}, pop_ram};

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
            s_ready <= !ram_fill_next[AW];      // fill < DEPTH (fill never exceeds DEPTH)
            count   <= count + {{AW{1'b0}}, push} - {{AW{1'b0}}, pop_out};
        end
    end

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
