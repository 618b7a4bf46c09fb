/* fabric_cfg.h - the devices of one job: fabric.ini (docs/traces.md, "Several devices").
 *
 * Owns: the description of a job spread over several devices (docs/protocol.md section 9): each
 * device's name and addresses, and its place: the root of shard d, or the child of rank r of a
 * parent; a leaf's workers (a range of the job's ranks). Its parser (inih; every error names the
 * file and line), its checks (one root per shard 0..T-1, ranks 0..k-1 under each parent, no cycle,
 * every shard's leaves covering the job's ranks in order) and its writer. `wiresum run --fabric
 * FILE` builds its devices from one; `wiresum run --record` writes the one it ran.
 */
#ifndef WS_FABRIC_CFG_H
#define WS_FABRIC_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wiresum/config.h"

#define WS_FABRIC_MAX_DEVICES 256
#define WS_FABRIC_MAX_SHARDS 64
#define WS_FABRIC_MAX_DEPTH 4 /* devices from a worker to its root */

typedef struct {
    char name[32];
    uint8_t mac[6];
    uint32_t ip;
    uint16_t udp_port;
    int parent;      /* index of the parent device, -1 for a shard's root */
    unsigned rank;   /* at the parent */
    unsigned shard;  /* the shard of its tree */
    unsigned w0, w1; /* the job's ranks below it: [w0, w1) */
    unsigned n_children;
    int child[64];   /* by rank */
} ws_fabric_dev;

typedef struct {
    unsigned n;       /* devices */
    unsigned shards;  /* T */
    unsigned workers; /* W: every shard's leaves cover ranks 0..W-1 */
    int root[WS_FABRIC_MAX_SHARDS];
    ws_fabric_dev d[WS_FABRIC_MAX_DEVICES];
} ws_fabric;

/* Parse and check FILE. 0, or -1 with "FILE:LINE: reason" (or "FILE: reason") in err. */
int ws_fabric_load(ws_fabric *f, const char *path, char *err, size_t errlen);

/* Check a description built in memory (the order of d[] is free: children, w0/w1 and the
 * shards' roots are derived). 0, or -1 with err. */
int ws_fabric_check(ws_fabric *f, char *err, size_t errlen);

/* A device appended to f (name, addresses with the default UDP port, its place: parent and rank
 * there, or the root of shard; the job's ranks [w0, w1) below it). Its index, or -1 when f is
 * full. ws_fabric_check() then derives the rest. */
int ws_fabric_add(ws_fabric *f, const char *name, const uint8_t mac[6], uint32_t ip, int parent,
                  unsigned rank, unsigned shard, unsigned w0, unsigned w1);

/* Device k's configuration for job `id` in c (which holds the build: ws_config_default and the
 * caller's limits): its addresses, PARTIAL frames taken when it is in a tree, the job (window
 * slots, count) with its members (its children by rank, or its workers w0.. with the addresses
 * worker() gives) and its parent. Every member and the parent are on port 0, the job on n_ports
 * ports: a caller with several sets the ports, then checks c (ws_config_check). 0, or -1 with
 * err when the job is beyond the configuration's limits. */
int ws_fabric_dev_config(const ws_fabric *f, unsigned k, uint16_t id, unsigned n_ports,
                         unsigned slots, unsigned count,
                         void (*worker)(void *ctx, unsigned w, ws_member *m), void *ctx,
                         ws_config *c, char *err, size_t errlen);

/* Write f in fabric.ini syntax. 0, or -1 with errno. */
int ws_fabric_write(const ws_fabric *f, FILE *out);

#endif
