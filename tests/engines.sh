#!/bin/sh
# engines.sh WIRESUM - the device with several engines (ENGINES = 4, one port each,
# docs/architecture.md section 9): WIRESUM's 256-bit model, the PARTIAL build of make test
# (build/p1/wiresum: -GENGINES=4 -GPARTIAL=1 -GMAX_FRAME=12352 at 256 bits; it takes PARTIAL
# frames too, so it carries the longest PARTIAL of 256 elements; these traces hold DATA frames,
# tests/partial.sh the others):
#   - RTL regression cases (tests/rtl.sh: traces through the model, bit for bit against the
#     software reference and its counters, then against the exact sums), without stalls and
#     with ingress idle insertion and with egress backpressure;
#   - the closed loop with 10% loss, duplication, reordering and corruption both ways: every
#     tensor exact;
#   - capacity under saturating load on all four ports (`wiresum bench`): the engines together
#     take at least 4 x 0.99 beats per cycle, and every RESULT is right. Beats per cycle is a
#     count of simulated cycles, not a wall-clock time.
# The same RTL under Icarus (build/p1/icarus/ws256.vvp) is tests/partial.sh's: at 60 to 80
# cycles a second there, a run is a minute of make test per thousand cycles.
# Appends "engines <case> <passed> <failed>" lines to the results (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
ws=$1
tmp=$WS_BUILD/engines
rm -rf "$tmp"
mkdir -p "$tmp"
pass=0; fail=0
rc=0

"$ws" bench --width 256 --cycles 0 --idle-rounds 1 --json > "$tmp/param.json" 2> /dev/null
e=$(ws_json "$tmp/param.json" .engines 2> /dev/null)
if [ "$e" != 4 ]; then
    echo "FAIL engines: $ws is not a 4-engine model (PARAM_ENGINES: ${e:-unreadable})"
    ws_record engines model 1
    exit 1
fi

RTL_TAG=e4 RTL_SMOKE=0 MODES="plain idle backpressure" \
RTL_CASES="f32-add-vectors workers-1 workers-3 workers-8 workers-64 count-1 count-lanes+1 count-max jobs-share bypass-mix malformed loss-dup special everything recorded-digits" \
    sh tests/rtl.sh "$ws" 256 || rc=1

# closed loop with faults both ways
if "$ws" run --workers 8 --elems 3000 --count 32 --iters 2 --loss 0.1 --dup 0.1 --reorder 0.1 \
        --corrupt 0.1 --bypass 0.05 --seed 5 --no-progress --json > "$tmp/run.json" \
        2> "$tmp/run.log" &&
   ws_json_true "$tmp/run.json" '.tensors == 16 and .exact and .ok'; then
    pass=$((pass + 1)); ws_record engines run 0
else
    tail -n 20 "$tmp/run.log"
    fail=$((fail + 1)); ws_record engines run 1
fi

# capacity: four ports saturated
if "$ws" bench --width 256 --workers 4 --count 256 --warmup 3000 --cycles 8000 --idle-rounds 2 \
        --json > "$tmp/bench.json" 2> "$tmp/bench.log" &&
   echo "engines bench: $(ws_json "$tmp/bench.json" .util) beats/cycle," \
        "$(ws_json "$tmp/bench.json" .bad_results) wrong RESULTs" &&
   ws_json_true "$tmp/bench.json" '.util >= 3.96 and .bad_results == 0'; then
    pass=$((pass + 1)); ws_record engines bench 0
else
    cat "$tmp/bench.log" "$tmp/bench.json"
    fail=$((fail + 1)); ws_record engines bench 1
fi

echo "engines: $pass passed, $fail failed (plus the rtl-e4 cases above)"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
