/* check.h - the unit tests' assertions. A failed CHECK prints where and what,
 * counts, and the test goes on; main returns check_exit(). A part that cannot
 * run here calls check_skip(): the binary then exits 77 (skipped), which
 * tests/run.sh reports as SKIP, and as FAIL under CI=true. */
#ifndef FS_CHECK_H
#define FS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int check_failures;
extern int check_count;
extern int check_skips;

#define CHECK(cond)                                                                  \
	do {                                                                         \
		check_count++;                                                       \
		if (!(cond)) {                                                       \
			check_failures++;                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                    \
	} while (0)

#define CHECK_INT(a, b)                                                              \
	do {                                                                         \
		long long va_ = (long long)(a), vb_ = (long long)(b);                \
		check_count++;                                                       \
		if (va_ != vb_) {                                                    \
			check_failures++;                                            \
			fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, \
				__LINE__, #a, va_, vb_);                             \
		}                                                                    \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                        \
	do {                                                                         \
		double va_ = (double)(a), vb_ = (double)(b);                         \
		check_count++;                                                       \
		if (!(fabs(va_ - vb_) <= (tol))) {                                   \
			check_failures++;                                            \
			fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g (+-%g)\n",  \
				__FILE__, __LINE__, #a, va_, vb_, (double)(tol));    \
		}                                                                    \
	} while (0)

#define CHECK_STR(a, b)                                                              \
	do {                                                                         \
		const char *va_ = (a), *vb_ = (b);                                   \
		check_count++;                                                       \
		if (!va_ || !vb_ || strcmp(va_, vb_) != 0) {                         \
			check_failures++;                                            \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n",     \
				__FILE__, __LINE__, #a, va_ ? va_ : "(null)",        \
				vb_ ? vb_ : "(null)");                               \
		}                                                                    \
	} while (0)

/* Say on stdout that a part of the test did not run, and why (printf-style);
 * counts it. The rest of the test goes on. */
void check_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a summary line; returns the process exit status: 1 if a check
 * failed, else 77 if a part was skipped (check_skip), else 0. */
int check_exit(const char *name);

#endif
