/* html_chart.c - the timelines of the HTML report as inline SVG: one
 * chart per signal, all on one time axis (merged seconds), the phases
 * shaded behind every chart. Each column of the plot is one pixel of the
 * viewBox and one column of the downsampled series (html.h): a series is a
 * path that spans, in each column, its least to its largest sample. The
 * numbers behind the path are in its data-v attribute for the hover
 * script (html.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/html.h"

/* The viewBox: plot area LEFT..LEFT+FS_HTML_COLUMNS by TOP..TOP+PLOT_H. */
enum { LEFT = 84, RIGHT = 16, TOP = 8, PLOT_H = 110, BOTTOM = 22 };
#define VIEW_W (LEFT + FS_HTML_COLUMNS + RIGHT)
#define VIEW_H (TOP + PLOT_H + BOTTOM)

struct chart_def {
	const char *id, *title, *unit;
	double ymax;   /* fixed top of the y axis (percent), 0: from the data */
	bool stacked;
	const char *line; /* of a stacked chart, the series drawn as a line over the stack */
};

static const struct chart_def defs[FS_HC__N] = {
	[FS_HC_GPU] = {"gpu", "Accelerator busy per GPU", "%", 100, false, NULL},
	[FS_HC_WAIT] = {"wait", "Data wait per step (min–max per column)", "ms", 0, false, NULL},
	[FS_HC_THREADS] = {"threads", "Loader threads by state (stacked, mean per column)", "threads", 0, true, NULL},
	[FS_HC_CPU] = {"cpu", "CPU busy and iowait (all cores)", "%", 100, false, NULL},
	[FS_HC_PSI] = {"psi", "Pressure stall (PSI)", "%", 100, false, NULL},
	[FS_HC_DISK_MB] = {"disk", "Disk throughput per device", "MB/s", 0, false, NULL},
	[FS_HC_DISK_UTIL] = {"util", "Disk utilisation per device", "%", 100, false, NULL},
	[FS_HC_NET] = {"net", "Network per interface", "MB/s", 0, false, NULL},
	[FS_HC_MEM] = {"mem", "Memory and page cache", "GiB", 0, false, NULL},
	[FS_HC_JOBMEM] = {"jobmem", "The job's memory (PSS stacked by part, mean per column; /dev/shm used, min–max)", "MiB", 0,
			  true, FS_HTML_SHM_LABEL},
};

/* Whether series s of a chart d is one of its stack. */
static bool in_stack(const struct chart_def *d, const struct fs_html_series *s)
{
	return d->stacked && !(d->line && !strcmp(s->label, d->line));
}

/* Eight colours that stay apart on white, then around again. */
static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define COLOUR(i) palette[(i) % (int)(sizeof palette / sizeof *palette)]

/* 1, 2, 2.5 or 5 times a power of ten, at least x: an axis top. */
static double nice_ceil(double x)
{
	if (!(x > 0))
		return 1;
	double p = pow(10, floor(log10(x)));
	static const double steps[] = {1, 2, 2.5, 5, 10};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
		if (steps[i] * p >= x * (1 - 1e-9))
			return steps[i] * p;
	return 10 * p;
}

/* The top of c's y axis: fixed for percentages, else the largest value
 * (of a stack: the largest total, or a line over it) rounded up. */
static double y_top(const struct fs_html_chart *c, const struct chart_def *d)
{
	if (d->ymax > 0)
		return d->ymax;
	double top = 0;
	for (int col = 0; col < FS_HTML_COLUMNS; col++) {
		double sum = 0;
		for (int i = 0; i < c->nseries; i++) /* the stack's total */
			if (in_stack(d, &c->s[i]) && isfinite(c->s[i].hi[col]))
				sum += c->s[i].hi[col];
		for (int i = 0; i < c->nseries; i++) /* the lines, over it */
			if (!in_stack(d, &c->s[i]) && isfinite(c->s[i].hi[col]))
				sum = fmax(sum, c->s[i].hi[col]);
		top = fmax(top, sum);
	}
	return nice_ceil(top);
}

static double y_of(double v, double top)
{
	double f = v / top;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return TOP + PLOT_H * (1 - f);
}

/* A series' samples land in every k-th column when the run has fewer
 * samples than columns (or a signal is sampled once a second): points
 * that far apart are joined. A gap beyond four times the usual one is a
 * real gap (nothing was recorded) and breaks the line. */
static int join_gap(const float *v)
{
	int gaps[FS_HTML_COLUMNS], n = 0, prev = -1;
	for (int c = 0; c < FS_HTML_COLUMNS; c++)
		if (!isnan(v[c])) {
			if (prev >= 0)
				gaps[n++] = c - prev;
			prev = c;
		}
	if (n == 0)
		return 1;
	/* the usual gap: the smallest one that at least half the gaps reach or stay under */
	int count[FS_HTML_COLUMNS + 1] = {0};
	for (int i = 0; i < n; i++)
		count[gaps[i]]++;
	int median = 1;
	for (int g = 1, seen = 0; g <= FS_HTML_COLUMNS; g++)
		if ((seen += count[g]) * 2 >= n) {
			median = g;
			break;
		}
	return 4 * median + 1;
}

/* "lo,hi" per column (one number when they are equal), ";" between
 * columns, nothing for a column without a sample. */
static void values_attr(FILE *out, const struct fs_html_series *s)
{
	fputs(" data-v=\"", out);
	for (int c = 0; c < FS_HTML_COLUMNS; c++) {
		if (c)
			fputc(';', out);
		if (isnan(s->hi[c]))
			continue;
		if (s->lo[c] == s->hi[c])
			fprintf(out, "%.4g", s->hi[c]);
		else
			fprintf(out, "%.4g,%.4g", s->lo[c], s->hi[c]);
	}
	fputc('"', out);
}

static void series_open(FILE *out, const struct fs_html_series *s, int i, const char *kind)
{
	fprintf(out, "<path class=\"series %s\" data-label=\"", kind);
	fs_html_escape(out, s->label);
	fprintf(out, "\" data-points=\"%ld\" stroke=\"%s\"", s->points, COLOUR(i));
	values_attr(out, s);
}

/* A line series: in each column from its largest to its least value. */
static void line_series(FILE *out, const struct fs_html_series *s, int i, double top)
{
	series_open(out, s, i, "line");
	fputs(" d=\"", out);
	int gap = join_gap(s->hi), prev = -1 - gap;
	for (int c = 0; c < FS_HTML_COLUMNS; c++) {
		if (isnan(s->hi[c]))
			continue;
		double x = LEFT + c + 0.5, hi = y_of(s->hi[c], top), lo = y_of(s->lo[c], top);
		fprintf(out, "%c%.1f,%.1f", c - prev > gap ? 'M' : 'L', x, hi);
		if (c - prev > gap || lo != hi)
			fprintf(out, "V%.1f", lo); /* a lone point still draws (a zero-length segment with round caps) */
		prev = c;
	}
	fputs("\"/>\n", out);
}

/* A stacked series: the band between the ones below it and itself, each
 * stretch of columns with samples one closed shape. */
static void stacked_series(FILE *out, const struct chart_def *d, const struct fs_html_chart *ch, int i, double top)
{
	const struct fs_html_series *s = &ch->s[i];
	double base[FS_HTML_COLUMNS];
	for (int c = 0; c < FS_HTML_COLUMNS; c++) {
		base[c] = 0;
		for (int j = 0; j < i; j++)
			base[c] += isnan(ch->s[j].hi[c]) || !in_stack(d, &ch->s[j]) ? 0 : ch->s[j].hi[c];
	}
	series_open(out, s, i, "area");
	fprintf(out, " fill=\"%s\" d=\"", COLOUR(i));
	int gap = join_gap(s->hi);
	for (int c = 0; c < FS_HTML_COLUMNS;) {
		if (isnan(s->hi[c])) {
			c++;
			continue;
		}
		int cols[FS_HTML_COLUMNS], n = 0;
		for (int prev = c; c < FS_HTML_COLUMNS && c - prev <= gap; c++)
			if (!isnan(s->hi[c]))
				cols[n++] = prev = c;
		for (int k = 0; k < n; k++) /* along the top, then back along the base */
			fprintf(out, "%c%.1f,%.1f", k ? 'L' : 'M', LEFT + cols[k] + 0.5, y_of(base[cols[k]] + s->hi[cols[k]], top));
		for (int k = n - 1; k >= 0; k--)
			fprintf(out, "L%.1f,%.1f", LEFT + cols[k] + 0.5, y_of(base[cols[k]], top));
		fputc('Z', out);
	}
	fputs("\"/>\n", out);
}

static double x_of(const struct fs_html_report *r, double t)
{
	double f = (t - r->t0) / (r->t1 - r->t0);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return LEFT + f * FS_HTML_COLUMNS;
}

static const char *const span_class[FS_HS__N] = {
	[FS_HS_CHECKPOINT] = "ckpt", [FS_HS_EPOCH_END] = "epoch", [FS_HS_EPOCH_START] = "estart", [FS_HS_OTHER] = "phase",
	[FS_HS_VERDICT] = "vphase",
};

/* The phases behind a chart: bands (at least a pixel wide), epoch starts
 * as lines. With titles only where asked (the phases strip): in every
 * chart they would multiply the file's size for no new information. */
static void spans(FILE *out, const struct fs_html_report *r, const struct fs_html_node *n, int y0, int h, bool titled)
{
	fputs("<g class=\"spans\">", out);
	int nv = 0; /* the verdict's phases first, behind the rest */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n->nspans; i++) {
			const struct fs_html_span *s = &n->span[i];
			if ((s->kind == FS_HS_VERDICT) != (pass == 0) || s->t1 < r->t0 || s->t0 > r->t1)
				continue;
			double a = x_of(r, s->t0), b = x_of(r, s->t1);
			if (s->kind == FS_HS_EPOCH_START)
				fprintf(out, "<line class=\"estart\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\">", a, a, y0, y0 + h);
			else
				fprintf(out, "<rect class=\"%s%s\" x=\"%.1f\" width=\"%.1f\" y=\"%d\" height=\"%d\">",
					span_class[s->kind], s->kind == FS_HS_VERDICT ? (nv++ % 2 ? " odd" : " even") : "", a,
					fmax(b - a, 1), y0, h);
			if (titled) {
				fputs("<title>", out);
				fs_html_escape(out, s->name);
				if (s->count > 1)
					fprintf(out, " ×%d", s->count);
				fprintf(out, ": %.3f s – %.3f s</title>", s->t0, s->t1);
			}
			fputs(s->kind == FS_HS_EPOCH_START ? "</line>" : "</rect>", out);
		}
	fputs("</g>\n", out);
}

/* The shared x axis: ticks at 1, 2 or 5 times a power of ten seconds. */
static void x_axis(FILE *out, const struct fs_html_report *r, int y)
{
	double step = nice_ceil((r->t1 - r->t0) / 8);
	if (step == 2.5 * pow(10, floor(log10(step))))
		step *= 2; /* 2.5 s ticks read badly */
	fprintf(out, "<g class=\"xaxis\"><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", LEFT, LEFT + FS_HTML_COLUMNS, y, y);
	for (double t = ceil(r->t0 / step) * step; t <= r->t1 + 1e-9 * step; t += step) {
		double x = x_of(r, t);
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\">%g s</text>", x, x,
			y, y + 4, x, y + 16, fabs(t) < 1e-9 * step ? 0 : t);
	}
	fputs("</g>\n", out);
}

static void y_axis(FILE *out, double top, const char *unit)
{
	fputs("<g class=\"yaxis\">", out);
	for (int k = 0; k <= 2; k++) {
		double y = y_of(top * k / 2, top);
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\">%g %s</text>", LEFT,
			LEFT + FS_HTML_COLUMNS, y, y, LEFT - 4, y + 4, top * k / 2, unit);
	}
	fputs("</g>\n", out);
}

static void legend(FILE *out, const struct fs_html_chart *c)
{
	fputs("<div class=\"legend\">", out);
	for (int i = 0; i < c->nseries; i++) {
		fprintf(out, "<span><i style=\"background:%s\"></i>", COLOUR(i));
		fs_html_escape(out, c->s[i].label);
		fputs("</span>", out);
	}
	fputs("</div>\n", out);
}

/* The svg element's attributes the hover script reads: the axis, the
 * width of a column in seconds, the unit. */
static void svg_open(FILE *out, const struct fs_html_report *r, const char *id, const char *unit, int h)
{
	fprintf(out,
		"<svg class=\"timeline\" data-chart=\"%s\" data-t0=\"%.6g\" data-w=\"%.6g\" data-left=\"%d\""
		" data-cols=\"%d\" data-unit=\"%s\" viewBox=\"0 0 %d %d\">\n",
		id, r->t0, (r->t1 - r->t0) / FS_HTML_COLUMNS, LEFT, FS_HTML_COLUMNS, unit, VIEW_W, h);
}

static void cursor(FILE *out, int h)
{
	fprintf(out, "<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"%d\" y2=\"%d\"/>\n", TOP, h);
}

static void chart(FILE *out, const struct fs_html_report *r, const struct fs_html_node *n, enum fs_html_chart_id id)
{
	const struct chart_def *d = &defs[id];
	const struct fs_html_chart *c = &n->chart[id];
	double top = y_top(c, d);
	fprintf(out, "<div class=\"chart\"><h4>%s", d->title);
	if (c->subject[0]) {
		fputs(": ", out);
		fs_html_escape(out, c->subject);
	}
	fputs("</h4>\n", out);
	svg_open(out, r, d->id, d->unit, VIEW_H);
	spans(out, r, n, TOP, PLOT_H, false);
	y_axis(out, top, d->unit);
	x_axis(out, r, TOP + PLOT_H);
	for (int i = 0; i < c->nseries; i++) {
		if (in_stack(d, &c->s[i]))
			stacked_series(out, d, c, i, top);
		else
			line_series(out, &c->s[i], i, top);
	}
	if (!c->nseries)
		fprintf(out, "<text class=\"none\" x=\"%d\" y=\"%d\">not recorded in this run file (or nothing moved)</text>\n",
			LEFT + FS_HTML_COLUMNS / 2, TOP + PLOT_H / 2);
	cursor(out, TOP + PLOT_H);
	fputs("</svg>\n", out);
	legend(out, c);
	fputs("</div>\n", out);
}

/* The phases strip on top of a node's charts: every span with its title. */
static void phases_strip(FILE *out, const struct fs_html_report *r, const struct fs_html_node *n)
{
	int h = TOP + 24 + BOTTOM;
	fputs("<div class=\"chart\"><h4>Phases: <span class=\"key ckpt\"></span>checkpoint <span class=\"key epoch\"></span>"
	      "epoch end <span class=\"key estart\"></span>epoch start <span class=\"key phase\"></span>other phases"
	      " <span class=\"key vphase\"></span>the verdict's phases, where it changed"
	      " (hover a band for its name and times)</h4>\n", out);
	svg_open(out, r, "phases", "", h);
	fprintf(out, "<rect class=\"strip\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"24\"/>\n", LEFT, TOP, FS_HTML_COLUMNS);
	spans(out, r, n, TOP, 24, true);
	x_axis(out, r, TOP + 24);
	cursor(out, TOP + 24);
	fputs("</svg></div>\n", out);
}

void fs_html_timelines(FILE *out, const struct fs_html_report *r, const struct fs_html_node *n)
{
	phases_strip(out, r, n);
	for (int id = 0; id < FS_HC__N; id++)
		chart(out, r, n, (enum fs_html_chart_id)id);
}
