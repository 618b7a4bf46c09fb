/* topo.c - nodes, links and routes of a cluster's topology (topo.h). */
#include "topo.h"

#include <stdio.h>

#include "rng.h"

/* switch indices: rack: tor0 = 0. leafspine: leaf i = i, spine j = leaves + j. fattree (h = k/2):
 * edge p.i = p*h + i, agg p.j = k*h + p*h + j, core c = k*k + c. */

void ws_topo_derive(ws_cluster_topo *t)
{
    double up_bps;
    switch (t->kind) {
    case WS_TOPO_LEAFSPINE:
        t->hosts = t->leaves * t->hosts_per_leaf;
        t->switches = t->leaves + t->spines;
        t->uplinks = t->leaves * t->spines;
        up_bps = t->spines * t->uplink.rate;
        t->oversubscription = t->hosts_per_leaf * t->host_link.rate / up_bps;
        return;
    case WS_TOPO_FATTREE: {
        unsigned h = t->k / 2;
        t->hosts = t->k * t->k * t->k / 4;
        t->switches = t->k * t->k + h * h;
        t->uplinks = 2 * t->k * h * h; /* edge-agg and agg-core: k^3/4 each */
        t->oversubscription = h * t->host_link.rate / (h * t->uplink.rate);
        return;
    }
    default:
        t->switches = 1;
        t->uplinks = 0;
        t->oversubscription = 0; /* no uplink */
        return;
    }
}

void ws_topo_switch_name(const ws_cluster *c, unsigned s, char out[WS_CLUSTER_NAME])
{
    const ws_cluster_topo *t = &c->topo;
    unsigned h = t->k / 2;
    switch (t->kind) {
    case WS_TOPO_LEAFSPINE:
        if (s < t->leaves)
            snprintf(out, WS_CLUSTER_NAME, "leaf%u", s);
        else
            snprintf(out, WS_CLUSTER_NAME, "spine%u", s - t->leaves);
        return;
    case WS_TOPO_FATTREE:
        if (s < t->k * h)
            snprintf(out, WS_CLUSTER_NAME, "edge%u.%u", s / h, s % h);
        else if (s < t->k * t->k)
            snprintf(out, WS_CLUSTER_NAME, "agg%u.%u", (s - t->k * h) / h, (s - t->k * h) % h);
        else
            snprintf(out, WS_CLUSTER_NAME, "core%u", s - t->k * t->k);
        return;
    default:
        snprintf(out, WS_CLUSTER_NAME, "tor%u", s);
        return;
    }
}

unsigned ws_topo_host_switch(const ws_cluster *c, unsigned h)
{
    const ws_cluster_topo *t = &c->topo;
    switch (t->kind) {
    case WS_TOPO_LEAFSPINE: return h / t->hosts_per_leaf;
    case WS_TOPO_FATTREE: return h / (t->k / 2);
    default: return 0;
    }
}

unsigned ws_topo_nodes(const ws_cluster *c) { return c->topo.hosts + c->n_dev + c->topo.switches; }

unsigned ws_topo_links(const ws_cluster *c)
{
    return c->topo.hosts + c->n_dev + c->topo.uplinks + c->port_links;
}

/* the uplinks' indices (among topo.uplinks) */
static unsigned ls_link(const ws_cluster_topo *t, unsigned leaf, unsigned spine)
{
    return leaf * t->spines + spine;
}

static unsigned ft_edge_agg(const ws_cluster_topo *t, unsigned pod, unsigned i, unsigned j)
{
    unsigned h = t->k / 2;
    return (pod * h + i) * h + j;
}

static unsigned ft_agg_core(const ws_cluster_topo *t, unsigned pod, unsigned j, unsigned m)
{
    unsigned h = t->k / 2;
    return t->k * h * h + (pod * h + j) * h + m;
}

void ws_topo_link(const ws_cluster *c, unsigned l, unsigned *a, unsigned *b,
                  ws_cluster_link *props)
{
    const ws_cluster_topo *t = &c->topo;
    unsigned H = t->hosts, D = c->n_dev;
    if (l < H) {
        *a = l;
        *b = ws_topo_switch_node(c, ws_topo_host_switch(c, l));
        *props = t->host_link;
        return;
    }
    if (l < H + D) {
        *a = l;
        *b = ws_topo_switch_node(c, c->dev[l - H].sw);
        *props = c->dev[l - H].link;
        return;
    }
    unsigned u = l - H - D;
    if (u >= t->uplinks) { /* a device's port beyond its first */
        unsigned d = 0;
        while (d + 1 < D && c->dev[d + 1].port_link <= l)
            d++;
        *a = H + d;
        *b = ws_topo_switch_node(c, c->dev[d].sw);
        *props = c->dev[d].link;
        return;
    }
    *props = t->uplink;
    if (t->kind == WS_TOPO_LEAFSPINE) {
        *a = ws_topo_switch_node(c, u / t->spines);
        *b = ws_topo_switch_node(c, t->leaves + u % t->spines);
        return;
    }
    unsigned h = t->k / 2, half = t->k * h * h;
    if (u < half) { /* edge p.i - agg p.j, u = (p*h + i)*h + j */
        unsigned pod = u / (h * h), i = u / h % h, j = u % h;
        *a = ws_topo_switch_node(c, pod * h + i);
        *b = ws_topo_switch_node(c, t->k * h + pod * h + j);
        return;
    }
    u -= half; /* agg p.j - core j*h + m, u = (p*h + j)*h + m */
    unsigned pod = u / (h * h), j = u / h % h, m = u % h;
    *a = ws_topo_switch_node(c, t->k * h + pod * h + j);
    *b = ws_topo_switch_node(c, t->k * t->k + j * h + m);
}

/* the switch of a destination node, and its own link */
static unsigned dst_switch(const ws_cluster *c, unsigned dst)
{
    return dst < c->topo.hosts ? ws_topo_host_switch(c, dst) : c->dev[dst - c->topo.hosts].sw;
}

unsigned ws_topo_route(const ws_cluster *c, unsigned s, unsigned dst, uint64_t flow)
{
    const ws_cluster_topo *t = &c->topo;
    unsigned base = t->hosts + c->n_dev, T = dst_switch(c, dst);
    if (s == T)
        return dst; /* hosts' and devices' links are numbered as the nodes */
    /* a choice per switch and flow: the same flow hashes differently at each level */
    uint64_t x = ws_mix64(flow ^ ((uint64_t)(s + 1) * 0x9e3779b97f4a7c15ull));
    if (t->kind == WS_TOPO_LEAFSPINE) {
        unsigned L = t->leaves;
        if (s < L) /* a leaf: up to the destination's spine, or any spine */
            return base + ls_link(t, s, T >= L ? T - L : (unsigned)(x % t->spines));
        /* a spine: down to the destination's leaf, or (a device on another spine) any leaf */
        return base + ls_link(t, T < L ? T : (unsigned)(x % L), s - L);
    }
    unsigned h = t->k / 2, edges = t->k * h, cores0 = t->k * t->k;
    /* T as (level, pod, index): level 0 edge, 1 agg, 2 core */
    unsigned tl = T < edges ? 0 : T < cores0 ? 1 : 2;
    unsigned tp = tl == 0 ? T / h : tl == 1 ? (T - edges) / h : 0;
    unsigned ti = tl == 0 ? T % h : tl == 1 ? (T - edges) % h : T - cores0;
    if (s < edges) { /* edge p.i: up, to the one aggregation switch that leads to T, or any */
        unsigned pod = s / h, i = s % h, j;
        if (tl == 1 && tp == pod)
            j = ti;
        else if (tl == 2)
            j = ti / h;
        else
            j = (unsigned)(x % h);
        return base + ft_edge_agg(t, pod, i, j);
    }
    if (s < cores0) { /* agg p.j */
        unsigned pod = (s - edges) / h, j = (s - edges) % h;
        if (tl == 0 && tp == pod)
            return base + ft_edge_agg(t, pod, ti, j);
        if (tl == 2 && ti / h == j)
            return base + ft_agg_core(t, pod, j, ti % h);
        if ((tl == 1 && tp == pod) || tl == 2) /* via an edge switch of the pod */
            return base + ft_edge_agg(t, pod, (unsigned)(x % h), j);
        return base + ft_agg_core(t, pod, j, (unsigned)(x % h)); /* another pod: up */
    }
    /* core c = j*h + m: down to the destination's pod, or any pod for another core */
    unsigned cc = s - cores0;
    unsigned pod = tl == 2 ? (unsigned)(x % t->k) : tp;
    return base + ft_agg_core(t, pod, cc / h, cc % h);
}
