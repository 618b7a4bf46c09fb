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
// Latency: 1 cycle. s_axis_tready[p] = (p is granted) & (skid buffer ready, a register).
// The frames must be whole and their tuser/tmeta valid on every beat (ws_rx_port does so).
module ws_input_arbiter #(
    parameter DATA_WIDTH  = 256,                // stream width in bits (a multiple of 8)
    parameter N_PORTS     = 4,                  // number of input streams (>= 1)
    parameter TUSER_WIDTH = 16 + 2 * N_PORTS,   // tuser width (docs/architecture.md layout)
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
    localparam [N_PORTS-1:0] ONE  = 1;

    generate if (N_PORTS < 1 || DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0 || TUSER_WIDTH < 1 ||
                 META_WIDTH < 1) begin : g_bad_param
        initial begin
            $error("ws_input_arbiter %m: bad parameters DATA_WIDTH = %0d (multiple of 8), N_PORTS = %0d, TUSER_WIDTH = %0d, META_WIDTH = %0d (all >= 1)",
                   DATA_WIDTH, N_PORTS, TUSER_WIDTH, META_WIDTH);
            $finish;
        end
    end endgenerate

    reg                locked;      // inside a frame of port `grant`
    reg  [N_PORTS-1:0] grant;       // one-hot: the port of the current (or last) frame

    // arrival order: one record per cycle in which some ports completed a frame
    wire               ord_valid;
    wire [N_PORTS-1:0] ord_head;
    reg  [N_PORTS-1:0] served;      // ports of the head record whose frame has been granted
    wire [N_PORTS-1:0] todo    = ord_valid ? (ord_head & ~served) : {N_PORTS{1'b0}};
    wire [N_PORTS-1:0] pick    = todo & (~todo + ONE);
    wire [N_PORTS-1:0] sel     = locked ? grant : pick;
    wire [N_PORTS-1:0] req     = s_axis_tvalid;
    wire               ord_pop;

    /* verilator lint_off UNUSEDSIGNAL */  // the records always fit: see ORDER_DEPTH
    wire               ord_in_ready;
    wire [$clog2(ORDER_DEPTH):0] ord_count;
    /* verilator lint_on UNUSEDSIGNAL */
    ws_fifo #(.WIDTH(N_PORTS), .DEPTH(ORDER_DEPTH)) u_order (
        .clk(clk), .rst(rst),
        .s_data(s_frame_ready), .s_valid(|s_frame_ready), .s_ready(ord_in_ready),
        .m_data(ord_head), .m_valid(ord_valid), .m_ready(ord_pop),
        .count(ord_count)
    );

    wire               skid_ready;
    wire               sel_valid = |(req & sel);
    wire               take      = sel_valid && skid_ready;

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

    // a frame is granted with its first beat; the record is done when all its ports are
    wire start = take && !locked;
    assign ord_pop = start && ((served | sel) == ord_head);

    always @(posedge clk) begin
        if (rst) begin
            locked <= 1'b0;
            grant  <= {N_PORTS{1'b0}};
            served <= {N_PORTS{1'b0}};
        end else begin
            if (take) begin
                locked <= !mux_last;
                grant  <= sel;
            end
            if (start)
                served <= ord_pop ? {N_PORTS{1'b0}} : (served | sel);
        end
    end

    ws_skid #(
        .WIDTH (PW)
    ) u_out (
        .clk     (clk),
        .rst     (rst),
        .s_data  ({mux_data, mux_keep, mux_last, mux_user, mux_meta}),
        .s_valid (sel_valid),
        .s_ready (skid_ready),
        .m_data  ({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser, m_axis_tmeta}),
        .m_valid (m_axis_tvalid),
        .m_ready (m_axis_tready)
    );

endmodule

`resetall
