/*
 * jsonout.c - JSON numbers and strings written to a stream (jsonout.h).
 */
#include "svc/jsonout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *jsonout_real_text(char *buf, double v)
{
    if (!isfinite(v)) { strcpy(buf, "null"); return buf; }
    /* 17 significant digits always read back; fewer often do */
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, 32, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

void jsonout_real(FILE *f, double v)
{
    char buf[32];
    fputs(jsonout_real_text(buf, v), f);
}

/* The end of the number token at s (JSON's number characters). */
static const char *s_number_end(const char *s, int *is_real)
{
    *is_real = 0;
    for (; *s && strchr("0123456789+-.eE", *s); s++)
        if (*s == '.' || *s == 'e' || *s == 'E') *is_real = 1;
    return s;
}

char *jsonout_dumps(const json_t *j, size_t flags)
{
    char *in = json_dumps(j, (flags & ~(size_t)JSON_REAL_PRECISION(31)) | JSON_REAL_PRECISION(17));
    if (!in) return NULL;
    /* the shortest text of a number is never longer than jansson's, plus
     * ".0" for a real whose shortest digits lost its point */
    size_t cap = strlen(in) * 2 + 1, k = 0;
    char *out = malloc(cap);
    if (!out) { free(in); return NULL; }
    int in_string = 0;
    for (const char *p = in; *p;) {
        if (in_string) {
            if (*p == '\\' && p[1]) out[k++] = *p++;
            else if (*p == '"') in_string = 0;
            out[k++] = *p++;
            continue;
        }
        if (*p == '"') { in_string = 1; out[k++] = *p++; continue; }
        if (*p != '-' && (*p < '0' || *p > '9')) { out[k++] = *p++; continue; }
        int is_real;
        const char *end = s_number_end(p, &is_real);
        size_t n = (size_t)(end - p);
        char buf[40];
        if (is_real) {
            jsonout_real_text(buf, strtod(p, NULL));
            if (!strpbrk(buf, ".eE")) strcat(buf, ".0");
        }
        if (is_real && strlen(buf) < n) { memcpy(out + k, buf, strlen(buf)); k += strlen(buf); }
        else { memcpy(out + k, p, n); k += n; }
        p = end;
    }
    out[k] = 0;
    free(in);
    return out;
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
