#!/bin/sh
# screenshot.sh [OUT.png] - how docs/wave.png (docs/debugging.md section 4) was made: GTKWave with
# the saved layout sim/wiresum.gtkw on build/wave.fst, zoomed on the first round of that trace to
# complete, rendered on a virtual display and captured. Default OUT: docs/wave.png.
#
# For making the picture only: wiresum itself needs none of this, and scripts/deps.sh does not
# install it. Needs Xvfb (Debian package xvfb), ImageMagick's import and convert (imagemagick),
# gtkwave and fst2vcd (gtkwave), and build/wave.fst (`sh scripts/wave.sh` makes it; `rm` it first
# after a change to hw/ or sim/ so that it matches the RTL). Run from anywhere.
#
# The frame: build/wave.fst is `wiresum gen -q --workers 4 --elems 2000 --count 64 --loss 0.05
# --dup 0.05 --malformed 0.05 --bypass 0.05` (seed 1) through the model at 256 bits. Its first
# completing round is slot 0, SET 0: worker 2's DATA frame (320 bytes, 10 beats) enters port 2
# at 3790 ns and completes it; the five markers follow it (times in the waveform, 10 ns a cycle):
#   1 in       3790 ns  first beat on s_axis of port 2 (s_axis_tvalid[2])
#   2 arbiter  3985 ns  first beat out of the input arbiter (grant 0100, second frame of port 2)
#   3 judge    4055 ns  J2, the cycle after the engine took its first beat (take): judge,
#                       d_accept and d_last = 1, h_worker 2
#   4 cmd      4345 ns  after the lanes' rounded sums and the checksum, the command to the result
#                       generator
#   5 RESULT   4435 ns  the RESULT to rank 0 starts on egress port 0; ranks 1..3 follow
# Before capturing, the script checks those values in the FST, so that a changed RTL or trace
# does not silently give a picture of something else: then find the new times (docs/debugging.md
# section 4) and change the numbers below.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-docs/wave.png}
fst=build/wave.fst
layout=sim/wiresum.gtkw
from=3760 to=4780                                 # ns: the window shown
m1=3790 m2=3985 m3=4055 m4=4345 m5=4435           # ns: the markers above
disp=${SCREENSHOT_DISPLAY:-:93}                   # a free X display number
width=1600

for t in Xvfb import convert gtkwave fst2vcd; do
    command -v "$t" > /dev/null 2>&1 || { echo "screenshot: $t not found (apt-get install xvfb imagemagick gtkwave)" >&2; exit 1; }
done
[ -f "$fst" ] || { echo "screenshot: $fst missing: sh scripts/wave.sh" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/screenshot.XXXXXX")
xpid=""
gpid=""
cleanup() {
    [ -n "$gpid" ] && kill "$gpid" 2> /dev/null
    [ -n "$xpid" ] && kill "$xpid" 2> /dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# 1. the frame is where the comment says: signal values at given times (ps in the FST)
fst2vcd "$fst" 2> /dev/null | awk -v checks="
    g_one.engine.d_last $m3 1
    g_one.engine.judge $m3 1
    g_one.engine.h_worker $m3 10
    g_eng[0].input_arbiter.grant $m2 100
    g_eng[0].result_gen.cmd_valid $m4 1
    g_egress[0].egress.m_axis_tvalid $m5 1
    g_egress[0].egress.cur $m5 1" '
    BEGIN {
        n = split(checks, c, /[ \n]+/); m = 0; k = 0
        for (i = 1; i <= n; i++) if (c[i] != "") w[++m] = c[i]
        for (i = 1; i + 2 <= m; i += 3) {
            k++; name[k] = "TOP.wiresum_top." w[i]; at[k] = w[i + 1] * 1000; want[k] = w[i + 2]
        }
    }
    $1 == "$scope"   { path = (path == "" ? $3 : path "." $3); next }
    $1 == "$upscope" { sub(/\.?[^.]*$/, "", path); next }
    $1 == "$var"     { for (j = 1; j <= k; j++) if (path "." $5 == name[j]) id[$4] = id[$4] " " j; next }
    /^#/ { t = substr($0, 2) + 0
           for (j = 1; j <= k; j++) if (!(j in got) && t > at[j]) got[j] = val[j]
           if (length(got) == k) exit
           next }
    /^[bB]/ { v = $1; sub(/^[bB]/, "", v); code = $2 }
    /^[01xzXZ]/ { v = substr($0, 1, 1); code = substr($0, 2) }
    (code in id) { m = split(id[code], js, " "); for (i = 1; i <= m; i++) val[js[i]] = v; code = "" }
    END {
        bad = 0
        for (j = 1; j <= k; j++) {
            g = (j in got) ? got[j] : val[j]
            sub(/^0+/, "", g); if (g == "") g = 0
            if (g != want[j]) {
                printf "screenshot: %s at %d ns is %s, not %s\n", name[j], at[j] / 1000, g, want[j]
                bad = 1
            }
        }
        exit bad
    }' >&2 || { echo "screenshot: build/wave.fst is not the waveform this script knows (see its header)" >&2; exit 1; }

# 2. GTKWave on a virtual display, the tall window holding every row of the layout; no SST
# pane (more room for the waves), smaller fonts (fewer pixels per row)
cat > "$tmp/view.tcl" << EOF
gtkwave::setZoomRangeTimes ${from}000 ${to}000
gtkwave::setNamedMarker A ${m1}000 "1 in"
gtkwave::setNamedMarker B ${m2}000 "2 arbiter"
gtkwave::setNamedMarker C ${m3}000 "3 judge"
gtkwave::setNamedMarker D ${m4}000 "4 cmd"
gtkwave::setNamedMarker E ${m5}000 "5 RESULT"
gtkwave::setMarker ${m3}000
EOF
shoot() { # HEIGHT PNG
    sed "s/^\[size\].*/[size] $width $1/" "$layout" > "$tmp/layout.gtkw"
    Xvfb "$disp" -screen 0 "${width}x$1x24" -nolisten tcp > "$tmp/xvfb.log" 2>&1 &
    xpid=$!
    sleep 1
    # the layout's translate filters are relative to the repository root, the current directory
    DISPLAY=$disp gtkwave --rcvar 'hide_sst on' --rcvar 'splash_disable on' \
        --rcvar 'fontname_signals Monospace 8' --rcvar 'fontname_waves Monospace 7' \
        -S "$tmp/view.tcl" "$fst" "$tmp/layout.gtkw" > "$tmp/gtkwave.log" 2>&1 &
    gpid=$!
    sleep 8
    DISPLAY=$disp import -window root "$2"
    kill "$gpid" "$xpid" 2> /dev/null || true
    wait "$gpid" "$xpid" 2> /dev/null || true
    gpid="" xpid=""
}

# first a window taller than needed, to find the last row of signal names (dark text on the
# light signal pane), then one that just holds them all
shoot 6000 "$tmp/tall.png"
box=$(convert "$tmp/tall.png" -crop 380x5800+20+200 +repage -colorspace gray -threshold 40% \
    -format '%@' info:)                                # WxH+X+Y of the text
h=${box#*x}; h=${h%%+*}; y=${box##*+}
height=$((200 + y + h + 40))
shoot "$height" "$tmp/shot.png"
convert "$tmp/shot.png" -strip "$out"
echo "screenshot: $out, ${width}x$height: $fst from $from to $to ns with $layout"
