/* ini_lines.c - what the tools' ini parsers share (ini_lines.h). */
#include "ini_lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *ws_ini_read_line(char *str, int num, void *stream)
{
    ws_ini_lines *l = stream;
    char *s = fgets(str, num, l->in);
    if (s) {
        l->lineno++;
        if (s[strspn(s, " \t")] == '[')
            l->header = l->lineno;
    }
    return s;
}

int ws_ini_uint(const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *v)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    *v = strtoull(s, &end, 10);
    return errno || *end || *v < lo || *v > hi ? -1 : 0;
}

int ws_ini_name(const char *s, size_t max)
{
    if (!*s || strlen(s) >= max)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}
