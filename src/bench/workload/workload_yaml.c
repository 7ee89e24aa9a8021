/* workload_yaml.c - DLIO workload YAML files (the format of DLIO's and
 * MLPerf Storage's configs/workload/ YAML files), read with libyaml's
 * document API (after a pass of its event API that refuses nesting deeper
 * than MAX_DEPTH, so a file of 100 000 brackets is refused at once), and
 * the Hydra-style overrides (workload_override.c) read over it the same
 * way. The keys are workload_keys.c's tables: those feedscope emulates are
 * parsed and checked, DLIO keys that change nothing storage sees are
 * accepted silently, values DLIO allows but feedscope cannot emulate are
 * refused by name, anything else gets one warning. A bad value is an error
 * naming the key and the value. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "bench/format/gen_int.h"
#include "bench/workload/workload_int.h"
#include "bench/workload/workload_keys.h"
#include "util/log.h"

#define MAX_DEPTH 32                 /* DLIO's files nest 3 levels */
#define MAX_YAML_BYTES (1u << 20)    /* theirs are a few KiB */
#define MAX_SECONDS 86400.0          /* a day per training step: beyond is a typo */
#define MAX_SECONDS_TEXT "86400"

#define NONE FS_WL_NONE
#define W(f) offsetof(struct fs_workload, f)

struct yctx {
	yaml_document_t doc;
	const char *path;
	char *why;
	size_t whylen;
	struct fs_workload *w;
	struct fs_wl_transformer tr;
	bool transformer;       /* the model is described as a transformer */
	bool model_size;        /* a model size in bytes was given (or a preset's stands) */
	bool model_size_key;    /* ... by model_size / model_size_bytes itself */
	uint64_t model_bytes;   /* that size */
	bool stdev_given;
	double stdev_s;
	uint64_t elem_bytes;    /* record_element_bytes (or _type's); 0: not given */
	uint64_t dims_elems;    /* record_dims' product; 0: not given */
	bool no_lines;          /* an override: no line numbers */
	unsigned notused_warned; /* K_NOTUSED warnings given (bit off): one each */
	char section[48];
};

static int fail(struct yctx *c, yaml_node_t *n, const char *key, const char *fmt, const char *value)
{
	int k = c->no_lines ? snprintf(c->why, c->whylen, "%s: %s%s%s: ", c->path, c->section, key ? "." : "",
				       key ? key : "")
			    : snprintf(c->why, c->whylen, "%s:%lu: %s%s%s: ", c->path,
				       (unsigned long)n->start_mark.line + 1, c->section, key ? "." : "", key ? key : "");
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
		{"float16", 2}, {"float32", 4}, {"float64", 8}, {"int16", 2}, {"uint16", 2},
		{"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8}, {"bool", 1},
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
	char *p = k->off == NONE ? NULL : (char *)base + k->off; /* NONE: checked, stored nowhere */
	const char *s = scalar(v);
	double x;
	bool b;
	switch (k->kind) {
	case K_IGNORE:
		return 0;
	case K_COMPUTE:
		return compute_value(c, v);
	case K_TRANSF:
	case K_SUBMAP: {
		if (v->type != YAML_MAPPING_NODE)
			return fail(c, v, k->name, "%s", "expected a mapping");
		if (k->kind == K_TRANSF)
			c->transformer = true;
		char saved[sizeof c->section];
		memcpy(saved, c->section, sizeof saved);
		snprintf(c->section, sizeof c->section, "%.20s.%.20s", saved, k->name);
		int rc = k->kind == K_TRANSF ? parse_map(c, v, fs_wl_transformer_keys, &c->tr)
					     : parse_map(c, v, fs_wl_submaps[k->off], base);
		memcpy(c->section, saved, sizeof saved);
		return rc;
	}
	case K_DIMS:
	case K_SHAPE: {
		if (v->type != YAML_SEQUENCE_NODE)
			return fail(c, v, k->name, "%s", "expected a list of whole numbers, as [128, 128]");
		uint64_t prod = 1;
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *e = yaml_document_get_node(&c->doc, *it);
			if (!number(scalar(e), &x) || x != floor(x) || x < (k->kind == K_DIMS ? 1 : 0) || x > 1e12)
				return fail(c, e, k->name, k->kind == K_DIMS ? "'%s' is not a positive whole number"
									     : "'%s' is not a whole number >= 0",
					    scalar(e) ? scalar(e) : "(a list)");
			if (__builtin_mul_overflow(prod, (uint64_t)x, &prod) || prod > (uint64_t)1e18)
				return fail(c, e, k->name, "%s", "the dimensions' product is more than 1e18");
		}
		bool any = v->data.sequence.items.top > v->data.sequence.items.start;
		if (k->kind == K_DIMS)
			c->dims_elems = any ? prod : 0;
		else if (k->off != NONE) /* a flag: the list was given */
			*(bool *)((char *)base + k->off) = any;
		return 0;
	}
	default:
		break;
	}
	if (!s)
		return fail(c, v, k->name, "%s", "expected a single value");
	switch (k->kind) {
	case K_NOTUSED:
		/* said once rather than silently */
		if (!(c->notused_warned & 1u << k->off)) {
			c->notused_warned |= 1u << k->off;
			if (c->no_lines)
				fs_warn("bench: %s: %s.%s '%s' is not used: %s", c->path, c->section, k->name, s,
					fs_wl_notused[k->off]);
			else
				fs_warn("bench: %s:%lu: %s.%s '%s' is not used: %s", c->path,
					(unsigned long)v->start_mark.line + 1, c->section, k->name, s, fs_wl_notused[k->off]);
		}
		return 0;
	case K_U32:
		if (!number(s, &x) || x != floor(x) || x < 0 || x > UINT32_MAX)
			return fail(c, v, k->name, "'%s' is not a whole number >= 0", s);
		*(uint32_t *)p = (uint32_t)x;
		return 0;
	case K_I64:
		if (!number(s, &x) || x != floor(x) || x < -1 || x > 1e9)
			return fail(c, v, k->name, "'%s' is not a whole number from -1 (unset) to 1e9", s);
		*(int64_t *)p = (int64_t)x;
		return 0;
	case K_SECONDS:
		if (!number(s, &x) || x > MAX_SECONDS)
			return fail(c, v, k->name, "'%s' is not a number of seconds up to " MAX_SECONDS_TEXT, s);
		*(double *)p = x > 0 ? x : 0;
		return 0;
	case K_CHOICE:
		for (int i = 0; fs_wl_choices[k->off].ok[i]; i++)
			if (!strcasecmp(s, fs_wl_choices[k->off].ok[i]))
				return 0;
		return fail(c, v, k->name, fs_wl_choices[k->off].refusal, s);
	case K_ELEM:
		if (!number(s, &x) || x != floor(x) || x < 1 || x > 64)
			return fail(c, v, k->name, "'%s' is not a whole number of bytes from 1 to 64", s);
		c->elem_bytes = (uint64_t)x;
		return 0;
	case K_ETYPE: {
		int n = dtype_bytes(s);
		if (!n)
			return fail(c, v, k->name, "'%s' is not a NumPy element type feedscope knows (uint8 int8 uint16 "
				    "int16 float16 uint32 int32 float32 uint64 int64 float64, fp16 bf16 fp32 fp64)", s);
		if (k->off != NONE)
			c->elem_bytes = (uint64_t)n;
		return 0;
	}
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
		if (k->off == NONE) {
			return 0;
		} else if (base == (void *)c->w) {
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
			c->w->checkpoint_bytes = c->model_bytes = (uint64_t)llround(x);
			c->model_size = c->model_size_key = true;
		} else {
			*(uint64_t *)p = (uint64_t)llround(x);
		}
		return 0;
	case K_BOOL:
		if (!boolean(s, &b))
			return fail(c, v, k->name, "'%s' is not true or false", s);
		if (k->off != NONE)
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
		const struct fs_gen_format *f = fs_gen_format_find_dlio(s);
		if (f || !strcasecmp(s, "synthetic")) {
			snprintf(c->w->format, sizeof c->w->format, "%s", f ? f->name : "synthetic");
			return 0;
		}
		char msg[600];
		snprintf(msg, sizeof msg, "'%%s' is not a format feedscope emulates (%s synthetic; DLIO's other names: %s)",
			 fs_gen_format_names(), fs_gen_format_dlio_names());
		return fail(c, v, k->name, msg, s);
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
		*(uint32_t *)p = x <= 0 ? 0 : (uint32_t)x;
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
		/* 0: no layers, so no layer or optimizer state (DLIO's num_layers <= 0) */
		if (!number(s, &x) || x != floor(x) || x < 0 || x > 1e6)
			return fail(c, v, k->name, "'%s' is not a whole number from 0 to 1e6", s);
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
		for (const struct fs_wl_section *sec = fs_wl_sections; sec->name && !done; sec++)
			if (!strcmp(name, sec->name)) {
				if (parse_map(c, vn, sec->keys, c->w) != 0)
					return -1;
				done = true;
			}
		for (int i = 0; fs_wl_ignored_sections[i] && !done; i++)
			done = !strcmp(name, fs_wl_ignored_sections[i]);
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

/* What holds once every document is read: derived values, and the
 * combinations DLIO allows that feedscope cannot emulate. 0, or -1 with why. */
static int finish(struct yctx *c, const char *src)
{
	struct fs_workload *w = c->w;
	if (c->stdev_given && w->ncompute == 1)
		w->compute[0].stdev_s = c->stdev_s;
	/* DLIO writes model_size bytes as a model-state file of its own, and
	 * besides it the layers and the optimizer state of the transformer
	 * (when num_layers > 0): a checkpoint is the sum of both. A preset's
	 * size stands unless model_size is given with it. */
	if (c->transformer && c->tr.num_layers > 0 && (c->model_size_key || !c->model_size)) {
		uint64_t t = fs_wl_transformer_checkpoint_bytes(&c->tr), sum;
		if (__builtin_add_overflow(t, c->model_size_key ? c->model_bytes : 0, &sum))
			sum = UINT64_MAX; /* refused by the size check */
		w->checkpoint_bytes = sum;
		fs_wl_ckpt_keys(w, &c->tr, c->model_size_key ? c->model_bytes : 0);
	} else if (c->model_size_key) {
		fs_wl_ckpt_keys(w, NULL, c->model_bytes);
	}
	/* DLIO: record_dims win over record_length; an element is record_element_bytes */
	if (c->dims_elems)
		w->record_length_bytes = c->dims_elems * (c->elem_bytes ? c->elem_bytes : 1);
	if (!w->train)
		w->epochs = 0;
	if (w->checkpoint && !w->checkpoint_bytes) {
		snprintf(c->why, c->whylen, "%s: workflow.checkpoint is set but the model's size is not "
					    "(model.model_size, or model.num_layers and model.transformer)", src);
		return -1;
	}
	if (!w->train && !w->checkpoint && !w->generate_data) {
		snprintf(c->why, c->whylen, "%s: none of workflow.generate_data, workflow.train and workflow.checkpoint: "
					    "nothing to do", src);
		return -1;
	}
	if (!strcmp(w->format, "hdf5") && (w->num_dset_per_record > 1 || w->hdf5_chunked)) {
		snprintf(c->why, c->whylen, "%s: dataset.%s: feedscope writes each record as one row of one "
			 "contiguous HDF5 dataset (num_dset_per_record 1, no chunking)", src,
			 w->num_dset_per_record > 1 ? "hdf5.num_dset_per_record" : "hdf5.chunk_dims / enable_chunking");
		return -1;
	}
	if (!w->train && w->checkpoint && w->ckpt_num_read >= 0 &&
	    w->ckpt_num_read != (w->ckpt_num_write > 0 ? w->ckpt_num_write : 1)) {
		snprintf(c->why, c->whylen, "%s: checkpoint.num_checkpoints_read %lld: feedscope reads back every "
			 "checkpoint it writes (num_checkpoints_write %lld); give the same number or leave "
			 "num_checkpoints_read out", src, (long long)w->ckpt_num_read,
			 (long long)(w->ckpt_num_write > 0 ? w->ckpt_num_write : 1));
		return -1;
	}
	return 0;
}

/* Read the overrides' document over w with c (its path is the overrides). */
static int read_overrides(struct yctx *c, char *const *ov, int nov)
{
	if (nov <= 0)
		return 0;
	yaml_document_t saved = c->doc;
	const char *path = c->path;
	int rc = fs_wl_override_doc(ov, nov, &c->doc, c->why, c->whylen);
	if (rc == 0) {
		c->path = "command-line override";
		c->no_lines = true;
		rc = parse_root(c, yaml_document_get_root_node(&c->doc));
		c->no_lines = false;
		c->path = path;
	}
	yaml_document_delete(&c->doc);
	c->doc = saved;
	return rc;
}

static void ctx_init(struct yctx *c, const char *path, struct fs_workload *w, char *why, size_t whylen)
{
	memset(c, 0, sizeof *c);
	c->path = path;
	c->why = why;
	c->whylen = whylen;
	c->w = w;
	/* DLIO's transformer defaults (config.rst) */
	c->tr = (struct fs_wl_transformer){.hidden = 2048, .ffn_hidden = 8196, .vocab = 32000, .heads = 32,
					   .kv_heads = 8, .model_dtype_bytes = 2, .optimizer_dtype_bytes = 4};
}

int fs_workload_apply_overrides(char *const *ov, int nov, struct fs_workload *w, char *why, size_t whylen)
{
	struct yctx c;
	ctx_init(&c, w->name, w, why, whylen);
	c.model_size = w->checkpoint_bytes > 0; /* a preset's size stands unless overridden */
	if (read_overrides(&c, ov, nov) < 0)
		return -1;
	return finish(&c, w->name);
}

int fs_workload_load_yaml(const char *path, char *const *ov, int nov, struct fs_workload *w, char *why,
			  size_t whylen)
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
	struct yctx c;
	ctx_init(&c, path, w, why, whylen);
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
	if (!root)
		snprintf(why, whylen, "%s: empty file", path);
	else if (parse_root(&c, root) == 0 && read_overrides(&c, ov, nov) == 0)
		rc = finish(&c, path);
	yaml_document_delete(&c.doc);
	yaml_parser_delete(&parser);
	free(text);
	return rc;
}
