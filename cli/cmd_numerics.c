/* cmd_numerics.c - `wiresum numerics`: what binary32 summation without wiresum costs, on gen's
 * value distributions or recorded gradients (eval/numerics.c does the work). */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "json.h"
#include "numerics.h"
#include "wiresum/config.h"

static const char usage_numerics[] =
    "usage: wiresum numerics [options]\n"
    "\n"
    "What summing binary32 gradients without wiresum costs (docs/performance.md section 7).\n"
    "For each workers count and each element, against r, the correctly rounded exact sum of\n"
    "the workers' values (ws_sum_f32 of driver/wiresum/xsum.h):\n"
    "  sequential  binary32 sum in arrival order, rounded after every add, in --orders random\n"
    "              orders of the workers (seeded: the same for a given --seed), and how many\n"
    "              distinct results an element takes over them\n"
    "  tree        a balanced binary adder tree in worker order, as PANAMA's FPGA adder tree:\n"
    "              pairs (0,1), (2,3), ..., an odd one out goes up a level as it is\n"
    "  switchml    SwitchML's int32 block quantization: per chunk of --count elements, e the\n"
    "              largest exponent field E - 126 of the workers' values (2^e > |v|), scale\n"
    "              f = INT32_MAX / (N x 2^e) as a binary32, each value to round(v x f) (ties\n"
    "              away from zero; Inf and NaN to 0), the int32 sum, back as sum / f\n"
    "  wiresum     the device: the exact sum rounded once, in the same orders and as a tree\n"
    "              of partial accumulators; anything but r is a bug (exit 1)\n"
    "Error of a result x in ulps: |x - r| / ulp(r), ulp(r) = 2^(max(E,1) - 150) the binary32\n"
    "spacing in r's binade: 0 exactly when x = r. x is correctly rounded when x = r as a\n"
    "number (+0 = -0, any NaN = any NaN); an Inf or NaN on one side only (or two different\n"
    "Infs) is not, has no ulp error and counts as non-finite.\n"
    "\n"
    "inputs:\n"
    "  --values LIST    gen's value distributions, comma-separated: normal, mixed, special\n"
    "                   (default: all three), as `wiresum gen --values KIND --seed N\n"
    "                   --workers W --elems E` writes them for its first tensor\n"
    "  --from DIR       recorded gradients instead (docs/traces.md): every step of the\n"
    "                   recording, with its workers (not with --values, --workers, --elems)\n"
    "  --workers LIST   workers counts, comma-separated, each 1..64 (default 2,4,8,16,32,64)\n"
    "  --elems N        elements of a generated tensor (default 4096)\n"
    "  --seed N         gen's seed of the values, and the seed of the orders (default 1)\n"
    "methods:\n"
    "  --orders R       random arrival orders per element, 1..1000000 (default 1000)\n"
    "  --count K        elements per packet: SwitchML's chunk, 1..2048 (default 256)\n"
    "  --json           the table as one JSON object on stdout (docs/traces.md)\n";

/* "2,4,8" into w[], at most WS_LIMIT_WORKERS entries each 1..WS_LIMIT_WORKERS: their number,
 * or 0 after a message. */
static unsigned parse_workers(const char *s, unsigned *w)
{
    unsigned n = 0;
    for (const char *p = s;;) {
        char *end;
        unsigned long v = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
        if (n == WS_LIMIT_WORKERS || v < 1 || v > WS_LIMIT_WORKERS || (*end && *end != ',')) {
            fprintf(stderr, "wiresum: --workers %s: expected workers counts 1..%d separated by "
                            "commas\n", s, WS_LIMIT_WORKERS);
            return 0;
        }
        w[n++] = (unsigned)v;
        if (!*end)
            return n;
        p = end + 1;
    }
}

/* the kinds of values, in the order the report takes them */
static const ws_values_kind kinds[] = {WS_VALUES_NORMAL, WS_VALUES_MIXED, WS_VALUES_SPECIAL};

/* "normal,special" into the set bits of *set (1 << index in kinds): 0, or -1 after a message. */
static int parse_values(const char *s, unsigned *set)
{
    *set = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        unsigned k = 0;
        while (k < 3 && (strlen(ws_values_kind_name(kinds[k])) != len ||
                         strncmp(p, ws_values_kind_name(kinds[k]), len)))
            k++;
        if (k == 3) {
            fprintf(stderr, "wiresum: --values %s: expected normal, mixed or special, "
                            "separated by commas\n", s);
            return -1;
        }
        *set |= 1u << k;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

static json_t *err_json(const ws_num_err *e)
{
    return json_pack("{s:I, s:I, s:f, s:I, s:f, s:f}", "results", (json_int_t)e->results,
                     "not_correctly_rounded", (json_int_t)e->wrong,
                     "share_not_correctly_rounded", e->results ? (double)e->wrong / e->results : 0,
                     "nonfinite", (json_int_t)e->nonfinite, "max_ulp", e->max_ulp,
                     "mean_ulp", e->finite ? e->sum_ulp / e->finite : 0);
}

static json_t *row_json(const char *input, const ws_num_row *r)
{
    json_t *seq = err_json(&r->seq), *sw = err_json(&r->switchml);
    json_object_set_new(seq, "distinct_max", json_integer(r->distinct_max));
    json_object_set_new(seq, "distinct_mean",
                        json_real(r->elems ? (double)r->distinct_sum / r->elems : 0));
    json_object_set_new(sw, "overflows", json_integer((json_int_t)r->switchml_overflow));
    json_t *pa = json_pack("{s:I, s:I, s:f}", "escaped", (json_int_t)r->partial_escaped,
                           "words", (json_int_t)r->partial_words, "bytes_per_element",
                           r->elems ? 8.0 * (double)r->partial_words / (double)r->elems : 0.0);
    return json_pack("{s:s, s:i, s:I, s:o, s:o, s:o, s:o, s:o}", "input", input,
                     "workers", (int)r->workers, "elements", (json_int_t)r->elems,
                     "sequential", seq, "tree", err_json(&r->tree), "switchml", sw,
                     "wiresum", err_json(&r->wiresum), "partial", pa);
}

static void print_err(const char *method, const ws_num_err *e, FILE *out)
{
    fprintf(out, "  %-10s %9.4f %% not correctly rounded (%llu of %llu, %llu non-finite); "
                 "ulps max %.10g, mean %.6g\n", method,
            e->results ? 100.0 * (double)e->wrong / e->results : 0, (unsigned long long)e->wrong,
            (unsigned long long)e->results, (unsigned long long)e->nonfinite, e->max_ulp,
            e->finite ? e->sum_ulp / e->finite : 0);
}

static void print_row(const char *input, const ws_num_row *r, FILE *out)
{
    fprintf(out, "%s, %u workers, %llu elements:\n", input, r->workers,
            (unsigned long long)r->elems);
    print_err("sequential", &r->seq, out);
    fprintf(out, "  %-10s distinct results of an element: max %u, mean %.3f\n", "",
            r->distinct_max, r->elems ? (double)r->distinct_sum / r->elems : 0);
    print_err("tree", &r->tree, out);
    print_err("switchml", &r->switchml, out);
    print_err("wiresum", &r->wiresum, out);
    fprintf(out, "  %-10s %.4f bytes per element as a PARTIAL (%llu of %llu take more than one "
            "word)\n", "partial", r->elems ? 8.0 * (double)r->partial_words / (double)r->elems : 0.0,
            (unsigned long long)r->partial_escaped, (unsigned long long)r->elems);
}

int ws_cmd_numerics(int argc, char **argv)
{
    static const struct option opts[] = {
        {"values", 1, 0, 'v'}, {"from", 1, 0, 'F'},   {"workers", 1, 0, 'w'},
        {"elems", 1, 0, 'e'},  {"seed", 1, 0, 'S'},   {"orders", 1, 0, 'o'},
        {"count", 1, 0, 'k'},  {"json", 0, 0, 'J'},   {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    unsigned workers[WS_LIMIT_WORKERS] = {2, 4, 8, 16, 32, 64}, nworkers = 6, set = 7;
    uint64_t elems = 4096, seed = 1;
    ws_num_opts o = {1000, 256, 1};
    const char *from = NULL, *shape = NULL;
    int c, bad = 0, json = 0;
    while (!bad && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'v' || c == 'w' || c == 'e')
            shape = c == 'v' ? "--values" : c == 'w' ? "--workers" : "--elems";
        switch (c) {
        case 'v': bad = parse_values(optarg, &set) != 0; break;
        case 'F': from = optarg; break;
        case 'w': bad = (nworkers = parse_workers(optarg, workers)) == 0; break;
        case 'e': bad = ws_cli_u64("--elems", optarg, 1, 0xffffffffu, &elems); break;
        case 'S': bad = ws_cli_u64("--seed", optarg, 0, UINT64_MAX, &seed); break;
        case 'o': bad = ws_cli_uint("--orders", optarg, 1, 1000000, &o.orders); break;
        case 'k': bad = ws_cli_uint("--count", optarg, 1, WS_LIMIT_COUNT, &o.count); break;
        case 'J': json = 1; break;
        case 'h': fputs(usage_numerics, stdout); return 0;
        default: bad = 1;
        }
    }
    if (!bad && from && shape) {
        fprintf(stderr, "wiresum numerics: %s cannot apply with --from, which sums the "
                        "recording's tensors over its workers\n", shape);
        bad = 1;
    }
    if (!bad && optind != argc) {
        fprintf(stderr, "wiresum numerics: unexpected argument '%s' (see wiresum numerics "
                        "--help)\n", argv[optind]);
        bad = 1;
    }
    if (bad)
        return 2;
    o.seed = seed;

    char err[ERRLEN];
    uint32_t *rec = NULL;
    unsigned steps = 1;
    if (from) {
        rec = ws_gen_load_recording(from, &workers[0], &steps, &elems, err, sizeof err);
        if (!rec) {
            fprintf(stderr, "wiresum numerics: %s\n", err);
            return 1;
        }
        nworkers = 1;
        set = 1;
    }
    FILE *out = json ? stderr : stdout;
    json_t *rows = json ? json_array() : NULL;
    fprintf(out, "numerics: %u random arrival orders per element, SwitchML chunks of %u "
                 "elements, seed %llu\n", o.orders, o.count, (unsigned long long)seed);
    unsigned maxw = 0;
    for (unsigned i = 0; i < nworkers; i++)
        maxw = workers[i] > maxw ? workers[i] : maxw;
    uint32_t *v = rec ? NULL : malloc((size_t)maxw * elems * sizeof *v);
    int rc = (rec || v) ? 0 : (snprintf(err, sizeof err, "out of memory"), -1);
    for (unsigned k = 0; k < 3 && !rc; k++) {
        if (!(set >> k & 1))
            continue;
        const char *input = from ? from : ws_values_kind_name(kinds[k]);
        for (unsigned i = 0; i < nworkers && !rc; i++) {
            ws_num_row row;
            ws_num_row_init(&row, workers[i]);
            for (unsigned t = 0; t < steps && !rc; t++) {
                const uint32_t *tv = rec ? rec + (uint64_t)t * workers[i] * elems : v;
                if (!rec)
                    for (unsigned w = 0; w < workers[i]; w++)
                        for (uint64_t e = 0; e < elems; e++)
                            v[w * elems + e] = ws_gen_value(kinds[k], seed, 0, 0, w, e);
                rc = ws_num_tensor(&row, &o, tv, elems, (uint64_t)t * elems, err, sizeof err);
            }
            if (rc)
                break;
            print_row(input, &row, out);
            if (rows)
                json_array_append_new(rows, row_json(input, &row));
        }
    }
    free(rec);
    free(v);
    if (rc) {
        json_decref(rows);
        fprintf(stderr, "wiresum numerics: %s\n", err);
        return 1;
    }
    if (json)
        return ws_json_print(json_pack("{s:s, s:I, s:i, s:i, s:o, s:b}", "command", "numerics",
                                       "seed", (json_int_t)seed, "orders", (int)o.orders,
                                       "count", (int)o.count, "rows", rows, "ok", 1),
                             stdout, "numerics") ? 1 : 0;
    return 0;
}
