/* workload_keys.c - the DLIO keys feedscope knows, one table per section
 * of a workload file (workload_keys.h): DLIO's names (config.rst), what kind
 * of value each takes, and which field of the workload it sets; K_IGNORE
 * marks DLIO keys that change nothing storage sees (accepted silently).
 * docs/bench.md says, key by key, what is honoured and what refused. */
#include "bench/workload/workload_keys.h"

#include <stddef.h>

#include "bench/workload/workload_int.h"

#define NONE FS_WL_NONE
#define W(f) offsetof(struct fs_workload, f)
#define T(f) offsetof(struct fs_wl_transformer, f)

/* DLIO's hdf5-only keys (dataset.hdf5): what feedscope's hdf5 files are not (refused then) */
static const struct key hdf5_keys[] = {
	{"num_dset_per_record", K_COUNT, W(num_dset_per_record)}, {"chunk_dims", K_SHAPE, W(hdf5_chunked)},
	{"max_shape", K_SHAPE, NONE},
	{NULL, K_IGNORE, 0},
};

/* output.metric: DLIO's AU window */
static const struct key output_metric_keys[] = {
	{"exclude_start_steps", K_U32, W(exclude_start_steps)},
	{"exclude_end_steps", K_U32, W(exclude_end_steps)},
	{NULL, K_IGNORE, 0},
};

/* Nested mappings (K_SUBMAP), by off */
enum { SUB_HDF5, SUB_METRIC };
const struct key *const fs_wl_submaps[] = {[SUB_HDF5] = hdf5_keys, [SUB_METRIC] = output_metric_keys};

static const char *const on_demand[] = {"on_demand", NULL}, *const multi[] = {"multi", NULL},
		  *const local_fs[] = {"local_fs", NULL};
#define READ_TYPE_REFUSAL "'%s' is not emulated: feedscope reads every sample from storage when its batch " \
	"is built (on_demand)"
#define FILE_ACCESS_REFUSAL "'%s' is not emulated: feedscope reads the files a rank was dealt with POSIX " \
	"reads (multi), not one file shared through MPI-IO"
#define STORAGE_REFUSAL "'%s' is not emulated: feedscope bench reads local files under --dir (local_fs); " \
	"it has no object-store client"

/* A key whose values are what feedscope emulates or refused (K_CHOICE), by off */
enum { CH_READ_TYPE, CH_FILE_ACCESS, CH_STORAGE };
const struct fs_wl_choice fs_wl_choices[] = {
	[CH_READ_TYPE] = {on_demand, READ_TYPE_REFUSAL},
	[CH_FILE_ACCESS] = {multi, FILE_ACCESS_REFUSAL},
	[CH_STORAGE] = {local_fs, STORAGE_REFUSAL},
};

static const struct key dataset_keys[] = {
	{"format", K_FORMAT, W(format)},
	{"num_files_train", K_COUNT, W(num_files_train)},
	{"num_samples_per_file", K_COUNT, W(num_samples_per_file)},
	{"record_length_bytes", K_BYTES, W(record_length_bytes)},
	{"record_length", K_BYTES, W(record_length_bytes)},
	{"record_length_bytes_stdev", K_BYTES0, W(record_length_bytes_stdev)},
	{"record_length_stdev", K_BYTES0, W(record_length_bytes_stdev)},
	{"num_subfolders_train", K_U32, W(num_subfolders_train)},
	{"record_element_bytes", K_ELEM, 0},
	{"record_element_type", K_ETYPE, 0},
	{"record_dims", K_DIMS, 0},
	{"num_dset_per_record", K_COUNT, W(num_dset_per_record)}, {"hdf5", K_SUBMAP, SUB_HDF5},
	{"chunk_dims", K_SHAPE, W(hdf5_chunked)}, {"max_shape", K_SHAPE, NONE},
	{"data_folder", K_IGNORE, 0}, {"record_length_bytes_resize", K_IGNORE, 0},
	{"record_length_resize", K_IGNORE, 0}, {"num_files_eval", K_IGNORE, 0},
	{"num_subfolders_eval", K_IGNORE, 0}, {"eval_num_samples_per_file", K_IGNORE, 0},
	{"file_prefix", K_IGNORE, 0}, {"compression", K_IGNORE, 0}, {"compression_level", K_IGNORE, 0},
	{"enable_chunking", K_BOOL, W(hdf5_chunked)}, {"chunk_size", K_IGNORE, 0}, {"keep_files", K_IGNORE, 0},
	{"num_dataset_per_record", K_IGNORE, 0}, {"generation_buffer_size", K_IGNORE, 0},
	{"data_gen_method", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key reader_keys[] = {
	{"data_loader", K_STR, W(data_loader)},
	{"batch_size", K_COUNT, W(batch_size)},
	{"read_threads", K_THREADS, W(read_threads)},
	{"prefetch_size", K_PREFETCH, W(prefetch)},
	{"file_shuffle", K_SHUFFLE, W(file_shuffle)},
	{"sample_shuffle", K_SHUFFLE, W(sample_shuffle)},
	{"odirect", K_BOOL, W(direct)},
	{"read_type", K_CHOICE, CH_READ_TYPE}, {"file_access", K_CHOICE, CH_FILE_ACCESS},
	{"storage_type", K_CHOICE, CH_STORAGE},
	{"transformed_record_dims", K_SHAPE, NONE}, {"transformed_record_element_type", K_ETYPE, NONE},
	{"storage_root", K_IGNORE, 0}, {"storage_library", K_NOTUSED, 0}, {"storage_options", K_IGNORE, 0},
	{"protocol", K_IGNORE, 0},
	{"batch_size_eval", K_IGNORE, 0}, {"computation_threads", K_IGNORE, 0}, {"pin_memory", K_IGNORE, 0},
	{"shuffle_size", K_IGNORE, 0}, {"transfer_size", K_IGNORE, 0}, {"preprocess_time", K_IGNORE, 0},
	{"preprocess_time_stdev", K_IGNORE, 0}, {"transformed_sample", K_IGNORE, 0},
	{"transformed_sample_type", K_IGNORE, 0}, {"dont_use_mmap", K_IGNORE, 0},
	{"multiprocessing_context", K_IGNORE, 0}, {"data_loader_classname", K_IGNORE, 0},
	{"data_loader_sampler", K_IGNORE, 0}, {"reader_classname", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key train_keys[] = {
	{"epochs", K_COUNT, W(epochs)},
	{"computation_time", K_COMPUTE, 0},
	{"computation_time_stdev", K_STDEV, 0},
	{"total_training_steps", K_STEPS, W(total_training_steps)},
	{"seed", K_SEED, W(seed)},
	{"seed_change_epoch", K_IGNORE, 0}, {"total_eval_steps", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key workflow_keys[] = {
	{"train", K_BOOL, W(train)},
	{"checkpoint", K_BOOL, W(checkpoint)},
	{"generate_data", K_BOOL, W(generate_data)},
	{"evaluation", K_IGNORE, 0}, {"do_eval", K_IGNORE, 0}, {"profiling", K_IGNORE, 0},
	{"debug", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key checkpoint_keys[] = {
	{"model_size", K_MODELSZ, 0},
	{"checkpoint_after_epoch", K_COUNT, W(ckpt_after_epoch)},
	{"epochs_between_checkpoints", K_COUNT, W(ckpt_epochs_between)},
	{"steps_between_checkpoints", K_STEPS, W(ckpt_steps_between)},
	{"num_checkpoints_write", K_I64, W(ckpt_num_write)}, {"num_checkpoints_read", K_I64, W(ckpt_num_read)},
	{"time_between_checkpoints", K_SECONDS, W(ckpt_time_between_s)},
	{"checkpoint_folder", K_IGNORE, 0}, {"fsync", K_BOOL, NONE},
	{"recovery_rank_shift", K_IGNORE, 0}, {"rank_sync", K_IGNORE, 0}, {"mode", K_IGNORE, 0},
	{"randomize_tensor", K_IGNORE, 0}, {"ksm", K_IGNORE, 0}, {"type", K_IGNORE, 0},
	{"optimization_groups", K_IGNORE, 0}, {"num_layers", K_IGNORE, 0}, {"layer_parameters", K_IGNORE, 0},
	{"model_datatype", K_IGNORE, 0}, {"optimizer_datatype", K_IGNORE, 0},
	{"checkpoint_mechanism_classname", K_NOTUSED, 1},
	{NULL, K_IGNORE, 0},
};

const char *const fs_wl_notused[] = {
	/* storage_library: DLIO ignores it when storage_type is local_fs, the only type feedscope takes */
	"storage is local_fs, read through --engine (DLIO ignores it there too)",
	/* checkpoint_mechanism_classname: a DLIO plugin, Python */
	"feedscope writes the checkpoint itself (the model's bytes, one file a rank: written, fsynced, read "
	"back); a Python class is not loaded",
};

static const struct key metric_keys[] = {
	{"au", K_AU, W(au_threshold)},
	{NULL, K_IGNORE, 0},
};


static const struct key output_keys[] = {
	{"metric", K_SUBMAP, SUB_METRIC},
	{"folder", K_IGNORE, 0}, {"log_file", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key storage_keys[] = {
	{"storage_type", K_CHOICE, CH_STORAGE},
	{"storage_root", K_IGNORE, 0}, {"storage_library", K_NOTUSED, 0}, {"storage_options", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key model_keys[] = {
	{"name", K_STR, W(name)},
	{"model_size", K_MODELSZ, 0},
	{"model_size_bytes", K_MODELSZ, 0},
	{"model_datatype", K_DTYPE, T(model_dtype_bytes)},
	{"optimizer_datatype", K_DTYPE, T(optimizer_dtype_bytes)},
	{"num_layers", K_TLAYERS, 0},
	{"transformer", K_TRANSF, 0},
	{"type", K_IGNORE, 0}, {"parallelism", K_IGNORE, 0}, {"optimization_groups", K_IGNORE, 0},
	{"layer_parameters", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

const struct key fs_wl_transformer_keys[] = {
	{"vocab_size", K_COUNT, T(vocab)},
	{"hidden_size", K_COUNT, T(hidden)},
	{"ffn_hidden_size", K_COUNT, T(ffn_hidden)},
	{"num_attention_heads", K_COUNT, T(heads)},
	{"num_kv_heads", K_COUNT, T(kv_heads)},
	{NULL, K_IGNORE, 0},
};

/* Sections whose contents feedscope does not look at. */
const char *const fs_wl_ignored_sections[] = {"evaluation", "profiling", "hydra", "defaults", NULL};

const struct fs_wl_section fs_wl_sections[] = {
	{"dataset", dataset_keys}, {"reader", reader_keys}, {"train", train_keys},
	{"workflow", workflow_keys}, {"checkpoint", checkpoint_keys}, {"metric", metric_keys},
	{"model", model_keys}, {"output", output_keys}, {"storage", storage_keys},
	{NULL, NULL},
};

