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
        l->indented = s[0] == ' ' || s[0] == '\t';
        size_t n = strlen(s);
        if (num > 2 && n == (size_t)num - 1 && s[n - 1] != '\n' && !feof(l->in)) {
            int ch;
            while ((ch = fgetc(l->in)) != EOF && ch != '\n')
                ;
            if (!l->long_line)
                l->long_line = l->lineno;
            l->max_chars = (unsigned)num - 2;
            s[0] = '\0';
            return s;
        }
        if (s[strspn(s, " \t")] == '[')
            l->header = l->lineno;
    }
    return s;
}

void ws_ini_long_line(const ws_ini_lines *l, char *buf, size_t len)
{
    snprintf(buf, len, "line longer than %u characters (the ini reader's limit)", l->max_chars);
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
