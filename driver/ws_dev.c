/* ws_dev.c - configuration and counters of the device through its register map. */
#include "ws_dev.h"

#include <stdio.h>
#include <string.h>

#include "ws_regmap.h"

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
                {WS_REG_PARAM_COUNT, "PARAM_COUNT", &p->count}};
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

int ws_dev_configure(const ws_regbus *bus, const ws_config *cfg, char *err, size_t errlen)
{
    ws_dev_params p;
    if (ws_dev_read_params(bus, &p, err, errlen))
        return -1;
    if (cfg->n_ports > p.ports || cfg->n_jobs > p.jobs || cfg->pool_slots > p.pool ||
        cfg->max_count > p.count) {
        snprintf(err, errlen,
                 "the configuration needs %u ports, %u jobs, %u pool slots, count %u; the device "
                 "has %u, %u, %u, %u",
                 cfg->n_ports, cfg->n_jobs, cfg->pool_slots, cfg->max_count, p.ports, p.jobs,
                 p.pool, p.count);
        return -1;
    }
    for (unsigned j = 0; j < cfg->n_jobs; j++)
        if (cfg->job[j].workers > p.workers) {
            snprintf(err, errlen, "job %u has %u workers; the device supports %u", cfg->job[j].id,
                     cfg->job[j].workers, p.workers);
            return -1;
        }
    if (wr(bus, WS_REG_DEV_MAC_HI, mac_hi(cfg->mac), "DEV_MAC_HI", err, errlen) ||
        wr(bus, WS_REG_DEV_MAC_LO, mac_lo(cfg->mac), "DEV_MAC_LO", err, errlen) ||
        wr(bus, WS_REG_DEV_IP, cfg->ip, "DEV_IP", err, errlen) ||
        wr(bus, WS_REG_DEV_UDP_PORT, cfg->udp_port, "DEV_UDP_PORT", err, errlen))
        return -1;
    /* ports beyond the configuration's bypass to themselves */
    for (unsigned q = 0; q < p.ports; q++)
        if (wr(bus, WS_REG_BYPASS(q), q < cfg->n_ports ? cfg->bypass[q] : q, "BYPASS", err,
               errlen))
            return -1;
    for (unsigned j = 0; j < cfg->n_jobs; j++) {
        const ws_job *jb = &cfg->job[j];
        for (unsigned w = 0; w < jb->workers; w++) {
            const ws_member *m = &jb->member[w];
            uint32_t i = j * p.workers + w;
            if (wr(bus, WS_REG_MEMBER_MAC_HI(i), mac_hi(m->mac), "MEMBER_MAC_HI", err, errlen) ||
                wr(bus, WS_REG_MEMBER_MAC_LO(i), mac_lo(m->mac), "MEMBER_MAC_LO", err, errlen) ||
                wr(bus, WS_REG_MEMBER_IP(i), m->ip, "MEMBER_IP", err, errlen) ||
                wr(bus, WS_REG_MEMBER_PORT(i), (uint32_t)m->port << 16 | m->udp_port,
                   "MEMBER_PORT", err, errlen))
                return -1;
        }
        if (wr(bus, WS_REG_JOB_ID(j), jb->id, "JOB_ID", err, errlen) ||
            wr(bus, WS_REG_JOB_WORKERS(j), jb->workers, "JOB_WORKERS", err, errlen) ||
            wr(bus, WS_REG_JOB_SLOTS(j), jb->slots, "JOB_SLOTS", err, errlen) ||
            wr(bus, WS_REG_JOB_SLOT_BASE(j), jb->slot_base, "JOB_SLOT_BASE", err, errlen) ||
            wr(bus, WS_REG_JOB_MAX_COUNT(j), jb->max_count, "JOB_MAX_COUNT", err, errlen) ||
            wr(bus, WS_REG_JOB_CTRL(j), jb->enable ? 1 : 0, "JOB_CTRL", err, errlen))
            return -1;
        uint32_t st;
        if (rd(bus, WS_REG_STATUS, &st, "STATUS", err, errlen))
            return -1;
        uint32_t code = (st & WS_STATUS_CODE_MASK) >> WS_STATUS_CODE_LSB;
        if (code != 0) {
            snprintf(err, errlen, "job %u (table record %u) refused by the device: %s (%u)", jb->id,
                     j, status_name(code), code);
            return -1;
        }
    }
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
        rd64(bus, WS_REG_CNT_BYPASS, &c->bypass, "CNT_BYPASS", err, errlen))
        return -1;
    for (int r = 1; r < WS_N_REASONS; r++)
        if (rd64(bus, WS_REG_CNT_DROP(r), &c->drop[r], ws_reason_name((ws_reason)r), err, errlen))
            return -1;
    return 0;
}
