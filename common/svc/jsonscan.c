/* jsonscan.c - see jsonscan.h. */
#include "jsonscan.h"

int jsonscan_depth(const char *text, size_t len, int max_depth)
{
    int depth = 0, max = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        /* inside a string only the closing quote matters (escapes skipped) */
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = 0;
            continue;
        }
        if (ch == '"') in_str = 1;
        else if (ch == '{' || ch == '[') {
            if (++depth > max) max = depth;
            if (max > max_depth) return max_depth + 1;
        } else if ((ch == '}' || ch == ']') && depth > 0) depth--;
    }
    return max;
}

int jsonscan_count(const char *text, size_t len, long max_values, long max_containers,
                   jsonscan_counts *out)
{
    int in_str = 0, in_scalar = 0;
    out->values = out->containers = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = 0;
            continue;
        }
        /* a value starts at a quote, a bracket, or the first character of a
           number or literal (a run of other characters counts once) */
        if (ch == '"') { in_str = 1; in_scalar = 0; out->values++; }
        else if (ch == '{' || ch == '[') { in_scalar = 0; out->values++; out->containers++; }
        else if (ch == '}' || ch == ']' || ch == ',' || ch == ':' || ch == ' ' || ch == '\t' ||
                 ch == '\n' || ch == '\r') in_scalar = 0;
        else if (!in_scalar) { in_scalar = 1; out->values++; }
        if (out->values > max_values || out->containers > max_containers) return 1;
    }
    return 0;
}
