/* plot.c - utilization and latency of a run, drawn by gnuplot through a pipe. */
#include "plot.h"
#include "ws_grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    uint64_t done, latency;
    unsigned worker;
    uint64_t chunk;
} point;

struct ws_plot {
    unsigned workers;
    uint64_t chunks;
    uint64_t *sent;              /* workers x chunks: first transmission + 1, 0 none */
    uint64_t (*win)[2];          /* beats per window, in and out */
    size_t nwin, capwin;
    point *pt;
    size_t npt, cappt;
    uint64_t last_in, last_out;  /* ws_plot_beats_total */
    int oom;
};

/* The full path of gnuplot in PATH, or -1. */
static int find_gnuplot(char *buf, size_t n)
{
    const char *path = getenv("PATH");
    if (!path)
        return -1;
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && (size_t)snprintf(buf, n, "%.*s/gnuplot", (int)len, path) < n &&
            access(buf, X_OK) == 0)
            return 0;
        path += len;
        if (*path == ':')
            path++;
    }
    return -1;
}

int ws_plot_check(const char *png, char *err, size_t errlen)
{
    char exe[4096];
    if (find_gnuplot(exe, sizeof exe)) {
        snprintf(err, errlen, "--plot: gnuplot not found in PATH (Debian: apt-get install "
                 "gnuplot-nox)");
        return -1;
    }
    /* the image and its data are written after the run: a directory that cannot take them is
     * said now, not after the simulation */
    char dir[4096];
    const char *slash = strrchr(png, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == png ? 1 : (int)(slash - png), png);
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        snprintf(err, errlen, "--plot %s: directory %s: %s", png, dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "--plot %s: %s is not a directory", png, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "--plot %s: directory %s is not writable: %s", png, dir,
                 strerror(errno));
        return -1;
    }
    if (stat(png, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "--plot %s: is a directory", png);
        return -1;
    }
    return 0;
}

ws_plot *ws_plot_new(unsigned workers, uint64_t chunks)
{
    ws_plot *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->workers = workers;
    p->chunks = chunks;
    p->sent = calloc((size_t)workers * chunks + 1, sizeof *p->sent);
    if (!p->sent) {
        free(p);
        return NULL;
    }
    return p;
}

void ws_plot_free(ws_plot *p)
{
    if (!p)
        return;
    free(p->sent);
    free(p->win);
    free(p->pt);
    free(p);
}

void ws_plot_beats(ws_plot *p, int dir, uint64_t cycle, uint64_t beats)
{
    if (!beats || p->oom)
        return;
    size_t w = (size_t)(cycle / WS_PLOT_WINDOW);
    if (w >= p->capwin) {
        size_t old = p->capwin;
        uint64_t(*nw)[2] = ws_grow(p->win, &p->capwin, w + 1, sizeof *nw, 256);
        if (!nw) {
            p->oom = 1;
            return;
        }
        memset(nw + old, 0, (p->capwin - old) * sizeof *nw);
        p->win = nw;
    }
    p->win[w][dir ? 1 : 0] += beats;
    if (w + 1 > p->nwin)
        p->nwin = w + 1;
}

void ws_plot_beats_total(ws_plot *p, uint64_t cycle, uint64_t in_total, uint64_t out_total)
{
    uint64_t at = cycle ? cycle - 1 : 0; /* the beats happened up to cycle */
    if (in_total > p->last_in)
        ws_plot_beats(p, 0, at, in_total - p->last_in);
    if (out_total > p->last_out)
        ws_plot_beats(p, 1, at, out_total - p->last_out);
    p->last_in = in_total;
    p->last_out = out_total;
}

void ws_plot_sent(ws_plot *p, unsigned w, uint64_t chunk, uint64_t cycle)
{
    if (w >= p->workers || chunk >= p->chunks)
        return;
    uint64_t *s = &p->sent[(size_t)w * p->chunks + chunk];
    if (!*s)
        *s = cycle + 1;
}

void ws_plot_done(ws_plot *p, unsigned w, uint64_t chunk, uint64_t cycle)
{
    if (w >= p->workers || chunk >= p->chunks || p->oom)
        return;
    uint64_t s = p->sent[(size_t)w * p->chunks + chunk];
    if (!s || s - 1 > cycle)
        return;
    point *np = ws_grow(p->pt, &p->cappt, p->npt + 1, sizeof *np, 1024);
    if (!np) {
        p->oom = 1;
        return;
    }
    p->pt = np;
    p->pt[p->npt++] = (point){cycle, cycle - (s - 1), w, chunk};
}

void ws_gnuplot_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

FILE *ws_gnuplot_open(const char *png, unsigned width, unsigned height, const char *dat,
                      char *err, size_t errlen)
{
    char exe[4096];
    if (find_gnuplot(exe, sizeof exe)) {
        snprintf(err, errlen, "--plot: gnuplot not found in PATH (Debian: apt-get install "
                 "gnuplot-nox); the data is in %s", dat);
        return NULL;
    }
    unlink(png);
    /* the command through sh: quote the path */
    char cmd[8300];
    size_t k = 0;
    cmd[k++] = '\'';
    for (const char *s = exe; *s && k + 6 < sizeof cmd; s++) {
        if (*s == '\'') {
            memcpy(cmd + k, "'\\''", 4);
            k += 4;
        } else {
            cmd[k++] = *s;
        }
    }
    cmd[k++] = '\'';
    cmd[k] = 0;
    FILE *g = popen(cmd, "w");
    if (!g) {
        snprintf(err, errlen, "--plot: cannot run %s: %s", exe, strerror(errno));
        return NULL;
    }
    fprintf(g, "set terminal pngcairo size %u,%u noenhanced font ',10'\nset output ", width,
            height);
    ws_gnuplot_string(g, png);
    fputc('\n', g);
    return g;
}

int ws_gnuplot_close(FILE *g, const char *png, const char *dat, char *err, size_t errlen)
{
    fprintf(g, "set output\n");
    int st = pclose(g);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "--plot %s: gnuplot failed (%s %d; its messages above); the data "
                 "is in %s", png, st != -1 && WIFEXITED(st) ? "exit status" : "status",
                 st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : st, dat);
        return -1;
    }
    struct stat sb;
    if (stat(png, &sb) != 0 || sb.st_size == 0) {
        snprintf(err, errlen, "--plot %s: gnuplot wrote no image; the data is in %s", png, dat);
        return -1;
    }
    return 0;
}

void ws_plot_dat_name(const char *png, char *dat, size_t len)
{
    size_t n = strlen(png);
    if (n >= 4 && !strcmp(png + n - 4, ".png"))
        snprintf(dat, len, "%.*s.dat", (int)(n - 4), png);
    else
        snprintf(dat, len, "%s.dat", png);
}

int ws_plot_write(ws_plot *p, const char *png, const char *title, char *err, size_t errlen)
{
    if (p->oom) {
        snprintf(err, errlen, "--plot %s: out of memory collecting the data", png);
        return -1;
    }
    char dat[4096];
    ws_plot_dat_name(png, dat, sizeof dat);
    FILE *f = fopen(dat, "w");
    if (!f) {
        snprintf(err, errlen, "--plot: %s: %s", dat, strerror(errno));
        return -1;
    }
    fprintf(f, "# %s\n", title);
    fprintf(f, "# wiresum run --plot: block 0, per window of %d cycles: first cycle, beats into "
            "and out of the device per cycle\n", WS_PLOT_WINDOW);
    for (size_t w = 0; w < p->nwin; w++)
        fprintf(f, "%llu %.4f %.4f\n", (unsigned long long)w * WS_PLOT_WINDOW,
                (double)p->win[w][0] / WS_PLOT_WINDOW, (double)p->win[w][1] / WS_PLOT_WINDOW);
    if (!p->nwin)
        fprintf(f, "0 0 0\n");
    fprintf(f, "\n\n# block 1, per completed chunk: cycle its result reached the worker, "
            "cycles since its first transmission, worker, chunk\n");
    for (size_t i = 0; i < p->npt; i++)
        fprintf(f, "%llu %llu %u %llu\n", (unsigned long long)p->pt[i].done,
                (unsigned long long)p->pt[i].latency, p->pt[i].worker,
                (unsigned long long)p->pt[i].chunk);
    if (!p->npt)
        fprintf(f, "0 0 0 0\n");
    if (ferror(f) | fclose(f)) {
        snprintf(err, errlen, "--plot: %s: write failed", dat);
        return -1;
    }
    FILE *g = ws_gnuplot_open(png, 1200, 900, dat, err, errlen);
    if (!g)
        return -1;
    fprintf(g, "set multiplot layout 2,1 title ");
    ws_gnuplot_string(g, title);
    fprintf(g, "\nset grid\nset key top right\nset xlabel 'cycle'\n"
               "set title 'device utilization: beats per cycle, windows of %d cycles'\n"
               "set ylabel 'beats per cycle'\nset yrange [0:*]\n"
               "plot ", WS_PLOT_WINDOW);
    ws_gnuplot_string(g, dat);
    fprintf(g, " index 0 using 1:2 with steps lw 2 title 'into the device', '' index 0 using "
               "1:3 with steps lw 2 title 'out of the device'\n"
               "set title 'latency per chunk: first transmission to its result at the worker'\n"
               "set ylabel 'cycles'\nplot ");
    ws_gnuplot_string(g, dat);
    fprintf(g, " index 1 using 1:2 with points pt 7 ps 0.4 title 'completed chunk'\n"
               "unset multiplot\n");
    return ws_gnuplot_close(g, png, dat, err, errlen);
}
