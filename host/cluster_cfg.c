/* cluster_cfg.c - the cluster file of `wiresum cluster` (cluster_cfg.h, docs/cluster.md). */
#include "cluster_cfg.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ini_lines.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"

/* the keys of each section; a key's line is kept for the checks after the parse */
enum { S_TOPO, S_DEV, S_JOB, S_N };
static const char *const topo_keys[] = {"kind", "hosts", "rate", "delay", "mtu", "queue", NULL};
static const char *const dev_keys[] = {"switch", "rate", "delay", "data_width", "engines",
                                       "f_clk", "beats_per_cycle", "idle_latency",
                                       "ingress_buffer", "max_count", "slots", NULL};
static const char *const job_keys[] = {"workers", "elements", "tensor_bytes", "iterations",
                                       "compute", "mode", "count", "window", "device", "seed",
                                       NULL};
enum { T_KIND, T_HOSTS, T_RATE, T_DELAY, T_MTU, T_QUEUE };
enum { D_SWITCH, D_RATE, D_DELAY, D_WIDTH, D_ENGINES, D_FCLK, D_BPC, D_LAT, D_INGRESS, D_MAXC,
       D_SLOTS };
enum { J_WORKERS, J_ELEMS, J_BYTES, J_ITERS, J_COMPUTE, J_MODE, J_COUNT, J_WINDOW, J_DEVICE,
       J_SEED };
#define MAX_KEYS 12

typedef struct {
    ws_cluster *c;
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    ws_ini_lines src;
    char section[96];
    int kind, cur;          /* section kind (-1 none yet), device index */
    unsigned sec_line[S_N]; /* line of [topology], [job] */
    unsigned topo[MAX_KEYS], job[MAX_KEYS];
    unsigned dev_line[WS_CLUSTER_MAX_DEVICES], dev[WS_CLUSTER_MAX_DEVICES][MAX_KEYS];
    char dev_switch[WS_CLUSTER_MAX_DEVICES][WS_CLUSTER_NAME];
    char job_device[WS_CLUSTER_NAME];
} parser;

static int perr(parser *p, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int perr(parser *p, unsigned line, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(p->err, p->errlen, "%s:%u: %s", p->path, line, msg);
    else
        snprintf(p->err, p->errlen, "%s: %s", p->path, msg);
    p->failed = 1;
    return -1;
}

/* ---- values --------------------------------------------------------------------------- */

/* A non-negative decimal number followed by one of the units (case-insensitive), each with its
 * factor; unit NULL: the number may stand alone (factor 1). */
typedef struct {
    const char *name;
    double factor;
} unit;

static int parse_with_unit(const char *s, const unit *units, int bare_ok, double *out)
{
    char *end;
    errno = 0;
    if (!((*s >= '0' && *s <= '9') || *s == '.'))
        return -1;
    double v = strtod(s, &end);
    if (errno || !isfinite(v) || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    if (!*end) {
        if (!bare_ok)
            return -1;
        *out = v;
        return 0;
    }
    for (const unit *u = units; u->name; u++)
        if (!strcasecmp(end, u->name)) {
            *out = v * u->factor;
            return 0;
        }
    return -1;
}

static const unit rate_units[] = {{"bps", 1}, {"Kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9},
                                  {"Tbps", 1e12}, {"Kb/s", 1e3}, {"Mb/s", 1e6},
                                  {"Gb/s", 1e9}, {"Tb/s", 1e12}, {NULL, 0}};
static const unit time_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {NULL, 0}};
static const unit byte_units[] = {{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
                                  {"KiB", 1024.0}, {"MiB", 1048576.0},
                                  {"GiB", 1073741824.0}, {NULL, 0}};
static const unit no_units[] = {{NULL, 0}};
static const unit freq_units[] = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9},
                                  {NULL, 0}};

/* "0-7", "0,2,4-6": host indices below hosts_max, each once, into job->host in the order
 * given. 0, or -1 with a reason in why. */
static int parse_hosts(const char *s, ws_cluster_job *j, char *why, size_t whylen)
{
    static unsigned char seen[WS_CLUSTER_MAX_HOSTS];
    memset(seen, 0, sizeof seen);
    j->workers = 0;
    char buf[4096];
    if (strlen(s) >= sizeof buf)
        return snprintf(why, whylen, "too long"), -1;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t n = strlen(tok);
        while (n && tok[n - 1] == ' ')
            tok[--n] = 0;
        char *dash = strchr(tok, '-');
        unsigned long long a, b;
        if (dash)
            *dash = 0;
        if (ws_ini_uint(tok, 0, WS_CLUSTER_MAX_HOSTS - 1, &a) ||
            ws_ini_uint(dash ? dash + 1 : tok, 0, WS_CLUSTER_MAX_HOSTS - 1, &b) || b < a)
            return snprintf(why, whylen, "FIRST-LAST or a host index, separated by ','"), -1;
        for (unsigned long long h = a; h <= b; h++) {
            if (seen[h])
                return snprintf(why, whylen, "host %llu given twice", h), -1;
            seen[h] = 1;
            j->host[j->workers++] = (unsigned)h;
        }
    }
    return j->workers ? 0 : (snprintf(why, whylen, "no host"), -1);
}

/* ---- sections and keys -------------------------------------------------------------- */

static void dev_defaults(ws_cluster_dev *d)
{
    /* hw/wiresum_top.v's defaults at 256 bits, 200 MHz; the timing from docs/performance.md:
     * 1.0 engine beats per cycle (section 1), 56 fixed cycles (section 2, column fixed), the
     * 4 receive FIFOs of 32 KB (section 2, loaded latency) */
    d->data_width = 256;
    d->engines = 1;
    d->f_clk = 200e6;
    d->beats_per_cycle = 1.0;
    d->idle_latency = 56;
    d->ingress_bytes = 4 * 32768;
    d->max_count = WS_DEFAULT_MAX_COUNT;
    d->slots = WS_DEFAULT_POOL_SLOTS;
}

static int new_section(parser *p, const char *section)
{
    snprintf(p->section, sizeof p->section, "%s", section);
    p->cur = -1;
    ws_cluster *c = p->c;
    if (!strcmp(section, "topology") || !strcmp(section, "job")) {
        int k = section[0] == 't' ? S_TOPO : S_JOB;
        if (p->sec_line[k])
            return perr(p, p->src.header, "a second [%s] section (first at line %u)", section,
                        p->sec_line[k]);
        p->sec_line[k] = p->src.header;
        p->kind = k;
        return 0;
    }
    if (strncmp(section, "device ", 7) != 0)
        return perr(p, p->src.header, "unknown section [%s] (expected [topology], [device NAME] "
                    "or [job])", section);
    const char *name = section + 7;
    if (!ws_ini_name(name, WS_CLUSTER_NAME))
        return perr(p, p->src.header, "[%s]: a device name is 1..%d letters, digits, '.', '_', '-'",
                    section, WS_CLUSTER_NAME - 1);
    for (unsigned k = 0; k < c->n_dev; k++)
        if (!strcmp(c->dev[k].name, name))
            return perr(p, p->src.header, "[%s]: a second section of device %s (first at line %u)",
                        section, name, p->dev_line[k]);
    if (c->n_dev == WS_CLUSTER_MAX_DEVICES)
        return perr(p, p->src.header, "[%s]: more than %d devices", section,
                    WS_CLUSTER_MAX_DEVICES);
    p->kind = S_DEV;
    p->cur = (int)c->n_dev++;
    ws_cluster_dev *d = &c->dev[p->cur];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    dev_defaults(d);
    p->dev_line[p->cur] = p->src.header;
    return 0;
}

static int bad(parser *p, const char *what, const char *key, const char *value,
               const char *expect)
{
    return perr(p, p->src.lineno, "%s: %s '%s': %s", what, key, value, expect);
}

#define RATE_MSG "a rate with its unit, e.g. 10Gbps or 100Gb/s, above 0"
#define TIME_MSG "a time with its unit (ns, us, ms, s), e.g. 1us"

static int link_key(parser *p, const char *what, int is_rate, const char *key, const char *v,
                    ws_cluster_link *l)
{
    double x;
    if (is_rate) {
        if (parse_with_unit(v, rate_units, 0, &x) || x < 1e3 || x > 1e13)
            return bad(p, what, key, v, RATE_MSG " (1 Kbps .. 10 Tbps)");
        l->rate = x;
    } else {
        if (parse_with_unit(v, time_units, 0, &x) || x > 1e9)
            return bad(p, what, key, v, TIME_MSG ", at most 1 s");
        l->delay_ns = (uint64_t)llround(x);
    }
    return 0;
}

static int topo_key(parser *p, int k, const char *name, const char *v)
{
    ws_cluster_topo *t = &p->c->topo;
    unsigned long long u;
    double x;
    switch (k) {
    case T_KIND:
        if (strcmp(v, "rack") != 0)
            return bad(p, "topology", name, v, "rack (leaf-spine and fat-tree: not yet)");
        t->kind = WS_TOPO_RACK;
        return 0;
    case T_HOSTS:
        if (ws_ini_uint(v, 1, WS_CLUSTER_MAX_HOSTS, &u))
            return bad(p, "topology", name, v, "1..1024");
        t->hosts = (unsigned)u;
        return 0;
    case T_RATE: return link_key(p, "topology", 1, name, v, &t->host_link);
    case T_DELAY: return link_key(p, "topology", 0, name, v, &t->host_link);
    case T_MTU:
        if (ws_ini_uint(v, 1280, 9216, &u))
            return bad(p, "topology", name, v, "the IP MTU in bytes, 1280..9216");
        t->mtu = (unsigned)u;
        return 0;
    case T_QUEUE:
        if (parse_with_unit(v, byte_units, 1, &x) || x < 9216 || x > 1e9)
            return bad(p, "topology", name, v, "bytes (units B, KB, MB, KiB, MiB), 9216 .. 1 GB");
        t->queue_bytes = (uint64_t)x;
        return 0;
    }
    return 0;
}

static int dev_key(parser *p, int k, const char *name, const char *v)
{
    ws_cluster_dev *d = &p->c->dev[p->cur];
    char what[64];
    snprintf(what, sizeof what, "device %s", d->name);
    unsigned long long u;
    double x;
    switch (k) {
    case D_SWITCH:
        if (!ws_ini_name(v, WS_CLUSTER_NAME))
            return bad(p, what, name, v, "a switch name (rack: tor0)");
        snprintf(p->dev_switch[p->cur], WS_CLUSTER_NAME, "%s", v);
        return 0;
    case D_RATE: return link_key(p, what, 1, name, v, &d->link);
    case D_DELAY: return link_key(p, what, 0, name, v, &d->link);
    case D_WIDTH:
        if (ws_ini_uint(v, 256, 1024, &u) || (u != 256 && u != 512 && u != 1024))
            return bad(p, what, name, v, "256, 512 or 1024 bits");
        d->data_width = (unsigned)u;
        return 0;
    case D_ENGINES:
        if (ws_ini_uint(v, 1, 16, &u))
            return bad(p, what, name, v, "1..16");
        d->engines = (unsigned)u;
        return 0;
    case D_FCLK:
        if (parse_with_unit(v, freq_units, 0, &x) || x < 1e6 || x > 5e9)
            return bad(p, what, name, v, "a clock with its unit (Hz, kHz, MHz, GHz), 1 MHz .. "
                       "5 GHz");
        d->f_clk = x;
        return 0;
    case D_BPC:
        if (parse_with_unit(v, no_units, 1, &x) || !(x > 0 && x <= 1))
            return bad(p, what, name, v, "beats per cycle per engine, above 0, at most 1");
        d->beats_per_cycle = x;
        return 0;
    case D_LAT:
        if (ws_ini_uint(v, 0, 1000000, &u))
            return bad(p, what, name, v, "cycles, 0..1000000");
        d->idle_latency = (unsigned)u;
        return 0;
    case D_INGRESS:
        if (parse_with_unit(v, byte_units, 1, &x) || x < WS_DEFAULT_MAX_FRAME || x > 1e9)
            return bad(p, what, name, v, "bytes (units B, KB, KiB, ...), 9216 .. 1 GB");
        d->ingress_bytes = (uint64_t)x;
        return 0;
    case D_MAXC:
        if (ws_ini_uint(v, 1, WS_LIMIT_COUNT, &u))
            return bad(p, what, name, v, "MAX_COUNT, 1..2048");
        d->max_count = (unsigned)u;
        return 0;
    case D_SLOTS:
        if (ws_ini_uint(v, 1, WS_LIMIT_SLOTS, &u))
            return bad(p, what, name, v, "the pool of slots, 1..4096");
        d->slots = (unsigned)u;
        return 0;
    }
    return 0;
}

static int job_key(parser *p, int k, const char *name, const char *v)
{
    ws_cluster_job *j = &p->c->job;
    unsigned long long u;
    double x;
    char why[128];
    switch (k) {
    case J_WORKERS:
        if (parse_hosts(v, j, why, sizeof why))
            return bad(p, "job", name, v, why);
        return 0;
    case J_ELEMS:
        if (ws_ini_uint(v, 1, UINT32_MAX, &u))
            return bad(p, "job", name, v, "binary32 elements, 1..4294967295");
        j->elems = u;
        return 0;
    case J_BYTES:
        if (parse_with_unit(v, byte_units, 1, &x) || x < 4 || x > 4.0 * UINT32_MAX ||
            fmod(x, 4) != 0)
            return bad(p, "job", name, v, "bytes (units B, KB, MB, KiB, MiB, ...), a multiple "
                       "of 4 (binary32), at most 16 GiB");
        j->elems = (uint64_t)x / 4;
        return 0;
    case J_ITERS:
        if (ws_ini_uint(v, 1, 1000, &u))
            return bad(p, "job", name, v, "1..1000");
        j->iterations = (unsigned)u;
        return 0;
    case J_COMPUTE:
        if (parse_with_unit(v, time_units, 0, &x) || x > 1e10)
            return bad(p, "job", name, v, TIME_MSG ", at most 10 s");
        j->compute_ns = (uint64_t)llround(x);
        return 0;
    case J_MODE: {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", v);
        j->modes = 0;
        for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok;
             tok = strtok_r(NULL, ", ", &save)) {
            int m = -1;
            for (int i = 0; i < WS_N_MODES; i++)
                if (!strcmp(tok, ws_cluster_mode_name((ws_cluster_mode)i)))
                    m = i;
            if (m < 0)
                return bad(p, "job", name, v, "wiresum, ring, or both separated by ','");
            if (j->modes >> m & 1)
                return bad(p, "job", name, v, "a mode given twice");
            j->modes |= 1u << m;
        }
        if (!j->modes)
            return bad(p, "job", name, v, "wiresum, ring, or both separated by ','");
        return 0;
    }
    case J_COUNT:
        if (ws_ini_uint(v, 1, WS_LIMIT_COUNT, &u))
            return bad(p, "job", name, v, "elements per chunk, 1..2048");
        j->count = (unsigned)u;
        return 0;
    case J_WINDOW:
        if (ws_ini_uint(v, 1, WS_LIMIT_SLOTS, &u))
            return bad(p, "job", name, v, "chunks in flight per worker (the job's slots), "
                       "1..4096");
        j->window = (unsigned)u;
        return 0;
    case J_DEVICE:
        if (!ws_ini_name(v, WS_CLUSTER_NAME))
            return bad(p, "job", name, v, "the name of a [device NAME] section");
        snprintf(p->job_device, sizeof p->job_device, "%s", v);
        return 0;
    case J_SEED:
        if (ws_ini_uint(v, 0, UINT64_MAX, &u))
            return bad(p, "job", name, v, "a decimal integer");
        j->seed = u;
        return 0;
    }
    return 0;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parser *p = user;
    if (p->failed)
        return 0;
    if (strcmp(section, p->section) != 0 && new_section(p, section))
        return 0;
    if (p->kind < 0)
        return perr(p, p->src.lineno, "'%s' outside any section (expected [topology], "
                    "[device NAME] or [job] first)", name), 0;
    const char *const *keys = p->kind == S_TOPO ? topo_keys : p->kind == S_DEV ? dev_keys
                                                                              : job_keys;
    unsigned *lines = p->kind == S_TOPO ? p->topo : p->kind == S_DEV ? p->dev[p->cur] : p->job;
    int k = -1;
    for (int i = 0; keys[i]; i++)
        if (!strcmp(name, keys[i]))
            k = i;
    char list[256] = "";
    for (int i = 0; keys[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", keys[i]);
    if (k < 0)
        return perr(p, p->src.lineno, "[%s]: unknown key '%s' (known: %s)", section, name, list), 0;
    if (lines[k])
        return perr(p, p->src.lineno, "[%s]: duplicate key '%s' (first at line %u)", section, name,
                    lines[k]), 0;
    lines[k] = p->src.lineno;
    if (p->kind == S_TOPO)
        topo_key(p, k, name, value);
    else if (p->kind == S_DEV)
        dev_key(p, k, name, value);
    else
        job_key(p, k, name, value);
    return !p->failed;
}

/* ---- checks across keys --------------------------------------------------------------- */

static int check(parser *p)
{
    ws_cluster *c = p->c;
    ws_cluster_topo *t = &c->topo;
    ws_cluster_job *j = &c->job;
    if (!p->sec_line[S_TOPO])
        return perr(p, 0, "no [topology] section");
    if (!p->sec_line[S_JOB])
        return perr(p, 0, "no [job] section");
    static const int topo_req[] = {T_KIND, T_HOSTS, T_RATE, T_DELAY};
    for (size_t i = 0; i < sizeof topo_req / sizeof topo_req[0]; i++)
        if (!p->topo[topo_req[i]])
            return perr(p, p->sec_line[S_TOPO], "[topology]: '%s' is required",
                        topo_keys[topo_req[i]]);
    t->switches = 1; /* rack: tor0 */
    for (unsigned k = 0; k < c->n_dev; k++) {
        ws_cluster_dev *d = &c->dev[k];
        static const int dev_req[] = {D_SWITCH, D_RATE, D_DELAY};
        for (size_t i = 0; i < sizeof dev_req / sizeof dev_req[0]; i++)
            if (!p->dev[k][dev_req[i]])
                return perr(p, p->dev_line[k], "device %s: '%s' is required", d->name,
                            dev_keys[dev_req[i]]);
        int sw = -1;
        for (unsigned s = 0; s < t->switches; s++) {
            char nm[WS_CLUSTER_NAME];
            ws_cluster_switch_name(c, s, nm);
            if (!strcmp(nm, p->dev_switch[k]))
                sw = (int)s;
        }
        if (sw < 0)
            return perr(p, p->dev[k][D_SWITCH], "device %s: switch '%s': no such switch (a rack "
                        "has one, tor0)", d->name, p->dev_switch[k]);
        d->sw = (unsigned)sw;
    }
    static const int job_req[] = {J_WORKERS, J_MODE};
    for (size_t i = 0; i < sizeof job_req / sizeof job_req[0]; i++)
        if (!p->job[job_req[i]])
            return perr(p, p->sec_line[S_JOB], "[job]: '%s' is required", job_keys[job_req[i]]);
    if (!p->job[J_ELEMS] == !p->job[J_BYTES])
        return perr(p, p->job[J_ELEMS] ? (p->job[J_ELEMS] > p->job[J_BYTES] ? p->job[J_ELEMS]
                                                                             : p->job[J_BYTES])
                                       : p->sec_line[S_JOB],
                    "[job]: give the tensor as 'elements' or as 'tensor_bytes', %s",
                    p->job[J_ELEMS] ? "not both" : "one of them");
    for (unsigned w = 0; w < j->workers; w++)
        if (j->host[w] >= t->hosts)
            return perr(p, p->job[J_WORKERS], "[job]: workers: host %u, and the topology has "
                        "hosts 0..%u", j->host[w], t->hosts - 1);
    if (j->modes >> WS_MODE_RING & 1 && j->workers < 2)
        return perr(p, p->job[J_WORKERS], "[job]: mode ring needs at least 2 workers");
    j->device = -1;
    if (!(j->modes >> WS_MODE_WIRESUM & 1))
        return 0;
    /* wiresum: the device, and the job within its build */
    if (p->job[J_DEVICE]) {
        for (unsigned k = 0; k < c->n_dev; k++)
            if (!strcmp(c->dev[k].name, p->job_device))
                j->device = (int)k;
        if (j->device < 0)
            return perr(p, p->job[J_DEVICE], "[job]: device '%s': no [device %s] section",
                        p->job_device, p->job_device);
    } else if (c->n_dev == 1) {
        j->device = 0;
    } else {
        return perr(p, p->job[J_MODE], "[job]: mode wiresum needs %s", c->n_dev
                    ? "'device = NAME' (there are several devices)" : "a [device NAME] section");
    }
    const ws_cluster_dev *d = &c->dev[j->device];
    unsigned dl = p->dev_line[j->device];
    if (j->workers > WS_LIMIT_WORKERS)
        return perr(p, p->job[J_WORKERS], "[job]: %u workers: a device serves at most %d "
                    "(mode wiresum)", j->workers, WS_LIMIT_WORKERS);
    if (j->count > d->max_count)
        return perr(p, p->job[J_COUNT] ? p->job[J_COUNT] : p->sec_line[S_JOB],
                    "[job]: count %u: device %s has max_count %u (line %u)", j->count, d->name,
                    d->max_count, p->dev[j->device][D_MAXC] ? p->dev[j->device][D_MAXC] : dl);
    if (j->window > d->slots)
        return perr(p, p->job[J_WINDOW] ? p->job[J_WINDOW] : p->sec_line[S_JOB],
                    "[job]: window %u: device %s has %u slots (line %u)", j->window, d->name,
                    d->slots, p->dev[j->device][D_SLOTS] ? p->dev[j->device][D_SLOTS] : dl);
    size_t ip_len = ws_frame_len(j->count) - WS_ETH_LEN;
    if (ip_len > t->mtu)
        return perr(p, p->job[J_COUNT] ? p->job[J_COUNT] : p->sec_line[S_JOB],
                    "[job]: count %u makes IP packets of %zu bytes, above the MTU of %u (at "
                    "most %u elements)", j->count, ip_len, t->mtu,
                    (unsigned)((t->mtu + WS_ETH_LEN - WS_OFF_ELEMS) / 4));
    if (ws_frame_len(j->count) > d->ingress_bytes)
        return perr(p, dl, "device %s: ingress_buffer smaller than one frame", d->name);
    return 0;
}

int ws_cluster_load(ws_cluster *c, const char *path, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->topo.mtu = 9000;
    c->topo.queue_bytes = 1000000;
    c->job.iterations = 1;
    c->job.count = 256;
    c->job.window = 16;
    c->job.seed = 1;
    c->job.device = -1;
    parser *p = calloc(1, sizeof *p);
    if (!p)
        return snprintf(err, errlen, "%s: out of memory", path), -1;
    p->c = c;
    p->path = path;
    p->err = err;
    p->errlen = errlen;
    p->kind = -1;
    p->cur = -1;
    p->src.in = fopen(path, "r");
    if (!p->src.in) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(p);
        return -1;
    }
    int r = ini_parse_stream(ws_ini_read_line, &p->src, on_key, p);
    if (r > 0 && !p->failed)
        perr(p, (unsigned)r, "syntax error (expected [SECTION] or key = value)");
    else if (r < 0 && !p->failed)
        perr(p, 0, "cannot read");
    if (!p->failed)
        check(p);
    fclose(p->src.in);
    int rc = p->failed ? -1 : 0;
    free(p);
    return rc;
}

const char *ws_cluster_mode_name(ws_cluster_mode m)
{
    static const char *const names[WS_N_MODES] = {"wiresum", "ring"};
    return (unsigned)m < WS_N_MODES ? names[m] : NULL;
}

void ws_cluster_switch_name(const ws_cluster *c, unsigned s, char out[WS_CLUSTER_NAME])
{
    (void)c; /* rack: one ToR */
    snprintf(out, WS_CLUSTER_NAME, "tor%u", s);
}
