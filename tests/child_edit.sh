#!/bin/sh
# child_edit.sh WIRESUM [TOOLS] - a child device's trace with its parent's RESULTs broken, for
# the child side (docs/protocol.md sections 4 and 9), on the software reference alone:
#   - a tree recorded with the reference as every device (`wiresum run --tree 2x2 --record`,
#     loss and duplication on every link); its leaf s0.0.0 (workers as members) and its middle
#     device s0.1 (child devices as members) are children: job.ini has `parent = ...`, and the
#     in<P>.pcap of the port towards the parent (the parent key's fourth field) holds the
#     parent's RESULTs;
#   - for every mode of `tool_partial_edit --result` (TOOLS/tool_partial_edit, default
#     $WS_BUILD/tests) the leaf's trace copied into $WS_BUILD/child-edit/<mode> with those
#     RESULTs edited, and `wiresum ref --counters` writing its expected<P>.pcap and
#     counters.txt again: the mode changed some frames, and the counter of the reason it
#     means (below) is above the unedited trace's; `mixed` on the middle device too.
# The traces are left there for the RTL's child side: `wiresum sim DIR` on each must then match
# the reference (it writes the expected frames itself when absent, and compares the counters).
# Appends "partial child-<case> <passed> <failed>" lines to the results (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
ws=$1
tool=${2:-$WS_BUILD/tests}/tool_partial_edit
tmp=$WS_BUILD/child-edit
rm -rf "$tmp"
mkdir -p "$tmp"

if ! "$ws" run --no-progress -q --device ref --record "$tmp/tree" --tree 2x2 --workers 8 \
       --elems 1200 --count 24 --slots 4 --iters 2 --values mixed --loss 0.05 --dup 0.05 \
       --seed 31 > "$tmp/record.log" 2>&1; then
    tail -n 20 "$tmp/record.log"
    ws_record partial child-record 1
    exit 1
fi
ws_record partial child-record 0

# edit NAME SRC MODE SEED: SRC's trace into $tmp/NAME, the parent's RESULTs edited by MODE
# (MODE "none": a copy), through the reference; 0 when some frame was changed (or MODE none)
edit() {
    name=$1; src=$2; mode=$3; seed=$4
    d=$tmp/$name
    mkdir -p "$d"
    cp "$src/job.ini" "$d/"
    up=$(sed -n 's/^parent *= *[^ ]* [^ ]* [^ ]* \([0-9]*\) .*/\1/p' "$src/job.ini")
    [ -n "$up" ] || { echo "$src/job.ini: no parent"; return 1; }
    for f in "$src"/in*.pcap; do
        b=$(basename "$f")
        if [ "$b" = "in$up.pcap" ] && [ "$mode" != none ]; then
            "$tool" --result "$mode" "$f" "$d/$b" "$seed" > "$tmp/$name-edit.log" 2>&1 || return 1
        else
            cp "$f" "$d/"
        fi
    done
    "$ws" ref "$d" --counters --json > "$tmp/$name.json" 2> "$tmp/$name.log" || return 1
    [ "$mode" = none ] || grep -q 'changed [1-9]' "$tmp/$name-edit.log"
}

# case NAME SRC MODE SEED REASON: REASON's drop counter above the unedited trace's
base_leaf=$tmp/base-leaf.json
base_mid=$tmp/base-mid.json
case_() {
    name=$1; src=$2; mode=$3; seed=$4; reason=$5; base=$6
    if edit "$name" "$src" "$mode" "$seed" &&
       [ "$(ws_json "$tmp/$name.json" ".counters.drop.$reason")" -gt \
         "$(ws_json "$base" ".counters.drop.$reason")" ]; then
        ws_record partial "child-$name" 0
    else
        cat "$tmp/$name-edit.log" "$tmp/$name.log" 2> /dev/null | tail -n 10
        jq -c .counters.drop "$tmp/$name.json" "$base" 2> /dev/null
        ws_record partial "child-$name" 1
    fi
}

leaf=$tmp/tree/s0.0.0
mid=$tmp/tree/s0.1
if edit base-leaf "$leaf" none 0 && edit base-mid "$mid" none 0; then
    ws_record partial child-base 0
else
    ws_record partial child-base 1
    exit 1
fi
seed=40
for c in rank:bad_rank mac:spoofed slot:bad_slot count:bad_count length:bad_length \
         job:result_to_device ip:result_to_device port:result_to_device \
         offset:mismatch tensor:mismatch short:mismatch dup:duplicate; do
    case_ "${c%%:*}" "$leaf" "${c%%:*}" "$seed" "${c#*:}" "$base_leaf"
    seed=$((seed + 1))
done
case_ mixed-mid "$mid" mixed 60 result_to_device "$base_mid"

[ "$ws_failed" -eq 0 ]
