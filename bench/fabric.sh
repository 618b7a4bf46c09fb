#!/bin/sh
# bench/fabric.sh - several devices per job (docs/protocol.md section 9, loop/fabric.c): the
# aggregate capacity of one job through 1, 2 and 4 sharded devices, a two-level tree (a root and
# 4 leaves) and 4 such trees, for 8 to 64 workers, in cycles of the devices: the RTL model
# (`wiresum run --device rtl`: WS, the default build, for one device and shards; WS_P1, the same
# device built with PARTIAL = 1, for the trees), and the reference with its timing model (one
# beat of DATA_WIDTH per cycle in: `--device ref`) for all; and the bytes on the uplinks (leaves
# to root) against the bytes the workers send. No faults, one all-reduce of FABRIC_ELEMS elements
# (default 65536), count 256, 16 slots, 400-cycle links, values drawn as gradients are (normal:
# the leaves' sums fit one PARTIAL word each); and the RTL tree at the most workers once more with
# gen's mixed values, whose wide exponents need record words.
# Writes build/bench/fabric.md (a fragment that bench/all.sh includes) and the runs' JSON
# summaries to build/bench/fabric.jsonl.
set -eu
WS=${WS:-build/wiresum}
# WS_P1: one engine at 256 bits with PARTIAL = 1 and MAX_FRAME 12352 (make bench builds it)
WS_P1=${WS_P1:-build/bench/p1/wiresum}
ELEMS=${FABRIC_ELEMS:-65536}
B=build/bench
mkdir -p "$B"
OUT=$B/fabric.md
JS=$B/fabric.jsonl
[ -x "$WS" ] || { echo "bench/fabric.sh: $WS not built (make build/wiresum)" >&2; exit 1; }
[ -x "$WS_P1" ] || { echo "bench/fabric.sh: $WS_P1 not built (make bench builds it)" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
MACHINE="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores, ${cpu:-unknown CPU}"
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# one_run TOOL OUT ARGS...: TOOL ARGS --json into OUT, which must say every tensor was exact
one_run() {
    tool=$1 o=$2
    shift 2
    echo "bench/fabric.sh: $tool $*" >&2
    if ! "$tool" "$@" --no-progress --json 2> "$B/fabric.err" > "$o" ||
       ! jq -e '.exact and .ok' "$o" > /dev/null; then
        echo "bench/fabric.sh: $* failed:" >&2
        cat "$B/fabric.err" >&2
        exit 1
    fi
}
: > "$JS"
for w in 8 16 32 64; do
    for cfg in "1 - rtl" "2 - rtl" "4 - rtl" "1 4 rtl" "4 4 rtl" "1 - ref" "2 - ref" "4 - ref" "1 4 ref" "4 4 ref"; do
        # shellcheck disable=SC2086
        set -- $cfg
        t=$1; tree=$2; dev=$3
        args="run --device $dev --workers $w --shards $t --elems $ELEMS --iters 1 --count 256 --slots 16 --values normal"
        ws=$WS
        [ "$tree" = - ] || { args="$args --tree $tree"; [ "$dev" = ref ] || ws=$WS_P1; }
        # shellcheck disable=SC2086
        one_run "$ws" "$B/fabric.one" $args
        jq -c --arg tree "$tree" '. + {tree_spec: $tree}' "$B/fabric.one" >> "$JS"
    done
done
# the RTL tree at the most workers with mixed values: the leaves' PARTIALs carry record words
WMIX=$(jq -s 'map(.workers) | max' "$JS")
margs="run --device rtl --workers $WMIX --shards 1 --tree 4 --elems $ELEMS --iters 1 --count 256 --slots 16 --values mixed"
# shellcheck disable=SC2086
one_run "$WS_P1" "$B/fabric.mixed" $margs
MIX_CYC=$(jq -r .cycles "$B/fabric.mixed")
# record words per PARTIAL: uplink bytes = PARTIALs x (64 + 8 (256 + ext)), 4 leaves x ELEMS/256 PARTIALs
MIX_EXT=$(jq -r --argjson e "$ELEMS" '(.uplink_bytes / (4 * $e / 256) - 64) / 8 - 256 | . * 10 | round / 10' "$B/fabric.mixed")
rm -f "$B/fabric.one" "$B/fabric.err" "$B/fabric.mixed"
# the figures the text quotes, from the runs: at the most workers, one device's capacity and the
# speedup of 4 shards, of each model
cap() { # MODEL SHARDS [TREE]: cycles of that run at the most workers
    jq -s -r --arg m "$1" --argjson t "$2" --arg tr "${3:--}" 'map(select(.device == $m and .shards == $t and .tree_spec == $tr)) | max_by(.workers) | .cycles' "$JS"
}
WMAX=$(jq -s 'map(.workers) | max' "$JS")
GB1_RTL=$(awk -v c="$(cap rtl 1)" -v w="$WMAX" -v e="$ELEMS" 'BEGIN { printf "%.1f", w * e * 32 / (c / 200e6) / 1e9 }')
GB1_REF=$(awk -v c="$(cap ref 1)" -v w="$WMAX" -v e="$ELEMS" 'BEGIN { printf "%.1f", w * e * 32 / (c / 200e6) / 1e9 }')
SP4_RTL=$(awk -v a="$(cap rtl 1)" -v b="$(cap rtl 4)" 'BEGIN { printf "%.2f", a / b }')
SP4_REF=$(awk -v a="$(cap ref 1)" -v b="$(cap ref 4)" 'BEGIN { printf "%.2f", a / b }')
SPT_RTL=$(awk -v a="$(cap rtl 1)" -v b="$(cap rtl 1 4)" 'BEGIN { printf "%.2f", a / b }')
SPT_REF=$(awk -v a="$(cap ref 1)" -v b="$(cap ref 1 4)" 'BEGIN { printf "%.2f", a / b }')
SP44_RTL=$(awk -v a="$(cap rtl 1)" -v b="$(cap rtl 4 4)" 'BEGIN { printf "%.2f", a / b }')
# beats a cycle a device takes from its workers' DATA (34 beats a frame of 256 elements at 256
# bits): one device alone, and a leaf of the RTL tree (a quarter of the workers)
U1_RTL=$(awk -v c="$(cap rtl 1)" -v w="$WMAX" -v e="$ELEMS" 'BEGIN { printf "%.2f", w * e / 256 * 34 / c }')
UL_RTL=$(awk -v c="$(cap rtl 1 4)" -v w="$WMAX" -v e="$ELEMS" 'BEGIN { printf "%.2f", w / 4 * e / 256 * 34 / c }')
{
    printf '## 8. Several devices: shards and trees\n\n'
    printf 'One job over several devices (docs/protocol.md section 9): sharded over T devices (chunk i to device i mod T), or each shard a two-level tree (a root and 4 leaves, the workers spread evenly over the leaves; the leaves send their exact partial sums up in PARTIAL frames, the root rounds once). Every device is the RTL model at 256 bits (*rtl*: the default build for one device and for shards; in trees the same one-engine device built with `PARTIAL = 1` and `MAX_FRAME` 12352, the longest PARTIAL of 256 elements, `build/bench/p1/wiresum`, which `make bench` builds: docs/architecture.md section 11) or the reference with its timing model (*ref*: one beat of 256 bits per cycle into a device, results serialized per egress port), every link a 400-cycle latency; one all-reduce of %s elements (%s KiB) per worker, 256 elements per packet, values drawn from a normal distribution as gradients are (the sum at a leaf fits one PARTIAL word), 16 slots, no faults; every tensor exact. Capacity is the gradient all workers send, over the simulated time, at 200 MHz; *speedup* is against one device of the same model with the same workers. *Uplink bytes* are what the leaves send their root (PARTIALs, 8 bytes an element on these values), beside what the workers send (DATA, 4 bytes an element).\n\n' "$ELEMS" "$((ELEMS * 4 / 1024))"
    printf '| workers | devices | model | cycles | capacity (Gb/s) | per worker (Gb/s) | speedup | worker bytes | uplink bytes |\n|---|---|---|---|---|---|---|---|---|\n'
    jq -r '[.workers, .shards, .tree_spec, .device, .cycles, .worker_bytes, .uplink_bytes] | @tsv' "$JS" |
        awk -F'\t' -v e="$ELEMS" '{
            what = ($2 == 1 ? "1 device" : $2 " shards");
            if ($3 != "-") what = ($2 == 1 ? "tree: root + " $3 " leaves" : $2 " trees of root + " $3);
            gb = $1 * e * 4 * 8 / ($5 / 200e6) / 1e9;
            if ($2 == 1 && $3 == "-") base[$1 "," $4] = $5;
            sp = (base[$1 "," $4] ? sprintf("%.2f", base[$1 "," $4] / $5) : "-");
            printf "| %s | %s | %s | %s | %.1f | %.2f | %s | %s | %s |\n", $1, what, $4, $5, gb, gb / $1, sp, $6, ($7 ? $7 : "-") }'
    printf '\nOne device moves at most one beat a cycle: 51.2 Gb/s at 256 bits and 200 MHz for all its workers together (at %s workers the RTL %s: its frames'"'"' header beats and gaps; the reference'"'"'s timing model, one beat a cycle in and results 16 cycles after, %s). T shards divide the chunks: each device takes 1/T of them from every worker. With %s elements a device of 4 shards sees %s chunks per worker in windows of 16, so the round trips of the window (two 400-cycle links and the device'"'"'s latency: section 2 for the RTL, 16 cycles in the timing model) weigh more: 4 RTL shards give %s times one device, the timing model %s; larger tensors come closer to T. A tree gives each leaf the traffic of its share of the workers and its root one PARTIAL per leaf and round (8 bytes an element on these values, twice binary32), so the root'"'"'s input shrinks from W to 4 contributions per element; the time adds one level of links to the round trip. At %s workers a tree of RTL devices gives %s times one device (the timing model %s), 4 such trees %s: the RTL falls short of the timing model in trees, not in shards. One RTL device alone takes %s beats a cycle of its workers'"'"' DATA; a leaf of the RTL tree takes %s, while it also sends a PARTIAL and fans out a RESULT per round. Its one result generator (docs/architecture.md) sends every frame: a RESULT to each rank and the PARTIAL, 544 + 66 beats a round against 544 + 34 in: at one beat a cycle out, no more than 544 / 610 = 0.89 beats a cycle of DATA can come in. A waveform of a leaf in mid-run (`wiresum sim DIR/s0.1 --trace` of a recorded run) shows the generator sending in almost every cycle, the PARTIAL waiting there behind the RESULT command before it (one command, a RESULT to each of its ranks), the encoder'"'"'s one frame buffer full until the PARTIAL is sent, and the combine, which feeds the encoder in round order, waiting for it. With gen'"'"'s mixed values, whose wide exponents give the leaves'"'"' sums %s record words per PARTIAL of 256 elements, each taking the encoder 5 cycles a word and 3 an element while the combine waits (and the root at least 3 cycles more an element, docs/architecture.md section 11), the same RTL tree at %s workers takes %s cycles.\n\n' "$WMAX" "$GB1_RTL" "$GB1_REF" "$ELEMS" "$((ELEMS / 256 / 4))" "$SP4_RTL" "$SP4_REF" "$WMAX" "$SPT_RTL" "$SPT_REF" "$SP44_RTL" "$U1_RTL" "$UL_RTL" "$MIX_EXT" "$WMIX" "$MIX_CYC"
    printf 'Machine: %s; date: %s; commit: %s. Command: `sh bench/fabric.sh` (runs `%s run --device rtl|ref --workers W --shards T [--tree 4] --elems %s --iters 1 --count 256 --slots 16 --values normal --json`, and the RTL trees with `%s`).\n' "$MACHINE" "$DATE" "$commit" "$WS" "$ELEMS" "$WS_P1"
} > "$OUT"
echo "bench/fabric.sh: wrote $OUT" >&2
