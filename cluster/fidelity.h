/* fidelity.h - `wiresum cluster --fidelity FILE`: the timing model against the RTL
 * (docs/cluster.md section 3).
 *
 * Owns: the check of the timing model. The job's mode wiresum (else its mode hierarchical)
 * runs twice in the same fabric: every device the reference behind the timing model, then the
 * job's device (the hierarchy: every device of its trees) the Verilator model of the RTL
 * (model = rtl), cycle by cycle. Both must complete with every tensor exact,
 * move the same frames (DATA, RESULTs, the device's frames and bytes in and out, no drop, no
 * retransmission) and take the same all-reduce time within WS_FIDELITY_TOLERANCE.
 */
#ifndef WS_FIDELITY_H
#define WS_FIDELITY_H

#include <stddef.h>

#include "cluster.h"
#include "cjob.h"

#define WS_FIDELITY_TOLERANCE 0.02 /* |timing - rtl| / rtl */

typedef struct {
    ws_cluster_mode mode;       /* wiresum (the job's device), or hierarchical (every device) */
    ws_cluster_result timing;   /* the run with the timing model */
    ws_cluster_result rtl;      /* the run with the RTL */
    double difference;          /* (timing - rtl) / rtl, of the mean all-reduce times */
    int ok;                     /* both exact, the same frames, within the tolerance */
    char why[256];              /* what failed, when not ok */
} ws_fidelity;

/* The two runs of c's mode wiresum or hierarchical. 0 with f filled (f->ok the verdict), or -1
 * with err when the check cannot run: neither mode, or a simulation that could not be set up. */
int ws_fidelity_run(const ws_cluster *c, ws_fidelity *f, char *err, size_t errlen);

#endif
