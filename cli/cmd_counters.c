/* cmd_counters.c - `wiresum counters`: the counters a run saved in DIR/counters.txt. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "counters_file.h"
#include "json.h"

static const char usage_counters[] =
    "usage: wiresum counters DIR|FILE\n"
    "\n"
    "Print the device counters saved by `wiresum sim DIR` or `wiresum run --record DIR` in\n"
    "DIR/counters.txt (or FILE) as a table: per port the frames and bytes received and sent;\n"
    "frames accepted, RESULTs sent and re-sent, bypass frames; drops by reason (the names of\n"
    "driver/wiresum/reasons.h). With the reference's counters in the file too (sim), they are\n"
    "shown beside the device's and every difference is marked. The format is in docs/traces.md.\n"
    "Exit 0 if the file reads (whatever the counters say), 1 if not.\n"
    "\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

int ws_cmd_counters(int argc, char **argv)
{
    static const struct option opts[] = {{"help", 0, 0, 'h'}, {"json", 0, 0, 'J'}, {0, 0, 0, 0}};
    int c, json = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_counters, stdout);
            return 0;
        }
        if (c != 'J')
            return 2;
        json = 1;
    }
    const char *arg = ws_cli_one_dir(argc, argv, "counters");
    if (!arg)
        return 2;
    char path[4096];
    struct stat sb;
    if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(path, sizeof path, "%s/%s", arg, WS_COUNTERS_FILE);
    else
        snprintf(path, sizeof path, "%s", arg);
    ws_counters_file cf;
    char err[ERRLEN];
    if (ws_counters_file_load(path, &cf, err, sizeof err)) {
        fprintf(stderr, "wiresum counters: %s\n", err);
        return 1;
    }
    if (json) {
        json_t *o = json_pack("{s:s, s:s}", "command", "counters", "file", path);
        const ws_counters_section *sec[2] = {&cf.device, &cf.reference};
        const char *key[2] = {"device", "reference"};
        for (int k = 0; k < 2 && o; k++)
            if (sec[k]->present)
                json_object_set_new(o, key[k],
                                    json_pack("{s:s, s:i, s:o}", "source", sec[k]->source,
                                              "ports", (int)sec[k]->ports, "counters",
                                              ws_json_counters(&sec[k]->c, sec[k]->ports)));
        if (o)
            json_object_set_new(o, "differ", json_integer(ws_counters_file_differ(&cf, NULL)));
        return ws_json_print(o, stdout, "counters") ? 1 : 0;
    }
    printf("%s:\n", path);
    ws_counters_file_table(stdout, &cf);
    return 0;
}
