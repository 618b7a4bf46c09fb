# bench/cluster.awk - the rows of bench/cluster.sh's table from build/bench/cluster/rows.tsv:
# gbps, workers, MiB, mode, seconds (-1: failed), the busy fractions of the all-reduce time of
# the devices' busiest port (receive stage), engine and port egress and the busiest link between
# switches' utilization (either way), retransmissions, network drops, device drops; sorted by
# link, N, tensor. Writes the markdown rows, and the plot's points (gbps MiB N speedup ratio best
# baseline) to the file `plot`. fcount and hcount: the elements of a DATA frame of one device and
# sharded, and of a hierarchy. The speedup is over the faster baseline of the point (ring or
# halving-doubling, whichever completed in less time). With limit_only=1, only the "what limits
# it" of each row's own run, a line each (bench/cluster.sh's CLUSTER_LIMIT).
function fmt(t) { return t < 0 ? "failed" : t < 1e-3 ? sprintf("%.1f us", t * 1e6) : t < 1 ? sprintf("%.3f ms", t * 1e3) : sprintf("%.3f s", t) }
# payload over bytes on the wire: wiresum 4c in 52 + 4c (the frame less Ethernet, plus PPP's 2),
# TCP 8948 in 9002
function eff(c) { return (4 * c / (52 + 4 * c)) / (8948 / 9002) }
function cell(m) { return (m in t) ? fmt(t[m]) : "-" }
# the fastest of the modes in list (space-separated) that completed: its name in fastest_t's
# time, or "" when none did
function fastest(list,   i, n, m, f) {
    n = split(list, m, " "); f = ""; fastest_t = 0
    for (i = 1; i <= n; i++)
        if ((m[i] in t) && t[m[i]] > 0 && (f == "" || t[m[i]] < fastest_t)) { f = m[i]; fastest_t = t[m[i]] }
    return f
}
# what limits mode m's run: loss, else its busiest stage when above 90 % (port, engine, egress,
# link; the first of them on a tie), else the window and round trips; every fraction measured,
# none divided among the others of its kind
function limit(m,   i, n, st, f, top, k, gput, all) {
    if (dr[m] + nd[m] + rx[m] > 0)
        return sprintf("loss: %d device drops, %d network drops, %d retransmissions", dr[m], nd[m], rx[m])
    n = split("port engine egress link", st, " ")
    f["port"] = bp[m]; f["engine"] = be[m]; f["egress"] = bo[m]; f["link"] = lu[m]
    top = st[1]
    for (i = 2; i <= n; i++) if (f[st[i]] > f[top]) top = st[i]
    all = sprintf("port %.0f %%, engine %.0f %%, egress %.0f %%, link %.0f %%", 100 * f["port"], 100 * f["engine"], 100 * f["egress"], 100 * f["link"])
    if (f[top] > 0.9)
        return sprintf("%s (%s)", top, all)
    gput = MB * 1048576 * 8 / t[m] / 1e9
    return sprintf("window and round trips: %.2f Gb/s a worker of %d (%s)", gput, G, all)
}
function flush(   best, bt, base, btime, ideal, sp, lim) {
    if (key == "") return
    best = fastest("wiresum sharded hierarchical"); bt = fastest_t
    base = fastest("ring halving-doubling"); btime = fastest_t
    ideal = 2 * (N - 1) / N * eff(best == "hierarchical" ? hcount : fcount)
    sp = (best != "" && base != "") ? btime / bt : 0
    lim = best == "" ? "-" : limit(best)
    printf "| %d Gb/s | %d | %d MiB | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %s |\n", G, N, MB,
        cell("ring"), cell("halving-doubling"), cell("wiresum"), cell("sharded"), cell("hierarchical"),
        base == "" ? "-" : base, sp ? sprintf("%.2f", sp) : "-", best == "" ? "-" : best, ideal,
        sp ? sprintf("%.3f", sp / ideal) : "-", lim
    if (sp) printf "%d %d %d %.4f %.4f %s %s\n", G, MB, N, sp, sp / ideal, best, base >> plot
    delete t; delete bp; delete be; delete bo; delete lu; delete rx; delete nd; delete dr
}
BEGIN { if (!limit_only) printf "" > plot }
{
    k = $1 " " $2 " " $3
    if (k != key && !limit_only) flush()
    key = k; G = $1; N = $2; MB = $3
    t[$4] = $5; bp[$4] = $6; be[$4] = $7; bo[$4] = $8; lu[$4] = $9; rx[$4] = $10; nd[$4] = $11; dr[$4] = $12
    if (limit_only) { print limit($4); delete t }
}
END { if (!limit_only) flush() }
