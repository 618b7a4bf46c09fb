# bench/allreduce.awk - section 5 of docs/performance.md: all-reduce time, in-network against ring,
# computed from the measurements of build/bench/lines.tsv (wiresum bench --tsv, one row per run).
#
# awk -F'\t' -v prov=TEXT -v cmd=TEXT -v plotdat=FILE -f bench/allreduce.awk build/bench/lines.tsv
# Optional -v: alpha_us (per-step latency, default 5), slots (window, default 64).
# Writes the markdown section on stdout and the gnuplot data (one block per link and tensor size,
# x = N, y = speedup) to plotdat.

function min2(a, b) { return a < b ? a : b }

# the measured row for (width, count) with the most workers <= n (all if none <= n: the least)
function pick(width, count, n,    r, best, bw) {
    best = 0; bw = -1
    for (r = 1; r <= nrows; r++)
        if (W[r] == width && K[r] == count && N[r] <= n && N[r] > bw) { best = r; bw = N[r] }
    return best
}

function fmt_t(s) {
    if (s >= 1) return sprintf("%.3f s", s)
    if (s >= 1e-3) return sprintf("%.3f ms", s * 1e3)
    return sprintf("%.1f us", s * 1e6)
}

NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    nrows++
    W[nrows] = $col["width"]; K[nrows] = $col["count"]; N[nrows] = $col["workers"]
    GP[nrows] = $col["goodput"]; WL[nrows] = $col["wire_limit"]; UT[nrows] = $col["util"]
    BT[nrows] = $col["beats"]; LF[nrows] = $col["idle_first_med"]
}

END {
    if (alpha_us == "") alpha_us = 5
    if (slots == "") slots = 64
    alpha = alpha_us * 1e-6
    # scenarios: link rate, DATA_WIDTH, clock, elements per packet
    ns = 0
    ns++; L[ns] = 10e9;  SW[ns] = 256;  SF[ns] = 200e6; SK[ns] = 256
    ns++; L[ns] = 100e9; SW[ns] = 1024; SF[ns] = 340e6; SK[ns] = 1024
    # 100 Gb/s: 1024 elements per packet if measured (MAX_COUNT = 1024 build), else 256
    if (!pick(1024, 1024, 64)) SK[ns] = 256
    nsz = split("1048576 16777216 268435456 1073741824", SZ, " ")
    split("1 MB,16 MB,256 MB,1 GB", SZN, ",")
    nn = split("2 4 8 16 32 64", NN, " ")

    print "## 5. All-reduce time: in-network against ring"
    print ""
    print "Produced by `" cmd "`: bench/allreduce.awk applied to the measurements of sections 1 and 2 (`build/bench/lines.tsv`). " prov "."
    print ""
    print "**Model.** N workers all-reduce a tensor of B bytes (binary32); each has one link of rate L. alpha = " alpha_us " us is the latency of one step (one message from a host across the network, software included), the same for both."
    print ""
    print "- **In-network** (one wiresum device, one engine): each worker sends its B bytes once and receives the B bytes of sums once, as packets of K elements (frame 64 + 4K bytes). Per worker, the payload rate is"
    print "  r = min( L x payload/(frame+24) ;  G x DATA_WIDTH x f_clk / N ;  S x 4K x 8 / RTT ),"
    print "  the link (wire limit of the frames), the device's measured payload rate (G: the **goodput** column of section 1, the fraction of DATA_WIDTH x f_clk that is payload at the measured beats per cycle, for these N workers or the nearest measured N below) shared by the N workers, and the window (S = " slots " slots of K elements in flight per worker per round trip RTT = 2 alpha + the device latency). Results leave on a separate path at the same rate, overlapped with the input. Time = 8B / r + 2 alpha + device latency (measured idle latency to the first RESULT + N x beats per frame for the last RESULT, at f_clk)."
    print "- **Ring** all-reduce (reduce-scatter then all-gather): 2(N-1)/N x 8B / L + 2(N-1) x alpha, at the raw link rate (no header overhead charged to the ring: favourable to it)."
    print "- Device: 10 Gb/s links with DATA_WIDTH 256 at 200 MHz (51.2 Gb/s, NetFPGA-SUME class) and 256 elements per packet; 100 Gb/s links with DATA_WIDTH 1024 at 340 MHz (348 Gb/s) and " SK[2] " elements per packet."
    print ""
    print "With one engine the device's capacity is shared by all N workers, so past N = capacity / link rate (5 at 10 Gb/s, 3.5 at 100 Gb/s) the in-network time grows linearly with N while the ring's bandwidth term stays near 2B/L: the speedup falls below 1 for large N. Where it wins is few workers per engine, small tensors (one step of latency against 2(N-1)), and it halves the bytes each link carries against the ring's 2(N-1)/N. The ENGINES parameter (docs/architecture.md section 9; section 6 below) and several devices per job (the second table, and section 8) lift the device bound."
    print ""
    print "| link | N | tensor | bound | per-worker Gb/s | in-network | ring | speedup |"
    print "|---:|---:|---:|---|---:|---:|---:|---:|"
    blk = 0
    printf "" > plotdat
    for (s = 1; s <= ns; s++) {
        for (z = 1; z <= nsz; z++) {
            if (blk > 0) printf "\n\n" >> plotdat
            printf "\"%s\" \"speedup\"\n", SZN[z] >> plotdat
            blk++
            for (j = 1; j <= nn; j++) {
                n = NN[j]
                r = pick(SW[s], SK[s], n)
                if (!r) continue
                k = SK[s]; frame = 64 + 4 * k
                t_dev = (LF[r] + n * BT[r]) / SF[s]
                rl = L[s] * WL[r]
                rd = GP[r] * SW[s] * SF[s] / n
                rw = slots * 4 * k * 8 / (2 * alpha + t_dev)
                rate = min2(rl, min2(rd, rw))
                bound = rate == rl ? "link" : (rate == rd ? "device" : "window")
                if (N[r] != n) bound = bound " (N=" N[r] " measured)"
                b = SZ[z]
                t_in = 8 * b / rate + 2 * alpha + t_dev
                t_ring = 2 * (n - 1) / n * 8 * b / L[s] + 2 * (n - 1) * alpha
                printf "| %d Gb/s | %d | %s | %s | %.2f | %s | %s | %.2f |\n", L[s] / 1e9, n, SZN[z], bound, rate / 1e9, fmt_t(t_in), fmt_t(t_ring), t_ring / t_in
                printf "%d %.4f\n", n, t_ring / t_in >> plotdat
            }
        }
    }
    close(plotdat)
    print ""
    print "![all-reduce speedup](perf/allreduce.png)"
    print ""
    print "**Several devices** (section 8, docs/protocol.md section 9): the same model with the job sharded over T devices, T the fewest whose shared capacity lifts the device bound above the link's (T = ceil(N x link bound / (G x DATA_WIDTH x f_clk))): each device then serves every worker for 1/T of the chunks, so the device bound becomes T x G x DATA_WIDTH x f_clk / N. Section 8 measures, on the devices' timing model, how the capacity of shards and trees adds up, every result exact."
    print ""
    print "| link | N | tensor | devices T | bound | per-worker Gb/s | in-network | ring | speedup |"
    print "|---:|---:|---:|---:|---|---:|---:|---:|---:|"
    for (s = 1; s <= ns; s++) {
        for (z = 2; z <= 3; z++) {
            for (j = 1; j <= nn; j++) {
                n = NN[j]
                r = pick(SW[s], SK[s], n)
                if (!r) continue
                k = SK[s]
                t_dev = (LF[r] + n * BT[r]) / SF[s]
                rl = L[s] * WL[r]
                one = GP[r] * SW[s] * SF[s]
                T = int(n * rl / one); if (T * one < n * rl) T++
                if (T < 1) T = 1
                rd = T * one / n
                rw = slots * 4 * k * 8 / (2 * alpha + t_dev)
                rate = min2(rl, min2(rd, rw))
                bound = rate == rl ? "link" : (rate == rd ? "device" : "window")
                b = SZ[z]
                t_in = 8 * b / rate + 2 * alpha + t_dev
                t_ring = 2 * (n - 1) / n * 8 * b / L[s] + 2 * (n - 1) * alpha
                printf "| %d Gb/s | %d | %s | %d | %s | %.2f | %s | %s | %.2f |\n", L[s] / 1e9, n, SZN[z], T, bound, rate / 1e9, fmt_t(t_in), fmt_t(t_ring), t_ring / t_in
            }
        }
    }
    print ""
}
