#!/bin/sh
# run_list.sh NAME DIR - run the testbench runs listed in DIR/runs, one "SIM TB [ARGS...]" a
# line, through tests/hw/run_tb.sh, JOBS at a time (default 2), each run's log in DIR. One
# ok/FAIL line per run with its seconds (and the log of a failure), then "NAME: P of T passed in
# S s"; exit status 1 if anything failed or nothing ran. The lists of tests/hw/stream.sh and
# tests/hw/engine.sh.
set -u
name=$1; out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
jobs=${JOBS:-2}
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
echo "$name: $pass of $total passed in $(( $(date +%s) - start ))s"
[ "$pass" -eq "$total" ] && [ "$total" -gt 0 ]
