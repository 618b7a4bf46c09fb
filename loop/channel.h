/* channel.h - the simulated channel of the closed loop (`wiresum run`, loop/single.c).
 *
 * Owns: the frames in flight between the workers and the device, each due at a cycle, in two
 * queues ordered by (cycle, sequence): towards the device (direction 0) and towards the workers
 * (direction 1); the faults a frame may meet on the way (loss, duplication, reordering, a
 * single-bit corruption), drawn from the caller's generator so that a run is repeatable; and a
 * set of frames known by their contents (a hash table), with which single.c checks what comes out
 * of the device's bypass egress. No device and no worker: the caller moves the frames.
 */
#ifndef WS_CHANNEL_H
#define WS_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "wiresum/transport.h"

#define WS_CHANNEL_NEVER UINT64_MAX

/* A frame in flight: due at cycle t (seq orders frames due at the same cycle, first sent
 * first). port: towards the device, its ingress port; towards a worker, the egress port it
 * left on. f is the queue's own copy. */
typedef struct {
    uint64_t t, seq;
    uint8_t *f;
    uint32_t len;
    unsigned port;
} ws_channel_event;

typedef struct {
    ws_channel_event *a;
    size_t n, cap;
} ws_channel_queue;

/* 0, or -1 when memory ran out (e is not queued then). */
int ws_channel_queue_push(ws_channel_queue *q, ws_channel_event e);
/* The earliest event, removed (q must not be empty); the caller frees its f. */
ws_channel_event ws_channel_queue_pop(ws_channel_queue *q);
/* The cycle of the earliest event, WS_CHANNEL_NEVER if there is none. */
uint64_t ws_channel_queue_top(const ws_channel_queue *q);
void ws_channel_queue_free(ws_channel_queue *q);

/* ---- the network ---------------------------------------------------------------------- */

typedef struct {
    uint64_t latency;               /* one-way, in cycles, >= 1 */
    double loss, dup, reorder, corrupt; /* probabilities 0..1, per frame */
    int faults[2];                  /* faults on direction 0 (up) and 1 (down) */
} ws_channel_opts;

typedef struct {
    uint64_t lost[2], duped[2], reordered[2], corrupted[2];
} ws_channel_stats;

/* Told of every frame corrupted on its way to the device (it may now be bypass traffic):
 * 0, or -1 to fail the send. */
typedef int (*ws_channel_corrupt_fn)(void *ctx, unsigned port, const uint8_t *f, size_t len);

typedef struct {
    ws_channel_opts o;
    ws_rng *rng;
    uint64_t seq;
    ws_channel_queue q[2]; /* [0] towards the device, [1] towards the workers */
    ws_channel_stats st;
    ws_channel_corrupt_fn on_corrupt;
    void *ctx;
} ws_channel;

void ws_channel_init(ws_channel *n, const ws_channel_opts *o, ws_rng *rng, ws_channel_corrupt_fn on_corrupt,
                 void *ctx);
void ws_channel_free(ws_channel *n);

/* A frame entering the network at cycle now in direction dir: without faults on that
 * direction it is due at now + latency; with them it may be lost, delayed by 1..latency more
 * cycles (reordered), corrupted, and duplicated (the copy due 1..latency cycles after now +
 * latency, itself corrupted or not). 0, or -1 when memory ran out. */
int ws_channel_send(ws_channel *n, int dir, unsigned port, const uint8_t *f, size_t len, uint64_t now);
/* The frame due at cycle t, no loss or delay; corrupted with the corruption probability if
 * may_corrupt. 0, or -1. */
int ws_channel_schedule(ws_channel *n, int dir, unsigned port, const uint8_t *f, size_t len, uint64_t t,
                    int may_corrupt);

/* ---- frames known by their contents -------------------------------------------------------- */

typedef struct {
    uint64_t hash;
    uint32_t len;
    uint8_t egress; /* the port it must or may come out on */
    uint8_t must;   /* 1: must come out; 0: may (a corrupted frame) */
    uint8_t seen;   /* set by the caller once it came out */
    uint8_t kind;   /* the caller's */
} ws_frame_entry;

typedef struct {
    ws_frame_entry *e; /* in the order added */
    size_t n, cap;
    size_t *idx;       /* open addressing over e[], SIZE_MAX empty */
    size_t icap;
} ws_frame_set;

/* 0, or -1 when memory ran out. */
int ws_frame_set_add(ws_frame_set *t, const uint8_t *f, size_t len, unsigned egress, int must,
                     unsigned kind);
/* An entry of this frame not yet seen, one that must come out before one that may; NULL if
 * none. */
ws_frame_entry *ws_frame_set_find(ws_frame_set *t, const uint8_t *f, size_t len);
void ws_frame_set_free(ws_frame_set *t);

/* A worker's transport over this network (docs/driver.md, "Window and pacing" and "Timeouts
 * and backoff"), its time in cycles at clock_mhz: the path's rate, `width` bits a cycle of the
 * device port it sends into, shared by the `share` members on that port (the window in bytes
 * from the round trips measured, paced at that rate); the adaptive timeout from those round
 * trips, at least rto_min, rto before the first, at most 4 x rto. */
void ws_channel_worker_path(ws_worker_cfg *wc, unsigned width, double clock_mhz, unsigned share,
                        uint64_t rto, uint64_t rto_min);

#endif
