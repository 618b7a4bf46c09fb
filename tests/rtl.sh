#!/bin/sh
# rtl.sh WIRESUM [WIDTHS] - RTL regression: traces from `wiresum gen` through the Verilator
# model (`wiresum sim`), bit for bit against the software reference and its counters, then the
# RTL's outputs checked end to end against the exact sums (`wiresum check --prefix out`).
# Every trace runs without stalls, with ingress idle insertion and with egress backpressure;
# a smoke subset also runs under Icarus Verilog (`wiresum sim --sim icarus`).
# Appends "rtl <case> <passed> <failed>" lines to the results file (tests/lib.sh) and ends with a summary line.
# Environment, for other models (tests/engines.sh): RTL_TAG names the suite (results and
# work directory build/rtl-<tag>); RTL_CASES, the cases to run (all when empty); RTL_SMOKE=0
# leaves out the 1024-bit and Icarus smoke runs; MODES, the stress modes.
set -u
ws=$1
widths=${2:-256 512}
. "$(dirname "$0")/lib.sh"
tag=${RTL_TAG:-}
suite="rtl${tag:+-$tag}"
tmp=$WS_BUILD/$suite
rm -rf "$tmp"
mkdir -p "$tmp"
pass=0; fail=0

# one NAME WIDTH GEN-ARGS...: generate once, simulate in three stress modes (Verilator);
# SIM=icarus: under Icarus Verilog instead; MODES: the stress modes
one() {
    name=$1; w=$2; shift 2
    case " ${RTL_CASES:-$name} " in *" $name "*) ;; *) return ;; esac
    sim=${SIM:-verilator}
    d="$tmp/w$w-$name"
    [ "$sim" = verilator ] || d="$tmp/$sim-w$w-$name"
    if ! "$ws" gen "$d" -q "$@" > "$d.log" 2>&1; then
        cat "$d.log"; echo "FAIL $suite w$w $name (gen)"; fail=$((fail + 1))
        ws_record "$suite" "w$w-$name" 1; return
    fi
    [ "$sim" = verilator ] || name="$sim-$name"
    for mode in ${MODES:-plain idle backpressure}; do
        case $mode in
        plain) stress="" ;;
        idle) stress="--idle 30 --seed 3" ;;
        backpressure) stress="--backpressure 40 --seed 4" ;;
        esac
        # shellcheck disable=SC2086
        if "$ws" sim "$d" -q --sim "$sim" --width "$w" $stress > "$d.$mode.log" 2>&1 &&
           "$ws" check -q --prefix out "$d" >> "$d.$mode.log" 2>&1; then
            pass=$((pass + 1)); ws_record "$suite" "w$w-$name-$mode" 0
        else
            tail -n 20 "$d.$mode.log"
            fail=$((fail + 1)); ws_record "$suite" "w$w-$name-$mode" 1
        fi
    done
}

# f32_add cases as one two-worker job (A from worker 0, B from worker 1): Berkeley TestFloat's
# level 1 when testfloat_gen is installed (it is not packaged in Debian: tests/testfloat.sh),
# and always the edge and random cases of tests/tool_f32_add_vectors (R by this host's FPU)
vec_own="$tmp/f32_add-own.txt"
"$WS_BUILD/tests/tool_f32_add_vectors" 20000 > "$vec_own"
head -n 400 "$vec_own" > "$tmp/f32_add-edges.txt"
vec_tf=""
if command -v testfloat_gen > /dev/null 2>&1; then
    vec_tf="$tmp/f32_add-testfloat.txt"
    testfloat_gen -level 1 f32_add > "$vec_tf" || vec_tf=""
fi

for w in $widths; do
    lanes=$((w / 32))
    one f32-add-vectors "$w" --vectors "$vec_own" --count 256 --slots 4
    [ -n "$vec_tf" ] && one f32-add-testfloat "$w" --vectors "$vec_tf" --count 256 --slots 8
    one workers-1       "$w" --workers 1 --elems 300 --count 16 --dup 0.1
    one workers-2       "$w" --workers 2 --elems 500 --count 32 --loss 0.05
    one workers-3       "$w" --workers 3 --elems 700 --count 24 --slots 5 --dup 0.05
    one workers-4       "$w" --workers 4 --elems 2000 --count 64 --loss 0.05 --dup 0.05
    one workers-8       "$w" --workers 8 --elems 1000 --count 40 --slots 6
    one workers-32      "$w" --workers 32 --elems 600 --count 16 --slots 4 --loss 0.02
    one workers-64      "$w" --workers 64 --elems 300 --count 8 --slots 2 --dup 0.02
    one count-1         "$w" --workers 3 --elems 100 --count 1 --slots 5
    one count-lanes-1   "$w" --workers 3 --elems 500 --count $((lanes - 1))
    one count-lanes     "$w" --workers 3 --elems 500 --count $lanes
    one count-lanes+1   "$w" --workers 3 --elems 500 --count $((lanes + 1))
    one count-max       "$w" --workers 3 --elems 3000 --count 256 --slots 4
    one short-last      "$w" --workers 4 --elems 1001 --count 50 --tensors 2
    one recorded-digits "$w" --from tests/data/grad-digits --count 64 --slots 8 --loss 0.05 --dup 0.05
    one jobs-share      "$w" --jobs 3 --workers 5 --slots 8 --tensors 2 --elems 1500 --count 32 --loss 0.03 --dup 0.03
    one bypass-mix      "$w" --workers 4 --elems 1500 --count 32 --bypass 0.2
    one malformed       "$w" --jobs 2 --workers 3 --elems 4000 --count 32 --slots 4 --malformed 0.3 --seed 8
    one loss-dup        "$w" --workers 6 --elems 2000 --count 32 --slots 4 --loss 0.1 --dup 0.1 --ecn 0.05
    one special         "$w" --workers 5 --elems 2000 --count 64 --values special
    one everything      "$w" --jobs 2 --workers 4 --elems 2000 --count 48 --tensors 2 --values mixed --loss 0.05 --dup 0.05 --malformed 0.05 --bypass 0.05 --seed 11
done
if [ "${RTL_SMOKE:-1}" = 0 ]; then
    echo "$suite: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi
# smoke at 1024 bits: a frame may be a single beat, header and elements together (count <= 16:
# the engine's two-cycle judgement then holds the next frame's first beat a cycle)
one smoke-4         1024 --workers 4 --elems 2000 --count 64 --loss 0.05 --dup 0.05
one smoke-1beat     1024 --workers 3 --elems 1000 --count 16 --slots 4 --loss 0.05 --dup 0.05 --seed 13
one smoke-all       1024 --jobs 2 --workers 3 --elems 1500 --count 20 --values mixed --loss 0.05 --dup 0.05 --malformed 0.1 --bypass 0.1 --seed 12
# the same RTL under Icarus Verilog (about 1k cycles/s; each run's elaboration of the top alone
# takes most of its 20 s): a smoke subset, the edges under backpressure
SIM=icarus MODES=backpressure one smoke-edges 256 --vectors "$tmp/f32_add-edges.txt" --count 64 --slots 2
SIM=icarus MODES=plain one smoke-all 256 --jobs 2 --workers 3 --elems 300 --count 20 --values mixed --loss 0.05 --dup 0.05 --malformed 0.1 --bypass 0.1 --seed 12
# one model a simulation: `wiresum sim` reads the model's parameters from the model it then
# runs, so Icarus starts one vvp for the next case (counted by a vvp on PATH that logs and runs
# the real one)
real_vvp=$(command -v vvp || true)
if [ -n "$real_vvp" ]; then
    mkdir -p "$tmp/vvp-count"
    printf '#!/bin/sh
echo "$$" >> "%s/vvp-count/log"
exec "%s" "$@"
' "$tmp" "$real_vvp" > "$tmp/vvp-count/vvp"
    chmod +x "$tmp/vvp-count/vvp"
    : > "$tmp/vvp-count/log"
fi
PATH="$tmp/vvp-count:$PATH" SIM=icarus MODES=plain one smoke-count-max 256 --workers 2 --elems 512 --count 256 --slots 2 --dup 0.1
if [ -n "$real_vvp" ] && [ -d "$tmp/icarus-w256-smoke-count-max" ]; then
    if [ "$(wc -l < "$tmp/vvp-count/log")" -eq 1 ]; then
        pass=$((pass + 1)); ws_record "$suite" icarus-one-model 0
    else
        echo "vvp started $(wc -l < "$tmp/vvp-count/log") times, not once"
        fail=$((fail + 1)); ws_record "$suite" icarus-one-model 1
    fi
fi
echo "$suite: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
