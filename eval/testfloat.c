/* testfloat.c - run Berkeley TestFloat f32_add vectors through ws_sum_f32. */
#include "testfloat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wiresum/xsum.h"

#define TF_FIELDS 4
#define TF_MAX_SHOWN 20

static int tf_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int tf_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parse one line into v[]. Returns 1 for a vector, 0 for a line to skip, -1 for
 * a malformed line with a reason in why. */
static int tf_parse(const char *s, uint32_t v[TF_FIELDS], char *why, size_t whylen)
{
    unsigned nf = 0;
    while (tf_space(*s))
        s++;
    if (*s == '\0' || *s == '#')
        return 0;
    while (*s) {
        uint32_t val = 0;
        unsigned digits = 0;
        while (*s && !tf_space(*s)) {
            int h = tf_hexval(*s);
            if (h < 0) {
                snprintf(why, whylen, "field %u is not hex", nf + 1);
                return -1;
            }
            if (++digits > 8) {
                snprintf(why, whylen, "field %u has more than 8 hex digits", nf + 1);
                return -1;
            }
            val = (val << 4) | (uint32_t)h;
            s++;
        }
        if (nf < TF_FIELDS)
            v[nf] = val;
        nf++;
        while (tf_space(*s))
            s++;
    }
    if (nf != TF_FIELDS) {
        snprintf(why, whylen, "expected %u fields (A B R flags), got %u", TF_FIELDS, nf);
        return -1;
    }
    return 1;
}

static int tf_is_nan(uint32_t b)
{
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
}

int ws_testfloat_run(FILE *in, FILE *out, const char *name, unsigned long *n_cases)
{
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0, cases = 0, bad = 0;
    int rc = 0;

    while (getline(&line, &cap, in) >= 0) {
        uint32_t v[TF_FIELDS];
        char why[80];
        lineno++;
        int k = tf_parse(line, v, why, sizeof why);
        if (k == 0)
            continue;
        if (k < 0) {
            fprintf(out, "%s:%lu: malformed f32_add line: %s\n", name, lineno, why);
            rc = -1;
            break;
        }
        /* v[3] holds TestFloat's exception flags: read, deliberately ignored
         * (the accumulator raises no IEEE exceptions). */
        uint32_t ab[2] = {v[0], v[1]};
        uint32_t want = tf_is_nan(v[2]) ? WS_QNAN : v[2]; /* default NaN differs by platform */
        uint32_t got = ws_sum_f32(ab, 2);
        cases++;
        if (got != want) {
            if (bad < TF_MAX_SHOWN)
                fprintf(out, "%s:%lu: %08X + %08X: expected %08X, got %08X\n", name, lineno,
                        (unsigned)v[0], (unsigned)v[1], (unsigned)want, (unsigned)got);
            bad++;
        }
    }
    if (rc == 0 && ferror(in)) {
        fprintf(out, "%s:%lu: read error\n", name, lineno + 1);
        rc = -1;
    }
    free(line);
    if (rc < 0)
        return -1;
    if (cases == 0) { /* `testfloat_gen ... | wiresum testfloat` without testfloat_gen */
        fprintf(out, "%s: no f32_add case in %lu lines: nothing was checked (is the input "
                     "from testfloat_gen f32_add? tests/testfloat.sh)\n", name, lineno);
        return -1;
    }
    if (bad > TF_MAX_SHOWN)
        fprintf(out, "%s: %lu more mismatches not shown\n", name, bad - TF_MAX_SHOWN);
    fprintf(out, "testfloat: %lu cases, %lu mismatches\n", cases, bad);
    if (n_cases)
        *n_cases = cases;
    return bad > (unsigned long)INT32_MAX ? INT32_MAX : (int)bad;
}
