/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoding of the fd summary record (sum-rec.h). Pure. */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "hist.h"
#include "sum-rec.h"

/*
 * Whether the counts of @r hold together: the window lies inside hist.c's
 * buckets, and as many calls are in buckets as were added up. Only
 * hist[@from] to hist[@to - 1] may hold calls: the others are zeroed.
 */
static bool sum_consistent(const struct ipp_sum_rec *r, unsigned int from, unsigned int to)
{
	uint64_t n = 0;

	if (r->base % IPP_HIST_SUB || r->base >= IPP_HIST_BUCKETS)
		return false;
	for (unsigned int i = from; i < to; i++) {
		if (r->hist[i] && r->base + i >= IPP_HIST_BUCKETS)
			return false;
		n += r->hist[i];
	}
	return n == r->ops && r->eagain <= r->ops && (!r->ops || r->min_ns <= r->max_ns);
}

/*
 * Copy the @nb buckets of @raw from bucket @first on into @out, whose
 * window then starts at the multiple of IPP_HIST_SUB below @first. Returns
 * false when they do not fit in that window.
 */
static bool sum_buckets(const unsigned char *raw, unsigned int first, size_t nb,
			struct ipp_sum_rec *out)
{
	unsigned int off = first % IPP_HIST_SUB;

	if (off + nb > IPP_SUM_BUCKETS)
		return false;
	out->base = first - off;
	memset(out->hist, 0, sizeof(out->hist));
	memcpy(out->hist + off, raw + IPP_SUM_HEAD_SIZE, nb * sizeof(out->hist[0]));
	return true;
}

int ipp_sum_rec__parse(const void *raw, size_t size, struct ipp_sum_rec *out)
{
	int err = ipp_krec__fixed(raw, size, IPP_FDID_SUM, IPP_SUM_HEAD_SIZE + sizeof(out->hist[0]),
				  out);
	size_t rsize, nb;
	unsigned int first;

	if (err)
		return err;
	rsize = out->size;
	nb = (rsize - IPP_SUM_HEAD_SIZE) / sizeof(out->hist[0]);
	first = out->base;
	if (rsize > IPP_SUM_REC_SIZE || (rsize - IPP_SUM_HEAD_SIZE) % sizeof(out->hist[0]) ||
	    !sum_buckets(raw, first, nb, out))
		return -EPROTO;
	return sum_consistent(out, first - out->base, first - out->base + nb) ? 0 : -EPROTO;
}

unsigned int ipp_sum_rec__fast_slots(long ncpus)
{
	size_t per_slot = sizeof(struct ipp_sum_slot) * (size_t)(ncpus > 0 ? ncpus : 1);
	unsigned int n = IPP_SUM_FAST;

	while (n > 2 && n > IPP_SUM_FAST_BYTES / per_slot)
		n /= 2;
	return n;
}

unsigned int ipp_sum_rec__agg_keys(long ncpus)
{
	size_t per_key = sizeof(struct ipp_sum_rec) * (size_t)(ncpus > 0 ? ncpus : 1) +
			 IPP_SUM_KEY_BYTES;
	size_t n = IPP_SUM_AGG_BYTES / per_key;

	return n < 1 ? 1 : n > IPP_SUM_AGG_KEYS ? IPP_SUM_AGG_KEYS : (unsigned int)n;
}
