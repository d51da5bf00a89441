/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoding of the call record (call-rec.h). Pure. */
#include "config.h"
#include "call-rec.h"

int ipp_call_rec__parse(const void *raw, size_t size, struct ipp_call_rec *out)
{
	return ipp_krec__fixed(raw, size, IPP_FDID_CALL, IPP_CALL_REC_SIZE, out);
}
