/* saturation.c (render) - see saturation.h. */
#include "render/saturation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/load/saturation.h"
#include "analysis/thresholds.h"
#include "util/fmt.h"

bool fs_sat_shown(const struct fs_metrics *m, const struct fs_verdict *v)
{
	switch (v->primary) {
	case FS_VERDICT_STORAGE_BANDWIDTH:
	case FS_VERDICT_STORAGE_LATENCY:
	case FS_VERDICT_METADATA:
	case FS_VERDICT_MEMORY_PRESSURE:
		return m->sat.have;
	default:
		return false;
	}
}

static const char *weighed(const struct fs_saturation *s)
{
	return s->steps ? "the loop's input wait" : "the loaders' time blocked in I/O";
}

char *fs_sat_head(const struct fs_metrics *m, char *out, size_t cap)
{
	const struct fs_saturation *s = &m->sat;
	int n = snprintf(out, cap, "%s during %.0f%% of %s", fs_limit_name(s->named), 100 * s->share[s->named],
			 weighed(s));
	if (n >= 0 && (size_t)n < cap) {
		if (s->runner < FS_LIMIT__N)
			snprintf(out + n, cap - (size_t)n, "; runner-up: %s, %.0f%%", fs_limit_name(s->runner),
				 100 * s->share[s->runner]);
		else
			snprintf(out + n, cap - (size_t)n, "; runner-up: none known");
	}
	return out;
}

/* The probe's command line for the device's file system. */
static const char *probe_cmd(const struct fs_metrics *m, char *out, size_t cap)
{
	snprintf(out, cap, "feedscope probe --dir %s", m->sat.mount[0] ? m->sat.mount : "DIR-ON-THE-DEVICE");
	return out;
}

char *fs_sat_line(const struct fs_metrics *m, enum fs_limit l, char *out, size_t cap)
{
	const struct fs_saturation *s = &m->sat;
	char a[32], b[32], cmd[300];
	const char *dev = m->disk[0] ? m->disk : "the device";
	switch (l) {
	case FS_LIMIT_BYTES:
	case FS_LIMIT_IOPS:
	case FS_LIMIT_LATENCY:
		if (!isfinite(s->ceiling[l])) {
			snprintf(out, cap, "%-8s ceiling not known (%s%s): `%s` measures it", fs_limit_name(l),
				 l == FS_LIMIT_LATENCY ? "" : "no cgroup read limit, ", m->disk[0] ? "never probed" : "no device",
				 probe_cmd(m, cmd, sizeof cmd));
			break;
		}
		if (l == FS_LIMIT_BYTES)
			fs_fmt_rate(a, sizeof a, s->ceiling[l]);
		else if (l == FS_LIMIT_IOPS)
			fs_fmt_sig(a, sizeof a, s->ceiling[l], 3, " IO/s");
		else
			fs_fmt_time(a, sizeof a, s->ceiling[l]);
		int n = snprintf(out, cap, "%-8s %3.0f%% of the wait; ceiling %s%s from the %s; mean use %s of it",
				 fs_limit_name(l), 100 * s->share[l], a, l == FS_LIMIT_LATENCY ? " a read" : "",
				 s->source[l], fs_fmt_fixed(b, sizeof b, 100 * s->level[l], 0, "%"));
		if (l == FS_LIMIT_LATENCY && isfinite(s->queue_depth) && s->queue_slots > 0 && n >= 0 && (size_t)n < cap)
			snprintf(out + n, cap - (size_t)n, "; %.2g reads in flight on average of the %.0f it holds (%s)",
				 s->queue_depth, s->queue_slots, s->queue_slots_from);
		break;
	case FS_LIMIT_METADATA:
		if (!isfinite(s->share[l]))
			snprintf(out, cap, "%-8s not known: the tracer times the loaders' metadata calls; without it the"
				 " thread-state sources read them (proc.blocked_meta: schema 11, meta job.meta_calls)",
				 fs_limit_name(l));
		else if (s->meta_src == FS_META_BLOCKED)
			snprintf(out, cap, "%-8s %3.0f%% of the wait; metadata system calls held %s of the loaders' time"
				 " in D (their threads' own calls)",
				 fs_limit_name(l), 100 * s->share[l], fs_fmt_fixed(b, sizeof b, 100 * s->level[l], 0, "%"));
		else
			snprintf(out, cap, "%-8s %3.0f%% of the wait; metadata calls took %s of the loaders' storage time",
				 fs_limit_name(l), 100 * s->share[l], fs_fmt_fixed(b, sizeof b, 100 * s->level[l], 0, "%"));
		break;
	default:
		snprintf(out, cap, "%-8s %3.0f%% of the wait: %s below every known ceiling", fs_limit_name(l),
			 100 * s->share[l], dev);
		break;
	}
	return out;
}

void fs_sat_json(struct fs_json *j, const struct fs_metrics *m)
{
	const struct fs_saturation *s = &m->sat;
	if (!s->have) {
		fs_json_string(j, "saturation", NULL);
		return;
	}
	static const char *const unit[FS_LIMIT__N] = {"B/s", "IO/s", "s", NULL, NULL};
	fs_json_object(j, "saturation");
	fs_json_string(j, "weighed", s->steps ? "input_wait" : "loaders_blocked_io");
	fs_json_number(j, "wait_s", s->wait_s);
	fs_json_number(j, "ceiling_saturated", fs_thresholds.ceiling_saturated);
	fs_json_string(j, "named", fs_limit_name(s->named));
	fs_json_number(j, "named_share", s->share[s->named]);
	fs_json_string(j, "metadata_from", s->meta_src == FS_META_CALL_TIMES ? "tracer_call_times"
					   : s->meta_src == FS_META_BLOCKED ? "threads_blocked_in_metadata_calls" : NULL);
	fs_json_number(j, "queue_depth_mean", s->queue_depth);
	fs_json_number(j, "queue_slots", s->queue_slots);
	fs_json_string(j, "queue_slots_from", s->queue_slots > 0 ? s->queue_slots_from : NULL);
	fs_json_string(j, "runner_up", s->runner < FS_LIMIT__N ? fs_limit_name(s->runner) : NULL);
	fs_json_number(j, "runner_up_share", s->runner < FS_LIMIT__N ? s->share[s->runner] : NAN);
	fs_json_array(j, "limits");
	for (int i = 0; i < FS_LIMIT__N; i++) {
		char line[512];
		fs_json_object(j, NULL);
		fs_json_string(j, "limit", fs_limit_name((enum fs_limit)i));
		fs_json_number(j, "share", s->share[i]);
		fs_json_number(j, "mean_level", s->level[i]);
		fs_json_number(j, "ceiling", s->ceiling[i]);
		fs_json_string(j, "unit", unit[i]);
		fs_json_string(j, "source", s->source[i][0] ? s->source[i] : NULL);
		fs_json_string(j, "text", fs_sat_line(m, (enum fs_limit)i, line, sizeof line));
		fs_json_end(j);
	}
	fs_json_end(j);
	fs_json_end(j);
}
