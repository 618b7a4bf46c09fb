#!/bin/sh
# fuzz.sh - build and run the fuzz target tests/fuzz/fuzz_wiresum.c (reference + RTL model).
#
#   scripts/fuzz.sh build          build BUILD/fuzz/fuzz_wiresum (libFuzzer, Debian clang, with
#                                  ASan and UBSan) and BUILD/fuzz/replay (gcc, ASan and UBSan,
#                                  no libFuzzer: replays files and directories)
#   scripts/fuzz.sh replay         replay tests/fuzz/corpus and tests/fuzz/regress
#                                  (replay and run build only what is missing: build first)
#   scripts/fuzz.sh run SECONDS    fuzz that long from tests/fuzz/corpus (working corpus in
#                                  BUILD/fuzz/corpus); a crash or a failed invariant stops it,
#                                  leaves the input in BUILD/fuzz/artifacts/ and fails
#   scripts/fuzz.sh merge          add the working corpus's new coverage to tests/fuzz/corpus
#
# Needs the model and libraries of `make` first: BUILD/asan/libwshost.a, BUILD/asan/libwiresum.a,
# BUILD/asan/libwssim.a,
# BUILD/sim/libverilated.a and BUILD/sim/V<width>/Vws<width>__ALL.a (the Makefile's `fuzz`
# target builds them). Environment: BUILD (default build), FUZZ_JOBS (parallel fuzzers, default
# 1), RESULTS (where "fuzz <case> <passed> <failed>" lines go; default BUILD/results.txt, none
# if empty), CLANG (default clang), CC (default cc).
set -u
cmd=${1:-}
BUILD=${BUILD:-build}
CLANG=${CLANG:-clang}
CC=${CC:-cc}
RESULTS=${RESULTS-$BUILD/results.txt}
out=$BUILD/fuzz
corpus=tests/fuzz/corpus
regress=tests/fuzz/regress

record() { # case passed failed
    [ -n "$RESULTS" ] && echo "fuzz $1 $2 $3" >> "$RESULTS"
    return 0
}

models() {
    ls "$BUILD"/sim/V*/Vws*__ALL.a 2>/dev/null | tr '\n' ' '
}

build() {
    mods=$(models)
    for f in "$BUILD/asan/libwshost.a" "$BUILD/asan/libwiresum.a" "$BUILD/asan/libwssim.a" \
             "$BUILD/sim/libverilated.a"; do
        [ -f "$f" ] || { echo "fuzz: $f missing: build the model and libraries first (make fuzz)" >&2; return 1; }
    done
    [ -n "$mods" ] || { echo "fuzz: no model in $BUILD/sim: run make sim" >&2; return 1; }
    command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz: $CLANG not found: sh scripts/deps.sh" >&2; return 1; }
    mkdir -p "$out/obj"
    std="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
    warn="-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
    inc="-Ihost -Idriver -Isim -Itests"
    libs="-lpcap -linih -ljansson -lm -lstdc++ -lz -pthread"
    # the replay program: gcc, the sanitized libraries of the Makefile
    # shellcheck disable=SC2086
    $CC $std $warn -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
        -fno-sanitize-recover=all $inc -DWS_FUZZ_MAIN tests/fuzz/fuzz_wiresum.c \
        "$BUILD/asan/libwshost.a" "$BUILD/asan/libwssim.a" "$BUILD/asan/libwiresum.a" $mods \
        "$BUILD/sim/libverilated.a" \
        $libs -o "$out/replay" || return 1
    # the fuzzer: host and driver sources, the reference and the session instrumented for
    # coverage (the models are not: they are C++ built by g++; the reference decides the same
    # things the RTL does)
    san="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
    objs=""
    for src in host/*.c driver/*.c sim/refdev.c sim/session.c; do
        [ "$src" = host/main.c ] && continue
        o="$out/obj/$(basename "$src" .c).o"
        # shellcheck disable=SC2086
        if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find host driver sim -name '*.h' -newer "$o" 2>/dev/null | head -n 1)" ]; then
            $CLANG $std $warn $san -fsanitize=fuzzer-no-link $inc -c "$src" -o "$o" || return 1
        fi
        objs="$objs $o"
    done
    # shellcheck disable=SC2086
    $CLANG $std $warn $san -fsanitize=fuzzer $inc tests/fuzz/fuzz_wiresum.c $objs \
        "$BUILD/libwssim.a" $mods "$BUILD/sim/libverilated.a" $libs \
        -o "$out/fuzz_wiresum" || return 1
    echo "fuzz: built $out/fuzz_wiresum and $out/replay"
}

replay() {
    [ -x "$out/replay" ] || build || { record replay 0 1; return 1; }
    log="$out/replay.log"
    "$out/replay" -v "$corpus" "$regress" > "$log" 2>&1; rc=$?
    tail -n 1 "$log"
    p=$(sed -n 's/^fuzz replay: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
    f=$(sed -n 's/^fuzz replay: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
    [ -n "$p" ] || { p=0; f=1; cat "$log"; }
    [ "$rc" -ne 0 ] && grep -v '^ok ' "$log" | tail -n 40
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    record replay "$p" "$f"
    [ "$rc" -eq 0 ]
}

run() {
    secs=${1:-60}; shift 2>/dev/null || true
    [ -x "$out/fuzz_wiresum" ] || build || { record "run-${secs}s" 0 1; return 1; }
    mkdir -p "$out/corpus" "$out/artifacts"
    cp -n "$corpus"/* "$out/corpus/" 2>/dev/null
    log="$out/fuzz-${secs}s.log"
    # -timeout: one input may take seconds at 1024 bits under stress, never minutes (a hang of
    # the model is caught by the harness's cycle budget, a hang of the harness by this)
    par=""
    [ "${FUZZ_JOBS:-1}" -gt 1 ] && par="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
    # shellcheck disable=SC2086
    "$out/fuzz_wiresum" -max_total_time="$secs" -timeout=120 -rss_limit_mb=4096 \
        -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/artifacts/" \
        $par "$@" "$out/corpus" > "$log" 2>&1
    rc=$?
    # with -jobs, the log of each job is fuzz-N.log in the current directory
    [ -n "$par" ] && for l in fuzz-[0-9]*.log; do [ -f "$l" ] && cat "$l" >> "$log" && rm -f "$l"; done
    grep -E '^(stat::|#[0-9]+ +DONE)' "$log" | awk '!seen[$0]++' | tr -s ' ' | tr '\n' ' '; echo
    if [ "$rc" -ne 0 ]; then
        grep -E 'invariant failed|ERROR|SUMMARY|Test unit written' "$log" | head -n 20
        echo "fuzz: FAILED after a run of up to ${secs}s; log $log; the input is in $out/artifacts/."
        echo "fuzz: fix the bug, then copy the input to $regress/ so that make test replays it."
        record "run-${secs}s" 0 1
        return 1
    fi
    echo "fuzz: ${secs}s without a failure; log $log"
    record "run-${secs}s" 1 0
}

merge() {
    [ -x "$out/fuzz_wiresum" ] || build || return 1
    "$out/fuzz_wiresum" -merge=1 -timeout=120 -rss_limit_mb=4096 "$corpus" "$out/corpus"
}

case $cmd in
build) build || { record build 0 1; exit 1; } ;;
replay) replay ;;
run) shift; run "$@" ;;
merge) merge ;;
*) echo "usage: scripts/fuzz.sh build | replay | run SECONDS [libFuzzer options] | merge" >&2; exit 2 ;;
esac
