#!/bin/sh
# bench/cluster.sh - the all-reduce comparison of docs/performance.md section 5 (the headline):
# through wiresum (one device, sharded, hierarchical) against ring and halving-doubling, measured
# side by side in the same simulated fabric by `wiresum cluster` (ns-3, docs/cluster.md).
#
# usage: sh bench/cluster.sh [POINTS]
#        CLUSTER_LIMIT=RUN.json sh bench/cluster.sh   (the "what limits it" of each wiresum run of
#                                                    a `wiresum cluster --json` document)
#        CLUSTER_CC=1 sh bench/cluster.sh [POINTS]   (the same points with the switches and devices
#                                     marking ECN above 100 KB and the transport's congestion
#                                     control on: files and results N-MB-GBPS-MODE-cc.*)
#
# Each point is "N MB GBPS MODE" (workers, tensor in MiB, the hosts' link rate in Gb/s, the
# collective); POINTS is a file of them, one a line (default: the grid below). Every point is a
# cluster file of its own (build/bench/cluster/N-MB-GBPS-MODE.ini, written here) run as
# `wiresum cluster --json --mode MODE FILE`; the points run as parallel processes (xargs -P,
# CLUSTER_JOBS, default the cores). Writes build/bench/cluster.md (a fragment that bench/all.sh
# includes), build/bench/cluster.jsonl (every run's JSON summary, with the point) and
# docs/perf/cluster.png.
#
# The fabric: a leaf-spine of racks (8 hosts a leaf up to 256 workers, 32 above), 4 spines at
# 1:1, 1 us links, MTU 9000, 1 MB switch queues. The hierarchy is the default arrangement of
# `wiresum cluster` (a file without devices, docs/cluster.md section 2): a device on every leaf
# and 4 trees, a root on each spine. The other modes' devices are provisioned here the same way:
# sharded over 4 devices on the spines, the single device on the rack's switch (on spine0 for
# several racks); each a 1024-bit datapath at 340 MHz with as many ports (at most 16) as its
# members' line rate needs and an engine a port, a link a port of 1.25 times its members' rate,
# an ingress buffer of 4 MiB and a window for the round trip (docs/performance.md section 5).
set -eu
WS=${WS:-build/wiresum}
B=build/bench
D=$B/cluster
P=docs/perf
mkdir -p "$D" "$P"
CC=; [ -z "${CLUSTER_CC:-}" ] || CC=-cc
OUT=$B/cluster$CC.md
JS=$B/cluster$CC.jsonl
JOBS=${CLUSTER_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ -x "$WS" ] || { echo "bench/cluster.sh: $WS not built (make build/wiresum build/wiresum-cluster)" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
MACHINE="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores, ${cpu:-unknown CPU}"
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

# ---- the points --------------------------------------------------------------------------------
PTS=$D/points
if [ $# -ge 1 ]; then
    grep -v '^[[:space:]]*\(#\|$\)' "$1" > "$PTS"
else
    : > "$PTS"
    for g in 10 100 400; do
        for n in 8 16 32 64 128 256 512 1024; do
            # 400 Gb/s at 64 and 256 workers
            [ "$g" -ne 400 ] || [ "$n" -eq 64 ] || [ "$n" -eq 256 ] || continue
            for mb in 1 16; do
                # the baselines hold every worker's tensor: at most 4 GiB of them
                base=1; [ $((n * mb)) -le 4096 ] || base=0
                if [ "$n" -le 64 ]; then echo "$n $mb $g wiresum" >> "$PTS"; echo "$n $mb $g sharded" >> "$PTS"; fi
                [ "$n" -lt 16 ] || echo "$n $mb $g hierarchical" >> "$PTS"
                [ "$base" -eq 0 ] || { echo "$n $mb $g ring" >> "$PTS"; echo "$n $mb $g halving-doubling" >> "$PTS"; }
            done
        done
    done
fi

# ---- one point: its cluster file, its run ---------------------------------------------------------
# elements a DATA frame: 2048 for one device and sharded (8256 bytes, within the MTU; the
# hierarchy's default arrangement takes 1344, docs/cluster.md section 2). Every device is a
# MAX_COUNT 2048 build.
FCOUNT=2048
HCOUNT=1344 # the hierarchy's, for bench/cluster.awk's wire efficiency
# A device's ports for MEMBERS members each offering GBPS: each port takes a beat of 1024 bits a
# cycle at 340 MHz, 348.16 Gb/s, and its members are rank r on port r mod ports
# (docs/cluster.md section 3), so the fewest ports (at most 16) whose busiest, with
# ceil(members / ports) members, has 5 % to spare; an engine a port (an engine takes a beat a
# cycle too: beats_per_cycle 1.0), so engines divide ports; and a link a port of 1.25 times the
# busiest port's members' rate. Prints "ports link_gbps".
ports() {
    awk -v m="$1" -v g="$2" 'BEGIN { for (p = 1; p < 16 && int((m + p - 1) / p) * g * 1.05 > 348.16; p++);
        printf "%d %d\n", p, int((m + p - 1) / p) * g * 1.25 + 0.5 }'
}
device() { # NAME SWITCH MEMBERS MEMBER_GBPS SLOTS MAX_COUNT
    set -- "$@" $(ports "$3" "$4")
    printf '[device %s]\nswitch = %s\nports = %s\nrate = %sGbps\ndelay = 500ns\ndata_width = 1024\nf_clk = 340MHz\nengines = %s\ningress_buffer = 4MiB\nslots = %s\nmax_count = %s\n\n' \
        "$1" "$2" "$7" "$8" "$7" "$5" "$6"
}
write_ini() { # N MB GBPS MODE FILE
    n=$1 mb=$2 g=$3 mode=$4
    hpl=8; [ "$n" -le 256 ] || hpl=32; [ "$n" -ge "$hpl" ] || hpl=$n
    leaves=$(((n + hpl - 1) / hpl))
    count=$FCOUNT
    # window: chunks of a worker in flight for 3 x a 20 us round trip at the link rate, 4..512
    # (sharded: the window is per device, so a quarter of it on each of the 4), and at most what
    # the device's 4 MiB ingress buffer holds when every member sends its window at once (the
    # start of a run): members x window x frame
    ways=1; [ "$mode" != sharded ] || ways=4
    win=$(awk -v g="$g" -v c="$count" -v k="$ways" -v m="$n" 'BEGIN { w = 4; while (w < 3 * g * 1e9 * 20e-6 / (32 * c) / k && w < 512 && 2 * w * m * (106 + 4 * c) <= 4194304) w *= 2; print w }')
    {
        printf '# bench/cluster.sh: %s workers, %s MiB, %s Gb/s, %s\n[topology]\nkind = leafspine\n' "$n" "$mb" "$g" "$mode"
        printf 'leaves = %s\nspines = 4\nhosts_per_leaf = %s\nrate = %sGbps\ndelay = 1us\n' "$leaves" "$hpl" "$g"
        printf 'uplink_rate = %sGbps\nuplink_delay = 1us\nmtu = 9000\nqueue = 1MB\n' "$((hpl * g / 4))"
        [ -z "${CLUSTER_CC:-}" ] || echo 'ecn_threshold = 100KB'
        echo
        case $mode in
            wiresum) # on the rack's switch, or on a spine for several racks
                sw=spine0; [ "$leaves" -gt 1 ] || sw=leaf0
                device agg0 "$sw" "$n" "$g" "$win" "$FCOUNT" ;;
            # every worker sends a quarter of its chunks to each shard
            sharded) for s in 0 1 2 3; do device "sh$s" "spine$s" "$n" "$(awk -v g="$g" 'BEGIN { print g / 4 }')" "$win" "$FCOUNT"; done ;;
            hierarchical) ;; # the default arrangement
        esac
        printf '[job]\nworkers = 0-%s\ntensor_bytes = %sMiB\niterations = 1\nmode = %s\n' $((n - 1)) "$mb" "$mode"
        [ "$mode" = hierarchical ] || printf 'count = %s\nwindow = %s\n' "$count" "$win"
        [ -z "${CLUSTER_CC:-}" ] || echo 'cc = on'
        case $mode in
            wiresum) echo "device = agg0" ;;
            sharded) echo "shard_devices = sh0, sh1, sh2, sh3" ;;
        esac
    } > "$5"
}
run_point() { # N MB GBPS MODE
    f=$D/$1-$2-$3-$4$CC
    write_ini "$1" "$2" "$3" "$4" "$f.ini"
    echo "bench/cluster.sh: $WS cluster --json --mode $4 $f.ini" >&2
    /usr/bin/time -f '%e %M' -o "$f.time" "$WS" cluster --json --mode "$4" "$f.ini" > "$f.json" 2> "$f.err" || true
    read -r wall rss < "$f.time" || true
    jq -c --argjson n "$1" --argjson mb "$2" --argjson g "$3" --arg m "$4" --arg wall "${wall:-0}" --arg rss "${rss:-0}" \
        '.runs[0] + {point: {workers: $n, mib: $mb, gbps: $g, mode: $m}, process_wall_s: ($wall | tonumber), max_rss_kb: ($rss | tonumber), ok: .ok}' \
        "$f.json" > "$f.line" 2>/dev/null ||
        jq -nc --argjson n "$1" --argjson mb "$2" --argjson g "$3" --arg m "$4" --arg e "$(tail -n 3 "$f.err" | tr '\n' ' ')" \
            '{point: {workers: $n, mib: $mb, gbps: $g, mode: $m}, ok: false, failed: true, error: $e}' > "$f.line"
}
# a run's row of the table (bench/cluster.awk): the point, its time (-1: failed), the busy
# fractions of its devices' busiest port, engine and egress (`device`: the busiest device's), its
# busiest link between switches either way, retransmissions, network and device drops
ROW='[.point.gbps, .point.workers, .point.mib, .point.mode,
      (if (.failed // false) or ((.ok // false) | not) then -1 else .seconds end),
      (.device.port_busy // 0), (.device.engine_busy // 0), (.device.egress_busy // 0),
      ([(.uplinks // [])[] | .up_utilization, .down_utilization] | max // 0),
      (.transport.retx // 0), (.net_drop_packets // 0), (.device.drop_frames // 0)] | @tsv'
if [ -n "${CLUSTER_LIMIT:-}" ]; then # what limits each wiresum run of `wiresum cluster --json`'s output
    jq -c '.ok as $ok | .runs[] | select(.device) | . + {ok: $ok, point: {workers, mib: (.bytes / 1048576), gbps: (.link_bps / 1e9), mode}}' "$CLUSTER_LIMIT" |
        jq -r "$ROW" | awk -F'\t' -v limit_only=1 -f bench/cluster.awk
    exit 0
fi
if [ -n "${CLUSTER_ONE:-}" ]; then # one point, in a process of its own (xargs below)
    # shellcheck disable=SC2086
    run_point $CLUSTER_ONE
    exit 0
fi
if [ "${CLUSTER_REPORT:-0}" != 1 ]; then # CLUSTER_REPORT=1: the tables again from the last runs
    tr '\n' '\0' < "$PTS" | xargs -0 -P "$JOBS" -I{} env CLUSTER_ONE={} sh "$0"
fi

# ---- the table ----------------------------------------------------------------------------------
: > "$JS"
while read -r n mb g mode; do
    if [ -s "$D/$n-$mb-$g-$mode$CC.line" ]; then cat "$D/$n-$mb-$g-$mode$CC.line" >> "$JS"; fi
done < "$PTS"
# one row per (link, N, tensor): time of each collective, the faster baseline, the best through
# wiresum, its speedup over that baseline against the ideal 2(N-1)/N x wire efficiency, and what
# limits it
jq -r "$ROW" "$JS" | sort -k1,1n -k2,2n -k3,3n > "$D/rows.tsv"
awk -F'\t' -v plot="$D/plot.dat" -v fcount=$FCOUNT -v hcount=$HCOUNT -f bench/cluster.awk "$D/rows.tsv" > "$D/table.md"
NPTS=$(wc -l < "$JS")
NFAIL=$(jq -s 'map(select((.failed // false) or ((.ok // false) | not))) | length' "$JS")
SLOWEST=$(jq -s -r 'max_by(.process_wall_s // 0) | "\(.process_wall_s) s of wall time and \((.max_rss_kb // 0) / 1024 | floor) MB (\(.point.workers) workers, \(.point.mib) MiB, \(.point.gbps) Gb/s, \(.point.mode))"' "$JS")

[ -n "$CC" ] || gnuplot <<EOF
set terminal pngcairo size 1100,800 font ",10"
set output '$P/cluster.png'
set multiplot layout 2,1 title "all-reduce through wiresum (best of one device, sharded, hierarchical) against the faster of ring and halving-doubling, measured in ns-3\nbench/cluster.sh; $MACHINE, $DATE, commit $commit"
set logscale x 2
set xlabel 'workers N'
set grid
set key outside right
set ylabel 'speedup over the faster baseline'
plot for [g in "10 100 400"] for [mb in "1 16"] '$D/plot.dat' using (\$1 == g + 0 && \$2 == mb + 0 ? \$3 : 1/0):4 with linespoints title g.' Gb/s, '.mb.' MiB'
set ylabel 'speedup / (2(N-1)/N x wire eff.)'
set yrange [0:*]
plot for [g in "10 100 400"] for [mb in "1 16"] '$D/plot.dat' using (\$1 == g + 0 && \$2 == mb + 0 ? \$3 : 1/0):5 with linespoints title g.' Gb/s, '.mb.' MiB', 0.97 with lines lt 0 title '0.97'
unset multiplot
EOF

{
    printf '## 5. All-reduce time\n\n### Measured in a simulated cluster (ns-3)\n\n'
    printf 'All-reduce of one tensor per worker through wiresum (one device; sharded over 4 devices on the spines; a hierarchy of a device per rack in 4 aggregation trees, a root on each spine: the default arrangement of docs/cluster.md section 2) and, in the same fabric and the same simulator, ring and halving-doubling all-reduce over TCP: `wiresum cluster` (docs/cluster.md), packet by packet; every wiresum tensor is checked equal to the exact sum, every baseline tensor to the sums of its own order. The fabric: a leaf-spine of racks of 8 hosts (32 above 256 workers), 4 spines at 1:1, 1 us links, MTU 9000 (TCP segments of 8948 bytes), 1 MB FIFO switch queues, no background traffic. The devices are provisioned per rack (per member line rate): each a 1024-bit datapath at 340 MHz, 348.16 Gb/s a port and as much an engine, with the ports its members need (the fewest, at most 16, whose busiest port, with its members in rank order round robin, has 5 %% to spare; in the hierarchy 10 %% counting the parents'"'"' PARTIALs on their ports, a root'"'"'s members being the leaves, each sending a PARTIAL stream of about 2.5 times a worker'"'"'s rate over the 4 trees), an engine a port, a link a port of 1.25 times that port'"'"'s members'"'"' rate, a 4 MiB ingress buffer and a window for a 20 us round trip (4..512 chunks; sharded, a quarter of it on each device; at most what the ingress buffer holds if every member sends its window at once; the hierarchy'"'"'s its own, for 40 us at a tree'"'"'s share). One device and sharded send %s elements a frame (8244 bytes on the wire for 8192 of payload), the hierarchy %s (its longest PARTIAL, 48 bytes an element, must fit a device'"'"'s 65535-byte frame; it crosses the network as a fragmented IPv4 datagram); every device is a MAX_COUNT 2048 build. *baseline* is the faster of ring and halving-doubling at the point, *speedup* that baseline'"'"'s time / best wiresum'"'"'s; *ideal* is 2(N-1)/N x wire efficiency (wiresum'"'"'s payload per wire byte over TCP'"'"'s, 8948/9002) for the best mode'"'"'s frames; *ratio* is speedup / ideal (target 0.97). *what limits it* is the best mode'"'"'s run'"'"'s: *loss* when a frame was dropped or retransmitted; else the stage busy above 90 %% of the all-reduce time, of the devices'"'"' busiest port (its receive stage), busiest engine and busiest port egress as measured (docs/cluster.md section 6: each the busiest of its kind, none divided among the others) and the busiest link between switches (its utilization either way), the busiest of them (the first on a tie), every fraction in brackets; else *window and round trips* (no stage above 90 %%), with the goodput a worker got. One device and sharded serve at most 64 workers (WS_LIMIT_WORKERS); the hierarchy runs from 16. **Limits of the simulation**: the baselines hold every worker'"'"'s tensor (here N x tensor <= 4 GiB); wiresum'"'"'s workers hold none (chunks generated and checked on demand, docs/driver.md), so its limit is time (section 7 of docs/cluster.md: 16 MiB for 1024 workers, 3.2 M DATA frames, is its scale run).\n\n' "$FCOUNT" "$HCOUNT"
    printf '| link | N | tensor | ring | halving-doubling | one device | sharded | hierarchical | baseline | speedup | best | ideal | ratio | what limits it |\n'
    printf '|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---|\n'
    cat "$D/table.md"
    printf '\n![speedup over the faster baseline](perf/cluster.png)\n\n'
    printf '%s points, %s failed or did not complete (*failed*); the slowest took %s. Machine: %s; date: %s; commit: %s. Command: `sh bench/cluster.sh%s` (%s processes at a time; each point'"'"'s cluster file, JSON and stderr are in build/bench/cluster/).\n' \
        "$NPTS" "$NFAIL" "$SLOWEST" "$MACHINE" "$DATE" "$commit" "${1:+ $1}" "$JOBS"
} > "$OUT"
png=" and $P/cluster.png"; [ -z "$CC" ] || png=
echo "bench/cluster.sh: wrote $OUT, $JS$png ($NPTS points)" >&2
