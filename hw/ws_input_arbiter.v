// ws_input_arbiter - N_PORTS frame streams into one, first come first served per whole frame, II = 1, registered output.
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Frames leave in the order they became whole in their ports' FIFOs: each ws_rx_port pulses
// s_frame_ready when a frame is complete (with the same latency on every port), the vector of
// the ports that completed a frame in one cycle goes into an order FIFO, and between frames the
// grant is the lowest port of the oldest vector not served yet (simultaneous arrivals: lower port
// first). So the device sees frames in their arrival order, which is what makes a replay of a
// trace in global order deterministic, and no port waits behind a later frame of another.
// The next frame's first beat may follow the previous frame's last beat on the next cycle. Once
// a frame has started, its port keeps the grant until its tlast has been accepted. The output
// goes through a ws_skid: every m_axis signal is a register and m_axis_tready may drop at any time.
// Latency: 1 cycle. s_axis_tready[p] = (p is granted, a register) & (skid buffer ready, a
// register). A port is granted 3 cycles after its s_frame_ready pulse at the earliest (the order
// FIFO's 2, the grant register's 1): when ws_rx_port presents the frame's first beat.
// The frames must be whole and their tuser/tmeta valid on every beat (ws_rx_port does so).
module ws_input_arbiter #(
    parameter DATA_WIDTH  = 256,                // stream width in bits (a multiple of 8)
    parameter N_PORTS     = 4,                  // number of input streams (>= 1)
    parameter TUSER_WIDTH = 24,                 // tuser width, carried as is: the device's TUSER_W (ws_tuser.vh)
    parameter META_WIDTH  = 19,                 // tmeta width (ws_rx_port metadata)
    parameter ORDER_DEPTH = 4096                // arrival records held, a power of two: at least the
                                                // number of frames all port FIFOs can hold together
) (
    input  wire                             clk,
    input  wire                             rst,

    input  wire [N_PORTS*DATA_WIDTH-1:0]    s_axis_tdata,
    input  wire [N_PORTS*DATA_WIDTH/8-1:0]  s_axis_tkeep,
    input  wire [N_PORTS-1:0]               s_axis_tvalid,
    output wire [N_PORTS-1:0]               s_axis_tready,
    input  wire [N_PORTS-1:0]               s_axis_tlast,
    input  wire [N_PORTS*TUSER_WIDTH-1:0]   s_axis_tuser,
    input  wire [N_PORTS*META_WIDTH-1:0]    s_axis_tmeta,
    input  wire [N_PORTS-1:0]               s_frame_ready,   // a frame of port p is whole (pulse)

    output wire [DATA_WIDTH-1:0]            m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0]          m_axis_tkeep,
    output wire                             m_axis_tvalid,
    input  wire                             m_axis_tready,
    output wire                             m_axis_tlast,
    output wire [TUSER_WIDTH-1:0]           m_axis_tuser,
    output wire [META_WIDTH-1:0]            m_axis_tmeta
);

    localparam KW = DATA_WIDTH / 8;
    localparam PW = DATA_WIDTH + KW + 1 + TUSER_WIDTH + META_WIDTH;     // skid payload

    generate if (N_PORTS < 1 || DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0 || TUSER_WIDTH < 1 ||
                 META_WIDTH < 1) begin : g_bad_param
        initial begin
            $error("Error: ws_input_arbiter %m: DATA_WIDTH must be a multiple of 8, N_PORTS, TUSER_WIDTH and META_WIDTH >= 1 (DATA_WIDTH = %0d, N_PORTS = %0d, TUSER_WIDTH = %0d, META_WIDTH = %0d)",
                   DATA_WIDTH, N_PORTS, TUSER_WIDTH, META_WIDTH);
            $finish;
        end
    end endgenerate

    // The grant is a register, chosen a cycle ahead, so that the ports' ready (into ws_rx_port's
    // read side) and the output multiplexer start from registers. The oldest record is held in
    // `todo` (its ports not granted yet) and the FIFO head is the record after it, so the next
    // grant is known from registers whether a frame starts or not and a record runs out or not.
    reg                locked;      // inside a frame of port `sel`
    reg  [N_PORTS-1:0] sel;         // one-hot: the port granted in this cycle (0: none)
    reg  [N_PORTS-1:0] todo;        // ports of the oldest record not granted yet (0: no record)
    /* verilator lint_off UNUSEDSIGNAL */  // for the waveform (docs/debugging.md)
    reg  [N_PORTS-1:0] grant;       // one-hot: the port of the current (or last) frame
    /* verilator lint_on UNUSEDSIGNAL */

    // lowest set bit, as a loop: x & -x would be a carry chain
    function [N_PORTS-1:0] lowest(input [N_PORTS-1:0] x);
        integer i;
        reg     seen;
        begin
            lowest = {N_PORTS{1'b0}};
            seen   = 1'b0;
            for (i = 0; i < N_PORTS; i = i + 1) begin
                lowest[i] = x[i] && !seen;
                seen      = seen || x[i];
            end
        end
    endfunction

    // arrival order: one record per cycle in which some ports completed a frame
    wire               ord_valid;
    wire [N_PORTS-1:0] ord_head;    // the record after `todo`'s
    wire               ord_load;

    /* verilator lint_off UNUSEDSIGNAL */  // the records always fit: see ORDER_DEPTH
    wire               ord_in_ready;
    wire [$clog2(ORDER_DEPTH):0] ord_count;
    /* verilator lint_on UNUSEDSIGNAL */
    ws_fifo #(.WIDTH(N_PORTS), .DEPTH(ORDER_DEPTH)) u_order (
        .clk(clk), .rst(rst),
        .s_data(s_frame_ready), .s_valid(|s_frame_ready), .s_ready(ord_in_ready),
        .m_data(ord_head), .m_valid(ord_valid), .m_ready(ord_load),
        .count(ord_count)
    );

    // from registers: the next port of the record and of the FIFO head, and what a start leaves
    wire [N_PORTS-1:0] pick       = lowest(todo);
    wire [N_PORTS-1:0] rest       = todo & ~pick;
    wire               empty      = !(|todo);
    wire               one_left   = !empty && !(|rest);
    wire [N_PORTS-1:0] ord_pick   = ord_valid ? lowest(ord_head) : {N_PORTS{1'b0}};
    wire [N_PORTS-1:0] idle_pick  = empty ? ord_pick : pick;        // no frame starts
    wire [N_PORTS-1:0] start_pick = one_left ? ord_pick : lowest(rest);   // one starts (with `pick`)

    wire               req       = |(s_axis_tvalid & sel);
    wire               skid_ready;
    wire               take      = req && skid_ready;

    assign s_axis_tready = skid_ready ? sel : {N_PORTS{1'b0}};

    // one-hot AND-OR multiplexer
    reg [DATA_WIDTH-1:0]  mux_data;
    reg [KW-1:0]          mux_keep;
    reg                   mux_last;
    reg [TUSER_WIDTH-1:0] mux_user;
    reg [META_WIDTH-1:0]  mux_meta;
    integer p;
    always @* begin
        mux_data = {DATA_WIDTH{1'b0}};
        mux_keep = {KW{1'b0}};
        mux_last = 1'b0;
        mux_user = {TUSER_WIDTH{1'b0}};
        mux_meta = {META_WIDTH{1'b0}};
        for (p = 0; p < N_PORTS; p = p + 1) begin
            mux_data = mux_data | ({DATA_WIDTH{sel[p]}} & s_axis_tdata[p*DATA_WIDTH +: DATA_WIDTH]);
            mux_keep = mux_keep | ({KW{sel[p]}} & s_axis_tkeep[p*KW +: KW]);
            mux_last = mux_last | (sel[p] & s_axis_tlast[p]);
            mux_user = mux_user | ({TUSER_WIDTH{sel[p]}} & s_axis_tuser[p*TUSER_WIDTH +: TUSER_WIDTH]);
            mux_meta = mux_meta | ({META_WIDTH{sel[p]}} & s_axis_tmeta[p*META_WIDTH +: META_WIDTH]);
        end
    end

    // a frame is granted with its first beat (then sel == pick); a record is replaced by the
    // FIFO head when its last port starts, or when there is none
    wire start = take && !locked;
    assign ord_load = empty || (start && one_left);

    always @(posedge clk) begin
        if (rst) begin
            locked <= 1'b0;
            sel    <= {N_PORTS{1'b0}};
            todo   <= {N_PORTS{1'b0}};
            grant  <= {N_PORTS{1'b0}};
        end else begin
            if (take) begin
                locked <= !mux_last;
                grant  <= sel;
            end
            if (ord_load)
                todo <= ord_valid ? ord_head : {N_PORTS{1'b0}};
            else if (start)
                todo <= rest;
            // a frame that goes on keeps its port; otherwise the lowest port of the next `todo`
            if (take ? mux_last : !locked)
                sel <= start ? start_pick : idle_pick;
        end
    end

    ws_skid #(
        .WIDTH (PW)
    ) u_out (
        .clk     (clk),
        .rst     (rst),
        .s_data  ({mux_data, mux_keep, mux_last, mux_user, mux_meta}),
        .s_valid (req),
        .s_ready (skid_ready),
        .m_data  ({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser, m_axis_tmeta}),
        .m_valid (m_axis_tvalid),
        .m_ready (m_axis_tready)
    );

endmodule

`resetall
