/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The header every record of the BPF programs starts with (krec.h). Pure. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "krec.h"

int ipp_krec__head(const void *raw, size_t size, uint16_t *rec_size)
{
	uint16_t v[2];		/* version, size */

	if (size < sizeof(v))
		return -EPROTO;
	memcpy(v, raw, sizeof(v));
	if (v[0] != IPP_FDID_REC_VERSION)
		return -ENOTSUP;
	if (v[1] > size)
		return -EPROTO;
	*rec_size = v[1];
	return 0;
}

int ipp_krec__fixed(const void *raw, size_t size, unsigned int what, size_t need, void *out)
{
	uint16_t rsize;
	int err = ipp_krec__head(raw, size, &rsize);

	if (err)
		return err;
	if (rsize < need || size <= 4 || ((const unsigned char *)raw)[4] != what)
		return -EPROTO;
	memcpy(out, raw, need);
	return 0;
}
