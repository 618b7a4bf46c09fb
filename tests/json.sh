#!/bin/sh
# json.sh WIRESUM - the commands' summaries as JSON (`--json`, docs/traces.md "JSON
# summaries"): for every command, stdout is one JSON document whose `command` names it and
# which has every key the docs name (none null, except sim's first_mismatch when there is
# none); the values agree with the text summary; problems go to stderr and leave stdout one
# document; the exit status is the same as without --json.
# Appends "json <case> <passed> <failed>" lines to the results (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
ws=$1
tmp=$WS_BUILD/json
rm -rf "$tmp"
mkdir -p "$tmp"

# has FILE COMMAND KEY...: one document, command COMMAND, every KEY (a jq path) present
has() {
    f=$1; c=$2; shift 2
    [ "$(jq -s length "$f" 2> /dev/null)" = 1 ] || { echo "  $f: not one JSON document"; return 1; }
    [ "$(jq -r .command "$f")" = "$c" ] || { echo "  $f: command is not $c"; return 1; }
    for k in "$@"; do
        jq -e "$k != null" "$f" > /dev/null || { echo "  $f: $k missing"; return 1; }
    done
}
ctr='.counters.ports[0].rx_frames .counters.accepted .counters.results .counters.resends .counters.bypass .counters.drop.bad_ipv4 .counters.drop.duplicate'

d=$tmp/t
"$ws" gen "$d" --workers 3 --elems 2000 --count 64 --loss 0.05 --dup 0.05 --malformed 0.05 \
    --bypass 0.05 --seed 3 > "$tmp/gen.txt" &&
"$ws" gen "$d" --workers 3 --elems 2000 --count 64 --loss 0.05 --dup 0.05 --malformed 0.05 \
    --bypass 0.05 --seed 3 --json > "$tmp/gen.json"
st=$?
frames=$(sed -n 's/^gen [^:]*: \([0-9]*\) frames:.*/\1/p' "$tmp/gen.txt")
[ $st -eq 0 ] && has "$tmp/gen.json" gen .dir .frames .data .retransmitted .duplicated .data_lost \
    .results_lost .malformed .bypass && [ "$(ws_json "$tmp/gen.json" .frames)" = "$frames" ]
ws_record json gen $?

# shellcheck disable=SC2086
"$ws" ref "$d" --json > "$tmp/ref.json" && has "$tmp/ref.json" ref .dir .frames_in .out_prefix $ctr &&
    [ "$(ws_json "$tmp/ref.json" .frames_in)" = "$frames" ]
ws_record json ref $?

"$ws" check "$d" --json > "$tmp/check.json" &&
    has "$tmp/check.json" check .dir .prefix .tensors .results .resent .other_frames .ok &&
    ws_json_true "$tmp/check.json" '.ok and .tensors == 1'
ws_record json check $?

# a check that fails: exit 1, ok false, the problems on stderr, stdout still one document
sum=$(ls "$d"/sum-*.f32 | head -n 1)
cp "$sum" "$tmp/sum.keep"
printf '\001\002\003\004' | dd of="$sum" bs=1 seek=0 conv=notrunc 2> /dev/null
"$ws" check "$d" --json > "$tmp/check-bad.json" 2> "$tmp/check-bad.err"
st=$?
cp "$tmp/sum.keep" "$sum"
[ $st -eq 1 ] && has "$tmp/check-bad.json" check .ok && ws_json_true "$tmp/check-bad.json" '.ok == false' &&
    [ -s "$tmp/check-bad.err" ]
ws_record json check-fails $?

# shellcheck disable=SC2086
"$ws" sim "$d" --no-progress --json > "$tmp/sim.json" 2> "$tmp/sim.err" &&
    has "$tmp/sim.json" sim .dir .simulator .width .cycles .clock_mhz .beats_in .beats_out \
        .utilization .frames_in .frames_out .frames_expected .mismatches .counters_differ \
        .cycles_per_second .counters_file .device.accepted .reference.accepted .ok &&
    ws_json_true "$tmp/sim.json" ".ok and .mismatches == 0 and .first_mismatch == null and .frames_in == $frames and .device == .reference"
ws_record json sim $?

"$ws" counters "$d" --json > "$tmp/counters.json" &&
    has "$tmp/counters.json" counters .file .device.source .device.ports .device.counters.accepted \
        .reference.counters.accepted .differ &&
    ws_json_true "$tmp/counters.json" ".differ == 0 and .device.counters == $(jq -c .device "$tmp/sim.json")"
ws_record json counters $?

"$ws" run --workers 3 --elems 1000 --loss 0.05 --seed 4 --no-progress --json > "$tmp/run.json" 2> "$tmp/run.err" &&
    has "$tmp/run.json" run .device .width .workers .ports .elems .iters .count .slots .cycles \
        .seconds .gbps_per_worker .transport.data .transport.retransmissions .network.lost[1] \
        .bypass.sent .counters.accepted .tensors .tensors_exact .exact .ok &&
    ws_json_true "$tmp/run.json" '.exact and .ok and .tensors == 6 and .tensors_exact == 6'
ws_record json run $?

"$ws" bench --cycles 3000 --warmup 1000 --idle-rounds 2 --json > "$tmp/bench.json" 2> "$tmp/bench.err" &&
    has "$tmp/bench.json" bench .width .workers .count .engines .beats .cycles .util .wire_eff \
        .idle_latency.first.median .load_latency.last.max .results_checked .bad_results &&
    ws_json_true "$tmp/bench.json" '.bad_results == 0 and .util > 0.9 and .engines == 1'
ws_record json bench $?

"$ws" bench --json --tsv > /dev/null 2>&1
[ $? -eq 2 ]
ws_record json bench-json-tsv-refused $?

"$WS_BUILD"/tests/tool_f32_add_vectors 50 7 > "$tmp/tf.txt" &&
"$ws" testfloat "$tmp/tf.txt" --json > "$tmp/tf.json" 2> "$tmp/tf.err" &&
    has "$tmp/tf.json" testfloat .file .cases .mismatches .ok &&
    ws_json_true "$tmp/tf.json" ".cases == $(grep -c . "$tmp/tf.txt") and .mismatches == 0"
ws_record json testfloat $?

[ "$ws_failed" -eq 0 ]
