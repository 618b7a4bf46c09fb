/* bg.h - the background traffic of `wiresum cluster` (docs/cluster.md, "Background").
 *
 * Owns: the plan of one run's flows from the cluster's [background] section (cluster.h) (Poisson arrivals at a
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

#include "cluster.h"

#define WS_BG_SHORT_BYTES 100000 /* short flows: under 100 KB */

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

/* The plan of c's [background] (c->bg): Poisson arrivals from start_ps at rate load x hosts x
 * rate / (8 x mean) per second (the hosts' link rate), each between two different hosts drawn
 * uniformly, its size from the distribution, with its ideal FCT (ws_bg_ideal_ps). NULL with
 * err. */
ws_bg *ws_bg_new(const ws_cluster *c, uint64_t start_ps, char *err, size_t errlen);
void ws_bg_free(ws_bg *g);

size_t ws_bg_count(const ws_bg *g);
const ws_bg_flow *ws_bg_flow_at(const ws_bg *g, size_t i);
/* len bytes of flow i arrived at now. */
void ws_bg_rx(ws_bg *g, size_t i, uint64_t len, uint64_t now);
/* 1 once every flow has received all its bytes. */
int ws_bg_done(const ws_bg *g);
void ws_bg_result_get(const ws_bg *g, ws_bg_result *r);

/* The ideal FCT of a flow of bytes from host src to host dst on an empty network, picoseconds;
 * Along the route (cluster/model/topo.h) of L links: the handshake (a
 * round trip, twice the links' delays), the bytes in segments of MTU - 52 with 54 bytes of
 * TCP/IPv4/PPP each at the slowest link's rate, one segment's store and forward on each of the
 * other links, and the links' delays once more. */
uint64_t ws_bg_ideal_ps(const ws_cluster *c, unsigned src, unsigned dst, uint64_t bytes);

#endif
