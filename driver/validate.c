/* validate.c - the stateless validation of an aggregation frame against the device's
 * configuration (wiresum/validate.h). */
#include "wiresum/validate.h"

#include <string.h>

/* A RESULT to a device that takes PARTIALs: the RESULT of its parent for one of its jobs, found
 * by the parent's address and job id; else still a RESULT sent to the device. */
static ws_reason validate_parent_result(size_t len, const ws_config *cfg, const ws_hdr *h,
                                        const ws_job **jobp)
{
    const ws_job *job = NULL;
    for (unsigned j = 0; j < cfg->n_jobs && !job; j++) {
        const ws_job *c = &cfg->job[j];
        if (c->enable && c->has_parent && c->parent_job == h->job && c->parent.ip == h->src_ip &&
            c->parent.udp_port == h->src_port)
            job = c;
    }
    if (!job)
        return WS_DROP_RESULT_TO_DEVICE;
    if (h->worker != job->parent_rank)
        return WS_DROP_BAD_RANK;
    if (memcmp(h->src_mac, job->parent.mac, 6) != 0)
        return WS_DROP_SPOOFED;
    if (h->slot >= job->slots)
        return WS_DROP_BAD_SLOT;
    if (h->count == 0 || h->count > job->max_count)
        return WS_DROP_BAD_COUNT;
    if (len != ws_frame_len(h->count))
        return WS_DROP_BAD_LENGTH;
    *jobp = job;
    return WS_OK;
}

ws_reason ws_validate(const uint8_t *f, size_t len, const ws_config *cfg, ws_hdr *h,
                      const ws_job **jobp)
{
    const uint8_t *ip = f + WS_OFF_IP;
    *jobp = NULL;

    /* IPv4: version, no options, header checksum, no fragment, total length. */
    if (len < WS_OFF_IP + WS_IPV4_LEN || ip[0] != 0x45)
        return WS_DROP_BAD_IPV4;
    if (!ws_ipv4_header_ok(ip))
        return WS_DROP_BAD_IPV4;
    if (ws_get16(ip + 6) & 0x3fff) /* MF or a fragment offset; DF is fine */
        return WS_DROP_BAD_IPV4;
    if (ws_get16(ip + 2) != len - WS_ETH_LEN)
        return WS_DROP_BAD_IPV4;

    /* UDP: header present, length consistent, checksum 0 or right. */
    if (len < WS_OFF_UDP + WS_UDP_LEN)
        return WS_DROP_BAD_UDP;
    const uint8_t *udp = f + WS_OFF_UDP;
    if (ws_get16(udp + 4) != len - WS_OFF_UDP)
        return WS_DROP_BAD_UDP;
    if (ws_get16(udp + 6) != 0 &&
        !ws_udp_checksum_ok(ws_get32(ip + 12), ws_get32(ip + 16), udp, len - WS_OFF_UDP))
        return WS_DROP_BAD_UDP;

    if (len < WS_OFF_ELEMS)
        return WS_DROP_BAD_LENGTH;

    /* Aggregation header. */
    const uint8_t *a = f + WS_OFF_AGG;
    unsigned type = a[0] & 0x0fu;
    if (a[0] >> 4 != WS_VERSION)
        return WS_DROP_BAD_HEADER;
    if (type == WS_TYPE_RESULT && !cfg->partial)
        return WS_DROP_RESULT_TO_DEVICE;
    int partial = type == WS_TYPE_PARTIAL && cfg->partial;
    if ((type != WS_TYPE_DATA && type != WS_TYPE_RESULT && !partial) || a[1] != WS_DTYPE_F32 ||
        (a[2] & WS_FLAGS_RESERVED) || a[3] != 0 || (!partial && ws_get16(a + 20) != 0))
        return WS_DROP_BAD_HEADER;

    ws_parse(f, h);
    if (type == WS_TYPE_RESULT)
        return validate_parent_result(len, cfg, h, jobp);
    const ws_job *job = ws_config_find_job(cfg, h->job);
    if (!job || !job->enable)
        return WS_DROP_UNKNOWN_JOB;
    if (h->worker >= job->workers)
        return WS_DROP_BAD_RANK;
    const ws_member *m = &job->member[h->worker];
    if (memcmp(h->src_mac, m->mac, 6) != 0 || h->src_ip != m->ip || h->src_port != m->udp_port)
        return WS_DROP_SPOOFED;
    if (h->slot >= job->slots)
        return WS_DROP_BAD_SLOT;
    if (h->count == 0 || h->count > job->max_count)
        return WS_DROP_BAD_COUNT;
    if (len != (partial ? ws_partial_len(h->count, h->ext) : ws_frame_len(h->count)))
        return WS_DROP_BAD_LENGTH;
    *jobp = job;
    return WS_OK;
}
