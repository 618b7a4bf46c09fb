/* wiresum/dev.h - device access over a register bus: configuration and counters.
 *
 * Owns: turning a ws_config (job.ini) into register writes of docs/registers.md, checking the
 * device's build parameters against it, committing jobs and reporting a refused commit by the
 * name of its status code, and reading the counters back. The bus is a pair of callbacks, so
 * the same code drives the Verilator model now and a memory-mapped device later.
 */
#ifndef WIRESUM_DEV_H
#define WIRESUM_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "wiresum/config.h"
#include "wiresum/counters.h"

typedef struct {
    /* Both return 0 for an OKAY response, a positive AXI response code (2 SLVERR, 3 DECERR)
     * for an error response, -1 when the access did not complete. */
    int (*write)(void *ctx, uint32_t addr, uint32_t data);
    int (*read)(void *ctx, uint32_t addr, uint32_t *data);
    void *ctx;
} ws_regbus;

/* Build parameters read from the device. */
typedef struct {
    unsigned width, ports, jobs, workers, pool, count, engines, max_frame;
    unsigned partial; /* PARAM_PARTIAL: 1 when the device takes PARTIAL frames as a parent */
} ws_dev_params;

int ws_dev_read_params(const ws_regbus *bus, ws_dev_params *p, char *err, size_t errlen);

/* Whether a device of build parameters p can hold cfg (ws_dev_configure checks it first): 0, or
 * the WS_FIT_* bits of what it lacks with err saying so (the ports, jobs, pool slots and count
 * together; else the first of PARTIAL frames, max_frame, a job's workers). */
enum {
    WS_FIT_PORTS = 1, WS_FIT_JOBS = 2, WS_FIT_POOL = 4, WS_FIT_COUNT = 8, WS_FIT_PARTIAL = 16,
    WS_FIT_FRAME = 32, WS_FIT_WORKERS = 64
};
unsigned ws_dev_fits(const ws_dev_params *p, const ws_config *cfg, char *err, size_t errlen);

/* Program device addresses, bypass map, members and jobs (job k of cfg into table record k),
 * committing each job: ws_dev_set_addresses, then ws_dev_job_setup per job. Checks the device
 * can hold cfg first. 0, or -1 with err naming the register or the refused job and the status
 * code. */
int ws_dev_configure(const ws_regbus *bus, const ws_config *cfg, char *err, size_t errlen);

/* Open a device: check it answers with the ID of register map version 1 and that its build
 * parameters are within what the software handles (WS_LIMIT_*). 0, or -1 and err. */
int ws_dev_open(const ws_regbus *bus, ws_dev_params *p, char *err, size_t errlen);

/* Back to a known state without a hardware reset: every job record disabled, the counters
 * cleared, the bypass map and the device address at their reset values. */
int ws_dev_reset(const ws_regbus *bus, const ws_dev_params *p, char *err, size_t errlen);

/* The device's MAC, IPv4 address and aggregation UDP port, and the bypass map of cfg (ports
 * beyond cfg->n_ports bypass to themselves). */
int ws_dev_set_addresses(const ws_regbus *bus, const ws_dev_params *p, const ws_config *cfg,
                         char *err, size_t errlen);

/* Member record of (job table record, rank): addresses and device port. Write members only
 * while their job is disabled (the datapath reads the table directly). */
int ws_dev_set_member(const ws_regbus *bus, const ws_dev_params *p, unsigned record,
                      unsigned rank, const ws_member *m, char *err, size_t errlen);

/* Job setup: disable table record `record`, write the job's members and values, commit it
 * enabled (job->enable 0: committed disabled) and check the commit status. The commit clears the
 * job's slot state, so its workers restart their chunk sequences. 0, or -1 and err naming the
 * job, the record and the status code. */
int ws_dev_job_setup(const ws_regbus *bus, const ws_dev_params *p, unsigned record,
                     const ws_job *job, char *err, size_t errlen);

/* Job teardown: commit record disabled; its frames are dropped as unknown_job from then on.
 * Checks that JOB_CTRL reads back inactive. */
int ws_dev_job_disable(const ws_regbus *bus, unsigned record, char *err, size_t errlen);

/* Whether record is active (JOB_CTRL.ENABLE as read back). */
int ws_dev_job_active(const ws_regbus *bus, unsigned record, int *active, char *err,
                      size_t errlen);

/* CTRL.CLEAR_COUNTERS. */
int ws_dev_clear_counters(const ws_regbus *bus, char *err, size_t errlen);

/* Read every counter into c (ports 0..n_ports-1). */
int ws_dev_read_counters(const ws_regbus *bus, unsigned n_ports, ws_counters *c, char *err,
                         size_t errlen);

#endif
