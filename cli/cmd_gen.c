/* cmd_gen.c - `wiresum gen`: write a gradient trace (trace/gen.c does the work). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"
#include "json.h"
#include "wiresum/config.h"
#include "wiresum/reasons.h"
#include "wiresum/session.h"

static const char usage_gen[] =
    "usage: wiresum gen DIR [options]\n"
    "\n"
    "Write a gradient trace into DIR (created if missing): job.ini, in<P>.pcap per device\n"
    "port and sum-<job>-<tensor>.f32, the exact sum of every tensor (binary32, big-endian).\n"
    "Worker models follow the window protocol (chunk i in slot i mod S, SET (i div S) mod 2,\n"
    "at most S chunks in flight) against the software reference in closed loop, so every\n"
    "round completes; the trace records what enters the device. A trace that would not fit\n"
    "on DIR's disk is refused before writing; one that no model built into this binary can\n"
    "run (`wiresum sim` would refuse it) gets a warning naming a build that can.\n"
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
    "                   (not with --jobs, --workers, --elems, --tensors or --values)\n"
    "  --from DIR       recorded gradients (scripts/record_gradients.py, docs/traces.md):\n"
    "                   DIR/w<W>-s<S>.f32 of every worker W and step S; one job of those\n"
    "                   workers, one tensor a step (not with the options --vectors excludes)\n"
    "faults, each a rate from 0 to 1 (default 0):\n"
    "  --loss R         DATA lost before the device, RESULT lost after it; the worker\n"
    "                   re-sends on timeout with RETX set (at most 0.5)\n"
    "  --dup R          DATA duplicated by the network, the copy arriving later\n"
    "  --malformed R    after a step, a malformed frame of a random drop reason\n"
    "  --bypass R       after a step, a bypass frame (ARP, IPv6, TCP, other UDP, VLAN,\n"
    "                   runt, full-size, jumbo)\n"
    "  --ecn R          DATA marked ECN CE (the rest ECT(0))\n"
    "  --no-progress    no progress bar (on a terminal) or periodic lines (otherwise)\n"
    "  -q, --quiet      no summary, no progress\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

/* gen needs no model, but sim and run do: when no model built into this binary can hold the
 * trace's configuration (ws_dev_fits, as sim's configuration of the model checks it), say so
 * before writing, with the make command of a build whose model can. */
static void warn_models(const ws_gen_opts *o, const char *dir)
{
    ws_config cfg;
    char why[ERRLEN] = "", err[ERRLEN];
    unsigned widths[8], over = 0;
    size_t nw = ws_sim_widths(widths, 8);
    if (nw == 0 || ws_gen_config(o, &cfg, err, sizeof err))
        return; /* no model to run it on; or ws_gen says what is wrong */
    char list[64] = "";
    for (size_t i = 0; i < nw; i++) {
        ws_session_opts so = {WS_DEVICE_VERILATOR, widths[i], 0};
        ws_session *s = ws_session_open(&so, err, sizeof err);
        ws_dev_params p;
        int opened = s && ws_session_open_driver(s, &p, err, sizeof err) == 0;
        ws_session_free(s);
        if (!opened)
            continue;
        unsigned bits = ws_dev_fits(&p, &cfg, err, sizeof err);
        if (!bits)
            return;
        if (!over)
            snprintf(why, sizeof why, "%s", err);
        over |= bits;
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%u", n ? (i + 1 == nw ? " and " : ", ") : "",
                 widths[i]);
    }
    if (!over)
        return;
    unsigned workers = 0;
    for (unsigned j = 0; j < cfg.n_jobs; j++)
        if (cfg.job[j].workers > workers)
            workers = cfg.job[j].workers;
    const struct {
        unsigned bit;
        const char *param, *tag;
        unsigned need;
    } par[] = {{WS_FIT_PORTS, "N_PORTS", "p", cfg.n_ports},
               {WS_FIT_JOBS, "MAX_JOBS", "j", cfg.n_jobs},
               {WS_FIT_POOL, "POOL_SLOTS", "s", cfg.pool_slots},
               {WS_FIT_COUNT, "MAX_COUNT", "mc", cfg.max_count},
               {WS_FIT_WORKERS, "MAX_WORKERS", "w", workers}};
    char flags[256] = "", name[64] = "";
    for (size_t i = 0; i < sizeof par / sizeof par[0]; i++)
        if (over & par[i].bit) {
            size_t n = strlen(flags), m = strlen(name);
            snprintf(flags + n, sizeof flags - n, "%s-G%s=%u", n ? " " : "", par[i].param,
                     par[i].need);
            snprintf(name + m, sizeof name - m, "%s%u", par[i].tag, par[i].need);
        }
    fprintf(stderr, "wiresum gen: warning: no model built into this binary can run this trace: "
                    "%s (the %s-bit models). `wiresum ref` and `wiresum check` take it; "
                    "`wiresum sim` refuses it. A build whose model can (256 bits):\n"
                    "  make BUILD=build/%s WS_SIM_WIDTHS=256 WS_VFLAGS='%s' build/%s/wiresum\n"
                    "  build/%s/wiresum sim %s\n",
            why, list, name, flags, name, name, dir);
}

int ws_cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {
        {"ports", 1, 0, 'p'},    {"jobs", 1, 0, 'j'},   {"workers", 1, 0, 'w'},
        {"elems", 1, 0, 'e'},    {"count", 1, 0, 'k'},  {"slots", 1, 0, 's'},
        {"tensors", 1, 0, 't'},  {"pool", 1, 0, 'P'},   {"seed", 1, 0, 'S'},
        {"values", 1, 0, 'v'},   {"vectors", 1, 0, 'V'}, {"loss", 1, 0, 'l'},
        {"dup", 1, 0, 'd'},      {"malformed", 1, 0, 'm'}, {"bypass", 1, 0, 'b'},
        {"ecn", 1, 0, 'E'},      {"quiet", 0, 0, 'q'},  {"help", 0, 0, 'h'},
        {"json", 0, 0, 'J'},     {"from", 1, 0, 'F'},   {"no-progress", 0, 0, 'n'},
        {0, 0, 0, 0}};
    ws_gen_opts o;
    ws_gen_defaults(&o);
    int quiet = 0, json = 0, c, bad = 0, prog = 1;
    const char *shape = NULL; /* an option --vectors fixes: one job, two workers, one tensor */
    while (!bad && (c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        if (c == 'j' || c == 'w' || c == 'e' || c == 't' || c == 'v')
            shape = c == 'j' ? "--jobs" : c == 'w' ? "--workers" : c == 'e' ? "--elems"
                  : c == 't' ? "--tensors" : "--values";
        switch (c) {
        case 'p': bad = ws_cli_uint("--ports", optarg, 1, WS_LIMIT_PORTS, &o.ports); break;
        case 'j': bad = ws_cli_uint("--jobs", optarg, 1, WS_LIMIT_JOBS - 1, &o.jobs); break;
        case 'w': bad = ws_cli_uint("--workers", optarg, 1, WS_LIMIT_WORKERS, &o.workers); break;
        case 'e': bad = ws_cli_u64("--elems", optarg, 1, 0xffffffffu, &o.elems); break;
        case 'k': bad = ws_cli_uint("--count", optarg, 1, WS_LIMIT_COUNT, &o.count); break;
        case 's': bad = ws_cli_uint("--slots", optarg, 1, WS_LIMIT_SLOTS, &o.slots); break;
        case 't': bad = ws_cli_uint("--tensors", optarg, 1, 65535, &o.tensors); break;
        case 'P': bad = ws_cli_uint("--pool", optarg, 1, WS_LIMIT_SLOTS, &o.pool_slots); break;
        case 'S': bad = ws_cli_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
        case 'l': bad = ws_cli_rate("--loss", optarg, &o.loss); break;
        case 'd': bad = ws_cli_rate("--dup", optarg, &o.dup); break;
        case 'm': bad = ws_cli_rate("--malformed", optarg, &o.malformed); break;
        case 'b': bad = ws_cli_rate("--bypass", optarg, &o.bypass); break;
        case 'E': bad = ws_cli_rate("--ecn", optarg, &o.ecn); break;
        case 'V': o.vectors = optarg; break;
        case 'F': o.from = optarg; break;
        case 'v':
            bad = ws_cli_values(optarg, &o.values);
            break;
        case 'q': quiet = 1; break;
        case 'J': json = 1; break;
        case 'n': prog = 0; break;
        case 'h': fputs(usage_gen, stdout); return 0;
        default: bad = 1;
        }
    }
    if (!bad && o.vectors && shape) {
        fprintf(stderr, "wiresum gen: %s cannot apply with --vectors, which makes one job of two "
                        "workers adding one tensor of the file's A and B (one element a line)\n",
                shape);
        bad = 1;
    }
    if (!bad && o.from && (shape || o.vectors)) {
        fprintf(stderr, "wiresum gen: %s cannot apply with --from, which makes one job of the "
                        "recording's workers, one tensor a step\n", shape ? shape : "--vectors");
        bad = 1;
    }
    char err[ERRLEN];
    if (!bad && ws_gen_check(&o, err, sizeof err)) { /* a usage error, as any bad option */
        fprintf(stderr, "wiresum gen: %s\n", err);
        bad = 1;
    }
    const char *dir = bad ? NULL : ws_cli_one_dir(argc, argv, "gen");
    if (!dir)
        return 2;
    o.progress = prog && !quiet;
    o.progress_tty = -1; /* whether stderr is a terminal */
    warn_models(&o, dir);
    ws_gen_stats st;
    if (ws_gen(dir, &o, &st, err, sizeof err) != 0) {
        fprintf(stderr, "wiresum gen: %s\n", err);
        return 1;
    }
    uint64_t mal = 0;
    for (int r = 0; r < WS_N_REASONS; r++)
        mal += st.malformed[r];
    if (json) {
        json_t *js = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "command",
                               "gen", "dir", dir, "frames", (json_int_t)st.frames,
                               "data", (json_int_t)st.data, "retransmitted", (json_int_t)st.retx,
                               "duplicated", (json_int_t)st.dups,
                               "data_lost", (json_int_t)st.lost_data,
                               "results_lost", (json_int_t)st.lost_results,
                               "malformed", (json_int_t)mal, "bypass", (json_int_t)st.bypass,
                               "removed", (int)st.removed);
        return ws_json_print(js, stdout, "gen") ? 1 : 0;
    }
    if (!quiet) {
        printf("gen %s: %llu frames: %llu DATA, %llu retransmitted, %llu duplicated, "
               "%llu DATA and %llu RESULTs lost, %llu malformed, %llu bypass\n",
               dir, (unsigned long long)st.frames, (unsigned long long)st.data,
               (unsigned long long)st.retx, (unsigned long long)st.dups,
               (unsigned long long)st.lost_data, (unsigned long long)st.lost_results,
               (unsigned long long)mal, (unsigned long long)st.bypass);
        if (st.removed)
            printf("  removed the %u files of the trace that was there (docs/traces.md)\n",
                   st.removed);
    }
    return 0;
}
