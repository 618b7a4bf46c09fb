/* cmd_check.c - `wiresum check`: every member's reassembled tensor against the exact sums. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

#include "check.h"
#include "json.h"

static const char usage_check[] =
    "usage: wiresum check DIR [options]\n"
    "\n"
    "Reassemble every member's tensors from the RESULT frames of DIR/<prefix><P>.pcap and\n"
    "compare them bit for bit with DIR/sum-<job>-<tensor>.f32. Every RESULT must be\n"
    "addressed from the device to its member, leave on the member's port and carry valid\n"
    "IPv4 and UDP checksums; every member must receive every element. Exit 0 only if so.\n"
    "\n"
    "  --prefix PREFIX  output files to check (default expected)\n"
    "  -q, --quiet      print problems only\n"
    "  --json           the summary as one JSON object on stdout (docs/traces.md)\n";

int ws_cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {
        {"prefix", 1, 0, 'p'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
        {"json", 0, 0, 'J'},   {0, 0, 0, 0}};
    const char *prefix = "expected";
    int quiet = 0, json = 0, c;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'p': prefix = optarg; break;
        case 'q': quiet = 1; break;
        case 'J': json = 1; break;
        case 'h': fputs(usage_check, stdout); return 0;
        default: return 2;
        }
    }
    const char *dir = ws_cli_one_dir(argc, argv, "check");
    if (!dir)
        return 2;
    ws_check_stats st;
    char err[ERRLEN];
    int rc = ws_check(dir, prefix, &st, json ? stderr : stdout, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "wiresum check: %s\n", err);
        return 1;
    }
    if (json)
        return ws_json_print(json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b}", "command",
                                       "check", "dir", dir, "prefix", prefix,
                                       "tensors", (json_int_t)st.tensors,
                                       "results", (json_int_t)st.results,
                                       "resent", (json_int_t)st.resends,
                                       "other_frames", (json_int_t)st.other, "ok", rc == 0),
                             stdout, "check") || rc ? 1 : 0;
    if (!quiet || rc)
        printf("check %s: %llu tensors, %llu RESULTs (%llu re-sent), %llu other frames: %s\n", dir,
               (unsigned long long)st.tensors, (unsigned long long)st.results,
               (unsigned long long)st.resends, (unsigned long long)st.other,
               rc ? "MISMATCH" : "every member's tensor equals the exact sum");
    return rc ? 1 : 0;
}
