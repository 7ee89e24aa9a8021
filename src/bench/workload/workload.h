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
	bool generate_data;              /* `bench` generates the dataset first (DLIO's workflow.generate_data) */

	/* dataset */
	char format[16];                 /* a format of gen_int.h, or "synthetic" (no storage) */
	uint32_t num_files_train;        /* after --scale */
	uint32_t num_samples_per_file;   /* after --scale (shrunk when the files cannot be) */
	uint32_t num_subfolders_train;   /* > 1: files dealt round-robin into train/0 .. train/K-1 */
	uint32_t num_dset_per_record;    /* hdf5: datasets a record is split into (only 1 is written) */
	bool hdf5_chunked;               /* hdf5: chunk_dims or enable_chunking given (not written) */
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
	char ckpt_keys[192];             /* what set checkpoint_bytes, for messages ("model_size 4096") */
	/* DLIO's schedule: with training, one checkpoint at epochs after, after +
	 * between, ... (1-based) or, when steps_between > 0, every steps_between
	 * steps; without training, num_write checkpoints (-1: one). num_read is
	 * -1 or num_write: each checkpoint is read back. */
	uint32_t ckpt_after_epoch, ckpt_epochs_between, ckpt_steps_between;
	int64_t ckpt_num_write, ckpt_num_read;
	double ckpt_time_between_s;      /* checkpoint-only: the pause between two checkpoints */

	/* metric */
	double au_threshold;             /* e.g. 0.90 */
	uint32_t exclude_start_steps;    /* output.metric: steps left out of the AU, first ... */
	uint32_t exclude_end_steps;      /* ... and last (DLIO: 1 and 0) */

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

/* The same with Hydra-style overrides as DLIO takes them on its command
 * line (`++workload.dataset.num_files_train=64`, `+workload.x.y=v`,
 * `workload.x.y=v`; the value is YAML: a number, a word, `[1, 2]`), applied
 * over the preset or the file before --scale. noverrides may be 0. */
int fs_workload_load_ex(const char *preset_or_yaml_path, char *const *overrides, int noverrides, double scale,
			struct fs_workload *w, char *why, size_t whylen);

/* Whether arg has the shape of an override (`[+|++]workload.KEY=VALUE`). */
bool fs_workload_is_override(const char *arg);

/* How many checkpoints DLIO's schedule writes in a run of epochs epochs of
 * steps steps each (w->train), or in a checkpoint-only run; 0 when
 * w->checkpoint is off or the schedule falls outside the run. */
uint32_t fs_workload_checkpoints(const struct fs_workload *w, uint32_t epochs, uint32_t steps);

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
