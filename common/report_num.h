/*
 * report_num — how a number, a duration to plan for and a load level read in every output
 * of the report (tables, sentences, report.json), of the history and of the commands that
 * print the report's figures: one place, so no quantity is shown two ways.  In common/,
 * below report/ and history/, so that both use it (a report's cell in words is report.c's).
 * "—" stands for a missing value (NAN); no "-0.0" ever (a value that rounds to zero is
 * zero).
 * Each function writes into the caller's buf (len > 0) and returns it.  Stateless.
 */
#ifndef SOAK_REPORT_NUM_H
#define SOAK_REPORT_NUM_H

#include <stddef.h>

/* Fixed decimals ("12.30"), "inf", "-inf", "—". */
char *rpt_fmt_num(double v, int decimals, char *buf, size_t len);
/* Like rpt_fmt_num with a sign always ("+0.00", "-1.25"); never "-0.00". */
char *rpt_fmt_signed(double v, int decimals, char *buf, size_t len);
/* A latency in ms ("20.1 ms", "3.25 ms"). */
char *rpt_fmt_ms(double ms, char *buf, size_t len);
/* A CPU time per request in µs ("244 µs", "12.3 µs", "0.42 µs"); signed adds a sign. */
char *rpt_fmt_us(double us, int sign, char *buf, size_t len);
/* A change in % ("+12.3%", "0.0%"). */
char *rpt_fmt_pct(double pct, char *buf, size_t len);
/* A duration to plan for, rounded up to a step that suits its size ("14m", "2h10m"). */
char *rpt_fmt_need(double seconds, char *buf, size_t len);
/* "30 users" or "600/s" (open model). */
char *rpt_level_text(int concurrency, double rate, char *buf, size_t len);

#endif
