/* wiresum/counters.h - the device's counters (docs/protocol.md section 8, docs/registers.md).
 *
 * Owns: the ws_counters structure that the driver reads from the device's registers
 * (ws_dev_read_counters) and the reference device keeps, so that both are compared field by
 * field. Per port: frames and bytes received and sent; per device: aggregation frames accepted,
 * RESULTs sent and re-sent, bypass frames, and one drop counter per reason of wiresum/reasons.h.
 */
#ifndef WIRESUM_COUNTERS_H
#define WIRESUM_COUNTERS_H

#include <stdint.h>

#include "wiresum/config.h"
#include "wiresum/reasons.h"

/* rx = accepted + bypass + sum(drop). */
/* rx_bytes adds a frame's length, at most WS_RX_BYTES_MAX (the ports count 16 bits a frame) */
#define WS_RX_BYTES_MAX 65535

typedef struct {
    uint64_t rx_frames[WS_LIMIT_PORTS], rx_bytes[WS_LIMIT_PORTS];
    uint64_t tx_frames[WS_LIMIT_PORTS], tx_bytes[WS_LIMIT_PORTS];
    uint64_t accepted; /* aggregation frames added to a round */
    uint64_t results;  /* RESULT frames sent on completion */
    uint64_t resends;  /* RESULT frames re-sent for duplicates */
    uint64_t bypass;   /* bypass frames */
    uint64_t oversize; /* frames longer than MAX_FRAME, dropped by the ports (no drop reason) */
    uint64_t drop[WS_N_REASONS]; /* index by ws_reason; drop[WS_OK] stays 0 */
} ws_counters;

#endif
