/* cmd_sim.c - `wiresum sim`: a trace through the RTL model, frame by frame (trace/replay.c). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"

static const char usage_sim[] =
    "usage: wiresum sim DIR [options]\n"
    "\n"
    "Configure the RTL model from DIR/job.ini through its registers, inject DIR/in<P>.pcap in\n"
    "global order (a frame on another port than the previous one enters once the previous\n"
    "one is wholly in), write DIR/out<P>.pcap stamped with simulated time, and compare each\n"
    "egress port with DIR/expected<P>.pcap (written by the reference first if absent): the\n"
    "RESULT frames in order and the other frames in order. On a difference, the frames go to\n"
    "DIR/mismatch-{expected,actual,extra}<P>.pcap. The device counters are read back and\n"
    "compared with the reference's. Exit 0 only if everything matches.\n"
    "\n"
    "  --width W        DATA_WIDTH of the model: 256 (default), 512 or 1024\n"
    "  --sim SIM        verilator (default) or icarus: the same RTL and comparison under\n"
    "                   Icarus Verilog (build/icarus, `make icarus`; one width alone:\n"
    "                   `make icarus WS_ICARUS_WIDTHS=512`), much slower\n"
    "  --idle PCT       ingress idle insertion, percent of cycles, 0..99 (default 0)\n"
    "  --backpressure PCT  egress tready low, percent of cycles, 0..99 (default 0)\n"
    "  --seed N         seed of the idle and backpressure patterns (default 1)\n"
    "  --clock MHZ      clock for timestamps and rates (default 200)\n"
    "  --trace FILE.fst FST waveform; with --trace-from C and --trace-to C, only those cycles\n"
    "  --trace-on-mismatch  on a mismatching frame, rerun (the same trace, width, stress and\n"
    "                   seed) and dump the cycles around the first one, in time, to\n"
    "                   DIR/mismatch.fst; prints its cycle, its time in the waveform and the\n"
    "                   GTKWave command (docs/debugging.md)\n"
    "  --trace-window B[,A]  cycles before (default 2000) and after (default 200) it\n"
    "  --counters       print the device's counters against the reference's (they are\n"
    "                   saved in DIR/counters.txt: `wiresum counters DIR`)\n"
    "  --max-cycles N   give up after N cycles (default: 1,000,000 + 2,624 a frame, times\n"
    "                   100/(100-PCT) for --idle and for --backpressure)\n"
    "  --no-progress    no progress bar (on a terminal) or periodic lines (otherwise)\n"
    "  -q, --quiet      print only problems (no progress either)\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

/* --trace-window B[,A] */
static int parse_window(const char *s, uint64_t *before, uint64_t *after)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma = 0;
    if (strlen(s) >= sizeof buf || ws_cli_parse_u64(buf, 0, 1000000000, before) ||
        (comma && ws_cli_parse_u64(comma + 1, 1, 1000000000, after))) {
        fprintf(stderr, "wiresum: --trace-window %s: expected BEFORE or BEFORE,AFTER in cycles "
                "(BEFORE 0..10^9, AFTER 1..10^9)\n", s);
        return -1;
    }
    return 0;
}

/* --idle, --backpressure: percent of cycles, 100 refused (the run could never finish) */
static int stress_pct(const char *opt, const char *s, const char *what, unsigned *out)
{
    if (ws_cli_uint(opt, s, 0, 100, out))
        return 1;
    if (*out == 100) {
        fprintf(stderr, "wiresum sim: %s 100: no %s a beat then, and the run could never "
                        "finish: at most 99\n", opt, what);
        return 1;
    }
    return 0;
}

int ws_cmd_sim(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_OPTIONS,
        {"idle", 1, 0, 'i'},       {"backpressure", 1, 0, 'b'}, {"seed", 1, 0, 's'},
        {"max-cycles", 1, 0, 'm'}, {"sim", 1, 0, 'S'},          {"quiet", 0, 0, 'q'},
        {"help", 0, 0, 'h'},       {"trace-on-mismatch", 0, 0, 'M'},
        {"trace-window", 1, 0, 'W'}, {"counters", 0, 0, 'C'},   {"no-progress", 0, 0, 'n'},
        {"json", 0, 0, 'J'},       {0, 0, 0, 0}};
    ws_replay_opts o;
    ws_replay_defaults(&o);
    int c, bad = 0, window = 0;
    uint64_t mhz = 200;
    unsigned seen = 0;
    const model_args ma = {&o.width, &mhz, &o.trace, &o.trace_from, &o.trace_to,
                           NULL, NULL, NULL, NULL, &seen};
    while (!bad && (c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'S':
            if (strcmp(optarg, "icarus") == 0) {
                o.icarus = 1;
            } else if (strcmp(optarg, "verilator") == 0) {
                o.icarus = 0;
            } else {
                fprintf(stderr, "wiresum: --sim %s: expected verilator or icarus\n", optarg);
                bad = 1;
            }
            break;
        case 'i': bad = stress_pct("--idle", optarg, "ingress port takes", &o.idle_pct); break;
        case 'b': bad = stress_pct("--backpressure", optarg, "egress port sends", &o.bp_pct); break;
        case 's': bad = ws_cli_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
        case 'm': bad = ws_cli_u64("--max-cycles", optarg, 1, UINT64_MAX, &o.max_cycles); break;
        case 'M': o.trace_on_mismatch = 1; break;
        case 'W':
            bad = parse_window(optarg, &o.trace_before, &o.trace_after);
            window = 1;
            break;
        case 'C': o.counters = 1; break;
        case 'n': o.progress = 0; break;
        case 'q': o.quiet = 1; break;
        case 'J': o.json = 1; break;
        case 'h': fputs(usage_sim, stdout); return 0;
        default: bad = ws_cli_model_option(c, optarg, &ma) != 0;
        }
    }
    if (!bad && window && !o.trace_on_mismatch) {
        fprintf(stderr, "wiresum sim: --trace-window sizes the waveform of --trace-on-mismatch, "
                        "and there is no --trace-on-mismatch\n");
        bad = 1;
    }
    o.clock_mhz = (double)mhz;
    const char *dir = bad || ws_cli_model_check(&ma, "sim") ? NULL : ws_cli_one_dir(argc, argv, "sim");
    if (!dir)
        return 2;
    char err[ERRLEN];
    int rc = ws_replay(dir, &o, o.json ? stderr : stdout, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "wiresum sim: %s\n", err);
        return 1;
    }
    return rc;
}
