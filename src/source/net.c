/* net - network interfaces, TCP and NFS client activity.
 * Tables: net (/proc/net/dev, /sys/class/net/IF/speed), tcp (/proc/net/snmp),
 * nfs (/proc/self/mountstats, see nfs.c).
 *
 * Only /proc/net/dev is required; without snmp or mountstats the tcp or nfs
 * table stays empty and meta says why (net.tcp, net.nfs). mountstats is
 * costly, so it is read every tick only while an NFS mount exists, and
 * otherwise checked for one every NFS_CHECK_NS. Link speeds change rarely
 * and are re-read every SPEED_REFRESH_NS, a few interfaces per tick. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/net_parse.h"
#include "source/nfs.h"
#include "source/source.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/pfile.h"

#define SPEED_REFRESH_NS (10 * FS_NS_PER_S)
#define SPEED_READS_PER_TICK 8
#define NFS_CHECK_NS (5 * FS_NS_PER_S)
#define IFNAME_CAP 32 /* the kernel's IFNAMSIZ is 16 */

struct iface {
	char name[IFNAME_CAP];
	struct fs_net_counters prev;
	int64_t speed_mbps; /* > 0, or -1: not reported */
	uint64_t speed_read_ns;
};

struct net_state {
	struct fs_pfile dev, snmp, mountstats;
	struct fs_buf buf;
	/* Interfaces in the order of the last read of net/dev. */
	struct iface *ifs;
	int n, cap;
	bool have_prev;
	uint64_t prev_ns;

	bool tcp_on, have_tcp_prev;
	struct fs_tcp_counters tcp_prev;
	uint64_t tcp_prev_ns;

	bool nfs_on, nfs_checked;
	uint64_t nfs_next_check_ns;
	struct fs_nfs_tracker nfs;
};

static const char *next_line(const char *l)
{
	const char *n = strchr(l, '\n');
	return n ? n + 1 : l + strlen(l);
}

/* The link speed in Mb/s, or -1 when the file is missing, unreadable
 * (EINVAL for a link that is down) or not a positive number. */
static int64_t read_speed(const struct fs_paths *paths, const char *ifname)
{
	char rel[IFNAME_CAP + 32], path[512], line[32];
	int64_t v;
	snprintf(rel, sizeof rel, "class/net/%s/speed", ifname);
	if (fs_read_line(fs_sys_path(path, sizeof path, paths, rel), line, sizeof line) < 0)
		return -1;
	const char *p = line;
	return fs_scan_i64(&p, &v) && v > 0 ? v : -1;
}

/* The slot for the k-th interface of this read. Slots 0..k-1 hold the
 * interfaces already seen in this read, so the search starts at k (almost
 * always a hit: the kernel keeps its order). A new interface is inserted at
 * k with *is_new set. NULL when out of memory. */
static struct iface *iface_slot(struct net_state *s, int k, const char *name, bool *is_new)
{
	*is_new = false;
	for (int j = k; j < s->n; j++) {
		if (strcmp(s->ifs[j].name, name) == 0) {
			if (j != k) {
				struct iface tmp = s->ifs[k];
				s->ifs[k] = s->ifs[j];
				s->ifs[j] = tmp;
			}
			return &s->ifs[k];
		}
	}
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 8;
		struct iface *p = realloc(s->ifs, (size_t)cap * sizeof *p);
		if (!p)
			return NULL;
		s->ifs = p;
		s->cap = cap;
	}
	memmove(&s->ifs[k + 1], &s->ifs[k], (size_t)(s->n - k) * sizeof *s->ifs);
	s->n++;
	struct iface *f = &s->ifs[k];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", name);
	*is_new = true;
	return f;
}

static void emit_net(const struct fs_source_ctx *ctx, const struct iface *f,
		     const struct fs_net_rates *r, double dt_s)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_NET, ctx->t);
	fs_row_text(&row, FS_NET_iface, f->name);
	fs_row_real(&row, FS_NET_rx_bytes_per_s, r->rx_bytes_per_s);
	fs_row_real(&row, FS_NET_tx_bytes_per_s, r->tx_bytes_per_s);
	fs_row_real(&row, FS_NET_rx_errs_per_s, r->rx_errs_per_s);
	fs_row_real(&row, FS_NET_rx_drops_per_s, r->rx_drops_per_s);
	fs_row_real(&row, FS_NET_tx_errs_per_s, r->tx_errs_per_s);
	fs_row_real(&row, FS_NET_tx_drops_per_s, r->tx_drops_per_s);
	fs_row_real(&row, FS_NET_rx_packets_per_s, r->rx_packets_per_s);
	fs_row_real(&row, FS_NET_tx_packets_per_s, r->tx_packets_per_s);
	if (f->speed_mbps > 0)
		fs_row_int(&row, FS_NET_speed_mbps, f->speed_mbps);
	fs_row_real(&row, FS_NET_dt_s, dt_s);
	fs_sink_row(ctx->sink, &row);
}

/* One interface line: baseline a new interface, emit a row for a known one. */
static void sample_iface(struct net_state *s, const struct fs_source_ctx *ctx, struct iface *f,
			 bool is_new, const struct fs_net_counters *c, int *speed_budget)
{
	if (is_new || (ctx->now_ns - f->speed_read_ns >= SPEED_REFRESH_NS && *speed_budget > 0)) {
		if (!is_new)
			(*speed_budget)--;
		f->speed_mbps = read_speed(ctx->paths, f->name);
		f->speed_read_ns = ctx->now_ns;
	}
	if (!is_new && s->have_prev) {
		struct fs_net_rates r;
		double dt_s = (double)(ctx->now_ns - s->prev_ns) / 1e9;
		fs_net_compute(&f->prev, c, dt_s, &r);
		emit_net(ctx, f, &r, dt_s);
	}
	f->prev = *c;
}

static int sample_dev(struct net_state *s, const struct fs_source_ctx *ctx, char *why,
		      size_t whylen)
{
	if (fs_pfile_read(&s->dev, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->dev.path, strerror(errno));
		return FS_SOURCE_UNAVAILABLE;
	}
	const char *line = next_line(next_line(s->buf.data)); /* two header lines */
	int k = 0, speed_budget = SPEED_READS_PER_TICK;
	for (; *line; line = next_line(line)) {
		char name[IFNAME_CAP];
		struct fs_net_counters c;
		bool is_new;
		struct iface *f;
		if (!fs_net_parse_dev_line(line, name, sizeof name, &c) ||
		    !(f = iface_slot(s, k, name, &is_new)))
			continue;
		sample_iface(s, ctx, f, is_new, &c, &speed_budget);
		k++;
	}
	s->n = k; /* the rest vanished: forget them */
	s->have_prev = true;
	s->prev_ns = ctx->now_ns;
	return FS_SOURCE_OK;
}

/* /proc/net/snmp costs ~12 us, two thirds of this source, and retransmits
 * are a slow signal: the tcp table gets one row a second (rates over that
 * second), not one per tick. */
#define TCP_PERIOD_NS 1000000000ull

static void sample_tcp(struct net_state *s, const struct fs_source_ctx *ctx)
{
	struct fs_tcp_counters cur;
	if (s->have_tcp_prev && !ctx->final && ctx->now_ns - s->tcp_prev_ns < TCP_PERIOD_NS - TCP_PERIOD_NS / 20)
		return;
	if (!s->tcp_on || fs_pfile_read_one(&s->snmp, &s->buf) < 0 ||
	    !fs_tcp_parse_snmp(s->buf.data, &cur))
		return; /* keep the previous read: the next rate covers the gap */
	if (s->have_tcp_prev) {
		struct fs_tcp_rates r;
		double dt_s = (double)(ctx->now_ns - s->tcp_prev_ns) / 1e9;
		fs_tcp_compute(&s->tcp_prev, &cur, dt_s, &r);
		struct fs_row row;
		fs_row_init(&row, FS_T_TCP, ctx->t);
		fs_row_real(&row, FS_TCP_retrans_segs_per_s, r.retrans_segs_per_s);
		fs_row_real(&row, FS_TCP_out_segs_per_s, r.out_segs_per_s);
		fs_row_real(&row, FS_TCP_in_segs_per_s, r.in_segs_per_s);
		fs_row_real(&row, FS_TCP_dt_s, dt_s);
		fs_sink_row(ctx->sink, &row);
	}
	s->tcp_prev = cur;
	s->tcp_prev_ns = ctx->now_ns;
	s->have_tcp_prev = true;
}

static void sample_nfs(struct net_state *s, const struct fs_source_ctx *ctx)
{
	if (!s->nfs_on)
		return;
	if (s->nfs.n == 0 && s->nfs_checked && ctx->now_ns < s->nfs_next_check_ns)
		return;
	s->nfs_checked = true;
	int found = 0;
	if (fs_pfile_read(&s->mountstats, &s->buf) >= 0)
		found = fs_nfs_tracker_update(&s->nfs, s->buf.data, ctx);
	else
		fs_nfs_tracker_clear(&s->nfs);
	if (found == 0)
		s->nfs_next_check_ns = ctx->now_ns + NFS_CHECK_NS;
}

static void net_free(struct net_state *s)
{
	fs_pfile_close(&s->dev);
	fs_pfile_close(&s->snmp);
	fs_pfile_close(&s->mountstats);
	fs_buf_free(&s->buf);
	fs_nfs_tracker_free(&s->nfs);
	free(s->ifs);
	free(s);
}

/* Whether the optional files work; says why not in meta. */
static void open_optional(struct net_state *s, const struct fs_source_ctx *ctx)
{
	struct fs_tcp_counters tcp;
	if (fs_pfile_read_one(&s->snmp, &s->buf) < 0)
		fs_sink_metaf(ctx->sink, "net.tcp", "unavailable: cannot read %s: %s", s->snmp.path,
			      strerror(errno));
	else if (!fs_tcp_parse_snmp(s->buf.data, &tcp))
		fs_sink_metaf(ctx->sink, "net.tcp", "unavailable: no Tcp: lines in %s", s->snmp.path);
	else
		s->tcp_on = true;
	if (fs_pfile_read(&s->mountstats, &s->buf) < 0)
		fs_sink_metaf(ctx->sink, "net.nfs", "unavailable: cannot read %s: %s",
			      s->mountstats.path, strerror(errno));
	else
		s->nfs_on = true;
}

static int net_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct net_state *s = calloc(1, sizeof *s);
	char path[512];
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	s->dev.fd = s->snmp.fd = s->mountstats.fd = -1;
	if (fs_pfile_init(&s->dev, fs_proc_path(path, sizeof path, ctx->paths, "net/dev")) < 0 ||
	    fs_pfile_init(&s->snmp, fs_proc_path(path, sizeof path, ctx->paths, "net/snmp")) < 0 ||
	    fs_pfile_init(&s->mountstats,
			  fs_proc_path(path, sizeof path, ctx->paths, "self/mountstats")) < 0) {
		snprintf(why, whylen, "out of memory");
		net_free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	if (fs_pfile_read(&s->dev, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->dev.path, strerror(errno));
		net_free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	open_optional(s, ctx);
	*state = s;
	return FS_SOURCE_OK;
}

static int net_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct net_state *s = state;
	int rc = sample_dev(s, ctx, why, whylen);
	sample_tcp(s, ctx);
	sample_nfs(s, ctx);
	return rc;
}

static void net_close(void *state)
{
	net_free(state);
}

const struct fs_source_ops fs_source_net = {
	.abi = FS_SOURCE_ABI,
	.name = "net",
	.machine = true,
	.open = net_open,
	.sample = net_sample,
	.close = net_close,
};
