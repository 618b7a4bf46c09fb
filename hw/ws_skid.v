// ws_skid - register slice (skid buffer) for a valid/ready payload: full throughput, all outputs registered.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Two payload registers: the output register and a skid register that catches the one beat
// that upstream may still push in the cycle after m_ready drops (s_ready is registered, so it
// reacts one cycle late). Latency: 1 cycle from s_valid to m_valid. Throughput: 1 beat/cycle.
module ws_skid #(
    parameter WIDTH = 8     // payload width in bits (>= 1)
) (
    input  wire             clk,
    input  wire             rst,

    input  wire [WIDTH-1:0] s_data,
    input  wire             s_valid,
    output reg              s_ready,

    output reg  [WIDTH-1:0] m_data,
    output reg              m_valid,
    input  wire             m_ready
);

    generate if (WIDTH < 1) begin : g_bad_width
        initial begin
            $error("Error: ws_skid %m: WIDTH must be >= 1 (WIDTH = %0d)", WIDTH);
            $finish;
        end
    end endgenerate

    reg [WIDTH-1:0] skid_data;
    reg             skid_valid;

    // Ready for a beat in the next cycle if the output will be free or the skid register is
    // empty and will stay so.
    wire s_ready_next = m_ready || (!skid_valid && (!m_valid || !s_valid));

    wire out_load_in   = s_ready && (m_ready || !m_valid); // input -> output register
    wire skid_load_in  = s_ready && !(m_ready || !m_valid); // input -> skid register
    wire out_load_skid = !s_ready && m_ready;               // skid -> output register

    // control
    always @(posedge clk) begin
        if (rst) begin
            m_valid    <= 1'b0;
            skid_valid <= 1'b0;
            s_ready    <= 1'b0;
        end else begin
            s_ready <= s_ready_next;
            if (out_load_in) begin
                m_valid <= s_valid;
            end else if (skid_load_in) begin
                skid_valid <= s_valid;
            end else if (out_load_skid) begin
                m_valid    <= skid_valid;
                skid_valid <= 1'b0;
            end
        end
    end

    // datapath (not reset)
    always @(posedge clk) begin
        if (out_load_in) begin
            m_data <= s_data;
        end else if (out_load_skid) begin
            m_data <= skid_data;
        end
        if (skid_load_in) begin
            skid_data <= s_data;
        end
    end

endmodule

`resetall
