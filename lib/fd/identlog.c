/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The identity log (identlog.h): the fd identities a session's resolver
 * answered, in the order it asked, for the capture to keep and a replay to
 * answer from.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fd/identlog.h"

struct ipp_identlog {
	struct ipp_ident_ans *v;
	bool *taken;
	size_t n, cap;
	size_t low;		/* every answer before it was taken */
};

struct ipp_identlog *ipp_identlog__new(void)
{
	return ipp_new(sizeof(struct ipp_identlog));
}

void ipp_identlog__delete(struct ipp_identlog *l)
{
	if (l)
		ipp_free_all(l->v, l->taken, l);
}

const struct ipp_ident_ans *ipp_identlog__answers(const struct ipp_identlog *l, size_t *n)
{
	*n = l->n;
	return l->v;
}

int ipp_identlog__add(struct ipp_identlog *l, const struct ipp_ident_ans *a)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct ipp_ident_ans *v = realloc(l->v, cap * sizeof(*v));
		bool *t;

		if (!v)
			return -ENOMEM;
		l->v = v;
		t = realloc(l->taken, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		l->taken = t;
		l->cap = cap;
	}
	l->v[l->n] = *a;
	l->taken[l->n++] = false;
	return 0;
}

int ipp_identlog__take(struct ipp_identlog *l, unsigned int what_mask, pid_t pid, int fd,
		       struct ipp_ident_ans *out)
{
	for (size_t i = l->low; i < l->n; i++) {
		const struct ipp_ident_ans *a = &l->v[i];

		if (l->taken[i] || !(a->what & what_mask) || a->pid != pid ||
		    (fd != -1 && a->fd != fd && !(a->what & IPP_IDQ_SCAN_END)))
			continue;
		l->taken[i] = true;
		while (l->low < l->n && l->taken[l->low])
			l->low++;
		*out = *a;
		return 0;
	}
	return -ENOENT;
}

int ipp_identlog__take_any(struct ipp_identlog *l, unsigned int what_mask,
			   struct ipp_ident_ans *out)
{
	for (size_t i = l->low; i < l->n; i++)
		if (!l->taken[i] && (l->v[i].what & what_mask))
			return ipp_identlog__take(l, l->v[i].what, l->v[i].pid, l->v[i].fd, out);
	return -ENOENT;
}
