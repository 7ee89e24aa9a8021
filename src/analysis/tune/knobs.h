/* knobs.h - the DataLoader keyword arguments `feedscope tune` sets (the
 * knobs), a setting of them, and its words: the FEEDSCOPE_TUNE environment
 * the hook reads, the text and the Python the results print. The bottom of
 * analysis/tune/: it includes no other header of the room (README.md). */
#ifndef FS_TUNE_KNOBS_H
#define FS_TUNE_KNOBS_H

#include <stdbool.h>
#include <stddef.h>

enum fs_tune_knob {
	FS_KNOB_NUM_WORKERS,
	FS_KNOB_PREFETCH_FACTOR,
	FS_KNOB_PIN_MEMORY,
	FS_KNOB_PERSISTENT_WORKERS,
	FS_KNOB_BATCH_SIZE,
	/* not a DataLoader keyword: torch.set_num_threads(N) in each worker,
	 * after the job's own worker_init_fn (python/feedscope/_tune.py) */
	FS_KNOB_WORKER_THREADS,
	FS_KNOB__N
};

/* The knob's DataLoader keyword ("num_workers", ...); its index from a
 * name, -1 when it is not one. */
const char *fs_tune_knob_name(enum fs_tune_knob k);
int fs_tune_knob_parse(const char *name);

/* Whether knob k is a boolean (pin_memory, persistent_workers); value v of
 * knob k as Python writes it ("True", "8") into out. */
bool fs_tune_knob_is_bool(int k);
void fs_tune_knob_value(char *out, size_t cap, int k, int v);

/* A setting: each knob's value, -1 for "the job's own" (booleans 0/1). */
struct fs_tune_knobs {
	int v[FS_KNOB__N];
};

void fs_tune_knobs_unset(struct fs_tune_knobs *k);
/* The FEEDSCOPE_TUNE words for k and a stop after steps ("num_workers=8
 * steps=60"). */
void fs_tune_knobs_env(const struct fs_tune_knobs *k, long steps, char *out, size_t cap);
/* "num_workers=8, prefetch_factor=4" (the knobs set in k; "the job's own
 * settings" when none). */
void fs_tune_knobs_text(const struct fs_tune_knobs *k, char *out, size_t cap);
bool fs_tune_knobs_equal(const struct fs_tune_knobs *a, const struct fs_tune_knobs *b);

#endif
