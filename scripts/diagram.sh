#!/bin/sh
# diagram.sh [OUT.svg] - render the block diagram of docs/architecture.md: docs/pipeline.dot
# (Graphviz source) to docs/pipeline.svg, or to OUT. Run after editing the .dot and check the
# result in; tests/docs_check.sh fails while the checked-in SVG is not what the .dot gives.
# Needs dot (Debian package graphviz, installed by scripts/deps.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/pipeline.svg}
command -v dot > /dev/null 2>&1 || { echo "diagram: dot not found (Debian package graphviz: sh scripts/deps.sh)" >&2; exit 1; }
dot -Tsvg "$root/docs/pipeline.dot" -o "$out"
