#include "sqlnum.h"

#include <math.h>
#include <stdio.h>

double sql_num(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	double x = NAN;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
		return NAN;
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		x = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return x;
}
