#!/bin/sh
# ux.sh WIRESUM - the debugging and reporting conveniences of the tool:
#  - `sim --trace-on-mismatch`: a trace whose expected<P>.pcap has one byte of one RESULT
#    flipped on purpose (tests/tool_pcap_edit) must mismatch at that frame; the rerun must write
#    DIR/mismatch.fst covering exactly the window around the frame's last beat (timestamps read
#    back with fst2vcd), and the printed cycle must be the frame's (its out<P>.pcap timestamp);
#    with backpressure too (the rerun must reproduce the cycle); no waveform without a mismatch;
#  - DIR/counters.txt of `sim` and `run --record`, `wiresum counters` and its errors, --counters;
#  - `run --plot`: a valid PNG (magic, size) and its data, with the RTL and the reference, a
#    clear error without gnuplot, and before the run for outputs that cannot be written; its
#    title names every fault;
#  - the progress display: a bar on a terminal (script(1)), plain lines otherwise, none with -q
#    or --no-progress; gen's refusal of a trace that would not fit on the disk;
#  - the command line: one message a usage error, exit 2, --version, help CMD; the make command
#    a missing Icarus design names.
# Appends "ux <case> <passed> <failed>" lines to the results file (tests/lib.sh) and ends with a summary line.
set -u
ws=$1
. "$(dirname "$0")/lib.sh"
edit=${PCAP_EDIT:-$WS_BUILD/tests/tool_pcap_edit}
tmp=$WS_BUILD/ux
rm -rf "$tmp"
mkdir -p "$tmp"
pass=0; fail=0

ok()  { ws_record ux "$1" 0; pass=$((pass + 1)); }
bad() { [ -f "$tmp/$1.log" ] && tail -n 25 "$tmp/$1.log"; echo "  ux $1: $2"
        ws_record ux "$1" 1; fail=$((fail + 1)); }

# the first and the last timestamp of an FST, in ps (fst2vcd of the gtkwave package)
fst_span() { fst2vcd "$1" 2> /dev/null | awk '/^#[0-9]+$/ { t = substr($0, 2); if (f == "") f = t } END { print f, t }'; }

# mismatch NAME BEFORE AFTER STRESS...: flip byte 100 (element 9) and byte 41 (the UDP
# checksum, as a wrong sum changes it) of RESULT 20 of port 2: the report names the checksum and
# the element with both values; the summary's cycles are those of the mismatch
mismatch() {
    name=$1; before=$2; after=$3; shift 3
    d=$tmp/$name
    log=$tmp/$name.log
    { "$ws" gen "$d" -q --workers 4 --elems 2000 --count 64 && "$ws" ref "$d" -q &&
      "$edit" flip "$d/expected2.pcap" 20 100 && "$edit" flip "$d/expected2.pcap" 20 41; } > "$log" 2>&1 ||
        { bad "$name" "setup"; return; }
    "$ws" sim "$d" --no-progress --trace-on-mismatch --trace-window "$before,$after" "$@" \
        >> "$log" 2>&1
    rc=$?
    [ $rc -eq 1 ] || { bad "$name" "sim exit $rc, expected 1"; return; }
    grep -q "^mismatch: port 2, RESULT to job [0-9]* rank 2 #20: expected2.pcap frame 20 (.*), out2.pcap frame 20 (.*, cycle [0-9]*): UDP checksum differs (expected 0x[0-9a-f]\{4\}, RTL 0x[0-9a-f]\{4\}), 1 element differs$" "$log" ||
        { bad "$name" "no mismatch line naming the UDP checksum and one element for frame 20 of port 2"; return; }
    ew=$("$edit" word "$d/expected2.pcap" 20 100) && aw=$("$edit" word "$d/out2.pcap" 20 100) &&
        off=$("$edit" word "$d/out2.pcap" 20 54) || { bad "$name" "words of frame 20"; return; }
    grep -qxF "  element 9 (tensor element $((${off% *} + 9))): expected ${ew#* } (${ew% *}), RTL ${aw#* } (${aw% *})" "$log" ||
        { bad "$name" "no line for element 9: expected ${ew#* } (${ew% *}), RTL ${aw#* } (${aw% *})"; return; }
    grep -q "first mismatch in time: port 2, RESULT to job [0-9]* rank 2 #20 (different): out2.pcap frame 20" "$log" ||
        { bad "$name" "the first mismatch is not frame 20 of port 2"; return; }
    ! grep -q WARNING "$log" || { bad "$name" "the rerun did not reproduce the cycle"; return; }
    c=$(sed -n 's/.*the first mismatch is at cycle \([0-9]*\) = \([0-9]*\) ns.*/\1 \2/p' "$log")
    cyc=${c% *}; ns=${c#* }
    [ -n "$cyc" ] || { bad "$name" "no cycle printed"; return; }
    # one scale: the summary's cycles run from the end of configuration to the last frame out,
    # numbered as the mismatch's cycle is
    span=$(sed -n "s|^sim $d: [a-z]*, width 256, \([0-9]*\) cycles, cycle \([0-9]*\) to \([0-9]*\) (.*|\1 \2 \3|p" "$log")
    set -- $span
    [ $# -eq 3 ] && [ "$1" -eq $(($3 - $2)) ] && [ "$2" -le "$cyc" ] && [ "$cyc" -le "$3" ] ||
        { bad "$name" "summary cycles [$span] do not contain the mismatch's cycle $cyc"; return; }
    [ "$ns" -eq $((10 * cyc - 5)) ] || { bad "$name" "waveform time $ns ns is not 10 x $cyc - 5"; return; }
    ts=$("$edit" ts "$d/out2.pcap" 20) || { bad "$name" "no timestamp of out2.pcap frame 20"; return; }
    [ "$ts" -eq $((5 * cyc)) ] ||
        { bad "$name" "printed cycle $cyc, but out2.pcap frame 20 is stamped $ts ns (5 ns a cycle)"; return; }
    grep -q "^  sh scripts/wave.sh $d/mismatch.fst --at $ns --port 2 " "$log" || { bad "$name" "no wave.sh command at $ns ns, port 2"; return; }
    # the command's layout: the marker at the mismatch, the view from before it, port 2's ingress
    DISPLAY= WAYLAND_DISPLAY= sh scripts/wave.sh "$d/mismatch.fst" --at "$ns" --port 2 > "$tmp/$name-wave.log" 2>&1 &&
        grep -q "^  gtkwave $d/mismatch.fst build/wave-at.gtkw$" "$tmp/$name-wave.log" &&
        grep -q "^\*-[0-9.]* $((ns * 1000)) " build/wave-at.gtkw &&
        grep -q "^\[timestart\] $(((ns - 200) * 1000))$" build/wave-at.gtkw &&
        grep -q "g_rx\[2\]\.rx\.s_axis_tvalid$" build/wave-at.gtkw && ! grep -q "g_rx\[0\]" build/wave-at.gtkw ||
        { bad "$name" "wave.sh --at $ns --port 2: no layout at the mismatch with port 2"; return; }
    [ -s "$d/mismatch.fst" ] || { bad "$name" "no $d/mismatch.fst"; return; }
    span=$(fst_span "$d/mismatch.fst")
    want="$(( (10 * (cyc - before) - 5) * 1000 )) $(( 10 * (cyc + after) * 1000 ))"
    [ "$span" = "$want" ] ||
        { bad "$name" "mismatch.fst spans [$span] ps, expected [$want] (cycles $((cyc - before))..$((cyc + after)))"; return; }
    # the rising edge of the frame's last beat is in the dump
    fst2vcd "$d/mismatch.fst" 2> /dev/null | grep -qx "#$(( (10 * cyc - 5) * 1000 ))" ||
        { bad "$name" "no dump at the frame's cycle"; return; }
    ok "$name"
}
mismatch trace-on-mismatch 300 50
mismatch trace-on-mismatch-backpressure 400 100 --backpressure 40 --idle 20 --seed 5

# a header field and ten elements of one RESULT: the field is named, eight elements are listed
# and the rest counted; mismatch pcaps only for the port with mismatching frames
d=$tmp/mismatch-header; log=$tmp/mismatch-header.log
if "$ws" gen "$d" -q --workers 4 --elems 2000 --count 64 > "$log" 2>&1 && "$ws" ref "$d" -q >> "$log" 2>&1 &&
   "$edit" flip "$d/expected2.pcap" 20 51 && for k in 0 1 2 3 4 5 6 7 8 9; do
       "$edit" flip "$d/expected2.pcap" 20 $((64 + 4 * k)) || exit 1; done; then
    "$ws" sim "$d" --no-progress >> "$log" 2>&1; rc=$?
    slot=$("$edit" word "$d/out2.pcap" 20 48)
    want=$(printf 'header field slot differs (expected 0x%04x, RTL 0x%04x), 10 elements differ' \
        $(( (${slot% *} & 0xffff) ^ 1 )) $(( ${slot% *} & 0xffff )))
    if [ $rc -eq 1 ] && grep -q "^mismatch: port 2, RESULT .*: $want$" "$log" &&
       [ "$(grep -c '^  element [0-7] (tensor element ' "$log")" -eq 8 ] &&
       grep -qx "  and 2 more elements differ" "$log" &&
       [ "$(cd "$d" && echo mismatch-*.pcap)" = "mismatch-actual2.pcap mismatch-expected2.pcap" ]; then
        ok mismatch-header
    else
        ls "$d" >> "$log"; bad mismatch-header "exit $rc: expected '$want', 8 elements listed, 2 counted, and mismatch pcaps of port 2 alone"
    fi
else
    bad mismatch-header "setup"
fi

# a missing RESULT (expected2.pcap gets a copy of its frame 5 appended, with editcap and
# mergecap of the wireshark tools): its cycle is the last RESULT the RTL sent on the port
if command -v editcap > /dev/null 2>&1 && command -v mergecap > /dev/null 2>&1; then
    d=$tmp/missing; log=$tmp/missing.log
    if "$ws" gen "$d" -q --workers 4 --elems 2000 --count 64 > "$log" 2>&1 && "$ws" ref "$d" -q &&
       editcap -r "$d/expected2.pcap" "$d/five.pcap" 5 >> "$log" 2>&1 &&
       mergecap -F pcap -a -w "$d/e2.pcap" "$d/expected2.pcap" "$d/five.pcap" >> "$log" 2>&1 &&
       mv "$d/e2.pcap" "$d/expected2.pcap"; then
        "$ws" sim "$d" --no-progress --trace-on-mismatch >> "$log" 2>&1
        rc=$?
        n=$("$edit" count "$d/out2.pcap")
        cyc=$(sed -n "s/.*first mismatch in time: port 2, RESULT to job [0-9]* rank [0-9]* #33 (missing): expected2.pcap frame 33; the last RESULT to job [0-9]* rank [0-9]* the RTL sent on the port, out2.pcap frame $n, ended at cycle \([0-9]*\)$/\1/p" "$log")
        ts=$("$edit" ts "$d/out2.pcap" "$n")
        if [ $rc -eq 1 ] && [ -n "$cyc" ] && [ "$ts" -eq $((5 * cyc)) ] && [ -s "$d/mismatch.fst" ] &&
           grep -q "the first mismatch is at cycle $cyc = " "$log"; then
            ok missing-frame
        else
            bad missing-frame "exit $rc, cycle '$cyc', out2.pcap frame $n at $ts ns"
        fi
    else
        bad missing-frame "setup"
    fi
else
    echo "skip ux missing-frame: editcap or mergecap is missing (wireshark tools)"
fi

# no mismatch: exit 0 and no waveform (nor a stale one)
d=$tmp/clean; log=$tmp/clean.log
if "$ws" gen "$d" -q --workers 3 --elems 500 --count 32 > "$log" 2>&1 &&
   : > "$d/mismatch.fst" && "$ws" sim "$d" -q --trace-on-mismatch >> "$log" 2>&1 &&
   [ ! -e "$d/mismatch.fst" ]; then ok clean-no-waveform; else bad clean-no-waveform "exit or stale mismatch.fst"; fi

# counters: saved by sim, read back, shown against the reference; --counters
d=$tmp/ctr; log=$tmp/ctr.log
if "$ws" gen "$d" -q --workers 4 --elems 1500 --count 32 --dup 0.1 --malformed 0.1 --bypass 0.1 > "$log" 2>&1 &&
   "$ws" sim "$d" -q --counters > "$tmp/ctr.sim" 2>&1 &&
   grep -q "0 counters differ from the reference" "$tmp/ctr.sim" &&
   "$ws" counters "$d" > "$tmp/ctr.out" 2>> "$log" &&
   grep -q "^  0 counters differ from the reference$" "$tmp/ctr.out" &&
   grep -q "^    duplicate  *[1-9][0-9]*  *[1-9][0-9]*$" "$tmp/ctr.out" &&
   grep -q "^  all  " "$tmp/ctr.out" &&
   [ "$(grep -c '^    [a-z_0-9]*  *[0-9]*  *[0-9]*$' "$tmp/ctr.out")" -eq "$(grep -c '^    X(' driver/wiresum/reasons.h)" ]; then
    ok counters-sim
else
    cat "$tmp/ctr.sim" "$tmp/ctr.out" >> "$log" 2> /dev/null; bad counters-sim "counters table"
fi

# a device counter changed in the file: the table marks it
f=$tmp/ctr-changed.txt
sed '/^\[device\]/,/^\[reference\]/ s/^accepted *= *\([0-9]*\)$/accepted = 99999/' "$d/counters.txt" > "$f"
if "$ws" counters "$f" > "$tmp/ctr-changed.log" 2>&1 &&
   grep -q "^  accepted  *99999  *[0-9]*  <- differs$" "$tmp/ctr-changed.log" &&
   grep -q "^  1 counters differ from the reference$" "$tmp/ctr-changed.log"; then
    ok counters-differ
else
    bad counters-differ "a changed counter is not marked"
fi

# refuse NAME SED PATTERN: counters.txt edited by SED must be refused with PATTERN
refuse() {
    name=$1; f=$tmp/$name.txt
    sed "$2" "$d/counters.txt" > "$f"
    "$ws" counters "$f" > "$tmp/$name.log" 2>&1; rc=$?
    if [ $rc -eq 1 ] && grep -q -- "$3" "$tmp/$name.log"; then ok "$name"; else
        bad "$name" "exit $rc, expected 1 and a message matching '$3'"; fi
}
refuse counters-unknown-key  's/^resends /resent /'            "^wiresum counters: $tmp/counters-unknown-key.txt:[0-9]*: \[device\] unknown key 'resent'"
refuse counters-not-a-count  's/^bypass *= .*/bypass = 12x/'   "counters-not-a-count.txt:[0-9]*: \[device\] bypass: '12x' is not a count"
refuse counters-port-fields  's/^port1 *= \([0-9]*\) .*/port1 = \1/' "counters-port-fields.txt:[0-9]*: \[device\] port1: .* is not four counts"
refuse counters-missing-port '/^port3 /d'                      "counters-missing-port.txt:[0-9]*: \[device\]: key 'port3' missing (ports = 4)"
refuse counters-bad-reason   's/^drop\.early /drop.late /'     "counters-bad-reason.txt:[0-9]*: \[device\] drop.late: no drop reason 'late'"
refuse counters-twice        '/^results /p'                    "counters-twice.txt:[0-9]*: \[device\] results: given twice (first on line [0-9]*)"
"$ws" counters "$tmp/none" > "$tmp/counters-no-file.log" 2>&1
if [ $? -eq 1 ] && grep -q "$tmp/none/counters.txt: No such file\|$tmp/none: No such file" "$tmp/counters-no-file.log"; then
    ok counters-no-file; else bad counters-no-file "no message naming the file"; fi

# run --record saves the counters; run --counters prints them; plot with the RTL
r=$tmp/rec; log=$tmp/run-plot.log
if "$ws" run --no-progress --workers 4 --elems 3000 --loss 0.05 --dup 0.05 --record "$r" \
        --plot "$tmp/rtl.png" --counters > "$log" 2>&1 &&
   grep -q "^device counters (wiresum run, RTL model), 4 ports$" "$log" &&
   "$ws" counters "$r" > "$tmp/rec-ctr.log" 2>&1 &&
   grep -q "^device counters (wiresum run: RTL model, DATA_WIDTH 256), 4 ports$" "$tmp/rec-ctr.log" &&
   ! grep -q "^reference" "$tmp/rec-ctr.log"; then
    ok counters-run-record
else
    bad counters-run-record "run --record --counters"
fi

# png NAME FILE: a PNG signature, a real image, and its data file with both blocks
png() {
    sig=$(od -An -tx1 -N8 "$2" 2> /dev/null | tr -d ' \n')
    size=$(wc -c < "$2" 2> /dev/null || echo 0)
    dat=${2%.png}.dat
    if [ "$sig" = 89504e470d0a1a0a ] && [ "$size" -gt 10000 ] &&
       [ "$(awk '/^# .*block [01]/ { b++ } /^[0-9]/ { n[b]++ } END { print (n[1] > 2 && n[2] > 2) }' "$dat")" = 1 ]; then
        ok "$1"
    else
        bad "$1" "$2: signature $sig, $size bytes, or $dat without both blocks"
    fi
}
png plot-rtl "$tmp/rtl.png"
log=$tmp/plot-ref.log
"$ws" run -q --device ref --workers 6 --elems 5000 --iters 3 --loss 0.05 --plot "$tmp/ref.png" > "$log" 2>&1 ||
    echo "(run exit $?)" >> "$log"
png plot-ref "$tmp/ref.png"
# without gnuplot: a clear error before the run
PATH=/nonexistent "$ws" run --device ref --plot "$tmp/none.png" > "$tmp/plot-no-gnuplot.log" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "^wiresum run: --plot: gnuplot not found in PATH" "$tmp/plot-no-gnuplot.log" &&
   [ ! -e "$tmp/none.png" ]; then ok plot-no-gnuplot; else bad plot-no-gnuplot "exit $rc"; fi
# outputs that cannot be written are refused before the run, not after it (timeout: the RTL run
# these options start takes most of a minute)
timeout 10 "$ws" run --plot "$tmp/no-such-dir/x.png" > "$tmp/plot-no-dir.log" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "^wiresum run: --plot $tmp/no-such-dir/x.png: directory $tmp/no-such-dir: No such file or directory$" "$tmp/plot-no-dir.log"; then
    ok plot-no-dir; else bad plot-no-dir "exit $rc, expected 1 and a message naming the directory"; fi
timeout 10 "$ws" run --plot "$tmp" > "$tmp/plot-is-dir.log" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "^wiresum run: --plot $tmp: is a directory$" "$tmp/plot-is-dir.log"; then
    ok plot-is-dir; else bad plot-is-dir "exit $rc, expected 1 and a message naming the directory"; fi
timeout 10 "$ws" run --record "$tmp/no-such-dir/rec" > "$tmp/record-no-dir.log" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "^wiresum run: --record $tmp/no-such-dir/rec: No such file or directory$" "$tmp/record-no-dir.log"; then
    ok record-no-dir; else bad record-no-dir "exit $rc, expected 1 at once"; fi
# the plot's title names every fault applied (the data file's first line is the title)
"$ws" run -q --device ref --workers 3 --elems 1500 --loss 0.05 --dup 0.02 --reorder 0.1 --corrupt 0.01 \
    --bypass 0.1 --faults up --plot "$tmp/faults.png" > "$tmp/plot-faults.log" 2>&1 || echo "(run exit $?)" >> "$tmp/plot-faults.log"
if head -n 1 "$tmp/faults.dat" 2> /dev/null | grep -q "^# wiresum run: reference, 3 workers, 1500 elements x 2, .*, loss 0.05, dup 0.02, reorder 0.1, corrupt 0.01, bypass 0.1 (--faults up)$"; then
    ok plot-title-faults; else head -n 1 "$tmp/faults.dat" >> "$tmp/plot-faults.log" 2>&1; bad plot-title-faults "the title does not name every fault"; fi

# progress: lines when stderr is not a terminal (every WIRESUM_PROGRESS_INTERVAL s here), none
# with -q or --no-progress, a bar redrawn in place on a terminal
d=$tmp/ctr
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" sim "$d" > /dev/null 2> "$tmp/prog-lines.log"
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" sim "$d" -q > /dev/null 2> "$tmp/prog-quiet.log"
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" sim "$d" --no-progress > /dev/null 2> "$tmp/prog-off.log"
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" run --device ref --elems 3000 > /dev/null 2> "$tmp/prog-run.log"
if grep -q "^sim:  *[0-9.]*%, cycle [0-9]*, [0-9]* of [0-9]* frames in, [0-9]* of [0-9]* out, [0-9]* s$" "$tmp/prog-lines.log" &&
   grep -q "^run:  *[0-9.]*%, cycle [0-9]*, [0-9]* retransmissions, [0-9]* s$" "$tmp/prog-run.log" &&
   ! grep -q '\[#' "$tmp/prog-lines.log" &&
   [ ! -s "$tmp/prog-quiet.log" ] && [ ! -s "$tmp/prog-off.log" ]; then
    ok progress-lines
else
    cat "$tmp/prog-lines.log" "$tmp/prog-quiet.log" "$tmp/prog-off.log" > "$tmp/progress-lines.log"
    bad progress-lines "periodic lines, or output with -q / --no-progress"
fi
if command -v script > /dev/null 2>&1; then
    script -qec "$ws sim $d" /dev/null > "$tmp/prog-tty.raw" 2>&1
    tr '\r' '\n' < "$tmp/prog-tty.raw" > "$tmp/progress-tty.log"
    if grep -q "^sim \[#*\.*\] 100.0%  cycle [0-9]*, [0-9]* of [0-9]* frames in" "$tmp/progress-tty.log" &&
       ! grep -q "^sim: " "$tmp/progress-tty.log"; then ok progress-tty; else bad progress-tty "no bar on a terminal"; fi
else
    echo "skip ux progress-tty: script(1) is missing (util-linux)"
fi

# gen refuses at once a trace that would not fit on the disk (statvfs of the directory, or of
# its parent while it does not exist), naming the size and the free space (compared with df's)
timeout 10 "$ws" gen "$tmp/huge" --workers 64 --elems 4294967295 --tensors 65535 > "$tmp/gen-no-space.log" 2>&1; rc=$?
free=$(sed -n "s|^wiresum gen: $tmp/huge: the trace needs at least [0-9.]* GB (.*), and the file system of $tmp has \([0-9.]*\) GB free$|\1|p" "$tmp/gen-no-space.log")
df_free=$(df -P -B1 "$tmp" | awk 'NR == 2 { print $4 / 1e9 }')
if [ $rc -eq 1 ] && [ -n "$free" ] && [ ! -e "$tmp/huge" ] &&
   awk -v a="$free" -v b="$df_free" 'BEGIN { exit !(a - b < 1 && b - a < 1) }'; then
    ok gen-no-space
else
    bad gen-no-space "exit $rc, free '$free' GB (df: $df_free GB), or a directory was made"
fi
# gen's progress: lines on stderr (not a terminal), none with -q or --no-progress
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" gen "$tmp/prog" --elems 100000 > /dev/null 2> "$tmp/gen-prog.log"
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" gen "$tmp/prog" --elems 100000 -q > /dev/null 2> "$tmp/gen-prog-q.log"
WIRESUM_PROGRESS_INTERVAL=0.0001 "$ws" gen "$tmp/prog" --elems 100000 --no-progress > /dev/null 2> "$tmp/gen-prog-off.log"
if grep -q "^gen:  *[0-9.]*%, [0-9]* frames, [0-9]* of 6252 chunks sent, [0-9]* of 1563 summed, [0-9]* s$" "$tmp/gen-prog.log" &&
   grep -q "^gen:  *[0-9.]*%, [0-9]* frames, 6252 of 6252 chunks sent, [1-9][0-9]* of 1563 summed" "$tmp/gen-prog.log" &&
   [ ! -s "$tmp/gen-prog-q.log" ] && [ ! -s "$tmp/gen-prog-off.log" ]; then
    ok gen-progress
else
    bad gen-progress "no progress lines, or some with -q / --no-progress"
fi

# a reused trace directory never gives a false verdict (docs/traces.md): gen removes the
# previous trace's files, sim makes expected<P>.pcap again when older than an input, check
# refuses outputs older than their inputs
r=$tmp/reuse
if "$ws" gen "$r" -q --ports 4 --workers 4 && "$ws" ref "$r" -q &&
   "$ws" sim "$r" -q --no-progress && touch "$r/mismatch.fst" "$r/notes.txt" &&
   "$ws" gen "$r" --ports 2 --workers 2 --seed 2 > "$tmp/reuse-gen.log" &&
   grep -q "^  removed the 16 files of the trace that was there" "$tmp/reuse-gen.log" &&
   [ -e "$r/notes.txt" ] && [ ! -e "$r/in3.pcap" ] && [ ! -e "$r/out0.pcap" ] &&
   "$ws" sim "$r" --no-progress --json > "$tmp/reuse.json" 2> "$tmp/reuse.log" &&
   ws_json_true "$tmp/reuse.json" '.mismatches == 0 and .counters_differ == 0 and .ok' &&
   "$ws" check -q "$r" && "$ws" check -q --prefix out "$r"; then
    ok reuse-gen
else
    bad reuse-gen "a second gen in the directory left files that gave a false verdict"
fi
sleep 0.01; touch "$r/in1.pcap"
"$ws" check -q --prefix out "$r" > "$tmp/reuse-check.log" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "$r/out[01].pcap is older than $r/in1.pcap: the out<P>.pcap files are not made from these inputs" "$tmp/reuse-check.log" &&
   "$ws" sim "$r" --no-progress > "$tmp/reuse-sim.log" 2>&1 &&
   grep -q "^sim $r: $r/expected[01].pcap is older than $r/in1.pcap: expected<P>.pcap written again" "$tmp/reuse-sim.log"; then
    ok reuse-stale
else
    cat "$tmp/reuse-check.log" "$tmp/reuse-sim.log" | tail -n 5; bad reuse-stale "outputs older than an input were used"
fi

# frames above MAX_FRAME, as host captures with segmentation offload hold them (12,042,
# 65,535 and 65,549 bytes): read, dropped by the ports as oversize in the reference as in the
# RTL, announced before simulating, counted in the summary, counters.txt and `wiresum counters`;
# a frame of exactly MAX_FRAME (9,216) is bypassed
o=$tmp/oversize
append_big() { for n in 9216 12042 65535 65549; do "$edit" append "$o/in1.pcap" $n || return 1; done; }
if "$ws" gen "$o" -q --workers 2 --elems 512 --bypass 0.2 --seed 4 > "$tmp/oversize.log" 2>&1 &&
   append_big &&
   "$ws" ref "$o" --json > "$tmp/oversize-ref.json" 2>> "$tmp/oversize.log" &&
   ws_json_true "$tmp/oversize-ref.json" '.counters.oversize == 3' &&
   "$ws" sim "$o" --no-progress > "$tmp/oversize-sim.log" 2>&1 &&
   grep -q "^sim $o: in1.pcap: 3 frames longer than the device's MAX_FRAME of 9216 bytes (frame [0-9]*: 12042 bytes): the port drops them (counter oversize)$" "$tmp/oversize-sim.log" &&
   grep -q "^  frames: [0-9]* in (3 oversize, dropped by the ports), .* 0 mismatches, 0 counters differ" "$tmp/oversize-sim.log" &&
   grep -q "^oversize *= 3$" "$o/counters.txt" &&
   "$ws" counters "$o" > "$tmp/oversize-ctr.log" 2>&1 &&
   grep -q "^  oversize  *3  *3$" "$tmp/oversize-ctr.log" &&
   "$ws" check -q --prefix out "$o"; then
    ok oversize
else
    cat "$tmp/oversize.log" "$tmp/oversize-sim.log" | tail -n 12; bad oversize "frames above MAX_FRAME"
fi
# max_frame in job.ini: the model's must match
sed 's/^\[device\]$/[device]\nmax_frame = 1518/' "$o/job.ini" > "$tmp/mf.ini" && cp "$tmp/mf.ini" "$o/job.ini"
"$ws" sim "$o" -q > "$tmp/oversize-mf.log" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "$o/job.ini: max_frame = 1518, but the model was built with MAX_FRAME = 9216" "$tmp/oversize-mf.log"; then
    ok max-frame-mismatch
else
    cat "$tmp/oversize-mf.log"; bad max-frame-mismatch "exit $rc"
fi

# options that cannot take effect are refused, naming the option (exit 2), never ignored
# no_effect NAME PATTERN COMMAND...: COMMAND exits 2 with a message matching PATTERN
no_effect() {
    name=$1; pat=$2; shift 2
    "$@" > "$tmp/$name.log" 2>&1; rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/$name.log"; then ok "$name"; else
        bad "$name" "exit $rc, expected 2 and a message matching '$pat'"; fi
}
no_effect trace-vcd "--trace $tmp/x.vcd: the models write FST waveforms only" \
    "$ws" sim "$d" --trace "$tmp/x.vcd"
no_effect trace-from-alone "--trace-from and --trace-to choose the cycles of a --trace" \
    "$ws" sim "$d" --trace-from 10
no_effect trace-window-alone "--trace-window sizes the waveform of --trace-on-mismatch" \
    "$ws" sim "$d" --trace-window 10
no_effect idle-100 "--idle 100: no ingress port takes a beat then" "$ws" sim "$d" --idle 100
# a waveform at a width of which the build has no traced model (make's WS_SIM_TRACED_WIDTHS,
# 256 alone by default; build/sim/widths.cfg names the models, <width>f the untraced ones):
# refused before the run, naming the make variable, no file made; the run without it passes
for w in 512 1024; do
    grep -qw "$w" "$(dirname "$ws")/sim/widths.cfg" 2> /dev/null && continue
    "$ws" sim "$d" -q --width "$w" --trace "$tmp/untraced-$w.fst" > "$tmp/untraced-$w.log" 2>&1; rc=$?
    if [ $rc -eq 1 ] && [ ! -e "$tmp/untraced-$w.fst" ] &&
       grep -q "trace $tmp/untraced-$w.fst: this binary's $w-bit model was built without tracing (make WS_SIM_TRACED_WIDTHS=$w" "$tmp/untraced-$w.log" &&
       "$ws" sim "$d" -q --width "$w" >> "$tmp/untraced-$w.log" 2>&1; then
        ok "untraced-$w"
    else
        bad "untraced-$w" "exit $rc: a trace at $w bits without a traced model"
    fi
done
no_effect backpressure-100 "--backpressure 100: no egress port sends a beat then" \
    "$ws" sim "$d" --backpressure 100
# one command line: the same mistake gets the same message, one message a mistake, exit 2 for
# every usage error (an option out of range, whichever end)
usage_one() { # NAME LINE COMMAND...: exit 2 and exactly LINE on stderr
    name=$1; want=$2; shift 2
    "$@" > "$tmp/$name.out" 2> "$tmp/$name.log"; rc=$?
    if [ $rc -eq 2 ] && [ "$(cat "$tmp/$name.log")" = "$want" ]; then ok "$name"; else
        bad "$name" "exit $rc, expected 2 and the one line '$want'"; fi
}
for w in 128 300 2048 x; do
    usage_one "width-$w" "wiresum: --width $w: expected 256, 512 or 1024" "$ws" sim "$d" --width "$w"
done
usage_one trace-window-negative "wiresum: --trace-window -5: expected BEFORE or BEFORE,AFTER in cycles (BEFORE 0..10^9, AFTER 1..10^9)" \
    "$ws" sim "$d" --trace-on-mismatch --trace-window -5
usage_one gen-loss-high "wiresum gen: --loss 0.6: must be in 0..0.5" "$ws" gen "$tmp/loss" --loss 0.6
usage_one gen-loss-negative "wiresum: --loss -1: expected a rate from 0 to 1" "$ws" gen "$tmp/loss" --loss -1
[ ! -e "$tmp/loss" ] || bad gen-loss-high "a trace directory was made"
# run: options that cannot make a run are usage errors too, before any device
usage_one run-loss-1 "wiresum run: --loss 1: nothing would ever arrive" "$ws" run --device ref --elems 10 --loss 1
usage_one run-tree-trailing-x "wiresum run: --tree 2x: fan-outs separated by 'x' (e.g. 4 or 2x4)" \
    "$ws" run --device ref --elems 10 --tree 2x
usage_one run-tree-leaves "wiresum run: --tree 2x4 has 8 leaves; --workers 4 leaves some without a worker" \
    "$ws" run --device ref --elems 10 --tree 2x4 --workers 4
usage_one run-shards-plot "wiresum run: --plot and --trace: one device at a time (without --shards and --tree)" \
    "$ws" run --device ref --elems 10 --shards 2 --plot "$tmp/shards.png"
# --version: WS_VERSION of mk/c.mk, the one place it is set
v=$(sed -n 's/^WS_VERSION *:= *//p' mk/c.mk)
if [ -n "$v" ] && [ "$("$ws" --version 2>&1)" = "wiresum $v" ]; then ok version; else
    bad version "wiresum --version is not 'wiresum $v'"; fi
# help CMD: the command's own usage, as CMD --help
for c in gen sim run; do
    "$ws" help "$c" > "$tmp/help-$c.log" 2>&1; rc=$?
    "$ws" "$c" --help > "$tmp/help-$c.want" 2>&1
    if [ $rc -eq 0 ] && head -n 1 "$tmp/help-$c.log" | grep -q "^usage: wiresum $c " &&
       cmp -s "$tmp/help-$c.log" "$tmp/help-$c.want"; then ok "help-$c"; else
        bad "help-$c" "exit $rc, or not the usage of wiresum $c --help"; fi
done
usage_one help-unknown "wiresum: unknown command 'nope' (see wiresum --help)" "$ws" help nope
# gen needs no model, but warns at once when no model of this binary can run its trace
# (MAX_COUNT 256, N_PORTS 4 by default), naming a build that can; the reference path works
g=$tmp/beyond; log=$tmp/gen-beyond-count.log
"$ws" gen "$g" -q --workers 2 --elems 2048 --count 1024 > "$log" 2>&1; rc=$?
mk=$(sed -n "s/^  \(make BUILD=build\/mc1024 WS_SIM_WIDTHS=256 WS_VFLAGS='-GMAX_COUNT=1024' build\/mc1024\/wiresum\)$/\1/p" "$log")
if [ $rc -eq 0 ] && grep -q "^wiresum gen: warning: no model built into this binary can run this trace: .*count 1024; the device has .* 256 (the .*-bit models)" "$log" &&
   [ -n "$mk" ] && grep -q "^  build/mc1024/wiresum sim $g$" "$log" &&
   $(echo "$mk" | sed "s|build/mc1024|$tmp/mc1024|g; s|'||g") -n 2> /dev/null | grep -q "verilator .*-GMAX_COUNT=1024" &&
   "$ws" ref -q "$g" >> "$log" 2>&1 && "$ws" check -q "$g" >> "$log" 2>&1 &&
   ! "$ws" sim -q "$g" >> "$log" 2>&1; then
    ok gen-beyond-count
else
    bad gen-beyond-count "exit $rc: no warning naming the build, or the reference path failed"
fi
"$ws" gen "$tmp/beyond-ports" -q --ports 16 --workers 4 --elems 256 > "$tmp/gen-beyond-ports.log" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "WS_VFLAGS='-GN_PORTS=16' build/p16/wiresum$" "$tmp/gen-beyond-ports.log"; then
    ok gen-beyond-ports; else bad gen-beyond-ports "exit $rc, no warning naming N_PORTS=16"; fi
"$ws" gen "$tmp/within" -q --workers 4 --elems 256 --count 256 > "$tmp/gen-within.log" 2>&1; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/gen-within.log" ]; then ok gen-within-models; else
    bad gen-within-models "exit $rc, or a warning for a trace the models run"; fi
# an Icarus design missing at one width: the message names the make command that compiles that
# width alone, and that command compiles it alone (make -n into a scratch build directory; the
# suite runs from the repository root, as make test starts it)
for w in 512 1024; do
    WIRESUM_ICARUS_DIR=$tmp/no-icarus "$ws" sim "$d" -q --sim icarus --width "$w" > "$tmp/icarus-$w.log" 2>&1; rc=$?
    cmd=$(sed -n "s/.*run '\(make icarus WS_ICARUS_WIDTHS=$w\)'.*/\1/p" "$tmp/icarus-$w.log")
    n=$($cmd -n BUILD="$tmp/ivb" 2> /dev/null | grep -c "^iverilog .*DATA_WIDTH=")
    if [ $rc -eq 1 ] && [ -n "$cmd" ] && [ "$n" -eq 1 ] &&
       $cmd -n BUILD="$tmp/ivb" 2> /dev/null | grep -q "^iverilog .*DATA_WIDTH=$w .*ws$w.vvp"; then
        ok "icarus-missing-$w"
    else
        bad "icarus-missing-$w" "exit $rc, make command '$cmd' ($n designs compiled)"
    fi
done
printf '3F800000 3F800000 40000000 00\n' > "$tmp/one.tf"
no_effect vectors-workers "--workers cannot apply with --vectors" \
    "$ws" gen "$tmp/vec" --vectors "$tmp/one.tf" --workers 4
[ ! -e "$tmp/vec" ] || bad vectors-workers "a trace was written"
# bench --quick keeps the options given with it
if "$ws" bench --quick --width 512 --workers 3 --count 64 --warmup 500 --cycles 1000 \
        --idle-rounds 1 --json > "$tmp/quick.json" 2> "$tmp/quick.log" &&
   ws_json_true "$tmp/quick.json" '.width == 512 and .workers == 3 and .count == 64 and .bad_results == 0' &&
   ws_json_true "$tmp/quick.json" '.queue_empty_steps >= 0 and .queue_empty_steps <= .steps and (has("starved_steps") | not)'; then
    ok bench-quick-options
else
    cat "$tmp/quick.log" "$tmp/quick.json" | tail -n 5; bad bench-quick-options "--width/--workers/--count dropped, or no queue_empty_steps"
fi
# heavy backpressure stretches the drain: every frame still comes out
"$ws" gen "$tmp/bp" -q --workers 3 --elems 600 --count 64 --bypass 0.1 --seed 9 > "$tmp/bp.log" 2>&1 &&
    "$ws" sim "$tmp/bp" --backpressure 99 --no-progress --json > "$tmp/bp.json" 2>> "$tmp/bp.log" &&
    ws_json_true "$tmp/bp.json" '.mismatches == 0 and .counters_differ == 0 and .frames_out == .frames_expected'
if [ $? -eq 0 ]; then ok backpressure-99; else tail -n 5 "$tmp/bp.log"; bad backpressure-99 "frames missing"; fi

echo "ux: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
