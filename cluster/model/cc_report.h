/* cc_report.h - the congestion part of a `wiresum cluster` run's report, in every mode: the
 * switches' and the devices' ECN marks, the transport's window cuts, the background flows'
 * completion times (bg.h) and the busiest worker link's bytes over the job; nothing when the
 * file has no ecn_threshold, cc or [background].
 * Text lines, and its keys added to a run's JSON object.
 */
#ifndef WS_CC_REPORT_H
#define WS_CC_REPORT_H

#include <stdio.h>

#include "cjob.h"

struct json_t;
void ws_cc_report_print(FILE *out, const ws_cluster *c, const ws_cluster_result *r);
void ws_cc_report_json(struct json_t *run, const ws_cluster *c, const ws_cluster_result *r);

#endif
