// wiresum_top - bump-in-the-wire gradient aggregation datapath: the pipeline of docs/architecture.md.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// ingress ports -> ws_rx_port (store and forward, checksums) -> ws_input_arbiter -> ws_parser
//   -> bypass frames ------------------------------------------------> ws_egress_arbiter -> egress ports
//   -> aggregation frames -> ws_engine (judge, exact lanes, combine) -> ws_result_gen --^
// ws_regs holds the configuration and the counters (AXI4-Lite).
// One input arbiter, parser, bank of lanes and result generator per engine (a group of ports),
// the same for every ENGINES: one judge takes the frames of all engines in arrival order, and
// the combine adds the engines' partials (a pass-through with one engine).
module wiresum_top #(
    parameter DATA_WIDTH  = 256,   // datapath width, bits: 256, 512 or 1024
    parameter N_PORTS     = 4,     // device ports
    parameter MAX_JOBS    = 8,     // job table entries
    parameter MAX_WORKERS = 64,    // workers per job (<= 64)
    parameter POOL_SLOTS  = 64,    // slots shared by the jobs' ranges
    parameter MAX_COUNT   = 256,   // largest count (elements per frame), <= 2048
    parameter MAX_FRAME   = 9216,  // largest frame carried, bytes
    parameter ENGINES     = 1,     // aggregation engines, 1..N_PORTS dividing N_PORTS: engine e serves
                                   // ports e*N_PORTS/ENGINES .. (e+1)*N_PORTS/ENGINES-1
    parameter PARTIAL     = 0      // 1: the device takes PARTIAL frames as a parent (docs/protocol.md
                                   // section 9): 320-bit lanes, rounded once in the combine
) (
    input  wire                             clk,
    input  wire                             rst,

    input  wire [N_PORTS*DATA_WIDTH-1:0]    s_axis_tdata,
    input  wire [N_PORTS*DATA_WIDTH/8-1:0]  s_axis_tkeep,
    input  wire [N_PORTS-1:0]               s_axis_tvalid,
    output wire [N_PORTS-1:0]               s_axis_tready,
    input  wire [N_PORTS-1:0]               s_axis_tlast,
    /* verilator lint_off UNUSEDSIGNAL */   // ingress tuser is ignored: ws_rx_port measures frames itself
    input  wire [N_PORTS*TUSER_W-1:0]       s_axis_tuser,
    /* verilator lint_on UNUSEDSIGNAL */

    output wire [N_PORTS*DATA_WIDTH-1:0]    m_axis_tdata,
    output wire [N_PORTS*DATA_WIDTH/8-1:0]  m_axis_tkeep,
    output wire [N_PORTS-1:0]               m_axis_tvalid,
    input  wire [N_PORTS-1:0]               m_axis_tready,
    output wire [N_PORTS-1:0]               m_axis_tlast,
    output wire [N_PORTS*TUSER_W-1:0]       m_axis_tuser,

    input  wire [15:0]                      s_axil_awaddr,
    input  wire                             s_axil_awvalid,
    output wire                             s_axil_awready,
    input  wire [31:0]                      s_axil_wdata,
    input  wire [3:0]                       s_axil_wstrb,
    input  wire                             s_axil_wvalid,
    output wire                             s_axil_wready,
    output wire [1:0]                       s_axil_bresp,
    output wire                             s_axil_bvalid,
    input  wire                             s_axil_bready,
    input  wire [15:0]                      s_axil_araddr,
    input  wire                             s_axil_arvalid,
    output wire                             s_axil_arready,
    output wire [31:0]                      s_axil_rdata,
    output wire [1:0]                       s_axil_rresp,
    output wire                             s_axil_rvalid,
    input  wire                             s_axil_rready
);

import ws_regmap::*;  // WS_REASON_W: a drop reason code

`include "ws_widths.vh"   // BYTES, JI_W, WK_W, WC_W, SL_W, PS_W, CN_W, MA_W, Q_W, RA_W, ...
`include "ws_tuser.vh"    // TUSER_W and the positions of tuser's fields
`include "ws_member.vh"   // PORT_W, MEM_W: a member record
/* verilator lint_off UNUSEDPARAM */  // the top needs only HDR_W of the sideband layout
`include "ws_agg_hdr.vh"
/* verilator lint_on UNUSEDPARAM */
`include "ws_cmd.vh"      // CMD_W: a command
localparam META_W  = 19;
localparam FIFO_BYTES = 1 << $clog2(2 * MAX_FRAME);
localparam PPE        = N_PORTS / ENGINES;   // ports per engine

// ENGINES; every other parameter is checked by the modules that take it (ws_parser, ws_regs, ...)
generate
    if (ENGINES < 1 || ENGINES > N_PORTS || N_PORTS % ENGINES != 0) begin : g_bad_engines
        initial begin
            $error("Error: wiresum_top %m: ENGINES must be 1..N_PORTS and divide N_PORTS (ENGINES = %0d, N_PORTS = %0d)",
                   ENGINES, N_PORTS);
            $finish;
        end
    end
endgenerate

// ---- configuration and counters ----------------------------------------------------------
wire [47:0]              cfg_dev_mac;
wire [31:0]              cfg_dev_ip;
wire [15:0]              cfg_dev_udp;
wire [N_PORTS*PORT_W-1:0] cfg_bypass;
wire [MAX_JOBS-1:0]      cfg_job_en;
wire [MAX_JOBS*16-1:0]   cfg_job_id;
wire [MAX_JOBS*WC_W-1:0] cfg_job_workers;
wire [MAX_JOBS*SL_W-1:0] cfg_job_slots;
wire [MAX_JOBS*SL_W-1:0] cfg_job_base;
wire [MAX_JOBS*CN_W-1:0] cfg_job_maxcount;
// the jobs' parents (PARTIAL = 1): the parser finds a parent's RESULT by them, the result
// generators send the PARTIAL to them
wire [MAX_JOBS-1:0]      cfg_job_par_en;
wire [MAX_JOBS*48-1:0]   cfg_job_par_mac;
wire [MAX_JOBS*32-1:0]   cfg_job_par_ip;
wire [MAX_JOBS*16-1:0]   cfg_job_par_udp;
wire [MAX_JOBS*16-1:0]   cfg_job_par_job;
wire [MAX_JOBS*16-1:0]   cfg_job_par_rank;
wire [MAX_JOBS*PORT_W-1:0] cfg_job_par_port;
wire                     job_clear;
/* verilator lint_off UNUSEDSIGNAL */  // for the waveform: the job a clear belongs to
wire [JI_W-1:0]          job_clear_idx;
/* verilator lint_on UNUSEDSIGNAL */
wire [SL_W-1:0]          job_clear_base;
wire [SL_W:0]            job_clear_end;
wire [ENGINES*MA_W-1:0]  mem_rda_addr, mem_rdb_addr;
wire [ENGINES*MEM_W-1:0] mem_rda_data, mem_rdb_data;

wire [N_PORTS-1:0]       stat_rx, stat_tx, stat_oversize;
wire [N_PORTS*16-1:0]    stat_rx_len, stat_tx_len;
wire [ENGINES-1:0]       stat_accepted, stat_result, stat_resend, stat_bypass;
wire [ENGINES-1:0]       stat_pdrop, stat_edrop;
wire [ENGINES*WS_REASON_W-1:0] stat_pdrop_reason, stat_edrop_reason;

ws_regs #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .MAX_JOBS(MAX_JOBS),
    .MAX_WORKERS(MAX_WORKERS), .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT),
    .MAX_FRAME(MAX_FRAME), .ENGINES(ENGINES), .PARTIAL(PARTIAL)
) regs (
    .clk(clk), .rst(rst),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
    .cfg_dev_mac(cfg_dev_mac), .cfg_dev_ip(cfg_dev_ip), .cfg_dev_udp(cfg_dev_udp),
    .cfg_bypass(cfg_bypass), .cfg_job_en(cfg_job_en), .cfg_job_id(cfg_job_id),
    .cfg_job_workers(cfg_job_workers), .cfg_job_slots(cfg_job_slots), .cfg_job_base(cfg_job_base),
    .cfg_job_maxcount(cfg_job_maxcount),
    .cfg_job_par_en(cfg_job_par_en), .cfg_job_par_mac(cfg_job_par_mac), .cfg_job_par_ip(cfg_job_par_ip),
    .cfg_job_par_udp(cfg_job_par_udp), .cfg_job_par_port(cfg_job_par_port),
    .cfg_job_par_job(cfg_job_par_job), .cfg_job_par_rank(cfg_job_par_rank),
    .job_clear(job_clear), .job_clear_idx(job_clear_idx),
    .job_clear_base(job_clear_base), .job_clear_end(job_clear_end),
    .mem_rda_addr(mem_rda_addr), .mem_rda_data(mem_rda_data),
    .mem_rdb_addr(mem_rdb_addr), .mem_rdb_data(mem_rdb_data),
    .stat_rx(stat_rx), .stat_rx_len(stat_rx_len), .stat_tx(stat_tx), .stat_tx_len(stat_tx_len),
    .stat_accepted(stat_accepted), .stat_result(stat_result), .stat_resend(stat_resend),
    .stat_bypass(stat_bypass), .stat_oversize(stat_oversize),
    .stat_drop_a(stat_pdrop), .stat_drop_a_reason(stat_pdrop_reason),
    .stat_drop_b(stat_edrop), .stat_drop_b_reason(stat_edrop_reason)
);

// ---- ingress: store and forward, then one stream -----------------------------------------
wire [N_PORTS*DATA_WIDTH-1:0] rx_tdata;
wire [N_PORTS*BYTES-1:0]      rx_tkeep;
wire [N_PORTS-1:0]            rx_tvalid, rx_tready, rx_tlast;
wire [N_PORTS*TUSER_W-1:0]    rx_tuser;
wire [N_PORTS*META_W-1:0]     rx_tmeta;
wire [N_PORTS-1:0]            rx_frame_ready;

genvar p;
generate
    for (p = 0; p < N_PORTS; p = p + 1) begin : g_rx
        ws_rx_port #(
            .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .PORT(p),
            .MAX_FRAME(MAX_FRAME), .FIFO_BYTES(FIFO_BYTES)
        ) rx (
            .clk(clk), .rst(rst),
            .s_axis_tdata(s_axis_tdata[p*DATA_WIDTH +: DATA_WIDTH]),
            .s_axis_tkeep(s_axis_tkeep[p*BYTES +: BYTES]),
            .s_axis_tvalid(s_axis_tvalid[p]), .s_axis_tready(s_axis_tready[p]),
            .s_axis_tlast(s_axis_tlast[p]),
            .m_axis_tdata(rx_tdata[p*DATA_WIDTH +: DATA_WIDTH]),
            .m_axis_tkeep(rx_tkeep[p*BYTES +: BYTES]),
            .m_axis_tvalid(rx_tvalid[p]), .m_axis_tready(rx_tready[p]), .m_axis_tlast(rx_tlast[p]),
            .m_axis_tuser(rx_tuser[p*TUSER_W +: TUSER_W]),
            .m_axis_tmeta(rx_tmeta[p*META_W +: META_W]),
            .stat_rx(stat_rx[p]), .stat_rx_len(stat_rx_len[p*16 +: 16]),
            .stat_oversize(stat_oversize[p]), .frame_ready(rx_frame_ready[p])
        );
    end
endgenerate

// ---- per engine: input arbiter (its ports, in arrival order), parser, result generator ------
// Engine e serves ports e*PPE .. (e+1)*PPE-1 (docs/architecture.md section 1). The aggregation
// engine itself follows below.
localparam ORD_E = 1 << $clog2(PPE * FIFO_BYTES / BYTES);
wire [ENGINES*DATA_WIDTH-1:0] agg_tdata, byp_tdata, res_tdata;
wire [ENGINES*BYTES-1:0]      agg_tkeep, byp_tkeep, res_tkeep;
wire [ENGINES-1:0]            agg_tvalid, agg_tready, agg_tlast;
wire [ENGINES-1:0]            byp_tvalid, byp_tready, byp_tlast;
wire [ENGINES-1:0]            res_tvalid, res_tready, res_tlast;
wire [ENGINES*TUSER_W-1:0]    byp_tuser, res_tuser;
/* verilator lint_off UNUSEDSIGNAL */  // the engine takes the header from the token
wire [ENGINES*HDR_W-1:0]      agg_hdr;
/* verilator lint_on UNUSEDSIGNAL */
wire [ENGINES-1:0]            tok_valid, tok_agg, tok_ready;
wire [ENGINES*HDR_W-1:0]      tok_hdr;

wire [ENGINES-1:0]            cmd_valid, cmd_ready;
wire [CMD_W-1:0]              cmd_data;
wire [ENGINES*RA_W-1:0]       res_rd_addr;
wire [ENGINES*DATA_WIDTH-1:0] res_rd_data;
wire [ENGINES-1:0]            res_frame_done, res_skip_done;
wire [ENGINES*Q_W-1:0]        res_frame_done_q, res_skip_done_q;
wire [ENGINES*PR_W-1:0]       par_rd_addr;
wire [ENGINES*DATA_WIDTH-1:0] par_rd_data;
wire [ENGINES-1:0]            par_sent;
// each job's parent as a member record (the result generators' PARTIAL goes to it)
wire [MAX_JOBS*MEM_W-1:0]     cfg_par_mem;
genvar pj;
generate
    for (pj = 0; pj < MAX_JOBS; pj = pj + 1) begin : g_par
        assign cfg_par_mem[pj*MEM_W + MEM_MAC_LSB +: MEM_MAC_W] = cfg_job_par_mac[pj*48 +: 48];
        assign cfg_par_mem[pj*MEM_W + MEM_IP_LSB +: MEM_IP_W] = cfg_job_par_ip[pj*32 +: 32];
        assign cfg_par_mem[pj*MEM_W + MEM_UDP_LSB +: MEM_UDP_W] = cfg_job_par_udp[pj*16 +: 16];
        assign cfg_par_mem[pj*MEM_W + MEM_PORT_LSB +: PORT_W] = cfg_job_par_port[pj*PORT_W +: PORT_W];
    end
endgenerate

genvar e;
generate
    for (e = 0; e < ENGINES; e = e + 1) begin : g_eng
        localparam [N_PORTS-1:0] MASK = {{(N_PORTS-PPE){1'b0}}, {PPE{1'b1}}} << (e * PPE);
        wire [DATA_WIDTH-1:0] arb_tdata;
        wire [BYTES-1:0]      arb_tkeep;
        wire                  arb_tvalid, arb_tready, arb_tlast;
        wire [TUSER_W-1:0]    arb_tuser;
        wire [META_W-1:0]     arb_tmeta;

        ws_input_arbiter #(
            .DATA_WIDTH(DATA_WIDTH), .N_PORTS(PPE), .TUSER_WIDTH(TUSER_W), .META_WIDTH(META_W),
            .ORDER_DEPTH(ORD_E)
        ) input_arbiter (
            .clk(clk), .rst(rst),
            .s_axis_tdata(rx_tdata[e*PPE*DATA_WIDTH +: PPE*DATA_WIDTH]),
            .s_axis_tkeep(rx_tkeep[e*PPE*BYTES +: PPE*BYTES]),
            .s_axis_tvalid(rx_tvalid[e*PPE +: PPE]), .s_axis_tready(rx_tready[e*PPE +: PPE]),
            .s_axis_tlast(rx_tlast[e*PPE +: PPE]), .s_axis_tuser(rx_tuser[e*PPE*TUSER_W +: PPE*TUSER_W]),
            .s_axis_tmeta(rx_tmeta[e*PPE*META_W +: PPE*META_W]),
            .s_frame_ready(rx_frame_ready[e*PPE +: PPE]),
            .m_axis_tdata(arb_tdata), .m_axis_tkeep(arb_tkeep), .m_axis_tvalid(arb_tvalid),
            .m_axis_tready(arb_tready), .m_axis_tlast(arb_tlast), .m_axis_tuser(arb_tuser),
            .m_axis_tmeta(arb_tmeta)
        );

        // bypass, aggregation or drop
        ws_parser #(
            .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .MAX_JOBS(MAX_JOBS),
            .MAX_WORKERS(MAX_WORKERS), .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT),
            .PARTIAL(PARTIAL)
        ) parser (
            .clk(clk), .rst(rst),
            .s_axis_tdata(arb_tdata), .s_axis_tkeep(arb_tkeep), .s_axis_tvalid(arb_tvalid),
            .s_axis_tready(arb_tready), .s_axis_tlast(arb_tlast), .s_axis_tuser(arb_tuser),
            .s_axis_tmeta(arb_tmeta),
            .cfg_dev_ip(cfg_dev_ip), .cfg_dev_udp(cfg_dev_udp), .cfg_bypass(cfg_bypass),
            .cfg_job_en(cfg_job_en), .cfg_job_id(cfg_job_id), .cfg_job_workers(cfg_job_workers),
            .cfg_job_slots(cfg_job_slots), .cfg_job_base(cfg_job_base),
            .cfg_job_maxcount(cfg_job_maxcount),
            .cfg_job_par_en(cfg_job_par_en), .cfg_job_par_mac(cfg_job_par_mac),
            .cfg_job_par_ip(cfg_job_par_ip), .cfg_job_par_udp(cfg_job_par_udp),
            .cfg_job_par_job(cfg_job_par_job), .cfg_job_par_rank(cfg_job_par_rank),
            .mem_rd_addr(mem_rda_addr[e*MA_W +: MA_W]), .mem_rd_data(mem_rda_data[e*MEM_W +: MEM_W]),
            .m_byp_tdata(byp_tdata[e*DATA_WIDTH +: DATA_WIDTH]), .m_byp_tkeep(byp_tkeep[e*BYTES +: BYTES]),
            .m_byp_tvalid(byp_tvalid[e]), .m_byp_tready(byp_tready[e]), .m_byp_tlast(byp_tlast[e]),
            .m_byp_tuser(byp_tuser[e*TUSER_W +: TUSER_W]),
            .m_agg_tdata(agg_tdata[e*DATA_WIDTH +: DATA_WIDTH]), .m_agg_tkeep(agg_tkeep[e*BYTES +: BYTES]),
            .m_agg_tvalid(agg_tvalid[e]), .m_agg_tready(agg_tready[e]), .m_agg_tlast(agg_tlast[e]),
            .m_agg_hdr(agg_hdr[e*HDR_W +: HDR_W]),
            .tok_valid(tok_valid[e]), .tok_agg(tok_agg[e]), .tok_hdr(tok_hdr[e*HDR_W +: HDR_W]),
            .tok_ready(tok_ready[e]),
            .stat_bypass(stat_bypass[e]), .stat_drop(stat_pdrop[e]),
            .stat_drop_reason(stat_pdrop_reason[e*WS_REASON_W +: WS_REASON_W])
        );

        // RESULT frames of the commands, to the members on this engine's ports
        ws_result_gen #(
            .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .MAX_JOBS(MAX_JOBS),
            .MAX_WORKERS(MAX_WORKERS), .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT),
            .FILTER(ENGINES > 1 ? 1 : 0), .PORT_MASK(MASK), .PARTIAL(PARTIAL)
        ) result_gen (
            .clk(clk), .rst(rst),
            .cmd_valid(cmd_valid[e]), .cmd_ready(cmd_ready[e]), .cmd_data(cmd_data),
            .cfg_dev_mac(cfg_dev_mac), .cfg_dev_ip(cfg_dev_ip), .cfg_dev_udp(cfg_dev_udp),
            .cfg_par_mem(cfg_par_mem), .cfg_par_job(cfg_job_par_job), .cfg_par_rank(cfg_job_par_rank),
            .par_rd_addr(par_rd_addr[e*PR_W +: PR_W]), .par_rd_data(par_rd_data[e*DATA_WIDTH +: DATA_WIDTH]),
            .par_sent(par_sent[e]),
            .mem_rd_addr(mem_rdb_addr[e*MA_W +: MA_W]), .mem_rd_data(mem_rdb_data[e*MEM_W +: MEM_W]),
            .res_rd_addr(res_rd_addr[e*RA_W +: RA_W]),
            .res_rd_data(res_rd_data[e*DATA_WIDTH +: DATA_WIDTH]),
            .m_axis_tdata(res_tdata[e*DATA_WIDTH +: DATA_WIDTH]), .m_axis_tkeep(res_tkeep[e*BYTES +: BYTES]),
            .m_axis_tvalid(res_tvalid[e]), .m_axis_tready(res_tready[e]), .m_axis_tlast(res_tlast[e]),
            .m_axis_tuser(res_tuser[e*TUSER_W +: TUSER_W]),
            .stat_result(stat_result[e]), .stat_resend(stat_resend[e]),
            .frame_done(res_frame_done[e]), .frame_done_q(res_frame_done_q[e*Q_W +: Q_W]),
            .skip_done(res_skip_done[e]), .skip_done_q(res_skip_done_q[e*Q_W +: Q_W])
        );
    end
endgenerate

// ---- aggregation: one judge in arrival order, a bank of exact lanes per engine, the combine
ws_engine #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .ENGINES(ENGINES), .MAX_JOBS(MAX_JOBS),
    .MAX_WORKERS(MAX_WORKERS), .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT),
    .ORDER_DEPTH(1 << $clog2(N_PORTS * FIFO_BYTES / BYTES)), .PARTIAL(PARTIAL)
) engine (
    .clk(clk), .rst(rst),
    .s_frame_ready(rx_frame_ready),
    .s_agg_tdata(agg_tdata), .s_agg_tkeep(agg_tkeep), .s_agg_tvalid(agg_tvalid),
    .s_agg_tready(agg_tready), .s_agg_tlast(agg_tlast),
    .s_tok_valid(tok_valid), .s_tok_agg(tok_agg), .s_tok_hdr(tok_hdr), .s_tok_ready(tok_ready),
    .job_clear(job_clear), .job_clear_base(job_clear_base), .job_clear_end(job_clear_end),
    .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_data(cmd_data),
    .frame_done(res_frame_done), .frame_done_q(res_frame_done_q),
    .skip_done(res_skip_done), .skip_done_q(res_skip_done_q),
    .res_rd_addr(res_rd_addr), .res_rd_data(res_rd_data),
    .par_rd_addr(par_rd_addr), .par_sent(par_sent), .par_rd_data(par_rd_data),
    .stat_accepted(stat_accepted), .stat_drop(stat_edrop), .stat_drop_reason(stat_edrop_reason)
);

// ---- egress: per port, the bypass frames of every parser (a chain of ENGINES-1 round-robin
// merges, none with one engine) and the results of the port's engine, round-robin. Streams are
// steered by their tuser destination (one-hot).
wire [ENGINES*N_PORTS-1:0] eg_byp_tready;   // engine e's bypass stream taken by port p
wire [N_PORTS-1:0]         eg_res_tready;
genvar eb;
generate
    for (eb = 0; eb < ENGINES; eb = eb + 1) begin : g_dst
        wire [N_PORTS-1:0] byp_dst = byp_tuser[eb*TUSER_W + TUSER_DST_LSB +: N_PORTS];
        wire [N_PORTS-1:0] res_dst = res_tuser[eb*TUSER_W + TUSER_DST_LSB +: N_PORTS];
        assign byp_tready[eb] = |(eg_byp_tready[eb*N_PORTS +: N_PORTS] & byp_dst);
        assign res_tready[eb] = |(eg_res_tready & res_dst);
    end

    for (p = 0; p < N_PORTS; p = p + 1) begin : g_egress
        localparam PE = p / PPE;   // the engine serving this port
        // chain stage k: the bypass frames of parsers 0..k for this port
        wire [ENGINES*DATA_WIDTH-1:0] ch_tdata;
        wire [ENGINES*BYTES-1:0]      ch_tkeep;
        wire [ENGINES-1:0]            ch_tvalid, ch_tready, ch_tlast;
        wire [ENGINES*TUSER_W-1:0]    ch_tuser;
        assign ch_tdata[0 +: DATA_WIDTH] = byp_tdata[0 +: DATA_WIDTH];
        assign ch_tkeep[0 +: BYTES] = byp_tkeep[0 +: BYTES];
        assign ch_tvalid[0] = byp_tvalid[0] && byp_tuser[TUSER_DST_LSB + p];
        assign ch_tlast[0] = byp_tlast[0];
        assign ch_tuser[0 +: TUSER_W] = byp_tuser[0 +: TUSER_W];
        assign eg_byp_tready[0*N_PORTS + p] = ch_tready[0];
        genvar k;
        for (k = 1; k < ENGINES; k = k + 1) begin : g_chain
            ws_egress_arbiter #(.DATA_WIDTH(DATA_WIDTH), .TUSER_WIDTH(TUSER_W)) merge (
                .clk(clk), .rst(rst),
                .s0_axis_tdata(ch_tdata[(k-1)*DATA_WIDTH +: DATA_WIDTH]),
                .s0_axis_tkeep(ch_tkeep[(k-1)*BYTES +: BYTES]),
                .s0_axis_tvalid(ch_tvalid[k-1]), .s0_axis_tready(ch_tready[k-1]),
                .s0_axis_tlast(ch_tlast[k-1]), .s0_axis_tuser(ch_tuser[(k-1)*TUSER_W +: TUSER_W]),
                .s1_axis_tdata(byp_tdata[k*DATA_WIDTH +: DATA_WIDTH]),
                .s1_axis_tkeep(byp_tkeep[k*BYTES +: BYTES]),
                .s1_axis_tvalid(byp_tvalid[k] && byp_tuser[k*TUSER_W + TUSER_DST_LSB + p]),
                .s1_axis_tready(eg_byp_tready[k*N_PORTS + p]),
                .s1_axis_tlast(byp_tlast[k]), .s1_axis_tuser(byp_tuser[k*TUSER_W +: TUSER_W]),
                .m_axis_tdata(ch_tdata[k*DATA_WIDTH +: DATA_WIDTH]),
                .m_axis_tkeep(ch_tkeep[k*BYTES +: BYTES]),
                .m_axis_tvalid(ch_tvalid[k]), .m_axis_tready(ch_tready[k]),
                .m_axis_tlast(ch_tlast[k]), .m_axis_tuser(ch_tuser[k*TUSER_W +: TUSER_W]),
                /* verilator lint_off PINCONNECTEMPTY */  // counted at the port's last stage
                .stat_tx(), .stat_tx_len()
                /* verilator lint_on PINCONNECTEMPTY */
            );
        end
        ws_egress_arbiter #(.DATA_WIDTH(DATA_WIDTH), .TUSER_WIDTH(TUSER_W)) egress (
            .clk(clk), .rst(rst),
            .s0_axis_tdata(ch_tdata[(ENGINES-1)*DATA_WIDTH +: DATA_WIDTH]),
            .s0_axis_tkeep(ch_tkeep[(ENGINES-1)*BYTES +: BYTES]),
            .s0_axis_tvalid(ch_tvalid[ENGINES-1]), .s0_axis_tready(ch_tready[ENGINES-1]),
            .s0_axis_tlast(ch_tlast[ENGINES-1]), .s0_axis_tuser(ch_tuser[(ENGINES-1)*TUSER_W +: TUSER_W]),
            .s1_axis_tdata(res_tdata[PE*DATA_WIDTH +: DATA_WIDTH]), .s1_axis_tkeep(res_tkeep[PE*BYTES +: BYTES]),
            .s1_axis_tvalid(res_tvalid[PE] && res_tuser[PE*TUSER_W + TUSER_DST_LSB + p]),
            .s1_axis_tready(eg_res_tready[p]),
            .s1_axis_tlast(res_tlast[PE]), .s1_axis_tuser(res_tuser[PE*TUSER_W +: TUSER_W]),
            .m_axis_tdata(m_axis_tdata[p*DATA_WIDTH +: DATA_WIDTH]),
            .m_axis_tkeep(m_axis_tkeep[p*BYTES +: BYTES]),
            .m_axis_tvalid(m_axis_tvalid[p]), .m_axis_tready(m_axis_tready[p]),
            .m_axis_tlast(m_axis_tlast[p]), .m_axis_tuser(m_axis_tuser[p*TUSER_W +: TUSER_W]),
            .stat_tx(stat_tx[p]), .stat_tx_len(stat_tx_len[p*16 +: 16])
        );
    end
endgenerate

endmodule

`resetall
