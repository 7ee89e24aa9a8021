/* workload.c - the built-in workloads (MLPerf Storage / DLIO parameters;
 * each value and its source in docs/bench.md), scaling, and the choice of
 * accelerator type. DLIO YAML files are read by workload_yaml.c. */
#include "bench/workload/workload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/workload/workload_int.h"

const char *const fs_workload_presets[] = {"unet3d", "resnet50", "cosmoflow", "bert",
					   "llama3-8b-checkpoint", NULL};

/* Parameters of llama3-8b (DLIO's transformer description in MLPerf Storage
 * v2.0's llama3_8b.yaml): 32 layers, hidden 4096, FFN 14336, vocabulary
 * 128256, 32 heads of which 8 key/value heads; fp16 weights, fp32 optimizer. */
static const struct fs_wl_transformer llama3_8b = {
	.num_layers = 32, .hidden = 4096, .ffn_hidden = 14336, .vocab = 128256,
	.heads = 32, .kv_heads = 8, .model_dtype_bytes = 2, .optimizer_dtype_bytes = 4,
};

void fs_workload_defaults(struct fs_workload *w)
{
	memset(w, 0, sizeof *w);
	snprintf(w->name, sizeof w->name, "default");
	snprintf(w->framework, sizeof w->framework, "pytorch");
	snprintf(w->data_loader, sizeof w->data_loader, "pytorch");
	snprintf(w->format, sizeof w->format, "tfrecord"); /* DLIO's default */
	snprintf(w->engine, sizeof w->engine, "psync");
	w->train = true;
	w->num_files_train = 1;
	w->num_samples_per_file = 1;
	w->record_length_bytes = 65536;
	w->batch_size = 1;
	w->read_threads = 1;
	w->prefetch = 2; /* DLIO sets prefetch_size 2 for both loaders */
	w->seed = 123;
	w->epochs = 1;
	w->au_threshold = 0.90;
	w->exclude_start_steps = 1; /* DLIO's output.metric defaults */
	w->num_dset_per_record = 1;
	w->ckpt_after_epoch = 1;
	w->ckpt_epochs_between = 1;
	w->ckpt_num_write = w->ckpt_num_read = -1;
}

static void add_compute(struct fs_workload *w, const char *accel, double mean_s)
{
	struct fs_wl_compute *c = &w->compute[w->ncompute++];
	snprintf(c->accel, sizeof c->accel, "%s", accel);
	c->mean_s = mean_s;
	c->stdev_s = 0;
}

static void set_data(struct fs_workload *w, const char *format, uint32_t files, uint32_t per_file,
		     uint64_t rec, uint64_t stdev)
{
	snprintf(w->format, sizeof w->format, "%s", format);
	w->num_files_train = files;
	w->num_samples_per_file = per_file;
	w->record_length_bytes = rec;
	w->record_length_bytes_stdev = stdev;
}

static void set_loader(struct fs_workload *w, const char *framework, uint32_t batch, uint32_t threads,
		       enum fs_wl_shuffle shuffle)
{
	snprintf(w->framework, sizeof w->framework, "%s", framework);
	snprintf(w->data_loader, sizeof w->data_loader, "%s", framework);
	w->batch_size = batch;
	w->read_threads = threads;
	w->file_shuffle = w->sample_shuffle = shuffle;
}

/* Returns 0, or -1 if name is no preset. */
static int preset(const char *name, struct fs_workload *w)
{
	fs_workload_defaults(w);
	snprintf(w->name, sizeof w->name, "%s", name);
	if (!strcmp(name, "unet3d")) {
		/* MLPerf Storage v1.0 unet3d_h100.yaml / unet3d_a100.yaml */
		set_data(w, "npz", 168, 1, 146600628, 68341808);
		set_loader(w, "pytorch", 7, 4, FS_SHUFFLE_SEED);
		w->epochs = 5;
		add_compute(w, "h100", 0.323);
		add_compute(w, "a100", 0.636);
		w->checkpoint_bytes = 499153191; /* model.model_size */
		w->au_threshold = 0.90;
	} else if (!strcmp(name, "resnet50")) {
		/* resnet50_h100.yaml / resnet50_a100.yaml (record 114660.07 bytes) */
		set_data(w, "tfrecord", 1024, 1251, 114660, 0);
		set_loader(w, "tensorflow", 400, 8, FS_SHUFFLE_OFF);
		w->epochs = 5;
		add_compute(w, "h100", 0.224);
		add_compute(w, "a100", 0.435);
		w->au_threshold = 0.90;
	} else if (!strcmp(name, "cosmoflow")) {
		/* cosmoflow_h100.yaml / cosmoflow_a100.yaml */
		set_data(w, "tfrecord", 524288, 1, 2828486, 71311);
		set_loader(w, "tensorflow", 1, 4, FS_SHUFFLE_SEED);
		w->epochs = 5;
		add_compute(w, "h100", 0.00350);
		add_compute(w, "a100", 0.00551);
		w->au_threshold = 0.70;
	} else if (!strcmp(name, "bert")) {
		/* DLIO bert_v100.yaml (MLPerf Storage v0.5): 1000 steps, a
		 * checkpoint of model_size_bytes */
		set_data(w, "tfrecord", 500, 313532, 2500, 0);
		set_loader(w, "tensorflow", 48, 1, FS_SHUFFLE_SEED);
		w->epochs = 1;
		w->total_training_steps = 1000;
		add_compute(w, "v100", 0.968);
		w->checkpoint = true;
		w->checkpoint_bytes = 4034713312ull;
		w->au_threshold = 0.90;
	} else if (!strcmp(name, "llama3-8b-checkpoint")) {
		/* MLPerf Storage v2.0 llama3_8b.yaml: checkpointing only */
		snprintf(w->framework, sizeof w->framework, "pytorch");
		w->train = false;
		w->checkpoint = true;
		w->epochs = 0;
		w->checkpoint_bytes = fs_wl_transformer_checkpoint_bytes(&llama3_8b);
		fs_wl_ckpt_keys(w, &llama3_8b, 0);
	} else {
		return -1;
	}
	if (w->checkpoint_bytes && !w->ckpt_keys[0])
		fs_wl_ckpt_keys(w, NULL, w->checkpoint_bytes);
	return 0;
}

/* a*b and a+b that stick at UINT64_MAX instead of wrapping */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t fs_wl_transformer_params(const struct fs_wl_transformer *t)
{
	uint64_t head_dim = t->heads ? t->hidden / t->heads : 0;
	uint64_t kv = mul_sat(head_dim, t->kv_heads);
	uint64_t attn = add_sat(mul_sat(2, mul_sat(t->hidden, t->hidden)), mul_sat(2, mul_sat(t->hidden, kv)));
	uint64_t mlp = mul_sat(3, mul_sat(t->hidden, t->ffn_hidden)); /* gate, up, down (SwiGLU) */
	uint64_t layer = add_sat(add_sat(attn, mlp), mul_sat(2, t->hidden)); /* two RMSNorm weights */
	/* input embedding and untied output head, final norm */
	return add_sat(add_sat(mul_sat(t->num_layers, layer), mul_sat(2, mul_sat(t->vocab, t->hidden))), t->hidden);
}

uint64_t fs_wl_transformer_checkpoint_bytes(const struct fs_wl_transformer *t)
{
	/* weights in the model's type; optimizer state = fp32 master copy and
	 * Adam's two moments, in the optimizer's type */
	return mul_sat(fs_wl_transformer_params(t), add_sat(t->model_dtype_bytes, mul_sat(3, t->optimizer_dtype_bytes)));
}

void fs_wl_ckpt_keys(struct fs_workload *w, const struct fs_wl_transformer *t, uint64_t model_size_bytes)
{
	char more[64] = "";
	if (model_size_bytes)
		snprintf(more, sizeof more, ", + model_size %llu", (unsigned long long)model_size_bytes);
	if (!t) {
		snprintf(w->ckpt_keys, sizeof w->ckpt_keys, "model_size %llu", (unsigned long long)model_size_bytes);
		return;
	}
	snprintf(w->ckpt_keys, sizeof w->ckpt_keys, "model.num_layers %llu, model.transformer hidden_size %llu, "
		 "ffn_hidden_size %llu, vocab_size %llu: %.3g parameters x %llu bytes%s",
		 (unsigned long long)t->num_layers, (unsigned long long)t->hidden, (unsigned long long)t->ffn_hidden,
		 (unsigned long long)t->vocab, (double)fs_wl_transformer_params(t),
		 (unsigned long long)(t->model_dtype_bytes + 3 * t->optimizer_dtype_bytes), more);
}

/* Sizes whose products must fit in int64 (the generator's and the space
 * check's arithmetic): 0, or -1 with the keys and values in why. */
static int check_sizes(const struct fs_workload *w, const char *src, char *why, size_t whylen)
{
	if (w->checkpoint_bytes > INT64_MAX) {
		snprintf(why, whylen, "%s: the checkpoint's size, %llu bytes, is more than %lld", src,
			 (unsigned long long)w->checkpoint_bytes, (long long)INT64_MAX);
		return -1;
	}
	if (!w->train)
		return 0;
	/* a sample is drawn from normal(L, stdev): 10 stdev above L bounds it */
	uint64_t sample = add_sat(w->record_length_bytes, mul_sat(10, w->record_length_bytes_stdev));
	uint64_t total = mul_sat(mul_sat(sample, w->num_samples_per_file), w->num_files_train);
	if (total > INT64_MAX) {
		snprintf(why, whylen, "%s: dataset.record_length_bytes %llu (+ 10 × record_length_bytes_stdev %llu) × "
			 "num_samples_per_file %u × num_files_train %u is more than %lld bytes", src,
			 (unsigned long long)w->record_length_bytes, (unsigned long long)w->record_length_bytes_stdev,
			 w->num_samples_per_file, w->num_files_train, (long long)INT64_MAX);
		return -1;
	}
	return 0;
}

static bool is_path(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".yaml")) || (n > 4 && !strcmp(s + n - 4, ".yml"));
}

int fs_workload_load(const char *arg, double scale, struct fs_workload *w, char *why, size_t whylen)
{
	return fs_workload_load_ex(arg, NULL, 0, scale, w, why, whylen);
}

/* --scale: num_files_train × scale; where that falls below one file, one
 * file holding num_samples_per_file × (num_files_train × scale) samples, so
 * a dataset of one huge file (dlrm, megatron) shrinks too. 0, or -1 with why. */
static int apply_scale(struct fs_workload *w, double scale, char *why, size_t whylen)
{
	double files = floor(w->num_files_train * scale + 0.5);
	double ckpt = (double)w->checkpoint_bytes * scale;
	if (files > UINT32_MAX || ckpt > 9e18) {
		if (files > UINT32_MAX)
			snprintf(why, whylen, "--scale %g makes %.6g files (num_files_train %u × scale), more than "
				 "4294967295", scale, files, w->num_files_train);
		else
			snprintf(why, whylen, "--scale %g makes a checkpoint of %.6g bytes, more than 9e18", scale, ckpt);
		return -1;
	}
	double wanted = w->num_files_train * scale;
	if (wanted < 1) {
		double per = floor(w->num_samples_per_file * wanted + 0.5);
		w->num_samples_per_file = per < 1 ? 1 : (uint32_t)per;
	}
	w->num_files_train = files < 1 ? 1 : (uint32_t)files;
	if (w->checkpoint_bytes > 0) /* a checkpoint stays a checkpoint: 1 byte at least */
		w->checkpoint_bytes = ckpt < 1 ? 1 : (uint64_t)llround(ckpt);
	return 0;
}

int fs_workload_load_ex(const char *arg, char *const *ov, int nov, double scale, struct fs_workload *w, char *why,
			size_t whylen)
{
	if (!(scale > 0) || !isfinite(scale)) {
		snprintf(why, whylen, "--scale must be a positive number");
		return -1;
	}
	if (is_path(arg)) {
		if (fs_workload_load_yaml(arg, ov, nov, w, why, whylen) != 0)
			return -1;
	} else if (preset(arg, w) != 0) {
		int n = snprintf(why, whylen, "unknown workload '%s' (presets:", arg);
		for (int i = 0; fs_workload_presets[i] && n > 0 && (size_t)n < whylen; i++)
			n += snprintf(why + n, whylen - n, " %s", fs_workload_presets[i]);
		if (n > 0 && (size_t)n < whylen)
			snprintf(why + n, whylen - n, "; or a DLIO YAML file)");
		return -1;
	} else if (nov > 0 && fs_workload_apply_overrides(ov, nov, w, why, whylen) != 0) {
		return -1;
	}
	if (scale != 1.0 && apply_scale(w, scale, why, whylen) < 0)
		return -1;
	if (check_sizes(w, arg, why, whylen) < 0)
		return -1;
	if (w->train && w->ncompute == 0)
		add_compute(w, "", 0);
	w->compute_sel = 0;
	return 0;
}

uint32_t fs_workload_checkpoints(const struct fs_workload *w, uint32_t epochs, uint32_t steps)
{
	if (!w->checkpoint)
		return 0;
	if (!w->train)
		return w->ckpt_num_write > 0 ? (uint32_t)(w->ckpt_num_write > UINT32_MAX ? UINT32_MAX : w->ckpt_num_write) : 1;
	if (w->ckpt_steps_between > 0) /* DLIO counts steps over the whole run */
		return (uint32_t)((uint64_t)epochs * steps / w->ckpt_steps_between);
	if (epochs < w->ckpt_after_epoch)
		return 0;
	return (epochs - w->ckpt_after_epoch) / w->ckpt_epochs_between + 1;
}

int fs_workload_select_accel(struct fs_workload *w, const char *accel, char *why, size_t whylen)
{
	for (int i = 0; i < w->ncompute; i++)
		if (!strcmp(w->compute[i].accel, accel)) {
			w->compute_sel = i;
			return 0;
		}
	if (w->ncompute == 1 && !w->compute[0].accel[0]) {
		snprintf(why, whylen, "--accelerator-type: %s gives one computation_time, for no named accelerator",
			 w->name);
		return -1;
	}
	int n = snprintf(why, whylen, "--accelerator-type: '%s' is not one of %s's:", accel, w->name);
	for (int i = 0; i < w->ncompute && n > 0 && (size_t)n < whylen; i++)
		n += snprintf(why + n, whylen - n, " %s", w->compute[i].accel);
	if (w->ncompute == 0 && n > 0 && (size_t)n < whylen)
		snprintf(why + n, whylen - n, " (none: it does not train)");
	return -1;
}

const struct fs_wl_compute *fs_workload_compute(const struct fs_workload *w)
{
	static const struct fs_wl_compute none;
	if (w->ncompute <= 0)
		return &none;
	return &w->compute[w->compute_sel];
}

const char *fs_wl_shuffle_name(enum fs_wl_shuffle s)
{
	return s == FS_SHUFFLE_SEED ? "seed" : s == FS_SHUFFLE_RANDOM ? "random" : "off";
}
