/* json.c - the tools' summaries as JSON (jansson). */
#include "json.h"

#include "wiresum/reasons.h"

json_t *ws_json_counters(const ws_counters *c, unsigned n_ports)
{
    json_t *ports = json_array(), *drop = json_object();
    if (!ports || !drop) {
        json_decref(ports);
        json_decref(drop);
        return NULL;
    }
    for (unsigned p = 0; p < n_ports && p < WS_LIMIT_PORTS; p++)
        json_array_append_new(ports, json_pack("{s:I, s:I, s:I, s:I}",
                                               "rx_frames", (json_int_t)c->rx_frames[p],
                                               "rx_bytes", (json_int_t)c->rx_bytes[p],
                                               "tx_frames", (json_int_t)c->tx_frames[p],
                                               "tx_bytes", (json_int_t)c->tx_bytes[p]));
    for (int r = 1; r < WS_N_REASONS; r++)
        json_object_set_new(drop, ws_reason_name((ws_reason)r), json_integer((json_int_t)c->drop[r]));
    return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o}", "ports", ports,
                     "accepted", (json_int_t)c->accepted, "results", (json_int_t)c->results,
                     "resends", (json_int_t)c->resends, "bypass", (json_int_t)c->bypass,
                     "oversize", (json_int_t)c->oversize, "drop", drop);
}

int ws_json_print(json_t *o, FILE *out, const char *cmd)
{
    if (!o) {
        fprintf(stderr, "wiresum %s: could not build the JSON summary (out of memory)\n", cmd);
        return -1;
    }
    int rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (rc != 0 || fputc('\n', out) == EOF || fflush(out) != 0) {
        fprintf(stderr, "wiresum %s: could not write the JSON summary\n", cmd);
        return -1;
    }
    return 0;
}
