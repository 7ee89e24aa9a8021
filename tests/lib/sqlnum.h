/* sqlnum.h - the unit tests' one number from SQL. */
#ifndef FS_TEST_SQLNUM_H
#define FS_TEST_SQLNUM_H

#include <sqlite3.h>

/* The first column of sql's first row as a double; NaN when it is NULL,
 * there is no row, or sql does not prepare (printed with the error). */
double sql_num(sqlite3 *db, const char *sql);

#endif
