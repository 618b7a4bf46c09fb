# bench/cluster.awk - the rows of bench/cluster.sh's table from build/bench/cluster/rows.tsv:
# gbps, workers, MiB, mode, seconds (-1: failed), busiest device's busy seconds, retransmissions,
# network drops, device drops; sorted by link, N, tensor. Writes the markdown rows, and the plot's
# points (gbps MiB N speedup ratio best baseline) to the file `plot`. fcount and hcount: the
# elements of a DATA frame of one device and sharded, and of a hierarchy. The speedup is over the
# faster baseline of the point (ring or halving-doubling, whichever completed in less time).
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
function flush(   best, bt, base, btime, ideal, sp, lim, busy, gput) {
    if (key == "") return
    best = fastest("wiresum sharded hierarchical"); bt = fastest_t
    base = fastest("ring halving-doubling"); btime = fastest_t
    ideal = 2 * (N - 1) / N * eff(best == "hierarchical" ? hcount : fcount)
    sp = (best != "" && base != "") ? btime / bt : 0
    lim = "-"
    if (best != "") {
        busy = b[best] / bt; gput = MB * 1048576 * 8 / bt / 1e9
        if (dr[best] + nd[best] + rx[best] > 0)
            lim = sprintf("loss: %d device drops, %d network drops, %d retransmissions", dr[best], nd[best], rx[best])
        else if (busy > 0.9)
            lim = sprintf("device capacity: busiest device %.0f %% busy", 100 * busy)
        else
            lim = sprintf("window and round trips: %.2f Gb/s a worker of %d, busiest device %.0f %% busy", gput, G, 100 * busy)
    }
    printf "| %d Gb/s | %d | %d MiB | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %s |\n", G, N, MB,
        cell("ring"), cell("halving-doubling"), cell("wiresum"), cell("sharded"), cell("hierarchical"),
        base == "" ? "-" : base, sp ? sprintf("%.2f", sp) : "-", best == "" ? "-" : best, ideal,
        sp ? sprintf("%.3f", sp / ideal) : "-", lim
    if (sp) printf "%d %d %d %.4f %.4f %s %s\n", G, MB, N, sp, sp / ideal, best, base >> plot
    delete t; delete b; delete rx; delete nd; delete dr
}
BEGIN { printf "" > plot }
{
    k = $1 " " $2 " " $3
    if (k != key) { flush(); key = k; G = $1; N = $2; MB = $3 }
    t[$4] = $5; b[$4] = $6; rx[$4] = $7; nd[$4] = $8; dr[$4] = $9
}
END { flush() }
