/* main.c - wiresum-cluster, the companion binary behind `wiresum cluster FILE` (docs/cluster.md):
 * reads and checks the cluster file, runs the job's collectives one after the other, each in a
 * simulation of its own (cluster/ns3/net.cc), and reports them, as text or as one JSON document.
 * Exit status: 0 when every run completed with its tensors right (wiresum: every one equal to
 * the exact sum; ring: every one equal to the ring-order sums of the C reference), 1 when one
 * did not, 2 for a bad command line or cluster file.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "cc_report.h"
#include "cjob.h"
#include "topo.h"
#include "fidelity.h"
#include "json.h"
#include "ns3_run.h"
#include "plot.h"

static const char usage[] =
    "usage: wiresum cluster FILE [--json] [--plot FILE.png] [--mode MODE | --fidelity]\n"
    "\n"
    "A packet-level simulation (ns-3) of the cluster FILE describes (docs/cluster.md): hosts,\n"
    "switches and links, wiresum devices (the reference device with the RTL's measured timing)\n"
    "and a job of workers all-reducing a tensor: through one device, sharded over several or\n"
    "through a hierarchy of devices (the driver's transport over UDP), and as a ring or a\n"
    "halving-doubling all-reduce over TCP. Every final tensor is checked: through wiresum\n"
    "against the exact sum, bit for bit; the baselines against the binary32 sums of their own\n"
    "order computed in C (generally not the exact ones: `exact` says whether they were).\n"
    "\n"
    "  --json         print the summary as one JSON document (docs/cluster.md, \"Output\")\n"
    "  --plot FILE.png  draw the collectives' all-reduce times side by side, with each one's\n"
    "                 speedup over the faster baseline run, ring or halving-doubling\n"
    "                 (gnuplot; the data in FILE.dat)\n"
    "  --mode MODE    run this collective only (default: the file's [job] mode): wiresum,\n"
    "                 sharded, hierarchical, ring or halving-doubling\n"
    "  --fidelity     the fidelity check of the timing model: the [job]'s mode wiresum run\n"
    "                 with its device as the timing model, then as the Verilator model of\n"
    "                 the RTL; fails unless both are exact, move the same frames and take the\n"
    "                 same all-reduce time within 2 % (docs/cluster.md section 3)\n"
    "  -h, --help     this text\n";

static double mega(double x) { return x / 1e6; }


/* link u between switches as LOWER-UPPER (leaf0-spine1) */
static void uplink_name(const ws_cluster *c, unsigned u, char name[2 * WS_CLUSTER_NAME + 2])
{
    unsigned base = c->topo.hosts + c->n_dev, lo, hi;
    ws_cluster_link props;
    ws_topo_link(c, base + u, &lo, &hi, &props);
    char nl[WS_CLUSTER_NAME], nh[WS_CLUSTER_NAME];
    ws_topo_switch_name(c, lo - base, nl);
    ws_topo_switch_name(c, hi - base, nh);
    snprintf(name, 2 * WS_CLUSTER_NAME + 2, "%s-%s", nl, nh);
}

/* node n's name: a host, a device, a switch (topo.h's numbering) */
static void node_name(const ws_cluster *c, unsigned n, char out[WS_CLUSTER_NAME])
{
    unsigned H = c->topo.hosts, D = c->n_dev;
    if (n < H)
        snprintf(out, WS_CLUSTER_NAME, "h%u", n);
    else if (n < H + D)
        snprintf(out, WS_CLUSTER_NAME, "%s", c->dev[n - H].name);
    else
        ws_topo_switch_name(c, n - H - D, out);
}

/* the port that dropped most: its node and the node it sends to */
static void drop_port(const ws_cluster *c, const ws_cluster_result *r, char from[WS_CLUSTER_NAME],
                      char to[WS_CLUSTER_NAME])
{
    unsigned a, b;
    ws_cluster_link props;
    ws_topo_link(c, r->drop_port_link, &a, &b, &props);
    node_name(c, r->drop_port_end ? b : a, from);
    node_name(c, r->drop_port_end ? a : b, to);
}

/* The stages of device i of r (every device's: i < 0), each its busiest: a port's receive
 * stage, an engine, a port's egress; their busy time in ps[] and as fractions of the
 * all-reduces' time in f[]. None is divided among the others of its kind: one saturated port
 * shows as saturated. */
enum { ST_PORT, ST_ENGINE, ST_EGRESS, ST_N };
static void stage_busy(const ws_cluster_result *r, int i, uint64_t ps[ST_N], double f[ST_N])
{
    double t = r->seconds * r->iterations * 1e12;
    ps[ST_PORT] = ps[ST_ENGINE] = ps[ST_EGRESS] = 0;
    for (unsigned k = i < 0 ? 0 : (unsigned)i; k < (i < 0 ? r->n_devices : (unsigned)i + 1); k++) {
        const ws_cdev_stats *d = &r->dev_each[k];
        uint64_t b[ST_N] = {ws_cdev_port_busy(d), ws_cdev_engine_busy(d), ws_cdev_egress_busy(d)};
        for (int s = 0; s < ST_N; s++)
            ps[s] = b[s] > ps[s] ? b[s] : ps[s];
    }
    for (int s = 0; s < ST_N; s++)
        f[s] = t > 0 ? (double)ps[s] / t : 0;
}

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
    if (WS_MODE_IS_WIRESUM(r->mode)) {
        printf("  tensors: %llu of %llu exact%s\n", (unsigned long long)r->tensors_exact,
               (unsigned long long)r->tensors, r->exact ? "" : "  <-- NOT EXACT");
        printf("  transport: %llu DATA, %llu retransmissions, %llu timeouts; RESULTs: %llu "
               "taken, %llu duplicate, %llu stale, %llu bad\n", (unsigned long long)r->data,
               (unsigned long long)r->retx, (unsigned long long)r->timeouts,
               (unsigned long long)r->results, (unsigned long long)r->dup_results,
               (unsigned long long)r->stale_results, (unsigned long long)r->bad_frames);
        for (unsigned i = 0; i < r->n_devices; i++) {
            const ws_cdev_stats *d = &r->dev_each[i];
            const ws_cluster_dev *p = &c->dev[r->dev_index[i]];
            char sw[WS_CLUSTER_NAME];
            ws_topo_switch_name(c, p->sw, sw);
            uint64_t ps[ST_N];
            double f[ST_N];
            stage_busy(r, (int)i, ps, f);
            printf("  device %s (%s): %llu frames in (%.3f MB), %llu dropped (buffer full), "
                   "%llu out (%.3f MB); ingress buffer peak %llu bytes\n"
                   "    busy (the busiest): port %.1f %% of %u, engine %.1f %% of %u, egress "
                   "%.1f %%; MB in by port:", p->name, sw, (unsigned long long)d->rx_frames,
                   mega((double)d->rx_bytes), (unsigned long long)d->drop_frames,
                   (unsigned long long)d->tx_frames, mega((double)d->tx_bytes),
                   (unsigned long long)d->max_queued, 100 * f[ST_PORT], d->ports,
                   100 * f[ST_ENGINE], d->engines, 100 * f[ST_EGRESS]);
            for (unsigned k = 0; k < d->ports; k++)
                printf(" %.3f", mega((double)d->port_rx_bytes[k]));
            printf("\n");
        }
    } else {
        printf("  tensors: %llu of %llu equal to the %s-order reference%s; %llu of %llu "
               "exact (%llu elements differ from the exact sum)\n",
               (unsigned long long)r->tensors_consistent, (unsigned long long)r->tensors,
               ws_cluster_mode_name(r->mode), r->consistent ? "" : "  <-- DATA CORRUPTED", (unsigned long long)r->tensors_exact,
               (unsigned long long)r->tensors, (unsigned long long)r->inexact_elements);
    }
    printf("  bytes: workers sent %llu, received %llu; network drops %llu packets; "
           "wall %.2f s (network built in %.2f s; %.2f M events, %.0f k a second)\n",
           (unsigned long long)r->tx_bytes, (unsigned long long)r->rx_bytes,
           (unsigned long long)r->net_drop_packets, r->wall_s, r->build_s,
           (double)r->events / 1e6, r->wall_s > 0 ? (double)r->events / r->wall_s / 1e3 : 0.0);
    if (r->drop_port_packets) {
        char from[WS_CLUSTER_NAME], to[WS_CLUSTER_NAME];
        drop_port(c, r, from, to);
        printf("  the port that dropped most: %s's to %s, %llu packets (its queue full)\n", from,
               to, (unsigned long long)r->drop_port_packets);
    }
    ws_cc_report_print(stdout, c, r);
    if (!c->topo.uplinks)
        return;
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0, used = 0;
    unsigned busiest = 0;
    for (unsigned u = 0; u < c->topo.uplinks; u++) {
        uint64_t b = r->uplink[u].bytes[0];
        lo = b < lo ? b : lo;
        busiest = b > hi ? u : busiest;
        hi = b > hi ? b : hi;
        sum += b;
        used += b > 0;
    }
    char name[2 * WS_CLUSTER_NAME + 2];
    uplink_name(c, busiest, name);
    printf("  links between switches, upwards: %llu of %u carried traffic, %.3f MB in all, "
           "%.3f .. %.3f MB a link (the most: %s); flows split over two paths: %llu\n",
           (unsigned long long)used, c->topo.uplinks, mega((double)sum), mega((double)lo),
           mega((double)hi), name, (unsigned long long)r->split_flows);
}

/* the links between switches: name, and per direction bytes, packets, flows */
static json_t *json_uplinks(const ws_cluster *c, const ws_cluster_result *r)
{
    json_t *a = json_array();
    unsigned base = c->topo.hosts + c->n_dev;
    for (unsigned u = 0; u < c->topo.uplinks && a; u++) {
        unsigned lo, hi;
        ws_cluster_link props;
        ws_topo_link(c, base + u, &lo, &hi, &props);
        char name[2 * WS_CLUSTER_NAME + 2];
        uplink_name(c, u, name);
        const ws_cluster_linkstat *s = &r->uplink[u];
        /* utilisation: the bytes over what the link carries in the all-reduces' time */
        double cap = props.rate / 8 * r->seconds * r->iterations;
        json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}",
                                           "link", name,
                                           "up_bytes", (json_int_t)s->bytes[0],
                                           "up_packets", (json_int_t)s->packets[0],
                                           "up_flows", (json_int_t)s->flows[0],
                                           "down_bytes", (json_int_t)s->bytes[1],
                                           "down_packets", (json_int_t)s->packets[1],
                                           "down_flows", (json_int_t)s->flows[1],
                                           "up_utilization", cap > 0 ? s->bytes[0] / cap : 0.0,
                                           "down_utilization",
                                           cap > 0 ? s->bytes[1] / cap : 0.0));
    }
    return a;
}

/* device i of r (every device's, summed: i < 0; its stages then the busiest device's) */
static json_t *json_dev(const ws_cluster_result *r, int i)
{
    const ws_cdev_stats *d = i < 0 ? &r->dev : &r->dev_each[i];
    uint64_t ps[ST_N];
    double f[ST_N];
    stage_busy(r, i, ps, f);
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:f, s:f, s:f}",
                          "rx_frames", (json_int_t)d->rx_frames,
                          "rx_bytes", (json_int_t)d->rx_bytes,
                          "drop_frames", (json_int_t)d->drop_frames,
                          "drop_bytes", (json_int_t)d->drop_bytes,
                          "served_frames", (json_int_t)d->served_frames,
                          "tx_frames", (json_int_t)d->tx_frames,
                          "tx_bytes", (json_int_t)d->tx_bytes,
                          "max_queued", (json_int_t)d->max_queued,
                          "busy_seconds", (double)ps[ST_ENGINE] * 1e-12,
                          "ce_marks", (json_int_t)d->ce_marks,
                          "port_busy", f[ST_PORT], "engine_busy", f[ST_ENGINE],
                          "egress_busy", f[ST_EGRESS]);
    if (!o || i < 0)
        return o;
    /* each port's frames and bytes in and out and its stages' busy fractions; each engine's */
    double t = r->seconds * r->iterations * 1e12;
    json_t *ports = json_array(), *engines = json_array();
    for (unsigned k = 0; k < d->ports && ports; k++)
        json_array_append_new(ports, json_pack(
            "{s:I, s:I, s:I, s:I, s:f, s:f}", "rx_frames", (json_int_t)d->port_rx_frames[k],
            "rx_bytes", (json_int_t)d->port_rx_bytes[k],
            "tx_frames", (json_int_t)d->port_tx_frames[k],
            "tx_bytes", (json_int_t)d->port_tx_bytes[k],
            "busy", t > 0 ? (double)d->port_busy_ps[k] / t : 0.0,
            "egress_busy", t > 0 ? (double)d->egress_busy_ps[k] / t : 0.0));
    for (unsigned k = 0; k < d->engines && engines; k++)
        json_array_append_new(engines, json_real(t > 0 ? (double)d->engine_busy_ps[k] / t : 0.0));
    json_object_set_new(o, "ports", ports);
    json_object_set_new(o, "engines", engines);
    return o;
}

static json_t *json_run(const ws_cluster *c, const ws_cluster_result *r);

/* --fidelity: both runs, the difference and the verdict; the exit status */
static int fidelity(const ws_cluster *c, int json)
{
    static ws_fidelity f;
    char err[1024];
    if (ws_fidelity_run(c, &f, err, sizeof err)) {
        fprintf(stderr, "wiresum cluster: %s\n", err);
        return 2;
    }
    /* the devices co-simulated: the job's device, or every device of the hierarchy's trees */
    json_t *names = json ? json_array() : NULL;
    unsigned n = f.rtl.n_devices;
    const ws_cluster_dev *d = n ? &c->dev[f.rtl.dev_index[0]] : NULL;
    for (unsigned i = 0; i < n && names; i++)
        json_array_append_new(names, json_string(c->dev[f.rtl.dev_index[i]].name));
    if (json) {
        json_t *top = json_pack("{s:s, s:b, s:s, s:o, s:o, s:o, s:f, s:f}", "file", c->path,
                                "ok", f.ok, "mode", ws_cluster_mode_name(f.mode), "devices",
                                names, "timing", json_run(c, &f.timing), "rtl",
                                json_run(c, &f.rtl), "difference", f.difference, "tolerance",
                                WS_FIDELITY_TOLERANCE);
        if (top && !f.ok)
            json_object_set_new(top, "error", json_string(f.why));
        if (ws_json_print(top, stdout, "cluster"))
            return 1;
        return f.ok ? 0 : 1;
    }
    if (n == 1)
        printf("fidelity of device %s", d->name);
    else
        printf("fidelity of the %u devices of mode %s", n, ws_cluster_mode_name(f.mode));
    if (d)
        printf(" (%u bits, %u engine%s at %.0f MHz%s)", d->data_width, d->engines,
               d->engines == 1 ? "" : "s", d->f_clk / 1e6, n > 1 ? ", the first" : "");
    printf(", timing model:\n  ");
    print_run(c, &f.timing);
    printf("the same with the RTL (Verilator):\n  ");
    print_run(c, &f.rtl);
    printf("fidelity: timing model %.3f us, RTL %.3f us per all-reduce: %+.3f %% (at most "
           "%.0f %%): %s%s\n", f.timing.seconds * 1e6, f.rtl.seconds * 1e6,
           f.difference * 100, WS_FIDELITY_TOLERANCE * 100, f.ok ? "PASS" : "FAILED: ",
           f.ok ? "" : f.why);
    return f.ok ? 0 : 1;
}

static json_t *json_run(const ws_cluster *c, const ws_cluster_result *r)
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
    if (o) {
        json_object_set_new(o, "build_seconds", json_real(r->build_s));
        json_object_set_new(o, "events", json_integer((json_int_t)r->events));
        json_object_set_new(o, "events_per_second",
                            json_real(r->wall_s > 0 ? (double)r->events / r->wall_s : 0));
        json_object_set_new(o, "split_flows", json_integer((json_int_t)r->split_flows));
        json_object_set_new(o, "uplinks", json_uplinks(c, r));
        if (r->drop_port_packets) {
            char from[WS_CLUSTER_NAME], to[WS_CLUSTER_NAME];
            drop_port(c, r, from, to);
            json_object_set_new(o, "drop_port", json_pack("{s:s, s:s, s:I}", "from", from, "to",
                                                          to, "packets",
                                                          (json_int_t)r->drop_port_packets));
        }
    }
    if (o && r->failed)
        json_object_set_new(o, "error", json_string(r->error));
    if (o)
        ws_cc_report_json(o, c, r);
    if (o && WS_MODE_IS_WIRESUM(r->mode)) {
        json_object_set_new(o, "transport", json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "data", (json_int_t)r->data,
            "retx", (json_int_t)r->retx, "timeouts", (json_int_t)r->timeouts,
            "results", (json_int_t)r->results, "dup_results", (json_int_t)r->dup_results,
            "stale_results", (json_int_t)r->stale_results, "bad_frames",
            (json_int_t)r->bad_frames));
        json_object_set_new(o, "device", json_dev(r, -1)); /* every device's, summed */
        json_t *each = json_array();
        for (unsigned i = 0; i < r->n_devices && each; i++) {
            json_t *d = json_dev(r, (int)i);
            char sw[WS_CLUSTER_NAME];
            ws_topo_switch_name(c, c->dev[r->dev_index[i]].sw, sw);
            json_object_set_new(d, "name", json_string(c->dev[r->dev_index[i]].name));
            json_object_set_new(d, "switch", json_string(sw));
            json_array_append_new(each, d);
        }
        json_object_set_new(o, "devices", each);
    }
    return o;
}

/* --plot: the runs' all-reduce times as bars, each labelled with its speedup over the faster
 * baseline (ring or halving-doubling, whichever completed in less time: a speedup over the
 * slower one would flatter wiresum). */
typedef struct {
    const char *mode[WS_N_MODES];
    double seconds[WS_N_MODES];
    int ok[WS_N_MODES];
    unsigned n;
} plot_runs;

static int plot(const ws_cluster *c, const plot_runs *p, const char *png, char *err,
                size_t errlen)
{
    char dat[4096];
    ws_plot_dat_name(png, dat, sizeof dat);
    double base = 0;
    const char *base_mode = "none";
    for (unsigned i = 0; i < p->n; i++)
        if ((!strcmp(p->mode[i], "ring") || !strcmp(p->mode[i], "halving-doubling")) &&
            p->ok[i] && p->seconds[i] > 0 && (base == 0 || p->seconds[i] < base)) {
            base = p->seconds[i];
            base_mode = p->mode[i];
        }
    FILE *f = fopen(dat, "w");
    if (!f) {
        snprintf(err, errlen, "--plot: %.512s: %s", dat, strerror(errno));
        return -1;
    }
    fprintf(f, "# wiresum cluster --plot %s: collective, all-reduce ms (-1: failed), speedup "
            "over the faster baseline, %s (0: no baseline run)\n", c->path, base_mode);
    for (unsigned i = 0; i < p->n; i++)
        fprintf(f, "\"%s\" %.6f %.4f\n", p->mode[i], p->ok[i] ? p->seconds[i] * 1e3 : -1.0,
                base > 0 && p->ok[i] && p->seconds[i] > 0 ? base / p->seconds[i] : 0.0);
    if (ferror(f) | fclose(f)) {
        snprintf(err, errlen, "--plot: %.512s: write failed", dat);
        return -1;
    }
    char title[512], xlabel[128];
    snprintf(title, sizeof title, "%.300s: %u workers, %llu-byte tensors, links of %.0f Gb/s "
             "(ns-3)", c->path, c->job.workers, (unsigned long long)c->job.elems * 4,
             c->topo.host_link.rate / 1e9);
    snprintf(xlabel, sizeof xlabel, "labels: speedup over the faster baseline, %s", base_mode);
    FILE *g = ws_gnuplot_open(png, 900, 600, dat, err, errlen);
    if (!g)
        return -1;
    fprintf(g, "set title ");
    ws_gnuplot_string(g, title);
    fprintf(g, "\nset xlabel ");
    ws_gnuplot_string(g, xlabel);
    fprintf(g, "\nset style fill solid 0.6 border -1\nset boxwidth 0.6\nset grid ytics\n"
               "set ylabel 'all-reduce time (ms)'\nset yrange [0:*]\nset xrange [-0.6:%u.6]\n"
               "unset key\nplot ", p->n - 1);
    ws_gnuplot_string(g, dat);
    fprintf(g, " using 0:($2 < 0 ? 0 : $2):xtic(1) with boxes, '' using 0:($2 < 0 ? 0 : $2):"
               "($2 < 0 ? 'failed' : $3 > 0 ? sprintf('%%.2fx', $3) : '') with labels offset 0,1\n");
    return ws_gnuplot_close(g, png, dat, err, errlen);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", 0, 0, 'j'}, {"mode", 1, 0, 'm'}, {"help", 0, 0, 'h'},
        {"fidelity", 0, 0, 'F'}, {"plot", 1, 0, 'p'}, {0, 0, 0, 0}};
    int json = 0, c, fid = 0;
    const char *png = NULL;
    int only = -1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'm':
            for (int m = 0; m < WS_N_MODES; m++)
                if (!strcmp(optarg, ws_cluster_mode_name((ws_cluster_mode)m)))
                    only = m;
            if (only < 0) {
                fprintf(stderr, "wiresum cluster: --mode %s: expected wiresum, sharded, "
                        "hierarchical, ring or halving-doubling\n", optarg);
                return 2;
            }
            break;
        case 'F': fid = 1; break;
        case 'p': png = optarg; break;
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
    if (fid && only >= 0) {
        fprintf(stderr, "wiresum cluster: --fidelity runs mode wiresum: not with --mode\n");
        return 2;
    }
    if (fid && png) {
        fprintf(stderr, "wiresum cluster: --fidelity draws no plot: not with --plot\n");
        return 2;
    }
    if (fid)
        return fidelity(&cl, json);
    if (png && ws_plot_check(png, err, sizeof err)) {
        fprintf(stderr, "wiresum cluster: %s\n", err);
        return 2;
    }
    if (only >= 0) {
        const char *missing = NULL;
        if (only == WS_MODE_WIRESUM && cl.job.device < 0)
            missing = "names no device ('device = NAME')";
        if (only == WS_MODE_SHARDED && !cl.job.n_shards)
            missing = "has no 'shard_devices'";
        if (only == WS_MODE_HIER && !cl.job.n_trees)
            missing = "has no 'root_device' and 'leaf_devices'";
        if (only >= WS_MODE_RING && cl.job.workers < 2)
            missing = "has fewer than 2 workers";
        if (missing) {
            fprintf(stderr, "wiresum cluster: %s: --mode %s, and the [job] %s\n", cl.path,
                    ws_cluster_mode_name((ws_cluster_mode)only), missing);
            return 2;
        }
        cl.job.modes = 1u << only;
    }
    if (!json) {
        const ws_cluster_topo *t = &cl.topo;
        printf("cluster %s: ", cl.path);
        if (t->kind == WS_TOPO_RACK)
            printf("rack of %u hosts", t->hosts);
        else if (t->kind == WS_TOPO_LEAFSPINE)
            printf("leaf-spine, %u leaves x %u hosts, %u spines", t->leaves, t->hosts_per_leaf,
                   t->spines);
        else
            printf("fat-tree k = %u, %u hosts, %u switches", t->k, t->hosts, t->switches);
        printf(", links %.0f Gb/s and %.3f us", t->host_link.rate / 1e9,
               (double)t->host_link.delay_ns / 1e3);
        if (t->uplinks)
            printf(", uplinks %.0f Gb/s and %.3f us, oversubscription %.2f:1",
                   t->uplink.rate / 1e9, (double)t->uplink.delay_ns / 1e3, t->oversubscription);
        printf(", MTU %u; job of %u workers, %llu-byte tensors, %u iterations, count %u, "
               "window %u", t->mtu, cl.job.workers, (unsigned long long)cl.job.elems * 4,
               cl.job.iterations, cl.job.count, cl.job.window);
        if (cl.job.n_trees > 1)
            printf(", %u aggregation trees", cl.job.n_trees);
        printf("%s\n", cl.job.placed ? "; devices: the default arrangement" : "");
    }
    json_t *runs = json_array();
    int rc = 0;
    static ws_cluster_result r;
    plot_runs pr = {{0}, {0}, {0}, 0};
    for (int m = 0; m < WS_N_MODES; m++) {
        if (!(cl.job.modes >> m & 1))
            continue;
        if (ws_ns3_run(&cl, (ws_cluster_mode)m, &r, err, sizeof err)) {
            fprintf(stderr, "wiresum cluster: %s: %s\n", cl.path, err);
            json_decref(runs);
            return 2;
        }
        int ok = !r.failed && (WS_MODE_IS_WIRESUM(m) ? r.exact : r.consistent);
        if (!ok)
            rc = 1;
        pr.mode[pr.n] = ws_cluster_mode_name((ws_cluster_mode)m);
        pr.seconds[pr.n] = r.seconds;
        pr.ok[pr.n++] = !r.failed;
        if (json)
            json_array_append_new(runs, json_run(&cl, &r));
        else
            print_run(&cl, &r);
        fflush(stdout);
    }
    if (png && plot(&cl, &pr, png, err, sizeof err)) {
        fprintf(stderr, "wiresum cluster: %s\n", err);
        rc = rc ? rc : 1;
    }
    if (json) {
        json_t *top = json_pack("{s:s, s:b, s:o}", "file", cl.path, "ok", rc == 0, "runs", runs);
        if (top) {
            json_object_set_new(top, "oversubscription", json_real(cl.topo.oversubscription));
            json_object_set_new(top, "count", json_integer(cl.job.count));
            json_object_set_new(top, "window", json_integer(cl.job.window));
            json_object_set_new(top, "trees", json_integer(cl.job.n_trees));
            json_object_set_new(top, "placed", json_boolean(cl.job.placed));
        }
        if (ws_json_print(top, stdout, "cluster"))
            return 1;
    } else {
        json_decref(runs);
        printf("cluster: %s\n", rc ? "FAILED: a tensor is wrong or a run did not complete"
                                   : "every tensor right (wiresum exact, baselines consistent)");
    }
    return rc;
}
