#!/bin/sh
# bench/all.sh - `make bench`: measure the RTL model and write docs/performance.md and docs/perf/*.png.
#
# usage: sh bench/all.sh [--fewer | --report]
#
#   1 line rate    `wiresum bench` over DATA_WIDTH x elements per packet x workers (saturating load)
#   2 latency      the same runs: idle (window of one chunk) and loaded latency per configuration
#   3 sim speed    bench/simspeed.sh, if present (writes build/bench/simspeed.md)
#   4 resources    bench/resources.sh, if present (writes build/bench/resources.md)
#   5 all-reduce   build/bench/cluster.md, written by bench/cluster.sh: wiresum against ring and
#                  halving-doubling measured in a simulated cluster (ns-3; the headline); then
#                  build/bench/cluster_scale.md (bench/cluster_scale.sh): the simulation's scale run;
#                  build/bench/cluster_fidelity.md (bench/cluster_fidelity.sh, WS_FID): its timing
#                  model against the RTL at 1024 bits;
#                  bench/allreduce.awk: the analytic model of one device, from the measurements
#   6 engines      build/bench/engines.md, written by bench/engines.sh (WS_E4: a 4-engine model)
#   7 numerics     build/bench/numerics.md, written by bench/numerics.sh: binary32 summation in
#                  arrival order, an adder tree and SwitchML against the exact sum (host arithmetic)
#   8 fabric       build/bench/fabric.md, written by bench/fabric.sh: one job over shards and trees
#                  of devices (the reference's timing model, `wiresum run --shards --tree`)
#   9 congestion   build/bench/cluster_cc.md, written by bench/cluster_cc.sh: ECN marking and the
#                  transport's window against background TCP flows (ns-3)
#
# Environment: WS (default build/wiresum, the default build: MAX_COUNT 256); WS_MC1024 (default
# build/bench/mc1024/wiresum: the same built with WS_VFLAGS=-GMAX_COUNT=1024, needed for 1024
# elements per packet; `make bench` builds it; if it is missing those rows are left out and the
# tables say so). WS_BENCH_PARTS (default "simspeed resources engines numerics fabric cluster
# cluster_scale cluster_fidelity cluster_cc"): which of the scripts of sections 3 to 9 run (the others keep their last tables; resources.sh alone
# takes about three hours on two cores). --fewer: 2 widths x 3 packet sizes x 3 worker counts,
# shorter windows (a few minutes). --report: no measurement, the tables and plots again from build/bench/lines.tsv.
# Every table and plot states the command, machine, date and commit it came from.
set -eu

MODE=full
case "${1:-}" in
    "") ;;
    --fewer) MODE=fewer ;;
    --report) MODE=report ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/all.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac

WS=${WS:-build/wiresum}
WS_MC=${WS_MC1024:-build/bench/mc1024/wiresum}
B=build/bench
P=docs/perf
mkdir -p "$B" "$P"
[ -x "$WS" ] || { echo "bench/all.sh: $WS not built (make build/wiresum)" >&2; exit 1; }

# ---- provenance ---------------------------------------------------------------------------------
commit=unknown
if [ -f .git/HEAD ]; then   # read the files: no git needed
    head=$(cat .git/HEAD)
    case "$head" in
        ref:*) ref=${head#ref: }
               if [ -f ".git/$ref" ]; then commit=$(cat ".git/$ref")
               elif [ -f .git/packed-refs ]; then
                   commit=$(awk -v r="$ref" '$2 == r { print $1 }' .git/packed-refs); fi ;;
        *) commit=$head ;;
    esac
fi
commit=$(printf '%s' "$commit" | cut -c1-12)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
NPROC=$(nproc 2>/dev/null || echo '?')
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
MACHINE="$NPROC cores, ${cpu:-unknown CPU}"
PROV="machine: $MACHINE; date: $DATE; commit: $commit (plus any uncommitted changes of the working tree)"
CMD="make bench (sh bench/all.sh${1:+ $1})"

if [ "$MODE" = full ]; then
    WIDTHS="256 512 1024"; COUNTS="64 256 1024"; WORKERS="2 4 8 16 32 64"
    MINCYC=100000; IDLE=20
else
    WIDTHS="256 1024"; COUNTS="64 256 1024"; WORKERS="2 8 32"
    MINCYC=40000; IDLE=10
fi
SLOTS=64 # the whole default pool: the largest window the device allows

# ---- 1 and 2: the sweep -------------------------------------------------------------------------
TSV=$B/lines.tsv
missing_mc=0
n=0
if [ "$MODE" = report ]; then
    [ -s "$TSV" ] || { echo "bench/all.sh: --report: no $TSV yet" >&2; exit 1; }
    WIDTHS=""
    n=$(($(wc -l < "$TSV") - 1))
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["count"] > 256 { f = 1 } END { exit !f }' "$TSV" || missing_mc=1
    # the provenance of the measurements, not of this report: their date and the commit they
    # ran at (lines.tsv.commit, written with them)
    DATE="$(date -u -r "$TSV" '+%Y-%m-%d %H:%M UTC') (measured), $(date -u '+%Y-%m-%d %H:%M UTC') (report)"
    mcommit=$(cat "$TSV.commit" 2>/dev/null || echo unknown)
    PROV="machine: $MACHINE; date: $DATE; commit: $mcommit (measured; plus any uncommitted changes of the working tree then), $commit (report)"
else
    : > "$TSV.tmp"
fi
for w in $WIDTHS; do
    for k in $COUNTS; do
        bin=$WS
        if [ "$k" -gt 256 ]; then
            bin=$WS_MC
            if [ ! -x "$bin" ]; then missing_mc=1; continue; fi
        fi
        bytes=$((w / 8)); frame=$((64 + 4 * k)); beats=$(((frame + bytes - 1) / bytes))
        for n_w in $WORKERS; do
            # window: at least 1000 frames (the accepted counter is read at frame granularity:
            # +-1 frame at each end is at most 0.001 of it), and several rounds
            cyc=$((1000 * beats)); [ "$cyc" -gt "$MINCYC" ] || cyc=$MINCYC
            rnd=$((4 * n_w * beats)); [ "$cyc" -gt "$rnd" ] || cyc=$rnd
            warm=$((3 * n_w * beats)); [ "$warm" -gt 20000 ] || warm=20000
            args="--width $w --count $k --workers $n_w --slots $SLOTS --warmup $warm --cycles $cyc --idle-rounds $IDLE"
            printf 'bench: %-4s bits, %4s elements, %2s workers ... ' "$w" "$k" "$n_w" >&2
            if ! "$bin" bench --tsv $args > "$B/one.tsv"; then
                echo "FAILED: $bin bench $args" >&2
                exit 1
            fi
            if [ "$n" -eq 0 ]; then head -n 1 "$B/one.tsv" | sed 's/$/\tbinary/' >> "$TSV.tmp"; fi
            tail -n 1 "$B/one.tsv" | sed "s|\$|\t$bin|" >> "$TSV.tmp"
            awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                { printf "%s beats/cycle, wire efficiency %s, idle latency %s (%ss)\n",
                  $c["util"], $c["wire_eff"], $c["idle_first_med"], $c["wall_s"] }' "$B/one.tsv" >&2
            n=$((n + 1))
        done
    done
done
if [ "$MODE" != report ]; then
    mv "$TSV.tmp" "$TSV"
    printf '%s\n' "$commit" > "$TSV.commit"
    rm -f "$B/one.tsv"
fi

MCNOTE="Rows with 1024 elements per packet come from a model built with MAX_COUNT = 1024 (\`make BUILD=build/bench/mc1024 WS_VFLAGS=-GMAX_COUNT=1024 build/bench/mc1024/wiresum\`, which \`make bench\` does); the other rows from the default build (MAX_COUNT = 256)."
if [ "$missing_mc" -eq 1 ]; then
    MCNOTE="Rows with 1024 elements per packet are missing: $WS_MC (a model built with WS_VFLAGS=-GMAX_COUNT=1024) was not built."
fi

# ---- 1. line rate: table and plot ----------------------------------------------------------------
awk -F'\t' -v prov="$PROV" -v cmd="$CMD" -v mcnote="$MCNOTE" -v mode="$MODE" -f bench/linerate.awk "$TSV" > "$B/linerate.md"

# plot data: one block per (width, count), x = workers
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{ key = $col["width"] " bits, " $col["count"] " el."; if (key != last) { if (NR > 2) printf "\n\n"; printf "# %s\n", key; last = key }
  print $col["workers"], $col["util"], $col["wire_eff"], $col["idle_first_med"], $col["idle_last_med"], $col["load_first_med"] }' "$TSV" > "$B/lines.dat"
keys=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { k = $col["width"] " bits, " $col["count"] " el."; if (k != l) { printf "%s;", k; l = k } }' "$TSV")
nblk=$(printf '%s' "$keys" | tr -cd ';' | wc -c)

plot_cmd() { # column, title prefix
    i=0; sep=""; out="plot"
    while [ "$i" -lt "$nblk" ]; do
        t=$(printf '%s' "$keys" | cut -d';' -f$((i + 1)))
        out="$out$sep '$B/lines.dat' index $i using 1:$1 with linespoints title '$t'"
        sep=","; i=$((i + 1))
    done
    printf '%s\n' "$out"
}

gnuplot <<EOF
set terminal pngcairo size 1100,800 font ",10"
set output '$P/linerate.png'
set multiplot layout 2,1 title "wiresum line rate under saturating load (wiresum bench; $CMD)\n$MACHINE, $DATE, commit $commit"
set logscale x 2
set xlabel 'workers'
set grid
set key outside right
set ylabel 'engine beats per cycle'
set yrange [0.95:1.01]
$(plot_cmd 2)
set ylabel 'wire efficiency (goodput / wire limit)'
set yrange [0.85:1.1]
$(plot_cmd 3)
unset multiplot
EOF

# ---- 2. latency: table and plot ------------------------------------------------------------------
awk -F'\t' -v prov="$PROV" -v cmd="$CMD" -v mcnote="$MCNOTE" -f bench/latency.awk "$TSV" > "$B/latency.md"

gnuplot <<EOF
set terminal pngcairo size 1100,800 font ",10"
set output '$P/latency.png'
set multiplot layout 2,1 title "wiresum latency, last contribution in to RESULT out (wiresum bench; $CMD)\n$MACHINE, $DATE, commit $commit"
set logscale x 2
set xlabel 'workers'
set grid
set key outside right
set ylabel 'idle: cycles to first RESULT (median)'
set yrange [0:*]
$(plot_cmd 4)
set ylabel 'idle: cycles to last RESULT (median)'
set yrange [*:*]
set logscale y
$(plot_cmd 5)
unset multiplot
EOF

# ---- 3 to 9: the other engineers' fragments -------------------------------------------------------
PARTS="simspeed resources engines numerics fabric cluster cluster_scale cluster_fidelity cluster_cc"
for part in $PARTS; do
    case " ${WS_BENCH_PARTS-$PARTS} " in *" $part "*) ;; *) continue ;; esac
    if [ "$MODE" != report ] && [ -f "bench/$part.sh" ]; then
        echo "bench: bench/$part.sh ..." >&2
        if ! sh "bench/$part.sh"; then
            echo "bench/all.sh: bench/$part.sh failed; its section says so" >&2
            printf 'bench/%s.sh failed on %s (%s); see its output.\n' "$part" "$DATE" "$MACHINE" > "$B/$part.md"
        fi
    fi
done

# ---- 5. all-reduce time --------------------------------------------------------------------------
awk -F'\t' -v prov="$PROV" -v cmd="$CMD" -v plotdat="$B/allreduce.dat" -f bench/allreduce.awk "$TSV" > "$B/allreduce.md"
gnuplot <<EOF
set terminal pngcairo size 1100,800 font ",10"
set output '$P/allreduce.png'
set multiplot layout 2,1 title "all-reduce: in-network (one wiresum engine, measured) against ring; speedup = ring / in-network\nbench/allreduce.awk on build/bench/lines.tsv ($CMD)\n$MACHINE, $DATE, commit $commit"
set logscale xy 2
set xlabel 'workers N'
set ylabel 'speedup'
set grid
set key outside right
set title '10 Gb/s links'
plot for [i=0:3] '$B/allreduce.dat' index i using 1:2 with linespoints title columnheader(1), 1 with lines lt 0 notitle
set title '100 Gb/s links'
plot for [i=4:7] '$B/allreduce.dat' index i using 1:2 with linespoints title columnheader(1), 1 with lines lt 0 notitle
unset multiplot
EOF

# ---- assemble -----------------------------------------------------------------------------------
section() { # fragment, heading, text when absent; the fragment's own first heading gives way
    printf '%s\n\n' "$2"
    if [ -s "$1" ]; then sed '1{/^#/d}' "$1" | sed '1{/^$/d}'; else printf '%s\n' "$3"; fi
    printf '\n'
}
{
    printf '# wiresum performance\n\n'
    printf 'Generated by `%s`; do not edit by hand. %s.\n\n' "$CMD" "$PROV"
    printf 'Every number below is measured on the Verilator model of the RTL (`build/wiresum bench`, eval/bench.c) or computed from such measurements (section 5, model stated there), except section 7, arithmetic on the host (`build/wiresum numerics`, eval/numerics.c), and section 8, the reference device with the RTL'"'"'s timing model (`build/wiresum run --device ref`), and the measurements in a simulated cluster of sections 5 and 9, the same reference and timing model in ns-3 (`build/wiresum cluster`). Clock rates (200 MHz at 256 bits, 340 MHz at 1024 bits, the targets of docs/architecture.md section 7) convert cycles to time; timing closure is not claimed here.\n\n'
    section "$B/linerate.md" "## 1. Line rate under saturating load" "Not measured."
    section "$B/latency.md" "## 2. Latency" "Not measured."
    section "$B/simspeed.md" "## 3. Simulation speed" "Not measured yet (bench/simspeed.sh is not in the tree)."
    section "$B/resources.md" "## 4. Resources" "Not measured yet (bench/resources.sh is not in the tree)."
    section "$B/cluster.md" "## 5. All-reduce time" "Not measured: no build/bench/cluster.md (bench/cluster.sh skipped or failed)."
    section "$B/cluster_scale.md" "### The cluster simulation at scale" "Not measured: no build/bench/cluster_scale.md (bench/cluster_scale.sh skipped or failed)."
    section "$B/cluster_fidelity.md" "### The timing model against the RTL at 1024 bits" "Not measured: no build/bench/cluster_fidelity.md (bench/cluster_fidelity.sh skipped or failed)."
    section "$B/allreduce.md" "### The model: one device, from sections 1 and 2" "Not computed."
    section "$B/engines.md" "## 6. Engines: capacity that scales with ports" "Not measured: no build/bench/engines.md (bench/engines.sh skipped or failed)."
    section "$B/numerics.md" "## 7. Numerics" "Not measured: no build/bench/numerics.md (bench/numerics.sh skipped or failed)."
    section "$B/fabric.md" "## 8. Several devices: shards and trees" "Not measured: no build/bench/fabric.md (bench/fabric.sh skipped or failed)."
    section "$B/cluster_cc.md" "## 9. Congestion control in the cluster" "Not measured: no build/bench/cluster_cc.md (bench/cluster_cc.sh skipped or failed)."
} > docs/performance.md

cat docs/performance.md
echo "bench: wrote docs/performance.md, $P/linerate.png, $P/latency.png, $P/allreduce.png ($n configurations)" >&2
