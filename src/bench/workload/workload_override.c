/* workload_override.c - Hydra-style overrides as DLIO takes them on its
 * command line (`++workload.dataset.num_files_train=64`): each one becomes
 * a path of nested mappings in one YAML document, which workload_yaml.c
 * then reads over the preset or the file with the same key tables, so an
 * override is checked exactly as the same key in a file would be. */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "bench/workload/workload_int.h"

#define MAX_PATH_DEPTH 4   /* workload.section.key[.subkey] */
#define MAX_VALUE_DEPTH 8  /* a value is a scalar or a short list */

bool fs_workload_is_override(const char *arg)
{
	while (*arg == '+')
		arg++;
	return !strncmp(arg, "workload.", 9) && strchr(arg, '=');
}

/* The value of key in mapping id, or 0. */
static int find_key(yaml_document_t *doc, int map, const char *key, size_t keylen)
{
	yaml_node_t *m = yaml_document_get_node(doc, map);
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == keylen &&
		    !memcmp(k->data.scalar.value, key, keylen))
			return p->value;
	}
	return 0;
}

/* Copy node id of src (and what it holds) into dst; the new id, or 0. */
static int copy_node(yaml_document_t *dst, yaml_document_t *src, int id, int depth)
{
	yaml_node_t *n = yaml_document_get_node(src, id);
	if (!n || depth > MAX_VALUE_DEPTH)
		return 0;
	if (n->type == YAML_SCALAR_NODE)
		return yaml_document_add_scalar(dst, NULL, n->data.scalar.value, (int)n->data.scalar.length,
						YAML_PLAIN_SCALAR_STYLE);
	if (n->type == YAML_SEQUENCE_NODE) {
		int seq = yaml_document_add_sequence(dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
		for (int k = 0; seq && k < n->data.sequence.items.top - n->data.sequence.items.start; k++) {
			/* n may move when src is not dst; it never does here (two documents) */
			int item = copy_node(dst, src, n->data.sequence.items.start[k], depth + 1);
			if (!item || !yaml_document_append_sequence_item(dst, seq, item))
				return 0;
		}
		return seq;
	}
	int map = yaml_document_add_mapping(dst, NULL, YAML_FLOW_MAPPING_STYLE);
	for (int k = 0; map && k < n->data.mapping.pairs.top - n->data.mapping.pairs.start; k++) {
		int key = copy_node(dst, src, n->data.mapping.pairs.start[k].key, depth + 1);
		int val = copy_node(dst, src, n->data.mapping.pairs.start[k].value, depth + 1);
		if (!key || !val || !yaml_document_append_mapping_pair(dst, map, key, val))
			return 0;
	}
	return map;
}

/* The value text parsed as YAML into dst; its id, or 0 with why. */
static int parse_value(yaml_document_t *dst, const char *ov, const char *text, char *why, size_t whylen)
{
	yaml_parser_t p;
	yaml_document_t v;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	int id = 0;
	if (!yaml_parser_load(&p, &v)) {
		snprintf(why, whylen, "override '%s': the value is not valid YAML: %s", ov,
			 p.problem ? p.problem : "parse error");
		yaml_parser_delete(&p);
		return 0;
	}
	if (!yaml_document_get_root_node(&v)) /* `key=`: an empty value */
		id = yaml_document_add_scalar(dst, NULL, (yaml_char_t *)"", 0, YAML_PLAIN_SCALAR_STYLE);
	else if (!(id = copy_node(dst, &v, 1, 0)))
		snprintf(why, whylen, "override '%s': the value is nested too deep", ov);
	yaml_document_delete(&v);
	yaml_parser_delete(&p);
	return id;
}

int fs_wl_override_doc(char *const *ov, int nov, yaml_document_t *doc, char *why, size_t whylen)
{
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	int root = yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE);
	for (int i = 0; i < nov; i++) {
		const char *s = ov[i];
		while (*s == '+')
			s++;
		const char *eq = strchr(s, '=');
		if (strncmp(s, "workload.", 9) || !eq || eq == s + 9) {
			snprintf(why, whylen, "override '%s' is not workload.SECTION.KEY=VALUE (as DLIO's "
				 "++workload.dataset.num_files_train=64)", ov[i]);
			return -1;
		}
		/* the path's parts, mappings created as needed; the last one gets the value */
		const char *part = s + 9;
		int map = root, depth = 0;
		while (part < eq) {
			size_t n = strcspn(part, ".=");
			if (n == 0 || ++depth > MAX_PATH_DEPTH) {
				snprintf(why, whylen, "override '%s': %s", ov[i],
					 n == 0 ? "an empty key" : "more than 4 levels of keys");
				return -1;
			}
			bool last = part + n == eq;
			int have = find_key(doc, map, part, n);
			if (last && have) {
				snprintf(why, whylen, "override '%s': the key is given twice", ov[i]);
				return -1;
			}
			if (!last && have && yaml_document_get_node(doc, have)->type != YAML_MAPPING_NODE) {
				snprintf(why, whylen, "override '%s': %.*s already has a value", ov[i], (int)n, part);
				return -1;
			}
			int next = have;
			if (!have) {
				int key = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)part, (int)n,
								   YAML_PLAIN_SCALAR_STYLE);
				next = last ? parse_value(doc, ov[i], eq + 1, why, whylen)
					    : yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE);
				if (!key || !next || !yaml_document_append_mapping_pair(doc, map, key, next)) {
					if (!next && last)
						return -1; /* why says it */
					snprintf(why, whylen, "out of memory");
					return -1;
				}
			}
			map = next;
			part += n + (part[n] == '.');
		}
	}
	return 0;
}
