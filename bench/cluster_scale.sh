#!/bin/sh
# bench/cluster_scale.sh - the scale run of `wiresum cluster`: every host of a
# k = 16 fat-tree (1024 workers) in one hierarchical all-reduce of 16 MiB with web-search
# background flows at 30 % load, cluster/examples/fattree-k16-1024.ini, under
# /usr/bin/time -v: wall time, events and events per second, peak memory, every tensor exact,
# every background flow complete, the short flows' FCT, and the busiest worker link's bytes over
# the job against the job's time. SCALE_BYTES (e.g. 256KiB) replaces the file's tensor, SCALE_CC
# (on or off) its congestion control;
# SCALE_PERF=1 also records a profile (perf record -g at 250 Hz) and prints its top symbols.
# Writes build/bench/cluster_scale.md (a fragment of docs/performance.md section 5, bench/all.sh).
set -eu
WS=${WS:-build/wiresum}
B=build/bench
mkdir -p "$B"
INI=cluster/examples/fattree-k16-1024.ini
if [ -n "${SCALE_BYTES:-}${SCALE_CC:-}" ]; then
    # the copy names the distribution file by its full path (a relative one is the file's folder)
    sed -e "${SCALE_BYTES:+s/^tensor_bytes = .*/tensor_bytes = $SCALE_BYTES/}" \
        -e "${SCALE_CC:+s/^cc = .*/cc = $SCALE_CC/}" \
        -e "s|^distribution = \([^/]\)|distribution = $(pwd)/$(dirname "$INI")/\1|" "$INI" > "$B/scale.ini"
    INI=$B/scale.ini
fi
run() { /usr/bin/time -v -o "$B/scale.time" "$@" --json "$INI" > "$B/scale.json"; }
if [ "${SCALE_PERF:-0}" = 1 ]; then
    run perf record -F 250 -g -o "$B/scale.perf" -- "$WS" cluster
    perf report -i "$B/scale.perf" --no-children --sort symbol -g none --percent-limit 1 --stdio 2>/dev/null |
        grep '%' | cut -c1-120 > "$B/scale.top"
else
    run "$WS" cluster
fi
jq -e '.ok' "$B/scale.json" > /dev/null || { echo "bench/cluster_scale.sh: the run failed" >&2; exit 1; }
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$B/scale.time")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$B/scale.time")
user=$(sed -n 's/.*User time (seconds): //p' "$B/scale.time")
sys=$(sed -n 's/.*System time (seconds): //p' "$B/scale.time")
count=$(jq '.count' "$B/scale.json")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
    printf '### The cluster simulation at scale\n\n'
    printf 'Command: `sh bench/cluster_scale.sh`%s%s (cluster/examples/fattree-k16-1024.ini; docs/cluster.md section 7). Machine: %s cores, %s; date: %s; commit: %s.\n\n' \
        "${SCALE_BYTES:+ with SCALE_BYTES=$SCALE_BYTES}" "${SCALE_CC:+ with SCALE_CC=$SCALE_CC}" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')" "${cpu:-unknown CPU}" \
        "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    jq -r --arg rss "$rss" --arg wall "$wall" --arg user "$user" --arg sys "$sys" --arg count "$count" '.runs[0] |
        "| | |\n|---|---|\n" +
        "| the job | \(.workers) workers, all-reduce of \(.bytes) bytes, \(.mode), count \($count) |\n" +
        "| wall time of the process | \($wall) (the contract: at most 10 minutes on one core) |\n" +
        "| CPU time | \($user) s user, \($sys) s system |\n" +
        "| events | \(.events), \(.events_per_second | floor) a second of the simulation'"'"'s wall time (\(.wall_seconds | . * 10 | round / 10) s, the network built in \(.build_seconds | . * 100 | round / 100) s) |\n" +
        "| simulated all-reduce | \(.seconds * 1e3 | . * 10 | round / 10) ms; \(.tensors_exact) of \(.tensors) tensors exact |\n" +
        "| DATA frames | \(.transport.data), \(.transport.retx) retransmitted; \(.net_drop_packets) packets dropped in the network |\n" +
        "| background | \(.background.completed) of \(.background.flows) flows complete, \(.background.bytes) bytes, load \(.background.offered_load) |\n" +
        "| short flows (< 100 KB) | \(.background.short.flows); FCT p50 \(.background.short.fct_p50 * 1e6 | round) us, p99 \(.background.short.fct_p99 * 1e6 | round) us |\n" +
        "| the busiest worker link | h\(.background.busiest_link.host), \(.background.busiest_link.direction): \(.background.busiest_link.bytes) bytes over the job, \(.background.busiest_link.seconds * 1e3 | . * 100 | round / 100) ms at the link rate; the job \(.background.busiest_link.job_seconds * 1e3 | . * 100 | round / 100) ms, \(.background.busiest_link.job_seconds / .background.busiest_link.seconds | . * 1000 | round / 1000) times that |\n" +
        "| peak memory | \($rss) kB |"' "$B/scale.json"
    if [ -s "$B/scale.top" ]; then
        printf '\nWhere the time goes (`perf report --no-children --sort symbol`, symbols of 1 %% and more):\n\n```\n'
        sed 's/[[:space:]]*$//' "$B/scale.top"
        printf '```\n'
    fi
} > "$B/cluster_scale.md"
cat "$B/cluster_scale.md"
