/* trace.h - pcap I/O of a trace directory (docs/traces.md), with libpcap.
 *
 * Owns: reading <prefix><P>.pcap for every port as one stream in global order
 * (timestamp, then lower port, then file order) and writing one
 * <prefix><P>.pcap per port. Errors name the file and the frame number.
 */
#ifndef WS_TRACE_H
#define WS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define WS_MAX_FRAME 262144 /* the largest frame a trace may hold: libpcap's largest snapshot
                             * length (host captures with segmentation offload hold frames
                             * above 64 KiB; the device drops those above its max_frame) */

typedef struct {
    unsigned port;    /* the file it came from */
    uint64_t index;   /* 1-based frame number within that file */
    uint64_t ts_ns;   /* timestamp in nanoseconds */
    const uint8_t *data; /* valid until the next call */
    size_t len;
} ws_pkt;

typedef struct ws_trace_in ws_trace_in;

/* Open DIR/<prefix>0.pcap .. DIR/<prefix>(n_ports-1).pcap. A missing file is
 * a port without frames; a file with another link type, a frame captured
 * shorter than its length, or a frame longer than WS_MAX_FRAME is an error.
 * With require_any, it is an error that no file exists at all. A file
 * <prefix>P.pcap with P >= n_ports is an error too. */
ws_trace_in *ws_trace_open(const char *dir, const char *prefix, unsigned n_ports, int require_any,
                           char *err, size_t errlen);
/* Next frame in global order: 1 and *pkt filled, 0 at the end, -1 on error. */
int ws_trace_next(ws_trace_in *t, ws_pkt *pkt, char *err, size_t errlen);
void ws_trace_close(ws_trace_in *t);

typedef struct ws_trace_out ws_trace_out;

/* Create DIR/<prefix>P.pcap for every port (Ethernet, snaplen 65535),
 * microsecond (nano = 0) or nanosecond (nano = 1) timestamps. */
ws_trace_out *ws_trace_create(const char *dir, const char *prefix, unsigned n_ports, int nano,
                              char *err, size_t errlen);
int ws_trace_write(ws_trace_out *t, unsigned port, uint64_t ts_ns, const uint8_t *f, size_t len,
                   char *err, size_t errlen);
/* Let ws_trace_finish remove the files no frame was written to (files of frames found, such
 * as sim's mismatch-*<P>.pcap: an empty one would only be opened for nothing). NULL is fine. */
void ws_trace_drop_empty(ws_trace_out *t);
/* Flush and close every file; returns -1 if a write failed. NULL is fine. */
int ws_trace_finish(ws_trace_out *t, char *err, size_t errlen);

/* Whether name is a file the tools write in a trace directory (the table of docs/traces.md):
 * job.ini, in<P>.pcap, sum-*.f32, expected<P>.pcap, out<P>.pcap, mismatch-*<P>.pcap,
 * mismatch.fst, counters.txt. */
int ws_trace_is_own_file(const char *name);
/* Remove every such file of DIR (a new trace is about to be written there), nothing else;
 * the number removed into *removed. 0, or -1 and err naming the file. */
int ws_trace_clear(const char *dir, unsigned *removed, char *err, size_t errlen);
/* Whether the outputs DIR/<prefix>P.pcap are older than the inputs they come from (job.ini or
 * any in<P>.pcap, by modification time): 1 and why (naming both files), 0 when not (or when
 * there is no such output), -1 on error. */
int ws_trace_stale(const char *dir, const char *prefix, char *why, size_t whylen);

#endif
