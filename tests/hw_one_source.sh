#!/bin/sh
# hw_one_source.sh - the RTL (hw/*.v) types none of the codes and layouts that have one source:
#   - drop reason codes and their width come from hw/ws_regmap.vh (WS_DROP_*, WS_OK,
#     WS_REASON_W, generated from driver/wiresum/reasons.h): no localparam named after a reason of
#     driver/wiresum/reasons.h, no sized literal or numeric range on a line about a reason;
#   - the widths derived from the parameters come from hw/ws_widths.vh and hw/ws_member.vh
#     (PORT_W): no module defines them again;
#   - the tuser layout comes from hw/ws_tuser.vh: no 16 + N_PORTS or 16 + 2*N_PORTS;
#   - the member record comes from hw/ws_member.vh: no PORT_W + 16 + 32 + 48, no slice of
#     mem_rd_data by number;
#   - the command to the result generators comes from hw/ws_cmd.vh (C_*, CMD_W), a decision and a
#     completion of the judge from hw/ws_judge.vh (DC_*, CF_*): no module defines them again, no
#     sum of the command's field widths (Q_W + JI_W ...), no cmd_data slice by number;
#   - every check has the one form: $error("Error: <module> %m: ...") (and no $fatal), so that a
#     message names the module and the instance.
# Prints each offending line; exit 1 if there is one. Run by `make regmap-check`.
set -u
cd "$(dirname "$0")/.." || exit 1
rc=0

# bad DESCRIPTION ERE: the lines of hw/*.v (comments stripped) that match
bad() {
    hits=$(for f in hw/*.v; do
        sed -e 's://.*$::' "$f" | grep -nE "$2" | sed "s|^|$f:|"
    done)
    if [ -n "$hits" ]; then
        echo "hw_one_source: $1:"
        echo "$hits"
        rc=1
    fi
}

# the reasons' enum names, from driver/wiresum/reasons.h: BAD_IPV4|BAD_UDP|...
reasons=$(sed -n 's/^ *X(\([A-Z_0-9]*\),.*/\1/p' driver/wiresum/reasons.h | paste -sd '|' -)
[ -n "$reasons" ] || { echo "hw_one_source: no reason in driver/wiresum/reasons.h"; exit 1; }

bad "a drop reason code typed by hand (use WS_DROP_* of ws_regmap.vh)" \
    "[A-Za-z0-9_]*($reasons)[[:space:]]*=[[:space:]]*[0-9]*'"
# the reason width as a literal: a W'd/W'h value, a [W-1:0] range, an [E*W-1:0] range; on a line
# about a reason, before or after the word
w=$(sed -n 's/^localparam integer WS_REASON_W = \([0-9]*\);.*/\1/p' hw/ws_regmap.vh)
[ -n "$w" ] || { echo "hw_one_source: no WS_REASON_W in hw/ws_regmap.vh"; exit 1; }
lit="($w'[dh][0-9a-fA-F]+|\[$((w - 1)):0\]|\*[[:space:]]*$w[[:space:]]*-[[:space:]]*1:)"
bad "a drop reason with a literal width or value (use WS_REASON_W, WS_OK)" \
    "[Rr][Ee][Aa][Ss][Oo][Nn].*$lit|$lit.*[Rr][Ee][Aa][Ss][Oo][Nn]"
bad "a reason width typed by hand (use WS_REASON_W)" "RS_W[[:space:]]*=[[:space:]]*[0-9]"

bad "a derived width defined again (include ws_widths.vh, ws_member.vh, ws_tuser.vh)" \
    "localparam[[:space:]]+(integer[[:space:]]+)?(JI_W|WK_W|WC_W|SL_W|PS_W|CN_W|N_MEM|MA_W|Q_N|Q_W|HDR_BEATS|PAY_BEAT0|FRAME_BEATS|PAY_BEATS|RDEPTH|RA_W|BT_W|PORT_W|MEM_W|TUSER_W)[[:space:]]*="
bad "a tuser position typed by hand (use TUSER_* of ws_tuser.vh)" \
    "16[[:space:]]*\+[[:space:]]*(2[[:space:]]*\*[[:space:]]*)?N_PORTS"
bad "a member record layout typed by hand (use MEM_* of ws_member.vh)" \
    "16[[:space:]]*\+[[:space:]]*32[[:space:]]*\+[[:space:]]*48|mem_rd_data\[[[:space:]]*[0-9]"

bad "a command, decision or completion layout defined again (include ws_cmd.vh, ws_judge.vh)" \
    "localparam[[:space:]]+(integer[[:space:]]+)?(CMD_W|PC_W|C_(RANK_LO|RETX|RANK_HI|CSUM|ECN|COUNT|TENSOR|OFFSET|SLOT|JOBID|JOBIDX|Q)|DC_(Q|LAST|FIRST|ACCEPT|W)|CF_(FENCE|TOUCH|COUNT|Q|W))[[:space:]]*="
bad "a command layout typed by hand (use C_* and CMD_W of ws_cmd.vh)" \
    "Q_W[[:space:]]*\+[[:space:]]*JI_W|cmd_data\[[[:space:]]*[0-9]"

bad "a check by an instance of an undefined module (use the \$error form)" \
    "^[[:space:]]*[A-Za-z0-9_]*_(error|ERROR)_[A-Za-z0-9_]+[[:space:]]+[A-Za-z_0-9]+[[:space:]]*\("
for f in hw/*.v; do
    m=$(basename "$f" .v)
    hits=$(sed -e 's://.*$::' "$f" | grep -nE '\$fatal|\$error\(' | grep -vF "\$error(\"Error: $m %m: " |
           sed "s|^|$f:|")
    if [ -n "$hits" ]; then
        echo "hw_one_source: a check not of the form \$error(\"Error: $m %m: ...\"):"
        echo "$hits"
        rc=1
    fi
done

[ $rc = 0 ] && echo "ok   hw_one_source: no hand-typed code or layout in hw/*.v"
exit $rc
