#!/bin/sh
# numerics.sh WIRESUM WIRESUM_ASAN - `wiresum numerics` (eval/numerics.c) on hand-made
# recordings whose answers are known: binary32 summation that loses the ones added to 2^24 in
# two of three orders, three distinct results of three values, the pairwise tree's double
# rounding, SwitchML's per-chunk scale dropping a small value (and keeping it in a chunk of its
# own), Inf and NaN; gen's distributions (wiresum's row 0, repeatable for a seed); bad input.
# Appends "numerics <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
ws=$1
asan=$2
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/numerics
rm -rf "$tmp"
mkdir -p "$tmp"
rc=0

record() { # name status
    ws_record numerics "$1" "$2"
    [ "$2" -eq 0 ] || rc=1
}

# rec DIR VALUES...: a recording of one step, one worker per argument, each a space-separated
# list of binary32 bit patterns (hex), one per element: DIR/w<W>-s0.f32, big-endian
rec() {
    d=$1; shift
    rm -rf "$d"; mkdir -p "$d"
    w=0
    for vals in "$@"; do
        # shellcheck disable=SC2059
        printf "$(echo "$vals" | awk 'function hex(c) { return index("0123456789abcdef", c) - 1 }
            { for (i = 1; i <= NF; i++) for (j = 1; j <= 7; j += 2)
                  printf "\\%03o", 16 * hex(substr($i, j, 1)) + hex(substr($i, j + 1, 1)) }')" \
            > "$d/w$w-s0.f32"
        w=$((w + 1))
    done
}

# known NAME JQ-EXPR ARGS...: `numerics --json ARGS` (the sanitized build) exits 0 and EXPR
# holds of its only row (.rows[0] as `.`)
known() {
    name=$1; expr=$2; shift 2
    if "$asan" numerics --json "$@" > "$tmp/$name.json" 2> "$tmp/$name.log" &&
       ws_json_true "$tmp/$name.json" ".rows | length == 1" &&
       ws_json_true "$tmp/$name.json" ".rows[0] | $expr"; then
        record "$name" 0
    else
        cat "$tmp/$name.log"; jq -c '.rows[0]' "$tmp/$name.json" 2> /dev/null
        record "$name" 1
    fi
}
# wiresum's row: every result (one per order, one for the tree) is the exact sum
exact='.wiresum.not_correctly_rounded == 0 and .wiresum.max_ulp == 0 and
       .wiresum.results == .elements * (ORDERS + 1)'

# 2^24 + 1 + 1 = 2^24 + 2, but 2^24 + 1 rounds to 2^24 (a tie, to even): only the two orders that
# add the ones first are right, the others are 1 ulp (2) off; 2 distinct results. The tree
# (2^24 + 1) + 1 loses both.
rec "$tmp/ones" 4b800000 3f800000 3f800000
known ones-lost "$(echo "$exact" | sed s/ORDERS/1000/) and .workers == 3 and .elements == 1 and
    .sequential.distinct_max == 2 and .sequential.max_ulp == 1 and
    .sequential.share_not_correctly_rounded > 0.6 and .sequential.share_not_correctly_rounded < 0.73 and
    .tree.not_correctly_rounded == 1 and .tree.max_ulp == 1" --from "$tmp/ones"

# 2^24, -2^24, 0.75: (2^24 - 2^24) + 0.75 = 0.75; (2^24 + 0.75) - 2^24 = 0, 12582912 ulps of
# 0.75 (2^-24) off; (-2^24 + 0.75) + 2^24 = 1, 4194304 off: 3 distinct results, a third each.
# In worker order the tree cancels first and is right; with 0.75 first it is not.
rec "$tmp/three" 4b800000 cb800000 3f400000
known three-results "$(echo "$exact" | sed s/ORDERS/300/) and .sequential.distinct_max == 3 and
    .sequential.distinct_mean == 3 and .sequential.max_ulp == 12582912 and
    .sequential.mean_ulp > 5000000 and .sequential.mean_ulp < 6200000 and
    .tree.not_correctly_rounded == 0" --from "$tmp/three" --orders 300
rec "$tmp/three-b" 3f400000 4b800000 cb800000
known tree-order ".tree.not_correctly_rounded == 1 and .tree.max_ulp == 12582912" --from "$tmp/three-b" --orders 10

# the tree of 2^24, 1, 1, 1: (2^24 + 1) + (1 + 1) = 2^24 + 2, but the exact 2^24 + 3 rounds to
# 2^24 + 4 (a tie, to even): 1 ulp. In sequence, 2^24 among the first two loses all three ones
# (2^24, 2 ulps off: half the orders); later, 2 or 3 + 2^24 rounds to 2^24 + 4, right.
rec "$tmp/tree4" 4b800000 3f800000 3f800000 3f800000
known tree-double-rounding ".tree.not_correctly_rounded == 1 and .tree.max_ulp == 1 and
    .sequential.max_ulp == 2 and .sequential.distinct_max == 2 and
    .sequential.share_not_correctly_rounded > 0.4 and .sequential.share_not_correctly_rounded < 0.6" \
    --from "$tmp/tree4" --orders 400

# SwitchML: two workers, element 0 = 1 + 1, element 1 = 2^-31 + 2^-31. One chunk: its largest
# exponent field is 127, e = 1, scale INT32_MAX / (2 x 2^1) = 2^29 as a binary32; 2^-31 x 2^29 =
# 0.25 rounds to 0, so element 1 comes back 0 instead of 2^-30: 2^23 ulps (ulp 2^-53).
# Element 0: 2^29 + 2^29 = 2^30, / 2^29 = 2, right. Sequential and tree: one add, always right.
rec "$tmp/sml" "3f800000 30000000" "3f800000 30000000"
known switchml-chunk ".elements == 2 and .switchml.not_correctly_rounded == 1 and
    .switchml.max_ulp == 8388608 and .switchml.mean_ulp == 4194304 and .switchml.overflows == 0 and
    .sequential.not_correctly_rounded == 0 and .sequential.distinct_max == 1 and
    .tree.not_correctly_rounded == 0" --from "$tmp/sml"
# a chunk of one element: 2^-31 gets its own scale (e = -30, 2^60) and survives
known switchml-own-chunk ".switchml.not_correctly_rounded == 0 and .switchml.max_ulp == 0" --from "$tmp/sml" --count 1

# Inf and NaN: +Inf + -Inf is NaN in any order (right: NaN = NaN); SwitchML's integers carry
# neither (non-finite, not correctly rounded). max + max - max: the exact max, but Inf in the two
# orders that add the maxima first (a third), and in the tree.
rec "$tmp/inf" "7f800000 7f7fffff" "ff800000 7f7fffff" "00000000 ff7fffff"
known non-finite "$(echo "$exact" | sed s/ORDERS/600/) and .elements == 2 and
    .sequential.nonfinite == .sequential.not_correctly_rounded and
    .sequential.nonfinite > 150 and .sequential.nonfinite < 250 and .sequential.max_ulp == 0 and
    .tree.not_correctly_rounded == 1 and .tree.nonfinite == 1 and .switchml.nonfinite >= 1" \
    --from "$tmp/inf" --orders 600

# the text for people names the same numbers
"$ws" numerics --from "$tmp/three" --orders 300 > "$tmp/three.txt" 2>&1 &&
    grep -q "^  sequential .* ulps max 12582912, mean 5\\.[0-9]*e+06$" "$tmp/three.txt" &&
    grep -q "distinct results of an element: max 3, mean 3.000" "$tmp/three.txt" &&
    grep -q "^  wiresum  *0.0000 % not correctly rounded (0 of 301, 0 non-finite); ulps max 0, mean 0" "$tmp/three.txt"
st=$?
[ $st -eq 0 ] || cat "$tmp/three.txt"
record text $st

# gen's distributions at every default workers count: wiresum's row is 0, the others are not,
# and a second run with the same seed gives the same table
ok=0
"$ws" numerics --json --elems 300 --orders 100 --seed 5 > "$tmp/gen1.json" 2> "$tmp/gen.log" &&
    "$ws" numerics --json --elems 300 --orders 100 --seed 5 > "$tmp/gen2.json" 2>> "$tmp/gen.log" || ok=1
cmp -s "$tmp/gen1.json" "$tmp/gen2.json" || { echo "two runs with --seed 5 differ"; ok=1; }
ws_json_true "$tmp/gen1.json" '.ok and (.rows | length) == 18 and
    ([.rows[].workers] | unique) == [2, 4, 8, 16, 32, 64] and
    ([.rows[].input] | unique) == ["mixed", "normal", "special"] and
    all(.rows[]; .wiresum.not_correctly_rounded == 0 and .wiresum.results == 300 * 101) and
    all(.rows[] | select(.workers == 2); .sequential.not_correctly_rounded == 0 and
                                            .tree.not_correctly_rounded == 0) and
    all(.rows[] | select(.workers >= 8 and .input != "special"); .sequential.not_correctly_rounded > 0 and
        .sequential.distinct_max > 1 and .tree.not_correctly_rounded > 0) and
    all(.rows[]; .switchml.not_correctly_rounded > 0)' || { cat "$tmp/gen.log"; ok=1; }
record gen-distributions $ok
# the recording of make test's traces (4 workers, 2 steps), under the sanitizers
known recorded-digits "$(echo "$exact" | sed s/ORDERS/20/) and .workers == 4 and .elements == 2420" \
    --from tests/data/grad-digits --orders 20

# bad input: a message naming the option or the file, exit 2 for options, 1 for files
ok=0
bad() { # EXIT TEXT ARGS...
    want=$1; text=$2; shift 2
    "$asan" numerics "$@" > "$tmp/bad.log" 2>&1
    st=$?
    [ "$st" -eq "$want" ] && grep -q -- "$text" "$tmp/bad.log" ||
        { echo "numerics $*: exit $st, expected $want and '$text':"; cat "$tmp/bad.log"; ok=1; }
}
bad 1 "wiresum numerics: --from $tmp/nosuch: No such file or directory" --from "$tmp/nosuch"
mkdir -p "$tmp/empty"
bad 1 "no recorded gradients" --from "$tmp/empty"
rec "$tmp/gap" 3f800000 3f800000 3f800000
rm "$tmp/gap/w1-s0.f32"
bad 1 "gap/w1-s0.f32: No such file" --from "$tmp/gap"
bad 2 "wiresum: --orders 0: expected an integer in 1..1000000" --orders 0
bad 2 "wiresum: --workers 2,x: expected workers counts 1..64 separated by commas" --workers 2,x
bad 2 "wiresum: --workers 65: expected workers counts" --workers 65
bad 2 "wiresum: --workers 2,,4: expected workers counts" --workers 2,,4
bad 2 "wiresum: --workers 4,: expected workers counts" --workers 4,
bad 2 "wiresum: --values normal,gauss: expected normal, mixed or special" --values normal,gauss
bad 2 "wiresum: --count 0: expected an integer in 1..2048" --count 0
bad 2 "wiresum numerics: --workers cannot apply with --from" --from "$tmp/ones" --workers 4
bad 2 "wiresum numerics: unexpected argument 'extra'" extra
bad 2 "unrecognized option" --bogus
"$ws" numerics --help | grep -q "usage: wiresum numerics" || { echo "no --help"; ok=1; }
record bad-input $ok

exit $rc
