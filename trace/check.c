/* check.c - reassemble RESULTs per member and compare with the exact sums. */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wiresum/config.h"
#include "trace.h"
#include "wiresum/wire.h"
#include "ws_grow.h"

#define MAX_REPORTS 20

typedef struct {
    uint16_t job;
    uint32_t tensor;
    uint64_t n;       /* elements */
    uint32_t *sum;    /* expected bits */
    uint8_t *seen;    /* n x workers bits: element delivered to rank */
    unsigned workers;
} tensor_t;

typedef struct {
    const char *dir, *prefix;
    ws_config cfg;
    tensor_t *t;
    size_t nt, tcap;
    ws_check_stats *st;
    FILE *log;
} checker;

static int problem(checker *c, const ws_pkt *p, const char *fmt, ...)
{
    c->st->problems++;
    if (c->st->problems > MAX_REPORTS)
        return 1;
    va_list ap;
    va_start(ap, fmt);
    if (p)
        fprintf(c->log, "%s/%s%u.pcap: frame %llu: ", c->dir, c->prefix, p->port,
                (unsigned long long)p->index);
    vfprintf(c->log, fmt, ap);
    fputc('\n', c->log);
    va_end(ap);
    return 1;
}

static int load_sums(checker *c, char *err, size_t errlen)
{
    DIR *d = opendir(c->dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", c->dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        unsigned job, tensor;
        int end = 0;
        if (sscanf(e->d_name, "sum-%u-%u.f32%n", &job, &tensor, &end) != 2 ||
            e->d_name[end] != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name);
        const ws_job *jb = job <= 0xffff ? ws_config_find_job(&c->cfg, (uint16_t)job) : NULL;
        if (!jb) {
            snprintf(err, errlen, "%s: job %u is not in job.ini", path, job);
            rc = -1;
            break;
        }
        FILE *f = fopen(path, "rb");
        struct stat sb;
        if (!f || fstat(fileno(f), &sb) != 0 || sb.st_size % 4 != 0 || sb.st_size == 0) {
            snprintf(err, errlen, "%s: %s", path,
                     f ? "size is not a positive multiple of 4 bytes" : strerror(errno));
            if (f)
                fclose(f);
            rc = -1;
            break;
        }
        tensor_t *nt = ws_grow(c->t, &c->tcap, c->nt + 1, sizeof *nt, 8);
        if (!nt) {
            fclose(f);
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        c->t = nt;
        tensor_t *t = &c->t[c->nt++];
        t->job = (uint16_t)job;
        t->tensor = tensor;
        t->n = (uint64_t)sb.st_size / 4;
        t->workers = jb->workers;
        t->sum = malloc(t->n * 4);
        t->seen = calloc((t->n * t->workers + 7) / 8, 1);
        if (!t->sum || !t->seen || fread(t->sum, 4, t->n, f) != t->n) {
            snprintf(err, errlen, "%s: cannot read", path);
            rc = -1;
        }
        fclose(f);
        for (uint64_t i = 0; rc == 0 && i < t->n; i++)
            t->sum[i] = ws_get32((const uint8_t *)&t->sum[i]);
    }
    closedir(d);
    if (rc == 0 && c->nt == 0) {
        snprintf(err, errlen, "%s: no sum-<job>-<tensor>.f32 files (written by wiresum gen)",
                 c->dir);
        rc = -1;
    }
    return rc;
}

static tensor_t *find_tensor(checker *c, uint16_t job, uint32_t tensor)
{
    for (size_t i = 0; i < c->nt; i++)
        if (c->t[i].job == job && c->t[i].tensor == tensor)
            return &c->t[i];
    return NULL;
}

/* Returns 0 when the frame is right, 1 after reporting what is wrong. */
static int check_result(checker *c, const ws_pkt *p)
{
    const uint8_t *f = p->data;
    ws_hdr h;
    ws_parse(f, &h);
    c->st->results++;
    if (h.flags & WS_FLAG_RETX)
        c->st->resends++;
    if (p->len != ws_frame_len(h.count) || ws_get16(f + WS_OFF_IP + 2) != p->len - WS_ETH_LEN ||
        ws_get16(f + WS_OFF_UDP + 4) != p->len - WS_OFF_UDP)
        return problem(c, p, "RESULT lengths inconsistent (frame %zu, count %u)", p->len, h.count);
    if (ws_get16(f + WS_OFF_IP + 10) != ws_ipv4_checksum(f + WS_OFF_IP, WS_IPV4_LEN))
        return problem(c, p, "RESULT IPv4 header checksum wrong");
    uint16_t uc = ws_get16(f + WS_OFF_UDP + 6);
    if (uc == 0 || uc != ws_udp_checksum(h.src_ip, h.dst_ip, f + WS_OFF_UDP, p->len - WS_OFF_UDP))
        return problem(c, p, "RESULT UDP checksum 0x%04x wrong or zero", uc);
    if (h.dtype != WS_DTYPE_F32 || (h.flags & WS_FLAGS_RESERVED) || f[WS_OFF_AGG + 3] ||
        ws_get16(f + WS_OFF_AGG + 20))
        return problem(c, p, "RESULT header has reserved bits or dtype set");
    const ws_job *jb = ws_config_find_job(&c->cfg, h.job);
    if (!jb || h.worker >= jb->workers)
        return problem(c, p, "RESULT for job %u rank %u, not a member", h.job, h.worker);
    const ws_member *m = &jb->member[h.worker];
    if (memcmp(h.dst_mac, m->mac, 6) || h.dst_ip != m->ip || h.dst_port != m->udp_port ||
        memcmp(h.src_mac, c->cfg.mac, 6))
        return problem(c, p, "RESULT for job %u rank %u not addressed from the device to the member",
                       h.job, h.worker);
    if (p->port != m->port)
        return problem(c, p, "RESULT for job %u rank %u left on port %u, member is on port %u",
                       h.job, h.worker, p->port, m->port);
    tensor_t *t = find_tensor(c, h.job, h.tensor);
    if (!t)
        return problem(c, p, "RESULT for job %u tensor 0x%08x: no sum file", h.job, h.tensor);
    if ((uint64_t)h.offset + h.count > t->n)
        return problem(c, p, "RESULT elements %u..%u beyond tensor size %llu", h.offset,
                       h.offset + h.count - 1, (unsigned long long)t->n);
    int bad = 0;
    for (unsigned i = 0; i < h.count; i++) {
        uint64_t e = (uint64_t)h.offset + i;
        uint32_t got = ws_elem(f, i);
        if (got != t->sum[e]) {
            bad = problem(c, p, "job %u tensor 0x%08x rank %u element %llu: expected 0x%08x, got 0x%08x",
                    h.job, h.tensor, h.worker, (unsigned long long)e, t->sum[e], got);
            continue;
        }
        uint64_t bit = e * t->workers + h.worker;
        t->seen[bit / 8] |= (uint8_t)(1u << bit % 8);
    }
    return bad;
}

int ws_check(const char *dir, const char *prefix, ws_check_stats *st, FILE *log, char *err,
             size_t errlen)
{
    checker c = {.dir = dir, .prefix = prefix, .st = st, .log = log};
    memset(st, 0, sizeof *st);
    char path[4096];
    snprintf(path, sizeof path, "%s/job.ini", dir);
    int rc = ws_config_load(&c.cfg, path, err, errlen) == 0 ? load_sums(&c, err, errlen) : -1;
    char why[600];
    int stale = rc == 0 ? ws_trace_stale(dir, prefix, why, sizeof why) : 0;
    if (stale) {
        if (stale > 0)
            snprintf(err, errlen, "%s: the %s<P>.pcap files are not made from these inputs "
                     "(run wiresum %s %s again)", why, prefix,
                     strcmp(prefix, "out") ? "ref" : "sim", dir);
        else
            snprintf(err, errlen, "%s", why);
        rc = -1;
    }
    ws_trace_in *in = rc == 0 ? ws_trace_open(dir, prefix, c.cfg.n_ports, 1, err, errlen) : NULL;
    if (!in)
        rc = -1;
    ws_pkt p;
    int r = 0;
    while (rc == 0 && (r = ws_trace_next(in, &p, err, errlen)) == 1) {
        if (ws_is_result(p.data, p.len, c.cfg.ip, c.cfg.udp_port))
            check_result(&c, &p);
        else
            st->other++;
    }
    if (r < 0)
        rc = -1;
    ws_trace_close(in);
    if (rc == 0) {
        st->tensors = c.nt;
        for (size_t i = 0; i < c.nt; i++) {
            tensor_t *t = &c.t[i];
            for (unsigned w = 0; w < t->workers; w++) {
                uint64_t missing = 0, first = 0;
                for (uint64_t e = t->n; e-- > 0;) {
                    uint64_t bit = e * t->workers + w;
                    if (!(t->seen[bit / 8] >> bit % 8 & 1))
                        missing++, first = e;
                }
                if (missing)
                    problem(&c, NULL, "job %u tensor 0x%08x rank %u: %llu of %llu elements never "
                            "received correctly (first: %llu)", t->job, t->tensor, w,
                            (unsigned long long)missing, (unsigned long long)t->n,
                            (unsigned long long)first);
            }
        }
        if (st->problems > MAX_REPORTS)
            fprintf(log, "... %llu problems in all\n", (unsigned long long)st->problems);
        rc = st->problems ? 1 : 0;
    }
    for (size_t i = 0; i < c.nt; i++) {
        free(c.t[i].sum);
        free(c.t[i].seen);
    }
    free(c.t);
    return rc;
}
