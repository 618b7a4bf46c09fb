// ws_result_gen - turns round commands into RESULT frames: header from the command, the device configuration and the member table; elements from the result RAM.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// One command sends one round to the ranks rank_lo..rank_hi (inclusive, in order), one RESULT
// frame per rank (docs/protocol.md section 7, byte-identical to driver/wire.c ws_build).
//
// Pipeline (one frame enters the prep pipeline per cycle, one beat leaves per cycle):
//   cmd skid --> C0 rank iterator --> P1 (member table address, command partial sums)
//            --> P2 (member data; add member words) --> P3 (fold, complement, assemble header)
//            --> descriptor FIFO (5 frames) --> S0 beat issue (result RAM address)
//            --> A --> B (RAM data; header lanes / byte-swapped element lanes, tkeep mask)
//            --> output ring (3 beats) --> output skid (m_axis registers).
// The descriptor FIFO and the output ring are credit-controlled (a frame/beat is issued only
// when its place downstream is reserved) because neither RAM can be stalled. Latency:
// cmd_valid && cmd_ready in cycle t gives the first beat on m_axis in cycle t+8 when the
// pipeline is empty. cfg_dev_* are sampled per frame (at P1); the result rows of a set must
// not change while it is being sent.
// stat_result/stat_resend pulse the cycle after the last beat of a frame is accepted.
//
// MAC addresses are 48-bit numbers whose bits [47:40] are the first byte on the wire; IPv4
// addresses and ports are numbers in host order (10.0.0.1 = 32'h0a000001).
// A command with rank_lo > rank_hi is accepted and sends nothing. Its count must be
// 1..MAX_COUNT. A member port >= N_PORTS gives an all-zero tuser destination.

module ws_result_gen #(
    parameter integer DATA_WIDTH  = 256,  // stream width in bits: 256, 512 or 1024
    parameter integer N_PORTS     = 4,    // device ports: tuser one-hot width, member port range
    parameter integer MAX_JOBS    = 8,    // jobs of the member table
    parameter integer MAX_WORKERS = 64,   // ranks per job of the member table
    parameter integer POOL_SLOTS  = 64,   // slots of the pool, two sets each
    parameter integer MAX_COUNT   = 256,  // most elements in one frame
    parameter integer FILTER      = 0,    // 1: send only to members whose device port is in PORT_MASK
    parameter integer PARTIAL     = 0,    // 1: a command may be a PARTIAL to the job's parent (C_PART)
    parameter [N_PORTS-1:0] PORT_MASK = {N_PORTS{1'b1}}   // the ports this generator serves (FILTER = 1)
) (
    input  wire                   clk,
    input  wire                   rst,

    // commands: one per round to send
    input  wire                   cmd_valid,
    output reg                    cmd_ready,
    input  wire [CMD_W-1:0]       cmd_data,     // the command (ws_cmd.vh): set, job, round fields,
                                                // checksum of the elements, ranks rank_lo..rank_hi

    // device configuration
    input  wire [47:0]            cfg_dev_mac,
    input  wire [31:0]            cfg_dev_ip,
    input  wire [15:0]            cfg_dev_udp,

    // PARTIAL = 1: per job its parent, as a member record, the job's id there and its rank there
    /* verilator lint_off UNUSEDSIGNAL */  // PARTIAL = 0: no parent
    input  wire [MAX_JOBS*MEM_W-1:0] cfg_par_mem,
    input  wire [MAX_JOBS*16-1:0] cfg_par_job,
    input  wire [MAX_JOBS*16-1:0] cfg_par_rank,
    // ... and the PARTIAL frame buffer (ws_partial_enc), registered read: row k = beat PAY_BEAT0 + k
    input  wire [DATA_WIDTH-1:0]  par_rd_data,
    /* verilator lint_on UNUSEDSIGNAL */
    output reg  [PR_W-1:0]        par_rd_addr,
    output reg                    par_sent,     // pulse: a PARTIAL's last row has been read (the buffer is free)

    // member table, registered read: data the cycle after the address
    output reg  [MA_W-1:0]        mem_rd_addr,  // job_idx*MAX_WORKERS + rank
    input  wire [MEM_W-1:0]       mem_rd_data,  // a member record (ws_member.vh)

    // result RAM, registered read: row q*PAY_BEATS + k = frame beat PAY_BEAT0 + k
    output reg  [RA_W-1:0]        res_rd_addr,
    input  wire [DATA_WIDTH-1:0]  res_rd_data,  // lane l at [l*32 +: 32], host order

    // RESULT frames
    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [BYTES-1:0]       m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [TUSER_W-1:0]     m_axis_tuser,  // length, source 0, destination (ws_tuser.vh)

    output reg                    stat_result,  // pulse per RESULT sent with RETX clear
    output reg                    stat_resend,  // pulse per RESULT sent with RETX set
    output reg                    frame_done,   // pulse per frame whose last result-RAM row has been read:
                                                // from then on its rows may change (ws_engine's guard)
    output reg  [Q_W-1:0]         frame_done_q, // the set of that frame
    output reg                    skip_done,    // FILTER = 1: pulse per rank not served here (member on
    output reg  [Q_W-1:0]         skip_done_q   // another port), and its set; never with FILTER = 0
);

import ws_regmap::*;  // WS_LIMIT_*, WS_PROTO_*

`include "ws_widths.vh"   // BYTES, LANES, Q_W, JI_W, WK_W, CN_W, MA_W, HDR_BEATS, PAY_BEAT0, FRAME_BEATS, PAY_BEATS, RA_W
`include "ws_tuser.vh"    // TUSER_* positions of tuser, tuser_pack()
`include "ws_member.vh"   // PORT_W, MEM_* positions of a member record
`include "ws_cmd.vh"      // C_* positions of a command, CMD_W

localparam integer BSH       = $clog2(BYTES);
localparam integer MAX_BEATS = PARTIAL != 0 ? PART_BEATS : FRAME_BEATS;   // the longest frame sent
localparam integer NB_W      = MAX_BEATS > 1 ? $clog2(MAX_BEATS) : 1;
localparam integer SUM_W     = 22;                        // unfolded checksum sums (< 2^21)
localparam integer DESC_W    = 512 + TUSER_W + NB_W + RA_W + 1 + 1 + Q_W;
localparam integer DESC_DEPTH = 5;                        // frames prepared ahead (credit)
localparam integer OB_DEPTH  = 3;                         // beats issued, not yet in the output skid
localparam integer OB_N      = OB_DEPTH + 1;              // output ring entries (a power of two)
localparam integer OB_AW     = $clog2(OB_N);
localparam integer OB_W      = DATA_WIDTH + BYTES + 1 + TUSER_W + 1;

// ---------------------------------------------------------------- parameter checks
// the limits of driver/wiresum/config.h (WS_LIMIT_*)
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_result_gen %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)",
                   DATA_WIDTH);
            $finish;
        end
    end
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_result_gen %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (MAX_JOBS < 1 || MAX_JOBS > WS_LIMIT_JOBS) begin : g_bad_jobs
        initial begin
            $error("Error: ws_result_gen %m: MAX_JOBS must be 1..WS_LIMIT_JOBS (MAX_JOBS = %0d, WS_LIMIT_JOBS = %0d)",
                   MAX_JOBS, WS_LIMIT_JOBS);
            $finish;
        end
    end
    if (MAX_WORKERS < 1 || MAX_WORKERS > WS_LIMIT_WORKERS) begin : g_bad_workers
        initial begin
            $error("Error: ws_result_gen %m: MAX_WORKERS must be 1..WS_LIMIT_WORKERS (MAX_WORKERS = %0d, WS_LIMIT_WORKERS = %0d)",
                   MAX_WORKERS, WS_LIMIT_WORKERS);
            $finish;
        end
    end
    if (POOL_SLOTS < 1 || POOL_SLOTS > WS_LIMIT_SLOTS) begin : g_bad_pool
        initial begin
            $error("Error: ws_result_gen %m: POOL_SLOTS must be 1..WS_LIMIT_SLOTS (POOL_SLOTS = %0d, WS_LIMIT_SLOTS = %0d)",
                   POOL_SLOTS, WS_LIMIT_SLOTS);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_result_gen %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
    if (FILTER < 0 || FILTER > 1) begin : g_bad_filter
        initial begin
            $error("Error: ws_result_gen %m: FILTER must be 0 or 1 (FILTER = %0d)", FILTER);
            $finish;
        end
    end
endgenerate

// The halves of an unfolded sum added both ways side by side, with a carry in of 0 (low 17 bits)
// and of 1 (high 17 bits), so that what follows picks one by a carry out: one carry chain deep.
function [33:0] csum_adds(input [SUM_W-1:0] s);
    csum_adds = {17'(s[15:0]) + 17'(s[SUM_W-1:16]) + 17'd1, 17'(s[15:0]) + 17'(s[SUM_W-1:16])};
endfunction
// Ones-complement fold of an unfolded sum (same result as driver/wire.c fold()): the halves added,
// and the carry out added again, i.e. the first add's carry out picks the second.
function [15:0] csum_fold(input [SUM_W-1:0] s);
    /* verilator lint_off UNUSEDSIGNAL */  // the second add's carry out: the first's picks
    reg [33:0] f;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
        f = csum_adds(s);
        csum_fold = f[16] ? f[32:17] : f[15:0];
    end
endfunction
// The UDP checksum of an unfolded sum: the complement of the fold, sent as 0xffff when it is 0
// (RFC 768). That is the complement of the sum modulo 0xffff (a fold of 0 or 0xffff is residue
// 0, whose complement is 0xffff; any other fold is its residue), without the compare with 0:
// residue = first add - 0xffff = second add - 0x10000 when the second add carries out.
function [15:0] csum_udp(input [SUM_W-1:0] s);
    /* verilator lint_off UNUSEDSIGNAL */  // the first add's carry out: the second's picks
    reg [33:0] f;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
        f = csum_adds(s);
        csum_udp = ~(f[33] ? f[32:17] : f[15:0]);
    end
endfunction

// ---------------------------------------------------------------- command skid buffer, C0
wire [CMD_W-1:0] cmd_in = cmd_data;
reg  [CMD_W-1:0] skid_cmd;
reg              skid_valid;
reg  [CMD_W-WK_W-1:0] c0_cmd;                  // the command but rank_lo (c0_rank runs from it)
reg              c0_valid;
reg  [WK_W-1:0]  c0_rank;

wire [Q_W-1:0]   c0_q;
wire [JI_W-1:0]  c0_job_idx;
wire [15:0]      c0_job_id, c0_slot, c0_csum;
wire [31:0]      c0_offset, c0_tensor;
wire [CN_W-1:0]  c0_count;
wire [1:0]       c0_ecn;
wire [WK_W-1:0]  c0_hi;
wire             c0_retx;
// the fields of c0_cmd, the command without rank_lo (positions of ws_cmd.vh less WK_W)
assign c0_q       = c0_cmd[C_Q - WK_W +: Q_W];
assign c0_job_idx = c0_cmd[C_JOBIDX - WK_W +: JI_W];
assign c0_job_id  = c0_cmd[C_JOBID - WK_W +: 16];
assign c0_slot    = c0_cmd[C_SLOT - WK_W +: 16];
assign c0_offset  = c0_cmd[C_OFFSET - WK_W +: 32];
assign c0_tensor  = c0_cmd[C_TENSOR - WK_W +: 32];
assign c0_count   = c0_cmd[C_COUNT - WK_W +: CN_W];
assign c0_ecn     = c0_cmd[C_ECN - WK_W +: 2];
assign c0_csum    = c0_cmd[C_CSUM - WK_W +: 16];
assign c0_hi      = c0_cmd[C_RANK_HI - WK_W +: WK_W];
assign c0_retx    = c0_cmd[C_RETX - WK_W];
wire             c0_part    = PARTIAL != 0 && c0_cmd[C_PART - WK_W];
wire [15:0]      c0_ext     = c0_cmd[C_EXT - WK_W +: 16];
wire [MAX_WORKERS-1:0] c0_ce = c0_cmd[C_CE - WK_W +: MAX_WORKERS];
// the frame's ECN bits (docs/protocol.md section 7): CE to a rank whose contribution came
// marked, else the round's OR with CE taken as ECT(0); the PARTIAL to the parent as the latter
wire [1:0]       c0_ecn_out = !c0_part && c0_ce[c0_rank] ? 2'b11
                            : c0_ecn == 2'b11 ? 2'b10 : c0_ecn;

wire             prep_can;                     // a place in the descriptor FIFO is free
wire             cmd_fire   = cmd_valid && cmd_ready;
wire             c0_issue   = c0_valid && prep_can;
wire             c0_done    = c0_issue && c0_rank == c0_hi;
wire             c0_free    = !c0_valid || c0_done;
wire [CMD_W-1:0] c0_next    = skid_valid ? skid_cmd : cmd_in;
wire             c0_load    = c0_free && (skid_valid || cmd_fire);
wire [WK_W-1:0]  next_lo    = c0_next[C_RANK_LO +: WK_W];
wire [WK_W-1:0]  next_hi    = c0_next[C_RANK_HI +: WK_W];
wire             skid_valid_n = skid_valid ? !c0_free : (cmd_fire && !c0_free);

always @(posedge clk) begin
    if (c0_load) begin
        c0_cmd  <= c0_next[CMD_W-1:C_RANK_LO+WK_W];
        c0_rank <= next_lo;
    end else if (c0_issue) begin
        c0_rank <= c0_rank + 1'b1;
    end
    if (cmd_fire && !c0_free)
        skid_cmd <= cmd_in;

    if (c0_load)
        c0_valid <= next_lo <= next_hi;
    else if (c0_done)
        c0_valid <= 1'b0;
    skid_valid <= skid_valid_n;
    cmd_ready  <= !skid_valid_n;

    if (rst) begin
        c0_valid   <= 1'b0;
        skid_valid <= 1'b0;
        cmd_ready  <= 1'b0;
    end
end

// ---------------------------------------------------------------- P1: member address, command sums
reg              p1_valid;
reg  [Q_W-1:0]   p1_q;
reg  [15:0]      p1_job_id, p1_slot, p1_csum;
reg  [31:0]      p1_offset, p1_tensor;
reg  [CN_W-1:0]  p1_count;
reg  [1:0]       p1_ecn;
reg  [WK_W-1:0]  p1_rank;
reg              p1_retx;
reg              p1_part;
reg  [15:0]      p1_ext, p1_pay;      // a PARTIAL's records; the payload's bytes
reg  [MEM_W-1:0] p1_par;              // the job's parent, its job id and this device's rank there
reg  [15:0]      p1_par_job, p1_par_rank;

integer pj;
always @(posedge clk) begin
    mem_rd_addr <= MA_W'(c0_job_idx) * MA_W'(MAX_WORKERS) + MA_W'(c0_rank);
    p1_q      <= c0_q;
    p1_job_id <= c0_job_id;
    p1_slot   <= c0_slot;
    p1_csum   <= c0_csum;
    p1_offset <= c0_offset;
    p1_tensor <= c0_tensor;
    p1_count  <= c0_count;
    p1_ecn    <= c0_ecn_out;
    p1_rank   <= c0_rank;
    p1_retx   <= c0_retx;
    p1_part   <= c0_part;
    p1_ext    <= c0_part ? c0_ext : 16'd0;
    p1_pay    <= c0_part ? (16'(c0_count) + c0_ext) << 3 : 16'(c0_count) << 2;
    // the job's parent entries: compares with constant part-selects, no index times MEM_W
    // (an adder and a shifter over the table)
    for (pj = 0; pj < MAX_JOBS; pj = pj + 1)
        if ({{(32-JI_W){1'b0}}, c0_job_idx} == pj) begin
            p1_par      <= cfg_par_mem[pj*MEM_W +: MEM_W];
            p1_par_job  <= cfg_par_job[pj*16 +: 16];
            p1_par_rank <= cfg_par_rank[pj*16 +: 16];
        end
    p1_valid  <= c0_issue;
    if (rst)
        p1_valid <= 1'b0;
end

// ---------------------------------------------------------------- P2: member data arrives
reg              p2_valid;
reg  [SUM_W-1:0] p2_ip_part, p2_udp_a, p2_udp_b;
reg              p2_set;
reg  [RA_W-1:0] p2_row_base;
reg  [Q_W-1:0]   p2_q;
reg  [15:0]      p2_job_id, p2_slot;
reg  [31:0]      p2_offset, p2_tensor;
reg  [CN_W-1:0]  p2_count;
reg  [1:0]       p2_ecn;
reg  [15:0]      p2_rank;
reg              p2_retx;
reg              p2_part;
reg  [15:0]      p2_ext, p2_pay;
reg  [MEM_W-1:0] p2_par;
reg  [47:0]      p2_dev_mac;
reg  [31:0]      p2_dev_ip;
reg  [15:0]      p2_dev_udp;

// IPv4 header words without the member's: 0x4500|tos, total length 50+P (P: the payload's
// bytes, 4c in a RESULT, 8(c+ext) in a PARTIAL), id 0, 0x4000, TTL/protocol 0x4011, source
// address.
localparam [SUM_W-1:0] IP_CONST  = SUM_W'('h4500 + 'h4000 + 'h4011 + 50);
// UDP: pseudo-header protocol 0x0011 and length 30+P, UDP length 30+P, agg ver_type/dtype
// (RESULT of WS_PROTO_VERSION, binary32; a PARTIAL's type is one more), the count field c and
// the ext field.
localparam [7:0]       VER_TYPE  = {4'(WS_PROTO_VERSION), 4'(WS_PROTO_RESULT)};
localparam [7:0]       VER_PART  = {4'(WS_PROTO_VERSION), 4'(WS_PROTO_PARTIAL)};
localparam [SUM_W-1:0] UDP_CONST = SUM_W'('h0011 + 30 + 30) + SUM_W'({VER_TYPE, 8'h00});

// the receiver's job id and this device's rank in it: the member's job, or the parent's
wire [15:0] p1_to_job  = p1_part ? p1_par_job : p1_job_id;
wire [15:0] p1_to_rank = p1_part ? p1_par_rank : 16'(p1_rank);
always @(posedge clk) begin
    p2_ip_part <= IP_CONST + SUM_W'(p1_ecn) + SUM_W'(p1_pay)
                + SUM_W'(cfg_dev_ip[31:16]) + SUM_W'(cfg_dev_ip[15:0]);
    p2_udp_a   <= UDP_CONST + (SUM_W'(p1_pay) << 1) + SUM_W'(p1_count) + SUM_W'(p1_ext)
                + SUM_W'({7'd0, p1_part, 8'd0})
                + SUM_W'({6'd0, p1_retx, p1_q[0], 8'd0}) + SUM_W'(p1_to_job)
                + SUM_W'(p1_to_rank) + SUM_W'(p1_slot) + SUM_W'(p1_csum);
    p2_udp_b   <= SUM_W'(cfg_dev_ip[31:16]) + SUM_W'(cfg_dev_ip[15:0]) + SUM_W'(cfg_dev_udp)
                + SUM_W'(p1_offset[31:16]) + SUM_W'(p1_offset[15:0])
                + SUM_W'(p1_tensor[31:16]) + SUM_W'(p1_tensor[15:0]);
    p2_set      <= p1_q[0];
    p2_row_base <= RA_W'(p1_q) * RA_W'(PAY_BEATS);
    p2_q        <= p1_q;
    p2_job_id   <= p1_to_job;
    p2_slot     <= p1_slot;
    p2_offset   <= p1_offset;
    p2_tensor   <= p1_tensor;
    p2_count    <= p1_count;
    p2_ecn      <= p1_ecn;
    p2_rank     <= p1_to_rank;
    p2_retx     <= p1_retx;
    p2_part     <= p1_part;
    p2_ext      <= p1_ext;
    p2_pay      <= p1_pay;
    p2_par      <= p1_par;
    p2_dev_mac  <= cfg_dev_mac;
    p2_dev_ip   <= cfg_dev_ip;
    p2_dev_udp  <= cfg_dev_udp;
    p2_valid    <= p1_valid;
    if (rst)
        p2_valid <= 1'b0;
end

// ---------------------------------------------------------------- P3: full sums, member fields
// (the receiver: the member, or for a PARTIAL the parent)
wire [MEM_W-1:0]  to_rec   = p2_part ? p2_par : mem_rd_data;
wire [47:0]       mem_mac  = to_rec[MEM_MAC_LSB +: MEM_MAC_W];
wire [31:0]       mem_ip   = to_rec[MEM_IP_LSB +: MEM_IP_W];
wire [15:0]       mem_udp  = to_rec[MEM_UDP_LSB +: MEM_UDP_W];
wire [PORT_W-1:0] mem_port = to_rec[MEM_PORT_LSB +: PORT_W];

reg              p3_valid;
reg  [SUM_W-1:0] p3_ip_sum, p3_udp_sum;
reg              p3_set;
reg  [RA_W-1:0] p3_row_base;
reg  [Q_W-1:0]   p3_q;
reg  [15:0]      p3_job_id, p3_slot;
reg  [31:0]      p3_offset, p3_tensor;
reg  [CN_W-1:0]  p3_count;
reg  [1:0]       p3_ecn;
reg  [15:0]      p3_rank;
reg              p3_retx;
reg              p3_part;
reg  [15:0]      p3_ext, p3_pay;
reg  [47:0]      p3_dev_mac, p3_mem_mac;
reg  [31:0]      p3_dev_ip, p3_mem_ip;
reg  [15:0]      p3_dev_udp, p3_mem_udp;
reg  [N_PORTS-1:0] p3_dst;

always @(posedge clk) begin
    p3_ip_sum   <= p2_ip_part + SUM_W'(mem_ip[31:16]) + SUM_W'(mem_ip[15:0]);
    p3_udp_sum  <= p2_udp_a + p2_udp_b + SUM_W'(mem_ip[31:16]) + SUM_W'(mem_ip[15:0])
                 + SUM_W'(mem_udp);
    p3_set      <= p2_set;
    p3_row_base <= p2_row_base;
    p3_q        <= p2_q;
    p3_job_id   <= p2_job_id;
    p3_slot     <= p2_slot;
    p3_offset   <= p2_offset;
    p3_tensor   <= p2_tensor;
    p3_count    <= p2_count;
    p3_ecn      <= p2_ecn;
    p3_rank     <= p2_rank;
    p3_retx     <= p2_retx;
    p3_part     <= p2_part;
    p3_ext      <= p2_ext;
    p3_pay      <= p2_pay;
    p3_dev_mac  <= p2_dev_mac;
    p3_dev_ip   <= p2_dev_ip;
    p3_dev_udp  <= p2_dev_udp;
    p3_mem_mac  <= mem_mac;
    p3_mem_ip   <= mem_ip;
    p3_mem_udp  <= mem_udp;
    p3_dst      <= N_PORTS'(1) << mem_port;
    p3_valid    <= p2_valid;
    if (rst)
        p3_valid <= 1'b0;
end

// The frame header, assembled big-endian in this one place: byte 0 is [511:504].
wire [15:0] p3_len     = 16'd64 + p3_pay;
wire [15:0] p3_ip_csum = ~csum_fold(p3_ip_sum);
wire [15:0] p3_udp_csum = csum_udp(p3_udp_sum);
wire [511:0] p3_hdr_be = {
    p3_mem_mac, p3_dev_mac, 16'h0800,                                   // Ethernet
    8'h45, {6'd0, p3_ecn}, p3_len - 16'd14, 16'h0000, 16'h4000,         // IPv4
    8'd64, 8'd17, p3_ip_csum, p3_dev_ip, p3_mem_ip,
    p3_dev_udp, p3_mem_udp, p3_len - 16'd34, p3_udp_csum,               // UDP
    p3_part ? VER_PART : VER_TYPE, 8'h00, {6'd0, p3_retx, p3_set}, 8'h00, // agg: type, flags
    p3_job_id, p3_rank, p3_slot, 16'(p3_count), p3_offset, p3_tensor, p3_ext};
wire [511:0] p3_hdr;  // byte k at [k*8 +: 8]
genvar gk;
generate
    for (gk = 0; gk < 64; gk = gk + 1) begin : g_hdr_byte
        assign p3_hdr[gk*8 +: 8] = p3_hdr_be[(63-gk)*8 +: 8];
    end
endgenerate
wire [TUSER_W-1:0] p3_tuser = tuser_pack(p3_len, {N_PORTS{1'b0}}, p3_dst);
wire [NB_W-1:0]        p3_nb_m1 = NB_W'((p3_len - 16'd1) >> BSH);

// ---------------------------------------------------------------- descriptor FIFO
reg  [DESC_W-1:0] desc_mem [0:7];           // DESC_DEPTH entries used
reg  [3:0]        desc_wr_ptr, desc_rd_ptr;  // with wrap bit
reg  [2:0]        desc_occ;                  // frames in P1..P3 and in the FIFO
wire              s0_pop;

// FILTER = 1: a frame for a member on another port is dropped here, and its credit returned
wire              p3_skip = FILTER != 0 && (p3_dst & PORT_MASK) == {N_PORTS{1'b0}};
wire              p3_keep = p3_valid && !p3_skip;

always @(posedge clk) begin
    if (p3_keep)
        desc_mem[desc_wr_ptr[2:0]] <= {p3_hdr, p3_tuser, p3_nb_m1, p3_row_base, p3_part, p3_retx, p3_q};
    if (p3_keep)
        desc_wr_ptr <= desc_wr_ptr + 4'd1;
    if (s0_pop)
        desc_rd_ptr <= desc_rd_ptr + 4'd1;
    desc_occ <= desc_occ + {2'd0, c0_issue} - {2'd0, s0_pop} - {2'd0, p3_valid && p3_skip};
    skip_done   <= !rst && p3_valid && p3_skip && !p3_part;   // a PARTIAL reads no result RAM row
    skip_done_q <= p3_q;
    if (rst) begin
        desc_wr_ptr <= 4'd0;
        desc_rd_ptr <= 4'd0;
        desc_occ    <= 3'd0;
    end
end

// A place is free when fewer than DESC_DEPTH frames are reserved, as counted at the start of the
// cycle: a pop's place is given again the cycle after (not in the pop's cycle, which would put
// the beat issue's end of frame in front of C0's issue, one long path). Five places cover the
// three stages P1..P3 and one frame in the FIFO at one frame a cycle (one-beat frames).
assign prep_can = desc_occ != 3'(DESC_DEPTH);

wire [511:0]             head_hdr;
wire [TUSER_W-1:0]       head_tuser;
wire [NB_W-1:0]          head_nb_m1;
wire [RA_W-1:0]          head_row_base;
wire                     head_part;
wire                     head_retx;
wire [Q_W-1:0]           head_q;
assign {head_hdr, head_tuser, head_nb_m1, head_row_base, head_part, head_retx, head_q} = desc_mem[desc_rd_ptr[2:0]];

// ---------------------------------------------------------------- S0: beat issue
reg  [NB_W-1:0] s0_beat;
reg  [OB_DEPTH-1:0] out_occ;      // beats in A, B and the output ring, thermometer (bit k: more than k)
wire            desc_nonempty = desc_wr_ptr != desc_rd_ptr;
wire            s0_issue = desc_nonempty && !out_occ[OB_DEPTH-1];
wire            s0_last  = s0_beat == head_nb_m1;
assign s0_pop = s0_issue && s0_last;

// Row of the result RAM for this beat (beats before PAY_BEAT0 are header only).
wire [NB_W-1:0] s0_row;
generate
    if (PAY_BEAT0 == 0) begin : g_row0
        assign s0_row = s0_beat;
    end else begin : g_row
        assign s0_row = s0_beat >= NB_W'(PAY_BEAT0) ? s0_beat - NB_W'(PAY_BEAT0) : {NB_W{1'b0}};
    end
endgenerate

// Header words of the beat: the header padded to whole beats, and which lanes it covers.
wire [HDR_BEATS*DATA_WIDTH-1:0] hdr_pad;
wire [HDR_BEATS*LANES-1:0]      hmask_pad;
genvar gw;
generate
    for (gw = 0; gw < HDR_BEATS * LANES; gw = gw + 1) begin : g_hdr_lane
        if (gw < 16) begin : g_in
            assign hdr_pad[gw*32 +: 32] = head_hdr[gw*32 +: 32];
            assign hmask_pad[gw] = 1'b1;
        end else begin : g_out
            assign hdr_pad[gw*32 +: 32] = 32'd0;
            assign hmask_pad[gw] = 1'b0;
        end
    end
endgenerate

reg  [DATA_WIDTH-1:0] s0_hdr;
reg  [LANES-1:0]      s0_hmask;
reg  [BYTES-1:0]      s0_keep;
integer i;
always @* begin
    s0_hdr   = {DATA_WIDTH{1'b0}};
    s0_hmask = {LANES{1'b0}};
    for (i = 0; i < HDR_BEATS; i = i + 1) begin
        if (s0_beat == NB_W'(i)) begin
            s0_hdr   = hdr_pad[i*DATA_WIDTH +: DATA_WIDTH];
            s0_hmask = hmask_pad[i*LANES +: LANES];
        end
    end
    // last beat: the length modulo BYTES bytes, all when 0
    s0_keep = {BYTES{1'b1}};
    if (s0_last && head_tuser[BSH-1:0] != {BSH{1'b0}})
        s0_keep = ~({BYTES{1'b1}} << head_tuser[BSH-1:0]);
end

reg                   a_valid, a_last, a_retx, a_part;
reg  [DATA_WIDTH-1:0] a_hdr;
reg  [LANES-1:0]      a_hmask;
reg  [BYTES-1:0]      a_keep;
reg  [TUSER_W-1:0]    a_tuser;

always @(posedge clk) begin
    res_rd_addr <= head_row_base + RA_W'(s0_row);
    par_rd_addr <= PR_W'(s0_row);
    a_part  <= head_part;
    a_hdr   <= s0_hdr;
    a_hmask <= s0_hmask;
    a_keep  <= s0_keep;
    a_last  <= s0_last;
    a_tuser <= head_tuser;
    a_retx  <= head_retx;
    a_valid <= s0_issue;
    if (s0_issue)
        s0_beat <= s0_last ? {NB_W{1'b0}} : s0_beat + 1'b1;
    if (rst) begin
        a_valid <= 1'b0;
        s0_beat <= {NB_W{1'b0}};
    end
end

// ---------------------------------------------------------------- B: RAM data, beat assembly
reg                   b_valid, b_last, b_retx, b_part;
reg  [DATA_WIDTH-1:0] b_hdr;
reg  [LANES-1:0]      b_hmask;
reg  [BYTES-1:0]      b_keep;
reg  [TUSER_W-1:0]    b_tuser;

always @(posedge clk) begin
    b_hdr   <= a_hdr;
    b_hmask <= a_hmask;
    b_keep  <= a_keep;
    b_last  <= a_last;
    b_tuser <= a_tuser;
    b_retx  <= a_retx;
    b_part  <= a_part;
    b_valid <= a_valid;
    if (rst)
        b_valid <= 1'b0;
end

// Element lanes go out big-endian; bytes past the frame are zero. A PARTIAL's words are in its
// frame buffer as two lanes each (high half first), so they go out the same way.
wire [DATA_WIDTH-1:0] b_rd = PARTIAL != 0 && b_part ? par_rd_data : res_rd_data;
reg  [DATA_WIDTH-1:0] b_data;
integer l, k;
always @* begin
    for (l = 0; l < LANES; l = l + 1) begin
        if (b_hmask[l])
            b_data[l*32 +: 32] = b_hdr[l*32 +: 32];
        else
            b_data[l*32 +: 32] = {b_rd[l*32 +: 8], b_rd[l*32+8 +: 8],
                                  b_rd[l*32+16 +: 8], b_rd[l*32+24 +: 8]};
    end
    for (k = 0; k < BYTES; k = k + 1)
        if (!b_keep[k])
            b_data[k*8 +: 8] = 8'd0;
end
wire [OB_W-1:0] b_beat = {b_data, b_keep, b_last, b_tuser, b_retx};

// ---------------------------------------------------------------- output ring and skid
// The output is a ws_skid, so m_axis_tready, which comes late in the cycle (the egress
// arbiter's grant follows the bypass stream's tvalid), steers only the skid's registers and
// the stat pulses; the ring and the credit see the skid's s_ready, a register. Every beat of B
// is written into the ring, also one that goes on to the skid in the same cycle (hence one
// entry more than the OB_DEPTH beats it holds).
reg  [OB_W-1:0]       ob_mem [0:OB_N-1];
reg  [OB_AW-1:0]      ob_wr, ob_rd;     // wrap by overflow: OB_N is a power of two
reg  [OB_DEPTH-1:0]   ob_cnt;           // beats in the ring, thermometer (bit k: more than k)
wire                  ob_ready;         // the skid takes a beat (a register)
wire                  ob_valid = ob_cnt[0] || b_valid;
wire                  ob_take  = ob_valid && ob_ready;

always @(posedge clk) begin
    if (b_valid)
        ob_mem[ob_wr] <= b_beat;
    if (b_valid)
        ob_wr <= ob_wr + 1'b1;
    if (ob_take)
        ob_rd <= ob_rd + 1'b1;
    if (b_valid && !ob_take)
        ob_cnt <= {ob_cnt[OB_DEPTH-2:0], 1'b1};
    else if (ob_take && !b_valid)
        ob_cnt <= {1'b0, ob_cnt[OB_DEPTH-1:1]};
    if (s0_issue && !ob_take)
        out_occ <= {out_occ[OB_DEPTH-2:0], 1'b1};
    else if (ob_take && !s0_issue)
        out_occ <= {1'b0, out_occ[OB_DEPTH-1:1]};
    frame_done   <= s0_pop && !head_part;
    frame_done_q <= head_q;
    par_sent     <= !rst && s0_pop && head_part;
    if (rst) begin
        ob_wr   <= {OB_AW{1'b0}};
        ob_rd   <= {OB_AW{1'b0}};
        ob_cnt  <= {OB_DEPTH{1'b0}};
        out_occ <= {OB_DEPTH{1'b0}};
        frame_done <= 1'b0;
    end
end

wire out_retx;
ws_skid #(.WIDTH(OB_W)) out_skid (
    .clk(clk), .rst(rst),
    .s_data(ob_cnt[0] ? ob_mem[ob_rd] : b_beat), .s_valid(ob_valid), .s_ready(ob_ready),
    .m_data({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser, out_retx}),
    .m_valid(m_axis_tvalid), .m_ready(m_axis_tready)
);

// the pulses select by the pop (not an AND with it that both could share), so each is one LUT
// behind m_axis_tready
wire out_pop = m_axis_tvalid && m_axis_tready;
always @(posedge clk) begin
    if (out_pop) begin
        stat_result <= m_axis_tlast && !out_retx;
        stat_resend <= m_axis_tlast && out_retx;
    end else begin
        stat_result <= 1'b0;
        stat_resend <= 1'b0;
    end
    if (rst) begin
        stat_result <= 1'b0;
        stat_resend <= 1'b0;
    end
end

endmodule

`resetall
