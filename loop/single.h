/* single.h - `wiresum run` through one device (single.c): its workers, the network between them
 * and the device (loop/channel.h), the device a model or the reference, every check; run.h's
 * ws_run with no shard, tree, fabric or device mix.
 */
#ifndef WS_SINGLE_H
#define WS_SINGLE_H

#include "run.h"

/* As ws_run (run.h), on options ws_run_check took. */
int ws_single_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen);

#endif
