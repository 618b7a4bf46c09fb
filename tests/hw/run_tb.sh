#!/bin/sh
# run_tb.sh TB SIM [DEFINES...] - build and run one RTL testbench tests/hw/TB.v with SIM
# (icarus or verilator). Sources come from tests/hw/TB.f (a filelist, one path a line,
# relative to the repository root, the testbench last). Extra arguments are -DNAME=VALUE
# or -PTOP.PARAM=VALUE-style parameter overrides given as -GPARAM=VALUE.
# The testbench prints "PASS" or "FAIL ..." and calls $finish; exit 0 only on PASS.
set -u
tb=$1; sim=$2; shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tag=$(printf '%s' "$tb $*" | tr -c 'A-Za-z0-9_' '_')
out="build/hw/$sim/$tag"
mkdir -p "$out"
files=$(grep -v '^\s*#' "tests/hw/$tb.f" | grep -v '^\s*$')
log="$out/run.log"
case "$sim" in
icarus)
    iargs=""
    for a in "$@"; do
        case "$a" in
        -G*) iargs="$iargs -P$tb.${a#-G}" ;;
        *) iargs="$iargs $a" ;;
        esac
    done
    # shellcheck disable=SC2086
    iverilog -g2012 -Wall -Wno-timescale -I hw -I tests/hw -s "$tb" -o "$out/sim.vvp" $iargs $files > "$out/build.log" 2>&1 ||
        { cat "$out/build.log"; echo "FAIL $tb (icarus build)"; exit 1; }
    vvp -n "$out/sim.vvp" > "$log" 2>&1
    ;;
verilator)
    # shellcheck disable=SC2086
    verilator --binary -j 2 --timing -Wall -Wno-fatal -Wno-DECLFILENAME -Wno-UNUSEDSIGNAL \
        -Wno-UNUSEDPARAM -Wno-WIDTH -Wno-INITIALDLY -Wno-BLKSEQ \
        -Ihw -Itests/hw --top-module "$tb" -Mdir "$out/obj" -o sim "$@" $files > "$out/build.log" 2>&1 ||
        { cat "$out/build.log"; echo "FAIL $tb (verilator build)"; exit 1; }
    "$out/obj/sim" > "$log" 2>&1
    ;;
*)
    echo "run_tb.sh: unknown simulator $sim" >&2; exit 2 ;;
esac
if grep -q '^PASS' "$log" && ! grep -q '^FAIL' "$log"; then
    echo "ok   $tb ($sim $*)"
    exit 0
fi
tail -n 30 "$log"
echo "FAIL $tb ($sim $*)"
exit 1
