// ws_regs - AXI4-Lite register block: device configuration, job table with checked commits, member table, the 64-bit counters (ws_counters).
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The register map is docs/registers.md, generated with hw/ws_regmap.vh from driver/regmap.def.
//
// AXI4-Lite: one write and one read in flight at a time; bits 1:0 of an address are ignored.
// A write answers when it has taken effect (for a JOB_CTRL commit: when STATUS holds its result);
// SLVERR for an unmapped address, a read-only register, or a value the block refuses (BYPASS or
// MEMBER_PORT device port >= N_PORTS). A read of an unmapped address returns 0 with SLVERR.
//
// Job commit (a write of JOB_CTRL of job j with byte 0 enabled): the written values of job j are
// checked in the order of the STATUS codes; if valid and ENABLE is 1 they become the active
// configuration of job j (cfg_job_*, its parent's cfg_job_par_* with them), and job_clear pulses with job_clear_idx = j in the same
// cycle as the new values appear, so the engine clears the job's slot range. The range comes
// with the pulse, registered (job_clear_base, job_clear_end = base + slots): the engine compares
// it with its set numbers and takes no mux over the job table or adder in front of the clear.
// If invalid, or ENABLE is 0, the job is disabled (no pulse).
//
// Member table: RAM copies written together, one for each datapath read port (two per engine, the
// parser's and the result generator's; registered read: data the cycle after the address) and one
// for the AXI reads. A datapath read of an entry
// being written in the same cycle returns the old or the new value.
//
// Counters (ws_counters): stat_* inputs are registered, then added: every input (one per engine
// for the device events) may pulse every cycle, all at once; the drop inputs may carry the same
// reason in the same cycle (all are counted). A drop with a reason outside 1..WS_N_DROPS is not
// counted. CTRL.CLEAR_COUNTERS clears every counter; the events of that cycle are lost. Reading a counter's LO word latches its HI word,
// which the next read of that counter's HI word returns (later HI reads return the live word).
module ws_regs #(
    parameter DATA_WIDTH  = 256,  // datapath width in bits, reported in PARAM_WIDTH: 256, 512 or 1024
    parameter N_PORTS     = 4,    // device ports, 1..16
    parameter MAX_JOBS    = 8,    // job table entries, 1..64
    parameter MAX_WORKERS = 64,   // member records per job; MAX_JOBS*MAX_WORKERS <= 2048
    parameter POOL_SLOTS  = 64,   // slots of the pool shared by the jobs' ranges, 1..4096
    parameter MAX_COUNT   = 256,  // largest number of elements of a packet, 1..2048
    parameter MAX_FRAME   = 9216, // largest frame the ports take, bytes, reported in PARAM_MAX_FRAME
    parameter ENGINES     = 1,    // aggregation engines: member-table read port pairs, event inputs per counter
    parameter PARTIAL     = 0     // 1: the device takes PARTIAL frames, reported in PARAM_PARTIAL
) (
    input  wire                       clk,
    input  wire                       rst,

    // AXI4-Lite slave
    input  wire [15:0]                s_axil_awaddr,
    input  wire                       s_axil_awvalid,
    output reg                        s_axil_awready,
    input  wire [31:0]                s_axil_wdata,
    input  wire [3:0]                 s_axil_wstrb,
    input  wire                       s_axil_wvalid,
    output reg                        s_axil_wready,
    output reg  [1:0]                 s_axil_bresp,
    output reg                        s_axil_bvalid,
    input  wire                       s_axil_bready,
    input  wire [15:0]                s_axil_araddr,
    input  wire                       s_axil_arvalid,
    output reg                        s_axil_arready,
    output reg  [31:0]                s_axil_rdata,
    output reg  [1:0]                 s_axil_rresp,
    output reg                        s_axil_rvalid,
    input  wire                       s_axil_rready,

    // device configuration
    output reg  [47:0]                cfg_dev_mac,     // byte 0 (first on the wire) in 47:40
    output reg  [31:0]                cfg_dev_ip,
    output reg  [15:0]                cfg_dev_udp,
    output reg  [N_PORTS*PORT_W-1:0]  cfg_bypass,      // egress of ingress port p at [p*PORT_W +: PORT_W]

    // active job table, job j at [j*W +: W]
    output reg  [MAX_JOBS-1:0]        cfg_job_en,
    output reg  [MAX_JOBS*16-1:0]     cfg_job_id,
    output reg  [MAX_JOBS*WC_W-1:0]   cfg_job_workers,
    output reg  [MAX_JOBS*SL_W-1:0]   cfg_job_slots,
    output reg  [MAX_JOBS*SL_W-1:0]   cfg_job_base,
    output reg  [MAX_JOBS*CN_W-1:0]   cfg_job_maxcount,
    // the job's parent (docs/protocol.md section 9; a device built with PARTIAL = 1 only: without
    // it a commit with JOB_PARENT.ENABLE fails), job j at [j*W +: W], valid while cfg_job_en[j]
    output reg  [MAX_JOBS-1:0]        cfg_job_par_en,   // the job has a parent
    output reg  [MAX_JOBS*48-1:0]     cfg_job_par_mac,  // byte 0 (first on the wire) in 47:40
    output reg  [MAX_JOBS*32-1:0]     cfg_job_par_ip,
    output reg  [MAX_JOBS*16-1:0]     cfg_job_par_udp,
    output reg  [MAX_JOBS*PORT_W-1:0] cfg_job_par_port, // the device port towards the parent
    output reg  [MAX_JOBS*16-1:0]     cfg_job_par_job,  // the job's id at the parent
    output reg  [MAX_JOBS*16-1:0]     cfg_job_par_rank, // this device's rank in that job
    output reg                        job_clear,       // 1-cycle pulse: clear the slot state of job_clear_idx
    output reg  [JI_W-1:0]            job_clear_idx,
    output reg  [SL_W-1:0]            job_clear_base,  // the job's first slot, with the pulse
    output reg  [SL_W:0]              job_clear_end,   // one past its last slot, with the pulse

    // member table read ports, index j*MAX_WORKERS + w; data {device port, udp, ip, mac} one cycle
    // later; one pair per engine, engine e at [e*W +: W]
    input  wire [ENGINES*MA_W-1:0]    mem_rda_addr,
    output reg  [ENGINES*MEM_W-1:0]   mem_rda_data,
    input  wire [ENGINES*MA_W-1:0]    mem_rdb_addr,
    output reg  [ENGINES*MEM_W-1:0]   mem_rdb_data,

    // counter events, each a 1-cycle pulse
    input  wire [N_PORTS-1:0]         stat_rx,
    input  wire [N_PORTS*16-1:0]      stat_rx_len,
    input  wire [N_PORTS-1:0]         stat_tx,
    input  wire [N_PORTS*16-1:0]      stat_tx_len,
    // one input per engine for each of the following (engine e at bit e, reason at
    // [e*WS_REASON_W +: WS_REASON_W])
    input  wire [ENGINES-1:0]         stat_accepted,
    input  wire [ENGINES-1:0]         stat_result,
    input  wire [ENGINES-1:0]         stat_resend,
    input  wire [ENGINES-1:0]         stat_bypass,
    input  wire [N_PORTS-1:0]         stat_oversize,   // one per port, summed
    input  wire [ENGINES-1:0]         stat_drop_a,     // a drop (parser) ...
    input  wire [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_a_reason, // ... with its ws_reason code, 1..WS_N_DROPS
    input  wire [ENGINES-1:0]         stat_drop_b,     // a drop (engine) ...
    input  wire [ENGINES*ws_regmap::WS_REASON_W-1:0] stat_drop_b_reason
);

import ws_regmap::*;

// ---- derived widths ---------------------------------------------------------------------------
`include "ws_widths.vh"   // JI_W, WC_W, SL_W, CN_W, N_MEM, MA_W, ...
`include "ws_member.vh"   // PORT_W; MEM_W, member_pack(): a member as the datapath reads it

// Member RAM entry: the record's 32-bit words side by side, word k at [k*32 +: 32].
localparam M_WORDS = WS_TBL_MEMBER_STRIDE / 4;
localparam M_BITS  = 32 * M_WORDS;
localparam M_MACH  = WS_REG_MEMBER_MAC_HI_OFF / 4;
localparam M_MACL  = WS_REG_MEMBER_MAC_LO_OFF / 4;
localparam M_IP    = WS_REG_MEMBER_IP_OFF / 4;
localparam M_PORT  = WS_REG_MEMBER_PORT_OFF / 4;
localparam DP_LSB  = WS_MEMBER_PORT_DEV_PORT_LSB;

// Counters (ws_counters), in address order: PC_PER per port, then the device-wide ones.
localparam PC_PER  = WS_TBL_PORT_CNT_STRIDE / 8;
localparam N_CNT   = N_PORTS * PC_PER + WS_CNT_DEV_COUNT;
localparam CI_W    = $clog2(N_CNT);
localparam C_DEV   = N_PORTS * PC_PER;                     // the first device-wide counter
localparam [15:0] C_DEV16 = C_DEV[15:0];

// Address spans of the tables at this build's counts.
localparam [31:0] BYP_SPAN = N_PORTS * WS_TBL_BYPASS_STRIDE;
localparam [31:0] JOB_SPAN = MAX_JOBS * WS_TBL_JOB_STRIDE;
localparam [31:0] MEM_SPAN = N_MEM * WS_TBL_MEMBER_STRIDE;
localparam [31:0] PC_SPAN  = N_PORTS * WS_TBL_PORT_CNT_STRIDE;
localparam [31:0] DC_SPAN  = WS_CNT_DEV_COUNT * 8;
localparam BYP_SH = $clog2(WS_TBL_BYPASS_STRIDE);
localparam JOB_SH = $clog2(WS_TBL_JOB_STRIDE);
localparam MEM_SH = $clog2(WS_TBL_MEMBER_STRIDE);

localparam [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10;

// ---- parameters: the limits of driver/wiresum/config.h (WS_LIMIT_*) and the room of the map -------------
generate
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512 && DATA_WIDTH != 1024) begin : g_bad_width
        initial begin
            $error("Error: ws_regs %m: DATA_WIDTH must be 256, 512 or 1024 (DATA_WIDTH = %0d)", DATA_WIDTH);
            $finish;
        end
    end
    if (N_PORTS < 1 || N_PORTS > WS_LIMIT_PORTS) begin : g_bad_ports
        initial begin
            $error("Error: ws_regs %m: N_PORTS must be 1..WS_LIMIT_PORTS (N_PORTS = %0d, WS_LIMIT_PORTS = %0d)",
                   N_PORTS, WS_LIMIT_PORTS);
            $finish;
        end
    end
    if (MAX_JOBS < 1 || MAX_JOBS > WS_LIMIT_JOBS) begin : g_bad_jobs
        initial begin
            $error("Error: ws_regs %m: MAX_JOBS must be 1..WS_LIMIT_JOBS (MAX_JOBS = %0d, WS_LIMIT_JOBS = %0d)",
                   MAX_JOBS, WS_LIMIT_JOBS);
            $finish;
        end
    end
    if (MAX_WORKERS < 1 || MAX_WORKERS > WS_LIMIT_WORKERS) begin : g_bad_workers
        initial begin
            $error("Error: ws_regs %m: MAX_WORKERS must be 1..WS_LIMIT_WORKERS (MAX_WORKERS = %0d, WS_LIMIT_WORKERS = %0d)",
                   MAX_WORKERS, WS_LIMIT_WORKERS);
            $finish;
        end
    end
    if (N_MEM > WS_TBL_MEMBER_LIMIT) begin : g_bad_members
        initial begin
            $error("Error: ws_regs %m: MAX_JOBS*MAX_WORKERS must fit the member table, WS_TBL_MEMBER_LIMIT records (MAX_JOBS = %0d, MAX_WORKERS = %0d, WS_TBL_MEMBER_LIMIT = %0d)",
                   MAX_JOBS, MAX_WORKERS, WS_TBL_MEMBER_LIMIT);
            $finish;
        end
    end
    if (POOL_SLOTS < 1 || POOL_SLOTS > WS_LIMIT_SLOTS) begin : g_bad_pool
        initial begin
            $error("Error: ws_regs %m: POOL_SLOTS must be 1..WS_LIMIT_SLOTS (POOL_SLOTS = %0d, WS_LIMIT_SLOTS = %0d)",
                   POOL_SLOTS, WS_LIMIT_SLOTS);
            $finish;
        end
    end
    if (MAX_COUNT < 1 || MAX_COUNT > WS_LIMIT_COUNT) begin : g_bad_count
        initial begin
            $error("Error: ws_regs %m: MAX_COUNT must be 1..WS_LIMIT_COUNT (MAX_COUNT = %0d, WS_LIMIT_COUNT = %0d)",
                   MAX_COUNT, WS_LIMIT_COUNT);
            $finish;
        end
    end
    if (PARTIAL < 0 || PARTIAL > 1) begin : g_bad_partial
        initial begin
            $error("Error: ws_regs %m: PARTIAL must be 0 or 1 (PARTIAL = %0d)", PARTIAL);
            $finish;
        end
    end
    if (ENGINES < 1 || ENGINES > N_PORTS) begin : g_bad_engines
        initial begin
            $error("Error: ws_regs %m: ENGINES must be 1..N_PORTS (ENGINES = %0d, N_PORTS = %0d)",
                   ENGINES, N_PORTS);
            $finish;
        end
    end
endgenerate

// ---- address decoding (shared by writes and reads) --------------------------------------------
localparam [4:0] K_NONE = 5'd0, K_ID = 5'd1, K_PWIDTH = 5'd2, K_PPORTS = 5'd3, K_PJOBS = 5'd4,
                 K_PWORKERS = 5'd5, K_PPOOL = 5'd6, K_PCOUNT = 5'd7, K_CTRL = 5'd8,
                 K_STATUS = 5'd9, K_MAC_HI = 5'd10, K_MAC_LO = 5'd11, K_IP = 5'd12,
                 K_UDP = 5'd13, K_BYPASS = 5'd14, K_JOB = 5'd15, K_MEMBER = 5'd16, K_CNT = 5'd17,
                 K_PENGINES = 5'd18, K_PMAXFRAME = 5'd19, K_PPARTIAL = 5'd20;
localparam DEC_W = 5 + 16 + 8;  // {kind, index in its table, byte offset in the record}

// The decode takes two registered stages, each a few LUT levels: decode_a compares the address
// with each table's range and computes each table's index and offset (a subtraction each),
// decode_b picks the table that matched. Together they are the map of docs/registers.md.
localparam DA_W = 5 + 5 + 5*16 + 4*8;  // {kind of a fixed register, 5 hits, 5 indexes, 4 offsets}
localparam DA_O_JOB = 3*8;             // o_job's bit in decode_a's {..., o_job, o_mem, o_pc, o_dc}

/* verilator lint_off UNUSEDSIGNAL */  // address bits 1:0 are ignored; rel's high bits
function [DA_W-1:0] decode_a(input [15:0] addr);
    reg [31:0] a, rel;
/* verilator lint_on UNUSEDSIGNAL */
    reg [4:0]  k;
    reg        h_byp, h_job, h_mem, h_pc, h_dc;
    reg [15:0] i_byp, i_job, i_mem, i_pc, i_dc;
    reg [7:0]  o_job, o_mem, o_pc, o_dc;
    begin
        a = {16'd0, addr[15:2], 2'b00};
        case (a[15:0])
            WS_REG_ID:            k = K_ID;
            WS_REG_PARAM_WIDTH:   k = K_PWIDTH;
            WS_REG_PARAM_PORTS:   k = K_PPORTS;
            WS_REG_PARAM_JOBS:    k = K_PJOBS;
            WS_REG_PARAM_WORKERS: k = K_PWORKERS;
            WS_REG_PARAM_POOL:    k = K_PPOOL;
            WS_REG_PARAM_COUNT:   k = K_PCOUNT;
            WS_REG_PARAM_ENGINES: k = K_PENGINES;
            WS_REG_PARAM_MAX_FRAME: k = K_PMAXFRAME;
            WS_REG_PARAM_PARTIAL: k = K_PPARTIAL;
            WS_REG_CTRL:          k = K_CTRL;
            WS_REG_STATUS:        k = K_STATUS;
            WS_REG_DEV_MAC_HI:    k = K_MAC_HI;
            WS_REG_DEV_MAC_LO:    k = K_MAC_LO;
            WS_REG_DEV_IP:        k = K_IP;
            WS_REG_DEV_UDP_PORT:  k = K_UDP;
            default:              k = K_NONE;
        endcase
        // a table: BASE <= a < BASE + SPAN, as two compares with constants
        h_byp = a >= {16'd0, WS_TBL_BYPASS_BASE} && a < {16'd0, WS_TBL_BYPASS_BASE} + BYP_SPAN;
        rel = a - {16'd0, WS_TBL_BYPASS_BASE};
        i_byp = rel[BYP_SH +: 16];
        h_job = a >= {16'd0, WS_TBL_JOB_BASE} && a < {16'd0, WS_TBL_JOB_BASE} + JOB_SPAN;
        rel = a - {16'd0, WS_TBL_JOB_BASE};
        i_job = rel[JOB_SH +: 16];
        o_job = rel[7:0] & (WS_TBL_JOB_STRIDE[7:0] - 8'd1);
        h_mem = a >= {16'd0, WS_TBL_MEMBER_BASE} && a < {16'd0, WS_TBL_MEMBER_BASE} + MEM_SPAN;
        rel = a - {16'd0, WS_TBL_MEMBER_BASE};
        i_mem = rel[MEM_SH +: 16];
        o_mem = rel[7:0] & (WS_TBL_MEMBER_STRIDE[7:0] - 8'd1);
        h_pc = a >= {16'd0, WS_TBL_PORT_CNT_BASE} && a < {16'd0, WS_TBL_PORT_CNT_BASE} + PC_SPAN;
        rel = a - {16'd0, WS_TBL_PORT_CNT_BASE};
        i_pc = rel[3 +: 16];
        o_pc = rel[7:0] & 8'd7;
        h_dc = a >= {16'd0, WS_CNT_DEV_BASE} && a < {16'd0, WS_CNT_DEV_BASE} + DC_SPAN;
        rel = a - {16'd0, WS_CNT_DEV_BASE};
        i_dc = rel[3 +: 16] + C_DEV16;
        o_dc = rel[7:0] & 8'd7;
        decode_a = {k, h_byp, h_job, h_mem, h_pc, h_dc, i_byp, i_job, i_mem, i_pc, i_dc,
                    o_job, o_mem, o_pc, o_dc};
    end
endfunction

function [DEC_W-1:0] decode_b(input [DA_W-1:0] d);
    reg [4:0]  k;
    reg [15:0] idx;
    reg [7:0]  off;
    reg        h_byp, h_job, h_mem, h_pc, h_dc;
    reg [15:0] i_byp, i_job, i_mem, i_pc, i_dc;
    reg [7:0]  o_job, o_mem, o_pc, o_dc;
    begin
        {k, h_byp, h_job, h_mem, h_pc, h_dc, i_byp, i_job, i_mem, i_pc, i_dc,
         o_job, o_mem, o_pc, o_dc} = d;
        idx = 16'd0;
        off = 8'd0;
        if (h_byp) begin
            k = K_BYPASS;
            idx = i_byp;
        end
        if (h_job) begin
            idx = i_job;
            off = o_job;
            if ({8'd0, off} == WS_REG_JOB_ID_OFF || {8'd0, off} == WS_REG_JOB_WORKERS_OFF ||
                {8'd0, off} == WS_REG_JOB_SLOTS_OFF || {8'd0, off} == WS_REG_JOB_SLOT_BASE_OFF ||
                {8'd0, off} == WS_REG_JOB_MAX_COUNT_OFF || {8'd0, off} == WS_REG_JOB_CTRL_OFF ||
                {8'd0, off} == WS_REG_JOB_PARENT_OFF || {8'd0, off} == WS_REG_JOB_PAR_MAC_HI_OFF ||
                {8'd0, off} == WS_REG_JOB_PAR_MAC_LO_OFF || {8'd0, off} == WS_REG_JOB_PAR_IP_OFF ||
                {8'd0, off} == WS_REG_JOB_PAR_PORT_OFF || {8'd0, off} == WS_REG_JOB_PAR_JOB_OFF ||
                {8'd0, off} == WS_REG_JOB_PAR_RANK_OFF)
                k = K_JOB;
        end
        if (h_mem) begin
            k = K_MEMBER;
            idx = i_mem;
            off = o_mem;
        end
        if (h_pc) begin
            k = K_CNT;
            idx = i_pc;
            off = o_pc;
        end
        if (h_dc) begin
            k = K_CNT;
            idx = i_dc;
            off = o_dc;
        end
        decode_b = {k, idx, off};
    end
endfunction

// Byte-strobe merge of a write into a 32-bit value.
function [31:0] merge(input [31:0] old, input [31:0] data, input [3:0] strb);
    integer b;
    begin
        for (b = 0; b < 4; b = b + 1)
            merge[b*8 +: 8] = strb[b] ? data[b*8 +: 8] : old[b*8 +: 8];
    end
endfunction

// Reset value of BYPASS[bp]: bp XOR 1, or bp when that is not a port (as ws_config_default()).
function [PORT_W-1:0] bypass_reset(input integer bp);
    integer be;
    begin
        be = bp ^ 1;
        if (be >= N_PORTS)
            be = bp;
        bypass_reset = be[PORT_W-1:0];
    end
endfunction

// A member as the datapath reads it (ws_member.vh) from its record's words.
/* verilator lint_off UNUSEDSIGNAL */  // the reserved bits of the member words
function [MEM_W-1:0] member(input [M_BITS-1:0] rec);
/* verilator lint_on UNUSEDSIGNAL */
    begin
        member = member_pack({rec[M_MACH*32 + WS_MEMBER_MAC_HI_MAC_LSB +: 16], rec[M_MACL*32 +: 32]},
                             rec[M_IP*32 +: 32], rec[M_PORT*32 + WS_MEMBER_PORT_UDP_PORT_LSB +: 16],
                             rec[M_PORT*32 + DP_LSB +: PORT_W]);
    end
endfunction

// Bits of a member word that exist (the others read 0).
function [31:0] member_mask(input [1:0] word);
    begin
        if (word == M_MACH[1:0])
            member_mask = {{(32-WS_MEMBER_MAC_HI_MAC_WIDTH){1'b0}}, {WS_MEMBER_MAC_HI_MAC_WIDTH{1'b1}}}
                          << WS_MEMBER_MAC_HI_MAC_LSB;
        else if (word == M_PORT[1:0])
            member_mask = ({{(32-WS_MEMBER_PORT_UDP_PORT_WIDTH){1'b0}}, {WS_MEMBER_PORT_UDP_PORT_WIDTH{1'b1}}}
                           << WS_MEMBER_PORT_UDP_PORT_LSB) |
                          ({{(32-WS_MEMBER_PORT_DEV_PORT_WIDTH){1'b0}}, {WS_MEMBER_PORT_DEV_PORT_WIDTH{1'b1}}}
                           << WS_MEMBER_PORT_DEV_PORT_LSB);
        else
            member_mask = 32'hFFFF_FFFF;
    end
endfunction

localparam [31:0] P_WIDTH   = DATA_WIDTH;
localparam [31:0] P_PORTS   = N_PORTS;
localparam [31:0] P_JOBS    = MAX_JOBS;
localparam [31:0] P_WORKERS = MAX_WORKERS;
localparam [31:0] P_POOL    = POOL_SLOTS;
localparam [31:0] P_COUNT   = MAX_COUNT;
localparam [31:0] P_ENGINES = ENGINES;
localparam [31:0] P_MAXFRAME = MAX_FRAME;
localparam [31:0] P_PARTIAL = PARTIAL;

// ---- configuration state ----------------------------------------------------------------------
reg  [7:0]      status_code;
reg  [JI_W-1:0] status_job;
reg             clr_cnt;      // clear the counters (CTRL.CLEAR_COUNTERS), a pulse

// values written to the job table, committed by JOB_CTRL
// (job j at [j*16 +: 16], [j*32 +: 32], ...)
reg  [MAX_JOBS*16-1:0] st_id, st_wk, st_sl, st_base, st_mc;
// and the parent's: JOB_PARENT.ENABLE, MAC, IP, {device port, UDP port}, job, rank
reg  [MAX_JOBS-1:0]    st_pen;
reg  [MAX_JOBS*48-1:0] st_pmac;
reg  [MAX_JOBS*32-1:0] st_pip;
reg  [MAX_JOBS*24-1:0] st_pport;
reg  [MAX_JOBS*16-1:0] st_pjob, st_prank;

// Job j's record as it reads, word k (byte offset 4k) at [k*32 +: 32]: the staged values in
// their fields, JOB_CTRL and the unmapped words 0 (constants, which synthesis drops)
localparam J_WORDS = WS_TBL_JOB_STRIDE / 4;
localparam J_BITS  = 32 * J_WORDS;
localparam JW_ID   = WS_REG_JOB_ID_OFF / 4;
localparam JW_WK   = WS_REG_JOB_WORKERS_OFF / 4;
localparam JW_SL   = WS_REG_JOB_SLOTS_OFF / 4;
localparam JW_BASE = WS_REG_JOB_SLOT_BASE_OFF / 4;
localparam JW_MC   = WS_REG_JOB_MAX_COUNT_OFF / 4;
localparam JW_PEN  = WS_REG_JOB_PARENT_OFF / 4;
localparam JW_PMH  = WS_REG_JOB_PAR_MAC_HI_OFF / 4;
localparam JW_PML  = WS_REG_JOB_PAR_MAC_LO_OFF / 4;
localparam JW_PIP  = WS_REG_JOB_PAR_IP_OFF / 4;
localparam JW_PPT  = WS_REG_JOB_PAR_PORT_OFF / 4;
localparam JW_PJOB = WS_REG_JOB_PAR_JOB_OFF / 4;
localparam JW_PRK  = WS_REG_JOB_PAR_RANK_OFF / 4;
localparam JW_W    = $clog2(J_WORDS);
reg  [MAX_JOBS*J_BITS-1:0] st_rec;
integer jr;
always @(*) begin
    st_rec = {MAX_JOBS*J_BITS{1'b0}};
    for (jr = 0; jr < MAX_JOBS; jr = jr + 1) begin
        st_rec[jr*J_BITS + JW_ID*32 +: 16]   = st_id[jr*16 +: 16];
        st_rec[jr*J_BITS + JW_WK*32 +: 16]   = st_wk[jr*16 +: 16];
        st_rec[jr*J_BITS + JW_SL*32 +: 16]   = st_sl[jr*16 +: 16];
        st_rec[jr*J_BITS + JW_BASE*32 +: 16] = st_base[jr*16 +: 16];
        st_rec[jr*J_BITS + JW_MC*32 +: 16]   = st_mc[jr*16 +: 16];
        st_rec[jr*J_BITS + JW_PEN*32 + WS_JOB_PARENT_ENABLE_LSB] = st_pen[jr];
        st_rec[jr*J_BITS + JW_PMH*32 + WS_JOB_PAR_MAC_HI_MAC_LSB +: 16] = st_pmac[jr*48 + 32 +: 16];
        st_rec[jr*J_BITS + JW_PML*32 +: 32]  = st_pmac[jr*48 +: 32];
        st_rec[jr*J_BITS + JW_PIP*32 +: 32]  = st_pip[jr*32 +: 32];
        st_rec[jr*J_BITS + JW_PPT*32 + WS_JOB_PAR_PORT_UDP_PORT_LSB +: 16] = st_pport[jr*24 +: 16];
        st_rec[jr*J_BITS + JW_PPT*32 + WS_JOB_PAR_PORT_DEV_PORT_LSB +: 8]  = st_pport[jr*24 + 16 +: 8];
        st_rec[jr*J_BITS + JW_PJOB*32 + WS_JOB_PAR_JOB_JOB_LSB +: 16]  = st_pjob[jr*16 +: 16];
        st_rec[jr*J_BITS + JW_PRK*32 + WS_JOB_PAR_RANK_RANK_LSB +: 16] = st_prank[jr*16 +: 16];
    end
end

// member table: three copies, written together
reg  [M_BITS-1:0]   mem_r [0:N_MEM-1];
reg  [N_MEM-1:0]    mem_ok;   // the member's device port was written since reset (always < N_PORTS)
reg                 mem_we;
reg  [MA_W-1:0]     mem_wi;
reg  [M_BITS/8-1:0] mem_wbe;
reg  [M_BITS-1:0]   mem_wd;

// ---- AXI4-Lite write channel ------------------------------------------------------------------
localparam [2:0] W_IDLE = 3'd0, W_CHECK = 3'd1, W_CHECK2 = 3'd2, W_APPLY = 3'd3, W_RESP = 3'd4;

reg  [2:0]  w_state;
reg         aw_full, w_full;
reg  [15:0] wr_addr;
reg  [31:0] wr_data;
reg  [3:0]  wr_strb;

wire aw_hs = s_axil_awvalid && s_axil_awready;
wire w_hs  = s_axil_wvalid && s_axil_wready;
wire b_hs  = s_axil_bvalid && s_axil_bready;
wire aw_full_next = (aw_full || aw_hs) && !b_hs;
wire w_full_next  = (w_full || w_hs) && !b_hs;
// A write address goes through three registers before the write: the two decode stages (wdec_a,
// wdec) and the register's old value read by the decode (w_old_r), so a write is a byte merge
// and an enable. aw_dec_a, aw_dec and aw_old say each holds the current address's; a write goes
// once aw_old and the data are there.
reg  [DA_W-1:0]  wdec_a;
reg  [DEC_W-1:0] wdec;
reg              aw_dec_a, aw_dec, aw_old;
wire go = aw_full && aw_old && w_full && w_state == W_IDLE;

wire [4:0]  wd_kind = wdec[DEC_W-1 -: 5];
/* verilator lint_off UNUSEDSIGNAL */  // the index field is as wide as the widest table needs
wire [15:0] wd_idx  = wdec[8 +: 16];
wire [7:0]  wd_off  = wdec[7:0];
/* verilator lint_on UNUSEDSIGNAL */
wire [JI_W-1:0]   wd_job  = wd_idx[JI_W-1:0];
wire [MA_W-1:0]   wd_mem  = wd_idx[MA_W-1:0];
wire [PORT_W-1:0] wd_port = wd_idx[PORT_W-1:0];
wire [1:0]        wd_word = wd_off[3:2];
wire wd_job_ctrl = {8'd0, wd_off} == WS_REG_JOB_CTRL_OFF;

// job j's 16-bit field of a table (an AND-OR over the jobs: no index arithmetic)
function [15:0] job16(input [MAX_JOBS*16-1:0] t, input [JI_W-1:0] j);
    integer i;
    begin
        job16 = 16'd0;
        for (i = 0; i < MAX_JOBS; i = i + 1)
            if (j == i[JI_W-1:0])
                job16 = t[i*16 +: 16];
    end
endfunction

// job j's 32-bit word of a table of words (an AND-OR over the jobs)
function [31:0] job32(input [MAX_JOBS*32-1:0] t, input [JI_W-1:0] j);
    integer i;
    begin
        job32 = 32'd0;
        for (i = 0; i < MAX_JOBS; i = i + 1)
            if (j == i[JI_W-1:0])
                job32 = t[i*32 +: 32];
    end
endfunction

// the staged word of job j at record offset off (0 for JOB_CTRL): the old value of a write and
// the value of a read. st_rec is read in place, not passed: a function's argument is a copy,
// and Verilator copies all of the record's bits at each call, 16 calls a cycle.
/* verilator lint_off UNUSEDSIGNAL */  // the offset's byte bits
function [31:0] job_field(input [7:0] off, input integer j);
/* verilator lint_on UNUSEDSIGNAL */
    begin
        job_field = st_rec[j*J_BITS + off[2 +: JW_W]*32 +: 32];
    end
endfunction

// the register a write merges into, read from wdec into w_old_r. A job's: the word at the
// offset chosen for every job as wdec is registered (w_jf, from the offset in wdec_a, as rd_jf
// for a read), the job from wdec, so that the record's word select and the job select are not
// behind one register (the staged record changes only by a write, which the next address's
// decode follows)
reg  [MAX_JOBS*32-1:0] w_jf;
wire [7:0]  wdec_a_off = wdec_a[DA_O_JOB +: 8];   // decode_a's o_job
integer     wj;
always @(posedge clk) begin
    for (wj = 0; wj < MAX_JOBS; wj = wj + 1)
        w_jf[wj*32 +: 32] <= job_field(wdec_a_off, wj);
end
reg  [31:0] w_old, w_old_r;
always @(*) begin
    w_old = 32'd0;
    case (wd_kind)
    K_MAC_HI: w_old = {16'd0, cfg_dev_mac[47:32]};
    K_MAC_LO: w_old = cfg_dev_mac[31:0];
    K_IP:     w_old = cfg_dev_ip;
    K_UDP:    w_old = {16'd0, cfg_dev_udp};
    K_JOB:    w_old = job32(w_jf, wd_job);
    default:  w_old = 32'd0;
    endcase
end
/* verilator lint_off UNUSEDSIGNAL */  // 16-bit registers take the low half
wire [31:0] w_new = merge(w_old_r, wr_data, wr_strb);
/* verilator lint_on UNUSEDSIGNAL */

// A commit (a write of JOB_CTRL) takes four cycles, each a few LUT levels deep:
//   W_IDLE   the job's staged values into cm_*;
//   W_CHECK  the field checks, the job's end (base + slots), the ranks it needs, and per job of
//            the table: same ID, and this job's base below that job's end;
//   W_CHECK2 the checks that need the end or the ranks, and the ORs over the jobs;
//   W_APPLY  the active configuration, STATUS and the job_clear pulse.
reg  [JI_W-1:0]        cm_job;
reg  [MAX_JOBS-1:0]    cm_job_hot;   // cm_job, one-hot
reg                    cm_en;
reg  [15:0]            cm_id, cm_wk, cm_sl, cm_base, cm_mc;
reg  [16:0]            cm_end;       // one past the job's last slot (W_CHECK)
reg  [MAX_WORKERS-1:0] cm_mok;
reg  [MAX_WORKERS-1:0] cm_need;      // the ranks below the job's workers (W_CHECK)
reg  [MAX_JOBS-1:0]    ck_id_j;      // job j is another enabled job with the same ID (W_CHECK)
reg  [MAX_JOBS-1:0]    ck_lo_j;      // job j is another enabled job that ends after our base (W_CHECK)
reg                    cf_wk, cf_sl, cf_mc, cf_pool, cf_id, cf_ovl, cf_mem;
// the parent's values (W_IDLE) and their checks (W_CHECK)
reg                    cm_pen;
reg  [47:0]            cm_pmac;
reg  [31:0]            cm_pip;
reg  [23:0]            cm_pport;     // {device port, UDP port}
reg  [15:0]            cm_pjob, cm_prank;
reg                    cf_pnp, cf_paddr, cf_pport, cf_prank;

// each active job's end, registered: the configuration it is computed from changes only in
// W_APPLY, at least four cycles before the next commit's W_CHECK reads it
reg  [16:0]            job_end [0:MAX_JOBS-1];   // a word per job: see ws_counters' cnt
integer je;
always @(posedge clk) begin
    for (je = 0; je < MAX_JOBS; je = je + 1)
        job_end[je] <= {{(17-SL_W){1'b0}}, cfg_job_base[je*SL_W +: SL_W]} +
                       {{(17-SL_W){1'b0}}, cfg_job_slots[je*SL_W +: SL_W]};
end

// job j overlaps: it starts before our end (both checked in W_CHECK2, with ck_lo_j from W_CHECK)
reg  [MAX_JOBS-1:0] ck_hi_j;
always @(*) begin
    for (je = 0; je < MAX_JOBS; je = je + 1)
        ck_hi_j[je] = {{(17-SL_W){1'b0}}, cfg_job_base[je*SL_W +: SL_W]} < cm_end;
end

wire [7:0] cm_code = cf_wk   ? WS_COMMIT_BAD_WORKERS :
                     cf_sl   ? WS_COMMIT_BAD_SLOTS :
                     cf_mc   ? WS_COMMIT_BAD_MAX_COUNT :
                     cf_pool ? WS_COMMIT_SLOTS_OUTSIDE_POOL :
                     cf_id   ? WS_COMMIT_DUP_JOB_ID :
                     cf_ovl  ? WS_COMMIT_SLOT_OVERLAP :
                     cf_mem  ? WS_COMMIT_BAD_MEMBER_PORT :
                     cf_pnp  ? WS_COMMIT_PARENT_NOT_PARTIAL :
                     cf_paddr ? WS_COMMIT_BAD_PARENT_ADDR :
                     cf_pport ? WS_COMMIT_BAD_PARENT_PORT :
                     cf_prank ? WS_COMMIT_BAD_PARENT_RANK : WS_COMMIT_OK;
wire cm_ok = cm_en && !(cf_wk || cf_sl || cf_mc || cf_pool || cf_id || cf_ovl || cf_mem ||
                        cf_pnp || cf_paddr || cf_pport || cf_prank);

integer wp;
always @(posedge clk) begin
    mem_we <= 1'b0;
    job_clear <= 1'b0;
    clr_cnt <= 1'b0;
    if (aw_hs)
        wr_addr <= s_axil_awaddr;
    wdec_a <= decode_a(wr_addr);
    wdec <= decode_b(wdec_a);
    w_old_r <= w_old;
    aw_dec_a <= aw_full && !b_hs;
    aw_dec <= aw_dec_a && !b_hs;
    aw_old <= aw_dec && !b_hs;
    if (w_hs) begin
        wr_data <= s_axil_wdata;
        wr_strb <= s_axil_wstrb;
    end
    aw_full <= aw_full_next;
    w_full <= w_full_next;
    s_axil_awready <= !aw_full_next;
    s_axil_wready <= !w_full_next;
    if (b_hs)
        s_axil_bvalid <= 1'b0;

    case (w_state)
    W_IDLE: if (go) begin
        w_state <= W_RESP;
        s_axil_bvalid <= 1'b1;
        s_axil_bresp <= RESP_OKAY;
        case (wd_kind)
        K_CTRL:
            clr_cnt <= wr_strb[WS_CTRL_CLEAR_COUNTERS_LSB / 8] && wr_data[WS_CTRL_CLEAR_COUNTERS_LSB];
        K_MAC_HI: cfg_dev_mac[47:32] <= w_new[15:0];
        K_MAC_LO: cfg_dev_mac[31:0] <= w_new;
        K_IP:     cfg_dev_ip <= w_new;
        K_UDP:    cfg_dev_udp <= w_new[15:0];
        K_BYPASS:
            if (wr_strb[WS_BYPASS_EGRESS_LSB / 8]) begin
                if ({24'd0, wr_data[WS_BYPASS_EGRESS_LSB +: 8]} < P_PORTS) begin
                    for (wp = 0; wp < N_PORTS; wp = wp + 1)
                        if (wd_port == wp[PORT_W-1:0])
                            cfg_bypass[wp*PORT_W +: PORT_W] <= wr_data[WS_BYPASS_EGRESS_LSB +: PORT_W];
                end else begin
                    s_axil_bresp <= RESP_SLVERR;
                end
            end
        K_JOB:
            if (wd_job_ctrl) begin
                if (wr_strb[WS_JOB_CTRL_ENABLE_LSB / 8]) begin  // commit
                    s_axil_bvalid <= 1'b0;
                    w_state <= W_CHECK;
                    cm_job <= wd_job;
                    for (wp = 0; wp < MAX_JOBS; wp = wp + 1)
                        cm_job_hot[wp] <= wd_job == wp[JI_W-1:0];
                    cm_en <= wr_data[WS_JOB_CTRL_ENABLE_LSB];
                    cm_id <= job16(st_id, wd_job);
                    cm_wk <= job16(st_wk, wd_job);
                    cm_sl <= job16(st_sl, wd_job);
                    cm_base <= job16(st_base, wd_job);
                    cm_mc <= job16(st_mc, wd_job);
                    for (wp = 0; wp < MAX_JOBS; wp = wp + 1)
                        if (wd_job == wp[JI_W-1:0]) begin
                            cm_pen <= st_pen[wp];
                            cm_pmac <= st_pmac[wp*48 +: 48];
                            cm_pip <= st_pip[wp*32 +: 32];
                            cm_pport <= st_pport[wp*24 +: 24];
                            cm_pjob <= st_pjob[wp*16 +: 16];
                            cm_prank <= st_prank[wp*16 +: 16];
                        end
                    for (wp = 0; wp < MAX_JOBS; wp = wp + 1)
                        if (wd_job == wp[JI_W-1:0])
                            cm_mok <= mem_ok[wp*MAX_WORKERS +: MAX_WORKERS];
                end
            end else begin
                for (wp = 0; wp < MAX_JOBS; wp = wp + 1) begin
                    if (wd_job == wp[JI_W-1:0]) begin
                        if ({8'd0, wd_off} == WS_REG_JOB_ID_OFF)
                            st_id[wp*16 +: 16] <= w_new[15:0];
                        if ({8'd0, wd_off} == WS_REG_JOB_WORKERS_OFF)
                            st_wk[wp*16 +: 16] <= w_new[15:0];
                        if ({8'd0, wd_off} == WS_REG_JOB_SLOTS_OFF)
                            st_sl[wp*16 +: 16] <= w_new[15:0];
                        if ({8'd0, wd_off} == WS_REG_JOB_SLOT_BASE_OFF)
                            st_base[wp*16 +: 16] <= w_new[15:0];
                        if ({8'd0, wd_off} == WS_REG_JOB_MAX_COUNT_OFF)
                            st_mc[wp*16 +: 16] <= w_new[15:0];
                        if ({8'd0, wd_off} == WS_REG_JOB_PARENT_OFF)
                            st_pen[wp] <= w_new[WS_JOB_PARENT_ENABLE_LSB];
                        if ({8'd0, wd_off} == WS_REG_JOB_PAR_MAC_HI_OFF)
                            st_pmac[wp*48 + 32 +: 16] <= w_new[WS_JOB_PAR_MAC_HI_MAC_LSB +: 16];
                        if ({8'd0, wd_off} == WS_REG_JOB_PAR_MAC_LO_OFF)
                            st_pmac[wp*48 +: 32] <= w_new;
                        if ({8'd0, wd_off} == WS_REG_JOB_PAR_IP_OFF)
                            st_pip[wp*32 +: 32] <= w_new;
                        if ({8'd0, wd_off} == WS_REG_JOB_PAR_PORT_OFF)
                            st_pport[wp*24 +: 24] <= {w_new[WS_JOB_PAR_PORT_DEV_PORT_LSB +: 8],
                                                      w_new[WS_JOB_PAR_PORT_UDP_PORT_LSB +: 16]};
                        if ({8'd0, wd_off} == WS_REG_JOB_PAR_JOB_OFF)
                            st_pjob[wp*16 +: 16] <= w_new[WS_JOB_PAR_JOB_JOB_LSB +: 16];
                        if ({8'd0, wd_off} == WS_REG_JOB_PAR_RANK_OFF)
                            st_prank[wp*16 +: 16] <= w_new[WS_JOB_PAR_RANK_RANK_LSB +: 16];
                    end
                end
            end
        K_MEMBER:
            if (wd_word == M_PORT[1:0] && wr_strb[DP_LSB / 8] &&
                {24'd0, wr_data[DP_LSB +: 8]} >= P_PORTS) begin
                s_axil_bresp <= RESP_SLVERR;  // a device port that does not exist: refused
            end else begin
                mem_we <= 1'b1;
                mem_wi <= wd_mem;
                mem_wd <= {M_WORDS{wr_data}};
                mem_wbe <= {{(M_BITS/8-4){1'b0}}, wr_strb} << (4 * wd_word);
                if (wd_word == M_PORT[1:0] && wr_strb[DP_LSB / 8])
                    for (wp = 0; wp < N_MEM; wp = wp + 1)   // a compare each, no index arithmetic
                        if (wd_mem == wp[MA_W-1:0])
                            mem_ok[wp] <= 1'b1;
            end
        default:  // read-only or unmapped
            s_axil_bresp <= RESP_SLVERR;
        endcase
    end
    W_CHECK: begin
        w_state <= W_CHECK2;
        // constant comparisons when a parameter is the largest value of its 16-bit field
        /* verilator lint_off CMPCONST */
        cf_wk <= cm_wk == 16'd0 || {16'd0, cm_wk} > P_WORKERS;
        cf_sl <= cm_sl == 16'd0 || {16'd0, cm_sl} > P_POOL;
        cf_mc <= cm_mc == 16'd0 || {16'd0, cm_mc} > P_COUNT;
        /* verilator lint_on CMPCONST */
        cm_end <= {1'b0, cm_base} + {1'b0, cm_sl};
        // the parent, as driver/config.c checks it (the multicast bit is byte 0's bit 0)
        cf_pnp <= cm_pen && PARTIAL == 0;
        cf_paddr <= cm_pen && (cm_pmac[40] || cm_pport[15:0] == 16'd0 || cm_pip == cfg_dev_ip);
        cf_pport <= cm_pen && {24'd0, cm_pport[23:16]} >= P_PORTS;
        cf_prank <= cm_pen && {16'd0, cm_prank} >= WS_LIMIT_WORKERS;
        for (wp = 0; wp < MAX_WORKERS; wp = wp + 1)
            cm_need[wp] <= wp < {16'd0, cm_wk};
        for (wp = 0; wp < MAX_JOBS; wp = wp + 1) begin
            ck_id_j[wp] <= cfg_job_en[wp] && !cm_job_hot[wp] && cfg_job_id[wp*16 +: 16] == cm_id;
            ck_lo_j[wp] <= cfg_job_en[wp] && !cm_job_hot[wp] && {1'b0, cm_base} < job_end[wp];
        end
    end
    W_CHECK2: begin
        w_state <= W_APPLY;
        cf_pool <= {15'd0, cm_end} > P_POOL;
        cf_id <= |ck_id_j;
        cf_ovl <= |(ck_lo_j & ck_hi_j);
        cf_mem <= (cm_need & ~cm_mok) != {MAX_WORKERS{1'b0}};
    end
    W_APPLY: begin
        w_state <= W_RESP;
        s_axil_bvalid <= 1'b1;
        s_axil_bresp <= RESP_OKAY;
        status_job <= cm_job;
        status_code <= cm_en ? cm_code : WS_COMMIT_OK;
        // one enable per job, from cm_job_hot (no index arithmetic in front of the writes)
        for (wp = 0; wp < MAX_JOBS; wp = wp + 1) begin
            if (cm_job_hot[wp]) begin
                if (cm_ok) begin
                    cfg_job_en[wp] <= 1'b1;
                    cfg_job_id[wp*16 +: 16] <= cm_id;
                    cfg_job_workers[wp*WC_W +: WC_W] <= cm_wk[WC_W-1:0];
                    cfg_job_slots[wp*SL_W +: SL_W] <= cm_sl[SL_W-1:0];
                    cfg_job_base[wp*SL_W +: SL_W] <= cm_base[SL_W-1:0];
                    cfg_job_maxcount[wp*CN_W +: CN_W] <= cm_mc[CN_W-1:0];
                    cfg_job_par_en[wp] <= cm_pen;
                    cfg_job_par_mac[wp*48 +: 48] <= cm_pmac;
                    cfg_job_par_ip[wp*32 +: 32] <= cm_pip;
                    cfg_job_par_udp[wp*16 +: 16] <= cm_pport[15:0];
                    cfg_job_par_port[wp*PORT_W +: PORT_W] <= cm_pport[16 +: PORT_W];
                    cfg_job_par_job[wp*16 +: 16] <= cm_pjob;
                    cfg_job_par_rank[wp*16 +: 16] <= cm_prank;
                end else begin
                    cfg_job_en[wp] <= 1'b0;
                end
            end
        end
        if (cm_ok) begin
            job_clear <= 1'b1;
            job_clear_idx <= cm_job;
            job_clear_base <= cm_base[SL_W-1:0];
            job_clear_end <= cm_end[SL_W:0];
        end
    end
    default:  // W_RESP: wait for the response to be taken
        if (b_hs)
            w_state <= W_IDLE;
    endcase

    if (rst) begin
        w_state <= W_IDLE;
        aw_full <= 1'b0;
        aw_dec_a <= 1'b0;
        aw_dec <= 1'b0;
        aw_old <= 1'b0;
        w_full <= 1'b0;
        s_axil_awready <= 1'b0;
        s_axil_wready <= 1'b0;
        s_axil_bvalid <= 1'b0;
        s_axil_bresp <= RESP_OKAY;
        mem_we <= 1'b0;
        job_clear <= 1'b0;
        job_clear_idx <= {JI_W{1'b0}};
        job_clear_base <= {SL_W{1'b0}};
        job_clear_end <= {(SL_W+1){1'b0}};
        clr_cnt <= 1'b0;
        status_code <= WS_COMMIT_OK;
        status_job <= {JI_W{1'b0}};
        cfg_dev_mac <= {WS_RESET_DEV_MAC_HI[15:0], WS_RESET_DEV_MAC_LO};
        cfg_dev_ip <= WS_RESET_DEV_IP;
        cfg_dev_udp <= WS_RESET_DEV_UDP_PORT[15:0];
        for (wp = 0; wp < N_PORTS; wp = wp + 1)
            cfg_bypass[wp*PORT_W +: PORT_W] <= bypass_reset(wp);
        cfg_job_en <= {MAX_JOBS{1'b0}};
        cfg_job_id <= {MAX_JOBS*16{1'b0}};
        cfg_job_workers <= {MAX_JOBS*WC_W{1'b0}};
        cfg_job_slots <= {MAX_JOBS*SL_W{1'b0}};
        cfg_job_base <= {MAX_JOBS*SL_W{1'b0}};
        cfg_job_maxcount <= {MAX_JOBS*CN_W{1'b0}};
        cfg_job_par_en <= {MAX_JOBS{1'b0}};
        cfg_job_par_mac <= {MAX_JOBS*48{1'b0}};
        cfg_job_par_ip <= {MAX_JOBS*32{1'b0}};
        cfg_job_par_udp <= {MAX_JOBS*16{1'b0}};
        cfg_job_par_port <= {MAX_JOBS*PORT_W{1'b0}};
        cfg_job_par_job <= {MAX_JOBS*16{1'b0}};
        cfg_job_par_rank <= {MAX_JOBS*16{1'b0}};
        st_id <= {MAX_JOBS*16{1'b0}};
        st_wk <= {MAX_JOBS*16{1'b0}};
        st_sl <= {MAX_JOBS*16{1'b0}};
        st_base <= {MAX_JOBS*16{1'b0}};
        st_mc <= {MAX_JOBS*16{1'b0}};
        st_pen <= {MAX_JOBS{1'b0}};
        st_pmac <= {MAX_JOBS*48{1'b0}};
        st_pip <= {MAX_JOBS*32{1'b0}};
        st_pport <= {MAX_JOBS*24{1'b0}};
        st_pjob <= {MAX_JOBS*16{1'b0}};
        st_prank <= {MAX_JOBS*16{1'b0}};
        mem_ok <= {N_MEM{1'b0}};
    end
end

// ---- member table RAMs ------------------------------------------------------------------------
localparam [2:0] R_IDLE = 3'd0, R_DEC = 3'd1, R_DEC2 = 3'd2, R_FETCH = 3'd3, R_DATA = 3'd4, R_RESP = 3'd5;

reg  [2:0]        r_state;
reg  [15:0]       rd_addr;
reg  [M_BITS-1:0] mem_rq;     // member entry for an AXI read

reg  [DA_W-1:0]  rdec_a;       // decode of rd_addr, first stage (R_DEC)
reg  [DEC_W-1:0] rdec;         // and second (R_DEC2)
/* verilator lint_off UNUSEDSIGNAL */  // the index field is as wide as the widest table needs
wire [15:0] rdec_idx = rdec[8 +: 16];
/* verilator lint_on UNUSEDSIGNAL */
wire [MA_W-1:0] rdec_mem = rdec_idx[MA_W-1:0];
wire [CI_W-1:0] rdec_cnt = rdec_idx[CI_W-1:0];

integer mb;
always @(posedge clk) begin
    if (mem_we) begin
        for (mb = 0; mb < M_BITS/8; mb = mb + 1) begin
            if (mem_wbe[mb]) begin
                mem_r[mem_wi][mb*8 +: 8] <= mem_wd[mb*8 +: 8];
            end
        end
    end
    if (r_state == R_FETCH)
        mem_rq <= mem_r[rdec_mem];
end

// the datapath copies, two per engine (parser, result generator)
genvar ge;
generate
    for (ge = 0; ge < ENGINES; ge = ge + 1) begin : g_mem_rd
        reg [M_BITS-1:0] mem_a [0:N_MEM-1];
        reg [M_BITS-1:0] mem_b [0:N_MEM-1];
        integer eb;
        always @(posedge clk) begin
            if (mem_we) begin
                for (eb = 0; eb < M_BITS/8; eb = eb + 1) begin
                    if (mem_wbe[eb]) begin
                        mem_a[mem_wi][eb*8 +: 8] <= mem_wd[eb*8 +: 8];
                        mem_b[mem_wi][eb*8 +: 8] <= mem_wd[eb*8 +: 8];
                    end
                end
            end
            mem_rda_data[ge*MEM_W +: MEM_W] <= member(mem_a[mem_rda_addr[ge*MA_W +: MA_W]]);
            mem_rdb_data[ge*MEM_W +: MEM_W] <= member(mem_b[mem_rdb_addr[ge*MA_W +: MA_W]]);
        end
    end
endgenerate

// ---- counters ---------------------------------------------------------------------------------
wire [63:0] cnt_q;    // counter for an AXI read (R_FETCH)

ws_counters #(.N_PORTS(N_PORTS), .ENGINES(ENGINES)) counters (
    .clk(clk), .rst(rst), .clr(clr_cnt),
    .stat_rx(stat_rx), .stat_rx_len(stat_rx_len), .stat_tx(stat_tx), .stat_tx_len(stat_tx_len),
    .stat_accepted(stat_accepted), .stat_result(stat_result), .stat_resend(stat_resend),
    .stat_bypass(stat_bypass), .stat_oversize(stat_oversize),
    .stat_drop_a(stat_drop_a), .stat_drop_a_reason(stat_drop_a_reason),
    .stat_drop_b(stat_drop_b), .stat_drop_b_reason(stat_drop_b_reason),
    .rd_en(r_state == R_FETCH), .rd_idx(rdec_cnt), .cnt_q(cnt_q)
);

// ---- AXI4-Lite read channel -------------------------------------------------------------------
// R_IDLE: arready; R_DEC, R_DEC2: decode; R_FETCH: RAM, counter and job field read; R_DATA: rdata;
// R_RESP: rvalid.
reg  [4:0]      rq_kind;
/* verilator lint_off UNUSEDSIGNAL */  // the index field is as wide as the widest table needs
reg  [15:0]     rq_idx;
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_off UNUSEDSIGNAL */  // a member word (3:2) and a counter half (2); the job's came in rq_jobv
reg  [7:0]      rq_off;
/* verilator lint_on UNUSEDSIGNAL */
reg  [31:0]     hi_latch;     // HI word of the counter whose LO was read last
reg  [CI_W-1:0] hi_idx;
reg             hi_ok;

reg  [31:0]     rq_jobv;      // the job register read (R_FETCH)
reg             rq_hi_hit;    // hi_idx is the counter read (R_FETCH)

// the job register at rdec, read in R_FETCH (a job field and the enable bit): the field at the
// offset is chosen for every job in R_DEC2 (rd_jf, from the offset in rdec_a), the job in R_FETCH
wire [JI_W-1:0] rdec_job = rdec_idx[JI_W-1:0];
wire [7:0]      rdec_off = rdec[7:0];
wire [7:0]      rdec_a_off = rdec_a[DA_O_JOB +: 8];   // decode_a's o_job
reg  [MAX_JOBS*32-1:0] rd_jf;
reg  [31:0]     rd_job;
integer         rp;
always @(posedge clk) begin
    for (rp = 0; rp < MAX_JOBS; rp = rp + 1)
        rd_jf[rp*32 +: 32] <= job_field(rdec_a_off, rp);
end
always @(*) begin
    rd_job = job32(rd_jf, rdec_job);
    if ({8'd0, rdec_off} == WS_REG_JOB_CTRL_OFF)
        for (rp = 0; rp < MAX_JOBS; rp = rp + 1)
            if (rdec_job == rp[JI_W-1:0])
                rd_job[WS_JOB_CTRL_ENABLE_LSB] = cfg_job_en[rp];
end
wire [PORT_W-1:0] rq_port = rq_idx[PORT_W-1:0];
wire [CI_W-1:0]   rq_cnt  = rq_idx[CI_W-1:0];

reg  [31:0] rd_val;
always @(*) begin
    rd_val = 32'd0;
    case (rq_kind)
    K_ID:       rd_val = WS_ID_VALUE;
    K_PWIDTH:   rd_val = P_WIDTH;
    K_PPORTS:   rd_val = P_PORTS;
    K_PJOBS:    rd_val = P_JOBS;
    K_PWORKERS: rd_val = P_WORKERS;
    K_PPOOL:    rd_val = P_POOL;
    K_PCOUNT:   rd_val = P_COUNT;
    K_PENGINES: rd_val = P_ENGINES;
    K_PMAXFRAME: rd_val = P_MAXFRAME;
    K_PPARTIAL: rd_val = P_PARTIAL;
    K_CTRL:     rd_val = 32'd0;
    K_STATUS: begin
        rd_val[WS_STATUS_CODE_LSB +: 8] = status_code;
        rd_val[WS_STATUS_JOB_LSB +: JI_W] = status_job;
    end
    K_MAC_HI:   rd_val = {16'd0, cfg_dev_mac[47:32]};
    K_MAC_LO:   rd_val = cfg_dev_mac[31:0];
    K_IP:       rd_val = cfg_dev_ip;
    K_UDP:      rd_val = {16'd0, cfg_dev_udp};
    K_BYPASS:
        for (rp = 0; rp < N_PORTS; rp = rp + 1)
            if (rq_port == rp[PORT_W-1:0])
                rd_val[WS_BYPASS_EGRESS_LSB +: PORT_W] = cfg_bypass[rp*PORT_W +: PORT_W];
    K_JOB:      rd_val = rq_jobv;
    K_MEMBER:   rd_val = mem_rq[rq_off[3:2]*32 +: 32] & member_mask(rq_off[3:2]);
    K_CNT:
        if (!rq_off[2])
            rd_val = cnt_q[31:0];
        else if (hi_ok && rq_hi_hit)
            rd_val = hi_latch;
        else
            rd_val = cnt_q[63:32];
    default:    rd_val = 32'd0;
    endcase
end

always @(posedge clk) begin
    case (r_state)
    R_IDLE:
        if (s_axil_arvalid && s_axil_arready) begin
            rd_addr <= s_axil_araddr;
            s_axil_arready <= 1'b0;
            r_state <= R_DEC;
        end else begin
            s_axil_arready <= 1'b1;
        end
    R_DEC: begin
        rdec_a <= decode_a(rd_addr);
        r_state <= R_DEC2;
    end
    R_DEC2: begin
        rdec <= decode_b(rdec_a);
        r_state <= R_FETCH;
    end
    R_FETCH: begin
        rq_kind <= rdec[DEC_W-1 -: 5];
        rq_idx <= rdec_idx;
        rq_off <= rdec[7:0];
        rq_jobv <= rd_job;
        rq_hi_hit <= hi_idx == rdec_cnt;
        r_state <= R_DATA;
    end
    R_DATA: begin
        s_axil_rdata <= rd_val;
        s_axil_rresp <= rq_kind == K_NONE ? RESP_SLVERR : RESP_OKAY;
        s_axil_rvalid <= 1'b1;
        if (rq_kind == K_CNT && !rq_off[2]) begin
            hi_latch <= cnt_q[63:32];
            hi_idx <= rq_cnt;
            hi_ok <= 1'b1;
        end else if (rq_kind == K_CNT && rq_hi_hit) begin
            hi_ok <= 1'b0;            // the latched HI word is read once
        end
        r_state <= R_RESP;
    end
    default:  // R_RESP
        if (s_axil_rready) begin
            s_axil_rvalid <= 1'b0;
            s_axil_arready <= 1'b1;
            r_state <= R_IDLE;
        end
    endcase
    if (rst) begin
        r_state <= R_IDLE;
        s_axil_arready <= 1'b0;
        s_axil_rvalid <= 1'b0;
        s_axil_rresp <= RESP_OKAY;
        s_axil_rdata <= 32'd0;
        hi_ok <= 1'b0;
    end
end

endmodule

`resetall
