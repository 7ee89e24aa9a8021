/* html.c - the HTML report's document: the verdict on top (the accounting
 * as one stacked bar, the evidence, what to change), then each run file's
 * timelines (html_chart.c) and tables. Self-contained: one <style>, inline
 * SVG, one small script for hover; no URL anywhere, so it opens the same
 * from a laptop with no network. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/html.h"
#include "util/fmt.h"
#include "util/text.h"

void fs_html_entities(FILE *out, const char *s)
{
	for (const char *p = s; p && *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out);
		}
	}
}

void fs_html_escape(FILE *out, const char *s)
{
	if (!s)
		return;
	size_t cap = 4 * strlen(s) + 1; /* the visible escape's longest form: 4 bytes out per byte in */
	char stack[1024], *buf = cap <= sizeof stack ? stack : malloc(cap);
	if (!buf)
		return; /* out of memory: leave the text out rather than print it raw */
	fs_html_entities(out, fs_text_escape(buf, cap, s));
	if (buf != stack)
		free(buf);
}

static const char style[] =
	"<style>\n"
	"body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222;max-width:1400px}\n"
	"h1{font-size:20px;margin:0 0 4px}h2{font-size:18px;margin:24px 0 6px;border-bottom:1px solid #ccc}\n"
	"h3{font-size:15px;margin:14px 0 4px}h4{font-size:13px;margin:10px 0 2px;font-weight:600}\n"
	".meta{color:#555;margin:0}.verdict{font-size:22px;margin:10px 0 2px}.verdict b{color:#b00}\n"
	".warn{background:#fff3cd;padding:4px 8px;border-left:4px solid #e0a800}\n"
	"ul{margin:4px 0;padding-left:22px}li{margin:2px 0}.src{color:#777;font-size:12px}\n"
	".why{color:#555;font-size:13px}table{border-collapse:collapse;margin:4px 0 10px;font-size:13px}\n"
	"th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left}td.n{text-align:right}\n"
	"svg{display:block;width:100%;height:auto}svg.bar{max-width:1000px}\n"
	".bars text{font-size:12px;fill:#fff}.legend{font-size:12px;color:#333;margin:0 0 4px 5%}\n"
	".legend span{margin-right:14px;white-space:nowrap}.legend i{display:inline-block;width:10px;height:10px;"
	"margin-right:4px}\n"
	"path.line{fill:none;stroke-width:1.2;stroke-linejoin:round;stroke-linecap:round}\n"
	"path.area{stroke-width:0;fill-opacity:.75}\n"
	".xaxis line,.yaxis line{stroke:#ddd}.xaxis text{font-size:11px;fill:#555;text-anchor:middle}\n"
	".yaxis text{font-size:11px;fill:#555;text-anchor:end}text.none{font-size:13px;fill:#999;text-anchor:middle}\n"
	"rect.ckpt,.key.ckpt{fill:#f4a3a3;background:#f4a3a3;fill-opacity:.35}rect.epoch,.key.epoch{fill:#9ecae1;"
	"background:#9ecae1;fill-opacity:.5}\n"
	"rect.phase,.key.phase{fill:#c7e9c0;background:#c7e9c0;fill-opacity:.6}rect.vphase.even,.key.vphase{fill:#fdd0a2;"
	"background:#fdd0a2;fill-opacity:.35}rect.vphase.odd{fill:#bcbddc;fill-opacity:.35}line.estart{stroke:#3182bd;"
	"stroke-dasharray:3 2}\n"
	".key{display:inline-block;width:12px;height:10px;margin:0 3px 0 8px}.key.estart{border-left:2px dashed #3182bd;"
	"width:0}\n"
	"rect.strip{fill:#f4f4f4}svg[data-chart=phases] .spans rect{fill-opacity:.95}line.cursor{stroke:#000;stroke-width:1;visibility:hidden}\n"
	"#tip{position:fixed;display:none;background:#fff;border:1px solid #999;padding:4px 6px;font-size:12px;"
	"white-space:pre;pointer-events:none;box-shadow:1px 1px 4px #0003}\n"
	"</style>\n";

void fs_html_begin(FILE *out, const char *what, const char *detail, const char *more_style)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>feedscope %s: ", what);
	fs_html_escape(out, detail);
	fprintf(out, "</title>\n%s%s</head>\n<body>\n<h1>feedscope %s</h1>\n", style, more_style ? more_style : "", what);
}

/* Hover: the values of every series of the chart under the pointer at its
 * column (data-v), and a cursor at the same time on every chart. Text is
 * set through textContent only: labels come from the run file. Opened as
 * FILE.html#fs-hover-test it hovers the middle of the first timeline
 * with a series once loaded: the tests' way to move a pointer in a
 * headless browser. */
static const char script[] =
	"<script>\n"
	"(function(){\n"
	"var tip=document.getElementById('tip'),svgs=document.querySelectorAll('svg.timeline');\n"
	"function hide(){tip.style.display='none';\n"
	" document.querySelectorAll('line.cursor').forEach(function(l){l.style.visibility='hidden';});}\n"
	"function show(svg,e){\n"
	" var p=svg.createSVGPoint();p.x=e.clientX;p.y=e.clientY;\n"
	" var x=p.matrixTransform(svg.getScreenCTM().inverse()).x,left=+svg.dataset.left,\n"
	"  c=Math.floor(x-left),t0=+svg.dataset.t0,w=+svg.dataset.w;\n"
	" if(c<0||c>=+svg.dataset.cols){hide();return;}\n"
	" var lines=['t = '+(t0+c*w).toPrecision(6)+' – '+(t0+(c+1)*w).toPrecision(6)+' s'];\n"
	" svg.querySelectorAll('path.series').forEach(function(s){\n"
	"  if(!s.fsv)s.fsv=s.dataset.v.split(';');\n"
	"  var v=s.fsv[c]||'';\n"
	"  lines.push(s.dataset.label+': '+(v===''?'no sample':v.replace(',',' … ')+' '+svg.dataset.unit));});\n"
	" svg.querySelectorAll('.spans title').forEach(function(t){\n"
	"  var r=t.parentNode,a,b;\n"
	"  if(r.tagName==='line'){a=+r.getAttribute('x1');b=a+1;}\n"
	"  else{a=+r.getAttribute('x');b=a+(+r.getAttribute('width'));}\n"
	"  if(x>=a-.5&&x<=b+.5)lines.push(t.textContent);});\n"
	" tip.textContent=lines.join('\\n');tip.style.display='block';\n"
	" tip.style.left=Math.min(e.clientX+14,window.innerWidth-tip.offsetWidth-4)+'px';\n"
	" tip.style.top=(e.clientY+14)+'px';\n"
	" document.querySelectorAll('line.cursor').forEach(function(l){\n"
	"  l.setAttribute('x1',left+c+.5);l.setAttribute('x2',left+c+.5);l.style.visibility='visible';});}\n"
	"svgs.forEach(function(svg){svg.addEventListener('mousemove',function(e){show(svg,e);});\n"
	" svg.addEventListener('mouseleave',hide);});\n"
	"var h=[].find.call(svgs,function(s){return s.querySelector('path.series');});\n"
	"if(location.hash==='#fs-hover-test'&&h){var r=h.getBoundingClientRect();\n"
	" show(h,{clientX:r.left+r.width/2,clientY:r.top+r.height/2});}\n"
	"document.body.setAttribute('data-hover','ready');\n"
	"})();\n"
	"</script>\n";

/* A number for a sentence: "unknown" when it is not one (never nan). */
static const char *num(char *out, size_t cap, const char *fmt, double x)
{
	if (isfinite(x))
		snprintf(out, cap, fmt, x);
	else
		snprintf(out, cap, "unknown");
	return out;
}

static const char *const bucket_colour[FS_BUCKET__N] = {
	[FS_BUCKET_BUSY] = "#2ca02c", [FS_BUCKET_INPUT] = "#d62728", [FS_BUCKET_HOST_IO] = "#ff7f0e",
	[FS_BUCKET_RANKS] = "#9467bd", [FS_BUCKET_EPOCH] = "#1f77b4", [FS_BUCKET_OTHER] = "#999999",
};

/* The accounting (share: each bucket's, summing to 1) as one stacked bar,
 * width px wide (a viewBox: it scales), each bucket labelled where it is
 * wide enough and titled for hover. */
void fs_html_bucket_bar(FILE *out, const double share[FS_BUCKET__N], int width, int height)
{
	fprintf(out, "<svg class=\"bar bars\" viewBox=\"0 0 %d %d\">", width, height);
	double x = 0;
	for (int b = 0; b < FS_BUCKET__N; b++) {
		double w = share[b] * width;
		if (!(w > 0))
			continue;
		fprintf(out, "<rect class=\"bucket\" data-bucket=\"%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\""
			" fill=\"%s\"><title>%s %.1f%%</title></rect>", fs_bucket_name((enum fs_bucket)b), x, w, height,
			bucket_colour[b], fs_bucket_name((enum fs_bucket)b), 100 * share[b]);
		const char *name = fs_bucket_name((enum fs_bucket)b);
		if (w > 7.0 * (double)(strlen(name) + 5)) /* the label fits (about 7 px a character at 12 px) */
			fprintf(out, "<text x=\"%.1f\" y=\"%d\">%s %.0f%%</text>", x + 4, height / 2 + 4, name,
				100 * share[b]);
		x += w;
	}
	fputs("</svg>\n", out);
}

void fs_html_bucket_legend(FILE *out, const double share[FS_BUCKET__N])
{
	fputs("<div class=\"legend\" style=\"margin-left:0\">", out);
	for (int b = 0; b < FS_BUCKET__N; b++) {
		fprintf(out, "<span><i style=\"background:%s\"></i>%s", bucket_colour[b], fs_bucket_name((enum fs_bucket)b));
		if (share)
			fprintf(out, " %.1f%%", 100 * share[b]);
		fputs("</span>", out);
	}
	fputs("</div>\n", out);
}

static void verdict_head(FILE *out, const struct fs_merged *g)
{
	const struct fs_verdict *v = &g->v;
	char a[64], b[64];
	fprintf(out, "<p class=\"verdict\">verdict: <b id=\"primary\">%s</b>", fs_verdict_name(v->primary));
	if (isfinite(v->input_bound_fraction))
		fprintf(out, " — %.0f%% of the time waiting for data", 100 * v->input_bound_fraction);
	fputs("</p>\n<p class=\"meta\">confidence ", out);
	fprintf(out, "%s (from ", num(a, sizeof a, "%.2f", v->confidence));
	fs_html_escape(out, v->basis);
	fputs(")", out);
	if (isfinite(v->predicted_speedup)) {
		fprintf(out, " · predicted speedup if fixed: %sx", num(b, sizeof b, "%.2f", v->predicted_speedup));
		if (v->speedup_cap[0]) {
			fputs(" — ", out);
			fs_html_escape(out, v->speedup_cap);
		}
	} else if (v->speedup_cap[0]) {
		fputs(" · predicted speedup if fixed: ", out);
		fs_html_escape(out, v->speedup_cap);
	}
	if (v->runner_up[0]) {
		fputs(" · runner-up: ", out);
		fs_html_escape(out, v->runner_up);
		fprintf(out, " (%.0f%%)", 100 * v->runner_up_share);
	}
	fputs("</p>\n", out);
	if (v->nphases > 1) { /* the verdict changed during the run (docs/verdicts.md "Phases") */
		fputs("<ul id=\"phases\" class=\"meta\">", out);
		for (int k = 0; k < v->nphases; k++) {
			const struct fs_phase *p = &v->phase[k];
			fprintf(out, "<li data-primary=\"%s\">", fs_verdict_name(p->primary));
			if (p->first_epoch >= 0)
				fprintf(out, "epochs %ld–%ld", p->first_epoch, p->last_epoch);
			fprintf(out, " (%s s – %s s): <b>%s</b>, input-bound %s%%%s</li>", num(a, sizeof a, "%.0f", p->start_s),
				num(b, sizeof b, "%.0f", p->end_s), fs_verdict_name(p->primary),
				num((char[64]){0}, 64, "%.0f", 100 * p->input_bound_fraction), k == v->steady ? " (steady state)" : "");
		}
		fputs("</ul>\n", out);
	}
	if (g->m.incomplete)
		fprintf(out, "<p class=\"warn\">incomplete: the recording stopped at %s without an end record (the recorder"
			     " was killed, or is still recording); this covers what was recorded</p>\n",
			isfinite(g->m.recorded_until_s) ? fs_fmt_time(a, sizeof a, g->m.recorded_until_s) : "t unknown");
}

static void accounting(FILE *out, const struct fs_merged *g)
{
	const struct fs_accounting *A = fs_verdict_trainer(&g->v);
	fputs("<h3>Where the accelerator's time went</h3>\n", out);
	if (!A || !A->valid) {
		fputs("<p class=\"meta\">unknown: neither steps nor an accelerator signal were recorded</p>\n", out);
		return;
	}
	char loop[32];
	fprintf(out, "<p class=\"meta\">the loop of pid %d", A->pid);
	if (A->rank >= 0)
		fprintf(out, " (rank %d)", A->rank);
	fprintf(out, ", %s, from ", fs_fmt_time(loop, sizeof loop, A->loop_s));
	fs_html_escape(out, A->basis);
	if (g->v.trainer_why[0]) {
		fputs("; the one that ", out);
		fs_html_escape(out, g->v.trainer_why);
	}
	fputs("</p>\n", out);
	fs_html_bucket_bar(out, A->share, 1000, 34);
	fs_html_bucket_legend(out, A->share);
}

static void evidence(FILE *out, const struct fs_verdict *v)
{
	if (!v->nev)
		return;
	fputs("<h3>Evidence</h3>\n<ul id=\"evidence\">\n", out);
	for (int i = 0; i < v->nev; i++) {
		fputs("<li>", out);
		fs_html_escape(out, v->ev[i].text);
		fputs(" <span class=\"src\">[", out);
		fs_html_escape(out, v->ev[i].source);
		fputs("]</span></li>\n", out);
	}
	fputs("</ul>\n", out);
}

static void recommendations(FILE *out, const struct fs_verdict *v)
{
	if (!v->nrec)
		return;
	fputs("<h3>What to change</h3>\n<ul id=\"recommendations\">\n", out);
	for (int i = 0; i < v->nrec; i++) {
		const struct fs_recommendation *r = &v->rec[i];
		fputs("<li><b>", out);
		fs_html_escape(out, r->knob);
		fputs("</b>: ", out);
		fs_html_escape(out, r->current);
		fputs(" → ", out);
		fs_html_escape(out, r->suggested);
		if (r->why[0]) {
			fputs("<br><span class=\"why\">", out);
			fs_html_escape(out, r->why);
			fputs("</span>", out);
		}
		if (r->relieves[0]) {
			fputs("<br><span class=\"why\">relieves: ", out);
			fs_html_escape(out, r->relieves);
			fputs("</span>", out);
		}
		if (isfinite(r->speedup)) {
			char a[32];
			fprintf(out, "<br><span class=\"why\">predicted: <b class=\"rec-speedup\">%sx</b> with ",
				num(a, sizeof a, "%.2f", r->speedup));
			fs_html_escape(out, r->change);
			fputs(", then ", out);
			fs_html_escape(out, r->then);
			fputs("</span>", out);
		}
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* Secondary findings and the signals the verdict lacked. */
static void also(FILE *out, const struct fs_verdict *v)
{
	bool any = false;
	for (int i = 0; i < v->nfind; i++) {
		const struct fs_finding *f = &v->find[i];
		if (f->id == v->primary)
			continue;
		fputs(any ? ", " : "<p class=\"meta\">also: ", out);
		any = true;
		fputs(fs_verdict_name(f->id), out);
		if (isfinite(f->fraction_of_time))
			fprintf(out, " (%.0f%% of the time)", 100 * f->fraction_of_time);
	}
	if (any)
		fputs("</p>\n", out);
	if (!v->nmissing)
		return;
	fputs("<h3>Signals missing</h3>\n<ul>\n", out);
	for (int i = 0; i < v->nmissing; i++) {
		fputs("<li>", out);
		fs_html_escape(out, v->missing[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static void rank_cell(FILE *out, int rank)
{
	if (rank >= 0)
		fprintf(out, "<td class=\"n\">%d</td>", rank);
	else
		fputs("<td class=\"n\">-</td>", out);
}

/* Every training process (rank) of every file, each with its bar. */
static void ranks_table(FILE *out, const struct fs_merged *g)
{
	if (g->nranks < 2)
		return;
	int order[FS_MERGE_MAX_RANKS];
	fs_merge_rank_order(g, order);
	fputs("<h3>Processes / ranks</h3>\n<table id=\"ranks\"><tr><th></th><th>rank</th><th>node</th><th>pid</th>"
	      "<th>loop</th><th>steps</th><th style=\"width:420px\">buckets</th><th>lost waiting</th></tr>\n", out);
	for (int i = 0; i < g->nranks; i++) {
		const struct fs_merge_rank *R = &g->ranks[order[i]];
		char loop[32], lost[32];
		fprintf(out, "<tr><td>%s</td>", order[i] == g->straggler ? "straggler" : "");
		rank_cell(out, R->rank);
		fputs("<td>", out);
		fs_html_escape(out, g->nodes[R->file].name);
		fprintf(out, "</td><td class=\"n\">%d</td><td class=\"n\">%s</td><td class=\"n\">%ld</td><td>", R->pid,
			fs_fmt_time(loop, sizeof loop, R->a.loop_s), R->steps);
		if (R->a.valid)
			fs_html_bucket_bar(out, R->a.share, 420, 16);
		else
			fputs("no steps and no accelerator signal", out);
		fprintf(out, "</td><td class=\"n\">%s</td></tr>\n", fs_fmt_time(lost, sizeof lost, R->lost_waiting_s));
	}
	fputs("</table>\n", out);
}

static void nodes_table(FILE *out, const struct fs_merged *g)
{
	if (g->nfiles < 2)
		return;
	fputs("<h3>Nodes</h3>\n<table id=\"nodes\"><tr><th>node</th><th>ranks</th><th>its verdict</th><th>input wait</th>"
	      "<th>GPU busy</th><th>clock shift</th><th>file</th></tr>\n", out);
	for (int i = 0; i < g->nfiles; i++) {
		const struct fs_merge_node *N = &g->nodes[i];
		char w[32], b[32], c[32];
		fputs("<tr><td>", out);
		fs_html_escape(out, N->name);
		fprintf(out, "</td><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			     "<td class=\"n\">%s</td><td>", N->ranks, fs_verdict_name(N->verdict),
			num(w, sizeof w, "%.0f%%", 100 * N->input_wait_share), num(b, sizeof b, "%.0f%%", 100 * N->gpu_busy),
			fs_fmt_time(c, sizeof c, N->offset_s - N->correction_s));
		fs_html_escape(out, N->path);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* A table of a node: a header, then the loaded rows (cells escaped;
 * numeric columns right-aligned where numeric[i]). */
static void table(FILE *out, const char *id, const char *title, const char *const head[6], const bool numeric[6],
		  const struct fs_html_table *t)
{
	fprintf(out, "<h4>%s</h4>\n", title);
	if (!t->nrows) {
		fputs("<p class=\"meta\">none recorded</p>\n", out);
		return;
	}
	fprintf(out, "<table class=\"%s\"><tr>", id);
	for (int i = 0; i < 6 && head[i]; i++)
		fprintf(out, "<th>%s</th>", head[i]);
	fputs("</tr>\n", out);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr>", out);
		for (int i = 0; i < 6 && head[i]; i++) {
			fputs(numeric[i] ? "<td class=\"n\">" : "<td>", out);
			fs_html_escape(out, t->row[r].cell[i]);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void node_tables(FILE *out, const struct fs_html_node *n)
{
	static const char *const files_head[6] = {"file", "I/O time", "bytes", "opens", "reads + writes", NULL};
	static const bool files_num[6] = {false, true, true, true, true, false};
	static const char *const procs_head[6] = {"pid", "ppid", "role", "comm", "mean CPU (% of a core)", "threads (max)"};
	static const bool procs_num[6] = {true, true, false, false, true, true};
	static const char *const knobs_head[6] = {"loader.NAME.KNOB", "value", NULL};
	static const bool knobs_num[6] = {false};
	fputs("<h3>Tables</h3>\n", out);
	table(out, "files-time", "Top files by I/O time (the tracer's files table, whole run)", files_head, files_num,
	      &n->files_by_time);
	table(out, "files-bytes", "Top files by bytes", files_head, files_num, &n->files_by_bytes);
	table(out, "procs", "The job's processes (busiest first)", procs_head, procs_num, &n->procs);
	table(out, "knobs", "Loader knobs (meta loader.*)", knobs_head, knobs_num, &n->knobs);
}

static void node_head(FILE *out, const struct fs_html_node *n, bool several)
{
	char d[32], when[64] = "start unknown";
	if (several) {
		fputs("<h2>Node ", out);
		fs_html_escape(out, n->name);
		fputs("</h2>\n", out);
	} else {
		fputs("<h2>Timelines</h2>\n", out);
	}
	if (isfinite(n->start_unix)) {
		time_t s = (time_t)n->start_unix;
		struct tm tm;
		if (gmtime_r(&s, &tm))
			strftime(when, sizeof when, "started %Y-%m-%d %H:%M:%S UTC", &tm);
	}
	fputs("<p class=\"meta\">", out);
	fs_html_escape(out, n->command[0] ? n->command : "(command unknown)");
	fputs(" · ", out);
	fs_html_escape(out, n->host[0] ? n->host : "(host unknown)");
	fprintf(out, " · %s · recorded %s", when, isfinite(n->duration_s) ? fs_fmt_time(d, sizeof d, n->duration_s) : "(unknown)");
	if (isfinite(n->interval_s))
		fprintf(out, " every %s", fs_fmt_time(d, sizeof d, n->interval_s));
	if (n->resolution)
		fprintf(out, " · timelines %s", n->resolution);
	fputs(" · ", out);
	fs_html_escape(out, n->path);
	if (several)
		fprintf(out, " · its t = 0 is at %.3f s on the shared axis", n->shift_s);
	fputs("</p>\n", out);
}

void fs_html_render(FILE *out, const struct fs_merged *g, const struct fs_html_report *r)
{
	fs_html_begin(out, "report", fs_verdict_name(g->v.primary), NULL);
	fprintf(out, "<p class=\"meta\">%d run file%s, %d training process%s; times are seconds since %s</p>\n", g->nfiles,
		g->nfiles > 1 ? "s" : "", g->nranks, g->nranks == 1 ? "" : "es",
		g->nfiles > 1 ? "the earliest file's start" : "the run's start");
	fputs("<section id=\"summary\">\n", out);
	verdict_head(out, g);
	accounting(out, g);
	evidence(out, &g->v);
	recommendations(out, &g->v);
	also(out, &g->v);
	nodes_table(out, g);
	ranks_table(out, g);
	fputs("</section>\n", out);
	for (int i = 0; i < r->nnodes; i++) {
		fprintf(out, "<section class=\"node\" id=\"node%d\">\n", i);
		node_head(out, &r->node[i], r->nnodes > 1);
		fs_html_timelines(out, r, &r->node[i]);
		node_tables(out, &r->node[i]);
		fputs("</section>\n", out);
	}
	fprintf(out, "<div id=\"tip\"></div>\n%s</body></html>\n", script);
}
