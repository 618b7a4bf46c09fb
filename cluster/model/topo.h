/* topo.h - the network of a cluster file as nodes, links and routes (docs/cluster.md).
 *
 * Owns: the structure a topology kind implies, numbered once for the C code and the ns-3 layer:
 * the nodes (hosts 0..H-1, then the devices H..H+D-1, then the switches), the switches' names
 * (tor0; leaf<i>, spine<j>; edge<p>.<i>, agg<p>.<j>, core<c>), the links in a fixed order (each
 * host to its ToR/leaf/edge, each device's first port to its switch, the switches' links from
 * the lower level up, then the devices' other ports) and the route a switch gives a packet: the
 * link it leaves on, towards the switch of the packet's destination, choosing among equal-cost
 * links by a hash of the packet's flow (ECMP per flow: every packet of a flow takes the same
 * path, so TCP is not reordered). Pure functions of the cluster: no state, no I/O.
 */
#ifndef WS_CLUSTER_TOPO_H
#define WS_CLUSTER_TOPO_H

#include <stdint.h>

#include "cluster.h"

/* The switches, the links between them and the oversubscription of c->topo, from its kind and
 * sizes (called by the parser once the [topology] is read). */
void ws_topo_derive(ws_cluster_topo *t);

/* The name of switch s (0 .. switches-1). */
void ws_topo_switch_name(const ws_cluster *c, unsigned s, char out[WS_CLUSTER_NAME]);

/* The switch host h hangs off. */
unsigned ws_topo_host_switch(const ws_cluster *c, unsigned h);

/* Nodes: hosts, devices, switches. */
unsigned ws_topo_nodes(const ws_cluster *c);
static inline unsigned ws_topo_switch_node(const ws_cluster *c, unsigned s)
{
    return c->topo.hosts + c->n_dev + s;
}

/* Links: hosts' (link h), devices' first ports' (link H + d), uplinks (H + D + u, u <
 * topo.uplinks), then the devices' other ports' (device by device, port by port: from
 * dev[d].port_link). A device's address is its first port's link's: one address whatever the
 * port. */
unsigned ws_topo_links(const ws_cluster *c);

/* The link of port `port` of device d (port < dev[d].ports). */
static inline unsigned ws_topo_dev_link(const ws_cluster *c, unsigned d, unsigned port)
{
    return port ? c->dev[d].port_link + port - 1 : c->topo.hosts + d;
}

/* Link l: its lower node a (a host, a device, or the lower switch), its upper node b (a switch)
 * and its rate and delay. */
void ws_topo_link(const ws_cluster *c, unsigned l, unsigned *a, unsigned *b,
                  ws_cluster_link *props);

/* The link switch s sends a packet for node dst on (dst a host or a device), the equal-cost
 * choices made by flow, a hash of the packet's flow (the same for every packet of it). For a
 * device on s, its first port's link: the caller picks the port (the source's, ns-3 layer). */
unsigned ws_topo_route(const ws_cluster *c, unsigned s, unsigned dst, uint64_t flow);

#endif
