/* jobbpf - the job source's BPF path: load bpf/jobstates.bpf.c (its
 * skeleton, generated at build time), track the job's processes in its
 * `tgids` map, and once a tick read every tracked thread's state times
 * from the `slots` array (memory-mapped: no system call), turning them into
 * per-process sums over the interval (jobstates.c). An exited thread is
 * read once more, then its slot is given back.
 * Built without the skeleton (no clang, bpftool or libbpf-dev at build
 * time), job_bpf_open says so and the /proc path is used. */
#include "source/job_int.h"
#include "source/metacalls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FS_HAVE_BPF

struct job_bpf *job_bpf_open(int root, bool count, char *why, size_t whylen)
{
	(void)root;
	(void)count;
	snprintf(why, whylen, "built without BPF (clang, bpftool and libbpf-dev at build time)");
	return NULL;
}
void job_bpf_close(struct job_bpf *b) { (void)b; }
void job_bpf_track(struct job_bpf *b, int tgid) { (void)b; (void)tgid; }
void job_bpf_untrack(struct job_bpf *b, int tgid) { (void)b; (void)tgid; }
bool job_bpf_seed(struct job_bpf *b, int tgid, int tid, char state, uint64_t now_ns, uint64_t exec_ns,
		  uint64_t delay_ns, const struct fs_pio *io)
{
	(void)b; (void)tgid; (void)tid; (void)state; (void)now_ns; (void)exec_ns; (void)delay_ns; (void)io;
	return false;
}
void job_bpf_read(struct job_bpf *b, uint64_t now_ns) { (void)b; (void)now_ns; }
int job_bpf_tgids(const struct job_bpf *b, const int **out) { (void)b; *out = NULL; return 0; }
const struct job_bpf_proc *job_bpf_find(const struct job_bpf *b, int tgid) { (void)b; (void)tgid; return NULL; }
uint64_t job_bpf_dt_ns(const struct job_bpf *b) { (void)b; return 0; }
uint64_t job_bpf_dropped(const struct job_bpf *b) { (void)b; return 0; }
uint64_t job_bpf_unseen_in(const struct job_bpf *b) { (void)b; return 0; }
const char *job_bpf_io_why(const struct job_bpf *b) { (void)b; return "built without BPF"; }
const char *job_bpf_meta_why(const struct job_bpf *b) { (void)b; return "built without BPF"; }

#else

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "source/jobbpf_int.h"
#include "util/parse.h"
#include "util/pfile.h"

static char first_msg[200]; /* libbpf's first warning: why a load failed */

static int keep_first(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level <= LIBBPF_WARN && !first_msg[0]) {
		char line[sizeof first_msg];
		vsnprintf(line, sizeof line, fmt, ap);
		line[strcspn(line, "\n")] = '\0';
		const char *p = strncmp(line, "libbpf: ", 8) == 0 ? line + 8 : line;
		snprintf(first_msg, sizeof first_msg, "%s", p);
	}
	return 0;
}

static uint32_t hash_u32(uint32_t x)
{
	return x * 2654435761u;
}

/* The process entry for tgid (created empty), or NULL when full. */
static struct job_bpf_proc *proc_slot(struct job_bpf *b, uint32_t tgid)
{
	for (uint32_t i = hash_u32(tgid) & (b->capprocs - 1), k = 0; k < b->capprocs;
	     i = (i + 1) & (b->capprocs - 1), k++) {
		struct job_bpf_proc *p = &b->procs[i];
		if (p->tgid == (int)tgid)
			return p;
		if (p->tgid == 0) {
			p->tgid = (int)tgid;
			b->used[b->ntgids] = i;
			b->tgids[b->ntgids++] = (int)tgid;
			return p;
		}
	}
	return NULL;
}

/* The metadata calls (metacalls.h) into the program's meta_sys map. */
static int fill_meta_sys(struct job_bpf *b)
{
	const long *nr;
	size_t n = fs_metacall_list(&nr);
	int fd = bpf_map__fd(b->skel->maps.meta_sys);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = (uint32_t)nr[i], one = 1;
		if (nr[i] >= 0 && nr[i] < FS_JS_MAX_SYSCALL && bpf_map_update_elem(fd, &k, &one, BPF_ANY) != 0)
			return -errno;
	}
	return 0;
}

/* The kernel's pid_max (the tids it gives out are below it); the
 * largest it can be where it cannot be read. */
static uint32_t pid_max(void)
{
	char line[32];
	const char *p = line;
	uint64_t v = 0;
	if (fs_read_line("/proc/sys/kernel/pid_max", line, sizeof line) < 0 || !fs_scan_u64(&p, &v))
		v = 0;
	return v > 0 && v <= (1ul << 22) ? (uint32_t)v : 1u << 22; /* PID_MAX_LIMIT on 64 bits */
}

static int load_once(struct job_bpf *b, const char **step, bool meta)
{
	*step = "open";
	b->skel = fs_jobstates__open();
	if (!b->skel)
		return -errno;
	int err;
	b->ntids = (pid_max() + FS_JS_TIDS_PER - 1) / FS_JS_TIDS_PER * FS_JS_TIDS_PER;
	*step = "size the tids map of";
	if ((err = bpf_map__set_max_entries(b->skel->maps.tids, b->ntids / FS_JS_TIDS_PER)) != 0)
		return err;
	b->skel->rodata->meta_on = meta;
	bpf_program__set_autoload(b->skel->progs.fs_js_floor, b->count);
	*step = "load";
	if ((err = fs_jobstates__load(b->skel)) != 0)
		return err;
	*step = "fill the metadata calls of";
	if (meta && (err = fill_meta_sys(b)) != 0)
		return err;
	*step = "attach";
	if ((err = fs_jobstates__attach(b->skel)) != 0)
		return err;
	return 0;
}

static void load_failed(struct job_bpf *b, char *why, size_t whylen, const char *step, int err)
{
	snprintf(why, whylen, "cannot %s it: %s%s%s", step, strerror(-err), first_msg[0] ? "; libbpf: " : "",
		 first_msg);
	fs_jobstates__destroy(b->skel);
	b->skel = NULL;
	first_msg[0] = '\0';
}

/* Load and attach: with the classing of blocked threads' system calls
 * (bpf_task_pt_regs, 5.15) where the kernel lets it load; else without it
 * (b->meta_why says why). */
static int load(struct job_bpf *b, const char **step)
{
	int err = load_once(b, step, true);
	if (err) {
		load_failed(b, b->meta_why, sizeof b->meta_why, *step, err);
		if ((err = load_once(b, step, false)) != 0)
			return err;
	}
	*step = "map the slots of";
	b->slots_len = (size_t)FS_JS_MAX_THREADS * sizeof *b->slots;
	b->slots = mmap(NULL, b->slots_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(b->skel->maps.slots), 0);
	if (b->slots == MAP_FAILED) {
		b->slots = NULL;
		return -errno;
	}
	*step = "map the tids of";
	b->tids_len = (size_t)b->ntids * sizeof *b->tids;
	b->tids = mmap(NULL, b->tids_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(b->skel->maps.tids), 0);
	if (b->tids == MAP_FAILED) {
		b->tids = NULL;
		return -errno;
	}
	return 0;
}

const char *job_bpf_meta_why(const struct job_bpf *b)
{
	return b->meta_why[0] ? b->meta_why : NULL;
}

/* Whether struct `type` of the kernel's BTF has every member named in
 * `names` (NULL-terminated). */
static bool btf_has_members(const struct btf *btf, const char *type, const char *const *names)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return false;
	for (; *names; names++) {
		const struct btf_member *m = btf_members(t);
		int n = btf_vlen(t), i = 0;
		while (i < n && strcmp(btf__name_by_offset(btf, m[i].name_off), *names) != 0)
			i++;
		if (i == n)
			return false;
	}
	return true;
}

/* Whether the threads' I/O counters (jobstates.h: io) are whole: the
 * kernel has the fields the program copies (else the copy was left out at
 * load). A thread long on a CPU has its own read at each tick
 * (job_bpf_read). */
static void check_io(struct job_bpf *b)
{
	static const char *const task[] = {"ioac", NULL};
	static const char *const ioac[] = {"rchar", "wchar", "read_bytes", "write_bytes", NULL};
	struct btf *btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(b->io_why, sizeof b->io_why, "cannot read the kernel's BTF: %s", strerror(errno));
		return;
	}
	if (!btf_has_members(btf, "task_struct", task) || !btf_has_members(btf, "task_io_accounting", ioac))
		snprintf(b->io_why, sizeof b->io_why,
			 "the kernel has no per-task I/O counters (CONFIG_TASK_XACCT, CONFIG_TASK_IO_ACCOUNTING)");
	btf__free(btf);
}

const char *job_bpf_io_why(const struct job_bpf *b)
{
	return b->io_why[0] ? b->io_why : NULL;
}

/* The offset of CLOCK_MONOTONIC from the records' clock (jobstates.h:
 * fs_js_cal): the CPUs' latest; the last known where none can be read. */
static bool read_offset(struct job_bpf *b)
{
	uint32_t zero = 0;
	if (bpf_map_lookup_elem(b->cal_fd, &zero, b->cal) != 0)
		return false;
	uint64_t latest = 0;
	for (int i = 0; i < b->ncpus; i++)
		if (b->cal[i].clock_ns > latest) {
			latest = b->cal[i].clock_ns;
			b->offset_ns = b->cal[i].offset_ns;
		}
	return latest != 0;
}

/* After the attach: wait for a switch to have set an offset (this
 * thread's own sleep is one), where the records' clock is rq->clock. */
static void first_offset(struct job_bpf *b)
{
	for (int i = 0; i < 100 && !read_offset(b); i++)
		usleep(100);
}

struct job_bpf *job_bpf_open(int root, bool count, char *why, size_t whylen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(why, whylen, "no kernel BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		return NULL;
	}
	struct job_bpf *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	b->count = count;
	b->stats_fd = -1;
	b->prev = calloc(FS_JS_MAX_THREADS, sizeof *b->prev);
	b->seeded = calloc(FS_JS_MAX_THREADS, sizeof *b->seeded);
	b->capprocs = 2 * FS_JS_MAX_PROCS; /* a power of two, at most half full */
	b->procs = calloc(b->capprocs, sizeof *b->procs);
	b->tgids = malloc(b->capprocs * sizeof *b->tgids);
	b->used = malloc(b->capprocs * sizeof *b->used);
	b->ncpus = libbpf_num_possible_cpus();
	b->cal = b->ncpus > 0 ? calloc((size_t)b->ncpus, sizeof *b->cal) : NULL;
	if (!b->prev || !b->seeded || !b->procs || !b->tgids || !b->used || !b->cal) {
		snprintf(why, whylen, "out of memory");
		job_bpf_close(b);
		return NULL;
	}
	first_msg[0] = '\0';
	libbpf_set_print(keep_first);
	const char *step;
	int err = load(b, &step);
	libbpf_set_print(NULL);
	if (err) {
		if (err == -EPERM) /* libbpf's first words are then about RLIMIT_MEMLOCK */
			snprintf(why, whylen, "cannot %s the BPF program: %s (needs root, or CAP_BPF and "
				 "CAP_PERFMON)", step, strerror(-err));
		else
			snprintf(why, whylen, "cannot %s the BPF program: %s%s%s", step, strerror(-err),
				 first_msg[0] ? "; libbpf: " : "", first_msg);
		job_bpf_close(b);
		return NULL;
	}
	b->tgids_fd = bpf_map__fd(b->skel->maps.tgids);
	b->free_fd = bpf_map__fd(b->skel->maps.free_slots);
	b->cal_fd = bpf_map__fd(b->skel->maps.cal);
	first_offset(b);
	check_io(b);
	if (count)
		job_bpf_count_open(b);
	job_bpf_track(b, root);
	return b;
}

void job_bpf_close(struct job_bpf *b)
{
	if (!b)
		return;
	if (b->slots)
		munmap(b->slots, b->slots_len);
	if (b->tids)
		munmap(b->tids, b->tids_len);
	job_bpf_count_close(b);
	job_bpf_sample_close(b);
	fs_jobstates__destroy(b->skel);
	free(b->prev);
	free(b->seeded);
	free(b->procs);
	free(b->tgids);
	free(b->used);
	free(b->cal);
	free(b);
}

void job_bpf_track(struct job_bpf *b, int tgid)
{
	uint32_t key = (uint32_t)tgid, one = 1;
	bpf_map_update_elem(b->tgids_fd, &key, &one, BPF_ANY);
}

void job_bpf_untrack(struct job_bpf *b, int tgid)
{
	uint32_t key = (uint32_t)tgid;
	bpf_map_delete_elem(b->tgids_fd, &key);
}

/* Mark a slot free and give it back to the program. */
static void give_back(struct job_bpf *b, uint32_t slot)
{
	b->seeded[slot] = false; /* before the program can take it at a fork */
	__atomic_store_n(&b->slots[slot].state, FS_JS_FREE, __ATOMIC_RELEASE);
	bpf_map_update_elem(b->free_fd, NULL, &slot, 0);
}

bool job_bpf_seed(struct job_bpf *b, int tgid, int tid, char state, uint64_t now_ns, uint64_t exec_ns,
		  uint64_t delay_ns, const struct fs_pio *io)
{
	uint32_t slot;
	if (tid <= 0 || (uint32_t)tid >= b->ntids)
		return false;
	uint16_t *e = &b->tids[tid];
	if (__atomic_load_n(e, __ATOMIC_ACQUIRE) != 0)
		return true; /* the kernel has it (forked while followed) */
	if (bpf_map_lookup_and_delete_elem(b->free_fd, NULL, &slot) != 0 &&
	    (slot = __atomic_fetch_add(&b->skel->bss->next_slot, 1, __ATOMIC_SEQ_CST)) >= FS_JS_MAX_THREADS)
		return false;
	struct fs_js_thread *t = &b->slots[slot];
	memset(t, 0, sizeof *t);
	b->seeded[slot] = true;
	t->tgid = (uint32_t)tgid;
	t->tid = (uint32_t)tid;
	t->start_ns = t->since_ns = now_ns - b->offset_ns;
	/* not read: its execution counts from 0 (a thread first seen in R
	 * counts as on a CPU), its wait is not split off (seen_late) */
	t->exec_ns = exec_ns == ~0ull ? 0 : exec_ns;
	t->delay_ns = delay_ns;
	if (io) { /* from here its counters grow from these (the program copies them at its switch out) */
		const uint64_t v[FS_JS_NIO] = {[FS_JS_IO_RCHAR] = io->rchar, [FS_JS_IO_WCHAR] = io->wchar,
					       [FS_JS_IO_READ_BYTES] = io->read_bytes,
					       [FS_JS_IO_WRITE_BYTES] = io->write_bytes};
		memcpy(t->io, v, sizeof v);
		memcpy(t->io0, v, sizeof v);
	}
	__atomic_store_n(&t->state, fs_js_from_letter(state), __ATOMIC_RELEASE);
	/* an entry the kernel made meanwhile (a fork) knows better */
	uint16_t none = 0;
	if (!__atomic_compare_exchange_n(e, &none, (uint16_t)(slot + 1), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		give_back(b, slot);
	return true;
}

/* Add the growth of a thread's I/O counters since `from` to sum (a counter
 * read lower than before adds nothing: a torn copy, paid back next read). */
static void add_io(struct fs_pio *sum, const __u64 *from, const __u64 *to)
{
	sum->rchar += fs_counter_delta(from[FS_JS_IO_RCHAR], to[FS_JS_IO_RCHAR]);
	sum->wchar += fs_counter_delta(from[FS_JS_IO_WCHAR], to[FS_JS_IO_WCHAR]);
	sum->read_bytes += fs_counter_delta(from[FS_JS_IO_READ_BYTES], to[FS_JS_IO_READ_BYTES]);
	sum->write_bytes += fs_counter_delta(from[FS_JS_IO_WRITE_BYTES], to[FS_JS_IO_WRITE_BYTES]);
}

/* /proc/TGID/task/TID/NAME into buf (NUL-terminated); false when it
 * cannot be read (the thread has gone). */
static bool read_task_file(int tgid, int tid, const char *name, char *buf, size_t len)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task/%d/%s", tgid, tid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* A thread whose record has said it is on a CPU for over FS_JS_SETTLE_NS,
 * or runnable for over JB_RUNQ_READ_NS: its execution now
 * (task/TID/schedstat, which the kernel brings up to date for a running
 * thread) splits the open stretch, where no switch of the thread has
 * since, and its I/O counters (task/TID/io) where the program copies them
 * (they are copied only at its switches). The program does this no more:
 * its settling at the kernel's runtime updates (sched_stat_runtime) ran
 * ~11 times a context switch, 3% of a core on the 64 x 20 tree. Runnable
 * that long is a thread whose switch in was not seen (jobstates.bpf.c,
 * unseen_in: a new thread's first, say, which would hide a spinning
 * thread's reads), or one starved of a CPU; at most JB_RUNQ_READS of them
 * a tick. Returns the execution, ~0 when not read. */
#define JB_RUNQ_READ_NS 50000000ull
#define JB_RUNQ_READS 32
static uint64_t settle_read(struct job_bpf *b, struct fs_js_thread *v, uint64_t now_ns, int *runq_reads)
{
	if (now_ns <= v->since_ns)
		return ~0ull;
	uint64_t open_ns = now_ns - v->since_ns;
	if (v->state == FS_JS_RUNQ) {
		if (open_ns < JB_RUNQ_READ_NS || *runq_reads >= JB_RUNQ_READS)
			return ~0ull;
		++*runq_reads;
	} else if (v->state != FS_JS_ONCPU || open_ns < FS_JS_SETTLE_NS) {
		return ~0ull;
	}
	char buf[256];
	struct fs_schedstat ss;
	if (!read_task_file((int)v->tgid, (int)v->tid, "schedstat", buf, sizeof buf) ||
	    !fs_schedstat_parse(buf, &ss))
		return ~0ull;
	struct fs_pio io;
	if (!b->io_why[0] && read_task_file((int)v->tgid, (int)v->tid, "io", buf, sizeof buf) &&
	    fs_pio_parse(buf, &io)) {
		const uint64_t now[FS_JS_NIO] = {[FS_JS_IO_RCHAR] = io.rchar, [FS_JS_IO_WCHAR] = io.wchar,
						 [FS_JS_IO_READ_BYTES] = io.read_bytes,
						 [FS_JS_IO_WRITE_BYTES] = io.write_bytes};
		for (int k = 0; k < FS_JS_NIO; k++)
			if (now[k] > v->io[k])
				v->io[k] = now[k];
	}
	return ss.run_ns;
}

void job_bpf_read(struct job_bpf *b, uint64_t now_ns)
{
	int runq_reads = 0;
	read_offset(b);
	uint64_t mono_ns = now_ns;
	now_ns -= b->offset_ns; /* in the records' clock from here */
	uint32_t hw = __atomic_load_n(&b->skel->bss->next_slot, __ATOMIC_ACQUIRE);
	if (hw > FS_JS_MAX_THREADS)
		hw = FS_JS_MAX_THREADS;
	for (int i = 0; i < b->ntgids; i++)
		b->procs[b->used[i]] = (struct job_bpf_proc){0};
	b->ntgids = 0;
	for (uint32_t i = 0; i < hw; i++) {
		/* a copy: the kernel writes on. One still torn after 16 tries is
		 * taken all the same: what it gets wrong is paid back (jobstates.h) */
		struct fs_js_thread v;
		fs_js_copy(&v, &b->slots[i], 16);
		struct jb_prev *old = &b->prev[i];
		if (v.state == FS_JS_FREE || v.tgid == 0) {
			old->tid = 0;
			continue;
		}
		struct job_bpf_proc *p = proc_slot(b, v.tgid);
		if (!p)
			continue;
		struct fs_js_totals cur;
		fs_js_totals_at_exec(&v, now_ns, settle_read(b, &v, now_ns, &runq_reads), &cur);
		bool same = old->tid == v.tid && old->start_ns == v.start_ns;
		uint64_t run_ns = cur.run_ns;
		/* ran in the interval: by the figures as read, not as counted (a
		 * figure paid back counts nothing while the thread runs) */
		if (!same || run_ns != old->run_ns)
			p->ran = true;
		fs_js_totals_add_delta(&p->sum, same ? &old->tot : NULL, &cur);
		add_io(&p->io, same ? old->io : v.io0, v.io);
		__u64 io[FS_JS_NIO];
		for (int k = 0; k < FS_JS_NIO; k++) /* what has been counted */
			io[k] = same && old->io[k] > v.io[k] ? old->io[k] : v.io[k];
		if (same)
			fs_js_totals_mark(&cur, &old->tot); /* what has been counted */
		if (v.state == FS_JS_DEAD) {
			old->tid = 0;
			give_back(b, i);
			continue;
		}
		p->threads++;
		if (v.tid == v.tgid && !b->seeded[i]) /* its main thread, followed from the fork */
			p->born_ns = v.start_ns + b->offset_ns; /* CLOCK_MONOTONIC */
		p->execs += v.execs;
		p->counts[v.state < FS_JS_NSTATES ? v.state : FS_JS_OTHER]++;
		*old = (struct jb_prev){.tid = v.tid, .start_ns = v.start_ns, .tot = cur, .run_ns = run_ns};
		memcpy(old->io, io, sizeof io);
	}
	b->dt_ns = b->have_prev && mono_ns > b->prev_ns ? mono_ns - b->prev_ns : 0;
	b->prev_ns = mono_ns;
	job_bpf_sample_check(b, mono_ns);
	b->have_prev = true;
}

int job_bpf_tgids(const struct job_bpf *b, const int **out)
{
	*out = b->tgids;
	return b->ntgids;
}

const struct job_bpf_proc *job_bpf_find(const struct job_bpf *b, int tgid)
{
	for (uint32_t i = hash_u32((uint32_t)tgid) & (b->capprocs - 1), k = 0; k < b->capprocs;
	     i = (i + 1) & (b->capprocs - 1), k++) {
		if (b->procs[i].tgid == tgid)
			return &b->procs[i];
		if (b->procs[i].tgid == 0)
			return NULL;
	}
	return NULL;
}

uint64_t job_bpf_dt_ns(const struct job_bpf *b)
{
	return b->dt_ns;
}

uint64_t job_bpf_dropped(const struct job_bpf *b)
{
	return b->skel->bss->dropped;
}

uint64_t job_bpf_unseen_in(const struct job_bpf *b)
{
	return b->skel->bss->unseen_in;
}

#endif
