/* cluster_cfg.h - the cluster of `wiresum cluster FILE` (docs/cluster.md).
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

#define WS_CLUSTER_MAX_DEVICES 64
#define WS_CLUSTER_MAX_HOSTS 1024
#define WS_CLUSTER_NAME 32

typedef enum { WS_TOPO_RACK = 1 } ws_topo_kind;

/* The collectives a job can run; a bit each in ws_cluster_job.modes. */
typedef enum { WS_MODE_WIRESUM = 0, WS_MODE_RING = 1, WS_N_MODES } ws_cluster_mode;

/* A link: rate in bits per second, one-way propagation delay in nanoseconds. */
typedef struct {
    double rate;
    uint64_t delay_ns;
} ws_cluster_link;

typedef struct {
    ws_topo_kind kind;
    unsigned hosts;            /* hosts h0 .. h(hosts-1) */
    ws_cluster_link host_link; /* host <-> its switch */
    unsigned mtu;              /* IP MTU of every link, bytes */
    uint64_t queue_bytes;      /* capacity of each switch port's queue disc */
    unsigned switches;         /* derived: rack 1 (tor0) */
} ws_cluster_topo;

typedef struct {
    char name[WS_CLUSTER_NAME];
    unsigned sw;               /* the switch it is attached to (index; rack: 0 = tor0) */
    ws_cluster_link link;      /* device <-> switch */
    /* build parameters (hw/wiresum_top.v) and the timing model (docs/cluster.md) */
    unsigned data_width;       /* bits */
    unsigned engines;
    double f_clk;              /* Hz */
    double beats_per_cycle;    /* per engine, measured (docs/performance.md section 1) */
    unsigned idle_latency;     /* fixed cycles from a frame's last beat of service to its
                                * RESULTs (docs/performance.md section 2, column fixed) */
    uint64_t ingress_bytes;    /* ingress buffer: frames waiting or in service */
    unsigned max_count;        /* MAX_COUNT */
    unsigned slots;            /* the pool of slots */
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
    uint64_t seed;             /* the inputs (ws_run_value) */
} ws_cluster_job;

typedef struct {
    const char *path;          /* the file it was read from (for messages) */
    ws_cluster_topo topo;
    unsigned n_dev;
    ws_cluster_dev dev[WS_CLUSTER_MAX_DEVICES];
    ws_cluster_job job;
} ws_cluster;

/* Parse and check FILE (c->path points at path, which must outlive c). 0, or -1 with
 * "FILE:LINE: reason" (or "FILE: reason") in err. */
int ws_cluster_load(ws_cluster *c, const char *path, char *err, size_t errlen);

/* "wiresum", "ring"; NULL out of range. */
const char *ws_cluster_mode_name(ws_cluster_mode m);

/* The name of switch index s ("tor0"). */
void ws_cluster_switch_name(const ws_cluster *c, unsigned s, char out[WS_CLUSTER_NAME]);

#endif
