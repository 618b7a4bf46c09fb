// tb_ws_rx_port - ws_rx_port against a byte-array scoreboard: data, tkeep/tlast/tuser, metadata, stats, drops.
`timescale 1ns / 1ps
`default_nettype none

// Phases (idle % on the input, backpressure % on the output):
//   0: 0/0 (every size 1..80, boundaries, jumbo, oversize; the input must never stall)
//   1: 30/0   2: 0/30   3: 50/70   4: 0/90 (FIFO fills, input backpressured)   5: 10/50
// Frame contents: random bytes, or IPv4/UDP headers whose checksums are made valid (IHL random or
// 5), some then corrupted by one byte. Expected metadata comes from ref_meta(), a byte loop
// written from the specification. At the end the FIFO must be empty and nothing else comes out.
module tb_ws_rx_port;

    parameter DATA_WIDTH = 256;
    parameter MAX_FRAME  = 9216;
    parameter FIFO_BYTES = 32768;
    parameter N_PORTS    = 4;
    parameter PORT       = 2;
    parameter SEED       = 1;
    parameter N_RANDOM   = 50;      // random frames per phase 1..5

    localparam BYTES  = DATA_WIDTH / 8;
    localparam TUW    = 16 + 2 * N_PORTS;
    localparam NF_MAX = 1024;
    localparam MEMB   = 1 << 17;                    // scratch for the frame being generated
    localparam MEMBT  = (1 << 21) / BYTES + NF_MAX;  // beats of all frames
    localparam NPH    = 6;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;

    reg  [DATA_WIDTH-1:0] s_tdata;
    reg  [BYTES-1:0]      s_tkeep;
    reg                   s_tvalid;
    wire                  s_tready;
    reg                   s_tlast;
    wire [DATA_WIDTH-1:0] m_tdata;
    wire [BYTES-1:0]      m_tkeep;
    wire                  m_tvalid;
    reg                   m_tready;
    wire                  m_tlast;
    wire [TUW-1:0]        m_tuser;
    wire [18:0]           m_tmeta;
    wire                  stat_rx;
    wire [15:0]           stat_rx_len;
    wire                  stat_oversize;
    wire                  frame_ready;

    ws_rx_port #(
        .DATA_WIDTH (DATA_WIDTH),
        .N_PORTS    (N_PORTS),
        .PORT       (PORT),
        .MAX_FRAME  (MAX_FRAME),
        .FIFO_BYTES (FIFO_BYTES)
    ) dut (
        .clk (clk), .rst (rst),
        .s_axis_tdata (s_tdata), .s_axis_tkeep (s_tkeep), .s_axis_tvalid (s_tvalid),
        .s_axis_tready (s_tready), .s_axis_tlast (s_tlast),
        .m_axis_tdata (m_tdata), .m_axis_tkeep (m_tkeep), .m_axis_tvalid (m_tvalid),
        .m_axis_tready (m_tready), .m_axis_tlast (m_tlast), .m_axis_tuser (m_tuser),
        .m_axis_tmeta (m_tmeta),
        .stat_rx (stat_rx), .stat_rx_len (stat_rx_len), .stat_oversize (stat_oversize),
        .frame_ready (frame_ready)
    );

    // the AXI4-Stream rules on the output (tests/hw/axis_tb_monitor.v)
    axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(TUW)) out_mon (
        .clk(clk), .rst(rst), .tdata(m_tdata), .tkeep(m_tkeep), .tvalid(m_tvalid), .tready(m_tready),
        .tlast(m_tlast), .tuser(m_tuser)
    );

    // ---------------------------------------------------------------------------------------------
    // frames
    reg [7:0]  fb [0:MEMB-1];       // generation scratch (byte access)
    reg [DATA_WIDTH-1:0] fbeat [0:MEMBT-1]; // the frames, as beats (junk past the end)
    integer    flen [0:NF_MAX-1];
    integer    foff [0:NF_MAX-1];      // first beat in fbeat
    reg [18:0] fmeta [0:NF_MAX-1];
    integer    nf;
    integer    memtop;
    integer    ph_end [0:NPH-1];
    integer    errors;
    integer    n_ok_ip, n_ok_udp, n_vp;
    integer    n_oversize;

    localparam AXIS_BYTES = BYTES;   // the beat of the shared source/sink helpers
    `include "axis_tb.vh"         // xs, axis_word, axis_keep

    function [15:0] fold16(input [31:0] s);
        reg [31:0] t;
        begin
            t = s;
            while (t[31:16] != 16'd0) begin
                t = {16'd0, t[15:0]} + {16'd0, t[31:16]};
            end
            fold16 = t[15:0];
        end
    endfunction

    // big-endian word at byte k of a frame; bytes past the end read as zero
    function [15:0] w16(input integer off, input integer len, input integer k);
        begin
            w16 = {(k < len) ? fb[off + k] : 8'd0, (k + 1 < len) ? fb[off + k + 1] : 8'd0};
        end
    endfunction

    function [31:0] ip_sum(input integer off, input integer len);
        integer k;
        begin
            ip_sum = 0;
            for (k = 14; k < 34; k = k + 2) ip_sum = ip_sum + w16(off, len, k);
        end
    endfunction

    function [31:0] udp_sum(input integer off, input integer len);
        integer k;
        begin
            udp_sum = 32'h11 + w16(off, len, 38);
            for (k = 26; k < 34; k = k + 2) udp_sum = udp_sum + w16(off, len, k);
            for (k = 34; k < len; k = k + 2) udp_sum = udp_sum + w16(off, len, k);
        end
    endfunction

    // metadata from the specification: {vport, vport_valid, udp_ok, ip_ok}
    function [18:0] ref_meta(input integer off, input integer len);
        reg        ip_ok, udp_ok, vp_ok;
        reg [15:0] vp;
        integer    ihl;
        begin
            ip_ok  = (len >= 34) && (fold16(ip_sum(off, len)) == 16'hFFFF);
            udp_ok = (len >= 42) && (fold16(udp_sum(off, len)) == 16'hFFFF);
            vp_ok  = 1'b0;
            vp     = 16'd0;
            if (len >= 15) begin
                ihl = fb[off + 14] & 15;
                if (len >= 14 + 4 * ihl + 4) begin
                    vp_ok = 1'b1;
                    vp    = w16(off, len, 14 + 4 * ihl + 2);
                end
            end
            ref_meta = {vp, vp_ok, udp_ok, ip_ok};
        end
    endfunction

    reg [31:0] grs;     // generator random state

    // kind: 0 random bytes, 1 IPv4 checksum made valid, 2 UDP checksum valid, 3-4 both,
    // 5 both then one header byte corrupted, -1 pick at random; force_ihl >= 0: IHL nibble
    task add_frame(input integer len, input integer kind_in, input integer force_ihl);
        integer    k, off, kind;
        reg [15:0] c;
        reg [DATA_WIDTH-1:0] beat;
        begin
            if (nf >= NF_MAX || len > MEMB || memtop + (len + BYTES - 1) / BYTES > MEMBT) begin
                $display("FAIL testbench frame memory exhausted");
                $finish;
            end
            off = 0;
            for (k = 0; k < len; k = k + 1) begin
                if (k % 4 == 0) grs = xs(grs);
                fb[off + k] = grs[8*(k%4) +: 8];
            end
            grs  = xs(grs);
            kind = (kind_in < 0) ? grs % 6 : kind_in;
            if (kind != 0 && len >= 15 && grs[8]) fb[off + 14] = 8'h45;
            if (force_ihl >= 0 && len >= 15) fb[off + 14] = {fb[off + 14][7:4], force_ihl[3:0]};
            // checksums are made valid even when the frame is too short for them to count
            if ((kind == 1 || kind >= 3) && len >= 26) begin
                fb[off + 24] = 8'd0;
                fb[off + 25] = 8'd0;
                c = ~fold16(ip_sum(off, len));
                fb[off + 24] = c[15:8];
                fb[off + 25] = c[7:0];
            end
            if (kind >= 2 && len >= 36) begin
                k = (len >= 42) ? 40 : 34;
                fb[off + k]     = 8'd0;
                fb[off + k + 1] = 8'd0;
                c = ~fold16(udp_sum(off, len));
                fb[off + k]     = c[15:8];
                fb[off + k + 1] = c[7:0];
            end
            if (kind == 5 && len >= 15) begin
                grs = xs(grs);
                k = 14 + (grs[15:0] % ((len > 60 ? 60 : len) - 14 + 1));
                if (k < len) fb[off + k] = fb[off + k] ^ (8'h01 << grs[18:16]);
            end
            flen[nf]  = len;
            foff[nf]  = memtop;
            fmeta[nf] = ref_meta(off, len);
            for (k = 0; k < (len + BYTES - 1) / BYTES * BYTES; k = k + 1) begin
                if (k % 4 == 0) grs = xs(grs);
                beat[8*(k%BYTES) +: 8] = (k < len) ? fb[off + k] : grs[8*(k%4) +: 8];
                if (k % BYTES == BYTES - 1) fbeat[memtop + k / BYTES] = beat;
            end
            if (fmeta[nf][0]) n_ok_ip = n_ok_ip + 1;
            if (fmeta[nf][1]) n_ok_udp = n_ok_udp + 1;
            if (fmeta[nf][2]) n_vp = n_vp + 1;
            if (len > MAX_FRAME) n_oversize = n_oversize + 1;
            nf     = nf + 1;
            memtop = memtop + (len + BYTES - 1) / BYTES;
        end
    endtask

    // The frames are planned first (length, kind, forced IHL) and generated by one add_frame
    // call: Verilator inlines a task at every call site.
    integer plen [0:NF_MAX-1];
    integer pkind [0:NF_MAX-1];
    integer pihl [0:NF_MAX-1];
    integer np = 0;

    task plan(input integer len, input integer kind, input integer ihl);
        begin
            if (np >= NF_MAX) begin
                $display("FAIL testbench frame table full");
                $finish;
            end
            plen[np]  = len;
            pkind[np] = kind;
            pihl[np]  = ihl;
            np = np + 1;
        end
    endtask

    task plan_random;
        integer r, len;
        begin
            grs = xs(grs);
            r   = grs % 100;
            grs = xs(grs);
            if (r < 5)       len = 9014;
            else if (r < 9)  len = MAX_FRAME + 1 + grs % 3000;
            else if (r < 11) len = MAX_FRAME - grs % (2 * BYTES);
            else if (r < 26) len = 1 + grs % 80;
            else             len = 60 + grs % 1455;
            plan(len, -1, -1);
        end
    endtask

    // ---------------------------------------------------------------------------------------------
    // knobs, shared by source and sink
    integer idle_pct = 0;
    integer bp_pct   = 0;
    integer phase    = -1;
    integer src_end  = 0;
    integer cycle    = 0;

    always @(posedge clk) cycle <= cycle + 1;

    // ---------------------------------------------------------------------------------------------
    // source
    integer    src_f = 0, src_b = 0;
    reg [31:0] srs;
    integer    stalls0 = 0;
    integer    t_last_in [0:NF_MAX-1];

    // tkeep of beat b of a frame of len bytes

    task drive_beat(input integer f, input integer b);
        begin
            s_tdata  <= fbeat[foff[f] + b];     // bytes past the end are random junk
            s_tkeep  <= axis_keep(flen[f], b);
            s_tlast  <= ((b + 1) * BYTES >= flen[f]);
            s_tvalid <= 1'b1;
        end
    endtask

    always @(posedge clk) begin
        if (rst) begin
            s_tvalid <= 1'b0;
        end else begin
            if (phase == 0 && s_tvalid && !s_tready) stalls0 = stalls0 + 1;
            if (s_tvalid && s_tready) begin
                if (s_tlast) begin
                    t_last_in[src_f] = cycle;
                    src_f = src_f + 1;
                    src_b = 0;
                end else begin
                    src_b = src_b + 1;
                end
            end
            if (!s_tvalid || s_tready) begin
                srs = xs(srs);
                if (src_f < src_end && (srs % 100) >= idle_pct) drive_beat(src_f, src_b);
                else s_tvalid <= 1'b0;
            end
        end
    end

    // ---------------------------------------------------------------------------------------------
    // sink and scoreboard
    integer    out_f = 0, out_b = 0;
    reg [31:0] krs;
    integer    min_lat = 1 << 30;

    task skip_dropped;
        begin
            while (out_f < nf && flen[out_f] > MAX_FRAME) out_f = out_f + 1;
        end
    endtask

    task check_beat;
        integer k, nb, len;
        reg [BYTES-1:0] ekeep;
        reg [DATA_WIDTH-1:0] edata;
        begin
            skip_dropped;
            if (out_f >= nf) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL extra beat after the last frame at cycle %0d", cycle);
            end else begin
                len = flen[out_f];
                nb  = (len + BYTES - 1) / BYTES;
                ekeep = axis_keep(len, out_b);
                edata = fbeat[foff[out_f] + out_b];
                if (m_tkeep !== ekeep || m_tlast !== (out_b == nb - 1) ||
                    m_tuser !== {{N_PORTS{1'b0}}, {{(N_PORTS-1){1'b0}}, 1'b1} << PORT, len[15:0]} ||
                    m_tmeta !== fmeta[out_f]) begin
                    errors = errors + 1;
                    if (errors < 10)
                        $display("FAIL frame %0d (len %0d) beat %0d: keep %h/%h last %b tuser %h tmeta %h/%h",
                                 out_f, len, out_b, m_tkeep, ekeep, m_tlast, m_tuser, m_tmeta, fmeta[out_f]);
                end
                for (k = 0; k < BYTES && (out_b == nb - 1 || m_tdata !== edata); k = k + 1) begin
                    if (ekeep[k] && m_tdata[8*k +: 8] !== edata[8*k +: 8]) begin
                        errors = errors + 1;
                        if (errors < 10)
                            $display("FAIL frame %0d (len %0d) byte %0d: %h expected %h",
                                     out_f, len, out_b * BYTES + k, m_tdata[8*k +: 8], edata[8*k +: 8]);
                    end
                end
                if (out_b == 0 && fr_f <= out_f) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL frame %0d out before its frame_ready pulse", out_f);
                end
                if (out_b == 0 && phase == 0 && cycle - t_last_in[out_f] < min_lat)
                    min_lat = cycle - t_last_in[out_f];
                if (out_b == nb - 1) begin
                    out_f = out_f + 1;
                    out_b = 0;
                    skip_dropped;
                end else begin
                    out_b = out_b + 1;
                end
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

    // frame_ready: one pulse per kept frame, in order, a fixed time after its last beat went in,
    // before its first beat comes out
    integer fr_f = 0;
    integer fr_lat = -1;
    always @(posedge clk) begin
        if (!rst && frame_ready) begin
            while (fr_f < nf && flen[fr_f] > MAX_FRAME) fr_f = fr_f + 1;
            if (fr_f >= nf) begin
                errors = errors + 1;
                $display("FAIL extra frame_ready pulse at %0d", cycle);
            end else begin
                if (fr_lat < 0) fr_lat = cycle - t_last_in[fr_f];
                if (cycle - t_last_in[fr_f] != fr_lat) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL frame_ready of frame %0d %0d cycles after its last beat, not %0d",
                                              fr_f, cycle - t_last_in[fr_f], fr_lat);
                end
                fr_f = fr_f + 1;
            end
        end
    end

    // statistics, in frame order
    integer st_f = 0;
    integer n_ov_pulses = 0;
    always @(posedge clk) begin
        if (!rst) begin
            if (stat_oversize) n_ov_pulses = n_ov_pulses + 1;
            if (stat_rx) begin
                if (st_f >= nf) begin
                    errors = errors + 1;
                    $display("FAIL extra stat_rx pulse");
                end else if (stat_rx_len !== ((flen[st_f] > 65535) ? 16'hFFFF : flen[st_f][15:0]) ||
                             stat_oversize !== (flen[st_f] > MAX_FRAME)) begin
                    errors = errors + 1;
                    if (errors < 10)
                        $display("FAIL stat for frame %0d (len %0d): stat_rx_len %0d oversize %b",
                                 st_f, flen[st_f], stat_rx_len, stat_oversize);
                end
                st_f = st_f + 1;
            end else if (stat_oversize) begin
                errors = errors + 1;
                $display("FAIL stat_oversize without stat_rx");
            end
        end
    end

    // ---------------------------------------------------------------------------------------------
    integer ph, i, t0;
    integer idle_tab [0:NPH-1];
    integer bp_tab [0:NPH-1];
    integer v_80, v_16, v_20, v_nph, v_nr;

    initial begin
        errors = 0; nf = 0; memtop = 0;
        n_ok_ip = 0; n_ok_udp = 0; n_vp = 0; n_oversize = 0;
        grs = 32'h1234_5678 ^ SEED;
        srs = 32'h9abc_def1 ^ (SEED * 7);
        krs = 32'h0fed_cba9 ^ (SEED * 13);
        idle_tab[0] = 0;  bp_tab[0] = 0;
        idle_tab[1] = 30; bp_tab[1] = 0;
        idle_tab[2] = 0;  bp_tab[2] = 30;
        idle_tab[3] = 50; bp_tab[3] = 70;
        idle_tab[4] = 0;  bp_tab[4] = 90;
        idle_tab[5] = 10; bp_tab[5] = 50;

        // phase 0: every small size, boundaries, jumbo, oversize (one beyond the 16-bit length)
        // loop bounds in variables: Verilator would unroll constant-bound loops (and the tasks
        // inlined in them), which only costs compile time
        v_80 = 80; v_16 = 16; v_20 = 20; v_nph = NPH; v_nr = N_RANDOM;
        for (i = 1; i <= v_80; i = i + 1) begin
            plan(i, 3, -1);
            plan(i, -1, -1);
        end
        // vport_valid boundaries: len = 17 + 4*IHL (just too short) and 18 + 4*IHL
        for (i = 0; i < v_16; i = i + 1) begin
            plan(17 + 4 * i, 0, i);
            plan(18 + 4 * i, 0, i);
        end
        plan(60, 4, -1); plan(64, 3, -1); plan(1514, 3, -1); plan(9014, 3, -1);
        plan(MAX_FRAME, 3, -1); plan(MAX_FRAME + 1, 3, -1); plan(1, 0, -1); plan(MAX_FRAME + BYTES, 0, -1);
        plan(70000, 0, -1); plan(2, 0, -1); plan(MAX_FRAME - 1, 3, -1); plan(1514, 5, -1);
        for (i = 0; i < v_20; i = i + 1) plan_random;
        ph_end[0] = np;
        for (ph = 1; ph < v_nph; ph = ph + 1) begin
            for (i = 0; i < v_nr; i = i + 1) plan_random;
            ph_end[ph] = np;
        end
        for (i = 0; i < np; i = i + 1) add_frame(plen[i], pkind[i], pihl[i]);

        repeat (10) @(posedge clk);
        rst <= 1'b0;
        repeat (5) @(posedge clk);

        for (ph = 0; ph < NPH; ph = ph + 1) begin
            idle_pct = idle_tab[ph];
            bp_pct   = bp_tab[ph];
            phase    = ph;
            src_end  = ph_end[ph];
            t0 = cycle;
            while (!(src_f >= ph_end[ph] && out_f >= ph_end[ph] && st_f >= ph_end[ph])) begin
                @(posedge clk);
                if (cycle - t0 > 4000000) begin
                    $display("FAIL timeout in phase %0d: sent %0d received up to %0d stats %0d of %0d",
                             ph, src_f, out_f, st_f, ph_end[ph]);
                    $finish;
                end
            end
            $display("phase %0d (idle %0d%%, backpressure %0d%%): frames %0d, %0d cycles",
                     ph, idle_tab[ph], bp_tab[ph], ph_end[ph] - (ph == 0 ? 0 : ph_end[ph-1]), cycle - t0);
        end
        bp_pct = 0;
        repeat (300) @(posedge clk);

        if (m_tvalid || !s_tready || dut.wr_ptr != dut.rd_ptr || dut.meta_valid) begin
            errors = errors + 1;
            $display("FAIL left over: m_tvalid %b s_tready %b wr %0d rd %0d meta %b",
                     m_tvalid, s_tready, dut.wr_ptr, dut.rd_ptr, dut.meta_valid);
        end
        if (stalls0 != 0) begin
            errors = errors + 1;
            $display("FAIL input stalled %0d cycles in phase 0 (no idle, no backpressure)", stalls0);
        end
        if (n_ov_pulses != n_oversize) begin
            errors = errors + 1;
            $display("FAIL stat_oversize pulses %0d, expected %0d", n_ov_pulses, n_oversize);
        end
        if (n_ok_ip == 0 || n_ok_udp == 0 || n_vp == 0 || n_oversize == 0) begin
            errors = errors + 1;
            $display("FAIL weak stimulus: ip_ok %0d udp_ok %0d vport_valid %0d oversize %0d",
                     n_ok_ip, n_ok_udp, n_vp, n_oversize);
        end
        if (fr_f < nf) while (fr_f < nf && flen[fr_f] > MAX_FRAME) fr_f = fr_f + 1;
        if (fr_f != nf) begin
            errors = errors + 1;
            $display("FAIL frame_ready pulses for %0d frames of %0d", fr_f, nf);
        end
        $display("frames %0d (%0d beats, %0d oversize; ip_ok %0d, udp_ok %0d, vport_valid %0d), min latency last-in to first-out %0d cycles, to frame_ready %0d",
                 nf, memtop, n_oversize, n_ok_ip, n_ok_udp, n_vp, min_lat, fr_lat);
        errors = errors + out_mon.errors;
        if (errors == 0) $display("PASS");
        else $display("FAIL %0d errors", errors);
        $finish;
    end

endmodule
