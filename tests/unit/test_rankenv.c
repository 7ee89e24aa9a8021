/* The rank variables of an environment block: precedence, whole names, plain
 * numbers only, the first of a duplicate, cut blocks, and ugly bytes. */
#include <stdlib.h>

#include "check.h"
#include "source/rankenv.h"

/* A string literal with its embedded NULs, without the compiler's own. */
#define ENV(lit) (lit), (sizeof(lit) - 1)

static struct fs_rankenv parse(const char *buf, size_t len, bool cut)
{
	struct fs_rankenv e;
	fs_rankenv_parse(buf, len, cut, &e);
	return e;
}

/* Whether key k is rank `value` from variable `var`. */
static bool is(const struct fs_rankenv *e, int k, int32_t value, const char *var)
{
	return e->have[k] && e->value[k] == value && e->var[k] && !strcmp(e->var[k], var);
}

static bool none(const struct fs_rankenv *e)
{
	for (int k = 0; k < FS_RANKENV__N; k++)
		if (e->have[k] || e->var[k] || e->value[k])
			return false;
	return true;
}

static void test_basic(void)
{
	struct fs_rankenv e;
	CHECK(fs_rankenv_parse(ENV("PATH=/bin\0RANK=3\0LOCAL_RANK=1\0WORLD_SIZE=4\0"), false, &e));
	CHECK(is(&e, FS_RANKENV_RANK, 3, "RANK"));
	CHECK(is(&e, FS_RANKENV_LOCAL_RANK, 1, "LOCAL_RANK"));
	CHECK(is(&e, FS_RANKENV_WORLD_SIZE, 4, "WORLD_SIZE"));
	CHECK(!e.have[FS_RANKENV_NODE_RANK] && !e.var[FS_RANKENV_NODE_RANK]);

	CHECK(!fs_rankenv_parse(ENV("PATH=/bin\0HOME=/root\0"), false, &e));
	CHECK(none(&e));
	CHECK(!fs_rankenv_parse("", 0, false, &e)); /* 0 bytes */
	CHECK(none(&e));
	CHECK(!fs_rankenv_parse(ENV("\0\0\0"), false, &e));
	CHECK(none(&e));
}

static void test_precedence(void)
{
	struct fs_rankenv e = parse(ENV("SLURM_PROCID=5\0OMPI_COMM_WORLD_RANK=2\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 2, "OMPI_COMM_WORLD_RANK"));
	e = parse(ENV("HOROVOD_RANK=9\0SLURM_PROCID=5\0PMI_RANK=4\0PMIX_RANK=6\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 6, "PMIX_RANK"));
	e = parse(ENV("SLURM_PROCID=5\0SLURM_LOCALID=1\0SLURM_NTASKS=8\0SLURM_NODEID=2\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 5, "SLURM_PROCID"));
	CHECK(is(&e, FS_RANKENV_LOCAL_RANK, 1, "SLURM_LOCALID"));
	CHECK(is(&e, FS_RANKENV_WORLD_SIZE, 8, "SLURM_NTASKS"));
	CHECK(is(&e, FS_RANKENV_NODE_RANK, 2, "SLURM_NODEID"));
	e = parse(ENV("NODE_RANK=1\0GROUP_RANK=3\0"), false);
	CHECK(is(&e, FS_RANKENV_NODE_RANK, 3, "GROUP_RANK"));
	e = parse(ENV("HOROVOD_RANK=1\0HOROVOD_LOCAL_RANK=0\0HOROVOD_SIZE=2\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 1, "HOROVOD_RANK"));
	CHECK(is(&e, FS_RANKENV_LOCAL_RANK, 0, "HOROVOD_LOCAL_RANK"));
	CHECK(is(&e, FS_RANKENV_WORLD_SIZE, 2, "HOROVOD_SIZE"));
	e = parse(ENV("PMI_SIZE=16\0MPI_LOCALRANKID=3\0PMI_RANK=11\0"), false);
	CHECK(is(&e, FS_RANKENV_WORLD_SIZE, 16, "PMI_SIZE"));
	CHECK(is(&e, FS_RANKENV_LOCAL_RANK, 3, "MPI_LOCALRANKID"));
	CHECK(is(&e, FS_RANKENV_RANK, 11, "PMI_RANK"));
}

static void test_whole_names(void)
{
	struct fs_rankenv e = parse(ENV("RANKING=5\0XRANK=6\0RANK5=7\0rank=8\0 RANK=9\0"), false);
	CHECK(none(&e));
	e = parse(ENV("RANKS=5\0RANK_=6\0RANK=3\0"), false); /* not the first RANK */
	CHECK(is(&e, FS_RANKENV_RANK, 3, "RANK"));
	/* LOCAL_RANK ends in RANK, and OMPI's local rank shares the world rank's prefix. */
	e = parse(ENV("LOCAL_RANK=2\0OMPI_COMM_WORLD_LOCAL_RANK=1\0OMPI_COMM_WORLD_SIZE_X=3\0"), false);
	CHECK(!e.have[FS_RANKENV_RANK]);
	CHECK(!e.have[FS_RANKENV_WORLD_SIZE]);
	CHECK(is(&e, FS_RANKENV_LOCAL_RANK, 2, "LOCAL_RANK"));
	/* '=' inside other values, and an empty name. */
	e = parse(ENV("FOO=RANK=5\0BAR==RANK=6\0=RANK=7\0A=b=c\0WORLD_SIZE=4\0"), false);
	CHECK(!e.have[FS_RANKENV_RANK]);
	CHECK(is(&e, FS_RANKENV_WORLD_SIZE, 4, "WORLD_SIZE"));
	/* "RANK" with no '=' at all. */
	e = parse(ENV("RANK\0"), false);
	CHECK(none(&e));
}

static void test_values(void)
{
	static const char *const bad[] = {
		"RANK=",   "RANK=-1",         "RANK=1e3", "RANK=99999999999", "RANK=2147483648",
		"RANK= 3", "RANK=3 ",         "RANK=+3",  "RANK=0x10",        "RANK=3\n",
		"RANK=3.", "RANK=3=4",        "RANK=\xef\xbc\x93", /* a full-width digit */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct fs_rankenv e = parse(bad[i], strlen(bad[i]), false);
		CHECK(none(&e));
		if (!none(&e))
			fprintf(stderr, "  accepted \"%s\"\n", bad[i]);
	}
	struct fs_rankenv e = parse(ENV("RANK=2147483647"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 2147483647, "RANK"));
	e = parse(ENV("RANK=007\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 7, "RANK"));
	e = parse(ENV("RANK=0\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 0, "RANK"));
	/* An unusable value does not count: the next variable gives the rank. */
	e = parse(ENV("RANK=\0PMI_RANK=2\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 2, "PMI_RANK"));
	e = parse(ENV("RANK=-1\0SLURM_PROCID=4\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 4, "SLURM_PROCID"));
}

static void test_duplicates(void)
{
	struct fs_rankenv e = parse(ENV("RANK=1\0RANK=2\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 1, "RANK"));
	/* getenv() would return the first, unusable one: RANK does not count. */
	e = parse(ENV("RANK=x\0RANK=2\0OMPI_COMM_WORLD_RANK=9\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 9, "OMPI_COMM_WORLD_RANK"));
	e = parse(ENV("RANK=x\0RANK=2\0"), false);
	CHECK(none(&e));
}

static void test_unterminated(void)
{
	/* No trailing NUL: the whole block, so the last entry counts... */
	struct fs_rankenv e = parse(ENV("A=1\0RANK=5"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 5, "RANK"));
	/* ...unless the block was cut: then it may be part of "RANK=5x" or "RANK=51". */
	e = parse(ENV("A=1\0RANK=5"), true);
	CHECK(none(&e));
	e = parse(ENV("RANK=5\0LOCAL_RANK=1"), true);
	CHECK(is(&e, FS_RANKENV_RANK, 5, "RANK"));
	CHECK(!e.have[FS_RANKENV_LOCAL_RANK]);
	/* Junk bytes, newlines, and a block that is not text at all. */
	e = parse(ENV("\xff\xfeRANK=3\nfoo\0\x01\x02\0RANK=4\0"), false);
	CHECK(is(&e, FS_RANKENV_RANK, 4, "RANK"));
}

/* A block of exactly FS_RANKENV_CAP bytes, filler then `last`. */
static char *at_cap(const char *last, size_t lastlen)
{
	char *b = malloc(FS_RANKENV_CAP);
	if (!b)
		return NULL;
	size_t fill = FS_RANKENV_CAP - lastlen;
	memset(b, 'a', fill);
	memcpy(b, "MY_TOKEN=", 9);
	b[fill - 1] = '\0';
	memcpy(b + fill, last, lastlen);
	return b;
}

static void test_cap(void)
{
	char *b = at_cap(ENV("RANK=12"));
	CHECK(b != NULL);
	if (!b)
		return;
	struct fs_rankenv e = parse(b, FS_RANKENV_CAP, true);
	CHECK(none(&e)); /* cut there: "RANK=12" may have been "RANK=123" */
	e = parse(b, FS_RANKENV_CAP, false);
	CHECK(is(&e, FS_RANKENV_RANK, 12, "RANK")); /* it ended there */
	free(b);
	b = at_cap(ENV("RANK=12\0"));
	CHECK(b != NULL);
	if (!b)
		return;
	e = parse(b, FS_RANKENV_CAP, true);
	CHECK(is(&e, FS_RANKENV_RANK, 12, "RANK")); /* its NUL made it */
	/* Nothing points into the block. */
	CHECK(e.var[FS_RANKENV_RANK] < b || e.var[FS_RANKENV_RANK] >= b + FS_RANKENV_CAP);
	free(b);
}

static void test_equal(void)
{
	struct fs_rankenv a = parse(ENV("RANK=1\0WORLD_SIZE=2\0"), false);
	struct fs_rankenv b = parse(ENV("WORLD_SIZE=2\0RANK=1\0X=y\0"), false);
	CHECK(fs_rankenv_equal(&a, &b));
	b = parse(ENV("OMPI_COMM_WORLD_RANK=1\0WORLD_SIZE=2\0"), false);
	CHECK(!fs_rankenv_equal(&a, &b)); /* same number, another variable */
	b = parse(ENV("RANK=1\0"), false);
	CHECK(!fs_rankenv_equal(&a, &b));
	b = parse(ENV("RANK=2\0WORLD_SIZE=2\0"), false);
	CHECK(!fs_rankenv_equal(&a, &b));
	struct fs_rankenv z1 = parse("", 0, false), z2 = parse(ENV("A=1"), false);
	CHECK(fs_rankenv_equal(&z1, &z2));
}

int main(void)
{
	test_basic();
	test_precedence();
	test_whole_names();
	test_values();
	test_duplicates();
	test_unterminated();
	test_cap();
	test_equal();
	return check_exit("test_rankenv");
}
