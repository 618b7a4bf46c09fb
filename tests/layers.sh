#!/bin/sh
# tests/layers.sh [BUILD] - the code's layers, checked on the build: no circle between the C files
# (an object that needs a symbol of another which needs one of its own, at any distance: from
# the plain objects' defined and undefined symbols, nm), no private header included from another
# folder (a folder's public headers: driver/wiresum/, sim/wiresum/ and every header of util/,
# trace/, loop/, eval/ and cluster/model/; sim/'s other headers are its own, cluster/ns3/'s
# are the ns-3 layer's interface to the companion's main in cluster/), and the include path of each folder in mk/c.mk as docs/architecture.md draws it.
# Appends "layers <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
B=${1:-$WS_BUILD}
rc=0
result() { # case ok
    if [ "$2" = 1 ]; then echo "ok   layers $1"; echo "layers $1 1 0" >> "$WS_RESULTS"
    else echo "FAIL layers $1"; echo "layers $1 0 1" >> "$WS_RESULTS"; rc=1; fi
}

# 1. no circle between objects: the graph "A needs B" (A has B's symbol undefined) is acyclic
# the objects of the plain build whose source is there (not those a build of an older tree left)
objs=$(find "$B/obj" "$B/cluster" -name '*.o' 2>/dev/null | sort | while read -r o; do
    r=${o#"$B"/obj/}; r=${r#"$B"/cluster/}; r=${r%.o}
    for s in "$r.c" "$r.cpp" "cluster/$r.c" "cluster/ns3/$r.cc"; do
        [ -f "$s" ] && { echo "$o"; break; }; done; done)
if [ -z "$objs" ]; then
    echo "layers: no objects under $B/obj: build first (make)"; result no-circle 0
else
    # shellcheck disable=SC2086
    out=$(for o in $objs; do nm "$o" | awk -v o="${o#"$B"/}" '
        $1 == "U" { print "U", o, $2 } NF == 3 && $2 ~ /^[TDBR]$/ { print "D", o, $3 }'; done |
      awk '$1 == "D" { def[$3] = $2 } $1 == "U" { need[n++] = $2 " " $3 }
        END {
          for (i = 0; i < n; i++) { split(need[i], a, " "); if ((a[2] in def) && def[a[2]] != a[1]) {
              e = a[1] " " def[a[2]]; if (!(e in seen)) { seen[e] = 1; out[a[1]] = out[a[1]] " " def[a[2]]; why[e] = a[2] } } }
          # depth-first search for a back edge
          for (v in out) col[v] = 0
          for (v in out) if (!col[v]) dfs(v, v)
          if (found) print cyc
        }
        function dfs(v, path,    k, m, w, list) {
          col[v] = 1; m = split(out[v], list, " ")
          for (k = 1; k <= m && !found; k++) { w = list[k]
            if (col[w] == 1) { found = 1; cyc = path " -> " w " (" why[v " " w] ")" }
            else if (!col[w]) dfs(w, path " -> " w) }
          col[v] = 2 }')
    if [ -n "$out" ]; then echo "layers: a circle: $out"; result no-circle 0; else result no-circle 1; fi
fi

# 2. no private header from another folder
bad=""
for f in $(git ls-files '*.c' '*.h' '*.cc' '*.cpp' | grep -v '^tests/\|^tools/\|^examples/\|^bench/'); do
    dir=${f%/*}
    for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case $h in wiresum/*|V*|verilated*) continue ;; esac
        [ -f "$dir/$h" ] && continue                       # its own folder's
        [ -f "${dir%/*}/$h" ] && [ "${dir%/*}" = sim ] && continue # sim/icarus: sim/'s own
        owner=$(for d in util trace loop eval cluster/model sim cluster/ns3 cluster cli; do
                    [ -f "$d/$h" ] && { echo "$d"; break; }; done)
        case $owner in
        util|trace|loop|eval|cluster/model) ;;             # public to the layers above
        cluster/ns3) [ "$dir" = cluster ] && continue      # the C interface of the ns-3 layer
                     bad="$bad $f:$h($owner)" ;;           # to the companion's main
        *) bad="$bad $f:$h(${owner:-?})" ;;
        esac
    done
done
if [ -n "$bad" ]; then echo "layers: private headers included from another folder:$bad"; result no-private-header 0
else result no-private-header 1; fi
# 3. docs/architecture.md's table of what each folder sees is the build's include paths
want=$(make -s --no-print-directory print-layers 2>/dev/null)
doc=$(sed -n 's/^| `\([a-z/]*\)\/` | \([a-z/, ]*\) |$/\1: \2/p' docs/architecture.md |
      awk -F': ' '{ n = split($2, d, ", "); s = $1 ":"; for (i = 1; i <= n; i++) s = s " -I" d[i]; print s }')
if [ -n "$want" ] && [ "$want" = "$doc" ]; then result docs-drawing 1
else
    echo "layers: docs/architecture.md section 10's table is not the build's include paths:"
    echo "build:"; echo "$want"; echo "docs:"; echo "$doc"; result docs-drawing 0
fi
exit $rc
