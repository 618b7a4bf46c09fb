#!/bin/sh
# partial_enc.sh [ROUNDS [SEED]] - the child's PARTIAL encoder (hw/ws_partial_enc.v) against
# driver/wire.c ws_build_partial (vectors: tests/tool_partial_enc_vectors.c, built by the Makefile
# rule for tests/tool_*.c), under Icarus and Verilator, side by side: at 256, 512 and 1024 bits;
# then, under Icarus, MAX_COUNT 2048 at 256 bits, the rows back to back (no idle, issue latency
# 1) and mostly idle (80%) at 512. One ok/FAIL line a run; exit 0 only when all pass.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
rounds=${1:-120}
seed=${2:-1}
tool=build/tests/tool_partial_enc_vectors
vec=build/hw/vectors
log=build/hw/partial_enc
. "$root/tests/hw/both.sh"
prepare partial_enc

# run NAME SIM WIDTH ROUNDS SEED MAX_COUNT [RUN_TB ARGS...]: write vectors, run the testbench
run() {
    name=$1 sim=$2 w=$3 n=$4 s=$5 mc=$6
    shift 6
    d=$vec/partial_enc_$name
    mkdir -p "$d"
    t0=$(date +%s)
    if ! "$tool" "$w" "$d" "$n" "$s" "$mc" > "$log/$name.gen" 2>&1; then
        cat "$log/$name.gen"
        echo "FAIL partial_enc $name (vectors)"
        return 1
    fi
    if sh tests/hw/run_tb.sh tb_ws_partial_enc "$sim" -GDATA_WIDTH="$w" -GMAX_COUNT="$mc" \
        -GVEC_DIR=\""$d"\" "$@" > "$log/$name.log" 2>&1; then
        echo "ok   partial_enc $name ($(($(date +%s) - t0)) s): $(sed 's/^tool_partial_enc_vectors: //' "$log/$name.gen")"
        return 0
    fi
    tail -n 12 "$log/$name.log"
    echo "FAIL partial_enc $name ($(($(date +%s) - t0)) s)"
    return 1
}

icarus() {
    rc=0
    for w in 256 512 1024; do
        run "icarus-$w" icarus "$w" "$rounds" "$seed" 256 || rc=1
    done
    run icarus-256-c2048 icarus 256 12 "$seed" 2048 -GMAX_WORDS=262144 || rc=1
    run icarus-512-busy icarus 512 "$rounds" "$((seed + 1))" 256 -GIDLE=0 -GLAT=1 || rc=1
    run icarus-512-idle icarus 512 40 "$((seed + 2))" 256 -GIDLE=80 || rc=1
    return $rc
}

verilator_runs() {
    rc=0
    for w in 256 512 1024; do
        run "verilator-$w" verilator "$w" "$((rounds * 4))" "$((seed + 10))" 256 || rc=1
    done
    return $rc
}

both partial_enc
