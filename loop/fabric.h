/* fabric.h - `wiresum run` through several devices (fabric.c): shards, trees of devices, a
 * fabric.ini (fabric_cfg.h), RTL models and references mixed; run.h's ws_run with shards > 1, a
 * tree, a fabric or a device mix.
 */
#ifndef WS_FABRIC_H
#define WS_FABRIC_H

#include "run.h"

/* As ws_run (run.h). */
int ws_fabric_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen);

#endif
