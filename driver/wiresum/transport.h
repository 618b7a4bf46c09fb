/* wiresum/transport.h - the worker side of wire protocol v2: the all-reduce transport.
 *
 * Owns: one worker's part of the SwitchML window protocol (docs/protocol.md section 5, docs/driver.md): cutting a tensor into chunks of `count` elements,
 * numbering them on one sequence that runs across the consecutive all-reduces of the worker
 * (chunk i goes in slot i mod S with SET (i div S) mod 2), keeping at most one chunk outstanding
 * per slot (so at most S in flight, and chunk i+S leaves only once the result of chunk i is in),
 * retransmitting a chunk on timeout with RETX set and an exponential backoff, validating every
 * RESULT with the codec and storing its sums at their offset, and ignoring stale, duplicate,
 * corrupted and foreign frames.
 *
 * It does no I/O and reads no clock: frames leave through the cfg.tx callback and come in
 * through ws_worker_rx(); the caller passes the time to every call. One thread may drive any
 * number of workers with the non-blocking calls (start / rx / poll / done / deadline); the
 * blocking ws_allreduce() is built on them with two more callbacks (clock, wait). Times and
 * timeouts are in one unit of the caller's choice, nanoseconds by convention.
 */
#ifndef WIRESUM_TRANSPORT_H
#define WIRESUM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "wiresum/config.h"

#define WS_NO_DEADLINE UINT64_MAX
#define WS_MAX_SHARDS 4096
#define WS_WINDOW_GAIN 2.0  /* the window with a rate: this many bandwidth-delay products */
#define WS_PACE_GAIN 1.25   /* pacing: this many windows a smoothed round trip */
#define WS_INIT_CHUNKS 4    /* the window with a rate, before the first round trip is measured */

typedef struct ws_worker ws_worker;

/* A frame to send to the device: valid during the call only. */
typedef void (*ws_tx_fn)(void *ctx, const uint8_t *frame, size_t len);

typedef struct {
    /* the job and this worker's member record */
    uint16_t job;
    unsigned rank;
    unsigned slots;         /* S, the job's slots: the window */
    unsigned count;         /* elements per chunk, 1..2048 (at most the job's max_count) */
    uint8_t mac[6];         /* the worker's MAC, IPv4 address and UDP port (source of DATA) */
    uint32_t ip;
    uint16_t udp_port;
    uint8_t dev_mac[6];     /* the device's (destination of DATA, source of RESULTs) */
    uint32_t dev_ip;
    uint16_t dev_port;
    uint8_t tos;            /* DSCP and ECN bits of DATA frames */
    int cc;                 /* 1: congestion control, PANAMA's DCTCP-like window in bytes on the
                             * ECN echo of the RESULTs (docs/driver.md, "Congestion control"),
                             * chunks sent in chunk order, DATA ECN-capable (ECT(0)); 0
                             * (default): off */
    /* the path (docs/driver.md, "Window and pacing"): the rate this worker object may send at,
     * in bits per second (its link's; a sharded worker's objects share their link: each gets
     * its share), and the caller's time units in a second (0: 1e9, nanoseconds). With a rate
     * the window is in bytes, WS_WINDOW_GAIN x the path's bandwidth-delay product (the delivery
     * rate measured, at most this rate, x the smallest round trip measured), within one chunk
     * .. slots chunks; chunks leave in chunk
     * order, paced at WS_PACE_GAIN x window / smoothed round trip when that is below the rate.
     * 0 (default): no rate; the window is the slots, unpaced (or cc's alone) */
    double rate_bps;
    uint64_t ticks_per_s;
    /* sharding (docs/protocol.md section 9): a job over `shards` devices sends chunk i of a
     * tensor to device i mod shards; this worker object serves device `shard` (its dev_*
     * addresses), with its own window and timers. A worker of a sharded job is one object per
     * device over the same buffers. 0 or 1 shards: not sharded (shard 0). */
    unsigned shard, shards;
    uint32_t first_tensor;  /* tensor id of the first all-reduce; each next one takes +1 */
    /* timers, in the caller's time unit */
    uint64_t rto;           /* retransmission timeout of a chunk's first transmission */
    uint64_t rto_min;       /* bounds of every timeout armed (backoff included) */
    uint64_t rto_max;
    int adaptive;           /* 1: the first timeout follows measured round trips (RFC 6298:
                             * smoothed round trip + 4 x its mean deviation, at least rto_min) */
    unsigned max_retries;   /* retransmissions of one chunk before the all-reduce fails; 0: none */
    uint64_t hold;          /* a slot's next chunk leaves no earlier than hold after the last
                             * transmission of its previous chunk. Set it to the network's
                             * largest one-way delay: then no copy of a chunk (a retransmission,
                             * a network duplicate, a reordered frame) can reach the device after
                             * the worker's next chunk in the slot, which is what would let a
                             * stale copy open a round (docs/driver.md, "Hold"). 0: off */
    ws_tx_fn tx;
    void *tx_ctx;
    /* Optional, in place of ws_worker_start's buffers (docs/driver.md, "Chunks on demand"):
     * load(data_ctx, offset, count, dst) writes the count inputs at offset of the current
     * tensor into dst each time the chunk is (re)transmitted, and must give the same values
     * every time; store(data_ctx, offset, count, sums) takes the sums of a chunk when its
     * RESULT is accepted, once per chunk. With load set `in` may be NULL, with store `out`. */
    void (*load)(void *ctx, size_t offset, unsigned count, float *dst);
    void (*store)(void *ctx, size_t offset, unsigned count, const float *sums);
    void *data_ctx;
    /* ws_allreduce() only: the current time, and a wait that returns once it has handed
     * ws_worker_rx() at least one frame or the time has reached deadline (WS_NO_DEADLINE: no
     * deadline); 0, or -1 to abandon the all-reduce. */
    uint64_t (*clock)(void *ctx);
    int (*wait)(void *ctx, ws_worker *w, uint64_t deadline);
    void *io_ctx;
} ws_worker_cfg;

typedef struct {
    uint64_t allreduces;     /* all-reduces completed */
    uint64_t chunks;         /* chunks whose result arrived */
    uint64_t data_frames;    /* first transmissions of chunks */
    uint64_t retx_frames;    /* retransmissions (RETX set) */
    uint64_t timeouts;       /* timer expiries (each one retransmits, unless it gives up) */
    uint64_t results;        /* RESULTs accepted */
    uint64_t dup_results;    /* RESULTs of a chunk already complete */
    uint64_t stale_results;  /* RESULTs of no chunk of this worker in its slot (older rounds) */
    uint64_t bad_frames;     /* frames failing ws_result_check (corrupted, malformed) */
    uint64_t foreign_frames; /* valid RESULTs not from the device to this member, job and rank */
    uint64_t tx_bytes, rx_bytes;
    uint64_t rtt_samples;    /* round trips measured (chunks sent once only: Karn) */
    uint64_t srtt;           /* smoothed round trip, 0 before the first sample */
    uint64_t rto;            /* timeout the next new chunk gets */
    uint64_t max_timer;      /* largest timeout armed so far (shows the backoff) */
    uint64_t min_rtt;        /* smallest round trip measured, 0 before the first sample */
    double rate_bps;         /* delivery rate measured (cfg.rate_bps set): the most bytes of
                              * results a round trip brought in, over recent round trips */
    /* the window in bytes of frames (cfg.rate_bps and cfg.cc; without either it stays slots
     * frames of count elements): at most cwnd bytes outstanding, at least one chunk */
    double cwnd;             /* the window now */
    double cwnd_min;         /* the smallest it has been since the first round trip measured */
    uint64_t paced;          /* chunks that waited for the pacing */
    /* congestion control (cfg.cc; without it these stay 0) */
    uint64_t ce_results;     /* RESULTs accepted with ECN CE */
    uint64_t cwnd_cuts;      /* decreases: windows with marks, timeouts */
    double alpha;            /* the EWMA of the marked fraction (of bytes) */
} ws_worker_stats;

/* What ws_worker_rx did with a frame. */
typedef enum {
    WS_RX_RESULT,    /* the result of an outstanding chunk: stored, next chunk sent */
    WS_RX_DUPLICATE, /* the result of the chunk of its slot, already stored */
    WS_RX_STALE,     /* a valid RESULT for this worker that matches no current chunk */
    WS_RX_BAD,       /* fails validation: checksums, lengths, header fields */
    WS_RX_FOREIGN    /* a valid RESULT, but not addressed to this worker of this job */
} ws_rx_kind;

/* Defaults: S 16, count 256, rto 100000, rto_min 1000, rto_max 100000000, adaptive, no retry
 * limit, first tensor 1, tos 0, device addresses of ws_config_default(). */
void ws_worker_cfg_init(ws_worker_cfg *c);

/* Fill job, rank, slots, count (the job's max_count), the member's and the device's addresses
 * and first_tensor (job << 16 | 1) from a configuration; the rest is left alone. 0, or -1 and
 * err when the job or rank does not exist. */
int ws_worker_cfg_from_config(ws_worker_cfg *c, const ws_config *cfg, uint16_t job,
                              unsigned rank, char *err, size_t errlen);

/* A worker; NULL and err on a bad configuration (no tx, slots or count out of range, rto 0 or
 * outside rto_min..rto_max) or without memory. */
ws_worker *ws_worker_new(const ws_worker_cfg *c, char *err, size_t errlen);
void ws_worker_free(ws_worker *w);

/* Start an all-reduce of n (0..2^32-1) binary32 values: in is this worker's contribution, out
 * receives the sums (of a sharded worker: of its device's chunks only; out == in is allowed:
 * each element is overwritten only when its sum arrives, after which it is never sent again).
 * Both stay the caller's and must live until done; either may be NULL when cfg.load (in) or
 * cfg.store (out) takes its place. Sends the first chunks at once. -1 and
 * ws_worker_error() if an all-reduce is under way, the worker has failed, or n is too large.
 * n = 0, or a shard with no chunk of the tensor, completes at once (and takes a tensor id). */
int ws_worker_start(ws_worker *w, const float *in, float *out, size_t n, uint64_t now);

/* A frame from the network (anything: it is validated). May send the next chunk. */
ws_rx_kind ws_worker_rx(ws_worker *w, const uint8_t *frame, size_t len, uint64_t now);

/* Retransmit every chunk whose timer has expired at now, and send the chunks whose hold has
 * ended. 0, or -1 once a chunk has exhausted
 * max_retries (the all-reduce has failed: ws_worker_error says which chunk). */
int ws_worker_poll(ws_worker *w, uint64_t now);

/* 1 when no all-reduce is under way (the last one completed, or none was started). */
int ws_worker_done(const ws_worker *w);

/* The earliest time at which ws_worker_poll has something to do, WS_NO_DEADLINE if none. */
uint64_t ws_worker_deadline(const ws_worker *w);

/* Chunks of the current all-reduce with their result in, and in all. */
void ws_worker_progress(const ws_worker *w, uint64_t *done, uint64_t *total);

/* The tensor id the next (or current, while one runs) all-reduce uses. */
uint32_t ws_worker_tensor(const ws_worker *w);

const ws_worker_stats *ws_worker_get_stats(const ws_worker *w);
/* The reason of the last failure, or NULL. */
const char *ws_worker_error(const ws_worker *w);

/* Blocking all-reduce of buf in place, with cfg.clock and cfg.wait. 0, or -1 (error). */
int ws_allreduce(ws_worker *w, float *buf, size_t n);

#endif
