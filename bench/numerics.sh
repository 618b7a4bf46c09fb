#!/bin/sh
# bench/numerics.sh - the numerics table (docs/performance.md section 7): what summing binary32
# gradients without wiresum costs against the exact sum, by `wiresum numerics` (eval/numerics.c),
# on real gradients recorded with scripts/record_gradients.py for 2 to 64 workers and on gen's
# three value distributions: binary32 summation in random arrival orders, a pairwise adder
# tree (PANAMA), SwitchML's int32 block quantization, and wiresum (0 by construction, checked).
# Writes build/bench/numerics.md (a fragment that bench/all.sh includes); the recordings and the
# runs' JSON summaries go to build/bench/numerics/. A few minutes on two cores.
#
# Environment: WS (default build/wiresum); PYTHON (default /usr/bin/python3, Debian's, with
# python3-torch and python3-sklearn: without them the recorded rows are left out, and the
# fragment says so); NUMERICS_ORDERS (default 1000) random orders per element; NUMERICS_ELEMS
# (default 4096) elements of a generated tensor; NUMERICS_WORKERS (default 2 4 8 16 32 64).
set -eu
WS=${WS:-build/wiresum}
PY=${PYTHON:-/usr/bin/python3}
ORDERS=${NUMERICS_ORDERS:-1000}
ELEMS=${NUMERICS_ELEMS:-4096}
WORKERS=${NUMERICS_WORKERS:-2 4 8 16 32 64}
B=build/bench
D=$B/numerics
OUT=$B/numerics.md
[ -x "$WS" ] || { echo "bench/numerics.sh: $WS not built (make build/wiresum)" >&2; exit 1; }
rm -rf "$D"
mkdir -p "$D"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
MACHINE="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores, ${cpu:-unknown CPU}"
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
CMDS=$D/commands.txt
: > "$CMDS"
t0=$(date +%s)

# run NAME ARGS...: `wiresum numerics --json ARGS` into $D/NAME.json (its text for people into
# $D/NAME.log), the command into commands.txt
run() {
    name=$1; shift
    echo "$WS numerics $* --json" >> "$CMDS"
    echo "bench/numerics.sh: $WS numerics $*" >&2
    "$WS" numerics "$@" --json > "$D/$name.json" 2> "$D/$name.log" ||
        { cat "$D/$name.log" >&2; exit 1; }
}

# real gradients: one recording per workers count, the same network, seed and batches (a batch
# of 128 digits split into N shards), so that each row is an N-worker data-parallel job
REC_ARGS="--batch 128 --hidden 32 --steps 4 --seed 1"
recorded=""
if "$PY" -c 'import torch, sklearn' 2> /dev/null; then
    echo "$PY scripts/record_gradients.py $D/grad-w<N> --workers <N> $REC_ARGS   # N = $(echo $WORKERS | tr ' ' ,)" >> "$CMDS"
    for w in $WORKERS; do
        # shellcheck disable=SC2086
        "$PY" scripts/record_gradients.py "$D/grad-w$w" --workers "$w" $REC_ARGS > /dev/null
        # shellcheck disable=SC2086
        run "rec-w$w" --from "$D/grad-w$w" --orders "$ORDERS"
        recorded="$recorded $D/rec-w$w.json"
    done
    REC_NOTE="Real gradients: \`scripts/record_gradients.py\` ($(sed -n 's/^model: //p' "$D/grad-w2/recording.txt"); $(sed -n 's/^data: //p' "$D/grad-w2/recording.txt" | sed 's/ in [0-9]* shards of [0-9]*//'), split into N shards; $(sed -n 's/, numpy.*//p' "$D/grad-w2/recording.txt")): every element of every step of one recording per N, its worker w's gradient the contribution of worker w."
else
    echo "bench/numerics.sh: no torch or sklearn for $PY: the rows of real gradients are left out; install them with" >&2
    echo "  sudo apt-get install python3-torch python3-sklearn" >&2
    REC_NOTE="Real gradients: **not measured**: $PY could not import torch and sklearn on this machine (\`sudo apt-get install python3-torch python3-sklearn\`, then \`make bench\` again); the rows below are gen's distributions only."
fi
run gen --elems "$ELEMS" --orders "$ORDERS" --workers "$(echo $WORKERS | tr ' ' ,)"
secs=$(($(date +%s) - t0))

# one table row per JSON row: input, workers, elements, then each method; a share not correctly
# rounded says in parentheses how much of it is Inf or NaN
rows() {
    jq -r --arg name "$1" '.rows[] | [(if $name == "" then .input else $name end), .workers, .elements,
        (.sequential | .share_not_correctly_rounded, .nonfinite / .results, .max_ulp, .mean_ulp,
                       .distinct_max, .distinct_mean),
        (.tree | .share_not_correctly_rounded, .nonfinite / .results, .max_ulp, .mean_ulp),
        (.switchml | .share_not_correctly_rounded, .nonfinite / .results, .max_ulp, .mean_ulp),
        .wiresum.not_correctly_rounded, .wiresum.max_ulp] | @tsv' "$2" |
    awk -F'\t' 'function share(s, nf) { return sprintf("%.2f %%", 100 * s) (nf > 0 ? sprintf(" (%.2f %% Inf/NaN)", 100 * nf) : "") }
        END { if (NR == 0) exit 1 }
        { printf "| %s | %s | %s | %s | %.6g | %.3g | %s / %.2f | %s | %.6g | %.3g | %s | %.6g | %.3g | %s, %s ulp |\n",
                 $1, $2, $3, share($4, $5), $6, $7, $8, $9, share($10, $11), $12, $13,
                 share($14, $15), $16, $17, $18, $19 }'
}
# shellcheck disable=SC2086
overflows=$(cat $recorded "$D/gen.json" | jq -s '[.[].rows[].switchml.overflows] | add')

{
    printf '## 7. Numerics\n\n'
    printf 'What wiresum'"'"'s promise (docs/protocol.md section 6: one rounding of the exact sum, whatever the order) is worth against the other ways to sum binary32 gradients in a network. For each element, r is the correctly rounded exact sum of the workers'"'"' values (`ws_sum_f32`, driver/wiresum/xsum.h), and each method'"'"'s result is compared with it (`wiresum numerics`, eval/numerics.c):\n\n'
    printf -- '- **sequential**: binary32 addition in arrival order, rounded after every add (a switch or host that adds contributions as they come), in %s random orders of the workers per element (seeded Fisher-Yates shuffles: the same for a given seed); **distinct** is how many different results one element takes over those orders (max over the elements / mean).\n' "$ORDERS"
    printf -- '- **tree**: a balanced binary adder tree over the workers in worker order, every node a binary32 add, as PANAMA'"'"'s FPGA adder tree (pairs (0,1), (2,3), ...; an odd one out goes up a level as it is). One result per element: the order is fixed.\n'
    printf -- '- **SwitchML**: int32 block quantization with a scale per chunk (Sapio et al., NSDI 2021; the rule of its client library, p4app-switchML `cpu_exponent_quantizer_ppp.cc`): per chunk of 256 elements (a packet), each worker takes the exponent e = E - 126 of its largest magnitude (E its exponent field, so 2^e exceeds every value; e = -126 for zeros and subnormals), the switch keeps the largest e over the workers, and each worker sends round(v x f) with f = INT32_MAX / (N x 2^e) as a binary32 (the product in binary32, ties away from zero as `std::round`), so that the sum of N integers cannot overflow int32; the switch adds the integers (32-bit, wrapping: %s), and the result is (float) sum / f in binary32. Where the library would overflow (it keeps e in an int8 and computes N x 2^e in binary32, which overflow for magnitudes of 2^126/N and more; f beyond the binary32 range for chunks below 2^-97/N) this model computes e and N x 2^e exactly and takes f as FLT_MAX: favourable to SwitchML. Its integers carry no Inf or NaN: they quantize to 0.\n' "$([ "$overflows" -eq 0 ] && echo 'no sum overflowed here' || echo "$overflows sums overflowed here")"
    printf -- '- **wiresum**: the device'"'"'s arithmetic, the exact sum rounded once, in the same random orders and as a tree of partial accumulators merged (the 4-engine device): 0 by construction, and computed anyway: `wiresum numerics` fails if any result is not r.\n\n'
    printf '**Error in ulps** of a result x: |x - r| / ulp(r), with ulp(r) = 2^(max(E,1) - 150) the spacing of binary32 in r'"'"'s binade (E its exponent field), computed in double from the two binary32 values: 0 exactly when x = r, 1 for a neighbour of r in its binade. **Not correctly rounded**: the share of results x != r as numbers (+0 = -0; any NaN equals any NaN), over elements x orders for sequential, over elements for the others. Inf and NaN: a result or an r that is Inf or NaN has no ulp error (the max and mean are over the finite pairs); it counts as not correctly rounded unless both are the same Inf or both NaN, and the share of them is in parentheses: an overflow to Inf on the way, or SwitchML'"'"'s lost Inf and NaN. With special values, the largest errors are cancellations: r tiny (a subnormal'"'"'s ulp is 2^-149) and x of the order of the magnitudes that cancelled.\n\n'
    printf '%s gen'"'"'s distributions: the values `wiresum gen --values KIND --seed 1 --workers N --elems %s` writes for its first tensor (trace/gen.c `ws_gen_value`): **normal** (gradient-like, bell-shaped significands over 28 binades, an occasional outlier 2^24 larger), **mixed** (one value in 16 from special), **special** (zeros, subnormals, extremes, ties, Inf, NaN).\n\n' "$REC_NOTE" "$ELEMS"
    printf '| input | workers | elements | sequential: not correctly rounded | max ulp | mean ulp | distinct max / mean | tree: not correctly rounded | max ulp | mean ulp | SwitchML: not correctly rounded | max ulp | mean ulp | wiresum: not correctly rounded, max ulp |\n'
    printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
    for f in $recorded; do rows "digits MLP (recorded)" "$f"; done
    rows "" "$D/gen.json"
    # the largest workers count of real gradients (gen's normal values without them) in a sentence
    jq -r '[.rows[] | select(.input != "mixed" and .input != "special")] | last | [.input, .workers, .sequential.share_not_correctly_rounded,
        .sequential.distinct_max, .sequential.distinct_mean, .tree.share_not_correctly_rounded,
        .switchml.share_not_correctly_rounded, .wiresum.results] | @tsv' \
        "${recorded##* }" "$D/gen.json" 2> /dev/null | head -n 1 |
    awk -F'\t' -v rec="$recorded" '{ printf "\nIn short, at %s workers on %s: binary32 summation in arrival order gives a result other than the correctly rounded sum %.0f %% of the time, and one element takes up to %s different results (%.1f on average) depending on the order the packets arrive in; a fixed adder tree is wrong for %.0f %% of the elements, SwitchML'"'"'s quantization for %.0f %%; wiresum'"'"'s %s results are all the correctly rounded sum.\n",
        $2, rec == "" ? "gen'"'"'s " $1 " values" : "real gradients", 100 * $3, $4, $5, 100 * $6, 100 * $7, $8 }'
    printf '\n**The size of exact partial sums.** A device below a parent sends each round'"'"'s exact sums up in a PARTIAL frame (docs/protocol.md section 9): one 8-byte word per element holding 54 significant bits from the sum'"'"'s top set bit, and more words only for a sum whose set bits span more. The same runs encode the exact sum of the N values of every element as a PARTIAL would carry it (`wiresum numerics`, "partial"), against the 4 bytes of binary32:\n\n'
    printf '| input | workers | bytes per element | sums longer than one word |\n|---|---:|---:|---:|\n'
    for f in $recorded; do
        jq -r '.rows[] | ["digits MLP (recorded)", .workers, .partial.bytes_per_element, .partial.escaped / .elements] | @tsv' "$f"
    done | awk -F'\t' '{ printf "| %s | %s | %.3f | %.3f %% |\n", $1, $2, $3, 100 * $4 }'
    jq -r '.rows[] | [.input, .workers, .partial.bytes_per_element, .partial.escaped / .elements] | @tsv' "$D/gen.json" |
        awk -F'\t' '{ printf "| %s | %s | %.3f | %.3f %% |\n", $1, $2, $3, 100 * $4 }'
    printf '\nOn real gradients every partial sum fits one word: 8 bytes an element, twice binary32, the target. gen'"'"'s normal values are wider on purpose (28 binades, outliers 2^24 larger), its mixed and special ones mix zeros, subnormals and values near overflow: there the words that follow cost 8 bytes per further 54-bit run.\n'
    printf '\nMachine: %s; date: %s; commit: %s (plus any uncommitted changes of the working tree); %s s for the section. Commands (`make bench` runs `sh bench/numerics.sh`):\n\n```\n' "$MACHINE" "$DATE" "$commit" "$secs"
    cat "$CMDS"
    printf '```\n'
} > "$OUT"
echo "bench/numerics.sh: wrote $OUT" >&2
