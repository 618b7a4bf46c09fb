// tb_ws_fifo - ws_fifo (SKID = 0) or ws_skid (SKID = 1): order, count, capacity, full throughput
// and random idle/backpressure. CREDIT = 1: the FIFO in credit mode, fed by a source that pushes
// only into the room it counts (the count, less its push of the cycle), as ws_judge feeds the
// engines' decision FIFOs.
`timescale 1ns / 1ps
`default_nettype none

// Phases: 0 push and pop every cycle (no bubble, s_ready never low, words leave in exactly N cycles);
// 1 fill with the output stalled (exactly D + 1 words are taken: the FIFO's DEPTH and its output
// register, or the skid buffer's output and skid registers; the FIFO's count follows), then drain;
// 2..4 random idle on the input and backpressure on the output. Every word is checked in order;
// the FIFO's count every cycle against pushes - pops, the words inside the skid buffer against its
// 2. At the end the buffer is empty.
module tb_ws_fifo;

    parameter DATA_WIDTH = 256;     // word width
    parameter DEPTH      = 16;      // the FIFO's (SKID = 0)
    parameter SKID       = 0;       // 1: ws_skid instead
    parameter CREDIT     = 0;       // 1: ws_fifo's credit mode, a credit-counting source
    parameter SEED       = 1;
    parameter N          = 1000;    // words per phase

    localparam D   = SKID ? 1 : DEPTH;   // capacity D + 1
    localparam CW  = $clog2(DEPTH) + 1;
    localparam NPH = 5;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #2 clk = ~clk;

    reg  [DATA_WIDTH-1:0] s_data;
    reg                   s_valid;
    wire                  s_ready;
    wire [DATA_WIDTH-1:0] m_data;
    wire                  m_valid;
    reg                   m_ready;
    wire [CW-1:0]         count;     // the FIFO's (0 for the skid buffer)
    wire                  held;      // the skid buffer's skid register is full (0 for the FIFO)

    generate
        if (SKID) begin : g_skid
            ws_skid #(.WIDTH (DATA_WIDTH)) dut (
                .clk (clk), .rst (rst),
                .s_data (s_data), .s_valid (s_valid), .s_ready (s_ready),
                .m_data (m_data), .m_valid (m_valid), .m_ready (m_ready)
            );
            assign count = {CW{1'b0}};
            assign held  = dut.skid_valid;
        end else begin : g_fifo
            ws_fifo #(.WIDTH (DATA_WIDTH), .DEPTH (DEPTH), .CREDIT (CREDIT)) dut (
                .clk (clk), .rst (rst),
                .s_data (s_data), .s_valid (s_valid), .s_ready (s_ready),
                .m_data (m_data), .m_valid (m_valid), .m_ready (m_ready),
                .count (count)
            );
            assign held = 1'b0;
        end
    endgenerate

    localparam AXIS_BYTES = DATA_WIDTH / 8;   // the beat of the shared source/sink helpers
    `include "axis_tb.vh"         // xs, axis_word, axis_keep

    function [DATA_WIDTH-1:0] word(input integer n);
        integer b;
        reg [DATA_WIDTH+31:0] t;
        begin
            t = {DATA_WIDTH+32{1'b0}};
            for (b = 0; b < DATA_WIDTH; b = b + 32)
                t[b +: 32] = xs(xs((n * 32'h9E37_79B9) ^ (b * 32'h85EB_CA6B) ^ SEED ^ 32'h5));
            word = t[DATA_WIDTH-1:0];
        end
    endfunction

    integer errors = 0;
    integer cycle  = 0;
    integer idle_pct = 0, bp_pct = 0, phase = -1;
    integer in_n = 0, out_n = 0, in_end = 0;
    integer stalls0 = 0;
    reg     stop_out = 1'b0;
    reg [31:0] srs, krs;
    integer t_first [0:NPH-1];     // first and last output of each phase (written by the sink only)
    integer t_last [0:NPH-1];
    always @(posedge clk) cycle <= cycle + 1;

    // source
    always @(posedge clk) begin
        if (rst) begin
            s_valid <= 1'b0;
        end else begin
            if (phase == 0 && s_valid && !s_ready) stalls0 = stalls0 + 1;
            if (s_valid && s_ready) in_n = in_n + 1;
            // credit mode: every s_valid is a push, taken only with room for it and this cycle's
            if (CREDIT || !s_valid || s_ready) begin
                srs = xs(srs);
                if (in_n < in_end && (srs % 100) >= idle_pct &&
                    (!CREDIT || count + (s_valid ? 1 : 0) < D)) begin
                    s_valid <= 1'b1;
                    s_data  <= word(in_n);
                end else begin
                    s_valid <= 1'b0;
                end
            end
        end
    end

    // sink, scoreboard and count model
    integer model = 0;
    always @(posedge clk) begin
        if (rst) begin
            m_ready <= 1'b0;
        end else begin
            if (SKID ? model > D + 1 : count !== model[CW-1:0]) begin
                errors = errors + 1;
                if (errors < 10) $display("FAIL count %0d, %0d words inside at %0d", count, model, cycle);
            end
            if (m_valid && m_ready) begin
                if (m_data !== word(out_n)) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL word %0d: %h expected %h", out_n, m_data, word(out_n));
                end
                if (out_n >= in_n) begin
                    errors = errors + 1;
                    if (errors < 10) $display("FAIL word %0d out before it went in", out_n);
                end
                out_n = out_n + 1;
                if (phase >= 0) begin
                    if (t_first[phase] < 0) t_first[phase] = cycle;
                    t_last[phase] = cycle;
                end
            end
            model = model + ((s_valid && s_ready) ? 1 : 0) - ((m_valid && m_ready) ? 1 : 0);
            krs = xs(krs);
            m_ready <= !stop_out && (krs % 100) >= bp_pct;
        end
    end

    integer ph, t0, n0;
    integer idle_tab [0:NPH-1];
    integer bp_tab [0:NPH-1];

    task wait_drained;
        begin
            t0 = cycle;
            while (out_n < in_end) begin
                @(posedge clk);
                if (cycle - t0 > 200000) begin
                    $display("FAIL timeout in phase %0d: in %0d out %0d of %0d", phase, in_n, out_n, in_end);
                    $finish;
                end
            end
        end
    endtask

    initial begin
        srs = 32'h1357_9bdf ^ (SEED * 7);
        krs = 32'h0f0f_3c3c ^ (SEED * 13);
        for (ph = 0; ph < NPH; ph = ph + 1) begin
            t_first[ph] = -1;
            t_last[ph]  = -1;
        end
        idle_tab[0] = 0;  bp_tab[0] = 0;
        idle_tab[1] = 0;  bp_tab[1] = 0;
        idle_tab[2] = 30; bp_tab[2] = 30;
        idle_tab[3] = 70; bp_tab[3] = 10;
        idle_tab[4] = 10; bp_tab[4] = 70;
        repeat (10) @(posedge clk);
        rst <= 1'b0;
        repeat (5) @(posedge clk);

        for (ph = 0; ph < NPH; ph = ph + 1) begin
            idle_pct = idle_tab[ph];
            bp_pct   = bp_tab[ph];
            phase    = ph;
            n0       = out_n;
            if (ph == 1) begin
                // capacity: with the output stalled exactly D + 1 words go in
                stop_out = 1'b1;
                in_end   = in_end + D + 8;
                repeat (D + 20) @(posedge clk);
                // (a credit source stops a word short: it counts this cycle's push as taken)
                if (CREDIT ? in_n - out_n != D || count != D :
                    in_n - out_n != D + 1 || s_ready || (!SKID && count != D + 1)) begin
                    errors = errors + 1;
                    $display("FAIL capacity: %0d words taken, count %0d, s_ready %b (expected %0d, %0d, 0)",
                             in_n - out_n, count, s_ready, D + 1 - CREDIT, D + 1 - CREDIT);
                end
                stop_out = 1'b0;
            end else begin
                in_end = in_end + N;
            end
            wait_drained;
            $display("phase %0d (idle %0d%%, backpressure %0d%%): %0d words out in %0d cycles (first to last)",
                     ph, idle_tab[ph], bp_tab[ph], out_n - n0, t_last[ph] - t_first[ph] + 1);
            if (ph == 0 && (t_last[ph] - t_first[ph] + 1 != N || stalls0 != 0)) begin
                errors = errors + 1;
                $display("FAIL throughput: %0d words in %0d cycles, %0d input stalls", N, t_last[ph] - t_first[ph] + 1, stalls0);
            end
            repeat (3) @(posedge clk);
        end
        repeat (20) @(posedge clk);
        if (m_valid || count != 0 || held || in_n != out_n || !s_ready) begin
            errors = errors + 1;
            $display("FAIL left over: m_valid %b count %0d in %0d out %0d s_ready %b", m_valid, count, in_n, out_n, s_ready);
        end
        if (errors == 0) $display("PASS");
        else $display("FAIL %0d errors", errors);
        $finish;
    end

endmodule
