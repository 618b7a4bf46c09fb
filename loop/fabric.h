/* fabric.h - `wiresum run` through several devices (fabric.c): shards, trees of devices, a
 * fabric.ini (fabric_cfg.h), RTL models and references mixed; run.h's ws_run with shards > 1, a
 * tree, a fabric or a device mix.
 */
#ifndef WS_FABRIC_H
#define WS_FABRIC_H

#include "run.h"

/* Whether spec is a --tree: fan-outs of 1..64 separated by 'x', at most three levels ("4",
 * "2x4"): 0 and its leaves (1 for NULL), or -1 and err. */
int ws_fabric_tree_check(const char *spec, unsigned *leaves, char *err, size_t errlen);

/* As ws_run (run.h), on options ws_run_check took. */
int ws_fabric_run(const ws_run_opts *o, ws_run_stats *st, FILE *out, char *err, size_t errlen);

#endif
