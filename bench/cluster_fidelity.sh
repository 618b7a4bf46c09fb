#!/bin/sh
# bench/cluster_fidelity.sh - the timing model of `wiresum cluster` against the RTL at the scale of
# docs/performance.md section 5: the device of bench/cluster.sh (1024 bits at 340 MHz, an engine
# a port, here the RTL's 4 ports) as the Verilator model of build/bench/fid (ENGINES 4, PARTIAL 1,
# MAX_COUNT 2048: `make bench-fidelity-build`), through `wiresum cluster --fidelity` (docs/cluster.md
# section 3): one device under 16 workers, and a two-level tree (2 leaf devices of 8 workers
# under a root), 1344 elements a frame, at 25 and 100 Gb/s, on gradient-like values (the
# default, `normal`). Each must be within 2 % with every tensor exact and the same frames.
# Writes build/bench/cluster_fidelity.md (a fragment of docs/performance.md section 5).
set -eu
WS=${WS_FID:-build/bench/fid/wiresum}
B=build/bench
D=$B/fidelity
mkdir -p "$D"
[ -x "$WS" ] || { echo "bench/cluster_fidelity.sh: $WS not built (make bench-fidelity-build)" >&2; exit 1; }
dev() { # NAME SWITCH
    printf '[device %s]\nswitch = %s\nports = 4\nrate = 400Gbps\ndelay = 500ns\ndata_width = 1024\nf_clk = 340MHz\nengines = 4\npartial = 1\nmax_count = 2048\nslots = 64\ningress_buffer = 4MiB\n\n' "$1" "$2"
}
one() { # NAME GBPS WINDOW VALUES: 16 hosts on one rack switch, the device on it
    { printf '[topology]\nkind = rack\nhosts = 16\nrate = %sGbps\ndelay = 1us\nmtu = 9000\n\n' "$2"
      dev agg0 tor0
      printf '[job]\nworkers = 0-15\ntensor_bytes = 1MiB\nmode = wiresum\ndevice = agg0\ncount = 1344\nwindow = %s\nvalues = %s\n' "$3" "$4"
    } > "$D/$1.ini"
}
tree() { # NAME GBPS WINDOW VALUES: 2 leaves of 8 hosts, a device on each and the root on the spine
    { printf '[topology]\nkind = leafspine\nleaves = 2\nspines = 1\nhosts_per_leaf = 8\nrate = %sGbps\ndelay = 1us\n' "$2"
      printf 'uplink_rate = %sGbps\nuplink_delay = 1us\nmtu = 9000\n\n' "$(($2 * 8))"
      dev leafdev0 leaf0; dev leafdev1 leaf1; dev root spine0
      printf '[job]\nworkers = 0-15\ntensor_bytes = 1MiB\nmode = hierarchical\nroot_device = root\nleaf_devices = leafdev0, leafdev1\ncount = 1344\nwindow = %s\nvalues = %s\n' "$3" "$4"
    } > "$D/$1.ini"
}
CASES="one-100g one-25g tree-100g tree-25g"
one one-100g 100 8 normal
one one-25g 25 2 normal
tree tree-100g 100 8 normal
tree tree-25g 25 2 normal
rc=0
for c in $CASES; do
    [ "${FID_REPORT:-0}" != 1 ] || break # FID_REPORT=1: the table again from the last runs
    echo "bench/cluster_fidelity.sh: $WS cluster --fidelity --json $D/$c.ini" >&2
    /usr/bin/time -f '%U' -o "$D/$c.time" "$WS" cluster --fidelity --json "$D/$c.ini" > "$D/$c.json" 2> "$D/$c.err" || rc=1
done
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
    printf '### The timing model against the RTL at 1024 bits\n\n'
    printf 'Command: `make bench-fidelity-build && sh bench/cluster_fidelity.sh` (docs/cluster.md section 3). Each case is `build/bench/fid/wiresum cluster --fidelity` on a file of build/bench/fidelity/: the same fabric and job twice, every device the timing model, then every device the Verilator model of the RTL at 1024 bits and 340 MHz with 4 ports and 4 engines, built to take PARTIALs (`-GENGINES=4 -GPARTIAL=1 -GMAX_COUNT=2048`); 16 workers, 1 MiB each, 1 us links, MTU 9000. Every device takes PARTIALs, so its frames hold a PARTIAL of the count, which is at most 1363: count 1344 (5440-byte DATA frames, 43 beats). *one*: the 16 on one rack switch into one device (4 workers a port); *tree*: 2 leaves of 8 workers, a device on each, the root on the spine (2 workers a port; PARTIALs up, RESULTs down). The window is 8 at 100 Gb/s and 2 at 25 Gb/s (latency-bound). Values gradient-like (`normal`: no record word). Machine: %s cores, %s; date: %s; commit: %s.\n\n' \
        "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')" "${cpu:-unknown CPU}" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
        "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    printf '| case | links | window | values | timing model | RTL | difference | frames through the devices | verdict | CPU |\n'
    printf '|---|---:|---:|---|---:|---:|---:|---:|---|---:|\n'
    for c in $CASES; do
        w=$(sed -n 's/^window = //p' "$D/$c.ini"); v=$(sed -n 's/^values = //p' "$D/$c.ini")
        g=$(sed -n '1,/^$/s/^rate = //p' "$D/$c.ini")
        if jq -e '.timing' "$D/$c.json" > /dev/null 2>&1; then
            jq -r --arg c "$c" --arg g "$g" --arg w "$w" --arg v "$v" --arg cpu "$(cat "$D/$c.time" 2>/dev/null || echo 0)" \
                '"| \($c) | \($g) | \($w) | \($v) | \(.timing.seconds * 1e6 * 1000 | round / 1000) us | \(.rtl.seconds * 1e6 * 1000 | round / 1000) us | \(.difference * 100 * 1000 | round / 1000) % | \(.rtl.device.rx_frames) in, \(.rtl.device.tx_frames) out | \(if .ok then "within 2 %" else "FAILED: " + .error end) | \($cpu) s |"' "$D/$c.json"
        else
            printf '| %s | %s | %s | %s | | | | | did not run: %s | |\n' "$c" "$g" "$w" "$v" "$(tail -n 1 "$D/$c.err" | tr '|' '/')"
        fi
    done
} > "$B/cluster_fidelity.md"
cat "$B/cluster_fidelity.md"
exit $rc
