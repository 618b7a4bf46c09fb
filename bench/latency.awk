# bench/latency.awk - section 2 of docs/performance.md from build/bench/lines.tsv (bench/all.sh).
# awk -F'\t' -v prov=TEXT -v cmd=TEXT -v mcnote=TEXT [-v mode=SET] -f bench/latency.awk build/bench/lines.tsv

NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{ rows[++n] = $0 }
END {
    print "## 2. Latency"
    print ""
    print "Produced by `" cmd "`, the same runs as section 1 (`build/bench/lines.tsv`). " prov "."
    print ""
    print "Cycles from the last beat of a round's last contribution (the cycle the device took it, recorded by `ws_sim_stamps`) to the first beat of the round's first RESULT (**to first**) and to the last beat of its last RESULT (**to last**; the N RESULTs leave back to back, so this adds about N x beats per frame), as min / median / max over the rounds:"
    print ""
    print "- **idle**: each worker keeps one chunk outstanding, so the round's last contribution meets an empty pipeline: the latency of the device itself (first round, from reset, not counted). It is the frame's beats plus a fixed part (column **fixed**: idle to first minus beats per frame): the receive port is store-and-forward, so the completing frame streams again from its FIFO after its last beat came in (its beats), and the fixed part is the receive port's end of frame, input arbiter, parser verdict, exact lanes (12 cycles), the command to the result generator, its header and first RAM row, and the egress arbiter."
    print "- **loaded**: the saturating runs of section 1 (rounds whose last contribution came in inside the measurement window). Under saturation the receive FIFOs are full, so a frame that has just come in waits behind up to 4 x 32 KB of frames: the loaded latency is that queueing (4 x 32768 / (DATA_WIDTH/8) cycles at most), not the pipeline."
    print ""
    print "| DATA_WIDTH | elements/packet | beats/frame | workers | idle rounds | idle to first (min/med/max) | idle to last (min/med/max) | fixed | loaded rounds | loaded to first (min/med/max) | loaded to last (min/med/max) |"
    print "|---:|---:|---:|---:|---:|---|---|---:|---:|---|---|"
    for (r = 1; r <= n; r++) {
        split(rows[r], f, "\t")
        printf "| %s | %s | %s | %s | %s | %s / %s / %s | %s / %s / %s | %d | %s | %s / %s / %s | %s / %s / %s |\n", f[col["width"]], f[col["count"]], f[col["beats"]], f[col["workers"]], f[col["idle_n"]], f[col["idle_first_min"]], f[col["idle_first_med"]], f[col["idle_first_max"]], f[col["idle_last_min"]], f[col["idle_last_med"]], f[col["idle_last_max"]], f[col["idle_first_med"]] - f[col["beats"]], f[col["load_n"]], f[col["load_first_min"]], f[col["load_first_med"]], f[col["load_first_max"]], f[col["load_last_min"]], f[col["load_last_med"]], f[col["load_last_max"]]
    }
    print ""
    print mcnote
    print ""
    print "![latency](perf/latency.png)"
    print ""
}