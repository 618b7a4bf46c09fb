/* ns3_run.h - the one entry point of the ns-3 layer (cluster/ns3/net.cc), callable from C.
 *
 * Owns nothing of the cluster itself: it builds the network of a cluster file in ns-3 (nodes,
 * point-to-point links, queue discs, routing), runs the job's collective in one mode through the
 * C code of cluster/model/cjob.h (the workers and the device) and returns its result.
 */
#ifndef WS_NS3_RUN_H
#define WS_NS3_RUN_H

#include <stddef.h>

#include "cluster.h"
#include "cjob.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One simulation of c's job in mode: 0 with r filled (r->failed tells whether it completed),
 * or -1 with err when it could not be set up. */
int ws_ns3_run(const ws_cluster *c, ws_cluster_mode mode, ws_cluster_result *r, char *err,
               size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
