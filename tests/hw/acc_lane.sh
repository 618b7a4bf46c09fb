#!/bin/sh
# acc_lane.sh - the exact accumulator lane (hw/ws_acc_lane.v) and its converters under Icarus and
# Verilator, against vectors whose expected values come from driver/xsum.c
# (build/tests/tool_acc_lane_vectors, built by the Makefile rule for tests/tool_*.c).
# Every lane run drives its operations twice, with 0% and with ~30% idle cycles. Two seeds per
# simulator; Icarus gets fewer operations (it is ~100x slower). The two simulators run side by
# side, each on its own vector files. Prints one "ok"/"FAIL" line per run (with the failing
# run's log tail); exits non-zero on any failure. Run from anywhere; works in the repository.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
tool=build/tests/tool_acc_lane_vectors
vec=build/hw/vectors
log=build/hw/acc_lane
. "$root/tests/hw/both.sh"
prepare acc_lane

# run NAME TB SIM GEN-ARGS -- RUN_TB-ARGS: write vectors with the tool, then run the testbench
run() {
    name=$1 tb=$2 sim=$3
    shift 3
    gen=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        gen="$gen $1"
        shift
    done
    shift
    t0=$(date +%s)
    # shellcheck disable=SC2086
    if ! "$tool" $gen > "$log/$name.gen" 2>&1; then
        cat "$log/$name.gen"
        echo "FAIL acc_lane $name (vectors)"
        return 1
    fi
    if sh tests/hw/run_tb.sh "$tb" "$sim" "$@" > "$log/$name.log" 2>&1; then
        # run_tb.sh keeps the simulation log under this tag
        tag=$(printf '%s' "$tb $*" | tr -c 'A-Za-z0-9_' '_')
        pass=$(grep -h '^PASS' "build/hw/$sim/$tag/run.log" 2>/dev/null | sed 's/^PASS //')
        echo "ok   acc_lane $name ($(($(date +%s) - t0)) s): ${pass:-passed}"
        return 0
    fi
    tail -n 12 "$log/$name.log"
    echo "FAIL acc_lane $name ($(($(date +%s) - t0)) s)"
    return 1
}

icarus() {
    rc=0
    u=$vec/icarus_units.hex o=$vec/icarus_ops.hex e=$vec/icarus_expected.hex
    run icarus-units-pipe0 tb_ws_fx_to_f32 icarus --units "$u" 1000 11 -- \
        -GVEC_FILE=\""$u"\" -GPIPELINE=0 || rc=1
    run icarus-units-pipe2 tb_ws_fx_to_f32 icarus --units "$u" 1000 12 -- \
        -GVEC_FILE=\""$u"\" -GPIPELINE=2 || rc=1
    for seed in 1 2; do
        run icarus-lane-seed$seed tb_ws_acc_lane icarus "$o" "$e" 20000 "$seed" -- \
            -GOPS_FILE=\""$o"\" -GEXP_FILE=\""$e"\" || rc=1
    done
    # other shapes: the add in one stage; seven stages with a wider accumulator and odd depth
    run icarus-lane-chunks1 tb_ws_acc_lane icarus "$o" "$e" 4000 5 -- \
        -GOPS_FILE=\""$o"\" -GEXP_FILE=\""$e"\" -GADD_CHUNKS=1 -GACC_W=290 || rc=1
    run icarus-lane-chunks7 tb_ws_acc_lane icarus "$o" "$e" 4000 6 -- \
        -GOPS_FILE=\""$o"\" -GEXP_FILE=\""$e"\" -GADD_CHUNKS=7 -GACC_W=300 -GDEPTH=100 || rc=1
    return $rc
}

verilator_runs() {
    rc=0
    u=$vec/verilator_units.hex o=$vec/verilator_ops.hex e=$vec/verilator_expected.hex
    run verilator-units-pipe3 tb_ws_fx_to_f32 verilator --units "$u" 20000 13 -- \
        -GVEC_FILE=\""$u"\" -GPIPELINE=5 || rc=1
    # the same arguments for every seed: one build, the vectors change
    for seed in 3 4; do
        run verilator-lane-seed$seed tb_ws_acc_lane verilator "$o" "$e" 200000 "$seed" -- \
            -GOPS_FILE=\""$o"\" -GEXP_FILE=\""$e"\" || rc=1
    done
    return $rc
}

both acc_lane
