#!/bin/sh
# wave_picture.sh [--check] - docs/wave.png, the waveform picture of docs/debugging.md section 4,
# and the caption beside it, both made from the current RTL (`make wave-picture`).
#
# The waveform is build/wave.fst (scripts/wave.sh makes it, again when the model is newer). In it
# the script finds the frame to follow and five markers, from the signals themselves:
#   3 judge    the first completing judgement: engine.judge fires (jb_fire) with d_last
#   2 arbiter  that frame's first beat leaving the input arbiter: the last frame to leave it
#              before the judgement, checked to be the judged worker's (the parser's v1_worker
#              for it), the n-th of its port
#   1 in       its first beat on its ingress port (the n-th frame begun on that port)
#   4 cmd      the next command to the result generator (result_gen.cmd_valid)
#   5 RESULT   the first beat of the next RESULT out of a result generator
# Each is the middle of its cycle (a falling clock edge). It then writes the caption block of
# docs/debugging.md (between the wave-picture comments) and renders the picture: GTKWave with the
# layout sim/wiresum-picture.gtkw on a virtual display (Xvfb), captured by ImageMagick's import.
#
# --check: only find the markers and compare the caption block with docs/debugging.md; exit 1 if
# they differ (the RTL changed the cycles: run `make wave-picture`). Needs fst2vcd (gtkwave);
# the picture itself needs Xvfb and import too (Debian: xvfb imagemagick gtkwave).
# WIRESUM: the tool (default $BUILD/wiresum).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
ws=${WIRESUM:-$build/wiresum}
fst=$build/wave.fst
doc=docs/debugging.md
png=docs/wave.png
layout=sim/wiresum-picture.gtkw
check=0
[ "${1:-}" = --check ] && check=1

need="fst2vcd"
[ $check -eq 1 ] || need="$need gtkwave Xvfb import convert"
missing=""
for t in $need; do command -v "$t" > /dev/null 2>&1 || missing="$missing $t"; done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null 2>&1; then
        echo "wave_picture: installing xvfb imagemagick gtkwave (missing:$missing)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q xvfb imagemagick gtkwave > /dev/null
    else
        echo "wave_picture: missing:$missing; install them with: sudo apt-get install xvfb imagemagick gtkwave" >&2
        exit 1
    fi
fi

WIRESUM=$ws WAVE_MAKE_ONLY=1 sh scripts/wave.sh > /dev/null

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wave_picture.XXXXXX")
xpid=""
gpid=""
cleanup() {
    [ -n "$gpid" ] && kill "$gpid" 2> /dev/null
    [ -n "$xpid" ] && kill "$xpid" 2> /dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# 1. the markers: one pass over the value changes, sampled at each falling clock edge
fst2vcd "$fst" 2> /dev/null | awk '
    BEGIN {
        T = "TOP.wiresum_top."
        want["clk"] = "clk"; want["s_axis_tvalid"] = "iv"; want["s_axis_tready"] = "ir"
        want["s_axis_tlast"] = "il"
        want["g_eng[0].input_arbiter.m_axis_tvalid"] = "av"
        want["g_eng[0].input_arbiter.m_axis_tready"] = "ar"
        want["g_eng[0].input_arbiter.m_axis_tlast"] = "al"
        want["g_eng[0].input_arbiter.grant"] = "ag"
        want["g_eng[0].parser.v1_valid"] = "pv"; want["g_eng[0].parser.v1_worker"] = "pw"
        want["engine.judge.jb_fire"] = "jf"; want["engine.judge.d_last"] = "jl"
        want["engine.judge.b_worker"] = "jw"
        want["g_eng[0].result_gen.cmd_valid"] = "cv"
        want["g_eng[0].result_gen.m_axis_tvalid"] = "rv"
        J = -1; C = -1; R = -1; first = -1
    }
    function bits(v,   n, i, r) {   # a binary string as a number (the signals here are narrow)
        r = 0; n = length(v)
        for (i = 1; i <= n; i++) r = r * 2 + (substr(v, i, 1) == "1")
        return r
    }
    function bit(v, k) { return int(v / 2 ^ k) % 2 }
    function sample(t,   p, beat, g) {
        if (first < 0) first = t
        # the judgement first: the frame judged left the arbiter in an earlier cycle
        if (J < 0 && val["jf"] && val["jl"]) {
            J = t; W = val["jw"]; A = A_t; P = A_p; I = sop[A_p, A_n]
            if (A_w != W) { printf "frame out of the arbiter at %d ns has worker %s, the judged one %d\n", A / 1000, A_w, W > "/dev/stderr"; exit 1 }
        } else if (J >= 0 && C < 0 && t > J && val["cv"]) {
            C = t
        } else if (C >= 0 && R < 0 && t > C && val["rv"]) {
            R = t
        }
        if (pend && val["pv"]) { A_w = val["pw"]; pend = 0 }   # its header, decoded
        for (p = 0; p < 4; p++) {
            beat = bit(val["iv"], p) && bit(val["ir"], p)
            if (beat && !inf[p]) sop[p, ++nin[p]] = t
            if (beat) inf[p] = !bit(val["il"], p)
        }
        if (val["av"] && val["ar"]) {
            if (!ain) {
                g = val["ag"]
                for (p = 0; p < 4; p++) if (bit(g, p)) break
                narb[p]++; A_t = t; A_p = p; A_n = narb[p]; A_w = "?"; pend = 1
            }
            ain = !val["al"]
        }
    }
    $1 == "$scope"   { path = (path == "" ? $3 : path "." $3); next }
    $1 == "$upscope" { sub(/\.?[^.]*$/, "", path); next }
    $1 == "$var" {
        n = path "."; sub(/^TOP\.wiresum_top\./, "", n); n = n $5
        if (path ~ /^TOP\.wiresum_top/ && (n in want)) code[$4] = want[n]
        next
    }
    /^#/ {
        if (due) { sample(now); due = 0 }
        now = substr($0, 2) + 0
        if (R >= 0) exit
        next
    }
    /^[bB]/ { v = substr($1, 2); c = $2 }
    /^[01xzXZ]/ { v = substr($0, 1, 1); c = substr($0, 2) }
    (c in code) {
        k = code[c]; x = bits(v)
        if (k == "clk" && val["clk"] == 1 && x == 0) due = 1
        val[k] = x; c = ""
    }
    END {
        if (R < 0 || I == "") { print "none"; exit 1 }
        # times in ns (the FST counts picoseconds)
        printf "first=%d in=%d arb=%d judge=%d cmd=%d result=%d worker=%d port=%d\n",
            first / 1000, I / 1000, A / 1000, J / 1000, C / 1000, R / 1000, W, P
    }' > "$tmp/markers" || { echo "wave_picture: no completing judgement followed by a RESULT in $fst" >&2; exit 1; }
# shellcheck disable=SC1090
. "$tmp/markers"
if ! [ "$in" -lt "$arb" ] || ! [ "$arb" -lt "$judge" ] || ! [ "$judge" -lt "$cmd" ] ||
   ! [ "$cmd" -lt "$result" ]; then
    echo "wave_picture: markers out of order in $fst: $(cat "$tmp/markers")" >&2
    exit 1
fi
from=$(( (in - 40) / 10 * 10 ))
to=$(( (result + 500) / 10 * 10 ))
cyc() { echo $(( ($1 + 5) / 10 )); }

# 2. the caption block of docs/debugging.md
cat > "$tmp/block" << EOF
<!-- wave-picture: begin (written by scripts/wave_picture.sh from build/wave.fst; make wave-picture) -->
[![GTKWave with the layout sim/wiresum-picture.gtkw on build/wave.fst, $from to $to ns: the first DATA frame to complete a round, from ingress port $port through the input arbiter, the parser and the judge to the command and the RESULT frames](wave.png)](wave.png)

*\`make wave-picture\`: \`build/wave.fst\` in the layout \`sim/wiresum-picture.gtkw\` (the stages
one frame passes), $from to $to ns (cycles ~$(cyc $from) to ~$(cyc $to)); the trace opens at $first
ns, once the model is configured. The frame followed is the first of the trace to complete a
round: worker $worker's DATA frame on ingress port $port. The markers, each in the middle of its
cycle: **1 in** ($in ns), its first beat on port $port (\`s_axis_tvalid\`); **2 arbiter** ($arb
ns), its first beat leaves the input arbiter (\`grant\`); **3 judge** ($judge ns, the primary
marker), the judge decides on it (\`jb_fire\` with \`d_accept\` and \`d_last\`): it completes the
round, and its payload beats go into the lanes; **4 cmd** ($cmd ns), the command to the result
generator, once the round's rounded row and checksum are written; **5 RESULT** ($result ns), the
first RESULT frame starts out of the result generator, those to the other ranks following.*
<!-- wave-picture: end -->
EOF
awk -v blockf="$tmp/block" '
    /^<!-- wave-picture: begin/ { while ((getline l < blockf) > 0) print l; skip = 1; found = 1; next }
    /^<!-- wave-picture: end/   { skip = 0; next }
    !skip { print }
    END { if (!found) exit 1 }' "$doc" > "$tmp/doc" ||
    { echo "wave_picture: $doc has no wave-picture block" >&2; exit 1; }
if [ $check -eq 1 ]; then
    if ! cmp -s "$tmp/doc" "$doc"; then
        diff "$doc" "$tmp/doc" >&2 || true
        echo "wave_picture: $doc and $png describe another waveform than the RTL's (above: < the document, > now); run make wave-picture" >&2
        exit 1
    fi
    echo "wave_picture: $doc matches build/wave.fst (markers $in $arb $judge $cmd $result ns)"
    exit 0
fi
cp "$tmp/doc" "$doc"

# 3. the picture: GTKWave on a virtual display, zoomed on the window, the markers set
cat > "$tmp/view.tcl" << EOF
gtkwave::setZoomRangeTimes ${from}000 ${to}000
gtkwave::setNamedMarker A ${in}000 "1 in"
gtkwave::setNamedMarker B ${arb}000 "2 arbiter"
gtkwave::setNamedMarker C ${judge}000 "3 judge"
gtkwave::setNamedMarker D ${cmd}000 "4 cmd"
gtkwave::setNamedMarker E ${result}000 "5 RESULT"
gtkwave::setMarker ${judge}000
EOF
width=1400 height=1010
disp=:$(( 90 + $$ % 9 ))
Xvfb "$disp" -screen 0 "${width}x${height}x24" -nolisten tcp > "$tmp/xvfb.log" 2>&1 &
xpid=$!
sleep 1
sed "s/^\[size\].*/[size] $width $height/" "$layout" > "$tmp/layout.gtkw"
DISPLAY=$disp gtkwave --rcvar 'hide_sst on' --rcvar 'splash_disable on' \
    -S "$tmp/view.tcl" "$fst" "$tmp/layout.gtkw" > "$tmp/gtkwave.log" 2>&1 &
gpid=$!
sleep 8
DISPLAY=$disp import -window root "$tmp/shot.png"
kill "$gpid" "$xpid" 2> /dev/null || true
wait "$gpid" "$xpid" 2> /dev/null || true
gpid="" xpid=""
convert "$tmp/shot.png" -trim +repage -strip "$png"
echo "wave_picture: $png ($(identify -format '%wx%h' "$png")) and the caption in $doc: $from to $to ns, markers $in $arb $judge $cmd $result ns"
