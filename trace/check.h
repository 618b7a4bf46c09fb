/* check.h - end-to-end check of a trace's outputs (`wiresum check`).
 *
 * Owns: reassembling every member's tensors from the RESULT frames of
 * <prefix><P>.pcap and comparing them, bit for bit, with the exact sums the
 * generator wrote (sum-<job>-<tensor>.f32). It does not use the reference
 * engine: it checks addressing, checksums and values from the files alone.
 */
#ifndef WS_CHECK_H
#define WS_CHECK_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t tensors;  /* (job, tensor) sums found */
    uint64_t results;  /* RESULT frames read */
    uint64_t resends;  /* of which RETX */
    uint64_t other;    /* frames that are not RESULTs (bypass) */
    uint64_t problems; /* frames or elements wrong, elements missing */
} ws_check_stats;

/* Returns 0 when every member of every job received exactly the exact sums,
 * 1 when there are problems (each printed to log, the first 20 in full), -1 on
 * an error reading the directory (err). */
int ws_check(const char *dir, const char *prefix, ws_check_stats *st, FILE *log, char *err,
             size_t errlen);

#endif
