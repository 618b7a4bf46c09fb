#!/bin/sh
# fuzz.sh - build and run the fuzz target tests/fuzz/fuzz_wiresum.c (reference + RTL model).
#
# Two pairs of programs, one per build of the models (Verilator prefixes are the same in both, so
# one program links one build's models):
#   BUILD/fuzz/fuzz_wiresum, BUILD/fuzz/replay        the models of `make` (PARTIAL = 0,
#                                                     BUILD/sim): every width built
#   BUILD/fuzz/p1/fuzz_wiresum, BUILD/fuzz/p1/replay  the PARTIAL = 1 build (BUILD/p1/sim, make
#                                                     build/p1/wiresum: four engines at 256 bits,
#                                                     one at 512), built when it exists: DATA
#                                                     inputs on those models too, and TREE inputs
#                                                     through three models beside the references
# fuzz_wiresum is libFuzzer (Debian clang, ASan, UBSan); replay is gcc, ASan and UBSan, no
# libFuzzer: it replays files and directories.
#
#   scripts/fuzz.sh build             build both pairs (the p1 pair if BUILD/p1 is built)
#   scripts/fuzz.sh replay            replay tests/fuzz/corpus and tests/fuzz/regress through each
#                                     replay program (replay and run build only what is missing:
#                                     build first)
#   scripts/fuzz.sh run SECONDS [libFuzzer options]
#                                     fuzz that long from tests/fuzz/corpus (working corpus in
#                                     BUILD/fuzz/corpus); a crash or a failed invariant stops it,
#                                     leaves the input in BUILD/fuzz/artifacts/ and fails
#   scripts/fuzz.sh run-p1 SECONDS [libFuzzer options]
#                                     the same with the p1 program (BUILD/fuzz/p1/corpus,
#                                     BUILD/fuzz/p1/artifacts/)
#   scripts/fuzz.sh merge | merge-p1  add the working corpus's new coverage to tests/fuzz/corpus
#
# Needs the model and libraries of `make` first: BUILD/asan/libwstools.a, BUILD/asan/libwiresum.a,
# BUILD/asan/libwssim.a, BUILD/libwssim.a,
# BUILD/sim/libverilated.a and the models BUILD/sim/widths.cfg names, BUILD/sim/V<name>/Vws<name>__ALL.a
# (the Makefile's `fuzz` target builds them); for the p1 pair BUILD/p1/libwssim.a and its models
# (make build/p1/wiresum, which links the same Verilator runtime; the p1 libwssim.a is not
# sanitized, the rest of the replay program is). The p1 models are slow (the four-engine one,
# built at -O1, about 7000 cycles/s; corpus and regress through p1/replay take about 110 s on the
# machine of 2026-11-27): FUZZ_P1_REPLAY (directories the p1 replay replays, default
# "tests/fuzz/corpus tests/fuzz/regress") and FUZZ_P1_SEED (the directory run-p1 seeds its working
# corpus from, default tests/fuzz/corpus) let make test's fuzz-short take regress alone; FUZZ_SEED
# is the same for the default program's run (its replay always takes corpus and regress:
# libFuzzer runs every seed before it mutates, 30 s of a 5 s run for the whole corpus).
# Environment: BUILD (default build), FUZZ_JOBS
# (parallel fuzzers, default 1), RESULTS (where "fuzz <case> <passed> <failed>" lines go; default
# BUILD/results.txt, none if empty; cases build, replay, run-<N>s and build-p1, replay-p1,
# run-p1-<N>s), CLANG (default clang), CC (default cc).
set -u
cmd=${1:-}
BUILD=${BUILD:-build}
CLANG=${CLANG:-clang}
CC=${CC:-cc}
RESULTS=${RESULTS-$BUILD/results.txt}
corpus=tests/fuzz/corpus
regress=tests/fuzz/regress

record() { # case passed failed
    [ -n "$RESULTS" ] && echo "fuzz $1 $2 $3" >> "$RESULTS"
    return 0
}

# variant [p1]: the models' build (mb), the programs' directory (out), the cases' suffix (sfx)
variant() {
    if [ "${1:-}" = p1 ]; then
        mb=$BUILD/p1; out=$BUILD/fuzz/p1; sfx=-p1
    else
        mb=$BUILD; out=$BUILD/fuzz; sfx=
    fi
}

have_p1() {
    [ -f "$BUILD/p1/libwssim.a" ]
}

# build_pair [p1]: the replay program and the fuzzer of one build's models
build_pair() {
    variant "${1:-}"
    # the models of the build, as its sim/widths.cfg names them (not older ones left in sim/)
    mods=""
    for m in $(cat "$mb/sim/widths.cfg" 2>/dev/null); do mods="$mods $mb/sim/V$m/Vws${m}__ALL.a"; done
    for f in "$BUILD/asan/libwstools.a" "$BUILD/asan/libwiresum.a" "$BUILD/asan/libwssim.a" \
             "$mb/libwssim.a" "$BUILD/sim/libverilated.a"; do
        [ -f "$f" ] || { echo "fuzz: $f missing: build the model and libraries first (make fuzz)" >&2; return 1; }
    done
    [ -n "$mods" ] || { echo "fuzz: no model in $mb/sim: run make sim" >&2; return 1; }
    command -v "$CLANG" >/dev/null 2>&1 || { echo "fuzz: $CLANG not found: sh scripts/deps.sh" >&2; return 1; }
    mkdir -p "$out" "$BUILD/fuzz/obj"
    std="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
    warn="-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
    inc="-Icli -Ieval -Icluster/model -Iloop -Itrace -Isim -Iutil -Idriver -Itests"
    libs="-lpcap -linih -ljansson -lm -lstdc++ -lz -pthread"
    # the replay program: gcc, the sanitized libraries of the Makefile (the default build's
    # libwssim.a, or the p1 build's, which carries the shim of its models)
    sim=$BUILD/asan/libwssim.a
    [ -n "$sfx" ] && sim=$mb/libwssim.a
    # shellcheck disable=SC2086
    $CC $std $warn -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
        -fno-sanitize-recover=all $inc -DWS_FUZZ_MAIN tests/fuzz/fuzz_wiresum.c \
        "$BUILD/asan/libwstools.a" "$sim" "$BUILD/asan/libwiresum.a" $mods \
        "$BUILD/sim/libverilated.a" \
        $libs -o "$out/replay" || return 1
    # the fuzzer: the tools' and the driver's sources, the reference and the session instrumented for
    # coverage (the models are not: they are C++ built by g++; the reference decides the same
    # things the RTL does); the objects serve both pairs
    san="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
    objs=""
    for src in util/*.c trace/*.c loop/*.c eval/*.c cluster/model/*.c cli/*.c driver/*.c sim/refdev.c \
               sim/session.c; do
        [ "$src" = cli/main.c ] && continue
        o="$BUILD/fuzz/obj/$(basename "$src" .c).o"
        # shellcheck disable=SC2086
        if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find util trace loop eval cluster/model cli driver sim -name '*.h' -newer "$o" 2>/dev/null | head -n 1)" ]; then
            $CLANG $std $warn $san -fsanitize=fuzzer-no-link $inc -c "$src" -o "$o" || return 1
        fi
        objs="$objs $o"
    done
    # shellcheck disable=SC2086
    $CLANG $std $warn $san -fsanitize=fuzzer $inc tests/fuzz/fuzz_wiresum.c $objs \
        "$mb/libwssim.a" $mods "$BUILD/sim/libverilated.a" $libs \
        -o "$out/fuzz_wiresum" || return 1
    echo "fuzz: built $out/fuzz_wiresum and $out/replay"
}

build() {
    build_pair || { record build 0 1; return 1; }
    have_p1 || return 0
    build_pair p1 || { record build-p1 0 1; return 1; }
}

# replay_one [p1]
replay_one() {
    variant "${1:-}"
    [ -x "$out/replay" ] || build_pair "${1:-}" || { record "replay$sfx" 0 1; return 1; }
    log="$out/replay.log"
    dirs="$corpus $regress"
    [ -n "$sfx" ] && dirs=${FUZZ_P1_REPLAY:-$dirs}
    # shellcheck disable=SC2086
    "$out/replay" -v $dirs > "$log" 2>&1; rc=$?
    echo "$(tail -n 1 "$log") ($out/replay)"
    p=$(sed -n 's/^fuzz replay: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
    f=$(sed -n 's/^fuzz replay: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
    [ -n "$p" ] || { p=0; f=1; cat "$log"; }
    [ "$rc" -ne 0 ] && grep -v '^ok ' "$log" | tail -n 40
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    record "replay$sfx" "$p" "$f"
    [ "$rc" -eq 0 ]
}

replay() {
    rc=0
    replay_one || rc=1
    if have_p1; then replay_one p1 || rc=1; fi
    return $rc
}

# run_one [p1] SECONDS [libFuzzer options]
run_one() {
    v=$1; shift
    variant "$v"
    secs=${1:-60}; shift 2>/dev/null || true
    name="run$sfx-${secs}s"
    [ -x "$out/fuzz_wiresum" ] || build_pair "$v" || { record "$name" 0 1; return 1; }
    mkdir -p "$out/corpus" "$out/artifacts"
    seed=${FUZZ_SEED:-$corpus}
    [ -n "$sfx" ] && seed=${FUZZ_P1_SEED:-$corpus}
    cp -n "$seed"/* "$out/corpus/" 2>/dev/null
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
        record "$name" 0 1
        return 1
    fi
    echo "fuzz: ${secs}s of $out/fuzz_wiresum without a failure; log $log"
    record "$name" 1 0
}

merge_one() {
    variant "${1:-}"
    [ -x "$out/fuzz_wiresum" ] || build_pair "${1:-}" || return 1
    "$out/fuzz_wiresum" -merge=1 -timeout=120 -rss_limit_mb=4096 "$corpus" "$out/corpus"
}

case $cmd in
build) build ;;
replay) replay ;;
run) shift; run_one "" "$@" ;;
run-p1) shift; have_p1 || { echo "fuzz: no PARTIAL build in $BUILD/p1: make $BUILD/p1/wiresum" >&2; record run-p1 0 1; exit 1; }
        run_one p1 "$@" ;;
merge) merge_one ;;
merge-p1) merge_one p1 ;;
*) echo "usage: scripts/fuzz.sh build | replay | run SECONDS [libFuzzer options] | run-p1 SECONDS [...] | merge | merge-p1" >&2; exit 2 ;;
esac
