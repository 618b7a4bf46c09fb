#!/bin/sh
# resources.sh - FPGA resources and logic depth of wiresum_top from yosys synth_xilinx, per
# configuration, against the XC7VX690T (NetFPGA-SUME) and the Alveo U250 (XCU250). Writes
# $BUILD/bench/resources.md (default build/bench/), the section of docs/performance.md, and keeps
# logs, statistics and depth reports under $BUILD/bench/resources/.
#
# Method (docs/performance.md section 4 says it again): for each configuration, one yosys run
#   read_verilog -sv <hw/wiresum_top.f>; chparam ...; hierarchy -top wiresum_top
#   synth_xilinx -family xc7|xcup [-uram] -noiopad -noclkbuf     (hierarchical: a module that
#       is instantiated several times, e.g. the accumulator lanes, is synthesized once)
#   stat -top wiresum_top                                         (totals over the instances)
#   flatten; write_json                                           (the mapped netlist, flat)
# then bench/lut_levels.py on the flat netlist: the deepest register-to-register path in LUT
# levels, across module boundaries, and bench/resources.awk for the tables.
#
# usage: sh bench/resources.sh [--report]   (--report: the tables again from the files of a run)
#
# Environment: WS_RES_CONFIGS, space-separated NAME=DATA_WIDTH:MAX_COUNT:ENGINES:FAMILY[:P=V,...]
# (the optional fifth field: more of wiresum_top's parameters, e.g. PARTIAL=1,MAX_FRAME=12352;
# default below: the default device on the 690T; the 4 x 100G device and the 512- and 1024-bit
# devices on the U250; the device that takes PARTIALs, as the trees of make bench have it); WS_RES_JOBS yosys runs at once (default 2); WS_RES_LIMIT seconds a run may
# take (default 5400; a run stopped is reported with the pass it was in); YOSYS (default yosys).
# Run time on a 2-core machine: 9 minutes at 256 bits and 11 at 1024, two at a time, and 4.5 at
# 512 alone, on the AMD EPYC machine of 2026-11-23 at f8627d2 (54, 65 and 71 on the slower Intel machine earlier)
# (one engine); the 4-engine device at 512 bits 10 minutes alone (588 s at 33ade4b, 8.4 GB; before
# 27f44cc its judge made yosys run out of 24 GB). The flat netlist is kept as
# $BUILD/bench/resources/NAME.json.gz, for more of the depth report without another synthesis.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
out=$build/bench
work=$out/resources
configs=${WS_RES_CONFIGS:-d256=256:256:1:xc7 e4x512=512:256:4:xcup d1024=1024:256:1:xcup d512=512:256:1:xcup p256=256:256:1:xc7:PARTIAL=1,MAX_FRAME=12352}
jobs=${WS_RES_JOBS:-2}
limit=${WS_RES_LIMIT:-5400}
yosys=${YOSYS:-yosys}

mode=synth
case "${1:-}" in
    "") ;;
    --report) mode=report ;;
    --one) mode=one; one=${2:?resources.sh: --one NAME=W:C:E:FAMILY[:P=V,...]} ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "resources.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac
command -v "$yosys" > /dev/null || { echo "resources.sh: $yosys not found (apt-get install yosys)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "resources.sh: python3 not found (apt-get install python3)" >&2; exit 1; }
files=$(sed -e 's://.*::' -e '/^[[:space:]]*-/d' -e '/\.v[[:space:]]*$/!d' -e 's:^[[:space:]]*hw/:'"$work"'/src/:' \
    hw/wiresum_top.f | tr '\n' ' ')

# one NAME=W:C:E:FAMILY[:P=V,...]: synthesize one configuration (run by xargs, jobs at a time)
if [ "$mode" = one ]; then
    spec=$one; name=${spec%%=*}; spec=${spec#*=}
    w=$(echo "$spec" | cut -d: -f1); c=$(echo "$spec" | cut -d: -f2)
    e=$(echo "$spec" | cut -d: -f3); fam=$(echo "$spec" | cut -d: -f4)
    more=""
    for pv in $(echo "$spec" | cut -s -d: -f5 | tr ',' ' '); do
        case "$pv" in
            [A-Z]*=[0-9]*) more="$more -set ${pv%%=*} ${pv#*=}" ;;
            *) echo "resources.sh: $name: bad parameter '$pv' in $one (want NAME=VALUE)" >&2; exit 2 ;;
        esac
    done
    uram=""
    if [ "$fam" = xcup ]; then uram=-uram; fi
    at=$(cat "$work/src/COMMIT" 2>/dev/null || echo unknown)   # the RTL read, when it was copied
    start=$(date +%s)
    rc=0
    timeout "$limit" nice -n 5 "$yosys" -q -l "$work/$name.log" -p "read_verilog -sv -I$work/src $files; \
            chparam -set DATA_WIDTH $w -set MAX_COUNT $c -set ENGINES $e$more wiresum_top; \
            hierarchy -check -top wiresum_top; \
            synth_xilinx -family $fam $uram -noiopad -noclkbuf; \
            tee -q -o $work/$name.stat stat -top wiresum_top; \
            flatten; write_json $work/$name.json" > /dev/null 2>&1 || rc=$?
    t=$(( $(date +%s) - start ))
    if [ "$rc" -eq 0 ]; then
        python3 bench/lut_levels.py "$work/$name.json" 16 > "$work/$name.depth"
        gzip -1 -f "$work/$name.json"   # kept: python3 bench/lut_levels.py NAME.json.gz [N]
        echo "$name $spec $t $at" > "$work/$name.done"
        echo "resources.sh: $name ($spec) done in $t s" >&2
    else
        # where it was: the last pass yosys started
        stage=$(grep -E '^[0-9.]+ Executing ' "$work/$name.log" | tail -n 1 | sed 's/^[0-9.]* Executing //')
        if [ "$rc" -eq 124 ]; then why="not finished after $t s"
        elif [ "$rc" -eq 137 ]; then why="yosys killed (SIGKILL, as the kernel's out-of-memory killer does) after $t s"
        else why="yosys failed (exit $rc) after $t s"; fi
        echo "$name $spec $why; last pass: ${stage:-none}" > "$work/$name.fail"
        echo "resources.sh: $name ($spec): $why, in ${stage:-?}; see $work/$name.log" >&2
    fi
    exit 0
fi

if [ "$mode" = synth ]; then
    mkdir -p "$work"
    # yosys 0.23 reads copies of hw/ with two constructs rewritten (bench/ys_prep.py says which)
    rm -rf "$work/src"
    python3 bench/ys_prep.py hw "$work/src"
    # the commit of the copy (hw/ may change while the runs go on)
    at=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    if ! git diff --quiet HEAD -- hw 2>/dev/null; then at="$at+changes"; fi
    echo "$at" > "$work/src/COMMIT"
    for c in $configs; do rm -f "$work/${c%%=*}".*; done
    echo "resources.sh: ${configs} (${jobs} at a time, at most $limit s each)" >&2
    printf '%s\n' $configs | xargs -P "$jobs" -I CFG env WS_RES_LIMIT="$limit" YOSYS="$yosys" BUILD="$build" \
        sh "$root/bench/resources.sh" --one CFG
fi
[ -d "$work" ] || { echo "resources.sh: --report: no $work yet (run without --report)" >&2; exit 1; }

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
prov="machine: $(nproc) cores, ${cpu:-unknown CPU}; tables written $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit"
inputs=""
for c in $configs; do
    n=${c%%=*}
    for x in stat depth done fail; do if [ -f "$work/$n.$x" ]; then inputs="$inputs $work/$n.$x"; fi; done
done
# per configuration, how many commits changed hw/ since the RTL it read (0: the current RTL)
behind=""
for c in $configs; do
    n=${c%%=*}
    if [ -f "$work/$n.done" ]; then
        a=$(cut -d' ' -f4 "$work/$n.done"); a=${a%+changes}
        k=$(git rev-list --count "$a..HEAD" -- hw 2>/dev/null || echo "?")
        behind="$behind $n=$k"
    fi
done
# shellcheck disable=SC2086
awk -v configs="$configs" -v behind="$behind" -v yosys="$("$yosys" -V)" -v prov="$prov" -v work="$work" \
    -v cmd="sh bench/resources.sh   # WS_RES_CONFIGS='$configs'" \
    -f bench/resources.awk $inputs /dev/null > "$out/resources.md"
echo "resources.sh: wrote $out/resources.md" >&2
