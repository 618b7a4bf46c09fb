/* dev.c - configuration and counters of the device through its register map. */
#include "wiresum/dev.h"

#include <stdio.h>
#include <string.h>

#include "wiresum/regmap.h"
#include "wiresum/wire.h" /* regmap.def's protocol constants */

static int wr(const ws_regbus *bus, uint32_t addr, uint32_t data, const char *what, char *err,
              size_t errlen)
{
    int r = bus->write(bus->ctx, addr, data);
    if (r != 0) {
        snprintf(err, errlen, "register write 0x%04x (%s) = 0x%08x: %s", addr, what, data,
                 r < 0 ? "no response" : "error response");
        return -1;
    }
    return 0;
}

static int rd(const ws_regbus *bus, uint32_t addr, uint32_t *data, const char *what, char *err,
              size_t errlen)
{
    int r = bus->read(bus->ctx, addr, data);
    if (r != 0) {
        snprintf(err, errlen, "register read 0x%04x (%s): %s", addr, what,
                 r < 0 ? "no response" : "error response");
        return -1;
    }
    return 0;
}

static int rd64(const ws_regbus *bus, uint32_t addr, uint64_t *v, const char *what, char *err,
                size_t errlen)
{
    uint32_t lo, hi;
    if (rd(bus, addr, &lo, what, err, errlen) || rd(bus, addr + 4, &hi, what, err, errlen))
        return -1;
    *v = (uint64_t)hi << 32 | lo;
    return 0;
}

int ws_dev_read_params(const ws_regbus *bus, ws_dev_params *p, char *err, size_t errlen)
{
    uint32_t id;
    if (rd(bus, WS_REG_ID, &id, "ID", err, errlen))
        return -1;
    if (id != WS_ID_VALUE) {
        snprintf(err, errlen, "register ID reads 0x%08x, not 0x%08x: not a wiresum device", id,
                 WS_ID_VALUE);
        return -1;
    }
    const struct {
        uint32_t addr;
        const char *name;
        unsigned *out;
    } regs[] = {{WS_REG_PARAM_WIDTH, "PARAM_WIDTH", &p->width},
                {WS_REG_PARAM_PORTS, "PARAM_PORTS", &p->ports},
                {WS_REG_PARAM_JOBS, "PARAM_JOBS", &p->jobs},
                {WS_REG_PARAM_WORKERS, "PARAM_WORKERS", &p->workers},
                {WS_REG_PARAM_POOL, "PARAM_POOL", &p->pool},
                {WS_REG_PARAM_COUNT, "PARAM_COUNT", &p->count},
                {WS_REG_PARAM_ENGINES, "PARAM_ENGINES", &p->engines},
                {WS_REG_PARAM_MAX_FRAME, "PARAM_MAX_FRAME", &p->max_frame},
                {WS_REG_PARAM_PARTIAL, "PARAM_PARTIAL", &p->partial}};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
        uint32_t v;
        if (rd(bus, regs[i].addr, &v, regs[i].name, err, errlen))
            return -1;
        *regs[i].out = v;
    }
    return 0;
}

static const char *status_name(uint32_t code)
{
    switch (code) {
#define WS_CODE(name, value, desc)                                                                 \
    case value:                                                                                    \
        return #name;
#include "regmap.def"
    default:
        return "unknown status code";
    }
}

static uint32_t mac_hi(const uint8_t m[6]) { return (uint32_t)m[0] << 8 | m[1]; }
static uint32_t mac_lo(const uint8_t m[6])
{
    return (uint32_t)m[2] << 24 | (uint32_t)m[3] << 16 | (uint32_t)m[4] << 8 | m[5];
}

unsigned ws_dev_fits(const ws_dev_params *p, const ws_config *cfg, char *err, size_t errlen)
{
    unsigned over = (cfg->n_ports > p->ports ? WS_FIT_PORTS : 0) |
                    (cfg->n_jobs > p->jobs ? WS_FIT_JOBS : 0) |
                    (cfg->pool_slots > p->pool ? WS_FIT_POOL : 0) |
                    (cfg->max_count > p->count ? WS_FIT_COUNT : 0);
    if (over) {
        snprintf(err, errlen,
                 "the configuration needs %u ports, %u jobs, %u pool slots, count %u; the device "
                 "has %u, %u, %u, %u",
                 cfg->n_ports, cfg->n_jobs, cfg->pool_slots, cfg->max_count, p->ports, p->jobs,
                 p->pool, p->count);
        return over;
    }
    if (cfg->partial && !p->partial) {
        snprintf(err, errlen, "the configuration takes PARTIAL frames (partial = 1, a job with a "
                 "parent or children; docs/protocol.md section 9); this device does not "
                 "(PARAM_PARTIAL = 0: a build with PARTIAL = 1 does)");
        return WS_FIT_PARTIAL;
    }
    if (cfg->max_frame && cfg->max_frame != p->max_frame) {
        snprintf(err, errlen, "the configuration's max_frame is %u bytes; the device's MAX_FRAME "
                 "is %u (the ports decide which frames are oversize)", cfg->max_frame,
                 p->max_frame);
        return WS_FIT_FRAME;
    }
    for (unsigned j = 0; j < cfg->n_jobs; j++)
        if (cfg->job[j].workers > p->workers) {
            snprintf(err, errlen, "job %u has %u workers; the device supports %u", cfg->job[j].id,
                     cfg->job[j].workers, p->workers);
            return WS_FIT_WORKERS;
        }
    return 0;
}

int ws_dev_configure(const ws_regbus *bus, const ws_config *cfg, char *err, size_t errlen)
{
    ws_dev_params p;
    if (ws_dev_read_params(bus, &p, err, errlen) || ws_dev_fits(&p, cfg, err, errlen))
        return -1;
    /* the device's addresses and bypass map, then each job by its own setup */
    if (ws_dev_set_addresses(bus, &p, cfg, err, errlen))
        return -1;
    for (unsigned j = 0; j < cfg->n_jobs; j++)
        if (ws_dev_job_setup(bus, &p, j, &cfg->job[j], err, errlen))
            return -1;
    return 0;
}

int ws_dev_read_counters(const ws_regbus *bus, unsigned n_ports, ws_counters *c, char *err,
                         size_t errlen)
{
    memset(c, 0, sizeof *c);
    for (unsigned q = 0; q < n_ports && q < WS_LIMIT_PORTS; q++)
        if (rd64(bus, WS_REG_CNT_RX_FRAMES(q), &c->rx_frames[q], "CNT_RX_FRAMES", err, errlen) ||
            rd64(bus, WS_REG_CNT_RX_BYTES(q), &c->rx_bytes[q], "CNT_RX_BYTES", err, errlen) ||
            rd64(bus, WS_REG_CNT_TX_FRAMES(q), &c->tx_frames[q], "CNT_TX_FRAMES", err, errlen) ||
            rd64(bus, WS_REG_CNT_TX_BYTES(q), &c->tx_bytes[q], "CNT_TX_BYTES", err, errlen))
            return -1;
    if (rd64(bus, WS_REG_CNT_ACCEPTED, &c->accepted, "CNT_ACCEPTED", err, errlen) ||
        rd64(bus, WS_REG_CNT_RESULTS, &c->results, "CNT_RESULTS", err, errlen) ||
        rd64(bus, WS_REG_CNT_RESENDS, &c->resends, "CNT_RESENDS", err, errlen) ||
        rd64(bus, WS_REG_CNT_BYPASS, &c->bypass, "CNT_BYPASS", err, errlen) ||
        rd64(bus, WS_REG_CNT_OVERSIZE, &c->oversize, "CNT_OVERSIZE", err, errlen))
        return -1;
    for (int r = 1; r < WS_N_REASONS; r++)
        if (rd64(bus, WS_REG_CNT_DROP(r), &c->drop[r], ws_reason_name((ws_reason)r), err, errlen))
            return -1;
    return 0;
}

/* ---- device handling: open, reset, members, job setup and teardown ---------------------- */

int ws_dev_open(const ws_regbus *bus, ws_dev_params *p, char *err, size_t errlen)
{
    if (!bus || !bus->read || !bus->write) {
        snprintf(err, errlen, "register bus without read or write callback");
        return -1;
    }
    if (ws_dev_read_params(bus, p, err, errlen))
        return -1;
    if (p->ports < 1 || p->ports > WS_LIMIT_PORTS || p->jobs < 1 || p->jobs > WS_TBL_JOB_LIMIT ||
        p->workers < 1 || p->workers > WS_LIMIT_WORKERS || p->pool < 1 ||
        p->pool > WS_LIMIT_SLOTS || p->count < 1 || p->count > WS_LIMIT_COUNT ||
        p->max_frame < 1 || p->max_frame > WS_LIMIT_FRAME ||
        (uint64_t)p->jobs * p->workers > WS_TBL_MEMBER_LIMIT) {
        snprintf(err, errlen,
                 "device parameters out of range: %u ports, %u jobs, %u workers, %u pool slots, "
                 "count %u, max frame %u", p->ports, p->jobs, p->workers, p->pool, p->count,
                 p->max_frame);
        return -1;
    }
    return 0;
}

int ws_dev_clear_counters(const ws_regbus *bus, char *err, size_t errlen)
{
    return wr(bus, WS_REG_CTRL, WS_CTRL_CLEAR_COUNTERS_MASK, "CTRL", err, errlen);
}

int ws_dev_job_active(const ws_regbus *bus, unsigned record, int *active, char *err,
                      size_t errlen)
{
    uint32_t v;
    if (rd(bus, WS_REG_JOB_CTRL(record), &v, "JOB_CTRL", err, errlen))
        return -1;
    *active = (v & WS_JOB_CTRL_ENABLE_MASK) != 0;
    return 0;
}

int ws_dev_job_disable(const ws_regbus *bus, unsigned record, char *err, size_t errlen)
{
    int active;
    if (wr(bus, WS_REG_JOB_CTRL(record), 0, "JOB_CTRL", err, errlen) ||
        ws_dev_job_active(bus, record, &active, err, errlen))
        return -1;
    if (active) {
        snprintf(err, errlen, "job table record %u still active after JOB_CTRL = 0", record);
        return -1;
    }
    return 0;
}

int ws_dev_reset(const ws_regbus *bus, const ws_dev_params *p, char *err, size_t errlen)
{
    for (unsigned j = 0; j < p->jobs; j++)
        if (ws_dev_job_disable(bus, j, err, errlen))
            return -1;
    ws_config d;
    ws_config_default(&d);
    if (wr(bus, WS_REG_DEV_MAC_HI, mac_hi(d.mac), "DEV_MAC_HI", err, errlen) ||
        wr(bus, WS_REG_DEV_MAC_LO, mac_lo(d.mac), "DEV_MAC_LO", err, errlen) ||
        wr(bus, WS_REG_DEV_IP, d.ip, "DEV_IP", err, errlen) ||
        wr(bus, WS_REG_DEV_UDP_PORT, d.udp_port, "DEV_UDP_PORT", err, errlen))
        return -1;
    for (unsigned q = 0; q < p->ports; q++)
        if (wr(bus, WS_REG_BYPASS(q), (q ^ 1) < p->ports ? q ^ 1 : q, "BYPASS", err, errlen))
            return -1;
    return ws_dev_clear_counters(bus, err, errlen);
}

int ws_dev_set_addresses(const ws_regbus *bus, const ws_dev_params *p, const ws_config *cfg,
                         char *err, size_t errlen)
{
    if (cfg->n_ports > p->ports) {
        snprintf(err, errlen, "the configuration has %u ports, the device %u", cfg->n_ports,
                 p->ports);
        return -1;
    }
    if (wr(bus, WS_REG_DEV_MAC_HI, mac_hi(cfg->mac), "DEV_MAC_HI", err, errlen) ||
        wr(bus, WS_REG_DEV_MAC_LO, mac_lo(cfg->mac), "DEV_MAC_LO", err, errlen) ||
        wr(bus, WS_REG_DEV_IP, cfg->ip, "DEV_IP", err, errlen) ||
        wr(bus, WS_REG_DEV_UDP_PORT, cfg->udp_port, "DEV_UDP_PORT", err, errlen))
        return -1;
    for (unsigned q = 0; q < p->ports; q++)
        if (wr(bus, WS_REG_BYPASS(q), q < cfg->n_ports ? cfg->bypass[q] : q, "BYPASS", err,
               errlen))
            return -1;
    return 0;
}

int ws_dev_set_member(const ws_regbus *bus, const ws_dev_params *p, unsigned record,
                      unsigned rank, const ws_member *m, char *err, size_t errlen)
{
    if (record >= p->jobs || rank >= p->workers) {
        snprintf(err, errlen, "member record (%u, rank %u): the device has %u job records of %u "
                 "members", record, rank, p->jobs, p->workers);
        return -1;
    }
    if (m->port >= p->ports) { /* the MEMBER_PORT write would be refused */
        snprintf(err, errlen, "member rank %u of job record %u on port %u: the device has %u "
                 "ports (MEMBER_PORT)", rank, record, m->port, p->ports);
        return -1;
    }
    uint32_t i = record * p->workers + rank;
    return wr(bus, WS_REG_MEMBER_MAC_HI(i), mac_hi(m->mac), "MEMBER_MAC_HI", err, errlen) ||
                   wr(bus, WS_REG_MEMBER_MAC_LO(i), mac_lo(m->mac), "MEMBER_MAC_LO", err,
                      errlen) ||
                   wr(bus, WS_REG_MEMBER_IP(i), m->ip, "MEMBER_IP", err, errlen) ||
                   wr(bus, WS_REG_MEMBER_PORT(i), (uint32_t)m->port << 16 | m->udp_port,
                      "MEMBER_PORT", err, errlen)
               ? -1
               : 0;
}

int ws_dev_job_setup(const ws_regbus *bus, const ws_dev_params *p, unsigned record,
                     const ws_job *jb, char *err, size_t errlen)
{
    if (record >= p->jobs) {
        snprintf(err, errlen, "job %u: table record %u, the device has %u", jb->id, record,
                 p->jobs);
        return -1;
    }
    /* what the commit would refuse, refused before any write, by the code it would give (a
     * parent's IPv4 address equal to the device's, BAD_PARENT_ADDR too, is the device's to see) */
    uint32_t code = jb->workers < 1 || jb->workers > p->workers ? WS_COMMIT_BAD_WORKERS
                    : jb->slots < 1 || jb->slots > p->pool      ? WS_COMMIT_BAD_SLOTS
                    : jb->max_count < 1 || jb->max_count > p->count ? WS_COMMIT_BAD_MAX_COUNT
                    : jb->slot_base + jb->slots > p->pool       ? WS_COMMIT_SLOTS_OUTSIDE_POOL
                                                                 : WS_COMMIT_OK;
    if (code != WS_COMMIT_OK) {
        snprintf(err, errlen, "job %u (table record %u): %u workers, slots %u..%u, max_count %u "
                 "do not fit the device (%u workers, %u pool slots, count %u): %s", jb->id, record,
                 jb->workers, jb->slot_base, jb->slot_base + jb->slots - 1, jb->max_count,
                 p->workers, p->pool, p->count, status_name(code));
        return -1;
    }
    const ws_member *par = &jb->parent;
    code = !jb->has_parent                                ? WS_COMMIT_OK
           : !p->partial                                  ? WS_COMMIT_PARENT_NOT_PARTIAL
           : (par->mac[0] & 1) || par->udp_port == 0      ? WS_COMMIT_BAD_PARENT_ADDR
           : par->port >= p->ports                        ? WS_COMMIT_BAD_PARENT_PORT
           : jb->parent_rank >= WS_LIMIT_WORKERS          ? WS_COMMIT_BAD_PARENT_RANK
                                                          : WS_COMMIT_OK;
    if (code != WS_COMMIT_OK) {
        snprintf(err, errlen, "job %u (table record %u): its parent (device port %u, UDP port %u, "
                 "rank %u) does not fit the device (%u ports, PARAM_PARTIAL = %u): %s", jb->id,
                 record, par->port, par->udp_port, jb->parent_rank, p->ports, p->partial,
                 status_name(code));
        return -1;
    }
    if (ws_dev_job_disable(bus, record, err, errlen))
        return -1;
    for (unsigned w = 0; w < jb->workers; w++)
        if (ws_dev_set_member(bus, p, record, w, &jb->member[w], err, errlen))
            return -1;
    if (wr(bus, WS_REG_JOB_ID(record), jb->id, "JOB_ID", err, errlen) ||
        wr(bus, WS_REG_JOB_WORKERS(record), jb->workers, "JOB_WORKERS", err, errlen) ||
        wr(bus, WS_REG_JOB_SLOTS(record), jb->slots, "JOB_SLOTS", err, errlen) ||
        wr(bus, WS_REG_JOB_SLOT_BASE(record), jb->slot_base, "JOB_SLOT_BASE", err, errlen) ||
        wr(bus, WS_REG_JOB_MAX_COUNT(record), jb->max_count, "JOB_MAX_COUNT", err, errlen) ||
        wr(bus, WS_REG_JOB_PARENT(record), jb->has_parent ? WS_JOB_PARENT_ENABLE_MASK : 0,
           "JOB_PARENT", err, errlen))
        return -1;
    /* the parent's registers: only a job with a parent reads them */
    if (jb->has_parent &&
        (wr(bus, WS_REG_JOB_PAR_MAC_HI(record), mac_hi(par->mac), "JOB_PAR_MAC_HI", err, errlen) ||
         wr(bus, WS_REG_JOB_PAR_MAC_LO(record), mac_lo(par->mac), "JOB_PAR_MAC_LO", err, errlen) ||
         wr(bus, WS_REG_JOB_PAR_IP(record), par->ip, "JOB_PAR_IP", err, errlen) ||
         wr(bus, WS_REG_JOB_PAR_PORT(record),
            (uint32_t)par->port << WS_JOB_PAR_PORT_DEV_PORT_LSB |
                (uint32_t)par->udp_port << WS_JOB_PAR_PORT_UDP_PORT_LSB,
            "JOB_PAR_PORT", err, errlen) ||
         wr(bus, WS_REG_JOB_PAR_JOB(record), jb->parent_job, "JOB_PAR_JOB", err, errlen) ||
         wr(bus, WS_REG_JOB_PAR_RANK(record), jb->parent_rank, "JOB_PAR_RANK", err, errlen)))
        return -1;
    if (wr(bus, WS_REG_JOB_CTRL(record), jb->enable ? 1 : 0, "JOB_CTRL", err, errlen))
        return -1;
    uint32_t st;
    if (rd(bus, WS_REG_STATUS, &st, "STATUS", err, errlen))
        return -1;
    code = (st & WS_STATUS_CODE_MASK) >> WS_STATUS_CODE_LSB;
    if (code != 0) {
        snprintf(err, errlen, "job %u (table record %u) refused by the device: %s (%u)", jb->id,
                 record, status_name(code), code);
        return -1;
    }
    int active;
    if (ws_dev_job_active(bus, record, &active, err, errlen))
        return -1;
    if (active != (jb->enable ? 1 : 0)) {
        snprintf(err, errlen, "job %u (table record %u): JOB_CTRL reads %s after the commit",
                 jb->id, record, active ? "active" : "inactive");
        return -1;
    }
    return 0;
}
