/* cluster.h - the cluster of `wiresum cluster FILE` (docs/cluster.md).
 *
 * Owns: the description of a simulated cluster read from an ini file: the topology (its kind,
 * hosts, switches and links with rates and delays, switch queues, MTU), the wiresum devices (the
 * switch each hangs off, its link, its build and timing parameters) and the job (the workers'
 * hosts, the tensor, iterations, compute time, the collectives to run, chunk size and window).
 * Its parser (inih; every error names the file and the line) and its checks. No simulation: the
 * ns-3 layer (cluster/ns3/) builds the network from it.
 */
#ifndef WS_CLUSTER_CFG_H
#define WS_CLUSTER_CFG_H

#include <stddef.h>
#include <stdint.h>

#include "cdf.h"
#include "values_kind.h"

#define WS_BG_MAX_FLOWS 1000000
#define WS_CLUSTER_MAX_DEVICES 512
#define WS_CLUSTER_MAX_TREES 64 /* hierarchical: aggregation trees of a job (job ids) */
#define WS_CLUSTER_MAX_HOSTS 1024
#define WS_CLUSTER_NAME 32
#define WS_CLUSTER_MAX_SWITCHES 1024
#define WS_CLUSTER_MAX_UPLINKS 2048 /* links between switches (fat-tree k = 16: 2048) */

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

/* rack: one ToR (a star); leafspine: every leaf linked to every spine; fattree: k-ary fat-tree
 * (k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores) */
typedef enum { WS_TOPO_RACK = 1, WS_TOPO_LEAFSPINE, WS_TOPO_FATTREE } ws_topo_kind;

/* The collectives a job can run, in the order they run; a bit each in ws_cluster_job.modes.
 * wiresum: one device; sharded: chunk i to device i mod T; hierarchical: leaf devices under
 * T root devices, chunk i through tree i mod T (PARTIAL frames); ring, halving-doubling: the
 * baselines over TCP. */
typedef enum {
    WS_MODE_WIRESUM = 0,
    WS_MODE_SHARDED,
    WS_MODE_HIER,
    WS_MODE_RING,
    WS_MODE_HD,
    WS_N_MODES
} ws_cluster_mode;

/* 1 for the modes that run through wiresum devices */
#define WS_MODE_IS_WIRESUM(m) ((m) <= WS_MODE_HIER)


/* A link: rate in bits per second, one-way propagation delay in nanoseconds. */
typedef struct {
    double rate;
    uint64_t delay_ns;
} ws_cluster_link;

typedef struct {
    ws_topo_kind kind;
    unsigned hosts;            /* hosts h0 .. h(hosts-1) */
    ws_cluster_link host_link; /* host <-> its switch */
    ws_cluster_link uplink;    /* switch <-> switch (leafspine, fattree; default host_link) */
    unsigned mtu;              /* IP MTU of every link, bytes */
    uint64_t queue_bytes;      /* capacity of each switch port's queue disc */
    uint64_t ecn_bytes;        /* ECN: CE marks above this queue, bytes (0: no marking) */
    unsigned leaves, spines, hosts_per_leaf; /* leafspine */
    unsigned k;                /* fattree */
    /* derived (topo.h): switches, links between switches, and the oversubscription of
     * a ToR/leaf/edge: its hosts' rate over its uplinks' */
    unsigned switches, uplinks;
    double oversubscription;
} ws_cluster_topo;

/* What simulates a device (docs/cluster.md section 3): the reference behind the timing model,
 * or the Verilator model of the RTL, cycle by cycle (the fidelity check of the timing model) */
typedef enum { WS_CLUSTER_TIMING = 0, WS_CLUSTER_RTL } ws_cluster_model;

typedef struct {
    char name[WS_CLUSTER_NAME];
    unsigned sw;               /* the switch it is attached to (index, topo.h) */
    ws_cluster_link link;      /* device <-> switch: each port's link */
    /* build parameters (hw/wiresum_top.v) and the timing model (docs/cluster.md) */
    unsigned data_width;       /* bits */
    unsigned ports;            /* N_PORTS: links to its switch, each of `link`'s rate */
    unsigned engines;          /* ENGINES, dividing ports: engine e serves ports
                                * e * ports / engines .. (e + 1) * ports / engines - 1 */
    double f_clk;              /* Hz */
    double beats_per_cycle;    /* per engine, measured (docs/performance.md section 1) */
    unsigned idle_latency;     /* fixed cycles from a frame's last beat of service to its
                                * RESULTs (docs/performance.md section 2, column fixed) */
    int partial;               /* PARTIAL: 1 a build that takes PARTIAL frames, 0 not, -1 by
                                * its part (1 in a hierarchy's trees, else 0) */
    uint64_t ingress_bytes;    /* ingress buffer: frames waiting or in service */
    unsigned max_count;        /* MAX_COUNT */
    unsigned slots;            /* the pool of slots */
    ws_cluster_model model;    /* timing (default) or rtl */
    uint64_t ecn_bytes;        /* ECN: CE marks on frames that find this many bytes in the
                                * ingress buffer (default the topology's ecn_threshold; 0 none) */
    unsigned port_link;        /* derived (topo.h): the link of its port 1; ports
                                * 1..ports-1 are links port_link .. port_link + ports - 2 */
} ws_cluster_dev;

typedef struct {
    unsigned workers;          /* W */
    unsigned host[WS_CLUSTER_MAX_HOSTS]; /* worker rank -> host index */
    uint64_t elems;            /* binary32 elements per tensor */
    unsigned iterations;
    uint64_t compute_ns;       /* between a worker's all-reduces */
    unsigned modes;            /* bit per ws_cluster_mode, in the order they run */
    unsigned count;            /* wiresum: elements per chunk */
    unsigned window;           /* wiresum: slots of the job (chunks in flight per worker) */
    int device;                /* wiresum: the device the job uses (index), -1 none */
    unsigned n_shards;         /* sharded: the devices, shard s = shard_dev[s] */
    int shard_dev[WS_CLUSTER_MAX_DEVICES];
    /* hierarchical: T trees, chunk i through tree i mod T (0: none). Every tree has the same
     * leaf devices (one job each on a device shared by the trees), in rank order, each serving
     * the workers below its switch, ranks [leaf_w0, leaf_w1); its own root; with mid_devices
     * a middle level: mid m the parent of leaves [mid_l0[m], mid_l1[m]), the mids in groups
     * (group g: mids mid_group0[g] .. mid_group0[g + 1] - 1), one group a tree in tree order,
     * or one group that every tree shares */
    unsigned n_trees;
    int root_dev[WS_CLUSTER_MAX_TREES];
    unsigned n_leaves;
    int leaf_dev[WS_CLUSTER_MAX_DEVICES];
    unsigned leaf_w0[WS_CLUSTER_MAX_DEVICES], leaf_w1[WS_CLUSTER_MAX_DEVICES];
    unsigned n_mids;
    int mid_dev[WS_CLUSTER_MAX_DEVICES];
    unsigned mid_l0[WS_CLUSTER_MAX_DEVICES], mid_l1[WS_CLUSTER_MAX_DEVICES];
    unsigned mid_groups, mid_group0[WS_CLUSTER_MAX_TREES + 1];
    int placed;                /* the devices and the modes' lists are the default arrangement
                                * (a file without [device]: docs/cluster.md section 2) */
    uint64_t seed;             /* the inputs (loop/values.h) */
    int cc;                    /* wiresum: the transport's congestion control (ws_worker_cfg) */
    ws_values_kind values;     /* the inputs (default normal: gradients) */
} ws_cluster_job;

typedef struct {
    const char *path;          /* the file it was read from (for messages) */
    ws_cluster_topo topo;
    unsigned n_dev;
    ws_cluster_dev dev[WS_CLUSTER_MAX_DEVICES];
    unsigned port_links;       /* derived: the devices' links beyond their first port's */
    ws_cluster_job job;
    ws_cluster_bg bg;          /* [background] (bg.h plans its flows) */
} ws_cluster;

/* Parse and check FILE (c->path points at path, which must outlive c). 0, or -1 with
 * "FILE:LINE: reason" (or "FILE: reason") in err. */
int ws_cluster_load(ws_cluster *c, const char *path, char *err, size_t errlen);

/* The ECN marking threshold of a queue of `queue` bytes drained at rate bps (bits per second):
 * the topology's ecn_threshold, given for the hosts' link rate, times bps over that rate (the
 * same delay of queue: DCTCP's K grows with the link's capacity), at most half the queue; 0
 * without ecn_threshold. A switch port's (ns-3 layer), and a device's ingress buffer's unless
 * its [device] gives one. */
uint64_t ws_cluster_ecn_bytes(const ws_cluster *c, uint64_t queue, double bps);

/* A time with its unit (ns, us, ms, s) in nanoseconds: 0, or -1. */
int ws_cluster_time_ns(const char *s, uint64_t *ns);

/* "wiresum", "sharded", "hierarchical", "ring", "halving-doubling"; NULL out of range. */
const char *ws_cluster_mode_name(ws_cluster_mode m);

#endif
