// ws_icarus_tb - wiresum_top under Icarus Verilog, driven by the host harness (sim/ws_sim.c)
// through the bridge VPI module sim/icarus/ws_vpi.c (docs/debugging.md, "Icarus").
//
// The module is called TOP and the device instance wiresum_top, so that the hierarchy in an
// Icarus FST is the Verilator model's (TOP.wiresum_top...) and one GTKWave layout serves both.
//
// The harness owns every input and reads every output; this module only holds the ports as
// registers and wires and runs the bridge loop: $ws_bridge blocks until the harness asks for
// time to pass (cmd 0, ws_delay picoseconds, at least 1), a trace to start (cmd 1, file name in
// ws_path) or to stop (cmd 2), or the end (cmd 3). The ports have the names of wiresum_top's, so
// the bridge finds them by name. DATA_WIDTH is set per build (iverilog -P).
`resetall
`timescale 1ps / 1ps
`default_nettype none

module TOP;

parameter DATA_WIDTH = 256;
parameter N_PORTS    = 4;
parameter MAX_COUNT  = 256;
parameter ENGINES    = 1;
parameter PARTIAL    = 0;
parameter MAX_FRAME  = 9216;

localparam TUSER_W = 16 + 2*N_PORTS;

reg                             clk = 1'b0;
reg                             rst = 1'b0;
reg  [N_PORTS*DATA_WIDTH-1:0]   s_axis_tdata = 0;
reg  [N_PORTS*DATA_WIDTH/8-1:0] s_axis_tkeep = 0;
reg  [N_PORTS-1:0]              s_axis_tvalid = 0;
wire [N_PORTS-1:0]              s_axis_tready;
reg  [N_PORTS-1:0]              s_axis_tlast = 0;
reg  [N_PORTS*TUSER_W-1:0]      s_axis_tuser = 0;
wire [N_PORTS*DATA_WIDTH-1:0]   m_axis_tdata;
wire [N_PORTS*DATA_WIDTH/8-1:0] m_axis_tkeep;
wire [N_PORTS-1:0]              m_axis_tvalid;
reg  [N_PORTS-1:0]              m_axis_tready = 0;
wire [N_PORTS-1:0]              m_axis_tlast;
wire [N_PORTS*TUSER_W-1:0]      m_axis_tuser;
reg  [15:0]                     s_axil_awaddr = 0;
reg                             s_axil_awvalid = 0;
wire                            s_axil_awready;
reg  [31:0]                     s_axil_wdata = 0;
reg  [3:0]                      s_axil_wstrb = 0;
reg                             s_axil_wvalid = 0;
wire                            s_axil_wready;
wire [1:0]                      s_axil_bresp;
wire                            s_axil_bvalid;
reg                             s_axil_bready = 0;
reg  [15:0]                     s_axil_araddr = 0;
reg                             s_axil_arvalid = 0;
wire                            s_axil_arready;
wire [31:0]                     s_axil_rdata;
wire [1:0]                      s_axil_rresp;
wire                            s_axil_rvalid;
reg                             s_axil_rready = 0;

wiresum_top #(
    .DATA_WIDTH(DATA_WIDTH),
    .N_PORTS(N_PORTS),
    .MAX_COUNT(MAX_COUNT),
    .ENGINES(ENGINES),
    .PARTIAL(PARTIAL),
    .MAX_FRAME(MAX_FRAME)
) wiresum_top (
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready)
);

reg  [63:0]     ws_delay = 64'd1;
reg  [8*4096-1:0] ws_path = 0;
integer         ws_cmd;

initial begin : bridge
    forever begin
        ws_cmd = $ws_bridge(ws_delay, ws_path);
        case (ws_cmd)
        0: #(ws_delay);
        1: begin
            $dumpfile(ws_path);
            $dumpvars(0, TOP);
        end
        2: begin
            $dumpoff;
            $dumpflush;
        end
        default: $finish;
        endcase
    end
end

endmodule

`resetall
