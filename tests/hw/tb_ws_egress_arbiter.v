// tb_ws_egress_arbiter - ws_egress_arbiter: per-stream frame order and contents, whole frames, round-robin, II = 1, stat_tx.
`timescale 1ns / 1ps
`default_nettype none

// Streams s0 (bypass) and s1 (results) are driven as "ports" 0 and 1. Each has its own frame list
// (random lengths: every size 1..80, 60..1514, jumbo 9014; tuser = {random dst, random src, length}
// with the tuser source field's top bit marking the stream so the sink can tell them apart). Bytes
// are a hash of (stream, frame, byte). Checks:
//   - output: each frame whole, from one stream, in that stream's order, every byte, tkeep, tlast
//     and tuser on every beat; stat_tx pulses once per frame, the cycle after its last beat is
//     accepted, with stat_tx_len = tuser[15:0];
//   - input: one stream at a time, a started frame runs to its tlast, when both wait the one not
//     served last goes next (round robin), never an idle cycle while a stream requests and the
//     output stage is ready;
//   - phases 0 (both) and 1 (one stream), no idle and no backpressure: the frames leave in exactly
//     sum(beats) cycles;
//   - at the end nothing is left on either input or at the output.
module tb_ws_egress_arbiter;

    parameter DATA_WIDTH = 256;
    parameter N_PORTS    = 4;       // device ports (tuser layout); the arbiter has 2 inputs
    parameter SEED       = 1;
    parameter NFP        = 30;      // frames per port per phase

    localparam BYTES = DATA_WIDTH / 8;
    localparam TUW   = 16 + 2 * N_PORTS;
    localparam NPH   = 6;
    localparam MAXF  = NPH * NFP + 110;    // frames per port, at most

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;

    localparam NS    = 2;       // streams

    reg  [NS*DATA_WIDTH-1:0]      s_tdata;
    reg  [NS*BYTES-1:0]           s_tkeep;
    reg  [NS-1:0]                 s_tvalid;
    wire [NS-1:0]                 s_tready;
    reg  [NS-1:0]                 s_tlast;
    reg  [NS*TUW-1:0]             s_tuser;
    wire [DATA_WIDTH-1:0]         m_tdata;
    wire [BYTES-1:0]              m_tkeep;
    wire                          m_tvalid;
    reg                           m_tready;
    wire                          m_tlast;
    wire [TUW-1:0]                m_tuser;
    wire                          stat_tx;
    wire [15:0]                   stat_tx_len;

    ws_egress_arbiter #(
        .DATA_WIDTH  (DATA_WIDTH),
        .TUSER_WIDTH (TUW)
    ) dut (
        .clk (clk), .rst (rst),
        .s0_axis_tdata (s_tdata[0 +: DATA_WIDTH]), .s0_axis_tkeep (s_tkeep[0 +: BYTES]),
        .s0_axis_tvalid (s_tvalid[0]), .s0_axis_tready (s_tready[0]), .s0_axis_tlast (s_tlast[0]),
        .s0_axis_tuser (s_tuser[0 +: TUW]),
        .s1_axis_tdata (s_tdata[DATA_WIDTH +: DATA_WIDTH]), .s1_axis_tkeep (s_tkeep[BYTES +: BYTES]),
        .s1_axis_tvalid (s_tvalid[1]), .s1_axis_tready (s_tready[1]), .s1_axis_tlast (s_tlast[1]),
        .s1_axis_tuser (s_tuser[TUW +: TUW]),
        .m_axis_tdata (m_tdata), .m_axis_tkeep (m_tkeep), .m_axis_tvalid (m_tvalid),
        .m_axis_tready (m_tready), .m_axis_tlast (m_tlast), .m_axis_tuser (m_tuser),
        .stat_tx (stat_tx), .stat_tx_len (stat_tx_len)
    );

    // the AXI4-Stream rules on the output (tests/hw/axis_tb_monitor.v)
    axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(TUW)) out_mon (
        .clk(clk), .rst(rst), .tdata(m_tdata), .tkeep(m_tkeep), .tvalid(m_tvalid), .tready(m_tready),
        .tlast(m_tlast), .tuser(m_tuser)
    );

    localparam AXIS_BYTES = BYTES;   // the beat of the shared source/sink helpers
    `include "axis_tb.vh"         // xs, axis_word, axis_keep


    // frames: index p*MAXF + i
    integer flen [0:NS*MAXF-1];
    reg [TUW-1:0] fuser [0:NS*MAXF-1];
    integer nfr [0:NS-1];                   // frames per stream so far
    integer pend [0:NPH*NS-1];              // end index per phase and stream
    integer pbeats [0:NPH-1];               // beats per phase
    integer errors = 0;
    reg [31:0] grs;

    task add_frame(input integer p, input integer len, input integer ph);
        integer i;
        reg [N_PORTS-1:0] dst, src;
        begin
            if (nfr[p] >= MAXF) begin
                $display("FAIL testbench frame table full");
                $finish;
            end
            i = p * MAXF + nfr[p];
            grs = xs(grs);
            dst = grs[N_PORTS-1:0];
            src = grs[N_PORTS+7:8];
            src[N_PORTS-1] = (p == 1);      // the sink tells the streams apart by this bit
            flen[i]  = len;
            fuser[i] = {dst, src, len[15:0]};
            nfr[p] = nfr[p] + 1;
            pbeats[ph] = pbeats[ph] + (len + BYTES - 1) / BYTES;
        end
    endtask

    localparam NSRC = NS;             // the shared source (tests/hw/axis_tb_source.vh)
`define AXIS_SRC_MAY(p) (cf[p] < src_end[p])
    `include "axis_tb_source.vh"

    // input monitor: one port at a time, whole frames, round robin, no idle between frames
    integer mon_last = NS - 1;
    integer mon_port = 0;
    reg     mon_in   = 1'b0;
    integer mp, nt, tp, q, expq;
    always @(posedge clk) begin
        if (!rst) begin
            nt = 0;
            tp = 0;
            for (mp = 0; mp < NS; mp = mp + 1) begin
                if (s_tvalid[mp] && s_tready[mp]) begin
                    nt = nt + 1;
                    tp = mp;
                end
            end
            if (nt > 1) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL %0d ports served in one cycle at %0d", nt, cycle);
            end
            if (nt == 1) begin
                if (mon_in) begin
                    if (tp != mon_port) begin
                        errors = errors + 1;
                        if (errors < 10) $display("FAIL port %0d interrupted a frame of port %0d at %0d", tp, mon_port, cycle);
                    end
                end else begin
                    expq = -1;
                    for (mp = 1; mp <= NS; mp = mp + 1) begin
                        q = (mon_last + mp) % NS;
                        if (expq < 0 && s_tvalid[q]) expq = q;
                    end
                    if (tp != expq) begin
                        errors = errors + 1;
                        if (errors < 10) $display("FAIL round robin: port %0d served, expected %0d (valid %b, last %0d) at %0d",
                                                  tp, expq, s_tvalid, mon_last, cycle);
                    end
                    mon_last = tp;
                end
                mon_in   = !s_tlast[tp];
                mon_port = tp;
            end else if (!mon_in && s_tvalid != {NS{1'b0}} && dut.skid_ready) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL idle cycle with ports requesting (%b) at %0d", s_tvalid, cycle);
            end
        end
    end

    // sink and scoreboard
    integer    of [0:NS-1];
    integer    ob = 0, op = 0;
    reg        o_in = 1'b0;
    reg [31:0] krs;
    integer    t_first [0:NPH-1];  // first and last output beat of each phase (written by the sink only)
    integer    t_last [0:NPH-1];

    task check_beat;
        integer k, i, len, nb, pp;
        reg [BYTES-1:0] ekeep;
        begin
            if (!o_in) begin
                op = m_tuser[16 + N_PORTS - 1] ? 1 : 0;
                ob = 0;
                o_in = 1'b1;
            end
            if (of[op] >= nfr[op]) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL extra frame from port %0d at %0d", op, cycle);
            end else begin
                i   = op * MAXF + of[op];
                len = flen[i];
                nb  = (len + BYTES - 1) / BYTES;
                make_beat(op, of[op], ob, 8'd0);
                ekeep = bk;
                if (m_tkeep !== ekeep || m_tlast !== (ob == nb - 1) || m_tuser !== fuser[i]) begin
                    errors = errors + 1;
                    if (errors < 10)
                        $display("FAIL stream %0d frame %0d (len %0d) beat %0d: keep %h/%h last %b tuser %h/%h",
                                 op, of[op], len, ob, m_tkeep, ekeep, m_tlast, m_tuser, fuser[i]);
                end
                for (k = 0; k < BYTES && (bl || m_tdata !== bd); k = k + 1) begin
                    if (bk[k] && m_tdata[8*k +: 8] !== bd[8*k +: 8]) begin
                        errors = errors + 1;
                        if (errors < 10)
                            $display("FAIL port %0d frame %0d byte %0d: %h expected %h",
                                     op, of[op], ob * BYTES + k, m_tdata[8*k +: 8], bd[8*k +: 8]);
                    end
                end
            end
            if (m_tlast) begin
                of[op] = of[op] + 1;
                o_in = 1'b0;
            end else begin
                ob = ob + 1;
            end
            if (phase >= 0) begin
                if (t_first[phase] < 0) t_first[phase] = cycle;
                t_last[phase] = cycle;
            end
        end
    endtask

    // stat_tx: one pulse per frame, the cycle after its last beat was accepted
    reg        exp_stat = 1'b0;
    reg [15:0] exp_len;
    integer    n_stat = 0, n_frames_out = 0;
    always @(posedge clk) begin
        if (rst) begin
            m_tready <= 1'b0;
            exp_stat <= 1'b0;
        end else begin
            if (stat_tx !== exp_stat || (exp_stat && stat_tx_len !== exp_len)) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL stat_tx %b len %0d, expected %b len %0d at %0d",
                                          stat_tx, stat_tx_len, exp_stat, exp_len, cycle);
            end
            if (stat_tx) n_stat = n_stat + 1;
            exp_stat <= m_tvalid && m_tready && m_tlast;
            exp_len  <= m_tuser[15:0];
            if (m_tvalid && m_tready && m_tlast) n_frames_out = n_frames_out + 1;
            if (m_tvalid && m_tready) check_beat;
            krs = xs(krs);
            m_tready <= (krs % 100) >= bp_pct;
        end
    end

    // ---------------------------------------------------------------------------------------------
    integer ph, p, i, t0;
    integer idle_tab [0:NPH-1];
    integer bp_tab [0:NPH-1];
    reg     done;
    reg [31:0] subset;
    integer v_nph, v_np, v_80, v_20, v_nfp;

    initial begin
        grs = 32'h2468_ace1 ^ SEED;
        srs = 32'h1357_9bdf ^ (SEED * 7);
        krs = 32'h0f0f_3c3c ^ (SEED * 13);
        idle_tab[0] = 0;  bp_tab[0] = 0;     // both streams, throughput
        idle_tab[1] = 0;  bp_tab[1] = 0;     // one stream, throughput
        idle_tab[2] = 30; bp_tab[2] = 0;
        idle_tab[3] = 0;  bp_tab[3] = 50;
        idle_tab[4] = 60; bp_tab[4] = 60;
        idle_tab[5] = 20; bp_tab[5] = 20;    // a random subset of streams
        for (ph = 0; ph < NPH; ph = ph + 1) begin
            t_first[ph] = -1;
            t_last[ph]  = -1;
        end
        for (p = 0; p < NS; p = p + 1) begin
            nfr[p] = 0; npl[p] = 0; cf[p] = 0; cb[p] = 0; of[p] = 0; src_end[p] = 0;
        end
        // phase 5: a random subset of the ports, at least one in and one out
        grs = xs(grs);
        subset = (grs % ((1 << NS) - 2)) + 1;
        // loop bounds in variables: Verilator would unroll constant-bound loops (and the tasks
        // inlined in them), which only costs compile time
        v_nph = NPH; v_np = NS; v_80 = 80; v_20 = 20; v_nfp = NFP;
        for (ph = 0; ph < v_nph; ph = ph + 1) begin
            pbeats[ph] = 0;
            for (p = 0; p < v_np; p = p + 1) begin
                if (ph == 0) begin
                    // every small size on both streams, then a jumbo and a mix
                    for (i = 1; i <= v_80; i = i + 1) plan(p, i, ph);
                    plan(p, 9014, ph);
                    plan(p, 1514, ph);
                    for (i = 0; i < v_nfp / 2; i = i + 1) plan_random(p, ph);
                end else if (ph == 1) begin
                    if (p == NS - 1) begin
                        for (i = 1; i <= v_20; i = i + 1) plan(p, i, ph);
                        for (i = 0; i < v_nfp; i = i + 1) plan_random(p, ph);
                    end
                end else begin
                    if (ph != 5 || subset[p]) begin
                        for (i = 0; i < v_nfp; i = i + 1) plan_random(p, ph);
                    end
                end
                pend[ph * NS + p] = npl[p];
            end
        end
        for (i = 0; i < np; i = i + 1) add_frame(pl_p[i], pl_len[i], pl_ph[i]);

        repeat (10) @(posedge clk);
        rst <= 1'b0;
        repeat (5) @(posedge clk);

        for (ph = 0; ph < NPH; ph = ph + 1) begin
            idle_pct = idle_tab[ph];
            bp_pct   = bp_tab[ph];
            phase    = ph;
            t0       = cycle;
            for (p = 0; p < NS; p = p + 1) src_end[p] = pend[ph * NS + p];
            done = 1'b0;
            while (!done) begin
                @(posedge clk);
                done = 1'b1;
                for (p = 0; p < NS; p = p + 1) begin
                    if (of[p] < pend[ph * NS + p]) done = 1'b0;
                end
                if (cycle - t0 > 2000000) begin
                    $display("FAIL timeout in phase %0d", ph);
                    $finish;
                end
            end
            $display("phase %0d (idle %0d%%, backpressure %0d%%): %0d beats out in %0d cycles (first to last beat)",
                     ph, idle_tab[ph], bp_tab[ph], pbeats[ph], t_last[ph] - t_first[ph] + 1);
            if (ph <= 1 && t_last[ph] - t_first[ph] + 1 != pbeats[ph]) begin
                errors = errors + 1;
                $display("FAIL phase %0d: %0d beats took %0d cycles (bubbles)", ph, pbeats[ph], t_last[ph] - t_first[ph] + 1);
            end
            repeat (3) @(posedge clk);
        end
        bp_pct = 0;
        repeat (100) @(posedge clk);
        if (m_tvalid || s_tvalid != {NS{1'b0}} || o_in) begin
            errors = errors + 1;
            $display("FAIL left over: m_tvalid %b s_tvalid %b in-frame %b", m_tvalid, s_tvalid, o_in);
        end
        for (p = 0; p < NS; p = p + 1) begin
            if (of[p] != nfr[p] || cf[p] != nfr[p]) begin
                errors = errors + 1;
                $display("FAIL stream %0d: %0d frames, %0d sent, %0d received", p, nfr[p], cf[p], of[p]);
            end
        end
        if (n_stat != n_frames_out || n_stat != nfr[0] + nfr[1]) begin
            errors = errors + 1;
            $display("FAIL %0d stat_tx pulses for %0d frames", n_stat, nfr[0] + nfr[1]);
        end
        errors = errors + out_mon.errors;
        if (errors == 0) $display("PASS");
        else $display("FAIL %0d errors", errors);
        $finish;
    end

endmodule
