/* f32.h - a binary32 value and its bits, both ways (memcpy: no aliasing, no rounding). */
#ifndef WS_F32_H
#define WS_F32_H

#include <stdint.h>
#include <string.h>

static inline uint32_t ws_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static inline float ws_f32_from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

#endif
