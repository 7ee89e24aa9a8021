/* workload_keys.h - the DLIO keys feedscope knows (workload_keys.c: one
 * table per YAML section, what each key is and where its value goes), for
 * the YAML reader (workload_yaml.c). docs/bench.md lists them, honoured or
 * refused. */
#ifndef FS_BENCH_WORKLOAD_KEYS_H
#define FS_BENCH_WORKLOAD_KEYS_H

#include <stddef.h>

enum kind {
	K_IGNORE,   /* a DLIO key feedscope does not emulate */
	K_STR,      /* char[] at off */
	K_COUNT,    /* uint32_t >= 1 */
	K_COUNT0,   /* uint32_t >= 0 */
	K_BYTES,    /* uint64_t > 0 (a fraction is rounded) */
	K_BYTES0,   /* uint64_t >= 0 */
	K_BOOL,
	K_SHUFFLE,
	K_FORMAT,
	K_AU,       /* 0 < x <= 1 */
	K_SEED,     /* uint64_t */
	K_STEPS,    /* uint32_t; <= 0 means none (total_training_steps: the whole epoch) */
	K_U32,      /* uint32_t >= 0 */
	K_I64,      /* int64_t >= -1 (num_checkpoints_*: -1 is DLIO's "unset") */
	K_SECONDS,  /* double seconds; <= 0 means none */
	K_CHOICE,   /* one of choices[] (case-insensitive; nothing stored); any other refused with refusal */
	K_SUBMAP,   /* a nested mapping read with sub[] */
	K_ELEM,     /* record_element_bytes */
	K_ETYPE,    /* record_element_type: a NumPy type name -> element bytes */
	K_DIMS,     /* record_dims: a list of positive whole numbers -> the record's element count */
	K_SHAPE,    /* a list of whole numbers >= 0, checked, no effect on I/O */
	K_PREFETCH, /* 0 means DLIO's 2 */
	K_THREADS,  /* 0 (pytorch: the main thread) reads with one thread */
	K_COMPUTE,  /* computation_time: seconds or {mean, stdev, type} */
	K_STDEV,    /* computation_time_stdev */
	K_MODELSZ,  /* checkpoint bytes */
	K_DTYPE,    /* fp16, bf16, fp32, ... -> bytes (into the transformer) */
	K_TLAYERS,  /* model.num_layers */
	K_TRANSF,   /* model.transformer mapping */
	K_NOTUSED,  /* a key whose value feedscope cannot use (storage_library, a Python class): one warning
		     * names it and says why, fs_wl_notused[off] */
};

struct key {
	const char *name;
	enum kind kind;
	size_t off;                 /* K_CHOICE: into fs_wl_choices[]; K_SUBMAP: into fs_wl_submaps[] */
};

#define FS_WL_NONE ((size_t)-1) /* off: checked, stored nowhere */

/* A key whose values are what feedscope emulates or refused (K_CHOICE). */
struct fs_wl_choice {
	const char *const *ok;  /* emulated (case-insensitive) */
	const char *refusal;    /* why any other value is refused (%s: the value) */
};

struct fs_wl_section {
	const char *name;
	const struct key *keys;
};

extern const struct key *const fs_wl_submaps[];         /* K_SUBMAP, by off */
extern const char *const fs_wl_notused[];               /* K_NOTUSED: why, by off (at most 32) */
extern const struct fs_wl_choice fs_wl_choices[];       /* K_CHOICE, by off */
extern const struct fs_wl_section fs_wl_sections[];     /* the sections read; NULL name ends it */
extern const struct key fs_wl_transformer_keys[];       /* model.transformer */
extern const char *const fs_wl_ignored_sections[];      /* sections whose contents are not looked at */

#endif
