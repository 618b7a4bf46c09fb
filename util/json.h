/* json.h - the tools' summaries as JSON (`--json`), with jansson.
 *
 * Owns: the key names shared by every command's summary (docs/traces.md, "JSON summaries"):
 * the counters as an object, and printing one summary object as one JSON document on a stream.
 * Each command builds its own object with json_pack() and the helpers here; the key names are
 * stable: scripts read them (tests/lib.sh ws_json).
 */
#ifndef WS_JSON_H
#define WS_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "wiresum/counters.h"

/* {"ports": [{"rx_frames", "rx_bytes", "tx_frames", "tx_bytes"}, ...], "accepted", "results",
 *  "resends", "bypass", "drop": {"<reason name>": n, ...}} over ports 0..n_ports-1; every
 *  reason of wiresum/reasons.h is a key of "drop". NULL when out of memory. */
json_t *ws_json_counters(const ws_counters *c, unsigned n_ports);

/* Print o (indented, keys in insertion order, a newline after) and release it. 0, or -1 when o
 * is NULL (a json_pack that failed: out of memory or a key of the wrong type) or the write
 * failed; the error is reported on stderr with the command's name. */
int ws_json_print(json_t *o, FILE *out, const char *cmd);

#endif
