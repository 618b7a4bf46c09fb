// axis_tb.vh - what the stage testbenches share for their AXI4-Stream sources and sinks, included
// inside a testbench module (tests/hw/run_tb.sh passes -I tests/hw): the xorshift generator that
// drives idle insertion, backpressure and frame plans, the byte pattern of a frame, and the keep
// of a beat. The protocol rules on a stream are checked by tests/hw/axis_tb_monitor.v.

// xorshift32: the next state of a generator (never 0 from a nonzero seed)
function [31:0] xs(input [31:0] x);
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        xs = y ^ (y << 5);
    end
endfunction

// 32-bit word w (bytes 4w..4w+3) of frame f of stream p, under seed s: a hash, so a sink can
// compare every byte without storing the frames
function [31:0] axis_word(input [31:0] s, input integer p, input integer f, input integer w);
    begin
        axis_word = xs(xs(s ^ (p * 32'h9E37_79B9) ^ (f * 32'h85EB_CA6B) ^ (w * 32'hC2B2_AE35) ^ 32'h1));
    end
endfunction

// tkeep of beat b of a frame of len bytes, AXIS_BYTES bytes a beat: all ones but on the last beat,
// contiguous from bit 0
function [AXIS_BYTES-1:0] axis_keep(input integer len, input integer b);
    integer k;
    begin
        axis_keep = {AXIS_BYTES{1'b1}};
        if ((b + 1) * AXIS_BYTES > len) begin
            for (k = 0; k < AXIS_BYTES; k = k + 1) axis_keep[k] = (b * AXIS_BYTES + k < len);
        end
    end
endfunction
