/*
 * ipcperf paths -i A -i B ...: the captures of several hosts joined
 * (ipcperf_paths__add_host()), in two passes over them. Each capture's
 * clock reference (read at its start and its stop) puts its events on the
 * first capture's wall clock; the first pass bounds what the hosts' clocks
 * still disagree by, from the bytes that went between them, and the second
 * gives the paths with every host's times corrected by the middle of those
 * bounds, or by the line of a drifting clock when no one offset fits them.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "joinrun.h"
#include "otlpout.h"
#include "perfettoout.h"
#include "userfile.h"
#include "util.h"

/* The captures are fed in the order of their times, this much at a time (well under 20 ms). */
#define STEP_NS 2000000ull

struct jhost {
	struct ipcperf_session *s;
	struct ipcperf_stats *st;
	struct ipcperf_flows *fl;
};

/* A pass over the captures: a session, stats and flows a host, the paths over them. */
struct jpass {
	const struct paths_opts *o;
	size_t n;
	struct jhost h[CLI_INPUTS_MAX];
	/* each host's clock less the first's, taken off its times: off at ref (its own clock), */
	int64_t off[CLI_INPUTS_MAX];
	int64_t drift[CLI_INPUTS_MAX];	/* changing by this many ns a second */
	uint64_t ref[CLI_INPUTS_MAX];
	struct ipcperf_paths *pa;
};

static void pass_free(struct jpass *j)
{
	for (size_t i = 0; i < j->n; i++)
		cli_session_release(j->h[i].s);
	ipcperf_paths__delete(j->pa);
	for (size_t i = 0; i < j->n; i++) {
		ipcperf_flows__delete(j->h[i].fl);
		ipcperf_stats__delete(j->h[i].st);
	}
	memset(j->h, 0, sizeof(j->h));
	j->pa = NULL;
}

/* Host @i's clock less the first host's at @t, on its own clock. */
static int64_t off_at(const struct jpass *j, size_t i, uint64_t t)
{
	return j->off[i] + (int64_t)((double)j->drift[i] * ((double)t - (double)j->ref[i]) / 1e9);
}

/*
 * Time @t of the first host's clock on host @i's own. The offset at @t is
 * read at @t plus the offset at the reference, which is near enough, and
 * never below 0: at the first feed (@t 0) a negative offset wrapped it to
 * 2^64, and a clock found drifting faster than the first then had its
 * whole capture read at once, ahead of the other hosts' (test-paths-hosts
 * failed with '4 requests, want 40').
 */
static uint64_t own_time(const struct jpass *j, size_t i, uint64_t t)
{
	int64_t near = (int64_t)t + j->off[i];
	int64_t own = (int64_t)t + off_at(j, i, near < 0 ? 0 : (uint64_t)near);

	return own < 0 ? 0 : (uint64_t)own;
}

/* Host @i's stats and flows over its capture; the paths on the first. @return 0, or -1 (said). */
static int pass_attach_host(struct jpass *j, size_t i)
{
	struct jhost *h = &j->h[i];
	int err = 0;

	h->st = ipcperf_stats__new(NULL);
	h->fl = h->st ? ipcperf_flows__new(h->st) : NULL;
	if (!h->fl || (err = ipcperf_stats__attach(h->st, h->s)) < 0 ||
	    (err = ipcperf_flows__attach(h->fl, h->s)) < 0)
		goto fail;
	if (i == 0) {
		j->pa = ipcperf_paths__new(h->fl);
		if (!j->pa || (err = ipcperf_paths__attach(j->pa, h->s)) < 0)
			goto fail;
	} else if ((err = ipcperf_paths__add_host(j->pa, h->fl, h->s, j->off[i])) < 0 ||
		   (err = ipcperf_paths__host_clock(j->pa, (unsigned int)i, j->off[i], j->drift[i],
						    j->ref[i])) < 0) {
		goto fail;
	}
	return 0;
fail:
	cli_err("cannot set up the request paths: %s", strerror(err ? -err : ENOMEM));
	return -1;
}

/* Up to @t (the first host's clock), each host's records. @return 0, or -1 (said). */
static int pass_feed(struct jpass *j, uint64_t t, bool *all_read)
{
	*all_read = true;
	for (size_t i = 0; i < j->n; i++) {
		if (ipcperf_session__consume_until(j->h[i].s, own_time(j, i, t)) < 0)
			return -1;	/* said by the library */
		*all_read &= ipcperf_session__done(j->h[i].s);
	}
	return 0;
}

/* Where the hosts' records begin and end, on the first host's clock. */
static void pass_span(const struct jpass *j, uint64_t *from, uint64_t *to)
{
	*from = UINT64_MAX;
	*to = 0;
	for (size_t i = 0; i < j->n; i++) {
		struct ipcperf_session_stats st = { .sz = sizeof(st) };

		if (ipcperf_session__stats(j->h[i].s, &st) < 0)
			continue;
		if (st.start_ns - (uint64_t)off_at(j, i, st.start_ns) < *from)
			*from = st.start_ns - (uint64_t)off_at(j, i, st.start_ns);
		if (st.stop_ns && st.stop_ns - (uint64_t)off_at(j, i, st.stop_ns) > *to)
			*to = st.stop_ns - (uint64_t)off_at(j, i, st.stop_ns);
	}
}

static void read_hosts(struct jpass *j, struct paths_host *hosts);

/*
 * Every capture, in the order of the times, into the paths; then flushed.
 * The first pass (@hosts) reads the captures' hosts and clock references
 * first. @return 0, or -1 (said).
 */
static int pass_run(struct jpass *j, struct pathsout *po, struct paths_host *hosts)
{
	uint64_t t, end;
	bool all_read = false;
	int err;

	for (size_t i = 0; i < j->n; i++)
		if (!(j->h[i].s = cli_user_open_capture(j->o->inputs.v[i])))
			return -1;	/* the library said why */
	if (hosts)
		read_hosts(j, hosts);
	for (size_t i = 0; i < j->n; i++)
		if (pass_attach_host(j, i) < 0)
			return -1;
	ipcperf_paths__on_path(j->pa, po ? pathsout_add : NULL, po);
	for (size_t i = 0; i < j->n; i++)
		if ((err = ipcperf_session__start(j->h[i].s)) < 0) {
			cli_err("cannot read %s: %s", j->o->inputs.v[i], strerror(-err));
			return -1;
		}
	/* the first round of each tells where it starts */
	if (pass_feed(j, 0, &all_read) < 0)
		return -1;
	pass_span(j, &t, &end);
	for (t = t > STEP_NS ? t - STEP_NS : 0;; t += STEP_NS) {
		uint64_t from;

		if (pass_feed(j, t, &all_read) < 0)
			return -1;
		/* read whole, each capture says where it stops */
		if (all_read && (pass_span(j, &from, &end), t > end))
			break;
	}
	for (size_t i = 0; i < j->n; i++)
		if (ipcperf_session__consume_until(j->h[i].s, UINT64_MAX) < 0 ||
		    ipcperf_session__stop(j->h[i].s) < 0)
			return -1;
	if ((err = ipcperf_paths__flush(j->pa)) < 0) {
		cli_err("cannot collect the request paths: %s", strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * Each host's clock less the first's as their clock references say (the
 * wall clocks read with the monotonic ones): 0 where one has none. Read at
 * the start and at the stop, they give a line through both.
 */
static void offsets_from_refs(struct jpass *j, const struct paths_host *hosts)
{
	const struct ipcperf_capture_info *a = &hosts[0].ci;

	for (size_t i = 0; i < j->n; i++) {
		const struct ipcperf_capture_info *b = &hosts[i].ci;
		int64_t at_stop;

		j->off[i] = j->drift[i] = 0;
		j->ref[i] = 0;
		if (!a->has_clock || !b->has_clock)
			continue;
		j->off[i] = (int64_t)(b->mono_start_ns - b->real_start_ns) -
			    (int64_t)(a->mono_start_ns - a->real_start_ns);
		j->ref[i] = b->mono_start_ns;
		if (!a->mono_stop_ns || b->mono_stop_ns <= b->mono_start_ns)
			continue;
		at_stop = (int64_t)(b->mono_stop_ns - b->real_stop_ns) -
			  (int64_t)(a->mono_stop_ns - a->real_stop_ns);
		j->drift[i] = (int64_t)((double)(at_stop - j->off[i]) * 1e9 /
					(double)(b->mono_stop_ns - b->mono_start_ns));
	}
}

/* The captures' hosts, and the offsets their clock references give. */
static void read_hosts(struct jpass *j, struct paths_host *hosts)
{
	for (size_t i = 0; i < j->n; i++) {
		hosts[i] = (struct paths_host){ .ci.sz = sizeof(hosts[i].ci) };
		ipcperf_session__capture_info(j->h[i].s, &hosts[i].ci);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(hosts[k].ci.host, hosts[i].ci.host))
				cli_err("warning: %s and %s both say host '%s': they are joined as two "
					"hosts; name them apart with ipcperf record --host NAME",
					j->o->inputs.v[k], j->o->inputs.v[i], hosts[i].ci.host);
	}
	offsets_from_refs(j, hosts);
}

/* Host @i's clock as the first pass found it, on top of the one it was read with. */
static void take_clock(struct jpass *j, size_t i, const struct ipcperf_paths_clock *c)
{
	uint64_t ref;

	if (!c->drifting) {
		j->off[i] += c->offset_ns;
		return;
	}
	/* the line's time of reference on the host's own clock; the offset there */
	ref = own_time(j, i, c->ref_ns);
	j->off[i] = off_at(j, i, ref) + c->offset_ns;
	j->drift[i] += c->drift_ppb;
	j->ref[i] = ref;
}

/*
 * The first pass: the clocks. A host that no byte joins to the others
 * ends the run: its requests could be no one's. @return 0, or -1 (said).
 */
static int clocks(struct jpass *j, struct paths_host *hosts, struct ipcperf_paths_stats *ps)
{
	if (pass_run(j, NULL, hosts) < 0 || ipcperf_paths__stats(j->pa, ps) < 0)
		return -1;
	if (!ps->tcp_joined) {
		cli_err("the captures share no TCP connection seen from both ends (%" PRIu64 " with "
			"a start not captured, %" PRIu64 " ends with no other end in them): record "
			"the hosts while they talk to each other", ps->tcp_unseen_start,
			ps->tcp_no_peer);
		return -1;
	}
	for (size_t i = 1; i < j->n; i++) {
		struct ipcperf_paths_clock c = { .sz = sizeof(c) };

		ipcperf_paths__clock(j->pa, (unsigned int)i, &c);
		if (!c.known) {
			cli_err("%s (host %s) shares no connection whose bytes went both ways with the "
				"others%s: its clock cannot be placed", j->o->inputs.v[i], hosts[i].ci.host,
				c.inconsistent ? " that one clock fits (do its clocks drift?)" : "");
			return -1;
		}
		hosts[i].joined = true;
		hosts[i].offset_ns = c.offset_ns;
		hosts[i].uncertainty_ns = c.uncertainty_ns;
		hosts[i].drifting = c.drifting;
		hosts[i].drift_ppb = c.drift_ppb;
		hosts[i].ref_ns = c.ref_ns;
		take_clock(j, i, &c);
	}
	return 0;
}

void paths_text_hosts(FILE *f, const struct paths_host *hosts, const char *const *inputs,
		      size_t n, const struct ipcperf_paths_stats *ps)
{
	char a[32], b[32];

	fprintf(f, "\nhosts: %s (%s), the clock the times are on\n", hosts[0].ci.host, inputs[0]);
	for (size_t i = 1; i < n; i++) {
		int64_t off = hosts[i].offset_ns;

		fmt_ns(a, sizeof(a), (uint64_t)(off < 0 ? -off : off));
		fmt_ns(b, sizeof(b), hosts[i].uncertainty_ns);
		fprintf(f, "       %s (%s): its clock %s%s +-%s against %s's", hosts[i].ci.host,
			inputs[i], off < 0 ? "-" : "+", a, b, hosts[0].ci.host);
		if (hosts[i].drifting)
			fprintf(f, " at the middle of the exchanges, drifting %+.3f ppm",
				(double)hosts[i].drift_ppb / 1e3);
		fputc('\n', f);
	}
	fprintf(f, "TCP connections between the hosts: %" PRIu64 " joined, %" PRIu64
		" not (their start not captured), %" PRIu64 " ends with no other end captured\n",
		ps->tcp_joined, ps->tcp_unseen_start, ps->tcp_no_peer);
}

void paths_join_summary(struct ipcperf_session *const *s, size_t n, struct cli_summary *sum)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };

	memset(sum, 0, sizeof(*sum));
	if (ipcperf_session__stats(s[0], &st) == 0)
		cli_summary_of(sum, &st, NULL);
	for (size_t i = 1; i < n; i++) {
		struct ipcperf_session_stats si = { .sz = sizeof(si) };

		if (ipcperf_session__stats(s[i], &si) == 0) {
			sum->lost += si.lost;
			sum->records += si.records;
			sum->unpaired += si.unpaired_enter + si.unpaired_exit;
		}
	}
}

/* The second pass's report. @return 0, or -1 (said). */
static int report(struct jpass *j, struct pathsout *po, const struct paths_host *hosts,
		  struct cli_out *out)
{
	struct ipcperf_paths_stats ps = { .sz = sizeof(ps) };
	struct ipcperf_session *s[CLI_INPUTS_MAX] = { NULL };
	struct cli_summary sum;
	char what[CLI_WHAT_LEN];
	size_t at = (size_t)snprintf(what, sizeof(what), "%zu hosts", j->n);

	if (ipcperf_paths__stats(j->pa, &ps) < 0 || pathsout_failed(po)) {
		cli_err("cannot collect the request paths: %s", strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < j->n; i++)
		s[i] = j->h[i].s;
	paths_join_summary(s, j->n, &sum);
	for (size_t i = 0; i < j->n && at < sizeof(what); i++)
		at += (size_t)snprintf(what + at, sizeof(what) - at, "%s%s", i ? ", " : " (",
				       hosts[i].ci.host);
	if (at < sizeof(what))
		snprintf(what + at, sizeof(what) - at, ")");
	if (j->o->json) {
		pathsout_json(out->f, po, &ps, &sum, j->o->requests, hosts, j->n);
	} else {
		pathsout_text(out->f, po, what, &ps, &sum);
		paths_text_hosts(out->f, hosts, (const char *const *)j->o->inputs.v, j->n, &ps);
	}
	return 0;
}

/* The timeline of the joined requests, on the first host's clock. @return 0, or -1 (said). */
static int timeline(const struct paths_opts *o, const struct pathsout *po)
{
	struct cli_out f = { 0 };

	if (cli_out_open(&f, o->perfetto, "the timeline") < 0)
		return -1;
	if (perfettoout_write(f.f, po) < 0) {
		cli_err("cannot write the timeline: %s", strerror(ENOMEM));
		cli_out_close(&f);
		return -1;
	}
	return cli_out_close(&f);
}

/*
 * The traces and the timeline, after the report: the files first, the
 * POST last, on the first capture's wall clock. @return 0, or -1 (said).
 */
static int traces(const struct paths_opts *o, const struct pathsout *po,
		  const struct paths_host *hosts)
{
	const struct ipcperf_capture_info *ci = &hosts[0].ci;
	int64_t real_minus_mono = ci->has_clock ? (int64_t)(ci->real_start_ns - ci->mono_start_ns) : 0;
	struct cli_out f = { 0 };
	size_t len = 0;
	char *doc;
	int ret = 0;

	if (o->perfetto && timeline(o, po) < 0)
		ret = -1;
	if (!o->otlp && !o->otlp_endpoint)
		return ret;
	if (!ci->has_clock) {
		struct timespec r, m;

		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m);
		real_minus_mono = (int64_t)(r.tv_sec - m.tv_sec) * 1000000000 + (r.tv_nsec - m.tv_nsec);
	}
	if (!(doc = otlpout_doc(po, real_minus_mono, &len))) {
		cli_err("cannot make the traces: %s", strerror(ENOMEM));
		return -1;
	}
	if (o->otlp && cli_out_open(&f, o->otlp, "the traces") == 0) {
		fwrite(doc, 1, len, f.f);
		ret |= cli_out_close(&f);
	} else if (o->otlp) {
		ret = -1;
	}
	if (o->otlp_endpoint && otlpout_post(o->otlp_endpoint, doc, len) < 0)
		ret = -1;
	free(doc);
	return ret < 0 ? -1 : 0;
}

int paths_join_run(const struct paths_opts *o)
{
	struct paths_host hosts[CLI_INPUTS_MAX];
	struct jpass j = { .o = o, .n = o->inputs.n };
	struct ipcperf_paths_stats ps = { .sz = sizeof(ps) };
	struct cli_out out = { 0 };
	struct pathsout *po = NULL;
	bool failed = true;

	cli_setup_print(o->verbose);
	if (clocks(&j, hosts, &ps) == 0) {
		pass_free(&j);
		po = pathsout_new((o->json && o->requests) || o->otlp || o->otlp_endpoint ||
				  o->perfetto);
		if (po && cli_open_output(&out, &o->t) == 0) {
			pathsout_set_hosts(po, hosts, j.n);
			failed = pass_run(&j, po, NULL) < 0 || report(&j, po, hosts, &out) < 0;
		}
	}
	failed |= cli_out_close(&out) < 0;
	if (!failed)
		failed = traces(o, po, hosts) < 0;
	pass_free(&j);
	pathsout_delete(po);
	return failed ? EXIT_RUNTIME : EXIT_OK;
}

/*
 * Another view of the captures joined (report --view flows): the clocks,
 * then the second pass with no paths kept, then @fn over what it read.
 * @return 0, or -1 (said).
 */
int paths_join_view(const struct paths_opts *o, paths_join_fn fn, void *ctx)
{
	struct paths_host hosts[CLI_INPUTS_MAX];
	struct jpass j = { .o = o, .n = o->inputs.n };
	struct ipcperf_paths_stats ps = { .sz = sizeof(ps) };
	struct paths_join_view v = { .n = j.n, .inputs = o->inputs.v, .hosts = hosts, .ps = &ps };
	int ret = -1;

	cli_setup_print(o->verbose);
	if (clocks(&j, hosts, &ps) == 0) {
		pass_free(&j);
		if (pass_run(&j, NULL, NULL) == 0 && ipcperf_paths__stats(j.pa, &ps) == 0) {
			for (size_t i = 0; i < j.n; i++) {
				v.s[i] = j.h[i].s;
				v.st[i] = j.h[i].st;
				v.fl[i] = j.h[i].fl;
			}
			v.pa = j.pa;
			ret = fn(ctx, &v);
		}
	}
	pass_free(&j);
	return ret;
}
