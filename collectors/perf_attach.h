/*
 * perf_attach: a diagnostic command of a HotSpot JVM, through its attach mechanism, as
 * `jcmd PID COMMAND` sends it, without starting a JVM for it (jcmd is one: about a second
 * of CPU a call, five at once at the end of every profiled group of a study).
 *
 * The mechanism: the JVM listens on the UNIX socket /tmp/.java_pidNSPID (its own /tmp and
 * its own pid, seen through /proc/PID/root); when that is not there yet, a file
 * .attach_pidNSPID in its working directory (else its /tmp) and a SIGQUIT make it start
 * listening.  The request is the protocol version, "jcmd" and three arguments, each ended
 * by a NUL; the answer a status line ("0": done) and the command's output.  A JVM answers
 * only a peer of its own effective user or root.
 */
#ifndef SOAK_PERF_ATTACH_H
#define SOAK_PERF_ATTACH_H

#include <stddef.h>
#include <stdint.h>

/* Sends COMMAND (e.g. "Compiler.perfmap") to JVM pid, waiting at most timeout_ms in all:
 * 0 when it answered status 0; -1 otherwise.  out[0..len) gets its output, or why not (a
 * process that is no JVM, or one whose attach listener never came up, is told apart only
 * by the timeout). */
int jvm_jcmd(long pid, const char *command, int64_t timeout_ms, char *out, size_t len);

#endif
