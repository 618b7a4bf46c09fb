#!/bin/sh
# partial.sh WIRESUM - the RTL's PARTIAL frames, as a parent and as a child (docs/protocol.md
# section 9), WIRESUM the build with PARTIAL = 1 (build/p1/wiresum: four engines at 256 bits, one
# at 512; its Icarus build beside it, four engines at 256):
#   - the roots of recorded trees (`wiresum run --tree ... --record DIR`, the reference as every
#     device, with loss, duplication, reordering and corruption on every link): the root's trace
#     DIR/s0 replayed through the model (`wiresum sim`) at 256 bits plain, with ingress idle
#     insertion and with egress backpressure, and at 512 bits: every output frame bit for bit
#     against the recorded reference, every counter equal; values mixed (wide sums: PARTIALs
#     with record words) and special (NaN, Inf, -0), counts that do not fill a beat;
#   - the same roots with their PARTIALs edited (tests/tool_partial_edit.c): words drawn anew
#     (X chains of any length, past the last record, stray records, specials in records, the
#     "all -0" zero and its near misses, the largest words, whose sums the reference's 320 bits
#     wrap), and malformed ones of every drop reason a PARTIAL can have (bad_length,
#     bad_header, result_to_device): against the reference at 256 and 512 bits;
#   - DATA frames on the same device (gen's traces with malformed frames of every reason and
#     special values): the reference takes PARTIALs too (sim follows PARAM_PARTIAL);
#   - a small edited root under Icarus (the same RTL at 256 bits, its own simulator);
#   - the children of recorded trees (jobs with a parent: PARTIALs sent up, the parent's
#     RESULTs fanned out): leaves and middle devices, mixed and special values, at 256 and 512
#     bits, plain, idle and backpressure;
#   - a recorded child's trace with its parent's RESULTs broken mode by mode (every drop reason,
#     mismatches, duplicates; tests/child_edit.sh checks each on the reference), replayed
#     through the model;
#   - closed loops of RTL devices only (`wiresum run --device rtl --tree 2x2`) and of RTL models
#     and references alternating (`--device mix --shards 2 --tree 2`), with 10 % loss,
#     duplication and reordering on every link: every tensor exact, every PARTIAL and RESULT a
#     device sent checked against the run's own oracle as it left.
# Appends "partial <case> <passed> <failed>" lines to the results (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
ws=$1
tmp=$WS_BUILD/partial
tool=$WS_BUILD/tests/tool_partial_edit
rm -rf "$tmp"
mkdir -p "$tmp"

# sim NAME DIR ARGS...: the trace through the model, bit for bit and counters
sim() {
    name=$1; dir=$2; shift 2
    if "$ws" sim "$dir" --json "$@" > "$tmp/$name.json" 2> "$tmp/$name.log" &&
       ws_json_true "$tmp/$name.json" '.mismatches == 0 and .counters_differ == 0'; then
        ws_record partial "$name" 0
    else
        tail -n 20 "$tmp/$name.log"
        ws_record partial "$name" 1
    fi
}

F="--loss 0.08 --dup 0.08 --reorder 0.08 --corrupt 0.02"
# record NAME ARGS...: a tree run by the reference, recorded into $tmp/NAME
record() {
    name=$1; shift
    # shellcheck disable=SC2086
    if "$ws" run --no-progress -q --device ref --record "$tmp/$name" "$@" > "$tmp/rec-$name.log" 2>&1; then
        ws_record partial "record-$name" 0
    else
        tail -n 20 "$tmp/rec-$name.log"
        ws_record partial "record-$name" 1
    fi
}
# shellcheck disable=SC2086
{
record small   --tree 2 --workers 4 --elems 120 --count 20 --slots 2 --iters 1 --values mixed --loss 0.05 --dup 0.1 --seed 23
record mixed   --tree 4 --workers 8 --elems 1500 --count 64 --iters 2 --values mixed $F --seed 21
record special --tree 3 --workers 6 --elems 700 --count 13 --slots 4 --iters 2 --values special $F --seed 22
}

# the roots, as recorded
sim mixed-256     "$tmp/mixed/s0" --width 256
sim mixed-512     "$tmp/mixed/s0" --width 512
sim mixed-idle    "$tmp/mixed/s0" --width 256 --idle 30 --seed 3
sim mixed-bp      "$tmp/mixed/s0" --width 256 --backpressure 30 --seed 4
sim special-256   "$tmp/special/s0" --width 256
sim special-bp    "$tmp/special/s0" --width 256 --backpressure 30 --seed 11
sim special-512   "$tmp/special/s0" --width 512 --idle 20 --backpressure 20 --seed 5

# the roots with their PARTIALs edited: the recorded expected pcaps no longer hold, the
# reference writes them again
edited() {
    name=$1; src=$2; seed=$3
    d=$tmp/$name
    mkdir -p "$d"
    cp "$src/job.ini" "$d/"
    ok=0
    for f in "$src"/in*.pcap; do
        "$tool" "$f" "$d/$(basename "$f")" "$seed" >> "$tmp/$name-edit.log" 2>&1 || ok=1
        seed=$((seed + 1))
    done
    ws_record partial "$name-edit" $ok
}
edited mixed-edited "$tmp/mixed/s0" 100
edited special-edited "$tmp/special/s0" 200
sim mixed-edited-256   "$tmp/mixed-edited" --width 256
sim mixed-edited-512   "$tmp/mixed-edited" --width 512 --backpressure 25 --seed 6
sim special-edited-256 "$tmp/special-edited" --width 256 --idle 20 --backpressure 20 --seed 12

# every drop reason a PARTIAL has was met
if jq -e '.device.drop.bad_length > 0 and .device.drop.bad_header > 0 and
          .device.drop.result_to_device > 0 and .device.drop.duplicate > 0' \
       "$tmp/mixed-edited-256.json" > /dev/null 2>&1; then
    ws_record partial edited-reasons 0
else
    jq -c .device "$tmp/mixed-edited-256.json" 2>&1 | head -c 2000; echo
    ws_record partial edited-reasons 1
fi

# the same RTL under Icarus (build/p1/icarus/ws256.vvp beside the model): a small root, edited
# (seed 800 leaves 10 of its 15 frames accepted, and its RESULTs need the record words: a device
# that ignored them fails here)
edited small-edited "$tmp/small/s0" 800
sim icarus-small-edited "$tmp/small-edited" --width 256 --sim icarus

# DATA frames on the device that takes PARTIALs
d=$tmp/data
if "$ws" gen "$d" --workers 5 --elems 3000 --count 50 --loss 0.03 --dup 0.03 --malformed 0.03 \
       --bypass 0.02 --values special --seed 8 > "$tmp/data-gen.log" 2>&1; then
    sim data-256 "$d" --width 256
    sim data-512 "$d" --width 512 --backpressure 20 --seed 9
else
    cat "$tmp/data-gen.log"
    ws_record partial data-gen 1
fi

# the child side: leaves of the recorded trees (workers as members), and a tree of two levels
# below its root (tests/child_edit.sh records it: $WS_BUILD/child-edit/tree), whose middle
# devices have child devices as members
sim child-leaf-256      "$tmp/mixed/s0.1" --width 256
sim child-leaf-512      "$tmp/mixed/s0.2" --width 512
sim child-leaf-special  "$tmp/special/s0.0" --width 256 --idle 20 --backpressure 20 --seed 13
# the parent's RESULTs broken mode by mode (checked on the reference there), through the model
sh "$(dirname "$0")/child_edit.sh" "$ws" || ws_failed=$((ws_failed + 1))
ce=$WS_BUILD/child-edit
sim child-mid-256       "$ce/tree/s0.1" --width 256
sim child-mid-idle      "$ce/tree/s0.0" --width 256 --idle 30 --seed 14
sim child-mid-bp        "$ce/tree/s0.1" --width 512 --backpressure 30 --seed 15
sim child-mid-ibp       "$ce/tree/s0.0" --width 256 --idle 20 --backpressure 20 --seed 16
for m in rank mac slot count length job ip port offset tensor short dup mixed-mid; do
    sim "child-edit-$m" "$ce/$m" --width 256
done

# closed loops with RTL children: every tensor exact, the oracle's checks of every frame (the
# 2x2 tree is seven four-engine models: 6 chunks a tensor, with their retransmissions, keep
# it to about 25 s)
loop() {
    name=$1; shift
    # shellcheck disable=SC2086
    if "$ws" run --no-progress --loss 0.1 --dup 0.1 --reorder 0.1 --latency 60 "$@" \
           > "$tmp/loop-$name.log" 2>&1; then
        ws_record partial "loop-$name" 0
    else
        tail -n 20 "$tmp/loop-$name.log"
        ws_record partial "loop-$name" 1
    fi
}
loop rtl-2x2  --device rtl --tree 2x2 --workers 8 --elems 120 --count 20 --iters 2 --values mixed --seed 41
# each model clocked only while it has work: every device's own count of cycles clocked, below the
# run's cycles (an idle, settled device is skipped even when another is busy; clocking them all
# together gave the seven one count)
if awk '/ time: [0-9]+ cycles/ { total = $2 }
        / rtl: .*clocked [0-9]+ cycles/ { n++; c = $(NF - 1); seen[c] = 1; if (c + 0 >= total + 0) bad = 1 }
        END { k = 0; for (v in seen) k++; exit !(n == 7 && !bad && k > 1) }' "$tmp/loop-rtl-2x2.log"; then
    ws_record partial clocked-apart 0
else
    grep -E ' time:| rtl: ' "$tmp/loop-rtl-2x2.log"; ws_record partial clocked-apart 1
fi
loop mix-s2t2 --device mix --shards 2 --tree 2 --workers 6 --elems 900 --count 30 --iters 2 --values special --width 512 --seed 42

[ "$ws_failed" -eq 0 ]
