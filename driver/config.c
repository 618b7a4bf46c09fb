/* config.c - job.ini parser (inih with a line-counting reader), checker and writer. */
#include "wiresum/config.h"
#include "wiresum/wire.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GNUC__
#define WS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define WS_PRINTF(f, a)
#endif

#define TOKEN_MAX 256 /* longer than any line inih accepts */

/* ------------------------------------------------------------------------ */
/* Error sink: keeps the first message only.                                 */

typedef struct {
    char *buf;
    size_t len;
    const char *name; /* file name, or NULL for in-memory checks */
    bool failed;
    unsigned line; /* line of the kept message, 0 when none */
} err_sink;

static int sink_vreport(err_sink *s, unsigned line, const char *fmt, va_list ap)
{
    int n = 0;

    if (s->failed)
        return -1;
    s->failed = true;
    s->line = line;
    if (s->buf == NULL || s->len == 0)
        return -1;
    s->buf[0] = '\0';
    if (s->name != NULL && line != 0)
        n = snprintf(s->buf, s->len, "%s:%u: ", s->name, line);
    else if (s->name != NULL)
        n = snprintf(s->buf, s->len, "%s: ", s->name);
    if (n < 0)
        n = 0;
    if ((size_t)n < s->len)
        vsnprintf(s->buf + n, s->len - (size_t)n, fmt, ap);
    return -1;
}

/* Record an error at line (0: none) unless one is already kept. Returns -1. */
WS_PRINTF(3, 4)
static int report(err_sink *s, unsigned line, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = sink_vreport(s, line, fmt, ap);
    va_end(ap);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Text helpers.                                                             */

static int hex_value(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static bool all_digits(const char *s, int base)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++) {
        int d = hex_value((unsigned char)*s);
        if (d < 0 || d >= base)
            return false;
    }
    return true;
}

/* Whole-string unsigned number without sign; overflow saturates to ULONG_MAX. */
static int parse_base(const char *s, int base, unsigned long *v)
{
    unsigned long x;

    if (!all_digits(s, base))
        return -1;
    errno = 0;
    x = strtoul(s, NULL, base);
    *v = errno == ERANGE ? ULONG_MAX : x;
    return 0;
}

static int parse_dec(const char *s, unsigned long *v)
{
    return parse_base(s, 10, v);
}

int ws_parse_mac(const char *s, uint8_t mac[6])
{
    uint8_t out[6];

    if (s == NULL || strlen(s) != 17)
        return -1;
    for (int i = 0; i < 6; i++) {
        const char *g = s + 3 * i;
        int hi = hex_value((unsigned char)g[0]);
        int lo = hex_value((unsigned char)g[1]);
        if (hi < 0 || lo < 0 || (i < 5 && g[2] != ':'))
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    memcpy(mac, out, sizeof(out));
    return 0;
}

/* One dotted-quad part: 1..3 digits, no leading zero, at most 255. */
static const char *ipv4_part(const char *s, uint32_t *part)
{
    unsigned v = 0;
    int n = 0;

    while (s[n] >= '0' && s[n] <= '9' && n < 4) {
        v = v * 10 + (unsigned)(s[n] - '0');
        n++;
    }
    if (n == 0 || n > 3 || v > 255 || (n > 1 && s[0] == '0'))
        return NULL;
    *part = v;
    return s + n;
}

int ws_parse_ipv4(const char *s, uint32_t *ip)
{
    uint32_t v = 0;

    if (s == NULL)
        return -1;
    for (int i = 0; i < 4; i++) {
        uint32_t part;
        s = ipv4_part(s, &part);
        if (s == NULL || *s != (i < 3 ? '.' : '\0'))
            return -1;
        s += i < 3;
        v = v << 8 | part;
    }
    *ip = v;
    return 0;
}

void ws_format_mac(const uint8_t mac[6], char out[18])
{
    static const char hex[] = "0123456789abcdef";

    for (int i = 0; i < 6; i++) {
        out[3 * i] = hex[mac[i] >> 4];
        out[3 * i + 1] = hex[mac[i] & 15];
        out[3 * i + 2] = i < 5 ? ':' : '\0';
    }
}

void ws_format_ipv4(uint32_t ip, char out[16])
{
    snprintf(out, 16, "%u.%u.%u.%u", (unsigned)(ip >> 24) & 255u, (unsigned)(ip >> 16) & 255u,
             (unsigned)(ip >> 8) & 255u, (unsigned)ip & 255u);
}

static bool mac_is_multicast(const uint8_t mac[6])
{
    return (mac[0] & 1) != 0;
}

/* Copy the next whitespace-separated token of *p into out; 0 when none left. */
static int next_token(const char **p, char out[TOKEN_MAX])
{
    const char *s = *p;
    size_t n = 0;

    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0')
        return 0;
    while (*s != '\0' && !isspace((unsigned char)*s)) {
        if (n + 1 < TOKEN_MAX)
            out[n++] = *s;
        s++;
    }
    out[n] = '\0';
    *p = s;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Defaults, lookup.                                                         */

static void set_build_defaults(ws_config *cfg)
{
    cfg->udp_port = WS_DEFAULT_UDP_PORT;
    cfg->max_jobs = WS_DEFAULT_MAX_JOBS;
    cfg->max_workers = WS_DEFAULT_MAX_WORKERS;
    cfg->pool_slots = WS_DEFAULT_POOL_SLOTS;
    cfg->max_count = WS_DEFAULT_MAX_COUNT;
}

unsigned ws_config_max_frame(const ws_config *cfg)
{
    return cfg->max_frame ? cfg->max_frame : WS_DEFAULT_MAX_FRAME;
}

void ws_config_default(ws_config *cfg)
{
    static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0xfe};

    memset(cfg, 0, sizeof(*cfg));
    set_build_defaults(cfg);
    memcpy(cfg->mac, mac, sizeof(mac));
    cfg->ip = 0x0a0000feu;
    cfg->n_ports = WS_DEFAULT_PORTS;
    for (unsigned p = 0; p < WS_DEFAULT_PORTS; p++)
        cfg->bypass[p] = (uint8_t)(p ^ 1u);
}

ws_job *ws_config_add_workload(ws_config *cfg, uint16_t id, unsigned n_ports, unsigned workers,
                               unsigned slots, unsigned count)
{
    if (cfg->n_jobs >= WS_LIMIT_JOBS || n_ports < 1 || n_ports > WS_LIMIT_PORTS ||
        workers > WS_LIMIT_WORKERS)
        return NULL;
    cfg->n_ports = n_ports;
    for (unsigned p = 0; p < n_ports; p++)
        cfg->bypass[p] = (uint8_t)((p ^ 1u) < n_ports ? p ^ 1u : p);
    /* after the slots of the job before it: a job's slots are its own */
    unsigned base = cfg->n_jobs ? cfg->job[cfg->n_jobs - 1].slot_base +
                                      cfg->job[cfg->n_jobs - 1].slots : 0;
    ws_job *jb = &cfg->job[cfg->n_jobs++];
    memset(jb, 0, sizeof *jb);
    jb->id = id;
    jb->enable = true;
    jb->workers = workers;
    jb->slots = slots;
    jb->slot_base = base;
    jb->max_count = count;
    for (unsigned w = 0; w < workers; w++) {
        ws_member *m = &jb->member[w];
        const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x01, (uint8_t)w};
        memcpy(m->mac, mac, sizeof mac);
        m->ip = 0x0a000100u | (w + 1);
        m->udp_port = 40000;
        m->port = (uint8_t)(w % n_ports);
    }
    return jb;
}

const ws_job *ws_config_find_job(const ws_config *cfg, uint16_t id)
{
    unsigned n = cfg->n_jobs < WS_LIMIT_JOBS ? cfg->n_jobs : WS_LIMIT_JOBS;

    for (unsigned j = 0; j < n; j++)
        if (cfg->job[j].id == id)
            return &cfg->job[j];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Line table: where each item was given (0 = not given / in memory).       */

enum dev_key {
    DK_MAC,
    DK_IP,
    DK_UDP_PORT,
    DK_BYPASS,
    DK_PORTS,
    DK_MAX_JOBS,
    DK_MAX_WORKERS,
    DK_POOL_SLOTS,
    DK_MAX_COUNT,
    DK_MAX_FRAME,
    DK_PARTIAL,
    DK_COUNT
};

enum job_key { JK_WORKERS, JK_SLOTS, JK_MAX_COUNT, JK_SLOT_BASE, JK_ENABLE, JK_PARENT, JK_COUNT };

static const char *const dev_key_name[DK_COUNT] = {
    "mac",      "ip",          "udp_port",   "bypass",    "ports",
    "max_jobs", "max_workers", "pool_slots", "max_count", "max_frame", "partial",
};

static const char *const job_key_name[JK_COUNT] = {
    "workers", "slots", "max_count", "slot_base", "enable", "parent",
};

typedef struct {
    unsigned section;
    unsigned key[JK_COUNT];
    unsigned member[WS_LIMIT_WORKERS];
} job_lines;

typedef struct {
    unsigned section;
    unsigned key[DK_COUNT];
    unsigned long ports; /* value of the ports key */
    job_lines job[WS_LIMIT_JOBS];
} cfg_lines;

static unsigned dev_line(const cfg_lines *ln, enum dev_key k)
{
    if (ln == NULL)
        return 0;
    return ln->key[k] != 0 ? ln->key[k] : ln->section;
}

static unsigned job_line(const cfg_lines *ln, unsigned j, enum job_key k)
{
    if (ln == NULL)
        return 0;
    return ln->job[j].key[k] != 0 ? ln->job[j].key[k] : ln->job[j].section;
}

static unsigned member_line(const cfg_lines *ln, unsigned j, unsigned k)
{
    if (ln == NULL)
        return 0;
    return ln->job[j].member[k] != 0 ? ln->job[j].member[k] : ln->job[j].section;
}

/* ------------------------------------------------------------------------ */
/* Cross checks, shared by the parser (with lines) and ws_config_check.      */

static int check_range(err_sink *s, unsigned line, const char *what, unsigned long v,
                       unsigned long lo, unsigned long hi, const char *why)
{
    if (v >= lo && v <= hi)
        return 0;
    return report(s, line, "%s %lu out of range %lu..%lu%s", what, v, lo, hi, why);
}

static int check_build(const ws_config *cfg, const cfg_lines *ln, err_sink *s)
{
    if (check_range(s, dev_line(ln, DK_MAX_JOBS), "device: max_jobs", cfg->max_jobs, 1,
                    WS_LIMIT_JOBS, "") ||
        check_range(s, dev_line(ln, DK_MAX_WORKERS), "device: max_workers", cfg->max_workers, 1,
                    WS_LIMIT_WORKERS, "") ||
        check_range(s, dev_line(ln, DK_POOL_SLOTS), "device: pool_slots", cfg->pool_slots, 1,
                    WS_LIMIT_SLOTS, "") ||
        check_range(s, dev_line(ln, DK_MAX_COUNT), "device: max_count", cfg->max_count, 1,
                    WS_LIMIT_COUNT, "") ||
        (cfg->max_frame &&
         check_range(s, dev_line(ln, DK_MAX_FRAME), "device: max_frame", cfg->max_frame,
                     WS_MIN_MAX_FRAME, WS_LIMIT_FRAME, " (bytes)")))
        return -1;
    return 0;
}

static int check_device(const ws_config *cfg, const cfg_lines *ln, err_sink *s)
{
    char mac[18];

    ws_format_mac(cfg->mac, mac);
    if (mac_is_multicast(cfg->mac))
        return report(s, dev_line(ln, DK_MAC), "device: mac %s is multicast (low bit of the "
                      "first octet set)", mac);
    if (check_range(s, dev_line(ln, DK_UDP_PORT), "device: udp_port", cfg->udp_port, 1, 65535,
                    ""))
        return -1;
    if (check_range(s, dev_line(ln, DK_BYPASS), "device: number of ports", cfg->n_ports, 1,
                    WS_LIMIT_PORTS, ""))
        return -1;
    if (ln != NULL && ln->key[DK_PORTS] != 0 && ln->ports != cfg->n_ports)
        return report(s, ln->key[DK_PORTS], "device: ports %lu does not match the bypass list "
                      "(%u entries)", ln->ports, cfg->n_ports);
    for (unsigned p = 0; p < cfg->n_ports; p++)
        if (cfg->bypass[p] >= cfg->n_ports)
            return report(s, dev_line(ln, DK_BYPASS), "device: bypass entry for port %u is %u, "
                          "out of range 0..%u", p, cfg->bypass[p], cfg->n_ports - 1);
    return check_build(cfg, ln, s);
}

/* Line naming a job's slot range: slot_base when given, else slots. */
static unsigned range_line(const cfg_lines *ln, unsigned j)
{
    if (ln != NULL && ln->job[j].key[JK_SLOT_BASE] != 0)
        return ln->job[j].key[JK_SLOT_BASE];
    return job_line(ln, j, JK_SLOTS);
}

static int check_job_values(const ws_config *cfg, const cfg_lines *ln, unsigned j, err_sink *s)
{
    const ws_job *job = &cfg->job[j];
    char what[64];
    unsigned long end = (unsigned long)job->slot_base + job->slots;

    snprintf(what, sizeof(what), "job %u: workers", job->id);
    if (check_range(s, job_line(ln, j, JK_WORKERS), what, job->workers, 1, cfg->max_workers,
                    " (max_workers)"))
        return -1;
    snprintf(what, sizeof(what), "job %u: slots", job->id);
    if (check_range(s, job_line(ln, j, JK_SLOTS), what, job->slots, 1, cfg->pool_slots,
                    " (pool_slots)"))
        return -1;
    snprintf(what, sizeof(what), "job %u: max_count", job->id);
    if (check_range(s, job_line(ln, j, JK_MAX_COUNT), what, job->max_count, 1, cfg->max_count,
                    " (device max_count)"))
        return -1;
    if (64 + 4ul * job->max_count > ws_config_max_frame(cfg))
        return report(s, job_line(ln, j, JK_MAX_COUNT) ? job_line(ln, j, JK_MAX_COUNT)
                                                       : dev_line(ln, DK_MAX_FRAME),
                      "job %u: max_count %u makes frames of %lu bytes, longer than the device's "
                      "max_frame %u: the ports would drop them", job->id, job->max_count,
                      64 + 4ul * job->max_count, ws_config_max_frame(cfg));
    if (end > cfg->pool_slots)
        return report(s, range_line(ln, j), "job %u: slot range %u..%lu beyond the pool "
                      "(pool_slots = %u)", job->id, job->slot_base, end - 1, cfg->pool_slots);
    return 0;
}

static int check_job_vs_earlier(const ws_config *cfg, const cfg_lines *ln, unsigned j,
                                err_sink *s)
{
    const ws_job *b = &cfg->job[j];

    for (unsigned i = 0; i < j; i++) {
        const ws_job *a = &cfg->job[i];
        if (a->id == b->id)
            return report(s, ln ? ln->job[j].section : 0, "job %u: duplicate job id", b->id);
        if (a->slot_base < b->slot_base + b->slots && b->slot_base < a->slot_base + a->slots)
            return report(s, range_line(ln, j), "job %u: slot range %u..%u overlaps job %u "
                          "(slots %u..%u)", b->id, b->slot_base, b->slot_base + b->slots - 1,
                          a->id, a->slot_base, a->slot_base + a->slots - 1);
    }
    return 0;
}

static bool member_is_zero(const ws_member *m)
{
    static const uint8_t zero[6];

    return memcmp(m->mac, zero, 6) == 0 && m->ip == 0 && m->udp_port == 0 && m->port == 0;
}

static int check_member(const ws_config *cfg, const ws_job *job, unsigned k, unsigned line,
                        err_sink *s)
{
    const ws_member *m = &job->member[k];
    char text[18];

    if (mac_is_multicast(m->mac)) {
        ws_format_mac(m->mac, text);
        return report(s, line, "job %u: member%u: MAC %s is multicast", job->id, k, text);
    }
    if (m->udp_port == 0)
        return report(s, line, "job %u: member%u: UDP port 0 out of range 1..65535", job->id, k);
    if (m->port >= cfg->n_ports)
        return report(s, line, "job %u: member%u: device port %u out of range 0..%u (ports = %u)",
                      job->id, k, m->port, cfg->n_ports - 1, cfg->n_ports);
    if (m->ip == cfg->ip) {
        ws_format_ipv4(m->ip, text);
        return report(s, line, "job %u: member%u: IP %s is the device's IP", job->id, k, text);
    }
    for (unsigned i = 0; i < k; i++) {
        const ws_member *o = &job->member[i];
        if (memcmp(o->mac, m->mac, 6) == 0 && o->ip == m->ip && o->udp_port == m->udp_port)
            return report(s, line, "job %u: member%u: duplicate member: same MAC, IP and UDP "
                          "port as member%u", job->id, k, i);
    }
    return 0;
}

static int check_members(const ws_config *cfg, const cfg_lines *ln, unsigned j, err_sink *s)
{
    const ws_job *job = &cfg->job[j];

    for (unsigned k = 0; k < WS_LIMIT_WORKERS; k++) {
        bool given = ln != NULL ? ln->job[j].member[k] != 0 : !member_is_zero(&job->member[k]);
        if (k >= job->workers) {
            if (ln != NULL && given)
                return report(s, ln->job[j].member[k], "job %u: member%u: rank %u >= workers (%u)",
                              job->id, k, k, job->workers);
            continue;
        }
        if (!given)
            return report(s, ln ? ln->job[j].section : 0, "job %u: member%u missing (ranks 0..%u "
                          "required)", job->id, k, job->workers - 1);
        if (check_member(cfg, job, k, member_line(ln, j, k), s))
            return -1;
    }
    return 0;
}

/* A job's parent, and the frames a device that takes PARTIALs must be able to receive. */
static int check_hierarchy(const ws_config *cfg, const cfg_lines *ln, unsigned j, err_sink *s)
{
    const ws_job *job = &cfg->job[j];
    size_t longest = ws_partial_max_len(job->max_count);

    if (cfg->partial && longest > ws_config_max_frame(cfg))
        return report(s, job_line(ln, j, JK_MAX_COUNT), "job %u: max_count %u: a PARTIAL of that "
                      "many elements takes up to %zu bytes, longer than the device's max_frame "
                      "%u (a device with partial = 1 must take them)", job->id, job->max_count,
                      longest, ws_config_max_frame(cfg));
    if (!job->has_parent)
        return 0;
    unsigned line = job_line(ln, j, JK_PARENT);
    const ws_member *p = &job->parent;
    char text[18];
    if (!cfg->partial)
        return report(s, line, "job %u: parent: the device does not take PARTIAL frames "
                      "(partial = 1 in [device] is needed for a job with a parent)", job->id);
    if (mac_is_multicast(p->mac)) {
        ws_format_mac(p->mac, text);
        return report(s, line, "job %u: parent: MAC %s is multicast", job->id, text);
    }
    if (p->udp_port == 0)
        return report(s, line, "job %u: parent: UDP port 0 out of range 1..65535", job->id);
    if (p->port >= cfg->n_ports)
        return report(s, line, "job %u: parent: device port %u out of range 0..%u (ports = %u)",
                      job->id, p->port, cfg->n_ports - 1, cfg->n_ports);
    if (p->ip == cfg->ip) {
        ws_format_ipv4(p->ip, text);
        return report(s, line, "job %u: parent: IP %s is the device's own", job->id, text);
    }
    if (job->parent_rank >= WS_LIMIT_WORKERS)
        return report(s, line, "job %u: parent: rank %u out of range 0..%u", job->id,
                      job->parent_rank, WS_LIMIT_WORKERS - 1);
    return 0;
}

static int check_jobs(const ws_config *cfg, const cfg_lines *ln, err_sink *s)
{
    if (cfg->n_jobs > WS_LIMIT_JOBS)
        return report(s, 0, "too many jobs: %u (limit %u)", cfg->n_jobs, WS_LIMIT_JOBS);
    if (cfg->n_jobs > cfg->max_jobs) {
        unsigned j = cfg->max_jobs;
        return report(s, ln ? ln->job[j].section : 0, "job %u: too many jobs: %u > max_jobs (%u)",
                      cfg->job[j].id, cfg->n_jobs, cfg->max_jobs);
    }
    for (unsigned j = 0; j < cfg->n_jobs; j++)
        if (check_job_values(cfg, ln, j, s) || check_job_vs_earlier(cfg, ln, j, s) ||
            check_members(cfg, ln, j, s) || check_hierarchy(cfg, ln, j, s))
            return -1;
    return 0;
}

static int validate(const ws_config *cfg, const cfg_lines *ln, err_sink *s)
{
    if (check_device(cfg, ln, s) || check_jobs(cfg, ln, s))
        return -1;
    return 0;
}

int ws_config_check(const ws_config *cfg, char *err, size_t errlen)
{
    err_sink s = {err, errlen, NULL, false, 0};

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    return validate(cfg, NULL, &s);
}

/* ------------------------------------------------------------------------ */
/* Parser state.                                                             */

enum section_kind { SEC_NONE, SEC_DEVICE, SEC_JOB, SEC_BAD };

typedef struct {
    ws_config *cfg;
    cfg_lines lines;
    err_sink sink;
    /* input: a FILE or a string */
    FILE *file;
    const char *text;
    size_t pos;
    bool stop;            /* the reader hit an error: report end of input */
    unsigned lineno;      /* line last handed to inih */
    bool key_in_section;  /* a key line since the last header (inih continuation rule) */
    enum section_kind sec;
    unsigned job;         /* index of the current job when sec == SEC_JOB */
} parse_ctx;

WS_PRINTF(2, 3)
static int perr(parse_ctx *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sink_vreport(&c->sink, c->lineno, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Section headers (seen by the reader, so that empty sections count too).   */

static int parse_job_id(const char *s, unsigned long *id)
{
    if (s[0] == '0' && s[1] == 'x')
        return parse_base(s + 2, 16, id);
    return parse_dec(s, id);
}

static void begin_device(parse_ctx *c)
{
    if (c->lines.section != 0) {
        perr(c, "duplicate section [device] (first at line %u)", c->lines.section);
        return;
    }
    c->lines.section = c->lineno;
    c->sec = SEC_DEVICE;
}

static void begin_job(parse_ctx *c, const char *name)
{
    ws_config *cfg = c->cfg;
    unsigned long id;
    const ws_job *old;

    if (parse_job_id(name + 4, &id) != 0 || id > 65535) {
        perr(c, "bad job id in [%s] (expected [job N], one space, N decimal 0..65535 or "
             "0x-hex)", name);
        return;
    }
    old = ws_config_find_job(cfg, (uint16_t)id);
    if (old != NULL) {
        perr(c, "duplicate job %lu (first at line %u)", id,
             c->lines.job[old - cfg->job].section);
        return;
    }
    if (cfg->n_jobs >= WS_LIMIT_JOBS) {
        perr(c, "job %lu: too many jobs (limit %u)", id, WS_LIMIT_JOBS);
        return;
    }
    c->job = cfg->n_jobs++;
    cfg->job[c->job].id = (uint16_t)id;
    cfg->job[c->job].enable = true;
    c->lines.job[c->job].section = c->lineno;
    c->sec = SEC_JOB;
}

static void begin_section(parse_ctx *c, const char *name)
{
    c->sec = SEC_BAD;
    if (strcmp(name, "device") == 0)
        begin_device(c);
    else if (strncmp(name, "job ", 4) == 0)
        begin_job(c, name);
    else
        perr(c, "unknown section [%s]", name);
}

/* Like inih: first of chars, or an inline ';' comment after whitespace. */
static const char *find_or_comment(const char *s, const char *chars)
{
    bool was_space = false;

    while (*s != '\0' && strchr(chars, *s) == NULL && !(was_space && *s == ';')) {
        was_space = isspace((unsigned char)*s);
        s++;
    }
    return s;
}

/* A "[name]" line: remember the section; only a comment may follow. */
static void header_line(parse_ctx *c, const char *start)
{
    const char *end = find_or_comment(start + 1, "]");
    const char *rest = end + 1;
    char name[TOKEN_MAX];
    size_t n = (size_t)(end - start - 1);

    c->sec = SEC_BAD;
    if (*end != ']') {
        perr(c, "section header without ']'");
        return;
    }
    while (*rest != '\0' && isspace((unsigned char)*rest))
        rest++;
    if (*rest != '\0' && !(*rest == ';' && rest > end + 1)) {
        perr(c, "unexpected text after section header");
        return;
    }
    if (n >= sizeof(name))
        n = sizeof(name) - 1;
    memcpy(name, start + 1, n);
    name[n] = '\0';
    begin_section(c, name);
}

/* Look at a line before inih does: headers, continuations, missing '='. */
static void classify_line(parse_ctx *c, const char *line)
{
    const char *start = line;
    const char *p;

    if (c->lineno == 1 && strncmp(start, "\xEF\xBB\xBF", 3) == 0)
        start += 3;
    p = start;
    while (*p != '\0' && isspace((unsigned char)*p))
        p++;
    if (*p == '\0' || *p == ';' || *p == '#')
        return;
    if (p > line && c->key_in_section) {
        perr(c, "indented line would continue the previous value (continuation lines are not "
             "supported)");
        return;
    }
    if (*p == '[') {
        c->key_in_section = false;
        header_line(c, p);
        return;
    }
    c->key_in_section = true;
    p = find_or_comment(p, "=:");
    if (*p != '=' && *p != ':')
        perr(c, "expected 'key = value' or '[section]'");
}

static int next_char(parse_ctx *c)
{
    if (c->file != NULL)
        return getc(c->file);
    if (c->text[c->pos] == '\0')
        return EOF;
    return (unsigned char)c->text[c->pos++];
}

/* fgets-style reader for inih that counts lines and refuses overlong ones. */
static char *read_line(char *str, int num, void *stream)
{
    parse_ctx *c = stream;
    size_t n = 0;
    int ch;

    if (c->stop || num < 2)
        return NULL;
    while ((ch = next_char(c)) != EOF) {
        if (ch == '\0' || n + 1 >= (size_t)num) {
            c->lineno++;
            perr(c, ch == '\0' ? "NUL character in line" : "line too long (at most %d characters)",
                 num - 2);
            c->stop = true;
            return NULL;
        }
        str[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (n == 0)
        return NULL;
    str[n] = '\0';
    c->lineno++;
    classify_line(c, str);
    return str;
}

/* ------------------------------------------------------------------------ */
/* Key handlers.                                                             */

/* Decimal value of key within lo..hi. */
static int key_uint(parse_ctx *c, const char *key, const char *text, unsigned long lo,
                    unsigned long hi, unsigned long *v)
{
    if (parse_dec(text, v) != 0)
        return perr(c, "%s: '%s' is not a decimal number", key, text);
    if (*v < lo || *v > hi)
        return perr(c, "%s %s out of range %lu..%lu", key, text, lo, hi);
    return 0;
}

static int key_mac(parse_ctx *c, const char *key, const char *text, uint8_t mac[6])
{
    if (ws_parse_mac(text, mac) != 0)
        return perr(c, "%s: bad MAC address '%s' (expected six 2-digit hex groups separated "
                    "by ':')", key, text);
    if (mac_is_multicast(mac))
        return perr(c, "%s: MAC address %s is multicast (low bit of the first octet set); a "
                    "unicast address is required", key, text);
    return 0;
}

static int key_ip(parse_ctx *c, const char *key, const char *text, uint32_t *ip)
{
    if (ws_parse_ipv4(text, ip) != 0)
        return perr(c, "%s: bad IPv4 address '%s' (expected a dotted quad of 0..255)", key, text);
    return 0;
}

static void device_bypass(parse_ctx *c, const char *value)
{
    ws_config *cfg = c->cfg;
    unsigned long v[WS_LIMIT_PORTS];
    char tok[TOKEN_MAX];
    unsigned n = 0;

    while (next_token(&value, tok)) {
        if (n == WS_LIMIT_PORTS) {
            perr(c, "bypass: too many ports (more than %u entries; range 1..%u)", WS_LIMIT_PORTS,
                 WS_LIMIT_PORTS);
            return;
        }
        if (parse_dec(tok, &v[n]) != 0) {
            perr(c, "bypass: '%s' is not a decimal number", tok);
            return;
        }
        n++;
    }
    for (unsigned p = 0; p < n; p++) {
        if (v[p] >= n) {
            perr(c, "bypass: entry for port %u is %lu, out of range 0..%u", p, v[p], n - 1);
            return;
        }
        cfg->bypass[p] = (uint8_t)v[p];
    }
    cfg->n_ports = n;
}

static void device_key(parse_ctx *c, enum dev_key k, const char *value)
{
    ws_config *cfg = c->cfg;
    unsigned long v;

    switch (k) {
    case DK_MAC:
        key_mac(c, "mac", value, cfg->mac);
        return;
    case DK_IP:
        key_ip(c, "ip", value, &cfg->ip);
        return;
    case DK_BYPASS:
        device_bypass(c, value);
        return;
    case DK_UDP_PORT:
        if (key_uint(c, "udp_port", value, 1, 65535, &v) == 0)
            cfg->udp_port = (uint16_t)v;
        return;
    case DK_PORTS:
        key_uint(c, "ports", value, 1, WS_LIMIT_PORTS, &c->lines.ports);
        return;
    case DK_MAX_JOBS:
        if (key_uint(c, "max_jobs", value, 1, WS_LIMIT_JOBS, &v) == 0)
            cfg->max_jobs = (unsigned)v;
        return;
    case DK_MAX_WORKERS:
        if (key_uint(c, "max_workers", value, 1, WS_LIMIT_WORKERS, &v) == 0)
            cfg->max_workers = (unsigned)v;
        return;
    case DK_POOL_SLOTS:
        if (key_uint(c, "pool_slots", value, 1, WS_LIMIT_SLOTS, &v) == 0)
            cfg->pool_slots = (unsigned)v;
        return;
    case DK_MAX_COUNT:
        if (key_uint(c, "max_count", value, 1, WS_LIMIT_COUNT, &v) == 0)
            cfg->max_count = (unsigned)v;
        return;
    case DK_MAX_FRAME:
        if (key_uint(c, "max_frame", value, WS_MIN_MAX_FRAME, WS_LIMIT_FRAME, &v) == 0)
            cfg->max_frame = (unsigned)v;
        return;
    case DK_PARTIAL:
        if (key_uint(c, "partial", value, 0, 1, &v) == 0)
            cfg->partial = v == 1;
        return;
    case DK_COUNT:
        break;
    }
}

/* Index of name in a key table, or -1. */
static int key_index(const char *const *table, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(table[i], name) == 0)
            return i;
    return -1;
}

/* Record the line of a key; reject a repeat or an empty value. */
static int note_key(parse_ctx *c, unsigned *line, const char *name, const char *value)
{
    if (*line != 0)
        return perr(c, "duplicate key '%s' (first at line %u)", name, *line);
    *line = c->lineno;
    if (*value == '\0')
        return perr(c, "empty value for key '%s'", name);
    return 0;
}

static void handle_device(parse_ctx *c, const char *name, const char *value)
{
    int k = key_index(dev_key_name, DK_COUNT, name);

    if (k < 0) {
        perr(c, "unknown key '%s' in [device]", name);
        return;
    }
    if (note_key(c, &c->lines.key[k], name, value) == 0)
        device_key(c, (enum dev_key)k, value);
}

/* "MAC IP UDP-port device-port job rank": the parent device of the current job. */
static void parent_value(parse_ctx *c, const char *value)
{
    ws_job *job = &c->cfg->job[c->job];
    char f[7][TOKEN_MAX];
    unsigned long v;
    int n = 0;

    while (n < 7 && next_token(&value, f[n]))
        n++;
    if (n != 6) {
        perr(c, "parent: expected 6 fields 'MAC IP UDP-port device-port job rank', got %s%d",
             n > 6 ? "more than " : "", n > 6 ? 6 : n);
        return;
    }
    if (key_mac(c, "parent", f[0], job->parent.mac) || key_ip(c, "parent", f[1], &job->parent.ip))
        return;
    if (key_uint(c, "parent: UDP port", f[2], 1, 65535, &v))
        return;
    job->parent.udp_port = (uint16_t)v;
    if (key_uint(c, "parent: device port", f[3], 0, WS_LIMIT_PORTS - 1, &v))
        return;
    job->parent.port = (uint8_t)v;
    if (key_uint(c, "parent: job", f[4], 0, 65535, &v))
        return;
    job->parent_job = (uint16_t)v;
    if (key_uint(c, "parent: rank", f[5], 0, WS_LIMIT_WORKERS - 1, &v))
        return;
    job->parent_rank = (uint16_t)v;
    job->has_parent = true;
}

static void job_key(parse_ctx *c, enum job_key k, const char *value)
{
    ws_job *job = &c->cfg->job[c->job];
    unsigned long v;

    switch (k) {
    case JK_WORKERS:
        if (key_uint(c, "workers", value, 1, WS_LIMIT_WORKERS, &v) == 0)
            job->workers = (unsigned)v;
        return;
    case JK_SLOTS:
        if (key_uint(c, "slots", value, 1, WS_LIMIT_SLOTS, &v) == 0)
            job->slots = (unsigned)v;
        return;
    case JK_MAX_COUNT:
        if (key_uint(c, "max_count", value, 1, WS_LIMIT_COUNT, &v) == 0)
            job->max_count = (unsigned)v;
        return;
    case JK_SLOT_BASE:
        if (key_uint(c, "slot_base", value, 0, WS_LIMIT_SLOTS - 1, &v) == 0)
            job->slot_base = (unsigned)v;
        return;
    case JK_ENABLE:
        if (key_uint(c, "enable", value, 0, 1, &v) == 0)
            job->enable = v == 1;
        return;
    case JK_PARENT:
        parent_value(c, value);
        return;
    case JK_COUNT:
        break;
    }
}

/* "MAC IP UDP-port device-port" of member k. */
static void member_value(parse_ctx *c, unsigned k, const char *value)
{
    ws_member *m = &c->cfg->job[c->job].member[k];
    char f[5][TOKEN_MAX];
    char key[32];
    unsigned long v;
    int n = 0;

    while (n < 5 && next_token(&value, f[n]))
        n++;
    snprintf(key, sizeof(key), "member%u", k);
    if (n != 4) {
        perr(c, "%s: expected 4 fields 'MAC IP UDP-port device-port', got %s%d", key,
             n > 4 ? "more than " : "", n > 4 ? 4 : n);
        return;
    }
    if (key_mac(c, key, f[0], m->mac) || key_ip(c, key, f[1], &m->ip))
        return;
    snprintf(key, sizeof(key), "member%u: UDP port", k);
    if (key_uint(c, key, f[2], 1, 65535, &v))
        return;
    m->udp_port = (uint16_t)v;
    snprintf(key, sizeof(key), "member%u: device port", k);
    if (key_uint(c, key, f[3], 0, WS_LIMIT_PORTS - 1, &v) == 0)
        m->port = (uint8_t)v;
}

/* memberK: K decimal without leading zeros. Returns 0 when name is not one. */
static int member_rank(const char *name, unsigned long *k)
{
    const char *d = name + 6;

    if (strncmp(name, "member", 6) != 0 || parse_dec(d, k) != 0)
        return 0;
    return d[0] == '0' && d[1] != '\0' ? -1 : 1;
}

static void handle_member(parse_ctx *c, const char *name, const char *value)
{
    unsigned long k;
    int kind = member_rank(name, &k);

    if (kind == 0) {
        perr(c, "unknown key '%s' in [job %u]", name, c->cfg->job[c->job].id);
        return;
    }
    if (kind < 0) {
        perr(c, "bad key '%s' (member rank without leading zeros)", name);
        return;
    }
    if (k >= WS_LIMIT_WORKERS) {
        perr(c, "%s: rank %s out of range 0..%u", name, name + 6, WS_LIMIT_WORKERS - 1);
        return;
    }
    if (note_key(c, &c->lines.job[c->job].member[k], name, value) == 0)
        member_value(c, (unsigned)k, value);
}

static void handle_job(parse_ctx *c, const char *name, const char *value)
{
    int k = key_index(job_key_name, JK_COUNT, name);

    if (k < 0) {
        handle_member(c, name, value);
        return;
    }
    if (note_key(c, &c->lines.job[c->job].key[k], name, value) == 0)
        job_key(c, (enum job_key)k, value);
}

/* inih handler; the section comes from the reader's view of the headers. */
static int handle_key(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *c = user;

    (void)section;
    if (c->sink.failed)
        return 1;
    if (*name == '\0')
        perr(c, "missing key name before '='");
    else if (c->sec == SEC_NONE)
        perr(c, "key '%s' outside any section", name);
    else if (c->sec == SEC_DEVICE)
        handle_device(c, name, value);
    else if (c->sec == SEC_JOB)
        handle_job(c, name, value);
    return !c->sink.failed;
}

/* ------------------------------------------------------------------------ */
/* After the file: required keys, defaults that depend on other sections.   */

static int check_required(parse_ctx *c)
{
    static const enum dev_key dev_req[] = {DK_MAC, DK_IP, DK_BYPASS};
    static const enum job_key job_req[] = {JK_WORKERS, JK_SLOTS};
    const cfg_lines *ln = &c->lines;

    if (ln->section == 0)
        return report(&c->sink, 0, "missing [device] section");
    for (size_t i = 0; i < sizeof(dev_req) / sizeof(dev_req[0]); i++)
        if (ln->key[dev_req[i]] == 0)
            return report(&c->sink, ln->section, "[device]: missing required key '%s'",
                          dev_key_name[dev_req[i]]);
    for (unsigned j = 0; j < c->cfg->n_jobs; j++)
        for (size_t i = 0; i < sizeof(job_req) / sizeof(job_req[0]); i++)
            if (ln->job[j].key[job_req[i]] == 0)
                return report(&c->sink, ln->job[j].section, "job %u: missing required key '%s'",
                              c->cfg->job[j].id, job_key_name[job_req[i]]);
    return 0;
}

static void resolve_defaults(ws_config *cfg, const cfg_lines *ln)
{
    unsigned next_base = 0;

    for (unsigned j = 0; j < cfg->n_jobs; j++) {
        ws_job *job = &cfg->job[j];
        if (ln->job[j].key[JK_MAX_COUNT] == 0)
            job->max_count = cfg->max_count;
        if (ln->job[j].key[JK_SLOT_BASE] == 0)
            job->slot_base = next_base;
        next_base = job->slot_base + job->slots;
    }
}

static int parse_input(ws_config *cfg, parse_ctx *c, const char *name, char *err, size_t errlen)
{
    int rc;

    memset(cfg, 0, sizeof(*cfg));
    set_build_defaults(cfg);
    c->cfg = cfg;
    c->sink = (err_sink){err, errlen, name, false, 0};
    rc = ini_parse_stream(read_line, c, handle_key, c);
    if (rc > 0 && (!c->sink.failed || (unsigned)rc < c->sink.line)) {
        c->sink.failed = false;
        report(&c->sink, (unsigned)rc, "syntax error");
    } else if (rc < 0 && !c->sink.failed) {
        report(&c->sink, 0, "parser failure (%d)", rc);
    }
    if (!c->sink.failed && c->file != NULL && ferror(c->file))
        report(&c->sink, 0, "read error: %s", strerror(errno));
    if (c->sink.failed || check_required(c) != 0)
        return -1;
    resolve_defaults(cfg, &c->lines);
    return validate(cfg, &c->lines, &c->sink);
}

static int parse_with(ws_config *cfg, FILE *f, const char *text, const char *name, char *err,
                      size_t errlen)
{
    parse_ctx *c = calloc(1, sizeof(*c));
    int rc;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (c == NULL) {
        err_sink s = {err, errlen, name, false, 0};
        return report(&s, 0, "out of memory");
    }
    c->file = f;
    c->text = text;
    rc = parse_input(cfg, c, name, err, errlen);
    free(c);
    return rc;
}

int ws_config_parse_string(ws_config *cfg, const char *text, const char *name, char *err,
                           size_t errlen)
{
    if (name == NULL)
        name = "(string)";
    if (text == NULL) {
        err_sink s = {err, errlen, name, false, 0};
        return report(&s, 0, "no text");
    }
    return parse_with(cfg, NULL, text, name, err, errlen);
}

int ws_config_load(ws_config *cfg, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    int rc;

    if (f == NULL) {
        err_sink s = {err, errlen, path, false, 0};
        return report(&s, 0, "cannot open: %s", strerror(errno));
    }
    rc = parse_with(cfg, f, NULL, path, err, errlen);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Writer.                                                                   */

static void write_build_param(FILE *f, const char *key, unsigned v, unsigned dflt)
{
    if (v != dflt)
        fprintf(f, "%s = %u\n", key, v);
}

static void write_device(const ws_config *cfg, FILE *f)
{
    char mac[18], ip[16];

    ws_format_mac(cfg->mac, mac);
    ws_format_ipv4(cfg->ip, ip);
    fprintf(f, "[device]\nmac = %s\nip = %s\nudp_port = %u\nbypass =", mac, ip, cfg->udp_port);
    for (unsigned p = 0; p < cfg->n_ports; p++)
        fprintf(f, " %u", cfg->bypass[p]);
    fputc('\n', f);
    write_build_param(f, "ports", cfg->n_ports, WS_DEFAULT_PORTS);
    write_build_param(f, "max_jobs", cfg->max_jobs, WS_DEFAULT_MAX_JOBS);
    write_build_param(f, "max_workers", cfg->max_workers, WS_DEFAULT_MAX_WORKERS);
    write_build_param(f, "pool_slots", cfg->pool_slots, WS_DEFAULT_POOL_SLOTS);
    write_build_param(f, "max_count", cfg->max_count, WS_DEFAULT_MAX_COUNT);
    if (cfg->max_frame)
        fprintf(f, "max_frame = %u\n", cfg->max_frame);
    if (cfg->partial)
        fputs("partial = 1\n", f);
}

static void write_job(const ws_job *job, unsigned default_base, FILE *f)
{
    fprintf(f, "\n[job %u]\nworkers = %u\nslots = %u\nmax_count = %u\n", job->id, job->workers,
            job->slots, job->max_count);
    if (job->slot_base != default_base)
        fprintf(f, "slot_base = %u\n", job->slot_base);
    if (!job->enable)
        fputs("enable = 0\n", f);
    for (unsigned k = 0; k < job->workers; k++) {
        const ws_member *m = &job->member[k];
        char mac[18], ip[16];
        ws_format_mac(m->mac, mac);
        ws_format_ipv4(m->ip, ip);
        fprintf(f, "member%u = %s %s %u %u\n", k, mac, ip, m->udp_port, m->port);
    }
    if (job->has_parent) {
        char mac[18], ip[16];
        ws_format_mac(job->parent.mac, mac);
        ws_format_ipv4(job->parent.ip, ip);
        fprintf(f, "parent = %s %s %u %u %u %u\n", mac, ip, job->parent.udp_port,
                job->parent.port, job->parent_job, job->parent_rank);
    }
}

int ws_config_write(const ws_config *cfg, FILE *f)
{
    unsigned next_base = 0;

    if (cfg->n_ports > WS_LIMIT_PORTS || cfg->n_jobs > WS_LIMIT_JOBS) {
        errno = EINVAL;
        return -1;
    }
    for (unsigned j = 0; j < cfg->n_jobs; j++) {
        if (cfg->job[j].workers > WS_LIMIT_WORKERS) {
            errno = EINVAL;
            return -1;
        }
    }
    errno = 0;
    write_device(cfg, f);
    for (unsigned j = 0; j < cfg->n_jobs; j++) {
        write_job(&cfg->job[j], next_base, f);
        next_base = cfg->job[j].slot_base + cfg->job[j].slots;
    }
    if (fflush(f) != 0 || ferror(f)) {
        if (errno == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}
