/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoding of the sched record (sched-rec.h). Pure. */
#include "config.h"
#include "sched-rec.h"

int ipp_sched_rec__parse(const void *raw, size_t size, struct ipp_sched_rec *out)
{
	int err = ipp_krec__fixed(raw, size, IPP_FDID_SCHED, IPP_SCHED_REC_SIZE, out);

	if (!err)
		out->comm[sizeof(out->comm) - 1] = '\0';
	return err;
}
