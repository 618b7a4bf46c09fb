#!/bin/sh
# bench/engines.sh - capacity that scales with ports (docs/architecture.md section 9, ENGINES): the
# device built with four engines (one per port), every ingress port saturated by a closed loop
# (`wiresum bench`), for each width built into the model: engine beats per cycle of all engines
# together (target 4 x 0.99), the same per engine, wire efficiency, latency.
# Writes build/bench/engines.md (a fragment that bench/all.sh includes) and the runs' JSON
# summaries, one a line, to build/bench/engines.jsonl (keys: docs/traces.md).
#
# Environment: WS_E4 (default build/bench/e4/wiresum: `make bench` builds it with
# WS_VFLAGS=-GENGINES=4); WS_E4_<width> another model for that width; ENGINES_WIDTHS (default:
# 256 512, those the model has);
# ENGINES_CYCLES (default 20000) the load window.
set -eu
WS_E4=${WS_E4:-build/bench/e4/wiresum}
WIDTHS=${ENGINES_WIDTHS:-256 512}
CYC=${ENGINES_CYCLES:-20000}
B=build/bench
mkdir -p "$B"
OUT=$B/engines.md
JS=$B/engines.jsonl
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
MACHINE="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores, ${cpu:-unknown CPU}"
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
: > "$JS"
cmds=""
for w in $WIDTHS; do
    m=$(eval "echo \${WS_E4_$w:-$WS_E4}")
    [ -x "$m" ] || { echo "bench/engines.sh: $m not built (make bench builds it)" >&2; exit 1; }
    for c in 64 256; do
        cmd="$m bench --width $w --workers 4 --count $c --slots 32 --warmup 5000 --cycles $CYC --idle-rounds 5 --json"
        echo "bench/engines.sh: $cmd" >&2
        # shellcheck disable=SC2086
        if $cmd > "$B/engines.one" 2> "$B/engines.err"; then
            jq -c . "$B/engines.one" >> "$JS"
        else
            echo "bench/engines.sh: width $w count $c failed:" >&2
            cat "$B/engines.err" >&2
        fi
        cmds="$cmds$cmd
"
    done
done
rm -f "$B/engines.one" "$B/engines.err"
{
    printf '## 6. Engines: capacity that scales with ports\n\n'
    printf 'The device built with `ENGINES = 4` (one engine per port: its own input arbiter, parser, exact partial lanes and result generator; the slot state judged in arrival order for all; an adder tree of the four partials and one rounding per element when a round completes; docs/architecture.md section 9). Four workers, one per port, keep every ingress port saturated (`wiresum bench`, windows of 32 slots, a worker sends chunk i on port (w+i) mod 4; with 16 slots, 5-beat frames at 512 bits do not fill the loop: a port at full rate needs more than 16 chunks in flight to cover the round trip, and the bench measured 3.64 beats per cycle there, a limit of the load, not of the device); every RESULT is checked against the exact sum. Beats per cycle counts the frames the engines accepted (device counter) times their beats, over the window; target 4 x 0.99 = 3.96. Wire efficiency is the goodput over the wire limit of the four engines'"'"' capacity.\n\n'
    printf '| width | elements | engine beats/cycle (all) | per engine | wire efficiency | latency to first RESULT (idle, cycles) | RESULTs checked, wrong |\n|---|---|---|---|---|---|---|\n'
    jq -r '[.width, .count, .util, .util / ([.engines, 1] | max), .wire_eff,
            .idle_latency.first.median, .results_checked, .bad_results] | @tsv' "$JS" |
        awk -F'\t' '{ printf "| %s | %s | %.4f | %.4f | %.4f | %s | %s, %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
    printf '\nAt 256 bits and 200 MHz, 4 engines are 204.8 Gb/s of datapath; at 512 bits and 322 MHz (the 4 x 100G target) 659.5 Gb/s. The rates above are cycle counts of the RTL; the clock is a target, not a timing result.\n\n'
    printf 'Machine: %s; date: %s; commit: %s. The models are named in the commands: `build/p1/wiresum` holds the 4-engine 256-bit model of `make test`, `build/bench/e4/wiresum` the one `make bench` builds (cycle counts do not depend on how either was compiled). Commands:\n\n```\n%s```\n' "$MACHINE" "$DATE" "$commit" "$cmds"
} > "$OUT"
echo "bench/engines.sh: wrote $OUT" >&2
