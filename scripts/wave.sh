#!/bin/sh
# wave.sh [FST] - open a waveform of `wiresum sim --trace` in GTKWave with the saved layout
# sim/wiresum.gtkw (`make wave`). Without FST: build/wave.fst, made first if it does not exist
# (a small trace with losses, duplicates, malformed and bypass frames, DATA_WIDTH 256).
# The layout is checked against the FST first (scripts/wave_names.sh); a trace at another
# DATA_WIDTH gets a copy of the layout with its vector ranges (build/wave-fit.gtkw).
# Without a display ($DISPLAY and $WAYLAND_DISPLAY unset) it prints the gtkwave command to run
# where there is one, and exits 0. WIRESUM: the tool (default build/wiresum); WAVE_MAKE_ONLY=1:
# only make build/wave.fst (if needed), open nothing.
set -eu

fst=${1:-}
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
