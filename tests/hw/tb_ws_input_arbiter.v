// tb_ws_input_arbiter - ws_input_arbiter: frame contents, whole frames, arrival (s_frame_ready) order, II = 1.
`timescale 1ns / 1ps
`default_nettype none

// Every port has its own frame list (random lengths: every size 1..80, 60..1514, jumbo 9014; tuser
// with the port's one-hot source and a random destination; random tmeta). Bytes are a hash of
// (port, frame, byte), so the sink recomputes them. A frame "arrives" (s_frame_ready pulse of its
// port, as ws_rx_port gives when a frame is whole) at a random time; its port presents it on the
// stream only afterwards, as a store-and-forward FIFO does. Checks:
//   - output: each frame whole, from one port, in that port's order, every byte, tkeep, tlast,
//     tuser and tmeta on every beat;
//   - order: frames leave in arrival order (pulses of one cycle: lower port first);
//   - input: one port at a time, a started frame runs to its tlast, and the arbiter never idles
//     between frames when the next frame in arrival order is offered (its pulse >= 4 cycles old:
//     the order FIFO's latency and the grant register; ws_rx_port offers a frame's first beat
//     no earlier) and the output stage is ready;
//   - phases 0 (all ports) and 1 (one port only): frames arrive first, then no idle and no
//     backpressure: the frames leave in exactly sum(beats) cycles, i.e. no bubble between frames;
//   - at the end nothing is left in any port or at the output.
module tb_ws_input_arbiter;

    parameter DATA_WIDTH = 256;
    parameter N_PORTS    = 4;
    parameter SEED       = 1;
    parameter NFP        = 30;      // frames per port per phase

    localparam BYTES = DATA_WIDTH / 8;
    localparam TUW   = 16 + 2 * N_PORTS;
    localparam MW    = 19;
    localparam NPH   = 6;
    localparam MAXF  = NPH * NFP + 110;    // frames per port, at most

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;

    reg  [N_PORTS*DATA_WIDTH-1:0] s_tdata;
    reg  [N_PORTS*BYTES-1:0]      s_tkeep;
    reg  [N_PORTS-1:0]            s_tvalid;
    wire [N_PORTS-1:0]            s_tready;
    reg  [N_PORTS-1:0]            s_tlast;
    reg  [N_PORTS*TUW-1:0]        s_tuser;
    reg  [N_PORTS*MW-1:0]         s_tmeta;
    reg  [N_PORTS-1:0]            s_fready = {N_PORTS{1'b0}};
    wire [DATA_WIDTH-1:0]         m_tdata;
    wire [BYTES-1:0]              m_tkeep;
    wire                          m_tvalid;
    reg                           m_tready;
    wire                          m_tlast;
    wire [TUW-1:0]                m_tuser;
    wire [MW-1:0]                 m_tmeta;

    ws_input_arbiter #(
        .DATA_WIDTH  (DATA_WIDTH),
        .N_PORTS     (N_PORTS),
        .TUSER_WIDTH (TUW),
        .META_WIDTH  (MW)
    ) dut (
        .clk (clk), .rst (rst),
        .s_axis_tdata (s_tdata), .s_axis_tkeep (s_tkeep), .s_axis_tvalid (s_tvalid),
        .s_axis_tready (s_tready), .s_axis_tlast (s_tlast), .s_axis_tuser (s_tuser),
        .s_axis_tmeta (s_tmeta), .s_frame_ready (s_fready),
        .m_axis_tdata (m_tdata), .m_axis_tkeep (m_tkeep), .m_axis_tvalid (m_tvalid),
        .m_axis_tready (m_tready), .m_axis_tlast (m_tlast), .m_axis_tuser (m_tuser),
        .m_axis_tmeta (m_tmeta)
    );

    // the AXI4-Stream rules on the output (tests/hw/axis_tb_monitor.v)
    axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(TUW)) out_mon (
        .clk(clk), .rst(rst), .tdata(m_tdata), .tkeep(m_tkeep), .tvalid(m_tvalid), .tready(m_tready),
        .tlast(m_tlast), .tuser(m_tuser)
    );

    localparam AXIS_BYTES = BYTES;   // the beat of the shared source/sink helpers
    `include "axis_tb.vh"         // xs, axis_word, axis_keep


    // frames: index p*MAXF + i
    integer flen [0:N_PORTS*MAXF-1];
    reg [TUW-1:0] fuser [0:N_PORTS*MAXF-1];
    reg [MW-1:0]  fmeta [0:N_PORTS*MAXF-1];
    integer nfr [0:N_PORTS-1];              // frames per port so far
    integer pend [0:NPH*N_PORTS-1];         // end index per phase and port
    integer pbeats [0:NPH-1];               // beats per phase
    integer errors = 0;
    reg [31:0] grs;

    task add_frame(input integer p, input integer len, input integer ph);
        integer i;
        reg [N_PORTS-1:0] dst;
        begin
            if (nfr[p] >= MAXF) begin
                $display("FAIL testbench frame table full");
                $finish;
            end
            i = p * MAXF + nfr[p];
            grs = xs(grs);
            dst = grs[N_PORTS-1:0];
            flen[i]  = len;
            fuser[i] = {dst, {{(N_PORTS-1){1'b0}}, 1'b1} << p, len[15:0]};
            grs = xs(grs);
            fmeta[i] = grs[MW-1:0];
            nfr[p] = nfr[p] + 1;
            pbeats[ph] = pbeats[ph] + (len + BYTES - 1) / BYTES;
        end
    endtask

    localparam NSRC = N_PORTS;        // the shared source (tests/hw/axis_tb_source.vh)
`define AXIS_SRC_MAY(p) (src_go && cf[p] < ar[p])
`define AXIS_SRC_META
    `include "axis_tb_source.vh"

    // arrivals: s_frame_ready pulses, recorded in global order (one cycle: lower port first)
    localparam NORD = N_PORTS * MAXF;
    integer    ar [0:N_PORTS-1];           // frames arrived per port
    integer    ord_port [0:NORD-1];
    integer    ord_cyc [0:NORD-1];
    integer    n_ord = 0;
    integer    arr_pct = 0;
    reg        src_go = 1'b0;
    reg [31:0] ars;
    integer    ap;
    always @(posedge clk) begin
        if (rst) begin
            s_fready <= {N_PORTS{1'b0}};
        end else begin
            for (ap = 0; ap < N_PORTS; ap = ap + 1) begin
                ars = xs(ars);
                if (ar[ap] < src_end[ap] && (ars % 100) < arr_pct) begin
                    s_fready[ap]    <= 1'b1;
                    ar[ap]          = ar[ap] + 1;
                    ord_port[n_ord] = ap;
                    ord_cyc[n_ord]  = cycle;
                    n_ord = n_ord + 1;
                end else begin
                    s_fready[ap] <= 1'b0;
                end
            end
        end
    end

    // input monitor: one port at a time, whole frames, arrival order, no idle between frames
    integer mon_port = 0;
    reg     mon_in   = 1'b0;
    integer ord_in   = 0;                  // next record to start at the input
    integer mp, nt, tp, q;
    always @(posedge clk) begin
        if (!rst) begin
            nt = 0;
            tp = 0;
            for (mp = 0; mp < N_PORTS; mp = mp + 1) begin
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
                    if (ord_in >= n_ord || tp != ord_port[ord_in]) begin
                        errors = errors + 1;
                        if (errors < 10) $display("FAIL order: port %0d started a frame, expected port %0d at %0d",
                                                  tp, (ord_in < n_ord) ? ord_port[ord_in] : -1, cycle);
                    end
                    ord_in = ord_in + 1;
                end
                mon_in   = !s_tlast[tp];
                mon_port = tp;
            end else if (!mon_in && ord_in < n_ord && dut.skid_ready) begin
                q = ord_port[ord_in];
                if (s_tvalid[q] && cycle - ord_cyc[ord_in] >= 4) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL idle cycle with port %0d's frame offered at %0d", q, cycle);
                end
            end
        end
    end

    // sink and scoreboard
    integer    of [0:N_PORTS-1];
    integer    ob = 0, op = 0;
    integer    ord_out = 0;                // next record expected at the output
    reg        o_in = 1'b0;
    reg [31:0] krs;
    integer    t_first [0:NPH-1];  // first and last output beat of each phase (written by the sink only)
    integer    t_last [0:NPH-1];

    task check_beat;
        integer k, i, len, nb, pp;
        reg [BYTES-1:0] ekeep;
        begin
            if (!o_in) begin
                op = -1;
                for (pp = 0; pp < N_PORTS; pp = pp + 1) begin
                    if (m_tuser[16 + pp] && op < 0) op = pp;
                end
                if (op < 0 || m_tuser[16 +: N_PORTS] != ({{(N_PORTS-1){1'b0}}, 1'b1} << op)) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL bad source field in tuser %h at %0d", m_tuser, cycle);
                    op = 0;
                end
                if (ord_out >= n_ord || op != ord_port[ord_out]) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL output order: a frame of port %0d, expected port %0d at %0d",
                                              op, (ord_out < n_ord) ? ord_port[ord_out] : -1, cycle);
                end
                ord_out = ord_out + 1;
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
                if (m_tkeep !== ekeep || m_tlast !== (ob == nb - 1) || m_tuser !== fuser[i] || m_tmeta !== fmeta[i]) begin
                    errors = errors + 1;
                    if (errors < 10)
                        $display("FAIL port %0d frame %0d (len %0d) beat %0d: keep %h/%h last %b tuser %h/%h tmeta %h/%h",
                                 op, of[op], len, ob, m_tkeep, ekeep, m_tlast, m_tuser, fuser[i], m_tmeta, fmeta[i]);
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

    always @(posedge clk) begin
        if (rst) begin
            m_tready <= 1'b0;
        end else begin
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
        ars = 32'h7531_eca8 ^ (SEED * 5);
        idle_tab[0] = 0;  bp_tab[0] = 0;     // all ports, throughput
        idle_tab[1] = 0;  bp_tab[1] = 0;     // one port, throughput
        idle_tab[2] = 30; bp_tab[2] = 0;
        idle_tab[3] = 0;  bp_tab[3] = 50;
        idle_tab[4] = 60; bp_tab[4] = 60;
        idle_tab[5] = 20; bp_tab[5] = 20;    // a random subset of ports
        for (ph = 0; ph < NPH; ph = ph + 1) begin
            t_first[ph] = -1;
            t_last[ph]  = -1;
        end
        for (p = 0; p < N_PORTS; p = p + 1) begin
            nfr[p] = 0; npl[p] = 0; ar[p] = 0; cf[p] = 0; cb[p] = 0; of[p] = 0; src_end[p] = 0;
        end
        // phase 5: a random subset of the ports, at least one in and one out
        grs = xs(grs);
        subset = (grs % ((1 << N_PORTS) - 2)) + 1;
        // loop bounds in variables: Verilator would unroll constant-bound loops (and the tasks
        // inlined in them), which only costs compile time
        v_nph = NPH; v_np = N_PORTS; v_80 = 80; v_20 = 20; v_nfp = NFP;
        for (ph = 0; ph < v_nph; ph = ph + 1) begin
            pbeats[ph] = 0;
            for (p = 0; p < v_np; p = p + 1) begin
                if (ph == 0) begin
                    // every small size on every port, then a jumbo and a mix
                    for (i = 1; i <= v_80; i = i + 1) plan(p, i, ph);
                    plan(p, 9014, ph);
                    plan(p, 1514, ph);
                    for (i = 0; i < v_nfp / 2; i = i + 1) plan_random(p, ph);
                end else if (ph == 1) begin
                    if (p == N_PORTS - 1) begin
                        for (i = 1; i <= v_20; i = i + 1) plan(p, i, ph);
                        for (i = 0; i < v_nfp; i = i + 1) plan_random(p, ph);
                    end
                end else begin
                    if (ph != 5 || subset[p]) begin
                        for (i = 0; i < v_nfp; i = i + 1) plan_random(p, ph);
                    end
                end
                pend[ph * N_PORTS + p] = npl[p];
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
            if (ph <= 1) begin
                // throughput: every frame of the phase arrives first, then the ports stream
                src_go  = 1'b0;
                arr_pct = 50;
                for (p = 0; p < N_PORTS; p = p + 1) src_end[p] = pend[ph * N_PORTS + p];
                done = 1'b0;
                while (!done) begin
                    @(posedge clk);
                    done = 1'b1;
                    for (p = 0; p < N_PORTS; p = p + 1) begin
                        if (ar[p] < src_end[p]) done = 1'b0;
                    end
                end
                repeat (4) @(posedge clk);
                src_go = 1'b1;
            end else begin
                src_go  = 1'b1;
                arr_pct = 20 + 15 * (ph - 2);
                for (p = 0; p < N_PORTS; p = p + 1) src_end[p] = pend[ph * N_PORTS + p];
            end
            done = 1'b0;
            while (!done) begin
                @(posedge clk);
                done = 1'b1;
                for (p = 0; p < N_PORTS; p = p + 1) begin
                    if (of[p] < pend[ph * N_PORTS + p]) done = 1'b0;
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
        if (m_tvalid || s_tvalid != {N_PORTS{1'b0}} || o_in) begin
            errors = errors + 1;
            $display("FAIL left over: m_tvalid %b s_tvalid %b in-frame %b", m_tvalid, s_tvalid, o_in);
        end
        for (p = 0; p < N_PORTS; p = p + 1) begin
            if (of[p] != nfr[p] || cf[p] != nfr[p]) begin
                errors = errors + 1;
                $display("FAIL port %0d: %0d frames, %0d sent, %0d received", p, nfr[p], cf[p], of[p]);
            end
        end
        errors = errors + out_mon.errors;
        if (errors == 0) $display("PASS");
        else $display("FAIL %0d errors", errors);
        $finish;
    end

endmodule
