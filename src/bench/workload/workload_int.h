/* workload_int.h - what workload.c and workload_yaml.c share. */
#ifndef FS_BENCH_WORKLOAD_INT_H
#define FS_BENCH_WORKLOAD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bench/workload/workload.h"

/* A transformer as DLIO's model.transformer describes it. */
struct fs_wl_transformer {
	uint64_t num_layers, hidden, ffn_hidden, vocab, heads, kv_heads;
	uint64_t model_dtype_bytes, optimizer_dtype_bytes;
};

/* Parameters (weights) of t: attention (q, o: hidden²; k, v: hidden ×
 * kv_heads × head_dim), a gated MLP (3 × hidden × ffn), two norms per layer,
 * input embedding and an untied output head. */
uint64_t fs_wl_transformer_params(const struct fs_wl_transformer *t);

/* Checkpoint bytes: weights in the model type plus the optimizer state (an
 * fp32 master copy and Adam's two moments) in the optimizer type. */
uint64_t fs_wl_transformer_checkpoint_bytes(const struct fs_wl_transformer *t);

/* w->ckpt_keys: the keys that made the checkpoint's size, the transformer
 * t (with model_size_bytes more when not 0) or, t NULL, model_size alone. */
void fs_wl_ckpt_keys(struct fs_workload *w, const struct fs_wl_transformer *t, uint64_t model_size_bytes);

/* DLIO's defaults (config.rst), before a YAML file or preset overrides them. */
void fs_workload_defaults(struct fs_workload *w);

/* Read a DLIO workload YAML file into w (defaults first), then the
 * overrides (fs_workload_load_ex). Returns 0, or -1 with "FILE:LINE: key:
 * reason" in why. Unknown keys: one warning each. */
int fs_workload_load_yaml(const char *path, char *const *ov, int nov, struct fs_workload *w, char *why,
			  size_t whylen);

/* Apply overrides to a preset already in w. 0, or -1 with why. */
int fs_workload_apply_overrides(char *const *ov, int nov, struct fs_workload *w, char *why, size_t whylen);

struct yaml_document_s;
/* Build one YAML document from overrides: a root mapping of sections
 * ({dataset: {num_files_train: 64}, ...}), each value parsed as YAML. The
 * caller deletes doc (also after a failure). 0, or -1 with why naming the
 * override. (workload_override.c) */
int fs_wl_override_doc(char *const *ov, int nov, struct yaml_document_s *doc, char *why, size_t whylen);

#endif
