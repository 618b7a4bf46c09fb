#!/bin/sh
# readme.sh [--check] [WIRESUM] - the output excerpts of README.md, made again from the current
# code by running the commands they show (`make readme`); --check: compare instead, and fail
# when an excerpt is no longer what its commands print (`make readme-check`, a suite of make
# test: "readme <excerpt> <passed> <failed>" lines in the results file, tests/lib.sh).
#
# An excerpt is a fenced block of README.md right after a line `<!-- output NAME ... -->`; every
# fenced block without a language (```) must be one. NAME is one of these, each its commands
# and what of their output the excerpt keeps (the rest is "..."):
#   demo    `make demo`: scripts/demo.sh on the built tool (what the Makefile's demo target runs
#           after the build); of the reference's report, the totals line and the first and last
#           drop reasons
#   t1      the commands of the sh block above (gen, ref, check, sim, check --prefix out): gen's
#           line, then "...", sim's first two lines, the last check's line
#   run     the command of the sh block above (`wiresum run`): its first six lines, "  ...", its
#           last line
#   tshark  the first two commands of the sh block above (each ends in `head -3`): their output
#           whole; the others of the block (a full dissection, the Wireshark GUI) are not run
# The commands run in a work directory ($BUILD/readme/work) holding build/wiresum (the tool) and
# the repository's scripts/ and tools/, so that they print the relative paths the README shows
# (build/demo, build/t1) and no path of this machine. Their standard output is the excerpt;
# standard error (progress, tshark's notes) goes to $BUILD/readme/NAME.log.
#
# What varies from machine to machine, and nothing else, is masked when comparing: the
# simulation speed ("N cycles/s" of sim and run) and run's wall time ("clocked in N s"). Writing
# keeps the README's line where the new one differs from it only there, so that `make readme`
# on another machine changes only what the code changed.
# Needs tshark (Debian package tshark, scripts/deps.sh). WIRESUM: default $BUILD/wiresum.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
. tests/lib.sh
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
ws=${1:-$WS_BUILD/wiresum}
case $ws in /*) ;; *) ws=$root/$ws ;; esac
readme=README.md
names="demo t1 run tshark"

d=$WS_BUILD/readme
case $d in /*) ;; *) d=$root/$d ;; esac
rm -rf "$d"
mkdir -p "$d/work/build" "$d/x"
ln -s "$ws" "$d/work/build/wiresum"
ln -s "$root/scripts" "$d/work/scripts"
ln -s "$root/tools" "$d/work/tools"
mkdir -p "$d/wireshark"   # no personal preferences or Decode As entries (tests/dissector.sh)
export WIRESHARK_CONFIG_DIR="$d/wireshark"

[ -x "$ws" ] || { echo "readme: $ws is not built: make build/wiresum" >&2; exit 1; }

# 1. the excerpts: x/NAME.old (the block), x/NAME.sh (the last sh block before it), x/NAME.line
if ! awk -v x="$d/x" -v names=" $names " -v md="$readme" '
    function err(msg) { print md ":" FNR ": " msg > "/dev/stderr"; bad = 1 }
    block == "" && /^```sh$/ { block = "sh"; n = 0; delete cmd; next }
    block == "sh" && /^```$/ { block = ""; next }
    block == "sh" { cmd[++n] = $0; next }
    block == "out" && /^```$/ { block = ""; close(x "/" name ".old"); next }
    block == "out" { print > (x "/" name ".old"); next }
    pending != "" {
        if ($0 != "```") err("the output marker " pending " is not followed by a fenced block")
        else {
            name = pending; block = "out"
            printf "" > (x "/" name ".old")
            for (i = 1; i <= n; i++) print cmd[i] > (x "/" name ".sh")
            close(x "/" name ".sh")
            print FNR > (x "/" name ".line"); close(x "/" name ".line")
        }
        pending = ""; next
    }
    /^<!-- output / {
        pending = $3
        if (index(names, " " pending " ") == 0) { err("no excerpt " pending " in scripts/readme.sh"); pending = "" }
        else if (pending in seen) { err("a second excerpt " pending); pending = "" }
        else seen[pending] = 1
        next
    }
    block == "other" && /^```$/ { block = ""; next }
    block == "other" { next }
    /^```/ {
        if ($0 == "```") err("a fenced output block without an <!-- output NAME --> marker (scripts/readme.sh)")
        block = "other"; next
    }
    END {
        if (block != "") err("a fenced block not closed")
        n = split(names, all, " ")
        for (i = 1; i <= n; i++)
            if (!(all[i] in seen)) { print md ": no <!-- output " all[i] " --> excerpt" > "/dev/stderr"; bad = 1 }
        exit bad
    }' "$readme"; then
    echo "readme: the excerpts of $readme are not marked as scripts/readme.sh expects (above)" >&2
    [ $check -eq 1 ] && ws_record readme markers 1
    exit 1
fi
[ $check -eq 1 ] && ws_record readme markers 0

# run NAME COMMAND...: each command in the work directory, its output in x/NAME.<k>
run() {
    rn=$1; shift
    k=0
    for c in "$@"; do
        k=$((k + 1))
        printf '$ %s\n' "$c" >> "$d/$rn.log"
        if ! (cd "$d/work" && sh -c "$c") > "$d/x/$rn.$k" 2>> "$d/$rn.log" < /dev/null; then
            echo "readme: $rn: \`$c\` failed (see $d/$rn.log)" >&2
            return 1
        fi
    done
}

# block NAME K: the K-th command of the sh block before NAME's excerpt
block() {
    c=$(sed -n "$2p" "$d/x/$1.sh" 2> /dev/null)
    [ -n "$c" ] || { echo "readme: $readme: the sh block before the excerpt $1 has no command $2" >&2; return 1; }
    printf '%s\n' "$c"
}

# excerpt NAME: runs its commands and prints the excerpt (the elisions of the header above)
excerpt() {
    o=$d/x/$1
    case $1 in
    demo)
        run demo "sh scripts/demo.sh build/wiresum" || return 1
        awk 'function flush() { if (nd > 2) print "    ..."; if (nd > 1) print last; nd = 0 }
             /^== / { flush(); inref = /^== wiresum ref:/; print; next }
             inref && /^  accepted / { print; next }
             inref && /^    drop / { if (!nd++) print; else last = $0; next }
             inref { next }
             { print }
             END { flush() }' "$o.1" ;;
    t1)
        set --
        [ -f "$o.sh" ] && while IFS= read -r c; do set -- "$@" "$c"; done < "$o.sh"
        [ $# -eq 5 ] || { echo "readme: t1: the sh block above has $# commands, not gen ref check sim check" >&2; return 1; }
        run t1 "$@" || return 1
        cat "$o.1"; echo "..."; head -n 2 "$o.4"; tail -n 1 "$o.5" ;;
    run)
        c1=$(block run 1) || return 1
        run run "$c1" || return 1
        head -n 6 "$o.1"; echo "  ..."; tail -n 1 "$o.1" ;;
    tshark)
        command -v tshark > /dev/null 2>&1 ||
            { echo "readme: tshark not found (Debian package tshark: sh scripts/deps.sh)" >&2; return 1; }
        c1=$(block tshark 1) && c2=$(block tshark 2) || return 1
        run tshark "$c1" "$c2" || return 1
        cat "$o.1" "$o.2" ;;
    esac
}

# mask: the parts that vary from machine to machine (the header above)
mask() {
    sed -E -e 's/[0-9]+ cycles\/s/N cycles\/s/g' -e 's/clocked in [0-9.]+ s/clocked in N s/g'
}

rc=0
for name in $names; do
    if ! excerpt "$name" > "$d/x/$name.new" || [ ! -s "$d/x/$name.new" ]; then
        [ $check -eq 1 ] && ws_record readme "$name" 1
        rc=1; continue
    fi
    mask < "$d/x/$name.old" > "$d/x/$name.old.m"
    mask < "$d/x/$name.new" > "$d/x/$name.new.m"
    if [ $check -eq 1 ]; then
        if cmp -s "$d/x/$name.old.m" "$d/x/$name.new.m"; then
            ws_record readme "$name" 0
        else
            echo "readme: the excerpt $name ($readme line $(cat "$d/x/$name.line")) is not what its commands print now (< README, > now; speeds and wall times masked): run make readme" >&2
            diff "$d/x/$name.old.m" "$d/x/$name.new.m" >&2
            ws_record readme "$name" 1
            rc=1
        fi
    else
        # keep the README's line where only the masked parts differ (same number of lines)
        if [ "$(wc -l < "$d/x/$name.old")" -eq "$(wc -l < "$d/x/$name.new")" ]; then
            paste -d '\n' "$d/x/$name.old" "$d/x/$name.old.m" "$d/x/$name.new" "$d/x/$name.new.m" |
                awk '{ o = $0; getline om; getline n; getline nm; print (om == nm ? o : n) }' \
                > "$d/x/$name.keep"
            mv "$d/x/$name.keep" "$d/x/$name.new"
        fi
    fi
done
if [ $check -eq 1 ]; then
    [ $rc -eq 0 ] && echo "readme: every excerpt of $readme is what its commands print"
    exit $rc
fi
[ $rc -eq 0 ] || { echo "readme: $readme left as it was (above)" >&2; exit 1; }

# 2. write: each marked block replaced by x/NAME.new
awk -v x="$d/x" '
    skip && /^```$/ { skip = 0; print; next }
    skip { next }
    name != "" { print; while ((getline l < (x "/" name ".new")) > 0) print l; skip = 1; name = ""; next }
    /^<!-- output / { name = $3 }
    { print }' "$readme" > "$d/README.md"
if cmp -s "$d/README.md" "$readme"; then
    echo "readme: $readme already shows what its commands print"
else
    diff "$readme" "$d/README.md"
    cp "$d/README.md" "$readme"
    echo "readme: $readme rewritten (above: < before, > now)"
fi
