/*
 * clock — the two clocks soak uses, and nothing else.
 *
 * Durations inside a process come from CLOCK_MONOTONIC (never jumps); timestamps stored
 * in the database are wall-clock epoch milliseconds UTC, so rows from several hosts line
 * up.  All functions are thread-safe and allocate nothing.
 */
#ifndef SOAK_CLOCK_H
#define SOAK_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Monotonic time since an arbitrary origin. */
int64_t clock_mono_ns(void);
int64_t clock_mono_us(void);
int64_t clock_mono_ms(void);
/* Wall-clock epoch milliseconds, UTC. */
int64_t clock_wall_ms(void);
/* Writes `2026-11-30T02:25:18.123Z` (UTC) into buf (at least 32 bytes); returns buf. */
char *clock_iso(int64_t epoch_ms, char *buf, size_t len);
/* Sleeps for ms milliseconds, resuming after signals unless *stop becomes non-zero. */
void clock_sleep_ms(int64_t ms, const volatile int *stop);

#endif
