/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One host's clock against another's, when no single offset fits the
 * exchanges between them: a clock that drifts at a steady rate.
 *
 * Each byte matched across the hosts bounds the offset at the time it
 * crossed, from above (bytes the first host wrote) or from below (bytes
 * it read). The bounds are kept on a grid of windows, the tightest of
 * each window with its time; the grid's windows double in width when the
 * capture outgrows it, so memory stays bounded. A line (an offset and a
 * rate) fits when it lies under every upper bound and over every lower
 * one. For a given rate, the offsets that fit form an interval, whose
 * width is a concave function of the rate: the rate taken is the one that
 * leaves the most room on both sides, and the offset the middle of that
 * room. The uncertainty is the most the true offset can differ from that
 * line, over every line that fits, at either end of the capture.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "paths/paths.h"

/* Windows kept before the grid widens, and the first window's width. */
#define FIT_WINDOWS 4096
#define FIT_WIDTH0_NS 1000000ull
/* The rates searched, in parts per billion either way: 1% (a clock off by more is broken). */
#define FIT_RATE_MAX 1e7
#define FIT_STEPS 200

static const struct ipp_clockpt none_up = { 0, INT64_MAX }, none_lo = { 0, INT64_MIN };

/* Keep the tighter of @have and @pt in @have. */
static void keep(struct ipp_clockpt *have, struct ipp_clockpt pt, bool upper)
{
	if (upper ? pt.v < have->v : pt.v > have->v)
		*have = pt;
}

/* Double the windows' width: each pair of windows becomes one. */
static void widen(struct ipp_clockfit *f)
{
	for (size_t k = 0; k < FIT_WINDOWS / 2; k++) {
		f->up[k] = f->up[2 * k];
		keep(&f->up[k], f->up[2 * k + 1], true);
		f->lo[k] = f->lo[2 * k];
		keep(&f->lo[k], f->lo[2 * k + 1], false);
	}
	for (size_t k = FIT_WINDOWS / 2; k < FIT_WINDOWS; k++) {
		f->up[k] = none_up;
		f->lo[k] = none_lo;
	}
	f->width *= 2;
}

int ipp_clockfit__add(struct ipp_clockfit *f, uint64_t t, int64_t v, bool upper)
{
	uint64_t k;

	if (!f->up) {
		f->up = malloc(FIT_WINDOWS * sizeof(*f->up));
		f->lo = malloc(FIT_WINDOWS * sizeof(*f->lo));
		if (!f->up || !f->lo) {
			ipp_clockfit__fini(f);
			return -ENOMEM;
		}
		for (size_t i = 0; i < FIT_WINDOWS; i++) {
			f->up[i] = none_up;
			f->lo[i] = none_lo;
		}
		f->t0 = t;
		f->width = FIT_WIDTH0_NS;
	}
	while ((k = t > f->t0 ? (t - f->t0) / f->width : 0) >= FIT_WINDOWS)
		widen(f);
	keep(upper ? &f->up[k] : &f->lo[k], (struct ipp_clockpt){ (int64_t)t, v }, upper);
	return 0;
}

void ipp_clockfit__fini(struct ipp_clockfit *f)
{
	free(f->up);
	free(f->lo);
	*f = (struct ipp_clockfit){ 0 };
}

/* The bounds, on seconds from the middle of their span. */
struct fitpts {
	double *x, *v;
	size_t n;
	uint32_t nu;	/* the first nu are upper bounds, the rest lower ones */
	uint64_t ref;
	double xmin, xmax;
};

/*
 * For rate @b (ns a second), the room the offsets at @x have: the least
 * upper bound and the greatest lower bound on the offset at @x, given that
 * rate, in @hi and @lo.
 */
static void room(const struct fitpts *p, double b, double x, double *lo, double *hi)
{
	*hi = 1e300;
	*lo = -1e300;
	for (size_t i = 0; i < p->n; i++) {
		double at = p->v[i] - b * (p->x[i] - x);

		if (i < p->nu) {
			if (at < *hi)
				*hi = at;
		} else if (at > *lo) {
			*lo = at;
		}
	}
}

enum fitgoal { ROOM, HIGHEST, LOWEST };

/* How good rate @b is for @goal at @x: the room's width, its top, or its bottom negated. */
static double score(const struct fitpts *p, double b, double x, enum fitgoal goal)
{
	double lo, hi;

	room(p, b, x, &lo, &hi);
	return goal == ROOM ? hi - lo : goal == HIGHEST ? hi : -lo;
}

/* The rate in [@a, @z] at which @goal's score (concave in the rate) is highest. */
static double best_rate(const struct fitpts *p, double a, double z, double x, enum fitgoal goal)
{
	for (int i = 0; i < FIT_STEPS && z - a > 1e-3; i++) {
		double m1 = a + (z - a) / 3, m2 = z - (z - a) / 3;

		if (score(p, m1, x, goal) < score(p, m2, x, goal))
			a = m1;
		else
			z = m2;
	}
	return (a + z) / 2;
}

/* The rate between @in (where the line fits) and @out (where it does not) at which it stops fitting. */
static double rate_edge(const struct fitpts *p, double in, double out)
{
	for (int i = 0; i < FIT_STEPS && (in > out ? in - out : out - in) > 1e-3; i++) {
		double m = (in + out) / 2;

		if (score(p, m, 0, ROOM) >= 0)
			in = m;
		else
			out = m;
	}
	return in;
}

/* The bounds of @f's windows into @p (on seconds from the middle of their span). @return 0; -ENOMEM. */
static int gather(const struct ipp_clockfit *f, struct fitpts *p)
{
	uint64_t tmin = UINT64_MAX, tmax = 0;

	p->x = malloc(2 * FIT_WINDOWS * sizeof(*p->x));
	p->v = malloc(2 * FIT_WINDOWS * sizeof(*p->v));
	if (!p->x || !p->v)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < FIT_WINDOWS; k++) {
			const struct ipp_clockpt *pt = pass ? &f->lo[k] : &f->up[k];

			if (pt->v == (pass ? INT64_MIN : INT64_MAX))
				continue;
			p->x[p->n] = (double)pt->t;
			p->v[p->n++] = (double)pt->v;
			tmin = (uint64_t)pt->t < tmin ? (uint64_t)pt->t : tmin;
			tmax = (uint64_t)pt->t > tmax ? (uint64_t)pt->t : tmax;
			if (!pass)
				p->nu++;
		}
	p->ref = tmin + (tmax - tmin) / 2;
	for (size_t i = 0; i < p->n; i++)
		p->x[i] = (p->x[i] - (double)p->ref) / 1e9;
	p->xmin = ((double)tmin - (double)p->ref) / 1e9;
	p->xmax = ((double)tmax - (double)p->ref) / 1e9;
	return 0;
}

/* How far the true offset at @x may be from @est, over the rates in [@bl, @bh] that fit. */
static double spread(const struct fitpts *p, double bl, double bh, double x, double est)
{
	double top = score(p, best_rate(p, bl, bh, x, HIGHEST), x, HIGHEST);
	double bottom = -score(p, best_rate(p, bl, bh, x, LOWEST), x, LOWEST);

	return top - est > est - bottom ? top - est : est - bottom;
}

static int64_t nearest(double v)
{
	return (int64_t)(v >= 0 ? v + 0.5 : v - 0.5);
}

/* The line of @p into @out, when one fits. */
static void fit(const struct fitpts *p, struct ipp_clockline *out)
{
	double b = best_rate(p, -FIT_RATE_MAX, FIT_RATE_MAX, 0, ROOM), bl, bh, lo, hi, u0, u1;

	if (!p->nu || p->nu == p->n || score(p, b, 0, ROOM) < 0)
		return;
	bl = rate_edge(p, b, -FIT_RATE_MAX);
	bh = rate_edge(p, b, FIT_RATE_MAX);
	/* a rate that still fits at the search's edge: the bounds do not tell the rate */
	if (bl <= -FIT_RATE_MAX + 1 || bh >= FIT_RATE_MAX - 1)
		return;
	room(p, b, 0, &lo, &hi);
	out->offset_ns = nearest((lo + hi) / 2);
	out->drift_ppb = nearest(b);
	out->ref_ns = p->ref;
	u0 = spread(p, bl, bh, p->xmin, (lo + hi) / 2 + b * p->xmin);
	u1 = spread(p, bl, bh, p->xmax, (lo + hi) / 2 + b * p->xmax);
	/* rounded up, less what the search may be off by */
	out->uncertainty_ns = (uint64_t)nearest((u0 > u1 ? u0 : u1) + 0.499);
	out->fits = true;
}

int ipp_clockfit__line(const struct ipp_clockfit *f, struct ipp_clockline *out)
{
	struct fitpts p = { 0 };
	int err = 0;

	*out = (struct ipp_clockline){ 0 };
	if (f->up && (err = gather(f, &p)) == 0)
		fit(&p, out);
	free(p.x);
	free(p.v);
	return err;
}
