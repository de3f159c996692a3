/*
 * stage — where an import is written before it reaches the target database: a private
 * temporary SQLite database with soak's schema, which SQLite deletes when it is closed.
 * The importer records into it at its own pace (stage.rec, a recorder like soak run's);
 * stage_commit() then copies everything into the target in one short transaction.  So a
 * bad file found late leaves nothing in the target, and a large import never holds the
 * target's write lock for long: a soak run writing the same file meanwhile keeps to its
 * busy timeout.
 *
 * What is copied: the staged run (at most one) with its steps, intervals, interval errors
 * and thresholds, under a new run id; events; samples (a sample with the same source,
 * metric, time and host is replaced, so importing a file twice adds nothing).  Columns are
 * those of this soak's schema, so a later migration needs no change here.
 */
#ifndef SOAK_STAGE_H
#define SOAK_STAGE_H

#include <stdint.h>

#include "store/recorder.h"

struct stage {
	struct recorder rec; /* over the temporary database */
};

int stage_open(struct stage *s, char *err, size_t errlen);
/* Copies the staged rows into target (created and migrated when missing).  *run_id gets
 * the run's id there (-1 when none was staged), *samples the samples copied. */
int stage_commit(struct stage *s, const char *target, int64_t *run_id, int64_t *samples, char *err,
                 size_t errlen);
void stage_close(struct stage *s);

#endif
