#!/bin/sh
# order.sh WIRESUM SUITE - the order the device keeps (docs/protocol.md, "Order"): several
# ingress ports bypassed onto one egress, on the model WIRESUM (ENGINES = 1 or 4):
#   - the trace `gen --workers 2 --elems 3000 --count 33 --slots 1 --bypass 0.6 --malformed 0.2
#     --seed 5` with `bypass = 0 0 0 0`: sim finds every frame and counter as the reference
#     has them, without stalls, with idle insertion and with backpressure;
#   - expected0.pcap with two neighbouring frames of different ingress ports exchanged: still
#     no mismatch (the device does not promise an order across ingress ports);
#   - expected0.pcap with two neighbouring frames of one ingress port exchanged: sim reports
#     them out of order (the comparison still sees order within a stream).
# Appends "SUITE order-<case> <passed> <failed>" lines to the results (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
ws=$1
suite=$2
edit=$WS_BUILD/tests/tool_pcap_edit
tmp=$WS_BUILD/$suite-order
rm -rf "$tmp"
mkdir -p "$tmp"
d=$tmp/trace

# sim_ok NAME ARGS...: sim with ARGS, no mismatch and no counter differs
sim_ok() {
    name=$1; shift
    "$ws" sim "$d" --no-progress --json "$@" > "$tmp/$name.json" 2> "$tmp/$name.log" &&
        ws_json_true "$tmp/$name.json" \
            '.mismatches == 0 and .counters_differ == 0 and .frames_out == .frames_expected'
    st=$?
    [ $st -eq 0 ] || cat "$tmp/$name.log" "$tmp/$name.json" | tail -n 15
    ws_record "$suite" "order-$name" $st
}

if ! "$ws" gen "$d" -q --workers 2 --elems 3000 --count 33 --slots 1 --bypass 0.6 \
        --malformed 0.2 --seed 5 > "$tmp/gen.log" 2>&1; then
    cat "$tmp/gen.log"; ws_record "$suite" order-gen 1; exit 1
fi
sed 's/^bypass *=.*/bypass = 0 0 0 0/' "$d/job.ini" > "$tmp/job.ini" && mv "$tmp/job.ini" "$d/job.ini"
sim_ok plain
sim_ok idle --idle 30 --seed 3
sim_ok backpressure --backpressure 40 --seed 4

# the ingress port of every frame of expected0.pcap whose bytes are in one input frame only
for p in 0 1 2 3; do
    "$edit" list "$d/in$p.pcap" | awk -v p=$p '{ print $3, p }'
done | awk '{ n[$1]++; port[$1] = $2 } END { for (h in n) if (n[h] == 1) print h, port[h] }' \
    > "$tmp/unique.txt"
"$edit" list "$d/expected0.pcap" |
    awk 'NR == FNR { port[$1] = $2; next } { print $1, (($3 in port) ? port[$3] : "?") }' \
        "$tmp/unique.txt" - > "$tmp/ports.txt"
# neighbours N N+1 from different ports, and from the same port
across=$(awk 'p != "" && p != "?" && $2 != "?" && $2 != p { print n; exit } { n = $1; p = $2 }' \
    "$tmp/ports.txt")
within=$(awk 'p != "" && p != "?" && $2 == p { print n; exit } { n = $1; p = $2 }' \
    "$tmp/ports.txt")
if [ -z "$across" ] || [ -z "$within" ]; then
    echo "order.sh: no neighbouring frames to exchange in $d/expected0.pcap"
    ws_record "$suite" order-swap 1; exit 1
fi
cp "$d/expected0.pcap" "$tmp/expected0.orig"
"$edit" swap "$d/expected0.pcap" "$across" $((across + 1))
sim_ok across-ports
cp "$tmp/expected0.orig" "$d/expected0.pcap"
"$edit" swap "$d/expected0.pcap" "$within" $((within + 1))
"$ws" sim "$d" --no-progress --json > "$tmp/within.json" 2> "$tmp/within.log"
ws_json_true "$tmp/within.json" '.mismatches >= 1 and .counters_differ == 0' &&
    grep -q "^out of order: port 0, bypass frame" "$tmp/within.log"
st=$?
[ $st -eq 0 ] || cat "$tmp/within.log" "$tmp/within.json" | tail -n 15
ws_record "$suite" order-within-port $st
[ "$ws_failed" -eq 0 ]
