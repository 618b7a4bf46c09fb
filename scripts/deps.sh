#!/bin/sh
# deps.sh - install the Debian packages wiresum needs, quietly and only if missing.
# As root: apt-get installs them. Otherwise: print the exact command and fail.
set -eu
PKGS="gcc g++ make pkg-config zlib1g-dev libpcap-dev libinih-dev libcmocka-dev libjansson-dev jq verilator iverilog gtkwave yosys python3 tshark gnuplot-nox graphviz clang libclang-rt-14-dev libns3-dev libgsl-dev libgoogle-perftools-dev"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    echo "deps: done"
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run as root:  sudo apt-get update && sudo $cmd" >&2
    exit 1
fi
