/* values_kind.c - the kinds of gradient values and their names (values_kind.h). */
#include "values_kind.h"

#include <string.h>

static const char *const names[] = {
    [WS_VALUES_NORMAL] = "normal",
    [WS_VALUES_SPECIAL] = "special",
    [WS_VALUES_MIXED] = "mixed",
};

const char *ws_values_kind_name(ws_values_kind k)
{
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

int ws_values_kind_parse(const char *s, ws_values_kind *k)
{
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i])) {
            *k = (ws_values_kind)i;
            return 0;
        }
    return -1;
}
