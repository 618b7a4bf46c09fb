/* cmd_bench.c - `wiresum bench`: line rate and latency under saturating load (eval/bench.c). */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "bench.h"
#include "json.h"

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
    "  --quick          a short window (warmup 10000, cycles 50000, idle rounds 20, unless\n"
    "                   given; the other options as given: well under a minute by default);\n"
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
                  "queue_empty_steps", (json_int_t)r->queue_empty, "steps", (json_int_t)r->steps,
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
                     "util\tutil_in\twire_limit\tgoodput\twire_eff\tgoodput_gbps\tqueue_empty_steps\t"
                     "steps\tload_n\tload_first_min\tload_first_med\tload_first_max\t"
                     "load_last_min\tload_last_med\tload_last_max\tidle_n\tidle_first_min\t"
                     "idle_first_med\tidle_first_max\tidle_last_min\tidle_last_med\t"
                     "idle_last_max\tresults_checked\tbad_results\tmodel_cycles\twall_s\tengines\n");
        fprintf(out, "%u\t%u\t%u\t%u\t%u\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\t%.4f\t%.4f\t%.4f\t"
                     "%.4f\t%.4f\t%.2f\t%" PRIu64 "\t%" PRIu64,
                o->width, o->workers, o->count, o->slots, r->ports, r->frame_bytes, r->beats,
                r->cycles, r->accepted, r->util, r->util_in, r->wire_limit, r->goodput,
                r->wire_eff, r->goodput_gbps, r->queue_empty, r->steps);
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
                     "%.0f MHz; wire limit %.4f; wire efficiency %.4f; queues empty in %" PRIu64
                     " of %" PRIu64 " steps\n", r->cycles, r->accepted, r->util, r->util_in,
                r->goodput, r->goodput_gbps, o->clock_mhz, r->wire_limit, r->wire_eff,
                r->queue_empty, r->steps);
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

int ws_cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_OPTIONS, LOAD_OPTIONS,
        {"warmup", 1, 0, 'u'},     {"cycles", 1, 0, 'n'},     {"idle-rounds", 1, 0, 'r'},
        {"tsv", 0, 0, 'v'},        {"quick", 0, 0, 'Q'},      {"help", 0, 0, 'h'},
        {"json", 0, 0, 'J'},
        {0, 0, 0, 0}};
    ws_bench_opts o;
    ws_bench_defaults(&o);
    int c, bad = 0, tsv = 0, quick = 0, json = 0, window = 0;
    uint64_t mhz = 200;
    unsigned seen = 0;
    const model_args ma = {&o.width, &mhz, &o.trace, &o.trace_from, &o.trace_to,
                           &o.workers, &o.count, &o.slots, &o.ports, &seen};
    while (!bad && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'u':
            bad = ws_cli_u64("--warmup", optarg, 0, UINT32_MAX, &o.warmup);
            window |= 1;
            break;
        case 'n':
            bad = ws_cli_u64("--cycles", optarg, 0, UINT32_MAX, &o.cycles);
            window |= 2;
            break;
        case 'r':
            bad = ws_cli_uint("--idle-rounds", optarg, 0, 100000, &o.idle_rounds);
            window |= 4;
            break;
        case 'v': tsv = 1; break;
        case 'J': json = 1; break;
        case 'Q': quick = 1; break;
        case 'h': fputs(usage_bench, stdout); return 0;
        default: bad = ws_cli_model_option(c, optarg, &ma) != 0;
        }
    }
    if (bad || ws_cli_model_check(&ma, "bench"))
        return 2;
    if (optind != argc) {
        fprintf(stderr, "wiresum bench: unexpected argument '%s' (see wiresum bench --help)\n",
                argv[optind]);
        return 2;
    }
    if (quick) { /* a short window; every option given still takes effect */
        if (!(window & 1))
            o.warmup = 10000;
        if (!(window & 2))
            o.cycles = 50000;
        if (!(window & 4))
            o.idle_rounds = 20;
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
