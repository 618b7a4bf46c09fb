#!/bin/sh
# docs_check.sh - the documentation cannot rot silently:
#   docs diagram  docs/pipeline.svg is what Graphviz makes of docs/pipeline.dot today
#                 (fix: sh scripts/diagram.sh, and check the SVG in)
#   docs links    every relative link and image of README.md and docs/*.md names a file or
#                 directory of the repository
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

# 3. the repository stands alone: its files cite its own documents (docs/protocol.md is the
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
