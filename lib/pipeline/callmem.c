/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The calls' user memory, kept from its arg record until its call (callmem.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/callmem.h"

_Static_assert((int)IPCPERF_MEM_STRING == (int)IPP_ARG_STR &&
	       (int)IPCPERF_MEM_DIRENTS == (int)IPP_ARG_DIRENTS &&
	       (int)IPCPERF_MEM_SOCKADDR == (int)IPP_ARG_ADDR_OUT &&
	       (int)IPCPERF_MEM_IOVB_OUT == (int)IPP_ARG_IOVB_OUT, "the public kinds are the record's");
_Static_assert(IPCPERF_CALL_MEM_MAX == IPP_ARGS_CAP, "a piece's bytes");

void ipp_callmem__fini(struct ipp_callmem *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/*
 * Return thread @tid's slot, else a free one, or NULL when there is none.
 * With @tid 0, only a free slot is looked for.
 */
static struct ipp_callmem_slot *slot_of(struct ipp_callmem *m, pid_t tid)
{
	struct ipp_callmem_slot *free_slot = NULL;

	for (size_t i = 0; i < m->n; i++) {
		if (tid && m->v[i].tid == tid)
			return &m->v[i];
		if (!m->v[i].tid && !free_slot)
			free_slot = &m->v[i];
	}
	return free_slot;
}

static struct ipp_callmem_slot *new_slot(struct ipp_callmem *m)
{
	struct ipp_callmem_slot *v = realloc(m->v, (m->n + 8) * sizeof(*v));

	if (!v)
		return NULL;
	memset(v + m->n, 0, 8 * sizeof(*v));
	m->v = v;
	m->n += 8;
	return &v[m->n - 8];
}

const struct ipp_args_rec *ipp_callmem__take(struct ipp_callmem *m, const void *raw, size_t size,
					     int *err)
{
	static __thread struct ipp_args_rec rec;
	struct ipp_callmem_slot *s;

	*err = ipp_args_rec__parse(raw, size, &rec);
	if (*err)
		return NULL;
	if (rec.flags & IPP_ARGS_F_ENTERED)
		return &rec;
	if (rec.flags & IPP_ARGS_F_NORETURN) {
		ipp_callmem__forget(m, rec.tid);
		return &rec;
	}
	s = slot_of(m, rec.tid);
	if (!s && !(s = new_slot(m))) {
		*err = -ENOMEM;
		return NULL;
	}
	s->tid = rec.tid;
	s->rec = rec;
	return NULL;
}

const struct ipp_args_rec *ipp_callmem__claim(struct ipp_callmem *m, pid_t tid, int nr)
{
	struct ipp_callmem_slot *s;

	if (!tid || !(s = slot_of(m, tid)) || s->tid != tid)
		return NULL;
	s->tid = 0;
	return s->rec.nr == nr ? &s->rec : NULL;
}

void ipp_callmem__forget(struct ipp_callmem *m, pid_t tid)
{
	struct ipp_callmem_slot *s = tid ? slot_of(m, tid) : NULL;

	if (s && s->tid == tid)
		s->tid = 0;
}

unsigned int ipp_callmem__pieces(const struct ipp_args_rec *r,
				 struct ipcperf_call_mem out[IPP_ARGS_ITEMS])
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->nr_items && i < IPP_ARGS_ITEMS; i++) {
		const struct ipp_arg_item *it = &r->items[i];

		if (it->kind == IPP_ARG_NONE)
			continue;
		out[n++] = (struct ipcperf_call_mem){
			.arg = it->arg, .kind = it->kind, .len = it->len, .count = it->count,
			.truncated = it->flags & IPP_ARG_F_TRUNC, .fault = it->flags & IPP_ARG_F_FAULT,
			.more = it->flags & IPP_ARG_F_MORE, .data = r->data[i],
		};
	}
	return n;
}
