#!/bin/sh
# dissector.sh [WIRESUM] - the Wireshark dissector tools/wireshark/wiresum.lua against the C codec.
#
# Traces from `wiresum gen` (DATA frames with malformed ones, duplicates, retransmissions and bypass
# frames), the reference's RESULT frames (`wiresum ref`, expected<P>.pcap) and the PARTIALs of a
# tree of devices (`wiresum run --tree 2 --record`: into its root, corrupted ones among them, and
# out of a leaf) are decoded by tshark
# with the dissector and by build/tests/tool_ws_fields (driver/wiresum/wire.h ws_parse, ws_elem); for every
# frame, every header field, every element's index and raw word (a PARTIAL's element and record
# words), and the set of wiresum expert
# infos must be the same (diff). Then: element floats, at least one expert info of each kind, the
# port preference and "Decode As", the documented filter, and a broken copy of the dissector must
# fail the comparison. Appends "dissector <case> <passed> <failed>" lines to the results file
# (tests/lib.sh) and ends with a summary line.
#
# tshark runs Lua scripts as root only when init.lua (/usr/share/wireshark/init.lua) sets
# run_user_scripts_when_superuser = true, as Debian's does; the "lua" case fails with that hint
# when the dissector does not load. WIRESHARK_CONFIG_DIR points at an empty directory, so that
# personal preferences and Decode As entries change nothing (a copy of wiresum.lua among the
# personal Lua plugins would still be loaded first: remove it to test this one).
set -u
. "$(dirname "$0")/lib.sh"
ws=${1:-$WS_BUILD/wiresum}
tool=$WS_BUILD/tests/tool_ws_fields
lua=${WIRESUM_LUA:-tools/wireshark/wiresum.lua}
tmp=$WS_BUILD/dissector
rm -rf "$tmp"
mkdir -p "$tmp/wsconfig"
WIRESHARK_CONFIG_DIR=$(cd "$tmp/wsconfig" && pwd)
export WIRESHARK_CONFIG_DIR
pass=0; fail=0

record() { # name status [message]
    [ "$2" -eq 0 ] || [ -z "${3:-}" ] || echo "dissector $1: $3"
    ws_record dissector "$1" "$2"
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

FIELDS="frame.number wiresum.ver_type wiresum.version wiresum.type wiresum.dtype wiresum.flags
        wiresum.flags.set wiresum.flags.retx wiresum.flags.reserved wiresum.reserved wiresum.job
        wiresum.worker wiresum.slot wiresum.count wiresum.offset wiresum.tensor wiresum.reserved2
        wiresum.ext wiresum.elem.index wiresum.elem.raw wiresum.word wiresum.record _ws.expert.message"
# col FIELD: the column of FIELD in those files (awk reads the columns by these names)
col() {
    i=0
    for x in $FIELDS; do i=$((i + 1)); [ "$x" = "$1" ] && { echo $i; return; }; done
    echo "dissector.sh: no field $1 in FIELDS" >&2; exit 1
}
C_SET=$(col wiresum.flags.set); C_RETX=$(col wiresum.flags.retx); C_JOB=$(col wiresum.job)
C_EXPERT=$(col _ws.expert.message)

# tshark_fields LUA PCAP [TSHARK-OPTIONS...]: the columns of tool_ws_fields. Booleans as 0/1
# (newer Wireshark prints True/False); the expert messages of every protocol reduced to the
# names of the wiresum ones, in tool_ws_fields' order.
tshark_fields() {
    l=$1; p=$2; shift 2
    e=""
    for x in $FIELDS; do e="$e -e $x"; done
    # shellcheck disable=SC2086
    tshark -n -X lua_script:"$l" -r "$p" "$@" -T fields -E aggregator=';' $e 2>> "$tmp/tshark.log" |
    awk -F'\t' -v set="$C_SET" -v retx="$C_RETX" -v ex="$C_EXPERT" 'BEGIN {
        OFS = "\t"; n = split("truncated bad_version bad_type bad_dtype bad_flags bad_reserved bad_count bad_length retx", order, " ")
        pre["Truncated aggregation header"] = "truncated"; pre["Bad version "] = "bad_version"
        pre["Bad type "] = "bad_type"; pre["Bad dtype "] = "bad_dtype"
        pre["Reserved flag bits set"] = "bad_flags"; pre["Reserved byte 3 "] = "bad_reserved"
        pre["Reserved bytes 20-21 "] = "bad_reserved"; pre["Count is 0"] = "bad_count"
        pre["Length is not 64 + 4*count"] = "bad_length"; pre["Retransmission (RETX)"] = "retx"
    }
    {
        for (i = set; i <= retx; i += retx - set) { if ($i == "True") $i = 1; else if ($i == "False") $i = 0 }
        split("", seen); m = split($ex, msg, ";")
        for (k = 1; k <= m; k++)
            for (p in pre)
                if (substr(msg[k], 1, length(p)) == p) seen[pre[p]] = 1
        s = ""
        for (k = 1; k <= n; k++) if (order[k] in seen) s = s (s == "" ? "" : ";") order[k]
        $ex = s; print
    }'
}

# compare NAME LUA PCAP [TSHARK-OPTIONS...]: 0 when tshark and the codec agree on every frame;
# TOOL_ARGS: options of tool_ws_fields (--port N ...)
compare() {
    name=$1; l=$2; p=$3; shift 3
    tshark_fields "$l" "$p" "$@" > "$tmp/$name.tshark"
    # shellcheck disable=SC2086
    "$tool" ${TOOL_ARGS:-} "$p" > "$tmp/$name.codec" || return 1
    # at least one aggregation header among the frames, or the comparison proves nothing
    awk -F'\t' '$2 != "" { n++ } END { exit n == 0 }' "$tmp/$name.codec" || return 1
    diff "$tmp/$name.codec" "$tmp/$name.tshark" > "$tmp/$name.diff"
}

# the traces: each trace's in<P>.pcap and expected<P>.pcap concatenated into in.pcap, expected.pcap
gen() { # NAME GEN-ARGS...
    d="$tmp/$1"; shift
    "$ws" gen "$d" -q "$@" > "$d.log" 2>&1 && "$ws" ref "$d" -q >> "$d.log" 2>&1 &&
        mergecap -a -F pcap -w "$d/in.pcap" "$d"/in[0-9]*.pcap >> "$d.log" 2>&1 &&
        mergecap -a -F pcap -w "$d/expected.pcap" "$d"/expected[0-9]*.pcap >> "$d.log" 2>&1
}
TRACES="mixed special count1 tree"
ok=0
gen mixed --ports 2 --jobs 2 --workers 3 --elems 1200 --count 24 --slots 4 --values mixed \
    --loss 0.05 --dup 0.1 --malformed 0.4 --bypass 0.3 --ecn 0.05 --seed 21 || ok=1
gen special --ports 1 --workers 2 --elems 5000 --count 2048 --slots 2 --values special \
    --dup 0.2 --malformed 0.3 --bypass 0.2 --seed 22 || ok=1
gen count1 --ports 3 --workers 4 --elems 40 --count 1 --slots 3 --loss 0.1 --malformed 0.4 \
    --seed 23 || ok=1
# PARTIALs (corrupted ones among them) into a root, PARTIALs and RESULTs out of a leaf
d=$tmp/tree; mkdir -p "$d"
{ "$ws" run --device ref --tree 2 --workers 4 --elems 600 --count 40 --values special --loss 0.05 \
      --corrupt 0.1 --seed 24 --no-progress -q --record "$d/run" &&
  mergecap -a -F pcap -w "$d/in.pcap" "$d"/run/s0/in[0-9]*.pcap &&
  mergecap -a -F pcap -w "$d/expected.pcap" "$d"/run/s0.0/expected[0-9]*.pcap; } > "$d.log" 2>&1 || ok=1
if [ $ok -ne 0 ]; then
    for t in $TRACES; do cat "$tmp/$t.log"; done
    record gen 1 "wiresum gen/ref/mergecap failed"
    echo "dissector: $pass passed, $fail failed"; exit 1
fi

# Lua loads (as root too) and the dissector registers on the aggregation port
n=$(tshark -n -X lua_script:"$lua" -r "$tmp/mixed/in.pcap" -Y wiresum 2> "$tmp/lua.log" | wc -l)
if [ "$n" -gt 0 ]; then
    record lua 0
else
    cat "$tmp/lua.log"
    record lua 1 "no frame decoded as wiresum: is Lua enabled (tshark -v: 'with Lua'), and as root does /usr/share/wireshark/init.lua set run_user_scripts_when_superuser = true?"
    echo "dissector: $pass passed, $fail failed"; exit 1
fi

# every field of every frame, DATA (with malformed, duplicate, retransmitted and bypass frames)
# and RESULT, against the codec
for t in $TRACES; do
    for k in in expected; do
        if compare "$t-$k" "$lua" "$tmp/$t/$k.pcap"; then
            record "fields-$t-$k" 0
        else
            head -n 6 "$tmp/$t-$k.diff" | cut -c 1-300
            record "fields-$t-$k" 1 "see $tmp/$t-$k.diff"
        fi
    done
done

# no Lua error and no exception in the dissector (a read past the end of a short frame)
bad=""
for t in mixed count1 tree; do
    n=$(tshark -n -X lua_script:"$lua" -r "$tmp/$t/in.pcap" -T fields -e frame.number \
        -Y '_ws.lua.error || (wiresum && _ws.malformed.expert)' 2>> "$tmp/tshark.log" | tr '\n' ' ')
    [ -z "$n" ] || bad="$bad $t/in.pcap frames $n;"
done
[ -z "$bad" ]; record no-errors $? "Lua errors or exceptions in$bad"

# every expert info of the dissector is raised somewhere (the codec predicted where, above)
missing=""
for x in truncated bad_version bad_type bad_dtype bad_flags bad_reserved bad_count bad_length retx; do
    cat "$tmp"/*.tshark | cut -f "$C_EXPERT" | tr ';' '\n' | grep -qx "$x" || missing="$missing $x"
done
[ -z "$missing" ]; record experts-all $? "never raised:$missing"

# the malformed frames, found by display filters on the expert infos, are those the codec predicts
m=$(awk -F'\t' -v ex="$C_EXPERT" '$ex ~ /truncated|bad_/ { print $1 }' "$tmp/mixed-in.codec" | tr '\n' ' ')
n=$(tshark -n -X lua_script:"$lua" -r "$tmp/mixed/in.pcap" -T fields -e frame.number -Y \
    'wiresum.truncated || wiresum.bad_version || wiresum.bad_type || wiresum.bad_dtype ||
     wiresum.bad_flags || wiresum.bad_reserved || wiresum.bad_count || wiresum.bad_length' \
    2>> "$tmp/tshark.log" | tr '\n' ' ')
[ -n "$m" ] && [ "$n" = "$m" ]; record expert-filter $? "frames '$n', the codec predicts '$m'"
# ... and carry expert info of group Malformed, severity Error (as do some of other protocols)
n=$(tshark -n -X lua_script:"$lua" -r "$tmp/mixed/in.pcap" -T fields -e frame.number -Y \
    'wiresum && _ws.expert.group == "Malformed" && _ws.expert.severity == "Error"' \
    2>> "$tmp/tshark.log" | tr '\n' ' ')
missing=""
for x in $m; do case " $n" in *" $x "*) ;; *) missing="$missing $x" ;; esac; done
[ -z "$missing" ]; record expert-group $? "frames without Malformed/Error expert info:$missing"

# elements as floats (tshark rounds them for display: 6 significant digits in 4.0)
floats() { # NAME PCAP
    tshark -n -X lua_script:"$lua" -r "$2" -Y 'wiresum.elem' -T fields -E aggregator=';' \
        -e frame.number -e wiresum.elem 2>> "$tmp/tshark.log" > "$tmp/$1.tfloat"
    "$tool" --floats "$2" > "$tmp/$1.cfloat" || return 1
    [ -s "$tmp/$1.cfloat" ] || return 1
    awk -F'\t' 'NR == FNR { c[$1] = $2; next }
        function num(s) { s = tolower(s); return s ~ /nan/ ? "nan" : s ~ /inf/ ? (s ~ /^-/ ? "-inf" : "inf") : s + 0 }
        { if (!($1 in c)) { print "frame " $1 ": no elements in the codec"; bad++; next }
          nt = split($2, t, ";"); nc = split(c[$1], v, ";"); seen[$1] = 1
          if (nt != nc) { print "frame " $1 ": " nt " elements, codec " nc; bad++; next }
          for (i = 1; i <= nt; i++) {
              a = num(t[i]); b = num(v[i])
              if (a == "nan" || b == "nan" || a == "inf" || a == "-inf" || b == "inf" || b == "-inf") {
                  if (a "" != b "") { print "frame " $1 " element " i - 1 ": " t[i] ", codec " v[i]; bad++ }
                  continue
              }
              d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
              if (d > 1e-5 * m) { print "frame " $1 " element " i - 1 ": " t[i] ", codec " v[i]; bad++ }
          } }
        END { for (f in c) if (!(f in seen)) { print "frame " f ": no elements in tshark"; bad++ }
              exit bad > 0 }' "$tmp/$1.cfloat" "$tmp/$1.tfloat" > "$tmp/$1.floatdiff"
}
for t in special mixed; do
    if floats "floats-$t" "$tmp/$t/expected.pcap"; then
        record "floats-$t" 0
    else
        head -n 6 "$tmp/floats-$t.floatdiff"; record "floats-$t" 1 "see $tmp/floats-$t.floatdiff"
    fi
done

# the port preference: with it at 40000 (the members' port of the first job), the frames to and
# from 40000 are decoded and no others; "Decode As" with the port off: those of 40000 and 40001
n=$(tshark -n -X lua_script:"$lua" -o wiresum.udp_port:0 -r "$tmp/mixed/in.pcap" -Y wiresum 2>> "$tmp/tshark.log" | wc -l)
[ "$n" -eq 0 ]; record pref-off $? "$n frames decoded with the port preference at 0"
if TOOL_ARGS="--port 40000" compare pref-port "$lua" "$tmp/mixed/expected.pcap" -o wiresum.udp_port:40000; then
    record pref-port 0
else
    head -n 6 "$tmp/pref-port.diff" | cut -c 1-300; record pref-port 1 "see $tmp/pref-port.diff"
fi
if TOOL_ARGS="--port 40000 --port 40001" compare decode-as "$lua" "$tmp/mixed/expected.pcap" \
       -o wiresum.udp_port:0 -d udp.port==40000,wiresum -d udp.port==40001,wiresum; then
    record decode-as 0
else
    head -n 6 "$tmp/decode-as.diff" | cut -c 1-300; record decode-as 1 "see $tmp/decode-as.diff"
fi

# the filter of docs/debugging.md: frames of one job with RETX set, as the codec lists them
job=$(awk -F'\t' -v retx="$C_RETX" -v jc="$C_JOB" '$retx == 1 { print $jc; exit }' "$tmp/mixed-in.codec")
want=$(awk -F'\t' -v j="$job" -v retx="$C_RETX" -v jc="$C_JOB" '$jc == j && $retx == 1 { print $1 }' "$tmp/mixed-in.codec" | tr '\n' ' ')
got=$(tshark -n -X lua_script:"$lua" -r "$tmp/mixed/in.pcap" -T fields -e frame.number \
    -Y "wiresum.job == $job && wiresum.flags.retx == 1" 2>> "$tmp/tshark.log" | tr '\n' ' ')
got2=$(tshark -n -X lua_script:"$lua" -r "$tmp/mixed/in.pcap" -T fields -e frame.number \
    -Y "wiresum.job == $job && wiresum.retx" 2>> "$tmp/tshark.log" | tr '\n' ' ')
[ -n "$job" ] && [ -n "$want" ] && [ "$got" = "$want" ] && [ "$got2" = "$want" ]
record filter-retx $? "job '$job': codec '$want', flags.retx == 1 '$got', wiresum.retx '$got2'"

# the comparison catches a broken dissector: a copy with the job field read one byte late
sed 's/f\.job, tvb(4, 2)/f.job, tvb(5, 2)/' "$lua" > "$tmp/broken.lua"
if cmp -s "$lua" "$tmp/broken.lua"; then
    record mutant 1 "could not break the copy (the job field's line changed?)"
elif compare mutant "$tmp/broken.lua" "$tmp/mixed/in.pcap"; then
    record mutant 1 "a dissector reading job at the wrong offset passed the comparison"
else
    record mutant 0
fi

echo "dissector: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
