/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public session: a source of records (rings.c live, replay.c from a
 * capture, through source.h) feeding one pipeline (pipeline.c), with the
 * state every method checks. What differs between live and replay is the
 * source's; what they share is here or in the pipeline.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "source/source.h"
#include "source/replay.h"
#include "fd/procres.h"
#include "session/session.h"

enum state { S_NEW, S_STARTED, S_STOPPED };

struct ipcperf_session {
	enum state state;
	struct ipp_pipeline *pl;
	struct ipp_source *src;
	/* The on_start of ipp_session__attach(), called once the events are on. */
	struct start_hook {
		void (*fn)(void *ctx);
		void *ctx;
	} *hooks;
	size_t nr_hooks, cap_hooks;
};

/* Whether the records come from the kernel (rings.c) rather than from a capture. */
static bool live(const struct ipcperf_session *s)
{
	return !s->src->ops->replay;
}

/*
 * Make a session around the source that @make returns for @a and @b, or return
 * NULL with errno set.
 */
static struct ipcperf_session *session_new(struct ipp_source *(*make)(const void *a, const void *b,
								       struct ipp_pipeline *pl),
					   const void *a, const void *b)
{
	struct ipcperf_session *s = calloc(1, sizeof(*s));
	int err;

	if (!s || !(s->pl = ipp_pipeline__new())) {
		free(s);
		return ipp_null_errno(ENOMEM);
	}
	s->src = make(a, b, s->pl);
	if (!s->src) {
		err = errno;
		ipp_pipeline__delete(s->pl);
		free(s);
		return ipp_null_errno(err);
	}
	return s;
}

static struct ipp_source *make_rings(const void *opts, const void *unused, struct ipp_pipeline *pl)
{
	return ipp_rings__new(opts, pl);
}

static struct ipp_source *make_replay(const void *path, const void *opts, struct ipp_pipeline *pl)
{
	return ipp_replay__new(path, opts, pl);
}

struct ipcperf_session *ipcperf_session__new(const struct ipcperf_session_opts *opts)
{
	return session_new(make_rings, opts, NULL);
}

struct ipcperf_session *ipcperf_session__open_file(const char *path,
						   const struct ipcperf_file_opts *opts)
{
	if (!path || (opts && (opts->sz < sizeof(size_t) ||
			       !ipp_opts_valid(opts, opts->sz, sizeof(*opts))))) {
		ipp_info("invalid options: %s\n", path ? "bad sz; set it with IPCPERF_OPTS()" :
			 "no file");
		return ipp_null_errno(EINVAL);
	}
	return session_new(make_replay, path, opts);
}

void ipcperf_session__delete(struct ipcperf_session *s)
{
	if (!s)
		return;
	if (s->state == S_STARTED)
		ipcperf_session__stop(s);
	s->src->ops->destroy(s->src);
	ipp_pipeline__delete(s->pl);
	free(s->hooks);
	free(s);
}

int ipcperf_session__add_handlers(struct ipcperf_session *s, const struct ipcperf_handlers *h)
{
	if (!s || !h || h->sz < offsetof(struct ipcperf_handlers, ctx) + sizeof(h->ctx) ||
	    !ipp_opts_valid(h, h->sz, sizeof(*h)))
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	return ipp_pipeline__add_handlers(s->pl, h);
}

int ipcperf_session__start(struct ipcperf_session *s)
{
	int err;

	if (!s)
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	err = s->src->ops->start(s->src);
	if (err)
		return err;
	s->state = S_STARTED;
	for (size_t i = 0; i < s->nr_hooks; i++)
		s->hooks[i].fn(s->hooks[i].ctx);
	return 0;
}

/* Call @fn(@ctx) once the session's events are on, or now if they are. Returns 0 or -ENOMEM. */
static int session_on_start(struct ipcperf_session *s, void (*fn)(void *ctx), void *ctx)
{
	if (s->state != S_NEW) {
		fn(ctx);
		return 0;
	}
	if (ipp_grow((void **)&s->hooks, &s->cap_hooks, s->nr_hooks + 1, sizeof(*s->hooks)) < 0)
		return -ENOMEM;
	s->hooks[s->nr_hooks++] = (struct start_hook){ .fn = fn, .ctx = ctx };
	return 0;
}

int ipcperf_session__consume(struct ipcperf_session *s)
{
	if (!s)
		return -EINVAL;
	if (s->state != S_STARTED)
		return s->state == S_STOPPED ? 0 : -EINVAL;
	return s->src->ops->consume(s->src);
}

int ipcperf_session__consume_until(struct ipcperf_session *s, uint64_t until_ns)
{
	if (!s || live(s))
		return -EINVAL;
	if (s->state != S_STARTED)
		return s->state == S_STOPPED ? 0 : -EINVAL;
	ipp_replay__until(s->src, until_ns);
	return s->src->ops->consume(s->src);
}

int ipcperf_session__poll(struct ipcperf_session *s, int timeout_ms)
{
	int err, n;

	if (!s)
		return -EINVAL;
	if (s->state != S_STARTED)
		return s->state == S_STOPPED ? 0 : -EINVAL;
	/* A capture never makes the reader wait. */
	err = live(s) ? ipp_rings__wait(s->src, timeout_ms) : 0;
	if (err < 0 && err != -EINTR)
		return err;
	/*
	 * A signal is news too: after SIGCHLD the command has exited and its
	 * last records may sit in the rings below their wakeup mark. Read them
	 * now rather than one wait later.
	 */
	n = s->src->ops->consume(s->src);
	return n < 0 || !err ? n : err;
}

int ipcperf_session__fd(const struct ipcperf_session *s)
{
	if (!s || s->state == S_NEW || !live(s))
		return -EINVAL;
	return ipp_rings__fd(s->src);
}

bool ipcperf_session__done(const struct ipcperf_session *s)
{
	return s && s->state != S_NEW && s->src->ops->done(s->src);
}

int ipcperf_session__stop(struct ipcperf_session *s)
{
	int n;

	if (!s)
		return -EINVAL;
	if (s->state != S_STARTED)
		return 0;
	n = s->src->ops->stop(s->src);
	s->state = S_STOPPED;
	return n;
}

pid_t ipcperf_session__child_pid(const struct ipcperf_session *s)
{
	return s ? s->src->ops->child_pid(s->src) : -1;
}

int ipcperf_session__wait_child(struct ipcperf_session *s, int *status)
{
	/* A recorded command is not this machine's child. */
	return s && live(s) ? ipp_rings__wait_child(s->src, status) : -ECHILD;
}

int ipcperf_session__stats(const struct ipcperf_session *s, struct ipcperf_session_stats *st)
{
	struct ipcperf_session_stats v = { .sz = sizeof(v) };

	if (!s || !st || st->sz < sizeof(size_t))
		return -EINVAL;
	ipp_pipeline__stats(s->pl, &v);
	s->src->ops->stats(s->src, s->state == S_STOPPED, &v);
	memcpy((char *)st + sizeof(size_t), (char *)&v + sizeof(size_t),
	       (st->sz < sizeof(v) ? st->sz : sizeof(v)) - sizeof(size_t));
	return 0;
}

uint64_t ipcperf_session__lost_on_cpu(const struct ipcperf_session *s, int cpu)
{
	uint64_t samples, lost;

	if (!s)
		return 0;
	ipp_pipeline__on_cpu(s->pl, cpu, &samples, &lost);
	return lost;
}

int ipcperf_session__read_counters(const struct ipcperf_session *s, pid_t pid,
				   struct ipcperf_counter_value *vals)
{
	if (!s || !vals || pid < 0)
		return -EINVAL;
	return s->src->ops->read_counters(s->src, pid, vals);
}

int ipcperf_session__for_each_event(const struct ipcperf_session *s,
				    int (*cb)(void *ctx, const struct ipcperf_event_desc *d),
				    void *ctx)
{
	if (!s || !cb || s->state == S_NEW)
		return -EINVAL;
	return s->src->ops->for_each_event(s->src, cb, ctx);
}

bool ipcperf_session__partial(const struct ipcperf_session *s)
{
	return s && !live(s) && ipp_replay__partial(s->src);
}

int ipcperf_session__record(struct ipcperf_session *s, const char *path)
{
	if (!s || !path || !live(s))
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	return ipp_rings__record(s->src, path, -1);
}

int ipcperf_session__record_fd(struct ipcperf_session *s, int fd, const char *name)
{
	int err;

	if (fd < 0)
		return -EBADF;
	if (!s || !name || !live(s))
		err = -EINVAL;
	else if (s->state != S_NEW)
		err = -EBUSY;
	else
		err = ipp_rings__record(s->src, name, fd);
	/* Once the recorder is made it owns @fd; after a failure it is closed here. */
	if (err < 0)
		close(fd);
	return err;
}

/* A host's name: printable, no space, that a report can show as it is. */
static bool host_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= IPCPERF_HOST_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f)
			return false;
	return true;
}

int ipcperf_session__set_host(struct ipcperf_session *s, const char *name)
{
	if (!s || !name || !live(s) || !host_ok(name))
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	ipp_rings__set_host(s->src, name);
	return 0;
}

int ipcperf_session__capture_info(const struct ipcperf_session *s,
				  struct ipcperf_capture_info *out)
{
	struct ipcperf_capture_info ci = { .sz = sizeof(ci) };
	size_t sz;

	if (!s || !out || out->sz < sizeof(out->sz))
		return -EINVAL;
	s->src->ops->info(s->src, &ci);
	sz = out->sz < sizeof(ci) ? out->sz : sizeof(ci);
	memcpy((char *)out + sizeof(out->sz), (const char *)&ci + sizeof(ci.sz), sz - sizeof(ci.sz));
	return 0;
}

int ipcperf_session__set_tap(struct ipcperf_session *s,
			     void (*tap)(void *ctx, const void *rec, size_t size), void *ctx)
{
	if (!s || !live(s))
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	ipp_rings__set_tap(s->src, tap, ctx);
	return 0;
}

/* ------------------------------------------------------------------ for the consumers */

void ipp_session__take_sums(struct ipcperf_session *s, ipp_sum_fn fn, bool (*ok)(void *ctx),
			    void *ctx)
{
	ipp_pipeline__take_sums(s->pl, fn, ok, ctx);
}

void ipp_session__take_sched(struct ipcperf_session *s, ipp_sched_fn fn, void *ctx)
{
	ipp_pipeline__take_sched(s->pl, fn, ctx);
}

int ipp_session__attach(struct ipcperf_session *s, const struct ipcperf_handlers *h,
			void (*on_start)(void *ctx), struct ipp_attach *at)
{
	pid_t cmd;
	int err = ipcperf_session__add_handlers(s, h);

	if (err)
		return err;
	cmd = s->src->ops->child_pid(s->src);
	*at = (struct ipp_attach){ .cmd_pid = cmd > 0 ? cmd : 0, .replay = s->src->ops->replay };
	s->src->ops->describe(s->src, at);
	if (live(s) && s->state == S_NEW && !at->kernel_fdid) {
		struct ipp_procres *pr = ipp_procres__new();

		if (pr)
			at->procres = ipp_pipeline__read_ahead(s->pl, pr);
		ipp_procres__put(pr);
	}
	return on_start ? session_on_start(s, on_start, h->ctx) : 0;
}
