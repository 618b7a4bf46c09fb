# resources.awk - section 4 of docs/performance.md from the yosys statistics and the depth reports
# written by bench/resources.sh.
#
# usage: awk -v configs='NAME=W:C:E:FAMILY ...' -v yosys=VERSION -v cmd=COMMAND -v prov=TEXT \
#            -f bench/resources.awk  WORK/NAME.stat WORK/NAME.depth WORK/NAME.done ...
#
# NAME.stat: `stat -top wiresum_top` after a hierarchical synth_xilinx: one block per module
# ("=== module ===", its own cells, instances of other modules among them), then
# "=== design hierarchy ===" with the number of instances of every module and the totals.
# NAME.depth: bench/lut_levels.py on the flattened netlist ("deepest lut_levels=..." and the
# next distinct paths as "deepest#k ..."). NAME.done: "NAME SPEC SECONDS COMMIT" (the commit of
# the RTL synthesized, "+changes" when the tree had uncommitted changes).
#
# Cell classes (Xilinx 7-series / UltraScale+ primitives as synth_xilinx maps to them):
#   LUT     LUT1..LUT6, INV, and the LUTs of distributed RAM and shift registers:
#           RAM32M/RAM64M 4, RAM32M16/RAM64M8 8, RAM32X1D/RAM64X1D 2, RAM128X1D 4,
#           RAM256X1D 8, RAM*X1S 1 (RAM128X1S 2, RAM256X1S 4), SRL16E/SRLC32E 1
#   FF      FD*E (FDRE, FDSE, FDCE, FDPE)          CARRY   CARRY4 (7-series), CARRY8 (UltraScale+)
#   MUXF    MUXF7, MUXF8, MUXF9                     DSP     DSP48E1, DSP48E2
#   BRAM36  RAMB36E1/E2 1, RAMB18E1/E2 1/2          URAM    URAM288
function lutram_luts(t) {
    if (t ~ /^RAM32M16$/ || t ~ /^RAM64M8$/ || t ~ /^RAM256X1D$/) return 8
    if (t ~ /^RAM32M$/ || t ~ /^RAM64M$/ || t ~ /^RAM128X1D$/ || t ~ /^RAM256X1S$/) return 4
    if (t ~ /^RAM32X1D$/ || t ~ /^RAM64X1D$/ || t ~ /^RAM128X1S$/) return 2
    if (t ~ /^RAM(32|64)X1S/ || t ~ /^SRL/) return 1
    return 0
}
function add(cfg, mod, t, n,    k) {
    # accumulate n cells of type t into the class totals of (cfg, mod)
    k = cfg SUBSEP mod
    if (t ~ /^LUT[1-6]$/ || t == "INV") { lut[k] += n }
    else if (lutram_luts(t) > 0) { lut[k] += n * lutram_luts(t); lram[k] += n * lutram_luts(t) }
    else if (t ~ /^FD/) { ff[k] += n }
    else if (t ~ /^CARRY/) { carry[k] += n }
    else if (t ~ /^MUXF/) { muxf[k] += n }
    else if (t ~ /^DSP48/) { dsp[k] += n }
    else if (t ~ /^RAMB36/) { bram[k] += n }
    else if (t ~ /^RAMB18/) { bram[k] += n / 2 }
    else if (t ~ /^URAM/) { uram[k] += n }
    else return 0
    return 1
}
function base(m,    a, n) {
    # $paramod\ws_acc_lane\DATA_W=... or $paramod$1234\ws_regs -> ws_acc_lane / ws_regs
    if (m ~ /^\$paramod/) { n = split(m, a, "\\"); return a[2] }
    sub(/^\\/, "", m)
    return m
}
function pct(x, d) { return d > 0 ? sprintf("%.1f", 100 * x / d) : "-" }
function fmt(x) { return (x == int(x)) ? sprintf("%d", x) : sprintf("%.1f", x) }
function commas(x,    s, r) {
    s = sprintf("%d", x); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}

BEGIN {
    nb = split(behind, bl, " ")   # NAME=K: K commits to hw/ since the RTL NAME was synthesized from
    for (i = 1; i <= nb; i++) {
        bk = bl[i]; sub(/^[^=]*=/, "", bk); bn = bl[i]; sub(/=.*/, "", bn)
        if (bk != "0") old[bn] = bk
    }
    nc = split(configs, cl, " ")
    for (i = 1; i <= nc; i++) {
        name[i] = cl[i]; sub(/=.*/, "", name[i])
        spec = cl[i]; sub(/^[^=]*=/, "", spec)
        split(spec, f, ":")
        width[name[i]] = f[1]; maxc[name[i]] = f[2]; engines[name[i]] = f[3]; fam[name[i]] = f[4]
        more[name[i]] = f[5]
    }
    # devices: the one the configuration is mapped for
    dev["xc7"] = "XC7VX690T (NetFPGA-SUME)"; dev["xcup"] = "XCU250 (Alveo U250)"
    dlut["xc7"] = 433200;  dff["xc7"] = 866400;   ddsp["xc7"] = 3600;   dbram["xc7"] = 1470; duram["xc7"] = 0
    dlut["xcup"] = 1728000; dff["xcup"] = 3456000; ddsp["xcup"] = 12288; dbram["xcup"] = 2688; duram["xcup"] = 1280
    # logic-depth model: per LUT level (LUT and its net), per carry cell, per wide mux; fixed
    # cost per register-to-register path (clock to out, setup, clock uncertainty)
    tl["xc7"] = 0.55; tc["xc7"] = 0.10; tm["xc7"] = 0.30; tov["xc7"] = 1.00
    tl["xcup"] = 0.40; tc["xcup"] = 0.08; tm["xcup"] = 0.20; tov["xcup"] = 0.60
}

FNR == 1 {
    cfg = FILENAME; sub(/.*\//, "", cfg); kindf = cfg; sub(/\.[^.]*$/, "", cfg); sub(/.*\./, "", kindf)
    sect = ""; incells = 0; inhier = 0
}

kindf == "stat" && /^=== design hierarchy ===/ { sect = "hier"; inhier = 1; incells = 0; next }
kindf == "stat" && /^=== .* ===$/ { m = $0; sub(/^=== /, "", m); sub(/ ===$/, "", m); sect = m; incells = 0; next }
kindf == "stat" && /Number of cells:/ { incells = 1; inhier = 0; next }
kindf == "stat" && /Number of/ { inhier = 0; next }
kindf == "stat" && /^[[:space:]]*$/ { incells = 0; next }
# the hierarchy tree: "  name count" indented two spaces a level, count per parent instance;
# a module's instances are the products down its branch, summed over the branches it is on
kindf == "stat" && sect == "hier" && inhier && !/Number of/ && NF == 2 {
    lvl = match($0, /[^ ]/); lvl = int((lvl - 1) / 2)
    hm[lvl] = $2 * ((lvl > 0 && (lvl - 1) in hm) ? hm[lvl - 1] : 1)
    if (!((cfg, $1) in inst)) mods[cfg] = mods[cfg] SUBSEP $1
    inst[cfg, $1] += hm[lvl]; next
}
kindf == "stat" && incells && NF == 2 {
    if (sect == "hier") { add(cfg, "", $1, $2); seen[cfg] = 1 }
    else { own[cfg, sect, $1] = $2; owntypes[cfg, sect] = owntypes[cfg, sect] SUBSEP $1 }
    next
}

kindf == "depth" && /^deepest lut_levels=/ {
    dl[cfg] = $2; dc[cfg] = $3; dm[cfg] = $4; sub(/.*=/, "", dl[cfg]); sub(/.*=/, "", dc[cfg]); sub(/.*=/, "", dm[cfg])
    s = $0; sub(/.* start=/, "", s); sub(/ end=.*/, "", s); dstart[cfg] = s
    e = $0; sub(/.* end=/, "", e); sub(/ end_pin=.*/, "", e); dend[cfg] = e
    p = $0; sub(/.* end_pin=/, "", p); dpin[cfg] = p
    next
}
kindf == "depth" && /^  deepest#[0-9]+ / { nd[cfg]++; dtop[cfg, nd[cfg]] = $0; next }
kindf == "depth" && /^slowest lut_levels=/ {
    sl[cfg] = $2; sc[cfg] = $3; sm[cfg] = $4; sub(/.*=/, "", sl[cfg]); sub(/.*=/, "", sc[cfg]); sub(/.*=/, "", sm[cfg])
    s = $0; sub(/.* start=/, "", s); sub(/ end=.*/, "", s); sstart[cfg] = s
    e = $0; sub(/.* end=/, "", e); sub(/ end_pin=.*/, "", e); send[cfg] = e
    next
}
kindf == "done" { secs[cfg] = $3; if (NF >= 4) at[cfg] = $4; next }
kindf == "fail" { fm = $0; sub(/^[^ ]* [^ ]* /, "", fm); failmsg[cfg] = fm; next }

END {
    print "Produced by `" cmd "`: " yosys "; " prov "."
    print ""
    print "**Method.** For each configuration, one yosys run: `read_verilog -sv` of the files of"
    print "`hw/wiresum_top.f` (copies rewritten by `bench/ys_prep.py` for two constructs yosys 0.23 does"
    print "not read: localparams used in port widths, and a package import), `chparam` of DATA_WIDTH,"
    print "MAX_COUNT and ENGINES, and of those a configuration names besides (every other parameter at"
    print "its default: 4 ports, 8 jobs, 64 workers, 64 slots, 9216-byte frames, no PARTIAL),"
    print "`synth_xilinx -family xc7` (Virtex-7) or `-family xcup -uram`"
    print "(UltraScale+) with `-noiopad -noclkbuf`, hierarchically: a module instantiated several times,"
    print "such as the accumulator lanes, is synthesized once and counted per instance by `stat -top`."
    print "No vendor tool is involved: the counts are yosys's mapping, not Vivado's, and are typically"
    print "within some tens of percent of it (Vivado packs LUTs into LUT6_2 pairs and retimes; yosys"
    print "neither). LUT includes the LUTs of distributed RAM and shift registers; BRAM36 counts a"
    print "RAMB18 as half."
    print ""
    print "| configuration | device | LUT | LUT as RAM/SRL | FF | CARRY | MUXF | DSP | BRAM36 | URAM | LUT % | FF % | BRAM % | fits | synthesis, at commit |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= nc; i++) {
        c = name[i]; k = c SUBSEP ""; F = fam[c]
        lbl = sprintf("%s: %d bits, MAX_COUNT %d, %d engine%s", c, width[c], maxc[c], engines[c], engines[c] > 1 ? "s" : "")
        if (more[c] != "") { m = more[c]; gsub(/=/, " ", m); gsub(/,/, ", ", m); lbl = lbl ", " m }
        if (!(c in seen)) {
            printf "| %s | %s | not synthesized: %s |||||||||||||\n", lbl, dev[F],
                (c in failmsg) ? failmsg[c] " (see " (work != "" ? work : "build/bench/resources") "/" c ".log)" : "not run"
            continue
        }
        fits = (lut[k] <= dlut[F] && ff[k] <= dff[F] && dsp[k] <= ddsp[F] && bram[k] <= dbram[F] && uram[k] <= duram[F]) ? "**yes**" : "**no**"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s s, %s |\n", lbl, dev[F],
            commas(lut[k]), commas(lram[k]), commas(ff[k]), commas(carry[k]), commas(muxf[k]), commas(dsp[k]),
            fmt(bram[k]), commas(uram[k]), pct(lut[k], dlut[F]), pct(ff[k], dff[F]),
            pct(bram[k] + 0, dbram[F]), fits, (c in secs) ? secs[c] : "?", (c in at) ? at[c] : "?"
    }
    print ""
    print "Device capacities: XC7VX690T 433,200 LUT, 866,400 FF, 3,600 DSP, 1,470 BRAM36; XCU250"
    print "1,728,000 LUT, 3,456,000 FF, 12,288 DSP, 2,688 BRAM36, 1,280 URAM. \"synthesis\" is the wall"
    print "time of the yosys run on this machine (with another yosys run or a build on the second core), and the commit of the RTL it read."
    print ""

    # ---- where the resources go --------------------------------------------------------------
    print "**Where they go** (LUT / FF / BRAM36 by module, all instances; URAM in the BRAM column as"
    print "\"+N U\"). Modules are grouped by name over their parameterizations:"
    print ""
    hdr = "| module |"; sep = "|---|"
    for (i = 1; i <= nc; i++) if (name[i] in seen) { hdr = hdr " " name[i] " |"; sep = sep "---|" }
    print hdr; print sep
    nb = 0
    for (i = 1; i <= nc; i++) {
        c = name[i]; if (!(c in seen)) continue
        n = split(mods[c], ml, SUBSEP)
        for (j = 2; j <= n; j++) {
            m = ml[j]; b = base(m); cnt = inst[c, m]
            if (!(b in bidx)) { nb++; bidx[b] = nb; bname[nb] = b }
            nt = split(owntypes[c, m], tl2, SUBSEP)
            for (t = 2; t <= nt; t++) add(c, "M" b, tl2[t], own[c, m, tl2[t]] * cnt)
            ninst[c, b] += cnt
        }
    }
    for (bi = 1; bi <= nb; bi++) {
        b = bname[bi]; row = "| " b " |"; any = 0
        for (i = 1; i <= nc; i++) {
            c = name[i]; if (!(c in seen)) continue
            k = c SUBSEP "M" b
            if ((c SUBSEP b) in ninst && (lut[k] + ff[k] + bram[k] + uram[k] + dsp[k]) > 0) {
                row = row sprintf(" x%d: %s / %s / %s%s |", ninst[c, b], commas(lut[k]), commas(ff[k]), fmt(bram[k] + 0),
                    uram[k] > 0 ? " +" uram[k] " U" : "")
                any = 1
            } else row = row " - |"
        }
        if (any) print row
    }
    print ""

    # ---- logic depth ---------------------------------------------------------------------------
    print "**Logic depth, the clock proxy.** `bench/lut_levels.py` walks the flattened mapped netlist:"
    print "every flip-flop, shift register, block/ultra RAM and DSP is a boundary; between two, a LUT"
    print "(or a distributed-RAM read) is one level; carry cells and wide muxes add no level but are"
    print "counted. The estimate is a simple delay model, not a timing analysis: per LUT level (the LUT"
    print "and its route) 0.55 ns on 7-series and 0.40 ns on UltraScale+; per carry cell 0.10 / 0.08"
    print "ns; per MUXF 0.30 / 0.20 ns; plus 1.0 / 0.6 ns per path for clock-to-out, setup and clock"
    print "uncertainty. The budget is the number of LUT levels that fits the target period under that"
    print "model with no carry or mux: floor((period - fixed) / per level)."
    print ""
    print "| configuration | target clock | budget, LUT levels | deepest path: LUT levels (carry, MUXF) | estimate, ns (period) | slowest by estimate: levels (carry, MUXF), ns | meets the budget |"
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= nc; i++) {
        c = name[i]; F = fam[c]
        mhz = (width[c] == 256) ? 200 : (width[c] == 512 ? 322 : 340)
        per = 1000 / mhz; budget = int((per - tov[F]) / tl[F] + 1e-9)
        if (!(c in dl)) { printf "| %s | %d MHz | %d | not analyzed |||\n", c, mhz, budget; continue }
        if (c in old) nold++
        est = tov[F] + dl[c] * tl[F] + dc[c] * tc[F] + dm[c] * tm[F]
        sest = tov[F] + sl[c] * tl[F] + sc[c] * tc[F] + sm[c] * tm[F]
        worst = (sest > est) ? sest : est
        printf "| %s | %d MHz | %d | %d (%d, %d) | %.2f (%.2f) | %d (%d, %d), %.2f | %s |\n",
            (c in old) ? c " (older RTL: " old[c] (old[c] == 1 ? " commit" : " commits") " to hw/ since)" : c, mhz, budget,
            dl[c], dc[c], dm[c], est, per, sl[c], sc[c], sm[c], sest,
            (dl[c] <= budget && worst <= per) ? "yes" : "**no**"
    }
    if (nold > 0) {
        print ""
        print "A configuration marked \"older RTL\" was synthesized from an earlier commit (the last"
        print "column of the first table); its paths are those of that RTL, which later commits to hw/"
        print "may have shortened (`git log <commit>..HEAD -- hw` lists them)."
    }
    print ""
    print "The deepest paths, by configuration (start register or port, end register, RAM or port), then"
    print "the deepest of each other pair of register vectors, up to 12, those over the budget marked:"
    print ""
    for (i = 1; i <= nc; i++) {
        c = name[i]; if (!(c in dl)) continue
        F = fam[c]; mhz = (width[c] == 256) ? 200 : (width[c] == 512 ? 322 : 340)
        budget = int((1000 / mhz - tov[F]) / tl[F] + 1e-9)
        printf "- **%s**, deepest: %d LUT levels, %d carry, %d MUXF, from `%s` to `%s` (pin %s); slowest by the estimate: from `%s` to `%s`.\n",
            c, dl[c], dc[c], dm[c], dstart[c], dend[c], dpin[c], sstart[c], send[c]
        for (j = 2; j <= nd[c] && j <= 13; j++) {
            s = dtop[c, j]; sub(/^  deepest#[0-9]+ /, "", s)
            lv = s; sub(/ .*/, "", lv); sub(/.*=/, "", lv)
            st = s; sub(/.* start=/, "", st); sub(/ end=.*/, "", st)
            en = s; sub(/.* end=/, "", en)
            printf "  - next: %d LUT levels%s, `%s` to `%s`\n", lv, (lv + 0 > budget) ? " (**over**)" : "", st, en
        }
    }
}
