/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compressed synthetic captures, as perf record -z writes them: a capture of
 * tests/pd-synth.h (written without an ipcperf section) whose data section
 * becomes one zstd stream, flushed every @piece bytes into
 * PERF_RECORD_COMPRESSED records of at most 64 KiB, with the HEADER_COMPRESSED
 * feature (u32 version, type, level, ratio, mmap_len) when @mmap_len is set.
 * Pieces cut records anywhere, so records straddle them as perf's do.
 * Header-only (static functions), for the unit tests and the corpus seeds.
 */
#ifndef IPCPERF_TESTS_PD_ZSYNTH_H
#define IPCPERF_TESTS_PD_ZSYNTH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "capture/perfdata.h"

struct pdz_opts {
	size_t piece;		/* uncompressed bytes per flush (per ring read, in perf) */
	uint32_t mmap_len;	/* HEADER_COMPRESSED's ring size; 0: no such feature */
	const void *data;	/* the records to compress instead of the capture's own, or NULL */
	size_t data_len;
};

/* Append COMPRESSED records holding @len bytes of @src, flushed, to @out at @at. */
static inline int pdz_piece(ZSTD_CCtx *cc, const unsigned char *src, size_t len,
			    unsigned char *out, size_t cap, size_t *at)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t left;

	do {
		struct perf_event_header h = { .type = IPP_PD_RECORD_COMPRESSED };
		size_t room = cap - *at - sizeof(h);
		ZSTD_outBuffer o = { out + *at + sizeof(h),
				     room < UINT16_MAX - sizeof(h) ? room : UINT16_MAX - sizeof(h), 0 };

		if (cap - *at < sizeof(h) + 64)
			return -1;
		left = ZSTD_compressStream2(cc, &o, &in, ZSTD_e_flush);
		if (ZSTD_isError(left))
			return -1;
		h.size = (uint16_t)(sizeof(h) + o.pos);
		memcpy(out + *at, &h, sizeof(h));
		*at += h.size;
	} while (left || in.pos < in.size);
	return 0;
}

/*
 * The capture @img (@len bytes, no section after its feature table) with its
 * records compressed. @return a new image (free()) of *@out_len bytes, or NULL.
 */
static inline unsigned char *pdz_compress(const unsigned char *img, size_t len,
					  const struct pdz_opts *o, size_t *out_len)
{
	uint64_t data_off, data_size, table, nr = 0, sz;
	size_t cap, at, src_len;
	const unsigned char *src;
	unsigned char *out;
	ZSTD_CCtx *cc;
	int err = 0;

	memcpy(&data_off, img + 40, 8);
	memcpy(&data_size, img + 48, 8);
	table = data_off + data_size;
	for (unsigned int b = 0; b < 256; b++)
		nr += img[72 + b / 8] >> (b % 8) & 1;
	if (table + nr * 16 != len)
		return NULL;	/* a section after the table */
	for (unsigned int b = 27; b < 256; b++)	/* the compressed feature goes last */
		if (img[72 + b / 8] >> (b % 8) & 1)
			return NULL;
	src = o->data ? o->data : img + data_off;
	src_len = o->data ? o->data_len : (size_t)data_size;
	cap = len + 2 * src_len + 65536;
	out = malloc(cap);
	cc = ZSTD_createCCtx();
	if (!out || !cc) {
		free(out);
		ZSTD_freeCCtx(cc);
		return NULL;
	}
	memcpy(out, img, data_off);
	at = data_off;
	for (size_t pos = 0; !err && pos < src_len; pos += o->piece) {
		size_t n = src_len - pos < o->piece ? src_len - pos : o->piece;

		err = pdz_piece(cc, src + pos, n, out, cap, &at);
	}
	ZSTD_freeCCtx(cc);
	if (err) {
		free(out);
		return NULL;
	}
	sz = at - data_off;
	memcpy(out + 48, &sz, 8);
	memcpy(out + at, img + table, nr * 16);
	at += nr * 16;
	if (o->mmap_len) {
		uint64_t sec[2] = { at + 16, 20 };
		uint32_t feat[5] = { 1, 1, 1, 3, o->mmap_len };	/* zstd, level 1, ratio 3 */

		out[72 + 27 / 8] |= 1u << (27 % 8);
		memcpy(out + at, sec, 16);
		memcpy(out + at + 16, feat, 20);
		at += 36;
	}
	*out_len = at;
	return out;
}

#endif /* IPCPERF_TESTS_PD_ZSYNTH_H */
