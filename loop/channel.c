/* channel.c - the closed loop's simulated channel: queues in time, faults, frames by contents. */
#include "channel.h"
#include "ws_heap.h"

#include <stdlib.h>
#include <string.h>

/* ---- the queues: binary heaps ordered by (t, seq) ------------------------------------------- */

static int ev_less(const ws_channel_event *x, const ws_channel_event *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

WS_HEAP_DEFINE(ev_heap, ws_channel_event, ev_less)

int ws_channel_queue_push(ws_channel_queue *h, ws_channel_event e)
{
    return ev_heap_push(&h->a, &h->n, &h->cap, e);
}

ws_channel_event ws_channel_queue_pop(ws_channel_queue *h) { return ev_heap_pop(h->a, &h->n); }

uint64_t ws_channel_queue_top(const ws_channel_queue *h) { return h->n ? h->a[0].t : WS_CHANNEL_NEVER; }

void ws_channel_queue_free(ws_channel_queue *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->a[i].f);
    free(h->a);
    memset(h, 0, sizeof *h);
}

/* ---- the network -------------------------------------------------------------------------- */

void ws_channel_init(ws_channel *n, const ws_channel_opts *o, ws_rng *rng, ws_channel_corrupt_fn on_corrupt,
                 void *ctx)
{
    memset(n, 0, sizeof *n);
    n->o = *o;
    n->rng = rng;
    n->on_corrupt = on_corrupt;
    n->ctx = ctx;
}

void ws_channel_free(ws_channel *n)
{
    ws_channel_queue_free(&n->q[0]);
    ws_channel_queue_free(&n->q[1]);
}

int ws_channel_schedule(ws_channel *n, int dir, unsigned port, const uint8_t *f, size_t len, uint64_t t,
                    int may_corrupt)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, f, len);
    if (may_corrupt && ws_rng_chance(n->rng, n->o.corrupt) && len) {
        uint64_t bit = ws_rng_below(n->rng, 8 * (uint64_t)len);
        copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        n->st.corrupted[dir]++;
        /* a corrupted frame may be bypass traffic now (EtherType, address or port hit) */
        if (dir == 0 && n->on_corrupt && n->on_corrupt(n->ctx, port, copy, len)) {
            free(copy);
            return -1;
        }
    }
    ws_channel_event e = {t, n->seq++, copy, (uint32_t)len, port};
    if (ws_channel_queue_push(&n->q[dir], e)) {
        free(copy);
        return -1;
    }
    return 0;
}

int ws_channel_send(ws_channel *n, int dir, unsigned port, const uint8_t *f, size_t len, uint64_t now)
{
    uint64_t L = n->o.latency;
    if (!n->o.faults[dir])
        return ws_channel_schedule(n, dir, port, f, len, now + L, 0);
    if (ws_rng_chance(n->rng, n->o.loss)) {
        n->st.lost[dir]++;
        return 0;
    }
    uint64_t t = now + L;
    if (ws_rng_chance(n->rng, n->o.reorder)) {
        t += 1 + ws_rng_below(n->rng, L);
        n->st.reordered[dir]++;
    }
    if (ws_channel_schedule(n, dir, port, f, len, t, 1))
        return -1;
    if (ws_rng_chance(n->rng, n->o.dup)) {
        n->st.duped[dir]++;
        return ws_channel_schedule(n, dir, port, f, len, now + L + 1 + ws_rng_below(n->rng, L), 1);
    }
    return 0;
}

/* ---- frames by contents: open addressing over the entries ------------------------------------ */

static uint64_t frame_hash(const uint8_t *f, size_t len)
{
    uint64_t h = 0x6a09e667f3bcc909ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, f + i, 8);
        h = ws_mix64(h ^ v);
    }
    uint64_t v = 0;
    for (; i < len; i++)
        v = v << 8 | f[i];
    return ws_mix64(h ^ v ^ 0xff);
}

static int rehash(ws_frame_set *t, size_t icap)
{
    size_t *ni = malloc(icap * sizeof *ni);
    if (!ni)
        return -1;
    for (size_t i = 0; i < icap; i++)
        ni[i] = SIZE_MAX;
    for (size_t k = 0; k < t->n; k++) {
        size_t i = t->e[k].hash & (icap - 1);
        while (ni[i] != SIZE_MAX)
            i = (i + 1) & (icap - 1);
        ni[i] = k;
    }
    free(t->idx);
    t->idx = ni;
    t->icap = icap;
    return 0;
}

int ws_frame_set_add(ws_frame_set *t, const uint8_t *f, size_t len, unsigned egress, int must,
                     unsigned kind)
{
    ws_frame_entry *ne = ws_grow(t->e, &t->cap, t->n + 1, sizeof *ne, 256);
    if (!ne)
        return -1;
    t->e = ne;
    if (2 * (t->n + 1) > t->icap && rehash(t, t->icap ? 2 * t->icap : 512))
        return -1;
    ws_frame_entry *e = &t->e[t->n];
    *e = (ws_frame_entry){frame_hash(f, len), (uint32_t)len, (uint8_t)egress, (uint8_t)must, 0,
                          (uint8_t)kind};
    size_t i = e->hash & (t->icap - 1);
    while (t->idx[i] != SIZE_MAX)
        i = (i + 1) & (t->icap - 1);
    t->idx[i] = t->n++;
    return 0;
}

ws_frame_entry *ws_frame_set_find(ws_frame_set *t, const uint8_t *f, size_t len)
{
    if (!t->icap)
        return NULL;
    uint64_t h = frame_hash(f, len);
    ws_frame_entry *best = NULL;
    for (size_t i = h & (t->icap - 1); t->idx[i] != SIZE_MAX; i = (i + 1) & (t->icap - 1)) {
        ws_frame_entry *e = &t->e[t->idx[i]];
        if (e->hash == h && e->len == len && !e->seen && (!best || (e->must && !best->must)))
            best = e;
    }
    return best;
}

void ws_frame_set_free(ws_frame_set *t)
{
    free(t->e);
    free(t->idx);
    memset(t, 0, sizeof *t);
}

void ws_channel_worker_path(ws_worker_cfg *wc, unsigned width, double clock_mhz, unsigned share,
                        uint64_t rto, uint64_t rto_min)
{
    wc->ticks_per_s = (uint64_t)(clock_mhz * 1e6 + 0.5);
    wc->rate_bps = (double)width * (double)wc->ticks_per_s / (share ? share : 1);
    wc->rto = rto;
    wc->rto_min = rto_min;
    wc->rto_max = 4 * rto;
    wc->adaptive = 1;
}
