/* cjob.h - the collectives of `wiresum cluster` on the workers' side (docs/cluster.md).
 *
 * Owns: one run of the job of a cluster file in one mode, everything of it that is not the
 * network: the workers' tensors (loop/values.h, the inputs of `wiresum run`), their iterations
 * with the compute time between them, and per mode
 *   wiresum, sharded, hierarchical: the devices of the mode (cluster/model/cdev.h), their
 *            configurations (a description as loop/fabric_cfg.h's, built by ws_fabric_dev_config
 *            as `wiresum run --shards/--tree` does) and per worker one ws_worker (the driver's
 *            transport, driver/wiresum/transport.h) per shard over the same buffers;
 *   ring, halving-doubling: a schedule of steps, each sending a range of the tensor to a peer
 *            over a byte stream and receiving one from a peer, adding it (in the order of the
 *            algorithm) or copying it;
 * the checks of every final tensor (against the exact sum, ws_values_exact; the baselines also
 * against the sums of their own binary32 order computed here), the all-reduce times and the
 * byte counters. The ns-3 layer (cluster/ns3/) moves the payloads and keeps the time; every
 * call takes the time in picoseconds and does no I/O.
 */
#ifndef WS_CLUSTER_JOB_H
#define WS_CLUSTER_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bg.h"
#include "cluster.h"
#include "cdev.h"

#define WS_CLUSTER_WORKER_PORT 40000

/* A link between two switches as the ns-3 layer counted it, per direction (0: up, from its lower
 * node; 1: down): bytes and packets forwarded onto it, flows (distinct 5-tuples) that used it. */
typedef struct {
    uint64_t bytes[2], packets[2], flows[2];
} ws_cluster_linkstat;

typedef struct {
    ws_cluster_mode mode;
    unsigned workers, iterations;
    uint64_t bytes;            /* tensor bytes per worker */
    double link_bps;           /* the hosts' links */
    double seconds;            /* all-reduce time, mean over the iterations */
    double iter_seconds[1000]; /* each: first worker's start to last worker's completion */
    int exact;                 /* every tensor equal to the exact sum, bit for bit */
    int consistent;            /* wiresum: = exact; ring: every worker's tensor equal to the
                                * ring-order sums of the C reference */
    uint64_t tensors, tensors_exact, tensors_consistent;
    uint64_t inexact_elements; /* elements that differ from the exact sum, all tensors */
    /* bytes: what the workers handed to the network and took from it (wiresum: frame
     * lengths; ring: stream bytes), the device's, and the network's drops (ns-3 layer) */
    uint64_t tx_bytes, rx_bytes;
    ws_cdev_stats dev;         /* the devices' counters, summed */
    unsigned n_devices;        /* the devices of the run: cluster indices, and each one's */
    int dev_index[WS_CLUSTER_MAX_DEVICES];
    ws_cdev_stats dev_each[WS_CLUSTER_MAX_DEVICES];
    uint64_t data, retx, timeouts, results, dup_results, stale_results, bad_frames;
    uint64_t net_drop_packets;
    /* ns-3 layer: the port whose transmit queue dropped most, link drop_port_link's end
     * drop_port_end (0: its lower node, ws_topo_link's a), and how many */
    unsigned drop_port_link;
    int drop_port_end;
    uint64_t drop_port_packets;
    /* congestion (docs/cluster.md, "Congestion"): CE marks made by the queue discs (ns-3 layer);
     * wiresum with cc: RESULTs taken with CE, window cuts, the smallest window of any worker */
    uint64_t net_ce_marks, ce_results, cwnd_cuts;
    double cwnd_min;           /* bytes */
    int has_bg;                /* [background]: bg is its flows' result (ns-3 layer) */
    ws_bg_result bg;
    ws_cluster_linkstat uplink[WS_CLUSTER_MAX_UPLINKS]; /* ns-3 layer: link H + D + u */
    uint64_t split_flows;      /* ns-3 layer: flows a switch sent on two different links */
    /* ns-3 layer: the job's span (the first start to the last worker's end, every iteration and
     * the compute between them) and the busiest of the workers' links over it: its host, its
     * direction (0: host to switch) and the bytes it put on the wire (every packet: the job's,
     * the background's, acknowledgements; PPP headers included). No schedule of the same
     * traffic ends the job before link_bytes take their time at the hosts' link rate. */
    double job_span_s;
    uint64_t link_bytes;
    unsigned link_host;
    int link_down;
    double wall_s, build_s;    /* wall time of the run, of building its network */
    uint64_t events;           /* ns-3 layer: the simulator's events executed */
    int failed;                /* a worker gave up (error) */
    char error[256];
} ws_cluster_result;

typedef struct ws_cjob ws_cjob;

/* wiresum: a frame to send from worker w (its headers' destination, TOS and UDP payload count;
 * len >= the headers' 42 bytes), as a device's frames (cdev.h, ws_cdev_emit_fn) */
typedef void (*ws_cjob_tx_fn)(void *ctx, unsigned w, const uint8_t *frame, size_t len);

/* The job of c in mode; host_ip[h]: the IPv4 address of host h; dev_ip[k]: device k's. NULL
 * with err. */
ws_cjob *ws_cjob_new(const ws_cluster *c, ws_cluster_mode mode, const uint32_t *host_ip,
                     const uint32_t *dev_ip, ws_cjob_tx_fn tx, void *tx_ctx, char *err,
                     size_t errlen);
void ws_cjob_free(ws_cjob *j);

/* The wiresum modes: device k of the cluster (NULL when the mode does not use it) and the
 * devices' UDP port. */
ws_cdev *ws_cjob_dev(ws_cjob *j, unsigned k);
uint16_t ws_cjob_dev_port(const ws_cjob *j);

/* The earliest time worker w has something to do (a timer, the start of its next
 * iteration), WS_CLUSTER_NEVER if none; ws_cjob_poll does it. */
uint64_t ws_cjob_deadline(const ws_cjob *j, unsigned w);
void ws_cjob_poll(ws_cjob *j, unsigned w, uint64_t now);

/* wiresum: a UDP payload for worker w from sip:sport, with the packet's TOS and TTL. */
void ws_cjob_rx(ws_cjob *j, unsigned w, const uint8_t *payload, size_t plen, uint32_t sip,
                uint16_t sport, uint8_t tos, uint8_t ttl, uint64_t now);

/* ring, halving-doubling: the workers w sends to, a byte stream to each (out[k], k < the count
 * returned, at most WS_CJOB_MAX_PEERS). */
#define WS_CJOB_MAX_PEERS 16
unsigned ws_cjob_peers(const ws_cjob *j, unsigned w, unsigned out[WS_CJOB_MAX_PEERS]);
/* Bytes of the stream from worker `from` to worker w. */
void ws_cjob_stream_rx(ws_cjob *j, unsigned w, unsigned from, const uint8_t *data, size_t len,
                       uint64_t now);
/* The bytes worker w has ready for its peer k and not yet sent (*data valid until the next call
 * on w), and how many of them the network took. */
size_t ws_cjob_stream_pending(ws_cjob *j, unsigned w, unsigned k, const uint8_t **data);
void ws_cjob_stream_sent(ws_cjob *j, unsigned w, unsigned k, size_t n);

/* 1 once every worker has completed every iteration (or the run failed). */
int ws_cjob_finished(const ws_cjob *j);

/* The result (times, checks, counters); the caller adds net_drop_packets and wall_s. */
void ws_cjob_result(const ws_cjob *j, ws_cluster_result *r);

#endif
