#!/bin/sh
# loop.sh WIRESUM - end-to-end `wiresum run` cases: worker transports (driver/transport.c)
# in closed loop with the RTL model at 256 bits through a faulty network, every tensor checked
# against the exact sum; a recorded run replayed by `wiresum sim` and checked by `wiresum check`;
# bad input refused with a message naming the option. Appends "run <case> <passed> <failed>"
# lines to the results file (tests/lib.sh) and ends with a summary line.
set -u
ws=$1
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/run
rm -rf "$tmp"
mkdir -p "$tmp"
ws_run_cases run "$ws" "$tmp"

F10="--loss 0.1 --dup 0.1 --reorder 0.1 --corrupt 0.1"
# shellcheck disable=SC2086
{
one faults-8-workers    'true' --workers 8 --elems 3000 --iters 2 $F10 --bypass 0.05 --seed 1
one workers-32          'true' --workers 32 --elems 1500 --iters 2 --loss 0.05 --dup 0.05 --reorder 0.05 --corrupt 0.05 --seed 2
one workers-1           'true' --workers 1 --elems 700 --count 16 --slots 3 --iters 3 $F10 --seed 3
one one-element         'true' --workers 5 --elems 1 --iters 4 $F10 --seed 4
one window-1            'true' --workers 3 --elems 333 --count 7 --slots 1 --iters 2 $F10 --seed 5
one count-max           'true' --workers 4 --elems 2049 --count 256 --slots 4 --iters 2 --loss 0.05 --seed 6
one bypass-mix          'true' --workers 4 --ports 4 --elems 2000 --count 32 --bypass 0.3 --corrupt 0.05 --seed 7
one faults-up-heavy     'true' --workers 4 --elems 1000 --faults up --loss 0.2 --dup 0.2 --reorder 0.2 --corrupt 0.2 --seed 8
one faults-down-heavy   'true' --workers 4 --elems 1000 --faults down --loss 0.2 --dup 0.2 --reorder 0.2 --corrupt 0.2 --seed 9
one special-values      'true' --workers 6 --elems 1000 --values special --iters 3 --loss 0.05 --seed 10
one one-port            'true' --workers 6 --ports 1 --elems 1000 --dup 0.1 --reorder 0.1 --seed 11
one many-iters          'true' --workers 3 --elems 100 --count 16 --slots 2 --iters 12 $F10 --seed 12
one width-512           'true' --width 512 --workers 4 --elems 1000 $F10 --seed 13
# without corruption every frame reaches its host: nothing undeliverable, no retransmission
if "$ws" run --no-progress --json --workers 4 --elems 3000 --iters 2 --loss 0 > "$tmp/clean.json" \
        2> "$tmp/clean.log" &&
   ws_json_true "$tmp/clean.json" \
       '.network.undeliverable == 0 and .tensors == 8 and .exact and .transport.retransmissions == 0'; then
    ok clean
else
    bad clean
fi
one ref-device          'true' --device ref --workers 16 --elems 20000 --iters 3 $F10 --bypass 0.05 --seed 14
# the adaptive timeout behind a standing queue: 32 workers with 16 slots each into one port queue
# a round trip of about 30000 cycles; a first timeout of 3000 (--rto) is only the first, the
# round trips measured then set it, and nothing is retransmitted (with --rto as a fixed
# timeout: 64352 retransmissions, 2.9 times the cycles)
if "$ws" run --no-progress --json --device ref --workers 32 --slots 16 --count 64 --elems 32768 --rto 3000 \
        > "$tmp/queue.json" 2> "$tmp/queue.log" &&
   ws_json_true "$tmp/queue.json" '.exact and .ok and .transport.retransmissions == 0 and .transport.timeouts == 0'; then
    ok standing-queue
else
    bad standing-queue
fi
}

# record, then replay through the model and check the replay's outputs against the sums
rec() {
    name=$1; shift
    d="$tmp/$name"
    # shellcheck disable=SC2086
    if "$ws" run --no-progress --record "$d" "$@" > "$tmp/$name.log" 2>&1 &&
       "$ws" sim "$d" --json > "$tmp/$name.sim.json" 2>> "$tmp/$name.log" &&
       ws_json_true "$tmp/$name.sim.json" '.mismatches == 0 and .counters_differ == 0' &&
       "$ws" check --prefix out "$d" >> "$tmp/$name.log" 2>&1 &&
       "$ws" check --prefix expected "$d" >> "$tmp/$name.log" 2>&1; then
        ok "$name"
    else
        bad "$name"
    fi
}
# shellcheck disable=SC2086
rec record-replay       --workers 8 --elems 2000 --iters 2 $F10 --bypass 0.1 --seed 21
# shellcheck disable=SC2086
rec record-ref-replay   --device ref --workers 6 --elems 1500 --iters 2 $F10 --bypass 0.1 --seed 22

# the example program of docs/driver.md (examples/allreduce.c, built as build/allreduce)
if [ -x "$WS_BUILD/allreduce" ] && "$WS_BUILD/allreduce" 3001 > "$tmp/example.log" 2>&1 &&
   grep -q "every worker holds the exact sum" "$tmp/example.log"; then
    ok example-allreduce
else
    [ -x "$WS_BUILD/allreduce" ] || echo "$WS_BUILD/allreduce not built (make $WS_BUILD/allreduce)" > "$tmp/example-allreduce.log"
    cp "$tmp/example.log" "$tmp/example-allreduce.log" 2>/dev/null
    bad example-allreduce
fi

# the failure paths
refuse retries-exhausted "after 1 retransmissions" --workers 4 --elems 500 --loss 0.6 --max-retries 1 --seed 30
refuse bad-rate       "--loss 1.5"      --loss 1.5
refuse bad-width      "--width 300"     --width 300
refuse bad-device     "--device fpga"   --device fpga
refuse bad-slots      "--slots 100"     --slots 100
refuse bad-count      "--count 512"     --count 512
refuse bad-workers    "--workers 65"    --workers 65
refuse stray-arg      "unexpected argument" extra
refuse record-exists  "already holds a trace" --elems 10 --record "$tmp/record-replay"

echo "run: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
