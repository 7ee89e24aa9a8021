/* net_parse - /proc/net/dev and /proc/net/snmp parsing, and their rates. */
#include "source/net_parse.h"

#include <math.h>
#include <string.h>

#include "util/parse.h"

bool fs_net_parse_dev_line(const char *line, char *name, size_t cap, struct fs_net_counters *out)
{
	const char *colon = NULL, *p = line;
	for (; *p && *p != '\n'; p++)
		if (*p == ':')
			colon = p;
	if (!colon)
		return false;
	const char *start = line;
	while (*start == ' ' || *start == '\t')
		start++;
	size_t len = (size_t)(colon - start);
	if (len == 0 || len >= cap)
		return false;
	memcpy(name, start, len);
	name[len] = '\0';

	uint64_t v[16];
	p = colon + 1;
	for (int i = 0; i < 16; i++)
		if (!fs_scan_u64(&p, &v[i]))
			return false;
	/* rx: bytes packets errs drop fifo frame compressed multicast;
	 * tx: bytes packets errs drop fifo colls carrier compressed. */
	out->rx_bytes = v[0];
	out->rx_packets = v[1];
	out->rx_errs = v[2];
	out->rx_drops = v[3];
	out->tx_bytes = v[8];
	out->tx_packets = v[9];
	out->tx_errs = v[10];
	out->tx_drops = v[11];
	return true;
}

static double per_s(uint64_t prev, uint64_t curr, double dt_s)
{
	return dt_s > 0 ? (double)fs_counter_delta(prev, curr) / dt_s : NAN;
}

void fs_net_compute(const struct fs_net_counters *a, const struct fs_net_counters *b, double dt_s,
		    struct fs_net_rates *out)
{
	out->rx_bytes_per_s = per_s(a->rx_bytes, b->rx_bytes, dt_s);
	out->rx_packets_per_s = per_s(a->rx_packets, b->rx_packets, dt_s);
	out->rx_errs_per_s = per_s(a->rx_errs, b->rx_errs, dt_s);
	out->rx_drops_per_s = per_s(a->rx_drops, b->rx_drops, dt_s);
	out->tx_bytes_per_s = per_s(a->tx_bytes, b->tx_bytes, dt_s);
	out->tx_packets_per_s = per_s(a->tx_packets, b->tx_packets, dt_s);
	out->tx_errs_per_s = per_s(a->tx_errs, b->tx_errs, dt_s);
	out->tx_drops_per_s = per_s(a->tx_drops, b->tx_drops, dt_s);
}

static bool word_is(const char *tok, size_t len, const char *want)
{
	return strlen(want) == len && memcmp(tok, want, len) == 0;
}

/* Walk the header and value lines in step, picking the wanted columns. */
static void read_tcp_pair(const char *hdr, const char *val, struct fs_tcp_counters *out)
{
	const char *h, *v;
	size_t hl, vl;
	while ((hl = fs_next_word(&hdr, &h)) > 0 && (vl = fs_next_word(&val, &v)) > 0) {
		uint64_t *dst = NULL;
		bool *have = NULL;
		if (word_is(h, hl, "InSegs")) {
			dst = &out->in_segs;
			have = &out->have_in;
		} else if (word_is(h, hl, "OutSegs")) {
			dst = &out->out_segs;
			have = &out->have_out;
		} else if (word_is(h, hl, "RetransSegs")) {
			dst = &out->retrans_segs;
			have = &out->have_retrans;
		}
		const char *q = v;
		if (dst && fs_scan_u64(&q, dst) && q == v + vl)
			*have = true;
	}
}

bool fs_tcp_parse_snmp(const char *text, struct fs_tcp_counters *out)
{
	memset(out, 0, sizeof *out);
	for (const char *line = text; line && *line;) {
		const char *next = strchr(line, '\n');
		if (next)
			next++;
		if (strncmp(line, "Tcp:", 4) == 0 && next && strncmp(next, "Tcp:", 4) == 0) {
			read_tcp_pair(line + 4, next + 4, out);
			return true;
		}
		line = next;
	}
	return false;
}

static double tcp_rate(bool have_a, uint64_t a, bool have_b, uint64_t b, double dt_s)
{
	return have_a && have_b ? per_s(a, b, dt_s) : NAN;
}

void fs_tcp_compute(const struct fs_tcp_counters *a, const struct fs_tcp_counters *b, double dt_s,
		    struct fs_tcp_rates *out)
{
	out->in_segs_per_s = tcp_rate(a->have_in, a->in_segs, b->have_in, b->in_segs, dt_s);
	out->out_segs_per_s = tcp_rate(a->have_out, a->out_segs, b->have_out, b->out_segs, dt_s);
	out->retrans_segs_per_s =
		tcp_rate(a->have_retrans, a->retrans_segs, b->have_retrans, b->retrans_segs, dt_s);
}
