/*
 * dbroles — the schema as one list: the role of every table and every text column
 * (sql/roles.txt, embedded at build time as dbroles_lines[]).
 *
 * soak merge takes from it which tables to copy and how to renumber them, and everything
 * that stores or reads a text column takes from it whether the column may hold a secret
 * (dbroles_shown).  dbroles_check() compares it with a database's actual schema: a table or
 * a TEXT column with no role, or a role that names nothing, is an error (the unit test runs
 * it on a fresh database, so a migration cannot add one unseen).  Const data, no state.
 */
#ifndef SOAK_DBROLES_H
#define SOAK_DBROLES_H

#include <sqlite3.h>
#include <stddef.h>

struct redact;

/* One line of sql/roles.txt: column "" for a table's own role. */
struct dbrole_line {
	const char *table, *column, *role;
};
extern const struct dbrole_line dbroles_lines[];
extern const int dbroles_nlines;

enum dbrole_table {
	DBT_NONE,         /* not in roles.txt */
	DBT_RUN,          /* the runs: by uuid, a new id in OUT */
	DBT_RUN_ROWS,     /* rows of one run: dropped without it */
	DBT_RUN_ROWS_OPT, /* rows of a run or of none */
	DBT_STUDY,        /* the studies: by uuid, a new id in OUT */
	DBT_STUDY_ROWS,   /* rows of a study and of a run */
	DBT_STUDY_ROWS_OPT, /* rows of a study or of none */
};

enum dbrole_col {
	DBC_DATA,        /* a number or a blob with no role: copied as it is */
	DBC_ID,          /* the row's own id: OUT assigns it */
	DBC_RUN_ID,      /* a run's id: mapped */
	DBC_STUDY_ID,    /* a study's id: mapped */
	DBC_KEY,         /* an identity (uuid) */
	DBC_PLAIN,       /* text with no secret */
	DBC_SECRET_TEXT, /* text that may quote a secret: redact_text */
	DBC_SECRET_INI,  /* a scenario's or study's text: redact_ini */
	DBC_UNKNOWN,     /* a role word roles.txt should not hold */
};

enum dbrole_table dbroles_table(const char *table);
enum dbrole_col dbroles_col(const char *table, const char *column);
/* The tables of a role, in roles.txt's order: calls fn(arg, table) for each; stops at the
 * first -1 and returns it. */
int dbroles_each_table(enum dbrole_table role, int (*fn)(void *arg, const char *table),
                       void *arg);
/* value of table.column as it may be shown or stored: redacted when the column's role is
 * secret (with r's names too; r may be NULL), else a copy; NULL when out of memory. */
char *dbroles_shown(const struct redact *r, const char *table, const char *column,
                    const char *value);
/* Whether every table and TEXT column of db's main schema has a role, and every role line
 * names a table and column db has and a known role word; 0, or -1 with err naming the
 * first that is not. */
int dbroles_check(sqlite3 *db, char *err, size_t errlen);

#endif
