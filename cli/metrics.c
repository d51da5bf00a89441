/* The Prometheus / OpenMetrics exposition of ipcperf stat's running totals (metrics.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "metrics.h"
#include "metrics-expo.h"
#include "userfile.h"
#include "util.h"

const char *metrics_content_type(enum metrics_format fmt)
{
	return fmt == METRICS_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					  : "text/plain; version=0.0.4; charset=utf-8";
}

/* ------------------------------------------------------------------ the rows */

/* The processes' names, by pid (for_each_proc gives them in pid order). */
struct comms {
	struct pcomm {
		pid_t pid;
		char *comm;
	} *v;
	size_t n, cap;
	bool oom;
};

static const char *comm_of(const struct comms *c, pid_t pid)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->v[mid].pid == pid)
			return c->v[mid].comm;
		if (c->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

enum { P_VOL, P_INVOL, P_WAKEUPS, P_MIGRATIONS, NR_P };
enum { F_OPS, F_BYTES, F_ERRORS, F_AGAIN, F_LAT, NR_F = F_LAT + 2 + EXPO_NR_BOUNDS };
enum {
	W_BYTES, W_WRITTEN, W_WIRE, W_MAXQ = W_WIRE + 2 + EXPO_NR_BOUNDS, W_CAP, W_WBLOCKED, W_RBLOCKED,
	W_VERDICT, NR_W
};
/* Counters: the values, then which of them are valid (a mask). */
enum { C_OK = IPCPERF_CNT__MAX, NR_C };

struct walk {
	const struct metrics_src *src;
	struct comms comms;
	struct expo_agg procs, fds, flows, cnt;
	int err;
};

/* The labels of a process's series: its comm, and its pid with --openmetrics-pid. */
static void label_proc(const struct walk *w, struct expo_buf *key, const char *comm, pid_t pid)
{
	expo_label(key, "comm", comm);
	if (w->src->pid_label)
		expo_pid(key, pid);
}

static int on_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct walk *w = ctx;
	struct expo_buf key = { 0 };
	uint64_t *v;

	if (cli_grow((void **)&w->comms.v, &w->comms.cap, w->comms.n + 1, sizeof(*w->comms.v)) < 0)
		return -ENOMEM;
	w->comms.v[w->comms.n].pid = row->pid;
	w->comms.v[w->comms.n].comm = strdup(row->comm ? row->comm : "");
	if (!w->comms.v[w->comms.n].comm)
		return -ENOMEM;
	w->comms.n++;

	label_proc(w, &key, row->comm, row->pid);
	v = expo_agg_add(&w->procs, &key);
	if (!v)
		return -ENOMEM;
	v[P_VOL] = row->voluntary_cs;
	v[P_INVOL] = row->involuntary_cs;
	v[P_WAKEUPS] = row->wakeups;
	v[P_MIGRATIONS] = row->migrations;
	return 0;
}

static int fd_side(struct walk *w, const struct ipcperf_fd_row *row, const char *dir,
		   const struct ipcperf_io *io, const struct ipcperf_hist *h)
{
	struct expo_buf key = { 0 };
	uint64_t *v;

	if (!io->ops)
		return 0;	/* this side was never used: no series */
	label_proc(w, &key, comm_of(&w->comms, row->pid), row->pid);
	expo_label(&key, "kind", ipcperf_fd_kind_name(row->kind));
	if (w->src->object_label)
		expo_label(&key, "object", row->object ? row->object : "unknown");
	expo_label(&key, "direction", dir);
	v = expo_agg_add(&w->fds, &key);
	if (!v)
		return -ENOMEM;
	v[F_OPS] = io->ops;
	v[F_BYTES] = io->bytes;
	v[F_ERRORS] = io->errors;
	v[F_AGAIN] = io->again;
	return expo_hist_values(h, &v[F_LAT]);
}

static int on_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct walk *w = ctx;
	int err = fd_side(w, row, "read", &row->read, row->read_hist);

	return err ? err : fd_side(w, row, "write", &row->write, row->write_hist);
}

/* The distinct names of @pids, sorted, joined by commas. */
static void sb_comms(struct expo_buf *b, const char *label, const struct comms *c, const pid_t *pids,
		     size_t n)
{
	const char **names = n ? calloc(n, sizeof(*names)) : NULL;
	struct expo_buf list = { 0 };
	size_t k = 0;

	if (n && !names) {
		b->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = comm_of(c, pids[i]);
	for (size_t i = 1; i < n; i++)	/* a handful: insertion sort */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		if (k++)
			expo_putn(&list, ",", 1);
		expo_puts(&list, names[i]);
	}
	if (list.oom)
		b->oom = true;
	expo_label(b, label, list.p ? list.p : "");
	free(list.p);
	free(names);
}

/*
 * A verdict's rank among merged flows (the largest wins): unmeasured (0: no
 * verdict gauge is 1) yields to any other, idle to any measured one.
 */
static uint64_t verdict_rank(enum ipcperf_verdict v)
{
	if (v == IPCPERF_VERDICT_UNMEASURED)
		return 0;
	return v == IPCPERF_VERDICT_IDLE ? 1 : (uint64_t)v + 2;
}

static int on_flow(void *ctx, const struct ipcperf_flow *f)
{
	struct walk *w = ctx;
	struct expo_buf key = { 0 };
	uint64_t *v;

	expo_label(&key, "kind", ipcperf_fd_kind_name(f->kind));
	if (w->src->object_label)
		expo_label(&key, "object", f->object);
	sb_comms(&key, "writer_comm", &w->comms, f->writers, f->nr_writers);
	sb_comms(&key, "reader_comm", &w->comms, f->readers, f->nr_readers);
	v = expo_agg_add(&w->flows, &key);
	if (!v)
		return -ENOMEM;
	v[W_BYTES] = f->bytes_read;
	v[W_WRITTEN] = f->bytes_written;
	v[W_MAXQ] = f->max_queued;
	v[W_CAP] = f->capacity >= 0 ? (uint64_t)f->capacity + 1 : 0;	/* 0: unknown */
	v[W_WBLOCKED] = f->writer_blocked_ns;
	v[W_RBLOCKED] = f->reader_blocked_ns;
	v[W_VERDICT] = verdict_rank(f->verdict);
	return expo_hist_values(f->wire_hist, &v[W_WIRE]);
}

static int add_counters(struct walk *w)
{
	for (size_t i = 0; i < w->src->nr_cnt; i++) {
		const struct metrics_counters *mc = &w->src->cnt[i];
		struct expo_buf key = { 0 };
		uint64_t *v;

		if (mc->comm)
			label_proc(w, &key, mc->comm, mc->pid);
		v = expo_agg_add(&w->cnt, &key);
		if (!v)
			return -ENOMEM;
		for (int k = 0; k < IPCPERF_CNT__MAX; k++)
			if (mc->v[k].status == IPCPERF_CNT_OK) {
				v[k] = mc->v[k].value;
				v[C_OK] |= IPCPERF_CNT_BIT(k);
			}
	}
	return 0;
}

/* ------------------------------------------------------------------ families */

static void write_fds(const struct expo_out *o, const struct expo_agg *a)
{
	expo_counter_family(o, a, F_OPS, "ipcperf_fd_ops", NULL,
			    "Read- and write-family calls completed on an fd object, failed ones included.",
			    false);
	expo_counter_family(o, a, F_BYTES, "ipcperf_fd_bytes", "bytes",
			    "Bytes moved through an fd object: the sum of the calls' positive return values.",
			    false);
	expo_counter_family(o, a, F_ERRORS, "ipcperf_fd_errors", NULL,
			    "Calls on an fd object that failed (they move nothing), EAGAIN left out.",
			    false);
	expo_counter_family(o, a, F_AGAIN, "ipcperf_fd_would_block", NULL,
			    "Calls on a non-blocking fd object refused with EAGAIN: it was empty (read) "
			    "or full (write).", false);
	expo_histogram_family(o, a, F_LAT, "ipcperf_fd_latency_seconds",
			      "Time inside the read- and write-family calls on an fd object (calls "
			      "under way at the start left out); a call within 1/64 of a bucket "
			      "bound may be counted on the other side of it.");
}

static void write_procs(const struct expo_out *o, const struct expo_agg *a)
{
	char val[32];

	if (!a->n)
		return;
	expo_meta(o, "ipcperf_process_context_switches", "counter", NULL,
		  "Context switches of the processes' threads: voluntary (blocked) or involuntary "
		  "(preempted), from sched_switch.");
	for (size_t i = 0; i < a->n; i++) {
		expo_sample(o, "ipcperf_process_context_switches", "_total", a->rows[i].key,
			    "type=\"voluntary\"", expo_u64(val, sizeof(val), a->rows[i].v[P_VOL]));
		expo_sample(o, "ipcperf_process_context_switches", "_total", a->rows[i].key,
			    "type=\"involuntary\"", expo_u64(val, sizeof(val), a->rows[i].v[P_INVOL]));
	}
	expo_counter_family(o, a, P_WAKEUPS, "ipcperf_process_wakeups", NULL,
			    "Times the processes' threads were woken (sched_wakeup).", false);
	expo_counter_family(o, a, P_MIGRATIONS, "ipcperf_process_cpu_migrations", NULL,
			    "Consecutive switch-outs of a thread of the processes on different CPUs.",
			    false);
}

static const struct {
	enum ipcperf_counter id;
	const char *name, *unit, *help;
} cnt_families[] = {
	{ IPCPERF_CNT_TASK_CLOCK, "ipcperf_perf_task_clock_seconds", "seconds",
	  "perf's task-clock: time on CPU of a target process and the children it reaped." },
	{ IPCPERF_CNT_PAGE_FAULTS, "ipcperf_perf_page_faults", NULL,
	  "perf's page-faults of a target process and the children it reaped." },
	{ IPCPERF_CNT_CONTEXT_SWITCHES, "ipcperf_perf_context_switches", NULL,
	  "perf's context-switches of a target process and the children it reaped." },
	{ IPCPERF_CNT_CPU_MIGRATIONS, "ipcperf_perf_cpu_migrations", NULL,
	  "perf's cpu-migrations of a target process and the children it reaped." },
	{ IPCPERF_CNT_CYCLES, "ipcperf_perf_cycles", NULL,
	  "perf's cycles of a target process and the children it reaped (scaled when multiplexed)." },
	{ IPCPERF_CNT_INSTRUCTIONS, "ipcperf_perf_instructions", NULL,
	  "perf's instructions of a target process and the children it reaped (scaled when "
	  "multiplexed)." },
	{ IPCPERF_CNT_CACHE_REFERENCES, "ipcperf_perf_cache_references", NULL,
	  "perf's cache-references of a target process and the children it reaped (scaled when "
	  "multiplexed)." },
	{ IPCPERF_CNT_CACHE_MISSES, "ipcperf_perf_cache_misses", NULL,
	  "perf's cache-misses of a target process and the children it reaped (scaled when "
	  "multiplexed)." },
};

/* A counter the machine lacks (or -e left out, or that never ran) has no series at all. */
static void write_counters(const struct expo_out *o, const struct expo_agg *a)
{
	char val[48];

	for (size_t k = 0; k < sizeof(cnt_families) / sizeof(cnt_families[0]); k++) {
		enum ipcperf_counter id = cnt_families[k].id;
		bool any = false;

		for (size_t i = 0; i < a->n; i++)
			any |= (a->rows[i].v[C_OK] & IPCPERF_CNT_BIT(id)) != 0;
		if (!any)
			continue;
		expo_meta(o, cnt_families[k].name, "counter", cnt_families[k].unit, cnt_families[k].help);
		for (size_t i = 0; i < a->n; i++) {
			const uint64_t *v = a->rows[i].v;

			if (!(v[C_OK] & IPCPERF_CNT_BIT(id)))
				continue;
			expo_sample(o, cnt_families[k].name, "_total", a->rows[i].key, NULL,
				    id == IPCPERF_CNT_TASK_CLOCK ? expo_secs(val, sizeof(val), v[id])
				    : expo_u64(val, sizeof(val), v[id]));
		}
	}
}

static void write_flows(const struct expo_out *o, const struct expo_agg *a)
{
	static const enum ipcperf_verdict verdicts[] = {
		IPCPERF_VERDICT_BACKPRESSURE, IPCPERF_VERDICT_CONSUMER_STARVED, IPCPERF_VERDICT_BALANCED,
		IPCPERF_VERDICT_IDLE,
	};
	char val[48], extra[64];
	bool any_cap = false;

	if (!a->n)
		return;
	expo_counter_family(o, a, W_BYTES, "ipcperf_flow_bytes", "bytes",
			    "Bytes read out of a channel (pipe, or socket end to its peer).", false);
	expo_counter_family(o, a, W_WRITTEN, "ipcperf_flow_written_bytes", "bytes",
			    "Bytes written into a channel.", false);
	expo_histogram_family(o, a, W_WIRE, "ipcperf_flow_wire_seconds",
			      "Time from a write's start to the end of a read that took its bytes, per "
			      "(write, read) match; a match within 1/64 of a bucket bound may be counted "
			      "on the other side of it.");
	expo_meta(o, "ipcperf_flow_max_queued_bytes", "gauge", "bytes",
		  "Most bytes in a channel at once (written, not yet read).");
	for (size_t i = 0; i < a->n; i++) {
		expo_sample(o, "ipcperf_flow_max_queued_bytes", "", a->rows[i].key, NULL,
			    expo_u64(val, sizeof(val), a->rows[i].v[W_MAXQ]));
		any_cap |= a->rows[i].v[W_CAP] != 0;
	}
	if (any_cap) {
		expo_meta(o, "ipcperf_flow_capacity_bytes", "gauge", "bytes",
			  "Bytes a channel holds (pipe size, socket buffer), where known.");
		for (size_t i = 0; i < a->n; i++)
			if (a->rows[i].v[W_CAP])
				expo_sample(o, "ipcperf_flow_capacity_bytes", "", a->rows[i].key, NULL,
					    expo_u64(val, sizeof(val), a->rows[i].v[W_CAP] - 1));
	}
	expo_meta(o, "ipcperf_flow_blocked_seconds", "counter", "seconds",
		  "Time the writers (side=writer) or readers (side=reader) of a channel slept inside "
		  "their calls on it: a sleeping write waits for room, a sleeping read for data.");
	for (size_t i = 0; i < a->n; i++) {
		expo_sample(o, "ipcperf_flow_blocked_seconds", "_total", a->rows[i].key,
			    "side=\"writer\"", expo_secs(val, sizeof(val), a->rows[i].v[W_WBLOCKED]));
		expo_sample(o, "ipcperf_flow_blocked_seconds", "_total", a->rows[i].key,
			    "side=\"reader\"", expo_secs(val, sizeof(val), a->rows[i].v[W_RBLOCKED]));
	}
	expo_meta(o, "ipcperf_flow_verdict", "gauge", NULL,
		  "Who holds a channel back, so far: 1 for its verdict, 0 for the others "
		  "(backpressure: writers wait on a full channel; consumer-starved: readers wait on an "
		  "empty one; balanced; idle: no byte went through).");
	for (size_t i = 0; i < a->n; i++)
		for (size_t k = 0; k < sizeof(verdicts) / sizeof(verdicts[0]); k++) {
			snprintf(extra, sizeof(extra), "verdict=\"%s\"", ipcperf_verdict_name(verdicts[k]));
			expo_sample(o, "ipcperf_flow_verdict", "", a->rows[i].key, extra,
				    a->rows[i].v[W_VERDICT] == verdict_rank(verdicts[k]) ? "1" : "0");
		}
}

int metrics_write(FILE *f, const struct metrics_src *src, enum metrics_format fmt)
{
	static const unsigned char flow_ops[NR_W] = {
		[W_MAXQ] = EXPO_MAX, [W_CAP] = EXPO_MAX, [W_VERDICT] = EXPO_MAX,
	};
	static const unsigned char cnt_ops[NR_C] = { [C_OK] = EXPO_OR };
	struct walk w = {
		.src = src,
		.procs = { .nv = NR_P }, .fds = { .nv = NR_F },
		.flows = { .nv = NR_W, .ops = flow_ops }, .cnt = { .nv = NR_C, .ops = cnt_ops },
	};
	const struct expo_out o = { .f = f, .fmt = fmt };
	struct expo_buf ver = { 0 };
	char val[32];
	int err;

	/* The processes first: the fd rows and the flows take their names. */
	err = ipcperf_stats__for_each_proc(src->stats, on_proc, &w);
	if (!err)
		err = ipcperf_stats__for_each_fd(src->stats, on_fd, &w);
	if (!err)	/* the closed connections folded, a row a group */
		err = ipcperf_stats__for_each_fd_fold(src->stats, on_fd, &w);
	if (!err && src->flows)
		err = (src->final ? ipcperf_flows__for_each : ipcperf_flows__for_each_settled)(
			src->flows, on_flow, &w);
	if (!err)
		err = add_counters(&w);
	expo_label(&ver, "version", ipcperf_version());
	if (!err && (w.procs.oom || w.fds.oom || w.flows.oom || w.cnt.oom || ver.oom))
		err = -ENOMEM;
	if (err)
		goto out;
	expo_agg_finish(&w.procs);
	expo_agg_finish(&w.fds);
	expo_agg_finish(&w.flows);
	expo_agg_finish(&w.cnt);

	expo_meta(&o, "ipcperf", "info", NULL, "The ipcperf that measured.");
	expo_sample(&o, "ipcperf_info", "", ver.p, NULL, "1");
	expo_meta(&o, "ipcperf_lost_events", "counter", NULL,
		  "Records lost (the kernel's ring overflowed, or a task could not be placed): when "
		  "not 0, every other count is a lower bound.");
	expo_sample(&o, "ipcperf_lost_events", "_total", NULL, NULL,
		    expo_u64(val, sizeof(val), src->lost_events));
	expo_meta(&o, "ipcperf_unpaired_syscalls", "counter", NULL,
		  "System calls seen only entering or only leaving: left out of the latencies.");
	expo_sample(&o, "ipcperf_unpaired_syscalls", "_total", NULL, NULL,
		    expo_u64(val, sizeof(val), src->unpaired_syscalls));
	write_fds(&o, &w.fds);
	write_procs(&o, &w.procs);
	write_counters(&o, &w.cnt);
	write_flows(&o, &w.flows);
	fputs("# EOF\n", f);
out:
	free(ver.p);
	for (size_t i = 0; i < w.comms.n; i++)
		free(w.comms.v[i].comm);
	free(w.comms.v);
	expo_agg_free(&w.procs);
	expo_agg_free(&w.fds);
	expo_agg_free(&w.flows);
	expo_agg_free(&w.cnt);
	return err < 0 ? err : err ? -EIO : 0;
}

/* ------------------------------------------------------------------ the file */

/* The mode open(2) with 0666 would give a new file: read once, as umask(2) can only be swapped. */
static mode_t new_file_mode(void)
{
	static mode_t mode = (mode_t)-1;

	if (mode == (mode_t)-1) {
		mode_t mask = umask(022);

		umask(mask);
		mode = 0666 & ~mask;
	}
	return mode;
}

static int write_file(const char *path, const struct metrics_src *src)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	FILE *f;
	int fd, err = 0;

	struct stat st;

	if (!*path || (slash && !slash[1]))
		return -EISDIR;
	/* Replaced by rename(2), so never followed; still, only a file is ours to replace. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	tmp = malloc(strlen(path) + 9);
	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	if (fchmod(fd, new_file_mode()) < 0 || !(f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		goto fail;
	}
	err = metrics_write(f, src, METRICS_TEXT);
	if (fflush(f) != 0 || ferror(f))
		err = err ? err : -(errno ? errno : EIO);
	if (fclose(f) != 0 && !err)
		err = -(errno ? errno : EIO);
	if (err)
		goto fail;
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return err;
}

int metrics_write_file(const char *path, const struct metrics_src *src)
{
	struct cli_user_rights r;
	int err;

	/* The file, its temporary and the rename: all with the rights of the user who named it. */
	if (cli_user_rights_enter(&r) < 0)
		return -errno;
	err = write_file(path, src);
	cli_user_rights_leave(&r);
	return err;
}
