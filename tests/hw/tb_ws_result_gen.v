// tb_ws_result_gen - checks ws_result_gen beat by beat against RESULT frames built by driver/wire.c (vectors from tests/tool_result_gen_vectors.c).
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Vectors: build/hw/vectors/result_gen_w<DATA_WIDTH>_c<MAX_COUNT>/ (tests/hw/result_gen.sh).
// Phase 1: commands with random gaps, random backpressure patterns on m_axis.
// Phase 2: commands back to back, m_axis_tready always high: no idle output cycle may appear
//          between the first and the last beat of the phase.
// Phase 3: commands with random gaps, tready high: no idle cycle inside a command's frames.
// Every beat is compared (tdata, tkeep, tlast, tuser); tvalid/tdata must hold while stalled;
// stat pulses are counted; at the end nothing may be left. Prints PASS or FAIL.

module tb_ws_result_gen #(
    parameter integer DATA_WIDTH = 256,    // stream width under test
    parameter integer MAX_COUNT  = 256,    // elements per frame (vectors must match)
    parameter integer SEED       = 1,      // seed of the testbench's gaps and backpressure
    parameter integer STALL_LIMIT = 20000  // hang guard: cycles without any output beat
);

localparam integer N_PORTS     = 4;
localparam integer MAX_JOBS    = 8;
localparam integer MAX_WORKERS = 64;
localparam integer POOL_SLOTS  = 64;
localparam integer BYTES       = DATA_WIDTH / 8;
localparam integer Q_W         = $clog2(2 * POOL_SLOTS);
localparam integer JI_W        = $clog2(MAX_JOBS);
localparam integer WK_W        = $clog2(MAX_WORKERS);
localparam integer CN_W        = $clog2(MAX_COUNT + 1);
localparam integer PORT_W      = $clog2(N_PORTS);
localparam integer MEM_AW      = $clog2(MAX_JOBS * MAX_WORKERS);
localparam integer MEM_DW      = PORT_W + 96;
localparam integer MEM_FW      = 4 * ((MEM_DW + 3) / 4);  // width of a mem.hex word
localparam integer PAY_BEAT0   = 64 / BYTES;
localparam integer PAY_BEATS   = (64 + 4 * MAX_COUNT + BYTES - 1) / BYTES - PAY_BEAT0;
localparam integer RES_ROWS    = 2 * POOL_SLOTS * PAY_BEATS;
localparam integer RES_AW      = $clog2(RES_ROWS);
localparam integer TUSER_WIDTH = 16 + 2 * N_PORTS;
localparam integer MAX_CMDS    = 4096;
`include "ws_cmd.vh"   // C_* positions of a command, CMD_W

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

// ---------------------------------------------------------------- DUT
reg                    cmd_valid = 1'b0;
wire                   cmd_ready;
reg  [Q_W-1:0]         cmd_q = 0;
reg  [JI_W-1:0]        cmd_job_idx = 0;
reg  [15:0]            cmd_job_id = 0, cmd_slot = 0, cmd_csum = 0;
reg  [31:0]            cmd_offset = 0, cmd_tensor = 0;
reg  [CN_W-1:0]        cmd_count = 0;
reg  [1:0]             cmd_ecn = 0;
reg  [MAX_WORKERS-1:0] cmd_ce = 0;
reg  [WK_W-1:0]        cmd_rank_lo = 0, cmd_rank_hi = 0;
reg                    cmd_retx = 1'b0;
reg  [47:0]            cfg_dev_mac = 0;
reg  [31:0]            cfg_dev_ip = 0;
reg  [15:0]            cfg_dev_udp = 0;
wire [MEM_AW-1:0]      mem_rd_addr;
reg  [MEM_DW-1:0]      mem_rd_data;
wire [RES_AW-1:0]      res_rd_addr;
reg  [DATA_WIDTH-1:0]  res_rd_data;
wire [DATA_WIDTH-1:0]  m_axis_tdata;
wire [BYTES-1:0]       m_axis_tkeep;
wire                   m_axis_tvalid;
reg                    m_axis_tready = 1'b0;
wire                   m_axis_tlast;
wire [TUSER_WIDTH-1:0] m_axis_tuser;
wire                   stat_result, stat_resend;

// the command fields packed as ws_cmd.vh lays them out
wire [CMD_W-1:0] cmd_data;
assign cmd_data[C_Q +: Q_W]           = cmd_q;
assign cmd_data[C_JOBIDX +: JI_W]     = cmd_job_idx;
assign cmd_data[C_JOBID +: 16]        = cmd_job_id;
assign cmd_data[C_SLOT +: 16]         = cmd_slot;
assign cmd_data[C_OFFSET +: 32]       = cmd_offset;
assign cmd_data[C_TENSOR +: 32]       = cmd_tensor;
assign cmd_data[C_COUNT +: CN_W]      = cmd_count;
assign cmd_data[C_ECN +: 2]           = cmd_ecn;
assign cmd_data[C_CE +: MAX_WORKERS]  = cmd_ce;
assign cmd_data[C_CSUM +: 16]         = cmd_csum;
assign cmd_data[C_RANK_HI +: WK_W]    = cmd_rank_hi;
assign cmd_data[C_RETX]               = cmd_retx;
assign cmd_data[C_RANK_LO +: WK_W]    = cmd_rank_lo;

ws_result_gen #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
    .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT)
) dut (
    .clk(clk), .rst(rst),
    .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_data(cmd_data),
    .cfg_dev_mac(cfg_dev_mac), .cfg_dev_ip(cfg_dev_ip), .cfg_dev_udp(cfg_dev_udp),
    .mem_rd_addr(mem_rd_addr), .mem_rd_data(mem_rd_data),
    .res_rd_addr(res_rd_addr), .res_rd_data(res_rd_data),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser),
    .stat_result(stat_result), .stat_resend(stat_resend)
);

// the AXI4-Stream rules on the output (tests/hw/axis_tb_monitor.v)
axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(TUSER_WIDTH)) out_mon (
    .clk(clk), .rst(rst), .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid), .tready(m_axis_tready),
    .tlast(m_axis_tlast), .tuser(m_axis_tuser)
);

// ---------------------------------------------------------------- the two registered RAMs
reg [MEM_FW-1:0]     mem_tab [0:MAX_JOBS*MAX_WORKERS-1];
reg [DATA_WIDTH-1:0] res_ram [0:RES_ROWS-1];
always @(posedge clk) begin
    mem_rd_data <= mem_tab[mem_rd_addr][MEM_DW-1:0];
    res_rd_data <= res_ram[res_rd_addr];
end

// ---------------------------------------------------------------- vectors
reg [8*256-1:0] dir, fname;
integer fd, fb, r, n;
integer ncmds, nbeats, nframes, nresults, nresends, p2_cmd, p3_cmd, beats_p1, beats_p2;
reg [47:0] meta_mac;
reg [31:0] meta_ip;
reg [15:0] meta_udp;
reg [31:0] c_q [0:MAX_CMDS-1], c_ji [0:MAX_CMDS-1], c_jid [0:MAX_CMDS-1], c_slot [0:MAX_CMDS-1];
reg [31:0] c_off [0:MAX_CMDS-1], c_ten [0:MAX_CMDS-1], c_cnt [0:MAX_CMDS-1], c_ecn [0:MAX_CMDS-1];
reg [31:0] c_csum [0:MAX_CMDS-1], c_lo [0:MAX_CMDS-1], c_hi [0:MAX_CMDS-1], c_retx [0:MAX_CMDS-1];
reg [63:0] c_ce [0:MAX_CMDS-1];

integer errors = 0;
task fail(input [8*160-1:0] msg);
    begin
        errors = errors + 1;
        if (errors <= 10)
            $display("ERROR @%0t: %0s", $time, msg);
    end
endtask

localparam AXIS_BYTES = BYTES;   // the beat of the shared source/sink helpers
`include "axis_tb.vh"           // xs, axis_word, axis_keep

// ---------------------------------------------------------------- phase control
integer phase = 0;   // 0 idle, 1..3 as above, 4 drain
integer cmd_end_idx = 0;  // commands below this index may be sent

// ---------------------------------------------------------------- command driver
integer ci = 0;            // next command to present
integer gap = 0;
integer cmds_accepted = 0;
reg [31:0] rng_cmd = 32'h1234_5678 ^ SEED;
reg [31:0] rr;
integer nxt;

always @(posedge clk) begin
    if (rst) begin
        cmd_valid <= 1'b0;
    end else begin
        nxt = ci;
        if (cmd_valid && cmd_ready) begin
            nxt = ci + 1;
            cmds_accepted = cmds_accepted + 1;
            rng_cmd = xs(rng_cmd);
            if (phase == 2 || rng_cmd[2:0] < 3'd4)
                gap = 0;
            else
                gap = rng_cmd[8:3] % (rng_cmd[9] ? 40 : 6);
        end
        if (cmd_valid && !cmd_ready) begin
            // hold (AXI-Stream rule)
        end else if (nxt < cmd_end_idx && gap == 0) begin
            cmd_valid   <= 1'b1;
            cmd_q       <= c_q[nxt][Q_W-1:0];
            cmd_job_idx <= c_ji[nxt][JI_W-1:0];
            cmd_job_id  <= c_jid[nxt][15:0];
            cmd_slot    <= c_slot[nxt][15:0];
            cmd_offset  <= c_off[nxt];
            cmd_tensor  <= c_ten[nxt];
            cmd_count   <= c_cnt[nxt][CN_W-1:0];
            cmd_ecn     <= c_ecn[nxt][1:0];
            cmd_ce      <= c_ce[nxt][MAX_WORKERS-1:0];
            cmd_csum    <= c_csum[nxt][15:0];
            cmd_rank_lo <= c_lo[nxt][WK_W-1:0];
            cmd_rank_hi <= c_hi[nxt][WK_W-1:0];
            cmd_retx    <= c_retx[nxt][0];
        end else begin
            if (gap > 0)
                gap = gap - 1;
            cmd_valid <= 1'b0;
            // garbage on the fields while not valid
            rng_cmd = xs(rng_cmd);
            rr = xs(rng_cmd ^ 32'h5a5a_5a5a);
            cmd_q       <= rng_cmd[Q_W-1:0];
            cmd_job_idx <= rng_cmd[16 +: JI_W];
            cmd_job_id  <= rr[15:0];
            cmd_slot    <= rr[31:16];
            cmd_offset  <= rng_cmd ^ rr;
            cmd_tensor  <= rr;
            cmd_count   <= rr[CN_W-1:0];
            cmd_ecn     <= rng_cmd[21:20];
            cmd_ce      <= {(MAX_WORKERS + 31) / 32 {rr}};
            cmd_csum    <= rng_cmd[31:16];
            cmd_rank_lo <= rr[WK_W-1:0];
            cmd_rank_hi <= rr[8 +: WK_W];
            cmd_retx    <= rr[30];
        end
        ci = nxt;
    end
end

// ---------------------------------------------------------------- m_axis_tready patterns
reg [31:0] rng_rdy = 32'h8765_4321 ^ (SEED * 7);
integer mode = 0, mode_left = 0, burst = 0;
always @(posedge clk) begin
    if (phase != 1) begin
        m_axis_tready <= 1'b1;
    end else begin
        rng_rdy = xs(rng_rdy);
        if (mode_left == 0) begin
            mode = rng_rdy[2:0];
            mode_left = 50 + rng_rdy[11:3];
            rng_rdy = xs(rng_rdy);
        end
        mode_left = mode_left - 1;
        case (mode)
            0: m_axis_tready <= rng_rdy[0];                  // 1/2
            1: m_axis_tready <= rng_rdy[3:0] != 4'd0;        // 15/16
            2: m_axis_tready <= rng_rdy[3:0] == 4'd0;        // 1/16
            3: m_axis_tready <= 1'b1;
            4: begin                                          // bursts on and off
                if (burst == 0) begin
                    m_axis_tready <= !m_axis_tready;
                    burst = 1 + rng_rdy[4:0];
                end else begin
                    burst = burst - 1;
                end
            end
            5: m_axis_tready <= rng_rdy[1:0] != 2'd0;        // 3/4
            default: m_axis_tready <= rng_rdy[1:0] == 2'd0;  // 1/4
        endcase
    end
end

// ---------------------------------------------------------------- output monitor
integer nb = 0;                 // beats received
integer results = 0, resends = 0;
integer cycles = 0;
reg [DATA_WIDTH-1:0]  e_data;
reg [BYTES-1:0]       e_keep;
reg [31:0]            e_last, e_user, e_cmd, e_end;
reg                   prev_stall = 1'b0;
reg [DATA_WIDTH-1:0]  prev_data;
reg [BYTES-1:0]       prev_keep;
reg                   prev_last;
reg [TUSER_WIDTH-1:0] prev_user;
reg                   last_cmd_end = 1'b1;
integer               phase_beats = 0;   // beats received in the current phase
integer               first_beat_cycle = -1, first_cmd_cycle = -1;
integer               idle_p2 = 0, idle_p3 = 0;
integer               last_progress = 0;
reg [8*160-1:0]       msg;
integer               k;

always @(posedge clk) begin
    cycles = cycles + 1;
    if (!rst) begin
        if (stat_result) results = results + 1;
        if (stat_resend) resends = resends + 1;
        if (first_cmd_cycle < 0 && cmd_valid && cmd_ready)
            first_cmd_cycle = cycles;
        // AXI-Stream: a stalled beat stays, unchanged
        if (prev_stall && (!m_axis_tvalid || m_axis_tdata !== prev_data || m_axis_tkeep !== prev_keep ||
                           m_axis_tlast !== prev_last || m_axis_tuser !== prev_user)) begin
            $sformat(msg, "beat %0d changed or vanished while stalled", nb);
            fail(msg);
        end
        prev_stall = m_axis_tvalid && !m_axis_tready;
        prev_data  = m_axis_tdata;
        prev_keep  = m_axis_tkeep;
        prev_last  = m_axis_tlast;
        prev_user  = m_axis_tuser;
        // throughput: without backpressure no idle cycle where one is forbidden
        if ((phase == 2 || phase == 3) && m_axis_tready && !m_axis_tvalid && phase_beats > 0 &&
            nb < (phase == 2 ? beats_p2 : nbeats) && (phase == 2 || !last_cmd_end)) begin
            if (phase == 2) idle_p2 = idle_p2 + 1; else idle_p3 = idle_p3 + 1;
            $sformat(msg, "idle output cycle in phase %0d before beat %0d", phase, nb);
            fail(msg);
        end
        if (first_beat_cycle < 0 && m_axis_tvalid)
            first_beat_cycle = cycles;
        if (m_axis_tvalid && m_axis_tready) begin
            if (nb >= nbeats) begin
                $sformat(msg, "extra beat %0d (tuser %h)", nb, m_axis_tuser);
                fail(msg);
            end else begin
                r = $fscanf(fb, "%h %h %h %h %h %h\n", e_data, e_keep, e_last, e_user, e_cmd, e_end);
                if (r != 6) begin
                    $sformat(msg, "beats.hex: cannot read beat %0d", nb);
                    fail(msg);
                end
                if (m_axis_tdata !== e_data || m_axis_tkeep !== e_keep || m_axis_tlast !== e_last[0] ||
                    m_axis_tuser !== e_user[TUSER_WIDTH-1:0]) begin
                    $sformat(msg, "beat %0d (command %0d) differs: keep %h/%h last %0d/%0d tuser %h/%h",
                             nb, e_cmd, m_axis_tkeep, e_keep, m_axis_tlast, e_last, m_axis_tuser,
                             e_user[TUSER_WIDTH-1:0]);
                    fail(msg);
                    if (errors <= 10)
                        for (k = 0; k < BYTES; k = k + 1)
                            if (m_axis_tdata[k*8 +: 8] !== e_data[k*8 +: 8])
                                $display("    byte %0d of beat: got %h want %h", k, m_axis_tdata[k*8 +: 8],
                                         e_data[k*8 +: 8]);
                end
                last_cmd_end = e_end[0];
            end
            nb = nb + 1;
            phase_beats = phase_beats + 1;
            last_progress = cycles;
        end
    end
    if (cycles - last_progress > STALL_LIMIT) begin
        $display("FAIL tb_ws_result_gen: no output for %0d cycles at cycle %0d, %0d of %0d beats",
                 STALL_LIMIT, cycles, nb, nbeats);
        $finish;
    end
end

// ---------------------------------------------------------------- sequence
task wait_beats(input integer target);
    begin
        while (nb < target)
            @(negedge clk);
    end
endtask

initial begin
    $sformat(dir, "build/hw/vectors/result_gen_w%0d_c%0d", DATA_WIDTH, MAX_COUNT);
    $sformat(fname, "%0s/meta.txt", dir);
    fd = $fopen(fname, "r");
    if (fd == 0) begin
        $display("FAIL tb_ws_result_gen: cannot open %0s (run tests/hw/result_gen.sh)", fname);
        $finish;
    end
    r = $fscanf(fd, "%d %d %d %d %d %d %d %d %d %h %h %h", ncmds, nbeats, nframes, nresults, nresends,
                p2_cmd, p3_cmd, beats_p1, beats_p2, meta_mac, meta_ip, meta_udp);
    $fclose(fd);
    if (r != 12 || ncmds > MAX_CMDS) begin
        $display("FAIL tb_ws_result_gen: bad %0s", fname);
        $finish;
    end
    cfg_dev_mac = meta_mac;
    cfg_dev_ip  = meta_ip;
    cfg_dev_udp = meta_udp;
    $sformat(fname, "%0s/mem.hex", dir);
    $readmemh(fname, mem_tab);
    $sformat(fname, "%0s/res.hex", dir);
    $readmemh(fname, res_ram);
    $sformat(fname, "%0s/cmds.hex", dir);
    fd = $fopen(fname, "r");
    for (n = 0; n < ncmds; n = n + 1) begin
        r = $fscanf(fd, "%h %h %h %h %h %h %h %h %h %h %h %h %h\n", c_q[n], c_ji[n], c_jid[n], c_slot[n],
                    c_off[n], c_ten[n], c_cnt[n], c_ecn[n], c_ce[n], c_csum[n], c_lo[n], c_hi[n],
                    c_retx[n]);
        if (r != 13) begin
            $display("FAIL tb_ws_result_gen: %0s line %0d", fname, n + 1);
            $finish;
        end
    end
    $fclose(fd);
    $sformat(fname, "%0s/beats.hex", dir);
    fb = $fopen(fname, "r");
    // (this read of fb also keeps Verilator 5.006 from dropping the assignment: fb is otherwise
    // only an argument of $fscanf in another process)
    if (fb == 0) begin
        $display("FAIL tb_ws_result_gen: cannot open %0s", fname);
        $finish;
    end

    repeat (5) @(negedge clk);
    rst = 1'b0;
    repeat (3) @(negedge clk);
    if (!cmd_ready) begin
        errors = errors + 1;
        $display("ERROR: cmd_ready low after reset");
    end

    // phase 1: gaps and backpressure
    phase = 1;
    cmd_end_idx = p2_cmd;
    wait_beats(beats_p1);
    repeat (20) @(negedge clk);
    // phase 2: back to back, no backpressure
    phase = 2;
    phase_beats = 0;
    repeat (3) @(negedge clk);   // tready is high from here on
    cmd_end_idx = p3_cmd;
    wait_beats(beats_p2);
    repeat (20) @(negedge clk);
    // phase 3: gaps, no backpressure
    phase = 3;
    phase_beats = 0;
    last_cmd_end = 1'b1;
    cmd_end_idx = ncmds;
    wait_beats(nbeats);
    // drain: nothing may follow
    phase = 4;
    repeat (200) @(negedge clk);

    if (cmds_accepted != ncmds) begin
        errors = errors + 1;
        $display("ERROR: %0d of %0d commands accepted", cmds_accepted, ncmds);
    end
    if (results != nresults || resends != nresends) begin
        errors = errors + 1;
        $display("ERROR: stat_result %0d (want %0d), stat_resend %0d (want %0d)", results, nresults,
                 resends, nresends);
    end
    if (idle_p2 != 0 || idle_p3 != 0)
        $display("ERROR: %0d idle cycles in phase 2 (no gaps anywhere), %0d in phase 3 (inside commands)",
                 idle_p2, idle_p3);
    if (m_axis_tvalid || cmd_valid || !cmd_ready) begin
        errors = errors + 1;
        $display("ERROR: not idle at the end (tvalid %0d, cmd_ready %0d)", m_axis_tvalid, cmd_ready);
    end
    $display("tb_ws_result_gen: DATA_WIDTH %0d: %0d commands, %0d frames, %0d beats in %0d cycles; first beat %0d cycles after the first command",
             DATA_WIDTH, ncmds, nframes, nb, cycles, first_beat_cycle - first_cmd_cycle);
    errors = errors + out_mon.errors;
    if (errors == 0)
        $display("PASS");
    else
        $display("FAIL tb_ws_result_gen: %0d errors", errors);
    $finish;
end

endmodule

`resetall
