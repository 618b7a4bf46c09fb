/* fidelity.c - the timing model against the RTL (fidelity.h). */
#include "fidelity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ns3_run.h"

/* 1 when the two runs moved the same frames, else 0 and what differs in why */
static int same_frames(const ws_cluster_result *a, const ws_cluster_result *b, char *why,
                       size_t n)
{
    const struct {
        const char *what;
        unsigned long long x, y;
    } v[] = {
        {"DATA frames", a->data, b->data},
        {"RESULTs taken", a->results, b->results},
        {"retransmissions", a->retx, b->retx},
        {"device frames in", a->dev.rx_frames, b->dev.rx_frames},
        {"device bytes in", a->dev.rx_bytes, b->dev.rx_bytes},
        {"device drops", a->dev.drop_frames, b->dev.drop_frames},
        {"device frames out", a->dev.tx_frames, b->dev.tx_frames},
        {"device bytes out", a->dev.tx_bytes, b->dev.tx_bytes},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i].x != v[i].y) {
            snprintf(why, n, "not the same frames: %s %llu with the timing model, %llu with the "
                     "RTL", v[i].what, v[i].x, v[i].y);
            return 0;
        }
    if (a->retx || a->dev.drop_frames) {
        snprintf(why, n, "not the same frames: %llu retransmissions, %llu device drops (a "
                 "fidelity run must be loss-free)", (unsigned long long)a->retx,
                 (unsigned long long)a->dev.drop_frames);
        return 0;
    }
    return 1;
}

int ws_fidelity_run(const ws_cluster *c, ws_fidelity *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    /* mode wiresum through the job's device, else the hierarchy through every device */
    if (c->job.modes >> WS_MODE_WIRESUM & 1 && c->job.device >= 0)
        f->mode = WS_MODE_WIRESUM;
    else if (c->job.modes >> WS_MODE_HIER & 1)
        f->mode = WS_MODE_HIER;
    else {
        snprintf(err, errlen, "%s: --fidelity runs the [job]'s mode wiresum through its device, "
                 "or its mode hierarchical through every device; the file has neither", c->path);
        return -1;
    }
    static ws_cluster run; /* a copy: the file's, with the models chosen here */
    run = *c;
    run.job.modes = 1u << f->mode;
    for (unsigned k = 0; k < run.n_dev; k++)
        run.dev[k].model = WS_CLUSTER_TIMING;
    if (ws_ns3_run(&run, f->mode, &f->timing, err, errlen))
        return -1;
    for (unsigned k = 0; k < run.n_dev; k++)
        if (f->mode == WS_MODE_HIER || (int)k == c->job.device)
            run.dev[k].model = WS_CLUSTER_RTL;
    if (ws_ns3_run(&run, f->mode, &f->rtl, err, errlen))
        return -1;
    const ws_cluster_result *t = &f->timing, *r = &f->rtl;
    if (t->failed || r->failed || !t->exact || !r->exact) {
        snprintf(f->why, sizeof f->why, "%s run %s", t->failed || !t->exact ? "the timing model's"
                 : "the RTL's", (t->failed || !t->exact ? t : r)->failed ? "did not complete"
                 : "has a tensor that is not exact");
        return 0;
    }
    f->difference = (t->seconds - r->seconds) / r->seconds;
    if (!same_frames(t, r, f->why, sizeof f->why))
        return 0;
    if (fabs(f->difference) > WS_FIDELITY_TOLERANCE) {
        snprintf(f->why, sizeof f->why, "the all-reduce times differ by %+.3f %%, more than "
                 "%.0f %%", f->difference * 100, WS_FIDELITY_TOLERANCE * 100);
        return 0;
    }
    f->ok = 1;
    return 0;
}
