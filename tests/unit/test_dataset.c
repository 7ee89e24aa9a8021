/* The dataset side of `bench generate`: CRC-32/CRC-32C known vectors, the
 * seeded streams, the manifest (round trip, malformed lines named by line
 * number), the safety rules on a temporary tree (symlinks, a planted
 * symlink, a mount-free tree), and every format writing exactly the layout
 * it announces, its records tiling the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/format/dataset.h"
#include "bench/format/gen_int.h"
#include "bench/format/gen_io.h"
#include "bench/host/safety.h"
#include "check.h"

static char root[] = "/tmp/test_dataset.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *path(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
	return p[k];
}

/* Bit-at-a-time CRC, the definition the table/SSE versions must match. */
static uint32_t crc_ref(uint32_t poly, const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
	}
	return ~c;
}

static void test_crc(void)
{
	CHECK_INT(fs_crc32(0, "123456789", 9), 0xCBF43926u);
	CHECK_INT(fs_crc32c(0, "123456789", 9), 0xE3069283u);
	CHECK_INT(fs_crc32(fs_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
	CHECK_INT(fs_crc32c(fs_crc32c(0, "12345", 5), "6789", 4), 0xE3069283u);
	uint8_t z[32] = {0}, ff[32];
	memset(ff, 0xff, sizeof ff);
	CHECK_INT(fs_crc32c(0, z, 32), 0x8A9136AAu); /* RFC 3720 B.4 */
	CHECK_INT(fs_crc32c(0, ff, 32), 0x62A8AB43u);
	CHECK_INT(fs_crc32(0, "", 0), 0);
	uint8_t buf[1003];
	uint64_t s = 42;
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)fs_rng_next(&s);
	for (size_t off = 0; off < 8; off++) { /* every alignment, odd tails */
		CHECK_INT(fs_crc32(0, buf + off, sizeof buf - off - 3), crc_ref(0xEDB88320u, buf + off, sizeof buf - off - 3));
		CHECK_INT(fs_crc32c(0, buf + off, sizeof buf - off - 3), crc_ref(0x82F63B78u, buf + off, sizeof buf - off - 3));
	}
	CHECK_INT(fs_crc32c_mask(0), 0xa282ead8u);
	CHECK_INT(fs_crc32c_mask(0xE3069283u), (((0xE3069283u >> 15) | (0xE3069283u << 17)) + 0xa282ead8u) & 0xffffffffu);
}

static void test_rng(void)
{
	uint64_t a = fs_rng_seed(7, 1, 2), b = fs_rng_seed(7, 1, 2), c = fs_rng_seed(7, 2, 1);
	CHECK(a == b);
	CHECK(a != c);
	CHECK(fs_rng_next(&a) == fs_rng_next(&b));
	uint64_t st = 1;
	CHECK_INT(fs_rng_size(&st, 1000, 0), 1000);
	CHECK_INT(fs_rng_size(&st, 0, 0), 1);
	double sum = 0, sq = 0;
	uint64_t mn = UINT64_MAX;
	int n = 20000;
	for (int i = 0; i < n; i++) {
		uint64_t v = fs_rng_size(&st, 10000, 2000);
		sum += (double)v;
		sq += (double)v * (double)v;
		mn = v < mn ? v : mn;
	}
	double mean = sum / n, sd = sqrt(sq / n - mean * mean);
	CHECK_NEAR(mean, 10000, 60);
	CHECK_NEAR(sd, 2000, 60);
	CHECK(mn >= 1);
	for (int i = 0; i < 1000; i++)
		CHECK(fs_rng_size(&st, 10, 1000) >= 1); /* clamped */
}

static void test_manifest(void)
{
	mkdir(path("m"), 0755);
	struct fs_dataset d = {.record_length_bytes = 100, .record_length_stdev = 5, .samples_per_file = 2};
	snprintf(d.format, sizeof d.format, "tfrecord");
	struct fs_dataset_file files[2] = {{0}};
	struct fs_dataset_rec r0[2] = {{0, 60}, {60, 40}};
	files[0] = (struct fs_dataset_file){.path = "train/a.tfrecord", .size = 100, .recs = r0, .nrecs = 2};
	files[1] = (struct fs_dataset_file){.path = "train/a.idx", .size = 32, .recs = NULL, .nrecs = 0};
	d.files = files;
	d.nfiles = 2;
	char why[512] = "";
	CHECK_INT(fs_dataset_save(path("m"), &d, why, sizeof why), 0);
	CHECK_INT(fs_dataset_save_file(path("m"), FS_DATASET_PARTIAL, &d, why, sizeof why), 0);
	CHECK(access(path("m/" FS_DATASET_TMP), F_OK) < 0);
	struct fs_dataset l;
	for (int k = 0; k < 2; k++) {
		int rc = k ? fs_dataset_load_file(path("m"), FS_DATASET_PARTIAL, &l, why, sizeof why)
			   : fs_dataset_load(path("m"), &l, why, sizeof why);
		CHECK_INT(rc, 0);
		CHECK_STR(l.format, "tfrecord");
		CHECK_INT(l.record_length_bytes, 100);
		CHECK_INT(l.record_length_stdev, 5);
		CHECK_INT(l.samples_per_file, 2);
		CHECK_INT(l.nfiles, 2);
		CHECK_INT(l.total_bytes, 132);
		CHECK_INT(l.total_records, 2);
		if (l.nfiles == 2) {
			CHECK_STR(l.files[0].path, "train/a.tfrecord");
			CHECK_INT(l.files[0].nrecs, 2);
			CHECK_INT(l.files[0].recs[1].offset, 60);
			CHECK_INT(l.files[0].recs[1].length, 40);
			CHECK_INT(l.files[1].nrecs, 0);
			CHECK_INT(l.files[1].size, 32);
		}
		fs_dataset_free(&l);
	}
	/* refused on save: bad path, no files, bad record */
	files[1].path = "../x";
	CHECK_INT(fs_dataset_save(path("m"), &d, why, sizeof why), -1);
	files[1].path = "train/a.idx";
	r0[1].length = 41;
	CHECK_INT(fs_dataset_save(path("m"), &d, why, sizeof why), -1);
	r0[1].length = 40;

	/* a missing manifest: ENOENT */
	mkdir(path("empty"), 0755);
	errno = 0;
	CHECK_INT(fs_dataset_load(path("empty"), &l, why, sizeof why), -1);
	CHECK_INT(errno, ENOENT);
	fs_dataset_free(&l);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"", "is empty"},
		{"feedscope-dataset 2\n", "line 1"},
		{"something else\n", "line 1"},
		{"feedscope-dataset 1\nformat zip\n", "line 2: unknown format"},
		{"feedscope-dataset 1\nformat npz\nformat npz\n", "line 3"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes -5\n", "line 3: bad number"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 5\nrecord_length_stdev 0\nsamples_per_file 1\n"
		 "files 1\nfile /etc/passwd 10 1\n", "line 7: bad path"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 5\nrecord_length_stdev 0\nsamples_per_file 1\n"
		 "files 1\nfile a/../../x 10 1\n", "line 7: bad path"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 5\nrecord_length_stdev 0\nsamples_per_file 1\n"
		 "files 1\nfile a 10 1\nrec 5 6\n", "line 8: record beyond"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 5\nrecord_length_stdev 0\nsamples_per_file 1\n"
		 "files 1\nfile a 10 2\nrec 0 5\n", "fewer 'rec'"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 5\nrecord_length_stdev 0\nsamples_per_file 1\n"
		 "files 2\nfile a 10 0\n", "fewer 'file'"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 5\nrecord_length_stdev 0\nsamples_per_file 1\n"
		 "files 1\nfile a 10 0\nfile b 10 0\n", "line 8: more 'file'"},
		{"feedscope-dataset 1\nfile a 10 0\n", "line 2: 'file' before the header"},
		{"feedscope-dataset 1\nformat npz\nrec 0 1\n", "line 3: 'rec' outside"},
		{"feedscope-dataset 1\nformat npz\nbogus 1\n", "line 3: unknown item"},
		{"feedscope-dataset 1\nformat npz\nrecord_length_bytes 99999999999999999999999\n", "line 3"},
	};
	mkdir(path("bad"), 0755);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		put("bad/" FS_DATASET_MANIFEST, bad[i].text);
		why[0] = 0;
		CHECK_INT(fs_dataset_load(path("bad"), &l, why, sizeof why), -1);
		fs_dataset_free(&l);
		if (!strstr(why, bad[i].want))
			fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, why, bad[i].want);
		CHECK(strstr(why, bad[i].want) != NULL);
	}
	/* DLIO's subfolders: an optional header line, 2 or more, read back */
	put("bad/" FS_DATASET_MANIFEST, "feedscope-dataset 1\nformat raw\nrecord_length_bytes 5\n"
	    "record_length_stdev 0\nsamples_per_file 1\nsubfolders 1\nfiles 1\nfile a 5 1\nrec 0 5\n");
	CHECK_INT(fs_dataset_load(path("bad"), &l, why, sizeof why), -1);
	CHECK(strstr(why, "line 6: 'subfolders' is 2 or more") != NULL);
	fs_dataset_free(&l);
	d.subfolders = 3;
	CHECK_INT(fs_dataset_save(path("m"), &d, why, sizeof why), 0);
	CHECK_INT(fs_dataset_load(path("m"), &l, why, sizeof why), 0);
	CHECK_INT(l.subfolders, 3);
	fs_dataset_free(&l);
	/* comments and blank lines are fine */
	put("bad/" FS_DATASET_MANIFEST, "feedscope-dataset 1\n# c\n\nformat raw\nrecord_length_bytes 5\n"
	    "record_length_stdev 0\nsamples_per_file 1\nfiles 1\nfile a 5 1\nrec 0 5\n");
	CHECK_INT(fs_dataset_load(path("bad"), &l, why, sizeof why), 0);
	CHECK_INT(l.total_bytes, 5);
	fs_dataset_free(&l);
}

static void test_safety(void)
{
	char why[512];
	mkdir(path("s"), 0755);
	mkdir(path("outside"), 0755);
	/* dir_check: empty ok, missing ok (parent there), missing parent refused */
	mkdir(path("s/empty"), 0755);
	CHECK_INT(fs_bench_dir_check(path("s/empty"), why, sizeof why), FS_SAFETY_OK);
	CHECK_INT(fs_bench_dir_check(path("s/new"), why, sizeof why), FS_SAFETY_OK);
	CHECK_INT(fs_bench_dir_check(path("s/nope/new"), why, sizeof why), FS_SAFETY_REFUSED);
	/* a non-empty dir without the marker, a file, a symlink to a file */
	mkdir(path("s/user"), 0755);
	put("s/user/mine.txt", "mine\n");
	CHECK_INT(fs_bench_dir_check(path("s/user"), why, sizeof why), FS_SAFETY_REFUSED);
	CHECK(strstr(why, "not empty") != NULL);
	CHECK_INT(fs_bench_dir_check(path("s/user/mine.txt"), why, sizeof why), FS_SAFETY_REFUSED);
	symlink(path("s/user/mine.txt"), path("s/lfile"));
	CHECK_INT(fs_bench_dir_check(path("s/lfile"), why, sizeof why), FS_SAFETY_REFUSED);
	CHECK_INT(fs_bench_dir_check("/dev/null", why, sizeof why), FS_SAFETY_REFUSED);
	CHECK(strstr(why, "character device") != NULL);
	/* a symlink to an empty directory is fine (DIR itself may be reached that way) */
	symlink(path("s/empty"), path("s/ldir"));
	CHECK_INT(fs_bench_dir_check(path("s/ldir"), why, sizeof why), FS_SAFETY_OK);
	/* a marker that is a symlink is not a marker */
	mkdir(path("s/fake"), 0755);
	symlink(path("s/user/mine.txt"), path("s/fake/" FS_DATASET_MARKER));
	CHECK(!fs_bench_has_marker(path("s/fake"), NULL));
	CHECK_INT(fs_bench_dir_check(path("s/fake"), why, sizeof why), FS_SAFETY_REFUSED);

	/* prepare: creates the last component, writes the marker, remembers it */
	bool created = false;
	CHECK_INT(fs_bench_dir_prepare(path("s/new"), true, why, sizeof why), FS_SAFETY_OK);
	CHECK(fs_bench_has_marker(path("s/new"), &created));
	CHECK(created);
	CHECK_INT(fs_bench_dir_prepare(path("s/empty"), true, why, sizeof why), FS_SAFETY_OK);
	CHECK(fs_bench_has_marker(path("s/empty"), &created));
	CHECK(!created);
	CHECK_INT(fs_bench_dir_prepare(path("s/other"), false, why, sizeof why), FS_SAFETY_REFUSED);
	CHECK(access(path("s/other"), F_OK) < 0);
	put("s/new/data", "x");
	CHECK_INT(fs_bench_dir_check(path("s/new"), why, sizeof why), FS_SAFETY_OK); /* ours, not empty */

	/* path_inside */
	CHECK(fs_bench_path_inside(path("s/new"), "train/a/b"));
	CHECK(fs_bench_path_inside(path("s/new"), path("s/new/train")));
	CHECK(!fs_bench_path_inside(path("s/new"), "../x"));
	CHECK(!fs_bench_path_inside(path("s/new"), "train/../../x"));
	CHECK(!fs_bench_path_inside(path("s/new"), path("outside/x")));
	symlink(path("outside"), path("s/new/train"));
	CHECK(!fs_bench_path_inside(path("s/new"), "train/x"));
	CHECK(!fs_bench_path_inside(path("s/new"), "data/x")); /* through a file */

	/* open_inside / mkdir_inside / unlink_inside never follow a symlink */
	int dfd = fs_bench_dir_open(path("s/new"));
	CHECK(dfd >= 0);
	errno = 0;
	CHECK_INT(fs_bench_open_inside(dfd, "train/x", O_WRONLY | O_CREAT, 0644), -1);
	CHECK(errno == ELOOP || errno == EXDEV);
	CHECK(access(path("outside/x"), F_OK) < 0);
	CHECK_INT(fs_bench_open_inside(dfd, "../x", O_WRONLY | O_CREAT, 0644), -1);
	CHECK_INT(fs_bench_open_inside(dfd, "/tmp/x", O_WRONLY | O_CREAT, 0644), -1);
	CHECK_INT(fs_bench_mkdir_inside(dfd, "train", 0755), -1);
	CHECK_INT(fs_bench_mkdir_inside(dfd, "train/sub", 0755), -1);
	CHECK(access(path("outside/sub"), F_OK) < 0);
	CHECK_INT(fs_bench_unlink_inside(dfd, "train", true), -1);
	CHECK_INT(errno, EPERM);
	CHECK(access(path("s/new/train"), F_OK) == 0 || errno != ENOENT); /* still there */
	unlink(path("s/new/train"));
	CHECK_INT(fs_bench_mkdir_inside(dfd, "train", 0755), 1);
	CHECK_INT(fs_bench_mkdir_inside(dfd, "train", 0755), 0);
	int fd = fs_bench_open_inside(dfd, "train/f", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* a symlink planted at a file's name after the checks: not followed */
	put("outside/target", "keep\n");
	symlink(path("outside/target"), path("s/new/train/planted"));
	errno = 0;
	CHECK_INT(fs_bench_open_inside(dfd, "train/planted", O_WRONLY | O_TRUNC, 0), -1);
	CHECK_INT(fs_bench_open_inside(dfd, "train/planted", O_WRONLY | O_CREAT | O_EXCL, 0644), -1);
	CHECK_INT(fs_bench_unlink_inside(dfd, "train/planted", false), -1);
	CHECK_INT(errno, EPERM);
	struct stat st;
	CHECK(stat(path("outside/target"), &st) == 0 && st.st_size == 5);
	CHECK(!fs_bench_path_inside(path("s/new"), "train/planted"));
	CHECK_INT(fs_bench_unlink_inside(dfd, "train/f", false), 0);
	CHECK_INT(fs_bench_unlink_inside(dfd, "train/f", false), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(fs_bench_unlink_inside(dfd, "train", true), -1); /* not empty: the planted link */
	unlink(path("s/new/train/planted"));
	CHECK_INT(fs_bench_unlink_inside(dfd, "train", true), 0);
	close(dfd);

	/* space: a little fits, an exabyte does not */
	CHECK_INT(fs_bench_space_check(path("s"), 4096, why, sizeof why), 0);
	CHECK_INT(fs_bench_space_check(path("s/nope/deeper"), 4096, why, sizeof why), 0);
	CHECK_INT(fs_bench_space_check(path("s"), 1ull << 60, why, sizeof why), -1);
	CHECK(strstr(why, "not enough space") != NULL);
	/* bytes + 5% is 2^64 + 1: it wrapped to 1 byte and passed; never again */
	CHECK_INT(fs_bench_space_check(path("s"), 17568327689247192017ull, why, sizeof why), -1);
	CHECK_INT(fs_bench_space_check(path("s"), UINT64_MAX, why, sizeof why), -1);
	/* a checkpoint: the keys that made it and the scale that fits; the
	 * scale it names fits, one a tenth more does not... within a digit */
	CHECK_INT(fs_bench_ckpt_space_check(path("s"), 4096, 4096, 1, "model_size 4096", why, sizeof why), 0);
	CHECK_INT(fs_bench_ckpt_space_check(path("s"), 1ull << 60, 0, 2, "model.num_layers 9", why, sizeof why), -1);
	CHECK(strstr(why, "the checkpoint, 1024 PiB (model.num_layers 9, at --scale 2), cannot be written in --dir: "
			  "not enough space") != NULL);
	const char *fit = strstr(why, "; --scale ");
	CHECK(fit != NULL);
	double s = fit ? strtod(fit + 10, NULL) : 0;
	CHECK(s > 0 && strstr(why, " or less fits it") != NULL);
	uint64_t at_s = (uint64_t)((double)(1ull << 60) / 2 * s);
	CHECK_INT(fs_bench_space_check(path("s"), at_s, why, sizeof why), 0);
	CHECK_INT(fs_bench_space_check(path("s"), at_s * 2, why, sizeof why), -1);
	/* the dataset to be written first counts: no room left for it, no scale */
	CHECK_INT(fs_bench_ckpt_space_check(path("s"), 4096, 1ull << 60, 1, "", why, sizeof why), -1);
	CHECK(strstr(why, "the checkpoint, 4 KiB (the model's size, at --scale 1)") != NULL);
	CHECK(strstr(why, "fits it") == NULL);
}

/* What `bench` reads: a FIFO, a device, a directory or a symlink planted in
 * the dataset is refused at once (never opened for a blocking read, never
 * followed); so is a file whose size is not the manifest's. */
static void test_read_refusals(void)
{
	char why[512];
	mkdir(path("r"), 0755);
	mkdir(path("r/train"), 0755);
	mkdir(path("r/train/dir"), 0755);
	put("r/train/a", "12345678");
	CHECK_INT(mkfifo(path("r/train/fifo"), 0644), 0);
	symlink(path("r/train/a"), path("r/train/link"));
	symlink("/dev/null", path("r/train/null"));
	symlink(path("r/train"), path("r/sub"));
	int dfd = fs_bench_dir_open(path("r"));
	CHECK(dfd >= 0);

	int fd = fs_bench_open_read(dfd, "r", "train/a", false, NULL, why, sizeof why);
	CHECK(fd >= 0);
	char buf[16];
	CHECK_INT(fd >= 0 ? read(fd, buf, sizeof buf) : -1, 8);
	CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK)); /* blocking again for the engines */
	if (fd >= 0)
		close(fd);
	static const struct { const char *rel; int err; const char *says; } refused[] = {
		{"train/fifo", EINVAL, "r/train/fifo is a FIFO, not a regular file"},
		{"train/dir", EINVAL, "a directory, not a regular file"},
		{"train/link", ELOOP, "a symlink in the dataset (never followed)"},
		{"train/null", ELOOP, "a symlink"},
		{"sub/a", ELOOP, "a symlink"},
		{"../r/train/a", EXDEV, "leaves"},
		{"train/none", ENOENT, "No such file"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		why[0] = 0;
		errno = 0;
		CHECK_INT(fs_bench_open_read(dfd, "r", refused[i].rel, false, NULL, why, sizeof why), -1);
		CHECK_INT(errno, refused[i].err);
		if (!strstr(why, refused[i].says))
			fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n", refused[i].rel, why, refused[i].says);
		CHECK(strstr(why, refused[i].says) != NULL);
	}
	close(dfd);

	/* the same checks up front, from the manifest, without opening for reading */
	struct fs_dataset_rec rec = {0, 8};
	struct fs_dataset_file f = {.path = (char *)"train/a", .size = 8, .recs = &rec, .nrecs = 1};
	struct fs_dataset d = {.format = "raw", .files = &f, .nfiles = 1};
	CHECK_INT(fs_dataset_check_files(path("r"), &d, why, sizeof why), 0);
	f.size = 9;
	CHECK_INT(fs_dataset_check_files(path("r"), &d, why, sizeof why), -1);
	CHECK(strstr(why, "is 8 bytes, the manifest says 9") != NULL);
	f.size = 0;
	static const char *const bad_paths[] = {"train/fifo", "train/link", "sub/a", "train/null", "train/dir"};
	for (size_t i = 0; i < sizeof bad_paths / sizeof bad_paths[0]; i++) {
		f.path = (char *)bad_paths[i];
		CHECK_INT(fs_dataset_check_files(path("r"), &d, why, sizeof why), -1);
	}
	f.nrecs = 0; /* an index file is never read: not checked */
	CHECK_INT(fs_dataset_check_files(path("r"), &d, why, sizeof why), 0);
}

/* Every format writes exactly the size its layout announces, and its
 * records tile the file. */
static void test_formats(void)
{
	static const char *const names[] = {"npz", "npy", "tfrecord", "tar", "jpeg", "raw", "indexed", "png", "csv",
					    "hdf5"};
	static const uint64_t cases[][4] = {
		{1, 1, 1, 1}, {100, 100, 100, 100}, {511, 512, 513, 70000}, {159, 160, 162, 163},
		{65537, 65538, 131074, 131075}, {131076, 4, 3, 200000},
	};
	uint8_t *buf = malloc(4096);
	CHECK(fs_gen_format_find("zip") == NULL);
	for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
		const struct fs_gen_format *fmt = fs_gen_format_find(names[f]);
		CHECK(fmt != NULL);
		if (!fmt)
			continue;
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			uint32_t n = fmt->ops->one_sample_per_file ? 1 : 4;
			uint64_t sizes[4];
			for (uint32_t k = 0; k < 4; k++)
				sizes[k] = fmt->ops->per_file_length ? cases[c][0] : cases[c][k];
			struct fs_dataset_rec recs[4];
			uint64_t total = fmt->ops->layout(sizes, n, recs);
			CHECK_INT(fmt->ops->layout(sizes, n, NULL), total);
			uint64_t pos = 0;
			for (uint32_t k = 0; k < n; k++) {
				if (!fmt->ops->has_index)
					CHECK_INT(recs[k].offset, pos);
				CHECK(recs[k].length >= (fmt->ops->has_index ? sizes[k] : 1));
				pos = recs[k].offset + recs[k].length;
			}
			CHECK_INT(pos, total);
			int fd = open(path("fmt.out"), O_RDWR | O_CREAT | O_TRUNC, 0644);
			struct fs_gen_out o;
			fs_gen_out_init(&o, fd, buf, 4096, 9, NULL);
			CHECK_INT(fmt->ops->write(&o, sizes, n, 0), 0);
			CHECK_INT(fs_gen_out_flush(&o), 0);
			CHECK_INT(o.pos, total);
			struct stat st;
			CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size == total);
			close(fd);
		}
	}
	CHECK_INT(fs_gen_index_size(3), 48);
	/* DLIO's names for formats */
	CHECK(fs_gen_format_find_dlio("mmap_indexed_binary") == fs_gen_format_find("indexed"));
	CHECK(fs_gen_format_find_dlio("indexed_binary") == fs_gen_format_find("indexed"));
	CHECK(fs_gen_format_find_dlio("NPZ") == fs_gen_format_find("npz"));
	CHECK(fs_gen_format_find_dlio("HDF5") == fs_gen_format_find("hdf5"));
	CHECK(fs_gen_format_find_dlio("parquet") == NULL);
	/* older DLIO configs' names of npz and tfrecord; aliases only for DLIO */
	CHECK(fs_gen_format_find_dlio("dlio_npz") == fs_gen_format_find("npz"));
	CHECK(fs_gen_format_find_dlio("DLIO_TFRECORD") == fs_gen_format_find("tfrecord"));
	CHECK(fs_gen_format_find("dlio_npz") == NULL);
	CHECK(fs_gen_format_find("indexed_binary") == NULL);
	/* the one table: every name once, the listed names are the table's */
	CHECK_INT(fs_gen_nformats, sizeof names / sizeof names[0]);
	{
		char list[256] = "";
		for (size_t f = 0; f < sizeof names / sizeof names[0]; f++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", f ? " " : "", names[f]);
		CHECK_STR(fs_gen_format_names(), list);
		CHECK_STR(fs_gen_format_dlio_names(), "dlio_npz (npz), dlio_tfrecord (tfrecord), indexed_binary (indexed), "
						      "mmap_indexed_binary (indexed)");
		for (size_t i = 0; i < fs_gen_nformats; i++)
			for (size_t k = i + 1; k < fs_gen_nformats; k++)
				CHECK(strcmp(fs_gen_formats[i].name, fs_gen_formats[k].name) != 0);
	}
	/* a png of dim = round(sqrt(len)): 256 x 256 from 65536 bytes, two stored blocks */
	const struct fs_gen_format *png = fs_gen_format_find("png");
	uint64_t len = 65536;
	CHECK_INT(png->ops->layout(&len, 1, NULL), 8 + 25 + 2 * 17 + 2 + 256 * 257 + 4 + 12);
	/* csv rows: exactly the sample's bytes, a newline last, no comma before it */
	const struct fs_gen_format *csv = fs_gen_format_find("csv");
	uint64_t rows[3] = {1, 8, 4097};
	int fd = open(path("c.csv"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct fs_gen_out o;
	fs_gen_out_init(&o, fd, buf, 4096, 5, NULL);
	CHECK_INT(csv->ops->write(&o, rows, 3, 0), 0);
	fs_gen_out_flush(&o);
	char text[4200] = "";
	CHECK(pread(fd, text, sizeof text, 0) == 4106);
	close(fd);
	CHECK(text[0] == '\n' && text[8] == '\n' && text[4105] == '\n' && text[7] != ',' && text[4104] != ',');
	CHECK(text[4] == ',' && text[1] >= '0' && text[1] <= '9');
	/* DLIO's subfolders: round-robin, the folder a number */
	char name[128];
	fs_gen_entry_name(fs_gen_format_find("npz"), 10, 3, 7, name, sizeof name);
	CHECK_STR(name, "train/1/img_07_of_10.npz");
	fs_gen_entry_name(fs_gen_format_find("indexed"), 10, 3, 5, name, sizeof name);
	CHECK_STR(name, "train/2/img_02_of_10.idx");
	fs_gen_entry_name(fs_gen_format_find("npz"), 10, 0, 7, name, sizeof name);
	CHECK_STR(name, "train/img_07_of_10.npz");
	free(buf);
}

/* JPEG files of sizes around the segment limits: the exact size, and a
 * marker walk from SOI through every segment to SOS, then EOI at the end. */
static void test_jpeg(void)
{
	static const uint64_t lens[] = {1, 159, 160, 162, 163, 164, 65536, 65695, 65696, 65697, 65698,
					65699, 65700, 131233, 131234, 131235, 200000};
	const struct fs_gen_format *fmt = fs_gen_format_find("jpeg");
	uint8_t *buf = malloc(1 << 16);
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		uint64_t len = lens[i];
		uint64_t total = fmt->ops->layout(&len, 1, NULL);
		CHECK(total == len || (len < 164 && (total == 159 || total == 163)));
		int fd = open(path("j.jpg"), O_RDWR | O_CREAT | O_TRUNC, 0644);
		struct fs_gen_out o;
		fs_gen_out_init(&o, fd, buf, 1 << 16, 3, NULL);
		fmt->ops->write(&o, &len, 1, 0);
		fs_gen_out_flush(&o);
		CHECK_INT(o.pos, total);
		uint8_t *f = malloc(total);
		CHECK(pread(fd, f, total, 0) == (ssize_t)total);
		close(fd);
		CHECK(f[0] == 0xFF && f[1] == 0xD8 && f[total - 2] == 0xFF && f[total - 1] == 0xD9);
		size_t p = 2;
		int coms = 0;
		bool sos = false;
		while (p + 4 <= total && f[p] == 0xFF) {
			uint8_t m = f[p + 1];
			size_t seglen = (size_t)f[p + 2] << 8 | f[p + 3];
			CHECK(seglen >= 2);
			coms += m == 0xFE;
			p += 2 + seglen;
			if (m == 0xDA) {
				sos = true;
				break;
			}
		}
		CHECK(sos);
		CHECK_INT(p + 3, total); /* one byte of scan data, EOI */
		CHECK(coms > 0 || total == 159);
		free(f);
	}
	free(buf);
}

int main(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_crc();
	test_rng();
	test_manifest();
	test_safety();
	test_read_refusals();
	test_formats();
	test_jpeg();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return check_exit("test_dataset");
}
