#!/bin/sh
# timed.sh SUITE FILE -c RECIPE - the shell of make test's suites (mk/tests.mk): runs the recipe
# line with sh, then appends "SUITE WALL CPU" to FILE: the line's wall time and the CPU time
# (user + system) of everything it ran, in seconds. A suite of several recipe lines leaves a
# line each (tests/summary.sh adds them up). Exits with the recipe's status.
suite=$1; file=$2; shift 2
t0=$(date +%s.%N)
sh "$@"
rc=$?
t1=$(date +%s.%N)
# times (in this shell, not a subshell): its own user and system time, then its children's,
# as 1m2.5s
tm=$(mktemp "${TMPDIR:-/tmp}/timed.XXXXXX")
times > "$tm"
cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.1f", s }' "$tm")
rm -f "$tm"
echo "$suite $t0 $t1 ${cpu:-0}" | awk '{ printf "%s %.1f %s\n", $1, $3 - $2, $4 }' >> "$file"
exit $rc
