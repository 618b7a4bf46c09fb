/* counters.h - the counters file of a trace directory (DIR/counters.txt, docs/traces.md) and
 * the counters table of `wiresum counters`, `sim --counters` and `run --counters`.
 *
 * Owns: writing the device counters a run read back (and the reference's, for the same
 * inputs) as INI text, reading that text back with inih (errors give FILE:LINE and the key),
 * and printing counters as a table, the device's against the reference's when both are there.
 */
#ifndef WS_COUNTERS_H
#define WS_COUNTERS_H

#include <stddef.h>
#include <stdio.h>

#include "wiresum/counters.h"

#define WS_COUNTERS_FILE "counters.txt"

typedef struct {
    int present;      /* the section is in the file */
    char source[160]; /* what produced the counters, free text (may be empty) */
    unsigned ports;   /* 1..WS_LIMIT_PORTS */
    ws_counters c;
} ws_counters_section;

typedef struct {
    ws_counters_section device;    /* [device]: read back from the device, required */
    ws_counters_section reference; /* [reference]: the software reference's, optional */
} ws_counters_file;

/* Write f to path (the sections that are present). 0, or -1 and err naming the file. */
int ws_counters_file_save(const char *path, const ws_counters_file *f, char *err, size_t errlen);

/* Read path. 0, or -1 and err as "FILE:LINE: [section] key: reason" (a syntax error, an
 * unknown section or key, a key twice, a value that is not a number or a list of ports
 * numbers, a missing section or key). */
int ws_counters_file_load(const char *path, ws_counters_file *f, char *err, size_t errlen);

/* How many counters of the device differ from the reference's (0 without a reference): per
 * port of both the four port counters, then accepted, results, resends, bypass and the drop
 * counter of every reason. With out, one line per difference: "counter NAME: reference A,
 * device B". */
unsigned ws_counters_file_differ(const ws_counters_file *f, FILE *out);

/* The counters of ports 0..n_ports-1 as a short table: the port counters, the totals, the drop
 * reasons that are not zero (`wiresum ref`, `wiresum run`). */
void ws_counters_file_print(const ws_counters *c, unsigned n_ports, FILE *out);

/* The table, every difference marked; returns ws_counters_file_differ(f, NULL). */
unsigned ws_counters_file_table(FILE *out, const ws_counters_file *f);

#endif
