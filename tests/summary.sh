#!/bin/sh
# summary.sh RESULTS - add up the recorded results and print the closing line.
f=$1
[ -f "$f" ] || { echo "0 passed, 1 failed"; exit 1; }
awk '{p+=$3; q+=$4} END {printf "%d passed, %d failed\n", p, q; exit (q>0 || p==0)}' "$f"
