/* main.c - wiresum-cluster, the companion binary behind `wiresum cluster FILE` (docs/cluster.md):
 * reads and checks the cluster file, runs the job's collectives one after the other, each in a
 * simulation of its own (cluster/ns3/net.cc), and reports them, as text or as one JSON document.
 * Exit status: 0 when every run completed with its tensors right (wiresum: every one equal to
 * the exact sum; ring: every one equal to the ring-order sums of the C reference), 1 when one
 * did not, 2 for a bad command line or cluster file.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cluster_cfg.h"
#include "cluster_job.h"
#include "json.h"
#include "ns3_run.h"

static const char usage[] =
    "usage: wiresum cluster FILE [--json] [--mode wiresum|ring]\n"
    "\n"
    "A packet-level simulation (ns-3) of the cluster FILE describes (docs/cluster.md): hosts,\n"
    "switches and links, wiresum devices (the reference device with the RTL's measured timing)\n"
    "and a job of workers all-reducing a tensor, through the device (the driver's transport\n"
    "over UDP) and as a ring all-reduce over TCP. Every final tensor is checked: through\n"
    "wiresum against the exact sum, bit for bit; through the ring against the same ring-order\n"
    "binary32 sums computed in C (the ring's sums are generally not the exact ones: `exact`\n"
    "says whether they were).\n"
    "\n"
    "  --json         print the summary as one JSON document (docs/cluster.md, \"Output\")\n"
    "  --mode MODE    run this collective only (default: the file's [job] mode)\n"
    "  -h, --help     this text\n";

static double mega(double x) { return x / 1e6; }

static void print_run(const ws_cluster *c, const ws_cluster_result *r)
{
    const char *m = ws_cluster_mode_name(r->mode);
    printf("%s: %u workers, %llu bytes, links %.0f Gb/s: ", m, r->workers,
           (unsigned long long)r->bytes, r->link_bps / 1e9);
    if (r->failed) {
        printf("FAILED: %s\n", r->error);
        return;
    }
    printf("%.3f ms per all-reduce (", r->seconds * 1e3);
    for (unsigned i = 0; i < r->iterations; i++)
        printf("%s%.3f", i ? ", " : "", r->iter_seconds[i] * 1e3);
    printf(" ms)\n");
    if (r->mode == WS_MODE_WIRESUM) {
        printf("  tensors: %llu of %llu exact%s\n", (unsigned long long)r->tensors_exact,
               (unsigned long long)r->tensors, r->exact ? "" : "  <-- NOT EXACT");
        printf("  transport: %llu DATA, %llu retransmissions, %llu timeouts; RESULTs: %llu "
               "taken, %llu duplicate, %llu stale, %llu bad\n", (unsigned long long)r->data,
               (unsigned long long)r->retx, (unsigned long long)r->timeouts,
               (unsigned long long)r->results, (unsigned long long)r->dup_results,
               (unsigned long long)r->stale_results, (unsigned long long)r->bad_frames);
        printf("  device %s: %llu frames in (%.3f MB), %llu dropped (buffer full), %llu out "
               "(%.3f MB); busy %.1f %%, ingress buffer peak %llu bytes\n",
               c->dev[c->job.device].name, (unsigned long long)r->dev.rx_frames,
               mega((double)r->dev.rx_bytes), (unsigned long long)r->dev.drop_frames,
               (unsigned long long)r->dev.tx_frames, mega((double)r->dev.tx_bytes),
               r->seconds > 0 ? 100.0 * (double)r->dev.busy_ps * 1e-12 /
                                    (r->seconds * r->iterations) : 0.0,
               (unsigned long long)r->dev.max_queued);
    } else {
        printf("  tensors: %llu of %llu equal to the ring-order reference%s; %llu of %llu "
               "exact (%llu elements differ from the exact sum)\n",
               (unsigned long long)r->tensors_consistent, (unsigned long long)r->tensors,
               r->consistent ? "" : "  <-- DATA CORRUPTED", (unsigned long long)r->tensors_exact,
               (unsigned long long)r->tensors, (unsigned long long)r->inexact_elements);
    }
    printf("  bytes: workers sent %llu, received %llu; network drops %llu packets; "
           "wall %.2f s\n", (unsigned long long)r->tx_bytes, (unsigned long long)r->rx_bytes,
           (unsigned long long)r->net_drop_packets, r->wall_s);
}

static json_t *json_run(const ws_cluster_result *r)
{
    json_t *iters = json_array();
    for (unsigned i = 0; i < r->iterations && iters; i++)
        json_array_append_new(iters, json_real(r->iter_seconds[i]));
    json_t *o = json_pack(
        "{s:s, s:i, s:I, s:f, s:f, s:b, s:b, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:b}",
        "mode", ws_cluster_mode_name(r->mode), "workers", (int)r->workers,
        "bytes", (json_int_t)r->bytes, "link_bps", r->link_bps, "seconds", r->seconds,
        "exact", r->exact, "consistent", r->consistent, "iteration_seconds", iters,
        "tensors", (json_int_t)r->tensors, "tensors_exact", (json_int_t)r->tensors_exact,
        "tensors_consistent", (json_int_t)r->tensors_consistent,
        "inexact_elements", (json_int_t)r->inexact_elements,
        "tx_bytes", (json_int_t)r->tx_bytes, "rx_bytes", (json_int_t)r->rx_bytes,
        "net_drop_packets", (json_int_t)r->net_drop_packets, "wall_seconds", r->wall_s,
        "failed", r->failed);
    if (o && r->failed)
        json_object_set_new(o, "error", json_string(r->error));
    if (o && r->mode == WS_MODE_WIRESUM) {
        json_object_set_new(o, "transport", json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "data", (json_int_t)r->data,
            "retx", (json_int_t)r->retx, "timeouts", (json_int_t)r->timeouts,
            "results", (json_int_t)r->results, "dup_results", (json_int_t)r->dup_results,
            "stale_results", (json_int_t)r->stale_results, "bad_frames",
            (json_int_t)r->bad_frames));
        json_object_set_new(o, "device", json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
            "rx_frames", (json_int_t)r->dev.rx_frames, "rx_bytes", (json_int_t)r->dev.rx_bytes,
            "drop_frames", (json_int_t)r->dev.drop_frames,
            "drop_bytes", (json_int_t)r->dev.drop_bytes,
            "served_frames", (json_int_t)r->dev.served_frames,
            "tx_frames", (json_int_t)r->dev.tx_frames, "tx_bytes", (json_int_t)r->dev.tx_bytes,
            "max_queued", (json_int_t)r->dev.max_queued,
            "busy_seconds", (double)r->dev.busy_ps * 1e-12));
    }
    return o;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", 0, 0, 'j'}, {"mode", 1, 0, 'm'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    int only = -1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'm':
            for (int m = 0; m < WS_N_MODES; m++)
                if (!strcmp(optarg, ws_cluster_mode_name((ws_cluster_mode)m)))
                    only = m;
            if (only < 0) {
                fprintf(stderr, "wiresum cluster: --mode %s: expected wiresum or ring\n", optarg);
                return 2;
            }
            break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "wiresum cluster: expected one cluster file (see wiresum cluster "
                        "--help)\n");
        return 2;
    }
    static ws_cluster cl;
    char err[1024];
    if (ws_cluster_load(&cl, argv[optind], err, sizeof err)) {
        fprintf(stderr, "wiresum cluster: %s\n", err);
        return 2;
    }
    if (only >= 0) {
        if (only == WS_MODE_WIRESUM && cl.job.device < 0) {
            fprintf(stderr, "wiresum cluster: %s: --mode wiresum, and the [job] names no "
                    "device (its mode is ring only)\n", cl.path);
            return 2;
        }
        if (only == WS_MODE_RING && cl.job.workers < 2) {
            fprintf(stderr, "wiresum cluster: --mode ring needs at least 2 workers\n");
            return 2;
        }
        cl.job.modes = 1u << only;
    }
    if (!json)
        printf("cluster %s: rack of %u hosts, links %.0f Gb/s and %.3f us, MTU %u; job of %u "
               "workers, %llu-byte tensors, %u iterations\n", cl.path, cl.topo.hosts,
               cl.topo.host_link.rate / 1e9, (double)cl.topo.host_link.delay_ns / 1e3,
               cl.topo.mtu, cl.job.workers, (unsigned long long)cl.job.elems * 4,
               cl.job.iterations);
    json_t *runs = json_array();
    int rc = 0;
    static ws_cluster_result r;
    for (int m = 0; m < WS_N_MODES; m++) {
        if (!(cl.job.modes >> m & 1))
            continue;
        if (ws_ns3_run(&cl, (ws_cluster_mode)m, &r, err, sizeof err)) {
            fprintf(stderr, "wiresum cluster: %s: %s\n", cl.path, err);
            json_decref(runs);
            return 2;
        }
        int ok = !r.failed && (m == WS_MODE_WIRESUM ? r.exact : r.consistent);
        if (!ok)
            rc = 1;
        if (json)
            json_array_append_new(runs, json_run(&r));
        else
            print_run(&cl, &r);
        fflush(stdout);
    }
    if (json) {
        if (ws_json_print(json_pack("{s:s, s:b, s:o}", "file", cl.path, "ok", rc == 0, "runs",
                                    runs), stdout, "cluster"))
            return 1;
    } else {
        json_decref(runs);
        printf("cluster: %s\n", rc ? "FAILED: a tensor is wrong or a run did not complete"
                                   : "every tensor right (wiresum exact, ring consistent)");
    }
    return rc;
}
