/* jobbpfsample - the per-CPU check for switch-ins the programs did not see
 * (jobstates.bpf.c: fs_js_sample), attached only where one has been seen
 * late: on this project's VMs the programs never run for the switches out
 * of one process's threads (the VM's init), so a thread that follows one
 * on a CPU is not seen going on it, and its record says it sleeps until it
 * leaves the CPU. A CPU clock event on each CPU runs the check every
 * FS_JS_SAMPLE_NS: an interrupt a CPU that often, idle or not, which a
 * machine without such switches never pays. */
#include "source/job_int.h"

#ifdef FS_HAVE_BPF

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "source/jobbpf_int.h"

static int cpu_clock_event(int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = FS_JS_SAMPLE_NS; /* ns, for this clock */
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void start(struct job_bpf *b, uint64_t now_ns)
{
	b->sample_links = calloc((size_t)b->ncpus, sizeof *b->sample_links);
	if (!b->sample_links) {
		snprintf(b->sample_why, sizeof b->sample_why, "out of memory");
		return;
	}
	int err = 0;
	for (int cpu = 0; cpu < b->ncpus; cpu++) {
		int fd = cpu_clock_event(cpu);
		if (fd < 0) {
			if (errno != ENODEV) /* an offline CPU */
				err = errno;
			continue;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(b->skel->progs.fs_js_sample, fd);
		if (!l) {
			err = errno;
			close(fd);
			continue;
		}
		b->sample_links[b->nsample_links++] = l; /* the link closes fd */
	}
	if (b->nsample_links == 0)
		snprintf(b->sample_why, sizeof b->sample_why, "no CPU clock event: %s", strerror(err ? err : ENODEV));
	else
		b->sample_since_ns = now_ns;
}

void job_bpf_sample_check(struct job_bpf *b, uint64_t now_ns)
{
	if (b->sample_links || b->sample_why[0] || b->skel->bss->unseen_in == 0)
		return;
	start(b, now_ns);
}

uint64_t job_bpf_sample_since(const struct job_bpf *b, const char **why)
{
	*why = b->sample_why[0] ? b->sample_why : NULL;
	return b->sample_since_ns;
}

void job_bpf_sample_close(struct job_bpf *b)
{
	for (int i = 0; i < b->nsample_links; i++)
		bpf_link__destroy(b->sample_links[i]);
	free(b->sample_links);
	b->sample_links = NULL;
	b->nsample_links = 0;
}

#else

uint64_t job_bpf_sample_since(const struct job_bpf *b, const char **why)
{
	(void)b;
	*why = NULL;
	return 0;
}

#endif
