/* ws_grow.h - a growing array, the one way the code above the driver grows one.
 *
 * Internal to the build (not installed): sim/ and the tools' folders include it as "ws_grow.h"
 * (every layer above util/ compiles with -Iutil).
 */
#ifndef WS_GROW_H
#define WS_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Room for at least need elements of size bytes in the array p of *cap elements: p itself if
 * it has it, else p reallocated to first elements (if *cap is 0) or *cap, doubled until need
 * fits, with *cap updated. NULL if that is beyond memory or size_t (then p and *cap are as they
 * were, and p is still the caller's to free). */
static inline void *ws_grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : (first ? first : 1);
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return NULL;
        c *= 2;
    }
    if (size && c > SIZE_MAX / size)
        return NULL;
    void *np = realloc(p, c * size);
    if (np)
        *cap = c;
    return np;
}

#endif
