/* cc_report.c - the congestion part of a cluster run's report (cc_report.h). */
#include "cc_report.h"

#include <jansson.h>

static void print_class(FILE *out, const char *name, const ws_bg_class *c)
{
    fprintf(out, "  background %s: %llu flows, %llu completed; FCT p50 %.1f us, p99 %.1f us; "
            "slowdown p50 %.2f, p99 %.2f\n", name, (unsigned long long)c->flows,
            (unsigned long long)c->completed, c->fct_p50 * 1e6, c->fct_p99 * 1e6, c->slow_p50,
            c->slow_p99);
}

static void bg_print(FILE *out, const ws_bg_result *r)
{
    fprintf(out, "  background: %llu flows (%llu completed), %llu bytes (%llu received), "
            "offered load %.2f; flow sizes of mean %.3f MB\n", (unsigned long long)r->flows,
            (unsigned long long)r->completed, (unsigned long long)r->bytes,
            (unsigned long long)r->rx_bytes, r->offered_load, r->mean_bytes / 1e6);
    print_class(out, "short (< 100 KB)", &r->small);
    print_class(out, "long", &r->large);
}

/* The busiest worker's link over the job (cjob.h): the time its bytes take at the hosts' rate,
 * the least any schedule of the same traffic could take, against the job's span. */
static double link_floor_s(const ws_cluster *c, const ws_cluster_result *r)
{
    return (double)r->link_bytes * 8 / c->topo.host_link.rate;
}

static void link_print(FILE *out, const ws_cluster *c, const ws_cluster_result *r)
{
    double floor = link_floor_s(c, r);
    fprintf(out, "  the busiest worker's link: h%u's %s, %.3f MB on the wire over the job, "
            "%.3f ms at %.0f Gb/s; the job took %.3f ms, %.3f times that\n", r->link_host,
            r->link_down ? "down" : "up", (double)r->link_bytes / 1e6, floor * 1e3,
            c->topo.host_link.rate / 1e9, r->job_span_s * 1e3,
            floor > 0 ? r->job_span_s / floor : 0.0);
}

static json_t *class_json(const ws_bg_class *c)
{
    return json_pack("{s:I, s:I, s:f, s:f, s:f, s:f}", "flows", (json_int_t)c->flows,
                     "completed", (json_int_t)c->completed, "fct_p50", c->fct_p50,
                     "fct_p99", c->fct_p99, "slowdown_p50", c->slow_p50,
                     "slowdown_p99", c->slow_p99);
}

static json_t *bg_json(const ws_bg_result *r)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:o}", "flows", (json_int_t)r->flows,
                     "completed", (json_int_t)r->completed, "bytes", (json_int_t)r->bytes,
                     "rx_bytes", (json_int_t)r->rx_bytes, "offered_load", r->offered_load,
                     "mean_flow_bytes", r->mean_bytes,
                     "short", class_json(&r->small), "long", class_json(&r->large));
}

void ws_cc_report_print(FILE *out, const ws_cluster *c, const ws_cluster_result *r)
{
    if (c->topo.ecn_bytes || (c->job.cc && WS_MODE_IS_WIRESUM(r->mode)))
        fprintf(out, "  congestion: %llu CE marks at the switches (threshold %llu bytes)%s",
                (unsigned long long)r->net_ce_marks, (unsigned long long)c->topo.ecn_bytes,
                WS_MODE_IS_WIRESUM(r->mode) ? "" : "\n");
    if (WS_MODE_IS_WIRESUM(r->mode) && (c->topo.ecn_bytes || c->job.cc))
        fprintf(out, ", %llu at the devices' ingress buffers",
                (unsigned long long)r->dev.ce_marks);
    if (WS_MODE_IS_WIRESUM(r->mode) && (c->topo.ecn_bytes || c->job.cc))
        fprintf(out, "; transport cc %s: %llu RESULTs with CE, %llu window cuts, smallest "
                "window %.0f bytes\n", c->job.cc ? "on" : "off",
                (unsigned long long)r->ce_results, (unsigned long long)r->cwnd_cuts,
                r->cwnd_min);
    if (r->has_bg) {
        bg_print(out, &r->bg);
        if (r->job_span_s > 0)
            link_print(out, c, r);
    }
}

void ws_cc_report_json(json_t *run, const ws_cluster *c, const ws_cluster_result *r)
{
    json_object_set_new(run, "net_ce_marks", json_integer((json_int_t)r->net_ce_marks));
    if (WS_MODE_IS_WIRESUM(r->mode))
        json_object_set_new(run, "cc", json_pack("{s:I, s:I, s:f}", "ce_results",
                                                 (json_int_t)r->ce_results, "cwnd_cuts",
                                                 (json_int_t)r->cwnd_cuts, "cwnd_min",
                                                 r->cwnd_min));
    if (r->has_bg) {
        json_t *b = bg_json(&r->bg);
        if (b && r->job_span_s > 0)
            json_object_set_new(b, "busiest_link",
                                json_pack("{s:I, s:s, s:I, s:f, s:f}", "host",
                                          (json_int_t)r->link_host, "direction",
                                          r->link_down ? "down" : "up", "bytes",
                                          (json_int_t)r->link_bytes, "seconds",
                                          link_floor_s(c, r), "job_seconds", r->job_span_s));
        json_object_set_new(run, "background", b);
    }
}
