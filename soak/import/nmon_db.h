/*
 * nmon_db — `soak import nmon`: an nmon recording (nmon.h) into a soak database's samples
 * table, through a stage (stage.h): the database gets every sample of the file, in one
 * short transaction, or none.  A sample already there (same source, metric, time and host)
 * is replaced: importing a file twice adds nothing.
 */
#ifndef SOAK_NMON_DB_H
#define SOAK_NMON_DB_H

#include "nmon.h"

#define NMON_MAX_LINE (1 << 20) /* the longest line of an nmon file */

/* Returns 0, -1 on a runtime failure (database), -2 on bad input or options; err holds
 * "FILE:LINE: what is wrong" or the database's message.  res->samples counts the rows
 * written. */
int nmon_import(const struct nmon_opts *o, struct nmon_result *res, char *err, size_t errlen);

#endif
