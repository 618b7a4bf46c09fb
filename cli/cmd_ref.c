/* cmd_ref.c - `wiresum ref`: a trace through the software reference of the device. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "counters_file.h"
#include "trace.h"
#include "wiresum/config.h"
#include "wiresum/session.h"

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
    "  --counters       also write the counters to DIR/counters.txt (its [device] section,\n"
    "                   as `wiresum run --record` writes a device's): a trace whose inputs\n"
    "                   were edited gets the counters of its new expected<P>.pcap\n"
    "  -q, --quiet      no counters\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

typedef struct {
    ws_trace_out *out;
    int failed;
    char err[ERRLEN];
} ref_ctx;

int ws_cmd_ref(int argc, char **argv)
{
    static const struct option opts[] = {{"in", 1, 0, 'i'},    {"out", 1, 0, 'o'},
                                         {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
                                         {"json", 0, 0, 'J'},  {"counters", 0, 0, 'C'},
                                         {0, 0, 0, 0}};
    const char *in_prefix = "in", *out_prefix = "expected";
    int quiet = 0, json = 0, save = 0, c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'i': in_prefix = optarg; break;
        case 'o': out_prefix = optarg; break;
        case 'q': quiet = 1; break;
        case 'J': json = 1; break;
        case 'C': save = 1; break;
        case 'h': fputs(usage_ref, stdout); return 0;
        default: return 2;
        }
    }
    const char *dir = ws_cli_one_dir(argc, argv, "ref");
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
    ws_session_opts so = {WS_DEVICE_REFERENCE, 256, 0};
    ws_session *dev = ws_session_open(&so, err, sizeof err);
    if (dev && ws_session_configure(dev, &cfg, err, sizeof err)) {
        ws_session_free(dev);
        dev = NULL;
    }
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
        /* what the device sends for a frame, stamped with the frame's time */
        if (ws_session_push(dev, p.port, p.data, p.len)) {
            snprintf(rc.err, sizeof rc.err, "%s/%s%u.pcap: frame %llu: %s", dir, in_prefix,
                     p.port, (unsigned long long)p.index, ws_session_error(dev));
            rc.failed = 1;
            break;
        }
        unsigned eg;
        const uint8_t *f;
        size_t len;
        while (!rc.failed && ws_session_pop_next(dev, cfg.n_ports, &eg, &f, &len, NULL) == 1)
            if (ws_trace_write(rc.out, eg, p.ts_ns, f, len, rc.err, sizeof rc.err) != 0)
                rc.failed = 1;
        frames++;
    }
    ws_counters ctr;
    memset(&ctr, 0, sizeof ctr);
    if (dev)
        ws_session_counters(dev, cfg.n_ports, &ctr, err, sizeof err);
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
    if (!status && save) {
        ws_counters_file cf;
        memset(&cf, 0, sizeof cf);
        cf.device.present = 1;
        cf.device.ports = cfg.n_ports;
        cf.device.c = ctr;
        snprintf(cf.device.source, sizeof cf.device.source,
                 "wiresum ref: software reference sim/refdev.c, inputs %s<P>.pcap", in_prefix);
        snprintf(path, sizeof path, "%s/%s", dir, WS_COUNTERS_FILE);
        if (ws_counters_file_save(path, &cf, rc.err, sizeof rc.err)) {
            fprintf(stderr, "wiresum ref: %s\n", rc.err);
            status = 1;
        }
    }
    if (!status && json &&
        ws_json_print(json_pack("{s:s, s:s, s:I, s:s, s:o}", "command", "ref", "dir", dir,
                                "frames_in", (json_int_t)frames, "out_prefix", out_prefix,
                                "counters", ws_json_counters(&ctr, cfg.n_ports)),
                      stdout, "ref"))
        status = 1;
    if (!status && !quiet && !json) {
        printf("ref %s: %llu frames in, %s<P>.pcap written\n", dir, (unsigned long long)frames,
               out_prefix);
        ws_counters_file_print(&ctr, cfg.n_ports, stdout);
    }
    ws_trace_close(in);
    ws_session_free(dev);
    return status;
}
