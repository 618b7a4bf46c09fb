// ws_pipe_reg - an optional pipeline register: q is d one cycle later (ON = 1) or d itself (ON = 0).
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The register stages that a module's PIPELINE parameter adds or leaves out (ws_f32_to_fx,
// ws_fx_to_f32): one instance per cut, the cut's signals concatenated into d. No reset: the
// stage carries data whose valid travels beside it.
module ws_pipe_reg #(
    parameter W  = 1,   // bits
    parameter ON = 1    // 1: a register; 0: a wire
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire         clk,   // used only when ON = 1
    input  wire         en,    // ON = 1: q takes d at the clock when 1, holds when 0 (unused: ON = 0)
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [W-1:0] d,
    output wire [W-1:0] q
);

    generate
        if (ON != 0 && ON != 1) begin : g_bad_on
            initial begin
                $error("Error: ws_pipe_reg %m: ON must be 0 or 1 (ON = %0d)", ON);
                $finish;
            end
        end
        if (ON == 1) begin : g_reg
            reg [W-1:0] r;
            always @(posedge clk) if (en) r <= d;
            assign q = r;
        end else begin : g_wire
            assign q = d;
        end
    endgenerate

endmodule

`resetall
