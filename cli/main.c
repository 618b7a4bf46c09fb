/* main.c - the wiresum command line tool: one subcommand per file (cli/cmd_<name>.c). */
#include <stdio.h>
#include <string.h>
#include <getopt.h>

#include "cli.h"

/* the version of the tool and the library, WS_VERSION of mk/c.mk */
#ifndef WIRESUM_TOOL_VERSION
#error "WIRESUM_TOOL_VERSION is set by mk/c.mk"
#endif

static const char usage_main[] =
    "usage: wiresum <command> [options] [args]\n"
    "\n"
    "wiresum is an in-network gradient aggregation accelerator (RTL + host model).\n"
    "This tool generates gradient traces, runs them through the software reference of\n"
    "the device and checks the results bit for bit against exact sums.\n"
    "\n"
    "commands:\n"
    "  gen DIR        write a gradient trace: job.ini, in<P>.pcap, sum-<job>-<tensor>.f32\n"
    "  ref DIR        run in<P>.pcap through the software reference, write expected<P>.pcap\n"
    "  check DIR      reassemble every member's tensors from expected<P>.pcap (or --prefix)\n"
    "                 and compare them with the exact sums\n"
    "  sim DIR        replay DIR/in<P>.pcap through the RTL (Verilator model), write\n"
    "                 out<P>.pcap, compare with expected<P>.pcap and the counters\n"
    "  run            closed loop: W workers running the driver's transport against the RTL\n"
    "                 (or the reference) through a faulty network; every tensor verified\n"
    "  counters DIR   print the device counters a run saved in DIR/counters.txt\n"
    "  testfloat      check the exact adder on Berkeley TestFloat f32_add lines (stdin)\n"
    "  bench          line rate and latency of the RTL under saturating closed-loop load\n"
    "  numerics       what binary32 sums in arrival order, an adder tree or SwitchML's int32\n"
    "                 quantization cost against the exact sum (gen's values, recordings)\n"
    "  cluster FILE   a cluster on ns-3: all-reduce through wiresum devices and as a ring\n"
    "                 over TCP, in the same simulated fabric (docs/cluster.md)\n"
    "\n"
    "`wiresum <command> --help` (or `wiresum help <command>`) explains each command;\n"
    "`wiresum --version` prints the version. The trace directory format is in docs/traces.md,\n"
    "the wire protocol in docs/protocol.md.\n";

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"gen", ws_cmd_gen}, {"ref", ws_cmd_ref}, {"check", ws_cmd_check},
                {"sim", ws_cmd_sim},
                {"run", ws_cmd_run},
                {"counters", ws_cmd_counters},
                {"bench", ws_cmd_bench},
                {"numerics", ws_cmd_numerics},
                {"testfloat", ws_cmd_testfloat},
                {"cluster", ws_cmd_cluster}};
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("wiresum %s\n", WIRESUM_TOOL_VERSION);
        return 0;
    }
    int help = argc >= 2 && !strcmp(argv[1], "help");
    if (argc < 2 || (help && argc == 2) || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_main, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (help && argc > 3) {
        fprintf(stderr, "wiresum help: expected one command (see wiresum --help)\n");
        return 2;
    }
    const char *name = argv[help ? 2 : 1];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(name, cmds[i].name)) {
            /* `wiresum help CMD` is `wiresum CMD --help` */
            static char opt_help[] = "--help";
            char *as_help[] = {argv[2], opt_help, NULL};
            optind = 1;
            return help ? cmds[i].fn(2, as_help) : cmds[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "wiresum: unknown command '%s' (see wiresum --help)\n", name);
    return 2;
}
