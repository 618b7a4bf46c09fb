// tb_ws_partial_enc - ws_partial_enc: every PARTIAL payload word, ext and checksum against driver/wire.c.
`timescale 1ns / 1ps
`default_nettype none

// Vectors from tests/tool_partial_enc_vectors.c in VEC_DIR (rows.hex, words.hex, meta.hex,
// info.txt): rounds of exact sums as result-RAM rows, and the payload ws_build_partial makes of
// them. The source plays the combine: it issues a row only in a cycle where s_room is high (and,
// IDLE percent of the time, not even then), and the row reaches s_valid LAT cycles later (LAT =
// FILL_SLACK - 1 by default, the longest the module allows); rows of the next rounds follow
// without waiting for the buffer. At each done: done_ext and done_csum against the round's, then
// every payload word read back through a random read port (rows in order, registered read),
// then buf_release after a random delay. The end: every round done once, nothing more; no done
// before the buffer was released.
module tb_ws_partial_enc;

    parameter DATA_WIDTH = 256;
    parameter MAX_COUNT  = 256;
    parameter READERS    = 2;
    parameter VEC_DIR    = "build/hw/vectors/partial_enc_w256";
    parameter SEED       = 1;
    parameter IDLE       = 30;      // percent of the cycles with s_room in which no row is issued
    parameter LAT        = 15;      // issue to s_valid, cycles (>= 1)
    parameter MAX_ROWS   = 8192;
    parameter MAX_WORDS  = 131072;
    parameter MAX_ROUNDS = 1024;

    localparam ACC_W = 320;
    localparam EW    = ACC_W + 4;
    localparam BYTES = DATA_WIDTH / 8;
    localparam LANES = DATA_WIDTH / 32;
    localparam WPB   = DATA_WIDTH / 64;
    localparam PAY_BEAT0 = 64 / BYTES;
    localparam CN_W  = $clog2(MAX_COUNT + 1);
    localparam PR_ROWS = (64 + 48*MAX_COUNT + BYTES - 1) / BYTES - PAY_BEAT0;
    localparam PR_W  = PR_ROWS > 1 ? $clog2(PR_ROWS) : 1;
    localparam ROW_W = 4 + 16 + LANES + LANES*EW;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;

    reg                         s_valid = 1'b0, s_first = 1'b0, s_last = 1'b0;
    reg  [CN_W-1:0]             s_count = {CN_W{1'b0}};
    reg  [LANES-1:0]            s_mask = {LANES{1'b0}};
    /* verilator lint_off WIDTHCONCAT */  // 10368 bits at 1024
    reg  [LANES*EW-1:0]         s_sums = '0;
    /* verilator lint_on WIDTHCONCAT */
    wire                        s_room, done;
    wire [15:0]                 done_ext, done_csum;
    reg                         buf_release = 1'b0;
    reg  [READERS*PR_W-1:0]     rd_addr = {READERS*PR_W{1'b0}};
    wire [READERS*DATA_WIDTH-1:0] rd_data;

    ws_partial_enc #(.DATA_WIDTH(DATA_WIDTH), .MAX_COUNT(MAX_COUNT), .ACC_W(ACC_W), .READERS(READERS)) dut (
        .clk(clk), .rst(rst),
        .s_valid(s_valid), .s_first(s_first), .s_last(s_last), .s_count(s_count), .s_mask(s_mask),
        .s_sums(s_sums), .s_room(s_room),
        .done(done), .done_ext(done_ext), .done_csum(done_csum), .buf_release(buf_release),
        .rd_addr(rd_addr), .rd_data(rd_data)
    );

    reg [ROW_W-1:0] rows  [0:MAX_ROWS-1];
    reg [63:0]      words [0:MAX_WORDS-1];
    reg [79:0]      meta  [0:MAX_ROUNDS-1];
    integer nrows, nrounds, nwords;

    reg [31:0] rs = 32'h1234_5678 ^ SEED;
    function [31:0] xs(input [31:0] x);
        reg [31:0] y;
        begin
            y = x ^ (x << 13);
            y = y ^ (y >> 17);
            xs = y ^ (y << 5);
        end
    endfunction

    integer errors = 0, cycle = 0, dones = 0, released = 0, words_checked = 0, recs = 0;
    integer issued = 0, stall_cycles = 0;

    // ---------------------------------------------------------------- the source (the combine)
    reg     dl_v [0:LAT-1];
    integer dl_i [0:LAT-1];
    integer d;
    reg     issue;
    initial for (d = 0; d < LAT; d = d + 1) dl_v[d] = 1'b0;
    always @(posedge clk) begin
        cycle <= cycle + 1;
        issue = 1'b0;
        if (!rst && s_room && issued < nrows) begin
            rs = xs(rs);
            issue = (rs % 100) >= IDLE;
        end
        if (!rst && !s_room && issued < nrows)
            stall_cycles <= stall_cycles + 1;
        for (d = LAT - 1; d > 0; d = d - 1) begin
            dl_v[d] <= dl_v[d-1];
            dl_i[d] <= dl_i[d-1];
        end
        dl_v[0] <= issue;
        dl_i[0] <= issued;
        if (issue)
            issued <= issued + 1;
        s_valid <= dl_v[LAT-1];
        if (dl_v[LAT-1]) begin
            s_first <= rows[dl_i[LAT-1]][ROW_W-3];
            s_last  <= rows[dl_i[LAT-1]][ROW_W-4];
            s_count <= rows[dl_i[LAT-1]][LANES*EW + LANES +: CN_W];
            s_mask  <= rows[dl_i[LAT-1]][LANES*EW +: LANES];
            s_sums  <= rows[dl_i[LAT-1]][LANES*EW-1:0];
        end else begin
            s_first <= 1'bx;
            s_last  <= 1'bx;
            s_count <= {CN_W{1'bx}};
            s_mask  <= {LANES{1'bx}};
            /* verilator lint_off WIDTHCONCAT */
            s_sums  <= 'x;
            /* verilator lint_on WIDTHCONCAT */
        end
    end

    // ---------------------------------------------------------------- done, read back, release
    reg buf_busy = 1'b0;         // done seen, buffer not yet released
    always @(posedge clk)
        if (!rst) begin
            if (done && buf_busy) begin
                $display("FAIL cycle %0d: done before the buffer was released", cycle);
                errors = errors + 1;
            end
            if (done)
                buf_busy <= 1'b1;
            else if (buf_release)
                buf_busy <= 1'b0;
        end

    integer rd, cnt, ext, off, w, fw, row, col, port, wait_c, first_row, last_row;
    reg [15:0] csum;
    reg [63:0] got;
    integer fd, n;
    initial begin
        fd = $fopen({VEC_DIR, "/info.txt"}, "r");
        if (fd == 0) begin
            $display("FAIL cannot open %s/info.txt", VEC_DIR);
            $finish;
        end
        n = $fscanf(fd, "%d %d %d", nrows, nrounds, nwords);
        $fclose(fd);
        if (n != 3 || nrows > MAX_ROWS || nrounds > MAX_ROUNDS || nwords > MAX_WORDS) begin
            $display("FAIL info.txt: %0d fields, %0d rows, %0d rounds, %0d words", n, nrows, nrounds, nwords);
            $finish;
        end
        $readmemh({VEC_DIR, "/rows.hex"}, rows, 0, nrows - 1);
        $readmemh({VEC_DIR, "/words.hex"}, words, 0, nwords - 1);
        $readmemh({VEC_DIR, "/meta.hex"}, meta, 0, nrounds - 1);
        repeat (5) @(posedge clk);
        rst <= 1'b0;
        for (rd = 0; rd < nrounds; rd = rd + 1) begin
            wait_c = 0;
            @(posedge clk);
            while (!done && wait_c < 200000) begin
                @(posedge clk);
                wait_c = wait_c + 1;
            end
            if (!done) begin
                $display("FAIL round %0d: no done (cycle %0d)", rd, cycle);
                $finish;
            end
            dones = dones + 1;
            off  = meta[rd][79:48];
            cnt  = meta[rd][47:32];
            ext  = meta[rd][31:16];
            csum = meta[rd][15:0];
            recs = recs + ext;
            if (done_ext !== ext[15:0]) begin
                $display("FAIL round %0d (count %0d): done_ext %0d, expected %0d", rd, cnt, done_ext, ext);
                errors = errors + 1;
            end
            if (done_csum !== csum) begin
                $display("FAIL round %0d (count %0d): done_csum %04h, expected %04h", rd, cnt, done_csum, csum);
                errors = errors + 1;
            end
            // read back the payload's rows through a random port
            rs = xs(rs);
            port = rs % READERS;
            first_row = 8 / WPB - PAY_BEAT0;
            last_row = (8 + cnt + ext - 1) / WPB - PAY_BEAT0;
            for (row = first_row; row <= last_row; row = row + 1) begin
                @(negedge clk);
                rd_addr[port*PR_W +: PR_W] = row[PR_W-1:0];
                @(negedge clk);          // the data: the cycle after the address
                for (col = 0; col < WPB; col = col + 1) begin
                    fw = (PAY_BEAT0 + row) * WPB + col;
                    w = fw - 8;
                    if (w >= 0 && w < cnt + ext) begin
                        got = {rd_data[port*DATA_WIDTH + col*64 +: 32], rd_data[port*DATA_WIDTH + col*64 + 32 +: 32]};
                        words_checked = words_checked + 1;
                        if (got !== words[off + w]) begin
                            if (errors < 20)
                                $display("FAIL round %0d (count %0d, ext %0d): %s word %0d (row %0d col %0d port %0d) %016h, expected %016h",
                                         rd, cnt, ext, w < cnt ? "element" : "record", w < cnt ? w : w - cnt,
                                         row, col, port, got, words[off + w]);
                            errors = errors + 1;
                        end
                    end
                end
            end
            rs = xs(rs);
            repeat (rs % 20) @(posedge clk);
            @(negedge clk);
            buf_release = 1'b1;
            released = released + 1;
            @(negedge clk);
            buf_release = 1'b0;
        end
        // nothing more may come
        repeat (200) begin
            @(posedge clk);
            if (done) begin
                $display("FAIL a done after the last round");
                errors = errors + 1;
            end
        end
        if (errors == 0 && dones == nrounds && issued == nrows)
            $display("PASS %0d rounds, %0d rows, %0d words checked (%0d records), %0d cycles (%0d without s_room) DATA_WIDTH %0d",
                     nrounds, nrows, words_checked, recs, cycle, stall_cycles, DATA_WIDTH);
        else
            $display("FAIL %0d errors, %0d of %0d rounds done, %0d of %0d rows issued", errors, dones, nrounds, issued, nrows);
        $finish;
    end

endmodule
