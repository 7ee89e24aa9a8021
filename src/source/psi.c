/* psi - /proc/pressure/{cpu,io,memory,irq}: the share of the interval in which
 * some (or all) runnable tasks were stalled on the resource, from the
 * cumulative `total=` microseconds. Table: psi. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/source.h"
#include "util/parse.h"
#include "util/pfile.h"

static const char *const resources[] = {"cpu", "io", "memory", "irq"};
#define NRES (sizeof resources / sizeof resources[0])

struct psi_totals {
	bool have_some, have_full;
	uint64_t some_us, full_us;
};

struct psi_state {
	struct fs_pfile files[NRES];
	bool present[NRES];
	bool have_prev[NRES];
	struct psi_totals prev[NRES];
	uint64_t prev_ns;
	struct fs_buf buf;
};

/* Parse "some ... total=N\nfull ... total=N". Returns false if neither line parses. */
static bool parse_psi(const char *text, struct psi_totals *out)
{
	memset(out, 0, sizeof *out);
	for (const char *line = text; line && *line;) {
		const char *tot = strstr(line, "total=");
		const char *eol = strchr(line, '\n');
		if (tot && (!eol || tot < eol)) {
			const char *p = tot + 6;
			uint64_t v;
			if (fs_scan_u64(&p, &v)) {
				if (strncmp(line, "some", 4) == 0) {
					out->some_us = v;
					out->have_some = true;
				} else if (strncmp(line, "full", 4) == 0) {
					out->full_us = v;
					out->have_full = true;
				}
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return out->have_some || out->have_full;
}

static double share_pct(bool have_a, uint64_t a, bool have_b, uint64_t b, double dt_us)
{
	if (!have_a || !have_b || dt_us <= 0)
		return NAN;
	double pct = 100.0 * (double)fs_counter_delta(a, b) / dt_us;
	return pct > 100.0 ? 100.0 : pct;
}

static int psi_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct psi_state *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	int found = 0, last_errno = ENOENT;
	for (size_t i = 0; i < NRES; i++) {
		char rel[64], path[512];
		snprintf(rel, sizeof rel, "pressure/%s", resources[i]);
		fs_pfile_init(&s->files[i], fs_proc_path(path, sizeof path, ctx->paths, rel));
		struct psi_totals t;
		if (fs_pfile_read(&s->files[i], &s->buf) >= 0 && parse_psi(s->buf.data, &t)) {
			s->present[i] = true;
			found++;
		} else if (errno != ENOENT) {
			last_errno = errno;
		}
	}
	if (!found) {
		char dir[512];
		snprintf(why, whylen, "no pressure stall information in %s (%s)",
			 fs_proc_path(dir, sizeof dir, ctx->paths, "pressure"),
			 last_errno == ENOENT ? "kernel without CONFIG_PSI, or psi=0"
					      : strerror(last_errno));
		for (size_t i = 0; i < NRES; i++)
			fs_pfile_close(&s->files[i]);
		fs_buf_free(&s->buf);
		free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	*state = s;
	return FS_SOURCE_OK;
}

static int psi_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct psi_state *s = state;
	double dt_us = (double)(ctx->now_ns - s->prev_ns) / 1e3;
	int failed = 0;
	for (size_t i = 0; i < NRES; i++) {
		if (!s->present[i])
			continue;
		struct psi_totals cur;
		if (fs_pfile_read_one(&s->files[i], &s->buf) < 0 || !parse_psi(s->buf.data, &cur)) {
			s->have_prev[i] = false;
			if (!failed++)
				snprintf(why, whylen, "cannot read %s", s->files[i].path);
			continue;
		}
		if (s->have_prev[i]) {
			const struct psi_totals *p = &s->prev[i];
			struct fs_row r;
			fs_row_init(&r, FS_T_PSI, ctx->t);
			fs_row_text(&r, FS_PSI_resource, resources[i]);
			fs_row_real(&r, FS_PSI_some_pct,
				    share_pct(p->have_some, p->some_us, cur.have_some, cur.some_us, dt_us));
			fs_row_real(&r, FS_PSI_full_pct,
				    share_pct(p->have_full, p->full_us, cur.have_full, cur.full_us, dt_us));
			fs_row_real(&r, FS_PSI_dt_s, dt_us / 1e6);
			fs_sink_row(ctx->sink, &r);
		}
		s->prev[i] = cur;
		s->have_prev[i] = true;
	}
	s->prev_ns = ctx->now_ns;
	return failed ? FS_SOURCE_UNAVAILABLE : FS_SOURCE_OK;
}

static void psi_close(void *state)
{
	struct psi_state *s = state;
	for (size_t i = 0; i < NRES; i++)
		fs_pfile_close(&s->files[i]);
	fs_buf_free(&s->buf);
	free(s);
}

const struct fs_source_ops fs_source_psi = {
	.abi = FS_SOURCE_ABI,
	.name = "psi",
	.machine = true,
	.open = psi_open,
	.sample = psi_sample,
	.close = psi_close,
};
