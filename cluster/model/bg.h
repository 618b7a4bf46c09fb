/* bg.h - the background traffic of `wiresum cluster` (docs/cluster.md, "Background").
 *
 * Owns: the flow-size distributions (a CDF table read from a file, every error FILE:LINE, its
 * mean), the [background] section's keys, the plan of one run's flows (Poisson arrivals at a
 * load, sizes drawn from the distribution, random host pairs, all from the section's seed) and
 * what the flows did: the bytes each received, its completion time (FCT) and its slowdown (FCT
 * over its ideal FCT on an empty network), summarised as p50 and p99 for short flows (under
 * 100 KB) and the rest. No simulation: the ns-3 layer opens a TCP connection per flow at its
 * start and reports the bytes that arrive; every call takes the time in picoseconds.
 */
#ifndef WS_CLUSTER_BG_H
#define WS_CLUSTER_BG_H

#include <stddef.h>
#include <stdint.h>

#define WS_CDF_MAX_POINTS 256
#define WS_BG_SHORT_BYTES 100000 /* short flows: under 100 KB */
#define WS_BG_MAX_FLOWS 1000000

/* A flow-size distribution: points (bytes, cumulative probability), piecewise linear. */
typedef struct {
    unsigned n;
    double bytes[WS_CDF_MAX_POINTS];
    double cdf[WS_CDF_MAX_POINTS];
    double mean; /* bytes */
} ws_cdf;

/* Read a CDF file: one point a line, "BYTES PROBABILITY" (probability 0..1), both
 * non-decreasing, the last probability 1; '#' starts a comment. 0, or -1 with
 * "FILE:LINE: reason" in err. */
int ws_cdf_load(ws_cdf *d, const char *path, char *err, size_t errlen);

/* The size at probability u (0 <= u < 1): at least 1 byte. */
uint64_t ws_cdf_sample(const ws_cdf *d, double u);

/* The [background] section of a cluster file. */
typedef struct {
    int on;                 /* the section is there */
    char path[512];         /* the distribution's file (relative paths: to the cluster file) */
    ws_cdf dist;
    double load;            /* offered load: a fraction of the hosts' total link capacity */
    uint64_t seed;
    uint64_t flows;         /* this many flows, or */
    uint64_t duration_ns;   /* the flows that arrive in this time */
    /* lines of the keys, for the checks after the parse */
    unsigned line, key_line[6];
} ws_cluster_bg;

/* One key of [background] at line: 0, or -1 with the reason in why (the caller adds FILE:LINE;
 * a distribution file's own errors come with its FILE:LINE, *own_line set to 0).
 * cluster_path: the cluster file (relative distribution paths are taken from its folder). */
int ws_cluster_bg_key(ws_cluster_bg *b, const char *cluster_path, const char *key,
                      const char *value, unsigned line, unsigned *own_line, char *why,
                      size_t whylen);
/* After the parse: the keys required are there. 0, or -1 with the line and the reason. */
int ws_cluster_bg_check(const ws_cluster_bg *b, unsigned *line, char *why, size_t whylen);

/* The flows of one run. */
typedef struct {
    uint64_t start_ps;      /* the sender's connect */
    unsigned src, dst;      /* host indices */
    uint64_t bytes;
    uint64_t rx_bytes;      /* received so far */
    uint64_t done_ps;       /* when the last byte arrived; 0: not yet */
} ws_bg_flow;

/* Percentiles of one class of flows. */
typedef struct {
    uint64_t flows, completed;
    double fct_p50, fct_p99;    /* seconds */
    double slow_p50, slow_p99;  /* FCT / ideal FCT */
} ws_bg_class;

typedef struct {
    uint64_t flows, completed, bytes, rx_bytes;
    ws_bg_class small, large;   /* under WS_BG_SHORT_BYTES, the rest */
    double offered_load;        /* the plan's bytes / (hosts x rate x its span) */
    double mean_bytes;          /* the distribution's mean */
} ws_bg_result;

typedef struct ws_bg ws_bg;

/* The plan: Poisson arrivals from start_ps at rate load x hosts x rate / (8 x mean) per second,
 * each between two different hosts drawn uniformly, its size from the distribution. link_bps,
 * the hosts' links; ideal_fn(ctx, src, dst, bytes) the ideal FCT of a flow, picoseconds. NULL
 * with err. */
ws_bg *ws_bg_new(const ws_cluster_bg *b, unsigned hosts, double link_bps, uint64_t start_ps,
                 uint64_t (*ideal_fn)(const void *ctx, unsigned src, unsigned dst,
                                      uint64_t bytes),
                 const void *ideal_ctx, char *err, size_t errlen);
void ws_bg_free(ws_bg *g);

size_t ws_bg_count(const ws_bg *g);
const ws_bg_flow *ws_bg_flow_at(const ws_bg *g, size_t i);
/* len bytes of flow i arrived at now. */
void ws_bg_rx(ws_bg *g, size_t i, uint64_t len, uint64_t now);
/* 1 once every flow has received all its bytes. */
int ws_bg_done(const ws_bg *g);
void ws_bg_result_get(const ws_bg *g, ws_bg_result *r);

/* The ideal FCT of a flow of bytes from host src to host dst on an empty network, picoseconds;
 * cluster: a ws_cluster. Along the route (cluster/model/topo.h) of L links: the handshake (a
 * round trip, twice the links' delays), the bytes in segments of MTU - 52 with 54 bytes of
 * TCP/IPv4/PPP each at the slowest link's rate, one segment's store and forward on each of the
 * other links, and the links' delays once more. */
uint64_t ws_bg_ideal_ps(const void *cluster, unsigned src, unsigned dst, uint64_t bytes);

#endif
