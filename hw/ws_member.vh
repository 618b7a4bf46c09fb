// ws_member.vh - a member record as the datapath reads the member table (ws_regs -> ws_parser,
// ws_result_gen), one definition for all three; and PORT_W, the width of a device port number
// (a member's device port, a bypass map entry). Included inside a module body that has the
// parameter N_PORTS.
/* verilator lint_off UNUSEDPARAM */  // a shared block: each module uses the part it needs
localparam integer PORT_W       = N_PORTS > 1 ? $clog2(N_PORTS) : 1;
localparam integer MEM_MAC_LSB  = 0;                          // MAC address, first byte in 47:40
localparam integer MEM_MAC_W    = 48;
localparam integer MEM_IP_LSB   = MEM_MAC_LSB + MEM_MAC_W;    // IPv4 address, first octet in 31:24
localparam integer MEM_IP_W     = 32;
localparam integer MEM_UDP_LSB  = MEM_IP_LSB + MEM_IP_W;      // UDP port
localparam integer MEM_UDP_W    = 16;
localparam integer MEM_PORT_LSB = MEM_UDP_LSB + MEM_UDP_W;    // device port the member is attached to
localparam integer MEM_W        = MEM_PORT_LSB + PORT_W;
/* verilator lint_on UNUSEDPARAM */

// A member record of its four fields.
// VARHIDDEN waived: this function, in a module below wiresum_top that includes the header, is
// taken by Verilator 5.006 for one hiding wiresum_top's copy once a module of the device has
// public signals (ws_acc_lane's inputs); modules do not nest, so nothing is hidden.
/* verilator lint_off VARHIDDEN */
function [MEM_W-1:0] member_pack(input [MEM_MAC_W-1:0] mac, input [MEM_IP_W-1:0] ip,
                                 input [MEM_UDP_W-1:0] udp, input [PORT_W-1:0] port);
    begin
        member_pack = {MEM_W{1'b0}};
        member_pack[MEM_MAC_LSB +: MEM_MAC_W] = mac;
        member_pack[MEM_IP_LSB +: MEM_IP_W] = ip;
        member_pack[MEM_UDP_LSB +: MEM_UDP_W] = udp;
        member_pack[MEM_PORT_LSB +: PORT_W] = port;
    end
endfunction
/* verilator lint_on VARHIDDEN */
