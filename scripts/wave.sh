#!/bin/sh
# wave.sh [FST [--at NS] [--port P]] - open a waveform of `wiresum sim --trace` in GTKWave with
# the saved layout sim/wiresum.gtkw (`make wave`). Without FST: build/wave.fst, made first if it
# does not exist (a small trace with losses, duplicates, malformed and bypass frames, DATA_WIDTH
# 256). --at NS: the marker at NS ns of the waveform and the view starting 200 ns before it;
# --port P: the ingress stages of port P instead of port 0 (the egress shows every port); both
# in build/wave-at.gtkw, made from the layout (`wiresum sim --trace-on-mismatch` prints the
# command with the mismatch's time and port).
# The layout is checked against the FST first (scripts/wave_names.sh); a trace at another
# DATA_WIDTH gets a copy of the layout with its vector ranges (build/wave-fit.gtkw).
# Without a display ($DISPLAY and $WAYLAND_DISPLAY unset) it prints the gtkwave command to run
# where there is one, and exits 0. WIRESUM: the tool (default build/wiresum); WAVE_MAKE_ONLY=1:
# only make build/wave.fst (if needed), open nothing.
set -eu

fst=${1:-}
[ $# -eq 0 ] || shift
at= port=
while [ $# -gt 0 ]; do
    case $1 in
    --at | --port)
        case ${2:-x} in *[!0-9]* | "") echo "wave: $1 ${2:-}: expected a non-negative integer" >&2; exit 2 ;; esac
        if [ "$1" = --at ]; then at=$2; else port=$2; fi
        shift 2 ;;
    *) echo "wave: unknown argument '$1' (wave.sh [FST [--at NS] [--port P]])" >&2; exit 2 ;;
    esac
done
case $fst in
"" | /*) ;;
*) fst=$PWD/$fst ;;  # named from the caller's directory
esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ws=${WIRESUM:-build/wiresum}
layout=sim/wiresum.gtkw

if [ -z "$fst" ]; then
    fst=build/wave.fst
    if [ ! -f "$fst" ] || [ "$ws" -nt "$fst" ]; then   # none yet, or older than the model
        [ -x "$ws" ] || { echo "wave: $ws is not built: make build/wiresum" >&2; exit 1; }
        d=build/wave-trace
        rm -rf "$d"
        echo "wave: making $fst from the trace $d"
        "$ws" gen "$d" -q --workers 4 --elems 2000 --count 64 \
            --loss 0.05 --dup 0.05 --malformed 0.05 --bypass 0.05
        # a mismatch is worth looking at too: keep the waveform whatever the comparison says
        "$ws" sim "$d" -q --trace "$d/wave.fst" ||
            echo "wave: the simulation reported the problems above; the waveform shows them" >&2
        [ -f "$d/wave.fst" ] || { echo "wave: no waveform written" >&2; exit 1; }
        mv "$d/wave.fst" "$fst"
    fi
fi
[ -f "$fst" ] || { echo "wave: $fst: no such file" >&2; exit 1; }
[ -z "${WAVE_MAKE_ONLY:-}" ] || exit 0   # scripts/wave_picture.sh: the FST only

# every signal of the layout must be in the FST: GTKWave would drop a missing one silently
use=$layout
if ! sh scripts/wave_names.sh check "$layout" "$fst" 2> /dev/null; then
    use=build/wave-fit.gtkw
    mkdir -p build
    sh scripts/wave_names.sh fit "$layout" "$fst" "$use" ||
        { echo "wave: $layout does not fit $fst (above)" >&2; exit 1; }
    echo "wave: $fst has other vector ranges (another DATA_WIDTH?): using $use"
fi

# --at, --port: the layout with the marker and the view at the time, the ingress of the port
# (GTKWave's times are in the FST's unit, 1 ps for the models)
if [ -n "$at$port" ]; then
    mkdir -p build
    awk -v at="$at" -v port="$port" '
        at != "" && /^\[timestart\]/ { next }
        at != "" && /^\[size\]/ { print "[timestart] " (at > 200 ? (at - 200) * 1000 : 0) }
        at != "" && /^\*-?[0-9.]+ / { $2 = at * 1000 }
        port != "" && !/^\[\*\]/ {
            gsub(/g_rx\[0\]/, "g_rx[" port "]")
            sub(/^-ingress port 0:/, "-ingress port " port ":")
            sub(/^-port 0 /, "-port " port " ")
        }
        { print }' "$use" > build/wave-at.gtkw
    use=build/wave-at.gtkw
    sh scripts/wave_names.sh check "$use" "$fst" > /dev/null 2>&1 ||
        { echo "wave: $fst has no port ${port:-0} (--port): $use names signals it lacks" >&2; exit 1; }
fi

# paths relative to the repository root, where the layout's translate filters are found
case $fst in
"$root"/*) fst=${fst#"$root"/} ;;
esac
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "wave: no display; the layout fits $fst. Where there is one, from $root:"
    echo "  gtkwave $fst $use"
    exit 0
fi
command -v gtkwave > /dev/null 2>&1 || { echo "wave: gtkwave not found (make deps)" >&2; exit 1; }
exec gtkwave "$fst" "$use"
