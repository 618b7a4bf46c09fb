#!/bin/sh
# result_gen.sh [NCMDS [SEED]] - make the ws_result_gen vectors (build/tests/tool_result_gen_vectors,
# built by the Makefile rule for tests/tool_*.c; frames from driver/wire.c ws_build) and run
# tests/hw/tb_ws_result_gen.v at 256, 512 and 1024 bits under Icarus and Verilator, plus
# MAX_COUNT 2048 (jumbo) at 256 bits. One ok/FAIL line a run; exit 0 only when all pass.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ncmds=${1:-240}
seed=${2:-1}
tool=build/tests/tool_result_gen_vectors
[ -x "$tool" ] || { echo "FAIL tb_ws_result_gen: $tool not built (make $tool)"; exit 1; }

rc=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# width max_count commands
for run in "256 256 $ncmds" "512 256 $ncmds" "1024 256 $ncmds" "256 2048 40"; do
    set -- $run
    w=$1; mc=$2; n=$3
    dir=build/hw/vectors/result_gen_w${w}_c${mc}
    mkdir -p "$dir"
    if ! "$tool" "$w" "$dir" "$n" "$seed" "$mc" > /dev/null; then
        echo "FAIL tb_ws_result_gen (vectors DATA_WIDTH=$w MAX_COUNT=$mc)"
        rc=1
        continue
    fi
    params="-GDATA_WIDTH=$w"
    [ "$mc" = 256 ] || params="$params -GMAX_COUNT=$mc"
    # the two simulators side by side (2 cores), lines printed in order
    # shellcheck disable=SC2086
    { sh tests/hw/run_tb.sh tb_ws_result_gen icarus $params > "$tmp/icarus" 2>&1; echo $? > "$tmp/icarus.rc"; } &
    # shellcheck disable=SC2086
    sh tests/hw/run_tb.sh tb_ws_result_gen verilator $params > "$tmp/verilator" 2>&1
    vrc=$?
    wait
    cat "$tmp/icarus" "$tmp/verilator"
    [ "$(cat "$tmp/icarus.rc")" = 0 ] && [ "$vrc" = 0 ] || rc=1
done
exit $rc
