// tb_ws_parser - ws_parser: directed frames for every class and every drop reason it decides, checked bit for bit in frame order.
`resetall
`include "ws_regmap.vh"
`timescale 1ns / 1ps
`default_nettype none

// The testbench plays the ingress (ws_rx_port's tuser and tmeta: the length, the source port, the
// IPv4 and UDP checksum verdicts and the UDP destination port, held on every beat; idle cycles at
// random), the member table (a registered read) and the configuration: job 0 (id 0x1234, 3
// workers, 4 slots from pool slot 2, max_count 16) enabled, job 1 (id 0x0777) disabled. Each frame
// is built from a valid DATA frame with one field changed, and carries its expected verdict:
// bypass (out on m_byp, every beat as it came, tuser's destination the source port's bypass
// entry, a stat_bypass pulse), aggregation (out on m_agg, every beat as it came, m_agg_hdr the
// decoded header on every beat) or a drop with its reason (out nowhere, a stat_drop pulse with the
// reason). Every frame's token (tok_agg, tok_hdr) is checked in frame order; the sinks take beats
// at random (backpressure) under the shared monitor; at the end nothing may be left or missing.
// Cases (docs/protocol.md sections 3 and 4): valid frames (one element, a multiple of LANES, the
// largest, ECN bits, SET); bypass: another IPv4 destination, EtherType 0x8100, TCP, UDP to
// another port, a 20-byte frame; bad_ipv4: IHL 6, a wrong header checksum, MF, a fragment offset,
// the total length; bad_udp: the UDP length, a checksum that does not verify; bad_length: a
// 60-byte frame, 4 bytes too many; bad_header: version 1, type 3, dtype 1, a flag bit, byte 3,
// ext; result_to_device; unknown_job: an unknown id, a disabled job; bad_rank; spoofed: the MAC,
// the IPv4 address, the UDP port; bad_slot; bad_count: 0, max_count + 1; and frames that fail two
// checks (the first in the order wins). Prints PASS or FAIL.
module tb_ws_parser #(
    parameter DATA_WIDTH = 256
);

import ws_regmap::*;

localparam N_PORTS     = 4;
localparam MAX_JOBS    = 2;
localparam MAX_WORKERS = 4;
localparam POOL_SLOTS  = 8;
localparam MAX_COUNT   = 16;
`include "ws_widths.vh"
`include "ws_tuser.vh"
`include "ws_member.vh"
`include "ws_agg_hdr.vh"
localparam AXIS_BYTES  = BYTES;
`include "axis_tb.vh"

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;
integer cycle = 0;
always @(posedge clk) cycle <= cycle + 1;
integer errors = 0;

localparam [31:0] DEV_IP  = 32'h0a00_0001;
localparam [15:0] DEV_UDP = 16'd48900;

reg  [DATA_WIDTH-1:0]  s_tdata = 0;
reg  [BYTES-1:0]       s_tkeep = 0;
reg                    s_tvalid = 1'b0, s_tlast = 1'b0;
wire                   s_tready;
reg  [TUSER_W-1:0]     s_tuser = 0;
reg  [18:0]            s_tmeta = 0;
wire [MA_W-1:0]        mem_rd_addr;
reg  [MEM_W-1:0]       mem_rd_data = 0;
wire [DATA_WIDTH-1:0]  byp_tdata, agg_tdata;
wire [BYTES-1:0]       byp_tkeep, agg_tkeep;
wire                   byp_tvalid, agg_tvalid, byp_tlast, agg_tlast;
reg                    byp_tready = 1'b0, agg_tready = 1'b0;
wire [TUSER_W-1:0]     byp_tuser;
wire [HDR_W-1:0]       agg_hdr;
wire                   tok_valid, tok_agg;
wire [HDR_W-1:0]       tok_hdr;
reg                    tok_ready = 1'b1;
wire                   stat_bypass, stat_drop;
wire [WS_REASON_W-1:0] stat_drop_reason;

// bypass map: port p to port 3 - p
localparam [N_PORTS*PORT_W-1:0] BYPASS = {2'd0, 2'd1, 2'd2, 2'd3};

ws_parser #(
    .DATA_WIDTH(DATA_WIDTH), .N_PORTS(N_PORTS), .MAX_JOBS(MAX_JOBS), .MAX_WORKERS(MAX_WORKERS),
    .POOL_SLOTS(POOL_SLOTS), .MAX_COUNT(MAX_COUNT), .FIFO_DEPTH(32), .PARTIAL(0)
) dut (
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid), .s_axis_tready(s_tready),
    .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser), .s_axis_tmeta(s_tmeta),
    .cfg_dev_ip(DEV_IP), .cfg_dev_udp(DEV_UDP), .cfg_bypass(BYPASS),
    .cfg_job_en(2'b01), .cfg_job_id({16'h0777, 16'h1234}),
    .cfg_job_workers({3'd4, 3'd3}), .cfg_job_slots({4'd2, 4'd4}), .cfg_job_base({4'd6, 4'd2}),
    .cfg_job_maxcount({5'd16, 5'd16}),
    .cfg_job_par_en(2'b00), .cfg_job_par_mac(96'd0), .cfg_job_par_ip(64'd0), .cfg_job_par_udp(32'd0),
    .cfg_job_par_job(32'd0), .cfg_job_par_rank(32'd0),
    .mem_rd_addr(mem_rd_addr), .mem_rd_data(mem_rd_data),
    .m_byp_tdata(byp_tdata), .m_byp_tkeep(byp_tkeep), .m_byp_tvalid(byp_tvalid), .m_byp_tready(byp_tready),
    .m_byp_tlast(byp_tlast), .m_byp_tuser(byp_tuser),
    .m_agg_tdata(agg_tdata), .m_agg_tkeep(agg_tkeep), .m_agg_tvalid(agg_tvalid), .m_agg_tready(agg_tready),
    .m_agg_tlast(agg_tlast), .m_agg_hdr(agg_hdr),
    .tok_valid(tok_valid), .tok_agg(tok_agg), .tok_hdr(tok_hdr), .tok_ready(tok_ready),
    .stat_bypass(stat_bypass), .stat_drop(stat_drop), .stat_drop_reason(stat_drop_reason)
);

axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(TUSER_W)) mon_in (
    .clk(clk), .rst(rst), .tdata(s_tdata), .tkeep(s_tkeep), .tvalid(s_tvalid), .tready(s_tready),
    .tlast(s_tlast), .tuser(s_tuser));
axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(TUSER_W)) mon_byp (
    .clk(clk), .rst(rst), .tdata(byp_tdata), .tkeep(byp_tkeep), .tvalid(byp_tvalid), .tready(byp_tready),
    .tlast(byp_tlast), .tuser(byp_tuser));
axis_tb_monitor #(.DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(HDR_W)) mon_agg (
    .clk(clk), .rst(rst), .tdata(agg_tdata), .tkeep(agg_tkeep), .tvalid(agg_tvalid), .tready(agg_tready),
    .tlast(agg_tlast), .tuser(agg_hdr));

// ---- members of job 0: rank r at MAC 02:00:00:00:00:1r, 10.0.1.r, UDP 5000 + r
function [47:0] m_mac(input integer r); m_mac = 48'h0200_0000_0010 + r; endfunction
function [31:0] m_ip(input integer r);   m_ip = 32'h0a00_0100 + r;      endfunction
function [15:0] m_udp(input integer r);  m_udp = 16'd5000 + r;          endfunction
always @(posedge clk)
    mem_rd_data <= member_pack(m_mac(mem_rd_addr % MAX_WORKERS), m_ip(mem_rd_addr % MAX_WORKERS),
                               m_udp(mem_rd_addr % MAX_WORKERS), 2'(mem_rd_addr % MAX_WORKERS));

// ---- the frames and what each must do
localparam NF = 64, FB = 256;
localparam X_BYP = 0, X_AGG = 1, X_DROP = 2;
reg [7:0]         fr [0:NF*FB-1];
integer           f_len [0:NF-1];
integer           f_port [0:NF-1];
reg               f_udp_ok [0:NF-1];
integer           f_exp [0:NF-1];
reg [WS_REASON_W-1:0] f_reason [0:NF-1];
reg [HDR_W-1:0]   f_hdr [0:NF-1];
integer           nf = 0;

task put16(input integer f, input integer k, input [15:0] v);
    begin fr[f*FB + k] = v[15:8]; fr[f*FB + k + 1] = v[7:0]; end
endtask
task put32(input integer f, input integer k, input [31:0] v);
    begin put16(f, k, v[31:16]); put16(f, k + 2, v[15:0]); end
endtask
function [15:0] get16(input integer f, input integer k);
    get16 = {fr[f*FB + k], fr[f*FB + k + 1]};
endfunction

// a valid DATA frame of job 0 from rank w, slot s, cnt elements, on port p
integer bk;
task base(input integer w, input integer s, input integer cnt, input integer p);
    begin
        f_len[nf] = 64 + 4 * cnt;
        f_port[nf] = p;
        f_udp_ok[nf] = 1'b1;
        for (bk = 0; bk < FB; bk = bk + 1) fr[nf*FB + bk] = 8'(bk * 7 + nf);
        put32(nf, 0, 32'h0200_0000); put16(nf, 4, 16'h0001);        // destination MAC
        put32(nf, 6, m_mac(w) >> 16); put16(nf, 10, m_mac(w));       // source MAC
        put16(nf, 12, 16'h0800);
        fr[nf*FB + 14] = 8'h45; fr[nf*FB + 15] = 8'h00;
        put16(nf, 16, f_len[nf] - 14);
        put16(nf, 18, 16'h1234); put16(nf, 20, 16'h4000);            // id, DF
        fr[nf*FB + 22] = 8'd64; fr[nf*FB + 23] = 8'd17;
        put16(nf, 24, 16'h0000);
        put32(nf, 26, m_ip(w)); put32(nf, 30, DEV_IP);
        put16(nf, 34, m_udp(w)); put16(nf, 36, DEV_UDP);
        put16(nf, 38, f_len[nf] - 34); put16(nf, 40, 16'h0000);
        fr[nf*FB + 42] = 8'h20; fr[nf*FB + 43] = 8'h00; fr[nf*FB + 44] = 8'h00; fr[nf*FB + 45] = 8'h00;
        put16(nf, 46, 16'h1234); put16(nf, 48, w); put16(nf, 50, s); put16(nf, 52, cnt);
        put32(nf, 54, 32'h0001_0000 + 16 * nf); put32(nf, 58, 32'hcafe_0000 + nf); put16(nf, 62, 16'h0000);
        f_exp[nf] = X_AGG;
        f_reason[nf] = WS_OK;
    end
endtask

// the IPv4 header checksum, made right
integer ck;
reg [31:0] csum;
task fix_ip(input integer f);
    begin
        put16(f, 24, 16'h0000);
        csum = 0;
        for (ck = 14; ck < 34; ck = ck + 2) csum = csum + get16(f, ck);
        csum = (csum & 32'hffff) + (csum >> 16);
        csum = (csum & 32'hffff) + (csum >> 16);
        put16(f, 24, ~csum[15:0]);
    end
endtask

// the expected header of frame f (a job 0 aggregation frame)
function [HDR_W-1:0] hdr_of(input integer f);
    reg [HDR_W-1:0] h;
    begin
        h = {HDR_W{1'b0}};
        h[H_JOBIDX +: JI_W] = 0;
        h[H_JOBID +: 16] = 16'h1234;
        h[H_PSLOT +: PS_W] = 2 + get16(f, 50);
        h[H_SLOT +: 16] = get16(f, 50);
        h[H_SET] = fr[f*FB + 44][0];
        h[H_WORKER +: WK_W] = get16(f, 48);
        h[H_COUNT +: CN_W] = get16(f, 52);
        h[H_OFFSET +: 32] = {get16(f, 54), get16(f, 56)};
        h[H_TENSOR +: 32] = {get16(f, 58), get16(f, 60)};
        h[H_ECN +: 2] = fr[f*FB + 15][1:0];
        h[H_WORKERS +: WC_W] = 3;
        hdr_of = h;
    end
endfunction

// done: the checksum right (unless keep_csum), the expectation, next frame
task done(input integer exp, input [WS_REASON_W-1:0] reason, input keep_csum);
    begin
        if (!keep_csum) fix_ip(nf);
        f_exp[nf] = exp;
        f_reason[nf] = reason;
        f_hdr[nf] = hdr_of(nf);
        nf = nf + 1;
    end
endtask

// tmeta of frame f, as ws_rx_port computes it
function [18:0] meta_of(input integer f);
    reg [31:0] s;
    integer k, ihl;
    reg ipok, vv;
    reg [15:0] vp;
    begin
        s = 0;
        for (k = 14; k < 34; k = k + 2) s = s + get16(f, k);
        s = (s & 32'hffff) + (s >> 16);
        s = (s & 32'hffff) + (s >> 16);
        ipok = f_len[f] >= 34 && s[15:0] == 16'hffff;
        ihl = fr[f*FB + 14] & 15;
        vv = f_len[f] >= 18 + 4 * ihl;
        vp = vv ? get16(f, 16 + 4 * ihl) : 16'd0;
        meta_of = {vp, vv, f_udp_ok[f] && f_len[f] >= 42, ipok};
    end
endfunction

// ---- the source: every frame in order, idle cycles at random
reg [31:0] rsd = 32'h2545_f491;
reg go = 1'b0, src_done = 1'b0;
integer sf, sb, sk, nbeats;
reg [DATA_WIDTH-1:0] s_beat;
initial begin : source
    @(negedge clk);
    wait (!rst);
    wait (nf > 0 && go);
    for (sf = 0; sf < nf; sf = sf + 1) begin
        nbeats = (f_len[sf] + BYTES - 1) / BYTES;
        for (sb = 0; sb < nbeats; sb = sb + 1) begin
            rsd = xs(rsd);
            while (rsd % 100 < 25) begin
                s_tvalid = 1'b0;
                @(negedge clk);
                rsd = xs(rsd);
            end
            for (sk = 0; sk < BYTES; sk = sk + 1)
                s_beat[8*sk +: 8] = sb * BYTES + sk < f_len[sf] ? fr[sf*FB + sb*BYTES + sk] : 8'h5a ^ sk[7:0];
            // the beat in one assignment: Verilator 5.006 does not evaluate the logic behind a
            // port again after part-selects written by a process that waits (--timing)
            s_tdata = s_beat;
            s_tkeep = axis_keep(f_len[sf], sb);
            s_tlast = sb == nbeats - 1;
            s_tuser = tuser_pack(f_len[sf], 4'b0001 << f_port[sf], 4'b0000);
            s_tmeta = meta_of(sf);
            s_tvalid = 1'b1;
            // ready as the next rising edge sees it: sampled a moment after the inputs changed,
            // never at the edge itself (where a simulator may show it before or after the
            // edge's updates)
            #1;
            while (!s_tready) begin
                @(negedge clk);
                #1;
            end
            @(negedge clk);
        end
        s_tvalid = 1'b0;
    end
    src_done = 1'b1;
end

// ---- the sinks, ready at random; each beat against the next frame of its kind
reg [31:0] rsk = 32'h7f4a_7c15;
always @(posedge clk) begin
    rsk <= xs(rsk);
    byp_tready <= rsk[6:0] > 7'd38;
    agg_tready <= rsk[22:16] > 7'd38;
    tok_ready <= rsk[30:24] > 7'd20;
end

integer nb_f = 0, nb_b = 0, na_f = 0, na_b = 0, nt = 0, nd = 0, nby = 0, ndp = 0;
// the next frame of verdict x at or after frame i
function integer next_of(input integer x, input integer i);
    integer k;
    begin
        next_of = nf;
        for (k = nf - 1; k >= i; k = k - 1)
            if (f_exp[k] == x) next_of = k;
    end
endfunction

reg [DATA_WIDTH-1:0] want_d;
reg [BYTES-1:0]      want_k;
integer cf, ck2;
task want_beat(input integer f, input integer b);
    begin
        for (ck2 = 0; ck2 < BYTES; ck2 = ck2 + 1)
            want_d[8*ck2 +: 8] = b * BYTES + ck2 < f_len[f] ? fr[f*FB + b*BYTES + ck2] : 8'h5a ^ ck2[7:0];
        want_k = axis_keep(f_len[f], b);
    end
endtask

always @(posedge clk) if (!rst) begin
    if (byp_tvalid && byp_tready) begin
        cf = next_of(X_BYP, nb_f);
        if (cf >= nf) begin
            $display("FAIL cycle %0d: a bypass beat with no bypass frame left", cycle); errors = errors + 1;
        end else begin
            want_beat(cf, nb_b);
            if (byp_tdata !== want_d || byp_tkeep !== want_k ||
                byp_tlast !== ((nb_b + 1) * BYTES >= f_len[cf]) ||
                byp_tuser !== tuser_pack(f_len[cf], 4'b0001 << f_port[cf], 4'b0001 << (3 - f_port[cf]))) begin
                $display("FAIL cycle %0d: frame %0d bypass beat %0d differs (tuser %h)", cycle, cf, nb_b, byp_tuser);
                errors = errors + 1;
            end
            nb_f = cf;
            nb_b = byp_tlast ? 0 : nb_b + 1;
            if (byp_tlast) nb_f = cf + 1;
        end
    end
    if (agg_tvalid && agg_tready) begin
        cf = next_of(X_AGG, na_f);
        if (cf >= nf) begin
            $display("FAIL cycle %0d: an aggregation beat with no aggregation frame left", cycle); errors = errors + 1;
        end else begin
            want_beat(cf, na_b);
            if (agg_tdata !== want_d || agg_tkeep !== want_k ||
                agg_tlast !== ((na_b + 1) * BYTES >= f_len[cf]) || agg_hdr !== f_hdr[cf]) begin
                $display("FAIL cycle %0d: frame %0d aggregation beat %0d differs (hdr %h, expected %h)",
                         cycle, cf, na_b, agg_hdr, f_hdr[cf]);
                errors = errors + 1;
            end
            na_f = cf;
            na_b = agg_tlast ? 0 : na_b + 1;
            if (agg_tlast) na_f = cf + 1;
        end
    end
    // tokens: one per frame, in order
    if (tok_valid) begin
        if (nt >= nf) begin
            $display("FAIL cycle %0d: a token with no frame left", cycle); errors = errors + 1;
        end else if (tok_agg !== (f_exp[nt] == X_AGG) || (tok_agg && tok_hdr !== f_hdr[nt])) begin
            $display("FAIL cycle %0d: frame %0d: token agg %b hdr %h, expected verdict %0d (reason %0d) hdr %h",
                     cycle, nt, tok_agg, tok_hdr, f_exp[nt], f_reason[nt], f_hdr[nt]);
            errors = errors + 1;
        end
        nt = nt + 1;
    end
    // drops, in order, with their reason; bypass pulses
    if (stat_drop) begin
        cf = next_of(X_DROP, nd);
        if (cf >= nf || stat_drop_reason !== f_reason[cf]) begin
            $display("FAIL cycle %0d: frame %0d dropped as %0d, expected %0d", cycle, cf, stat_drop_reason,
                     cf < nf ? f_reason[cf] : 0);
            errors = errors + 1;
        end
        nd = cf + 1;
        ndp = ndp + 1;
    end
    if (stat_bypass) nby = nby + 1;
    if (stat_drop && stat_bypass) begin
        $display("FAIL cycle %0d: a drop and a bypass pulse together", cycle); errors = errors + 1;
    end
end

// ---- the cases
integer i, n_byp, n_agg, n_drop;
initial begin
    repeat (4) @(negedge clk);
    rst = 1'b0;
    // valid frames
    base(0, 0, 1, 0);             done(X_AGG, WS_OK, 0);
    base(1, 3, LANES < MAX_COUNT ? LANES : MAX_COUNT, 1); done(X_AGG, WS_OK, 0);
    base(2, 1, MAX_COUNT, 2);     fr[nf*FB + 15] = 8'h03; fr[nf*FB + 44] = 8'h01; done(X_AGG, WS_OK, 0);
    base(0, 2, 5, 3);             fr[nf*FB + 44] = 8'h02; done(X_AGG, WS_OK, 0);   // RETX: a flag the parser takes
    // bypass: another destination, VLAN, TCP, UDP to another port, a 20-byte frame
    base(0, 0, 4, 1);             put32(nf, 30, DEV_IP + 1); done(X_BYP, WS_OK, 0);
    base(0, 0, 4, 2);             put16(nf, 12, 16'h8100); done(X_BYP, WS_OK, 0);
    base(0, 0, 4, 3);             fr[nf*FB + 23] = 8'd6; done(X_BYP, WS_OK, 0);
    base(0, 0, 4, 0);             put16(nf, 36, DEV_UDP + 1); done(X_BYP, WS_OK, 0);
    base(0, 0, 4, 1);             f_len[nf] = 20; done(X_BYP, WS_OK, 0);
    // bad_ipv4: IHL 6 (the port read at 16 + 24), a wrong checksum, MF, a fragment offset, total length
    base(0, 0, 4, 0);             fr[nf*FB + 14] = 8'h46; put16(nf, 40, DEV_UDP); done(X_DROP, WS_DROP_BAD_IPV4, 0);
    base(0, 0, 4, 0);             fix_ip(nf); put16(nf, 24, get16(nf, 24) ^ 16'h0100); done(X_DROP, WS_DROP_BAD_IPV4, 1);
    base(0, 0, 4, 1);             put16(nf, 20, 16'h2000); done(X_DROP, WS_DROP_BAD_IPV4, 0);
    base(0, 0, 4, 2);             put16(nf, 20, 16'h0001); done(X_DROP, WS_DROP_BAD_IPV4, 0);
    base(0, 0, 4, 3);             put16(nf, 16, f_len[nf] - 13); done(X_DROP, WS_DROP_BAD_IPV4, 0);
    // bad_udp: the length; a checksum that does not verify (and one that does)
    base(0, 0, 4, 0);             put16(nf, 38, f_len[nf] - 30); done(X_DROP, WS_DROP_BAD_UDP, 0);
    base(0, 0, 4, 0);             put16(nf, 40, 16'hbeef); f_udp_ok[nf] = 1'b0; done(X_DROP, WS_DROP_BAD_UDP, 0);
    base(0, 0, 4, 0);             put16(nf, 40, 16'hbeef); done(X_AGG, WS_OK, 0);
    // bad_length: 60 bytes (IPv4 and UDP lengths to match), 4 bytes too many
    base(0, 0, 4, 1);             f_len[nf] = 60; put16(nf, 16, 46); put16(nf, 38, 26); done(X_DROP, WS_DROP_BAD_LENGTH, 0);
    base(0, 0, 4, 1);             f_len[nf] = 84; put16(nf, 16, 70); put16(nf, 38, 50); done(X_DROP, WS_DROP_BAD_LENGTH, 0);
    // bad_header: version 1; result_to_device; type 3, dtype 1, a flag bit, byte 3, ext
    base(0, 0, 4, 2);             fr[nf*FB + 42] = 8'h10; done(X_DROP, WS_DROP_BAD_HEADER, 0);
    base(0, 0, 4, 2);             fr[nf*FB + 42] = 8'h21; done(X_DROP, WS_DROP_RESULT_TO_DEVICE, 0);
    base(0, 0, 4, 2);             fr[nf*FB + 42] = 8'h23; done(X_DROP, WS_DROP_BAD_HEADER, 0);
    base(0, 0, 4, 2);             fr[nf*FB + 42] = 8'h22; done(X_DROP, WS_DROP_BAD_HEADER, 0);   // PARTIAL = 0
    base(0, 0, 4, 3);             fr[nf*FB + 43] = 8'h01; done(X_DROP, WS_DROP_BAD_HEADER, 0);
    base(0, 0, 4, 3);             fr[nf*FB + 44] = 8'h04; done(X_DROP, WS_DROP_BAD_HEADER, 0);
    base(0, 0, 4, 3);             fr[nf*FB + 45] = 8'h01; done(X_DROP, WS_DROP_BAD_HEADER, 0);
    base(0, 0, 4, 3);             put16(nf, 62, 16'h0001); done(X_DROP, WS_DROP_BAD_HEADER, 0);
    // unknown_job: an unknown id, the disabled job's
    base(0, 0, 4, 0);             put16(nf, 46, 16'h9999); done(X_DROP, WS_DROP_UNKNOWN_JOB, 0);
    base(0, 0, 4, 0);             put16(nf, 46, 16'h0777); done(X_DROP, WS_DROP_UNKNOWN_JOB, 0);
    // bad_rank (rank 3 of 3 workers: its member record exists), spoofed three ways
    base(3, 0, 4, 1);             done(X_DROP, WS_DROP_BAD_RANK, 0);
    base(1, 0, 4, 1);             fr[nf*FB + 11] = fr[nf*FB + 11] ^ 8'h40; done(X_DROP, WS_DROP_SPOOFED, 0);
    base(1, 0, 4, 1);             put32(nf, 26, m_ip(2)); done(X_DROP, WS_DROP_SPOOFED, 0);
    base(1, 0, 4, 1);             put16(nf, 34, m_udp(0)); done(X_DROP, WS_DROP_SPOOFED, 0);
    // bad_slot, bad_count (0 in a 64-byte frame; 17 in a frame of 17)
    base(2, 4, 4, 2);             done(X_DROP, WS_DROP_BAD_SLOT, 0);
    base(2, 1, 0, 2);             done(X_DROP, WS_DROP_BAD_COUNT, 0);
    base(2, 1, MAX_COUNT + 1, 2); done(X_DROP, WS_DROP_BAD_COUNT, 0);
    // two checks failing: the first wins
    base(3, 4, 4, 3);             done(X_DROP, WS_DROP_BAD_RANK, 0);      // rank, slot
    base(1, 9, 4, 3);             put16(nf, 34, 1); done(X_DROP, WS_DROP_SPOOFED, 0);   // spoofed, slot
    base(1, 2, 4, 3);             put16(nf, 52, 0); done(X_DROP, WS_DROP_BAD_COUNT, 0); // count, length
    base(0, 0, 4, 0);             fr[nf*FB + 42] = 8'h10; put16(nf, 38, 7); done(X_DROP, WS_DROP_BAD_UDP, 0);
    base(0, 0, 4, 0);             put16(nf, 46, 16'h9999); fr[nf*FB + 43] = 8'h01; done(X_DROP, WS_DROP_BAD_HEADER, 0);
    // and valid frames again, back to back
    for (i = 0; i < 6; i = i + 1) begin
        base(i % 3, i % 4, 1 + 3 * i, i % 4); done(X_AGG, WS_OK, 0);
    end
    go = 1'b1;
    wait (src_done);
    repeat (200) @(negedge clk);
    n_byp = 0; n_agg = 0; n_drop = 0;
    for (i = 0; i < nf; i = i + 1) begin
        if (f_exp[i] == X_BYP) n_byp = n_byp + 1;
        if (f_exp[i] == X_AGG) n_agg = n_agg + 1;
        if (f_exp[i] == X_DROP) n_drop = n_drop + 1;
    end
    if (nt != nf || nby != n_byp || mon_byp.frames != n_byp || mon_agg.frames != n_agg || ndp != n_drop) begin
        $display("FAIL: %0d frames: %0d tokens, %0d bypass pulses and %0d frames (expected %0d), %0d aggregation frames (expected %0d), %0d drops (expected %0d)",
                 nf, nt, nby, mon_byp.frames, n_byp, mon_agg.frames, n_agg, ndp, n_drop);
        errors = errors + 1;
    end
    errors = errors + mon_in.errors + mon_byp.errors + mon_agg.errors;
    if (errors == 0) $display("PASS tb_ws_parser DATA_WIDTH=%0d: %0d frames (%0d aggregation, %0d bypass, %0d dropped)",
                              DATA_WIDTH, nf, n_agg, n_byp, n_drop);
    else $display("FAIL tb_ws_parser: %0d errors", errors);
    $finish;
end

initial begin
    #3000000;
    $display("FAIL tb_ws_parser: timeout");
    $finish;
end

endmodule

`resetall
