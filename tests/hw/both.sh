# both.sh - sourced by the tests/hw scripts that run a testbench under both simulators: `both NAME`
# runs the script's `icarus` and `verilator_runs` functions side by side (their output in
# $log/icarus.out and $log/verilator.out, printed after), prints one ok/FAIL line for NAME with the
# seconds taken, and exits 0 only when both passed. `prepare NAME` first: the script's vector
# tool ($tool) must be built; the vector and log directories ($vec, $log) are made.
prepare() {
    if [ ! -x "$tool" ]; then
        echo "FAIL $1: $tool is missing (make $tool)"
        exit 1
    fi
    mkdir -p "$vec" "$log"
}

both() {
    start=$(date +%s)
    icarus > "$log/icarus.out" 2>&1 &
    pid_i=$!
    verilator_runs > "$log/verilator.out" 2>&1 &
    pid_v=$!
    wait $pid_i
    rc_i=$?
    wait $pid_v
    rc_v=$?
    cat "$log/icarus.out" "$log/verilator.out"
    if [ $rc_i -ne 0 ] || [ $rc_v -ne 0 ]; then
        echo "FAIL $1 ($(($(date +%s) - start)) s)"
        exit 1
    fi
    echo "ok   $1: all runs passed ($(($(date +%s) - start)) s)"
    exit 0
}
