/* net_parse.h - /proc/net/dev and /proc/net/snmp counters, and the rates
 * the net source computes from two reads of them. Pure functions: no I/O. */
#ifndef FS_SOURCE_NET_PARSE_H
#define FS_SOURCE_NET_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The counters of one /proc/net/dev line that the net table uses. */
struct fs_net_counters {
	uint64_t rx_bytes, rx_packets, rx_errs, rx_drops;
	uint64_t tx_bytes, tx_packets, tx_errs, tx_drops;
};

/* Rates over an interval; NaN when no time passed. */
struct fs_net_rates {
	double rx_bytes_per_s, rx_packets_per_s, rx_errs_per_s, rx_drops_per_s;
	double tx_bytes_per_s, tx_packets_per_s, tx_errs_per_s, tx_drops_per_s;
};

/* Parse one interface line of /proc/net/dev ("  eth0: 123 4 0 0 ...", the 16
 * numbers after the name), reading only up to the line's '\n'. The name is
 * the text before the last ':' of the line, leading blanks dropped; it is
 * copied into name[cap]. Returns false (name and out unspecified) for a
 * header line, a name that is empty or does not fit, or fewer than 16
 * numbers. */
bool fs_net_parse_dev_line(const char *line, char *name, size_t cap, struct fs_net_counters *out);

/* Per-second rates from prev to curr over dt_s seconds. A counter that went
 * backwards gives 0, one that wrapped at 2^32 its true increase
 * (fs_counter_delta). dt_s <= 0 gives NaN everywhere. */
void fs_net_compute(const struct fs_net_counters *prev, const struct fs_net_counters *curr,
		    double dt_s, struct fs_net_rates *out);

/* The TCP counters of /proc/net/snmp the tcp table uses. */
struct fs_tcp_counters {
	bool have_in, have_out, have_retrans;
	uint64_t in_segs, out_segs, retrans_segs;
};

struct fs_tcp_rates {
	double in_segs_per_s, out_segs_per_s, retrans_segs_per_s; /* NaN: unknown */
};

/* Find the "Tcp:" header line and the "Tcp:" value line that follows it in
 * text (the whole of /proc/net/snmp), and read InSegs, OutSegs and
 * RetransSegs by their header names. Returns false when there is no such
 * pair of lines; a column the kernel lacks leaves its have_ flag false. */
bool fs_tcp_parse_snmp(const char *text, struct fs_tcp_counters *out);

/* Per-second rates from prev to curr over dt_s seconds; NaN for a counter
 * missing from either read, or when dt_s <= 0. */
void fs_tcp_compute(const struct fs_tcp_counters *prev, const struct fs_tcp_counters *curr,
		    double dt_s, struct fs_tcp_rates *out);

#endif
