/* cli.h - what the wiresum subcommands share: option values parsed with a message naming the
 * option, the one trace directory argument, the options of the commands that drive a model, and
 * each subcommand's entry point (cli/cmd_<name>.c; cli/main.c dispatches).
 */
#ifndef WS_CLI_H
#define WS_CLI_H

#include <stdint.h>

#include "values_kind.h"

#define ERRLEN 1024

/* An integer in lo..hi (decimal, 0x hex or 0 octal) into *out: 0, or -1 after a message naming
 * the option on stderr. ws_cli_parse_u64: the same without the message, for an option that
 * says in one message what its whole value should be. */
int ws_cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int ws_cli_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int ws_cli_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out);
/* A rate from 0 to 1 into *out: 0, or -1 after a message. */
int ws_cli_rate(const char *opt, const char *s, double *out);
/* The kind of values named s (--values) into *out: 0, or -1 after a message. */
int ws_cli_values(const char *s, ws_values_kind *out);
/* The one directory argument left after the options of command cmd, or NULL after a message. */
const char *ws_cli_one_dir(int argc, char **argv, const char *cmd);

/* Options of the commands that drive a model (sim, run, bench), parsed in one place: the model
 * and its trace (MODEL_OPTIONS) and, for the generated workloads, the job (LOAD_OPTIONS). */
enum {
    O_WIDTH = 0x100, O_CLOCK, O_TRACE, O_TRACE_FROM, O_TRACE_TO,
    O_WORKERS, O_COUNT, O_SLOTS, O_PORTS
};
#define MODEL_OPTIONS                                                                      \
    {"width", 1, 0, O_WIDTH}, {"clock", 1, 0, O_CLOCK}, {"trace", 1, 0, O_TRACE},          \
        {"trace-from", 1, 0, O_TRACE_FROM}, {"trace-to", 1, 0, O_TRACE_TO}
#define LOAD_OPTIONS                                                                       \
    {"workers", 1, 0, O_WORKERS}, {"count", 1, 0, O_COUNT}, {"slots", 1, 0, O_SLOTS},      \
        {"ports", 1, 0, O_PORTS}

typedef struct {
    unsigned *width;
    uint64_t *mhz;
    const char **trace;
    uint64_t *trace_from, *trace_to;
    unsigned *workers, *count, *slots, *ports; /* NULL for sim: no LOAD_OPTIONS */
    unsigned *seen; /* bit (c - O_WIDTH) set for each option c given */
} model_args;

/* Option c of MODEL_OPTIONS or LOAD_OPTIONS with its argument: 0 when taken, 1 when the value
 * is bad (message printed), -1 when c is not one of them. */
int ws_cli_model_option(int c, const char *arg, const model_args *m);
/* After the options of command cmd: 0, or 1 after a message when they cannot take effect
 * together (--trace-from or --trace-to without --trace, a window that ends before it starts, a
 * --trace FILE not named .fst: both models write FST only). */
int ws_cli_model_check(const model_args *m, const char *cmd);
#define WS_CLI_SEEN(m, c) (*(m)->seen >> ((c) - O_WIDTH) & 1u)

/* The subcommands: argv[0] is the command's name; the exit status. */
int ws_cmd_gen(int argc, char **argv);
int ws_cmd_ref(int argc, char **argv);
int ws_cmd_check(int argc, char **argv);
int ws_cmd_sim(int argc, char **argv);
int ws_cmd_run(int argc, char **argv);
int ws_cmd_bench(int argc, char **argv);
int ws_cmd_counters(int argc, char **argv);
int ws_cmd_testfloat(int argc, char **argv);
int ws_cmd_numerics(int argc, char **argv);
int ws_cmd_cluster(int argc, char **argv);

#endif
