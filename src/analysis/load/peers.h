/* peers.h - the data network told apart from the traffic between a job's
 * own processes (collectives, rendezvous stores), from the tracer's
 * per-socket accounting (the peers table, docs/schema.md).
 *
 * The rule (docs/verdicts.md, "Data network and collective traffic"): a
 * socket is intra-job ("collective") when its peer endpoint is the local
 * endpoint of another traced socket whose own peer is this socket's local
 * endpoint (both ends of one connection were traced), or when its peer is
 * an endpoint a job process listens on (or a bound datagram socket of the
 * job), or it was accepted by a job listener from the same host; every
 * other IP peer is "data" (storage, HTTP, an object store). A Unix socket
 * is never the network: the job's own ("collective") or local IPC.
 * Loopback addresses and Unix paths name
 * something only on their own host, so they match only inside one run file
 * (one node); other addresses match across every run file given. Pure: no
 * I/O but reading the run files through query.h.
 *
 *   struct fs_peer_rows rows = {0};
 *   for (int k = 0; k < nruns; k++) fs_peers_load(&q[k], k, &rows);
 *   struct fs_peers_report rep;
 *   fs_peers_analyse(&rows, &rep);   ... rep.procs[i] ...
 *   fs_peers_report_free(&rep); fs_peer_rows_free(&rows);
 */
#ifndef FS_ANALYSIS_PEERS_H
#define FS_ANALYSIS_PEERS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/load/query.h"

#define FS_PEER_ADDR 80 /* an address as the peers table writes it (IPv6, a Unix path's head) */
#define FS_PEERS_TOP 5  /* data peers kept per process, the busiest first */

enum fs_peer_kind {
	FS_PEER_KIND_PEER,        /* a connected socket (peer known) */
	FS_PEER_KIND_LISTEN,      /* a listening endpoint (no counters) */
	FS_PEER_KIND_UNCONNECTED, /* a datagram socket with no fixed peer */
	FS_PEER_KIND_OTHER,       /* "(other peers)": no room in the tracer's table */
};

/* One row of a peers table, loaded. Ports are -1 where the table has NULL
 * (Unix sockets, a folded entry's local end). */
struct fs_peer_row {
	int run;                  /* which run file (node) it came from */
	int pid;
	bool main_thread;
	enum fs_peer_kind kind;
	char family[8];           /* "inet", "inet6", "unix", "other", "" */
	char local_addr[FS_PEER_ADDR], peer_addr[FS_PEER_ADDR];
	int local_port, peer_port;
	double read_bytes, write_bytes, read_s, write_s, calls;
	double first_t, last_t;   /* NaN if unknown */
};

struct fs_peer_rows {
	struct fs_peer_row *v;
	size_t n, cap;
};

/* Append the peers rows of the run file q to rows, tagged run. A run file
 * without a peers table (an older feedscope) adds nothing. Returns 0, or
 * -1: out of memory, or a query failed (recorded in q: fs_q_failed). */
int fs_peers_load(struct fs_q *q, int run, struct fs_peer_rows *rows);
void fs_peer_rows_free(struct fs_peer_rows *rows);

enum fs_peer_class {
	FS_PEER_DATA,         /* the data network: a peer outside the job */
	FS_PEER_COLLECTIVE,   /* another process (or thread) of the job */
	FS_PEER_IPC,          /* a Unix socket not the job's own (a daemon, a socketpair, the marker socket) */
	FS_PEER_UNATTRIBUTED, /* no fixed peer (unconnected datagrams), "(other peers)", listeners */
};

/* "data", "collective", "ipc", "unattributed". */
const char *fs_peer_class_name(enum fs_peer_class c);

/* Bytes and seconds of one class of traffic (reads and writes together;
 * seconds inside the calls, summed over threads). */
struct fs_peer_sum {
	double read_bytes, write_bytes, seconds, calls;
};

struct fs_peer_top {
	char addr[FS_PEER_ADDR];
	int port;                 /* -1: none (Unix) */
	double bytes, seconds;
};

/* What one process's sockets carried, by class. */
struct fs_peer_proc {
	int run, pid;
	struct fs_peer_sum cls[4]; /* indexed by enum fs_peer_class */
	double data_span_s;       /* from its first to its last data call (NaN: unknown) */
	double data_bytes_per_s;  /* data bytes over data_span_s (NaN: unknown) */
	int ntop;
	struct fs_peer_top top[FS_PEERS_TOP]; /* data peers that moved bytes, the most first */
};

struct fs_peers_report {
	struct fs_peer_proc *procs; /* by (run, pid) */
	size_t n;
	enum fs_peer_class *row_class; /* the class of each row given, in their order */
};

/* What a group of processes (a rank and its DataLoader workers) moved on
 * the data network and with the job's own processes: bytes read +
 * written, seconds inside the calls; its busiest data peer "addr:port"
 * and that peer's bytes. NaN (top_peer "") when unknown: no peers table. */
struct fs_net {
	double data_bytes, data_s, coll_bytes, coll_s;
	char top_peer[96];
	double top_bytes;
};

/* n unknown (every figure NaN). */
void fs_net_unknown(struct fs_net *n);

/* Add process P's sums to n (an unknown n starts from 0). */
void fs_net_add(struct fs_net *n, const struct fs_peer_proc *P);

/* Classify every row against all of them, and sum per process. Returns 0,
 * or -1 (out of memory: *out is then empty). */
int fs_peers_analyse(const struct fs_peer_rows *rows, struct fs_peers_report *out);
void fs_peers_report_free(struct fs_peers_report *r);

#endif
