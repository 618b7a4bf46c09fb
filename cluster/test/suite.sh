#!/bin/sh
# cluster/test/suite.sh WIRESUM [P1_WIRESUM] - `wiresum cluster` (docs/cluster.md): the ns-3 cluster
# simulation.
# The shipped rack8 through the device and as a ring over TCP: every wiresum tensor exact, every
# ring tensor equal to the ring-order sums of the C reference; bytes conserved (what the workers
# sent = what the device or the peers received + drops, from the counters; the port that dropped
# most named), also with a device
# whose ingress buffer overflows; the ring's all-reduce time within 5 % of its closed form; bad
# cluster files refused with FILE:LINE messages; the companion binary found, or said missing.
# A small leaf-spine and a k = 4 fat-tree (cluster/test/) with every mode: the wiresum modes'
# tensors exact, the baselines' equal to their own order's sums, bytes conserved through one,
# sharded and hierarchical devices, a hierarchy whose PARTIALs cross as IPv4 fragments;
# halving-doubling against its closed form on rack8, and on the leaf-spine its bytes on the
# uplinks (only the smallest steps cross: the partners nearest first); --plot's speedups over the
# faster baseline; ECMP per flow spreading a leaf's flows over its uplinks without splitting any;
# topology errors.
# Devices with several ports: each member's frames in and RESULTs out on its port (rank r on port
# r mod ports), one saturated port named as the limit and two ports halving the time, an engine
# named when it is the limit; bad `ports` refused with FILE:LINE.
# Congestion: ECN marks above the threshold (and none without it) reaching the transport's
# window, the tensors exact with the congestion control on, every background flow complete with
# its bytes, the busiest worker link's bytes over the job, bad [background] sections and
# distribution files refused with FILE:LINE.
# Appends "cluster <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
ws=$1
ws_p1=${2:-} # build/p1/wiresum: the fidelity cases of four engines and of a tree
. "$(dirname "$0")/../../tests/lib.sh"
tmp=$WS_BUILD/cluster-test
rm -rf "$tmp"
mkdir -p "$tmp"
pass=0; fail=0
ok()  { ws_record cluster "$1" 0; pass=$((pass + 1)); }
bad() { tail -n 25 "$tmp/$1.log" 2>/dev/null; ws_record cluster "$1" 1; fail=$((fail + 1)); }
# check NAME FILE EXPR: EXPR holds in the JSON summary FILE
check() { if ws_json_true "$2" "$3"; then ok "$1"; else jq -c "$3" "$2" > "$tmp/$1.log" 2>&1; bad "$1"; fi; }

rack8=cluster/examples/rack8.ini
j=$tmp/rack8.json
if "$ws" cluster --json --plot "$tmp/rack8.png" "$rack8" > "$j" 2> "$tmp/rack8.log"; then ok rack8-runs; else bad rack8-runs; fi
W='.runs[] | select(.mode == "wiresum")'
R='.runs[] | select(.mode == "ring")'
# --plot: a PNG, and its data file with each collective's time and its speedup over the ring
if [ -s "$tmp/rack8.png" ] && awk -v w="$(jq "$W | .seconds * 1e3" "$j")" -v r="$(jq "$R | .seconds * 1e3" "$j")" '
        function near(a, b) { return a - b < 1e-5 * b && b - a < 1e-5 * b }
        function near4(a, b) { return a - b <= 5e-5 && b - a <= 5e-5 } # the file has 4 decimals
        $1 == "\"wiresum\"" { ok += near($2, w) && near4($3, r / w) }
        $1 == "\"ring\"" { ok += near($2, r) && $3 == 1 }
        END { exit ok != 2 }' "$tmp/rack8.dat"; then ok rack8-plot; else bad rack8-plot; fi
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
# (what the device sent and no worker took: RESULTs it re-sent for retransmissions, still on
# their way when the last worker completed and the simulation stopped: at most one a worker)
check drops-bytes "$d" '.runs[0] | .net_drop_packets == 0 and .tx_bytes == .device.rx_bytes and .device.rx_frames == .device.served_frames + .device.drop_frames and .device.tx_bytes >= .rx_bytes and .device.tx_bytes - .rx_bytes <= .workers * 1088'

# a full switch port named: the device's link at 20 Gb/s for 80 offered, tor0's port to it a
# 64 KB queue, so that the workers' first windows (8 x 8 x 8244 bytes) overflow it there; the
# report names that port as the one that dropped most, and the tensors stay exact
sed -e 's/^rate = 100Gbps/rate = 20Gbps/' -e 's/^queue = 1MB/queue = 64KB/' \
    -e 's/^tensor_bytes = .*/tensor_bytes = 1MiB/' -e 's/^mode = .*/mode = wiresum/' \
    -e 's/^iterations = .*/iterations = 1/' "$rack8" > "$tmp/portdrop.ini"
pd=$tmp/portdrop.json
if "$ws" cluster --json "$tmp/portdrop.ini" > "$pd" 2> "$tmp/portdrop.log"; then ok portdrop-runs; else bad portdrop-runs; fi
check portdrop-named "$pd" '.runs[0] | .exact and .net_drop_packets > 0 and .drop_port.from == "tor0" and .drop_port.to == "agg0" and .drop_port.packets > 0 and .drop_port.packets <= .net_drop_packets'

# 16 workers behind a 4:1 uplink (cluster/test/uplink4.ini): the window from the measured
# delivery rate and round trip holds the standing queue within the switch port, and the
# adaptive timeout never fires behind it: no drop, no retransmission, within 3 % of the 4:1
# bound (a leaf's 8 tensors up its 20 Gb/s uplink in frames of 8244 bytes for 8192). With a
# window of the slots and a timeout from a formula, the queue overflowed and the timeouts fired
# (2608 retransmissions, 1944 drops, 9.63 ms for this file's 3.38 ms bound)
u=$tmp/uplink4.json
if "$ws" cluster --json cluster/test/uplink4.ini > "$u" 2> "$tmp/uplink4.log"; then ok uplink4-runs; else bad uplink4-runs; fi
check uplink4-no-retx "$u" '.runs[0] | .exact and .transport.retx == 0 and .transport.timeouts == 0 and .net_drop_packets == 0'
check uplink4-bound "$u" '.runs[0] | (8 * .bytes * 8244 / 8192 * 8 / 20e9) as $t | .seconds / $t < 1.03'

# halving-doubling on rack8 (uncongested: one switch, each worker one flow out and one in per
# step) against its closed form: 2 log2(N) steps moving 2(N-1)/N of the tensor in all with the
# TCP/IPv4/PPP overhead, each step waiting for its last packet's store-and-forward and 2 delays
sed -e 's/^mode = .*/mode = halving-doubling/' -e 's/^tensor_bytes = .*/tensor_bytes = 1MiB/' \
    "$rack8" > "$tmp/hd.ini"
h=$tmp/hd.json
if "$ws" cluster --json "$tmp/hd.ini" > "$h" 2> "$tmp/hd.log"; then ok hd-runs; else bad hd-runs; fi
check hd-closed-form "$h" '.runs[0] | (.workers | log2 | round) as $m | ((2 * (.workers - 1) / .workers * .bytes * 9002 / 8948 + 2 * $m * 9002) * 8 / .link_bps + 2 * $m * 2e-6) as $t | .consistent and (.seconds / $t - 1 | fabs) < 0.05'
check hd-bytes "$h" '.runs[0] | .net_drop_packets == 0 and .tx_bytes == .rx_bytes and .tx_bytes == 2 * (.workers - 1) * .bytes * (.iteration_seconds | length)'

# every mode on a small leaf-spine and on a k = 4 fat-tree (10 workers: halving-doubling folds
# 2 pairs around 8)
for topo in ls-small ft4; do
    t=$tmp/$topo.json
    plot=; [ $topo != ls-small ] || plot="--plot $tmp/$topo.png"
    # shellcheck disable=SC2086
    if "$ws" cluster --json $plot "cluster/test/$topo.ini" > "$t" 2> "$tmp/$topo.log"; then ok $topo-runs; else bad $topo-runs; fi
    check $topo-modes "$t" '.ok and ([.runs[].mode] == ["wiresum", "sharded", "hierarchical", "ring", "halving-doubling"])'
    check $topo-exact "$t" '[.runs[] | select(.mode == "wiresum" or .mode == "sharded" or .mode == "hierarchical") | .exact and .tensors_exact == .workers and .transport.retx == 0] | all'
    check $topo-baselines "$t" '[.runs[] | select(.mode == "ring" or .mode == "halving-doubling") | .consistent and .tensors_consistent == .workers and .exact == false] | all'
    # one device or shards: the workers' frames are the devices' input, the devices' output the
    # workers'; a hierarchy adds the bytes between devices to both sides
    check $topo-wiresum-bytes "$t" '[.runs[] | select(.mode == "wiresum" or .mode == "sharded") | .net_drop_packets == 0 and .device.drop_frames == 0 and .tx_bytes == .device.rx_bytes and .device.tx_bytes == .rx_bytes and .device.rx_bytes == ([.devices[].rx_bytes] | add)] | all'
    check $topo-hier-bytes "$t" '.runs[] | select(.mode == "hierarchical") | .net_drop_packets == 0 and .device.drop_frames == 0 and .device.rx_bytes > .tx_bytes and .device.rx_bytes - .tx_bytes == .device.tx_bytes - .rx_bytes and (.devices | length) >= 3'
    check $topo-sharded-split "$t" '.runs[] | select(.mode == "sharded") | (.devices | length) == 2 and ([.devices[].rx_frames] | (max - min) <= 1 + max / 8)'
    check $topo-baseline-bytes "$t" '[.runs[] | select(.mode == "ring" or .mode == "halving-doubling") | .net_drop_packets == 0 and .tx_bytes == .rx_bytes] | all'
    check $topo-no-split-flow "$t" '[.runs[].split_flows] | all(. == 0)'
done
# the ring's bytes: 2(N-1) segments of bytes/N per worker; halving-doubling's with 10 = 8 + 2
# workers: 2 x 7/8 of the tensor for each of the 8, plus the 2 folded workers' whole tensor in
# and out
check ls-ring-bytes "$tmp/ls-small.json" '.runs[] | select(.mode == "ring") | .tx_bytes == 2 * (.workers - 1) * .bytes'
check ft4-hd-bytes "$tmp/ft4.json" '.runs[] | select(.mode == "halving-doubling") | .workers == 10 and .tx_bytes == 8 * 2 * 7 / 8 * .bytes + 2 * 2 * .bytes'
# --plot with both baselines: each collective's speedup is over the faster of them (here
# halving-doubling, whose largest steps stay within a leaf), which the data file names
L=$tmp/ls-small.json
if [ -s "$tmp/ls-small.png" ] && awk -v base="$(jq '[.runs[] | select(.mode == "ring" or .mode == "halving-doubling")] | min_by(.seconds) | "\(.mode) \(.seconds * 1e3)"' -r "$L")" \
        -v times="$(jq -r '[.runs[] | "\(.mode) \(.seconds * 1e3)"] | join(" ")' "$L")" '
        function near(a, b) { return a - b < 1e-5 * b && b - a < 1e-5 * b }
        function near4(a, b) { return a - b <= 5e-5 && b - a <= 5e-5 } # the file has 4 decimals
        BEGIN { split(base, bm, " "); n = split(times, tm, " "); for (i = 1; i < n; i += 2) ms["\"" tm[i] "\""] = tm[i + 1] }
        NR == 1 { named = index($0, "faster baseline, " bm[1] " ") > 0; next }
        ($1 in ms) && near($2, ms[$1]) && near4($3, bm[2] / $2) { good++ }
        END { exit !(named && good == 5 && n == 10) }' "$tmp/ls-small.dat"; then ok ls-plot-baseline; else bad ls-plot-baseline; fi
# halving-doubling, partners nearest first: of the 16 workers on two leaves of 8, only the
# halving at distance 8 (the last, 1/16 of the tensor a worker) and the doubling at distance 8
# (the first, as much) cross the spines. So a leaf's uplinks carry 8 x 2 x bytes/16 of payload,
# plus 52 bytes of IPv4/TCP headers a segment of at most 8948 bytes and the ACKs and handshakes
# of its 8 connections in and 8 out: within 2 %. (The farthest partners first crossed with half
# the tensor: 8 times as much.) Every tensor is still the sums of its own order.
for l in 0 1; do
    check ls-hd-uplinks-leaf$l "$L" ".runs[] | select(.mode == \"halving-doubling\") | (8 * 2 * .bytes / 16 * (.iteration_seconds | length)) as \$p | ([.uplinks[] | select(.link | startswith(\"leaf$l-\")) | .up_bytes] | add) as \$u | .workers == 16 and .consistent and \$u >= \$p and \$u <= \$p * 1.02"
done
# ECMP per flow: halving-doubling's partners at distance 8 are on the other leaf: leaf0's 8 data
# flows and the 8 ACK flows of the connections towards it go up, spread over both spines
check ecmp-spread "$tmp/ls-small.json" '.runs[] | select(.mode == "halving-doubling") | [.uplinks[] | select(.link | startswith("leaf0-"))] | (map(.up_flows) | add) == 16 and all(.up_flows >= 2 and .up_bytes > 0)'
# the fat-tree: flows between pods climb to the cores, over several of them
check ecmp-cores "$tmp/ft4.json" '.runs[] | select(.mode == "halving-doubling") | [.uplinks[] | select(.link | test("^agg.*core")) | select(.up_flows > 0)] | length >= 3'
# the hierarchy's leaves serve the workers below their switch: e0 2, e1 2, a2 (pod 2) 4, e3 2;
# each takes its members' DATA and the root's RESULT per chunk: (2 + 1) to (4 + 1)
# the hierarchy with count 1024 and mixed values (1 in 64 special: record words; gradients
# alone make PARTIALs of 8 bytes an element, 8.3 KB): PARTIALs of about 10 KB, above the MTU of 9000, cross the
# leaves' uplinks to the root's spine as IPv4 fragments and reach the root reassembled: more
# packets on those links than PARTIALs at the root, every tensor exact, nothing lost, no flow
# split over two paths
sed -e 's/^count = 128/count = 1024/' -e 's/^window = 16/window = 4/' -e 's/^mode = .*/mode = hierarchical\nvalues = mixed/' \
    -e 's/^data_width = 512/data_width = 512\nmax_count = 1024/' cluster/test/ls-small.ini > "$tmp/frag.ini"
if "$ws" cluster --json "$tmp/frag.ini" > "$tmp/frag.json" 2> "$tmp/frag.log"; then ok frag-runs; else bad frag-runs; fi
check frag-exact "$tmp/frag.json" '.runs[0] | .exact and .tensors_exact == .workers and .transport.retx == 0 and .net_drop_packets == 0 and .split_flows == 0 and .device.drop_frames == 0'
check frag-fragments "$tmp/frag.json" '.runs[0] | .devices[0].rx_frames as $p | ([.uplinks[] | select(.link | endswith("-spine1")) | .up_packets] | add) as $n | $p > 0 and $n > $p and (.devices[0].rx_bytes / $p) > 9000'
check frag-bytes "$tmp/frag.json" '.runs[0] | .device.rx_bytes - .tx_bytes == .device.tx_bytes - .rx_bytes'
check ft4-hier-place "$tmp/ft4.json" '.runs[] | select(.mode == "hierarchical") | [.devices[] | .switch] == ["core2", "edge0.0", "edge1.0", "agg2.1", "edge3.1"] and (.devices[1:] | map(.rx_frames) | . as $f | $f[2] * 3 == $f[0] * 5 and $f[3] == $f[0])'
# three levels (cluster/test/ft4-3.ini: a device per rack, per pod and a root; the leaves listed
# over two lines): exact, nothing retransmitted or lost, the bytes between devices on both sides;
# per chunk a rack device takes its 2 workers' DATA and its pod's RESULT, a pod device its 2
# racks' PARTIALs and the root's RESULT, the root the 4 pods' PARTIALs
if "$ws" cluster --json cluster/test/ft4-3.ini > "$tmp/ft43.json" 2> "$tmp/ft43.log"; then ok three-levels-runs; else bad three-levels-runs; fi
check three-levels-exact "$tmp/ft43.json" '.runs[0] | .exact and .tensors_exact == 16 and .transport.retx == 0 and .net_drop_packets == 0 and .device.drop_frames == 0 and .device.rx_bytes - .tx_bytes == .device.tx_bytes - .rx_bytes'
check three-levels-place "$tmp/ft43.json" '.runs[0] | (.bytes / 4 / 128) as $c | [.devices[] | .switch] == ["core0", "agg0.0", "agg1.0", "agg2.0", "agg3.0", "edge0.0", "edge0.1", "edge1.0", "edge1.1", "edge2.0", "edge2.1", "edge3.0", "edge3.1"] and .devices[0].rx_frames == 4 * $c and (.devices[1:] | all(.rx_frames == 3 * $c))'

# congestion (docs/cluster.md, "Congestion"): rack8 with ECN marking at 100 KB, the transport's
# congestion control on and web-search background flows at 50 % load, and the same without
# marking; without background, the threshold against the deepest queue the job makes with the
# device on a 40 Gb/s link: every worker's window of DATA (8 x 8 x 8244 = 528 KB) at its port
cdf=$(pwd)/cluster/examples/websearch.cdf
sed -e 's/^queue = 1MB/queue = 1MB\necn_threshold = 100KB/' -e 's/^tensor_bytes = .*/tensor_bytes = 1MiB/' \
    -e 's/^iterations = .*/iterations = 2/' -e 's/^mode = .*/mode = wiresum\ncc = on/' "$rack8" > "$tmp/k100.ini"
cp "$tmp/k100.ini" "$tmp/cc.ini"
printf '\n[background]\ndistribution = %s\nload = 50%%\nseed = 3\nflows = 30\n' "$cdf" >> "$tmp/cc.ini"
grep -v '^ecn_threshold' "$tmp/cc.ini" > "$tmp/cc-noecn.ini"
# a port's threshold is ecn_threshold at the hosts' 10 Gb/s, 4 times it at the device's 40 Gb/s
# (the same delay of queue, at most half the 1 MB queue): 25 KB gives 100 KB there, 150 KB 600
# (so 500)
sed -i -e 's/^rate = 100Gbps/rate = 40Gbps/' -e 's/^ecn_threshold = .*/ecn_threshold = 25KB/' "$tmp/k100.ini"
sed 's/^ecn_threshold = .*/ecn_threshold = 150KB/' "$tmp/k100.ini" > "$tmp/k600.ini"
for f in cc cc-noecn k100 k600; do
    "$ws" cluster --json "$tmp/$f.ini" > "$tmp/$f.json" 2> "$tmp/$f.log" &
done
wait
for f in cc cc-noecn k100 k600; do
    if jq -e .ok "$tmp/$f.json" > /dev/null 2>&1; then ok "$f-runs"; else bad "$f-runs"; fi
done
# marks above the threshold, echoed by the device into RESULTs and taken by the windows; the
# tensors exact through it all
check cc-exact "$tmp/cc.json" '.runs[0] | .exact and .tensors_exact == 16 and .failed == false'
check ecn-marks "$tmp/cc.json" '.runs[0] | .net_ce_marks > 0 and .cc.ce_results > 0 and .cc.cwnd_cuts > 0 and .cc.cwnd_min >= 8256'
check ecn-none-without "$tmp/cc-noecn.json" '.runs[0] | .net_ce_marks == 0 and .cc.ce_results == 0 and .exact'
# a queue of at most 528 KB at the device's port: marks at 100 KB that cut the windows (bytes of
# frames of 8256 bytes) below the 8 slots' frames, none and no cut at 500 KB; exact
check ecn-above-k "$tmp/k100.json" '.runs[0] | .net_ce_marks > 0 and .cc.ce_results > 0 and .cc.cwnd_cuts > 0 and .cc.cwnd_min < 8 * 8256 and .exact and .net_drop_packets == 0'
check ecn-below-k "$tmp/k600.json" '.runs[0] | .net_ce_marks == 0 and .cc.ce_results == 0 and .cc.cwnd_cuts == 0 and .exact'
# every background flow complete with all its bytes, in each run; an FCT never beats its ideal
for f in cc cc-noecn; do
    check "$f-background" "$tmp/$f.json" '.runs[0].background | .flows == 30 and .completed == 30 and .rx_bytes == .bytes and .short.completed + .long.completed == 30 and .short.slowdown_p50 >= 1 and .long.slowdown_p50 >= 1'
done

# the busiest worker link over the job (docs/cluster.md section 9): it carried at least the
# worker's own DATA, the job's span holds both iterations, and its bytes at 10 Gb/s take no longer
# than the job did (no link carries more than its rate)
check busiest-link "$tmp/cc.json" '.runs[0] | (.tx_bytes / .workers) as $own | (.iteration_seconds | add) as $it | .background.busiest_link | .bytes > $own and .job_seconds >= $it and .job_seconds < $it + 1e-4 and (.seconds - .bytes * 8 / 10e9 | fabs) < 1e-12 and .seconds <= .job_seconds'

# the device's own queue marks (docs/cluster.md section 9): rack8's device at 20 MHz (10 Gb/s
# of datapath for 80 offered) with a 1 MiB ingress buffer and ecn_threshold = 32KB: the frames
# that find 32 KB or more in its buffer are marked CE, the RESULTs carry the marks to the
# windows, which shrink; no switch marks (no ecn_threshold in [topology]); exact. Each mark
# reaches its own worker alone (docs/protocol.md section 7): as many RESULTs came back CE as
# contributions were marked (with the OR of a round's marks every worker's RESULT of a round
# with one mark was CE: 144 for 127 marks). The same device without the key marks nothing.
sed -e 's/^f_clk = .*/f_clk = 20MHz/' -e 's/^ingress_buffer = .*/ingress_buffer = 1MiB\necn_threshold = 32KB/' \
    -e 's/^tensor_bytes = .*/tensor_bytes = 256KiB/' -e 's/^mode = .*/mode = wiresum\ncc = on/' \
    -e 's/^iterations = .*/iterations = 1/' "$rack8" > "$tmp/devecn.ini"
grep -v '^ecn_threshold' "$tmp/devecn.ini" > "$tmp/devecn-off.ini"
for f in devecn devecn-off; do
    if "$ws" cluster --json "$tmp/$f.ini" > "$tmp/$f.json" 2> "$tmp/$f.log"; then ok "$f-runs"; else bad "$f-runs"; fi
done
check devecn-marks "$tmp/devecn.json" '.runs[0] | .exact and .net_ce_marks == 0 and .device.ce_marks > 0 and .devices[0].ce_marks == .device.ce_marks and .cc.ce_results > 0 and .cc.cwnd_cuts > 0 and .device.max_queued > 32000'
check devecn-own-path "$tmp/devecn.json" '.runs[0] | .transport.retx == 0 and .cc.ce_results == .device.ce_marks'
check devecn-none-without "$tmp/devecn-off.json" '.runs[0] | .exact and .device.ce_marks == 0 and .cc.ce_results == 0'
# values: gradients by default (a hierarchy's PARTIALs need no record word: 8 bytes an element
# and the 64-byte header, what ls-small's root takes per chunk from each leaf); special refused
# when misspelt
jq -e '.runs[] | select(.mode == "hierarchical") | .devices[0].rx_bytes' "$tmp/ls-small.json" > /dev/null 2>&1 &&
    check values-normal "$tmp/ls-small.json" '.runs[] | select(.mode == "hierarchical") | (.bytes / 4 / 128) as $c | (.devices | length - 1) as $l | .devices[0].rx_bytes == $c * $l * (64 + 8 * 128)' ||
    { echo "no hierarchical run in ls.json" > "$tmp/values-normal.log"; bad values-normal; }

# devices with several ports (docs/cluster.md section 3): rack8's workers at 25 Gb/s, 1 MiB,
# into a 512-bit device at 200 MHz (102.4 Gb/s a port, the same an engine) with a link of
# 200 Gb/s a port and a 1 MiB ingress buffer. One port takes the 8 workers' 200 Gb/s at
# 102.4: the port saturates, and the run says so; two ports with an engine each take 100 Gb/s
# each, and the all-reduce time halves to the wire's; two ports with one engine move the
# ceiling to the engine. Four ports for 6 workers: ranks r on port r mod 4, so ports 0 and 1
# take two workers' frames and send them two workers' RESULTs, ports 2 and 3 one.
portsf() { # NAME PORTS ENGINES WORKERS
    sed -e 's/^rate = 10Gbps/rate = 25Gbps/' -e 's/^rate = 100Gbps/rate = 200Gbps/' \
        -e "s/^engines = 1/engines = $3\nports = $2/" -e 's/^ingress_buffer = .*/ingress_buffer = 1MiB/' \
        -e 's/^mode = .*/mode = wiresum/' -e 's/^tensor_bytes = .*/tensor_bytes = 1MiB/' \
        -e 's/^iterations = .*/iterations = 1/' -e "s/^workers = .*/workers = 0-$(($4 - 1))/" "$rack8" > "$tmp/$1.ini"
    if "$ws" cluster --json "$tmp/$1.ini" > "$tmp/$1.json" 2> "$tmp/$1.log"; then ok "$1-runs"; else bad "$1-runs"; fi
}
# what limits a run, as bench/cluster.sh's table names it (bench/cluster.awk)
limit() { # NAME EXPECTED-PREFIX
    CLUSTER_LIMIT=$tmp/$1.json WS=$ws sh bench/cluster.sh > "$tmp/$1-limit.log" 2>&1
    if grep -q "^$2 " "$tmp/$1-limit.log"; then ok "$1-limit"; else bad "$1-limit"; fi
}
portsf ports1 1 1 8
portsf ports2 2 2 8
portsf ports2e1 2 1 8
portsf ports4 4 2 6
P='.runs[0] | .exact and .transport.retx == 0 and .net_drop_packets == 0 and .device.drop_frames == 0'
check ports1-saturated "$tmp/ports1.json" "$P and .device.port_busy > 0.95 and (.devices[0].ports | length) == 1"
limit ports1 port
jq -s '.[0].runs[0].seconds as $one | .[1].runs[0] | {one: $one, two: .seconds, bytes, link_bps, port_busy: .device.port_busy}' "$tmp/ports1.json" "$tmp/ports2.json" > "$tmp/ports-halves.json" 2>/dev/null
check ports2-halves "$tmp/ports-halves.json" '(.bytes * 8244 / 8192 * 8 / .link_bps) as $w | .two < 0.6 * .one and .two / $w < 1.05'
check ports2-balanced "$tmp/ports2.json" "$P and (.devices[0] | .rx_bytes as \$i | .tx_bytes as \$o | (.ports | length) == 2 and [.ports[].rx_bytes] == [\$i / 2, \$i / 2] and [.ports[].tx_bytes] == [\$o / 2, \$o / 2])"
check ports2-engine "$tmp/ports2e1.json" "$P and .device.engine_busy > 0.95 and .device.port_busy < 0.6"
limit ports2e1 engine
check ports4-assigned "$tmp/ports4.json" "$P and (.devices[0] | (.ports | length) == 4 and (.rx_bytes / 6) as \$w | (.tx_bytes / 6) as \$r | [.ports[] | .rx_bytes / \$w] == [2, 2, 1, 1] and [.ports[] | .tx_bytes / \$r] == [2, 2, 1, 1])"

# several aggregation trees (docs/cluster.md section 2): ls-small's leaves under two roots, one
# on each spine (`root_device = agg0, agg1`): chunk i through tree i mod 2, each leaf device a job
# a tree; each root takes half the rounds' PARTIALs (a chunk's from each leaf), and each spine's
# uplinks carry half the bytes: within 1 % of each other, where one tree's root takes them all
# up one spine's links. Exact, nothing lost.
sed -e 's/^mode = .*/mode = hierarchical/' -e 's/^root_device = .*/root_device = agg0, agg1/' cluster/test/ls-small.ini > "$tmp/trees2.ini"
if "$ws" cluster --json "$tmp/trees2.ini" > "$tmp/trees2.json" 2> "$tmp/trees2.log"; then ok trees2-runs; else bad trees2-runs; fi
check trees2-exact "$tmp/trees2.json" '.runs[0] | .exact and .tensors_exact == 16 and .transport.retx == 0 and .net_drop_packets == 0 and .device.drop_frames == 0'
check trees2-roots "$tmp/trees2.json" '.runs[0] | (.bytes / 4 / 128) as $c | [.devices[] | .switch] == ["spine0", "leaf0", "leaf1", "spine1"] and .devices[0].rx_frames == $c and .devices[3].rx_frames == $c and .devices[1].rx_frames == 8 * $c + $c'
check trees2-uplinks "$tmp/trees2.json" '.runs[0] | [.uplinks[] | .up_bytes] | length == 4 and min > 0 and max <= min * 1.01'
# the default arrangement (no [device]): ls-small's workers and fabric alone give a device on
# each leaf and a tree a spine, each a 1024-bit device of the ports its members need, and the
# modes hierarchical, ring and halving-doubling, chunks of 1344 elements (the most a hierarchy
# takes); the same spread of the uplinks' bytes, within a chunk's PARTIAL (64 + 8 x 1344 bytes
# and its fragments' headers: 49 chunks do not split evenly over 2 trees)
awk '/^\[device /{skip=1} /^\[job\]/{skip=0} !skip' cluster/test/ls-small.ini |
    sed -e '/^mode =/d' -e '/^device =/d' -e '/^shard_devices/d' -e '/^root_device/d' -e '/^leaf_devices/d' -e '/^count =/d' -e '/^window =/d' > "$tmp/placed.ini"
if "$ws" cluster --json "$tmp/placed.ini" > "$tmp/placed.json" 2> "$tmp/placed.log"; then ok placed-runs; else bad placed-runs; fi
check placed-modes "$tmp/placed.json" '.ok and [.runs[].mode] == ["hierarchical", "ring", "halving-doubling"]'
check placed-devices "$tmp/placed.json" '.runs[0] | .exact and .transport.retx == 0 and [.devices[] | "\(.name) \(.switch)"] == ["ws-spine0 spine0", "ws-leaf0 leaf0", "ws-leaf1 leaf1", "ws-spine1 spine1"]'
check placed-uplinks "$tmp/placed.json" '.runs[0] | [.uplinks[] | .up_bytes] | length == 4 and min > 0 and max - min <= 64 + 8 * 1344 + 100'
# more leaves than a root's 16 ports take at 400 Gb/s (24 leaves of one host, 2 spines): 8 trees,
# their roots on the spines in turn (a second on a spine named by its tree), exact
printf '[topology]\nkind = leafspine\nleaves = 24\nspines = 2\nhosts_per_leaf = 1\nrate = 400Gbps\ndelay = 1us\n\n[job]\nworkers = 0-23\ntensor_bytes = 256KiB\nmode = hierarchical\n' > "$tmp/placed-roots.ini"
if "$ws" cluster --json "$tmp/placed-roots.ini" > "$tmp/placed-roots.json" 2> "$tmp/placed-roots.log"; then ok placed-roots-runs; else bad placed-roots-runs; fi
check placed-roots-trees "$tmp/placed-roots.json" '.trees == 8 and (.runs[0] | .exact and .transport.retx == 0 and ([.devices[] | select(.name | test("^ws-(t[0-9]+-)?spine")) | "\(.name) \(.switch)"] == ["ws-spine0 spine0", "ws-spine1 spine1", "ws-t2-spine0 spine0", "ws-t3-spine1 spine1", "ws-t4-spine0 spine0", "ws-t5-spine1 spine1", "ws-t6-spine0 spine0", "ws-t7-spine1 spine1"]))'
# a k = 4 fat-tree's default arrangement: a device on every edge switch, tree t's mids on the
# pods' aggregation switches p.t and its root on core 2t (each pod's agg p.t reaches it), so each
# edge's PARTIALs leave on both its uplinks, each aggregation switch's on one; exact
printf '[topology]\nkind = fattree\nk = 4\nrate = 10Gbps\ndelay = 1us\n\n[job]\nworkers = 0-15\ntensor_bytes = 256KiB\nmode = hierarchical\n' > "$tmp/placed-ft.ini"
if "$ws" cluster --json "$tmp/placed-ft.ini" > "$tmp/placed-ft.json" 2> "$tmp/placed-ft.log"; then ok placed-ft-runs; else bad placed-ft-runs; fi
check placed-ft-trees "$tmp/placed-ft.json" '.runs[0] | .exact and .transport.retx == 0 and [.devices[] | .switch] == ["core0", "agg0.0", "agg1.0", "agg2.0", "agg3.0", "edge0.0", "edge0.1", "edge1.0", "edge1.1", "edge2.0", "edge2.1", "edge3.0", "edge3.1", "core2", "agg0.1", "agg1.1", "agg2.1", "agg3.1"]'
check placed-ft-uplinks "$tmp/placed-ft.json" '.runs[0] | [.uplinks[] | select(.link | startswith("edge")) | .up_bytes] | length == 16 and min > 0 and max - min <= 64 + 8 * 1344 + 100'

# bad cluster files: FILE:LINE and the reason
badf() {
    name=$1; pat=$2
    if ws_refused "$tmp/$name.log" "$pat" "$ws" cluster "$tmp/$name.ini"; then ok "$name"; else bad "$name"; fi
}
sed 's/^rate = 10Gbps/speed = 10Gbps/' "$rack8" > "$tmp/bad-key.ini"
badf bad-key "bad-key.ini:8: \[topology\]: unknown key 'speed'"
# ports: 1..16, a multiple of engines (the RTL's ENGINES divides N_PORTS; without the key, one
# port, so engines 2 alone is refused at its line), at most the RTL's 4 for the RTL model
for v in 0 17; do
    sed "s/^engines = 1/engines = 1\nports = $v/" "$rack8" > "$tmp/bad-ports-$v.ini"
    badf bad-ports-$v "bad-ports-$v.ini:22: device agg0: ports '$v': 1..16 links to its switch"
done
sed 's/^engines = 1/engines = 2\nports = 3/' "$rack8" > "$tmp/bad-ports-engines.ini"
badf bad-ports-engines "bad-ports-engines.ini:22: device agg0: ports 3 is not a multiple of engines 2 (line 21)"
sed 's/^engines = 1/engines = 2/' "$rack8" > "$tmp/bad-ports-default.ini"
badf bad-ports-default "bad-ports-default.ini:21: device agg0: ports 1 is not a multiple of engines 2 (line 21)"
sed 's/^slots = 64/slots = 64\nmodel = rtl\nports = 8/' cluster/test/fidelity.ini > "$tmp/bad-ports-rtl.ini"
badf bad-ports-rtl "bad-ports-rtl.ini:25: device agg0: model rtl: ports 8: the RTL has N_PORTS 4"
sed 's/^mode = .*/mode = wiresum\nvalues = gaussian/' "$rack8" > "$tmp/bad-values.ini"
badf bad-values "bad-values.ini:35: job: values 'gaussian': normal (gradients)"
sed 's/^ingress_buffer = .*/ingress_buffer = 128KiB\necn_threshold = 0/' "$rack8" > "$tmp/bad-devecn.ini"
badf bad-devecn "bad-devecn.ini:26: device agg0: ecn_threshold '0'"
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
if ws_refused "$tmp/plot-fid.log" "not with --plot" "$ws" cluster --fidelity --plot "$tmp/x.png" "$rack8"; then ok plot-fidelity; else bad plot-fidelity; fi
# a line longer than inih's buffer is named as such, at its own number (not split into pieces
# that read as a syntax error on the next line)
sed "s/^# rack8.*/&\n# $(printf 'x%.0s' $(seq 1 240))/" "$rack8" > "$tmp/bad-long.ini"
badf bad-long "bad-long.ini:2: line longer than 198 characters"
sed 's/^tensor_bytes = 4MiB/tensor_bytes = 4MiB\nelements = 10/' "$rack8" > "$tmp/bad-both.ini"
badf bad-both "bad-both.ini:32: \[job\]: give the tensor as 'elements' or as 'tensor_bytes', not both"
# topology and placement errors
ls=cluster/test/ls-small.ini
sed 's/^spines = 2/spines = 2\nk = 4/' "$ls" > "$tmp/bad-lsk.ini"
badf bad-lsk "bad-lsk.ini:7: \[topology\]: 'k' has no meaning for kind leafspine"
sed '/^spines = 2/d' "$ls" > "$tmp/bad-nospines.ini"
badf bad-nospines "bad-nospines.ini:3: \[topology\]: 'spines' is required for kind leafspine"
sed 's/^hosts_per_leaf = 8/hosts_per_leaf = 8\nhosts = 15/' "$ls" > "$tmp/bad-hosts.ini"
badf bad-hosts "bad-hosts.ini:8: \[topology\]: hosts 15, and this leafspine has 16"
sed 's/^switch = spine1/switch = spine2/' "$ls" > "$tmp/bad-spine.ini"
badf bad-spine "bad-spine.ini:32: device agg1: switch 'spine2': no such switch (this topology's are leaf0 .. spine1"
sed 's/^shard_devices = .*/shard_devices = agg0, agg9/' "$ls" > "$tmp/bad-shard.ini"
badf bad-shard "bad-shard.ini:44: \[job\]: shard_devices: 'agg9': no \[device agg9\] section"
sed 's/^leaf_devices = .*/leaf_devices = tor1, tor0/' "$ls" > "$tmp/bad-leaves.ini"
badf bad-leaves "bad-leaves.ini:46: \[job\]: leaf_devices: tor1 (on leaf1) does not serve the next worker"
# a PARTIAL is an IPv4 datagram fragmented to the MTU: at most 65535 bytes, a device's longest
# frame (count 1363 at 48 bytes an element)
sed -e 's/^count = 128/count = 1400/' -e 's/^data_width = 512/data_width = 512\nmax_count = 2048/' "$ls" > "$tmp/bad-partial.ini"
badf bad-partial "bad-partial.ini:45: \[job\]: count 1400 makes PARTIALs of up to 67264 bytes, above the 65535 of a device's longest frame (mode hierarchical: count at most 1363)"
sed -e 's/^count = 128/count = 2048/' -e 's/^mode = .*/mode = wiresum/' -e 's/^spines = 2/spines = 2\nmtu = 8000/' \
    -e 's/^data_width = 512/data_width = 512\nmax_count = 2048/' -e '/^root_device/d' -e '/^leaf_devices/d' "$ls" > "$tmp/bad-data-mtu.ini"
badf bad-data-mtu "bad-data-mtu.ini:46: \[job\]: count 2048 makes IP packets of 8242 bytes, above the MTU of 8000"
sed 's/^root_device = .*/root_device = agg1\nroot_device = agg0/' "$ls" > "$tmp/bad-root2.ini"
badf bad-root2 "bad-root2.ini:46: \[job\]: duplicate key 'root_device'"
sed '/^leaf_devices/d' "$ls" > "$tmp/bad-noleaves.ini"
badf bad-noleaves "bad-noleaves.ini:45: \[job\]: 'root_device' and 'leaf_devices' go together"
ft=cluster/test/ft4.ini
f3=cluster/test/ft4-3.ini
sed 's/^root_device = .*//' "$f3" > "$tmp/bad-mid-root.ini"
badf bad-mid-root "bad-mid-root.ini:95: \[job\]: 'mid_devices' needs 'root_device' and 'leaf_devices'"
sed 's/^mid_devices = .*/mid_devices = p1, p0, p2, p3/' "$f3" > "$tmp/bad-mid-order.ini"
badf bad-mid-order "bad-mid-order.ini:95: \[job\]: mid_devices: p1 (on agg1.0) does not serve the next leaf device in rank order"
sed 's/^mid_devices = .*/mid_devices = p0, p1, p2/' "$f3" > "$tmp/bad-mid-few.ini"
badf bad-mid-few "bad-mid-few.ini:95: \[job\]: mid_devices: leaf device r3.0 is below none of them"
# trees: the mids in one group every tree shares or one a tree; a leaf device a job a tree
{ sed -e 's/^root_device = .*/root_device = root, root2/' -e 's/^mid_devices = .*/mid_devices = p0, p1, p2, p3, p0, p1, p2, p3, p0, p1, p2, p3/' "$f3"
  printf '\n[device root2]\nswitch = core1\nrate = 100Gbps\ndelay = 500ns\n'; } > "$tmp/bad-mid-groups.ini"
badf bad-mid-groups "bad-mid-groups.ini:95: \[job\]: mid_devices: 3 groups (each covering every leaf once) for 2 trees"
sed -e 's/^mode = .*/mode = hierarchical/' -e 's/^root_device = .*/root_device = agg0, agg1/' -e 's/^window = .*/window = 40/' "$ls" > "$tmp/bad-tree-slots.ini"
badf bad-tree-slots "bad-tree-slots.ini:42: \[job\]: window 40 a tree, and it serves several: device tor0 has 64 slots"
# the default arrangement: each switch's workers in consecutive ranks; a hierarchy needs two
# switches
sed 's/^workers = .*/workers = 0-3, 8-11, 4-7, 12-15/' "$tmp/placed.ini" > "$tmp/bad-place-order.ini"
badf bad-place-order "bad-place-order.ini:[0-9]*: \[job\]: workers: rank 8 (host 4) is below leaf0, and so are ranks before others"
awk '/^\[device /{skip=1} /^\[job\]/{skip=0} !skip' "$rack8" | sed 's/^mode = .*/mode = hierarchical/' > "$tmp/bad-place-one.ini"
badf bad-place-one "bad-place-one.ini:[0-9]*: \[job\]: mode hierarchical: every worker is below one switch"
sed 's/^mid_devices = .*/mid_devices = p0, p1, p2, p3, r3.1/' "$f3" > "$tmp/bad-mid-leaf.ini"
badf bad-mid-leaf "bad-mid-leaf.ini:95: \[job\]: mid_devices: r3.1 is also a leaf device"
sed 's/^    r2.0, .*/    r2.0, r2.1, r3.0, r3.1, r0.0/' "$f3" > "$tmp/bad-cont.ini"
badf bad-cont "bad-cont.ini:96: \[job\]: leaf_devices: device r0.0 given twice"
sed 's/^k = 4/k = 5/' "$ft" > "$tmp/bad-k.ini"
badf bad-k "bad-k.ini:6: topology: k '5': an even number, 2..16"
sed 's/^switch = agg2.1/switch = agg4.0/' "$ft" > "$tmp/bad-agg.ini"
badf bad-agg "bad-agg.ini:23: device a2: switch 'agg4.0': no such switch (this topology's are edge0.0 .. core3"
sed 's/^hosts = 8/hosts = 8\nspines = 2/' "$rack8" > "$tmp/bad-rackspine.ini"
badf bad-rackspine "bad-rackspine.ini:8: \[topology\]: 'spines' has no meaning for kind rack"
sed 's/^queue = 1MB/queue = 1MB\necn_threshold = 2MB/' "$rack8" > "$tmp/bad-ecn.ini"
badf bad-ecn "bad-ecn.ini:14: \[topology\]: ecn_threshold 2000000 bytes: at least the queue"
sed 's/^window = 8/window = 8\ncc = maybe/' "$rack8" > "$tmp/bad-cc.ini"
badf bad-cc "bad-cc.ini:37: job: cc 'maybe': on"
# [background] and its distribution file
bgf() { cp "$rack8" "$tmp/$1.ini"; printf '\n[background]\n%b' "$2" >> "$tmp/$1.ini"; }
bgf bad-bg-key "distribution = $cdf\nload = 0.3\nflows = 10\nrate = 3\n"
badf bad-bg-key "bad-bg-key.ini:42: \[background\]: unknown key 'rate'"
bgf bad-bg-load "distribution = $cdf\nload = 1.5\nflows = 10\n"
badf bad-bg-load "bad-bg-load.ini:40: background: load '1.5': a fraction"
bgf bad-bg-both "distribution = $cdf\nload = 0.3\nflows = 10\nduration = 1ms\n"
badf bad-bg-both "bad-bg-both.ini:42: \[background\]: give 'flows' .* not both"
bgf bad-bg-nodist "load = 0.3\nflows = 10\n"
badf bad-bg-nodist "bad-bg-nodist.ini:38: \[background\]: 'distribution' is required"
printf '# sizes\n1000 0\n5000 0.7\n2000 0.8\n9000 1\n' > "$tmp/down.cdf"
bgf bad-cdf-order "distribution = down.cdf\nload = 0.3\nflows = 10\n"
badf bad-cdf-order "down.cdf:4: 2000 0.8: bytes and probabilities must not decrease"
printf '1000 0\n5000 0.7\n' > "$tmp/short.cdf"
bgf bad-cdf-end "distribution = short.cdf\nload = 0.3\nflows = 10\n"
badf bad-cdf-end "short.cdf:2: the last point's probability must be 1"
printf '1000 0\n5000 lots\n9000 1\n' > "$tmp/word.cdf"
bgf bad-cdf-word "distribution = word.cdf\nload = 0.3\nflows = 10\n"
badf bad-cdf-word "word.cdf:2: expected \"BYTES PROBABILITY\""
bgf bad-cdf-missing "distribution = nowhere.cdf\nload = 0.3\nflows = 10\n"
badf bad-cdf-missing "nowhere.cdf: No such file"
if ws_refused "$tmp/missing.log" "nowhere.ini: No such file" "$ws" cluster "$tmp/nowhere.ini"; then ok missing; else bad missing; fi

# the fidelity check: the same job with the timing model and with the RTL
# co-simulated (Verilator, cycle by cycle): both exact, the same frames, the all-reduce times
# within 2 %; a timing model off by 400 cycles of latency fails it
fi=cluster/test/fidelity.ini
f=$tmp/fidelity.json
if "$ws" cluster --fidelity --json "$fi" > "$f" 2> "$tmp/fidelity.log"; then ok fidelity-runs; else bad fidelity-runs; fi
check fidelity-exact "$f" '.ok and .timing.exact and .rtl.exact and .timing.tensors_exact == .timing.workers and .rtl.tensors_exact == .rtl.workers'
check fidelity-frames "$f" '.timing.transport == .rtl.transport and .timing.device.rx_bytes == .rtl.device.rx_bytes and .timing.device.tx_bytes == .rtl.device.tx_bytes and .rtl.transport.retx == 0 and .rtl.device.drop_frames == 0 and .rtl.device.tx_frames == .rtl.transport.results'
check fidelity-time "$f" '(.timing.seconds / .rtl.seconds - 1) as $d | ($d | fabs) < 0.02 and (.difference - $d | fabs) < 1e-9'
sed 's/^idle_latency = 56/idle_latency = 456/' "$fi" > "$tmp/fidelity-off.ini"
if ws_refused "$tmp/fidelity-off.log" "fidelity: timing model .* FAILED: the all-reduce times differ by +[0-9.]* %, more than 2 %" "$ws" cluster --fidelity "$tmp/fidelity-off.ini"; then ok fidelity-fails; else bad fidelity-fails; fi
sed 's/^slots = 64/slots = 64\nmodel = verilog/' "$fi" > "$tmp/bad-model.ini"
badf bad-model "bad-model.ini:24: device agg0: model 'verilog': timing (the reference behind the timing model) or rtl"
# a device of a hierarchy takes PARTIALs: the PARTIAL = 0 models of this build refuse it, and
# so does partial = 0
sed 's/^\[device tor0\]/[device tor0]\nmodel = rtl/' "$ls" > "$tmp/bad-rtl-hier.ini"
if ws_refused "$tmp/bad-rtl-hier.log" "device tor0 (model rtl): the device takes ENGINES 1, 1 ports, 8 members, .* PARTIAL 1; the RTL model of this build has .* PARTIAL 0" "$ws" cluster --mode hierarchical "$tmp/bad-rtl-hier.ini"; then ok bad-rtl-hier; else bad bad-rtl-hier; fi
sed 's/^\[device tor0\]/[device tor0]\npartial = 0/' "$ls" > "$tmp/bad-partial-hier.ini"
badf bad-partial-hier "bad-partial-hier.ini:14: device tor0: partial 0: a device of mode hierarchical's trees takes and sends PARTIAL frames"
sed 's/^slots = 64/slots = 64\npartial = 2/' "$fi" > "$tmp/bad-partial.ini"
badf bad-partial "bad-partial.ini:24: device agg0: partial '2': 0 or 1"
sed -e 's/^count = 2048/count = 1376/' -e 's/^engines = 1/engines = 1\npartial = 1/' "$rack8" > "$tmp/bad-partial-count.ini"
badf bad-partial-count "bad-partial-count.ini:.*: \[job\]: count 1376: device agg0 is built to take PARTIALs (partial = 1, line 22), so its frames hold a PARTIAL of that count, up to 66112 bytes, above 65535 (count at most 1363)"
sed -e 's/^count = 256/count = 512/' -e 's/^max_count = 256/max_count = 512/' "$fi" > "$tmp/bad-rtl-count.ini"
if ws_refused "$tmp/bad-rtl-count.log" "device agg0 (model rtl): the device takes ENGINES 1, 1 ports, 4 members, 4 slots, count 512, PARTIAL 0; the RTL model of this build has .*MAX_COUNT 256" "$ws" cluster --fidelity "$tmp/bad-rtl-count.ini"; then ok bad-rtl-count; else bad bad-rtl-count; fi

# fidelity with the models of build/p1 (four engines, PARTIAL = 1, at 256 bits: mk/models.mk):
# a device of four ports and engines, and a two-level tree of them (leaves and root); each within
# 2 % with every tensor exact and the same frames; the four-engine device's timing model without
# the PARTIAL = 1 build's 40 cycles (its 32 result rows and 8) fails
if [ -n "$ws_p1" ]; then
    for t in e4 tree; do
        f=$tmp/fidelity-$t.json
        if "$ws_p1" cluster --fidelity --json "cluster/test/fidelity-$t.ini" > "$f" 2> "$tmp/fidelity-$t.log"; then ok fidelity-$t; else bad fidelity-$t; fi
        check fidelity-$t-frames "$f" '.ok and .timing.exact and .rtl.exact and .timing.transport == .rtl.transport and .timing.device.rx_bytes == .rtl.device.rx_bytes and .timing.device.tx_bytes == .rtl.device.tx_bytes and .rtl.device.drop_frames == 0 and (.difference | fabs) < 0.02'
    done
    check fidelity-e4-ports "$tmp/fidelity-e4.json" '.devices == ["agg0"] and (.rtl.devices[0].ports | length) == 4 and ([.rtl.devices[0].ports[] | .rx_bytes, .tx_bytes] | all(. > 0)) and [.rtl.devices[0].ports[] | .rx_bytes, .tx_bytes] == [.timing.devices[0].ports[] | .rx_bytes, .tx_bytes]'
    check fidelity-tree-devices "$tmp/fidelity-tree.json" '.mode == "hierarchical" and (.devices | sort) == ["leafdev0", "leafdev1", "root"]'
    sed 's/^partial = 1/partial = 1\nidle_latency = 16/' cluster/test/fidelity-e4.ini > "$tmp/fidelity-e4-off.ini"
    if ws_refused "$tmp/fidelity-e4-off.log" "fidelity: timing model .* FAILED: the all-reduce times differ by -[0-9.]* %, more than 2 %" "$ws_p1" cluster --fidelity "$tmp/fidelity-e4-off.ini"; then ok fidelity-e4-fails; else bad fidelity-e4-fails; fi
fi

# the main tool runs the companion beside it, or says where it looked
if "$ws" cluster --help > "$tmp/help.log" 2>&1 && grep -q "usage: wiresum cluster FILE" "$tmp/help.log"; then ok dispatch; else bad dispatch; fi
mkdir -p "$tmp/alone"
cp "$ws" "$tmp/alone/wiresum"
if ws_refused "$tmp/alone.log" "cannot run .*alone/wiresum-cluster" "$tmp/alone/wiresum" cluster "$rack8"; then ok companion-missing; else bad companion-missing; fi

echo "cluster: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
