/* replay - run one source over a fixture case and print what it emits.
 *
 *   replay SOURCE CASE_DIR WORK_DIR
 *
 * CASE_DIR holds snapshot trees s0, s1, ... (each with proc/ and sys/ and,
 * if wanted, shm/), and optionally case.conf with lines
 *   job_pid=N    the job's main pid (job source)
 *   adopt=1      the job's subreaper adopts orphans (job source)
 *   dt=SECONDS   the interval between snapshots (default 1)
 * Before each sample the snapshot is synced into WORK_DIR/root in place, so a
 * source that keeps descriptors open sees contents change under them as with
 * /proc. Output lines: "== sN", then the rows, meta, and any "unavailable:"
 * reason, with WORK_DIR/root printed as $ROOT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"
#include "source/source.h"
#include "treesync.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: replay SOURCE CASE_DIR WORK_DIR\n");
		return 2;
	}
	const struct fs_source_ops *ops = fs_source_find(argv[1]);
	if (!ops) {
		fprintf(stderr, "replay: no source %s\n", argv[1]);
		return 2;
	}
	struct fs_job job = {0};
	double dt = 1.0;
	char path[4096];
	snprintf(path, sizeof path, "%s/case.conf", argv[2]);
	FILE *conf = fopen(path, "r");
	if (conf) {
		char line[256];
		while (fgets(line, sizeof line, conf)) {
			if (!strncmp(line, "job_pid=", 8))
				job.root = atoi(line + 8);
			else if (!strncmp(line, "adopt=", 6))
				job.adopt_own_children = atoi(line + 6) != 0;
			else if (!strncmp(line, "pss=", 4))
				job.pss = atoi(line + 4);
			else if (!strncmp(line, "dt=", 3))
				dt = atof(line + 3);
		}
		fclose(conf);
	}

	char root[200];
	snprintf(root, sizeof root, "%s/root", argv[3]);
	mkdir(argv[3], 0755);
	struct fs_paths paths;
	snprintf(paths.proc, sizeof paths.proc, "%s/proc", root);
	snprintf(paths.sys, sizeof paths.sys, "%s/sys", root);
	snprintf(paths.shm, sizeof paths.shm, "%s/shm", root);

	struct dump_sink dump;
	dump_sink_init(&dump, stdout, root);
	struct fs_source_ctx ctx = {
		.paths = &paths,
		.sink = &dump.sink,
		.job = job.root ? &job : NULL,
	};
	void *state = NULL;
	bool open = false;
	for (int i = 0;; i++) {
		struct stat st;
		snprintf(path, sizeof path, "%s/s%d", argv[2], i);
		if (stat(path, &st) < 0)
			break;
		if (treesync(path, root) < 0)
			return 1;
		printf("== s%d\n", i);
		ctx.t = i * dt;
		ctx.now_ns = 1000000000ull + (unsigned long long)(i * dt * 1e9 + 0.5);
		char why[512] = "";
		if (!open) {
			if (ops->open(&state, &ctx, why, sizeof why) != FS_SOURCE_OK) {
				printf("unavailable: ");
				dump_text(stdout, why, root);
				printf("\n");
				return 0;
			}
			open = true;
		}
		why[0] = '\0';
		if (ops->sample(state, &ctx, why, sizeof why) != FS_SOURCE_OK) {
			printf("sample failed: ");
			dump_text(stdout, why, root);
			printf("\n");
		}
		fflush(stdout);
	}
	if (open)
		ops->close(state);
	return 0;
}
