# bench/linerate.awk - section 1 of docs/performance.md from build/bench/lines.tsv (bench/all.sh).
# awk -F'\t' -v prov=TEXT -v cmd=TEXT -v mcnote=TEXT [-v mode=SET] -f bench/linerate.awk build/bench/lines.tsv

NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{ rows[++n] = $0 }
END {
    print "## 1. Line rate under saturating load"
    print ""
    print "Produced by `" cmd "`: one `wiresum bench --tsv --width W --count K --workers N --slots 64` run per row (raw values: `build/bench/lines.tsv`; configuration set: " mode "). " prov "."
    print ""
    print "Load: N workers of one job, each keeping its window of 64 chunks full (chunk i+64 leaves as soon as the RESULT of chunk i is out), DATA frames built with the codec and pushed so that each of the 4 ingress ports has its next frame queued whenever the window allows it (worker w sends chunk i on port (w+i) mod 4); every round completes, every RESULT is checked against the exact sum. Consecutive frames at the engine are mostly to the same slot and set: the N contributions of a round arrive back to back. Measured over a window after a warm-up:"
    print ""
    print "- **engine beats/cycle** = (frames accepted, the device counter, read at both ends of the window) x beats per frame / cycles. One engine serves all ports: 1.0 is its capacity, DATA_WIDTH x f_clk. Resolution: +-1 frame at each end of the window (at most 0.001 here); values slightly above 1 are that.";
    print "- **ingress beats/cycle**: beats taken by the 4 ingress ports (ws_sim statistics), the same quantity seen at the edge of the device."
    print "- **wire limit** = payload / (frame + 24): the payload fraction of a wire carrying these frames (FCS 4, preamble 8, gap 12 bytes)."
    print "- **goodput** = payload bytes aggregated per cycle / (DATA_WIDTH/8): the fraction of the engine capacity that is gradient payload."
    print "- **wire efficiency** = goodput / wire limit: the engine's payload rate against a wire of the same raw rate. At 1 beat per cycle its bound is (frame + 24) / (beats x DATA_WIDTH/8) (**bound** column): frames that do not fill their last beat waste the rest of it, and the datapath carries no FCS, preamble or gap."
    print "- **queues empty**: share of 16-cycle steps in which some ingress port had nothing queued outside the device. With few workers the protocol window (64 slots x N workers x frame) is smaller than the ports' receive FIFOs (4 x 32 KB): every frame in flight is then inside the device, and the engine still never waits (its beats/cycle column)."
    print ""
    print "| DATA_WIDTH | elements/packet | frame bytes | beats/frame | workers | engine beats/cycle | ingress beats/cycle | wire limit | goodput | wire efficiency | bound | Gb/s at 200 MHz | queues empty | >= 0.99 both |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"
    for (r = 1; r <= n; r++) {
        split(rows[r], f, "\t")
        bytes = f[col["width"]] / 8
        bound = (f[col["frame_bytes"]] + 24) / (f[col["beats"]] * bytes)
        ok = (f[col["util"]] >= 0.99 && f[col["wire_eff"]] >= 0.99) ? "yes" : "no"
        if (ok == "no") nno++
        if (f[col["util"]] < 0.99) nutil++
        empty = f[col["steps"]] > 0 ? 100 * f[col["queue_empty_steps"]] / f[col["steps"]] : 0
        printf "| %s | %s | %s | %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.1f | %.0f %% | %s |\n", f[col["width"]], f[col["count"]], f[col["frame_bytes"]], f[col["beats"]], f[col["workers"]], f[col["util"]], f[col["util_in"]], f[col["wire_limit"]], f[col["goodput"]], f[col["wire_eff"]], bound, f[col["goodput_gbps"]], empty, ok
    }
    print ""
    print mcnote
    print ""
    if (nutil == 0)
        print "**Engine utilization:** every configuration is at 1 beat per cycle within the resolution (target >= 0.99: met): no bubble between frames, none between the frames of one round to the same slot and set."
    else
        print "**Engine utilization:** " nutil " configuration(s) below 0.99 beats per cycle: see the rows."
    if (nno > 0)
        print "**Wire efficiency:** below 0.99 only where the bound is below 0.99: at 1024 bits a frame of 64 + 4K bytes is never a whole number of 128-byte beats (64 + 4K = 64 mod 128 for K a multiple of 32), so its last beat is half empty; with 64 and 256 elements per packet that costs more than the 24 bytes a wire spends per frame. The engine runs at its full rate there too; the shortfall is the beat quantization of the datapath, not a stall (it would go away only with a payload offset or packet sizes matched to the width, e.g. K = 32m + 16 at 1024 bits)."
    print ""
    print "![line rate](perf/linerate.png)"
    print ""
}