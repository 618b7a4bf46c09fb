#!/bin/sh
# stress.sh WIRESUM [FIRST_SEED] [N] [WIDTHS] - randomized stress of the RTL over seeds.
# Each seed draws a trace shape (jobs, workers, count, slots, tensors, value kind, loss,
# duplication, malformed and bypass rates, ECN) and a stress pattern (ingress idle, egress
# backpressure) and a width, then: `wiresum gen` (the trace, its exact sums), `wiresum sim` (the
# RTL against the reference, every frame and counter) and `wiresum check --prefix out` (the
# RTL's RESULTs against the exact sums). A failing seed prints the command lines that redo it.
# Appends "stress <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
ws=$1
first=${2:-1}
n=${3:-12}
widths=${4:-256 512 1024}
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/stress
rm -rf "$tmp"
mkdir -p "$tmp"
pass=0; fail=0
set -- $widths
nw=$#

r=0
rnd() { # rnd N: v = a number in 0..N-1 from the seed's generator (an LCG, repeatable in any sh;
        # it sets v rather than printing: a command substitution would lose the state)
    r=$(( (r * 1103515245 + 12345) % 2147483648 ))
    v=$(( (r / 65536) % $1 ))
}
rate() { # rate MAXPERCENT: v = 0 (one time in three) or a rate from 0.00 to MAXPERCENT/100
    rnd $(( $1 + 1 )); x=$v
    rnd 3; [ "$v" -eq 0 ] && x=0
    v=$(printf '0.%02d' "$x")
}

start=$(date +%s)
s=$first
while [ "$s" -lt $((first + n)) ]; do
    r=$(( s * 7919 + 17 ))
    rnd 3; jobs=$(( 1 + v ))
    rnd 8
    case $v in
    0) workers=1 ;; 1) workers=2 ;; 2) workers=3 ;; 3) workers=4 ;; 4) workers=5 ;;
    5) workers=8 ;; 6) workers=16 ;; *) rnd 64; workers=$(( 1 + v )) ;;
    esac
    rnd 4
    case $v in
    0) rnd 8; count=$(( 1 + v )) ;; 1) rnd 3; count=$(( 7 + v )) ;;
    2) rnd 64; count=$(( 1 + v )) ;; *) rnd 4; count=$(( 31 + v )) ;;
    esac
    rnd 8; slots=$(( 1 + v ))
    rnd 2; tensors=$(( 1 + v ))
    rnd 1200; elems=$(( 20 + v ))
    [ "$workers" -gt 16 ] && elems=$(( elems / 4 + 1 ))
    rnd 3
    case $v in 0) values=normal ;; 1) values=special ;; *) values=mixed ;; esac
    rate 10; loss=$v; rate 10; dup=$v; rate 20; mal=$v; rate 20; byp=$v; rate 10; ecn=$v
    rnd 4; idle=$(( v * 20 )); rnd 4; bp=$(( v * 20 ))
    rnd "$nw"; i=$(( v + 1 ))
    eval "w=\${$i}"
    d="$tmp/seed-$s"
    gen="--jobs $jobs --workers $workers --count $count --slots $slots --tensors $tensors"
    gen="$gen --elems $elems --values $values --loss $loss --dup $dup --malformed $mal"
    gen="$gen --bypass $byp --ecn $ecn --seed $s"
    sim="--width $w --idle $idle --backpressure $bp --seed $s"
    # shellcheck disable=SC2086
    if "$ws" gen "$d" -q $gen > "$d.log" 2>&1 &&
       "$ws" sim "$d" -q $sim >> "$d.log" 2>&1 &&
       "$ws" check -q --prefix out "$d" >> "$d.log" 2>&1; then
        echo "stress seed $s: width $w, $jobs x $workers workers, count $count, slots $slots, idle $idle%, backpressure $bp%"
        pass=$((pass + 1)); ws_record stress "seed-$s" 0
    else
        tail -n 20 "$d.log"
        echo "stress seed $s; redo with:"
        echo "  $ws gen $d $gen && $ws sim $d $sim && $ws check --prefix out $d"
        fail=$((fail + 1)); ws_record stress "seed-$s" 1
    fi
    s=$((s + 1))
done
echo "stress: $pass passed, $fail failed ($(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ]
