#!/bin/sh
# rtl_compare.sh record DIR | compare DIR - the device is the same bit for bit after an RTL
# change that should not change it (a refactor): record its outputs before, compare after.
#
#   record DIR    runs 12 traces as tests/rtl.sh makes them (`wiresum gen`, the same cases
#                 and arguments) through `wiresum sim` in 4 builds: one engine at 256, 512 and
#                 1024 bits (WIRESUM, default build/wiresum) and four engines at 256 bits
#                 (WIRESUM_E4, default build/p1/wiresum: -GENGINES=4 -GPARTIAL=1, make engines'
#                 build), each plain, with 30 % ingress idle insertion (--idle 30 --seed 3) and
#                 with 40 % egress backpressure (--backpressure 40 --seed 4): 144 simulations.
#                 Each leaves DIR/<build>/<trace>.<mode>/: out<P>.txt, every frame the device
#                 sent on port P (one a line: length and bytes in hex, the pcap's time stamps,
#                 cycle counts, left out), counters.txt (every device counter as `wiresum sim`
#                 read it back) and rc (sim's exit status). The traces are in DIR/traces/.
#   compare DIR   runs the same 144 simulations on the traces DIR/traces/ (with the tools named
#                 as for record) into DIR.now/ and compares every file with DIR's; prints each
#                 difference and "rtl_compare: N runs, M differ"; exit 0 only if none does.
#
# Environment: WIRESUM, WIRESUM_E4 (above); RTL_CMP_JOBS, simulations at once (default 2);
# RTL_CMP_BUILDS, the builds to run (default "w256 w512 w1024 e4"); RTL_CMP_TRACES, the traces
# (default all 12). Build the tools first: make build/wiresum build/p1/wiresum.
set -u
cd "$(dirname "$0")/.." || exit 1
usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1; dir=$2
ws=${WIRESUM:-build/wiresum}
ws_e4=${WIRESUM_E4:-build/p1/wiresum}
builds=${RTL_CMP_BUILDS:-w256 w512 w1024 e4}
jobs=${RTL_CMP_JOBS:-2}

# the 12 traces: NAME GEN-ARGS (tests/rtl.sh's cases; LANES is the build's lanes)
traces() {
    cat <<'EOF'
f32-add-vectors --vectors VEC --count 256 --slots 4
workers-4 --workers 4 --elems 2000 --count 64 --loss 0.05 --dup 0.05
workers-64 --workers 64 --elems 300 --count 8 --slots 2 --dup 0.02
count-1 --workers 3 --elems 100 --count 1 --slots 5
count-lanes+1 --workers 3 --elems 500 --count LANES1
count-max --workers 3 --elems 3000 --count 256 --slots 4
short-last --workers 4 --elems 1001 --count 50 --tensors 2
jobs-share --jobs 3 --workers 5 --slots 8 --tensors 2 --elems 1500 --count 32 --loss 0.03 --dup 0.03
bypass-mix --workers 4 --elems 1500 --count 32 --bypass 0.2
malformed --jobs 2 --workers 3 --elems 4000 --count 32 --slots 4 --malformed 0.3 --seed 8
special --workers 5 --elems 2000 --count 64 --values special
everything --jobs 2 --workers 4 --elems 2000 --count 48 --tensors 2 --values mixed --loss 0.05 --dup 0.05 --malformed 0.05 --bypass 0.05 --seed 11
EOF
}

# frames PCAP: one line a frame, "length hex-bytes", time stamps left out
frames() {
    python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
e = '<' if d[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
i = 24
while i + 16 <= len(d):
    n = struct.unpack(e + 'I', d[i + 8:i + 12])[0]
    print(n, d[i + 16:i + 16 + n].hex())
    i += 16 + n
EOF
}

# one BUILD TRACE OUT: the trace's three stress modes in BUILD, results under OUT/BUILD/
one() {
    b=$1; t=$2; out=$3
    case $b in
    w256) w=256; tool=$ws ;; w512) w=512; tool=$ws ;; w1024) w=1024; tool=$ws ;;
    e4) w=256; tool=$ws_e4 ;;
    *) echo "rtl_compare: unknown build $b"; return 1 ;;
    esac
    work=$out/work/$b-$t
    for mode in plain idle backpressure; do
        case $mode in
        plain) stress="" ;;
        idle) stress="--idle 30 --seed 3" ;;
        backpressure) stress="--backpressure 40 --seed 4" ;;
        esac
        rm -rf "$work"
        cp -r "$dir/traces/w$w-$t" "$work"
        r=$out/$b/$t.$mode
        mkdir -p "$r"
        # shellcheck disable=SC2086
        "$tool" sim "$work" -q --no-progress --width "$w" $stress > "$r/log" 2>&1
        echo $? > "$r/rc"
        for p in "$work"/out*.pcap; do
            [ -e "$p" ] || continue
            n=$(basename "$p" .pcap)
            frames "$p" > "$r/$n.txt"
        done
        # the counters, without the lines that count cycles or time
        grep -v -i -e cycle -e time "$work/counters.txt" > "$r/counters.txt" 2> /dev/null ||
            echo "no counters.txt" > "$r/counters.txt"
    done
    rm -rf "$work"
}

# run OUT: every build and trace into OUT, RTL_CMP_JOBS at once (this script's _one)
run() {
    out=$1
    mkdir -p "$out/work"
    for b in $builds; do
        traces | while read -r t _; do
            case " ${RTL_CMP_TRACES:-$t} " in *" $t "*) echo "$b $t $out $dir" ;; esac
        done
    done | xargs -P "$jobs" -L 1 sh "$0" _one
    rmdir "$out/work" 2> /dev/null || true
}

# gen: the traces into DIR/traces/w<width>-<name> (the vectors of f32-add-vectors as rtl.sh's)
gen() {
    mkdir -p "$dir/traces"
    build/tests/tool_f32_add_vectors 20000 > "$dir/traces/f32_add-own.txt" || exit 1
    for w in 256 512 1024; do
        traces | while read -r t args; do
            case " ${RTL_CMP_TRACES:-$t} " in *" $t "*) ;; *) continue ;; esac
            args=$(echo "$args" | sed -e "s|VEC|$dir/traces/f32_add-own.txt|" -e "s|LANES1|$((w / 32 + 1))|")
            # shellcheck disable=SC2086
            "$ws" gen "$dir/traces/w$w-$t" -q $args > /dev/null ||
                { echo "rtl_compare: gen $t failed"; exit 1; }
        done
    done
}

case $cmd in
_one)   # internal: _one BUILD TRACE OUT DIR (a line of run's list)
    dir=$5
    one "$2" "$3" "$4" ;;
record)
    [ -e "$dir" ] && { echo "rtl_compare: $dir exists"; exit 2; }
    gen
    run "$dir"
    n=$(find "$dir" -name rc | wc -l)
    bad=$(find "$dir" -name rc -exec grep -Lx 0 {} + | wc -l)
    echo "rtl_compare: recorded $n runs in $dir ($bad with sim's exit status not 0)" ;;
compare)
    [ -d "$dir/traces" ] || { echo "rtl_compare: no $dir/traces (record first)"; exit 2; }
    rm -rf "$dir.now"
    run "$dir.now"
    n=0; nd=0
    for r in $(cd "$dir" && find . -name rc | sed 's|/rc$||' | sort); do
        n=$((n + 1))
        if ! diff -r "$dir/$r" "$dir.now/$r" -x log > /dev/null 2>&1; then
            nd=$((nd + 1))
            echo "differs: $r"
            diff -r "$dir/$r" "$dir.now/$r" -x log | head -n 5
        fi
    done
    echo "rtl_compare: $n runs, $nd differ"
    [ "$n" -gt 0 ] && [ "$nd" -eq 0 ] ;;
*) usage ;;
esac
