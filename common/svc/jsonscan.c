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
