/*
 * log.h - one-line logging of the service programs to stderr.
 *
 * Lines look like "2024-01-01T12:00:00.123Z gateway[123] INFO message".
 * Thread-safe (one fprintf per line).  The level threshold comes from
 * MBSWEEP_LOG (debug|info|warn|error, default info).
 */
#ifndef SVC_LOG_H
#define SVC_LOG_H

enum { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Set the program name shown in every line and read MBSWEEP_LOG. */
void log_init(const char *program);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
