/* live.h - what `watch` and `top` share: the recorder writes each tick's
 * rows into an in-memory run file (fs_store_create_memory), and the line
 * or the screen is read back from it through the metric definitions
 * (analysis/load/metricdefs.h). So a figure shown live is the one `report`
 * computes, from the same formula. After each tick the rows older than
 * keep_s seconds are dropped: watch keeps one tick, top a minute.
 *
 *   struct fs_live l;
 *   fs_live_open(&l, "top", 60, show);      show(&l, t) at each tick's end
 *   rec = fs_live_recorder(&l, &paths, &job, pid, no_gpu);
 *   fs_live_run(&l, rec, interval, count, pid, input, &res);
 *   fs_recorder_close(rec); fs_live_close(&l);
 */
#ifndef FS_LIVE_H
#define FS_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/load/query.h"
#include "record/loop.h"
#include "record/recorder.h"
#include "store/store.h"

struct fs_live;

/* Called at the end of the tick at t, with that tick's rows in the file. */
typedef void (*fs_live_show_fn)(struct fs_live *l, double t);

struct fs_live {
	struct fs_sink sink; /* what the recorder writes into (first: cast back) */
	struct fs_store *mem;
	struct fs_sink *mem_sink;
	const char *cmd;  /* "watch", "top": names the messages */
	double keep_s;    /* rows this much older than the tick are dropped */
	fs_live_show_fn show;
	bool read_failed; /* a query on the file failed: said once */
};

/* The in-memory run file. Returns 0, or -1 (said on stderr). */
int fs_live_open(struct fs_live *l, const char *cmd, double keep_s, fs_live_show_fn show);
void fs_live_close(struct fs_live *l);

/* A reader of the in-memory file over the window [w0, w1] (seconds). */
void fs_live_query(struct fs_live *l, struct fs_q *q, double w0, double w1);

/* Close q; the first failed query of all is said once on stderr ("CMD:
 * reading the tick back failed: ..."): the figures it gave are not valid. */
void fs_live_query_done(struct fs_live *l, struct fs_q *q);

/* The recorder for the machine, and with pid > 0 for the process tree of
 * pid (job: the caller's, it outlives the recorder). Signals are blocked
 * first (the loop reads them). NULL on failure (said). */
struct fs_recorder *fs_live_recorder(struct fs_live *l, const struct fs_paths *paths, struct fs_job *job, int pid,
				     bool no_gpu);

/* The t = 0 sample, then a tick every interval until count ticks (0: no
 * limit), a stop signal, or pid's exit (pid > 0). input (may be NULL): more
 * descriptors for the loop to wait on. Returns 0, or -1 when the loop could
 * not start (said). */
int fs_live_run(struct fs_recorder *rec, double interval, int count, int pid, const struct fs_loop_input *input,
		struct fs_loop_result *res);

/* The -i and -p values of watch and top: 0, or the usage error's exit
 * status 2 (said: "CMD: bad interval ..."; "CMD: no process N"). */
int fs_live_parse_interval(const char *cmd, const char *arg, double *seconds);
int fs_live_parse_pid(const char *cmd, const char *arg, int *pid);

/* x right-aligned in exactly width columns (a fixed-width column): with
 * up to prec decimals where they fit, else none, else with a k, M, G or T
 * suffix (1000s); "-" when x is NaN or infinite, #s when nothing fits.
 * out needs width + 1 bytes (cap); returns out. */
char *fs_live_fit(char *out, size_t cap, double x, int width, int prec);

/* s (UTF-8, escaped) cut to at most width characters, its last one then
 * replaced by ~ to show the cut; no UTF-8 sequence is split. Returns s. */
char *fs_live_cut(char *s, int width);

#endif
