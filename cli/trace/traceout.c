/* The lines of ipcperf trace (traceout.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmds.h"
#include "traceargs.h"
#include "traceout.h"
#include "tracesig.h"
#include "util.h"

/* Where strace puts " = ", so that the return value comes at column 40. */
#define RET_COLUMN 39

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int traceout_init(struct traceout *t, FILE *f, unsigned int strsize, bool times, int stamps)
{
	char buf[PATH_MAX];

	*t = (struct traceout){ .f = f, .strsize = strsize, .times = times, .stamps = stamps };
	t->real_minus_mono = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	if (getcwd(buf, sizeof(buf)) && !(t->first_cwd = strdup(buf)))
		return -ENOMEM;
	return 0;
}

void traceout_fini(struct traceout *t)
{
	for (size_t i = 0; i < t->nr_entries; i++)
		free(t->entries[i].text);
	free(t->entries);
	for (size_t i = 0; i < t->nr_tasks; i++)
		free(t->tasks[i].cwd);
	free(t->tasks);
	free(t->first_cwd);
	tracefds_fini(&t->fds);
	memset(t, 0, sizeof(*t));
}

static struct traceout_task *task_of(struct traceout *t, pid_t tid)
{
	for (size_t i = 0; i < t->nr_tasks; i++)
		if (t->tasks[i].tid == tid)
			return &t->tasks[i];
	return NULL;
}

/*
 * Return the working directory of @pid as known from one of its tasks or from
 * /proc, else ipcperf's own.
 */
static char *cwd_of(struct traceout *t, pid_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	for (size_t i = 0; i < t->nr_tasks; i++)
		if (t->tasks[i].pid == pid && t->tasks[i].cwd)
			return strdup(t->tasks[i].cwd);
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		return strdup(buf);
	}
	return t->first_cwd ? strdup(t->first_cwd) : NULL;
}

/*
 * Add task @tid of @pid, alive from its first call or its clone's return; @cwd
 * is its own, or NULL.
 */
static struct traceout_task *add_task(struct traceout *t, pid_t tid, pid_t pid, const char *cwd)
{
	struct traceout_task *k = task_of(t, tid);

	if (k)
		return k;
	if (cli_grow((void **)&t->tasks, &t->cap_tasks, t->nr_tasks + 1, sizeof(*t->tasks)) < 0)
		return NULL;
	k = &t->tasks[t->nr_tasks++];
	*k = (struct traceout_task){ .tid = tid, .pid = pid,
				     .cwd = cwd ? strdup(cwd) : cwd_of(t, pid) };
	return k;
}

/* Drop task @tid, whose exit was printed; the other tasks of its process stay for now. */
static void drop_task(struct traceout *t, pid_t tid)
{
	struct traceout_task *k = task_of(t, tid);

	if (!k)
		return;
	free(k->cwd);
	*k = t->tasks[--t->nr_tasks];
}

/* Return where chdir or fchdir took the process: from /proc while it runs, else from the call. */
static char *new_cwd(const struct traceout_task *k, const struct ipcperf_syscall *ev,
		     const struct ipcperf_call_fds *fds)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)ev->pid);
	if ((n = readlink(link, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		return strdup(buf);
	}
	if (!strcmp(ev->name, "fchdir"))
		return fds && fds->fd && fds->fd->object && fds->fd->object[0] == '/' ?
			       strdup(fds->fd->object) : NULL;
	for (unsigned int i = 0; i < ev->nr_mem; i++) {
		const struct ipcperf_call_mem *m = &ev->mem[i];

		if (m->kind != IPCPERF_MEM_STRING || m->arg != 0)
			continue;
		if (m->data[0] == '/')
			snprintf(buf, sizeof(buf), "%.*s", (int)m->len, (const char *)m->data);
		else
			snprintf(buf, sizeof(buf), "%s/%.*s", k->cwd ? k->cwd : "", (int)m->len,
				 (const char *)m->data);
		return strdup(buf);
	}
	return NULL;
}

/* After a chdir or fchdir that worked, keep the process's new directory for AT_FDCWD<...>. */
static void moved(struct traceout *t, struct traceout_task *k, const struct ipcperf_syscall *ev,
		  const struct ipcperf_call_fds *fds)
{
	char *to;

	if (ev->ret != 0 || (strcmp(ev->name, "chdir") && strcmp(ev->name, "fchdir")))
		return;
	if (!(to = new_cwd(k, ev, fds)))
		return;
	for (size_t i = 0; i < t->nr_tasks; i++)
		if (t->tasks[i].pid == k->pid) {
			free(t->tasks[i].cwd);
			t->tasks[i].cwd = strdup(to);
		}
	free(to);
}

static bool makes_task(const struct ipcperf_syscall *ev)
{
	return ev->ret > 0 && (!strcmp(ev->name, "clone") || !strcmp(ev->name, "clone3") ||
			       !strcmp(ev->name, "fork") || !strcmp(ev->name, "vfork"));
}

/*
 * Print "[pid  N]" of task @tid and the time @mono_ns (CLOCK_MONOTONIC), as
 * with -f and -t, -tt, -ttt.
 */
static void put_leader(const struct traceout *t, FILE *m, pid_t tid, uint64_t mono_ns)
{
	int64_t ns = (int64_t)mono_ns + t->real_minus_mono;
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;

	if (t->nr_tasks > 1)
		fprintf(m, "[pid %5d] ", (int)tid);
	if (t->stamps == TRACE_STAMP_NONE)
		return;
	if (t->stamps == TRACE_STAMP_UNIX) {
		fprintf(m, "%lld.%06lld ", (long long)sec, (long long)(ns / 1000 % 1000000));
		return;
	}
	localtime_r(&sec, &tm);
	fprintf(m, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (t->stamps == TRACE_STAMP_US)
		fprintf(m, ".%06lld", (long long)(ns / 1000 % 1000000));
	fputc(' ', m);
}

/*
 * Return what fd @fd of @pid is when no call said it yet (an fd it had
 * before the trace): from /proc while the process runs, else, for fds 0, 1
 * and 2 of a command, ipcperf's own, which it inherited. The answer is kept
 * from then on.
 */
static const struct ipcperf_fd_object *fd_object(void *ctx, pid_t pid, int fd)
{
	struct traceout *t = ctx;
	const struct ipcperf_fd_object *o = tracefds_get(&t->fds, pid, fd);
	struct ipcperf_fd_object made = { .kind = IPCPERF_FD_FILE, .detail = "" };
	char link[64], buf[PATH_MAX];
	ssize_t n;

	if (o)
		return o;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, fd);
	if ((n = readlink(link, buf, sizeof(buf) - 1)) <= 0 && fd <= 2) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, buf, sizeof(buf) - 1);
	}
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	made.object = buf;
	if (!strncmp(buf, "pipe:[", 6))
		made.kind = IPCPERF_FD_PIPE;
	else if (buf[0] != '/')
		made.kind = IPCPERF_FD_OTHER;
	tracefds_set(&t->fds, pid, fd, &made);
	return tracefds_get(&t->fds, pid, fd);
}

/*
 * Return NAME(ARGS) of call @ev as a new string, or NULL when out of
 * memory, and set *@split to where the part printed at its exit begins.
 */
static char *call_text(struct traceout *t, const struct traceout_task *k,
		       const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds,
		       long *split)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	struct traceargs a = { .f = m, .ev = ev, .fds = fds, .strsize = t->strsize,
			       .cwd = k ? k->cwd : NULL, .fd_object = fd_object, .ctx = t,
			       .split = split };

	if (!m)
		return NULL;
	traceargs_call(&a);
	if (fclose(m) != 0) {
		free(s);
		return NULL;
	}
	if (*split < 0 || (size_t)*split > len)
		*split = (long)len;
	return s;
}

/* Print " = " at strace's column, given how far the line in @m has come. */
static void put_equals(FILE *m)
{
	long col = ftell(m);

	fprintf(m, "%*s= ", col < RET_COLUMN ? (int)(RET_COLUMN - col) + 1 : 1, "");
}

/*
 * Print the line of one call into @m: whole, or with @resumed what strace
 * prints at its exit after another task's line came, "<... NAME resumed>"
 * first.
 */
static void put_line(struct traceout *t, FILE *m, const struct traceout_task *k,
		     const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds,
		     bool resumed)
{
	struct traceargs a = { .f = m, .ev = ev, .fds = fds, .strsize = t->strsize,
			       .cwd = k ? k->cwd : NULL, .fd_object = fd_object, .ctx = t };
	long split;
	char *text = call_text(t, k, ev, fds, &split);

	if (!text)
		return;
	put_leader(t, m, ev->tid, resumed ? ev->end_ns : ev->start_ns);
	if (resumed)
		fprintf(m, "<... %s resumed>%s", ev->name, text + split);
	else
		fputs(text, m);
	free(text);
	put_equals(m);
	traceargs_ret(&a);
	if (ev->never_returns)
		;	/* exit, exit_group: "= ?" and no time, as strace -T */
	else if (t->times && ev->started_before_capture)
		fputs(" <entered before the capture>", m);	/* its duration is unknown */
	else if (t->times)
		fprintf(m, " <%" PRIu64 ".%06" PRIu64 ">", (ev->end_ns - ev->start_ns) / 1000000000,
			(ev->end_ns - ev->start_ns) / 1000 % 1000000);
	fputc('\n', m);
	if (ev->never_returns) {
		if (t->nr_tasks > 1)
			fprintf(m, "[pid %5d] ", (int)ev->tid);
		fprintf(m, "+++ exited with %d +++\n", (int)(ev->args[0] & 0xff));
	}
}

/* Return the leader of a line of task @tid at @mono_ns as a string the caller frees, or NULL. */
static char *leader_of(const struct traceout *t, pid_t tid, uint64_t mono_ns)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	put_leader(t, m, tid, mono_ns);
	if (fclose(m) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* ------------------------------------------------------------------ calls under way */

static struct traceout_entry *entry_of(struct traceout *t, pid_t tid)
{
	for (size_t i = 0; i < t->nr_entries; i++)
		if (t->entries[i].tid == tid)
			return &t->entries[i];
	return NULL;
}

static void drop_entry(struct traceout *t, struct traceout_entry *e)
{
	size_t i = (size_t)(e - t->entries);

	free(e->text);
	memmove(e, e + 1, (t->nr_entries - i - 1) * sizeof(*e));
	t->nr_entries--;
}

/* Whether @e is the last entry not shown yet, that is strace's line still open. */
static bool open_line(const struct traceout *t, const struct traceout_entry *e)
{
	if (e->shown)
		return false;
	for (const struct traceout_entry *x = e + 1; x < t->entries + t->nr_entries; x++)
		if (!x->shown)
			return false;
	return true;
}

/*
 * Another line is coming, so print the entries not shown yet, except @keep,
 * in the order they came, each ending " <unfinished ...>", as strace -f ends
 * the line of a call when another task's line comes before its exit.
 */
static void show_entries(struct traceout *t, const struct traceout_entry *keep)
{
	for (size_t i = 0; i < t->nr_entries; i++) {
		struct traceout_entry *e = &t->entries[i];

		if (e->shown || e == keep)
			continue;
		put_leader(t, t->f, e->tid, e->start_ns);
		fprintf(t->f, "%s <unfinished ...>\n", e->text);
		e->shown = true;
	}
}

void traceout_entered(struct traceout *t, const struct ipcperf_syscall *ev,
		      const struct ipcperf_call_fds *fds)
{
	struct traceout_task *k = add_task(t, ev->tid, ev->pid, NULL);
	struct traceout_entry *e = entry_of(t, ev->tid);
	long split;
	char *text;

	if (e)
		drop_entry(t, e);	/* its call never came */
	if (t->nr_entries == t->cap_entries) {
		size_t cap = t->cap_entries ? 2 * t->cap_entries : 8;
		struct traceout_entry *v = realloc(t->entries, cap * sizeof(*v));

		if (!v)
			return;
		t->entries = v;
		t->cap_entries = cap;
	}
	if (!(text = call_text(t, k, ev, fds, &split)))
		return;
	text[split] = '\0';
	t->entries[t->nr_entries++] = (struct traceout_entry){
		.tid = ev->tid, .nr = ev->nr, .name = ev->name, .start_ns = ev->start_ns,
		.text = text,
	};
}

void traceout_flush(struct traceout *t)
{
	show_entries(t, NULL);
}

/*
 * Before task @tid's end, end its call under way, if any, as unfinished,
 * as strace -f does ("= ?"), and show every other entry.
 */
static void end_entry(struct traceout *t, pid_t tid, uint64_t ns)
{
	struct traceout_entry *e = entry_of(t, tid);
	char *line = NULL;
	size_t len = 0;
	FILE *m;

	show_entries(t, e && open_line(t, e) ? e : NULL);
	if (!e || !(m = open_memstream(&line, &len)))
		return;
	put_leader(t, m, tid, ns);
	if (e->shown)
		fprintf(m, "<... %s resumed> <unfinished ...>)", e->name);
	else
		fprintf(m, "%s <unfinished ...>)", e->text);
	put_equals(m);
	fputs("?\n", m);
	if (fclose(m) == 0)
		fwrite(line, 1, len, t->f);
	free(line);
	drop_entry(t, e);
}

/* ------------------------------------------------------------------ signals, ends */

void traceout_signal(struct traceout *t, const struct ipcperf_signal *ev)
{
	char *leader;

	add_task(t, ev->tid, ev->pid, NULL);
	show_entries(t, NULL);
	if (!(leader = leader_of(t, ev->tid, ev->time_ns)))
		return;
	tracesig_lines(t->f, leader, ev);
	free(leader);
}

void traceout_exit(struct traceout *t, const struct ipcperf_task *ev)
{
	char *leader;

	/* The task is gone already: its exit or exit_group said so. */
	if (!task_of(t, ev->tid))
		return;
	end_entry(t, ev->tid, ev->time_ns);
	if (ev->exit_status >= 0 && (leader = leader_of(t, ev->tid, ev->time_ns))) {
		tracesig_exit(t->f, leader, ev->exit_status);
		free(leader);
	}
	drop_task(t, ev->tid);
	if (ev->tid == ev->pid)
		tracefds_drop(&t->fds, ev->pid, -1);
}

void traceout_call(struct traceout *t, const struct ipcperf_syscall *ev,
		   const struct ipcperf_call_fds *fds)
{
	struct traceout_task *k = add_task(t, ev->tid, ev->pid, NULL);
	struct traceout_entry *e = entry_of(t, ev->tid);
	char *line = NULL;
	size_t len = 0;
	bool resumed = false;
	FILE *m;

	if (e && e->nr != ev->nr) {
		drop_entry(t, e);	/* a call whose end never came */
		e = NULL;
	}
	/* strace's open line is this call's: the others end unfinished, and this one is whole. */
	if (e && open_line(t, e)) {
		show_entries(t, e);
	} else {
		show_entries(t, NULL);
		resumed = e != NULL;
	}
	if (e)
		drop_entry(t, e);
	if (!(m = open_memstream(&line, &len)))
		return;
	put_line(t, m, k, ev, fds, resumed);
	if (fclose(m) == 0)
		fwrite(line, 1, len, t->f);
	free(line);
	tracefds_take(&t->fds, ev, fds);
	if (makes_task(ev) && !(ev->args[0] & 0x10000 && !strcmp(ev->name, "clone"))) {
		add_task(t, (pid_t)ev->ret, (pid_t)ev->ret, k ? k->cwd : NULL);
		tracefds_fork(&t->fds, ev->pid, (pid_t)ev->ret);
	} else if (makes_task(ev)) {
		add_task(t, (pid_t)ev->ret, ev->pid, k ? k->cwd : NULL);	/* a thread */
	}
	if (ev->never_returns && !strcmp(ev->name, "exit_group"))
		tracefds_drop(&t->fds, ev->pid, -1);
	if (ev->never_returns)
		drop_task(t, ev->tid);	/* the process's other threads: at their exits */
	else if ((k = task_of(t, ev->tid)))
		moved(t, k, ev, fds);
}
