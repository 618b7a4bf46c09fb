#!/bin/sh
# tree.sh WIRESUM [ASAN-WIRESUM] - `wiresum run` over several devices (loop/fabric.c,
# docs/protocol.md section 9): jobs sharded over devices, trees of two and three levels,
# references and RTL models mixed, with loss, duplication, reordering and corruption on every
# link. Each run must end with every tensor exact, every RESULT and PARTIAL the devices sent
# equal to the oracle's (the run checks them as they leave), and the counters adding up; a
# recorded run must replay bit for bit, device by device (`wiresum sim` for a device the RTL can
# be, `wiresum ref` for one that takes PARTIALs). Bad options are refused with a message.
# Appends "tree <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
ws=$1
asan=${2:-}
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/tree
rm -rf "$tmp"
mkdir -p "$tmp"
ws_run_cases tree "$ws" "$tmp"

F10="--loss 0.1 --dup 0.1 --reorder 0.1 --corrupt 0.02"
# shellcheck disable=SC2086
{
one shards-4-ref     '.shards == 4 and .tensors == 24' --device ref --shards 4 --workers 8 --elems 3000 --iters 3 $F10 --seed 1
one tree-4           '.tree == "4" and .tensors == 16' --device ref --tree 4 --workers 8 --elems 2000 --iters 2 $F10 --seed 2
one tree-2x4-shards  '.shards == 2 and .tensors == 32' --device ref --shards 2 --tree 2x4 --workers 16 --elems 3000 --iters 2 $F10 --seed 3
one tree-3-levels    '.tensors == 24' --device ref --shards 3 --tree 2x2x2 --workers 12 --elems 2000 --iters 2 $F10 --seed 4
one tree-specials    '.tensors == 18' --device ref --tree 3 --workers 9 --elems 1000 --iters 2 --values special $F10 --seed 5
one tree-uneven      '.tensors == 14' --device ref --tree 3 --workers 7 --elems 777 --count 13 --slots 3 --iters 2 $F10 --seed 6
one tree-count-1024  '.tensors == 8' --device ref --tree 2 --workers 4 --elems 5000 --count 1024 --slots 2 --iters 2 --loss 0.05 --seed 7
one mix-shards       '.device == "mix" and .tensors == 12' --device mix --shards 2 --workers 6 --elems 2000 --iters 2 $F10 --seed 8
one rtl-shards-3     '.tensors == 8' --device rtl --shards 3 --workers 4 --elems 2000 --iters 2 $F10 --seed 9
}
if [ -n "$asan" ] && [ -x "$asan" ]; then
    # shellcheck disable=SC2086
    if "$asan" run --no-progress --device ref --shards 2 --tree 2x2 --workers 8 --elems 700 --iters 2 \
           $F10 --seed 10 > "$tmp/asan-tree.log" 2>&1; then ok asan-tree; else bad asan-tree; fi
fi

# a recorded run, replayed device by device, bit for bit
d=$tmp/rec
# shellcheck disable=SC2086
if "$ws" run --no-progress --device mix --shards 2 --workers 6 --elems 1500 --iters 2 $F10 \
       --seed 11 --record "$d" > "$tmp/record-shards.log" 2>&1 &&
   [ -f "$d/sum-7-458753.f32" ] && [ -f "$d/sum-7-458754.f32" ] &&
   "$ws" sim "$d/s0" --json > "$tmp/s0.json" 2>> "$tmp/record-shards.log" &&
   ws_json_true "$tmp/s0.json" '.mismatches == 0 and .counters_differ == 0' &&
   "$ws" sim "$d/s1" --json > "$tmp/s1.json" 2>> "$tmp/record-shards.log" &&
   ws_json_true "$tmp/s1.json" '.mismatches == 0 and .counters_differ == 0'; then
    ok record-shards
else
    bad record-shards
fi
# a tree: the RTL refuses its devices (they take PARTIALs); the reference replays each one
d=$tmp/rec-tree
tool=$WS_BUILD/tests/tool_pcap_edit
same=1
# shellcheck disable=SC2086
if "$ws" run --no-progress --device ref --tree 2x2 --workers 8 --elems 1200 --iters 2 $F10 \
       --seed 12 --record "$d" > "$tmp/record-tree.log" 2>&1; then
    for dev in s0 s0.0 s0.1 s0.0.0 s0.0.1 s0.1.0 s0.1.1; do
        "$ws" ref "$d/$dev" --out replay -q >> "$tmp/record-tree.log" 2>&1 || same=0
        for p in 0 1 2 3; do
            "$tool" list "$d/$dev/expected$p.pcap" | cut -d' ' -f2- > "$tmp/want" &&
            "$tool" list "$d/$dev/replay$p.pcap" | cut -d' ' -f2- > "$tmp/got" &&
            cmp -s "$tmp/want" "$tmp/got" ||
                { echo "device $dev port $p: the replay differs" >> "$tmp/record-tree.log"; same=0; }
        done
    done
    [ "$("$tool" count "$d/s0.0.0/expected3.pcap")" -gt 0 ] || same=0 # PARTIALs went up
    "$ws" sim "$d/s0" > "$tmp/sim-tree.log" 2>&1 && same=0
    grep -q "takes PARTIAL frames" "$tmp/sim-tree.log" || same=0
else
    same=0
fi
if [ $same = 1 ]; then ok record-tree; else bad record-tree; fi

# fabric.ini: a recorded run's own, run again, gives the same frames device by device
d=$tmp/rec-fabric
same=1
# shellcheck disable=SC2086
if "$ws" run --no-progress -q --device ref --shards 2 --tree 2x2 --workers 9 --elems 900 $F10 \
       --seed 13 --record "$d" > "$tmp/fabric-replay.log" 2>&1 &&
   "$ws" run --no-progress -q --device ref --fabric "$d/fabric.ini" --workers 9 --elems 900 $F10 \
       --seed 13 --record "$d.again" >> "$tmp/fabric-replay.log" 2>&1; then
    for dir in "$d"/s*/; do
        dev=$(basename "$dir")
        for p in 0 1 2 3; do
            "$tool" list "$d/$dev/expected$p.pcap" > "$tmp/want" &&
            "$tool" list "$d.again/$dev/expected$p.pcap" > "$tmp/got" && cmp -s "$tmp/want" "$tmp/got" ||
                { echo "device $dev port $p differs" >> "$tmp/fabric-replay.log"; same=0; }
        done
    done
    cmp -s "$d/fabric.ini" "$d.again/fabric.ini" || same=0
else
    same=0
fi
if [ $same = 1 ]; then ok fabric-replay; else bad fabric-replay; fi

# a hand-written one: shard 0 a root over leaves of 3 and 2 workers, shard 1 one device
f=$tmp/uneven.ini
cat > "$f" <<'INI'
; two shards of different shapes
[device top]
mac = 02:00:00:00:aa:01
ip = 10.9.0.1
shard = 0
[device left]
mac = 02:00:00:00:aa:02
ip = 10.9.0.2
udp_port = 5000
parent = top
rank = 0
workers = 0-2
[device right]
mac = 02:00:00:00:aa:03
ip = 10.9.0.3
parent = top
rank = 1
workers = 3-4
[device flat]
mac = 02:00:00:00:aa:04
ip = 10.9.0.4
shard = 1
workers = 0-4
INI
# shellcheck disable=SC2086
one fabric-uneven '.tensors == 10' --device ref --fabric "$f" --workers 5 --elems 1500 --iters 2 $F10 --seed 14
if [ -n "$asan" ] && [ -x "$asan" ]; then
    # shellcheck disable=SC2086
    if "$asan" run --no-progress --device ref --fabric "$f" --workers 5 --elems 300 $F10 --seed 15 \
           > "$tmp/asan-fabric.log" 2>&1; then ok asan-fabric; else bad asan-fabric; fi
fi

# fabric.ini errors name the file and line
badf() { # NAME PATTERN: the file $tmp/NAME.ini must be refused with PATTERN
    refuse "$1" "$2" --device ref --fabric "$tmp/$1.ini" --workers 2 --elems 10
}
D1='[device a]
mac = 02:00:00:00:aa:01
ip = 10.9.0.1'
printf '%s\nshard = 0\nworkers = 0-1\ncolour = red\n' "$D1" > "$tmp/fab-key.ini"
badf fab-key "fab-key.ini:6: device a: unknown key 'colour'"
printf '%s\nparent = b\nrank = 0\nworkers = 0-1\n' "$D1" > "$tmp/fab-parent.ini"
badf fab-parent "fab-parent.ini:4: device a: parent b: no such device"
printf '%s\nshard = 0\n[device b]\nmac = 02:00:00:00:aa:02\nip = 10.9.0.2\nparent = a\nrank = 1\nworkers = 0-1\n' "$D1" > "$tmp/fab-rank.ini"
badf fab-rank "fab-rank.ini:9: device b: rank 1 under a"
printf '%s\nshard = 1\nworkers = 0-1\n' "$D1" > "$tmp/fab-shard.ini"
badf fab-shard "shard 0 has no root"
printf '%s\nshard = 0\nworkers = 1-2\n' "$D1" > "$tmp/fab-gap.ini"
badf fab-gap "fab-gap.ini:5: device a: workers 1-2: .* rank 0 comes next"
printf '%s\nshard = 0\nworkers = 0-2\n' "$D1" > "$tmp/fab-workers.ini"
badf fab-workers "its leaves serve 3 workers; give --workers 3"
printf '%s\nshard = 0\nparent = a\nrank = 0\n' "$D1" > "$tmp/fab-both.ini"
badf fab-both "fab-both.ini:1: device a: either 'shard'"
printf '%s\nshard = 0\nworkers 0-1\n' "$D1" > "$tmp/fab-syntax.ini"
badf fab-syntax "fab-syntax.ini:5: syntax error"
refuse fabric-missing "nowhere.ini" --device ref --fabric "$tmp/nowhere.ini" --elems 10
refuse fabric-and-tree "not with --shards or --tree" --device ref --fabric "$tmp/uneven.ini" --tree 2 --workers 5 --elems 10

refuse tree-rtl      "PARAM_PARTIAL = 0: a build with PARTIAL = 1 does" --device rtl --tree 2 --workers 4 --elems 10
refuse tree-leaves   "leaves some without a worker" --device ref --tree 2x4 --workers 4 --elems 10
refuse tree-syntax   "fan-outs" --device ref --tree 2y3 --elems 10
refuse tree-zero     "fan-outs" --device ref --tree 0 --elems 10
refuse shards-65     "--shards 65" --device ref --shards 65 --elems 10
refuse shards-bypass "--bypass: not with several devices" --device ref --shards 2 --bypass 0.1 --elems 10
refuse device-bad    "rtl, ref or mix" --device fpga

echo "tree: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
