/* cmd_run.c - `wiresum run`: the closed loop of workers and device (loop/single.c). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "counters_file.h"
#include "json.h"
#include "run.h"
#include "wiresum/config.h"

static const char usage_run[] =
    "usage: wiresum run [options]\n"
    "\n"
    "Closed loop: --workers workers of one job, spread over the device ports, each running the\n"
    "driver's transport (driver/wiresum/transport.h), all-reduce their tensors --iters times\n"
    "through the device over a simulated network with faults. Every worker's final tensor is\n"
    "compared bit for bit with the exact sum; every bypass frame must come out on its bypass\n"
    "egress; the device counters must add up. Prints time, throughput, retransmissions and the\n"
    "counters.\n"
    "Exit 0 only if every tensor is exact and every check passes. docs/driver.md.\n"
    "\n"
    "device:\n"
    "  --device D       rtl (the Verilator model, default), ref (the software reference\n"
    "                   with a timing model: one beat per cycle in, fast) or mix (RTL\n"
    "                   models and references alternate: shard by shard, or with --tree\n"
    "                   device by device)\n"
    "  --shards T       the job over T devices (or trees): chunk i of a tensor to shard i mod T,\n"
    "                   a window and retransmissions per shard (docs/protocol.md section 9)\n"
    "  --tree F[xG..]   each shard a tree of devices: --tree 4 a root with 4 leaves, --tree 2x4\n"
    "                   a root with 2 children of 4 leaves each; the workers spread evenly\n"
    "                   over the leaves; the leaves send PARTIALs up, the root rounds (an\n"
    "                   RTL device in a tree: a model built with PARTIAL = 1, build/trees/wiresum\n"
    "                   of make trees or build/p1/wiresum, and --count within its MAX_FRAME).\n"
    "                   Faults apply on every link; every RESULT and PARTIAL a device sends\n"
    "                   is checked against the exact sums\n"
    "  --fabric FILE    the devices as FILE names them (fabric.ini: docs/traces.md), instead of\n"
    "                   --shards and --tree; a recorded run writes its own as DIR/fabric.ini\n"
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
    "                   with the device counters in DIR/counters.txt; with several devices,\n"
    "                   one such directory per device, DIR/<device> (s0, s0.1, ...), and the\n"
    "                   sums in DIR\n"
    "  --trace FILE.fst FST waveform of the model; --trace-from C, --trace-to C: a window\n"
    "  --plot FILE.png  utilization (beats per cycle in and out of the device, windows of\n"
    "                   1000 cycles) and latency per chunk (first transmission to result at\n"
    "                   the worker) over time, drawn by gnuplot; the data goes to FILE.dat\n"
    "  --counters       print the device counters as a table (wiresum counters)\n"
    "  --max-cycles N   give up after N simulated cycles\n"
    "  --no-progress    no progress bar (on a terminal) or periodic lines (otherwise)\n"
    "  -q, --quiet      print only problems\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

int ws_cmd_run(int argc, char **argv)
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
        {"json", 0, 0, 'J'},       {"shards", 1, 0, 'T'},      {"tree", 1, 0, 'G'},
        {"fabric", 1, 0, 'F'},
        {0, 0, 0, 0}};
    ws_run_opts o;
    ws_run_defaults(&o);
    int c, bad = 0, quiet = 0, prog = 1, counters = 0, json = 0;
    uint64_t mhz = 200;
    unsigned seen = 0;
    const model_args ma = {&o.width, &mhz, &o.trace, &o.trace_from, &o.trace_to,
                           &o.workers, &o.count, &o.slots, &o.ports, &seen};
    while (!bad && (c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'D':
            if (!strcmp(optarg, "rtl"))
                o.device = WS_RUN_RTL;
            else if (!strcmp(optarg, "ref"))
                o.device = WS_RUN_REF;
            else if (!strcmp(optarg, "mix"))
                o.device = WS_RUN_MIX;
            else {
                fprintf(stderr, "wiresum: --device %s: expected rtl, ref or mix\n", optarg);
                bad = 1;
            }
            break;
        case 'e': bad = ws_cli_u64("--elems", optarg, 1, 0xffffffffu, &o.elems); break;
        case 'T': bad = ws_cli_uint("--shards", optarg, 1, 64, &o.shards); break;
        case 'G': o.tree = optarg; break;
        case 'F': o.fabric = optarg; break;
        case 'i': bad = ws_cli_uint("--iters", optarg, 1, 65535, &o.iters); break;
        case 'S': bad = ws_cli_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
        case 'l': bad = ws_cli_rate("--loss", optarg, &o.loss); break;
        case 'd': bad = ws_cli_rate("--dup", optarg, &o.dup); break;
        case 'r': bad = ws_cli_rate("--reorder", optarg, &o.reorder); break;
        case 'C': bad = ws_cli_rate("--corrupt", optarg, &o.corrupt); break;
        case 'b': bad = ws_cli_rate("--bypass", optarg, &o.bypass); break;
        case 'L': bad = ws_cli_u64("--latency", optarg, 1, 100000000, &o.latency); break;
        case 'R': bad = ws_cli_u64("--rto", optarg, 1, UINT32_MAX, &o.rto); break;
        case 'M': bad = ws_cli_uint("--max-retries", optarg, 0, 1000000, &o.max_retries); break;
        case 'm': bad = ws_cli_u64("--max-cycles", optarg, 1, UINT64_MAX, &o.max_cycles); break;
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
            bad = ws_cli_values(optarg, &o.values);
            break;
        case 'h': fputs(usage_run, stdout); return 0;
        default: bad = ws_cli_model_option(c, optarg, &ma) != 0;
        }
    }
    if (bad || ws_cli_model_check(&ma, "run"))
        return 2;
    if (optind != argc) {
        fprintf(stderr, "wiresum run: unexpected argument '%s' (see wiresum run --help)\n",
                argv[optind]);
        return 2;
    }
    o.clock_mhz = (double)mhz;
    o.progress = prog && !quiet;
    o.progress_tty = -1; /* whether stderr is a terminal */
    char err[ERRLEN];
    if (ws_run_check(&o, err, sizeof err)) { /* options that cannot run: a usage error */
        fprintf(stderr, "wiresum run: %s\n", err);
        return 2;
    }
    ws_run_stats st;
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
            "command", "run", "device",
            o.device == WS_RUN_RTL ? "rtl" : o.device == WS_RUN_REF ? "ref" : "mix",
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
            json_object_set_new(js, "shards", json_integer(o.shards ? o.shards : 1));
            json_object_set_new(js, "worker_bytes", json_integer((json_int_t)st.worker_bytes));
            json_object_set_new(js, "uplink_bytes", json_integer((json_int_t)st.uplink_bytes));
            json_object_set_new(js, "tree", o.tree ? json_string(o.tree) : json_null());
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
        ws_counters_file_table(json ? stderr : stdout, &cf);
    }
    return rc;
}
