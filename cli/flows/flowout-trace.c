/* The timeline of ipcperf flows --trace-out, in the Chrome Trace Event Format (flowout-trace.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flowout-trace.h"
#include "util.h"

/* ------------------------------------------------------------------ Chrome trace */

/* The longest process or thread name the timeline gives. */
#define TRACE_NAME_LEN 32
/* The longest object name of a channel's counter. */
#define TRACE_OBJECT_LEN 128

struct thr {
	pid_t tid;		/* first: the key (cli_cmp_pid_key) */
	pid_t pid;
	char comm[CLI_COMM_LEN];
};

/* Where the counter of a channel goes: the process that first wrote into it. */
struct chan {
	char *object;		/* first: the key */
	pid_t pid;
};

struct flowout_trace {
	FILE *f;
	struct ipcperf_stats *st;
	uint64_t base_ns;
	uint64_t next_id;
	bool any;			/* an event was written: the next needs a comma */

	struct thr *thr;		/* by tid */
	size_t nr_thr, cap_thr;
	struct chan *chan;		/* by object */
	size_t nr_chan, cap_chan;

	/* The last counter sample, held back: one read that takes several writes
	 * gives several matches at one time, and only the last queued value holds. */
	bool cnt_pending;
	char cnt_object[TRACE_OBJECT_LEN];
	pid_t cnt_pid;
	uint64_t cnt_ts, cnt_queued;
};

struct flowout_trace *flowout_trace_new(FILE *f)
{
	struct flowout_trace *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->f = f;
	return t;
}

void flowout_trace_delete(struct flowout_trace *t)
{
	if (!t)
		return;
	free(t->thr);
	for (size_t i = 0; i < t->nr_chan; i++)
		free(t->chan[i].object);
	free(t->chan);
	free(t);
}

/* --- threads and channels: sorted by their key, so that each event finds its own */

/* The thread @tid (NULL when unknown, or out of memory), added when @create. */
static struct thr *thr_get(struct flowout_trace *t, pid_t tid, bool create)
{
	struct thr *th;
	size_t i;

	if (tid <= 0)
		return NULL;
	if (cli_bsearch(&tid, t->thr, t->nr_thr, sizeof(*t->thr), cli_cmp_pid_key, &i))
		return &t->thr[i];
	if (!create || cli_grow((void **)&t->thr, &t->cap_thr, t->nr_thr + 1, sizeof(*th)) < 0)
		return NULL;
	th = cli_insert_at(t->thr, t->nr_thr++, sizeof(*th), i);
	th->tid = tid;
	return th;
}

static int cmp_object_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct chan *)elem)->object);
}

/* The channel @object, added if new; NULL when out of memory. */
static struct chan *chan_get(struct flowout_trace *t, const char *object)
{
	struct chan *ch;
	char *copy;
	size_t i;

	if (cli_bsearch(object, t->chan, t->nr_chan, sizeof(*t->chan), cmp_object_key, &i))
		return &t->chan[i];
	if (cli_grow((void **)&t->chan, &t->cap_chan, t->nr_chan + 1, sizeof(*ch)) < 0 ||
	    !(copy = strdup(object)))
		return NULL;
	ch = cli_insert_at(t->chan, t->nr_chan++, sizeof(*ch), i);
	ch->object = copy;
	return ch;
}

/* --- writing */

/* Microseconds since the base, with the nanoseconds as three decimals (exact). */
static void put_ts(struct flowout_trace *t, const char *key, uint64_t ns, bool relative)
{
	if (relative)
		ns = ns > t->base_ns ? ns - t->base_ns : 0;
	fprintf(t->f, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static void ev_begin(struct flowout_trace *t, char ph, pid_t pid, pid_t tid)
{
	fprintf(t->f, "%s{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d", t->any ? ",\n" : "", ph, (int)pid,
		(int)tid);
	t->any = true;
}

/* A read or write, with what its fd was (the stats say once it is settled). */
static void trace_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipcperf_fd_object *fd)
{
	struct flowout_trace *t = ctx;
	struct thr *th = thr_get(t, ev->tid, true);

	if (th)
		th->pid = ev->pid;
	ev_begin(t, 'X', ev->pid, ev->tid);
	put_ts(t, "ts", ev->start_ns, true);
	put_ts(t, "dur", ev->end_ns >= ev->start_ns ? ev->end_ns - ev->start_ns : 0, false);
	fprintf(t->f, ",\"cat\":\"syscall\",\"name\":\"%s fd %d\",\"args\":{", ev->name, ev->fd);
	if (ev->ret < 0)
		fprintf(t->f, "\"bytes\":0,\"error\":%" PRId64, ev->ret);
	else if (ev->ret_is_msgs)
		fprintf(t->f, "\"msgs\":%" PRId64, ev->ret);
	else
		fprintf(t->f, "\"bytes\":%" PRId64, ev->ret);
	fputs(",\"object\":", t->f);
	json_write_string(t->f, fd->object);
	fputs("}}", t->f);
}

static void flush_counter(struct flowout_trace *t)
{
	if (!t->cnt_pending)
		return;
	ev_begin(t, 'C', t->cnt_pid, t->cnt_pid);
	put_ts(t, "ts", t->cnt_ts, true);
	fputs(",\"cat\":\"flow\",\"name\":", t->f);
	{
		char name[160];

		snprintf(name, sizeof(name), "queued %s", t->cnt_object);
		json_write_string(t->f, name);
	}
	fprintf(t->f, ",\"args\":{\"bytes\":%" PRIu64 "}}", t->cnt_queued);
	t->cnt_pending = false;
}

static void trace_match(void *ctx, const struct ipcperf_flow_match *m)
{
	struct flowout_trace *t = ctx;
	uint64_t id = ++t->next_id, s_ts = m->write_end_ns;
	struct chan *ch;

	/*
	 * The arrow leaves the write at its end and enters the read at its end.
	 * A viewer binds a flow end only to a start it has already seen in time
	 * order, and may round timestamps to the nanosecond below. So when the
	 * read ended first or nearly with the write (a large write into a full
	 * pipe returns after the reader took its first bytes), the start goes
	 * half-way between the write's start and the read's end: still inside
	 * the write, and well before the end.
	 */
	if (m->write_end_ns + 2 > m->read_end_ns) {
		uint64_t hi = m->write_end_ns < m->read_end_ns ? m->write_end_ns : m->read_end_ns;

		s_ts = m->write_start_ns + (hi > m->write_start_ns ? (hi - m->write_start_ns) / 2 : 0);
	}
	ev_begin(t, 's', m->wpid, m->wtid);
	fprintf(t->f, ",\"id\":%" PRIu64, id);
	put_ts(t, "ts", s_ts, true);
	fputs(",\"cat\":\"flow\",\"name\":", t->f);
	json_write_string(t->f, m->object);
	fprintf(t->f, ",\"args\":{\"bytes\":%" PRIu64 "}}", m->bytes);
	ev_begin(t, 'f', m->rpid, m->rtid);
	fprintf(t->f, ",\"bp\":\"e\",\"id\":%" PRIu64, id);
	put_ts(t, "ts", m->read_end_ns, true);
	fputs(",\"cat\":\"flow\",\"name\":", t->f);
	json_write_string(t->f, m->object);
	fputs("}", t->f);

	if (t->cnt_pending && (t->cnt_ts != m->read_end_ns || strcmp(t->cnt_object, m->object)))
		flush_counter(t);
	ch = chan_get(t, m->object);
	if (ch && !ch->pid)
		ch->pid = m->wpid;
	t->cnt_pending = true;
	snprintf(t->cnt_object, sizeof(t->cnt_object), "%s", m->object);
	t->cnt_pid = ch ? ch->pid : m->wpid;
	t->cnt_ts = m->read_end_ns;
	t->cnt_queued = m->queued;
}

static void trace_task(void *ctx, const struct ipcperf_task *ev)
{
	struct flowout_trace *t = ctx;
	struct thr *th;

	/* Only threads that have slices are named: the table stays as small as the timeline. */
	switch (ev->kind) {
	case IPCPERF_TASK_EXEC:
		th = thr_get(t, ev->tid, false);
		break;
	case IPCPERF_TASK_FORK:
		th = thr_get(t, ev->child_tid, false);	/* a recycled tid: a new thread */
		break;
	default:
		return;
	}
	if (th && ev->comm)
		snprintf(th->comm, sizeof(th->comm), "%s", ev->comm);
}

static void trace_switch(void *ctx, const struct ipcperf_switch *ev)
{
	struct thr *th = thr_get(ctx, ev->tid, false);

	if (th)
		memcpy(th->comm, ev->prev_comm, sizeof(th->comm));
}

int flowout_trace_attach(struct flowout_trace *t, struct ipcperf_session *s,
			 struct ipcperf_flows *fl, struct ipcperf_stats *st)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = t, .sched_switch = trace_switch,
		     .task = trace_task);
	int err;

	t->st = st;
	/* Timestamps count from here: before anything the session can record. */
	t->base_ns = cli_now_ns();
	if ((err = ipcperf_flows__on_match(fl, trace_match, t)) < 0 ||
	    (err = ipcperf_stats__on_call(st, trace_call, t)) < 0 ||
	    (err = ipcperf_session__add_handlers(s, &h)) < 0)
		return err;
	fprintf(t->f, "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"ipcperf\","
		      "\"version\":");
	json_write_string(t->f, ipcperf_version());
	fprintf(t->f, ",\"clock\":\"CLOCK_MONOTONIC\",\"base_ns\":%" PRIu64 "},\n"
		      "\"traceEvents\":[\n", t->base_ns);
	return 0;
}

static int meta_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	return flowout_add_proc(ctx, row);
}

static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void meta_event(struct flowout_trace *t, const char *what, pid_t pid, pid_t tid,
		       const char *name)
{
	ev_begin(t, 'M', pid, tid);
	fprintf(t->f, ",\"ts\":0,\"name\":\"%s\",\"args\":{\"name\":", what);
	json_write_string(t->f, name);
	fputs("}}", t->f);
}

int flowout_trace_finish(struct flowout_trace *t)
{
	struct flowout names = { 0 };
	struct thr *v = NULL;
	size_t n = 0;

	if (t->st)
		ipcperf_stats__settle_calls(t->st);
	flush_counter(t);
	/* Names: processes from the stats (their last comm), threads from what they were called. */
	if (t->st)
		ipcperf_stats__for_each_proc(t->st, meta_proc, &names);
	if (t->nr_thr)
		v = malloc(t->nr_thr * sizeof(*v));
	if (v) {
		n = t->nr_thr;
		memcpy(v, t->thr, n * sizeof(*v));
		qsort(v, n, sizeof(*v), cmp_thr);
	}
	for (size_t i = 0; i < n; i++) {
		const char *pcomm = flowout_comm(&names, v[i].pid);
		char buf[TRACE_NAME_LEN];

		if (!strcmp(pcomm, "?"))
			pcomm = NULL;
		if (i == 0 || v[i - 1].pid != v[i].pid) {
			const struct thr *main_thr = thr_get(t, v[i].pid, false);

			if (!pcomm && main_thr && main_thr->comm[0])
				pcomm = main_thr->comm;
			snprintf(buf, sizeof(buf), "%s", pcomm ? pcomm : "?");
			meta_event(t, "process_name", v[i].pid, v[i].pid, buf);
		}
		snprintf(buf, sizeof(buf), "%s", v[i].comm[0] ? v[i].comm : pcomm ? pcomm : "?");
		meta_event(t, "thread_name", v[i].pid, v[i].tid, buf);
	}
	free(v);
	flowout_free(&names);
	fputs("\n]}\n", t->f);
	if (fflush(t->f) != 0 || ferror(t->f))
		return -EIO;
	return 0;
}
