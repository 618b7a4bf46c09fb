/* cmd_testfloat.c - `wiresum testfloat`: the exact adder on Berkeley TestFloat f32_add vectors. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "testfloat.h"

static const char usage_testfloat[] =
    "usage: wiresum testfloat [FILE]\n"
    "\n"
    "Check the exact adder on Berkeley TestFloat f32_add vectors, one case a line:\n"
    "`A B R flags` in hex, as printed by `testfloat_gen f32_add`, from FILE or stdin.\n"
    "Each case is a two-worker sum; a NaN result is expected as 0x7fc00000. Exit 0 only\n"
    "if every case matches. See tests/testfloat.sh.\n"
    "\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

int ws_cmd_testfloat(int argc, char **argv)
{
    static const struct option opts[] = {{"help", 0, 0, 'h'}, {"json", 0, 0, 'J'}, {0, 0, 0, 0}};
    int c, json = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_testfloat, stdout);
            return 0;
        }
        if (c != 'J')
            return 2;
        json = 1;
    }
    if (optind < argc - 1) {
        fprintf(stderr, "wiresum testfloat: at most one FILE\n");
        return 2;
    }
    FILE *in = stdin;
    const char *name = "<stdin>";
    if (optind == argc - 1) {
        name = argv[optind];
        in = fopen(name, "r");
        if (!in) {
            fprintf(stderr, "wiresum testfloat: %s: %s\n", name, strerror(errno));
            return 1;
        }
    }
    unsigned long cases = 0;
    int rc = ws_testfloat_run(in, json ? stderr : stdout, name, &cases);
    if (in != stdin)
        fclose(in);
    if (json && rc >= 0 &&
        ws_json_print(json_pack("{s:s, s:s, s:I, s:i, s:b}", "command", "testfloat", "file", name,
                                "cases", (json_int_t)cases, "mismatches", rc, "ok", rc == 0),
                      stdout, "testfloat"))
        return 1;
    return rc == 0 ? 0 : 1;
}
