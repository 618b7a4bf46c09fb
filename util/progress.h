/* progress.h - the progress display of long runs (`wiresum gen`, `wiresum sim`, `wiresum run`).
 *
 * Owns: one progress indicator on stderr: a bar redrawn in place when stderr is a terminal,
 * otherwise a plain line every interval (10 s; the environment variable
 * WIRESUM_PROGRESS_INTERVAL, in seconds, overrides it, e.g. for logs of CI jobs). Nothing is
 * shown when it is off (the tools turn it off with -q and --no-progress). The caller decides
 * what the fraction and the detail text are; no global state.
 */
#ifndef WS_PROGRESS_H
#define WS_PROGRESS_H

typedef struct {
    const char *label; /* "sim", "run": the start of every line */
    int on;            /* 0: nothing is ever shown */
    int tty;           /* 1: a bar redrawn in place; 0: plain lines */
    double interval;   /* seconds between two updates */
    double t0, last;   /* wall clock at init and at the last update */
    int drawn;         /* a bar is on the screen: the end needs a newline */
} ws_progress;

/* tty: 1 a bar, 0 lines, -1 a bar if stderr is a terminal. */
void ws_progress_init(ws_progress *p, const char *label, int on, int tty);

/* 1 when it is on and an update is due (an interval has passed since the last one). Reads the
 * clock: call it every so many iterations of a busy loop, not every one. */
int ws_progress_due(const ws_progress *p);

/* Show frac (0..1, clamped) and a detail text (printf format, without a newline). */
void ws_progress_show(ws_progress *p, double frac, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The end of the run: on a terminal the bar is drawn a last time with frac and the detail and
 * the line is ended; plain lines print nothing more (the run's summary follows). */
void ws_progress_end(ws_progress *p, double frac, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Wall-clock seconds since init. */
double ws_progress_elapsed(const ws_progress *p);

#endif
