/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an incarnation of the fd table is reported as, once that is
 * settled (fdtable.h): built on the table's accessors alone. The calls
 * waiting for it are in settleq.c.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fd/fdtable.h"

/* Why an incarnation is reported unknown (doc/accuracy.md, "fd identity"). */
enum why_unknown {
	WHY_NONE,		/* no incarnation */
	WHY_NOT_READ,		/* /proc was never read for it (--no-proc, a capture without a log) */
	WHY_CLOSED,		/* its fd was closed before /proc was read */
	WHY_EXITED,		/* its process was gone before /proc was read */
	WHY_DENIED,		/* /proc refused (another user's process) */
	WHY_NOT_FOUND,		/* open as far as the records tell, yet /proc did not have it */
	WHY_MAX,
};

#define UNKNOWN_AS(why_) { .state = IPP_ID_UNKNOWN, .object = "unknown", .capacity = -1, \
			   .cloexec = -1, .detail = why_ }
static const struct ipp_ident unknown_idents[WHY_MAX] = {
	[WHY_NONE] = UNKNOWN_AS(""),
	[WHY_NOT_READ] = UNKNOWN_AS("identity unknown: not-read"),
	[WHY_CLOSED] = UNKNOWN_AS("identity unknown: closed-before-read"),
	[WHY_EXITED] = UNKNOWN_AS("identity unknown: exited-before-read"),
	[WHY_DENIED] = UNKNOWN_AS("identity unknown: denied"),
	[WHY_NOT_FOUND] = UNKNOWN_AS("identity unknown: not-found"),
};
#define unknown_ident (unknown_idents[WHY_NONE])

/* Does @id say what its incarnation is? A /proc answer only while its authority was open. */
static bool ident_valid(const struct ipp_fdtab *t, const struct ipp_ident *id)
{
	const struct ipp_inc *a;

	if (id->state == IPP_ID_FINAL)
		return true;
	if (id->state != IPP_ID_PROC || !(a = ipp_fdtab__inc(t, id->auth)))
		return false;
	return a->open || a->end_ns >= id->res_ns;
}

/*
 * Why incarnation @in is unknown: the records say its fd (or, for a copy,
 * the fd it was copied from) closed before /proc was read, or what the
 * read said.
 */
static enum why_unknown why_unknown(const struct ipp_fdtab *t, const struct ipp_inc *in)
{
	const struct ipp_ident *id = &in->id;
	const struct ipp_inc *a = in;

	if (id->state == IPP_ID_PROC && ipp_fdtab__inc(t, id->auth))
		a = ipp_fdtab__inc(t, id->auth);	/* it outlived its authority: closed before the read */
	if (!id->read_ns)
		return id->state == IPP_ID_PROC ? WHY_CLOSED : WHY_NOT_READ;
	if (!a->open && a->end_ns < id->read_ns)
		return WHY_CLOSED;
	switch (id->read_err) {
	case -ESRCH:
		return WHY_EXITED;
	case -EACCES:
	case -EPERM:
		return WHY_DENIED;
	default:
		return WHY_NOT_FOUND;
	}
}

/* What incarnation @inc is reported as: its identity, or unknown and why. */
static const struct ipp_ident *as_reported(const struct ipp_fdtab *t, size_t inc)
{
	const struct ipp_inc *in = ipp_fdtab__inc(t, inc);

	if (!in)
		return &unknown_ident;
	return ident_valid(t, &in->id) ? &in->id : &unknown_idents[why_unknown(t, in)];
}

const struct ipp_ident *ipp_fdtab__reported(const struct ipp_fdtab *t, size_t inc)
{
	return as_reported(t, inc);
}

int ipp_fdtab__settled(const struct ipp_fdtab *t, long inc, bool final,
		       const struct ipp_ident **out)
{
	const struct ipp_inc *in = inc < 0 ? NULL : ipp_fdtab__inc(t, (size_t)inc), *a;
	const struct ipp_ident *id;

	if (!in) {
		*out = &unknown_ident;
		return 1;
	}
	id = &in->id;
	if (id->state == IPP_ID_NONE && !final)
		return 0;
	/* Its authority still open and the events not yet at the answer's time: wait. */
	a = id->state == IPP_ID_PROC ? ipp_fdtab__inc(t, id->auth) : NULL;
	if (a && !final && a->open && ipp_fdtab__now(t) < id->res_ns)
		return 0;
	*out = as_reported(t, (size_t)inc);
	return 1;
}
