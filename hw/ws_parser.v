// ws_parser - classify each frame (bypass or aggregation) and validate aggregation frames before they touch state.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// Frames wait in a beat FIFO while a fixed-latency pipeline judges their first 64 bytes
// (docs/protocol.md sections 3 and 4, checks 1..12; the stateful checks are the engine's).
// PARTIAL = 1: a RESULT is a parent's answer when an enabled job has a parent with its source
// IPv4 address, UDP port and job id (driver/wire.c validate_parent_result), and goes on as that
// job's aggregation frame (H_FANOUT), else it is result_to_device.
// The verdict FIFO and the beat FIFO are popped together, so the output runs at one beat
// per cycle: bypass frames to m_byp (tuser destination = bypass map of the source port),
// valid aggregation frames to m_agg with the decoded header held for the whole frame, and
// dropped frames nowhere, with a drop pulse and its reason.
module ws_parser #(
    parameter DATA_WIDTH  = 256,  // datapath width, bits: 256, 512 or 1024
    parameter N_PORTS     = 4,    // device ports
    parameter MAX_JOBS    = 8,    // job table entries
    parameter MAX_WORKERS = 64,   // workers per job
    parameter POOL_SLOTS  = 64,   // slots in the device pool
    parameter MAX_COUNT   = 256,  // largest count the device supports
    parameter FIFO_DEPTH  = 32,   // beats buffered while a verdict is computed (power of two)
    parameter PARTIAL     = 0     // 1: the device takes PARTIAL frames (docs/protocol.md section 9)
) (
    input  wire                            clk,
    input  wire                            rst,

    // frames from the input arbiter; tuser and tmeta valid on every beat
    input  wire [DATA_WIDTH-1:0]           s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]         s_axis_tkeep,
    input  wire                            s_axis_tvalid,
    output wire                            s_axis_tready,
    input  wire                            s_axis_tlast,
    /* verilator lint_off UNUSEDSIGNAL */  // the incoming destination field is not used
    input  wire [TUSER_W-1:0]              s_axis_tuser,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [18:0]                     s_axis_tmeta,

    // configuration (ws_regs)
    input  wire [31:0]                     cfg_dev_ip,
    input  wire [15:0]                     cfg_dev_udp,
    input  wire [N_PORTS*PORT_W-1:0]       cfg_bypass,
    input  wire [MAX_JOBS-1:0]             cfg_job_en,
    input  wire [MAX_JOBS*16-1:0]          cfg_job_id,
    input  wire [MAX_JOBS*WC_W-1:0]        cfg_job_workers,
    input  wire [MAX_JOBS*SL_W-1:0]        cfg_job_slots,
    input  wire [MAX_JOBS*SL_W-1:0]        cfg_job_base,
    input  wire [MAX_JOBS*CN_W-1:0]        cfg_job_maxcount,
    // the jobs' parents (ws_regs; PARTIAL = 1 only, else unused)
    input  wire [MAX_JOBS-1:0]             cfg_job_par_en,
    input  wire [MAX_JOBS*48-1:0]          cfg_job_par_mac,
    input  wire [MAX_JOBS*32-1:0]          cfg_job_par_ip,
    input  wire [MAX_JOBS*16-1:0]          cfg_job_par_udp,
    input  wire [MAX_JOBS*16-1:0]          cfg_job_par_job,
    input  wire [MAX_JOBS*16-1:0]          cfg_job_par_rank,
    output wire [MA_W-1:0]                 mem_rd_addr,
    /* verilator lint_off UNUSEDSIGNAL */  // the member's device port is the result generator's business
    input  wire [MEM_W-1:0]                mem_rd_data,
    /* verilator lint_on UNUSEDSIGNAL */

    // bypass frames
    output wire [DATA_WIDTH-1:0]           m_byp_tdata,
    output wire [DATA_WIDTH/8-1:0]         m_byp_tkeep,
    output wire                            m_byp_tvalid,
    input  wire                            m_byp_tready,
    output wire                            m_byp_tlast,
    output wire [TUSER_W-1:0]              m_byp_tuser,

    // aggregation frames that passed checks 1..12, with their header
    output wire [DATA_WIDTH-1:0]           m_agg_tdata,
    output wire [DATA_WIDTH/8-1:0]         m_agg_tkeep,
    output wire                            m_agg_tvalid,
    input  wire                            m_agg_tready,
    output wire                            m_agg_tlast,
    output wire [HDR_W-1:0]                m_agg_hdr,

    // one token per frame as its verdict is known (bypass, aggregation or drop; in frame order, ahead
    // of the frame's beats), for a judge that orders frames across several parsers (ENGINES > 1);
    // beats come in only with tok_ready (which must leave room for 3 more tokens in flight)
    output wire                            tok_valid,
    output wire                            tok_agg,      // the frame goes to m_agg
    output wire [HDR_W-1:0]                tok_hdr,      // its header (m_agg_hdr), when tok_agg
    input  wire                            tok_ready,

    // one pulse per frame leaving the parser
    output reg                             stat_bypass,
    output reg                             stat_drop,
    output reg  [ws_regmap::WS_REASON_W-1:0] stat_drop_reason
);

import ws_regmap::*;  // WS_DROP_* (the reasons of driver/wiresum/reasons.h), WS_OK, WS_REASON_W

`include "ws_widths.vh"   // BYTES, JI_W, WK_W, WC_W, SL_W, PS_W, CN_W, MA_W, HDR_BEATS, ...
`include "ws_tuser.vh"    // TUSER_* positions of tuser, tuser_pack()
`include "ws_member.vh"   // PORT_W, MEM_* positions of a member record
`include "ws_agg_hdr.vh"  // H_* positions of the header sideband, HDR_W

localparam HB_W = HDR_BEATS > 1 ? $clog2(HDR_BEATS) : 1;

// verdicts
localparam [1:0] V_BYPASS = 2'd0, V_AGG = 2'd1, V_DROP = 2'd2;

// parameters: the limits of driver/wiresum/config.h (WS_LIMIT_*)
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_parser %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)", DATA_WIDTH);
            $finish;
        end
    end
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_parser %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (MAX_JOBS < 1 || MAX_JOBS > WS_LIMIT_JOBS) begin : g_bad_jobs
        initial begin
            $error("Error: ws_parser %m: MAX_JOBS must be 1..WS_LIMIT_JOBS (MAX_JOBS = %0d, WS_LIMIT_JOBS = %0d)",
                   MAX_JOBS, WS_LIMIT_JOBS);
            $finish;
        end
    end
    if (MAX_WORKERS < 1 || MAX_WORKERS > WS_LIMIT_WORKERS || (MAX_WORKERS & (MAX_WORKERS - 1)) != 0) begin : g_bad_workers
        initial begin
            $error("Error: ws_parser %m: MAX_WORKERS must be a power of two 1..WS_LIMIT_WORKERS: a member's index is {job, rank} (MAX_WORKERS = %0d, WS_LIMIT_WORKERS = %0d)",
                   MAX_WORKERS, WS_LIMIT_WORKERS);
            $finish;
        end
    end
    if (POOL_SLOTS < 1 || POOL_SLOTS > WS_LIMIT_SLOTS) begin : g_bad_pool
        initial begin
            $error("Error: ws_parser %m: POOL_SLOTS must be 1..WS_LIMIT_SLOTS (POOL_SLOTS = %0d, WS_LIMIT_SLOTS = %0d)",
                   POOL_SLOTS, WS_LIMIT_SLOTS);
            $finish;
        end
    end
    if (PARTIAL < 0 || PARTIAL > 1) begin : g_bad_partial
        initial begin
            $error("Error: ws_parser %m: PARTIAL must be 0 or 1 (PARTIAL = %0d)", PARTIAL);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_parser %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
endgenerate

// ---------------------------------------------------------------------------------------
// Input: beats into the beat FIFO; the first HDR_BEATS beats also into the header register.

localparam TU_IN  = TUSER_DST_LSB;  // tuser below the destination (length, source): that is decided here
localparam BEAT_W = DATA_WIDTH + BYTES + 1 + TU_IN;

wire             bf_s_ready;
wire             bf_m_valid;
wire             bf_m_ready;
wire [BEAT_W-1:0] bf_m_data;

assign s_axis_tready = bf_s_ready && tok_ready;
wire in_fire = s_axis_tvalid && bf_s_ready && tok_ready;

ws_fifo #(.WIDTH(BEAT_W), .DEPTH(FIFO_DEPTH)) beat_fifo (
    .clk(clk), .rst(rst),
    .s_data({s_axis_tuser[TU_IN-1:0], s_axis_tlast, s_axis_tkeep, s_axis_tdata}),
    .s_valid(s_axis_tvalid && tok_ready), .s_ready(bf_s_ready),
    .m_data(bf_m_data), .m_valid(bf_m_valid), .m_ready(bf_m_ready),
    /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
    .count()
    /* verilator lint_on PINCONNECTEMPTY */
);

reg  [HB_W-1:0]            in_beat;     // beat index within the frame, saturating at HDR_BEATS-1
reg                        in_active;   // a frame is partly in
reg                        hdr_sent;    // its header has gone to the verdict pipeline
reg  [HDR_BEATS*DATA_WIDTH-1:0] hdr_acc;
reg  [TU_IN-1:0]           in_user;     // length and source port of the frame
reg  [18:0]                in_meta;

wire [HDR_BEATS*DATA_WIDTH-1:0] hdr_now;
wire in_first   = !in_active;
wire at_hdr_end = in_beat == HDR_BEATS[HB_W-1:0] - 1'b1;
// the header is complete with the frame's last header beat, or with its last beat if shorter
wire hdr_done   = in_fire && !hdr_sent && (at_hdr_end || s_axis_tlast);

genvar gb;
generate
    for (gb = 0; gb < HDR_BEATS; gb = gb + 1) begin : g_hdr
        assign hdr_now[gb*DATA_WIDTH +: DATA_WIDTH] =
            (in_beat == gb[HB_W-1:0]) ? s_axis_tdata : hdr_acc[gb*DATA_WIDTH +: DATA_WIDTH];
    end
endgenerate

always @(posedge clk) begin
    if (in_fire && !hdr_sent)
        hdr_acc <= hdr_now;
    if (in_fire && in_first) begin
        in_user <= s_axis_tuser[TU_IN-1:0];
        in_meta <= s_axis_tmeta;
    end
end

always @(posedge clk) begin
    if (rst) begin
        in_active <= 1'b0;
        hdr_sent <= 1'b0;
        in_beat <= {HB_W{1'b0}};
    end else if (in_fire) begin
        if (s_axis_tlast) begin
            in_active <= 1'b0;
            hdr_sent <= 1'b0;
            in_beat <= {HB_W{1'b0}};
        end else begin
            in_active <= 1'b1;
            if (hdr_done)
                hdr_sent <= 1'b1;
            if (!at_hdr_end)
                in_beat <= in_beat + 1'b1;
        end
    end
end

// ---------------------------------------------------------------------------------------
// Verdict pipeline, stage 0: the header bytes, length, source port and metadata; the length's
// compares and the IPv4 and UDP lengths it implies come with it, so that the checks of stage 1
// are not behind their carry chains.

reg          v0_valid;
reg  [511:0] v0_h;        // frame bytes 0..63, byte k at [k*8 +: 8]
reg  [15:0]  v0_len;
reg  [15:0]  v0_ip_len, v0_udp_len;  // v0_len - 14, v0_len - 34
reg          v0_ge34, v0_ge42, v0_ge64;
reg  [N_PORTS-1:0] v0_src;
reg  [18:0]  v0_meta;
reg  [MAX_JOBS-1:0] v0_hits;   // the enabled jobs whose id is the frame's (bytes 46..47)
reg  [MAX_JOBS-1:0] v0_phits;  // PARTIAL = 1: the enabled jobs whose parent sent a RESULT like it

// the job id compared as the header is registered, so that only an OR of the hits is behind v0
reg  [MAX_JOBS-1:0] hits_now;
integer jn;
always @(*)
    for (jn = 0; jn < MAX_JOBS; jn = jn + 1)
        hits_now[jn] = cfg_job_en[jn] && cfg_job_id[jn*16 +: 16] == {hdr_now[46*8 +: 8], hdr_now[47*8 +: 8]};

// and the parents (PARTIAL = 1): the enabled jobs with a parent whose job id, IPv4 address and UDP
// port are the frame's job (bytes 46..47), source address (26..29) and source port (34..35)
reg  [MAX_JOBS-1:0] phits_now;
integer jp;
always @(*)
    for (jp = 0; jp < MAX_JOBS; jp = jp + 1)
        phits_now[jp] = PARTIAL != 0 && cfg_job_en[jp] && cfg_job_par_en[jp] &&
                        cfg_job_par_job[jp*16 +: 16] == {hdr_now[46*8 +: 8], hdr_now[47*8 +: 8]} &&
                        cfg_job_par_ip[jp*32 +: 32] == {hdr_now[26*8 +: 8], hdr_now[27*8 +: 8],
                                                        hdr_now[28*8 +: 8], hdr_now[29*8 +: 8]} &&
                        cfg_job_par_udp[jp*16 +: 16] == {hdr_now[34*8 +: 8], hdr_now[35*8 +: 8]};

wire [15:0] in_len = in_first ? s_axis_tuser[TUSER_LEN_LSB +: TUSER_LEN_W] :
                                 in_user[TUSER_LEN_LSB +: TUSER_LEN_W];

always @(posedge clk) begin
    v0_valid <= !rst && hdr_done;
    if (hdr_done) begin
        v0_h       <= hdr_now[511:0];
        v0_len     <= in_len;
        v0_ip_len  <= in_len - 16'd14;
        v0_udp_len <= in_len - 16'd34;
        v0_ge34    <= in_len >= 16'd34;
        v0_ge42    <= in_len >= 16'd42;
        v0_ge64    <= in_len >= 16'd64;
        v0_src     <= in_first ? s_axis_tuser[TUSER_SRC_LSB +: N_PORTS] : in_user[TUSER_SRC_LSB +: N_PORTS];
        v0_meta    <= in_first ? s_axis_tmeta : in_meta;
        v0_hits    <= hits_now;
        v0_phits   <= phits_now;
    end
end

// big-endian fields of the frame
function [7:0] b8;
    input [511:0] h;
    input integer k;
    b8 = h[k*8 +: 8];
endfunction

wire [15:0] f_ethertype = {b8(v0_h, 12), b8(v0_h, 13)};
wire [7:0]  f_vihl      = b8(v0_h, 14);
wire [1:0]  f_ecn       = v0_h[15*8 +: 2];
wire [15:0] f_totlen    = {b8(v0_h, 16), b8(v0_h, 17)};
wire [13:0] f_frag      = {v0_h[20*8 +: 6], b8(v0_h, 21)};  // MF and fragment offset
wire [7:0]  f_proto     = b8(v0_h, 23);
wire [31:0] f_src_ip    = {b8(v0_h, 26), b8(v0_h, 27), b8(v0_h, 28), b8(v0_h, 29)};
wire [31:0] f_dst_ip    = {b8(v0_h, 30), b8(v0_h, 31), b8(v0_h, 32), b8(v0_h, 33)};
wire [47:0] f_src_mac   = {b8(v0_h, 6), b8(v0_h, 7), b8(v0_h, 8), b8(v0_h, 9), b8(v0_h, 10), b8(v0_h, 11)};
wire [15:0] f_src_port  = {b8(v0_h, 34), b8(v0_h, 35)};
wire [15:0] f_udplen    = {b8(v0_h, 38), b8(v0_h, 39)};
wire [15:0] f_udpcsum   = {b8(v0_h, 40), b8(v0_h, 41)};
wire [7:0]  f_vertype   = b8(v0_h, 42);
wire [7:0]  f_dtype     = b8(v0_h, 43);
wire        f_set       = v0_h[44*8];
wire [5:0]  f_flags_rsv = v0_h[44*8+2 +: 6];
wire [7:0]  f_rsvd3     = b8(v0_h, 45);
wire [15:0] f_job       = {b8(v0_h, 46), b8(v0_h, 47)};
wire [15:0] f_worker    = {b8(v0_h, 48), b8(v0_h, 49)};
wire [15:0] f_slot      = {b8(v0_h, 50), b8(v0_h, 51)};
wire [15:0] f_count     = {b8(v0_h, 52), b8(v0_h, 53)};
wire [31:0] f_offset    = {b8(v0_h, 54), b8(v0_h, 55), b8(v0_h, 56), b8(v0_h, 57)};
wire [31:0] f_tensor    = {b8(v0_h, 58), b8(v0_h, 59), b8(v0_h, 60), b8(v0_h, 61)};
wire [15:0] f_rsvd20    = {b8(v0_h, 62), b8(v0_h, 63)};

wire        m_ip_ok       = v0_meta[0];
wire        m_udp_ok      = v0_meta[1];
wire        m_vport_valid = v0_meta[2];
wire [15:0] m_vport       = v0_meta[18:3];

// classification (docs/protocol.md section 3): addressed to the device and not other IPv4
// traffic, each half registered, ANDed after (v1_agg)
wire to_dev    = v0_ge34 && f_ethertype == 16'h0800 && f_dst_ip == cfg_dev_ip;
wire not_other = f_vihl[7:4] != 4'd4 ||
                 (f_proto == 8'd17 && (f_vihl[3:0] < 4'd5 || f_frag[12:0] != 13'd0 ||
                                       !m_vport_valid || m_vport == cfg_dev_udp));

// checks that need no table (1..6 and 12), each registered as a bit: their priority is taken
// after the register (pre_reason), not behind the compares
wire c_ipv4   = f_vihl != 8'h45 || !m_ip_ok || f_frag != 14'd0 || f_totlen != v0_ip_len;
wire c_udp    = !v0_ge42 || f_udplen != v0_udp_len || (f_udpcsum != 16'd0 && !m_udp_ok);
wire c_short  = !v0_ge64;
wire c_ver    = f_vertype[7:4] != 4'(WS_PROTO_VERSION);
wire c_result = f_vertype[3:0] == 4'(WS_PROTO_RESULT);
// PARTIAL = 1: a PARTIAL is a type of its own, with ext in bytes 62..63; a RESULT that passes
// the header checks is looked up among the jobs' parents (docs/protocol.md section 4)
wire c_ptype  = PARTIAL != 0 && f_vertype[3:0] == 4'(WS_PROTO_PARTIAL);
wire c_rsvd   = (f_vertype[3:0] != 4'(WS_PROTO_DATA) && !(PARTIAL != 0 && c_result) && !c_ptype) ||
                f_dtype != 8'd0 || f_flags_rsv != 6'd0 || f_rsvd3 != 8'd0 ||
                (!c_ptype && f_rsvd20 != 16'd0);
wire c_len    = c_ptype ? {5'd0, v0_len} != 21'd64 + {{1'b0, f_count} + {1'b0, f_rsvd20}, 3'b000}
                        : {2'b00, v0_len} != 18'd64 + {f_count, 2'b00};

// job lookup by id among the enabled jobs (v0_hits). ws_regs enables a job only if no other
// enabled job has its id (else WS_COMMIT_DUP_JOB_ID), so at most one job hits, and its index is
// the OR of the indexes of the hits (no priority chain)
wire               job_hit = |v0_hits;
reg [JI_W-1:0]     job_idx;
integer j;
always @(*) begin
    job_idx = {JI_W{1'b0}};
    for (j = 0; j < MAX_JOBS; j = j + 1)
        job_idx = job_idx | (v0_hits[j] ? j[JI_W-1:0] : {JI_W{1'b0}});
end

assign mem_rd_addr = {job_idx, f_worker[WK_W-1:0]};  // job*MAX_WORKERS + rank

// PARTIAL = 1, a RESULT: its job is the first (lowest index) whose parent it matches, as
// validate_parent_result takes the first in the configuration's order (nothing keeps two jobs
// from one parent's job); the member read above is not used for it
wire               res_now = PARTIAL != 0 && c_result;
reg [JI_W-1:0]     pjob_idx;
integer jq;
always @(*) begin
    pjob_idx = {JI_W{1'b0}};
    for (jq = MAX_JOBS - 1; jq >= 0; jq = jq - 1)
        if (v0_phits[jq])
            pjob_idx = jq[JI_W-1:0];
end

// source port index (one-hot to binary)
reg [PORT_W-1:0] src_idx;
integer p;
always @(*) begin
    src_idx = {PORT_W{1'b0}};
    for (p = 0; p < N_PORTS; p = p + 1)
        if (v0_src[p])
            src_idx = p[PORT_W-1:0];
end

// stage 1: the header checks as bits, the job's index; the member table read comes back
reg              v1_valid;
reg              v1_to_dev, v1_not_other;
reg              v1_ipv4, v1_udp, v1_short, v1_ver, v1_result, v1_rsvd, v1_len_bad;
reg              v1_hit;
reg              v1_res;      // PARTIAL = 1: a RESULT (a parent's, if v1_hit)
reg  [JI_W-1:0]  v1_job_idx;
reg  [15:0]      v1_job, v1_worker, v1_slot, v1_count;
reg  [31:0]      v1_offset, v1_tensor, v1_src_ip;
reg  [47:0]      v1_src_mac;
reg  [15:0]      v1_src_port;
reg              v1_set;
reg  [1:0]       v1_ecn;
reg  [PORT_W-1:0] v1_src_idx;

always @(posedge clk) begin
    v1_valid <= !rst && v0_valid;
    v1_to_dev <= to_dev;
    v1_not_other <= not_other;
    v1_ipv4 <= c_ipv4;
    v1_udp <= c_udp;
    v1_short <= c_short;
    v1_ver <= c_ver;
    v1_result <= c_result;
    v1_rsvd <= c_rsvd;
    v1_len_bad <= c_len;
    v1_hit <= res_now ? |v0_phits : job_hit;
    v1_res <= res_now;
    v1_job_idx <= res_now ? pjob_idx : job_idx;
    v1_job <= f_job;
    v1_worker <= f_worker;
    v1_slot <= f_slot;
    v1_count <= f_count;
    v1_offset <= f_offset;
    v1_tensor <= f_tensor;
    v1_src_ip <= f_src_ip;
    v1_src_mac <= f_src_mac;
    v1_src_port <= f_src_port;
    v1_set <= f_set;
    v1_ecn <= f_ecn;
    v1_src_idx <= src_idx;
end

wire [47:0] mem_mac  = mem_rd_data[MEM_MAC_LSB +: MEM_MAC_W];
wire [31:0] mem_ip   = mem_rd_data[MEM_IP_LSB +: MEM_IP_W];
wire [15:0] mem_udp  = mem_rd_data[MEM_UDP_LSB +: MEM_UDP_W];

// The job's entries, selected by the registered job index: one loop of compares with constant
// part-selects, so that no product of the index and an entry's width (48, or widths that are
// not powers of two) becomes an adder and a shifter before the select. With the job's own id,
// and its parent's MAC and our rank there, for a parent's RESULT.
reg  [WC_W-1:0] j_workers;
reg  [SL_W-1:0] j_slots;
/* verilator lint_off UNUSEDSIGNAL */  // only the pool-slot bits of the base are needed
reg  [SL_W-1:0] j_base;
/* verilator lint_on UNUSEDSIGNAL */
reg  [CN_W-1:0] j_maxcount;
reg  [15:0]     j_id;
reg             j_par;
reg  [47:0]     j_par_mac;
reg  [15:0]     j_par_rank;
integer jsel;
always @(*) begin
    j_workers = {WC_W{1'b0}};  j_slots = {SL_W{1'b0}};  j_base = {SL_W{1'b0}};
    j_maxcount = {CN_W{1'b0}}; j_id = 16'd0;  j_par = 1'b0;  j_par_mac = 48'd0;  j_par_rank = 16'd0;
    for (jsel = 0; jsel < MAX_JOBS; jsel = jsel + 1)
        if ({{(32-JI_W){1'b0}}, v1_job_idx} == jsel) begin
            j_workers  = cfg_job_workers[jsel*WC_W +: WC_W];
            j_slots    = cfg_job_slots[jsel*SL_W +: SL_W];
            j_base     = cfg_job_base[jsel*SL_W +: SL_W];
            j_maxcount = cfg_job_maxcount[jsel*CN_W +: CN_W];
            j_id       = cfg_job_id[jsel*16 +: 16];
            j_par      = PARTIAL != 0 && cfg_job_par_en[jsel];
            j_par_mac  = cfg_job_par_mac[jsel*48 +: 48];
            j_par_rank = cfg_job_par_rank[jsel*16 +: 16];
        end
end

wire v1_agg = v1_to_dev && v1_not_other;

// the first failing check of 1..6, in the order of the reasons
reg [WS_REASON_W-1:0] pre_reason;
always @(*) begin
    if (v1_ipv4)
        pre_reason = WS_DROP_BAD_IPV4;
    else if (v1_udp)
        pre_reason = WS_DROP_BAD_UDP;
    else if (v1_short)
        pre_reason = WS_DROP_BAD_LENGTH;
    else if (v1_ver)
        pre_reason = WS_DROP_BAD_HEADER;
    else if (v1_result && PARTIAL == 0)
        pre_reason = WS_DROP_RESULT_TO_DEVICE;
    else if (v1_rsvd)
        pre_reason = WS_DROP_BAD_HEADER;
    else
        pre_reason = WS_OK;
end

// stage 2: the checks against the job's entries (selected by the registered job index) and the
// member, each a bit, and the first failing header check; the verdict is their priority
reg              v2_valid;
reg              v2_agg;
reg  [WS_REASON_W-1:0] v2_pre;
reg              v2_hit, v2_rank_bad, v2_spoofed, v2_slot_bad, v2_count_bad, v2_len_bad;
reg              v2_res, v2_parent;   // a parent's RESULT (H_FANOUT); the job has a parent (H_PARENT)
reg  [JI_W-1:0]  v2_job_idx;
reg  [15:0]      v2_job, v2_slot;
reg  [WK_W-1:0]  v2_worker;
reg  [CN_W-1:0]  v2_count;
reg  [31:0]      v2_offset, v2_tensor;
reg              v2_set;
reg  [1:0]       v2_ecn;
reg  [PS_W-1:0]  v2_pslot;
reg  [WC_W-1:0]  v2_workers;
reg  [PORT_W-1:0] v2_byp_dst;

always @(posedge clk) begin
    v2_valid <= !rst && v1_valid;
    v2_agg <= v1_agg;
    v2_pre <= pre_reason;
    v2_hit <= v1_hit;
    // a parent's RESULT: our rank at the parent, the parent's MAC (its IPv4 address and UDP port
    // found the job); else the rank among the job's workers and the member's addresses
    v2_rank_bad <= v1_res ? v1_worker != j_par_rank
                          : {1'b0, v1_worker} >= {{(17-WC_W){1'b0}}, j_workers};
    v2_spoofed <= v1_res ? v1_src_mac != j_par_mac
                         : v1_src_mac != mem_mac || v1_src_ip != mem_ip || v1_src_port != mem_udp;
    v2_res <= v1_res;
    v2_parent <= j_par;
    v2_slot_bad <= {1'b0, v1_slot} >= {{(17-SL_W){1'b0}}, j_slots};
    v2_count_bad <= v1_count == 16'd0 || {1'b0, v1_count} > {{(17-CN_W){1'b0}}, j_maxcount};
    v2_len_bad <= v1_len_bad;
    v2_job_idx <= v1_job_idx;
    v2_job <= v1_res ? j_id : v1_job;                             // the token names our job
    v2_worker <= v1_res ? {WK_W{1'b0}} : v1_worker[WK_W-1:0];
    v2_slot <= v1_slot;
    v2_count <= v1_count[CN_W-1:0];
    v2_offset <= v1_offset;
    v2_tensor <= v1_tensor;
    v2_set <= v1_set;
    v2_ecn <= v1_ecn;
    // base + slot < POOL_SLOTS once the slot check passed (the job's range lies in the pool)
    v2_pslot <= j_base[PS_W-1:0] + v1_slot[PS_W-1:0];
    v2_workers <= j_workers;
    v2_byp_dst <= cfg_bypass[v1_src_idx*PORT_W +: PORT_W];
end

reg [WS_REASON_W-1:0] reason;
always @(*) begin
    if (v2_pre != WS_OK)
        reason = v2_pre;
    else if (!v2_hit)
        reason = v2_res ? WS_DROP_RESULT_TO_DEVICE : WS_DROP_UNKNOWN_JOB;
    else if (v2_rank_bad)
        reason = WS_DROP_BAD_RANK;
    else if (v2_spoofed)
        reason = WS_DROP_SPOOFED;
    else if (v2_slot_bad)
        reason = WS_DROP_BAD_SLOT;
    else if (v2_count_bad)
        reason = WS_DROP_BAD_COUNT;
    else if (v2_len_bad)
        reason = WS_DROP_BAD_LENGTH;
    else
        reason = WS_OK;
end

wire [1:0] verdict = !v2_agg ? V_BYPASS : (reason != WS_OK ? V_DROP : V_AGG);

wire [HDR_W-1:0] v2_hdr;
assign v2_hdr[H_JOBIDX +: JI_W]  = v2_job_idx;
assign v2_hdr[H_JOBID +: 16]     = v2_job;
assign v2_hdr[H_PSLOT +: PS_W]   = v2_pslot;
assign v2_hdr[H_SLOT +: 16]      = v2_slot;
assign v2_hdr[H_SET]             = v2_set;
assign v2_hdr[H_WORKER +: WK_W]  = v2_worker;
assign v2_hdr[H_COUNT +: CN_W]   = v2_count;
assign v2_hdr[H_OFFSET +: 32]    = v2_offset;
assign v2_hdr[H_TENSOR +: 32]    = v2_tensor;
assign v2_hdr[H_ECN +: 2]        = v2_ecn;
assign v2_hdr[H_WORKERS +: WC_W] = v2_workers;
assign v2_hdr[H_FANOUT]          = v2_res;
assign v2_hdr[H_PARENT]          = v2_parent;

assign tok_valid = v2_valid;
assign tok_agg   = verdict == V_AGG;
assign tok_hdr   = v2_hdr;

// verdict FIFO: {bypass destination, reason, verdict, header}
localparam VD_W = PORT_W + WS_REASON_W + 2 + HDR_W;
wire              vf_m_valid;
wire              vf_m_ready;
wire [VD_W-1:0]   vf_m_data;
/* verilator lint_off UNUSEDSIGNAL */  // never full: it holds at most one verdict per frame in the beat FIFO
wire              vf_s_ready;
/* verilator lint_on UNUSEDSIGNAL */

ws_fifo #(.WIDTH(VD_W), .DEPTH(FIFO_DEPTH)) verdict_fifo (
    .clk(clk), .rst(rst),
    .s_data({v2_byp_dst, reason, verdict, v2_hdr}), .s_valid(v2_valid), .s_ready(vf_s_ready),
    .m_data(vf_m_data), .m_valid(vf_m_valid), .m_ready(vf_m_ready),
    /* verilator lint_off PINCONNECTEMPTY */  // occupancy not needed
    .count()
    /* verilator lint_on PINCONNECTEMPTY */
);

// ---------------------------------------------------------------------------------------
// Output: the frame at the head of the beat FIFO goes where its verdict says.

wire [DATA_WIDTH-1:0] o_data = bf_m_data[DATA_WIDTH-1:0];
wire [BYTES-1:0]      o_keep = bf_m_data[DATA_WIDTH +: BYTES];
wire                  o_last = bf_m_data[DATA_WIDTH + BYTES];
wire [TU_IN-1:0]      o_user = bf_m_data[DATA_WIDTH + BYTES + 1 +: TU_IN];

wire [HDR_W-1:0]  o_hdr     = vf_m_data[HDR_W-1:0];
wire [1:0]        o_verdict = vf_m_data[HDR_W +: 2];
wire [WS_REASON_W-1:0] o_reason = vf_m_data[HDR_W + 2 +: WS_REASON_W];
wire [PORT_W-1:0] o_dst    = vf_m_data[HDR_W + 2 + WS_REASON_W +: PORT_W];

// A beat moves when its frame's verdict is known and its destination can take it.
wire byp_s_ready, agg_s_ready;
wire go       = bf_m_valid && vf_m_valid;
wire o_ready  = o_verdict == V_BYPASS ? byp_s_ready : (o_verdict == V_AGG ? agg_s_ready : 1'b1);
wire o_fire   = go && o_ready;
assign bf_m_ready = go && o_ready;
assign vf_m_ready = o_fire && o_last;   // the verdict leaves with its frame's last beat

reg o_first;  // the next beat out is a frame's first
always @(posedge clk) begin
    if (rst)
        o_first <= 1'b1;
    else if (o_fire)
        o_first <= o_last;
end

always @(posedge clk) begin
    stat_bypass <= !rst && o_fire && o_first && o_verdict == V_BYPASS;
    stat_drop <= !rst && o_fire && o_first && o_verdict == V_DROP;
    stat_drop_reason <= o_reason;
end

wire [N_PORTS-1:0] dst_onehot = {{(N_PORTS-1){1'b0}}, 1'b1} << o_dst;

ws_skid #(.WIDTH(DATA_WIDTH + BYTES + 1 + TUSER_W)) byp_skid (
    .clk(clk), .rst(rst),
    .s_data({tuser_pack(o_user[TUSER_LEN_LSB +: TUSER_LEN_W], o_user[TUSER_SRC_LSB +: N_PORTS], dst_onehot),
             o_last, o_keep, o_data}),
    .s_valid(go && o_verdict == V_BYPASS), .s_ready(byp_s_ready),
    .m_data({m_byp_tuser, m_byp_tlast, m_byp_tkeep, m_byp_tdata}),
    .m_valid(m_byp_tvalid), .m_ready(m_byp_tready)
);

ws_skid #(.WIDTH(DATA_WIDTH + BYTES + 1 + HDR_W)) agg_skid (
    .clk(clk), .rst(rst),
    .s_data({o_hdr, o_last, o_keep, o_data}),
    .s_valid(go && o_verdict == V_AGG), .s_ready(agg_s_ready),
    .m_data({m_agg_hdr, m_agg_tlast, m_agg_tkeep, m_agg_tdata}),
    .m_valid(m_agg_tvalid), .m_ready(m_agg_tready)
);

endmodule

`resetall
