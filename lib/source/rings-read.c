/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the live source reads (rings.h): its rings are read round by round
 * into the capture, the tap and the pipeline. This file also notes hang-ups
 * and targets gone, and counts the losses no LOST record reported.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "source/rings.h"

/* ------------------------------------------------------------------ reading */

static bool is_bpf_id(const struct ipp_rings *s, uint64_t id)
{
	const uint64_t *ids;
	size_t n;

	ids = ipp_bpf__ids(s->bpf, &n);
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * Read the fields that ipcperf asked the kernel to add to a ring record (its
 * time, pid, tid, CPU and event id; perfdata.h gives their layout) into
 * @smp. A sample carries them in its body, any other record in a trailer.
 * Returns false when the record carries none of them.
 */
static bool own_fields(const union perf_event *ev, size_t size, struct ipp_pd_sample *smp)
{
	return ev->header.type == PERF_RECORD_SAMPLE ? ipp_pd_own_sample(ev, size, smp) :
	       ipp_pd_own_trailer(ev, size, smp);
}

/*
 * Hand one ring record to each of its readers: the tap, the capture being
 * written, and the pipeline (perfdata.h gives the record's layout). Returns
 * the record's time stamp, or 0 when it carries none of ipcperf's fields.
 */
static uint64_t take_record(struct ipp_rings *s, const union perf_event *ev, bool sideband)
{
	size_t size = ev->header.size;
	struct ipp_pd_sample smp;

	if (s->tap)
		s->tap(s->tap_ctx, ev, size);
	if (s->recorder)
		ipp_recorder__write(s->recorder, ev, size);
	if (!own_fields(ev, size, &smp)) {
		ipp_pipeline__skip(s->base.pl);
		return 0;
	}
	/* The kernel's fd identity records also carry the IP in their layout. */
	if (s->bpf && ev->header.type == PERF_RECORD_SAMPLE && is_bpf_id(s, smp.id) &&
	    !ipp_pd_bpf_sample(ev, size, &smp)) {
		ipp_pipeline__skip(s->base.pl);
		return 0;
	}
	ipp_pipeline__take(s->base.pl, ev->header.type, ev->header.misc, &smp,
			   (const unsigned char *)ev + sizeof(ev->header), size - sizeof(ev->header),
			   sideband);
	return smp.time;
}

/*
 * Take up to @max records from one ring. Set *@time to the stamp of the
 * last record taken that had one (leave it as it was when none did), and
 * *@any when any record was read. Returns true when the ring ran dry, false
 * when it may hold more.
 */
static bool read_ring(struct ipp_rings *s, struct perf_mmap *map, bool sb, size_t max,
		      uint64_t *time, bool *any)
{
	union perf_event *ev;

	if (perf_mmap__read_init(map) < 0)
		return true;
	/*
	 * No perf_mmap__read_done(): in libperf 6.1 it moves the read position
	 * to the ring's head as it is now, past records written since the last
	 * read_event(), which were then never read and never reported lost.
	 * read_event() already keeps the position, and consume() hands the
	 * space back.
	 */
	for (size_t n = 0; n < max; n++) {
		uint64_t t;

		if (!(ev = perf_mmap__read_event(map)))
			return true;
		*any = true;
		t = take_record(s, ev, sb);
		if (t)
			*time = t;
		perf_mmap__consume(map);
	}
	return false;
}

/*
 * Read one round: at most RING_CHUNK records of every ring in turn, so that
 * no ring waits behind a busy one. Returns UINT64_MAX when every ring ran
 * dry. Otherwise returns the stamp before which everything has been read
 * from the rings that may hold more, whose next records are stamped later.
 */
static uint64_t read_round(struct ipp_rings *s)
{
	uint64_t limit = UINT64_MAX;
	struct perf_mmap *map;
	bool any = false;

	for (int sb = 0; sb < 2; sb++)
		perf_evlist__for_each_mmap(sb ? s->sb_evlist : s->evlist, map, false) {
			uint64_t t = 0;

			/*
			 * A record without ipcperf's stamp does not go to the
			 * pipeline, so it has no order to keep.
			 */
			if (!read_ring(s, map, sb, RING_CHUNK, &t, &any) && t && t - 1 < limit)
				limit = t - 1;
		}
	/*
	 * Every ring was read to its head, so a capture may mark a finished
	 * round here: what comes after it is stamped later than what came
	 * before the previous mark. A ring left partly read would break that.
	 */
	if (limit == UINT64_MAX && any) {
		if (s->tap)
			s->tap(s->tap_ctx, NULL, 0);
		if (s->recorder)
			ipp_recorder__write(s->recorder, NULL, 0);
	}
	return limit;
}

/*
 * Read the rings and deliver what they held up to @horizon, round by round,
 * until they are dry or the clock passes @until: what is still in them waits
 * for the next pass (the kernel counts what no longer fits as lost). When
 * @dry is not NULL, *@dry says whether they ran dry. Returns the events
 * delivered, or -errno.
 */
int ipp_rings__read_rings(struct ipp_rings *s, uint64_t horizon, uint64_t until, bool *dry)
{
	uint64_t limit;
	int n = 0, err;

	do {
		limit = read_round(s);
		err = ipp_pipeline__deliver(s->base.pl, limit < horizon ? limit : horizon);
		if (err < 0)
			return err;
		n += err;
	} while (limit != UINT64_MAX && ipp_now_ns() < until);
	s->delivered_ns = limit < horizon ? limit : horizon;
	if (dry)
		*dry = limit == UINT64_MAX;
	return n;
}

/*
 * Count what ring @map still holds, without reading it into the pipeline.
 * Each record adds to @left by CPU, and records without a CPU add to the
 * last slot; a LOST record adds the number it reports.
 */
static void left_in(struct ipp_rings *s, struct perf_mmap *map, uint64_t *left, int nr)
{
	union perf_event *ev;

	if (perf_mmap__read_init(map) < 0)
		return;
	while ((ev = perf_mmap__read_event(map)) != NULL) {
		struct ipp_pd_sample smp = { .cpu = (uint32_t)-1 };

		own_fields(ev, ev->header.size, &smp);
		left[smp.cpu < (uint32_t)nr ? (int)smp.cpu : nr] +=
			ev->header.type == PERF_RECORD_LOST ? ev->lost.lost : 1;
		perf_mmap__consume(map);
	}
}

/*
 * At the stop, count what the bounded drain left in the rings as lost,
 * without reading it. There is one report per CPU, not one per record,
 * since a full ring holds about 100,000. Returns the number of reports
 * given to the lost handlers.
 */
int ipp_rings__count_left(struct ipp_rings *s)
{
	int nr = perf_cpu_map__max(s->cpus).cpu + 1, told = 0;
	uint64_t *left = calloc((size_t)nr + 1, sizeof(*left));
	struct perf_mmap *map;

	if (!left)
		return 0;
	for (int sb = 0; sb < 2; sb++)
		perf_evlist__for_each_mmap(sb ? s->sb_evlist : s->evlist, map, false)
			left_in(s, map, left, nr);
	for (int c = 0; c <= nr; c++) {
		if (!left[c])
			continue;
		if (s->recorder)
			ipp_recorder__lost(s->recorder, c < nr ? c : -1, left[c]);
		ipp_pipeline__lost(s->base.pl, c < nr ? c : -1, left[c]);
		told++;
	}
	free(left);
	return told;
}

/* Note rings whose targets all exited: they stop counting towards done(). */
static void reap_hangups(struct ipp_rings *s, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		if ((evs[i].events & (EPOLLHUP | EPOLLERR)) && evs[i].data.fd != s->cmd_pidfd) {
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
			if (s->nr_live)
				s->nr_live--;
		}
}

static int check_hangups(struct ipp_rings *s)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n;

	do {
		n = epoll_wait(s->epfd, evs, EPOLL_BATCH, 0);
		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		reap_hangups(s, evs, n);
	} while (n == EPOLL_BATCH);
	return 0;
}

/*
 * Whether the command exited, as waitid() says whatever records went
 * missing. The command stays waitable.
 */
static bool cmd_exited(struct ipp_rings *s)
{
	siginfo_t si = { 0 };

	if (!s->cmd_exited && s->has_cmd && s->cmd.started &&
	    (s->cmd.reaped ||
	     (waitid(P_PID, (id_t)s->cmd.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)))
		s->cmd_exited = true;
	return s->cmd_exited;
}

/*
 * The end of a CPU-scope run must not hang on an exit record that was lost
 * (the kernel reports a ring's losses only with its next record, and may
 * never): once a second, and as soon as the command exits, the targets are
 * compared with /proc; a task found gone stops being one once every record
 * stamped before it was seen gone has been delivered. After lost side-band
 * records, targets' threads and children the set lacks are looked for too.
 */
static void check_targets(struct ipp_rings *s, uint64_t pass, uint64_t horizon, bool cmd_now)
{
	struct ipp_follow *f = s->follow;

	ipp_follow__expire(f, horizon);
	if (ipp_follow__done(f) || (!cmd_now && pass - s->check_ns < CHECK_NS))
		return;
	/*
	 * Stamp the check with the time /proc is read, not @pass, since a task
	 * may exit in between.
	 */
	s->check_ns = ipp_now_ns();
	if (ipp_follow__check(f, s->check_ns, ipp_pipeline__sideband_lost(s->base.pl),
			      s->has_cmd && s->cmd.started) > 0)
		ipp_debug("targets checked against /proc\n");
}

int ipp_rings__consume(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);
	uint64_t pass = ipp_now_ns(), horizon;
	bool cmd_now;
	int err;

	if (s->tick_fd >= 0) {
		uint64_t ticks;

		if (read(s->tick_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
			return -errno;
	}
	err = check_hangups(s);
	if (err)
		return err;
	/*
	 * The pass that first sees the command gone takes every record stamped
	 * before it, not only those older than the slack: the command's last
	 * ones (its exit) are written, and waiting out the slack would hold the
	 * end of a short run by that much.
	 */
	cmd_now = s->follow && !s->cmd_exited && cmd_exited(s);
	horizon = cmd_now ? pass : pass > MERGE_SLACK_NS ? pass - MERGE_SLACK_NS : 0;
	err = ipp_rings__read_rings(s, horizon, pass + PASS_NS, NULL);
	/*
	 * A target that /proc showed gone is forgotten once every record
	 * stamped before is delivered. It is not forgotten at the horizon when
	 * the pass left records in the rings (a reader falling behind under
	 * load): that would forget it before its last records, and take those
	 * for another task's (foreign).
	 */
	if (s->follow)
		check_targets(s, pass, s->delivered_ns, cmd_now);
	return err;
}

int ipp_rings__wait(struct ipp_source *src, int timeout_ms)
{
	struct ipp_rings *s = rings_of(src);
	struct epoll_event evs[EPOLL_BATCH];
	int n = epoll_wait(s->epfd, evs, EPOLL_BATCH, timeout_ms);

	if (n < 0)
		return -errno;
	reap_hangups(s, evs, n);
	return 0;
}

int ipp_rings__fd(const struct ipp_source *src)
{
	return crings_of(src)->epfd >= 0 ? crings_of(src)->epfd : -EINVAL;
}

bool ipp_rings__done(const struct ipp_source *src)
{
	const struct ipp_rings *s = crings_of(src);

	/* Running targets with a command: the command's exit ends the run. */
	if (ipp_rings__mixed(s))
		return s->cmd_exited || ipp_follow__done(s->follow);
	if (s->follow)
		return ipp_follow__done(s->follow);
	return !s->system_wide && s->nr_live == 0;
}

/*
 * Return how often the syscall tracepoints fired on the CPU of index @idx,
 * counting each call record the kernel tried there as a syscall sample.
 */
static uint64_t fired_on(const struct ipp_rings *s, int idx)
{
	struct perf_evsel *evsel;
	uint64_t fired = 0, calls = 0;

	/* Call records tried on that CPU: each stands for a syscall sample. */
	if (s->plan.paired &&
	    ipp_bpf__stat_on_cpu(s->bpf, IPP_FDID_ST_CALLS, perf_cpu_map__cpu(s->cpus, idx).cpu,
				 &calls) == 0)
		fired += calls;
	perf_evlist__for_each_evsel(s->evlist, evsel) {
		int nt = perf_thread_map__nr(perf_evsel__threads(evsel));
		uint64_t id = perf_evsel__attr(evsel)->config;

		if (perf_evsel__attr(evsel)->type != PERF_TYPE_TRACEPOINT ||
		    id > INT_MAX || !ipp_pipeline__is_syscall_tp(s->base.pl, (int)id))
			continue;
		for (int t = 0; t < nt; t++) {
			struct perf_counts_values v = { 0 };

			if (perf_evsel__read(evsel, idx, t, &v) == 0)
				fired += v.val;
		}
	}
	return fired;
}

/*
 * The kernel reports a ring's losses with a LOST record written by the next
 * record that fits; losses at the very end of a run never get one. A
 * syscall tracepoint's count is how often it fired in the task, kept or not,
 * so the syscall records lost on a CPU are those that fired there minus
 * those received; beyond what LOST records said, that is loss nobody
 * reported. (sched_wakeup also counts wakeups it has no record for, so it
 * is left out.) Returns 1 when a lost event was delivered for a newly found
 * loss, else 0.
 */
int ipp_rings__count_unreported_loss(struct ipp_rings *s)
{
	struct ipp_pipeline *pl = s->base.pl;
	int delivered = 0;

	for (int i = 0; i < perf_cpu_map__nr(s->cpus); i++) {
		int c = perf_cpu_map__cpu(s->cpus, i).cpu;
		uint64_t fired = fired_on(s, i), samples, lost, had, extra;

		if (!ipp_pipeline__on_cpu(pl, c, &samples, &lost))
			continue;
		had = samples + lost;
		if (fired <= had)
			continue;
		extra = fired - had;
		if (s->recorder)
			ipp_recorder__lost(s->recorder, c, extra);
		ipp_pipeline__lost(pl, c, extra);
		delivered = 1;
	}
	return delivered;
}

