#!/bin/sh
# e2e.sh WIRESUM WIRESUM_ASAN - end-to-end: gen, then ref, then check, over
# seeds, sizes and faults; determinism; every drop reason; the check's own
# ability to fail; bad input. Appends "e2e <case> <passed> <failed>" lines to
# the results file (tests/lib.sh).
set -u
ws=$1
asan=$2
. "$(dirname "$0")/lib.sh"
vec=$WS_BUILD/tests/tool_f32_add_vectors
tmp=$WS_BUILD/e2e
rm -rf "$tmp"
mkdir -p "$tmp"
rc=0

record() { # name status
    ws_record e2e "$1" "$2"
    [ "$2" -eq 0 ] || rc=1
}

# roundtrip NAME BINARY GEN-ARGS...: gen, ref, check must all succeed.
roundtrip() {
    name=$1; bin=$2; shift 2
    d="$tmp/$name"
    if "$bin" gen "$d" -q "$@" > "$d.log" 2>&1 &&
       "$bin" ref "$d" >> "$d.log" 2>&1 &&
       "$bin" check "$d" >> "$d.log" 2>&1; then
        record "$name" 0
    else
        cat "$d.log"; record "$name" 1
    fi
}

roundtrip one-element        "$ws" --elems 1 --workers 2
roundtrip short-last-chunk   "$ws" --elems 1000 --count 64 --loss 0.05 --dup 0.05 --seed 3
roundtrip one-worker         "$ws" --workers 1 --elems 500 --count 7 --loss 0.05 --dup 0.1
roundtrip 3-workers-count-1  "$ws" --workers 3 --elems 300 --count 1 --slots 5 --loss 0.02
roundtrip 32-workers         "$ws" --workers 32 --elems 2000 --count 32 --slots 8 --loss 0.03 --dup 0.03 --seed 5
roundtrip 64-workers         "$ws" --workers 64 --elems 1000 --count 16 --slots 4 --malformed 0.05 --bypass 0.05 --seed 6
roundtrip jobs-share-ports   "$ws" --jobs 3 --workers 5 --ports 4 --tensors 3 --slots 8 --elems 3000 --values special --loss 0.05 --dup 0.05 --malformed 0.05 --bypass 0.05 --seed 7
roundtrip jumbo-2048         "$ws" --workers 3 --elems 10000 --count 2048 --slots 2 --loss 0.05
roundtrip one-port           "$ws" --ports 1 --workers 4 --elems 777 --count 10 --bypass 0.2 --dup 0.05
roundtrip heavy-faults       "$ws" --workers 8 --elems 4000 --count 32 --slots 4 --loss 0.3 --dup 0.3 --malformed 0.3 --bypass 0.3 --ecn 0.1 --seed 9
roundtrip values-normal      "$ws" --workers 6 --elems 5000 --values normal --seed 10
for seed in 11 12 13 14 15; do
    roundtrip "seed-$seed"   "$ws" --jobs 2 --workers 4 --elems 2500 --count 40 --slots 6 --tensors 2 --loss 0.05 --dup 0.05 --malformed 0.02 --bypass 0.02 --seed $seed
done
# the same under AddressSanitizer and UBSan
roundtrip asan-faults        "$asan" --jobs 2 --workers 7 --elems 900 --count 16 --slots 3 --tensors 2 --values special --loss 0.1 --dup 0.1 --malformed 0.1 --bypass 0.1 --seed 21
roundtrip asan-64-workers    "$asan" --workers 64 --elems 200 --count 8 --slots 2 --loss 0.05 --dup 0.05 --seed 22

# TestFloat-format vectors (from this host's IEEE adder) as a two-worker job
if "$vec" 20000 > "$tmp/vectors.txt" && "$ws" testfloat "$tmp/vectors.txt" > "$tmp/testfloat.log" 2>&1; then
    record testfloat-mode 0
else
    tail "$tmp/testfloat.log"; record testfloat-mode 1
fi
# no case at all (testfloat_gen missing in `testfloat_gen f32_add | wiresum testfloat`) fails
: | "$ws" testfloat > "$tmp/testfloat-empty.log" 2>&1
[ $? -eq 1 ] && grep -q "^<stdin>: no f32_add case in 0 lines: nothing was checked" "$tmp/testfloat-empty.log"
st=$?
[ $st -eq 0 ] || cat "$tmp/testfloat-empty.log"
record testfloat-empty $st

roundtrip vectors-2-workers  "$ws" --vectors "$tmp/vectors.txt" --count 256 --loss 0.05 --dup 0.05

# recorded gradients (scripts/record_gradients.py: 4 workers training on scikit-learn's digits)
rec=tests/data/grad-digits
roundtrip recorded-digits    "$ws" --from "$rec" --count 64 --slots 8 --loss 0.05 --dup 0.05 --malformed 0.05
roundtrip asan-recorded      "$asan" --from "$rec" --count 100 --slots 4 --dup 0.1
# a recording with a file missing, files of two sizes, none at all, or --from with a shape option:
# an error naming the file (or the option), exit 1 (2 for the options), no trace
ok=0
from_err() { # CASE-DIR EXPECTED-TEXT [EXIT]
    "$asan" gen "$tmp/from-out" --from "$1" > "$tmp/from.log" 2>&1
    st=$?
    [ "$st" -eq "${3:-1}" ] && grep -q "$2" "$tmp/from.log" || { echo "gen --from $1: exit $st"; cat "$tmp/from.log"; ok=1; }
}
rm -rf "$tmp/rec-miss" "$tmp/rec-size" "$tmp/rec-none" && mkdir -p "$tmp/rec-none" &&
    cp -r "$rec" "$tmp/rec-miss" && cp -r "$rec" "$tmp/rec-size" || ok=1
rm -f "$tmp/rec-miss/w2-s1.f32"
head -c 400 "$rec/w1-s0.f32" > "$tmp/rec-size/w1-s0.f32"
from_err "$tmp/rec-miss" "rec-miss/w2-s1.f32: No such file"
from_err "$tmp/rec-size" "rec-size/w1-s0.f32: 400 bytes, but .*w0-s0.f32 has"
from_err "$tmp/rec-none" "no recorded gradients"
"$ws" gen "$tmp/from-out" --from "$rec" --workers 3 > "$tmp/from.log" 2>&1
[ $? -eq 2 ] && grep -q -- "--workers cannot apply with --from" "$tmp/from.log" || { cat "$tmp/from.log"; ok=1; }
record recorded-bad-input $ok

# determinism: the same seed gives the same trace and the same expected outputs
d1="$tmp/det1"; d2="$tmp/det2"
ok=0
for d in "$d1" "$d2"; do
    "$ws" gen "$d" -q --jobs 2 --elems 3000 --loss 0.1 --dup 0.1 --malformed 0.1 --bypass 0.1 --seed 42 && "$ws" ref -q "$d" || ok=1
done
for f in job.ini in0.pcap in1.pcap in2.pcap in3.pcap expected0.pcap expected1.pcap expected2.pcap expected3.pcap; do
    cmp -s "$d1/$f" "$d2/$f" || { echo "differs: $f"; ok=1; }
done
record determinism $ok

# every drop reason of the protocol is produced by gen and counted by ref
d="$tmp/reasons"
ok=0
"$ws" gen "$d" -q --jobs 2 --workers 3 --elems 20000 --count 32 --slots 4 --malformed 0.5 --dup 0.2 --seed 8 &&
    "$ws" ref "$d" --json > "$d.json" 2> "$d.log" && "$ws" check -q "$d" || ok=1
for r in bad_ipv4 bad_udp bad_header result_to_device unknown_job bad_rank spoofed bad_slot \
         bad_count bad_length mismatch early duplicate; do
    ws_json_true "$d.json" ".counters.drop.$r > 0" || { echo "reason $r never counted"; ok=1; }
done
record every-drop-reason $ok

# the check fails when one element of one sum differs, and when a RESULT is missing
d="$tmp/short-last-chunk"
ok=0
cp "$d/sum-7-458753.f32" "$tmp/sum.bak"
printf '\377' | dd of="$d/sum-7-458753.f32" bs=1 seek=100 conv=notrunc 2>/dev/null
"$ws" check -q "$d" > "$tmp/neg1.log" 2>&1 && ok=1
grep -q "element 25: expected" "$tmp/neg1.log" || ok=1
cp "$tmp/sum.bak" "$d/sum-7-458753.f32"
"$ws" check -q "$d" > /dev/null 2>&1 || ok=1
"$ws" check -q --prefix in "$d" > "$tmp/neg2.log" 2>&1 && ok=1
grep -q "never received" "$tmp/neg2.log" || ok=1
record check-can-fail $ok

# bad input: a clear message naming the file and line, exit 1, no crash
d="$tmp/badini"
ok=0
"$ws" gen "$d" -q --elems 10 && "$ws" ref -q "$d" || ok=1
sed -i 's/^workers = 4/workers = 4\nbogus = 1/' "$d/job.ini"
"$asan" ref "$d" > "$tmp/bad.log" 2>&1; [ $? -eq 1 ] || ok=1
grep -q "job.ini:[0-9]*:.*bogus" "$tmp/bad.log" || { cat "$tmp/bad.log"; ok=1; }
printf 'not a pcap' > "$tmp/one-element/in0.pcap"
"$asan" ref "$tmp/one-element" > "$tmp/bad2.log" 2>&1; [ $? -eq 1 ] || ok=1
grep -q "in0.pcap" "$tmp/bad2.log" || { cat "$tmp/bad2.log"; ok=1; }
"$ws" gen "$tmp/x" --workers 65 > /dev/null 2>&1 && ok=1
"$ws" gen "$tmp/x" --loss 2 > /dev/null 2>&1 && ok=1
"$ws" nosuch > /dev/null 2>&1 && ok=1
for c in gen ref check testfloat; do "$ws" $c --help | grep -q "usage: wiresum $c" || ok=1; done
record bad-input $ok

exit $rc
