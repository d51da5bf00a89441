/*
 * What ipcperf top shows: its processes, fds and flows, with what each did
 * in the last interval (per second) and since the start (exact totals:
 * the sums of the intervals) (topview.c), and how a frame of them is drawn
 * to fit a screen (topframe.c). Pure: no I/O but the FILE a frame is drawn
 * on; the terminal is cmd-top.c's.
 */
#ifndef IPCPERF_CLI_TOPVIEW_H
#define IPCPERF_CLI_TOPVIEW_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <ipcperf/ipcperf.h>
#include "cmds.h"
#include "util.h"

/* How many frames an exited process stays on the screen once it is idle. */
#define TOPVIEW_KEEP_FRAMES 10

/* What a row did: its calls, its bytes (read and written), and its time in the calls. */
struct top_io {
	uint64_t ops, bytes, time_ns;
};

struct top_proc {
	pid_t pid;
	char comm[CLI_COMM_LEN];
	bool exited;
	bool gone;			/* exited and idle long enough: dropped at this update */
	unsigned int idle;		/* frames in a row it did nothing */
	struct top_io now;		/* the last interval, over all its fds */
	uint64_t rd, wr;		/* the last interval's bytes read and written */
	uint64_t cs;			/* the last interval's context switches */
	uint64_t total_ops, total_bytes, total_cs;
};

/*
 * A row of the fd pane: one fd (pid, fd, object, as the library keys its
 * rows), or a group of them, made again from the fds at each update: the
 * connections of one process to one endpoint (a unix group: to one peer),
 * as ipcperf_stats__for_each_fd_group() groups them and ipcperf stat shows
 * them; an fd not grouped is a group of its own.
 */
struct top_fd {
	pid_t pid;
	int fd;				/* a group: its lowest */
	enum ipcperf_fd_kind kind;
	char *object;			/* the library's object; a group of connections: its endpoint */
	char *shown;			/* what it is, as shown: a socket's addresses, or the object */
	struct top_io now;
	uint64_t total_ops, total_bytes;
	/* For an fd, its group as the last update said (ipcperf_fd_row.group_role, _endpoint). */
	enum ipcperf_fd_group_role role;
	char *endpoint;
	pid_t peer_pid;			/* a group: its first known peer (peers) */
	char peer_comm[CLI_COMM_LEN];
	uint64_t conns;			/* a group: its fds */
	unsigned int peers;		/* a group: its fds' known peers, told apart by pid */
};

/* Rows of the fd pane. */
struct top_rows {
	struct top_fd *v;
	size_t nr, cap;
};

/* The flows of one writer side, reader side and kind, as flows groups them (flowgroup.h). */
struct top_flow {
	char *object;			/* its first flow's, shown when it has one flow */
	enum ipcperf_fd_kind kind;
	char *who;			/* the key with kind: "sh[12], cat[13] -> wc[14]" */
	uint64_t conns;			/* its flows, in the last walk */
	uint64_t bytes, delta;		/* bytes read out: since the start, in the last interval */
	uint64_t sum;			/* the last walk's sum, while it goes */
	bool seen;			/* in the last walk */
};

struct topview {
	struct top_proc *procs;		/* by pid */
	size_t nr_procs, cap_procs;
	struct top_rows fds;		/* a row per fd, by pid, fd, object */
	struct top_rows groups;		/* the same fds grouped, by pid, role, kind, endpoint, peer */
	bool per_fd;			/* the fd pane shows fds, not groups (--per-fd, key f) */
	struct top_flow *flows;		/* by who, kind */
	size_t nr_flows, cap_flows;
	enum top_key key;
	const char *what;		/* the targets in words */
	double delay;			/* seconds between frames, for the heading */
	uint64_t interval_ns, time_ns;	/* the last interval's length; since the start */
	uint64_t records, lost;		/* in the last interval */
	unsigned int frames;		/* updates so far */
	bool oom;
};

/*
 * Take in one closed interval: @st is its accounting
 * (ipcperf_interval__stats()), @fl the flows (or NULL), and @in what it
 * covered. Returns 0 or -ENOMEM.
 */
int topview_update(struct topview *tv, struct ipcperf_stats *st, struct ipcperf_flows *fl,
		   const struct ipcperf_interval_info *in);

/*
 * Draw a frame on @f, @width columns wide (0 never cuts lines) and @height
 * lines high (0 draws every row, for -b). With @screen, each line ends by
 * clearing the rest of it, at most @height - 1 lines are written (the
 * screen never scrolls), and the rest of the screen is cleared after them.
 */
void topview_draw(struct topview *tv, FILE *f, int width, int height, bool screen);

void topview_free(struct topview *tv);

/*
 * Return pointers to the @n elements of @size bytes at @base, sorted by
 * @cmp (qsort_r's), to be freed with free(); or NULL when out of memory or
 * when @n is 0.
 */
const void **topview_sorted(const void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *, void *), void *arg);

/* Return the key's name for the heading: "bytes", "ops", "time" or "switches". */
const char *topview_key_name(enum top_key key);

#endif
