#!/bin/sh
# fresh_build.sh - the first steps of the README's commands on a machine where the packages are
# not installed yet. Verilator and Icarus are hidden from PATH; a stand-in for scripts/deps.sh
# (the Makefile's WS_DEPS) "installs" them by putting them back, as apt-get would. Then:
#   fresh-dry-demo, fresh-dry-test  `make -n demo` / `make -n test` (the install step and the
#                                   second make run; the rest is printed): no tool is asked for
#                                   before the install, and the Verilator shim and the Icarus
#                                   bridge compile against the installed include directories
#   fresh-shim                      a real build of those first steps (the 256-bit model
#                                   Verilated, the shim and the bridge compiled) through `make`
#   fresh-jobs                      the second make runs as many jobs as the machine has cores
#   fresh-demo-widths               `make demo` Verilates the 256-bit models alone, `make test`
#                                   every width
# Appends "fresh <case> <passed> <failed>" lines to the results file (tests/lib.sh).
set -u
. "$(dirname "$0")/lib.sh"
tmp=$WS_BUILD/fresh
rm -rf "$tmp"
mkdir -p "$tmp/bin"
tmp=$(cd "$tmp" && pwd)
rc=0

record() { # name status
    ws_record fresh "$1" "$2"
    [ "$2" -eq 0 ] || rc=1
}

hidden='verilator* iverilog* vvp*'
is_hidden() {
    for h in $hidden; do
        # shellcheck disable=SC2254
        case $1 in $h) return 0;; esac
    done
    return 1
}

# the PATH of a machine without the hidden tools: every other command of PATH, linked
real_path=$PATH
old_ifs=$IFS; IFS=:
for d in $real_path; do
    IFS=$old_ifs
    [ -d "$d" ] || continue
    for f in "$d"/*; do
        n=${f##*/}
        [ -x "$f" ] && [ ! -d "$f" ] || continue
        is_hidden "$n" && continue
        [ -e "$tmp/bin/$n" ] || ln -s "$f" "$tmp/bin/$n"
    done
done
IFS=$old_ifs
vroot=$(verilator --getenv VERILATOR_ROOT)
ivflags=$(iverilog-vpi --cflags | tr ' ' '\n' | grep '^-I' | head -n 1)

# the stand-in install step: the hidden tools come back (and it says so, once)
cat > "$tmp/deps.sh" <<DEPS
#!/bin/sh
for h in $hidden; do
    for f in \$(PATH='$real_path' command -v \$h 2>/dev/null) $(dirname "$(command -v verilator)")/\$h; do
        [ -x "\$f" ] && ln -sf "\$f" "$tmp/bin/\${f##*/}"
    done
done
echo installed >> "$tmp/installs"
DEPS

fresh() { # log make-arguments...: make with the tools hidden until the stand-in install
    log=$1; shift
    rm -f "$tmp/installs"
    for h in $hidden; do rm -f "$tmp/bin/"$h; done
    # as from a shell: none of the make flags of a make that runs this suite
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES PATH="$tmp/bin" \
        make --no-print-directory BUILD="$tmp/b" WS_DEPS="sh $tmp/deps.sh" "$@" \
        > "$tmp/$log.out" 2> "$tmp/$log.err"
}

# a log is good when: the install ran first, no tool was missing, the shim line uses Verilator's
# installed include directory and the Icarus bridge's (when the goal builds it) iverilog-vpi's
good_log() { # log [vpi]
    [ -s "$tmp/installs" ] &&
    ! grep -E 'verilator: (No such file|not found)|iverilog-vpi: (No such file|not found)|command not found' \
        "$tmp/$1.err" "$tmp/$1.out" > /dev/null &&
    grep 'ws_sim_shim.cpp' "$tmp/$1.out" | grep -q -- "-isystem $vroot/include " &&
    ! grep -q -- '-isystem /include ' "$tmp/$1.out" &&
    { [ $# -lt 2 ] || grep 'ws_vpi.c' "$tmp/$1.out" | grep -q -- "$ivflags"; }
}

for goal in demo test; do
    # -n: the install step and the second make are run (+ lines), the rest printed; -k: carry on
    # past the Verilator submakes that find no generated makefile under -n
    fresh "dry-$goal" -n -k "$goal"
    vpi=; [ "$goal" = test ] && vpi=vpi   # the demo needs no Icarus
    # shellcheck disable=SC2086
    if good_log "dry-$goal" $vpi; then record "dry-$goal" 0
    else tail -n 20 "$tmp/dry-$goal.err"; record "dry-$goal" 1; fi
done

# the demo builds the 256-bit models alone (traced and untraced), the test every width
if grep -q -- '-GDATA_WIDTH=256 ' "$tmp/dry-demo.out" &&
   ! grep -q -- '-GDATA_WIDTH=\(512\|1024\) ' "$tmp/dry-demo.out" &&
   grep -q -- '-GDATA_WIDTH=1024 ' "$tmp/dry-test.out"; then
    record demo-widths 0
else
    grep -- '-GDATA_WIDTH=' "$tmp/dry-demo.out" "$tmp/dry-test.out" | head -n 6; record demo-widths 1
fi

# for real: the first steps of the build (one model, 256 bits, to keep it short)
fresh shim WS_SIM_WIDTHS=256 WS_SIM_FAST_WIDTHS= \
    WS_ALL_GOALS="$tmp/b/obj/sim/ws_sim_shim.o $tmp/b/icarus/ws_vpi.vpi" all
st=$?
if [ $st -eq 0 ] && good_log shim vpi && [ -s "$tmp/b/obj/sim/ws_sim_shim.o" ] &&
   [ -s "$tmp/b/icarus/ws_vpi.vpi" ]; then
    record shim 0
else
    tail -n 30 "$tmp/shim.err"; record shim 1
fi

# the second make's job count: the machine's cores, unless -j was given
n=$(nproc)
fresh jobs -n -p WS_SIM_WIDTHS=256 WS_SIM_FAST_WIDTHS= demo
fresh jobs2 -n -p -j1 WS_SIM_WIDTHS=256 WS_SIM_FAST_WIDTHS= demo
if grep -q -- "--no-print-directory -j$n .*/wiresum\$" "$tmp/jobs.out" &&
   ! grep -q -- "--no-print-directory -j$n " "$tmp/jobs2.out"; then
    record jobs 0
else
    grep -- '--no-print-directory' "$tmp/jobs.out" "$tmp/jobs2.out" | head -n 4; record jobs 1
fi
exit $rc
