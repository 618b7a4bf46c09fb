/* cdf.c - flow-size distributions from a file (cdf.h). */
#include "cdf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ws_cdf_load(ws_cdf *d, const char *path, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(path, "r");
    if (!f)
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    char line[512];
    unsigned ln = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\r' || !*p)
            continue;
        char *end;
        errno = 0;
        double b = strtod(p, &end), q = end != p ? strtod(end, &end) : NAN;
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (errno || *end || !isfinite(b) || !isfinite(q)) {
            snprintf(err, errlen, "%s:%u: expected \"BYTES PROBABILITY\"", path, ln);
            rc = -1;
        } else if (b < 0 || b > 1e12 || q < 0 || q > 1) {
            snprintf(err, errlen, "%s:%u: bytes 0..1e12 and a probability 0..1, not %g %g", path,
                     ln, b, q);
            rc = -1;
        } else if (d->n && (b < d->bytes[d->n - 1] || q < d->cdf[d->n - 1])) {
            snprintf(err, errlen, "%s:%u: %g %g: bytes and probabilities must not decrease "
                     "(previous point %g %g)", path, ln, b, q, d->bytes[d->n - 1],
                     d->cdf[d->n - 1]);
            rc = -1;
        } else if (d->n == WS_CDF_MAX_POINTS) {
            snprintf(err, errlen, "%s:%u: more than %d points", path, ln, WS_CDF_MAX_POINTS);
            rc = -1;
        } else {
            d->bytes[d->n] = b;
            d->cdf[d->n++] = q;
        }
    }
    if (rc == 0 && ferror(f))
        rc = -1, snprintf(err, errlen, "%s: cannot read", path);
    fclose(f);
    if (rc)
        return rc;
    if (d->n < 2 || d->cdf[d->n - 1] != 1)
        return snprintf(err, errlen, "%s:%u: the last point's probability must be 1 (%u points "
                        "read, at least 2)", path, ln, d->n), -1;
    if (d->bytes[d->n - 1] < 1)
        return snprintf(err, errlen, "%s:%u: the largest flow is under 1 byte", path, ln), -1;
    /* the mass at the first point, then each segment's at its midpoint */
    d->mean = d->cdf[0] * d->bytes[0];
    for (unsigned i = 1; i < d->n; i++)
        d->mean += (d->cdf[i] - d->cdf[i - 1]) * (d->bytes[i] + d->bytes[i - 1]) / 2;
    return 0;
}

uint64_t ws_cdf_sample(const ws_cdf *d, double u)
{
    double b = d->bytes[d->n - 1];
    if (u < d->cdf[0]) {
        b = d->bytes[0];
    } else {
        for (unsigned i = 1; i < d->n; i++)
            if (u < d->cdf[i]) {
                double t = (u - d->cdf[i - 1]) / (d->cdf[i] - d->cdf[i - 1]);
                b = d->bytes[i - 1] + t * (d->bytes[i] - d->bytes[i - 1]);
                break;
            }
    }
    uint64_t n = (uint64_t)llround(b);
    return n ? n : 1;
}
