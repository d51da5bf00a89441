/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracepoint decoding. libtraceevent parses each format once; the decoder
 * keeps only the offsets and sizes of the fields it uses, in a table
 * indexed by the tracepoint id (common_type, the first u16 of every raw
 * record). Decoding a record is then a table lookup and a few memcpy()s,
 * with no name lookups.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "internal.h"
#include "syscalls.h"
#include "pipeline/decode.h"

struct fld {
	int off;
	int size;
	bool is_signed;
	bool dyn;	/* __data_loc: u32 (len << 16 | offset) */
	bool rel;	/* __rel_loc: offset counts from the end of the field */
};

/* Field slots of each known tracepoint kind. */
enum { F_NR = 0, F_RET = 1 };				/* sys_enter/exit: args in arg[] */
enum { F_PREV_COMM, F_PREV_PID, F_PREV_STATE, F_NEXT_COMM, F_NEXT_PID };
enum { F_W_COMM, F_W_PID, F_W_CPU };
enum { F_PARENT_PID, F_CHILD_PID, F_CHILD_COMM };
enum { F_FILENAME, F_E_PID, F_OLD_PID };
enum { F_X_PID, F_X_COMM };
#define MAX_FLDS 5

struct tpdesc {
	enum ipp_rec_kind kind;
	const struct ipp_scdesc *sc;
	struct fld f[MAX_FLDS];
	struct fld arg[6];
	unsigned int nr_args;
	unsigned int min_size;	/* the record must hold every fixed field */
	bool raw;		/* raw_syscalls: the syscall comes from the id field */
	bool args8;		/* every arg is 8 bytes wide (they always are): a plain load each */
};

struct ipp_decoder {
	struct tpdesc **by_id;
	size_t nr_ids;
};

struct ipp_decoder *ipp_decoder__new(void)
{
	struct ipp_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		errno = ENOMEM;
	return d;
}

void ipp_decoder__delete(struct ipp_decoder *d)
{
	if (!d)
		return;
	ipp_delete_ptrs(d->by_id, d->nr_ids, free);
	free(d);
}

static int set_fld(struct tpdesc *t, struct fld *f, const struct tep_format_field *tf)
{
	if (!tf)
		return -EPROTO;
	f->off = tf->offset;
	f->size = tf->size;
	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f->dyn = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->rel = tf->flags & TEP_FIELD_IS_RELATIVE;
	if (f->off < 0 || f->size <= 0)
		return -EPROTO;
	if ((unsigned int)(f->off + f->size) > t->min_size)
		t->min_size = f->off + f->size;
	return 0;
}

static int need(struct tpdesc *t, struct tep_event *ev, int slot, const char *name)
{
	return set_fld(t, &t->f[slot], tep_find_field(ev, name));
}

/* Like need(), but accept field @a or else @b (when not NULL), for fields renamed across kernel versions. */
static int need2(struct tpdesc *t, struct tep_event *ev, int slot, const char *a, const char *b)
{
	struct tep_format_field *tf = tep_find_field(ev, a);

	if (!tf && b)
		tf = tep_find_field(ev, b);
	return set_fld(t, &t->f[slot], tf);
}

/* The arguments of syscalls:sys_enter_X: the fields after __syscall_nr, each 8 bytes wide. */
static int syscall_args(struct tpdesc *t, struct tep_event *ev)
{
	struct tep_format_field *tf;
	int err;

	for (tf = ev->format.fields; tf && t->nr_args < 6; tf = tf->next) {
		if (strcmp(tf->name, "__syscall_nr") == 0 || (tf->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		err = set_fld(t, &t->arg[t->nr_args], tf);
		if (err)
			return err;
		t->nr_args++;
	}
	return 0;
}

/* The arguments of raw_syscalls:sys_enter, which fires for every syscall: its args[6]. */
static int raw_args(struct tpdesc *t, struct tep_event *ev)
{
	struct tep_format_field *args = tep_find_field(ev, "args");

	if (!args || args->size < 8 || args->size % 8)
		return -EPROTO;
	t->nr_args = args->size / 8 > 6 ? 6 : (unsigned int)args->size / 8;
	for (unsigned int i = 0; i < t->nr_args; i++) {
		t->arg[i] = (struct fld){ .off = args->offset + 8 * (int)i, .size = 8 };
		if ((unsigned int)(t->arg[i].off + 8) > t->min_size)
			t->min_size = t->arg[i].off + 8;
	}
	return 0;
}

/*
 * Describe a syscall tracepoint: its number (raw_syscalls: the id field),
 * then its return value (sys_exit) or its arguments (sys_enter).
 */
static int describe_syscall(struct tpdesc *t, struct tep_event *ev, bool enter)
{
	int err = need(t, ev, F_NR, t->raw ? "id" : "__syscall_nr");

	if (err)
		return err;
	if (!enter)
		return need(t, ev, F_RET, "ret");
	return t->raw ? raw_args(t, ev) : syscall_args(t, ev);
}

/*
 * The sched tracepoints: each one's record kind and the fields it needs, by
 * slot from 0 (the F_ enum of its kind); @alt, a field's older name.
 */
static const struct sched_tp {
	const char *name;
	enum ipp_rec_kind kind;
	const char *fld[MAX_FLDS];
	const char *alt[MAX_FLDS];
} sched_tps[] = {
	{ "sched_switch", IPP_REC_SWITCH, { [F_PREV_COMM] = "prev_comm", [F_PREV_PID] = "prev_pid",
	  [F_PREV_STATE] = "prev_state", [F_NEXT_COMM] = "next_comm", [F_NEXT_PID] = "next_pid" }, { NULL } },
	{ "sched_wakeup", IPP_REC_WAKEUP, { [F_W_COMM] = "comm", [F_W_PID] = "pid",
	  [F_W_CPU] = "target_cpu" }, { [F_W_CPU] = "cpu" } },
	{ "sched_waking", IPP_REC_WAKING, { [F_W_COMM] = "comm", [F_W_PID] = "pid",
	  [F_W_CPU] = "target_cpu" }, { [F_W_CPU] = "cpu" } },
	{ "sched_process_fork", IPP_REC_FORK, { [F_PARENT_PID] = "parent_pid",
	  [F_CHILD_PID] = "child_pid", [F_CHILD_COMM] = "child_comm" }, { NULL } },
	{ "sched_process_exec", IPP_REC_EXEC, { [F_FILENAME] = "filename", [F_E_PID] = "pid",
	  [F_OLD_PID] = "old_pid" }, { NULL } },
	{ "sched_process_exit", IPP_REC_EXIT, { [F_X_PID] = "pid", [F_X_COMM] = "comm" },
	  { NULL } },
};

static int describe_sched(struct tpdesc *t, struct tep_event *ev)
{
	const struct sched_tp *tp = NULL;
	int err;

	for (size_t i = 0; i < IPP_ARRAY_SIZE(sched_tps) && !tp; i++)
		if (strcmp(ev->name, sched_tps[i].name) == 0)
			tp = &sched_tps[i];
	if (!tp)
		return -EINVAL;
	t->kind = tp->kind;
	for (int slot = 0; slot < MAX_FLDS && tp->fld[slot]; slot++)
		if ((err = need2(t, ev, slot, tp->fld[slot], tp->alt[slot])))
			return err;
	return 0;
}

static int describe(struct tpdesc *t, const char *system, struct tep_event *ev)
{
	const char *name = ev->name;

	if (strcmp(system, "raw_syscalls") == 0) {
		bool enter = strcmp(name, "sys_enter") == 0;

		if (!enter && strcmp(name, "sys_exit") != 0)
			return -EINVAL;
		t->kind = enter ? IPP_REC_SYS_ENTER : IPP_REC_SYS_EXIT;
		t->raw = true;
		return describe_syscall(t, ev, enter);
	}

	if (strcmp(system, "syscalls") == 0) {
		bool enter = strncmp(name, "sys_enter_", 10) == 0;

		if (!enter && strncmp(name, "sys_exit_", 9) != 0)
			return -EINVAL;
		t->sc = ipp_scdesc_by_name(name + (enter ? 10 : 9));
		if (!t->sc)
			return -EINVAL;
		t->kind = enter ? IPP_REC_SYS_ENTER : IPP_REC_SYS_EXIT;
		return describe_syscall(t, ev, enter);
	}
	if (strcmp(system, "sched") != 0)
		return -EINVAL;
	return describe_sched(t, ev);
}

int ipp_decoder__add_format(struct ipp_decoder *d, const char *system, const char *name,
			    const char *format, size_t len)
{
	/*
	 * A parser of its own for each format: only offsets are kept, and a
	 * format refused here leaves nothing behind that would block a retry.
	 */
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	struct tpdesc *t;
	int err, id;

	if (!tep)
		return -ENOMEM;
	/*
	 * Only the fields are used: the "print fmt:" line and what follows is
	 * left to nobody. libtraceevent 1.7's printf-format parser divides by
	 * zero on some malformed text (found by fuzzing captures).
	 */
	{
		const char *pf = memmem(format, len, "\nprint fmt:", 11);

		if (pf)
			len = (size_t)(pf - format) + 1;
	}
	if (tep_parse_event(tep, format, len, system) != 0 ||
	    !(ev = tep_find_event_by_name(tep, system, name)) || ev->id < 0 || ev->id > 0xffff) {
		tep_free(tep);
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		tep_free(tep);
		return -ENOMEM;
	}
	err = describe(t, system, ev);
	id = ev->id;
	t->args8 = true;
	for (unsigned int i = 0; i < t->nr_args; i++)
		t->args8 = t->args8 && t->arg[i].size == 8;
	tep_free(tep);
	if (err) {
		free(t);
		return err;
	}
	if ((size_t)id >= d->nr_ids) {
		size_t n = (size_t)id + 1;
		struct tpdesc **tab = realloc(d->by_id, n * sizeof(*tab));

		if (!tab) {
			free(t);
			return -ENOMEM;
		}
		memset(tab + d->nr_ids, 0, (n - d->nr_ids) * sizeof(*tab));
		d->by_id = tab;
		d->nr_ids = n;
	}
	free(d->by_id[id]);
	d->by_id[id] = t;
	return id;
}

static inline __attribute__((always_inline)) int64_t get_int(const unsigned char *raw,
								const struct fld *f)
{
	switch (f->size) {
	case 1: { uint8_t v; memcpy(&v, raw + f->off, 1); return f->is_signed ? (int64_t)(int8_t)v : (int64_t)v; }
	case 2: { uint16_t v; memcpy(&v, raw + f->off, 2); return f->is_signed ? (int64_t)(int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, raw + f->off, 4); return f->is_signed ? (int64_t)(int32_t)v : (int64_t)v; }
	default: { uint64_t v; memcpy(&v, raw + f->off, 8); return (int64_t)v; }
	}
}

/* Copy a char[N] or __data_loc/__rel_loc string into @dst, NUL-terminated. */
static int get_str(const unsigned char *raw, size_t size, const struct fld *f,
		   char *dst, size_t dst_size)
{
	const unsigned char *src = raw + f->off;
	size_t n = f->size;

	if (f->dyn) {
		uint32_t loc;
		size_t off;

		memcpy(&loc, src, sizeof(loc));
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->rel)
			off += f->off + f->size;
		if (off > size || n > size - off)
			return -EPROTO;
		src = raw + off;
	}
	if (n >= dst_size)
		n = dst_size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

/*
 * The sched records that name a task and give one or two tids (wakeup,
 * fork, exec, exit): string field @name into @dst (@len bytes), tid field
 * @f1 into *@t1 and, when @t2 is not NULL, @f2 into *@t2; @out is then a
 * record of @t's kind. @return 0, or -EPROTO when the string is malformed.
 */
static inline __attribute__((always_inline)) int
name_and_tids(const struct tpdesc *t, const unsigned char *raw, size_t size, struct ipp_rec *out,
	      int name, char *dst, size_t len, int f1, pid_t *t1, int f2, pid_t *t2)
{
	if (get_str(raw, size, &t->f[name], dst, len))
		return -EPROTO;
	*t1 = (pid_t)get_int(raw, &t->f[f1]);
	if (t2)
		*t2 = (pid_t)get_int(raw, &t->f[f2]);
	out->kind = t->kind;
	return 0;
}

int ipp_decoder__decode(const struct ipp_decoder *d, const void *rawp, size_t size,
			struct ipp_rec *out)
{
	const unsigned char *raw = rawp;
	const struct tpdesc *t;
	uint16_t id;

	out->kind = IPP_REC_NONE;
	if (size < sizeof(id))
		return -EPROTO;
	memcpy(&id, raw, sizeof(id));
	if (id >= d->nr_ids || !(t = d->by_id[id]))
		return -ENOENT;
	if (size < t->min_size)
		return -EPROTO;

	switch (t->kind) {
	case IPP_REC_SYS_ENTER:
		out->enter.nr = (int)get_int(raw, &t->f[F_NR]);
		out->enter.sc = t->raw ? ipp_scdesc_by_nr(out->enter.nr) : t->sc;
		out->enter.nr_args = t->nr_args;
		if (t->args8) {
			memset(out->enter.args, 0, sizeof(out->enter.args));
			for (unsigned int i = 0; i < t->nr_args; i++)
				memcpy(&out->enter.args[i], raw + t->arg[i].off, 8);
			break;
		}
		for (unsigned int i = 0; i < 6; i++)
			out->enter.args[i] = i < t->nr_args ? (uint64_t)get_int(raw, &t->arg[i]) : 0;
		break;
	case IPP_REC_SYS_EXIT:
		out->exit.nr = (int)get_int(raw, &t->f[F_NR]);
		out->exit.sc = t->raw ? ipp_scdesc_by_nr(out->exit.nr) : t->sc;
		out->exit.ret = get_int(raw, &t->f[F_RET]);
		break;
	case IPP_REC_SWITCH:
		if (get_str(raw, size, &t->f[F_PREV_COMM], out->sw.prev_comm, sizeof(out->sw.prev_comm)) ||
		    get_str(raw, size, &t->f[F_NEXT_COMM], out->sw.next_comm, sizeof(out->sw.next_comm)))
			return -EPROTO;
		out->sw.prev_tid = (pid_t)get_int(raw, &t->f[F_PREV_PID]);
		out->sw.prev_state = (long)get_int(raw, &t->f[F_PREV_STATE]);
		out->sw.next_tid = (pid_t)get_int(raw, &t->f[F_NEXT_PID]);
		break;
	case IPP_REC_WAKEUP:
	case IPP_REC_WAKING:
		out->wake.target_cpu = (int)get_int(raw, &t->f[F_W_CPU]);
		return name_and_tids(t, raw, size, out, F_W_COMM, out->wake.comm,
				     sizeof(out->wake.comm), F_W_PID, &out->wake.tid, -1, NULL);
	case IPP_REC_FORK:
		return name_and_tids(t, raw, size, out, F_CHILD_COMM, out->fork.child_comm,
				     sizeof(out->fork.child_comm), F_PARENT_PID, &out->fork.parent_tid,
				     F_CHILD_PID, &out->fork.child_tid);
	case IPP_REC_EXEC:
		return name_and_tids(t, raw, size, out, F_FILENAME, out->exec.filename,
				     sizeof(out->exec.filename), F_E_PID, &out->exec.tid, F_OLD_PID,
				     &out->exec.old_tid);
	case IPP_REC_EXIT:
		return name_and_tids(t, raw, size, out, F_X_COMM, out->pexit.comm,
				     sizeof(out->pexit.comm), F_X_PID, &out->pexit.tid, -1, NULL);
	default:
		return -ENOENT;
	}
	out->kind = t->kind;
	return 0;
}
