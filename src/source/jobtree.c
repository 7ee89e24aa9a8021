#include "source/jobtree.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "source/procstat.h"
#include "util/pfile.h"

static int parent_of(const struct fs_paths *paths, int pid, struct fs_buf *buf)
{
	char rel[32], path[512];
	snprintf(rel, sizeof rel, "%d/stat", pid);
	struct fs_pstat st;
	if (fs_read_file(fs_proc_path(path, sizeof path, paths, rel), buf) <= 0 ||
	    !fs_pstat_parse(buf->data, &st))
		return -1;
	return st.ppid;
}

static int self_pid(const struct fs_paths *paths)
{
	char path[512], link[64];
	ssize_t n = readlink(fs_proc_path(path, sizeof path, paths, "self"), link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return atoi(link);
}

static bool walk(const struct fs_paths *paths, const struct fs_job *job, int self, int pid)
{
	struct fs_buf buf = {0};
	bool found = false;
	/* 64 generations is deeper than any real process tree. */
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == job->root || (job->adopt_own_children && self && pid == self && depth > 0)) {
			found = true;
			break;
		}
		pid = parent_of(paths, pid, &buf);
	}
	fs_buf_free(&buf);
	return found;
}

bool fs_jobtree_has(struct fs_jobtree *c, const struct fs_paths *paths, const struct fs_job *job,
		    int pid)
{
	for (int i = 0; i < c->n; i++)
		if (c->pid[i] == pid)
			return c->member[i];
	if (!c->have_self) {
		c->self = self_pid(paths);
		c->have_self = true;
	}
	bool member = walk(paths, job, c->self, pid);
	int slot = c->n < FS_JOBTREE_CACHE ? c->n++ : (c->next++ % FS_JOBTREE_CACHE);
	c->pid[slot] = pid;
	c->member[slot] = member;
	return member;
}
