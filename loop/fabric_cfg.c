/* fabric_cfg.c - fabric.ini: the devices of one job (fabric_cfg.h). */
#include "fabric_cfg.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ini_lines.h"
#include "wiresum/config.h"
#include "wiresum/wire.h"

enum { K_MAC, K_IP, K_UDP, K_SHARD, K_PARENT, K_RANK, K_WORKERS, K_N };
static const char *const key_name[K_N] = {"mac", "ip", "udp_port", "shard",
                                          "parent", "rank", "workers"};

/* the lines things were read from (all 0 for a description built in memory) */
typedef struct {
    unsigned section[WS_FABRIC_MAX_DEVICES];
    unsigned key[WS_FABRIC_MAX_DEVICES][K_N];
    char parent[WS_FABRIC_MAX_DEVICES][32];
    unsigned lw0[WS_FABRIC_MAX_DEVICES], lw1[WS_FABRIC_MAX_DEVICES]; /* workers as given */
} lines;

typedef struct {
    ws_fabric *f;
    lines *ln;
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    ws_ini_lines src;
    char section[96];
    int cur; /* device of the current section, -1 none */
} parser;

static int fail_at(char *err, size_t errlen, const char *path, unsigned line, const char *fmt,
                   va_list ap)
{
    char msg[384];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (path && line)
        snprintf(err, errlen, "%s:%u: %s", path, line, msg);
    else if (path)
        snprintf(err, errlen, "%s: %s", path, msg);
    else
        snprintf(err, errlen, "%s", msg);
    return -1;
}

static int perr(parser *p, unsigned line, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fail_at(p->err, p->errlen, p->path, line, fmt, ap);
    va_end(ap);
    p->failed = 1;
    return -1;
}

static int new_section(parser *p, const char *section)
{
    snprintf(p->section, sizeof p->section, "%s", section);
    p->cur = -1;
    if (strncmp(section, "device ", 7) != 0)
        return perr(p, p->src.header, "unknown section [%s] (expected [device NAME])", section);
    const char *name = section + 7;
    if (!ws_ini_name(name, 32))
        return perr(p, p->src.header, "[%s]: a device name is 1..31 letters, digits, '.', '_', '-'",
                    section);
    ws_fabric *f = p->f;
    for (unsigned k = 0; k < f->n; k++)
        if (!strcmp(f->d[k].name, name))
            return perr(p, p->src.header, "[%s]: a second section of device %s (first at line %u)",
                        section, name, p->ln->section[k]);
    if (f->n == WS_FABRIC_MAX_DEVICES)
        return perr(p, p->src.header, "[%s]: more than %d devices", section, WS_FABRIC_MAX_DEVICES);
    p->cur = (int)f->n++;
    ws_fabric_dev *d = &f->d[p->cur];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->udp_port = WS_DEFAULT_UDP_PORT;
    d->parent = -1;
    p->ln->section[p->cur] = p->src.header ? p->src.header : p->src.lineno;
    return 0;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    parser *p = user;
    if (p->failed)
        return 0;
    if (strcmp(section, p->section) != 0 && new_section(p, section))
        return 0;
    if (p->cur < 0)
        return 0;
    ws_fabric_dev *d = &p->f->d[p->cur];
    int k = -1;
    for (int i = 0; i < K_N; i++)
        if (!strcmp(name, key_name[i]))
            k = i;
    if (k < 0)
        return perr(p, p->src.lineno, "device %s: unknown key '%s'", d->name, name), 0;
    if (p->ln->key[p->cur][k])
        return perr(p, p->src.lineno, "device %s: duplicate key '%s' (first at line %u)",
                    d->name, name, p->ln->key[p->cur][k]), 0;
    p->ln->key[p->cur][k] = p->src.lineno;
    unsigned long long v = 0, v2 = 0;
    switch (k) {
    case K_MAC:
        if (ws_parse_mac(value, d->mac) || (d->mac[0] & 1))
            perr(p, p->src.lineno, "device %s: mac '%s': a unicast MAC, six hex pairs separated by "
                 "':'", d->name, value);
        break;
    case K_IP:
        if (ws_parse_ipv4(value, &d->ip))
            perr(p, p->src.lineno, "device %s: ip '%s': a dotted quad", d->name, value);
        break;
    case K_UDP:
        if (ws_ini_uint(value, 1, 65535, &v))
            perr(p, p->src.lineno, "device %s: udp_port '%s': 1..65535", d->name, value);
        d->udp_port = (uint16_t)v;
        break;
    case K_SHARD:
        if (ws_ini_uint(value, 0, WS_FABRIC_MAX_SHARDS - 1, &v))
            perr(p, p->src.lineno, "device %s: shard '%s': 0..%d", d->name, value,
                 WS_FABRIC_MAX_SHARDS - 1);
        d->shard = (unsigned)v;
        break;
    case K_PARENT:
        if (!ws_ini_name(value, 32))
            perr(p, p->src.lineno, "device %s: parent '%s': not a device name", d->name, value);
        snprintf(p->ln->parent[p->cur], 32, "%s", value);
        break;
    case K_RANK:
        if (ws_ini_uint(value, 0, WS_LIMIT_WORKERS - 1, &v))
            perr(p, p->src.lineno, "device %s: rank '%s': 0..%d", d->name, value,
                 WS_LIMIT_WORKERS - 1);
        d->rank = (unsigned)v;
        break;
    case K_WORKERS: {
        char a[32];
        const char *dash = strchr(value, '-');
        size_t n = dash ? (size_t)(dash - value) : strlen(value);
        if (n >= sizeof a) {
            perr(p, p->src.lineno, "device %s: workers '%s': FIRST-LAST, ranks 0..%d", d->name, value,
                 WS_LIMIT_WORKERS - 1);
            break;
        }
        memcpy(a, value, n);
        a[n] = 0;
        if (ws_ini_uint(a, 0, WS_LIMIT_WORKERS - 1, &v) ||
            ws_ini_uint(dash ? dash + 1 : a, 0, WS_LIMIT_WORKERS - 1, &v2) || v2 < v)
            perr(p, p->src.lineno, "device %s: workers '%s': FIRST-LAST (or one rank), ranks 0..%d",
                 d->name, value, WS_LIMIT_WORKERS - 1);
        p->ln->lw0[p->cur] = (unsigned)v;
        p->ln->lw1[p->cur] = (unsigned)v2 + 1;
        break;
    }
    }
    return !p->failed;
}

/* The place of every device: parents resolved, children by rank, shards' roots, the ranks below
 * each device (leaves from their workers, the others from their children in rank order). */
static int check(ws_fabric *f, lines *ln, const char *path, char *err, size_t errlen)
{
    parser p = {f, ln, path, err, errlen, 0, {NULL, 0, 0, 0, 0, 0}, "", -1};
#define LN(k, kk) (ln->key[k][kk] ? ln->key[k][kk] : ln->section[k])
    if (f->n == 0)
        return perr(&p, 0, "no [device NAME] section");
    for (unsigned k = 0; k < f->n; k++) {
        ws_fabric_dev *d = &f->d[k];
        d->n_children = 0;
        if (!ln->key[k][K_MAC] || !ln->key[k][K_IP])
            return perr(&p, ln->section[k], "device %s: mac and ip are required", d->name);
        int is_root = ln->key[k][K_SHARD] != 0, is_child = ln->key[k][K_PARENT] != 0;
        if (is_root == is_child)
            return perr(&p, ln->section[k], "device %s: either 'shard' (a root) or 'parent' with "
                        "'rank' (a child), not %s", d->name, is_root ? "both" : "neither");
        if (is_child != (ln->key[k][K_RANK] != 0))
            return perr(&p, LN(k, K_RANK), "device %s: 'rank' goes with 'parent'", d->name);
        for (unsigned j = 0; j < k; j++)
            if (f->d[j].ip == d->ip)
                return perr(&p, LN(k, K_IP), "device %s: ip is device %s's", d->name,
                            f->d[j].name);
        d->parent = -1;
        if (is_child) {
            for (unsigned j = 0; j < f->n; j++)
                if (!strcmp(f->d[j].name, ln->parent[k]))
                    d->parent = (int)j;
            if (d->parent < 0)
                return perr(&p, LN(k, K_PARENT), "device %s: parent %s: no such device", d->name,
                            ln->parent[k]);
        }
    }
    /* depth (no cycle), children by rank, roots by shard */
    for (unsigned s = 0; s < WS_FABRIC_MAX_SHARDS; s++)
        f->root[s] = -1;
    f->shards = 0;
    for (unsigned k = 0; k < f->n; k++) {
        ws_fabric_dev *d = &f->d[k];
        int up = (int)k;
        unsigned depth = 0;
        while (f->d[up].parent >= 0 && depth <= WS_FABRIC_MAX_DEPTH)
            up = f->d[up].parent, depth++;
        if (depth >= WS_FABRIC_MAX_DEPTH)
            return perr(&p, LN(k, K_PARENT), "device %s: %s", d->name,
                        depth > WS_FABRIC_MAX_DEPTH ? "its parents form a cycle"
                                                    : "more than 4 levels of devices");
        d->shard = f->d[up].shard;
        if (d->parent < 0) {
            if (f->root[d->shard] >= 0)
                return perr(&p, LN(k, K_SHARD), "device %s: shard %u has a root already (device "
                            "%s)", d->name, d->shard, f->d[f->root[d->shard]].name);
            f->root[d->shard] = (int)k;
            if (d->shard + 1 > f->shards)
                f->shards = d->shard + 1;
            continue;
        }
        ws_fabric_dev *up1 = &f->d[d->parent];
        if (up1->n_children == 64)
            return perr(&p, LN(k, K_PARENT), "device %s: parent %s has more than 64 children",
                        d->name, up1->name);
        up1->n_children++;
    }
    for (unsigned s = 0; s < f->shards; s++)
        if (f->root[s] < 0)
            return perr(&p, 0, "shard %u has no root (shards are numbered 0..%u)", s,
                        f->shards - 1);
    for (unsigned k = 0; k < f->n; k++) { /* every rank 0..n_children-1 once */
        ws_fabric_dev *d = &f->d[k];
        for (unsigned r = 0; r < d->n_children; r++)
            d->child[r] = -1;
        for (unsigned j = 0; j < f->n; j++) {
            if (f->d[j].parent != (int)k)
                continue;
            unsigned r = f->d[j].rank;
            if (r >= d->n_children || d->child[r] >= 0)
                return perr(&p, LN(j, K_RANK), "device %s: rank %u under %s: the %u children of "
                            "a device have ranks 0..%u, each once", f->d[j].name, r, d->name,
                            d->n_children, d->n_children - 1);
            d->child[r] = (int)j;
        }
        int leaf = d->n_children == 0;
        if (leaf != (ln->key[k][K_WORKERS] != 0))
            return perr(&p, leaf ? ln->section[k] : LN(k, K_WORKERS), "device %s: %s", d->name,
                        leaf ? "a device without children needs 'workers'"
                             : "a device with children has no 'workers' of its own");
    }
    /* the ranks below each device: a shard's leaves, depth first in rank order, cover 0..W-1 */
    f->workers = 0;
    for (unsigned s = 0; s < f->shards; s++) {
        int stack[WS_FABRIC_MAX_DEVICES];
        unsigned sp = 0, next = 0;
        stack[sp++] = f->root[s];
        while (sp) { /* preorder; leaves in order */
            int k = stack[--sp];
            ws_fabric_dev *d = &f->d[k];
            if (!d->n_children) {
                if (ln->lw0[k] != next)
                    return perr(&p, LN(k, K_WORKERS), "device %s: workers %u-%u: shard %u's "
                                "leaves, in rank order, take the job's ranks in order; rank %u "
                                "comes next", d->name, ln->lw0[k], ln->lw1[k] - 1, s, next);
                d->w0 = ln->lw0[k];
                d->w1 = ln->lw1[k];
                next = d->w1;
                continue;
            }
            for (unsigned r = d->n_children; r-- > 0;)
                stack[sp++] = d->child[r];
        }
        if (s == 0)
            f->workers = next;
        else if (next != f->workers)
            return perr(&p, ln->section[f->root[s]], "shard %u covers ranks 0..%u, shard 0 "
                        "0..%u: every shard serves every worker", s, next - 1, f->workers - 1);
    }
    for (int pass = 0; pass < WS_FABRIC_MAX_DEPTH; pass++) /* inner devices: their children's */
        for (unsigned k = 0; k < f->n; k++) {
            ws_fabric_dev *d = &f->d[k];
            if (d->n_children) {
                d->w0 = f->d[d->child[0]].w0;
                d->w1 = f->d[d->child[d->n_children - 1]].w1;
            }
        }
    for (unsigned k = 0; k < f->n; k++) /* a leaf's members are workers, an inner device's its
                                          * children (their workers below may be more) */
        if (!f->d[k].n_children && f->d[k].w1 - f->d[k].w0 > WS_LIMIT_WORKERS)
            return perr(&p, LN(k, K_WORKERS), "device %s: %u workers, at most %d", f->d[k].name,
                        f->d[k].w1 - f->d[k].w0, WS_LIMIT_WORKERS);
#undef LN
    return 0;
}

int ws_fabric_load(ws_fabric *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    lines *ln = calloc(1, sizeof *ln);
    if (!ln)
        return snprintf(err, errlen, "%s: out of memory", path), -1;
    parser p = {f, ln, path, err, errlen, 0, {fopen(path, "r"), 0, 0, 0, 0, 0}, "", -1};
    int rc = -1;
    if (!p.src.in) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    } else {
        int r = ini_parse_stream(ws_ini_read_line, &p.src, on_key, &p);
        char why[128];
        if (p.src.long_line && !p.failed) {
            ws_ini_long_line(&p.src, why, sizeof why);
            perr(&p, p.src.long_line, "%s", why);
        } else if (r > 0 && !p.failed)
            perr(&p, (unsigned)r, "syntax error (expected [device NAME] or key = value)");
        else if (r < 0 && !p.failed)
            perr(&p, 0, "cannot read");
        if (!p.failed)
            rc = check(f, ln, path, err, errlen);
        fclose(p.src.in);
    }
    free(ln);
    return rc;
}

int ws_fabric_check(ws_fabric *f, char *err, size_t errlen)
{
    lines *ln = calloc(1, sizeof *ln);
    if (!ln)
        return snprintf(err, errlen, "out of memory"), -1;
    for (unsigned k = 0; k < f->n; k++) { /* as if read: every key given that the place says */
        ws_fabric_dev *d = &f->d[k];
        ln->section[k] = ln->key[k][K_MAC] = ln->key[k][K_IP] = 0;
        ln->key[k][K_MAC] = ln->key[k][K_IP] = 1;
        ln->key[k][d->parent < 0 ? K_SHARD : K_PARENT] = 1;
        if (d->parent >= 0) {
            ln->key[k][K_RANK] = 1;
            snprintf(ln->parent[k], 32, "%s", f->d[d->parent].name);
        }
        ln->key[k][K_WORKERS] = d->w1 > d->w0 && !d->n_children;
        ln->lw0[k] = d->w0;
        ln->lw1[k] = d->w1;
    }
    /* leaves are those without children: recount them from the parents */
    for (unsigned k = 0; k < f->n; k++)
        f->d[k].n_children = 0;
    for (unsigned k = 0; k < f->n; k++)
        if (f->d[k].parent >= 0)
            f->d[f->d[k].parent].n_children++;
    for (unsigned k = 0; k < f->n; k++)
        ln->key[k][K_WORKERS] = f->d[k].n_children == 0;
    int rc = check(f, ln, NULL, err, errlen);
    free(ln);
    return rc;
}

int ws_fabric_add(ws_fabric *f, const char *name, const uint8_t mac[6], uint32_t ip, int parent,
                  unsigned rank, unsigned shard, unsigned w0, unsigned w1)
{
    if (f->n == WS_FABRIC_MAX_DEVICES)
        return -1;
    ws_fabric_dev *d = &f->d[f->n];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%.31s", name);
    memcpy(d->mac, mac, 6);
    d->ip = ip;
    d->udp_port = WS_DEFAULT_UDP_PORT;
    d->parent = parent;
    d->rank = rank;
    d->shard = shard;
    d->w0 = w0;
    d->w1 = w1;
    return (int)f->n++;
}

int ws_fabric_dev_config(const ws_fabric *f, unsigned k, uint16_t id, unsigned n_ports,
                         unsigned slots, unsigned count,
                         void (*worker)(void *ctx, unsigned w, ws_member *m), void *ctx,
                         ws_config *c, char *err, size_t errlen)
{
    const ws_fabric_dev *d = &f->d[k];
    memcpy(c->mac, d->mac, 6);
    c->ip = d->ip;
    c->udp_port = d->udp_port;
    c->partial = d->parent >= 0 || d->n_children > 0; /* in a tree */
    if (c->partial && ws_partial_max_len(count) > ws_config_max_frame(c))
        c->max_frame = (unsigned)ws_partial_max_len(count);
    unsigned members = d->n_children ? d->n_children : d->w1 - d->w0;
    ws_job *jb = ws_config_add_workload(c, id, n_ports, members, slots, count);
    if (!jb)
        return snprintf(err, errlen, "device %s: %u members: beyond the limits", d->name,
                        members), -1;
    for (unsigned r = 0; r < members; r++) {
        ws_member *m = &jb->member[r];
        if (d->n_children) {
            const ws_fabric_dev *ch = &f->d[d->child[r]];
            memcpy(m->mac, ch->mac, 6);
            m->ip = ch->ip;
            m->udp_port = ch->udp_port;
        } else {
            worker(ctx, d->w0 + r, m);
        }
        m->port = 0;
    }
    if (d->parent >= 0) {
        const ws_fabric_dev *up = &f->d[d->parent];
        jb->has_parent = true;
        memcpy(jb->parent.mac, up->mac, 6);
        jb->parent.ip = up->ip;
        jb->parent.udp_port = up->udp_port;
        jb->parent.port = 0;
        jb->parent_job = id;
        jb->parent_rank = (uint16_t)d->rank;
    }
    return 0;
}

int ws_fabric_write(const ws_fabric *f, FILE *out)
{
    fprintf(out, "; the devices of one job (docs/traces.md, \"Several devices\")\n");
    for (unsigned k = 0; k < f->n; k++) {
        const ws_fabric_dev *d = &f->d[k];
        char mac[18], ip[16];
        ws_format_mac(d->mac, mac);
        ws_format_ipv4(d->ip, ip);
        fprintf(out, "\n[device %s]\nmac = %s\nip = %s\nudp_port = %u\n", d->name, mac, ip,
                d->udp_port);
        if (d->parent < 0)
            fprintf(out, "shard = %u\n", d->shard);
        else
            fprintf(out, "parent = %s\nrank = %u\n", f->d[d->parent].name, d->rank);
        if (!d->n_children)
            fprintf(out, "workers = %u-%u\n", d->w0, d->w1 - 1);
    }
    return fflush(out) || ferror(out) ? -1 : 0;
}
