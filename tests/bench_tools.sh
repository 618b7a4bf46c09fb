#!/bin/sh
# bench_tools.sh - the tools behind the resource benchmark (bench/resources.sh) give the right
# numbers on netlists whose answer is known:
#   bench depth-handmade  bench/lut_levels.py on a hand-written mapped netlist: LUT levels through
#                         LUTs and a distributed-RAM read, carry cells counted but no level, the
#                         deepest path and its end points named
#   bench depth-yosys     yosys synth_xilinx of a registered 16-bit adder, then lut_levels.py:
#                         one LUT level and four CARRY4 between the registers
#   bench depth-bad-input lut_levels.py on no file, a missing file, a file that is not JSON and
#                         an unknown option: exit 1 with a message naming the file or option,
#                         no traceback
#   bench table           bench/resources.awk on a hand-written `stat -top` of a two-module
#                         hierarchy: per-instance totals, LUT-RAM LUTs, RAMB18 as half a BRAM36,
#                         the device percentages, the per-module breakdown, a run that did not
#                         finish, a configuration synthesized from a commit before the last to hw/
# Appends "bench <case> <passed> <failed>" to the results file (tests/lib.sh) and
# exits 1 if a case failed. Needs python3 and yosys (scripts/deps.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
. "$(dirname "$0")/lib.sh"
rc=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

record() { # case ok(0|1) [why]
    [ "$2" -eq 0 ] || echo "bench $1: $3"
    ws_record bench "$1" "$2"
    [ "$2" -eq 0 ] || rc=1
}

# expect CASE FILE LINE-PATTERN...: every grep -E pattern matches a line of FILE
expect() {
    c=$1; f=$2; shift 2
    for p in "$@"; do
        if ! grep -Eq -- "$p" "$f"; then
            record "$c" 1 "no line matches /$p/ in:"; sed 's/^/    /' "$f" | head -n 30
            return
        fi
    done
    record "$c" 0
}

# ---- 1. a hand-written netlist ---------------------------------------------------------------
# q0 (FDRE) -> LUT6 n6 -> LUT6 n7 -> RAM32M read (ADDRA) n20 -> LUT2 n22 -> res (FDRE): 4 levels
# q0 (FDRE) -> LUT6 n6 -> LUT6 n7 -> CARRY4 n15 -> LUT2 n16 -> acc (FDRE): 3 levels, 1 carry
# din (port) -> q0; q0 -> short (FDRE) -> LUT1 -> short2 (FDRE): 1 level
cat > "$tmp/hand.json" <<'EOF'
{ "modules": { "hand": {
  "attributes": { "top": "00000000000000000000000000000001" },
  "ports": { "clk": { "direction": "input", "bits": [2] },
             "din": { "direction": "input", "bits": [3] },
             "dout": { "direction": "output", "bits": [4] } },
  "cells": {
    "r0": { "type": "FDRE", "port_directions": { "C": "input", "CE": "input", "R": "input", "D": "input", "Q": "output" },
            "connections": { "C": [2], "CE": ["1"], "R": ["0"], "D": [3], "Q": [5] } },
    "l1": { "type": "LUT6", "port_directions": { "I0": "input", "I1": "input", "O": "output" },
            "connections": { "I0": [5], "I1": ["0"], "O": [6] } },
    "l2": { "type": "LUT6", "port_directions": { "I0": "input", "I1": "input", "O": "output" },
            "connections": { "I0": [6], "I1": [5], "O": [7] } },
    "c1": { "type": "CARRY4", "port_directions": { "S": "input", "DI": "input", "CI": "input", "CYINIT": "input", "O": "output", "CO": "output" },
            "connections": { "S": [7, "0", "0", "0"], "DI": ["0", "0", "0", "0"], "CI": ["0"], "CYINIT": ["0"],
                             "O": [8, 9, 10, 11], "CO": [12, 13, 14, 15] } },
    "l3": { "type": "LUT2", "port_directions": { "I0": "input", "I1": "input", "O": "output" },
            "connections": { "I0": [15], "I1": [5], "O": [16] } },
    "r1": { "type": "FDRE", "port_directions": { "C": "input", "CE": "input", "R": "input", "D": "input", "Q": "output" },
            "connections": { "C": [2], "CE": ["1"], "R": ["0"], "D": [16], "Q": [4] } },
    "m1": { "type": "RAM32M", "port_directions": { "ADDRA": "input", "ADDRD": "input", "DIA": "input", "WE": "input", "WCLK": "input", "DOA": "output" },
            "connections": { "ADDRA": [7, "0", "0", "0", "0"], "ADDRD": [5, "0", "0", "0", "0"], "DIA": [16, 5],
                             "WE": [5], "WCLK": [2], "DOA": [20, 21] } },
    "l5": { "type": "LUT2", "port_directions": { "I0": "input", "I1": "input", "O": "output" },
            "connections": { "I0": [20], "I1": [21], "O": [22] } },
    "r4": { "type": "FDRE", "port_directions": { "C": "input", "CE": "input", "R": "input", "D": "input", "Q": "output" },
            "connections": { "C": [2], "CE": ["1"], "R": ["0"], "D": [22], "Q": [23] } },
    "r2": { "type": "FDRE", "port_directions": { "C": "input", "CE": "input", "R": "input", "D": "input", "Q": "output" },
            "connections": { "C": [2], "CE": ["1"], "R": ["0"], "D": [5], "Q": [17] } },
    "l4": { "type": "LUT1", "port_directions": { "I0": "input", "O": "output" },
            "connections": { "I0": [17], "O": [18] } },
    "r3": { "type": "FDRE", "port_directions": { "C": "input", "CE": "input", "R": "input", "D": "input", "Q": "output" },
            "connections": { "C": [2], "CE": ["1"], "R": ["0"], "D": [18], "Q": [19] } } },
  "netnames": {
    "clk": { "hide_name": 0, "bits": [2] }, "din": { "hide_name": 0, "bits": [3] },
    "dout": { "hide_name": 0, "bits": [4] }, "q0": { "hide_name": 0, "bits": [5] },
    "acc": { "hide_name": 0, "bits": [16] }, "res": { "hide_name": 0, "bits": [23] },
    "short": { "hide_name": 0, "bits": [17] }, "short2": { "hide_name": 0, "bits": [19] } } } } }
EOF
if python3 bench/lut_levels.py "$tmp/hand.json" 4 > "$tmp/hand.depth" 2> "$tmp/hand.err"; then
    expect depth-handmade "$tmp/hand.depth" \
        '^deepest lut_levels=4 carry=0 muxf=0 est_ns=2\.20 start=q0 \(FDRE\) end=res \(FDRE\) end_pin=D$' \
        '^  deepest#[0-9] lut_levels=3 carry=1 muxf=0 start=q0 \(FDRE\) end=dout \(FDRE\)$' \
        '^  deepest#[0-9] lut_levels=1 carry=0 muxf=0 start=short \(FDRE\) end=short2 \(FDRE\)$' \
        '^slowest lut_levels=4 carry=0 muxf=0 est_ns=2\.20 '
else
    record depth-handmade 1 "lut_levels.py failed: $(cat "$tmp/hand.err")"
fi

# ---- 1b. bad input: a clear message, no traceback --------------------------------------------
printf '{"modules": ' > "$tmp/cut.json"
bad_ok=0
for args in "" "$tmp/missing.json" "$tmp/cut.json 3" "$tmp/hand.json --deep"; do
    # shellcheck disable=SC2086
    if python3 bench/lut_levels.py $args > "$tmp/bad.out" 2> "$tmp/bad.err"; then
        record depth-bad-input 1 "lut_levels.py $args: exit 0"; bad_ok=1; break
    fi
    want=usage; case $args in *missing*) want=missing.json ;; *cut*) want=cut.json ;; *--deep*) want=--deep ;; esac
    if grep -q Traceback "$tmp/bad.err" || ! grep -q -- "$want" "$tmp/bad.err"; then
        record depth-bad-input 1 "lut_levels.py $args: no message naming $want: $(cat "$tmp/bad.err")"; bad_ok=1; break
    fi
done
[ "$bad_ok" -eq 1 ] || record depth-bad-input 0

# ---- 2. yosys on a registered adder ------------------------------------------------------------
cat > "$tmp/add16.v" <<'EOF'
module add16 (input clk, input [15:0] a, b, output reg [15:0] q);
    reg [15:0] ra, rb;
    always @(posedge clk) begin
        ra <= a;
        rb <= b;
        q  <= ra + rb;
    end
endmodule
EOF
if ! command -v yosys > /dev/null 2>&1; then
    record depth-yosys 1 "yosys not found (Debian package yosys: sh scripts/deps.sh)"
elif ! yosys -q -p "read_verilog $tmp/add16.v; synth_xilinx -family xc7 -noiopad -noclkbuf -top add16; \
        tee -q -o $tmp/add16.stat stat -top add16; flatten; write_json $tmp/add16.json" > "$tmp/y.log" 2>&1; then
    record depth-yosys 1 "yosys failed: $(tail -n 5 "$tmp/y.log")"
else
    python3 bench/lut_levels.py "$tmp/add16.json" 2 > "$tmp/add16.depth" 2>&1
    expect depth-yosys "$tmp/add16.depth" \
        '^deepest lut_levels=1 carry=4 muxf=0 est_ns=0\.95 start=r[ab]\[[0-9]+\] \(FDRE\) end=q\[1[2-5]\] \(FDRE\) end_pin=D$'
fi

# ---- 3. the table ------------------------------------------------------------------------------
cat > "$tmp/t.stat" <<'EOF'

1. Printing statistics.

=== $paramod\lane\W=s32'00000000000000000000000000000001 ===

   Number of wires:                 10
   Number of cells:                 10
     FDRE                            5
     LUT6                            3
     RAM32M                          1
     RAMB18E1                        1

=== top ===

   Number of wires:                  5
   Number of cells:                  7
     $paramod\lane\W=s32'00000000000000000000000000000001      2
     DSP48E1                         1
     LUT2                            4

=== design hierarchy ===

   top                               1
     $paramod\lane\W=s32'00000000000000000000000000000001      2

   Number of wires:                 25
   Number of cells:                 27
     DSP48E1                         1
     FDRE                           10
     LUT2                            4
     LUT6                            6
     RAM32M                          2
     RAMB18E1                        2

EOF
echo "t t=256:256:1:xc7 7 0123456789ab+changes" > "$tmp/t.done"
cp "$tmp/hand.depth" "$tmp/t.depth"
echo "u u=1024:256:1:xcup not finished after 60 s; last pass: PROC_MUX pass (convert decision trees to multiplexers)." > "$tmp/u.fail"
awk -v configs="t=256:256:1:xc7 u=1024:256:1:xcup" -v behind="t=1 u=0" -v yosys="Yosys X" -v cmd="sh bench/resources.sh" -v prov="machine: M" \
    -f bench/resources.awk "$tmp/t.stat" "$tmp/t.depth" "$tmp/t.done" "$tmp/u.fail" /dev/null > "$tmp/t.md" 2>&1
expect table "$tmp/t.md" \
    '^\| t: 256 bits, MAX_COUNT 256, 1 engine \| XC7VX690T \(NetFPGA-SUME\) \| 18 \| 8 \| 10 \| 0 \| 0 \| 1 \| 1 \| 0 \| 0\.0 \| 0\.0 \| 0\.1 \| \*\*yes\*\* \| 7 s, 0123456789ab\+changes \|$' \
    '^\| u: 1024 bits, MAX_COUNT 256, 1 engine \| XCU250 \(Alveo U250\) \| not synthesized: not finished after 60 s; last pass: PROC_MUX pass' \
    '^\| lane \| x2: 14 / 10 / 1 \|$' \
    '^\| top \| x1: 4 / 0 / 0 \|$' \
    '^\| t \(older RTL: 1 commit to hw/ since\) \| 200 MHz \| 7 \| 4 \(0, 0\) \| 3\.20 \(5\.00\) \| 4 \(0, 0\), 3\.20 \| yes \|$' \
    '^\| u \| 340 MHz \| 5 \| not analyzed'

exit $rc
