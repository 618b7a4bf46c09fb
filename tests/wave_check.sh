#!/bin/sh
# wave_check.sh [LAYOUT | --picture] - the saved GTKWave layout (default sim/wiresum.gtkw) cannot rot
# silently: a one-frame trace goes through the Verilator model with --trace, and every signal
# the layout shows must be in that FST under the same name (GTKWave drops a missing one without
# a word), every translate filter file it reads must exist, and the drop reason filter must
# list driver/wiresum/reasons.h in its order. Appends "wave <layout's name> <passed> <failed>"
# to the results file (tests/lib.sh). --picture: docs/wave.png's caption in docs/debugging.md
# still describes the RTL's waveform (scripts/wave_picture.sh --check). WIRESUM: the tool
# (default build/wiresum).
set -u
cd "$(dirname "$0")/.." || exit 1
. "$(dirname "$0")/lib.sh"
if [ "${1:-}" = --picture ]; then  # docs/wave.png's caption describes the RTL's waveform
    WIRESUM=${WIRESUM:-$WS_BUILD/wiresum} sh scripts/wave_picture.sh --check
    st=$?
    ws_record wave picture $st
    exit $st
fi
layout=${1:-sim/wiresum.gtkw}
ws=${WIRESUM:-$WS_BUILD/wiresum}
case=$(basename "$layout" .gtkw)
d=$WS_BUILD/wave-check-$case
rm -rf "$d"
mkdir -p "$d"

fail() {
    echo "wave layout $layout: $*"
    ws_record wave "$case" 1
    exit 1
}

# one DATA frame, one RESULT: the model declares every signal whatever the trace (tracing
# costs about a second at 256 bits, mostly the first dump of the RAMs)
if ! { "$ws" gen "$d/t" -q --workers 1 --elems 16 --count 16 &&
        "$ws" sim "$d/t" -q --trace "$d/check.fst"; } > "$d/log" 2>&1; then
    cat "$d/log"; fail "no FST from $ws sim"
fi

sh scripts/wave_names.sh check "$layout" "$d/check.fst" > "$d/check.log" 2>&1 ||
    { cat "$d/check.log"; fail "signals or files missing (above)"; }
n=$(sh scripts/wave_names.sh layout "$layout" | wc -l)
[ "$n" -gt 0 ] || fail "no signal in the layout"

# the drop reason filter: "0 ok", then reason k in hex, in the order of WS_DROP_REASONS
reasons=sim/wiresum_reason.txt
if sh scripts/wave_names.sh filters "$layout" | grep -qx "$reasons"; then
    awk '/^#define WS_DROP_REASONS/ { on = 1; next } on && /^ *$/ { on = 0 }
         on && match($0, /X\([A-Z_0-9]+, "[a-z_0-9]+"/) {
             s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s)
             printf "%X %s\n", ++k, s }
         BEGIN { print "0 ok" }' driver/wiresum/reasons.h > "$d/reasons.txt"
    cmp -s "$d/reasons.txt" "$reasons" ||
        { diff "$d/reasons.txt" "$reasons"; fail "$reasons differs from driver/wiresum/reasons.h (above: < expected)"; }
fi

echo "wave layout $layout: $n signals in the FST"
ws_record wave "$case" 0
