#!/bin/sh
# wave_names.sh - signal names of a GTKWave layout (.gtkw) against those of an FST waveform.
#
#   wave_names.sh fst FILE.fst               every signal of the FST, named as GTKWave names it:
#                                            scope.name, then [i] for an array element, then
#                                            [msb:lsb] for a vector (TOP.wiresum_top.h_q[6:0])
#   wave_names.sh layout FILE.gtkw           every signal the layout shows (aliases resolved)
#   wave_names.sh filters FILE.gtkw          the translate filter files the layout reads
#   wave_names.sh check FILE.gtkw FILE.fst   print the layout's signals missing from the FST and
#                                            its filter files that do not exist; exit 1 if any
#   wave_names.sh fit FILE.gtkw FILE.fst OUT.gtkw
#                                            as check, but first give a missing signal the range
#                                            the FST has for the same name (a trace at another
#                                            DATA_WIDTH: tdata[255:0] -> tdata[511:0]); OUT is
#                                            the layout so fitted. Exit 1 if any is still missing.
#
# GTKWave drops a signal of a layout that is not in the dump without a word: hence check.
# Filter paths are taken relative to the current directory, as GTKWave takes them.
set -eu

usage() {
    sed -n '2,17s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

# fst FILE: the header of the FST as VCD (fst2vcd, from the gtkwave package), its $var lines
fst_names() {
    [ -f "$1" ] || { echo "wave_names: $1: no such file" >&2; exit 1; }
    command -v fst2vcd > /dev/null 2>&1 ||
        { echo "wave_names: fst2vcd not found (Debian package gtkwave; make deps)" >&2; exit 1; }
    # fst2vcd stops on the closed pipe once the definitions are read
    # shellcheck disable=SC2016  # $enddefinitions and the awk program are literal
    fst2vcd "$1" 2> /dev/null | sed '/\$enddefinitions/q' | awk '
        $1 == "$scope"   { path = (path == "" ? $3 : path "." $3); next }
        $1 == "$upscope" { sub(/\.?[^.]*$/, "", path); next }
        $1 == "$var"     { n = $5; if ($6 != "$end") n = n $6; print path "." n }'
}

# layout FILE: the signal lines of a save file. Other lines: [section], @flags, -comment or
# group, *zoom and markers, ^filter. "+{alias} name" shows name; "#{alias} a b ..." joins a, b.
layout_names() {
    [ -f "$1" ] || { echo "wave_names: $1: no such file" >&2; exit 1; }
    awk '
        /^[[@*^-]/ || NF == 0 { next }
        /^\+\{/ { sub(/^\+\{[^}]*\} */, ""); print; next }
        /^#\{/  { sub(/^#\{[^}]*\} */, ""); for (i = 1; i <= NF; i++) print $i; next }
        { print }' "$1"
}

# filters FILE: "^N path" (translate file) and "^>N path" (translate process) lines
layout_filters() {
    awk '/^\^>?[0-9]+ / { sub(/^\^>?[0-9]+ +/, ""); if (!seen[$0]++) print }' "$1"
}

# missing LAYOUT NAMES-FILE: layout signals not in the list, in layout order, once each
missing() {
    layout_names "$1" | awk 'NR == FNR { have[$0] = 1; next } !($0 in have) && !seen[$0]++' "$2" -
}

# filters_missing LAYOUT: filter files that cannot be opened from here
filters_missing() {
    layout_filters "$1" | while IFS= read -r f; do
        [ -r "$f" ] || echo "filter file $f"
    done
}

cmd=${1:-}
case $cmd in
fst)     [ $# -eq 2 ] || usage; fst_names "$2" ;;
layout)  [ $# -eq 2 ] || usage; layout_names "$2" ;;
filters) [ $# -eq 2 ] || usage; layout_filters "$2" ;;
check|fit)
    if [ "$cmd" = check ]; then [ $# -eq 3 ] || usage; else [ $# -eq 4 ] || usage; fi
    layout=$2; fst=$3
    tmp=$(mktemp "${TMPDIR:-/tmp}/wave_names.XXXXXX")
    trap 'rm -f "$tmp" "$tmp.fit"' EXIT
    fst_names "$fst" > "$tmp"
    [ -s "$tmp" ] || { echo "wave_names: $fst: no signals (not an FST?)" >&2; exit 1; }
    src=$layout
    if [ "$cmd" = fit ]; then
        # a name missing as it is, whose base (the name without its last [msb:lsb]) is that
        # of exactly one FST signal, takes that signal's name
        awk -v layout="$layout" '
            function base(s) { sub(/\[[0-9]+:[0-9]+\]$/, "", s); return s }
            NR == FNR { have[$0] = 1; b = base($0); n[b]++; full[b] = $0; next }
            /^[[@*^#+-]/ || NF == 0 || ($0 in have) { print; next }
            { b = base($0); if (b != $0 && n[b] == 1) print full[b]; else print }' \
            "$tmp" "$layout" > "$tmp.fit"
        cp "$tmp.fit" "$4"
        src=$4
    fi
    bad=$( { missing "$src" "$tmp"; filters_missing "$src"; } )
    if [ -n "$bad" ]; then
        echo "wave_names: $layout refers to signals not in $fst, or to missing files:" >&2
        printf '%s\n' "$bad" | sed 's/^/  /' >&2
        exit 1
    fi
    ;;
*) usage ;;
esac
