// tb_ws_regs - ws_regs through its AXI4-Lite port: identification, configuration, job commits, member table, counters, errors.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// Every AXI4-Lite transfer has random delays before AWVALID, WVALID, BREADY, ARVALID and RREADY
// (AW and W independent, ready before or after valid); a monitor checks that BVALID/RVALID and
// their payloads hold until taken. Phases:
//   1 ID and PARAM values, reset values, a few absolute offsets of the generated map
//   2 device MAC/IP/UDP and bypass round trips (byte strobes, reserved bits, refused values)
//   3 member table: AXI round trips, both datapath read ports, refused device ports
//   4 job commits: a valid one (cfg outputs, one job_clear pulse with the new values), every
//     refused one with its STATUS code, check priority, disable, self-exclusion, adjacency; the
//     parent's registers (fields, commit checks, cfg_job_par_* outputs; PARTIAL = 0: refused)
//   5 random RW traffic against a model
//   6 counters: random pulses on every input (each every cycle at times, simultaneous drops of
//     the same reason, invalid reasons), read as 64-bit pairs; a byte counter crossing 2^32 read
//     while it runs (LO/HI consistency; brought near 2^32 through the hierarchy first); the HI
//     word latched by LO survives a clear and is read once; HI without LO; clear
//   7 SLVERR: writes to read-only and unmapped addresses, reads of unmapped addresses
// Prints PASS or FAIL and finishes. The bus, the response checks and each phase are separate
// processes and the waiting loops have run-time bounds: that keeps Verilator's build small.
module tb_ws_regs #(
    parameter integer DATA_WIDTH  = 256,  // ws_regs parameters under test
    parameter integer N_PORTS     = 4,
    parameter integer MAX_JOBS    = 8,
    parameter integer MAX_WORKERS = 64,
    parameter integer POOL_SLOTS  = 64,
    parameter integer MAX_COUNT   = 256,
    parameter integer PARTIAL     = 0,
    parameter integer SEED        = 1,    // seed of the random timing and data
    parameter integer N_RANDOM    = 400   // random RW operations of phase 5
);

import ws_regmap::*;

localparam integer PORT_W = N_PORTS > 1 ? $clog2(N_PORTS) : 1;
localparam integer JI_W   = MAX_JOBS > 1 ? $clog2(MAX_JOBS) : 1;
localparam integer WC_W   = $clog2(MAX_WORKERS + 1);
localparam integer SL_W   = $clog2(POOL_SLOTS + 1);
localparam integer CN_W   = $clog2(MAX_COUNT + 1);
localparam integer N_MEM  = MAX_JOBS * MAX_WORKERS;
localparam integer MA_W   = N_MEM > 1 ? $clog2(N_MEM) : 1;
localparam integer MEM_W  = PORT_W + 96;
localparam integer N_DEV  = 5 + WS_N_DROPS;   // accepted, results, resends, bypass, oversize, drops
localparam [7:0]   NP8    = N_PORTS;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

// ---------------------------------------------------------------------------------------------
// DUT

reg  [15:0] awaddr = 16'd0;
reg         awvalid = 1'b0;
wire        awready;
reg  [31:0] wdata = 32'd0;
reg  [3:0]  wstrb = 4'd0;
reg         wvalid = 1'b0;
wire        wready;
wire [1:0]  bresp;
wire        bvalid;
reg         bready = 1'b0;
reg  [15:0] araddr = 16'd0;
reg         arvalid = 1'b0;
wire        arready;
wire [31:0] rdata;
wire [1:0]  rresp;
wire        rvalid;
reg         rready = 1'b0;

wire [47:0]               cfg_dev_mac;
wire [31:0]               cfg_dev_ip;
wire [15:0]               cfg_dev_udp;
wire [N_PORTS*PORT_W-1:0] cfg_bypass;
wire [MAX_JOBS-1:0]       cfg_job_en;
wire [MAX_JOBS*16-1:0]    cfg_job_id;
wire [MAX_JOBS*WC_W-1:0]  cfg_job_workers;
wire [MAX_JOBS*SL_W-1:0]  cfg_job_slots;
wire [MAX_JOBS*SL_W-1:0]  cfg_job_base;
wire [MAX_JOBS*CN_W-1:0]  cfg_job_maxcount;
wire [MAX_JOBS-1:0]       cfg_job_par_en;
wire [MAX_JOBS*48-1:0]    cfg_job_par_mac;
wire [MAX_JOBS*32-1:0]    cfg_job_par_ip;
wire [MAX_JOBS*16-1:0]    cfg_job_par_udp;
wire [MAX_JOBS*PORT_W-1:0] cfg_job_par_port;
wire [MAX_JOBS*16-1:0]    cfg_job_par_job;
wire [MAX_JOBS*16-1:0]    cfg_job_par_rank;
wire                      job_clear;
wire [JI_W-1:0]           job_clear_idx;
wire [SL_W-1:0]           job_clear_base;
wire [SL_W:0]             job_clear_end;
reg  [MA_W-1:0]           mem_rda_addr = {MA_W{1'b0}};
wire [MEM_W-1:0]          mem_rda_data;
reg  [MA_W-1:0]           mem_rdb_addr = {MA_W{1'b0}};
wire [MEM_W-1:0]          mem_rdb_data;

reg  [N_PORTS-1:0]        stat_rx = {N_PORTS{1'b0}};
reg  [N_PORTS*16-1:0]     stat_rx_len = {N_PORTS*16{1'b0}};
reg  [N_PORTS-1:0]        stat_tx = {N_PORTS{1'b0}};
reg  [N_PORTS*16-1:0]     stat_tx_len = {N_PORTS*16{1'b0}};
reg                       stat_accepted = 1'b0, stat_result = 1'b0, stat_resend = 1'b0;
reg                       stat_bypass = 1'b0;
reg  [N_PORTS-1:0]        stat_oversize = {N_PORTS{1'b0}};
reg                       stat_drop_a = 1'b0, stat_drop_b = 1'b0;
reg  [WS_REASON_W-1:0]    stat_drop_a_reason = {WS_REASON_W{1'b0}};
reg  [WS_REASON_W-1:0]    stat_drop_b_reason = {WS_REASON_W{1'b0}};

ws_regs #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
    .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .PARTIAL(PARTIAL)
) dut (
    .clk(clk), .rst(rst),
    .s_axil_awaddr(awaddr), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
    .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
    .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
    .s_axil_araddr(araddr), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
    .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
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
    .stat_drop_a(stat_drop_a), .stat_drop_a_reason(stat_drop_a_reason),
    .stat_drop_b(stat_drop_b), .stat_drop_b_reason(stat_drop_b_reason)
);

// ---------------------------------------------------------------------------------------------
// random numbers (xorshift32, the same sequence in every simulator), errors

reg [31:0] rng = 32'h9E3779B9 ^ SEED;
integer    errors = 0;
// Loop bounds times rt (1, but not a constant) keep Verilator from unrolling the loops whose
// bodies wait, which would multiply the code of the tasks it inlines.
integer    rt = 1;

function [31:0] rnd32(input integer unused);
    begin
        rng = rng ^ (rng << 13);
        rng = rng ^ (rng >> 17);
        rng = rng ^ (rng << 5);
        rnd32 = rng + unused * 0;
    end
endfunction

// 0 .. n-1
function integer rnd(input integer n);
    reg [31:0] r;
    begin
        r = rnd32(0);
        rnd = r % n;
    end
endfunction

// An error is recorded here and printed at the end (the first MAX_SHOWN): keeping $display out
// of the tasks that are inlined at every call site keeps Verilator's testbench small.
localparam integer MAX_SHOWN = 20;
reg  [8*48-1:0] err_what [0:MAX_SHOWN-1];
reg  [63:0]     err_got  [0:MAX_SHOWN-1];
reg  [63:0]     err_exp  [0:MAX_SHOWN-1];
integer         err_time [0:MAX_SHOWN-1];

task automatic fail(input [8*48-1:0] what, input [63:0] got, input [63:0] exp);
    begin
        if (errors < MAX_SHOWN) begin
            err_what[errors] = what;
            err_got[errors] = got;
            err_exp[errors] = exp;
            err_time[errors] = $time;
        end
        errors = errors + 1;
    end
endtask

task automatic expect_eq(input [8*48-1:0] what, input [63:0] got, input [63:0] exp);
    begin
        if (got !== exp)
            fail(what, got, exp);
    end
endtask

// ---------------------------------------------------------------------------------------------
// AXI4-Lite master with random timing. Signals change at a falling edge or just after a rising
// edge; a handshake is seen at a falling edge (valid and ready both high) and happens at the
// next rising edge.

integer max_delay = 3;  // largest random delay, cycles

// The two channels are driven by two processes, which also check the responses, so that a read
// and a write can overlap; the tasks below hand them a request (request count != done count)
// and wait for its end. Keeping the bus code and the checks in these processes, not in the
// tasks, keeps Verilator's inlined testbench small.
localparam [1:0] OKAY = 2'b00, SLVERR = 2'b10;
localparam [1:0] RD_VALUE = 2'd0, RD_EXPECT = 2'd1, RD_SLVERR = 2'd2;  // read kinds

reg  [15:0]     wq_addr = 16'd0, rq_addr = 16'd0;
reg  [31:0]     wq_data = 32'd0, rq_exp = 32'd0, rs_data = 32'd0;
reg  [3:0]      wq_strb = 4'd0;
reg  [1:0]      wq_resp = 2'd0, rq_kind = 2'd0;
reg  [8*48-1:0] rq_what = 0;
integer         wq_n = 0, wd_n = 0, rq_n = 0, rd_n = 0;
integer         da_w, dw_w, db_w, da_r, dr_r;

always begin
    wait (wq_n != wd_n);
    da_w = rnd(max_delay + 1);
    dw_w = rnd(max_delay + 1);
    db_w = rnd(max_delay + 1);
    fork
        begin
            repeat (da_w) @(negedge clk);
            awaddr = wq_addr;
            awvalid = 1'b1;
            while (!awready) @(negedge clk);
            @(posedge clk);
            #1 awvalid = 1'b0;
            awaddr = 16'hxxxx;
        end
        begin
            repeat (dw_w) @(negedge clk);
            wdata = wq_data;
            wstrb = wq_strb;
            wvalid = 1'b1;
            while (!wready) @(negedge clk);
            @(posedge clk);
            #1 wvalid = 1'b0;
            wdata = 32'hxxxxxxxx;
        end
        begin
            repeat (db_w) @(negedge clk);
            bready = 1'b1;
        end
    join
    bready = 1'b1;
    while (!bvalid) @(negedge clk);
    if (bresp !== wq_resp)
        fail(wq_resp == OKAY ? "write response OKAY" : "write response SLVERR",
             {wq_addr, 46'd0, bresp}, {wq_addr, 46'd0, wq_resp});
    @(posedge clk);
    #1 bready = 1'b0;
    wd_n = wd_n + 1;
end

always begin
    wait (rq_n != rd_n);
    da_r = rnd(max_delay + 1);
    dr_r = rnd(max_delay + 1);
    repeat (da_r) @(negedge clk);
    araddr = rq_addr;
    arvalid = 1'b1;
    while (!arready) @(negedge clk);
    @(posedge clk);
    #1 arvalid = 1'b0;
    araddr = 16'hxxxx;
    repeat (dr_r) @(negedge clk);
    rready = 1'b1;
    while (!rvalid) @(negedge clk);
    rs_data = rdata;
    if (rq_kind == RD_SLVERR) begin
        if (rresp !== SLVERR || rdata !== 32'd0)
            fail("unmapped read: SLVERR, data 0", {rq_addr, 14'd0, rresp, rdata},
                 {rq_addr, 14'd0, SLVERR, 32'd0});
    end else if (rresp !== OKAY) begin
        fail("read response OKAY", {rq_addr, 46'd0, rresp}, {rq_addr, 46'd0, OKAY});
    end else if (rq_kind == RD_EXPECT && rdata !== rq_exp) begin
        fail(rq_what, {rq_addr, 16'd0, rdata}, {rq_addr, 16'd0, rq_exp});
    end
    @(posedge clk);
    #1 rready = 1'b0;
    rd_n = rd_n + 1;
end

task automatic wr_x(input [15:0] a, input [31:0] d, input [3:0] s, input [1:0] resp);
    begin
        wq_addr = a;
        wq_data = d;
        wq_strb = s;
        wq_resp = resp;
        wq_n = wq_n + 1;
        wait (wd_n == wq_n);
    end
endtask

task automatic rd_x(input [8*48-1:0] what, input [15:0] a, input [1:0] kind, input [31:0] exp);
    begin
        rq_what = what;
        rq_addr = a;
        rq_kind = kind;
        rq_exp = exp;
        rq_n = rq_n + 1;
        wait (rd_n == rq_n);
    end
endtask

task automatic wr(input [15:0] a, input [31:0] d);
    wr_x(a, d, 4'hF, OKAY);
endtask

task automatic wr_strb(input [15:0] a, input [31:0] d, input [3:0] s);
    wr_x(a, d, s, OKAY);
endtask

task automatic wr_err(input [15:0] a, input [31:0] d);
    wr_x(a, d, 4'hF, SLVERR);
endtask

task automatic rd(input [15:0] a, output [31:0] d);
    begin
        rd_x("", a, RD_VALUE, 32'd0);
        d = rs_data;
    end
endtask

task automatic rd_expect(input [8*48-1:0] what, input [15:0] a, input [31:0] exp);
    rd_x(what, a, RD_EXPECT, exp);
endtask

task automatic rd_err(input [15:0] a);
    rd_x("", a, RD_SLVERR, 32'd0);
endtask

// addresses
function [15:0] job_reg(input integer j, input [15:0] off);
    begin
        job_reg = WS_TBL_JOB_BASE + WS_TBL_JOB_STRIDE * j[15:0] + off;
    end
endfunction

function [15:0] mem_reg(input integer i, input [15:0] off);
    begin
        mem_reg = WS_TBL_MEMBER_BASE + WS_TBL_MEMBER_STRIDE * i[15:0] + off;
    end
endfunction

function [15:0] byp_reg(input integer p);
    begin
        byp_reg = WS_TBL_BYPASS_BASE + WS_TBL_BYPASS_STRIDE * p[15:0] + WS_REG_BYPASS_OFF;
    end
endfunction

function [15:0] pcnt_reg(input integer p, input [15:0] off);
    begin
        pcnt_reg = WS_TBL_PORT_CNT_BASE + WS_TBL_PORT_CNT_STRIDE * p[15:0] + off;
    end
endfunction

// device counter i of the model (0 accepted, 1 results, 2 resends, 3 bypass, 4 oversize, 4+r drop r)
function [15:0] dcnt_reg(input integer i);
    begin
        case (i)
            0: dcnt_reg = WS_REG_CNT_ACCEPTED;
            1: dcnt_reg = WS_REG_CNT_RESULTS;
            2: dcnt_reg = WS_REG_CNT_RESENDS;
            3: dcnt_reg = WS_REG_CNT_BYPASS;
            4: dcnt_reg = WS_REG_CNT_OVERSIZE;
            default: dcnt_reg = WS_CNT_DROP_BASE + 16'd8 * (i[15:0] - 16'd5);
        endcase
    end
endfunction

// ---------------------------------------------------------------------------------------------
// monitors: AXI payloads hold until taken; job_clear pulses

reg        pb_v = 1'b0, pb_r = 1'b0, pr_v = 1'b0, pr_r = 1'b0;
reg [1:0]  pb_resp = 2'd0, pr_resp = 2'd0;
reg [31:0] pr_data = 32'd0;
integer    n_clear = 0;
integer    last_clear_idx = -1;
reg        prev_clear = 1'b0;

always @(posedge clk) begin
    if (!rst) begin
        if (pb_v && !pb_r && (bvalid !== 1'b1 || bresp !== pb_resp))
            fail("BVALID/BRESP changed before BREADY", {62'd0, bresp}, {62'd0, pb_resp});
        if (pr_v && !pr_r && (rvalid !== 1'b1 || rdata !== pr_data || rresp !== pr_resp))
            fail("RVALID/RDATA changed before RREADY", {32'd0, rdata}, {32'd0, pr_data});
        if (job_clear === 1'b1) begin
            n_clear = n_clear + 1;
            last_clear_idx = job_clear_idx;
            if (prev_clear)
                fail("job_clear longer than one cycle", 64'd1, 64'd0);
            if (cfg_job_en[job_clear_idx] !== 1'b1)
                fail("job_clear before the job is active", 64'd0, 64'd1);
            // the range that comes with the pulse is the new configuration's
            if (job_clear_base !== cfg_job_base[job_clear_idx*SL_W +: SL_W])
                fail("job_clear_base is not the job's SLOT_BASE", {{(64-SL_W){1'b0}}, job_clear_base},
                     {{(64-SL_W){1'b0}}, cfg_job_base[job_clear_idx*SL_W +: SL_W]});
            if (job_clear_end !== {1'b0, cfg_job_base[job_clear_idx*SL_W +: SL_W]} +
                                  {1'b0, cfg_job_slots[job_clear_idx*SL_W +: SL_W]})
                fail("job_clear_end is not SLOT_BASE + SLOTS", {{(63-SL_W){1'b0}}, job_clear_end},
                     {{(63-SL_W){1'b0}}, {1'b0, cfg_job_base[job_clear_idx*SL_W +: SL_W]} +
                                         {1'b0, cfg_job_slots[job_clear_idx*SL_W +: SL_W]}});
        end
        if (job_clear !== 1'b0 && job_clear !== 1'b1)
            fail("job_clear unknown", 64'd0, 64'd0);
    end
    prev_clear <= job_clear === 1'b1;
    pb_v <= bvalid;
    pb_r <= bready;
    pb_resp <= bresp;
    pr_v <= rvalid;
    pr_r <= rready;
    pr_resp <= rresp;
    pr_data <= rdata;
end

// ---------------------------------------------------------------------------------------------
// counter stimulus and model. Inputs change just after a rising edge; the model adds them then.

reg  [63:0] m_port [0:N_PORTS*4-1];  // port p: 4p rx frames, 4p+1 rx bytes, 4p+2 tx frames, 4p+3 tx bytes
reg  [63:0] m_dev  [0:N_DEV-1];
integer     stim_mode = 0;            // 0 idle, 1 random pulses, 2 port 0 rx 0xFFFF every cycle
integer     stim_pct = 50;            // probability of each pulse, percent
integer     sp, sr;
reg  [15:0] slen;
reg  [WS_REASON_W-1:0] sra, srb;

task automatic model_clear;
    integer k;
    begin
        for (k = 0; k < N_PORTS * 4 * rt; k = k + 1)
            m_port[k] = 64'd0;
        for (k = 0; k < N_DEV * rt; k = k + 1)
            m_dev[k] = 64'd0;
    end
endtask

function pulse(input integer pct);
    begin
        pulse = rnd(100) < pct;
    end
endfunction

always @(posedge clk) begin
    #1;
    stat_rx = {N_PORTS{1'b0}};
    stat_tx = {N_PORTS{1'b0}};
    stat_oversize = {N_PORTS{1'b0}};
    stat_accepted = 1'b0;
    stat_result = 1'b0;
    stat_resend = 1'b0;
    stat_bypass = 1'b0;
    stat_drop_a = 1'b0;
    stat_drop_b = 1'b0;
    if (stim_mode == 1) begin
        for (sp = 0; sp < N_PORTS; sp = sp + 1) begin
            if (pulse(stim_pct)) begin
                slen = rnd(4) == 0 ? 16'hFFFF : rnd(65536);
                stat_rx[sp] = 1'b1;
                stat_rx_len[sp*16 +: 16] = slen;
                m_port[4*sp] = m_port[4*sp] + 64'd1;
                m_port[4*sp+1] = m_port[4*sp+1] + {48'd0, slen};
            end else begin
                stat_rx_len[sp*16 +: 16] = rnd(65536);  // ignored without the pulse
            end
            if (pulse(stim_pct)) begin
                slen = rnd(65536);
                stat_tx[sp] = 1'b1;
                stat_tx_len[sp*16 +: 16] = slen;
                m_port[4*sp+2] = m_port[4*sp+2] + 64'd1;
                m_port[4*sp+3] = m_port[4*sp+3] + {48'd0, slen};
            end
            if (pulse(stim_pct / 2)) begin
                stat_oversize[sp] = 1'b1;
                m_dev[4] = m_dev[4] + 64'd1;
            end
        end
        if (pulse(stim_pct)) begin stat_accepted = 1'b1; m_dev[0] = m_dev[0] + 64'd1; end
        if (pulse(stim_pct)) begin stat_result = 1'b1; m_dev[1] = m_dev[1] + 64'd1; end
        if (pulse(stim_pct)) begin stat_resend = 1'b1; m_dev[2] = m_dev[2] + 64'd1; end
        if (pulse(stim_pct)) begin stat_bypass = 1'b1; m_dev[3] = m_dev[3] + 64'd1; end
        // drops: mostly valid reasons, sometimes the same on both inputs, sometimes 0 or > N
        sra = rnd(WS_N_DROPS + 3);
        srb = rnd(4) == 0 ? sra : rnd(WS_N_DROPS + 3);
        stat_drop_a_reason = sra;
        stat_drop_b_reason = srb;
        if (pulse(stim_pct)) begin
            stat_drop_a = 1'b1;
            if (sra >= 1 && sra <= WS_N_DROPS)
                m_dev[4 + sra] = m_dev[4 + sra] + 64'd1;
        end
        if (pulse(stim_pct)) begin
            stat_drop_b = 1'b1;
            if (srb >= 1 && srb <= WS_N_DROPS)
                m_dev[4 + srb] = m_dev[4 + srb] + 64'd1;
        end
    end else if (stim_mode == 2) begin
        stat_rx[0] = 1'b1;
        stat_rx_len[15:0] = 16'hFFFF;
        m_port[0] = m_port[0] + 64'd1;
        m_port[1] = m_port[1] + 64'd65535;
    end
end

task automatic rd_counter(input [15:0] a, output [63:0] v);
    reg [31:0] lo, hi;
    begin
        rd(a, lo);
        rd(a + 16'd4, hi);
        v = {hi, lo};
    end
endtask

// all counters against the model (stimulus stopped)
task automatic check_counters;
    integer p, k;
    reg [63:0] v;
    reg [15:0] off;
    begin
        for (p = 0; p < N_PORTS * rt; p = p + 1)
            for (k = 0; k < 4 * rt; k = k + 1) begin
                off = k == 0 ? WS_REG_CNT_RX_FRAMES_OFF : k == 1 ? WS_REG_CNT_RX_BYTES_OFF :
                      k == 2 ? WS_REG_CNT_TX_FRAMES_OFF : WS_REG_CNT_TX_BYTES_OFF;
                rd_counter(pcnt_reg(p, off), v);
                expect_eq("port counter", {pcnt_reg(p, off), 48'd0} ^ v, {pcnt_reg(p, off), 48'd0} ^ m_port[4*p+k]);
            end
        for (k = 0; k < N_DEV * rt; k = k + 1) begin
            rd_counter(dcnt_reg(k), v);
            expect_eq("device counter", {dcnt_reg(k), 48'd0} ^ v, {dcnt_reg(k), 48'd0} ^ m_dev[k]);
        end
    end
endtask

// ---------------------------------------------------------------------------------------------
// jobs and members

// expected member as the datapath reads it
function [MEM_W-1:0] member_of(input [31:0] mac_hi, input [31:0] mac_lo, input [31:0] ip,
                               input [31:0] port);
    begin
        member_of = {port[16 +: PORT_W], port[15:0], ip, mac_hi[15:0], mac_lo};
    end
endfunction

task automatic write_member(input integer i, input [47:0] mac, input [31:0] ip, input [15:0] udp,
                            input [7:0] dport);
    begin
        wr(mem_reg(i, WS_REG_MEMBER_MAC_HI_OFF), {16'd0, mac[47:32]});
        wr(mem_reg(i, WS_REG_MEMBER_MAC_LO_OFF), mac[31:0]);
        wr(mem_reg(i, WS_REG_MEMBER_IP_OFF), ip);
        wr(mem_reg(i, WS_REG_MEMBER_PORT_OFF), {8'd0, dport, udp});
    end
endtask

task automatic set_job(input integer j, input [15:0] id, input [15:0] wk, input [15:0] sl,
                       input [15:0] base, input [15:0] mc);
    begin
        wr(job_reg(j, WS_REG_JOB_ID_OFF), {16'd0, id});
        wr(job_reg(j, WS_REG_JOB_WORKERS_OFF), {16'd0, wk});
        wr(job_reg(j, WS_REG_JOB_SLOTS_OFF), {16'd0, sl});
        wr(job_reg(j, WS_REG_JOB_SLOT_BASE_OFF), {16'd0, base});
        wr(job_reg(j, WS_REG_JOB_MAX_COUNT_OFF), {16'd0, mc});
    end
endtask

// commit job j with ENABLE = en; expect STATUS code; check job_clear and cfg_job_en
task automatic commit(input integer j, input en, input [7:0] code);
    integer n0;
    reg [31:0] st;
    begin
        n0 = n_clear;
        wr(job_reg(j, WS_REG_JOB_CTRL_OFF), {31'd0, en});
        rd(WS_REG_STATUS, st);
        expect_eq("STATUS.CODE after commit", {j[31:0], 24'd0, st[WS_STATUS_CODE_LSB +: 8]},
               {j[31:0], 24'd0, code});
        expect_eq("STATUS.JOB after commit", {32'd0, 24'd0, st[WS_STATUS_JOB_LSB +: 8]}, j);
        if (en && code == WS_COMMIT_OK) begin
            expect_eq("job_clear pulses after a valid commit", n_clear - n0, 1);
            expect_eq("job_clear_idx", last_clear_idx, j);
            expect_eq("cfg_job_en after a valid commit", cfg_job_en[j], 1);
        end else begin
            expect_eq("no job_clear after a refused commit or a disable", n_clear - n0, 0);
            expect_eq("cfg_job_en after a refused commit or a disable", cfg_job_en[j], 0);
        end
        rd_expect("JOB_CTRL reads the active state", job_reg(j, WS_REG_JOB_CTRL_OFF),
                  {31'd0, cfg_job_en[j]});
    end
endtask

task automatic check_cfg_job(input integer j, input [15:0] id, input [15:0] wk, input [15:0] sl,
                             input [15:0] base, input [15:0] mc);
    begin
        expect_eq("cfg_job_id", cfg_job_id[j*16 +: 16], id);
        expect_eq("cfg_job_workers", cfg_job_workers[j*WC_W +: WC_W], wk);
        expect_eq("cfg_job_slots", cfg_job_slots[j*SL_W +: SL_W], sl);
        expect_eq("cfg_job_base", cfg_job_base[j*SL_W +: SL_W], base);
        expect_eq("cfg_job_maxcount", cfg_job_maxcount[j*CN_W +: CN_W], mc);
    end
endtask

// the parent's registers of job j
task automatic set_parent(input integer j, input en, input [47:0] pmac, input [31:0] ip,
                          input [15:0] udp, input [7:0] dport, input [15:0] pjob, input [15:0] rank);
    begin
        wr(job_reg(j, WS_REG_JOB_PARENT_OFF), {31'd0, en});
        wr(job_reg(j, WS_REG_JOB_PAR_MAC_HI_OFF), {16'd0, pmac[47:32]});
        wr(job_reg(j, WS_REG_JOB_PAR_MAC_LO_OFF), pmac[31:0]);
        wr(job_reg(j, WS_REG_JOB_PAR_IP_OFF), ip);
        wr(job_reg(j, WS_REG_JOB_PAR_PORT_OFF), {8'd0, dport, udp});
        wr(job_reg(j, WS_REG_JOB_PAR_JOB_OFF), {16'd0, pjob});
        wr(job_reg(j, WS_REG_JOB_PAR_RANK_OFF), {16'd0, rank});
    end
endtask

task automatic check_cfg_parent(input integer j, input en, input [47:0] pmac, input [31:0] ip,
                                input [15:0] udp, input [7:0] dport, input [15:0] pjob,
                                input [15:0] rank);
    begin
        expect_eq("cfg_job_par_en", cfg_job_par_en[j], en);
        expect_eq("cfg_job_par_mac", cfg_job_par_mac[j*48 +: 48], pmac);
        expect_eq("cfg_job_par_ip", cfg_job_par_ip[j*32 +: 32], ip);
        expect_eq("cfg_job_par_udp", cfg_job_par_udp[j*16 +: 16], udp);
        expect_eq("cfg_job_par_port", cfg_job_par_port[j*PORT_W +: PORT_W], dport[PORT_W-1:0]);
        expect_eq("cfg_job_par_job", cfg_job_par_job[j*16 +: 16], pjob);
        expect_eq("cfg_job_par_rank", cfg_job_par_rank[j*16 +: 16], rank);
    end
endtask

// the job record's words that read back what is written (JOB_CTRL, word 5, commits), their
// bits: word k of job j is model_job[J_WORDS*j + k]
localparam integer J_WORDS = WS_TBL_JOB_STRIDE / 4;
localparam integer J_RW    = 12;                 // JOB_ID .. JOB_MAX_COUNT, JOB_PARENT .. JOB_PAR_RANK
function integer job_word(input integer r);      // the r-th of them, 0..J_RW-1
    job_word = r < 5 ? r : r + 1;
endfunction
function [31:0] job_mask(input integer word);
    case (word * 4)
    WS_REG_JOB_PARENT_OFF:     job_mask = 32'd1 << WS_JOB_PARENT_ENABLE_LSB;
    WS_REG_JOB_PAR_MAC_LO_OFF: job_mask = 32'hFFFF_FFFF;
    WS_REG_JOB_PAR_IP_OFF:     job_mask = 32'hFFFF_FFFF;
    WS_REG_JOB_PAR_PORT_OFF:   job_mask = 32'h00FF_FFFF;      // UDP_PORT, DEV_PORT
    default:                   job_mask = 32'h0000_FFFF;
    endcase
endfunction

// ---------------------------------------------------------------------------------------------
// the test

reg  [31:0] d, d2;
reg  [1:0]  resp;
reg  [63:0] v, v0, v1;
reg  [47:0] mac;
reg  [31:0] mw [0:4*N_MEM-1];     // model of the member words (valid once written)
reg  [31:0] model_ip, model_mlo, model_mhi, model_udp;
reg  [7:0]  model_byp [0:N_PORTS-1];
reg  [31:0] model_job [0:J_WORDS*MAX_JOBS-1];
integer     i, j, k, p, w, n, t;
integer     t_start;
reg  [15:0] a;
reg  [3:0]  s;

// Each phase is its own process (smaller coroutines for Verilator); phase hands over.
integer phase = 0;

initial begin
    model_clear;
    repeat (5) @(posedge clk);
    #1 rst = 1'b0;
    repeat (3) @(posedge clk);
    phase = 1;
end

// ---- 1: identification, reset values, the generated map ---------------------------------
initial begin
    wait (phase == 1);
    expect_eq("WS_REG_ID offset", WS_REG_ID, 16'h0000);
    expect_eq("WS_REG_CTRL offset", WS_REG_CTRL, 16'h0020);
    expect_eq("WS_REG_DEV_UDP_PORT offset", WS_REG_DEV_UDP_PORT, 16'h003C);
    expect_eq("WS_TBL_PORT_CNT_BASE", WS_TBL_PORT_CNT_BASE, 16'h0400);
    expect_eq("WS_REG_CNT_ACCEPTED", WS_REG_CNT_ACCEPTED, 16'h0600);
    expect_eq("WS_REG_CNT_DROP_DUPLICATE", WS_REG_CNT_DROP_DUPLICATE, 16'h0600 + 8 * (4 + 13));
    expect_eq("WS_DROP_DUPLICATE", WS_DROP_DUPLICATE, 13);
    expect_eq("WS_TBL_MEMBER_BASE", WS_TBL_MEMBER_BASE, 16'h8000);
    rd_expect("ID", WS_REG_ID, 32'h57530001);
    rd_expect("PARAM_WIDTH", WS_REG_PARAM_WIDTH, DATA_WIDTH);
    rd_expect("PARAM_PORTS", WS_REG_PARAM_PORTS, N_PORTS);
    rd_expect("PARAM_JOBS", WS_REG_PARAM_JOBS, MAX_JOBS);
    rd_expect("PARAM_WORKERS", WS_REG_PARAM_WORKERS, MAX_WORKERS);
    rd_expect("PARAM_POOL", WS_REG_PARAM_POOL, POOL_SLOTS);
    rd_expect("PARAM_COUNT", WS_REG_PARAM_COUNT, MAX_COUNT);
    rd_expect("PARAM_ENGINES", WS_REG_PARAM_ENGINES, 1);  // ws_regs built with its default ENGINES
    rd_expect("PARAM_MAX_FRAME", WS_REG_PARAM_MAX_FRAME, 9216);  // and its default MAX_FRAME
    rd_expect("PARAM_PARTIAL", WS_REG_PARAM_PARTIAL, PARTIAL);
    rd_expect("STATUS after reset", WS_REG_STATUS, 32'd0);
    rd_expect("CTRL reads 0", WS_REG_CTRL, 32'd0);
    rd_expect("DEV_MAC_HI reset", WS_REG_DEV_MAC_HI, 32'h0000_0200);
    rd_expect("DEV_MAC_LO reset", WS_REG_DEV_MAC_LO, 32'h0000_00FE);
    rd_expect("DEV_IP reset", WS_REG_DEV_IP, 32'h0A00_00FE);
    rd_expect("DEV_UDP_PORT reset", WS_REG_DEV_UDP_PORT, 32'd48900);
    expect_eq("cfg_dev_mac reset", cfg_dev_mac, 48'h0200_0000_00FE);
    expect_eq("cfg_dev_ip reset", cfg_dev_ip, 32'h0A00_00FE);
    expect_eq("cfg_dev_udp reset", cfg_dev_udp, 16'd48900);
    expect_eq("cfg_job_en reset", cfg_job_en, 0);
    expect_eq("cfg_job_par_en reset", cfg_job_par_en, 0);
    expect_eq("WS_TBL_JOB_STRIDE", WS_TBL_JOB_STRIDE, 16'h0040);
    expect_eq("WS_REG_JOB_PAR_RANK(1)", job_reg(1, WS_REG_JOB_PAR_RANK_OFF), 16'h1070);
    for (p = 0; p < N_PORTS * rt; p = p + 1) begin
        k = (p ^ 1) < N_PORTS ? (p ^ 1) : p;
        rd_expect("BYPASS reset", byp_reg(p), k);
        expect_eq("cfg_bypass reset", cfg_bypass[p*PORT_W +: PORT_W], k);
        model_byp[p] = k;
    end
    phase = 2;
end

// ---- 2: device address and bypass ---------------------------------------------------------
initial begin
    wait (phase == 2);
    wr(WS_REG_DEV_MAC_HI, 32'hFFFF_0A1B);
    wr(WS_REG_DEV_MAC_LO, 32'h2C3D_4E5F);
    wr(WS_REG_DEV_IP, 32'hC0A8_0101);
    wr(WS_REG_DEV_UDP_PORT, 32'h1234_9999);
    rd_expect("DEV_MAC_HI: reserved bits read 0", WS_REG_DEV_MAC_HI, 32'h0000_0A1B);
    rd_expect("DEV_MAC_LO", WS_REG_DEV_MAC_LO, 32'h2C3D_4E5F);
    rd_expect("DEV_IP", WS_REG_DEV_IP, 32'hC0A8_0101);
    rd_expect("DEV_UDP_PORT", WS_REG_DEV_UDP_PORT, 32'h0000_9999);
    expect_eq("cfg_dev_mac", cfg_dev_mac, 48'h0A1B_2C3D_4E5F);
    expect_eq("cfg_dev_ip", cfg_dev_ip, 32'hC0A8_0101);
    expect_eq("cfg_dev_udp", cfg_dev_udp, 16'h9999);
    wr_strb(WS_REG_DEV_IP, 32'h1122_3344, 4'b0010);
    rd_expect("DEV_IP byte 1 only", WS_REG_DEV_IP, 32'hC0A8_3301);
    wr_strb(WS_REG_DEV_IP, 32'h1122_3344, 4'b1000);
    rd_expect("DEV_IP byte 3 only", WS_REG_DEV_IP, 32'h11A8_3301);
    wr_strb(WS_REG_DEV_MAC_LO, 32'h0, 4'b0000);
    rd_expect("DEV_MAC_LO no strobes", WS_REG_DEV_MAC_LO, 32'h2C3D_4E5F);
    wr_strb(WS_REG_DEV_UDP_PORT, 32'h0000_AB00, 4'b0010);
    rd_expect("DEV_UDP_PORT byte 1", WS_REG_DEV_UDP_PORT, 32'h0000_AB99);
    model_ip = 32'h11A8_3301;
    model_mhi = 32'h0A1B;
    model_mlo = 32'h2C3D_4E5F;
    model_udp = 32'hAB99;
    for (p = 0; p < N_PORTS * rt; p = p + 1) begin
        k = (p + 1) % N_PORTS;
        wr(byp_reg(p), k);
        model_byp[p] = k;
    end
    for (p = 0; p < N_PORTS * rt; p = p + 1) begin
        rd_expect("BYPASS", byp_reg(p), model_byp[p]);
        expect_eq("cfg_bypass", cfg_bypass[p*PORT_W +: PORT_W], model_byp[p]);
    end
    wr_err(byp_reg(0), N_PORTS);               // not a port: refused
    wr_err(byp_reg(0), 32'h0000_00FF);
    rd_expect("BYPASS after refused writes", byp_reg(0), model_byp[0]);
    wr(byp_reg(0), 32'hFFFF_FF00);             // upper bits ignored
    model_byp[0] = 0;
    rd_expect("BYPASS reserved bits", byp_reg(0), 32'd0);
    if (N_PORTS < WS_TBL_BYPASS_LIMIT) begin
        wr_err(byp_reg(N_PORTS), 0);           // beyond the build's ports: unmapped
        rd_err(byp_reg(N_PORTS));
    end
    phase = 3;
end

// ---- 3: member table ----------------------------------------------------------------------
initial begin
    wait (phase == 3);
    n = N_MEM < 64 ? N_MEM : 64;               // a sample: every index when small
    for (k = 0; k < n; k = k + 1) begin
        i = N_MEM <= 64 ? k : rnd(N_MEM);
        if (k == n - 1)
            i = N_MEM - 1;
        if (i / MAX_WORKERS == 1 && i % MAX_WORKERS >= 3)
            i = 0;                              // job 1 ranks 3.. stay unwritten for phase 4
        mac = {rnd32(0), rnd32(0)};
        mac[40] = 1'b0;
        mw[4*i] = {16'd0, mac[47:32]};
        mw[4*i+1] = mac[31:0];
        mw[4*i+2] = rnd32(0);
        t = rnd(N_PORTS);
        d = rnd32(0);
        mw[4*i+3] = {8'd0, t[7:0], d[15:0]};
        write_member(i, mac, mw[4*i+2], mw[4*i+3][15:0], mw[4*i+3][23:16]);
        rd_expect("MEMBER_MAC_HI", mem_reg(i, WS_REG_MEMBER_MAC_HI_OFF), mw[4*i]);
        rd_expect("MEMBER_MAC_LO", mem_reg(i, WS_REG_MEMBER_MAC_LO_OFF), mw[4*i+1]);
        rd_expect("MEMBER_IP", mem_reg(i, WS_REG_MEMBER_IP_OFF), mw[4*i+2]);
        rd_expect("MEMBER_PORT", mem_reg(i, WS_REG_MEMBER_PORT_OFF), mw[4*i+3]);
        // both datapath ports, on this entry and on the previous one
        @(negedge clk);
        mem_rda_addr = i;
        mem_rdb_addr = k > 0 ? j : i;
        @(negedge clk);
        expect_eq("mem_rda_data", mem_rda_data, member_of(mw[4*i], mw[4*i+1], mw[4*i+2], mw[4*i+3]));
        if (k > 0)
            expect_eq("mem_rdb_data", mem_rdb_data, member_of(mw[4*j], mw[4*j+1], mw[4*j+2], mw[4*j+3]));
        j = i;
    end
    // reserved bits and byte strobes
    wr(mem_reg(j, WS_REG_MEMBER_MAC_HI_OFF), 32'hFFFF_1234);
    mw[4*j] = 32'h0000_1234;
    rd_expect("MEMBER_MAC_HI reserved bits", mem_reg(j, WS_REG_MEMBER_MAC_HI_OFF), mw[4*j]);
    wr_strb(mem_reg(j, WS_REG_MEMBER_IP_OFF), 32'hAABB_CCDD, 4'b0101);
    mw[4*j+2] = {mw[4*j+2][31:24], 8'hBB, mw[4*j+2][15:8], 8'hDD};
    rd_expect("MEMBER_IP byte strobes", mem_reg(j, WS_REG_MEMBER_IP_OFF), mw[4*j+2]);
    wr(mem_reg(j, WS_REG_MEMBER_PORT_OFF), {8'hFF, 8'd0, 16'h4321});
    mw[4*j+3] = {8'h00, 8'd0, 16'h4321};
    rd_expect("MEMBER_PORT reserved byte", mem_reg(j, WS_REG_MEMBER_PORT_OFF), mw[4*j+3]);
    // a device port that does not exist is refused, the whole write with it
    wr_err(mem_reg(j, WS_REG_MEMBER_PORT_OFF), {8'd0, NP8, 16'h1111});
    wr_err(mem_reg(j, WS_REG_MEMBER_PORT_OFF), {8'd0, 8'hFF, 16'h1111});
    rd_expect("MEMBER_PORT after refused writes", mem_reg(j, WS_REG_MEMBER_PORT_OFF), mw[4*j+3]);
    wr_strb(mem_reg(j, WS_REG_MEMBER_PORT_OFF), {8'd0, 8'hFF, 16'h2222}, 4'b0011);  // byte 2 not written
    mw[4*j+3] = {8'h00, 8'd0, 16'h2222};
    rd_expect("MEMBER_PORT UDP only", mem_reg(j, WS_REG_MEMBER_PORT_OFF), mw[4*j+3]);
    @(negedge clk);
    mem_rda_addr = j;
    mem_rdb_addr = j;
    @(negedge clk);
    expect_eq("mem_rda_data after strobes", mem_rda_data, member_of(mw[4*j], mw[4*j+1], mw[4*j+2], mw[4*j+3]));
    expect_eq("mem_rdb_data after strobes", mem_rdb_data, member_of(mw[4*j], mw[4*j+1], mw[4*j+2], mw[4*j+3]));
    if (N_MEM < WS_TBL_MEMBER_LIMIT) begin
        rd_err(mem_reg(N_MEM, WS_REG_MEMBER_IP_OFF));
        wr_err(mem_reg(N_MEM, WS_REG_MEMBER_IP_OFF), 0);
    end
    phase = 4;
end

// ---- 4: job commits -------------------------------------------------------------------------
initial begin
    wait (phase == 4);
    // members of jobs 0 and 1, ranks 0..3 (job 1 rank 3 has no device port yet)
    for (j = 0; j < 2 * rt && j < MAX_JOBS; j = j + 1)
        for (w = 0; w < 4 * rt && w < MAX_WORKERS; w = w + 1)
            if (!(j == 1 && w == 3)) begin
                i = j * MAX_WORKERS + w;
                mac = {16'h0200, 8'd0, j[7:0], 8'd0, w[7:0]};
                mw[4*i] = {16'd0, mac[47:32]};
                mw[4*i+1] = mac[31:0];
                mw[4*i+2] = {8'd10, 8'd0, j[7:0], w[7:0]};
                mw[4*i+3] = {8'd0, w[7:0] % NP8, 16'd40000 + w[15:0]};
                write_member(i, mac, mw[4*i+2], mw[4*i+3][15:0], mw[4*i+3][23:16]);
            end
    k = MAX_WORKERS < 2 ? MAX_WORKERS : 2;     // workers of the test jobs
    t = POOL_SLOTS >= 32 ? 16 : POOL_SLOTS / 2;
    if (t < 1)
        t = 1;
    // a valid commit
    set_job(0, 16'd7, k, t, 0, MAX_COUNT);
    rd_expect("JOB_ID reads the written value", job_reg(0, WS_REG_JOB_ID_OFF), 7);
    rd_expect("JOB_WORKERS", job_reg(0, WS_REG_JOB_WORKERS_OFF), k);
    rd_expect("JOB_SLOTS", job_reg(0, WS_REG_JOB_SLOTS_OFF), t);
    rd_expect("JOB_SLOT_BASE", job_reg(0, WS_REG_JOB_SLOT_BASE_OFF), 0);
    rd_expect("JOB_MAX_COUNT", job_reg(0, WS_REG_JOB_MAX_COUNT_OFF), MAX_COUNT);
    expect_eq("cfg_job_en before commit", cfg_job_en[0], 0);
    commit(0, 1'b1, WS_COMMIT_OK);
    check_cfg_job(0, 7, k, t, 0, MAX_COUNT);
    // values written after a commit do not change the active ones
    wr(job_reg(0, WS_REG_JOB_ID_OFF), 32'd99);
    check_cfg_job(0, 7, k, t, 0, MAX_COUNT);
    wr(job_reg(0, WS_REG_JOB_ID_OFF), 32'd7);
    // re-commit with the same id and range: the job does not clash with itself
    commit(0, 1'b1, WS_COMMIT_OK);
    if (MAX_JOBS >= 2 && POOL_SLOTS >= 2 && MAX_WORKERS >= 2) begin
        // refused commits of job 1, one per code (job 0 holds id 7, slots 0..t-1)
        set_job(1, 16'd8, 2, 1, t, 1);
        set_job(1, 16'd8, 0, 1, t, 1);
        commit(1, 1'b1, WS_COMMIT_BAD_WORKERS);
        set_job(1, 16'd8, MAX_WORKERS + 1, 1, t, 1);
        commit(1, 1'b1, WS_COMMIT_BAD_WORKERS);
        set_job(1, 16'd8, 2, 0, t, 1);
        commit(1, 1'b1, WS_COMMIT_BAD_SLOTS);
        set_job(1, 16'd8, 2, POOL_SLOTS + 1, 0, 1);
        commit(1, 1'b1, WS_COMMIT_BAD_SLOTS);
        set_job(1, 16'd8, 2, 1, t, 0);
        commit(1, 1'b1, WS_COMMIT_BAD_MAX_COUNT);
        set_job(1, 16'd8, 2, 1, t, MAX_COUNT + 1);
        commit(1, 1'b1, WS_COMMIT_BAD_MAX_COUNT);
        set_job(1, 16'd8, 2, 2, POOL_SLOTS - 1, 1);
        commit(1, 1'b1, WS_COMMIT_SLOTS_OUTSIDE_POOL);
        set_job(1, 16'd8, 2, 1, POOL_SLOTS, 1);
        commit(1, 1'b1, WS_COMMIT_SLOTS_OUTSIDE_POOL);
        set_job(1, 16'd7, 2, 1, t, 1);
        commit(1, 1'b1, WS_COMMIT_DUP_JOB_ID);
        set_job(1, 16'd8, 2, 2, t - 1, 1);
        commit(1, 1'b1, WS_COMMIT_SLOT_OVERLAP);
        set_job(1, 16'd8, 2, POOL_SLOTS, 0, 1);
        commit(1, 1'b1, WS_COMMIT_SLOT_OVERLAP);
        if (MAX_WORKERS >= 4) begin
            set_job(1, 16'd8, 4, 1, t, 1);         // rank 3 has no device port
            commit(1, 1'b1, WS_COMMIT_BAD_MEMBER_PORT);
        end
        if (MAX_WORKERS >= 5) begin
            set_job(1, 16'd8, 2, 1, t, 1);
            wr(job_reg(1, WS_REG_JOB_WORKERS_OFF), MAX_WORKERS);  // ranks 4.. never written
            commit(1, 1'b1, WS_COMMIT_BAD_MEMBER_PORT);
        end
        // priority: the first failing check is reported
        set_job(1, 16'd7, 0, 0, POOL_SLOTS, 0);
        commit(1, 1'b1, WS_COMMIT_BAD_WORKERS);
        set_job(1, 16'd7, 2, 0, POOL_SLOTS, 0);
        commit(1, 1'b1, WS_COMMIT_BAD_SLOTS);
        set_job(1, 16'd7, 2, 1, POOL_SLOTS, 0);
        commit(1, 1'b1, WS_COMMIT_BAD_MAX_COUNT);
        set_job(1, 16'd7, 2, 1, 0, 1);
        commit(1, 1'b1, WS_COMMIT_DUP_JOB_ID);
        // adjacent range: valid
        set_job(1, 16'd8, 2, POOL_SLOTS - t, t, MAX_COUNT);
        commit(1, 1'b1, WS_COMMIT_OK);
        check_cfg_job(1, 8, 2, POOL_SLOTS - t, t, MAX_COUNT);
        check_cfg_job(0, 7, k, t, 0, MAX_COUNT);
        expect_eq("both jobs active", cfg_job_en[1:0], 2'b11);
        // a refused commit disables an active job; a valid one enables it again
        wr(job_reg(1, WS_REG_JOB_WORKERS_OFF), 0);
        commit(1, 1'b1, WS_COMMIT_BAD_WORKERS);
        expect_eq("job 0 untouched", cfg_job_en[0], 1);
        wr(job_reg(1, WS_REG_JOB_WORKERS_OFF), 2);
        commit(1, 1'b1, WS_COMMIT_OK);
        // disable: OK, no clear; a disabled job's range and id are free
        commit(0, 1'b0, WS_COMMIT_OK);
        set_job(1, 16'd7, 2, POOL_SLOTS, 0, 1);
        commit(1, 1'b1, WS_COMMIT_OK);
        check_cfg_job(1, 7, 2, POOL_SLOTS, 0, 1);
        // JOB_CTRL without byte 0: no commit
        t_start = n_clear;
        wr_strb(job_reg(1, WS_REG_JOB_CTRL_OFF), 32'h0, 4'b1110);
        expect_eq("JOB_CTRL without byte 0 changes nothing", {n_clear - t_start, 31'd0, cfg_job_en[1]},
               {32'd0, 31'd0, 1'b1});
        commit(1, 1'b0, WS_COMMIT_OK);
        // the last job of the table
        j = MAX_JOBS - 1;
        if (j > 1) begin
            i = j * MAX_WORKERS;
            write_member(i, 48'h0200_0000_0099, 32'h0A00_0099, 16'd5000, 0);
            write_member(i + 1, 48'h0200_0000_009A, 32'h0A00_009A, 16'd5001, N_PORTS - 1);
            set_job(j, 16'hFFFF, 2, 1, POOL_SLOTS - 1, 1);
            commit(j, 1'b1, WS_COMMIT_OK);
            check_cfg_job(j, 16'hFFFF, 2, 1, POOL_SLOTS - 1, 1);
            commit(j, 1'b0, WS_COMMIT_OK);
        end
    end
    // the parent's registers: their fields read back, the rest reads 0
    wr(job_reg(0, WS_REG_JOB_PARENT_OFF), 32'hFFFF_FFFF);
    rd_expect("JOB_PARENT: ENABLE alone", job_reg(0, WS_REG_JOB_PARENT_OFF), 1);
    wr(job_reg(0, WS_REG_JOB_PAR_MAC_HI_OFF), 32'hFFFF_FFFF);
    rd_expect("JOB_PAR_MAC_HI: 16 bits", job_reg(0, WS_REG_JOB_PAR_MAC_HI_OFF), 32'h0000_FFFF);
    wr(job_reg(0, WS_REG_JOB_PAR_PORT_OFF), 32'hFFFF_FFFF);
    rd_expect("JOB_PAR_PORT: UDP and device port", job_reg(0, WS_REG_JOB_PAR_PORT_OFF), 32'h00FF_FFFF);
    wr(job_reg(0, WS_REG_JOB_PAR_RANK_OFF), 32'hFFFF_FFFF);
    rd_expect("JOB_PAR_RANK: 16 bits", job_reg(0, WS_REG_JOB_PAR_RANK_OFF), 32'h0000_FFFF);
    // job 0 (id 7, k workers, slots 0..t-1) with a parent
    set_job(0, 16'd7, k, t, 0, MAX_COUNT);
    set_parent(0, 1'b1, 48'h0200_0000_0A01, 32'h0A01_0001, 16'd48901, N_PORTS - 1, 16'd300, 16'd5);
    rd_expect("JOB_PAR_MAC_HI", job_reg(0, WS_REG_JOB_PAR_MAC_HI_OFF), 32'h0000_0200);
    rd_expect("JOB_PAR_MAC_LO", job_reg(0, WS_REG_JOB_PAR_MAC_LO_OFF), 32'h0000_0A01);
    rd_expect("JOB_PAR_IP", job_reg(0, WS_REG_JOB_PAR_IP_OFF), 32'h0A01_0001);
    rd_expect("JOB_PAR_PORT", job_reg(0, WS_REG_JOB_PAR_PORT_OFF), {8'd0, NP8 - 8'd1, 16'd48901});
    rd_expect("JOB_PAR_JOB", job_reg(0, WS_REG_JOB_PAR_JOB_OFF), 300);
    rd_expect("JOB_PAR_RANK", job_reg(0, WS_REG_JOB_PAR_RANK_OFF), 5);
    if (PARTIAL == 0) begin
        // a device without PARTIAL takes no parent, whatever its values
        commit(0, 1'b1, WS_COMMIT_PARENT_NOT_PARTIAL);
        wr(job_reg(0, WS_REG_JOB_PAR_RANK_OFF), WS_LIMIT_WORKERS);
        commit(0, 1'b1, WS_COMMIT_PARENT_NOT_PARTIAL);
        wr(job_reg(0, WS_REG_JOB_PAR_RANK_OFF), 5);
    end else begin
        commit(0, 1'b1, WS_COMMIT_OK);
        check_cfg_parent(0, 1'b1, 48'h0200_0000_0A01, 32'h0A01_0001, 16'd48901, N_PORTS - 1, 16'd300, 16'd5);
        // values written after a commit do not change the active ones
        set_parent(0, 1'b1, 48'h0200_0000_0B02, 32'h0A01_0002, 16'd7, 0, 16'd301, 16'd63);
        check_cfg_parent(0, 1'b1, 48'h0200_0000_0A01, 32'h0A01_0001, 16'd48901, N_PORTS - 1, 16'd300, 16'd5);
        commit(0, 1'b1, WS_COMMIT_OK);
        check_cfg_parent(0, 1'b1, 48'h0200_0000_0B02, 32'h0A01_0002, 16'd7, 0, 16'd301, 16'd63);
        // refused parents, one per code, and the priority among them
        wr(job_reg(0, WS_REG_JOB_PAR_MAC_HI_OFF), 32'h0000_0100);      // multicast
        commit(0, 1'b1, WS_COMMIT_BAD_PARENT_ADDR);
        wr(job_reg(0, WS_REG_JOB_PAR_MAC_HI_OFF), 32'h0000_0200);
        wr(job_reg(0, WS_REG_JOB_PAR_PORT_OFF), 32'd0);                // UDP port 0
        commit(0, 1'b1, WS_COMMIT_BAD_PARENT_ADDR);
        wr(job_reg(0, WS_REG_JOB_PAR_PORT_OFF), 32'd7);
        wr(job_reg(0, WS_REG_JOB_PAR_IP_OFF), cfg_dev_ip);             // the device's own
        commit(0, 1'b1, WS_COMMIT_BAD_PARENT_ADDR);
        wr(job_reg(0, WS_REG_JOB_PAR_IP_OFF), 32'h0A01_0002);
        if (N_PORTS < 256) begin
            wr(job_reg(0, WS_REG_JOB_PAR_PORT_OFF), {8'd0, NP8, 16'd7});
            commit(0, 1'b1, WS_COMMIT_BAD_PARENT_PORT);
            wr(job_reg(0, WS_REG_JOB_PAR_PORT_OFF), {8'd0, 8'hFF, 16'd7});
            commit(0, 1'b1, WS_COMMIT_BAD_PARENT_PORT);
            wr(job_reg(0, WS_REG_JOB_PAR_RANK_OFF), WS_LIMIT_WORKERS);
            commit(0, 1'b1, WS_COMMIT_BAD_PARENT_PORT);                 // the port first
            wr(job_reg(0, WS_REG_JOB_PAR_PORT_OFF), {8'd0, NP8 - 8'd1, 16'd7});
        end
        wr(job_reg(0, WS_REG_JOB_PAR_RANK_OFF), WS_LIMIT_WORKERS);
        commit(0, 1'b1, WS_COMMIT_BAD_PARENT_RANK);
        wr(job_reg(0, WS_REG_JOB_PAR_RANK_OFF), 32'hFFFF);
        commit(0, 1'b1, WS_COMMIT_BAD_PARENT_RANK);
    end
    // the job's own checks come first; a parent's values are not checked without ENABLE
    wr(job_reg(0, WS_REG_JOB_PAR_MAC_HI_OFF), 32'h0000_0100);
    wr(job_reg(0, WS_REG_JOB_WORKERS_OFF), 0);
    commit(0, 1'b1, WS_COMMIT_BAD_WORKERS);
    wr(job_reg(0, WS_REG_JOB_WORKERS_OFF), k);
    wr(job_reg(0, WS_REG_JOB_PARENT_OFF), 0);
    commit(0, 1'b1, WS_COMMIT_OK);
    expect_eq("cfg_job_par_en without JOB_PARENT.ENABLE", cfg_job_par_en[0], 0);
    commit(0, 1'b0, WS_COMMIT_OK);
    rd_err(job_reg(0, 16'h0034));               // no register at +0x34 .. 0x3C of a job record
    wr_err(job_reg(0, 16'h003C), 0);
    if (MAX_JOBS < WS_TBL_JOB_LIMIT) begin
        rd_err(job_reg(MAX_JOBS, WS_REG_JOB_ID_OFF));
        wr_err(job_reg(MAX_JOBS, WS_REG_JOB_CTRL_OFF), 1);
    end
    phase = 5;
end

// ---- 5: random RW traffic -----------------------------------------------------------------
initial begin
    wait (phase == 5);
    for (j = 0; j < MAX_JOBS * rt; j = j + 1)
        for (k = 0; k < J_RW * rt; k = k + 1) begin
            rd(job_reg(j, 4 * job_word(k)), d);
            model_job[J_WORDS*j + job_word(k)] = d;
        end
    for (n = 0; n < N_RANDOM; n = n + 1) begin
        k = rnd(7);
        d = rnd32(0);
        s = rnd(16);
        p = rnd(N_PORTS);
        j = rnd(MAX_JOBS);
        t = job_word(rnd(J_RW));
        case (k)
        0: a = WS_REG_DEV_IP;
        1: a = WS_REG_DEV_MAC_LO;
        2: a = WS_REG_DEV_MAC_HI;
        3: a = WS_REG_DEV_UDP_PORT;
        4: a = byp_reg(p);
        default: a = job_reg(j, 4 * t);
        endcase
        if (rnd(2) == 0) begin
            if (k == 4 && s[0])
                d[7:0] = rnd(N_PORTS);
            wr_strb(a, d, s);
            for (i = 0; i < 4; i = i + 1)
                if (s[i]) begin
                    case (k)
                    0: model_ip[i*8 +: 8] = d[i*8 +: 8];
                    1: model_mlo[i*8 +: 8] = d[i*8 +: 8];
                    2: if (i < 2) model_mhi[i*8 +: 8] = d[i*8 +: 8];
                    3: if (i < 2) model_udp[i*8 +: 8] = d[i*8 +: 8];
                    4: if (i == 0) model_byp[p] = d[7:0];
                    default: model_job[J_WORDS*j + t][i*8 +: 8] = d[i*8 +: 8] & job_mask(t) >> (i*8);
                    endcase
                end
        end else begin
            case (k)
            0: rd_expect("random: DEV_IP", a, model_ip);
            1: rd_expect("random: DEV_MAC_LO", a, model_mlo);
            2: rd_expect("random: DEV_MAC_HI", a, model_mhi);
            3: rd_expect("random: DEV_UDP_PORT", a, model_udp);
            4: rd_expect("random: BYPASS", a, model_byp[p]);
            default: rd_expect("random: job value", a, model_job[J_WORDS*j + t]);
            endcase
        end
    end
    expect_eq("random: cfg_dev_ip", cfg_dev_ip, model_ip);
    expect_eq("random: cfg_dev_mac", cfg_dev_mac, {model_mhi[15:0], model_mlo});
    expect_eq("random: cfg_dev_udp", cfg_dev_udp, model_udp[15:0]);
    // a read and a write at the same time
    fork
        wr(WS_REG_DEV_IP, 32'h0102_0304);
        rd_expect("ID during a write", WS_REG_ID, WS_ID_VALUE);
    join
    rd_expect("DEV_IP after a concurrent write", WS_REG_DEV_IP, 32'h0102_0304);
    phase = 6;
end

// ---- 6: counters ------------------------------------------------------------------------------
reg [63:0] d_pre;
localparam integer RXB0 = WS_REG_CNT_RX_BYTES_OFF / 8;   // port 0's RX_BYTES in ws_counters' cnt
initial begin
    wait (phase == 6);
    check_counters;                              // all zero so far
    stim_pct = 100;                              // every input every cycle
    stim_mode = 1;
    repeat (200) @(posedge clk);
    stim_pct = 50;
    repeat (300) @(posedge clk);
    stim_pct = 10;
    repeat (300) @(posedge clk);
    stim_mode = 0;
    repeat (5) @(posedge clk);
    check_counters;
    // counters keep counting while read
    stim_pct = 70;
    stim_mode = 1;
    for (k = 0; k < 10 * rt; k = k + 1) begin
        v0 = m_dev[0];
        rd_counter(dcnt_reg(0), v);
        v1 = m_dev[0];
        if (v > v1 || v + 64'd4 < v0)
            fail("running ACCEPTED out of range", v, v0);
    end
    stim_mode = 0;
    repeat (5) @(posedge clk);
    check_counters;
    // a byte counter past 2^32, read while it runs: every pair a multiple of 0xFFFF. Counting
    // there from the earlier phases' value takes 65,537 cycles (most of the bench's time under
    // Icarus): the counter and the model are moved to 1500 increments below 2^32 first, by a
    // multiple of 0xFFFF, through the hierarchy (the counters are quiet: stimulus stopped and
    // read back above)
    d_pre = ((64'h1_0000_0000 - m_port[1]) / 64'd65535 - 64'd1500) * 64'd65535;
    dut.counters.cnt[RXB0] = dut.counters.cnt[RXB0] + d_pre;
    m_port[1] = m_port[1] + d_pre;
    v1 = m_port[1];
    stim_mode = 2;
    t_start = 0;
    while (t_start < 3) begin                   // until three pairs above 2^32
        v0 = m_port[1];
        rd_counter(pcnt_reg(0, WS_REG_CNT_RX_BYTES_OFF), v);
        if ((v - v1) % 65535 != 0 || v > m_port[1] || v + 64'd4 * 65535 < v0)
            fail("running RX_BYTES pair inconsistent", v, v0);
        if (v[63:32] != 0)
            t_start = t_start + 1;
        if (rnd(8) == 0) begin                  // HI of another counter: its own value
            rd(pcnt_reg(0, WS_REG_CNT_RX_FRAMES_OFF) + 16'd4, d);
            if (d != 0)
                fail("RX_FRAMES HI", d, 0);
        end
        if (m_port[1] < 64'h1_0000_0000 - 64'd200 * 65535)
            repeat (rnd(2000)) @(posedge clk);  // sparse reads; back to back near 2^32
    end
    stim_mode = 0;
    repeat (5) @(posedge clk);
    if (t_start == 0)
        fail("no pair read above 2^32", 0, 1);
    check_counters;
    expect_eq("RX_BYTES above 2^32", m_port[1][63:32], 1);
    // HI read without its LO, then LO then HI of another counter
    rd(pcnt_reg(0, WS_REG_CNT_RX_BYTES_OFF) + 16'd4, d);
    expect_eq("HI without LO", d, m_port[1][63:32]);
    rd(pcnt_reg(0, WS_REG_CNT_RX_BYTES_OFF), d);
    rd(dcnt_reg(0) + 16'd4, d2);
    expect_eq("HI of another counter", d2, m_dev[0][63:32]);
    // the HI word is the one latched by the LO read, even across a clear
    rd(pcnt_reg(0, WS_REG_CNT_RX_BYTES_OFF), d);
    wr(WS_REG_CTRL, 32'h1 << WS_CTRL_CLEAR_COUNTERS_LSB);
    rd(pcnt_reg(0, WS_REG_CNT_RX_BYTES_OFF) + 16'd4, d2);
    expect_eq("HI latched by LO (read after a clear)", {d2, d}, m_port[1]);
    rd(pcnt_reg(0, WS_REG_CNT_RX_BYTES_OFF) + 16'd4, d2);
    expect_eq("HI latched only once", d2, 0);
    model_clear;
    // clear: a write without byte 0 does nothing; CLEAR_COUNTERS zeroes everything
    wr_strb(WS_REG_CTRL, 32'h1, 4'b1110);
    wr(WS_REG_CTRL, 32'h0);
    check_counters;
    wr(WS_REG_CTRL, 32'h1 << WS_CTRL_CLEAR_COUNTERS_LSB);
    model_clear;
    check_counters;
    rd_expect("CTRL self-clearing", WS_REG_CTRL, 32'd0);
    stim_pct = 100;
    stim_mode = 1;
    repeat (100) @(posedge clk);
    stim_mode = 0;
    repeat (5) @(posedge clk);
    check_counters;
    phase = 7;
end

// ---- 7: SLVERR ----------------------------------------------------------------------------
initial begin
    wait (phase == 7);
    wr_err(WS_REG_ID, 32'h0);
    wr_err(WS_REG_PARAM_PORTS, 32'h0);
    wr_err(WS_REG_STATUS, 32'h0);
    wr_err(dcnt_reg(0), 32'h0);
    wr_err(pcnt_reg(0, WS_REG_CNT_TX_BYTES_OFF) + 16'd4, 32'h0);
    rd_expect("ID after a refused write", WS_REG_ID, WS_ID_VALUE);
    check_counters;
    wr_err(16'h0028, 32'h1);
    wr_err(16'h2000, 32'h1);
    rd_err(16'h0104);
    rd_err(16'h0100);
    rd_err(16'h2000);
    rd_err(WS_CNT_DEV_BASE + 16'd8 * WS_CNT_DEV_COUNT);
    if (N_PORTS < WS_TBL_PORT_CNT_LIMIT)
        rd_err(pcnt_reg(N_PORTS, WS_REG_CNT_RX_FRAMES_OFF));
    if (N_MEM < WS_TBL_MEMBER_LIMIT) begin
        rd_err(16'hFFFC);
        wr_err(16'hFFFC, 32'h1);
    end
    max_delay = 0;                              // back to back
    for (k = 0; k < 8 * rt; k = k + 1) begin
        rd_err(16'h0104);
        rd_expect("ID back to back", WS_REG_ID, WS_ID_VALUE);
        wr_err(WS_REG_ID, 0);
    end

    repeat (10) @(posedge clk);
    if (bvalid !== 1'b0 || rvalid !== 1'b0)
        fail("a response left over", {bvalid, rvalid}, 0);
    for (k = 0; k < errors && k < MAX_SHOWN; k = k + 1)
        $display("  error at time %0d: %0s: got %h, expected %h", err_time[k], err_what[k],
                 err_got[k], err_exp[k]);
    if (errors == 0)
        $display("PASS tb_ws_regs (N_PORTS=%0d MAX_JOBS=%0d MAX_WORKERS=%0d POOL_SLOTS=%0d MAX_COUNT=%0d)",
                 N_PORTS, MAX_JOBS, MAX_WORKERS, POOL_SLOTS, MAX_COUNT);
    else
        $display("FAIL tb_ws_regs: %0d errors", errors);
    $finish;
end

// hang guard (in cycles: a long # delay does not fit Verilator 5.006's 32-bit delays)
initial begin
    repeat (2000000) @(posedge clk);
    $display("FAIL tb_ws_regs: timeout (writes %0d/%0d, reads %0d/%0d)", wd_n, wq_n, rd_n, rq_n);
    $finish;
end

endmodule

`resetall
