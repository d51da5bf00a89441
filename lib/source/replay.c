/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The replay source (source.h): a capture in the perf.data format read
 * record by record into the pipeline, round by round, with what the
 * recording session stored beside them (record.h): its counts, counters,
 * end-of-run losses and the fd identities it read from /proc.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/decode.h"
#include "capture/record.h"
#include "source/source.h"
#include "source/replay.h"

/* Records read per consume() when the capture has no rounds: keeps each call short. */
#define REPLAY_BATCH 65536
#define MAX_RING_PAGES (1u << 16)

struct ipp_replay {
	struct ipp_source base;
	struct ipp_pd_reader *rd;
	bool eof;
	uint64_t round_max;	/* latest time read since the last FINISHED_ROUND */
	uint64_t prev_round_max;	/* latest time read before it: safe to deliver up to */
	uint64_t first_ns, last_ns;	/* times of the first and last record read */
	uint64_t until;			/* no record after it delivered (consume_until); else ~0 */
	struct ipp_rec_data rec;	/* the capture's ipcperf section, when it has one */
	bool has_rec;
	bool rec_lost_done;		/* its end-of-run losses were delivered */
	int replay_err;			/* the error that ended the replay, explained once */
	unsigned int ring_pages;	/* of the recording session; 0 unknown */
	bool fdid_bpf;			/* the capture holds the kernel's fd identity records */
	uint64_t unread[256];		/* records of each type left out (not skippable) */
};

static struct ipp_replay *replay_of(struct ipp_source *src)
{
	return (struct ipp_replay *)src;
}

static const struct ipp_replay *creplay_of(const struct ipp_source *src)
{
	return (const struct ipp_replay *)src;
}

static void note_time(struct ipp_replay *s, uint64_t t)
{
	if (!s->first_ns || t < s->first_ns)
		s->first_ns = t;
	if (t > s->last_ns)
		s->last_ns = t;
	if (t > s->round_max)
		s->round_max = t;
}

/*
 * Explain running out of memory at @rec in the same form as the reader's
 * errors, which a replay's caller relies on, and return -ENOMEM.
 */
static int replay_oom(struct ipp_replay *s, const struct ipp_pd_rec *rec)
{
	ipp_info("%s: offset 0x%llx: out of memory replaying record type %u (%s)\n",
		 ipp_pd_reader__path(s->rd), (unsigned long long)rec->offset, rec->type,
		 ipp_pd_record_name(rec->type));
	return -ENOMEM;
}

/*
 * Hand one record of the capture to the pipeline. Samples and the other
 * kernel records carry their own id, time and CPU. Returns 0, -EPROTO for
 * a corrupt record (the reader explains it) or -ENOMEM (explained here);
 * either error is explained in one line that gives the offset.
 */
static int take_file_record(struct ipp_replay *s, const struct ipp_pd_rec *rec)
{
	struct ipp_pipeline *pl = s->base.pl;
	struct ipp_pd_sample smp;
	int err;

	if (!ipp_pd_record_skippable(rec->type))
		s->unread[rec->type & 255]++;
	if (rec->type >= IPP_PD_RECORD_USER_TYPE_START)
		return 0;	/* perf's own records (FINISHED_ROUND handled by the caller) */
	err = ipp_pd_reader__parse(s->rd, rec, &smp);
	if (err == -ENOENT || (!err && !(smp.sample_type & PERF_SAMPLE_TIME))) {
		/*
		 * Without sample_id_all or with an unknown id, the record
		 * cannot be placed in time.
		 */
		ipp_pipeline__skip(pl);
		return 0;
	}
	if (err < 0) {
		ipp_pipeline__skip(pl);
		return err;	/* too short for its fields, or a cpu the capture has not */
	}
	if (!(smp.sample_type & PERF_SAMPLE_CPU))
		smp.cpu = 0;
	/* The reader keeps the CPU below the capture's count, so only memory can fail here. */
	if (ipp_pipeline__cpus(pl, (size_t)smp.cpu + 1) < 0)
		return replay_oom(s, rec);
	if (rec->type == PERF_RECORD_SAMPLE || rec->type == PERF_RECORD_LOST ||
	    rec->type == PERF_RECORD_SWITCH || rec->type == PERF_RECORD_SWITCH_CPU_WIDE)
		note_time(s, smp.time);
	err = ipp_pipeline__take(pl, rec->type, rec->misc, &smp,
				 (const unsigned char *)rec->data + 8, rec->size - 8u, false);
	return err < 0 ? replay_oom(s, rec) : 0;
}

/*
 * Deliver, after every record, the losses the recorder found only at its stop
 * (count_unreported_loss).
 */
static int replay_end_losses(struct ipp_replay *s)
{
	int n = 0;

	if (!s->has_rec || s->rec_lost_done)
		return 0;
	s->rec_lost_done = true;
	for (size_t i = 0; i < s->rec.nr_lost; i++) {
		if (ipp_pipeline__cpus(s->base.pl, (size_t)s->rec.lost[i].cpu + 1) < 0)
			continue;
		ipp_pipeline__lost(s->base.pl, (int)s->rec.lost[i].cpu, s->rec.lost[i].lost);
		n++;
	}
	return n;
}

/*
 * Report once, at the end, the records left out, so that a capture of only
 * those does not look empty.
 */
static void replay_say_unread(struct ipp_replay *s)
{
	for (unsigned int t = 0; t < IPP_ARRAY_SIZE(s->unread); t++)
		if (s->unread[t]) {
			ipp_warn("%s: %llu record%s of type %u (%s) left out: ipcperf does not read "
				 "%s\n", ipp_pd_reader__path(s->rd), (unsigned long long)s->unread[t],
				 s->unread[t] == 1 ? "" : "s", t, ipp_pd_record_name(t),
				 s->unread[t] == 1 ? "it" : "them");
			s->unread[t] = 0;
		}
}

/*
 * Read the capture up to the end of a round (or a batch), and deliver what is
 * surely in order: perf's rule, everything up to the latest time read before
 * the previous FINISHED_ROUND. At the end of the file, everything.
 */
/* What may be delivered: up to the safe horizon, never past the caller's bound. */
static uint64_t replay_horizon(const struct ipp_replay *s, uint64_t safe)
{
	return safe < s->until ? safe : s->until;
}

/* One round (or a batch) of the capture into the pipeline. @return events delivered, or -errno. */
static int replay_round(struct ipp_replay *s)
{
	struct ipp_pd_rec rec;
	int n = 0, err = 0;

	for (int i = 0; i < REPLAY_BATCH && !s->eof; i++) {
		err = ipp_pd_reader__next(s->rd, &rec);
		if (err <= 0) {
			if (err == 0)
				s->eof = true;
			break;
		}
		if (rec.type == IPP_PD_RECORD_FINISHED_ROUND) {
			n += ipp_pipeline__deliver(s->base.pl, replay_horizon(s, s->prev_round_max));
			s->prev_round_max = s->round_max;
			break;
		}
		err = take_file_record(s, &rec);
		if (err < 0)
			break;
	}
	return err < 0 ? err : n;
}

/*
 * Read the capture up to the end of a round (or a batch), and deliver what is
 * surely in order: perf's rule, everything up to the latest time read before
 * the previous FINISHED_ROUND. At the end of the file, everything. Under a
 * bound (consume_until), rounds are read until the records up to it are
 * all in, and those are delivered.
 */
static int replay_consume(struct ipp_source *src)
{
	struct ipp_replay *s = replay_of(src);
	int n = 0, err;

	/* The error was explained when it happened; later calls return it again silently. */
	if (s->replay_err)
		return s->replay_err;
	do {
		if (s->eof || s->prev_round_max >= s->until)
			break;
		err = replay_round(s);
		if (err < 0)
			return s->replay_err = err;
		n += err;
	} while (s->until != UINT64_MAX);
	if (s->eof) {
		n += ipp_pipeline__deliver(src->pl, s->until);
		if (s->until == UINT64_MAX) {
			n += replay_end_losses(s);
			replay_say_unread(s);
		}
	} else {
		n += ipp_pipeline__deliver(src->pl, replay_horizon(s, s->prev_round_max));
	}
	return n;
}

void ipp_replay__until(struct ipp_source *src, uint64_t until)
{
	replay_of(src)->until = until;
}

/* Give the capture's tracepoint formats to the decoder; those it rejects are left out. */
static void load_file_formats(struct ipp_replay *s)
{
	size_t n = ipp_pd_reader__nr_formats(s->rd);

	for (size_t i = 0; i < n; i++) {
		const struct ipp_pd_format *f = ipp_pd_reader__format(s->rd, i);

		ipp_decoder__add_format(ipp_pipeline__decoder(s->base.pl), f->system, f->name, f->text, f->len);
	}
}

/* Find the capture's bpf-output events, whose samples are the kernel's fd identity records. */
static int note_fdid_events(struct ipp_replay *s)
{
	for (size_t i = 0; i < ipp_pd_reader__nr_events(s->rd); i++) {
		const struct ipp_pd_event *e = ipp_pd_reader__event(s->rd, i);

		if (e->attr.type != PERF_TYPE_SOFTWARE || e->attr.config != PERF_COUNT_SW_BPF_OUTPUT)
			continue;
		if (ipp_pipeline__fdid_ids(s->base.pl, e->ids, e->nr_ids) < 0)
			return -ENOMEM;
		s->fdid_bpf = true;
	}
	return 0;
}

/*
 * Load the capture's ipcperf section: the recording session's counts and
 * identities. Returns 0 or -ENOMEM.
 */
static int load_section(struct ipp_replay *s, const char *path)
{
	const struct ipp_pd_info *info = ipp_pd_reader__info(s->rd);
	struct ipp_pipeline *pl = s->base.pl;
	uint32_t version;
	const void *blob;
	size_t len;
	int err;

	if (ipp_pd_reader__blob(s->rd, &version, &blob, &len) < 0) {
		if (!info->partial)
			ipp_warn("%s: no ipcperf section (not written by ipcperf): per-fd ops, "
				 "bytes and latencies and the syscalls are exact, but fd objects "
				 "and kinds are unknown, there are no counters, and flows cannot "
				 "name their channels\n", path);
		return 0;
	}
	if (version != IPP_REC_BLOB_VERSION) {
		ipp_warn("%s: ipcperf section of version %u, this ipcperf reads %u: left out (fd "
			 "identities unknown)\n", path, version, IPP_REC_BLOB_VERSION);
		return 0;
	}
	if ((err = ipp_rec_data__parse(&s->rec, blob, len)) < 0) {
		if (err == -ENOMEM) {
			ipp_info("%s: out of memory\n", path);
			return err;
		}
		ipp_warn("%s: the ipcperf section is malformed: left out (fd identities "
			 "unknown)\n", path);
		return 0;
	}
	s->has_rec = true;
	if (s->rec.has_session) {
		ipp_pipeline__set_self(pl, s->rec.ss.self, s->rec.ss.include_self);
		/*
		 * An older recorder wrote 0. No recorder accepts a size that is not
		 * a power of two up to MAX_RING_PAGES, so any other value is ignored.
		 */
		if (s->rec.ss.ring_pages && !(s->rec.ss.ring_pages & (s->rec.ss.ring_pages - 1)) &&
		    s->rec.ss.ring_pages <= MAX_RING_PAGES)
			s->ring_pages = s->rec.ss.ring_pages;
	}
	return 0;
}

static void replay_destroy(struct ipp_source *src);

struct ipp_source *ipp_replay__new(const char *path, const struct ipcperf_file_opts *opts,
				   struct ipp_pipeline *pl)
{
	const struct ipp_pd_info *info;
	struct ipp_replay *s = calloc(1, sizeof(*s));
	int err;

	/* Every failure is said in one line: the reader's errors (with the offset), and these. */
	if (!s || !(s->rd = ipp_pd_reader__new())) {
		ipp_info("%s: out of memory\n", path);
		err = -ENOMEM;
		goto fail;
	}
	s->base.ops = &ipp_replay_ops;
	s->base.pl = pl;
	s->until = UINT64_MAX;
	ipp_pipeline__set_self(pl, -1, true);
	err = ipp_pd_reader__open(s->rd, path);
	if (err)
		goto fail;
	info = ipp_pd_reader__info(s->rd);
	if (IPP_OPTS_HAS(opts, refuse_partial) && opts->refuse_partial && info->partial) {
		/* Offset 0x30 (48) holds the header's data size, which the recorder never wrote. */
		ipp_info("%s: offset 0x30: partial capture refused: the recorder did not finish it\n",
			 path);
		err = -EPROTO;
		goto fail;
	}
	if (!info->has_tracing_data || !ipp_pd_reader__nr_formats(s->rd))
		ipp_warn("%s: the capture holds no tracepoint formats: its samples cannot be "
			 "decoded\n", path);
	load_file_formats(s);
	err = note_fdid_events(s);
	if (!err)
		err = load_section(s, path);
	if (err)
		goto fail;
	return &s->base;
fail:
	if (s)
		replay_destroy(&s->base);
	return ipp_null_errno(-err);
}

bool ipp_replay__partial(const struct ipp_source *src)
{
	return ipp_pd_reader__info(creplay_of(src)->rd)->partial;
}

static int replay_start(struct ipp_source *src)
{
	return 0;	/* nothing to open: records come from the file at consume() */
}

static bool replay_done(const struct ipp_source *src)
{
	return creplay_of(src)->eof;
}

static int replay_stop(struct ipp_source *src)
{
	/* What was read is delivered; the rest of the file is left unread. */
	int n = ipp_pipeline__deliver(src->pl, UINT64_MAX);

	ipp_pipeline__flush(src->pl);
	return n;
}

static void replay_stats(const struct ipp_source *src, bool stopped,
			 struct ipcperf_session_stats *v)
{
	const struct ipp_replay *s = creplay_of(src);

	v->start_ns = s->first_ns;
	v->stop_ns = stopped ? s->last_ns : 0;
	v->rings = ipp_pd_reader__info(s->rd)->nr_cpus_online;
	v->ring_pages = s->ring_pages;
	v->fd_identity = s->fdid_bpf ? IPCPERF_FDID_BPF : IPCPERF_FDID_PROC;
	v->syscall_records = IPCPERF_SC_RECORDS_SAMPLES;	/* what captures hold */
	v->sched_records = IPCPERF_SCHED_RECORDS_EVENTS;	/* their samples too */
	if (s->has_rec && s->rec.has_session && (stopped || s->eof)) {
		/* What the live session said, so that a report gives the live numbers. */
		v->records = s->rec.ss.records;
		v->start_ns = s->rec.ss.start_ns;
		v->stop_ns = s->rec.ss.stop_ns;
		v->rings = s->rec.ss.rings;
		v->skipped_events = s->rec.ss.skipped;
	}
}

static int replay_read_counters(const struct ipp_source *src, pid_t pid,
				struct ipcperf_counter_value *vals)
{
	const struct ipp_replay *s = creplay_of(src);

	for (size_t i = 0; s->has_rec && i < s->rec.nr_cnt; i++)
		if (s->rec.cnt[i].pid == pid) {
			memcpy(vals, s->rec.cnt[i].v, sizeof(s->rec.cnt[i].v));
			return 0;
		}
	return s->has_rec && s->rec.nr_cnt ? -ESRCH : -ENODATA;
}

static pid_t replay_child_pid(const struct ipp_source *src)
{
	const struct ipp_replay *s = creplay_of(src);

	return s->has_rec && s->rec.has_session && s->rec.ss.cmd_pid > 0 ? s->rec.ss.cmd_pid : -1;
}

static int replay_for_each_event(const struct ipp_source *src,
				 int (*cb)(void *ctx, const struct ipcperf_event_desc *d), void *ctx)
{
	const struct ipp_replay *s = creplay_of(src);

	for (size_t i = 0; i < ipp_pd_reader__nr_events(s->rd); i++) {
		const struct ipp_pd_event *e = ipp_pd_reader__event(s->rd, i);
		struct ipcperf_event_desc d = {
			.system = e->format ? e->format->system : NULL,
			.name = e->format ? e->format->name : e->name,
			.id = e->format ? e->format->id : -1,
			.attr = &e->attr, .attr_size = sizeof(e->attr),
			.ids = e->ids, .nr_ids = e->nr_ids,
			.format = e->format ? e->format->text : NULL,
			.format_len = e->format ? e->format->len : 0,
		};
		int ret = cb(ctx, &d);

		if (ret)
			return ret;
	}
	return 0;
}

static void replay_describe(const struct ipp_source *src, struct ipp_attach *at)
{
	const struct ipp_replay *s = creplay_of(src);

	at->pids = NULL;
	at->nr_pids = 0;
	at->kernel_fdid = s->fdid_bpf;
	at->log = s->has_rec ? s->rec.log : NULL;
	at->log_replay = true;
}

static void replay_info(const struct ipp_source *src, struct ipcperf_capture_info *out)
{
	const struct ipp_replay *s = creplay_of(src);
	const char *perf_host = ipp_pd_reader__info(s->rd)->hostname;
	const struct ipp_rec_clock *c = &s->rec.clock;

	/* perf's hostname header (uname's) when the section does not name the host */
	snprintf(out->host, sizeof(out->host), "%s",
		 s->has_rec && s->rec.has_host ? s->rec.host : perf_host ? perf_host : "");
	out->has_clock = s->has_rec && s->rec.has_clock;
	if (!out->has_clock)
		return;
	out->mono_start_ns = c->mono_start;
	out->real_start_ns = c->real_start;
	out->mono_stop_ns = c->mono_stop;
	out->real_stop_ns = c->real_stop;
}

static void replay_destroy(struct ipp_source *src)
{
	struct ipp_replay *s = replay_of(src);

	ipp_pd_reader__delete(s->rd);
	if (s->has_rec)
		ipp_rec_data__free(&s->rec);
	free(s);
}

const struct ipp_source_ops ipp_replay_ops = {
	.start = replay_start,
	.consume = replay_consume,
	.done = replay_done,
	.stop = replay_stop,
	.stats = replay_stats,
	.read_counters = replay_read_counters,
	.child_pid = replay_child_pid,
	.for_each_event = replay_for_each_event,
	.describe = replay_describe,
	.info = replay_info,
	.destroy = replay_destroy,
	.replay = true,
};
