/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data reader's parsing of a record's sample fields, following its
 * event's sample_type: the fixed layouts worked out at open, and the walk
 * over the fields that explains a bad record.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "internal.h"
#include "capture/pd-reader-int.h"

/* ---------------------------------------------------------------- samples */

/* Cursor over a record's bytes, with bounds. */
struct cur {
	const unsigned char *p;
	size_t pos, end;
};

static bool take_u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->pos < 8)
		return false;
	if (v)
		memcpy(v, c->p + c->pos, 8);
	c->pos += 8;
	return true;
}

static bool skip_u64s(struct cur *c, uint64_t n)
{
	if (n > (c->end - c->pos) / 8)
		return false;
	c->pos += (size_t)n * 8;
	return true;
}

/*
 * Return where the id is, in u64s: at @first with PERF_SAMPLE_IDENTIFIER,
 * else after @first and the fields of @before that @st has; -1 without an
 * id.
 */
static int id_pos(uint64_t st, int first, uint64_t before)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return first;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return first + __builtin_popcountll(st & before);
}

/* Return the position of PERF_SAMPLE_ID in a sample, in u64s after the header (perf's id_pos). */
int ipp_pdr_sample_id_pos(uint64_t st)
{
	return id_pos(st, 0, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
}

/*
 * Return the position of the id in a sample_id_all trailer, in u64s from the
 * end (1 is the last).
 */
int ipp_pdr_trailer_id_pos(uint64_t st)
{
	return id_pos(st, 1, PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID);
}

static int bad_sample(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec, const char *what)
{
	return ipp_pdr_fail(r, -EPROTO, rec->offset, "record type %u (%s), size %u: too short for its %s",
		    rec->type, ipp_pd_record_name(rec->type), rec->size, what);
}

/*
 * Explain a CPU number the capture does not have: it is corruption, not a
 * reason to make room for it.
 */
static int bad_cpu(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec, uint32_t cpu)
{
	if (r->info.nr_cpus_avail)
		return ipp_pdr_fail(r, -EPROTO, rec->offset, "record type %u (%s), size %u: cpu %u, but the "
			    "capture's header says %u CPUs", rec->type, ipp_pd_record_name(rec->type),
			    rec->size, cpu, r->info.nr_cpus_avail);
	return ipp_pdr_fail(r, -EPROTO, rec->offset, "record type %u (%s), size %u: cpu %u is beyond any "
		    "machine's (at most %u CPUs)", rec->type, ipp_pd_record_name(rec->type),
		    rec->size, cpu, IPP_PD_MAX_CPUS);
}

static __attribute__((noinline)) int parse_sample(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			struct ipp_pd_sample *out)
{
	struct cur c = { .p = rec->data, .pos = 8, .end = rec->size };
	const struct ipp_pd_event *ev = NULL;
	uint64_t st, v;

	if (r->nr_ev == 1) {
		ev = &r->ev[0];
	} else {
		struct cur ic = c;

		if (r->id_pos < 0 || !skip_u64s(&ic, (uint64_t)r->id_pos))
			return r->id_pos < 0 ? -ENOENT : bad_sample(r, rec, "sample id");
		if (!take_u64(&ic, &v))
			return bad_sample(r, rec, "sample id");
		ev = ipp_pdr_find_event(r, v);
		if (!ev)
			return -ENOENT;
	}
	st = ev->attr.sample_type;
	out->event = ev;
	out->sample_type = st;
	if ((st & PERF_SAMPLE_IDENTIFIER) && !take_u64(&c, &out->id))
		return bad_sample(r, rec, "identifier");
	if ((st & PERF_SAMPLE_IP) && !take_u64(&c, &out->ip))
		return bad_sample(r, rec, "ip");
	if (st & PERF_SAMPLE_TID) {
		if (!take_u64(&c, &v))
			return bad_sample(r, rec, "pid/tid");
		memcpy(&out->pid, c.p + c.pos - 8, 4);
		memcpy(&out->tid, c.p + c.pos - 4, 4);
	}
	if ((st & PERF_SAMPLE_TIME) && !take_u64(&c, &out->time))
		return bad_sample(r, rec, "time");
	if ((st & PERF_SAMPLE_ADDR) && !take_u64(&c, NULL))
		return bad_sample(r, rec, "addr");
	if ((st & PERF_SAMPLE_ID) && !take_u64(&c, &out->id))
		return bad_sample(r, rec, "id");
	if ((st & PERF_SAMPLE_STREAM_ID) && !take_u64(&c, NULL))
		return bad_sample(r, rec, "stream id");
	if (st & PERF_SAMPLE_CPU) {
		if (!take_u64(&c, NULL))
			return bad_sample(r, rec, "cpu");
		memcpy(&out->cpu, c.p + c.pos - 8, 4);
		if (out->cpu >= r->cpu_limit)
			return bad_cpu(r, rec, out->cpu);
	}
	if ((st & PERF_SAMPLE_PERIOD) && !take_u64(&c, &out->period))
		return bad_sample(r, rec, "period");
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = ev->attr.read_format;
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & (1u << 4) /* PERF_FORMAT_LOST */);

		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr;

			if (!take_u64(&c, &nr))
				return bad_sample(r, rec, "read values");
			if (((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && !take_u64(&c, NULL)) ||
			    ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && !take_u64(&c, NULL)) ||
			    nr > (c.end - c.pos) / 8 / per || !skip_u64s(&c, nr * per))
				return bad_sample(r, rec, "read values");
		} else {
			per += !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
			if (!skip_u64s(&c, per))
				return bad_sample(r, rec, "read values");
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (!take_u64(&c, &nr) || !skip_u64s(&c, nr))
			return bad_sample(r, rec, "callchain");
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;

		if (c.end - c.pos < 4)
			return bad_sample(r, rec, "raw size");
		memcpy(&n, c.p + c.pos, 4);
		if (n > c.end - c.pos - 4)
			return bad_sample(r, rec, "raw data");
		out->raw = c.p + c.pos + 4;
		out->raw_size = n;
	}
	return 0;
}

/*
 * Parse the sample_id_all trailer at the record's end: TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER.
 */
static __attribute__((noinline)) int parse_trailer(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			 struct ipp_pd_sample *out)
{
	const struct ipp_pd_event *ev = NULL;
	const unsigned char *p = rec->data;
	uint64_t st, n;
	size_t at;

	if (!r->sample_id_all || r->nr_ev == 0)
		return -ENOENT;
	if (r->nr_ev == 1) {
		ev = &r->ev[0];
	} else {
		uint64_t id;

		if (r->is_pos < 0)
			return -ENOENT;
		if ((uint64_t)r->is_pos * 8 > rec->size - 8u)
			return bad_sample(r, rec, "sample id trailer");
		memcpy(&id, p + rec->size - (size_t)r->is_pos * 8, 8);
		ev = ipp_pdr_find_event(r, id);
		if (!ev)
			return -ENOENT;
	}
	st = ev->attr.sample_type;
	n = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	    !!(st & PERF_SAMPLE_IDENTIFIER);
	if (n * 8 > rec->size - 8u)
		return bad_sample(r, rec, "sample id trailer");
	at = rec->size - (size_t)n * 8;
	out->event = ev;
	out->sample_type = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	if (st & PERF_SAMPLE_TID) {
		memcpy(&out->pid, p + at, 4);
		memcpy(&out->tid, p + at + 4, 4);
		at += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&out->time, p + at, 8);
		at += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(&out->id, p + at, 8);
		at += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		at += 8;
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&out->cpu, p + at, 4);
		if (out->cpu >= r->cpu_limit)
			return bad_cpu(r, rec, out->cpu);
		at += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(&out->id, p + at, 8);
	return 0;
}

/*
 * Read the fields of a sample straight from their offsets, when its event
 * has a fixed layout and the record holds all of it. Returns false when
 * that is not so, or when the raw data runs past the record; parse_sample()
 * then walks the record and explains what is wrong.
 */
static inline bool parse_fixed(const struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			       struct ipp_pd_sample *out)
{
	const unsigned char *p = rec->data;
	const struct ipp_pd_event *ev;
	const struct layout *lay;
	uint32_t n = 0;

	if (r->nr_ev == 1) {
		ev = &r->ev[0];
		lay = &r->lay[0];
	} else {
		const struct idslot *sl;
		uint64_t id;

		if (r->id_pos < 0 || rec->size < 16u + 8u * (unsigned int)r->id_pos)
			return false;
		memcpy(&id, p + 8 + 8 * r->id_pos, 8);
		sl = ipp_pdr_find_slot(r, id);
		if (!sl)
			return false;
		ev = sl->ev;
		lay = sl->lay;
	}
	if (lay->ipcperf) {
		if (!ipp_pd_own_sample(p, rec->size, out) || out->cpu >= r->cpu_limit)
			return false;
		out->event = ev;
		return true;
	}
	if (!lay->fixed || rec->size < lay->need)
		return false;
	if (lay->raw) {
		memcpy(&n, p + lay->raw, 4);
		if (n > rec->size - lay->raw - 4u)
			return false;
		out->raw = p + lay->raw + 4;
	} else {
		out->raw = NULL;
	}
	out->raw_size = n;
	out->event = ev;
	out->sample_type = ev->attr.sample_type;
	out->id = 0;
	out->ip = 0;
	out->pid = out->tid = 0;
	out->time = 0;
	out->cpu = 0;
	out->period = 0;
	if (lay->id)
		memcpy(&out->id, p + lay->id, 8);
	if (lay->ip)
		memcpy(&out->ip, p + lay->ip, 8);
	if (lay->tid) {
		memcpy(&out->pid, p + lay->tid, 4);
		memcpy(&out->tid, p + lay->tid + 4, 4);
	}
	if (lay->time)
		memcpy(&out->time, p + lay->time, 8);
	if (lay->cpu) {
		memcpy(&out->cpu, p + lay->cpu, 4);
		if (out->cpu >= r->cpu_limit)
			return false;
	}
	if (lay->period)
		memcpy(&out->period, p + lay->period, 8);
	return true;
}

int ipp_pd_reader__parse(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			 struct ipp_pd_sample *out)
{
	if (!r || !r->open || !rec || !out || rec->size < 8)
		return -EINVAL;
	if (rec->type == PERF_RECORD_SAMPLE && parse_fixed(r, rec, out))
		return 0;
	memset(out, 0, sizeof(*out));
	if (rec->type == PERF_RECORD_SAMPLE)
		return parse_sample(r, rec, out);
	if (rec->type >= IPP_PD_RECORD_USER_TYPE_START)
		return -ENOENT;
	return parse_trailer(r, rec, out);
}

/*
 * The offset of the u64 field @bit at *@pos, *@pos moved past it, when @st
 * has it; else 0 (no field starts at 0: the header is there).
 */
static uint16_t fixed_field(uint64_t st, uint64_t bit, uint16_t *pos)
{
	if (!(st & bit))
		return 0;
	*pos += 8;
	return *pos - 8;
}

/*
 * Fill @l with the offsets parse_sample() would find for @st, when they do not
 * depend on the record.
 */
void ipp_pdr_layout_of(struct layout *l, uint64_t st)
{
	uint16_t pos = 8, id;

	memset(l, 0, sizeof(*l));
	if (st & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN))
		return;
	l->fixed = true;
	l->id = fixed_field(st, PERF_SAMPLE_IDENTIFIER, &pos);
	l->ip = fixed_field(st, PERF_SAMPLE_IP, &pos);
	l->tid = fixed_field(st, PERF_SAMPLE_TID, &pos);
	l->time = fixed_field(st, PERF_SAMPLE_TIME, &pos);
	fixed_field(st, PERF_SAMPLE_ADDR, &pos);
	id = fixed_field(st, PERF_SAMPLE_ID, &pos);
	if (id)
		l->id = id;	/* after IDENTIFIER: this one wins, as in parse_sample() */
	fixed_field(st, PERF_SAMPLE_STREAM_ID, &pos);
	l->cpu = fixed_field(st, PERF_SAMPLE_CPU, &pos);
	l->period = fixed_field(st, PERF_SAMPLE_PERIOD, &pos);
	l->need = pos;
	if (st & PERF_SAMPLE_RAW) {
		l->raw = pos;
		l->need = pos + 4u;
	}
	l->ipcperf = st == IPP_PD_OWN_SAMPLE_TYPE;
}

