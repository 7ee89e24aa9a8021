/* Workloads: the presets, --scale, accelerator types, and DLIO YAML files
 * (tests/bench/yaml/): good ones parsed to the right values, unknown keys
 * warned about once each, bad values refused with the key and the value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/workload/workload.h"
#include "bench/workload/workload_int.h"
#include "check.h"

#define Y "tests/bench/yaml/"

/* Load with stderr captured; returns fs_workload_load's result, the
 * warnings (lines) in *warnings and their text in err. */
static int load(const char *arg, double scale, struct fs_workload *w, char *why, int *warnings, char *err,
		size_t errlen)
{
	char tmpl[] = "/tmp/test_workload.XXXXXX";
	int fd = mkstemp(tmpl);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	int rc = fs_workload_load(arg, scale, w, why, 512);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, err, errlen - 1);
	err[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(tmpl);
	*warnings = 0;
	for (char *p = err; *p; p++)
		*warnings += *p == '\n';
	return rc;
}

/* The same through fs_workload_load_ex with overrides (stderr discarded). */
static int load_ov(const char *arg, char *const *ov, int nov, double scale, struct fs_workload *w, char *why)
{
	char tmpl[] = "/tmp/test_workload.XXXXXX";
	int fd = mkstemp(tmpl);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	int rc = fs_workload_load_ex(arg, ov, nov, scale, w, why, 512);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	unlink(tmpl);
	return rc;
}

/* DLIO's keys beyond the basics (issue 15): honoured, or refused by name. */
static void dlio_keys(void)
{
	struct fs_workload w;
	char why[512] = "";
	CHECK_INT(load_ov(Y "dlio_keys.yaml", NULL, 0, 1, &w, why), 0);
	CHECK_STR(w.format, "indexed");               /* mmap_indexed_binary */
	CHECK_INT(w.record_length_bytes, 8 * 16 * 4); /* record_dims × float32, over record_length_bytes */
	CHECK_INT(w.num_subfolders_train, 3);
	CHECK_INT(w.exclude_start_steps, 3);
	CHECK_INT(w.exclude_end_steps, 2);
	CHECK(w.generate_data);
	/* checkpoints at epochs 3, 5, 7 of 7; none before epoch 3 */
	CHECK_INT(fs_workload_checkpoints(&w, 7, 100), 3);
	CHECK_INT(fs_workload_checkpoints(&w, 2, 100), 0);
	w.ckpt_steps_between = 30; /* every 30 steps of the whole run: 7 × 10 / 30 */
	CHECK_INT(fs_workload_checkpoints(&w, 7, 10), 2);
	w.checkpoint = false;
	CHECK_INT(fs_workload_checkpoints(&w, 7, 10), 0);

	/* overrides: a value, a list, a nested key; checked as in a file */
	char *ov[] = {"++workload.dataset.num_files_train=64", "+workload.dataset.record_dims=[2, 3]",
		      "workload.output.metric.exclude_start_steps=0", "++workload.reader.batch_size=8"};
	CHECK_INT(load_ov(Y "dlio_keys.yaml", ov, 4, 1, &w, why), 0);
	CHECK_INT(w.num_files_train, 64);
	CHECK_INT(w.record_length_bytes, 2 * 3 * 4);
	CHECK_INT(w.exclude_start_steps, 0);
	CHECK_INT(w.batch_size, 8);
	char *ov_preset[] = {"++workload.train.computation_time=0.01"};
	CHECK_INT(load_ov("unet3d", ov_preset, 1, 1, &w, why), 0);
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 0.01, 1e-12);
	CHECK_INT(w.checkpoint_bytes, 499153191); /* the preset's, untouched */
	char *bad_ov[] = {"++workload.dataset.num_files_train=lots"};
	CHECK_INT(load_ov("resnet50", bad_ov, 1, 1, &w, why), -1);
	CHECK(strstr(why, "dataset.num_files_train: 'lots'") != NULL);
	char *bad_shape[] = {"++dataset.num_files_train=3"};
	CHECK(!fs_workload_is_override(bad_shape[0]));
	CHECK_INT(load_ov("resnet50", bad_shape, 1, 1, &w, why), -1);
	CHECK(strstr(why, "workload.SECTION.KEY=VALUE") != NULL);
	char *twice[] = {"++workload.reader.batch_size=1", "++workload.reader.batch_size=2"};
	CHECK_INT(load_ov("resnet50", twice, 2, 1, &w, why), -1);
	CHECK(strstr(why, "given twice") != NULL);

	/* --scale below one file shrinks the samples of that file (dlrm, megatron) */
	char *one_file[] = {"++workload.dataset.num_files_train=1", "++workload.dataset.num_samples_per_file=4000000"};
	CHECK_INT(load_ov("resnet50", one_file, 2, 0.001, &w, why), 0);
	CHECK_INT(w.num_files_train, 1);
	CHECK_INT(w.num_samples_per_file, 4000);
	CHECK_INT(load_ov("resnet50", NULL, 0, 0.01, &w, why), 0); /* 10 files: their samples stay */
	CHECK_INT(w.num_files_train, 10);
	CHECK_INT(w.num_samples_per_file, 1251);

	/* a workload that only generates is something to do */
	CHECK_INT(load_ov(Y "datagen_only.yaml", NULL, 0, 1, &w, why), 0);
	CHECK(!w.train && w.generate_data);
	CHECK_STR(w.format, "png");
}

static void bad(const char *file, const char *expect)
{
	struct fs_workload w;
	char why[512] = "", err[4096];
	int warnings;
	CHECK_INT(load(file, 1, &w, why, &warnings, err, sizeof err), -1);
	if (!strstr(why, expect)) {
		fprintf(stderr, "%s: reason \"%s\" lacks \"%s\"\n", file, why, expect);
		CHECK(!"reason names the key and value");
	}
}

int main(void)
{
	struct fs_workload w;
	char why[512], err[4096];
	int warnings;

	/* presets */
	for (int i = 0; fs_workload_presets[i]; i++) {
		CHECK_INT(load(fs_workload_presets[i], 1, &w, why, &warnings, err, sizeof err), 0);
		CHECK_INT(warnings, 0);
		CHECK(w.train || w.checkpoint);
		CHECK(!w.train || (w.batch_size > 0 && w.num_files_train > 0 && w.ncompute > 0));
		CHECK(w.au_threshold > 0 && w.au_threshold <= 1);
	}
	CHECK_INT(load("unet3d", 1, &w, why, &warnings, err, sizeof err), 0);
	CHECK_STR(w.format, "npz");
	CHECK_INT(w.num_files_train, 168);
	CHECK_INT(w.record_length_bytes, 146600628);
	CHECK_INT(w.record_length_bytes_stdev, 68341808);
	CHECK_INT(w.batch_size, 7);
	CHECK_INT(w.read_threads, 4);
	CHECK_INT(w.prefetch, 2);
	CHECK_STR(fs_workload_compute(&w)->accel, "h100");
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 0.323, 1e-12);
	CHECK_INT(w.file_shuffle, FS_SHUFFLE_SEED);
	CHECK(!w.checkpoint);
	CHECK_INT(w.checkpoint_bytes, 499153191);
	CHECK_INT(fs_workload_select_accel(&w, "a100", why, sizeof why), 0);
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 0.636, 1e-12);
	CHECK_INT(fs_workload_select_accel(&w, "tpu", why, sizeof why), -1);
	CHECK(strstr(why, "'tpu'") && strstr(why, "h100") && strstr(why, "a100"));

	CHECK_INT(load("resnet50", 0.01, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(w.num_files_train, 10); /* 1024 × 0.01 = 10.24 */
	CHECK_INT(w.num_samples_per_file, 1251);
	CHECK_INT(w.batch_size, 400);
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 0.224, 1e-12);
	CHECK_NEAR(w.au_threshold, 0.90, 1e-12);
	CHECK_INT(load("cosmoflow", 1e-9, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(w.num_files_train, 1); /* never 0 */
	CHECK_NEAR(w.au_threshold, 0.70, 1e-12);

	/* llama3-8b: 8.03e9 parameters × (2 + 3 × 4) bytes ≈ 105 GiB */
	CHECK_INT(load("llama3-8b-checkpoint", 1, &w, why, &warnings, err, sizeof err), 0);
	CHECK(!w.train && w.checkpoint);
	CHECK_INT(w.checkpoint_bytes, 8030261248ull * 14);
	CHECK_INT(load("llama3-8b-checkpoint", 0.01, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(w.checkpoint_bytes, 1124236575ull); /* 1124236574.72 rounded */

	CHECK_INT(load("mnist", 1, &w, why, &warnings, err, sizeof err), -1);
	CHECK(strstr(why, "'mnist'") && strstr(why, "unet3d"));
	CHECK_INT(load("unet3d", 0, &w, why, &warnings, err, sizeof err), -1);
	CHECK_INT(load("unet3d", -1, &w, why, &warnings, err, sizeof err), -1);

	/* good YAML files */
	CHECK_INT(load(Y "unet3d_h100.yaml", 1, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(warnings, 0);
	CHECK_STR(w.name, "unet3d");
	CHECK_STR(w.format, "npz");
	CHECK_INT(w.num_files_train, 168);
	CHECK_INT(w.record_length_bytes_stdev, 68341808);
	CHECK_INT(w.batch_size, 7);
	CHECK_INT(w.epochs, 5);
	CHECK_INT(w.ncompute, 1);
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 0.323, 1e-12);
	CHECK_INT(w.checkpoint_bytes, 499153191);
	CHECK(w.train && !w.checkpoint);
	CHECK_INT(w.sample_shuffle, FS_SHUFFLE_SEED);
	CHECK_INT(load(Y "unet3d_h100.yaml", 0.5, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(w.num_files_train, 84);
	CHECK_INT(fs_workload_select_accel(&w, "h100", why, sizeof why), -1);

	CHECK_INT(load(Y "resnet50_odd.yaml", 1, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(warnings, 3); /* dataset.colour, reader.turbo, section wishes */
	CHECK(strstr(err, "dataset.colour") && strstr(err, "reader.turbo") && strstr(err, "'wishes'"));
	CHECK(strstr(err, "resnet50_odd.yaml:20:") != NULL); /* the line of colour */
	CHECK_INT(w.record_length_bytes, 114660);
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 0.224, 1e-12);
	CHECK_NEAR(fs_workload_compute(&w)->stdev_s, 0.01, 1e-12);
	CHECK_INT(w.epochs, 3);
	CHECK_INT(w.seed, 42);
	CHECK_INT(w.prefetch, 2); /* 0 means DLIO's 2 */
	CHECK(w.direct);
	CHECK_STR(w.data_loader, "tensorflow");
	CHECK_STR(w.framework, "tensorflow");
	CHECK_INT(w.file_shuffle, FS_SHUFFLE_OFF);

	CHECK_INT(load(Y "llama_transformer.yaml", 1, &w, why, &warnings, err, sizeof err), 0);
	CHECK_INT(warnings, 0);
	CHECK(!w.train && w.checkpoint);
	CHECK_INT(w.checkpoint_bytes, 8030261248ull * 14);
	CHECK_STR(w.name, "llama_8b");
	/* what made the size, for the messages (a checkpoint too big for --dir) */
	CHECK_STR(w.ckpt_keys, "model.num_layers 32, model.transformer hidden_size 4096, ffn_hidden_size 14336, "
			       "vocab_size 128256: 8.03e+09 parameters x 14 bytes");
	/* DLIO writes model_size as a model-state file of its own, beside the
	 * layers and optimizer state: the checkpoint is the sum (DLIO's llama
	 * configs give model_size 5643 with a transformer) */
	{
		char *ov[] = {"++workload.model.model_size=5643"};
		CHECK_INT(load_ov(Y "llama_transformer.yaml", ov, 1, 1, &w, why), 0);
		CHECK_INT(w.checkpoint_bytes, 8030261248ull * 14 + 5643);
		CHECK(strstr(w.ckpt_keys, "8.03e+09 parameters x 14 bytes, + model_size 5643") != NULL);
		char *ov0[] = {"++workload.model.model_size=5643", "++workload.model.num_layers=0"};
		CHECK_INT(load_ov(Y "llama_transformer.yaml", ov0, 2, 1, &w, why), 0);
		CHECK_INT(w.checkpoint_bytes, 5643); /* no layers: no layer or optimizer state */
		CHECK_STR(w.ckpt_keys, "model_size 5643");
		char *ovn[] = {"++workload.model.num_layers=-1"};
		CHECK_INT(load_ov(Y "llama_transformer.yaml", ovn, 1, 1, &w, why), -1);
		CHECK(strstr(why, "model.num_layers") != NULL);
	}

	/* bad files: the key and the value in the reason */
	bad(Y "bad_files.yaml", "bad_files.yaml:3: dataset.num_files_train: 'abc' is not a positive whole number");
	bad(Y "bad_batch.yaml", "reader.batch_size: '-4'");
	bad(Y "bad_shuffle.yaml", "reader.file_shuffle: 'sometimes'");
	bad(Y "bad_format.yaml", "dataset.format: 'parquet' is not a format feedscope emulates");
	bad(Y "bad_compute.yaml", "train.computation_time: a mapping needs 'mean'");
	bad(Y "bad_compute_type.yaml", "computation_time.type: 'gamma'");
	bad(Y "bad_au.yaml", "metric.au: '90' is not a fraction");
	bad(Y "bad_syntax.yaml", "not valid YAML");
	bad(Y "bad_bool.yaml", "workflow.train: 'maybe'");
	bad(Y "bad_no_model_size.yaml", "model's size");
	bad(Y "bad_list.yaml", "not a DLIO workload");
	bad(Y "bad_record.yaml", "dataset.record_length_bytes: '0'");
	bad(Y "missing.yaml", "missing.yaml: No such file");
	bad(Y "bad_seed.yaml", "train.seed: '-3' is not a whole number >= 0");
	bad(Y "bad_prefetch.yaml", "reader.prefetch_size: 'two'");
	bad(Y "bad_compute_scalar.yaml", "train.computation_time: 'fast' is not a number of seconds");
	bad(Y "bad_steps.yaml", "train.total_training_steps: '1.5'");
	bad(Y "bad_stdev.yaml", "dataset.record_length_bytes_stdev: '-5'");
	bad(Y "bad_transformer.yaml", "model.transformer.hidden_size: '0'");
	bad(Y "bad_batch_list.yaml", "reader.batch_size: expected a single value");

	/* numbers out of range: the key and the value, never a silent overflow */
	bad(Y "bad_compute_huge.yaml", "train.computation_time: '1e300' is not a number of seconds from 0 to 86400");
	bad(Y "bad_compute_inf.yaml", "train.computation_time: '.inf'");
	bad(Y "bad_compute_nan.yaml", "train.computation_time: 'nan'");
	bad(Y "bad_compute_stdev_huge.yaml", "train.computation_time.stdev: '1e20'");
	bad(Y "bad_stdev_inf.yaml", "train.computation_time_stdev: 'inf'");
	bad(Y "bad_record_huge.yaml", "dataset.record_length_bytes: '1e19' is not a number of bytes from 1 to 1e18");
	bad(Y "bad_record_negative.yaml", "dataset.record_length_bytes: '-4096'");
	bad(Y "bad_size_product.yaml", "record_length_bytes 1000000000000000000");
	bad(Y "bad_size_product.yaml", "num_samples_per_file 4000000000 × num_files_train 4000000000 is more than");
	bad(Y "bad_size_wrap.yaml", "record_length_bytes 576460752303423488");
	bad(Y "bad_transformer_overflow.yaml", "the checkpoint's size");
	CHECK_INT(load("resnet50", 1e300, &w, why, &warnings, err, sizeof err), -1);
	CHECK(strstr(why, "--scale 1e+300") != NULL);
	CHECK_INT(load("bert", 3e9, &w, why, &warnings, err, sizeof err), -1);
	CHECK(strstr(why, "--scale") != NULL);
	/* the largest compute time that is accepted, and nesting within the limit */
	CHECK_INT(load(Y "nested_ok.yaml", 1, &w, why, &warnings, err, sizeof err), 0);
	CHECK_NEAR(fs_workload_compute(&w)->mean_s, 86400, 1e-9);
	CHECK_INT(warnings, 0);

	/* nesting: a fixture just past the limit, and 100 000 brackets (which
	 * took libyaml's document API 24 s) refused by the depth limit */
	bad(Y "bad_deep.yaml", "bad_deep.yaml:2: nested deeper than 32 levels");
	char deep[] = "/tmp/test_workload_deep.XXXXXX.yaml";
	int dfd = mkstemps(deep, 5);
	CHECK(dfd >= 0);
	FILE *df = dfd >= 0 ? fdopen(dfd, "w") : NULL;
	if (df) {
		fputs("model: ", df);
		for (int i = 0; i < 100000; i++)
			fputc('[', df);
		for (int i = 0; i < 100000; i++)
			fputc(']', df);
		fputc('\n', df);
		fclose(df);
		bad(deep, "nested deeper than 32 levels");
		unlink(deep);
	}

	/* DLIO's keys that feedscope does not emulate: refused by name */
	dlio_keys();
	bad(Y "bad_read_type.yaml", "reader.read_type: 'in_memory' is not emulated");
	bad(Y "bad_file_access.yaml", "reader.file_access: 'shared' is not emulated");
	bad(Y "bad_storage_s3.yaml", "storage.storage_type: 's3' is not emulated");
	bad(Y "bad_hdf5.yaml", "dataset.hdf5.num_dset_per_record: feedscope writes each record as one row");
	bad(Y "bad_exclude.yaml", "output.metric.exclude_start_steps: '-1'");
	bad(Y "bad_record_dims.yaml", "dataset.record_dims: '0' is not a positive whole number");
	bad(Y "bad_ckpt_read.yaml", "checkpoint.num_checkpoints_read 2");

	/* the transformer count itself */
	struct fs_wl_transformer t = {.num_layers = 32, .hidden = 4096, .ffn_hidden = 14336, .vocab = 128256,
				      .heads = 32, .kv_heads = 8, .model_dtype_bytes = 2, .optimizer_dtype_bytes = 4};
	CHECK_INT(fs_wl_transformer_params(&t), 8030261248ull);
	t.hidden = t.ffn_hidden = 4000000000ull; /* hidden² overflows: saturates, never wraps */
	CHECK(fs_wl_transformer_params(&t) == UINT64_MAX);
	CHECK(fs_wl_transformer_checkpoint_bytes(&t) == UINT64_MAX);
	return check_exit("test_workload");
}
