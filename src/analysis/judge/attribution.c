/* attribution.c - what the loaders did with their own time (docs/verdicts.md,
 * "Why the input is late"). Pure: a function of struct fs_metrics. */
#include "analysis/judge/attribution.h"

#include <math.h>

static double share(double s, double of)
{
	return s > 0 && of > 0 ? fmin(1, s / of) : 0;
}

bool fs_loader_shares(const struct fs_metrics *m, struct fs_loader_shares *s)
{
	s->network = s->storage = s->faults = s->metadata = s->cpu = s->idle = NAN;
	double of = m->loader_time_s;
	if (!m->have_classes || !m->have_job || !(of > 0))
		return false;
	/* socket reads from the job's own processes (a loop without workers
	 * receiving its collectives) are not the data network */
	double coll_s = m->have_peers ? m->loader_coll_read_s : 0;
	double coll_bytes = m->have_peers ? m->loader_coll_read_bytes : 0;
	double sock_bytes = fmax(0, m->loader_sock_read_bytes - coll_bytes);
	s->network = share(m->loader_sock_read_s - coll_s, of);
	double file = share(m->loader_file_read_s, of);
	s->metadata = share(m->loader_meta_s, of);
	/* Blocked in I/O (D) beyond the time inside read and metadata calls is
	 * page faults (an mmap'd dataset) when the loaders faulted pages in or
	 * read more from storage than their calls returned. */
	bool faulted = m->loader_majflt > 0 || m->loader_read_bytes > m->loader_rchar_bytes;
	double blocked = isfinite(m->loaders.blocked) ? m->loaders.blocked : 0;
	s->faults = faulted ? fmax(0, blocked - file - s->metadata) : 0;
	s->storage = fmin(1, file + s->faults);
	s->cpu = isfinite(m->loaders.running) ? m->loaders.running : 0;
	s->idle = fmax(0, 1 - s->network - s->storage - s->metadata - s->cpu);
	/* Most of their data came through sockets: their sleep is a wait on the
	 * peer (a socket with a timeout waits in poll/select, outside any read
	 * call), so the idle share is the network's. */
	double file_bytes = fmax(0, m->loader_file_read_bytes) + fmax(0, isfinite(m->loader_read_bytes) ? m->loader_read_bytes : 0);
	if (sock_bytes > file_bytes) {
		s->network += s->idle;
		s->idle = 0;
	}
	return true;
}
