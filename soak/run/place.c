/* place: the load generator and the collected process sets put on their CPU sets as a
 * run starts, every set read back to check it (place.h); a set the machine refuses fails
 * the run. */
#include "place.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpus.h"
#include "procinfo.h"

/* Appends "NAME on LIST (N processes)" to said. */
static void say(char *said, size_t len, const char *name, const char *list, int n)
{
	size_t u;
	if (!said)
		return;
	u = strlen(said);
	if (u < len)
		snprintf(said + u, len - u, "%s%s on %s (%d process%s)", u ? "; " : "", name, list,
		         n, n == 1 ? "" : "es");
}

int place_apply(const struct scenario *s, cpu_set_t *gen, char *said, size_t saidlen, char *err,
                size_t errlen)
{
	char list[CPUS_LIST_MAX], e[256];
	long pids[PLACE_MAX_PIDS];
	cpu_set_t set, can;

	if (said && saidlen)
		said[0] = '\0';
	if (sched_getaffinity(0, sizeof can, &can) < 0) {
		snprintf(err, errlen, "cannot read the CPUs this process may use: %s",
		         strerror(errno));
		return -1;
	}
	if (s->cpus) {
		if (cpus_parse(s->cpus, &set, e, sizeof e) < 0) {
			snprintf(err, errlen, "cpus: %s", e);
			return -1;
		}
		if (cpus_place(0, &set, e, sizeof e) < 0) {
			snprintf(err, errlen, "cannot place the load generator on CPUs %s: %s",
			         s->cpus, e);
			return -1;
		}
		if (said && saidlen) {
			size_t u = strlen(said);
			snprintf(said + u, saidlen - u, "generator on CPU%s %s",
			         CPU_COUNT(&set) == 1 ? "" : "s",
			         cpus_format(&set, list, sizeof list));
		}
	}
	if (sched_getaffinity(0, sizeof *gen, gen) < 0)
		*gen = can;
	for (int i = 0; i < s->ncollect; i++) {
		const struct scn_collect *c = &s->collect[i];
		int n;
		if (!c->cpus)
			continue;
		if (cpus_parse(c->cpus, &set, e, sizeof e) < 0) {
			snprintf(err, errlen, "[collect.%s] cpus: %s", c->name, e);
			return -1;
		}
		n = proc_set_find(c->pid, c->pidfile, c->pid_match, pids, PLACE_MAX_PIDS, e,
		                  sizeof e);
		if (n < 0) {
			snprintf(err, errlen, "[collect.%s]: %s", c->name, e);
			return -1;
		}
		if (n == 0) {
			snprintf(
			    err, errlen,
			    "[collect.%s] cpus = %s: no process of the set is running to place",
			    c->name, c->cpus);
			return -1;
		}
		if (n > PLACE_MAX_PIDS) {
			snprintf(err, errlen,
			         "[collect.%s]: %d processes match, more than %d to place", c->name,
			         n, PLACE_MAX_PIDS);
			return -1;
		}
		for (int k = 0; k < n; k++)
			if (cpus_place(pids[k], &set, e, sizeof e) < 0 &&
			    proc_start_ticks((pid_t)pids[k]) >=
			        0) { /* one that ended is no error */
				snprintf(err, errlen, "cannot place [collect.%s] on CPUs %s: %s",
				         c->name, c->cpus, e);
				return -1;
			}
		say(said, saidlen, c->name, cpus_format(&set, list, sizeof list), n);
	}
	return 0;
}
