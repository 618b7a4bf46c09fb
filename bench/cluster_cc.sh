#!/bin/sh
# bench/cluster_cc.sh - PANAMA's congestion control in the cluster simulation
# (docs/cluster.md "Congestion"): the shipped rack8 with ECN marking at 100 KB on every switch port
# and web-search background traffic (cluster/examples/websearch.cdf, DCTCP for TCP) at
# CC_LOADS (default 30 % and 60 % of the hosts' links), the all-reduce through wiresum with the
# transport's congestion control off and on, at rack8's window of 8 chunks (66 KB in flight per
# worker, under the threshold) and at CC_WINDOW (default 32: 264 KB, above it), and the ring over
# TCP (DCTCP) in the same fabric; also each without background. Reports per run the all-reduce time and the background flows'
# slowdown (FCT / ideal FCT), p50 and p99, short flows (< 100 KB) apart. Each configuration runs
# with CC_SEEDS (default 1 to 5) as the background's seed, and the table gives the median over the
# seeds of each figure. The runs go two at a time (xargs -P, CC_JOBS).
# Writes build/bench/cluster_cc.md and the runs' JSON to build/bench/cluster_cc/.
set -eu
WS=${WS:-build/wiresum}
LOADS=${CC_LOADS:-0.3 0.6}
SEEDS=${CC_SEEDS:-1 2 3 4 5}
ITERS=${CC_ITERS:-4}
DUR=${CC_DURATION:-30ms}
JOBS=${CC_JOBS:-2}
BIGWIN=${CC_WINDOW:-32}
B=build/bench/cluster_cc
OUT=build/bench/cluster_cc.md
[ -x "$WS" ] || { echo "bench/cluster_cc.sh: $WS not built (make build/wiresum build/wiresum-cluster)" >&2; exit 1; }
rm -rf "$B"
mkdir -p "$B"
cdf=$(pwd)/cluster/examples/websearch.cdf

# cfg NAME LOAD CC MODE SEED WINDOW: rack8 with ECN at 100 KB, ITERS all-reduces, cc on/off,
# the window, and background at LOAD (0: none)
cfg() {
    sed -e 's/^queue = 1MB/queue = 1MB\necn_threshold = 100KB/' -e "s/^window = .*/window = $6/" \
        -e "s/^iterations = .*/iterations = $ITERS/" -e "s/^mode = .*/mode = $4\ncc = $3/" \
        cluster/examples/rack8.ini > "$B/$1.ini"
    [ "$2" = 0 ] || printf '\n[background]\ndistribution = %s\nload = %s\nseed = %s\nduration = %s\n' \
        "$cdf" "$2" "$5" "$DUR" >> "$B/$1.ini"
}
: > "$B/list"
for load in 0 $LOADS; do
    for seed in $SEEDS; do
        [ "$load" = 0 ] && [ "$seed" != "${SEEDS%% *}" ] && continue
        for run in "wiresum off 8" "wiresum on 8" "wiresum off $BIGWIN" "wiresum on $BIGWIN" "ring off 8"; do
            # shellcheck disable=SC2086
            set -- $run
            name=$1-cc$2-w$3-load$load-seed$seed
            cfg "$name" "$load" "$2" "$1" "$seed" "$3"
            echo "$name" >> "$B/list"
        done
    done
done
start=$(date +%s)
xargs -P "$JOBS" -I{} sh -c "'$WS' cluster --json '$B/{}.ini' > '$B/{}.json' 2> '$B/{}.log' || echo '{} FAILED' >&2" < "$B/list"
wall=$(($(date +%s) - start))

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
# col LOAD MODE CC WINDOW JQ: the median over the seeds of JQ on the run's summary
col() {
    for f in "$B/$2-cc$3-w$4-load$1"-seed*.json; do jq -r ".runs[0] | $5" "$f"; done | median
}
{
    echo "rack8 (8 hosts at 10 Gb/s, 1 us links, MTU 9000, one 512-bit device), ECN CE marking at"
    echo "100 KB on every switch port (DCTCP's step on the instantaneous queue, docs/cluster.md section 9), TCP is"
    echo "DCTCP acknowledging every segment; background: web-search flows (mean 1.71 MB), Poisson"
    echo "arrivals for $DUR at the load given, random host pairs; the job: $ITERS all-reduces of 4 MiB"
    echo "(count 2048) by all 8 hosts. Slowdown = FCT / ideal FCT on an empty network;"
    echo "medians over seeds $SEEDS of each run's percentile. \`bench/cluster_cc.sh\`, $(date -u '+%Y-%m-%d'),"
    echo "commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown), $wall s of wall on $JOBS processes (CC_SEEDS=\"$SEEDS\" CC_JOBS=$JOBS)."
    echo
    echo "| load | collective | window | cc | all-reduce | short p50 | short p99 | long p50 | long p99 | CE marks | smallest cwnd | retx | exact |"
    echo "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for load in 0 $LOADS; do
        for run in "wiresum off 8" "wiresum on 8" "wiresum off $BIGWIN" "wiresum on $BIGWIN" "ring off 8"; do
            # shellcheck disable=SC2086
            set -- $run
            cc=$2; win=$3; [ "$1" = ring ] && cc="-" && win="-"
            bgc() { if [ "$load" = 0 ]; then echo -; else col "$load" "$1" "$2" "$3" "$4"; fi; }
            printf '| %s | %s | %s | %s | %.3f ms | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
                "$(awk "BEGIN { print $load * 100 }") %" "$1" "$win" "$cc" \
                "$(col "$load" "$1" "$2" "$3" '.seconds * 1000')" \
                "$(bgc "$1" "$2" "$3" '.background.short.slowdown_p50 * 100 | round / 100')" \
                "$(bgc "$1" "$2" "$3" '.background.short.slowdown_p99 * 100 | round / 100')" \
                "$(bgc "$1" "$2" "$3" '.background.long.slowdown_p50 * 100 | round / 100')" \
                "$(bgc "$1" "$2" "$3" '.background.long.slowdown_p99 * 100 | round / 100')" \
                "$(col "$load" "$1" "$2" "$3" '.net_ce_marks')" \
                "$(col "$load" "$1" "$2" "$3" '.cc.cwnd_min // "-" | if type == "number" then . * 100 | round / 100 else . end')" \
                "$(col "$load" "$1" "$2" "$3" '.transport.retx // "-"')" \
                "$(col "$load" "$1" "$2" "$3" 'if .mode == "ring" then .consistent else .exact end')"
        done
    done
} > "$OUT"
cat "$OUT"
