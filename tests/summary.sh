#!/bin/sh
# summary.sh RESULTS [TIMES] - add up the recorded results and print the closing line; before
# it, with TIMES (tests/timed.sh's "SUITE WALL CPU" lines), each suite's wall and CPU seconds,
# most CPU first: "build" is make test's first phase (the models and tools, with the suites
# that need no model beside them, whose own lines are also listed), "suites" the second.
f=$1; t=${2:-}
if [ -n "$t" ] && [ -s "$t" ]; then
    echo "time (s):      wall      CPU"
    awk '{ w[$1] += $2; c[$1] += $3 } END { for (s in w) printf "  %-10s %7.1f  %7.1f\n", s, w[s], c[s] }' "$t" |
        sort -k3 -rn
fi
[ -f "$f" ] || { echo "0 passed, 1 failed"; exit 1; }
awk '{p+=$3; q+=$4} END {printf "%d passed, %d failed\n", p, q; exit (q>0 || p==0)}' "$f"
