/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *s_program = "mbsweep";
static int s_level = LOG_INFO;

void log_init(const char *program)
{
    const char *e = getenv("MBSWEEP_LOG");
    s_program = program;
    if (!e) return;
    if (!strcmp(e, "debug")) s_level = LOG_DEBUG;
    else if (!strcmp(e, "warn")) s_level = LOG_WARN;
    else if (!strcmp(e, "error")) s_level = LOG_ERROR;
}

void log_msg(int level, const char *fmt, ...)
{
    static const char *names[] = { "DEBUG", "INFO", "WARN", "ERROR" };
    char line[2048], ts[32];
    struct timeval tv;
    struct tm tm;
    va_list ap;
    int n;
    if (level < s_level) return;
    /* timestamp in UTC with milliseconds */
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    n = snprintf(line, sizeof line, "%s.%03dZ %s[%d] %s ", ts, (int)(tv.tv_usec / 1000),
                 s_program, (int)getpid(), names[level]);
    va_start(ap, fmt);
    if (n > 0 && n < (int)sizeof line) vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
