/* counters.c - DIR/counters.txt: write, read back (inih), print as a table. */
#include "counters_file.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"
#include "wiresum/reasons.h"

/* ---- writing ---------------------------------------------------------------------------- */

static void put_section(FILE *o, const char *name, const ws_counters_section *s)
{
    const ws_counters *c = &s->c;
    fprintf(o, "\n[%s]\n", name);
    if (s->source[0])
        fprintf(o, "%-24s = %s\n", "source", s->source);
    fprintf(o, "%-24s = %u\n", "ports", s->ports);
    fprintf(o, "; %-22s   rx_frames rx_bytes tx_frames tx_bytes\n", "port P");
    for (unsigned p = 0; p < s->ports; p++) {
        char key[16];
        snprintf(key, sizeof key, "port%u", p);
        fprintf(o, "%-24s = %llu %llu %llu %llu\n", key, (unsigned long long)c->rx_frames[p],
                (unsigned long long)c->rx_bytes[p], (unsigned long long)c->tx_frames[p],
                (unsigned long long)c->tx_bytes[p]);
    }
    fprintf(o, "%-24s = %llu\n", "accepted", (unsigned long long)c->accepted);
    fprintf(o, "%-24s = %llu\n", "results", (unsigned long long)c->results);
    fprintf(o, "%-24s = %llu\n", "resends", (unsigned long long)c->resends);
    fprintf(o, "%-24s = %llu\n", "bypass", (unsigned long long)c->bypass);
    fprintf(o, "%-24s = %llu\n", "oversize", (unsigned long long)c->oversize);
    for (int r = 1; r < WS_N_REASONS; r++) {
        char key[64];
        snprintf(key, sizeof key, "drop.%s", ws_reason_name((ws_reason)r));
        fprintf(o, "%-24s = %llu\n", key, (unsigned long long)c->drop[r]);
    }
}

int ws_counters_file_save(const char *path, const ws_counters_file *f, char *err, size_t errlen)
{
    FILE *o = fopen(path, "w");
    if (!o) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(o, "; device counters after a run: `wiresum counters` prints them (docs/traces.md)\n");
    if (f->device.present)
        put_section(o, "device", &f->device);
    if (f->reference.present)
        put_section(o, "reference", &f->reference);
    if (ferror(o) | fclose(o)) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* keys: the named ones, then port0..port15, then drop.<reason> for reasons 1.. */
enum { K_SOURCE, K_PORTS, K_ACC, K_RES, K_RSD, K_BYP, K_OVS, K_PORT0 };
#define K_DROP0 (K_PORT0 + WS_LIMIT_PORTS)
#define N_KEYS (K_DROP0 + WS_N_REASONS)

static const char *const key_names[K_PORT0] = {"source",  "ports",   "accepted", "results",
                                               "resends", "bypass",  "oversize"};

typedef struct {
    FILE *file;
    const char *path;
    unsigned lineno;
    int failed;
    char *err;
    size_t errlen;
    ws_counters_file *f;
    unsigned line[2][N_KEYS]; /* the line of each key per section, 0 if absent */
    unsigned sec_line[2];
} load_ctx;

static void lerr(load_ctx *c, unsigned line, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = 1;
    int n = line ? snprintf(c->err, c->errlen, "%s:%u: ", c->path, line)
                 : snprintf(c->err, c->errlen, "%s: ", c->path);
    if (n < 0 || (size_t)n >= c->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

/* One line per call, so that lineno is the line inih is at; a line longer than inih's buffer
 * is an error rather than two lines. */
static char *reader(char *str, int num, void *stream)
{
    load_ctx *c = stream;
    if (c->failed || !fgets(str, num, c->file))
        return NULL;
    c->lineno++;
    size_t n = strlen(str);
    if (n + 1 == (size_t)num && str[n - 1] != '\n' && !feof(c->file)) {
        lerr(c, c->lineno, "line too long (at most %d characters)", num - 2);
        return NULL;
    }
    return str;
}

/* A decimal count at *s (leading blanks skipped); *s moves past it. */
static int parse_num(const char **s, uint64_t *v)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p < '0' || *p > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno)
        return -1;
    *v = x;
    *s = end;
    return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *c = user;
    if (c->failed)
        return 0;
    int si = !strcmp(section, "device") ? 0 : !strcmp(section, "reference") ? 1 : -1;
    if (si < 0) {
        lerr(c, c->lineno, "unknown section [%s] (expected [device] or [reference])", section);
        return 0;
    }
    ws_counters_section *s = si ? &c->f->reference : &c->f->device;
    if (!s->present) {
        s->present = 1;
        c->sec_line[si] = c->lineno;
    }
    int k = -1;
    for (int i = 0; i < K_PORT0; i++)
        if (!strcmp(name, key_names[i]))
            k = i;
    if (k < 0 && !strncmp(name, "drop.", 5)) {
        int r = ws_reason_from_name(name + 5);
        if (r <= 0) {
            lerr(c, c->lineno, "[%s] %s: no drop reason '%s' (driver/wiresum/reasons.h)", section, name,
                 name + 5);
            return 0;
        }
        k = K_DROP0 + r;
    }
    if (k < 0 && !strncmp(name, "port", 4) && name[4] >= '0' && name[4] <= '9') {
        char *end;
        unsigned long p = strtoul(name + 4, &end, 10);
        if (*end || p >= WS_LIMIT_PORTS || (name[4] == '0' && name[5])) {
            lerr(c, c->lineno, "[%s] %s: not a port key (port0..port%d)", section, name,
                 WS_LIMIT_PORTS - 1);
            return 0;
        }
        k = K_PORT0 + (int)p;
    }
    if (k < 0) {
        lerr(c, c->lineno, "[%s] unknown key '%s'", section, name);
        return 0;
    }
    if (c->line[si][k]) {
        lerr(c, c->lineno, "[%s] %s: given twice (first on line %u)", section, name,
             c->line[si][k]);
        return 0;
    }
    c->line[si][k] = c->lineno;
    if (k == K_SOURCE) {
        snprintf(s->source, sizeof s->source, "%s", value);
        return 1;
    }
    const char *p = value;
    if (k >= K_PORT0 && k < K_DROP0) {
        unsigned port = (unsigned)(k - K_PORT0);
        uint64_t v[4];
        for (int i = 0; i < 4; i++)
            if (parse_num(&p, &v[i])) {
                lerr(c, c->lineno, "[%s] %s: '%s' is not four counts (rx_frames rx_bytes "
                     "tx_frames tx_bytes)", section, name, value);
                return 0;
            }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p) {
            lerr(c, c->lineno, "[%s] %s: '%s': more than four counts", section, name, value);
            return 0;
        }
        s->c.rx_frames[port] = v[0], s->c.rx_bytes[port] = v[1];
        s->c.tx_frames[port] = v[2], s->c.tx_bytes[port] = v[3];
        return 1;
    }
    uint64_t v;
    if (parse_num(&p, &v) || *p) {
        lerr(c, c->lineno, "[%s] %s: '%s' is not a count", section, name, value);
        return 0;
    }
    switch (k) {
    case K_PORTS:
        if (v < 1 || v > WS_LIMIT_PORTS) {
            lerr(c, c->lineno, "[%s] ports: %llu is not in 1..%d", section,
                 (unsigned long long)v, WS_LIMIT_PORTS);
            return 0;
        }
        s->ports = (unsigned)v;
        break;
    case K_ACC: s->c.accepted = v; break;
    case K_RES: s->c.results = v; break;
    case K_RSD: s->c.resends = v; break;
    case K_BYP: s->c.bypass = v; break;
    case K_OVS: s->c.oversize = v; break;
    default: s->c.drop[k - K_DROP0] = v; break;
    }
    return 1;
}

int ws_counters_file_load(const char *path, ws_counters_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    load_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *c = (load_ctx){.path = path, .err = err, .errlen = errlen, .f = f};
    c->file = fopen(path, "r");
    if (!c->file) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(c);
        return -1;
    }
    int rc = ini_parse_stream(reader, c, handler, c);
    if (!c->failed && ferror(c->file))
        lerr(c, 0, "read error");
    fclose(c->file);
    if (rc > 0 && !c->failed)
        lerr(c, (unsigned)rc, "syntax error (expected [section], key = value or a comment)");
    else if (rc < 0 && !c->failed)
        lerr(c, 0, "parser failure (%d)", rc);
    if (!c->failed && !f->device.present)
        lerr(c, 0, "no [device] section");
    /* every key but source and the drops is required: ports, port0..port<ports-1>, the five
     * totals; a port key at or above ports is an error */
    for (int si = 0; si < 2 && !c->failed; si++) {
        const ws_counters_section *s = si ? &f->reference : &f->device;
        const char *sec = si ? "reference" : "device";
        if (!s->present)
            continue;
        for (int k = K_PORTS; k < K_PORT0 && !c->failed; k++)
            if (!c->line[si][k])
                lerr(c, c->sec_line[si], "[%s]: key '%s' missing", sec, key_names[k]);
        for (unsigned p = 0; p < WS_LIMIT_PORTS && !c->failed; p++) {
            unsigned at = c->line[si][K_PORT0 + p];
            if (p < s->ports && !at)
                lerr(c, c->sec_line[si], "[%s]: key 'port%u' missing (ports = %u)", sec, p,
                     s->ports);
            else if (p >= s->ports && at)
                lerr(c, at, "[%s] port%u: but ports = %u", sec, p, s->ports);
        }
    }
    int failed = c->failed;
    free(c);
    return failed ? -1 : 0;
}

/* ---- the table -------------------------------------------------------------------------- */

unsigned ws_counters_file_differ(const ws_counters_file *f, FILE *out)
{
    if (!f->device.present || !f->reference.present)
        return 0;
    const ws_counters *d = &f->device.c, *r = &f->reference.c;
    unsigned diff = 0;
    char name[64];
#define CMP(a, b)                                                                                  \
    if ((a) != (b)) {                                                                              \
        if (out)                                                                                   \
            fprintf(out, "counter %s: reference %llu, device %llu\n", name,                       \
                    (unsigned long long)(a), (unsigned long long)(b));                             \
        diff++;                                                                                    \
    }
    for (unsigned p = 0; p < f->device.ports && p < f->reference.ports; p++) {
        snprintf(name, sizeof name, "rx_frames[%u]", p);
        CMP(r->rx_frames[p], d->rx_frames[p]);
        snprintf(name, sizeof name, "rx_bytes[%u]", p);
        CMP(r->rx_bytes[p], d->rx_bytes[p]);
        snprintf(name, sizeof name, "tx_frames[%u]", p);
        CMP(r->tx_frames[p], d->tx_frames[p]);
        snprintf(name, sizeof name, "tx_bytes[%u]", p);
        CMP(r->tx_bytes[p], d->tx_bytes[p]);
    }
    const struct {
        const char *name;
        uint64_t ref, dev;
    } dev_wide[] = {{"accepted", r->accepted, d->accepted},
                    {"results", r->results, d->results},
                    {"resends", r->resends, d->resends},
                    {"bypass", r->bypass, d->bypass},
                    {"oversize", r->oversize, d->oversize}};
    for (size_t k = 0; k < sizeof dev_wide / sizeof dev_wide[0]; k++) {
        snprintf(name, sizeof name, "%s", dev_wide[k].name);
        CMP(dev_wide[k].ref, dev_wide[k].dev);
    }
    for (int k = 1; k < WS_N_REASONS; k++) {
        snprintf(name, sizeof name, "drop %s", ws_reason_name((ws_reason)k));
        CMP(r->drop[k], d->drop[k]);
    }
#undef CMP
    return diff;
}

static void port_row(FILE *out, const char *label, unsigned p, const ws_counters *c,
                     const ws_counters *other)
{
    int diff = other && (c->rx_frames[p] != other->rx_frames[p] ||
                         c->rx_bytes[p] != other->rx_bytes[p] ||
                         c->tx_frames[p] != other->tx_frames[p] ||
                         c->tx_bytes[p] != other->tx_bytes[p]);
    fprintf(out, "  %-4u %-9s %12llu %14llu %12llu %14llu%s\n", p, label,
            (unsigned long long)c->rx_frames[p], (unsigned long long)c->rx_bytes[p],
            (unsigned long long)c->tx_frames[p], (unsigned long long)c->tx_bytes[p],
            diff ? "  <- differs" : "");
}

static void scalar(FILE *out, const char *name, uint64_t dev, const uint64_t *ref)
{
    if (!ref)
        fprintf(out, "  %-22s %12llu\n", name, (unsigned long long)dev);
    else
        fprintf(out, "  %-22s %12llu %12llu%s\n", name, (unsigned long long)dev,
                (unsigned long long)*ref, dev != *ref ? "  <- differs" : "");
}

unsigned ws_counters_file_table(FILE *out, const ws_counters_file *f)
{
    const ws_counters_section *d = &f->device, *rs = &f->reference;
    const ws_counters *c = &d->c, *r = rs->present ? &rs->c : NULL;
    unsigned diff = ws_counters_file_differ(f, NULL);
    fprintf(out, "device counters%s%s%s, %u ports\n", d->source[0] ? " (" : "", d->source,
            d->source[0] ? ")" : "", d->ports);
    if (r)
        fprintf(out, "reference%s%s%s%s\n", rs->source[0] ? " (" : "", rs->source,
                rs->source[0] ? ")" : "",
                rs->ports != d->ports ? ": another number of ports!" : "");
    fprintf(out, "  %-14s %12s %14s %12s %14s\n", "port", "rx_frames", "rx_bytes", "tx_frames",
            "tx_bytes");
    unsigned np = d->ports > (r ? rs->ports : 0) ? d->ports : rs->ports;
    uint64_t tot[2][4] = {{0}};
    for (unsigned p = 0; p < np; p++) {
        if (p < d->ports) {
            port_row(out, r ? "device" : "", p, c, r && p < rs->ports ? r : NULL);
            tot[0][0] += c->rx_frames[p], tot[0][1] += c->rx_bytes[p];
            tot[0][2] += c->tx_frames[p], tot[0][3] += c->tx_bytes[p];
        }
        if (r && p < rs->ports) {
            int same = p < d->ports && r->rx_frames[p] == c->rx_frames[p] &&
                       r->rx_bytes[p] == c->rx_bytes[p] && r->tx_frames[p] == c->tx_frames[p] &&
                       r->tx_bytes[p] == c->tx_bytes[p];
            if (!same)
                port_row(out, "reference", p, r, NULL);
            tot[1][0] += r->rx_frames[p], tot[1][1] += r->rx_bytes[p];
            tot[1][2] += r->tx_frames[p], tot[1][3] += r->tx_bytes[p];
        }
    }
    fprintf(out, "  %-14s %12llu %14llu %12llu %14llu\n", "all", (unsigned long long)tot[0][0],
            (unsigned long long)tot[0][1], (unsigned long long)tot[0][2],
            (unsigned long long)tot[0][3]);
    if (r)
        fprintf(out, "  %-22s %12s %12s\n", "", "device", "reference");
    scalar(out, "accepted", c->accepted, r ? &r->accepted : NULL);
    scalar(out, "results", c->results, r ? &r->results : NULL);
    scalar(out, "resends", c->resends, r ? &r->resends : NULL);
    scalar(out, "bypass", c->bypass, r ? &r->bypass : NULL);
    scalar(out, "oversize", c->oversize, r ? &r->oversize : NULL);
    uint64_t dd = 0, dr = 0;
    for (int k = 1; k < WS_N_REASONS; k++)
        dd += c->drop[k], dr += r ? r->drop[k] : 0;
    scalar(out, "dropped", dd, r ? &dr : NULL);
    for (int k = 1; k < WS_N_REASONS; k++) {
        char name[64];
        snprintf(name, sizeof name, "  %s", ws_reason_name((ws_reason)k));
        scalar(out, name, c->drop[k], r ? &r->drop[k] : NULL);
    }
    if (r)
        fprintf(out, "  %u counters differ from the reference\n", diff);
    return diff;
}

void ws_counters_file_print(const ws_counters *c, unsigned n_ports, FILE *out)
{
    fprintf(out, "  %-6s %12s %14s %12s %14s\n", "port", "rx_frames", "rx_bytes", "tx_frames",
            "tx_bytes");
    for (unsigned p = 0; p < n_ports; p++)
        fprintf(out, "  %-6u %12llu %14llu %12llu %14llu\n", p, (unsigned long long)c->rx_frames[p],
                (unsigned long long)c->rx_bytes[p], (unsigned long long)c->tx_frames[p],
                (unsigned long long)c->tx_bytes[p]);
    uint64_t dropped = 0;
    for (int r = 1; r < WS_N_REASONS; r++)
        dropped += c->drop[r];
    fprintf(out, "  accepted %llu  results %llu  resends %llu  bypass %llu  dropped %llu\n",
            (unsigned long long)c->accepted, (unsigned long long)c->results,
            (unsigned long long)c->resends, (unsigned long long)c->bypass,
            (unsigned long long)dropped);
    for (int r = 1; r < WS_N_REASONS; r++)
        if (c->drop[r])
            fprintf(out, "    drop %-17s %10llu\n", ws_reason_name((ws_reason)r),
                    (unsigned long long)c->drop[r]);
}
