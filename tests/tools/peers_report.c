/* peers_report RUN.db... : the classification of src/analysis/load/peers.c over
 * the peers tables of the run files given (one per node), as lines a test
 * can read:
 *
 *   row RUN PID THREAD KIND LOCAL PEER CLASS READ WRITE
 *   proc RUN PID data=R+W data_s=S collective=R+W collective_s=S ipc=B unattributed=B
 *   top RUN PID ADDR PORT BYTES SECONDS
 *
 * Exit 2 on bad usage, 1 when a run file cannot be read. */
#include <stdio.h>

#include "analysis/load/peers.h"
#include "analysis/load/query.h"

static void endpoint(char *out, size_t cap, const char *addr, int port)
{
	if (port >= 0)
		snprintf(out, cap, "%s:%d", addr[0] ? addr : "-", port);
	else
		snprintf(out, cap, "%s", addr[0] ? addr : "-");
}

static const char *kind_name(enum fs_peer_kind k)
{
	static const char *const names[] = {"peer", "listen", "unconnected", "other"};
	return names[k];
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: peers_report RUN.db...\n");
		return 2;
	}
	struct fs_peer_rows rows = {0};
	for (int k = 1; k < argc; k++) {
		struct fs_q q;
		char err[512];
		if (fs_q_open(&q, argv[k], err, sizeof err) != 0 || fs_peers_load(&q, k - 1, &rows) != 0) {
			fprintf(stderr, "peers_report: %s\n", fs_q_failed(&q) ? fs_q_failed(&q) : err);
			fs_q_close(&q);
			return 1;
		}
		fs_q_close(&q);
	}
	struct fs_peers_report rep;
	if (fs_peers_analyse(&rows, &rep) != 0) {
		fprintf(stderr, "peers_report: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < rows.n; i++) {
		const struct fs_peer_row *r = &rows.v[i];
		char l[128], p[128];
		endpoint(l, sizeof l, r->local_addr, r->local_port);
		endpoint(p, sizeof p, r->peer_addr, r->peer_port);
		printf("row %d %d %s %s %s %s %s %.0f %.0f\n", r->run, r->pid, r->main_thread ? "main" : "other",
		       kind_name(r->kind), l, p, fs_peer_class_name(rep.row_class[i]), r->read_bytes, r->write_bytes);
	}
	for (size_t i = 0; i < rep.n; i++) {
		const struct fs_peer_proc *pr = &rep.procs[i];
		const struct fs_peer_sum *d = &pr->cls[FS_PEER_DATA], *c = &pr->cls[FS_PEER_COLLECTIVE];
		printf("proc %d %d data=%.0f+%.0f data_s=%.6f data_Bps=%.0f collective=%.0f+%.0f collective_s=%.6f "
		       "ipc=%.0f unattributed=%.0f\n",
		       pr->run, pr->pid, d->read_bytes, d->write_bytes, d->seconds, pr->data_bytes_per_s, c->read_bytes,
		       c->write_bytes, c->seconds, pr->cls[FS_PEER_IPC].read_bytes + pr->cls[FS_PEER_IPC].write_bytes,
		       pr->cls[FS_PEER_UNATTRIBUTED].read_bytes + pr->cls[FS_PEER_UNATTRIBUTED].write_bytes);
		for (int t = 0; t < pr->ntop; t++)
			printf("top %d %d %s %d %.0f %.6f\n", pr->run, pr->pid, pr->top[t].addr, pr->top[t].port,
			       pr->top[t].bytes, pr->top[t].seconds);
	}
	fs_peers_report_free(&rep);
	fs_peer_rows_free(&rows);
	return 0;
}
