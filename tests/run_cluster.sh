#!/bin/sh
# run_cluster.sh WIRESUM - `wiresum cluster` (docs/cluster.md): the ns-3 cluster simulation.
# The shipped rack8 through the device and as a ring over TCP: every wiresum tensor exact, every
# ring tensor equal to the ring-order sums of the C reference; bytes conserved (what the workers
# sent = what the device or the peers received + drops, from the counters), also with a device
# whose ingress buffer overflows; the ring's all-reduce time within 5 % of its closed form; bad
# cluster files refused with FILE:LINE messages; the companion binary found, or said missing.
# Appends "cluster <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
ws=$1
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/cluster-test
rm -rf "$tmp"
mkdir -p "$tmp"
pass=0; fail=0
ok()  { ws_record cluster "$1" 0; pass=$((pass + 1)); }
bad() { tail -n 25 "$tmp/$1.log" 2>/dev/null; ws_record cluster "$1" 1; fail=$((fail + 1)); }
# check NAME FILE EXPR: EXPR holds in the JSON summary FILE
check() { if ws_json_true "$2" "$3"; then ok "$1"; else jq -c "$3" "$2" > "$tmp/$1.log" 2>&1; bad "$1"; fi; }

rack8=host/examples/cluster/rack8.ini
j=$tmp/rack8.json
if "$ws" cluster --json "$rack8" > "$j" 2> "$tmp/rack8.log"; then ok rack8-runs; else bad rack8-runs; fi
W='.runs[] | select(.mode == "wiresum")'
R='.runs[] | select(.mode == "ring")'
check rack8-keys "$j" '.ok and ([.runs[] | has("mode", "workers", "bytes", "link_bps", "seconds", "exact")] | all) and (.runs | length) == 2'
check wiresum-exact "$j" "$W | .exact and .tensors == 16 and .tensors_exact == 16 and .failed == false"
check ring-consistent "$j" "$R | .consistent and .tensors_consistent == 16 and .failed == false"
# the ring's binary32 sums are rounded at every hop: this job's are not the exact ones
check ring-exact-honest "$j" "$R | .exact == false and .inexact_elements > 0"
# conservation: every DATA frame the workers sent reached the device (no drop on the way or in
# its buffer), every frame the device sent reached a worker
check wiresum-bytes "$j" "$W | .net_drop_packets == 0 and .tx_bytes == .device.rx_bytes + .device.drop_bytes and .device.drop_bytes == 0 and .device.rx_frames == .device.served_frames + .device.drop_frames and .device.tx_bytes == .rx_bytes and .device.tx_frames == .transport.results + .transport.dup_results + .transport.stale_results + .transport.bad_frames"
# the ring: each worker sends 2(N-1) segments of bytes/N per iteration, all received
check ring-bytes "$j" "$R | .net_drop_packets == 0 and .tx_bytes == .rx_bytes and .tx_bytes == 2 * (.workers - 1) * .bytes * (.iteration_seconds | length)"
# the ring against its closed form: 2(N-1) steps of a segment S = bytes/N each, at the link
# rate R with the TCP/IPv4/PPP overhead of 8948-byte segments (9002 bytes on the wire), each step
# waiting for its segment's last packet: plus one packet's store-and-forward at the switch and
# the two links' delays (1 us each in rack8)
check ring-closed-form "$j" "$R | (2 * (.workers - 1) * ((.bytes / .workers) * 9002 / 8948 + 9002) * 8 / .link_bps + 2 * (.workers - 1) * 2e-6) as \$t | (.seconds / \$t - 1 | fabs) < 0.05"
# wiresum against the wire: each worker's tensor up once and down once at the link rate, with
# the frames' overhead (64 + 4 x 2048 bytes per chunk, 8244 on the wire) - within 5 %
check wiresum-wire-time "$j" "$W | (.bytes * 8244 / 8192 * 8 / .link_bps) as \$t | (.seconds / \$t - 1) | (. > -0.001 and . < 0.05)"

# a device too slow for its ingress buffer: frames dropped, counted, retransmitted, conserved
# (10 Gb/s of datapath for 80 Gb/s offered, a buffer of 15 frames; with 8 KB frames and a
# buffer of a few, the workers' synchronised retransmissions can starve a round: docs/cluster.md)
sed -e 's/^f_clk = .*/f_clk = 20MHz/' -e 's/^ingress_buffer = .*/ingress_buffer = 16KiB/' \
    -e 's/^count = .*/count = 256/' \
    -e 's/^tensor_bytes = .*/tensor_bytes = 512KiB/' -e 's/^mode = .*/mode = wiresum/' \
    -e 's/^iterations = .*/iterations = 1/' "$rack8" > "$tmp/drops.ini"
d=$tmp/drops.json
if "$ws" cluster --json "$tmp/drops.ini" > "$d" 2> "$tmp/drops.log"; then ok drops-runs; else bad drops-runs; fi
check drops-exact "$d" '.runs[0] | .exact and .device.drop_frames > 0 and .transport.retx > 0'
check drops-bytes "$d" '.runs[0] | .net_drop_packets == 0 and .tx_bytes == .device.rx_bytes and .device.rx_frames == .device.served_frames + .device.drop_frames and .device.tx_bytes == .rx_bytes'

# bad cluster files: FILE:LINE and the reason
badf() {
    name=$1; pat=$2
    if ws_refused "$tmp/$name.log" "$pat" "$ws" cluster "$tmp/$name.ini"; then ok "$name"; else bad "$name"; fi
}
sed 's/^rate = 10Gbps/speed = 10Gbps/' "$rack8" > "$tmp/bad-key.ini"
badf bad-key "bad-key.ini:8: \[topology\]: unknown key 'speed'"
sed 's/^rate = 10Gbps/rate = 10G/' "$rack8" > "$tmp/bad-rate.ini"
badf bad-rate "bad-rate.ini:8: topology: rate '10G': a rate with its unit"
sed 's/^workers = 0-7/workers = 0-8/' "$rack8" > "$tmp/bad-host.ini"
badf bad-host "bad-host.ini:30: \[job\]: workers: host 8, and the topology has hosts 0..7"
sed 's/^mtu = 9000/mtu = 1500/' "$rack8" > "$tmp/bad-mtu.ini"
badf bad-mtu "bad-mtu.ini:35: \[job\]: count 2048 makes IP packets of 8242 bytes, above the MTU of 1500"
sed 's/^switch = tor0/switch = spine3/' "$rack8" > "$tmp/bad-switch.ini"
badf bad-switch "bad-switch.ini:16: device agg0: switch 'spine3': no such switch"
sed 's/^window = 8/window = 8\nwindow = 4/' "$rack8" > "$tmp/bad-dup.ini"
badf bad-dup "bad-dup.ini:37: \[job\]: duplicate key 'window' (first at line 36)"
sed 's/^compute = 50us/compute = 50 fortnights/' "$rack8" > "$tmp/bad-time.ini"
badf bad-time "bad-time.ini:33: job: compute '50 fortnights': a time with its unit"
sed 's/^kind = rack/kind = torus/' "$rack8" > "$tmp/bad-kind.ini"
badf bad-kind "bad-kind.ini:6: topology: kind 'torus'"
sed '/^\[job\]/,$d' "$rack8" > "$tmp/bad-nojob.ini"
badf bad-nojob "bad-nojob.ini: no \[job\] section"
sed 's/^workers = 0-7/workers 0-7/' "$rack8" > "$tmp/bad-syntax.ini"
badf bad-syntax "bad-syntax.ini:30: syntax error"
sed 's/^tensor_bytes = 4MiB/tensor_bytes = 4MiB\nelements = 10/' "$rack8" > "$tmp/bad-both.ini"
badf bad-both "bad-both.ini:32: \[job\]: give the tensor as 'elements' or as 'tensor_bytes', not both"
if ws_refused "$tmp/missing.log" "nowhere.ini: No such file" "$ws" cluster "$tmp/nowhere.ini"; then ok missing; else bad missing; fi

# the main tool runs the companion beside it, or says where it looked
if "$ws" cluster --help > "$tmp/help.log" 2>&1 && grep -q "usage: wiresum cluster FILE" "$tmp/help.log"; then ok dispatch; else bad dispatch; fi
mkdir -p "$tmp/alone"
cp "$ws" "$tmp/alone/wiresum"
if ws_refused "$tmp/alone.log" "cannot run .*alone/wiresum-cluster" "$tmp/alone/wiresum" cluster "$rack8"; then ok companion-missing; else bad companion-missing; fi

echo "cluster: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
