/*
 * place — placement: puts the load generator, and each process set a scenario's
 * [collect.NAME] sections name with a `cpus` key, on its CPU set as a run starts
 * (sched_setaffinity of every process and each of its threads; later threads and
 * children inherit it), then reads every Cpus_allowed_list back to check it.  On one
 * machine this keeps the generator from competing with the server and the database for
 * cores: run-to-run noise falls, and a saturated server core is the experiment while a
 * saturated generator core stays a flaw (validity).
 *
 * cgroup v2 cpusets would also keep everything else off those CPUs; they are not used:
 * the machines soak is tested on offer cgroup v1 only (docs/judging.md says so).
 */
#ifndef SOAK_PLACE_H
#define SOAK_PLACE_H

#include <sched.h>
#include <stddef.h>

#include "scenario/scenario.h"

#define PLACE_MAX_PIDS 512 /* processes of one set placed at most */

/* Places the generator (s->cpus) and every collect set with cpus.  *gen gets the CPUs
 * the generator may run on afterwards (all it could use when not placed).  said (may be
 * NULL) gets a line for the user: "generator on CPU 0; app on 1 (1 process); db on 1
 * (9 processes)" ("" when nothing was placed).  0, or -1 with err: a list the machine
 * does not allow, a set that matches no process, a process the kernel would not pin. */
int place_apply(const struct scenario *s, cpu_set_t *gen, char *said, size_t saidlen, char *err,
                size_t errlen);

#endif
