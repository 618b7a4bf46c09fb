/* cdev.h - a wiresum device in the cluster simulation (docs/cluster.md, "The device").
 *
 * Owns: the software reference of the device (sim/wiresum/refdev.h: exact sums, every rule) behind the
 * timing model taken from the RTL (docs/architecture.md section 9) and its measured figures: a
 * finite ingress buffer in bytes (frames waiting or in service, every port's; a frame that does
 * not fit is dropped and counted), per port a receive stage that stores a frame at a beat a
 * cycle, per engine (serving an equal group of the ports) a stage that takes it for beats /
 * beats_per_cycle / f_clk with beats = ceil(frame bytes / (DATA_WIDTH / 8)), the fixed latency
 * of idle_latency cycles from the end of the engines' service to its RESULTs, and per engine a
 * result generator sending them one after the other, a beat a cycle, each out of its member's
 * port. Or, model = rtl, the Verilator model of the RTL (wiresum/session.h)
 * on the simulation's time line at f_clk: clocked cycle by cycle while it has work, its idle
 * stretches skipped (ws_session_line_*); a frame enters its port 0 at the first cycle edge after
 * it arrived, one beat a cycle as the RTL's tready lets it, waiting in front of it in a queue of
 * ingress_buffer bytes (a frame that does not fit is dropped); what it sends leaves at the cycle
 * of its last beat. Also the frames as the network carries them: the ns-3 layer moves
 * the UDP payload of a frame (from its aggregation header on) in a real UDP/IPv4 packet, and
 * ws_cdev_frame() rebuilds the Ethernet, IPv4 and UDP headers at the receiving end from the
 * packet's addresses, ports, TOS and TTL. No I/O; times in picoseconds.
 */
#ifndef WS_CLUSTER_DEV_H
#define WS_CLUSTER_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "wiresum/config.h"
#include "wiresum/counters.h"

#define WS_CLUSTER_NEVER UINT64_MAX

/* A frame of wire protocol v2 around a UDP payload of plen bytes: Ethernet (dmac, smac), IPv4
 * (tos, ttl, DF, id 0, sip -> dip, its checksum) and UDP (sport -> dport), into f (room for 42 +
 * plen bytes). Returns the frame's length. The UDP checksum is computed if udp_checksum, else 0
 * (RFC 768: none, which a device accepts, docs/protocol.md section 4): a checksum computed over
 * bytes the simulation carried unchanged can only be right, so a frame rebuilt for a device
 * goes without (two passes over its payload fewer: computed, then verified); a worker takes only
 * RESULTs with one. */
size_t ws_cdev_frame(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6], uint32_t sip,
                        uint32_t dip, uint16_t sport, uint16_t dport, uint8_t tos, uint8_t ttl,
                        const uint8_t *payload, size_t plen, int udp_checksum);

typedef struct ws_cdev ws_cdev;

typedef struct {
    uint64_t rx_frames, rx_bytes;     /* frames that reached the device (bytes: frame lengths) */
    uint64_t drop_frames, drop_bytes; /* of those, dropped: the ingress buffer was full */
    uint64_t served_frames;           /* through the reference */
    uint64_t tx_frames, tx_bytes;     /* frames the reference sent */
    uint64_t max_queued;              /* most bytes in the ingress buffer at once */
    uint64_t ce_marks;                /* frames marked CE on arrival (ecn_bytes in the buffer) */
    unsigned ports, engines;          /* the arrays below: ports, engines entries */
    /* per port: frames and bytes in (those dropped included) and out; the time its receive
     * stage stored frames and its egress sent them; per engine the time it served frames */
    uint64_t port_rx_frames[WS_LIMIT_PORTS], port_rx_bytes[WS_LIMIT_PORTS];
    uint64_t port_tx_frames[WS_LIMIT_PORTS], port_tx_bytes[WS_LIMIT_PORTS];
    uint64_t port_busy_ps[WS_LIMIT_PORTS], egress_busy_ps[WS_LIMIT_PORTS];
    uint64_t engine_busy_ps[WS_LIMIT_PORTS];
} ws_cdev_stats;

/* The busiest port's receive stage, engine and port's egress of s, in picoseconds. */
uint64_t ws_cdev_port_busy(const ws_cdev_stats *s);
uint64_t ws_cdev_engine_busy(const ws_cdev_stats *s);
uint64_t ws_cdev_egress_busy(const ws_cdev_stats *s);

/* Called for every frame the device sends, with the time it leaves (the end of the fixed
 * latency and of its turn at the result generator and its port's egress) and the port it
 * leaves on (the reference's egress); the frame is valid during the call only. */
typedef void (*ws_cdev_emit_fn)(void *ctx, uint64_t at_ps, unsigned port, const uint8_t *frame,
                                size_t len);

/* A device with the build and timing of p, configured with cfg (n_ports = p->ports: its links,
 * each member and its parent on one). NULL with err on a bad configuration or without memory. */
ws_cdev *ws_cdev_new(const ws_cluster_dev *p, const ws_config *cfg, char *err, size_t errlen);
void ws_cdev_free(ws_cdev *d);

/* The port of the member or parent at IPv4 address ip: the port its frames come in on and the
 * device's go out of (its configuration's); 0 for an address it does not know. */
unsigned ws_cdev_port_of(const ws_cdev *d, uint32_t ip);

/* The UDP payload of a packet that reached port `port` of the device at now (its last bit),
 * with the packet's addresses: the frame rebuilt (the source MAC is the member's of that IP,
 * the device's own table; zeros for an unknown address, which the reference then drops as
 * spoofed) and queued, or dropped if the ingress buffer cannot hold it.
 * The timing model's stages serve frames in the order they come (a port in arrival order, an
 * engine in the order its ports' frames are judged), so the end of a frame's service is known
 * when it is judged (the frames ahead of it and the stages' rates): the reference takes the
 * frame then, and its frames are emitted (emit) with the times they leave, which are the same as
 * if it were taken when its service ends; the frame keeps its place in the buffer until then.
 * A frame is judged when its port has stored it, in that order across ports (the RTL's judge):
 * with one port that is the arrival order, so the frame is judged at once and the call returns
 * WS_CLUSTER_NEVER; with several it returns that time, when ws_cdev_service() must be called
 * to judge it. The RTL (model rtl) queues the frame in front of the model and returns the time
 * ws_cdev_service() must next be called, or WS_CLUSTER_NEVER when a call is scheduled already. */
uint64_t ws_cdev_arrive(ws_cdev *d, uint64_t now, unsigned port, uint32_t sip, uint16_t sport,
                        uint32_t dip, uint16_t dport, uint8_t tos, uint8_t ttl,
                        const uint8_t *payload, size_t plen, ws_cdev_emit_fn emit, void *ctx);

/* The timing model: the frames whose ports have stored them by now judged, what they send
 * emitted; returns WS_CLUSTER_NEVER (every frame not yet judged has its own call). The RTL: its
 * next cycle to clock is now: the model clocked, its frames emitted; returns when to call again,
 * or WS_CLUSTER_NEVER while it has nothing to do. */
uint64_t ws_cdev_service(ws_cdev *d, uint64_t now, ws_cdev_emit_fn emit, void *ctx);

/* An engine's service time of a frame of len bytes, in picoseconds. */
uint64_t ws_cdev_service_ps(const ws_cluster_dev *p, size_t len);

const ws_cdev_stats *ws_cdev_get_stats(const ws_cdev *d);
/* The device's counters (the RTL's read through its registers, which clocks it: at the end of
 * a run). NULL and err if the registers cannot be read. */
const ws_counters *ws_cdev_counters(ws_cdev *d, char *err, size_t errlen);
/* The RTL model's first error (a protocol error, $stop, a refused push), or NULL. */
const char *ws_cdev_error(const ws_cdev *d);

#endif
