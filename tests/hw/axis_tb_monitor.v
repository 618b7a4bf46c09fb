// axis_tb_monitor - the AXI4-Stream rules on one stream, for the stage testbenches.
`timescale 1ns / 1ps
`default_nettype none

// Checks every cycle out of reset: while tvalid is high and tready low, tvalid stays high and
// tdata, tkeep, tlast and tuser hold until the beat is taken; a beat's tkeep is contiguous from
// bit 0, not empty, and all ones except on the last beat of a frame (KEEP = 1; KEEP = 0 leaves
// tkeep unchecked). Counts beats and frames taken. A testbench adds `errors` to its own before
// it prints PASS; the first ten violations are printed with the instance's name.
module axis_tb_monitor #(
    parameter DATA_WIDTH = 256,
    parameter USER_WIDTH = 1,
    parameter KEEP       = 1
) (
    input wire                    clk,
    input wire                    rst,
    input wire [DATA_WIDTH-1:0]   tdata,
    input wire [DATA_WIDTH/8-1:0] tkeep,
    input wire                    tvalid,
    input wire                    tready,
    input wire                    tlast,
    input wire [USER_WIDTH-1:0]   tuser
);
    localparam BYTES = DATA_WIDTH / 8;

    integer errors = 0;
    integer beats  = 0;
    integer frames = 0;

    reg                  stalled = 1'b0;
    reg [DATA_WIDTH-1:0] p_data;
    reg [BYTES-1:0]      p_keep;
    reg                  p_last;
    reg [USER_WIDTH-1:0] p_user;

    task fail(input [8*48-1:0] what);
        begin
            errors = errors + 1;
            if (errors <= 10) $display("FAIL %m at %0t: %0s", $time, what);
        end
    endtask

    always @(posedge clk) begin
        if (rst) begin
            stalled <= 1'b0;
        end else begin
            if (stalled && !tvalid)
                fail("tvalid dropped before the beat was taken");
            else if (stalled && (tdata !== p_data || tkeep !== p_keep || tlast !== p_last || tuser !== p_user))
                fail("beat changed before it was taken");
            if (tvalid && KEEP != 0) begin
                if (tkeep == {BYTES{1'b0}} || ((tkeep + 1'b1) & tkeep) != {BYTES{1'b0}})
                    fail("tkeep empty or not contiguous from bit 0");
                else if (!tlast && tkeep != {BYTES{1'b1}})
                    fail("tkeep not all ones on a beat before the last");
            end
            if (tvalid && tready) begin
                beats = beats + 1;
                if (tlast) frames = frames + 1;
            end
            stalled <= tvalid && !tready;
        end
        p_data <= tdata;
        p_keep <= tkeep;
        p_last <= tlast;
        p_user <= tuser;
    end
endmodule
