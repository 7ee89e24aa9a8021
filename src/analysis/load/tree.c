/* tree.c - the processes of each training process and their sockets
 * (tree.h). */
#include "analysis/load/tree.h"

#include "analysis/load/peers.h"

int fs_metrics_loop_of(const struct fs_metrics *m, int pid)
{
	for (int i = 0; i < m->ntree; i++)
		if (m->tree_pid[i] == pid)
			return m->tree_loop[i];
	return -1;
}

/* The processes of each training process: itself and its children. */
static void load_tree(struct fs_q *q, struct fs_metrics *m)
{
	m->ntree = 0;
	for (int i = 0; i < m->nloops && m->ntree < FS_MAX_TREE; i++) {
		m->tree_pid[m->ntree] = m->loops[i].pid;
		m->tree_loop[m->ntree++] = i;
	}
	/* proc_1m holds every (pid, ppid) of the rows rowids_1m says it
	 * covers: only the rows after them are read (a day-long run's proc
	 * has millions); a file without them is scanned */
	sqlite3_stmt *st = fs_q_prep(q, "SELECT pid, ppid FROM (SELECT pid, ppid, min(t) AS f FROM proc_1m GROUP BY pid, ppid"
				   " UNION ALL SELECT pid, ppid, min(t) FROM proc WHERE rowid >"
				   " coalesce((SELECT max(last) FROM rowids_1m WHERE tbl = 'proc'), 0) GROUP BY pid, ppid)"
				   " GROUP BY pid, ppid ORDER BY min(f), pid");
	if (!st && !fs_q_failed(q))
		st = fs_q_prep(q, "SELECT DISTINCT pid, ppid FROM proc");
	while (m->ntree < FS_MAX_TREE && fs_q_step(q, st)) {
		int p = sqlite3_column_int(st, 0), pp = sqlite3_column_int(st, 1);
		for (int i = 0; i < m->nloops; i++)
			if (m->loops[i].pid == pp && fs_metrics_loop_of(m, p) < 0) {
				m->tree_pid[m->ntree] = p;
				m->tree_loop[m->ntree++] = i;
				break;
			}
	}
	sqlite3_finalize(st);
}

/* The sockets of the job (peers table) classified (analysis/load/peers.h):
 * each training process's data network and traffic with the job's own
 * processes, its children's included; the loaders' main threads' reads
 * from the job's own processes, which are not the data network. Rows are
 * whole-process totals: the window does not apply to them. */
void fs_m_load_peers(struct fs_q *q, struct fs_metrics *m)
{
	for (int i = 0; i < m->nloops; i++)
		fs_net_unknown(&m->loops[i].net);
	load_tree(q, m);
	struct fs_peer_rows rows = {0};
	struct fs_peers_report rep = {0};
	if (fs_peers_load(q, 0, &rows) < 0 || rows.n == 0 || fs_peers_analyse(&rows, &rep) < 0) {
		fs_peer_rows_free(&rows);
		return;
	}
	m->have_peers = true;
	for (int i = 0; i < m->nloops; i++) {
		struct fs_net *n = &m->loops[i].net;
		n->data_bytes = n->data_s = n->coll_bytes = n->coll_s = n->top_bytes = 0; /* known: none */
	}
	for (size_t k = 0; k < rep.n; k++) {
		int j = fs_metrics_loop_of(m, rep.procs[k].pid);
		if (j >= 0)
			fs_net_add(&m->loops[j].net, &rep.procs[k]);
	}
	/* the loaders: the trainer's children, or the trainer itself */
	int tl = m->trainer;
	for (size_t r = 0; r < rows.n; r++) {
		const struct fs_peer_row *R = &rows.v[r];
		bool loader = m->loaders_are_main ? R->pid == m->trainer_pid
						  : tl >= 0 && R->pid != m->trainer_pid && fs_metrics_loop_of(m, R->pid) == tl;
		if (loader && R->main_thread && rep.row_class[r] == FS_PEER_COLLECTIVE) {
			m->loader_coll_read_s += R->read_s > 0 ? R->read_s : 0;
			m->loader_coll_read_bytes += R->read_bytes > 0 ? R->read_bytes : 0;
		}
	}
	fs_peers_report_free(&rep);
	fs_peer_rows_free(&rows);
}
