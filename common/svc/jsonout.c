/*
 * jsonout.c - JSON numbers and strings written to a stream (jsonout.h).
 */
#include "svc/jsonout.h"

#include <math.h>
#include <stdlib.h>

void jsonout_real(FILE *f, double v)
{
    char buf[40];
    if (!isfinite(v)) { fputs("null", f); return; }
    /* 17 significant digits always read back; fewer often do */
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

void jsonout_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') { fputc('\\', f); fputc(*p, f); }
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p == '\r') fputs("\\r", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}
