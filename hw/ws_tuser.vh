// ws_tuser.vh - the tuser layout of the device's streams (docs/architecture.md, "tuser"), one
// definition for every module that builds or reads it. Fields by position, as NetFPGA's
// SRC_PORT_POS / DST_PORT_POS. Included inside a module body that has the parameter N_PORTS.
//   [TUSER_LEN_LSB +: TUSER_LEN_W]  frame length, bytes
//   [TUSER_SRC_LSB +: N_PORTS]      source port, one-hot (the ingress port)
//   [TUSER_DST_LSB +: N_PORTS]      destination port(s), one-hot
/* verilator lint_off UNUSEDPARAM */  // a shared block: each module uses the part it needs
localparam integer TUSER_LEN_LSB = 0;
localparam integer TUSER_LEN_W   = 16;
localparam integer TUSER_SRC_LSB = TUSER_LEN_LSB + TUSER_LEN_W;
localparam integer TUSER_DST_LSB = TUSER_SRC_LSB + N_PORTS;
localparam integer TUSER_W       = TUSER_DST_LSB + N_PORTS;
/* verilator lint_on UNUSEDPARAM */

// A tuser word of its three fields.
// VARHIDDEN waived: this function, in a module below wiresum_top that includes the header, is
// taken by Verilator 5.006 for one hiding wiresum_top's copy once a module of the device has
// public signals (ws_acc_lane's inputs); modules do not nest, so nothing is hidden.
/* verilator lint_off VARHIDDEN */
function [TUSER_W-1:0] tuser_pack(input [TUSER_LEN_W-1:0] len, input [N_PORTS-1:0] src,
                                  input [N_PORTS-1:0] dst);
    begin
        tuser_pack = {TUSER_W{1'b0}};
        tuser_pack[TUSER_LEN_LSB +: TUSER_LEN_W] = len;
        tuser_pack[TUSER_SRC_LSB +: N_PORTS] = src;
        tuser_pack[TUSER_DST_LSB +: N_PORTS] = dst;
    end
endfunction
/* verilator lint_on VARHIDDEN */
