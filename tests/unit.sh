#!/bin/sh
# unit.sh DIR TEST... - run cmocka test binaries, record passes and failures.
# Appends "unit <name> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
dir=$1; shift
. "$(dirname "$0")/lib.sh"
rc=0
for t in "$@"; do
    name=$(basename "$t")
    [ "$dir" != "$WS_BUILD/tests" ] && name="$name(asan)"
    out=$("$t" 2>&1); trc=$?
    pass=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    fail=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    if [ $trc -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi   # crashed or sanitizer abort
    if [ $trc -ne 0 ]; then
        printf '%s\n' "$out" | tail -n 40
        echo "FAIL $name ($pass passed, $fail failed)"
        rc=1
    else
        echo "ok   $name ($pass passed)"
    fi
    ws_record_counts unit "$name" "$pass" "$fail"
done
exit $rc
