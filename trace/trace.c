/* trace.c - read a trace directory of per-port pcap files in global order, and write one. */
#include "trace.h"
#include "ws_err.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_SEC UINT64_C(1000000000)
#define MSG_LEN 1024 /* stored copy of the first error */

/* ------------------------------------------------------------------------ */
/* shared helpers */

/* DIR/<prefix><port>.pcap, or DIR/<name> when name is given; malloc'd. */
static char *make_path(const char *dir, const char *prefix, unsigned port, const char *name)
{
    size_t dl = strlen(dir);
    const char *sep = (dl == 0 || dir[dl - 1] == '/') ? "" : "/";
    int n = name ? snprintf(NULL, 0, "%s%s%s", dir, sep, name)
                 : snprintf(NULL, 0, "%s%s%s%u.pcap", dir, sep, prefix, port);
    if (n < 0)
        return NULL;
    char *p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    if (name)
        snprintf(p, (size_t)n + 1, "%s%s%s", dir, sep, name);
    else
        snprintf(p, (size_t)n + 1, "%s%s%s%u.pcap", dir, sep, prefix, port);
    return p;
}

/* ------------------------------------------------------------------------ */
/* reading */

typedef struct {
    pcap_t *pc;     /* NULL: no file, or already at its end (and closed) */
    char *path;
    uint8_t *buf;   /* WS_MAX_FRAME bytes holding the lookahead frame */
    size_t len;
    uint64_t ts_ns;
    uint64_t count; /* frames read from the file so far (the lookahead's number) */
    int have;       /* buf holds a frame not yet handed out */
} in_port;

struct ws_trace_in {
    unsigned n_ports;
    in_port *port;
    int primed;     /* every file's first frame has been read */
    unsigned held;  /* port whose buffer the caller holds, or n_ports for none */
    int failed;
    char msg[MSG_LEN];
};

static int in_fail(ws_trace_in *t, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the error (later calls repeat it), copies it to err, returns -1. */
static int in_fail(ws_trace_in *t, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    t->failed = 1;
    ws_errf(err, errlen, "%s", t->msg);
    return -1;
}

/* Reads the next frame of port p into its buffer: 1, 0 at the end, -1 on error. */
static int in_fill(ws_trace_in *t, unsigned p, char *err, size_t errlen)
{
    in_port *ip = &t->port[p];
    struct pcap_pkthdr *h;
    const u_char *d;
    uint64_t n = ip->count + 1;

    ip->have = 0;
    if (!ip->pc)
        return 0;
    int rc = pcap_next_ex(ip->pc, &h, &d);
    if (rc == PCAP_ERROR_BREAK) { /* end of the file */
        pcap_close(ip->pc);
        ip->pc = NULL;
        return 0;
    }
    if (rc != 1)
        return in_fail(t, err, errlen, "%s: frame %" PRIu64 ": %s", ip->path, n,
                       rc == 0 ? "no frame returned" : pcap_geterr(ip->pc));
    if (h->len > WS_MAX_FRAME)
        return in_fail(t, err, errlen, "%s: frame %" PRIu64 ": length %u above %u", ip->path, n,
                       (unsigned)h->len, (unsigned)WS_MAX_FRAME);
    if (h->caplen < h->len)
        return in_fail(t, err, errlen, "%s: frame %" PRIu64 ": captured %u of %u bytes (truncated capture)",
                       ip->path, n, (unsigned)h->caplen, (unsigned)h->len);
    if (h->caplen > h->len)
        return in_fail(t, err, errlen, "%s: frame %" PRIu64 ": captured %u bytes but its length is %u",
                       ip->path, n, (unsigned)h->caplen, (unsigned)h->len);
    /* libpcap reads the unsigned 32-bit seconds of a classic pcap as signed:
     * a negative value stands for 2^31 .. 2^32-1 */
    int64_t sec = (int64_t)h->ts.tv_sec;
    if (sec < 0 && sec >= INT32_MIN)
        sec += INT64_C(1) << 32;
    if (sec < 0 || (uint64_t)sec >= UINT64_MAX / NS_PER_SEC - 1 || h->ts.tv_usec < 0 ||
        (uint64_t)h->ts.tv_usec >= NS_PER_SEC)
        return in_fail(t, err, errlen, "%s: frame %" PRIu64 ": bad timestamp", ip->path, n);

    if (h->caplen > 0)
        memcpy(ip->buf, d, h->caplen);
    ip->len = h->caplen;
    /* opened with nanosecond precision: tv_usec holds nanoseconds */
    ip->ts_ns = (uint64_t)sec * NS_PER_SEC + (uint64_t)h->ts.tv_usec;
    ip->count = n;
    ip->have = 1;
    return 1;
}

/* Checks DIR for <prefix><digits>.pcap names that are not ports of the device:
 * 0 when all are fine, -1 with err set otherwise (the first bad name by strcmp). */
static int scan_dir(const char *dir, const char *prefix, unsigned n_ports, char *err, size_t errlen)
{
    DIR *dp = opendir(dir[0] ? dir : ".");
    if (!dp) {
        int e = errno;
        ws_errf(err, errlen, "%s: cannot read the trace directory: %s", dir, strerror(e));
        return -1;
    }
    size_t plen = strlen(prefix);
    char bad[NAME_MAX + 1] = "";
    uint64_t bad_port = 0;
    int bad_zero = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(dp)) != NULL) {
        const char *name = de->d_name;
        if (strncmp(name, prefix, plen) != 0)
            continue;
        const char *dig = name + plen, *q = dig;
        uint64_t v = 0;
        while (*q >= '0' && *q <= '9') {
            if (v <= UINT32_MAX) /* saturate: anything this large is out of range */
                v = v * 10 + (uint64_t)(*q - '0');
            q++;
        }
        if (q == dig || strcmp(q, ".pcap") != 0)
            continue; /* not <prefix><digits>.pcap */
        int zero = dig[0] == '0' && q - dig > 1;
        if (!zero && v < n_ports)
            continue;
        if (bad[0] == '\0' || strcmp(name, bad) < 0) {
            snprintf(bad, sizeof bad, "%s", name);
            bad_port = v;
            bad_zero = zero;
        }
        errno = 0;
    }
    int e = errno;
    closedir(dp);
    if (e) {
        ws_errf(err, errlen, "%s: cannot read the trace directory: %s", dir, strerror(e));
        return -1;
    }
    if (bad[0] == '\0')
        return 0;
    char *path = make_path(dir, prefix, 0, bad);
    const char *shown = path ? path : bad;
    if (bad_zero)
        ws_errf(err, errlen, "%s: port number with a leading zero (expected %s%" PRIu64 ".pcap)", shown,
                prefix, bad_port);
    else if (bad_port > UINT32_MAX)
        ws_errf(err, errlen, "%s: port number too large; the device has %u port%s", shown, n_ports,
                n_ports == 1 ? "" : "s");
    else
        ws_errf(err, errlen, "%s: port %" PRIu64 " but the device has %u port%s", shown, bad_port,
                n_ports, n_ports == 1 ? "" : "s");
    free(path);
    return -1;
}

ws_trace_in *ws_trace_open(const char *dir, const char *prefix, unsigned n_ports, int require_any,
                           char *err, size_t errlen)
{
    if (!dir || !prefix) {
        ws_errf(err, errlen, "ws_trace_open: no directory or prefix");
        return NULL;
    }
    if (scan_dir(dir, prefix, n_ports, err, errlen) < 0)
        return NULL;

    ws_trace_in *t = calloc(1, sizeof *t);
    if (!t) {
        ws_errf(err, errlen, "%s: out of memory", dir);
        return NULL;
    }
    t->n_ports = n_ports;
    t->held = n_ports;
    t->port = calloc(n_ports ? n_ports : 1, sizeof *t->port);
    if (!t->port) {
        ws_errf(err, errlen, "%s: out of memory", dir);
        goto fail;
    }

    unsigned found = 0;
    for (unsigned p = 0; p < n_ports; p++) {
        in_port *ip = &t->port[p];
        ip->path = make_path(dir, prefix, p, NULL);
        if (!ip->path) {
            ws_errf(err, errlen, "%s: out of memory", dir);
            goto fail;
        }
        /* fopen ourselves so that only a missing file means "no frames" */
        FILE *fp = fopen(ip->path, "rb");
        if (!fp) {
            int e = errno;
            if (e == ENOENT)
                continue;
            ws_errf(err, errlen, "%s: %s", ip->path, strerror(e));
            goto fail;
        }
        char ebuf[PCAP_ERRBUF_SIZE] = "";
        ip->pc = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, ebuf);
        if (!ip->pc) {
            fclose(fp);
            ws_errf(err, errlen, "%s: %s", ip->path, ebuf);
            goto fail;
        }
        int dlt = pcap_datalink(ip->pc);
        if (dlt != DLT_EN10MB) {
            const char *nm = pcap_datalink_val_to_name(dlt);
            if (nm)
                ws_errf(err, errlen, "%s: link type %s is not Ethernet (DLT_EN10MB)", ip->path, nm);
            else
                ws_errf(err, errlen, "%s: link type %d is not Ethernet (DLT_EN10MB)", ip->path, dlt);
            goto fail;
        }
        ip->buf = malloc(WS_MAX_FRAME);
        if (!ip->buf) {
            ws_errf(err, errlen, "%s: out of memory", ip->path);
            goto fail;
        }
        found++;
    }
    if (require_any && found == 0) {
        ws_errf(err, errlen, "%s: no %sP.pcap files", dir, prefix);
        goto fail;
    }
    return t;

fail:
    ws_trace_close(t);
    return NULL;
}

int ws_trace_next(ws_trace_in *t, ws_pkt *pkt, char *err, size_t errlen)
{
    if (!t || !pkt) {
        ws_errf(err, errlen, "ws_trace_next: no trace or packet");
        return -1;
    }
    if (t->failed) {
        ws_errf(err, errlen, "%s", t->msg);
        return -1;
    }
    if (!t->primed) {
        for (unsigned p = 0; p < t->n_ports; p++)
            if (in_fill(t, p, err, errlen) < 0)
                return -1;
        t->primed = 1;
    } else if (t->held < t->n_ports) {
        unsigned p = t->held;
        t->held = t->n_ports;
        if (in_fill(t, p, err, errlen) < 0)
            return -1;
    }

    /* smallest (timestamp, port); a strict < keeps the lower port on ties */
    unsigned best = t->n_ports;
    for (unsigned p = 0; p < t->n_ports; p++) {
        const in_port *ip = &t->port[p];
        if (ip->have && (best == t->n_ports || ip->ts_ns < t->port[best].ts_ns))
            best = p;
    }
    if (best == t->n_ports)
        return 0;

    in_port *ip = &t->port[best];
    ip->have = 0;
    t->held = best; /* refilled on the next call, so pkt->data stays valid until then */
    pkt->port = best;
    pkt->index = ip->count;
    pkt->ts_ns = ip->ts_ns;
    pkt->data = ip->buf;
    pkt->len = ip->len;
    return 1;
}

void ws_trace_close(ws_trace_in *t)
{
    if (!t)
        return;
    if (t->port) {
        for (unsigned p = 0; p < t->n_ports; p++) {
            in_port *ip = &t->port[p];
            if (ip->pc)
                pcap_close(ip->pc);
            free(ip->buf);
            free(ip->path);
        }
        free(t->port);
    }
    free(t);
}

/* ------------------------------------------------------------------------ */
/* writing */

typedef struct {
    pcap_dumper_t *d;
    char *path;
    uint64_t count; /* frames written */
} out_port;

struct ws_trace_out {
    pcap_t *dead; /* Ethernet, snaplen WS_MAX_FRAME, the chosen precision */
    unsigned n_ports;
    int nano;
    out_port *port;
    int failed;
    int drop_empty; /* ws_trace_drop_empty */
    char msg[MSG_LEN];
};

static int out_fail(ws_trace_out *t, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the first error (finish reports it again), copies it to err, returns -1. */
static int out_fail(ws_trace_out *t, char *err, size_t errlen, const char *fmt, ...)
{
    if (!t->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->msg, sizeof t->msg, fmt, ap);
        va_end(ap);
        t->failed = 1;
    }
    ws_errf(err, errlen, "%s", t->msg);
    return -1;
}

ws_trace_out *ws_trace_create(const char *dir, const char *prefix, unsigned n_ports, int nano,
                              char *err, size_t errlen)
{
    if (!dir || !prefix) {
        ws_errf(err, errlen, "ws_trace_create: no directory or prefix");
        return NULL;
    }
    ws_trace_out *t = calloc(1, sizeof *t);
    if (!t) {
        ws_errf(err, errlen, "%s: out of memory", dir);
        return NULL;
    }
    t->n_ports = n_ports;
    t->nano = nano ? 1 : 0;
    t->port = calloc(n_ports ? n_ports : 1, sizeof *t->port);
    t->dead = pcap_open_dead_with_tstamp_precision(
        DLT_EN10MB, WS_MAX_FRAME, nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
    if (!t->port || !t->dead) {
        ws_errf(err, errlen, "%s: out of memory", dir);
        goto fail;
    }
    for (unsigned p = 0; p < n_ports; p++) {
        out_port *op = &t->port[p];
        op->path = make_path(dir, prefix, p, NULL);
        if (!op->path) {
            ws_errf(err, errlen, "%s: out of memory", dir);
            goto fail;
        }
        op->d = pcap_dump_open(t->dead, op->path);
        if (!op->d) {
            const char *m = pcap_geterr(t->dead);
            if (strstr(m, op->path)) /* libpcap's message already names the file */
                ws_errf(err, errlen, "cannot create %s", m);
            else
                ws_errf(err, errlen, "cannot create %s: %s", op->path, m);
            goto fail;
        }
    }
    return t;

fail:
    ws_trace_finish(t, NULL, 0);
    return NULL;
}

int ws_trace_write(ws_trace_out *t, unsigned port, uint64_t ts_ns, const uint8_t *f, size_t len,
                   char *err, size_t errlen)
{
    if (!t) {
        ws_errf(err, errlen, "ws_trace_write: no trace");
        return -1;
    }
    if (t->failed) {
        ws_errf(err, errlen, "%s", t->msg);
        return -1;
    }
    if (port >= t->n_ports) {
        ws_errf(err, errlen, "ws_trace_write: port %u but the trace has %u port%s", port, t->n_ports,
                t->n_ports == 1 ? "" : "s");
        return -1;
    }
    out_port *op = &t->port[port];
    uint64_t n = op->count + 1;
    if (len > WS_MAX_FRAME) {
        ws_errf(err, errlen, "%s: frame %" PRIu64 ": length %zu above %u", op->path, n, len,
                (unsigned)WS_MAX_FRAME);
        return -1;
    }
    if (!f && len > 0) {
        ws_errf(err, errlen, "%s: frame %" PRIu64 ": no data", op->path, n);
        return -1;
    }
    uint64_t sec = ts_ns / NS_PER_SEC, sub = ts_ns % NS_PER_SEC;
    if (sec > UINT32_MAX) { /* the classic pcap header has 32-bit seconds */
        ws_errf(err, errlen, "%s: frame %" PRIu64 ": timestamp %" PRIu64 " ns does not fit pcap",
                op->path, n, ts_ns);
        return -1;
    }
    struct pcap_pkthdr h;
    memset(&h, 0, sizeof h);
    h.ts.tv_sec = (time_t)sec;
    h.ts.tv_usec = (suseconds_t)(t->nano ? sub : sub / 1000);
    h.caplen = (bpf_u_int32)len;
    h.len = (bpf_u_int32)len;
    static const u_char empty[1] = {0};
    errno = 0;
    pcap_dump((u_char *)op->d, &h, len ? f : empty);
    if (ferror(pcap_dump_file(op->d))) {
        int e = errno;
        return out_fail(t, err, errlen, "%s: frame %" PRIu64 ": write failed: %s", op->path, n,
                        e ? strerror(e) : "I/O error");
    }
    op->count = n;
    return 0;
}

void ws_trace_drop_empty(ws_trace_out *t)
{
    if (t)
        t->drop_empty = 1;
}

int ws_trace_finish(ws_trace_out *t, char *err, size_t errlen)
{
    if (!t)
        return 0;
    if (t->port) {
        for (unsigned p = 0; p < t->n_ports; p++) {
            out_port *op = &t->port[p];
            if (op->d) {
                errno = 0;
                int bad = pcap_dump_flush(op->d) != 0 || ferror(pcap_dump_file(op->d));
                int e = errno;
                if (bad && !t->failed) {
                    snprintf(t->msg, sizeof t->msg, "%s: write failed: %s", op->path,
                             e ? strerror(e) : "I/O error");
                    t->failed = 1;
                }
                pcap_dump_close(op->d);
                if (t->drop_empty && op->count == 0)
                    unlink(op->path);
            }
            free(op->path);
        }
        free(t->port);
    }
    if (t->dead)
        pcap_close(t->dead);
    int rc = 0;
    if (t->failed) {
        ws_errf(err, errlen, "%s", t->msg);
        rc = -1;
    }
    free(t);
    return rc;
}

/* ---- the files of a trace directory ------------------------------------------------------ */

/* name is PREFIX, then one or more digits, then SUFFIX */
static int numbered(const char *name, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix), ls = strlen(suffix), n = strlen(name);
    if (n <= lp + ls || strncmp(name, prefix, lp) || strcmp(name + n - ls, suffix))
        return 0;
    for (size_t i = lp; i < n - ls; i++)
        if (name[i] < '0' || name[i] > '9')
            return 0;
    return 1;
}

int ws_trace_is_own_file(const char *name)
{
    static const char *const fixed[] = {"job.ini", "counters.txt", "mismatch.fst"};
    static const char *const pcaps[] = {"in", "expected", "out", "mismatch-expected",
                                        "mismatch-actual", "mismatch-extra"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(name, fixed[i]))
            return 1;
    for (size_t i = 0; i < sizeof pcaps / sizeof pcaps[0]; i++)
        if (numbered(name, pcaps[i], ".pcap"))
            return 1;
    size_t n = strlen(name);
    return n > 8 && !strncmp(name, "sum-", 4) && !strcmp(name + n - 4, ".f32");
}

int ws_trace_clear(const char *dir, unsigned *removed, char *err, size_t errlen)
{
    *removed = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (!ws_trace_is_own_file(e->d_name))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0) {
            snprintf(err, errlen, "%s: cannot remove the previous trace's file: %s", path,
                     strerror(errno));
            rc = -1;
        } else {
            (*removed)++;
        }
    }
    closedir(d);
    return rc;
}

static int mtime_of(const char *dir, const char *name, struct timespec *t)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    *t = st.st_mtim;
    return 1;
}

static int newer(struct timespec a, struct timespec b)
{
    return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

int ws_trace_stale(const char *dir, const char *prefix, char *why, size_t whylen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, whylen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    /* the newest input, and the oldest output */
    char in_name[256] = "", out_name[256] = "";
    struct timespec in_t = {0, 0}, out_t = {0, 0}, t;
    int have_in = 0, have_out = 0, rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int is_in = !strcmp(e->d_name, "job.ini") || numbered(e->d_name, "in", ".pcap");
        int is_out = numbered(e->d_name, prefix, ".pcap");
        if (!is_in && !is_out)
            continue;
        int m = mtime_of(dir, e->d_name, &t);
        if (m < 0) {
            snprintf(why, whylen, "%s/%s: %s", dir, e->d_name, strerror(errno));
            rc = -1;
            break;
        }
        if (m == 0)
            continue;
        if (is_in && (!have_in || newer(t, in_t))) {
            in_t = t, have_in = 1;
            snprintf(in_name, sizeof in_name, "%s", e->d_name);
        }
        if (is_out && (!have_out || newer(out_t, t))) {
            out_t = t, have_out = 1;
            snprintf(out_name, sizeof out_name, "%s", e->d_name);
        }
    }
    closedir(d);
    if (rc == 0 && have_in && have_out && newer(in_t, out_t)) {
        snprintf(why, whylen, "%s/%s is older than %s/%s", dir, out_name, dir, in_name);
        rc = 1;
    }
    return rc;
}
