#!/bin/sh
# libwiresum.sh - libwiresum as a program outside the tree sees it. Installs the library and the
# models' library into build/lib-test/prefix (`make install-sim PREFIX=...`), then:
#   driver-alone     every driver/*.c compiles with -Idriver alone (no header of the tools or sim/)
#   headers          every installed header compiles on its own with pkg-config's flags
#   pc               pkg-config knows wiresum and wiresum-sim, at the installed prefix
#   example          examples/allreduce.c, copied out of the tree, built with
#                    `pkg-config --cflags --libs wiresum wiresum-sim` against the shared
#                    libwiresum.so.1 of the prefix, runs and every worker holds the exact sum
#   static           the same program linked with the static libwiresum.a
# Appends "lib <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/lib-test
rm -rf "$tmp"
mkdir -p "$tmp/src"
tmp=$(cd "$tmp" && pwd)
prefix=$tmp/prefix
rc=0
std="-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror"

record() { # name status
    ws_record lib "$1" "$2"
    [ "$2" -eq 0 ] || rc=1
}

st=0
for c in driver/*.c; do
    # shellcheck disable=SC2086
    cc $std -Idriver -c "$c" -o /dev/null 2>> "$tmp/driver.log" || { echo "  $c"; st=1; }
done
[ $st -eq 0 ] || cat "$tmp/driver.log"
record driver-alone $st

if ! make --no-print-directory install-sim PREFIX="$prefix" > "$tmp/install.log" 2>&1; then
    tail -n 20 "$tmp/install.log"
    for c in headers pc example static; do record $c 1; done
    exit 1
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

st=0
for h in "$prefix"/include/wiresum/*.h; do
    n=wiresum/${h##*/}
    # shellcheck disable=SC2046
    printf '#include <%s>\n' "$n" | cc $std $(pkg-config --cflags wiresum) -x c -c - \
        -o /dev/null 2>> "$tmp/headers.log" || { echo "  $n"; st=1; }
done
[ "$(ls "$prefix"/include/wiresum/*.h | wc -l)" -ge 8 ] || st=1
[ $st -eq 0 ] || cat "$tmp/headers.log"
record headers $st

if [ "$(pkg-config --variable=prefix wiresum)" = "$prefix" ] &&
   pkg-config --exists wiresum-sim && pkg-config --libs wiresum | grep -q -- '-lwiresum'; then
    record pc 0
else
    pkg-config --print-errors --exists wiresum wiresum-sim; record pc 1
fi

cp examples/allreduce.c "$tmp/src/"
runs() { # binary log: runs and prints the example's success line
    LD_LIBRARY_PATH="$prefix/lib" "$1" 2000 > "$2" 2>&1 &&
    grep -q "every worker holds the exact sum" "$2"
}
# shellcheck disable=SC2046
if (cd "$tmp/src" && cc $std -O2 allreduce.c $(pkg-config --cflags --libs wiresum wiresum-sim) \
        -o allreduce) > "$tmp/example-build.log" 2>&1 &&
   LD_LIBRARY_PATH="$prefix/lib" ldd "$tmp/src/allreduce" | grep -q "libwiresum.so.1 => $prefix/lib/" &&
   runs "$tmp/src/allreduce" "$tmp/example.log"; then
    record example 0
else
    cat "$tmp/example-build.log" "$tmp/example.log" 2>/dev/null | tail -n 20; record example 1
fi

# shellcheck disable=SC2046
if (cd "$tmp/src" && cc $std -O2 allreduce.c $(pkg-config --cflags wiresum wiresum-sim) \
        "$prefix/lib/libwiresum-sim.a" "$prefix/lib/libwiresum.a" \
        $(pkg-config --static --libs-only-l wiresum wiresum-sim | sed 's/-lwiresum-sim//; s/-lwiresum//') \
        -o allreduce-static) > "$tmp/static-build.log" 2>&1 &&
   ! ldd "$tmp/src/allreduce-static" | grep -q libwiresum &&
   runs "$tmp/src/allreduce-static" "$tmp/static.log"; then
    record static 0
else
    cat "$tmp/static-build.log" "$tmp/static.log" 2>/dev/null | tail -n 20; record static 1
fi
exit $rc
