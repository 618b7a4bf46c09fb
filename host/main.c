/* main.c - the wiresum command line tool: subcommands over the host model. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "check.h"
#include "wiresum/config.h"
#include "counters.h"
#include "gen.h"
#include "json.h"
#include "refdev.h"
#include "run.h"
#ifdef WS_HAVE_SIM
#include "simrun.h"
#endif
#include "testfloat.h"
#include "trace.h"

#define ERRLEN 1024

static const char usage_main[] =
    "usage: wiresum <command> [options] [args]\n"
    "\n"
    "wiresum is an in-network gradient aggregation accelerator (RTL + host model).\n"
    "This tool generates gradient traces, runs them through the software reference of\n"
    "the device and checks the results bit for bit against exact sums.\n"
    "\n"
    "commands:\n"
    "  gen DIR        write a gradient trace: job.ini, in<P>.pcap, sum-<job>-<tensor>.f32\n"
    "  ref DIR        run in<P>.pcap through the software reference, write expected<P>.pcap\n"
    "  check DIR      reassemble every member's tensors from expected<P>.pcap (or --prefix)\n"
    "                 and compare them with the exact sums\n"
    "  sim DIR        replay DIR/in<P>.pcap through the RTL (Verilator model), write\n"
    "                 out<P>.pcap, compare with expected<P>.pcap and the counters\n"
    "  run            closed loop: W workers running the driver's transport against the RTL\n"
    "                 (or the reference) through a faulty network; every tensor verified\n"
    "  counters DIR   print the device counters a run saved in DIR/counters.txt\n"
    "  testfloat      check the exact adder on Berkeley TestFloat f32_add lines (stdin)\n"
    "  bench          line rate and latency of the RTL under saturating closed-loop load\n"
    "\n"
    "`wiresum <command> --help` explains each command. The trace directory format is in\n"
    "docs/traces.md, the wire protocol in docs/protocol.md.\n";

/* ---- option parsing helpers ----------------------------------------------------------- */

static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (s[0] == '-' || s[0] == 0 || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "wiresum: %s %s: expected an integer in %" PRIu64 "..%" PRIu64 "\n", opt,
                s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t v;
    if (parse_u64(opt, s, lo, hi, &v))
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_rate(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == 0 || *end || errno || !(v >= 0 && v <= 1)) {
        fprintf(stderr, "wiresum: %s %s: expected a rate from 0 to 1\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Exactly one positional DIR argument. */
static const char *one_dir(int argc, char **argv, const char *cmd)
{
    if (optind != argc - 1) {
        fprintf(stderr, "wiresum %s: expected one trace directory (see wiresum %s --help)\n", cmd,
                cmd);
        return NULL;
    }
    return argv[optind];
}

/* ---- gen ------------------------------------------------------------------------------ */

/* Options of the commands that drive a model (sim, run, bench), parsed in one place: the model
 * and its trace (MODEL_OPTIONS) and, for the generated workloads, the job (LOAD_OPTIONS). */
enum {
    O_WIDTH = 0x100, O_CLOCK, O_TRACE, O_TRACE_FROM, O_TRACE_TO,
    O_WORKERS, O_COUNT, O_SLOTS, O_PORTS
};
#define MODEL_OPTIONS                                                                      \
    {"width", 1, 0, O_WIDTH}, {"clock", 1, 0, O_CLOCK}, {"trace", 1, 0, O_TRACE},          \
        {"trace-from", 1, 0, O_TRACE_FROM}, {"trace-to", 1, 0, O_TRACE_TO}
#define LOAD_OPTIONS                                                                       \
    {"workers", 1, 0, O_WORKERS}, {"count", 1, 0, O_COUNT}, {"slots", 1, 0, O_SLOTS},      \
        {"ports", 1, 0, O_PORTS}

typedef struct {
    unsigned *width;
    uint64_t *mhz;
    const char **trace;
    uint64_t *trace_from, *trace_to;
    unsigned *workers, *count, *slots, *ports; /* NULL for sim: no LOAD_OPTIONS */
} model_args;

/* Option c of MODEL_OPTIONS or LOAD_OPTIONS with its argument: 0 when taken, 1 when the value
 * is bad (message printed), -1 when c is not one of them. */
static int model_option(int c, const char *arg, const model_args *m)
{
    switch (c) {
    case O_WIDTH:
        if (parse_uint("--width", arg, 256, 1024, m->width))
            return 1;
        if (*m->width != 256 && *m->width != 512 && *m->width != 1024) {
            fprintf(stderr, "wiresum: --width %s: expected 256, 512 or 1024\n", arg);
            return 1;
        }
        return 0;
    case O_CLOCK: return parse_u64("--clock", arg, 1, 100000, m->mhz);
    case O_TRACE: *m->trace = arg; return 0;
    case O_TRACE_FROM: return parse_u64("--trace-from", arg, 0, UINT64_MAX, m->trace_from);
    case O_TRACE_TO: return parse_u64("--trace-to", arg, 0, UINT64_MAX, m->trace_to);
    }
    if (!m->workers)
        return -1;
    switch (c) {
    case O_WORKERS: return parse_uint("--workers", arg, 1, WS_LIMIT_WORKERS, m->workers);
    case O_COUNT: return parse_uint("--count", arg, 1, WS_LIMIT_COUNT, m->count);
    case O_SLOTS: return parse_uint("--slots", arg, 1, WS_LIMIT_SLOTS, m->slots);
    case O_PORTS: return parse_uint("--ports", arg, 1, WS_LIMIT_PORTS, m->ports);
    }
    return -1;
}

static const char usage_gen[] =
    "usage: wiresum gen DIR [options]\n"
    "\n"
    "Write a gradient trace into DIR (created if missing): job.ini, in<P>.pcap per device\n"
    "port and sum-<job>-<tensor>.f32, the exact sum of every tensor (binary32, big-endian).\n"
    "Worker models follow the window protocol (chunk i in slot i mod S, SET (i div S) mod 2,\n"
    "at most S chunks in flight) against the software reference in closed loop, so every\n"
    "round completes; the trace records what enters the device.\n"
    "\n"
    "shape:\n"
    "  --ports N        device ports (default 4)\n"
    "  --jobs N         jobs sharing the device and its ports (default 1)\n"
    "  --workers N      workers per job, 1..64 (default 4)\n"
    "  --elems N        elements per tensor (default 4096)\n"
    "  --count K        elements per packet, the job's max_count, 1..2048 (default 64)\n"
    "  --slots S        slots per job, the worker window (default 16)\n"
    "  --tensors T      consecutive all-reduces per job (default 1)\n"
    "  --pool N         device slot pool (default 64)\n"
    "  --seed N         random seed (default 1)\n"
    "  --values KIND    normal (gradients of mixed magnitudes), special (zeros, subnormals,\n"
    "                   extremes, ties, Inf, NaN) or mixed (default)\n"
    "  --vectors FILE   one two-worker job adding TestFloat f32_add lines: A from worker 0,\n"
    "                   B from worker 1, R (any NaN as 0x7fc00000) as the expected sum\n"
    "faults, each a rate from 0 to 1 (default 0):\n"
    "  --loss R         DATA lost before the device, RESULT lost after it; the worker\n"
    "                   re-sends on timeout with RETX set (at most 0.5)\n"
    "  --dup R          DATA duplicated by the network, the copy arriving later\n"
    "  --malformed R    after a step, a malformed frame of a random drop reason\n"
    "  --bypass R       after a step, a bypass frame (ARP, IPv6, TCP, other UDP, VLAN,\n"
    "                   runt, full-size, jumbo)\n"
    "  --ecn R          DATA marked ECN CE (the rest ECT(0))\n"
    "  -q, --quiet      no summary\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

static int cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {
        {"ports", 1, 0, 'p'},    {"jobs", 1, 0, 'j'},   {"workers", 1, 0, 'w'},
        {"elems", 1, 0, 'e'},    {"count", 1, 0, 'k'},  {"slots", 1, 0, 's'},
        {"tensors", 1, 0, 't'},  {"pool", 1, 0, 'P'},   {"seed", 1, 0, 'S'},
        {"values", 1, 0, 'v'},   {"vectors", 1, 0, 'V'}, {"loss", 1, 0, 'l'},
        {"dup", 1, 0, 'd'},      {"malformed", 1, 0, 'm'}, {"bypass", 1, 0, 'b'},
        {"ecn", 1, 0, 'E'},      {"quiet", 0, 0, 'q'},  {"help", 0, 0, 'h'},
        {"json", 0, 0, 'J'},     {0, 0, 0, 0}};
    ws_gen_opts o;
    ws_gen_defaults(&o);
    int quiet = 0, json = 0, c, bad = 0;
    while (!bad && (c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'p': bad = parse_uint("--ports", optarg, 1, WS_LIMIT_PORTS, &o.ports); break;
        case 'j': bad = parse_uint("--jobs", optarg, 1, WS_LIMIT_JOBS - 1, &o.jobs); break;
        case 'w': bad = parse_uint("--workers", optarg, 1, WS_LIMIT_WORKERS, &o.workers); break;
        case 'e': bad = parse_u64("--elems", optarg, 1, 0xffffffffu, &o.elems); break;
        case 'k': bad = parse_uint("--count", optarg, 1, WS_LIMIT_COUNT, &o.count); break;
        case 's': bad = parse_uint("--slots", optarg, 1, WS_LIMIT_SLOTS, &o.slots); break;
        case 't': bad = parse_uint("--tensors", optarg, 1, 65535, &o.tensors); break;
        case 'P': bad = parse_uint("--pool", optarg, 1, WS_LIMIT_SLOTS, &o.pool_slots); break;
        case 'S': bad = parse_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
        case 'l': bad = parse_rate("--loss", optarg, &o.loss); break;
        case 'd': bad = parse_rate("--dup", optarg, &o.dup); break;
        case 'm': bad = parse_rate("--malformed", optarg, &o.malformed); break;
        case 'b': bad = parse_rate("--bypass", optarg, &o.bypass); break;
        case 'E': bad = parse_rate("--ecn", optarg, &o.ecn); break;
        case 'V': o.vectors = optarg; break;
        case 'v':
            if (!strcmp(optarg, "normal"))
                o.values = WS_VALUES_NORMAL;
            else if (!strcmp(optarg, "special"))
                o.values = WS_VALUES_SPECIAL;
            else if (!strcmp(optarg, "mixed"))
                o.values = WS_VALUES_MIXED;
            else {
                fprintf(stderr, "wiresum: --values %s: expected normal, special or mixed\n", optarg);
                bad = 1;
            }
            break;
        case 'q': quiet = 1; break;
        case 'J': json = 1; break;
        case 'h': fputs(usage_gen, stdout); return 0;
        default: bad = 1;
        }
    }
    const char *dir = bad ? NULL : one_dir(argc, argv, "gen");
    if (!dir)
        return 2;
    ws_gen_stats st;
    char err[ERRLEN];
    if (ws_gen(dir, &o, &st, err, sizeof err) != 0) {
        fprintf(stderr, "wiresum gen: %s\n", err);
        return 1;
    }
    uint64_t mal = 0;
    for (int r = 0; r < WS_N_REASONS; r++)
        mal += st.malformed[r];
    if (json)
        return ws_json_print(json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                                       "command", "gen", "dir", dir, "frames", (json_int_t)st.frames,
                                       "data", (json_int_t)st.data, "retransmitted", (json_int_t)st.retx,
                                       "duplicated", (json_int_t)st.dups,
                                       "data_lost", (json_int_t)st.lost_data,
                                       "results_lost", (json_int_t)st.lost_results,
                                       "malformed", (json_int_t)mal, "bypass", (json_int_t)st.bypass),
                             stdout, "gen") ? 1 : 0;
    if (!quiet) {
        printf("gen %s: %llu frames: %llu DATA, %llu retransmitted, %llu duplicated, "
               "%llu DATA and %llu RESULTs lost, %llu malformed, %llu bypass\n",
               dir, (unsigned long long)st.frames, (unsigned long long)st.data,
               (unsigned long long)st.retx, (unsigned long long)st.dups,
               (unsigned long long)st.lost_data, (unsigned long long)st.lost_results,
               (unsigned long long)mal, (unsigned long long)st.bypass);
    }
    return 0;
}

/* ---- ref ------------------------------------------------------------------------------ */

static const char usage_ref[] =
    "usage: wiresum ref DIR [options]\n"
    "\n"
    "Run the frames of DIR/in<P>.pcap, in global order (timestamp, then lower port, then\n"
    "file order), through the software reference of the device configured by DIR/job.ini.\n"
    "Writes DIR/expected<P>.pcap, one per egress port, each frame stamped with the time of\n"
    "the frame that caused it, and prints the device counters.\n"
    "\n"
    "  --in PREFIX      input files PREFIX<P>.pcap (default in)\n"
    "  --out PREFIX     output files PREFIX<P>.pcap (default expected)\n"
    "  -q, --quiet      no counters\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

typedef struct {
    ws_trace_out *out;
    uint64_t ts;
    int failed;
    char err[ERRLEN];
} ref_ctx;

static void ref_emit(void *ctx, unsigned egress, const uint8_t *f, size_t len)
{
    ref_ctx *r = ctx;
    if (!r->failed && ws_trace_write(r->out, egress, r->ts, f, len, r->err, sizeof r->err) != 0)
        r->failed = 1;
}

static int cmd_ref(int argc, char **argv)
{
    static const struct option opts[] = {{"in", 1, 0, 'i'},    {"out", 1, 0, 'o'},
                                         {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
                                         {"json", 0, 0, 'J'},  {0, 0, 0, 0}};
    const char *in_prefix = "in", *out_prefix = "expected";
    int quiet = 0, json = 0, c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'i': in_prefix = optarg; break;
        case 'o': out_prefix = optarg; break;
        case 'q': quiet = 1; break;
        case 'J': json = 1; break;
        case 'h': fputs(usage_ref, stdout); return 0;
        default: return 2;
        }
    }
    const char *dir = one_dir(argc, argv, "ref");
    if (!dir)
        return 2;
    if (!strcmp(in_prefix, out_prefix)) {
        fprintf(stderr, "wiresum ref: --in and --out must differ\n");
        return 2;
    }
    static ws_config cfg;
    char err[ERRLEN], path[4096];
    snprintf(path, sizeof path, "%s/job.ini", dir);
    if (ws_config_load(&cfg, path, err, sizeof err) != 0) {
        fprintf(stderr, "wiresum ref: %s\n", err);
        return 1;
    }
    ws_refdev *dev = ws_refdev_new(&cfg, err, sizeof err);
    ws_trace_in *in = dev ? ws_trace_open(dir, in_prefix, cfg.n_ports, 1, err, sizeof err) : NULL;
    ref_ctx rc = {0};
    rc.out = in ? ws_trace_create(dir, out_prefix, cfg.n_ports, 0, err, sizeof err) : NULL;
    int status = rc.out ? 0 : 1;
    if (status)
        fprintf(stderr, "wiresum ref: %s\n", err);
    ws_pkt p;
    int r = 0;
    uint64_t frames = 0;
    while (!status && !rc.failed && (r = ws_trace_next(in, &p, err, sizeof err)) == 1) {
        rc.ts = p.ts_ns;
        ws_refdev_rx(dev, p.port, p.data, p.len, ref_emit, &rc);
        frames++;
    }
    if (!status && r < 0) {
        fprintf(stderr, "wiresum ref: %s\n", err);
        status = 1;
    }
    if (!status && rc.failed) {
        fprintf(stderr, "wiresum ref: %s\n", rc.err);
        status = 1;
    }
    if (ws_trace_finish(rc.out, rc.err, sizeof rc.err) != 0 && !status) {
        fprintf(stderr, "wiresum ref: %s\n", rc.err);
        status = 1;
    }
    if (!status && json &&
        ws_json_print(json_pack("{s:s, s:s, s:I, s:s, s:o}", "command", "ref", "dir", dir,
                                "frames_in", (json_int_t)frames, "out_prefix", out_prefix,
                                "counters", ws_json_counters(ws_refdev_counters(dev), cfg.n_ports)),
                      stdout, "ref"))
        status = 1;
    if (!status && !quiet && !json) {
        printf("ref %s: %llu frames in, %s<P>.pcap written\n", dir, (unsigned long long)frames,
               out_prefix);
        ws_counters_print(ws_refdev_counters(dev), cfg.n_ports, stdout);
    }
    ws_trace_close(in);
    ws_refdev_free(dev);
    return status;
}

/* ---- check ---------------------------------------------------------------------------- */

static const char usage_check[] =
    "usage: wiresum check DIR [options]\n"
    "\n"
    "Reassemble every member's tensors from the RESULT frames of DIR/<prefix><P>.pcap and\n"
    "compare them bit for bit with DIR/sum-<job>-<tensor>.f32. Every RESULT must be\n"
    "addressed from the device to its member, leave on the member's port and carry valid\n"
    "IPv4 and UDP checksums; every member must receive every element. Exit 0 only if so.\n"
    "\n"
    "  --prefix PREFIX  output files to check (default expected)\n"
    "  -q, --quiet      print problems only\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

static int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"prefix", 1, 0, 'p'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
        {"json", 0, 0, 'J'},   {0, 0, 0, 0}};
    const char *prefix = "expected";
    int quiet = 0, json = 0, c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'p': prefix = optarg; break;
        case 'q': quiet = 1; break;
        case 'J': json = 1; break;
        case 'h': fputs(usage_check, stdout); return 0;
        default: return 2;
        }
    }
    const char *dir = one_dir(argc, argv, "check");
    if (!dir)
        return 2;
    ws_check_stats st;
    char err[ERRLEN];
    int rc = ws_check(dir, prefix, &st, json ? stderr : stdout, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "wiresum check: %s\n", err);
        return 1;
    }
    if (json)
        return ws_json_print(json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b}", "command",
                                       "check", "dir", dir, "prefix", prefix,
                                       "tensors", (json_int_t)st.tensors,
                                       "results", (json_int_t)st.results,
                                       "resent", (json_int_t)st.resends,
                                       "other_frames", (json_int_t)st.other, "ok", rc == 0),
                             stdout, "check") || rc ? 1 : 0;
    if (!quiet || rc)
        printf("check %s: %llu tensors, %llu RESULTs (%llu re-sent), %llu other frames: %s\n", dir,
               (unsigned long long)st.tensors, (unsigned long long)st.results,
               (unsigned long long)st.resends, (unsigned long long)st.other,
               rc ? "MISMATCH" : "every member's tensor equals the exact sum");
    return rc ? 1 : 0;
}

/* ---- sim ------------------------------------------------------------------------------ */

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
    "                   Icarus Verilog (build/icarus, `make icarus`), much slower\n"
    "  --idle PCT       ingress idle insertion, percent of cycles (default 0)\n"
    "  --backpressure PCT  egress tready low, percent of cycles (default 0)\n"
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
    "  --max-cycles N   give up after N cycles\n"
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
    if (strlen(s) >= sizeof buf ||
        parse_u64("--trace-window", buf, 0, 1000000000, before) ||
        (comma && parse_u64("--trace-window (after)", comma + 1, 1, 1000000000, after))) {
        fprintf(stderr, "wiresum: --trace-window %s: expected BEFORE or BEFORE,AFTER in cycles\n",
                s);
        return -1;
    }
    return 0;
}

static int cmd_sim(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_OPTIONS,
        {"idle", 1, 0, 'i'},       {"backpressure", 1, 0, 'b'}, {"seed", 1, 0, 's'},
        {"max-cycles", 1, 0, 'm'}, {"sim", 1, 0, 'S'},          {"quiet", 0, 0, 'q'},
        {"help", 0, 0, 'h'},       {"trace-on-mismatch", 0, 0, 'M'},
        {"trace-window", 1, 0, 'W'}, {"counters", 0, 0, 'C'},   {"no-progress", 0, 0, 'n'},
        {"json", 0, 0, 'J'},       {0, 0, 0, 0}};
    ws_simrun_opts o;
    ws_simrun_defaults(&o);
    int c, bad = 0;
    uint64_t mhz = 200;
    const model_args ma = {&o.width, &mhz, &o.trace, &o.trace_from, &o.trace_to,
                           NULL, NULL, NULL, NULL};
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
        case 'i': bad = parse_uint("--idle", optarg, 0, 100, &o.idle_pct); break;
        case 'b': bad = parse_uint("--backpressure", optarg, 0, 100, &o.bp_pct); break;
        case 's': bad = parse_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
        case 'm': bad = parse_u64("--max-cycles", optarg, 1, UINT64_MAX, &o.max_cycles); break;
        case 'M': o.trace_on_mismatch = 1; break;
        case 'W': bad = parse_window(optarg, &o.trace_before, &o.trace_after); break;
        case 'C': o.counters = 1; break;
        case 'n': o.progress = 0; break;
        case 'q': o.quiet = 1; break;
        case 'J': o.json = 1; break;
        case 'h': fputs(usage_sim, stdout); return 0;
        default: bad = model_option(c, optarg, &ma) != 0;
        }
    }
    o.clock_mhz = (double)mhz;
    const char *dir = bad ? NULL : one_dir(argc, argv, "sim");
    if (!dir)
        return 2;
#ifdef WS_HAVE_SIM
    char err[ERRLEN];
    int rc = ws_simrun(dir, &o, o.json ? stderr : stdout, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "wiresum sim: %s\n", err);
        return 1;
    }
    return rc;
#else
    fprintf(stderr, "wiresum sim: this build has no RTL model (hw/wiresum_top.f was missing)\n");
    return 1;
#endif
}

/* ---- run ------------------------------------------------------------------------------ */

static const char usage_run[] =
    "usage: wiresum run [options]\n"
    "\n"
    "Closed loop: --workers workers of one job, spread over the device ports, each running the\n"
    "driver's transport (driver/wiresum/transport.h), all-reduce their tensors --iters times through\n"
    "the device over a simulated network with faults. Every worker's final tensor is compared\n"
    "bit for bit with the exact sum; every bypass frame must come out on its bypass egress; the\n"
    "device counters must add up. Prints time, throughput, retransmissions and the counters.\n"
    "Exit 0 only if every tensor is exact and every check passes. docs/driver.md.\n"
    "\n"
    "device:\n"
    "  --device D       rtl (the Verilator model, default) or ref (the software reference\n"
    "                   with a timing model: one beat per cycle in, fast)\n"
    "  --width W        DATA_WIDTH: 256 (default), 512 or 1024\n"
    "  --clock MHZ      clock for times and rates (default 200)\n"
    "job:\n"
    "  --workers N      1..64 (default 4)\n"
    "  --ports P        device ports the workers are spread over, rank w on w mod P (default 4)\n"
    "  --elems N        elements per tensor, 1..2^32-1 (default 16384)\n"
    "  --count K        elements per packet, the job's max_count (default 64)\n"
    "  --slots S        the job's slots: the window (default 16)\n"
    "  --iters N        consecutive all-reduces, 1..65535 (default 2)\n"
    "  --values KIND    normal, special or mixed (default) values\n"
    "  --seed N         seed of values and faults (default 1)\n"
    "network, each rate from 0 to 1 (default 0):\n"
    "  --loss R         a frame is lost\n"
    "  --dup R          a frame arrives twice, the copy up to one latency later\n"
    "  --reorder R      a frame is delayed by up to one latency, behind later frames\n"
    "  --corrupt R      one bit of a frame, anywhere, is flipped\n"
    "  --faults DIR     where faults apply: both (default), up (worker->device), down, none\n"
    "  --bypass R       per worker frame, a background non-aggregation frame on a random port\n"
    "  --latency C      one-way latency in cycles (default 400)\n"
    "transport:\n"
    "  --rto C          first retransmission timeout in cycles (default: from the load)\n"
    "  --max-retries N  retransmissions of a chunk before giving up (default 40, 0: none)\n"
    "output:\n"
    "  --record DIR     write the trace of the run (job.ini, in<P>.pcap: what entered each port\n"
    "                   in order; expected<P>.pcap: what the device sent; sum-*.f32) into a new\n"
    "                   DIR, which `wiresum sim DIR` replays and `wiresum check` checks\n"
    "                   with the device counters in DIR/counters.txt\n"
    "  --trace FILE.fst FST waveform of the model; --trace-from C, --trace-to C: a window\n"
    "  --plot FILE.png  utilization (beats per cycle in and out of the device, windows of\n"
    "                   1000 cycles) and latency per chunk (first transmission to result at\n"
    "                   the worker) over time, drawn by gnuplot; the data goes to FILE.dat\n"
    "  --counters       print the device counters as a table (wiresum counters)\n"
    "  --max-cycles N   give up after N simulated cycles\n"
    "  --no-progress    no progress bar (on a terminal) or periodic lines (otherwise)\n"
    "  -q, --quiet      print only problems\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

static int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_OPTIONS, LOAD_OPTIONS,
        {"device", 1, 0, 'D'},     {"elems", 1, 0, 'e'},       {"iters", 1, 0, 'i'},
        {"values", 1, 0, 'v'},     {"seed", 1, 0, 'S'},        {"loss", 1, 0, 'l'},
        {"dup", 1, 0, 'd'},        {"reorder", 1, 0, 'r'},     {"corrupt", 1, 0, 'C'},
        {"faults", 1, 0, 'f'},     {"bypass", 1, 0, 'b'},      {"latency", 1, 0, 'L'},
        {"rto", 1, 0, 'R'},        {"max-retries", 1, 0, 'M'}, {"record", 1, 0, 'o'},
        {"max-cycles", 1, 0, 'm'}, {"no-progress", 0, 0, 'n'}, {"quiet", 0, 0, 'q'},
        {"help", 0, 0, 'h'},       {"plot", 1, 0, 'P'},        {"counters", 0, 0, 'K'},
        {"json", 0, 0, 'J'},
        {0, 0, 0, 0}};
    ws_run_opts o;
    ws_run_defaults(&o);
    int c, bad = 0, quiet = 0, prog = 1, counters = 0, json = 0;
    uint64_t mhz = 200;
    const model_args ma = {&o.width, &mhz, &o.trace, &o.trace_from, &o.trace_to,
                           &o.workers, &o.count, &o.slots, &o.ports};
    while (!bad && (c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'D':
            if (!strcmp(optarg, "rtl"))
                o.device = WS_RUN_RTL;
            else if (!strcmp(optarg, "ref"))
                o.device = WS_RUN_REF;
            else {
                fprintf(stderr, "wiresum: --device %s: expected rtl or ref\n", optarg);
                bad = 1;
            }
            break;
        case 'e': bad = parse_u64("--elems", optarg, 1, 0xffffffffu, &o.elems); break;
        case 'i': bad = parse_uint("--iters", optarg, 1, 65535, &o.iters); break;
        case 'S': bad = parse_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
        case 'l': bad = parse_rate("--loss", optarg, &o.loss); break;
        case 'd': bad = parse_rate("--dup", optarg, &o.dup); break;
        case 'r': bad = parse_rate("--reorder", optarg, &o.reorder); break;
        case 'C': bad = parse_rate("--corrupt", optarg, &o.corrupt); break;
        case 'b': bad = parse_rate("--bypass", optarg, &o.bypass); break;
        case 'L': bad = parse_u64("--latency", optarg, 1, 100000000, &o.latency); break;
        case 'R': bad = parse_u64("--rto", optarg, 1, UINT32_MAX, &o.rto); break;
        case 'M': bad = parse_uint("--max-retries", optarg, 0, 1000000, &o.max_retries); break;
        case 'm': bad = parse_u64("--max-cycles", optarg, 1, UINT64_MAX, &o.max_cycles); break;
        case 'o': o.record = optarg; break;
        case 'n': prog = 0; break;
        case 'q': quiet = 1; break;
        case 'P': o.plot = optarg; break;
        case 'K': counters = 1; break;
        case 'J': json = 1; break;
        case 'f':
            if (!strcmp(optarg, "both") || !strcmp(optarg, "up") || !strcmp(optarg, "down") ||
                !strcmp(optarg, "none")) {
                o.fault_up = !strcmp(optarg, "both") || !strcmp(optarg, "up");
                o.fault_down = !strcmp(optarg, "both") || !strcmp(optarg, "down");
            } else {
                fprintf(stderr, "wiresum: --faults %s: expected both, up, down or none\n", optarg);
                bad = 1;
            }
            break;
        case 'v':
            if (!strcmp(optarg, "normal"))
                o.values = WS_RUN_NORMAL;
            else if (!strcmp(optarg, "special"))
                o.values = WS_RUN_SPECIAL;
            else if (!strcmp(optarg, "mixed"))
                o.values = WS_RUN_MIXED;
            else {
                fprintf(stderr, "wiresum: --values %s: expected normal, special or mixed\n", optarg);
                bad = 1;
            }
            break;
        case 'h': fputs(usage_run, stdout); return 0;
        default: bad = model_option(c, optarg, &ma) != 0;
        }
    }
    if (bad)
        return 2;
    if (optind != argc) {
        fprintf(stderr, "wiresum run: unexpected argument '%s' (see wiresum run --help)\n",
                argv[optind]);
        return 2;
    }
    o.clock_mhz = (double)mhz;
    o.progress = prog && !quiet;
    o.progress_tty = -1; /* whether stderr is a terminal */
    ws_run_stats st;
    char err[ERRLEN];
    FILE *out = json ? stderr : stdout;
    FILE *sink = quiet ? tmpfile() : NULL;
    if (quiet && sink)
        out = sink;
    int rc = ws_run(&o, &st, out, err, sizeof err);
    if (sink) {
        if (rc != 0) { /* quiet: the report only when something went wrong */
            rewind(sink);
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, sink)) > 0)
                fwrite(buf, 1, n, json ? stderr : stdout);
        }
        fclose(sink);
    }
    if (rc < 0) {
        fprintf(stderr, "wiresum run: %s\n", err);
        return 1;
    }
    if (json) {
        double secs = (double)st.cycles / ((double)o.clock_mhz * 1e6);
        json_t *js = json_pack(
            "{s:s, s:s, s:i, s:i, s:i, s:I, s:i, s:i, s:i, s:f, s:I, s:I, s:f, s:f, s:f}",
            "command", "run", "device", o.device == WS_RUN_RTL ? "rtl" : "ref",
            "width", (int)o.width, "workers", (int)o.workers, "ports", (int)o.ports,
            "elems", (json_int_t)o.elems, "iters", (int)o.iters, "count", (int)o.count,
            "slots", (int)o.slots, "clock_mhz", o.clock_mhz, "cycles", (json_int_t)st.cycles,
            "model_cycles", (json_int_t)st.model_cycles, "seconds", secs, "wall_s", st.wall_s,
            "gbps_per_worker",
            secs > 0 ? (double)o.elems * 4 * o.iters * 8 / secs / 1e9 : 0.0);
        json_t *tr = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                               "data", (json_int_t)st.data, "retransmissions", (json_int_t)st.retx,
                               "timeouts", (json_int_t)st.timeouts,
                               "results", (json_int_t)st.results,
                               "duplicate_results", (json_int_t)st.dup_results,
                               "stale_results", (json_int_t)st.stale_results,
                               "corrupted_results", (json_int_t)st.bad_frames,
                               "foreign_frames", (json_int_t)st.foreign);
        json_t *nw = json_pack("{s:[I,I], s:[I,I], s:[I,I], s:[I,I], s:I}",
                               "lost", (json_int_t)st.lost[0], (json_int_t)st.lost[1],
                               "duplicated", (json_int_t)st.duped[0], (json_int_t)st.duped[1],
                               "reordered", (json_int_t)st.reordered[0],
                               (json_int_t)st.reordered[1], "corrupted",
                               (json_int_t)st.corrupted[0], (json_int_t)st.corrupted[1],
                               "undeliverable", (json_int_t)st.undeliverable);
        if (js) {
            json_object_set_new(js, "transport", tr);
            json_object_set_new(js, "network", nw);
            json_object_set_new(js, "bypass", json_pack("{s:I, s:I, s:I}", "sent",
                                                        (json_int_t)st.bypass_sent, "out",
                                                        (json_int_t)st.bypass_out,
                                                        "corrupted_bypassed",
                                                        (json_int_t)st.corrupt_bypassed));
            json_object_set_new(js, "counters", ws_json_counters(&st.ctr, o.ports));
            json_object_set_new(js, "tensors", json_integer((json_int_t)st.tensors));
            json_object_set_new(js, "tensors_exact", json_integer((json_int_t)st.tensors_exact));
            json_object_set_new(js, "check_failures", json_integer((json_int_t)st.check_failures));
            json_object_set_new(js, "exact", json_boolean(st.tensors_exact == st.tensors));
            json_object_set_new(js, "ok", json_boolean(rc == 0));
        } else {
            json_decref(tr);
            json_decref(nw);
        }
        if (ws_json_print(js, stdout, "run"))
            return 1;
    }
    if (counters) {
        ws_counters_file cf;
        memset(&cf, 0, sizeof cf);
        cf.device.present = 1;
        cf.device.ports = o.ports;
        cf.device.c = st.ctr;
        snprintf(cf.device.source, sizeof cf.device.source, "wiresum run, %s",
                 o.device == WS_RUN_RTL ? "RTL model" : "software reference");
        ws_counters_table(json ? stderr : stdout, &cf);
    }
    return rc;
}

/* ---- bench ---------------------------------------------------------------------------- */

static const char usage_bench[] =
    "usage: wiresum bench [options]\n"
    "\n"
    "Measure the RTL model (Verilator) under saturating load: W workers of one job keep their\n"
    "windows full (chunk i+S leaves as soon as the RESULT of chunk i is out) and every ingress\n"
    "port always has its next DATA frame queued (worker w sends chunk i on port (w+i) mod P).\n"
    "The frames are built with the codec, the device is configured through its registers, and\n"
    "every RESULT is checked against the exact sum. Two phases (docs/performance.md):\n"
    "  load  after --warmup cycles, a window of --cycles cycles: engine beats accepted per cycle\n"
    "        (accepted counter x beats per frame / cycles), ingress beats per cycle, wire\n"
    "        efficiency (payload goodput over payload/(frame+24) of the engine's capacity), and\n"
    "        the latency of the rounds whose last contribution came in within the window;\n"
    "  idle  a window of one chunk per worker, --idle-rounds rounds: the latency of the\n"
    "        pipeline alone.\n"
    "Latency: cycles from the last beat of a round's last contribution (into the device) to the\n"
    "first beat of its first RESULT, and to the last beat of its last RESULT: min/median/max.\n"
    "\n"
    "  --width W        DATA_WIDTH of the model: 256 (default), 512 or 1024\n"
    "  --workers N      workers of the job (default 4)\n"
    "  --count K        elements per packet (default 256; above the model's MAX_COUNT needs a\n"
    "                   model built with WS_VFLAGS=-GMAX_COUNT=...)\n"
    "  --slots S        the job's slots: each worker's window in the load phase (default 16)\n"
    "  --ports P        ingress ports driven (default: all of the model's)\n"
    "  --warmup C       cycles before the load window (default 20000)\n"
    "  --cycles C       cycles of the load window (default 100000; 0: no load phase)\n"
    "  --idle-rounds N  rounds of the idle phase (default 40; 0: no idle phase)\n"
    "  --clock MHZ      clock for rates in Gb/s (default 200)\n"
    "  --tsv            print one header line and one line of tab-separated values\n"
    "  --quick          the default configuration with a short window (well under a minute);\n"
    "                   ends with exactly one line: utilization=<engine beats per cycle>\n"
    "                   wire_efficiency=<goodput over the wire limit> latency_cycles=<median\n"
    "                   of the idle phase, last beat in to first RESULT beat>\n"
    "  --trace FILE.fst FST waveform of the load phase; --trace-from C, --trace-to C: a window\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n"
    "Exit 0 when every RESULT was right, 1 if one was wrong, 2 on bad options.\n";

/* The latency figures of one phase as JSON: {"rounds", "first": {min, median, max},
 * "last": {...}} in cycles. */
static json_t *bench_latency_json(const ws_bench_latency *l)
{
    return json_pack("{s:I, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}}", "rounds", (json_int_t)l->n,
                     "first", "min", (json_int_t)l->first_min, "median", (json_int_t)l->first_med,
                     "max", (json_int_t)l->first_max, "last", "min", (json_int_t)l->last_min,
                     "median", (json_int_t)l->last_med, "max", (json_int_t)l->last_max);
}

static int bench_json(const ws_bench_opts *o, const ws_bench_result *r, FILE *out)
{
    return ws_json_print(
        json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:I, s:I, s:f, s:f, s:f, "
                  "s:f, s:f, s:f, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:f}",
                  "command", "bench", "width", (int)o->width, "workers", (int)o->workers,
                  "count", (int)o->count, "slots", (int)o->slots, "ports", (int)r->ports,
                  "engines", (int)r->engines, "frame_bytes", (int)r->frame_bytes,
                  "beats", (int)r->beats, "clock_mhz", o->clock_mhz,
                  "cycles", (json_int_t)r->cycles, "accepted", (json_int_t)r->accepted,
                  "util", r->util, "util_in", r->util_in, "wire_limit", r->wire_limit,
                  "goodput", r->goodput, "wire_eff", r->wire_eff, "goodput_gbps", r->goodput_gbps,
                  "starved_steps", (json_int_t)r->starved, "steps", (json_int_t)r->steps,
                  "load_latency", bench_latency_json(&r->load),
                  "idle_latency", bench_latency_json(&r->idle),
                  "results_checked", (json_int_t)r->results_checked,
                  "bad_results", (json_int_t)r->bad_results,
                  "model_cycles", (json_int_t)r->model_cycles, "wall_s", r->wall_s),
        out, "bench");
}

static void bench_print(const ws_bench_opts *o, const ws_bench_result *r, int tsv, FILE *out)
{
    if (tsv) {
        fprintf(out, "width\tworkers\tcount\tslots\tports\tframe_bytes\tbeats\tcycles\taccepted\t"
                     "util\tutil_in\twire_limit\tgoodput\twire_eff\tgoodput_gbps\tstarved_steps\t"
                     "steps\tload_n\tload_first_min\tload_first_med\tload_first_max\t"
                     "load_last_min\tload_last_med\tload_last_max\tidle_n\tidle_first_min\t"
                     "idle_first_med\tidle_first_max\tidle_last_min\tidle_last_med\t"
                     "idle_last_max\tresults_checked\tbad_results\tmodel_cycles\twall_s\tengines\n");
        fprintf(out, "%u\t%u\t%u\t%u\t%u\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\t%.4f\t%.4f\t%.4f\t"
                     "%.4f\t%.4f\t%.2f\t%" PRIu64 "\t%" PRIu64,
                o->width, o->workers, o->count, o->slots, r->ports, r->frame_bytes, r->beats,
                r->cycles, r->accepted, r->util, r->util_in, r->wire_limit, r->goodput,
                r->wire_eff, r->goodput_gbps, r->starved, r->steps);
        const ws_bench_latency *l[2] = {&r->load, &r->idle};
        for (int k = 0; k < 2; k++)
            fprintf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
                         "\t%" PRIu64 "\t%" PRIu64, l[k]->n, l[k]->first_min, l[k]->first_med,
                    l[k]->first_max, l[k]->last_min, l[k]->last_med, l[k]->last_max);
        fprintf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.1f\t%u\n", r->results_checked,
                r->bad_results, r->model_cycles, r->wall_s, r->engines);
        return;
    }
    fprintf(out, "bench: width %u, %u workers, %u elements per packet (%u-byte frames, %u beats), "
                 "%u slots, %u ingress ports, %u engine%s\n", o->width, o->workers, o->count,
            r->frame_bytes, r->beats, o->slots, r->ports, r->engines, r->engines == 1 ? "" : "s");
    if (o->cycles) {
        fprintf(out, "  load: %" PRIu64 " cycles, %" PRIu64 " frames accepted: engine %.4f "
                     "beats/cycle (ingress %.4f); goodput %.4f of the capacity = %.2f Gb/s at "
                     "%.0f MHz; wire limit %.4f; wire efficiency %.4f; ports starved in %" PRIu64
                     " of %" PRIu64 " steps\n", r->cycles, r->accepted, r->util, r->util_in,
                r->goodput, r->goodput_gbps, o->clock_mhz, r->wire_limit, r->wire_eff,
                r->starved, r->steps);
        fprintf(out, "  load latency (%" PRIu64 " rounds): to first RESULT %" PRIu64 "/%" PRIu64
                     "/%" PRIu64 ", to last RESULT %" PRIu64 "/%" PRIu64 "/%" PRIu64
                     " cycles (min/median/max)\n", r->load.n, r->load.first_min,
                r->load.first_med, r->load.first_max, r->load.last_min, r->load.last_med,
                r->load.last_max);
    }
    if (o->idle_rounds)
        fprintf(out, "  idle latency (%" PRIu64 " rounds): to first RESULT %" PRIu64 "/%" PRIu64
                     "/%" PRIu64 ", to last RESULT %" PRIu64 "/%" PRIu64 "/%" PRIu64
                     " cycles (min/median/max)\n", r->idle.n, r->idle.first_min,
                r->idle.first_med, r->idle.first_max, r->idle.last_min, r->idle.last_med,
                r->idle.last_max);
    fprintf(out, "  %" PRIu64 " RESULTs checked, %" PRIu64 " wrong; %" PRIu64 " cycles simulated "
                 "in %.1f s\n", r->results_checked, r->bad_results, r->model_cycles, r->wall_s);
}

static int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_OPTIONS, LOAD_OPTIONS,
        {"warmup", 1, 0, 'u'},     {"cycles", 1, 0, 'n'},     {"idle-rounds", 1, 0, 'r'},
        {"tsv", 0, 0, 'v'},        {"quick", 0, 0, 'Q'},      {"help", 0, 0, 'h'},
        {"json", 0, 0, 'J'},
        {0, 0, 0, 0}};
    ws_bench_opts o;
    ws_bench_defaults(&o);
    int c, bad = 0, tsv = 0, quick = 0, json = 0;
    uint64_t mhz = 200;
    const model_args ma = {&o.width, &mhz, &o.trace, &o.trace_from, &o.trace_to,
                           &o.workers, &o.count, &o.slots, &o.ports};
    while (!bad && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'u': bad = parse_u64("--warmup", optarg, 0, UINT32_MAX, &o.warmup); break;
        case 'n': bad = parse_u64("--cycles", optarg, 0, UINT32_MAX, &o.cycles); break;
        case 'r': bad = parse_uint("--idle-rounds", optarg, 0, 100000, &o.idle_rounds); break;
        case 'v': tsv = 1; break;
        case 'J': json = 1; break;
        case 'Q': quick = 1; break;
        case 'h': fputs(usage_bench, stdout); return 0;
        default: bad = model_option(c, optarg, &ma) != 0;
        }
    }
    if (bad)
        return 2;
    if (optind != argc) {
        fprintf(stderr, "wiresum bench: unexpected argument '%s' (see wiresum bench --help)\n",
                argv[optind]);
        return 2;
    }
    if (quick) {
        ws_bench_opts d;
        ws_bench_defaults(&d);
        d.warmup = 10000;
        d.cycles = 50000;
        d.idle_rounds = 20;
        d.trace = o.trace;
        d.trace_from = o.trace_from;
        d.trace_to = o.trace_to;
        o = d;
    }
    o.clock_mhz = (double)mhz;
    ws_bench_result r;
    char err[ERRLEN];
    if (json && tsv) {
        fprintf(stderr, "wiresum bench: --json and --tsv exclude each other\n");
        return 2;
    }
    int rc = ws_bench(&o, &r, json ? stderr : stdout, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "wiresum bench: %s\n", err);
        return 1;
    }
    if (json)
        return bench_json(&o, &r, stdout) || rc ? 1 : 0;
    bench_print(&o, &r, tsv, stdout);
    if (quick)
        printf("utilization=%.4f wire_efficiency=%.4f latency_cycles=%" PRIu64 "\n", r.util,
               r.wire_eff, r.idle.first_med);
    return rc ? 1 : 0;
}

/* ---- counters ------------------------------------------------------------------------- */

static const char usage_counters[] =
    "usage: wiresum counters DIR|FILE\n"
    "\n"
    "Print the device counters saved by `wiresum sim DIR` or `wiresum run --record DIR` in\n"
    "DIR/counters.txt (or FILE) as a table: per port the frames and bytes received and sent;\n"
    "frames accepted, RESULTs sent and re-sent, bypass frames; drops by reason (the names of\n"
    "driver/wiresum/reasons.h). With the reference's counters in the file too (sim), they are shown\n"
    "beside the device's and every difference is marked. The format is in docs/traces.md.\n"
    "Exit 0 if the file reads (whatever the counters say), 1 if not.\n"
    "\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

static int cmd_counters(int argc, char **argv)
{
    static const struct option opts[] = {{"help", 0, 0, 'h'}, {"json", 0, 0, 'J'}, {0, 0, 0, 0}};
    int c, json = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_counters, stdout);
            return 0;
        }
        if (c != 'J')
            return 2;
        json = 1;
    }
    const char *arg = one_dir(argc, argv, "counters");
    if (!arg)
        return 2;
    char path[4096];
    struct stat sb;
    if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(path, sizeof path, "%s/%s", arg, WS_COUNTERS_FILE);
    else
        snprintf(path, sizeof path, "%s", arg);
    ws_counters_file cf;
    char err[ERRLEN];
    if (ws_counters_load(path, &cf, err, sizeof err)) {
        fprintf(stderr, "wiresum counters: %s\n", err);
        return 1;
    }
    if (json) {
        json_t *o = json_pack("{s:s, s:s}", "command", "counters", "file", path);
        const ws_counters_section *sec[2] = {&cf.device, &cf.reference};
        const char *key[2] = {"device", "reference"};
        for (int k = 0; k < 2 && o; k++)
            if (sec[k]->present)
                json_object_set_new(o, key[k],
                                    json_pack("{s:s, s:i, s:o}", "source", sec[k]->source,
                                              "ports", (int)sec[k]->ports, "counters",
                                              ws_json_counters(&sec[k]->c, sec[k]->ports)));
        if (o)
            json_object_set_new(o, "differ", json_integer(ws_counters_differ(&cf)));
        return ws_json_print(o, stdout, "counters") ? 1 : 0;
    }
    printf("%s:\n", path);
    ws_counters_table(stdout, &cf);
    return 0;
}

/* ---- testfloat ------------------------------------------------------------------------ */

static const char usage_testfloat[] =
    "usage: wiresum testfloat [FILE]\n"
    "\n"
    "Check the exact adder on Berkeley TestFloat f32_add vectors, one case a line:\n"
    "`A B R flags` in hex, as printed by `testfloat_gen f32_add`, from FILE or stdin.\n"
    "Each case is a two-worker sum; a NaN result is expected as 0x7fc00000. Exit 0 only\n"
    "if every case matches. See tests/testfloat.sh.\n"
    "\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

static int cmd_testfloat(int argc, char **argv)
{
    static const struct option opts[] = {{"help", 0, 0, 'h'}, {"json", 0, 0, 'J'}, {0, 0, 0, 0}};
    int c, json = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_testfloat, stdout);
            return 0;
        }
        if (c != 'J')
            return 2;
        json = 1;
    }
    if (optind < argc - 1) {
        fprintf(stderr, "wiresum testfloat: at most one FILE\n");
        return 2;
    }
    FILE *in = stdin;
    const char *name = "<stdin>";
    if (optind == argc - 1) {
        name = argv[optind];
        in = fopen(name, "r");
        if (!in) {
            fprintf(stderr, "wiresum testfloat: %s: %s\n", name, strerror(errno));
            return 1;
        }
    }
    unsigned long cases = 0;
    int rc = ws_testfloat_run(in, json ? stderr : stdout, name, &cases);
    if (in != stdin)
        fclose(in);
    if (json && rc >= 0 &&
        ws_json_print(json_pack("{s:s, s:s, s:I, s:i, s:b}", "command", "testfloat", "file", name,
                                "cases", (json_int_t)cases, "mismatches", rc, "ok", rc == 0),
                      stdout, "testfloat"))
        return 1;
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"gen", cmd_gen}, {"ref", cmd_ref}, {"check", cmd_check},
                {"sim", cmd_sim},
                {"run", cmd_run},
                {"counters", cmd_counters},
                {"bench", cmd_bench},
                {"testfloat", cmd_testfloat}};
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        fputs(usage_main, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name)) {
            optind = 1;
            return cmds[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "wiresum: unknown command '%s' (see wiresum --help)\n", argv[1]);
    return 2;
}
