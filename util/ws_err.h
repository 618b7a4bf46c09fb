/* ws_err.h - the one way the code above the driver writes an error message into a caller's
 * buffer: ws_errf(err, errlen, fmt, ...) formats it (nothing when err is NULL or errlen is 0)
 * and returns -1, so that a check reads `return ws_errf(err, errlen, "...", ...);`.
 *
 * Internal to the build (not installed), like ws_grow.h.
 */
#ifndef WS_ERR_H
#define WS_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int ws_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int ws_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
