// ws_egress_arbiter - one egress port: bypass (s0) and result (s1) frame streams merged round-robin per frame, II = 1.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Between frames the grant is chosen combinationally: if both streams have a frame waiting, the one
// not served last gets it (so neither can starve the other); otherwise the one that has a frame.
// A frame keeps the grant until its tlast is accepted; the next frame may start on the next cycle.
// The output goes through a ws_skid (every m_axis signal is a register, m_axis_tready may drop at
// any time). Latency: 1 cycle. stat_tx pulses (registered, one cycle later) for every frame whose
// last beat was accepted downstream, with stat_tx_len = tuser[15:0] of that frame.
module ws_egress_arbiter #(
    parameter DATA_WIDTH  = 256,    // stream width in bits (a multiple of 8)
    parameter TUSER_WIDTH = 24      // the device's TUSER_W (ws_tuser.vh), >= 16: the length is [15:0] at any N_PORTS
) (
    input  wire                     clk,
    input  wire                     rst,

    // s0: bypass traffic
    input  wire [DATA_WIDTH-1:0]    s0_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]  s0_axis_tkeep,
    input  wire                     s0_axis_tvalid,
    output wire                     s0_axis_tready,
    input  wire                     s0_axis_tlast,
    input  wire [TUSER_WIDTH-1:0]   s0_axis_tuser,

    // s1: RESULT frames
    input  wire [DATA_WIDTH-1:0]    s1_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]  s1_axis_tkeep,
    input  wire                     s1_axis_tvalid,
    output wire                     s1_axis_tready,
    input  wire                     s1_axis_tlast,
    input  wire [TUSER_WIDTH-1:0]   s1_axis_tuser,

    output wire [DATA_WIDTH-1:0]    m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0]  m_axis_tkeep,
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire                     m_axis_tlast,
    output wire [TUSER_WIDTH-1:0]   m_axis_tuser,

    output reg                      stat_tx,
    output reg  [15:0]              stat_tx_len
);

    localparam KW = DATA_WIDTH / 8;
    localparam PW = DATA_WIDTH + KW + 1 + TUSER_WIDTH;

    generate if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0 || TUSER_WIDTH < 16) begin : g_bad_param
        initial begin
            $error("Error: ws_egress_arbiter %m: DATA_WIDTH must be a multiple of 8, TUSER_WIDTH >= 16 (DATA_WIDTH = %0d, TUSER_WIDTH = %0d)",
                   DATA_WIDTH, TUSER_WIDTH);
            $finish;
        end
    end endgenerate

    reg  locked;        // inside a frame of stream `cur`
    reg  cur;           // stream of the current (or last) frame

    // stream 1 if it alone has a frame, or both have and stream 0 was served last
    wire pick = s1_axis_tvalid && (!s0_axis_tvalid || !cur);
    wire sel  = locked ? cur : pick;

    wire skid_ready;
    wire sel_valid = sel ? s1_axis_tvalid : s0_axis_tvalid;
    wire sel_last  = sel ? s1_axis_tlast : s0_axis_tlast;
    wire take      = sel_valid && skid_ready;

    assign s0_axis_tready = skid_ready && !sel;
    assign s1_axis_tready = skid_ready && sel;

    always @(posedge clk) begin
        if (rst) begin
            locked <= 1'b0;
            cur    <= 1'b1;     // bypass first
        end else if (take) begin
            locked <= !sel_last;
            cur    <= sel;
        end
    end

    ws_skid #(
        .WIDTH (PW)
    ) u_out (
        .clk     (clk),
        .rst     (rst),
        .s_data  (sel ? {s1_axis_tdata, s1_axis_tkeep, s1_axis_tlast, s1_axis_tuser}
                      : {s0_axis_tdata, s0_axis_tkeep, s0_axis_tlast, s0_axis_tuser}),
        .s_valid (sel_valid),
        .s_ready (skid_ready),
        .m_data  ({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser}),
        .m_valid (m_axis_tvalid),
        .m_ready (m_axis_tready)
    );

    always @(posedge clk) begin
        if (rst) begin
            stat_tx <= 1'b0;
        end else begin
            stat_tx <= m_axis_tvalid && m_axis_tready && m_axis_tlast;
        end
        stat_tx_len <= m_axis_tuser[15:0];
    end

endmodule

`resetall
