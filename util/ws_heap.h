/* ws_heap.h - a binary min-heap in a growing array (ws_grow.h), generated for one element type:
 * the one way the code above the driver keeps a priority queue (the closed loop's channel,
 * loop/channel.c; a cluster device's frames not yet judged, cluster/model/cdev.c).
 *
 * WS_HEAP_DEFINE(name, TYPE, LESS) defines, static to the file:
 *   int name_push(TYPE **a, size_t *n, size_t *cap, TYPE v): v into the heap a of *n elements
 *       (room for *cap): 0, or -1 when memory ran out (the heap is as it was);
 *   TYPE name_pop(TYPE *a, size_t *n): the least element, out of the heap (*n > 0).
 * LESS(const TYPE *x, const TYPE *y) is a strict weak order; elements are moved by assignment.
 * Equal elements leave in no particular order: give the key a sequence number to make it one.
 *
 * Internal to the build (not installed), like ws_grow.h.
 */
#ifndef WS_HEAP_H
#define WS_HEAP_H

#include <stddef.h>

#include "ws_grow.h"

#define WS_HEAP_DEFINE(name, TYPE, LESS)                                                           \
    static int name##_push(TYPE **a, size_t *n, size_t *cap, TYPE v)                               \
    {                                                                                              \
        TYPE *h = ws_grow(*a, cap, *n + 1, sizeof *h, 64);                                         \
        if (!h)                                                                                    \
            return -1;                                                                             \
        *a = h;                                                                                    \
        size_t i = (*n)++;                                                                         \
        for (; i > 0 && LESS(&v, &h[(i - 1) / 2]); i = (i - 1) / 2)                                \
            h[i] = h[(i - 1) / 2];                                                                 \
        h[i] = v;                                                                                  \
        return 0;                                                                                  \
    }                                                                                              \
    static TYPE name##_pop(TYPE *h, size_t *n)                                                     \
    {                                                                                              \
        TYPE top = h[0], last = h[--*n];                                                           \
        size_t i = 0;                                                                              \
        for (;;) {                                                                                 \
            size_t c = 2 * i + 1;                                                                  \
            if (c >= *n)                                                                           \
                break;                                                                             \
            if (c + 1 < *n && LESS(&h[c + 1], &h[c]))                                              \
                c++;                                                                               \
            if (!LESS(&h[c], &last))                                                               \
                break;                                                                             \
            h[i] = h[c];                                                                           \
            i = c;                                                                                 \
        }                                                                                          \
        if (*n)                                                                                    \
            h[i] = last;                                                                           \
        return top;                                                                                \
    }

#endif
