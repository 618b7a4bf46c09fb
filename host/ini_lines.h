/* ini_lines.h - what the tools' ini parsers share (fabric_cfg.c, cluster_cfg.c).
 *
 * Owns: the line reader handed to inih's ini_parse_stream that counts lines and remembers the
 * line of the last section header (so that every message names the line it concerns), and the
 * checks of two kinds of values: decimal integers in a range and names.
 */
#ifndef WS_INI_LINES_H
#define WS_INI_LINES_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *in;
    unsigned lineno; /* the line last read */
    unsigned header; /* the line of the last section header */
} ws_ini_lines;

/* ini_parse_stream's reader; stream is a ws_ini_lines. */
char *ws_ini_read_line(char *str, int num, void *stream);

/* A decimal integer in lo..hi into *v: 0, or -1. */
int ws_ini_uint(const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *v);

/* 1 when s is 1..max-1 letters, digits, '.', '_' or '-'. */
int ws_ini_name(const char *s, size_t max);

#endif
