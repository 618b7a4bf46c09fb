#!/bin/sh
# stream.sh - run the stream-infrastructure testbenches (ws_fifo, ws_skid, ws_rx_port,
# ws_input_arbiter, ws_egress_arbiter, and ws_round_csum at 8, 16 and 32 lanes) through
# tests/hw/run_tb.sh: Icarus at 256, 512 and 1024 bits, Verilator at 256 and 1024 (ws_fifo and
# ws_skid, whose logic does not depend on the width, at 256 only), plus a few corner
# configurations under Icarus, by tests/hw/run_list.sh, JOBS runs at a time (default 2). One
# ok/FAIL line per run, then a summary; exit status 1 if anything failed.
# Usage: tests/hw/stream.sh [icarus|verilator]   (default: both)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
only=${1:-}
out=build/hw/stream
rm -rf "$out"
mkdir -p "$out"

# the runs, longest first: SIM TB [ARGS...]
{
    for w in 1024 256; do
        echo "verilator tb_ws_rx_port -GDATA_WIDTH=$w"
        echo "verilator tb_ws_input_arbiter -GDATA_WIDTH=$w"
        echo "verilator tb_ws_egress_arbiter -GDATA_WIDTH=$w"
    done
    echo "verilator tb_ws_fifo -GDATA_WIDTH=256"
    echo "verilator tb_ws_fifo -GDATA_WIDTH=256 -GSKID=1"
    echo "verilator tb_ws_fifo -GDATA_WIDTH=256 -GCREDIT=1"
    echo "verilator tb_ws_round_csum -GLANES=32"
    for l in 8 16 32; do echo "icarus tb_ws_round_csum -GLANES=$l"; done
    for w in 256 512 1024; do
        echo "icarus tb_ws_rx_port -GDATA_WIDTH=$w"
        echo "icarus tb_ws_input_arbiter -GDATA_WIDTH=$w"
        echo "icarus tb_ws_egress_arbiter -GDATA_WIDTH=$w"
        echo "icarus tb_ws_fifo -GDATA_WIDTH=$w"
        echo "icarus tb_ws_fifo -GDATA_WIDTH=$w -GSKID=1"
    done
    # small frame FIFO: fills up, backpressure, oversize roll-back next to a full FIFO
    echo "icarus tb_ws_rx_port -GDATA_WIDTH=256 -GMAX_FRAME=2000 -GFIFO_BYTES=4096"
    echo "icarus tb_ws_rx_port -GDATA_WIDTH=512 -GMAX_FRAME=1518 -GFIFO_BYTES=4096 -GPORT=0"
    echo "icarus tb_ws_fifo -GDATA_WIDTH=8 -GDEPTH=2"
    echo "icarus tb_ws_fifo -GDATA_WIDTH=16 -GCREDIT=1"
    echo "icarus tb_ws_input_arbiter -GDATA_WIDTH=512 -GN_PORTS=3"
} | grep "^${only}" > "$out/runs"

sh tests/hw/run_list.sh stream "$out"
