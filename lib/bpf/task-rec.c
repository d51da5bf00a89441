/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoding of the task record (task-rec.h). Pure. */
#include "config.h"
#include <errno.h>
#include "task-rec.h"

int ipp_task_rec__parse(const void *raw, size_t size, struct ipp_task_rec *out)
{
	int err = ipp_krec__fixed(raw, size, IPP_FDID_TASK, IPP_TASK_REC_SIZE, out);

	if (err)
		return err;
	if (out->kind > IPP_TASK_REC_EXIT)
		return -EPROTO;
	out->comm[sizeof(out->comm) - 1] = '\0';
	out->filename[sizeof(out->filename) - 1] = '\0';
	return 0;
}
