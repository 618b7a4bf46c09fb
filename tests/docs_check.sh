#!/bin/sh
# docs_check.sh - the documentation cannot rot silently:
#   docs diagram  docs/pipeline.svg is what Graphviz makes of docs/pipeline.dot today
#                 (fix: sh scripts/diagram.sh, and check the SVG in)
#   docs links    every relative link and image of README.md and docs/*.md names a file or
#                 directory of the repository
#   docs paths    every path README.md names in a code span, outside fences, is a file, a
#                 directory or a glob of the repository: a name with a slash, from the top or,
#                 in a table row whose first cell names paths (the tour of the tree), from the
#                 folder of one of them; in such a row a bare file name (NAME.EXT, NAME.[ch]) too. Names of
#                 what the tools write are left alone: build/..., placeholders in capitals
#                 (DIR/..., FILE.fst) and <P>-style patterns
#   docs tour     every top-level folder of the repository (git ls-files) is named in the first
#                 cell of a row of README.md's tour of the tree
#   docs suites   README.md's list of the suites of make test (its lines "- `SUITE`: ...") is
#                 mk/tests.mk's TEST_SUITES (make print-suites), each suite once
#   docs alone    no file of the repository cites a document outside it (the project's
#                 contract and style notes live beside the repository, not in it)
# Appends "docs <case> <passed> <failed>" to the results file (tests/lib.sh), like
# the other suites, and exits 1 if a case failed. Needs dot (graphviz, scripts/deps.sh).
set -u
cd "$(dirname "$0")/.." || exit 1
. "$(dirname "$0")/lib.sh"
rc=0

record() { # case ok(0|1)
    ws_record docs "$1" "$2"
    [ "$2" -eq 0 ] || rc=1
}

# 1. the diagram
tmp=$(mktemp "${TMPDIR:-/tmp}/docs_check.XXXXXX")
trap 'rm -f "$tmp"' EXIT
if ! command -v dot > /dev/null 2>&1; then
    echo "FAIL docs diagram: dot not found (Debian package graphviz: sh scripts/deps.sh)"
    record diagram 1
elif ! sh scripts/diagram.sh "$tmp"; then
    echo "FAIL docs diagram: dot failed on docs/pipeline.dot"
    record diagram 1
elif ! cmp -s "$tmp" docs/pipeline.svg; then
    echo "FAIL docs diagram: docs/pipeline.svg is not what docs/pipeline.dot gives: run sh scripts/diagram.sh"
    diff "$tmp" docs/pipeline.svg | head -n 10
    record diagram 1
else
    record diagram 0
fi

# 2. relative links: [text](path) and ![alt](path), outside code spans and fences; #anchors and
# URLs with a scheme are not checked
bad=$(for md in README.md docs/*.md; do
    awk -v md="$md" '
        /^[ \t]*```/ { fence = !fence; next }
        fence { next }
        {
            line = $0
            gsub(/`[^`]*`/, "", line)                  # code spans
            while (match(line, /\]\([^) \t]+\)/)) {
                target = substr(line, RSTART + 2, RLENGTH - 3)
                line = substr(line, RSTART + RLENGTH)
                if (target ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || target ~ /^#/) continue
                sub(/#.*/, "", target)
                print md "\t" FNR "\t" target
            }
        }' "$md"
done | while IFS="$(printf '\t')" read -r md line target; do
    dir=$(dirname "$md")
    [ -e "$dir/$target" ] || echo "  $md:$line: $target"
done)
if [ -n "$bad" ]; then
    echo "FAIL docs links: links to files that do not exist:"
    printf '%s\n' "$bad"
    record links 1
else
    record links 0
fi

# 3. paths in README.md's code spans (the header above says which)
bad=$(awk '
    /^[ \t]*```/ { fence = !fence; next }
    fence { next }
    {
        bases = ""
        if ($0 ~ /^\|/) {                            # a table row: its first cell gives the bases
            split($0, cell, "|")
            c = cell[2]
            while (match(c, /`[^`]*`/)) {
                t = substr(c, RSTART + 1, RLENGTH - 2); c = substr(c, RSTART + RLENGTH)
                if (t ~ /\//) { sub(/\/[^\/]*$/, "", t); bases = bases " " t }
            }
        }
        line = $0
        while (match(line, /`[^`]*`/)) {
            span = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
            n = split(span, w, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                t = w[i]
                if (t ~ /^(build\/|\/|-|\$|[A-Z][A-Z_]*[\/.])/ || t ~ /[<{=:]/) continue
                if (t ~ /\// || (bases != "" && t ~ /^[A-Za-z0-9_*][A-Za-z0-9_.*-]*\.([a-z]+|\[[a-z]+\])$/))
                    print FNR "\t" t "\t" bases
            }
        }
    }' README.md | while IFS="$(printf '\t')" read -r line t bases; do
    found=0
    for b in "" $bases; do
        for f in ${b:+$b/}$t; do [ -e "$f" ] && found=1; done
    done
    [ $found -eq 1 ] || echo "  README.md:$line: $t"
done)
if [ -n "$bad" ]; then
    echo "FAIL docs paths: README.md names files that do not exist:"
    printf '%s\n' "$bad"
    record paths 1
else
    record paths 0
fi

# 4. the tour: a row for each top-level folder
missing=$(git ls-files | sed -n 's|^\([^/]*\)/.*|\1|p' | sort -u | while read -r dir; do
    grep -q "^| [^|]*\`$dir/" README.md || echo "  $dir/"
done)
if [ -n "$missing" ]; then
    echo "FAIL docs tour: folders of the repository without a row in README.md's tour of the tree:"
    printf '%s\n' "$missing"
    record tour 1
else
    record tour 0
fi

# 5. the suites of make test: README.md's list against TEST_SUITES
listed=$(sed -n 's/^- `\([a-z0-9-]*\)`: .*/\1/p' README.md | sort)
suites=$(MAKEFLAGS='' MAKELEVEL='' ${MAKE:-make} -s --no-print-directory print-suites | tr ' ' '\n' | sed '/^$/d' | sort)
if [ -z "$suites" ]; then
    echo "FAIL docs suites: make print-suites printed no suite"
    record suites 1
elif [ "$listed" != "$suites" ]; then
    echo "FAIL docs suites: README.md's list of suites is not mk/tests.mk's TEST_SUITES (< README.md, > TEST_SUITES):"
    : > "$tmp"; [ -z "$listed" ] || printf '%s\n' "$listed" > "$tmp"
    printf '%s\n' "$suites" | diff "$tmp" - | grep '^[<>]'
    record suites 1
else
    record suites 0
fi

# 6. the repository stands alone: its files cite its own documents (docs/protocol.md is the
# normative text), never PRODUCT.md, STYLE.md or ../shared/ outside the tree
outside=$(git grep -n -I -E 'PRODUCT\.md|STYLE\.md|\.\./shared/' -- . ':!tests/docs_check.sh' 2>/dev/null)
if [ -n "$outside" ]; then
    echo "FAIL docs alone: citations of documents outside the repository:"
    printf '%s\n' "$outside" | head -n 20
    record alone 1
else
    record alone 0
fi
exit $rc
