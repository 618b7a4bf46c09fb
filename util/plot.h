/* plot.h - `wiresum run --plot FILE.png`: utilization and latency over time, drawn by gnuplot.
 *
 * Owns: collecting, during a run, the beats going into and out of the device per window of
 * cycles and, per completed chunk, the cycles from its first transmission by the worker to the
 * result accepted by that worker; writing them as a gnuplot data file next to the PNG
 * (FILE.dat: block 0 "window_start beats_in_per_cycle beats_out_per_cycle", block 1
 * "cycle_done latency worker chunk") and running gnuplot (found in PATH, fed a generated
 * script through a pipe) to draw FILE.png. No global state.
 */
#ifndef WS_PLOT_H
#define WS_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define WS_PLOT_WINDOW 1000 /* cycles per utilization point */

typedef struct ws_plot ws_plot;

/* Before a run: 0 if gnuplot is in PATH and png (and its data file beside it) can be written
 * there, its directory existing and writable; -1 and err ("--plot: gnuplot not found ...",
 * "--plot FILE: directory D: ...") if not. */
int ws_plot_check(const char *png, char *err, size_t errlen);

/* For workers x chunks chunk numbers (a worker's chunks numbered across its all-reduces).
 * NULL without memory. */
ws_plot *ws_plot_new(unsigned workers, uint64_t chunks);
void ws_plot_free(ws_plot *p);

/* beats moved at cycle: dir 0 into the device, 1 out of it. */
void ws_plot_beats(ws_plot *p, int dir, uint64_t cycle, uint64_t beats);
/* The same from running totals (the model's statistics): the increase since the last call. */
void ws_plot_beats_total(ws_plot *p, uint64_t cycle, uint64_t in_total, uint64_t out_total);

/* Worker w sent chunk c at cycle (only the first transmission counts); its result arrived. */
void ws_plot_sent(ws_plot *p, unsigned w, uint64_t chunk, uint64_t cycle);
void ws_plot_done(ws_plot *p, unsigned w, uint64_t chunk, uint64_t cycle);

/* Write the data file and draw png with gnuplot; title goes on top (and on the data file's
 * first line, a comment). 0, or -1 and err naming
 * the file (or gnuplot's exit status). */
int ws_plot_write(ws_plot *p, const char *png, const char *title, char *err, size_t errlen);

/* What a plot of another tool takes from here (`wiresum cluster --plot`): the data file's name
 * beside png (FILE.png -> FILE.dat); gnuplot, found in PATH, started with a pngcairo terminal of
 * width x height writing png (NULL and err, naming dat, if it cannot be run), to which the
 * caller writes its script; its end, with the image checked (0, or -1 and err); s as a gnuplot
 * single-quoted string. */
void ws_plot_dat_name(const char *png, char *dat, size_t len);
FILE *ws_gnuplot_open(const char *png, unsigned width, unsigned height, const char *dat,
                      char *err, size_t errlen);
int ws_gnuplot_close(FILE *g, const char *png, const char *dat, char *err, size_t errlen);
void ws_gnuplot_string(FILE *f, const char *s);

#endif
