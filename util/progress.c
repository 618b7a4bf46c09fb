/* progress.c - a progress bar on a terminal, periodic lines elsewhere. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BAR 40
#define TTY_INTERVAL 0.2
#define LINE_INTERVAL 10.0

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void ws_progress_init(ws_progress *p, const char *label, int on, int tty)
{
    p->label = label;
    p->on = on;
    p->tty = tty < 0 ? isatty(STDERR_FILENO) : tty;
    p->interval = p->tty ? TTY_INTERVAL : LINE_INTERVAL;
    const char *env = getenv("WIRESUM_PROGRESS_INTERVAL");
    if (env && *env) {
        char *end;
        double v = strtod(env, &end);
        if (!*end && v > 0)
            p->interval = v;
    }
    p->t0 = p->last = now_s();
    p->drawn = 0;
}

int ws_progress_due(const ws_progress *p)
{
    return p->on && now_s() - p->last >= p->interval;
}

double ws_progress_elapsed(const ws_progress *p)
{
    return now_s() - p->t0;
}

static void draw(ws_progress *p, double frac, const char *fmt, va_list ap)
{
    if (!(frac >= 0))
        frac = 0;
    if (frac > 1)
        frac = 1;
    char detail[256];
    vsnprintf(detail, sizeof detail, fmt, ap);
    double t = now_s();
    if (p->tty) {
        char bar[BAR + 1];
        int fill = (int)(frac * BAR);
        for (int k = 0; k < BAR; k++)
            bar[k] = k < fill ? '#' : '.';
        bar[BAR] = 0;
        /* \033[K: clear what a longer previous line left */
        fprintf(stderr, "\r%s [%s] %5.1f%%  %s  %.0f s\033[K", p->label, bar, 100 * frac, detail,
                t - p->t0);
        p->drawn = 1;
    } else {
        fprintf(stderr, "%s: %5.1f%%, %s, %.0f s\n", p->label, 100 * frac, detail, t - p->t0);
    }
    fflush(stderr);
    p->last = t;
}

void ws_progress_show(ws_progress *p, double frac, const char *fmt, ...)
{
    if (!p->on)
        return;
    va_list ap;
    va_start(ap, fmt);
    draw(p, frac, fmt, ap);
    va_end(ap);
}

void ws_progress_end(ws_progress *p, double frac, const char *fmt, ...)
{
    if (!p->on || !p->tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    draw(p, frac, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    p->drawn = 0;
}
