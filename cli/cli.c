/* cli.c - the option parsing the wiresum subcommands share (cli.h). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/config.h"

int ws_cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (s[0] == '-' || s[0] == 0 || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int ws_cli_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (ws_cli_parse_u64(s, lo, hi, out) == 0)
        return 0;
    fprintf(stderr, "wiresum: %s %s: expected an integer in %" PRIu64 "..%" PRIu64 "\n", opt, s,
            lo, hi);
    return -1;
}

int ws_cli_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t v;
    if (ws_cli_u64(opt, s, lo, hi, &v))
        return -1;
    *out = (unsigned)v;
    return 0;
}

int ws_cli_rate(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == 0 || *end || errno || !(v >= 0 && v <= 1)) {
        fprintf(stderr, "wiresum: %s %s: expected a rate from 0 to 1\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int ws_cli_values(const char *s, ws_values_kind *out)
{
    if (ws_values_kind_parse(s, out) == 0)
        return 0;
    fprintf(stderr, "wiresum: --values %s: expected " WS_VALUES_KIND_NAMES "\n", s);
    return -1;
}

/* Exactly one positional DIR argument. */
const char *ws_cli_one_dir(int argc, char **argv, const char *cmd)
{
    if (optind != argc - 1) {
        fprintf(stderr, "wiresum %s: expected one trace directory (see wiresum %s --help)\n", cmd,
                cmd);
        return NULL;
    }
    return argv[optind];
}

int ws_cli_model_check(const model_args *m, const char *cmd)
{
    const char *t = *m->trace;
    size_t n = t ? strlen(t) : 0;
    if (!t && (WS_CLI_SEEN(m, O_TRACE_FROM) || WS_CLI_SEEN(m, O_TRACE_TO))) {
        fprintf(stderr, "wiresum %s: --trace-from and --trace-to choose the cycles of a --trace "
                        "FILE.fst waveform, and there is no --trace\n", cmd);
        return 1;
    }
    if (t && (n < 4 || strcmp(t + n - 4, ".fst"))) {
        fprintf(stderr, "wiresum %s: --trace %s: the models write FST waveforms only: give a "
                        "name ending in .fst (gtkwave opens it; `fst2vcd FILE.fst > FILE.vcd` "
                        "converts it)\n", cmd, t);
        return 1;
    }
    if (t && WS_CLI_SEEN(m, O_TRACE_TO) && *m->trace_to < *m->trace_from) {
        fprintf(stderr, "wiresum %s: --trace-to %llu is before --trace-from %llu\n", cmd,
                (unsigned long long)*m->trace_to, (unsigned long long)*m->trace_from);
        return 1;
    }
    return 0;
}

int ws_cli_model_option(int c, const char *arg, const model_args *m)
{
    if (c >= O_WIDTH && c <= O_PORTS)
        *m->seen |= 1u << (c - O_WIDTH);
    switch (c) {
    case O_WIDTH: {
        /* one message for any value that is not a width, in range or not */
        uint64_t w;
        if (ws_cli_parse_u64(arg, 0, UINT64_MAX, &w) || (w != 256 && w != 512 && w != 1024)) {
            fprintf(stderr, "wiresum: --width %s: expected 256, 512 or 1024\n", arg);
            return 1;
        }
        *m->width = (unsigned)w;
        return 0;
    }
    case O_CLOCK: return ws_cli_u64("--clock", arg, 1, 100000, m->mhz);
    case O_TRACE: *m->trace = arg; return 0;
    case O_TRACE_FROM: return ws_cli_u64("--trace-from", arg, 0, UINT64_MAX, m->trace_from);
    case O_TRACE_TO: return ws_cli_u64("--trace-to", arg, 0, UINT64_MAX, m->trace_to);
    }
    if (!m->workers)
        return -1;
    switch (c) {
    case O_WORKERS: return ws_cli_uint("--workers", arg, 1, WS_LIMIT_WORKERS, m->workers);
    case O_COUNT: return ws_cli_uint("--count", arg, 1, WS_LIMIT_COUNT, m->count);
    case O_SLOTS: return ws_cli_uint("--slots", arg, 1, WS_LIMIT_SLOTS, m->slots);
    case O_PORTS: return ws_cli_uint("--ports", arg, 1, WS_LIMIT_PORTS, m->ports);
    }
    return -1;
}
