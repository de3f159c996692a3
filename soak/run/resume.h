/*
 * resume — the --resume part of `soak run`: reads a stopped run back from its
 * database, judges whether it may be continued, and fills what the runner needs
 * (runner.h's runner_resume) and the scenario it ran.
 *
 * A run is resumed when its runner is gone (status interrupted, failed, or crashed as
 * results.h judges it) and it is a plain soak run: not running, not done, not imported,
 * not an agent's share of a group, not a capacity search.  The scenario is the run's own
 * stored text, or a file (with --set overrides) whose text is exactly that; any other
 * text is refused, since one run must not mix two tests.  The step the stop cut runs for
 * what was left of it (nothing left: the next step), then the steps after it.
 */
#ifndef SOAK_RESUME_H
#define SOAK_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "runner.h"
#include "scenario/scenario.h"

/* What a resume holds while the run goes. */
struct run_resume {
	struct runner_resume rr;             /* handed to the runner */
	char status_was[16];                 /* rr.status_was points here */
	struct istats prior;                 /* rr.prior points here when set */
	int have_prior;                      /* prior is initialised */
	struct figures done[SCN_MAX_LEVELS]; /* rr.done points here */
};

/* Judges run `id` of db_path and fills *s (released by the caller with scn_release on
 * success) and *st (resume_release).  file (may be NULL) and sets/nsets: the scenario the
 * user gave.  Returns 0; -2 when the run may not be resumed or the input is bad (err says
 * why, for exit status 2); -1 on a database failure. */
int resume_prepare(const char *db_path, int64_t id, const char *file, char *const *sets, int nsets,
                   struct scenario *s, struct run_resume *st, char *err, size_t errlen);
void resume_release(struct run_resume *st);

#endif
