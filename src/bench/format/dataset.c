/* dataset.c - the dataset manifest (dataset.h): parse with line numbers in
 * every error, save atomically (temporary name, fsync, rename, fsync DIR). */
#include "bench/format/dataset.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/format/gen_int.h"
#include "bench/host/safety.h"

#define MANIFEST_HEAD "feedscope-dataset"
#define MANIFEST_VERSION 1
#define MAX_MANIFEST_BYTES (4ull << 30)


void fs_dataset_free(struct fs_dataset *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->nfiles; i++) {
		free(d->files[i].path);
		free(d->files[i].recs);
	}
	free(d->files);
	memset(d, 0, sizeof *d);
}

/* A path the manifest may hold: relative, no "..", no blank, no control byte. */
static bool path_ok(const char *p)
{
	if (!*p || *p == '/')
		return false;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (*c == '/')
			c++;
		else
			break;
	}
	return p[strlen(p) - 1] != '/';
}

/* One of the formats `bench generate` writes (gen_int.h's table). */
static bool format_ok(const char *f)
{
	return fs_gen_format_find(f) != NULL;
}

/* Strict unsigned decimal: digits only, no sign, no overflow. */
static bool u64_of(const char *s, uint64_t *out)
{
	if (!*s)
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

struct parser {
	struct fs_dataset *d;
	uint32_t files_declared, recs_left;
	bool have_format, have_len, have_stdev, have_spf, have_sub, have_files;
	char *why;
	size_t whylen;
	unsigned line;
};

static int bad(struct parser *p, const char *fmt, const char *arg)
{
	char msg[200];
	snprintf(msg, sizeof msg, fmt, arg);
	snprintf(p->why, p->whylen, "line %u: %s", p->line, msg);
	return -1;
}

/* One header key with one number. */
static int header_u64(struct parser *p, char **tok, int n, bool *have, uint64_t *out, uint64_t max)
{
	if (n != 2)
		return bad(p, "'%s' takes one number", tok[0]);
	if (*have)
		return bad(p, "'%s' given twice", tok[0]);
	if (p->d->files)
		return bad(p, "'%s' after the first file", tok[0]);
	if (!u64_of(tok[1], out) || *out > max)
		return bad(p, "bad number '%s'", tok[1]);
	*have = true;
	return 0;
}

static int parse_line(struct parser *p, char **tok, int n)
{
	struct fs_dataset *d = p->d;
	uint64_t v = 0;
	if (!strcmp(tok[0], "format")) {
		if (n != 2 || p->have_format)
			return bad(p, "%s", n != 2 ? "'format' takes one word" : "'format' given twice");
		if (!format_ok(tok[1]))
			return bad(p, "unknown format '%s'", tok[1]);
		snprintf(d->format, sizeof d->format, "%s", tok[1]);
		p->have_format = true;
		return 0;
	}
	if (!strcmp(tok[0], "record_length_bytes"))
		return header_u64(p, tok, n, &p->have_len, &d->record_length_bytes, UINT64_MAX);
	if (!strcmp(tok[0], "record_length_stdev"))
		return header_u64(p, tok, n, &p->have_stdev, &d->record_length_stdev, UINT64_MAX);
	if (!strcmp(tok[0], "samples_per_file")) {
		int rc = header_u64(p, tok, n, &p->have_spf, &v, UINT32_MAX);
		d->samples_per_file = (uint32_t)v;
		return rc;
	}
	if (!strcmp(tok[0], "subfolders")) { /* optional: only datasets with DLIO's subfolders have it */
		if (header_u64(p, tok, n, &p->have_sub, &v, UINT32_MAX) < 0)
			return -1;
		if (v < 2)
			return bad(p, "%s", "'subfolders' is 2 or more");
		d->subfolders = (uint32_t)v;
		return 0;
	}
	if (!strcmp(tok[0], "files")) {
		if (header_u64(p, tok, n, &p->have_files, &v, UINT32_MAX) < 0)
			return -1;
		if (v == 0)
			return bad(p, "%s", "a dataset has at least one file");
		if (!(d->files = calloc(v, sizeof *d->files)))
			return bad(p, "%s", "out of memory");
		p->files_declared = (uint32_t)v;
		return 0;
	}
	if (!strcmp(tok[0], "file")) {
		if (!p->have_format || !p->have_len || !p->have_stdev || !p->have_spf || !p->have_files)
			return bad(p, "%s", "'file' before the header (format, record_length_bytes, "
				   "record_length_stdev, samples_per_file, files)");
		if (p->recs_left)
			return bad(p, "%s", "'file' where a 'rec' line was expected");
		if (n != 4)
			return bad(p, "%s", "'file' takes PATH SIZE NRECORDS");
		if (d->nfiles == p->files_declared)
			return bad(p, "%s", "more 'file' lines than 'files' said");
		uint64_t size, nrecs;
		if (!path_ok(tok[1]))
			return bad(p, "bad path '%s' (relative, no '..', no blanks)", tok[1]);
		if (!u64_of(tok[2], &size))
			return bad(p, "bad size '%s'", tok[2]);
		if (!u64_of(tok[3], &nrecs) || nrecs > UINT32_MAX)
			return bad(p, "bad record count '%s'", tok[3]);
		struct fs_dataset_file *f = &d->files[d->nfiles];
		f->path = strdup(tok[1]);
		f->recs = nrecs ? calloc(nrecs, sizeof *f->recs) : NULL;
		d->nfiles++;
		if (!f->path || (nrecs && !f->recs))
			return bad(p, "%s", "out of memory");
		f->size = size;
		p->recs_left = (uint32_t)nrecs;
		d->total_bytes += size;
		return 0;
	}
	if (!strcmp(tok[0], "rec")) {
		if (!p->recs_left)
			return bad(p, "%s", "'rec' outside a file (more records than NRECORDS?)");
		uint64_t off, len;
		if (n != 3 || !u64_of(tok[1], &off) || !u64_of(tok[2], &len))
			return bad(p, "%s", "'rec' takes OFFSET LENGTH");
		struct fs_dataset_file *f = &d->files[d->nfiles - 1];
		if (off > f->size || len > f->size - off)
			return bad(p, "record beyond the end of %s", f->path);
		struct fs_dataset_rec *r = &f->recs[f->nrecs++];
		r->offset = off;
		r->length = len;
		p->recs_left--;
		d->total_records++;
		return 0;
	}
	return bad(p, "unknown item '%s'", tok[0]);
}

/* Parses text (NUL-terminated, modified in place). */
static int parse_text(char *text, struct fs_dataset *d, char *why, size_t whylen)
{
	struct parser p = {.d = d, .why = why, .whylen = whylen};
	char *save = NULL;
	char *line = text;
	for (p.line = 1; line; p.line++) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		else if (!*line)
			break;
		char *tok[6];
		int n = 0;
		for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (n == 6)
				return bad(&p, "%s", "too many fields");
			tok[n++] = t;
		}
		if (p.line == 1) {
			uint64_t v;
			if (n != 2 || strcmp(tok[0], MANIFEST_HEAD))
				return bad(&p, "%s", "not a feedscope dataset manifest");
			if (!u64_of(tok[1], &v) || v != MANIFEST_VERSION)
				return bad(&p, "version '%s' is not one this feedscope reads (1)", tok[1]);
		} else if (n > 0 && tok[0][0] != '#' && parse_line(&p, tok, n) < 0) {
			return -1;
		}
		line = nl ? nl + 1 : NULL;
	}
	p.line--;
	if (p.line == 0) {
		snprintf(why, whylen, "is empty");
		return -1;
	}
	if (p.recs_left)
		return bad(&p, "%s", "ends inside a file (fewer 'rec' lines than NRECORDS)");
	if (!p.have_files)
		return bad(&p, "%s", "ends without 'files'");
	if (d->nfiles != p.files_declared)
		return bad(&p, "%s", "fewer 'file' lines than 'files' said");
	return 0;
}

int fs_dataset_load_file(const char *dir, const char *name, struct fs_dataset *d, char *why, size_t whylen)
{
	memset(d, 0, sizeof *d);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* O_NONBLOCK: a FIFO planted at the name cannot make the open hang */
	int fd = dfd < 0 ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int err = errno;
	if (dfd >= 0)
		close(dfd);
	if (fd < 0) {
		if (err == ENOENT)
			snprintf(why, whylen, "%s: no dataset (no %s; feedscope bench generate --dir %s makes one)",
				 dir, name, dir);
		else
			snprintf(why, whylen, "%s/%s: %s", dir, name, strerror(err));
		errno = err;
		return -1;
	}
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < MAX_MANIFEST_BYTES &&
	    (text = malloc((size_t)st.st_size + 1))) {
		ssize_t r;
		while (got < (size_t)st.st_size && (r = read(fd, text + got, (size_t)st.st_size - got)) > 0)
			got += (size_t)r;
	}
	close(fd);
	if (!text || got != (size_t)st.st_size) {
		snprintf(why, whylen, "%s/%s: cannot read it%s", dir, name,
			 S_ISREG(st.st_mode) ? "" : " (not a regular file)");
		free(text);
		errno = EIO;
		return -1;
	}
	text[got] = 0;
	if (memchr(text, 0, got)) {
		free(text);
		snprintf(why, whylen, "%s/%s: not a text file", dir, name);
		errno = EINVAL;
		return -1;
	}
	char inner[300];
	int rc = parse_text(text, d, inner, sizeof inner);
	free(text);
	if (rc < 0) {
		snprintf(why, whylen, "%s/%s %s", dir, name, inner);
		errno = EINVAL;
	}
	return rc;
}

int fs_dataset_load(const char *dir, struct fs_dataset *d, char *why, size_t whylen)
{
	return fs_dataset_load_file(dir, FS_DATASET_MANIFEST, d, why, whylen);
}

int fs_dataset_check_files(const char *dir, const struct fs_dataset *d, char *why, size_t whylen)
{
	int dfd = fs_bench_dir_open(dir);
	if (dfd < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (uint32_t i = 0; i < d->nfiles && rc == 0; i++) {
		const struct fs_dataset_file *f = &d->files[i];
		if (!f->nrecs)
			continue; /* never read */
		/* O_PATH: nothing is opened for reading, a FIFO cannot block */
		int fd = fs_bench_open_inside(dfd, f->path, O_PATH, 0);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			int e = errno;
			snprintf(why, whylen, "%s/%s: %s", dir, f->path,
				 e == ELOOP ? "a symlink in the dataset (never followed)"
				 : e == EXDEV ? "the path leaves the dataset's directory" : strerror(e));
			rc = -1;
		} else if (!S_ISREG(st.st_mode)) {
			snprintf(why, whylen, "%s/%s is not a regular file (%s): refusing to read it", dir, f->path,
				 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
				 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a socket");
			rc = -1;
		} else if ((uint64_t)st.st_size != f->size) {
			snprintf(why, whylen, "%s/%s is %llu bytes, the manifest says %llu: the dataset was changed "
				 "(generate it again)", dir, f->path, (unsigned long long)st.st_size,
				 (unsigned long long)f->size);
			rc = -1;
		}
		if (fd >= 0)
			close(fd);
	}
	close(dfd);
	return rc;
}

static int check_for_save(const struct fs_dataset *d, char *why, size_t whylen)
{
	if (!format_ok(d->format)) {
		snprintf(why, whylen, "unknown format '%s'", d->format);
		return -1;
	}
	if (d->nfiles == 0) {
		snprintf(why, whylen, "a dataset has at least one file");
		return -1;
	}
	for (uint32_t i = 0; i < d->nfiles; i++) {
		const struct fs_dataset_file *f = &d->files[i];
		if (!f->path || !path_ok(f->path)) {
			snprintf(why, whylen, "file %u: bad path '%s'", i, f->path ? f->path : "(null)");
			return -1;
		}
		for (uint32_t r = 0; r < f->nrecs; r++)
			if (f->recs[r].offset > f->size || f->recs[r].length > f->size - f->recs[r].offset) {
				snprintf(why, whylen, "%s: record %u beyond the end of the file", f->path, r);
				return -1;
			}
	}
	return 0;
}

static void write_text(FILE *f, const struct fs_dataset *d)
{
	fprintf(f, "%s %d\nformat %s\nrecord_length_bytes %" PRIu64 "\nrecord_length_stdev %" PRIu64
		"\nsamples_per_file %" PRIu32 "\n",
		MANIFEST_HEAD, MANIFEST_VERSION, d->format, d->record_length_bytes,
		d->record_length_stdev, d->samples_per_file);
	if (d->subfolders > 1)
		fprintf(f, "subfolders %" PRIu32 "\n", d->subfolders);
	fprintf(f, "files %" PRIu32 "\n", d->nfiles);
	for (uint32_t i = 0; i < d->nfiles; i++) {
		const struct fs_dataset_file *fl = &d->files[i];
		fprintf(f, "file %s %" PRIu64 " %" PRIu32 "\n", fl->path, fl->size, fl->nrecs);
		for (uint32_t r = 0; r < fl->nrecs; r++)
			fprintf(f, "rec %" PRIu64 " %" PRIu64 "\n", fl->recs[r].offset, fl->recs[r].length);
	}
}

int fs_dataset_save_file(const char *dir, const char *name, const struct fs_dataset *d, char *why, size_t whylen)
{
	if (check_for_save(d, why, whylen) < 0)
		return -1;
	int dfd = fs_bench_dir_open(dir);
	if (dfd < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	/* a fresh inode: never write through a link someone left under the name */
	if (fs_bench_unlink_inside(dfd, FS_DATASET_TMP, false) < 0 && errno != ENOENT) {
		snprintf(why, whylen, "%s/%s: %s", dir, FS_DATASET_TMP, strerror(errno));
		close(dfd);
		return -1;
	}
	int fd = fs_bench_open_inside(dfd, FS_DATASET_TMP, O_WRONLY | O_CREAT | O_EXCL, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		snprintf(why, whylen, "%s/%s: %s", dir, FS_DATASET_TMP, strerror(errno));
		if (fd >= 0)
			close(fd);
		close(dfd);
		return -1;
	}
	char *buf = malloc(1 << 20);
	if (buf)
		setvbuf(f, buf, _IOFBF, 1 << 20);
	write_text(f, d);
	bool ok = fflush(f) == 0 && !ferror(f) && fsync(fd) == 0;
	int err = errno;
	ok = (fclose(f) == 0) && ok;
	free(buf);
	if (ok && renameat(dfd, FS_DATASET_TMP, dfd, name) < 0) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		snprintf(why, whylen, "%s/%s: %s", dir, name, strerror(err));
		fs_bench_unlink_inside(dfd, FS_DATASET_TMP, false);
		close(dfd);
		return -1;
	}
	close(dfd);
	int sync_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sync_fd >= 0) {
		fsync(sync_fd);
		close(sync_fd);
	}
	return 0;
}

int fs_dataset_save(const char *dir, const struct fs_dataset *d, char *why, size_t whylen)
{
	return fs_dataset_save_file(dir, FS_DATASET_MANIFEST, d, why, whylen);
}
