#!/bin/sh
# demo.sh WIRESUM - the main job on its built-in default: a 4-worker all-reduce of
# 1M elements with loss, duplicates, malformed and bypass frames, through the
# software reference and through the RTL (Verilator model), every output frame of the
# RTL compared with the reference's, and every member's tensor checked against the
# exact sum.
set -eu
ws=$1
dir=build/demo
rm -rf "$dir"
echo "== wiresum gen: 4 workers, 1M elements, 256 per packet, 2% loss, 2% duplicates,"
echo "   1% malformed frames of every drop reason, 2% bypass frames"
"$ws" gen "$dir" --workers 4 --elems 1048576 --count 256 --slots 16 --seed 2026 \
    --loss 0.02 --dup 0.02 --malformed 0.01 --bypass 0.02
echo "== wiresum ref: the software reference of the device"
"$ws" ref "$dir"
echo "== wiresum check: every member's reassembled tensor against the exact sum"
"$ws" check "$dir"
echo "== wiresum sim: the same trace through the RTL at 256 bits, compared frame by frame"
"$ws" sim "$dir"
echo "== wiresum check --prefix out: the RTL's results against the exact sums"
"$ws" check --prefix out "$dir"
echo "demo: trace and outputs in $dir (open the pcaps with wireshark or tshark)"
