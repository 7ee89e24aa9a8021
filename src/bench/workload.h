/* workload.h - what `feedscope bench` emulates: an MLPerf Storage / DLIO
 * training workload. Either one of the built-in presets (unet3d, resnet50,
 * cosmoflow, bert, llama3-8b-checkpoint; values and their sources in
 * docs/bench.md) or a DLIO workload YAML file (libyaml).
 *
 * The generator (`bench generate`) reads format, num_files_train,
 * num_samples_per_file, record_length_bytes and record_length_bytes_stdev;
 * the run reads the rest. */
#ifndef FS_BENCH_WORKLOAD_H
#define FS_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FS_WL_MAX_ACCEL 4

/* The emulated compute time of one training step (one batch) on one
 * accelerator type: normal(mean, stdev), clamped at 0. */
struct fs_wl_compute {
	char accel[16];       /* "h100", "a100", ...; "" for a YAML file's single value */
	double mean_s, stdev_s;
};

enum fs_wl_shuffle { FS_SHUFFLE_OFF = 0, FS_SHUFFLE_SEED, FS_SHUFFLE_RANDOM };

struct fs_workload {
	char name[64];                   /* preset name or the YAML's model name */
	char framework[32];              /* pytorch, tensorflow (informative) */
	char data_loader[32];            /* pytorch, tensorflow, dali (informative) */

	/* workflow */
	bool train;                      /* read the dataset for epochs */
	bool checkpoint;                 /* write a checkpoint (and read it back) */

	/* dataset */
	char format[16];                 /* npz npy tfrecord tar jpeg raw indexed */
	uint32_t num_files_train;        /* after --scale */
	uint32_t num_samples_per_file;
	uint64_t record_length_bytes;
	uint64_t record_length_bytes_stdev;

	/* reader */
	uint32_t batch_size;
	uint32_t read_threads;           /* per accelerator, as in DLIO */
	uint32_t prefetch;               /* batches ready ahead per reader thread */
	enum fs_wl_shuffle file_shuffle, sample_shuffle;
	uint64_t seed;

	/* train */
	uint32_t epochs;
	uint32_t total_training_steps;   /* steps per accelerator per epoch; 0: the whole epoch */
	struct fs_wl_compute compute[FS_WL_MAX_ACCEL];
	int ncompute;                    /* entries in compute[] (>= 1 when train) */
	int compute_sel;                 /* the one in use (--accelerator-type) */

	/* checkpoint */
	uint64_t checkpoint_bytes;       /* model + optimizer state, after --scale */

	/* metric */
	double au_threshold;             /* e.g. 0.90 */

	/* how to read (defaults; the command line overrides) */
	char engine[16];                 /* psync, io_uring, mmap */
	bool direct;                     /* O_DIRECT */
};

/* Fill w from a preset name or, if the argument names a file (contains '/'
 * or ends in .yaml/.yml), from a DLIO workload YAML file; then scale
 * num_files_train (at least 1) and checkpoint_bytes by scale (> 0).
 * Unknown YAML keys are warned about on stderr (one line each), not fatal.
 * Returns 0; or -1 with a one-line reason in why (unknown preset, a file
 * that cannot be read or parsed, a bad value: the reason names the key and
 * the value) — a usage error for the caller. */
int fs_workload_load(const char *preset_or_yaml_path, double scale, struct fs_workload *w, char *why,
		     size_t whylen);

/* Choose the accelerator type whose compute time is used ("h100", ...).
 * Returns 0, or -1 with the known types listed in why. */
int fs_workload_select_accel(struct fs_workload *w, const char *accel, char *why, size_t whylen);

/* The compute time in use. */
const struct fs_wl_compute *fs_workload_compute(const struct fs_workload *w);

/* The preset names, NULL-terminated (for --help and errors). */
extern const char *const fs_workload_presets[];

/* "off", "seed", "random". */
const char *fs_wl_shuffle_name(enum fs_wl_shuffle s);

#endif
