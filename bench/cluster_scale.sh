#!/bin/sh
# bench/cluster_scale.sh - the scale run of `wiresum cluster` (issue 23 item 8): every host of a
# k = 16 fat-tree (1024 workers) in one hierarchical all-reduce of 16 MiB with web-search
# background flows at 30 % load, host/examples/cluster/fattree-k16-1024.ini, under
# /usr/bin/time -v: wall time, events and events per second, peak memory, every tensor exact,
# every background flow complete. SCALE_BYTES (e.g. 256KiB) replaces the file's tensor;
# SCALE_PERF=1 also records a profile (perf record -g at 250 Hz) and prints its top symbols.
# Writes build/bench/cluster_scale.md.
set -eu
WS=${WS:-build/wiresum}
B=build/bench
mkdir -p "$B"
INI=host/examples/cluster/fattree-k16-1024.ini
if [ -n "${SCALE_BYTES:-}" ]; then
    # the copy names the distribution file by its full path (a relative one is the file's folder)
    sed -e "s/^tensor_bytes = .*/tensor_bytes = $SCALE_BYTES/" \
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
jq -r --arg rss "$rss" --arg wall "$wall" '.runs[0] | "1024-worker all-reduce of \(.bytes) bytes (\(.mode), k = 16 fat-tree): \(.seconds * 1e3) ms simulated, \(.tensors_exact) of \(.tensors) tensors exact; process wall \($wall), simulation \(.wall_seconds) s (network built in \(.build_seconds) s), \(.events) events, \(.events_per_second | floor) a second; \(.transport.data) DATA frames, \(.transport.retx) retransmitted; \(.background.completed) of \(.background.flows) background flows complete (\(.background.bytes) bytes, load \(.background.offered_load)); peak memory \($rss) kB"' "$B/scale.json" | tee "$B/cluster_scale.md"
