/* cdf.h - flow-size distributions of `wiresum cluster`'s background (docs/cluster.md,
 * "Background").
 *
 * Owns: a CDF table read from a file (every error FILE:LINE), its mean, and sampling it.
 */
#ifndef WS_CDF_H
#define WS_CDF_H

#include <stddef.h>
#include <stdint.h>

#define WS_CDF_MAX_POINTS 256

/* A flow-size distribution: points (bytes, cumulative probability), piecewise linear. */
typedef struct {
    unsigned n;
    double bytes[WS_CDF_MAX_POINTS];
    double cdf[WS_CDF_MAX_POINTS];
    double mean; /* bytes */
} ws_cdf;

/* Read a CDF file: one point a line, "BYTES PROBABILITY" (probability 0..1), both
 * non-decreasing, the last probability 1; '#' starts a comment. 0, or -1 with
 * "FILE:LINE: reason" in err. */
int ws_cdf_load(ws_cdf *d, const char *path, char *err, size_t errlen);

/* The size at probability u (0 <= u < 1): at least 1 byte. */
uint64_t ws_cdf_sample(const ws_cdf *d, double u);

#endif
