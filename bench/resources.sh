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
# Environment: WS_RES_CONFIGS, space-separated NAME=DATA_WIDTH:MAX_COUNT:ENGINES:FAMILY
# (default below: the default device on the 690T; the 4 x 100G device and the 512- and 1024-bit
# devices on the U250); WS_RES_JOBS yosys runs at once (default 2); YOSYS (default yosys).
# Run time on this 2-core machine: ~15 to 40 minutes per configuration (most of it the register
# file and the lanes), two at a time.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
out=$build/bench
work=$out/resources
configs=${WS_RES_CONFIGS:-d256=256:256:1:xc7 e4x512=512:256:4:xcup d1024=1024:256:1:xcup d512=512:256:1:xcup}
jobs=${WS_RES_JOBS:-2}
yosys=${YOSYS:-yosys}

mode=synth
case "${1:-}" in
    "") ;;
    --report) mode=report ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "resources.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac
command -v "$yosys" > /dev/null || { echo "resources.sh: $yosys not found (apt-get install yosys)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "resources.sh: python3 not found (apt-get install python3)" >&2; exit 1; }
if [ "$mode" = report ]; then
    [ -d "$work" ] || { echo "resources.sh: --report: no $work yet (run without --report)" >&2; exit 1; }
else
rm -rf "$work"
mkdir -p "$work"

# yosys 0.23 reads copies of hw/ with two constructs rewritten (bench/ys_prep.py says which)
python3 bench/ys_prep.py hw "$work/src"
files=$(sed -e 's://.*::' -e '/^[[:space:]]*-/d' -e '/\.v[[:space:]]*$/!d' -e 's:^[[:space:]]*hw/:'"$work"'/src/:' \
    hw/wiresum_top.f | tr '\n' ' ')

one() { # NAME=W:C:E:FAMILY
    name=${1%%=*}; spec=${1#*=}
    w=$(echo "$spec" | cut -d: -f1); c=$(echo "$spec" | cut -d: -f2)
    e=$(echo "$spec" | cut -d: -f3); fam=$(echo "$spec" | cut -d: -f4)
    uram=""; [ "$fam" = xcup ] && uram=-uram
    start=$(date +%s)
    if nice -n 5 "$yosys" -q -l "$work/$name.log" -p "read_verilog -sv -I$work/src $files; \
            chparam -set DATA_WIDTH $w -set MAX_COUNT $c -set ENGINES $e wiresum_top; \
            hierarchy -check -top wiresum_top; \
            synth_xilinx -family $fam $uram -noiopad -noclkbuf; \
            tee -q -o $work/$name.stat stat -top wiresum_top; \
            flatten; write_json $work/$name.json" > /dev/null 2>&1; then
        python3 bench/lut_levels.py "$work/$name.json" 6 > "$work/$name.depth"
        rm -f "$work/$name.json"
        echo "$name $spec $(( $(date +%s) - start ))" > "$work/$name.done"
        echo "resources.sh: $name ($spec) done in $(( $(date +%s) - start )) s" >&2
    else
        echo "resources.sh: yosys failed on $name ($spec); see $work/$name.log" >&2
    fi
}

echo "resources.sh: ${configs} (${jobs} at a time)" >&2
set -- $configs
while [ $# -gt 0 ]; do
    n=0
    while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
        one "$1" &
        shift; n=$((n + 1))
    done
    wait
done
fi

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
prov="machine: $(nproc) cores, ${cpu:-unknown CPU}; date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $commit"
inputs=""
for c in $configs; do
    n=${c%%=*}
    for x in stat depth done; do if [ -f "$work/$n.$x" ]; then inputs="$inputs $work/$n.$x"; fi; done
done
# shellcheck disable=SC2086
awk -v configs="$configs" -v yosys="$("$yosys" -V)" -v prov="$prov" \
    -v cmd="sh bench/resources.sh   # WS_RES_CONFIGS='$configs'" \
    -f bench/resources.awk $inputs /dev/null > "$out/resources.md"
echo "resources.sh: wrote $out/resources.md" >&2
