#!/bin/sh
# engine.sh - the testbenches of ws_engine's rooms and of the parser in front of them
# (tb_ws_parser, tb_ws_feed, tb_ws_combine, tb_ws_judge) through tests/hw/run_tb.sh: under Icarus
# at every width and engine count they take, under Verilator at the shapes furthest apart (its
# builds take a minute each), by tests/hw/run_list.sh, JOBS runs at a time (default 2). One
# ok/FAIL line per run, then a summary; exit status 1 if anything failed.
# Usage: tests/hw/engine.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
out=build/hw/engine
rm -rf "$out"
mkdir -p "$out"

# the runs, longest first (a Verilator build is about a minute): SIM TB [ARGS...]
{
    echo "verilator tb_ws_parser -GDATA_WIDTH=256"
    echo "verilator tb_ws_parser -GDATA_WIDTH=1024"
    echo "verilator tb_ws_feed -GDATA_WIDTH=256 -GENGINES=2"
    echo "verilator tb_ws_feed -GDATA_WIDTH=512 -GPARTIAL=1"
    echo "verilator tb_ws_combine -GENGINES=4 -GPARTIAL=1"
    echo "verilator tb_ws_judge -GENGINES=4"
    for w in 256 512 1024; do
        echo "icarus tb_ws_parser -GDATA_WIDTH=$w"
        echo "icarus tb_ws_feed -GDATA_WIDTH=$w"
        echo "icarus tb_ws_feed -GDATA_WIDTH=$w -GENGINES=2"
        echo "icarus tb_ws_feed -GDATA_WIDTH=$w -GPARTIAL=1"
    done
    for e in 1 2 3 4; do echo "icarus tb_ws_combine -GENGINES=$e"; done
    echo "icarus tb_ws_combine -GENGINES=1 -GPARTIAL=1"
    echo "icarus tb_ws_combine -GENGINES=4 -GPARTIAL=1"
    echo "icarus tb_ws_judge"
    echo "icarus tb_ws_judge -GENGINES=4"
} > "$out/runs"

sh tests/hw/run_list.sh engine "$out"
