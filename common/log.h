/*
 * log — leveled diagnostics on stderr, each line stamped with UTC wall time.
 *
 * Contract: log_msg() formats one line `2026-11-30T02:25:18.123Z soak[pid] LEVEL: text`
 * and writes it with a single write(2), so lines from threads never interleave.
 * The level threshold is process-wide and set once at start (log_set_level) before
 * threads exist; reading it afterwards needs no lock.  Diagnostics only: data goes to
 * stdout through the caller, never through log.
 */
#ifndef SOAK_LOG_H
#define SOAK_LOG_H

#include <stdarg.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* Sets the threshold (messages above it are dropped) and the program name. */
void log_set_level(enum log_level level);
void log_set_prog(const char *prog);
enum log_level log_get_level(void);
/* Parses "error", "warn", "info", "debug"; returns -1 when unknown. */
int log_level_parse(const char *s);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A library's message (its format and va_list; trailing newlines and blanks trimmed) as
 * one line of ours with `prefix` before it: libmicrohttpd's external logger. */
void log_vlib(enum log_level level, const char *prefix, const char *fmt, va_list ap);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
