/* workload_yaml.c - DLIO workload YAML files (the format of DLIO's and
 * MLPerf Storage's configs/workload/ YAML files), read with libyaml's document
 * API (after a pass of its event API that refuses nesting deeper than
 * MAX_DEPTH, so a file of 100 000 brackets is refused at once). The sections and keys feedscope emulates are parsed and checked;
 * DLIO keys it does not emulate are accepted silently; anything else gets
 * one warning. A bad value is an error naming the key and the value. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "bench/workload_int.h"
#include "util/log.h"

#define MAX_DEPTH 32                 /* DLIO's files nest 3 levels */
#define MAX_YAML_BYTES (1u << 20)    /* theirs are a few KiB */
#define MAX_SECONDS 86400.0          /* a day per training step: beyond is a typo */
#define MAX_SECONDS_TEXT "86400"

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
	K_STEPS,    /* total_training_steps: <= 0 means the whole epoch */
	K_PREFETCH, /* 0 means DLIO's 2 */
	K_THREADS,  /* 0 (pytorch: the main thread) reads with one thread */
	K_COMPUTE,  /* computation_time: seconds or {mean, stdev, type} */
	K_STDEV,    /* computation_time_stdev */
	K_MODELSZ,  /* checkpoint bytes */
	K_DTYPE,    /* fp16, bf16, fp32, ... -> bytes (into the transformer) */
	K_TLAYERS,  /* model.num_layers */
	K_TRANSF,   /* model.transformer mapping */
};

struct key {
	const char *name;
	enum kind kind;
	size_t off;
};

#define W(f) offsetof(struct fs_workload, f)
#define T(f) offsetof(struct fs_wl_transformer, f)

static const struct key dataset_keys[] = {
	{"format", K_FORMAT, W(format)},
	{"num_files_train", K_COUNT, W(num_files_train)},
	{"num_samples_per_file", K_COUNT, W(num_samples_per_file)},
	{"record_length_bytes", K_BYTES, W(record_length_bytes)},
	{"record_length", K_BYTES, W(record_length_bytes)},
	{"record_length_bytes_stdev", K_BYTES0, W(record_length_bytes_stdev)},
	{"record_length_stdev", K_BYTES0, W(record_length_bytes_stdev)},
	{"data_folder", K_IGNORE, 0}, {"record_length_bytes_resize", K_IGNORE, 0},
	{"record_length_resize", K_IGNORE, 0}, {"num_files_eval", K_IGNORE, 0},
	{"num_subfolders_train", K_IGNORE, 0}, {"num_subfolders_eval", K_IGNORE, 0},
	{"file_prefix", K_IGNORE, 0}, {"compression", K_IGNORE, 0}, {"compression_level", K_IGNORE, 0},
	{"enable_chunking", K_IGNORE, 0}, {"chunk_size", K_IGNORE, 0}, {"keep_files", K_IGNORE, 0},
	{"record_dims", K_IGNORE, 0}, {"record_element_type", K_IGNORE, 0},
	{"num_dataset_per_record", K_IGNORE, 0}, {"chunk_dims", K_IGNORE, 0}, {"max_shape", K_IGNORE, 0},
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
	{"seed_change_epoch", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key workflow_keys[] = {
	{"train", K_BOOL, W(train)},
	{"checkpoint", K_BOOL, W(checkpoint)},
	{"generate_data", K_IGNORE, 0}, {"evaluation", K_IGNORE, 0}, {"profiling", K_IGNORE, 0},
	{"debug", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key checkpoint_keys[] = {
	{"model_size", K_MODELSZ, 0},
	{"checkpoint_folder", K_IGNORE, 0}, {"checkpoint_after_epoch", K_IGNORE, 0},
	{"epochs_between_checkpoints", K_IGNORE, 0}, {"steps_between_checkpoints", K_IGNORE, 0},
	{"fsync", K_IGNORE, 0}, {"time_between_checkpoints", K_IGNORE, 0},
	{"num_checkpoints_write", K_IGNORE, 0}, {"num_checkpoints_read", K_IGNORE, 0},
	{"recovery_rank_shift", K_IGNORE, 0}, {"rank_sync", K_IGNORE, 0}, {"mode", K_IGNORE, 0},
	{"randomize_tensor", K_IGNORE, 0}, {"ksm", K_IGNORE, 0},
	{NULL, K_IGNORE, 0},
};

static const struct key metric_keys[] = {
	{"au", K_AU, W(au_threshold)},
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

static const struct key transformer_keys[] = {
	{"vocab_size", K_COUNT, T(vocab)},
	{"hidden_size", K_COUNT, T(hidden)},
	{"ffn_hidden_size", K_COUNT, T(ffn_hidden)},
	{"num_attention_heads", K_COUNT, T(heads)},
	{"num_kv_heads", K_COUNT, T(kv_heads)},
	{NULL, K_IGNORE, 0},
};

/* Sections whose contents feedscope does not look at. */
static const char *const ignored_sections[] = {"evaluation", "output", "profiling", "storage", "hydra",
					       "defaults", NULL};

struct yctx {
	yaml_document_t doc;
	const char *path;
	char *why;
	size_t whylen;
	struct fs_workload *w;
	struct fs_wl_transformer tr;
	bool transformer;       /* the model is described as a transformer */
	bool model_size;        /* a model size in bytes was given */
	bool stdev_given;
	double stdev_s;
	char section[32];
};

static int fail(struct yctx *c, yaml_node_t *n, const char *key, const char *fmt, const char *value)
{
	int k = snprintf(c->why, c->whylen, "%s:%lu: %s%s%s: ", c->path, (unsigned long)n->start_mark.line + 1,
			 c->section, key ? "." : "", key ? key : "");
	if (k > 0 && (size_t)k < c->whylen)
		snprintf(c->why + k, c->whylen - k, fmt, value);
	return -1;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A finite number, the whole string. */
static bool number(const char *s, double *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	while (*end == ' ')
		end++;
	if (*end || errno || !isfinite(x))
		return false;
	*out = x;
	return true;
}

static bool boolean(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", NULL}, *const no[] = {"false", "no", "off", "0", NULL};
	for (int i = 0; s && yes[i]; i++)
		if (!strcasecmp(s, yes[i]))
			return *out = true, true;
	for (int i = 0; s && no[i]; i++)
		if (!strcasecmp(s, no[i]))
			return *out = false, true;
	return false;
}

static int dtype_bytes(const char *s)
{
	static const struct { const char *n; int b; } t[] = {
		{"fp16", 2}, {"bf16", 2}, {"fp32", 4}, {"fp64", 8}, {"int8", 1}, {"uint8", 1},
	};
	for (size_t i = 0; s && i < sizeof t / sizeof t[0]; i++)
		if (!strcasecmp(s, t[i].n))
			return t[i].b;
	return 0;
}

static int parse_map(struct yctx *c, yaml_node_t *map, const struct key *keys, void *base);

/* computation_time: a number of seconds, or {mean, stdev[, type: normal]}. */
static int compute_value(struct yctx *c, yaml_node_t *v)
{
	struct fs_wl_compute *t = &c->w->compute[0];
	double x;
	c->w->ncompute = 1;
	t->accel[0] = 0;
	if (v->type == YAML_SCALAR_NODE) {
		if (!number(scalar(v), &x) || x < 0 || x > MAX_SECONDS)
			return fail(c, v, "computation_time", "'%s' is not a number of seconds from 0 to "
				    MAX_SECONDS_TEXT, scalar(v));
		t->mean_s = x;
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return fail(c, v, "computation_time", "%s", "expected seconds or {mean, stdev}");
	bool have_mean = false;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&c->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&c->doc, p->value);
		const char *k = scalar(kn) ? scalar(kn) : "?";
		if (!strcmp(k, "type")) {
			if (!scalar(vn) || strcmp(scalar(vn), "normal"))
				return fail(c, vn, "computation_time.type", "'%s' is not supported (only normal)",
					    scalar(vn) ? scalar(vn) : "?");
		} else if (!strcmp(k, "mean") || !strcmp(k, "stdev")) {
			if (!number(scalar(vn), &x) || x < 0 || x > MAX_SECONDS)
				return fail(c, vn, !strcmp(k, "mean") ? "computation_time.mean" : "computation_time.stdev",
					    "'%s' is not a number of seconds from 0 to " MAX_SECONDS_TEXT,
					    scalar(vn) ? scalar(vn) : "?");
			if (!strcmp(k, "mean"))
				t->mean_s = x, have_mean = true;
			else
				t->stdev_s = x;
		} else {
			fs_warn("bench: %s:%lu: unknown key '%s.computation_time.%s' (ignored)", c->path,
				(unsigned long)kn->start_mark.line + 1, c->section, k);
		}
	}
	if (!have_mean)
		return fail(c, v, "computation_time", "%s", "a mapping needs 'mean' (and optionally 'stdev')");
	return 0;
}

static int set_value(struct yctx *c, const struct key *k, yaml_node_t *v, void *base)
{
	char *p = (char *)base + k->off;
	const char *s = scalar(v);
	double x;
	bool b;
	switch (k->kind) {
	case K_IGNORE:
		return 0;
	case K_COMPUTE:
		return compute_value(c, v);
	case K_TRANSF:
		if (v->type != YAML_MAPPING_NODE)
			return fail(c, v, k->name, "%s", "expected a mapping");
		c->transformer = true;
		char saved[sizeof c->section];
		memcpy(saved, c->section, sizeof saved);
		snprintf(c->section, sizeof c->section, "model.transformer");
		int rc = parse_map(c, v, transformer_keys, &c->tr);
		memcpy(c->section, saved, sizeof saved);
		return rc;
	default:
		break;
	}
	if (!s)
		return fail(c, v, k->name, "%s", "expected a single value");
	switch (k->kind) {
	case K_STR:
		snprintf(p, k->off == W(name) ? sizeof c->w->name : sizeof c->w->data_loader, "%s", s);
		return 0;
	case K_COUNT:
	case K_COUNT0:
	case K_THREADS:
	case K_PREFETCH:
		if (!number(s, &x) || x != floor(x) || x < (k->kind == K_COUNT ? 1 : 0) || x > UINT32_MAX)
			return fail(c, v, k->name, k->kind == K_COUNT ? "'%s' is not a positive whole number"
								      : "'%s' is not a whole number >= 0", s);
		if (base == (void *)c->w) {
			if (k->kind == K_THREADS && x == 0)
				x = 1;
			if (k->kind == K_PREFETCH && x == 0)
				x = 2;
			*(uint32_t *)p = (uint32_t)x;
		} else {
			*(uint64_t *)p = (uint64_t)x;
		}
		return 0;
	case K_BYTES:
	case K_BYTES0:
	case K_MODELSZ:
		if (!number(s, &x) || x < (k->kind == K_BYTES0 ? 0 : 1) || x > 1e18)
			return fail(c, v, k->name, k->kind == K_BYTES0 ? "'%s' is not a number of bytes from 0 to 1e18"
								       : "'%s' is not a number of bytes from 1 to 1e18", s);
		if (k->kind == K_MODELSZ) {
			c->w->checkpoint_bytes = (uint64_t)llround(x);
			c->model_size = true;
		} else {
			*(uint64_t *)p = (uint64_t)llround(x);
		}
		return 0;
	case K_BOOL:
		if (!boolean(s, &b))
			return fail(c, v, k->name, "'%s' is not true or false", s);
		*(bool *)p = b;
		return 0;
	case K_SHUFFLE:
		if (!strcasecmp(s, "seed"))
			*(enum fs_wl_shuffle *)p = FS_SHUFFLE_SEED;
		else if (!strcasecmp(s, "random"))
			*(enum fs_wl_shuffle *)p = FS_SHUFFLE_RANDOM;
		else if (!strcasecmp(s, "off") || (boolean(s, &b) && !b))
			*(enum fs_wl_shuffle *)p = FS_SHUFFLE_OFF;
		else if (boolean(s, &b) && b)
			*(enum fs_wl_shuffle *)p = FS_SHUFFLE_SEED;
		else
			return fail(c, v, k->name, "'%s' is not off, seed or random", s);
		return 0;
	case K_FORMAT: {
		static const char *const formats[] = {"npz", "npy", "tfrecord", "tar", "jpeg", "raw", "indexed", NULL};
		for (int i = 0; formats[i]; i++)
			if (!strcasecmp(s, formats[i])) {
				snprintf(c->w->format, sizeof c->w->format, "%s", formats[i]);
				return 0;
			}
		return fail(c, v, k->name, "'%s' is not a format feedscope emulates (npz npy tfrecord tar jpeg raw indexed)", s);
	}
	case K_AU:
		if (!number(s, &x) || !(x > 0 && x <= 1))
			return fail(c, v, k->name, "'%s' is not a fraction in (0, 1]", s);
		c->w->au_threshold = x;
		return 0;
	case K_SEED: {
		char *end;
		errno = 0;
		unsigned long long u = strtoull(s, &end, 10);
		if (*s == '-' || *end || errno || end == s)
			return fail(c, v, k->name, "'%s' is not a whole number >= 0", s);
		c->w->seed = u;
		return 0;
	}
	case K_STEPS:
		if (!number(s, &x) || x != floor(x) || x > UINT32_MAX)
			return fail(c, v, k->name, "'%s' is not a whole number", s);
		c->w->total_training_steps = x <= 0 ? 0 : (uint32_t)x;
		return 0;
	case K_STDEV:
		if (!number(s, &x) || x < 0 || x > MAX_SECONDS)
			return fail(c, v, k->name, "'%s' is not a number of seconds from 0 to " MAX_SECONDS_TEXT, s);
		c->stdev_given = true;
		c->stdev_s = x;
		return 0;
	case K_DTYPE: {
		int n = dtype_bytes(s);
		if (!n)
			return fail(c, v, k->name, "'%s' is not a data type (fp16 bf16 fp32 fp64 int8 uint8)", s);
		*(uint64_t *)((char *)&c->tr + k->off) = (uint64_t)n;
		return 0;
	}
	case K_TLAYERS:
		if (!number(s, &x) || x != floor(x) || x < 1 || x > 1e6)
			return fail(c, v, k->name, "'%s' is not a positive whole number", s);
		c->tr.num_layers = (uint64_t)x;
		c->transformer = true;
		return 0;
	default:
		return 0;
	}
}

static int parse_map(struct yctx *c, yaml_node_t *map, const struct key *keys, void *base)
{
	if (map->type != YAML_MAPPING_NODE)
		return fail(c, map, NULL, "%s", "expected a mapping of keys");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&c->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&c->doc, p->value);
		const char *name = scalar(kn);
		const struct key *k = NULL;
		for (int i = 0; name && keys[i].name; i++)
			if (!strcmp(keys[i].name, name))
				k = &keys[i];
		if (!k) {
			fs_warn("bench: %s:%lu: unknown key '%s.%s' (ignored)", c->path,
				(unsigned long)kn->start_mark.line + 1, c->section, name ? name : "?");
			continue;
		}
		if (set_value(c, k, vn, base) != 0)
			return -1;
	}
	return 0;
}

static int parse_root(struct yctx *c, yaml_node_t *root)
{
	static const struct { const char *name; const struct key *keys; } sections[] = {
		{"dataset", dataset_keys}, {"reader", reader_keys}, {"train", train_keys},
		{"workflow", workflow_keys}, {"checkpoint", checkpoint_keys}, {"metric", metric_keys},
		{"model", model_keys},
	};
	if (!root || root->type != YAML_MAPPING_NODE) {
		snprintf(c->why, c->whylen, "%s: not a DLIO workload (expected a mapping of sections)", c->path);
		return -1;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&c->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&c->doc, p->value);
		const char *name = scalar(kn) ? scalar(kn) : "?";
		snprintf(c->section, sizeof c->section, "%s", name);
		if (!strcmp(name, "framework") || (!strcmp(name, "model") && vn->type == YAML_SCALAR_NODE)) {
			if (!scalar(vn) || !*scalar(vn))
				return fail(c, vn, NULL, "%s", "expected a name");
			if (name[0] == 'f')
				snprintf(c->w->framework, sizeof c->w->framework, "%s", scalar(vn));
			else
				snprintf(c->w->name, sizeof c->w->name, "%s", scalar(vn));
			continue;
		}
		bool done = false;
		for (size_t i = 0; i < sizeof sections / sizeof sections[0] && !done; i++)
			if (!strcmp(name, sections[i].name)) {
				if (parse_map(c, vn, sections[i].keys, c->w) != 0)
					return -1;
				done = true;
			}
		for (int i = 0; ignored_sections[i] && !done; i++)
			done = !strcmp(name, ignored_sections[i]);
		if (!done)
			fs_warn("bench: %s:%lu: unknown section '%s' (ignored)", c->path,
				(unsigned long)kn->start_mark.line + 1, name);
	}
	return 0;
}

/* The whole file (at most MAX_YAML_BYTES), NUL-terminated, in *text (the
 * caller frees it). 0, or -1 with why. */
static int read_text(const char *path, unsigned char **text, size_t *len, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(why, whylen, "--config %s: %s", path, strerror(errno));
		return -1;
	}
	unsigned char *buf = malloc(MAX_YAML_BYTES + 1);
	size_t n = buf ? fread(buf, 1, MAX_YAML_BYTES + 1, f) : 0;
	bool err = !buf || ferror(f);
	fclose(f);
	if (err || n > MAX_YAML_BYTES) {
		free(buf);
		snprintf(why, whylen, "--config %s: %s", path,
			 err ? "cannot read it" : "more than 1 MiB: not a DLIO workload file");
		return -1;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

/* One pass of libyaml's event API: refuse nesting deeper than MAX_DEPTH
 * before the document API builds a tree of it. 0, or -1 with why. */
static int check_depth(const char *path, const unsigned char *text, size_t len, char *why, size_t whylen)
{
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, text, len);
	int depth = 0, rc = 0;
	for (bool done = false; !done && rc == 0;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			snprintf(why, whylen, "%s:%lu: not valid YAML: %s", path, (unsigned long)p.problem_mark.line + 1,
				 p.problem ? p.problem : "parse error");
			rc = -1;
			break;
		}
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > MAX_DEPTH) {
				snprintf(why, whylen, "%s:%lu: nested deeper than %d levels: not a DLIO workload file",
					 path, (unsigned long)ev.start_mark.line + 1, MAX_DEPTH);
				rc = -1;
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return rc;
}

int fs_workload_load_yaml(const char *path, struct fs_workload *w, char *why, size_t whylen)
{
	unsigned char *text;
	size_t len;
	if (read_text(path, &text, &len, why, whylen) < 0)
		return -1;
	if (check_depth(path, text, len, why, whylen) < 0) {
		free(text);
		return -1;
	}
	fs_workload_defaults(w);
	struct yctx c = {.path = path, .why = why, .whylen = whylen, .w = w};
	/* DLIO's transformer defaults (config.rst) */
	c.tr = (struct fs_wl_transformer){.hidden = 2048, .ffn_hidden = 8196, .vocab = 32000, .heads = 32,
					  .kv_heads = 8, .model_dtype_bytes = 2, .optimizer_dtype_bytes = 4};
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, text, len);
	int rc = -1;
	if (!yaml_parser_load(&parser, &c.doc)) {
		snprintf(why, whylen, "%s:%lu: not valid YAML: %s", path, (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "parse error");
		yaml_parser_delete(&parser);
		free(text);
		return -1;
	}
	yaml_node_t *root = yaml_document_get_root_node(&c.doc);
	if (!root) {
		snprintf(why, whylen, "%s: empty file", path);
	} else if (parse_root(&c, root) == 0) {
		rc = 0;
		if (c.stdev_given && w->ncompute == 1)
			w->compute[0].stdev_s = c.stdev_s;
		if (!c.model_size && c.transformer && c.tr.num_layers > 0)
			w->checkpoint_bytes = fs_wl_transformer_checkpoint_bytes(&c.tr);
		if (!w->train)
			w->epochs = 0;
		if (w->checkpoint && !w->checkpoint_bytes) {
			snprintf(why, whylen, "%s: workflow.checkpoint is set but the model's size is not "
					      "(model.model_size, or model.num_layers and model.transformer)", path);
			rc = -1;
		}
		if (!w->train && !w->checkpoint) {
			snprintf(why, whylen, "%s: neither workflow.train nor workflow.checkpoint: nothing to do", path);
			rc = -1;
		}
	}
	yaml_document_delete(&c.doc);
	yaml_parser_delete(&parser);
	free(text);
	return rc;
}
