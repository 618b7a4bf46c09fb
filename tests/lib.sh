# tests/lib.sh - sourced by the suites of make test (tests/*.sh): where results go, how a case
# is recorded, how a value is read from a tool's JSON summary (`--json`).
#
#   WS_BUILD    the build directory: $BUILD, or build
#   WS_RESULTS  the results file: $WS_RESULTS, or $WS_BUILD/results.txt; one line a case,
#               "suite case passed failed", which tests/summary.sh adds up
#   ws_record SUITE CASE STATUS   STATUS 0: passed; prints "ok   SUITE CASE" or "FAIL ...",
#               appends the line, and counts failures in ws_failed
#   ws_record_counts SUITE CASE PASSED FAILED   the same for a case that counts several checks
#               (a cmocka binary); prints nothing
#   ws_json FILE FILTER           the value FILTER (jq syntax, e.g. .counters.accepted) of the
#               JSON document in FILE; fails when the key is missing or null
#   ws_json_true FILE EXPR        true when the jq expression EXPR holds in FILE
#                                 (e.g. '.util >= 3.96 and .bad_results == 0')
WS_BUILD=${BUILD:-build}
WS_RESULTS=${WS_RESULTS:-$WS_BUILD/results.txt}
ws_failed=0
mkdir -p "$(dirname "$WS_RESULTS")"

ws_record() {
    if [ "$3" -eq 0 ]; then
        echo "ok   $1 $2"
        echo "$1 $2 1 0" >> "$WS_RESULTS"
    else
        echo "FAIL $1 $2"
        echo "$1 $2 0 1" >> "$WS_RESULTS"
        ws_failed=$((ws_failed + 1))
    fi
}

ws_record_counts() { # SUITE CASE PASSED FAILED: a case that counts several checks
    echo "$1 $2 $3 $4" >> "$WS_RESULTS"
    [ "$4" -eq 0 ] || ws_failed=$((ws_failed + 1))
}

# ws_refused LOG PATTERN COMMAND...: 0 when COMMAND exits non-zero with PATTERN in its output
# (kept in LOG; the expectation is appended to it when not)
ws_refused() {
    log=$1; pat=$2; shift 2
    "$@" > "$log" 2>&1; rc=$?
    [ "$rc" -ne 0 ] && grep -q -- "$pat" "$log" && return 0
    echo "(exit $rc, expected a message matching '$pat')" >> "$log"
    return 1
}

# ws_run_cases SUITE WIRESUM DIR: the case helpers of a suite of `wiresum run`s (tests/loop.sh,
# tests/tree.sh), counting its cases in pass and fail:
#   ok NAME, bad NAME         record a case (bad prints the tail of DIR/NAME.log first);
#   one NAME JQ ARGS...       a run that must pass: every tensor exact, .ok, no check failed, at
#                             least one tensor, and JQ true of its summary (DIR/NAME.json);
#   refuse NAME PATTERN ARGS... a run that must exit non-zero with PATTERN in its output.
ws_run_cases() {
    ws_rc_suite=$1; ws_rc_ws=$2; ws_rc_dir=$3
    pass=0; fail=0
    ok()  { ws_record "$ws_rc_suite" "$1" 0; pass=$((pass + 1)); }
    bad() { tail -n 25 "$ws_rc_dir/$1.log"; ws_record "$ws_rc_suite" "$1" 1; fail=$((fail + 1)); }
    one() {
        name=$1; cond=$2; shift 2
        if "$ws_rc_ws" run --no-progress --json "$@" > "$ws_rc_dir/$name.json" 2> "$ws_rc_dir/$name.log" &&
           ws_json_true "$ws_rc_dir/$name.json" \
               ".exact and .ok and .check_failures == 0 and .tensors > 0 and ($cond)"; then
            ok "$name"
        else
            bad "$name"
        fi
    }
    refuse() {
        name=$1; pat=$2; shift 2
        if ws_refused "$ws_rc_dir/$name.log" "$pat" "$ws_rc_ws" run --no-progress "$@"; then
            ok "$name"
        else
            bad "$name"
        fi
    }
}

ws_json() {
    jq -e -r "$2" "$1"
}

ws_json_true() {
    jq -e "$2" "$1" > /dev/null
}
