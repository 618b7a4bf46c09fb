#!/bin/sh
# engine.sh - the testbenches of ws_engine's rooms and of the parser in front of them
# (tb_ws_parser, tb_ws_feed, tb_ws_combine, tb_ws_judge) through tests/hw/run_tb.sh under Icarus,
# at every width and engine count they take. Not yet under Verilator: tb_ws_parser misreads its
# frames there (tokens and verdicts of the wrong bytes; the RTL passes the same bench under Icarus
# and the device suites under Verilator), to be found before these runs are added. JOBS runs at
# a time (default 2). One ok/FAIL line per run, then a summary; exit status 1 if anything failed.
# Usage: tests/hw/engine.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
jobs=${JOBS:-2}
out=build/hw/engine
rm -rf "$out"
mkdir -p "$out"

# the runs, longest first: SIM TB [ARGS...]
{
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

start=$(date +%s)
# shellcheck disable=SC2016
xargs -P "$jobs" -L 1 sh -c '
    out=$0; sim=$1; tb=$2; shift 2
    tag=$(printf "%s" "$tb $sim $*" | tr -c "A-Za-z0-9_" "_")
    t0=$(date +%s)
    sh tests/hw/run_tb.sh "$tb" "$sim" "$@" > "$out/$tag.log" 2>&1
    rc=$?
    echo $rc > "$out/$tag.rc"
    line=$(tail -n 1 "$out/$tag.log")
    printf "%s  (%ss)\n" "$line" "$(( $(date +%s) - t0 ))"
    [ $rc -eq 0 ] || echo "     log: $out/$tag.log"
' "$out" < "$out/runs"

total=$(wc -l < "$out/runs")
pass=$(cat "$out"/*.rc 2>/dev/null | grep -c '^0$')
echo "engine: $pass of $total passed in $(( $(date +%s) - start ))s"
[ "$pass" -eq "$total" ] && [ "$total" -gt 0 ]
