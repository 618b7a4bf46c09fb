/* wiresum/validate.h - the stateless validation of an aggregation frame (docs/protocol.md,
 * "Validation"): the checks of a frame alone against the device's configuration, in the order
 * of the protocol; the reason of the first that fails. The stateful checks (duplicate, early,
 * mismatch) belong to the device (sim/refdev.c, the RTL's judge).
 *
 * Above the codec (wiresum/wire.h) and the configuration (wiresum/config.h), which know
 * nothing of each other's checks.
 */
#ifndef WIRESUM_VALIDATE_H
#define WIRESUM_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "wiresum/config.h"
#include "wiresum/wire.h"

/* Returns WS_OK and fills *h and *job, or the first reason. */
ws_reason ws_validate(const uint8_t *f, size_t len, const ws_config *cfg, ws_hdr *h,
                      const ws_job **job);

#endif
