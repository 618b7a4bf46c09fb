#!/bin/sh
# bench/simspeed.sh - simulation speed (docs/performance.md section 3): simulated cycles/s and gradient
# bytes/s of the Verilator model at DATA_WIDTH 256, 512 and 1024, Verilator against Icarus
# Verilog on one small trace at 256 bits, and a ResNet-50-sized all-reduce (25.6M binary32
# elements, 4 workers) through the Verilator model end to end, held to one core.
# Writes build/bench/simspeed.md (a markdown fragment that bench/all.sh includes; it ends with
# bench/simspeed_notes.md, measurements of build options and RTL forms made by hand); the traces
# and logs go to build/bench/simspeed/.
#
# usage: sh bench/simspeed.sh [--quick]
#   --quick  a 1/64 all-reduce (400k elements) instead of 25.6M: minutes less, same rates
#
# Environment: WS (default build/wiresum; needs the models of all three widths and, for the
# Icarus row, build/icarus/ws256.vvp: `make` builds both); SIMSPEED_ELEMS overrides the
# all-reduce's elements; SIMSPEED_CPU (default 0) the core the all-reduce is held to.
#
# Models: `wiresum sim` and `run` without --trace use the model built without FST tracing for the
# widths in make's WS_SIM_FAST_WIDTHS (default 256), the traced model otherwise (the table says
# which).
# Rates: "cycles/s" is what `wiresum sim` reports for its model pass (cycles clocked / wall
# time of the pass, the final quiet drain included); gradient bytes are the binary32 elements
# the workers contribute (workers x elements x 4), over the wall time of the whole command
# (load, software reference, model pass, comparison).
set -eu

ELEMS=${SIMSPEED_ELEMS:-25600000}
case "${1:-}" in
    "") ;;
    --quick) ELEMS=${SIMSPEED_ELEMS:-400000} ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/simspeed.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac

WS=${WS:-build/wiresum}
CPU=${SIMSPEED_CPU:-0}
B=build/bench
D=$B/simspeed
OUT=$B/simspeed.md
[ -x "$WS" ] || { echo "bench/simspeed.sh: $WS not built (make build/wiresum)" >&2; exit 1; }
# the widths built without tracing (build/sim/V<width>f next to the binary's build directory)
FAST_NOTE=$(for w in 256 512 1024; do if [ -d "$(dirname "$WS")/sim/V${w}f" ]; then printf '%s ' "$w"; fi; done)
FAST_NOTE=${FAST_NOTE:-none}
rm -rf "$D"
mkdir -p "$D"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
# every online core, not the ones this shell may be held to (nproc under taskset)
MACHINE="$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo '?') cores, ${cpu:-unknown CPU}"
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
ROWS=$D/rows.md
CMDS=$D/commands.txt
: > "$ROWS"
: > "$CMDS"

# gen NAME ARGS...: a trace in $D/NAME (workers x elems x 4 gradient bytes, from the args)
gen() {
    name=$1; shift
    echo "$WS gen $D/$name -q $*" >> "$CMDS"
    "$WS" gen "$D/$name" -q "$@" > "$D/$name.gen.log" 2>&1 ||
        { cat "$D/$name.gen.log" >&2; echo "bench/simspeed.sh: gen $name failed" >&2; exit 1; }
}

# sim NAME SIM WIDTH WORKERS ELEMS: one `wiresum sim` pass, a table row
sim() {
    name=$1; engine=$2; w=$3; workers=$4; elems=$5
    log=$D/$name.$engine.$w.log
    echo "$WS sim $D/$name --sim $engine --width $w --no-progress" >> "$CMDS"
    t0=$(now)
    if ! "$WS" sim "$D/$name" --sim "$engine" --width "$w" --no-progress > "$log" 2>&1; then
        cat "$log" >&2; echo "bench/simspeed.sh: sim $name ($engine, $w) failed" >&2; exit 1
    fi
    t1=$(now)
    wall=$(secs "$t0" "$t1")
    cyc=$(sed -n 's/.* width [0-9]*, \([0-9]*\) cycles, .*/\1/p' "$log" | head -n 1)
    rate=$(sed -n 's/.*; \([0-9]*\) cycles\/s$/\1/p' "$log" | head -n 1)
    awk -v e="$engine" -v w="$w" -v n="$name" -v c="$cyc" -v r="$rate" -v t="$wall" \
        -v g="$((workers * elems * 4))" -v wk="$workers" -v el="$elems" 'BEGIN {
        printf "| %s | %d | %s: %d workers x %d elements | %d | %.0f | %.2f | %.3f |\n",
               e, w, n, wk, el, c, r, t, g / t / 1e6 }' >> "$ROWS"
    echo "simspeed: $engine $w $name: $cyc cycles, $rate cycles/s, $wall s" >&2
}

# ---- Verilator, one trace per width (count 256: 1 KiB of gradient a frame) ----------------------
gen big --workers 4 --elems 131072 --count 256 --seed 1
for w in 256 512 1024; do
    sim big verilator "$w" 4 131072
done

# ---- Verilator against Icarus on a small trace at 256 bits -------------------------------------
gen small --workers 4 --elems 4096 --count 64 --seed 2
ICARUS_NOTE=""
if [ -f build/icarus/ws256.vvp ] || [ -n "${WIRESUM_ICARUS_DIR:-}" ]; then
    sim small icarus 256 4 4096
    sim small verilator 256 4 4096
else
    ICARUS_NOTE="Icarus row left out: build/icarus/ws256.vvp is not built (\`make icarus\`)."
fi

# ---- the all-reduce, end to end, on one core --------------------------------------------------
PIN=""
command -v taskset > /dev/null 2>&1 && PIN="taskset -c $CPU"
AR="$WS run --workers 4 --elems $ELEMS --count 256 --iters 1 --no-progress"
echo "$PIN $AR" >> "$CMDS"
log=$D/allreduce.log
t0=$(now)
# shellcheck disable=SC2086
if ! $PIN $AR > "$log" 2>&1; then
    cat "$log" >&2; echo "bench/simspeed.sh: the all-reduce failed" >&2; exit 1
fi
t1=$(now)
AR_WALL=$(secs "$t0" "$t1")
AR_SIM=$(sed -n 's/.*time: \([0-9]*\) cycles = .*/\1/p' "$log")
AR_CLK=$(sed -n 's/.*simulated; \([0-9]*\) cycles clocked in .*/\1/p' "$log")
AR_RATE=$(sed -n 's/.*cycles clocked in [0-9.]* s (\([0-9]*\) cycles\/s).*/\1/p' "$log")
AR_EXACT=$(sed -n 's/.*tensors: \(.*\)/\1/p' "$log")
echo "simspeed: all-reduce $ELEMS elements: $AR_SIM cycles, $AR_WALL s" >&2

# ---- where the time goes: a perf profile of the same all-reduce, 1M elements --------------------
# Classes by symbol: Verilator names a module it keeps apart Vws<width>_<module>...; the modules it
# inlines (most of them) are in Vws<width>___024root...; the rest of the binary is the host side.
PROF=$D/profile.md
: > "$PROF"
PROF_AR="$WS run --workers 4 --elems 1000000 --count 256 --iters 1 --no-progress"
if command -v perf > /dev/null 2>&1 &&
   perf record -q -F 999 -o "$D/perf.data" -- $PIN $PROF_AR > "$D/profile.log" 2>&1; then
    echo "perf record -F 999 -o $D/perf.data -- $PIN $PROF_AR" >> "$CMDS"
    echo "perf report -i $D/perf.data --no-children --sort dso,symbol --stdio -g none" >> "$CMDS"
    perf report -i "$D/perf.data" --no-children --sort dso,symbol --stdio -g none 2> /dev/null |
    awk '/^#/ || NF < 4 { next }
        { p = $1; sub(/%/, "", p); dso = $2; sym = $4
          if (dso != "wiresum") c = "libraries (libc, libstdc++, kernel)"
          else if (sym ~ /^Vws[0-9]+f?_ws_acc_lane/) c = "RTL model: the accumulator lanes (ws_acc_lane, one function per lane)"
          else if (sym ~ /^Vws[0-9]+f?_[a-z]/) c = "RTL model: other modules Verilator keeps apart"
          else if (sym ~ /^Vws[0-9]+f?__/) c = "RTL model: the top and the modules Verilator inlines into it (parser, engine state, register file, ...)"
          else if (sym ~ /^Verilated|^vl_|^VL_/) c = "Verilator runtime"
          else c = "host: harness loop, driver, software reference and checks"
          t[c] += p; if (!(c in o)) { o[c] = ++n; nm[n] = c } }
        END { for (i = 1; i <= n; i++) printf "| %s | %.1f |\n", nm[i], t[nm[i]] }' > "$PROF.rows"
    if [ -s "$PROF.rows" ]; then
        {
            echo "Where the time goes (\`perf record\` of a 1M-element all-reduce at 256 bits, same command"
            echo "otherwise; share of samples by symbol class):"
            echo
            echo "| class | % of samples |"
            echo "|---|---|"
            sort -t'|' -k3 -rn "$PROF.rows"
        } > "$PROF"
    fi
    rm -f "$PROF.rows" "$D/perf.data" "$D/perf.data.old"
else
    echo "Profile left out: perf (Debian linux-perf) is not installed or not permitted (kernel.perf_event_paranoid)." > "$PROF"
fi

{
    echo "### Simulation speed"
    echo
    echo "One \`wiresum sim\` pass per row (build: \`$WS\`). cycles/s: as \`wiresum sim\` reports"
    echo "it (cycles clocked / wall time of the model pass); gradient MB/s: the workers' binary32"
    echo "elements (workers x elements x 4 bytes) over the wall time of the whole command. The"
    echo "pass includes starting the simulator and configuring the device through its registers,"
    echo "which weighs on the small trace (Icarus: a vvp process and a socket round trip a clock edge)."
    echo "Verilator models: without FST tracing (make's WS_SIM_FAST_WIDTHS) where built: $FAST_NOTE."
    echo
    echo "| simulator | width | trace | simulated cycles | cycles/s | wall s | gradient MB/s |"
    echo "|---|---|---|---|---|---|---|"
    cat "$ROWS"
    echo
    [ -z "$ICARUS_NOTE" ] || { echo "$ICARUS_NOTE"; echo; }
    awk -v n="$ELEMS" -v s="$AR_SIM" -v c="$AR_CLK" -v r="$AR_RATE" -v t="$AR_WALL" \
        -v x="$AR_EXACT" -v pin="${PIN:-not pinned (no taskset)}" 'BEGIN {
        printf "All-reduce of %d binary32 elements (ResNet-50: 25.6M) by 4 workers, count 256, ", n
        printf "through the Verilator model at 256 bits, end to end (%s): ", pin
        printf "**%.1f s wall** (target: at most 60 s for 25.6M on one core); %d cycles simulated, ", t, s
        printf "%d clocked at %d cycles/s; %.1f MB/s of gradient (4 x %d x 4 bytes); tensors %s.\n",
               c, r, 4 * n * 4 / t / 1e6, n, x }'
    echo
    cat "$PROF"
    echo
    echo "Commands:"
    echo
    echo '```'
    cat "$CMDS"
    echo '```'
    echo
    echo "Machine: $MACHINE; date: $DATE."
    # what the speed depends on: build options and the RTL's form, measured once by hand
    echo
    cat bench/simspeed_notes.md
} > "$OUT"
echo "bench/simspeed.sh: wrote $OUT" >&2
