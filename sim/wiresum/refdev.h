/* refdev.h - the software reference of the device (docs/protocol.md).
 *
 * Owns: slot state (two sets per slot, worker bitmaps, round identity, exact
 * accumulators, the rounded result; with a parent device, the PARTIAL sent up and the
 * parent's RESULT fanned out), the counters, and the frames the device sends. It is written from the contract, independently of the RTL, and is the
 * oracle every later stage is compared with. No I/O: frames come in through
 * ws_refdev_rx() and go out through a callback.
 */
#ifndef WS_REFDEV_H
#define WS_REFDEV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wiresum/config.h"
#include "wiresum/counters.h"
#include "wiresum/reasons.h"

typedef struct ws_refdev ws_refdev;

/* What the device did with one frame. */
typedef enum {
    WS_V_BYPASS,   /* sent unchanged to the bypass egress of its ingress port */
    WS_V_ACCEPT,   /* added to an open round (or opened one) */
    WS_V_COMPLETE, /* added, completed the round: one RESULT per member sent */
    WS_V_RESEND,   /* duplicate of a complete round: RESULT re-sent to its worker; of a round
                    * waiting for its parent: the PARTIAL re-sent to the parent */
    WS_V_DROP,     /* dropped; see the reason */
    WS_V_OVERSIZE, /* longer than the device's max_frame: dropped by its port before any rule,
                    * counted in oversize (no drop reason) */
    WS_V_FANOUT    /* the parent's RESULT of a round waiting for it: stored, the round complete,
                    * one RESULT per member sent */
} ws_verdict_kind;
#define WS_N_VERDICTS (WS_V_FANOUT + 1)

typedef struct {
    ws_verdict_kind kind;
    ws_reason reason; /* WS_OK unless dropped; WS_DROP_DUPLICATE for a resend too */
} ws_verdict;

/* Called for every frame the device sends, in the order it sends them. */
typedef void (*ws_emit_fn)(void *ctx, unsigned egress, const uint8_t *frame, size_t len);

/* A device configured with cfg (copied); NULL on allocation failure or an
 * invalid configuration (err explains). */
ws_refdev *ws_refdev_new(const ws_config *cfg, char *err, size_t errlen);
void ws_refdev_free(ws_refdev *d);

/* One frame of len bytes entering ingress port `port` (< cfg->n_ports). */
ws_verdict ws_refdev_rx(ws_refdev *d, unsigned port, const uint8_t *f, size_t len, ws_emit_fn emit,
                        void *ctx);

/* What ws_refdev_rx would do with the frame now, without changing anything. */
ws_verdict ws_refdev_judge(const ws_refdev *d, unsigned port, const uint8_t *f, size_t len);

const ws_counters *ws_refdev_counters(const ws_refdev *d);
const ws_config *ws_refdev_config(const ws_refdev *d);

/* Inspection for tests and the generator: state of (job, slot, set). */
typedef struct {
    int complete;       /* 1 complete (or never used), 0 accumulating or waiting */
    int waiting;        /* 1: complete here, its PARTIAL sent, the parent's RESULT awaited */
    uint64_t bitmap;
    uint32_t offset, tensor;
    uint16_t count;
} ws_set_state;
int ws_refdev_set_state(const ws_refdev *d, uint16_t job, unsigned slot, unsigned set,
                        ws_set_state *out);

#endif
