/* wiresum/config.h - device and job configuration: the [device] and [job N] sections
 * of a trace directory's job.ini (docs/traces.md).
 *
 * Owns: the ws_config structure, its parser (inih) and its writer. Every limit
 * of the device (docs/architecture.md, wiresum_top) is a field of ws_config so that a configuration
 * describes one build of the device.
 */
#ifndef WIRESUM_CONFIG_H
#define WIRESUM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Hard ceilings of the software model (the RTL parameters must not exceed them). */
#define WS_LIMIT_PORTS 16
#define WS_LIMIT_JOBS 64
#define WS_LIMIT_WORKERS 64 /* worker bitmaps are uint64_t */
#define WS_LIMIT_SLOTS 4096
#define WS_LIMIT_COUNT 2048
#define WS_LIMIT_FRAME 65535 /* MAX_FRAME: the tuser length field is 16 bits */
#define WS_MIN_MAX_FRAME 68   /* MAX_FRAME: a DATA frame of one element */

/* Device defaults: the parameters of hw/wiresum_top.v. */
#define WS_DEFAULT_PORTS 4
#define WS_DEFAULT_MAX_JOBS 8
#define WS_DEFAULT_MAX_WORKERS 64
#define WS_DEFAULT_POOL_SLOTS 64
#define WS_DEFAULT_MAX_COUNT 256
#define WS_DEFAULT_MAX_FRAME 9216 /* bytes: longer frames are dropped by the ports (oversize) */
#define WS_DEFAULT_UDP_PORT 48900

typedef struct {
    uint8_t mac[6];
    uint32_t ip;       /* host order */
    uint16_t udp_port; /* host order */
    uint8_t port;      /* device port the member is attached to */
} ws_member;

typedef struct {
    uint16_t id;
    bool enable;
    unsigned workers;
    unsigned slots;
    unsigned slot_base; /* first slot of the job's range in the device pool */
    unsigned max_count;
    ws_member member[WS_LIMIT_WORKERS];
    /* hierarchy (docs/protocol.md, "Several devices"): the parent device, if any, with its
     * MAC, IP, aggregation UDP port and this device's port towards it; the job's id there and
     * this device's rank in it */
    bool has_parent;
    ws_member parent;
    uint16_t parent_job;
    uint16_t parent_rank;
} ws_job;

typedef struct {
    uint8_t mac[6];
    uint32_t ip;
    uint16_t udp_port;
    unsigned n_ports;
    uint8_t bypass[WS_LIMIT_PORTS]; /* egress port for each ingress port */
    /* build parameters of the device */
    unsigned max_jobs, max_workers, pool_slots, max_count;
    unsigned max_frame; /* MAX_FRAME; 0: not given, the device's (ws_config_max_frame) */
    bool partial;       /* the build takes PARTIAL frames and jobs with a parent (the RTL: not
                         * yet, so 0 by default) */
    unsigned n_jobs;
    ws_job job[WS_LIMIT_JOBS];
} ws_config;

/* The largest frame the device takes: cfg->max_frame, or WS_DEFAULT_MAX_FRAME when not given. */
unsigned ws_config_max_frame(const ws_config *cfg);

/* A configuration with the device defaults, no jobs, identity-free bypass map
 * (port p -> p ^ 1), MAC 02:00:00:00:00:fe, IP 10.0.0.254. */
void ws_config_default(ws_config *cfg);

/* The configuration the generated workloads (`wiresum run`, `wiresum bench`) use: n_ports
 * ports, bypass p -> p ^ 1 (p itself for a last odd port), and one enabled job `id` of
 * `workers` members on the next `slots` slots (0..slots-1 for the first job, then those after
 * the job appended before) with `count` elements per packet; rank w has MAC
 * 02:00:00:00:01:w, IP 10.0.1.(w+1), UDP port 40000 and sits on port w mod n_ports. The
 * device limits (max_*, pool_slots) are left as they are: set them before ws_config_check.
 * Appends the job to cfg and returns it; NULL if cfg already has WS_LIMIT_JOBS jobs or the
 * arguments exceed WS_LIMIT_PORTS / WS_LIMIT_WORKERS. */
ws_job *ws_config_add_workload(ws_config *cfg, uint16_t id, unsigned n_ports, unsigned workers,
                               unsigned slots, unsigned count);

/* Parse a job.ini. On error returns -1 and writes "FILE:LINE: reason" to err
 * (errlen bytes). Rejects unknown sections and keys, bad values, values out of
 * range, rank gaps, duplicate members, overlapping slot ranges. */
int ws_config_load(ws_config *cfg, const char *path, char *err, size_t errlen);

/* Same, from a string; name is used in messages. */
int ws_config_parse_string(ws_config *cfg, const char *text, const char *name, char *err,
                           size_t errlen);

/* Check cross-field rules of a configuration built in memory; same messages
 * without a line number. Returns 0 when valid. */
int ws_config_check(const ws_config *cfg, char *err, size_t errlen);

/* Write cfg in job.ini syntax. Returns 0, or -1 with errno set. */
int ws_config_write(const ws_config *cfg, FILE *f);

/* The job with that id, or NULL. */
const ws_job *ws_config_find_job(const ws_config *cfg, uint16_t id);

/* Text helpers shared with other tools. Return 0 on success, -1 on bad text. */
int ws_parse_mac(const char *s, uint8_t mac[6]);
int ws_parse_ipv4(const char *s, uint32_t *ip);
void ws_format_mac(const uint8_t mac[6], char out[18]);
void ws_format_ipv4(uint32_t ip, char out[16]);

#endif
