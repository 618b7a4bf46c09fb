#!/bin/sh
# testfloat.sh [testfloat_gen-args] - check the xsum rounding against Berkeley TestFloat f32_add vectors.
# Example: tests/testfloat.sh -level 2      (arguments go to testfloat_gen before "f32_add")
set -u
bin=${BUILD:-build}/wiresum
if ! command -v testfloat_gen >/dev/null 2>&1; then
    cat <<'MSG'
testfloat: testfloat_gen not found on PATH (Berkeley TestFloat is not packaged in Debian).
To get it, build it from source (it needs Berkeley SoftFloat 3 next to it):
    git clone https://github.com/ucb-bar/berkeley-softfloat-3
    git clone https://github.com/ucb-bar/berkeley-testfloat-3
    make -C berkeley-softfloat-3/build/Linux-x86_64-GCC
    make -C berkeley-testfloat-3/build/Linux-x86_64-GCC
    export PATH="$PWD/berkeley-testfloat-3/build/Linux-x86_64-GCC:$PATH"
then run this script again.
testfloat: skipped
MSG
    exit 0
fi
if [ ! -x "$bin" ]; then
    echo "testfloat: $bin not found; run 'make' first" >&2
    exit 1
fi
# POSIX sh has no pipefail: keep testfloat_gen's status in a file.
st=$(mktemp) || exit 1
trap 'rm -f "$st"' EXIT
{ testfloat_gen "$@" f32_add; echo $? > "$st"; } | "$bin" testfloat
rc=$?
gen_rc=$(cat "$st")
if [ "$gen_rc" != 0 ]; then
    echo "testfloat: testfloat_gen $* f32_add failed (exit $gen_rc)" >&2
    exit 1
fi
exit $rc
