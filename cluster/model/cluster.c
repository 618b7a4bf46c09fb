/* cluster.c - the cluster file of `wiresum cluster` (cluster.h, docs/cluster.md). */
#include "cluster.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo.h"
#include "ini_lines.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"
#include "wiresum/xsum.h"

/* the keys of each section; a key's line is kept for the checks after the parse */
enum { S_TOPO, S_DEV, S_JOB, S_BG, S_N };
static const char *const topo_keys[] = {"kind", "hosts", "rate", "delay", "mtu", "queue",
                                        "leaves", "spines", "hosts_per_leaf", "uplink_rate",
                                        "uplink_delay", "k", "ecn_threshold", NULL};
static const char *const dev_keys[] = {"switch", "rate", "delay", "data_width", "engines",
                                       "f_clk", "beats_per_cycle", "idle_latency",
                                       "ingress_buffer", "max_count", "slots", "model",
                                       "ecn_threshold", "ports", "partial", NULL};
static const char *const job_keys[] = {"workers", "elements", "tensor_bytes", "iterations",
                                       "compute", "mode", "count", "window", "device", "seed",
                                       "shard_devices", "root_device", "leaf_devices", "cc",
                                       "mid_devices", "values", NULL};
enum { T_KIND, T_HOSTS, T_RATE, T_DELAY, T_MTU, T_QUEUE, T_LEAVES, T_SPINES, T_HPL, T_URATE,
       T_UDELAY, T_K, T_ECN };
enum { D_SWITCH, D_RATE, D_DELAY, D_WIDTH, D_ENGINES, D_FCLK, D_BPC, D_LAT, D_INGRESS, D_MAXC,
       D_SLOTS, D_MODEL, D_ECN, D_PORTS, D_PARTIAL };
enum { J_WORKERS, J_ELEMS, J_BYTES, J_ITERS, J_COMPUTE, J_MODE, J_COUNT, J_WINDOW, J_DEVICE,
       J_SEED, J_SHARDS, J_ROOT, J_LEAVES, J_CC, J_MIDS, J_VALUES };
#define MAX_KEYS 16
#define LIST_LEN 4096 /* a list of device names as given (on one line or several) */

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
    char job_root[LIST_LEN], job_shards[LIST_LEN], job_leaves[LIST_LEN], job_mids[LIST_LEN];
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
    d->ports = 1;
    d->engines = 1;
    d->f_clk = 200e6;
    d->beats_per_cycle = 1.0;
    d->idle_latency = 56;
    d->partial = -1;
    d->ingress_bytes = 4 * 32768;
    d->max_count = WS_DEFAULT_MAX_COUNT;
    d->slots = WS_DEFAULT_POOL_SLOTS;
}

/* ---- [background] ------------------------------------------------------------------ */

static const char *const bg_keys[] = {"distribution", "load", "seed", "flows", "duration", NULL};
enum { B_DIST, B_LOAD, B_SEED, B_FLOWS, B_DURATION };

/* One key of [background] at line: 0, or -1 with the reason in why (the caller adds FILE:LINE;
 * a distribution file's own errors come with its FILE:LINE, *own_line set to 0).
 * cluster_path: the cluster file (relative distribution paths are taken from its folder). */
static int bg_key(ws_cluster_bg *b, const char *cluster_path, const char *key, const char *value,
                  unsigned line, unsigned *own_line, char *why, size_t whylen)
{
    *own_line = line;
    int k = -1;
    for (int i = 0; bg_keys[i]; i++)
        if (!strcmp(key, bg_keys[i]))
            k = i;
    if (k < 0)
        return snprintf(why, whylen, "[background]: unknown key '%s' (known: distribution, "
                        "load, seed, flows, duration)", key), -1;
    if (b->key_line[k])
        return snprintf(why, whylen, "[background]: duplicate key '%s' (first at line %u)", key,
                        b->key_line[k]), -1;
    b->key_line[k] = line;
    unsigned long long u;
    char *end;
    switch (k) {
    case B_DIST: {
        const char *slash = strrchr(cluster_path, '/');
        int dir = value[0] != '/' && slash;
        if ((size_t)snprintf(b->path, sizeof b->path, "%.*s%s", dir ? (int)(slash - cluster_path
                             + 1) : 0, cluster_path, value) >= sizeof b->path)
            return snprintf(why, whylen, "background: distribution '%s': path too long", value),
                   -1;
        if (ws_cdf_load(&b->dist, b->path, why, whylen)) {
            *own_line = 0;
            return -1;
        }
        return 0;
    }
    case B_LOAD: {
        errno = 0;
        double x = strtod(value, &end);
        int pct = *end == '%';
        if (pct)
            x /= 100, end++;
        if (end == value || *end || errno || !(x > 0 && x < 1))
            return snprintf(why, whylen, "background: load '%s': a fraction of the hosts' link "
                            "capacity above 0 and under 1, as 0.3 or 30%%", value), -1;
        b->load = x;
        return 0;
    }
    case B_SEED:
        if (ws_ini_uint(value, 0, UINT64_MAX, &u))
            return snprintf(why, whylen, "background: seed '%s': a decimal integer", value), -1;
        b->seed = u;
        return 0;
    case B_FLOWS:
        if (ws_ini_uint(value, 1, WS_BG_MAX_FLOWS, &u))
            return snprintf(why, whylen, "background: flows '%s': 1..%d", value,
                            WS_BG_MAX_FLOWS), -1;
        b->flows = u;
        return 0;
    case B_DURATION:
        if (ws_cluster_time_ns(value, &b->duration_ns) || !b->duration_ns ||
            b->duration_ns > 10000000000ull)
            return snprintf(why, whylen, "background: duration '%s': a time with its unit (ns, "
                            "us, ms, s), above 0, at most 10 s", value), -1;
        return 0;
    }
    return 0;
}

/* After the parse: the keys required are there. 0, or -1 with the line and the reason. */
static int bg_check(const ws_cluster_bg *b, unsigned *line, char *why, size_t whylen)
{
    *line = b->line;
    if (!b->on)
        return 0;
    if (!b->key_line[B_DIST] || !b->key_line[B_LOAD])
        return snprintf(why, whylen, "[background]: '%s' is required",
                        b->key_line[B_DIST] ? "load" : "distribution"), -1;
    if (!b->key_line[B_FLOWS] == !b->key_line[B_DURATION]) {
        if (b->key_line[B_FLOWS])
            *line = b->key_line[B_FLOWS] > b->key_line[B_DURATION] ? b->key_line[B_FLOWS]
                                                                   : b->key_line[B_DURATION];
        return snprintf(why, whylen, "[background]: give 'flows' (a number of flows) or "
                        "'duration' (the time they arrive in), %s",
                        b->key_line[B_FLOWS] ? "not both" : "one of them"), -1;
    }
    return 0;
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
    if (!strcmp(section, "background")) { /* bg.h */
        if (c->bg.on)
            return perr(p, p->src.header, "a second [background] section (first at line %u)",
                        c->bg.line);
        c->bg.on = 1;
        c->bg.line = p->src.header;
        p->kind = S_BG;
        return 0;
    }
    if (strncmp(section, "device ", 7) != 0)
        return perr(p, p->src.header, "unknown section [%s] (expected [topology], [device NAME], "
                    "[job] or [background])", section);
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
#define MODES_MSG "one or more of wiresum, sharded, hierarchical, ring, halving-doubling, " \
                  "separated by ','"

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
        if (!strcmp(v, "rack"))
            t->kind = WS_TOPO_RACK;
        else if (!strcmp(v, "leafspine"))
            t->kind = WS_TOPO_LEAFSPINE;
        else if (!strcmp(v, "fattree"))
            t->kind = WS_TOPO_FATTREE;
        else
            return bad(p, "topology", name, v, "rack, leafspine or fattree");
        return 0;
    case T_LEAVES:
    case T_SPINES:
    case T_HPL:
        if (ws_ini_uint(v, 1, k == T_SPINES ? 32 : 64, &u))
            return bad(p, "topology", name, v, k == T_SPINES ? "1..32" : "1..64");
        *(k == T_LEAVES ? &t->leaves : k == T_SPINES ? &t->spines : &t->hosts_per_leaf) =
            (unsigned)u;
        return 0;
    case T_URATE: return link_key(p, "topology", 1, name, v, &t->uplink);
    case T_UDELAY: return link_key(p, "topology", 0, name, v, &t->uplink);
    case T_K:
        if (ws_ini_uint(v, 2, 16, &u) || u % 2)
            return bad(p, "topology", name, v, "an even number, 2..16 (k^3/4 hosts: 1024 at 16)");
        t->k = (unsigned)u;
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
    case T_ECN:
        if (parse_with_unit(v, byte_units, 1, &x) || x < 1 || x > 1e9)
            return bad(p, "topology", name, v, "the queue above which switch ports mark ECN CE, "
                       "bytes (units B, KB, KiB, ...), e.g. 100KB");
        t->ecn_bytes = (uint64_t)x;
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
            return bad(p, what, name, v, "a switch name (tor0; leaf<i>, spine<j>; edge<p>.<i>, "
                       "agg<p>.<j>, core<c>)");
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
        if (ws_ini_uint(v, 1, WS_LIMIT_PORTS, &u))
            return bad(p, what, name, v, "1..16, dividing ports");
        d->engines = (unsigned)u;
        return 0;
    case D_PORTS:
        if (ws_ini_uint(v, 1, WS_LIMIT_PORTS, &u))
            return bad(p, what, name, v, "1..16 links to its switch, a multiple of engines");
        d->ports = (unsigned)u;
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
    case D_PARTIAL:
        if (ws_ini_uint(v, 0, 1, &u))
            return bad(p, what, name, v, "0 or 1 (PARTIAL: a build that takes PARTIAL frames)");
        d->partial = (int)u;
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
    case D_MODEL:
        if (strcmp(v, "timing") && strcmp(v, "rtl"))
            return bad(p, what, name, v, "timing (the reference behind the timing model) or rtl "
                       "(the Verilator model)");
        d->model = strcmp(v, "rtl") ? WS_CLUSTER_TIMING : WS_CLUSTER_RTL;
        return 0;
    case D_ECN:
        if (parse_with_unit(v, byte_units, 1, &x) || x < 1 || x > 1e9)
            return bad(p, what, name, v, "the ingress buffer's bytes above which the device "
                       "marks ECN CE, bytes (units B, KB, KiB, ...), e.g. 100KB");
        d->ecn_bytes = (uint64_t)x;
        return 0;
    }
    return 0;
}

/* the text of list key k of [job] (shard_devices, root_device, leaf_devices, mid_devices) */
static char *list_of(parser *p, int k)
{
    return k == J_SHARDS ? p->job_shards : k == J_ROOT ? p->job_root
           : k == J_LEAVES ? p->job_leaves : p->job_mids;
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
                return bad(p, "job", name, v, MODES_MSG);
            if (j->modes >> m & 1)
                return bad(p, "job", name, v, "a mode given twice");
            j->modes |= 1u << m;
        }
        if (!j->modes)
            return bad(p, "job", name, v, MODES_MSG);
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
    case J_SHARDS:
    case J_ROOT:
    case J_LEAVES:
    case J_MIDS: {
        char *l = list_of(p, k);
        if (strlen(l) + strlen(v) + 2 >= LIST_LEN)
            return bad(p, "job", name, v, "too long");
        snprintf(l + strlen(l), LIST_LEN - strlen(l), "%s%s", *l ? ", " : "", v);
        return 0;
    }
    case J_CC:
        if (strcmp(v, "on") && strcmp(v, "off"))
            return bad(p, "job", name, v, "on (the transport's DCTCP-like window) or off");
        j->cc = !strcmp(v, "on");
        return 0;
    case J_VALUES:
        if (ws_values_kind_parse(v, &j->values))
            return bad(p, "job", name, v, "normal (gradients), special (subnormals, infinities, "
                       "NaNs, near overflow) or mixed (1 in 64 special)");
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
    if (p->kind == S_BG) {
        char why[768];
        unsigned line;
        if (bg_key(&p->c->bg, p->path, name, value, p->src.lineno, &line, why,
                              sizeof why))
            return (line ? perr(p, line, "%s", why) : perr(p, 0, "[background] at line %u: %s",
                                                           p->src.lineno, why)), 0;
        return 1;
    }
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
    /* a list of devices goes on over indented lines (inih hands each on under the same key) */
    int more = p->kind == S_JOB && lines[k] && p->src.indented &&
               (k == J_SHARDS || k == J_ROOT || k == J_LEAVES || k == J_MIDS);
    if (lines[k] && !more)
        return perr(p, p->src.lineno, "[%s]: duplicate key '%s' (first at line %u)", section, name,
                    lines[k]), 0;
    if (!more)
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

/* [topology]: the keys its kind needs and no other, then the derived structure */
static int check_topo(parser *p)
{
    ws_cluster_topo *t = &p->c->topo;
    static const int common_req[] = {T_KIND, T_RATE, T_DELAY};
    for (size_t i = 0; i < sizeof common_req / sizeof common_req[0]; i++)
        if (!p->topo[common_req[i]])
            return perr(p, p->sec_line[S_TOPO], "[topology]: '%s' is required",
                        topo_keys[common_req[i]]);
    /* per kind: the keys it needs (1) and those it has no use for (0); hosts may be given
     * for leafspine and fattree (2) and must then agree */
    static const char *const kinds[] = {NULL, "rack", "leafspine", "fattree"};
    static const signed char need[4][MAX_KEYS] = {
        [WS_TOPO_RACK] = {[T_HOSTS] = 1, [T_LEAVES] = -1, [T_SPINES] = -1, [T_HPL] = -1,
                          [T_URATE] = -1, [T_UDELAY] = -1, [T_K] = -1},
        [WS_TOPO_LEAFSPINE] = {[T_HOSTS] = 2, [T_LEAVES] = 1, [T_SPINES] = 1, [T_HPL] = 1,
                               [T_K] = -1},
        [WS_TOPO_FATTREE] = {[T_HOSTS] = 2, [T_LEAVES] = -1, [T_SPINES] = -1, [T_HPL] = -1,
                             [T_K] = 1},
    };
    for (int k = 0; topo_keys[k]; k++) {
        if (need[t->kind][k] == 1 && !p->topo[k])
            return perr(p, p->sec_line[S_TOPO], "[topology]: '%s' is required for kind %s",
                        topo_keys[k], kinds[t->kind]);
        if (need[t->kind][k] == -1 && p->topo[k])
            return perr(p, p->topo[k], "[topology]: '%s' has no meaning for kind %s (line %u)",
                        topo_keys[k], kinds[t->kind], p->topo[T_KIND]);
    }
    if (!p->topo[T_URATE])
        t->uplink.rate = t->host_link.rate;
    if (!p->topo[T_UDELAY])
        t->uplink.delay_ns = t->host_link.delay_ns;
    unsigned given = t->hosts;
    ws_topo_derive(t);
    if (t->kind != WS_TOPO_RACK && p->topo[T_HOSTS] && given != t->hosts)
        return perr(p, p->topo[T_HOSTS], "[topology]: hosts %u, and this %s has %u", given,
                    kinds[t->kind], t->hosts);
    if (t->hosts > WS_CLUSTER_MAX_HOSTS)
        return perr(p, p->topo[T_HPL], "[topology]: %u leaves x %u hosts per leaf = %u hosts, "
                    "at most %d", t->leaves, t->hosts_per_leaf, t->hosts, WS_CLUSTER_MAX_HOSTS);
    return 0;
}

/* the devices named in list (at line) into out[] (at most max), each once unless repeat; 0 or
 * -1 */
static int device_list(parser *p, const char *list, unsigned line, const char *key, int *out,
                       unsigned *n, unsigned max, int repeat)
{
    ws_cluster *c = p->c;
    char buf[LIST_LEN];
    snprintf(buf, sizeof buf, "%s", list);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        int k = -1;
        for (unsigned d = 0; d < c->n_dev; d++)
            if (!strcmp(c->dev[d].name, tok))
                k = (int)d;
        if (k < 0)
            return perr(p, line, "[job]: %s: '%s': no [device %s] section", key, tok, tok);
        for (unsigned i = 0; i < *n && !repeat; i++)
            if (out[i] == k)
                return perr(p, line, "[job]: %s: device %s given twice", key, tok);
        if (*n == max)
            return perr(p, line, "[job]: %s: more than %u devices", key, max);
        out[(*n)++] = k;
    }
    return *n ? 0 : perr(p, line, "[job]: %s: no device", key);
}

/* The job on device k within its build and the network: members (at most 64), count, window
 * (the slots of each of its jobs: one a tree it serves),
 * its DATA frames (and RESULTs, as long) through the MTU, and in mode hierarchical its PARTIALs
 * (partial_len bytes at most, 0 in the other modes): an IPv4 datagram that ns-3 fragments to the
 * MTU and reassembles at the receiving device, so at most a frame the device takes
 * (WS_LIMIT_FRAME); the longest frame into its ingress buffer. */
static int fits(parser *p, unsigned k, unsigned members, unsigned jobs, size_t partial_len,
                const char *mode)
{
    ws_cluster *c = p->c;
    const ws_cluster_job *j = &c->job;
    const ws_cluster_dev *d = &c->dev[k];
    unsigned dl = p->dev_line[k];
    unsigned job_line = p->job[J_MODE];
    unsigned count_line = p->job[J_COUNT] ? p->job[J_COUNT] : job_line;
    size_t data_len = ws_frame_len(j->count);
    if (partial_len && d->partial == 0)
        return perr(p, p->dev[k][D_PARTIAL], "device %s: partial 0: a device of mode %s's "
                    "trees takes and sends PARTIAL frames (docs/protocol.md section 9)", d->name,
                    mode);
    if (!partial_len && d->partial == 1 && ws_partial_max_len(j->count) > WS_LIMIT_FRAME)
        return perr(p, count_line, "[job]: count %u: device %s is built to take PARTIALs "
                    "(partial = 1, line %u), so its frames hold a PARTIAL of that count, up to "
                    "%zu bytes, above %d (count at most %zu)", j->count, d->name,
                    p->dev[k][D_PARTIAL], ws_partial_max_len(j->count), WS_LIMIT_FRAME,
                    (size_t)(WS_LIMIT_FRAME - WS_OFF_ELEMS) / (8 * WS_X64_MAX_WORDS));
    if (members > WS_LIMIT_WORKERS)
        return perr(p, p->job[J_WORKERS], "[job]: mode %s: device %s would serve %u members, "
                    "a device serves at most %d", mode, d->name, members, WS_LIMIT_WORKERS);
    if (j->count > d->max_count)
        return perr(p, count_line, "[job]: count %u: device %s has max_count %u (line %u)",
                    j->count, d->name, d->max_count, p->dev[k][D_MAXC] ? p->dev[k][D_MAXC] : dl);
    if ((uint64_t)j->window * jobs > d->slots)
        return perr(p, p->job[J_WINDOW] ? p->job[J_WINDOW] : job_line,
                    "[job]: window %u%s: device %s has %u slots (line %u)", j->window,
                    jobs > 1 ? " a tree, and it serves several" : "", d->name, d->slots,
                    p->dev[k][D_SLOTS] ? p->dev[k][D_SLOTS] : dl);
    if (data_len - WS_ETH_LEN > c->topo.mtu)
        return perr(p, count_line, "[job]: count %u makes IP packets of %zu bytes, above the MTU "
                    "of %u", j->count, data_len - WS_ETH_LEN, c->topo.mtu);
    if (partial_len > WS_LIMIT_FRAME)
        return perr(p, count_line, "[job]: count %u makes PARTIALs of up to %zu bytes, above the "
                    "%d of a device's longest frame (mode hierarchical: count at most %zu)",
                    j->count, partial_len, WS_LIMIT_FRAME,
                    (size_t)(WS_LIMIT_FRAME - WS_OFF_ELEMS) / (8 * WS_X64_MAX_WORDS));
    size_t longest = partial_len > data_len ? partial_len : data_len;
    if (longest > d->ingress_bytes)
        return perr(p, dl, "device %s: ingress_buffer smaller than one frame (%zu bytes)",
                    d->name, longest);
    return 0;
}

/* 1 when host h is below switch s: reached from it going down only */
static int below(const ws_cluster *c, unsigned s, unsigned h)
{
    const ws_cluster_topo *t = &c->topo;
    unsigned e = ws_topo_host_switch(c, h);
    if (s == e || t->kind == WS_TOPO_RACK)
        return s == e;
    if (t->kind == WS_TOPO_LEAFSPINE)
        return s >= t->leaves; /* a spine: every host */
    unsigned hh = t->k / 2, edges = t->k * hh;
    if (s >= t->k * t->k)
        return 1; /* a core */
    return s >= edges && (s - edges) / hh == e / hh; /* the aggregation switches of its pod */
}

/* The jobs device k has in mode hierarchical: one a tree whose leaf, mid or root it is. */
static unsigned tree_jobs(const ws_cluster_job *j, int k)
{
    for (unsigned l = 0; l < j->n_leaves; l++)
        if (j->leaf_dev[l] == k)
            return j->n_trees;
    unsigned n = 0;
    for (unsigned t = 0; t < j->n_trees; t++)
        n += j->root_dev[t] == k;
    for (unsigned m = 0; m < j->n_mids; m++)
        n += (j->mid_dev[m] == k) * (j->mid_groups == 1 ? j->n_trees : 1);
    return n;
}

/* mode hierarchical's middle level (mid_devices, in j->mid_dev): each mid device the parent of
 * the consecutive leaf devices whose workers are all below its switch, the mids in rank order;
 * a group ends where its mids have taken every leaf once, and the next begins: one group a
 * tree, or one for every tree. 0 or -1 */
static int mid_level(parser *p, unsigned line, size_t partial)
{
    ws_cluster *c = p->c;
    ws_cluster_job *j = &c->job;
    unsigned next = 0;
    j->mid_groups = 0;
    j->mid_group0[0] = 0;
    for (unsigned m = 0; m < j->n_mids; m++) {
        const ws_cluster_dev *d = &c->dev[j->mid_dev[m]];
        for (unsigned t = 0; t < j->n_trees; t++)
            if (j->mid_dev[m] == j->root_dev[t])
                return perr(p, line, "[job]: mid_devices: %s is a root_device", d->name);
        for (unsigned l = 0; l < j->n_leaves; l++)
            if (j->leaf_dev[l] == j->mid_dev[m])
                return perr(p, line, "[job]: mid_devices: %s is also a leaf device", d->name);
        for (unsigned o = j->mid_group0[j->mid_groups]; o < m; o++)
            if (j->mid_dev[o] == j->mid_dev[m])
                return perr(p, line, "[job]: mid_devices: %s twice in the mids of one tree",
                            d->name);
        char sw[WS_CLUSTER_NAME];
        ws_topo_switch_name(c, d->sw, sw);
        j->mid_l0[m] = next;
        while (next < j->n_leaves) {
            int all = 1;
            for (unsigned w = j->leaf_w0[next]; w < j->leaf_w1[next] && all; w++)
                all = below(c, d->sw, j->host[w]);
            if (!all)
                break;
            next++;
        }
        if (next == j->mid_l0[m])
            return perr(p, line, "[job]: mid_devices: %s (on %s) %s", d->name, sw,
                        "does not serve the next leaf device in rank order: each mid device "
                        "serves the consecutive leaves whose workers are below its switch");
        j->mid_l1[m] = next;
        if (next == j->n_leaves) { /* a group complete */
            if (j->mid_groups == WS_CLUSTER_MAX_TREES)
                return perr(p, line, "[job]: mid_devices: more groups than trees");
            j->mid_group0[++j->mid_groups] = m + 1;
            next = 0;
        }
    }
    if (next)
        return perr(p, line, "[job]: mid_devices: leaf device %s is below none of them",
                    c->dev[j->leaf_dev[next]].name);
    if (j->mid_groups != 1 && j->mid_groups != j->n_trees)
        return perr(p, line, "[job]: mid_devices: %u groups (each covering every leaf once) for "
                    "%u trees: give one group that every tree shares or one a tree, in the "
                    "order of root_device", j->mid_groups, j->n_trees);
    for (unsigned m = 0; m < j->n_mids; m++)
        if (fits(p, (unsigned)j->mid_dev[m], j->mid_l1[m] - j->mid_l0[m],
                 tree_jobs(j, j->mid_dev[m]), partial, "hierarchical"))
            return -1;
    return 0;
}

/* mode hierarchical: the trees of j (roots, leaves, mids given) checked, and the ranks each
 * leaf serves, the leaves each mid does, derived; line: the lines of the keys (the [job]'s
 * for the default arrangement). 0 or -1 */
static int check_trees(parser *p, unsigned leaf_line, unsigned mid_line)
{
    ws_cluster *c = p->c;
    ws_cluster_job *j = &c->job;
    size_t partial = ws_partial_max_len(j->count);
    for (unsigned t = 0; t < j->n_trees; t++)
        for (unsigned l = 0; l < j->n_leaves; l++)
            if (j->leaf_dev[l] == j->root_dev[t])
                return perr(p, leaf_line, "[job]: leaf_devices: %s is a root_device",
                            c->dev[j->root_dev[t]].name);
    /* each leaf device serves the workers below its switch: consecutive ranks, the leaves in
     * rank order, every worker once */
    unsigned next = 0;
    for (unsigned l = 0; l < j->n_leaves; l++) {
        const ws_cluster_dev *d = &c->dev[j->leaf_dev[l]];
        char sw[WS_CLUSTER_NAME];
        ws_topo_switch_name(c, d->sw, sw);
        if (next == j->workers || !below(c, d->sw, j->host[next]))
            return perr(p, leaf_line, "[job]: leaf_devices: %s (on %s) %s", d->name, sw,
                        next == j->workers ? "has no worker left below its switch"
                                           : "does not serve the next worker in rank order: "
                                             "each leaf serves the consecutive ranks below its "
                                             "switch, the leaves in rank order");
        j->leaf_w0[l] = next;
        while (next < j->workers && below(c, d->sw, j->host[next]))
            next++;
        j->leaf_w1[l] = next;
        if (fits(p, (unsigned)j->leaf_dev[l], next - j->leaf_w0[l], j->n_trees, partial,
                 "hierarchical"))
            return -1;
    }
    if (next != j->workers)
        return perr(p, leaf_line, "[job]: leaf_devices: worker rank %u (host %u) is below none "
                    "of them", next, j->host[next]);
    if (j->n_mids && mid_level(p, mid_line, partial))
        return -1;
    for (unsigned t = 0; t < j->n_trees; t++)
        if (fits(p, (unsigned)j->root_dev[t], j->n_mids ? j->mid_group0[1] : j->n_leaves,
                 tree_jobs(j, j->root_dev[t]), partial, "hierarchical"))
            return -1;
    return 0;
}

/* ---- the default arrangement (a file without [device]: docs/cluster.md section 2) --------- */

/* Every placed device is a 1024-bit datapath at 340 MHz (docs/performance.md section 5): a
 * port takes a beat a cycle, 348.16 Gb/s. A PARTIAL carries about 2.5 times the DATA bytes of
 * one of its leaf's workers (8 bytes an element and record words against 4), at their pace. */
#define PLACE_WIDTH 1024
#define PLACE_FCLK 340e6
#define PLACE_PARTIAL 2.5
/* the round trip a placed job's window is sized for: the window bounds the transport's, which
 * follows the measured one (driver/transport.c) */
#define PLACE_RTT 40e-6

/* The busiest port's load of a device of `ports` ports with `members` members each offering
 * bps (rank r on port r mod ports) and `jobs` parents each taking up_bps (job t's on port
 * (members + t) mod ports: cluster/model/cjob.c), either way: a member's DATA in and its RESULTs
 * out, a parent's PARTIALs out and its RESULTs in (as many bytes or fewer). */
static double port_load(unsigned ports, unsigned members, double bps, unsigned jobs,
                        double up_bps)
{
    double most = 0;
    for (unsigned q = 0; q < ports; q++) {
        double x = (double)(members / ports + (q < members % ports)) * bps;
        for (unsigned t = 0; t < jobs && up_bps > 0; t++)
            x += (members + t) % ports == q ? up_bps : 0;
        most = x > most ? x : most;
    }
    return most;
}

/* A device on switch sw for `members` members each offering bps, serving `jobs` jobs of the
 * job's window, each with a parent taking up_bps of PARTIALs (0: a root): 1024 bits at 340 MHz,
 * or the clock that gives one member a port with 10 % to spare; the fewest ports (at most 16)
 * whose busiest has 10 % to spare (the result generator sends a RESULT a member and
 * the PARTIAL, as many bytes as come in), an engine a port, a link a port of 1.25 times the
 * busiest's load, slots for its jobs. Its index, or -1. */
static int place_dev(parser *p, const char *prefix, unsigned sw, unsigned members, double bps,
                     unsigned jobs, double up_bps)
{
    ws_cluster *c = p->c;
    if (c->n_dev == WS_CLUSTER_MAX_DEVICES)
        return perr(p, p->job[J_WORKERS], "[job]: the default arrangement needs more than %d "
                    "devices", WS_CLUSTER_MAX_DEVICES);
    ws_cluster_dev *d = &c->dev[c->n_dev];
    memset(d, 0, sizeof *d);
    dev_defaults(d);
    char name[WS_CLUSTER_NAME];
    ws_topo_switch_name(c, sw, name);
    snprintf(d->name, sizeof d->name, "%s%.24s", prefix, name);
    d->sw = sw;
    d->data_width = PLACE_WIDTH;
    /* a port takes a member's frames alone: a faster clock for a member above a port's rate
     * (400 Gb/s: 430 MHz) */
    double one = bps > up_bps ? bps : up_bps;
    d->f_clk = one * 1.1 > PLACE_WIDTH * PLACE_FCLK ? ceil(one * 1.1 / PLACE_WIDTH / 1e6) * 1e6
                                                    : PLACE_FCLK;
    unsigned ports = 1;
    while (ports < 16 && port_load(ports, members, bps, jobs, up_bps) * 1.1 >
                             PLACE_WIDTH * d->f_clk)
        ports++;
    d->ports = d->engines = ports;
    d->link.rate = ceil(port_load(ports, members, bps, jobs, up_bps) * 1.25 / 1e9) * 1e9;
    d->link.delay_ns = 500;
    d->ingress_bytes = 4u << 20;
    d->max_count = WS_LIMIT_COUNT;
    unsigned slots = jobs * c->job.window;
    d->slots = slots > d->slots ? (slots < WS_LIMIT_SLOTS ? slots : WS_LIMIT_SLOTS) : d->slots;
    return (int)c->n_dev++;
}

/* The default arrangement of the devices for the workers and the fabric, with the job's modes
 * when the file gives none: mode wiresum through one device on the workers' switch when one
 * switch holds them all (on the lowest switch above them for mode wiresum in a larger fabric);
 * else mode hierarchical in T trees: a leaf device on every ToR/leaf/edge switch with workers,
 * shared by the trees, and tree t's root on spine t mod spines (leaf-spine: T = spines, or a
 * multiple of it when one root's 16 ports would not take every leaf's PARTIALs), or in a fat-tree
 * on aggregation switch p.t of their pod p when it is the only one, else on core t x k/2 with a
 * mid device on each pod's aggregation switch p.t (T = k/2): each tree's PARTIALs and RESULTs
 * take their own uplinks, so every uplink of a leaf carries a T-th of them. The devices are
 * provisioned for their members' rate (place_dev); count is the largest multiple of 32 (a beat)
 * whose frames fit the MTU and, in a hierarchy, a device's longest frame; the window is for
 * PLACE_RTT at a tree's share of the host link. */
static int place(parser *p)
{
    ws_cluster *c = p->c;
    ws_cluster_topo *t = &c->topo;
    ws_cluster_job *j = &c->job;
    unsigned line = p->job[J_WORKERS];
    /* the leaves: the workers' switches, in rank order */
    static unsigned leaf_sw[WS_CLUSTER_MAX_HOSTS];
    unsigned nl = 0;
    for (unsigned w = 0; w < j->workers; w++) {
        unsigned sw = ws_topo_host_switch(c, j->host[w]);
        if (nl && leaf_sw[nl - 1] == sw)
            continue;
        for (unsigned l = 0; l < nl; l++)
            if (leaf_sw[l] == sw) {
                char nm[WS_CLUSTER_NAME];
                ws_topo_switch_name(c, sw, nm);
                return perr(p, line, "[job]: workers: rank %u (host %u) is below %s, and so "
                            "are ranks before others: the default arrangement of the devices "
                            "(no [device] section) needs each switch's workers in consecutive "
                            "ranks", w, j->host[w], nm);
            }
        leaf_sw[nl++] = sw;
    }
    int given = p->job[J_MODE] != 0;
    if (!given)
        j->modes = 1u << (nl > 1 ? WS_MODE_HIER : WS_MODE_WIRESUM) |
                   (j->workers >= 2 ? 1u << WS_MODE_RING | 1u << WS_MODE_HD : 0);
    int one = j->modes >> WS_MODE_WIRESUM & 1, hier = j->modes >> WS_MODE_HIER & 1;
    if (!one && !hier)
        return 0;
    if (hier && nl < 2)
        return perr(p, p->job[J_MODE], "[job]: mode hierarchical: every worker is below one "
                    "switch, where the default arrangement (no [device] section) is mode "
                    "wiresum");
    j->placed = 1;
    unsigned hh = t->k / 2, T = 1;
    unsigned pods = t->kind == WS_TOPO_FATTREE
                        ? leaf_sw[nl - 1] / hh - leaf_sw[0] / hh + 1 : 1;
    double r = t->host_link.rate;
    if (hier)
        T = t->kind == WS_TOPO_LEAFSPINE ? t->spines : hh;
    /* a leaf-spine's root takes every leaf's PARTIALs: with more leaves than its 16 ports carry
     * (a port a member's, 10 % to spare), more trees, a spine rooting several */
    while (hier && t->kind == WS_TOPO_LEAFSPINE && T + t->spines <= WS_CLUSTER_MAX_TREES) {
        double up = PLACE_PARTIAL * r / T, port = PLACE_WIDTH * PLACE_FCLK;
        port = up * 1.1 > port ? up * 1.1 : port;
        if ((nl + 15) / 16 * up * 1.1 <= port)
            break;
        T += t->spines;
    }
    if (T > WS_CLUSTER_MAX_TREES)
        T = WS_CLUSTER_MAX_TREES;
    if (!p->job[J_COUNT]) {
        unsigned n = (unsigned)((t->mtu - (WS_OFF_ELEMS - WS_ETH_LEN)) / 4);
        unsigned most = hier ? (unsigned)((WS_LIMIT_FRAME - WS_OFF_ELEMS) / (8 * WS_X64_MAX_WORDS))
                             : WS_LIMIT_COUNT;
        n = n < most ? n : most;
        j->count = n >= 32 ? n / 32 * 32 : n;
    }
    if (!p->job[J_WINDOW]) {
        double chunks = 4 * r / T * PLACE_RTT / (8.0 * 4 * j->count);
        for (j->window = 4; j->window < chunks && j->window < 512; j->window *= 2)
            ;
    }
    if (one) {
        unsigned sw = nl == 1 ? leaf_sw[0]
                      : t->kind == WS_TOPO_LEAFSPINE ? t->leaves
                      : pods == 1 ? t->k * hh + leaf_sw[0] / hh * hh
                                  : t->k * t->k;
        if ((j->device = place_dev(p, "ws1-", sw, j->workers, r, 1, 0)) < 0)
            return -1;
    }
    if (!hier)
        return 0;
    if (nl > WS_LIMIT_WORKERS && (t->kind != WS_TOPO_FATTREE || pods == 1))
        return perr(p, line, "[job]: %u leaf switches: a root takes at most %d, and the default "
                    "arrangement has no middle level in a %s", nl, WS_LIMIT_WORKERS,
                    t->kind == WS_TOPO_LEAFSPINE ? "leaf-spine" : "single pod");
    j->n_trees = T;
    j->n_leaves = nl;
    double up = PLACE_PARTIAL * r / T; /* a child's PARTIALs to one tree */
    for (unsigned l = 0, w = 0; l < nl; l++) {
        unsigned w0 = w;
        while (w < j->workers && ws_topo_host_switch(c, j->host[w]) == leaf_sw[l])
            w++;
        if (w - w0 > WS_LIMIT_WORKERS)
            return perr(p, line, "[job]: %u workers below one switch: a device serves at most "
                        "%d", w - w0, WS_LIMIT_WORKERS);
        if ((j->leaf_dev[l] = place_dev(p, "ws-", leaf_sw[l], w - w0, r, T, up)) < 0)
            return -1;
    }
    int mids = t->kind == WS_TOPO_FATTREE && pods > 1;
    for (unsigned tr = 0; tr < T; tr++) {
        unsigned root_sw;
        if (t->kind == WS_TOPO_LEAFSPINE)
            root_sw = t->leaves + tr % t->spines;
        else if (!mids)
            root_sw = t->k * hh + leaf_sw[0] / hh * hh + tr;
        else
            root_sw = t->k * t->k + tr * hh;
        j->mid_group0[tr] = j->n_mids;
        unsigned children = nl;
        if (mids) {
            children = 0;
            for (unsigned l = 0; l < nl; children++) {
                unsigned pod = leaf_sw[l] / hh, n = 0;
                while (l < nl && leaf_sw[l] / hh == pod)
                    l++, n++;
                int k = place_dev(p, "ws-", t->k * hh + pod * hh + tr, n, up, 1, up);
                if (k < 0)
                    return -1;
                j->mid_dev[j->n_mids++] = k;
            }
        }
        char prefix[16] = "ws-"; /* a second root on a switch: its tree's number too */
        if (t->kind == WS_TOPO_LEAFSPINE && tr >= t->spines)
            snprintf(prefix, sizeof prefix, "ws-t%u-", tr);
        if ((j->root_dev[tr] = place_dev(p, prefix, root_sw, children, up, 1, 0)) < 0)
            return -1;
    }
    if (mids) {
        j->mid_groups = T;
        j->mid_group0[T] = j->n_mids;
    }
    return 0;
}

/* the devices of the wiresum modes in the file, and the job within each one's build */
static int check_devices(parser *p)
{
    ws_cluster *c = p->c;
    ws_cluster_job *j = &c->job;
    if (j->placed) {
        if (j->device >= 0 && fits(p, (unsigned)j->device, j->workers, 1, 0, "wiresum"))
            return -1;
        return j->n_trees ? check_trees(p, p->job[J_WORKERS], p->job[J_WORKERS]) : 0;
    }
    j->device = -1;
    if (p->job[J_DEVICE]) {
        int one[1];
        unsigned n;
        if (device_list(p, p->job_device, p->job[J_DEVICE], "device", one, &n, 1, 0))
            return -1;
        j->device = one[0];
    } else if (c->n_dev == 1) {
        j->device = 0;
    }
    if (j->modes >> WS_MODE_WIRESUM & 1) {
        if (j->device < 0)
            return perr(p, p->job[J_MODE], "[job]: mode wiresum needs %s", c->n_dev
                        ? "'device = NAME' (there are several devices)" : "a [device NAME] section");
        if (fits(p, (unsigned)j->device, j->workers, 1, 0, "wiresum"))
            return -1;
    }
    if (p->job[J_SHARDS]) {
        if (device_list(p, p->job_shards, p->job[J_SHARDS], "shard_devices", j->shard_dev,
                        &j->n_shards, WS_CLUSTER_MAX_DEVICES, 0))
            return -1;
        for (unsigned s = 0; s < j->n_shards; s++)
            if (fits(p, (unsigned)j->shard_dev[s], j->workers, 1, 0, "sharded"))
                return -1;
    } else if (j->modes >> WS_MODE_SHARDED & 1) {
        return perr(p, p->job[J_MODE], "[job]: mode sharded needs 'shard_devices = A, B, ...'");
    }
    if (p->job[J_MIDS] && !p->job[J_ROOT])
        return perr(p, p->job[J_MIDS], "[job]: 'mid_devices' needs 'root_device' and "
                    "'leaf_devices' (mode hierarchical)");
    if (!p->job[J_ROOT] != !p->job[J_LEAVES])
        return perr(p, p->job[J_ROOT] ? p->job[J_ROOT] : p->job[J_LEAVES], "[job]: "
                    "'root_device' and 'leaf_devices' go together (mode hierarchical)");
    if (!p->job[J_ROOT]) {
        if (j->modes >> WS_MODE_HIER & 1)
            return perr(p, p->job[J_MODE], "[job]: mode hierarchical needs 'root_device = NAME' "
                        "and 'leaf_devices = A, B, ...'");
        return 0;
    }
    if (device_list(p, p->job_root, p->job[J_ROOT], "root_device", j->root_dev, &j->n_trees,
                    WS_CLUSTER_MAX_TREES, 0) ||
        device_list(p, p->job_leaves, p->job[J_LEAVES], "leaf_devices", j->leaf_dev,
                    &j->n_leaves, WS_CLUSTER_MAX_DEVICES, 0) ||
        (p->job[J_MIDS] && device_list(p, p->job_mids, p->job[J_MIDS], "mid_devices",
                                       j->mid_dev, &j->n_mids, WS_CLUSTER_MAX_DEVICES, 1)))
        return -1;
    return check_trees(p, p->job[J_LEAVES], p->job[J_MIDS]);
}

static int check(parser *p)
{
    ws_cluster *c = p->c;
    ws_cluster_topo *t = &c->topo;
    ws_cluster_job *j = &c->job;
    if (!p->sec_line[S_TOPO])
        return perr(p, 0, "no [topology] section");
    if (!p->sec_line[S_JOB])
        return perr(p, 0, "no [job] section");
    if (check_topo(p))
        return -1;
    if (!p->job[J_WORKERS])
        return perr(p, p->sec_line[S_JOB], "[job]: 'workers' is required");
    for (unsigned w = 0; w < j->workers; w++)
        if (j->host[w] >= t->hosts)
            return perr(p, p->job[J_WORKERS], "[job]: workers: host %u, and the topology has "
                        "hosts 0..%u", j->host[w], t->hosts - 1);
    if (!c->n_dev && !(p->job[J_MODE] && j->modes >> WS_MODE_SHARDED & 1) && place(p))
        return -1;
    for (unsigned k = 0; k < c->n_dev; k++) {
        ws_cluster_dev *d = &c->dev[k];
        static const int dev_req[] = {D_SWITCH, D_RATE, D_DELAY};
        if (!p->dev[k][D_ECN]) /* marking as the switches of the fabric mark, for its rate */
            d->ecn_bytes = ws_cluster_ecn_bytes(c, d->ingress_bytes,
                                                d->ports * d->data_width * d->f_clk);
        if (j->placed) { /* place_dev */
            d->port_link = t->hosts + c->n_dev + t->uplinks + c->port_links;
            c->port_links += d->ports - 1;
            continue;
        }
        for (size_t i = 0; i < sizeof dev_req / sizeof dev_req[0]; i++)
            if (!p->dev[k][dev_req[i]])
                return perr(p, p->dev_line[k], "device %s: '%s' is required", d->name,
                            dev_keys[dev_req[i]]);
        int sw = -1;
        for (unsigned s = 0; s < t->switches && sw < 0; s++) {
            char nm[WS_CLUSTER_NAME];
            ws_topo_switch_name(c, s, nm);
            if (!strcmp(nm, p->dev_switch[k]))
                sw = (int)s;
        }
        if (sw < 0) {
            char first[WS_CLUSTER_NAME], last[WS_CLUSTER_NAME];
            ws_topo_switch_name(c, 0, first);
            ws_topo_switch_name(c, t->switches - 1, last);
            return perr(p, p->dev[k][D_SWITCH], "device %s: switch '%s': no such switch (this "
                        "topology's are %s .. %s, docs/cluster.md)", d->name, p->dev_switch[k],
                        first, last);
        }
        d->sw = (unsigned)sw;
        /* the RTL's ENGINES splits its N_PORTS ports into equal groups (docs/architecture.md
         * section 9) */
        if (d->ports % d->engines) {
            unsigned el = p->dev[k][D_ENGINES];
            return perr(p, p->dev[k][D_PORTS] ? p->dev[k][D_PORTS] : el ? el : p->dev_line[k],
                        "device %s: ports %u is not a multiple of engines %u (line %u): each "
                        "engine serves an equal group of ports (docs/architecture.md section 9)",
                        d->name, d->ports, d->engines, el ? el : p->dev_line[k]);
        }
        if (d->model == WS_CLUSTER_RTL && d->ports > WS_DEFAULT_PORTS)
            return perr(p, p->dev[k][D_PORTS], "device %s: model rtl: ports %u: the RTL has "
                        "N_PORTS %d (hw/wiresum_top.v); more need model timing", d->name,
                        d->ports, WS_DEFAULT_PORTS);
        d->port_link = t->hosts + c->n_dev + t->uplinks + c->port_links;
        c->port_links += d->ports - 1;
    }
    if (t->ecn_bytes && t->ecn_bytes >= t->queue_bytes)
        return perr(p, p->topo[T_ECN], "[topology]: ecn_threshold %llu bytes: at least the "
                    "queue (%llu bytes), nothing would be marked", (unsigned long long)t->ecn_bytes,
                    (unsigned long long)t->queue_bytes);
    char why[256];
    unsigned bl;
    if (bg_check(&c->bg, &bl, why, sizeof why))
        return perr(p, bl, "%s", why);
    if (!p->job[J_MODE] && !j->placed)
        return perr(p, p->sec_line[S_JOB], "[job]: 'mode' is required (with [device] "
                    "sections: docs/cluster.md section 2)");
    if (!p->job[J_ELEMS] == !p->job[J_BYTES])
        return perr(p, p->job[J_ELEMS] ? (p->job[J_ELEMS] > p->job[J_BYTES] ? p->job[J_ELEMS]
                                                                             : p->job[J_BYTES])
                                       : p->sec_line[S_JOB],
                    "[job]: give the tensor as 'elements' or as 'tensor_bytes', %s",
                    p->job[J_ELEMS] ? "not both" : "one of them");
    for (int m = WS_MODE_RING; m <= WS_MODE_HD; m++)
        if (j->modes >> m & 1 && j->workers < 2)
            return perr(p, p->job[J_WORKERS], "[job]: mode %s needs at least 2 workers",
                        ws_cluster_mode_name((ws_cluster_mode)m));
    return check_devices(p);
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
    char why[128];
    if (p->src.long_line && !p->failed) {
        ws_ini_long_line(&p->src, why, sizeof why);
        perr(p, p->src.long_line, "%s", why);
    } else if (r > 0 && !p->failed)
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

uint64_t ws_cluster_ecn_bytes(const ws_cluster *c, uint64_t queue, double bps)
{
    const ws_cluster_topo *t = &c->topo;
    double k0 = (double)t->ecn_bytes, half = (double)(queue / 2);
    double k = k0 * bps / t->host_link.rate; /* never below the hosts' ports' K */
    k = k < k0 ? k0 : k;
    if (k > half) /* nor above half the queue (unless that is below K) */
        k = half > k0 ? half : k0;
    return (uint64_t)k;
}

int ws_cluster_time_ns(const char *s, uint64_t *ns)
{
    double x;
    if (parse_with_unit(s, time_units, 0, &x) || x > 1e18)
        return -1;
    *ns = (uint64_t)llround(x);
    return 0;
}

const char *ws_cluster_mode_name(ws_cluster_mode m)
{
    static const char *const names[WS_N_MODES] = {"wiresum", "sharded", "hierarchical", "ring",
                                                  "halving-doubling"};
    return (unsigned)m < WS_N_MODES ? names[m] : NULL;
}

