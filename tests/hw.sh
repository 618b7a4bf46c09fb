#!/bin/sh
# hw.sh - the RTL stage testbenches of tests/hw under Icarus, the quick set for `make test`
# (`make hwtest` runs the full scripts: both simulators, more seeds and shapes). The benches:
# tb_ws_fx_to_f32, tb_ws_acc_lane (the exact lane), tb_ws_result_gen, tb_ws_partial_enc,
# tb_ws_regs (the register file and ws_counters), tb_ws_judge, tb_ws_feed and tb_ws_combine
# (ws_engine's rooms), tb_ws_parser, tb_ws_rx_port, tb_ws_input_arbiter, tb_ws_egress_arbiter,
# tb_ws_round_csum, tb_ws_fifo (ws_fifo and ws_skid). Vectors come
# from the C tools (expected values from driver/xsum.c and driver/wire.c). Appends
# "hw <run> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
results=$WS_RESULTS
vec=build/hw/vectors
mkdir -p "$vec"
rc=0

tb() { # NAME TB ARGS...: one Icarus run
    name=$1; shift
    if sh tests/hw/run_tb.sh "$@" > "build/hw/$name.log" 2>&1; then
        echo "ok   hw $name"; echo "hw $name 1 0" >> "$results"
    else
        tail -n 15 "build/hw/$name.log"; echo "FAIL hw $name"; echo "hw $name 0 1" >> "$results"; rc=1
    fi
}

mkdir -p build/hw
build/tests/tool_acc_lane_vectors --units "$vec/q_units.hex" 1000 21 > /dev/null &&
    tb fx-to-f32 tb_ws_fx_to_f32 icarus -GVEC_FILE=\""$vec/q_units.hex"\" -GPIPELINE=5
build/tests/tool_acc_lane_vectors "$vec/q_ops.hex" "$vec/q_exp.hex" 8000 22 > /dev/null &&
    tb acc-lane tb_ws_acc_lane icarus -GOPS_FILE=\""$vec/q_ops.hex"\" -GEXP_FILE=\""$vec/q_exp.hex"\"
for w in 256 512 1024; do
    d=build/hw/vectors/result_gen_w${w}_c256
    mkdir -p "$d"
    build/tests/tool_result_gen_vectors "$w" "$d" 80 3 256 > /dev/null &&
        tb "result-gen-$w" tb_ws_result_gen icarus -GDATA_WIDTH="$w"
done
# the child's PARTIAL encoder: rounds of exact sums (records, specials, zeros, |v| >= 2^307)
# against ws_build_partial, read back through either of two read ports
for run in "256 24" "512 24" "1024 10"; do
    set -- $run
    d=$vec/partial_enc_w$1
    mkdir -p "$d"
    if build/tests/tool_partial_enc_vectors "$1" "$d" "$2" 5 > "build/hw/partial-enc-$1.gen" 2>&1; then
        tb "partial-enc-$1" tb_ws_partial_enc icarus -GDATA_WIDTH="$1" -GVEC_DIR=\""$d"\"
    else
        cat "build/hw/partial-enc-$1.gen"; echo "FAIL hw partial-enc-$1 (vectors)"
        echo "hw partial-enc-$1 0 1" >> "$results"; rc=1
    fi
done
tb regs tb_ws_regs icarus
tb regs-p1 tb_ws_regs icarus -GPARTIAL=1
tb judge tb_ws_judge icarus
tb judge-e4 tb_ws_judge icarus -GENGINES=4
# ws_engine's other rooms: one engine's feed (its lanes rounding, or exact for the combine; the
# PARTIAL feed's DATA path) and the combine (the pass-through, two and four engines); the parser
tb feed tb_ws_feed icarus
tb feed-e2 tb_ws_feed icarus -GENGINES=2
tb feed-p1 tb_ws_feed icarus -GPARTIAL=1
tb combine-e1 tb_ws_combine icarus -GENGINES=1
tb combine-e2 tb_ws_combine icarus -GENGINES=2
tb combine-e4 tb_ws_combine icarus -GENGINES=4
for w in 256 1024; do
    tb "parser-$w" tb_ws_parser icarus -GDATA_WIDTH="$w"
done
# (the rx port's random frames and the checksum's rounds fewer than the benches' defaults, which
# tests/hw/stream.sh runs: the same paths, a third of the Icarus time)
for w in 256 1024; do
    tb "rx-port-$w" tb_ws_rx_port icarus -GDATA_WIDTH="$w" -GN_RANDOM=20
    tb "input-arbiter-$w" tb_ws_input_arbiter icarus -GDATA_WIDTH="$w"
    tb "egress-arbiter-$w" tb_ws_egress_arbiter icarus -GDATA_WIDTH="$w"
done
for l in 8 32; do
    tb "round-csum-$l" tb_ws_round_csum icarus -GLANES="$l" -GROUNDS=1000
done
tb fifo tb_ws_fifo icarus
tb skid tb_ws_fifo icarus -GSKID=1
tb fifo-credit tb_ws_fifo icarus -GCREDIT=1
exit $rc
