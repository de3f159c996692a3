/* dbroles: the roles of sql/roles.txt looked up, applied to what is shown, and checked
 * against a database's schema (dbroles.h). */
#include "dbroles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

static const struct {
	const char *word;
	enum dbrole_table role;
} table_words[] = {{"run", DBT_RUN},
                   {"run-rows", DBT_RUN_ROWS},
                   {"run-rows-optional", DBT_RUN_ROWS_OPT},
                   {"study", DBT_STUDY},
                   {"study-rows", DBT_STUDY_ROWS},
                   {"study-rows-optional", DBT_STUDY_ROWS_OPT}};

static const struct {
	const char *word;
	enum dbrole_col role;
} col_words[] = {{"id", DBC_ID},         {"run-id", DBC_RUN_ID},
                 {"study-id", DBC_STUDY_ID}, {"key", DBC_KEY},
                 {"plain", DBC_PLAIN},       {"secret-text", DBC_SECRET_TEXT},
                 {"secret-ini", DBC_SECRET_INI}};

static enum dbrole_table table_word(const char *w)
{
	for (size_t i = 0; i < sizeof table_words / sizeof table_words[0]; i++)
		if (!strcmp(w, table_words[i].word))
			return table_words[i].role;
	return DBT_NONE;
}

static enum dbrole_col col_word(const char *w)
{
	for (size_t i = 0; i < sizeof col_words / sizeof col_words[0]; i++)
		if (!strcmp(w, col_words[i].word))
			return col_words[i].role;
	return DBC_UNKNOWN;
}

/* The line of table.column ("" for the table's own), or NULL. */
static const struct dbrole_line *line_of(const char *table, const char *column)
{
	for (int i = 0; i < dbroles_nlines; i++)
		if (!strcmp(dbroles_lines[i].table, table) && !strcmp(dbroles_lines[i].column, column))
			return &dbroles_lines[i];
	return NULL;
}

enum dbrole_table dbroles_table(const char *table)
{
	const struct dbrole_line *l = line_of(table, "");
	return l ? table_word(l->role) : DBT_NONE;
}

enum dbrole_col dbroles_col(const char *table, const char *column)
{
	const struct dbrole_line *l = line_of(table, column);
	return l ? col_word(l->role) : DBC_DATA;
}

int dbroles_each_table(enum dbrole_table role, int (*fn)(void *arg, const char *table),
                       void *arg)
{
	for (int i = 0; i < dbroles_nlines; i++)
		if (!dbroles_lines[i].column[0] && table_word(dbroles_lines[i].role) == role &&
		    fn(arg, dbroles_lines[i].table) < 0)
			return -1;
	return 0;
}

char *dbroles_shown(const struct redact *r, const char *table, const char *column,
                    const char *value)
{
	switch (dbroles_col(table, column)) {
	case DBC_SECRET_INI:
		return redact_ini(r, value);
	case DBC_SECRET_TEXT:
		return redact_text(r, value);
	default:
		return strdup(value);
	}
}

/* The first table or TEXT column of db without a role, into err; 0 when none. */
static int uncovered(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT m.name, p.name, upper(p.type) FROM main.sqlite_master m, "
	                       "pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT "
	                       "LIKE 'sqlite_%' ORDER BY m.name, p.cid",
	                       -1, &q, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read the schema: %s", sqlite3_errmsg(db));
		return -1;
	}
	while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(q, 0);
		const char *c = (const char *)sqlite3_column_text(q, 1);
		const char *type = (const char *)sqlite3_column_text(q, 2);
		if (dbroles_table(t) == DBT_NONE) {
			snprintf(err, errlen, "table '%s' has no role in sql/roles.txt", t);
			rc = -1;
		} else if (strstr(type ? type : "", "TEXT") && !line_of(t, c)) {
			snprintf(err, errlen, "text column '%s.%s' has no role in sql/roles.txt", t, c);
			rc = -1;
		}
	}
	sqlite3_finalize(q);
	return rc;
}

/* Whether table.column (column "" for the table) is in db's main schema. */
static int present(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *q = NULL;
	int there = 0;

	if (sqlite3_prepare_v2(db,
	                       "SELECT 1 FROM main.sqlite_master m LEFT JOIN "
	                       "pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name = ?1 "
	                       "AND (?2 = '' OR p.name = ?2)",
	                       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, column, -1, SQLITE_STATIC);
		there = sqlite3_step(q) == SQLITE_ROW;
	}
	sqlite3_finalize(q);
	return there;
}

int dbroles_check(sqlite3 *db, char *err, size_t errlen)
{
	if (uncovered(db, err, errlen) < 0)
		return -1;
	for (int i = 0; i < dbroles_nlines; i++) {
		const struct dbrole_line *l = &dbroles_lines[i];
		int known = l->column[0] ? col_word(l->role) != DBC_UNKNOWN
		                         : table_word(l->role) != DBT_NONE;
		if (!known || !present(db, l->table, l->column)) {
			snprintf(err, errlen, "sql/roles.txt: %s%s%s %s: %s", l->table,
			         l->column[0] ? "." : "", l->column, l->role,
			         known ? "no such table or column" : "no such role");
			return -1;
		}
	}
	return 0;
}
