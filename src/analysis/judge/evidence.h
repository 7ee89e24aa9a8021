/* evidence.h - what a finding is made of: the cause's id, the measured
 * numbers that back it (each naming its source), and a finding (a cause
 * with its share of the idle time). The bottom of judge/: types and one
 * helper, read by every other file of the analysis from judge/ up. */
#ifndef FS_EVIDENCE_H
#define FS_EVIDENCE_H

enum fs_verdict_id {
	FS_VERDICT_COMPUTE_BOUND,
	FS_VERDICT_STORAGE_BANDWIDTH,
	FS_VERDICT_STORAGE_LATENCY,
	FS_VERDICT_METADATA,
	FS_VERDICT_CPU_PREPROCESS,
	FS_VERDICT_LOADER_PARALLELISM,
	FS_VERDICT_NETWORK,
	FS_VERDICT_MEMORY_PRESSURE,
	FS_VERDICT_CHECKPOINT_STALL,
	FS_VERDICT_EPOCH_START,
	FS_VERDICT_HOST_TO_DEVICE,
	FS_VERDICT_MAIN_PROCESS,
	FS_VERDICT_UNDETERMINED,
	FS_VERDICT__N
};

#define FS_MAX_EVIDENCE 10
#define FS_MAX_FINDINGS 6

struct fs_evidence {
	char metric[48];  /* e.g. "loader_blocked_io_share" */
	double value;
	char unit[16];    /* "fraction", "MB/s", "ms", "bytes", "%", ... */
	char source[80];  /* the table or signal it came from: "steps", "proc", "disk:loop0" */
	char text[200];   /* the same, for people */
};

struct fs_finding {
	enum fs_verdict_id id;
	double severity;         /* 0..1: how much of the idle time it explains */
	double fraction_of_time; /* share of the loop's (or run's) time, NaN if unknown */
	int nev;
	struct fs_evidence ev[FS_MAX_EVIDENCE];
};

/* Append an evidence item to a list (no-op when full); text is printf-like. */
void fs_evidence_add(struct fs_evidence *list, int *n, const char *metric, double value,
		     const char *unit, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

#endif
