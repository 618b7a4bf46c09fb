/* ini_lines.h - what the tools' ini parsers share (fabric_cfg.c, cluster.c).
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
    unsigned lineno;    /* the line last read */
    unsigned header;    /* the line of the last section header */
    unsigned long_line; /* the first line longer than inih's buffer takes, or 0 */
    unsigned max_chars; /* the most characters a line may have (before its newline) */
    int indented;       /* the line last read begins with a space or a tab: inih hands its
                         * text on as a continuation of the key before (a value on several
                         * lines), and a parser that takes lists may append it */
} ws_ini_lines;

/* ini_parse_stream's reader; stream is a ws_ini_lines. A line longer than inih's buffer
 * (INI_MAX_LINE) is read whole and handed on empty, its number kept in long_line: the parser
 * should report it (ws_ini_long_line) rather than the pieces inih would make of it. */
char *ws_ini_read_line(char *str, int num, void *stream);
/* The message for l->long_line into buf. */
void ws_ini_long_line(const ws_ini_lines *l, char *buf, size_t len);

/* A decimal integer in lo..hi into *v: 0, or -1. */
int ws_ini_uint(const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *v);

/* 1 when s is 1..max-1 letters, digits, '.', '_' or '-'. */
int ws_ini_name(const char *s, size_t max);

#endif
