/* ws_dev.h - device access over a register bus: configuration and counters.
 *
 * Owns: turning a ws_config (job.ini) into register writes of docs/registers.md, checking the
 * device's build parameters against it, committing jobs and reporting a refused commit by the
 * name of its status code, and reading the counters back. The bus is a pair of callbacks, so
 * the same code drives the Verilator model now and a memory-mapped device later.
 */
#ifndef WS_DEV_H
#define WS_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "refdev.h"

typedef struct {
    /* Both return 0 for an OKAY response, a positive AXI response code (2 SLVERR, 3 DECERR)
     * for an error response, -1 when the access did not complete. */
    int (*write)(void *ctx, uint32_t addr, uint32_t data);
    int (*read)(void *ctx, uint32_t addr, uint32_t *data);
    void *ctx;
} ws_regbus;

/* Build parameters read from the device. */
typedef struct {
    unsigned width, ports, jobs, workers, pool, count;
} ws_dev_params;

int ws_dev_read_params(const ws_regbus *bus, ws_dev_params *p, char *err, size_t errlen);

/* Program device addresses, bypass map, members and jobs (job k of cfg into table record k),
 * committing each job. Checks the device can hold cfg first. 0, or -1 with err naming the
 * register or the refused job and the status code. */
int ws_dev_configure(const ws_regbus *bus, const ws_config *cfg, char *err, size_t errlen);

/* Read every counter into c (ports 0..n_ports-1). */
int ws_dev_read_counters(const ws_regbus *bus, unsigned n_ports, ws_counters *c, char *err,
                         size_t errlen);

#endif
