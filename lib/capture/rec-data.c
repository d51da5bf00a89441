/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reads back the ipcperf feature section of a capture (record.h describes
 * its layout), so that a replay gives the live run's numbers.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fd/identlog.h"
#include "capture/record.h"

void ipp_rec_data__free(struct ipp_rec_data *d)
{
	free(d->lost);
	free(d->cnt);
	ipp_identlog__delete(d->log);
	memset(d, 0, sizeof(*d));
}

static int grow(void **v, size_t *n, size_t size)
{
	void *p = realloc(*v, (*n + 1) * size);

	if (!p)
		return -ENOMEM;
	*v = p;
	return 0;
}

/* The least payload of each entry type the parser knows: a shorter one is malformed. */
static const size_t entry_min[] = {
	[IPP_REC_T_SESSION] = sizeof(struct ipp_rec_session),
	[IPP_REC_T_LOST] = sizeof(struct ipp_rec_lost),
	[IPP_REC_T_COUNTERS] = sizeof(struct ipp_rec_counters),
	[IPP_REC_T_IDENT] = sizeof(struct ipp_ident_ans),
	[IPP_REC_T_HOST] = 1,
	[IPP_REC_T_CLOCK] = sizeof(struct ipp_rec_clock),
};

/* Parse the host's name: at most IPCPERF_HOST_MAX - 1 bytes before its NUL padding. */
static int parse_host(struct ipp_rec_data *d, const unsigned char *e, uint32_t elen)
{
	size_t n = strnlen((const char *)e, elen);

	if (!n || n >= sizeof(d->host))
		return -EPROTO;
	memcpy(d->host, e, n);
	d->host[n] = '\0';
	d->has_host = true;
	return 0;
}

/* Parse one entry of the section, @elen bytes at @e. Returns 0, -EPROTO or -ENOMEM. */
static int parse_entry(struct ipp_rec_data *d, uint32_t type, const unsigned char *e, uint32_t elen)
{
	struct ipp_rec_counters c;
	struct ipp_ident_ans a;
	int err;

	if (type < IPP_ARRAY_SIZE(entry_min) && elen < entry_min[type])
		return -EPROTO;
	switch (type) {
	case IPP_REC_T_SESSION:
		memcpy(&d->ss, e, sizeof(d->ss));
		d->has_session = true;
		return 0;
	case IPP_REC_T_LOST:
		if (!(err = grow((void **)&d->lost, &d->nr_lost, sizeof(*d->lost))))
			memcpy(&d->lost[d->nr_lost++], e, sizeof(*d->lost));
		return err;
	case IPP_REC_T_COUNTERS:
		memcpy(&c, e, sizeof(c));
		if (c.nr != IPCPERF_CNT__MAX)
			return 0;	/* another build's counter list: left out */
		if (!(err = grow((void **)&d->cnt, &d->nr_cnt, sizeof(*d->cnt))))
			d->cnt[d->nr_cnt++] = c;
		return err;
	case IPP_REC_T_IDENT:
		memcpy(&a, e, sizeof(a));
		a.object[sizeof(a.object) - 1] = '\0';
		a.detail[sizeof(a.detail) - 1] = '\0';
		return ipp_identlog__add(d->log, &a);
	case IPP_REC_T_HOST:
		return parse_host(d, e, elen);
	case IPP_REC_T_CLOCK:
		memcpy(&d->clock, e, sizeof(d->clock));
		d->has_clock = true;
		return 0;
	default:
		return 0;
	}
}

int ipp_rec_data__parse(struct ipp_rec_data *d, const void *blob, size_t len)
{
	const unsigned char *p = blob;
	size_t at = 0;
	int err = 0;

	memset(d, 0, sizeof(*d));
	d->log = ipp_identlog__new();
	if (!d->log)
		return -ENOMEM;
	while (!err && at < len) {
		uint32_t type, elen;

		if (len - at < 8) {
			err = -EPROTO;
			break;
		}
		memcpy(&type, p + at, 4);
		memcpy(&elen, p + at + 4, 4);
		if (elen > len - at - 8) {
			err = -EPROTO;
			break;
		}
		err = parse_entry(d, type, p + at + 8, elen);
		at += 8 + ((elen + 7ull) & ~7ull);
	}
	if (err)
		ipp_rec_data__free(d);
	return err;
}
