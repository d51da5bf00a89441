/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data reader's decompression of perf record -z's records: they
 * are read out of its PERF_RECORD_COMPRESSED records as if they had been in
 * the file.
 *
 * perf compresses what it reads from its rings into one zstd stream that runs
 * through the whole data section. It flushes the stream at the end of each
 * COMPRESSED record but never ends a frame, so each record holds the next
 * piece of one stream, and a record of the stream may begin in one piece and
 * end in a later one (other records, FINISHED_ROUND, sit between the pieces
 * uncompressed). The HEADER_COMPRESSED feature says the compression type and
 * the size of the rings: no piece gives more than one ring held.
 *
 * Memory is bounded whatever the file says: the stream is decompressed into
 * a buffer of UNPACK_BUF bytes only as far as the records handed out need;
 * the zstd window is held to 2^27 bytes (zstd's own default limit, which
 * perf's highest level, 22, reaches); and a piece that gives more than its
 * ring held is an error, so a small record that would decompress to
 * gigabytes ends the reading instead of feeding it.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "internal.h"
#include "capture/pd-reader-int.h"

/* Holds a whole record (at most 64 KiB) and room to decompress behind it. */
#define UNPACK_BUF (1u << 20)
#define UNPACK_WINDOW_LOG 27
/* perf's enum perf_comp_type */
#define PD_COMP_NONE 0u
#define PD_COMP_ZSTD 1u

int ipp_pdr_unpack_feature(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			   uint64_t off)
{
	struct pd_unpack *u = &r->unpack;

	/* The section holds five u32s: version, type, level, ratio and mmap_len. */
	if (len < 20)
		return ipp_pdr_fail(r, -EPROTO, off, "compressed: %zu bytes, too short for its 5 "
				    "numbers", len);
	memcpy(&u->type, p + 4, 4);
	memcpy(&u->mmap_len, p + 16, 4);
	u->has_feature = true;
	return 0;
}

static int unpack_fail_zstd(struct ipp_pd_reader *r, size_t ret)
{
	return ipp_pdr_fail(r, -EPROTO, r->unpack.in_off, "record type %u (COMPRESSED): its "
			    "zstd data cannot be decompressed: %s (corrupt capture)",
			    IPP_PD_RECORD_COMPRESSED, ZSTD_getErrorName(ret));
}

/* Make whatever is missing of the stream's decoder and buffers, at the first COMPRESSED record. */
static int unpack_init(struct ipp_pd_reader *r, uint64_t off)
{
	struct pd_unpack *u = &r->unpack;

	if (!u->zs && (u->zs = ZSTD_createDCtx()) &&
	    ZSTD_isError(ZSTD_DCtx_setParameter(u->zs, ZSTD_d_windowLogMax, UNPACK_WINDOW_LOG))) {
		ZSTD_freeDCtx(u->zs);
		u->zs = NULL;
	}
	if (!u->in)
		u->in = malloc(UINT16_MAX);
	if (!u->out)
		u->out = malloc(UNPACK_BUF);
	if (!u->zs || !u->in || !u->out)
		return ipp_pdr_fail(r, -ENOMEM, off, "out of memory for the decompression of "
				    "record type %u (COMPRESSED)", IPP_PD_RECORD_COMPRESSED);
	return 0;
}

int ipp_pdr_unpack_feed(struct ipp_pd_reader *r, const unsigned char *p,
			const struct perf_event_header *h, uint64_t off)
{
	struct pd_unpack *u = &r->unpack;
	int err;

	if (u->has_feature && u->type != PD_COMP_ZSTD)
		return ipp_pdr_fail(r, -EPROTO, off, "record type %u (COMPRESSED), but the "
				    "compressed feature says compression type %u%s: only zstd (1) "
				    "is known", h->type, u->type, u->type == PD_COMP_NONE ?
				    " (none)" : "");
	err = unpack_init(r, off);
	if (err)
		return err;
	u->in_len = h->size - sizeof(*h);
	memcpy(u->in, p + sizeof(*h), u->in_len);
	u->in_pos = 0;
	u->in_off = off;
	u->in_given = 0;
	u->busy = true;
	return 0;
}

/*
 * Return the most bytes one piece may give: its ring's size, or the largest the
 * feature could say.
 */
static uint64_t unpack_limit(const struct pd_unpack *u)
{
	return u->has_feature && u->mmap_len ? u->mmap_len : UINT32_MAX;
}

/*
 * Decompress more of the current piece behind what is left in @u->out.
 * Returns 0, possibly with no new bytes when the piece is used up, or -EPROTO.
 */
static int unpack_more(struct ipp_pd_reader *r)
{
	struct pd_unpack *u = &r->unpack;
	size_t left = u->out_len - u->out_head, ret;
	ZSTD_outBuffer o;
	ZSTD_inBuffer in = { u->in, u->in_len, u->in_pos };

	memmove(u->out, u->out + u->out_head, left);
	u->out_head = 0;
	u->out_len = left;
	o = (ZSTD_outBuffer){ u->out, UNPACK_BUF, left };
	ret = ZSTD_decompressStream(u->zs, &o, &in);
	if (ZSTD_isError(ret))
		return unpack_fail_zstd(r, ret);
	if (o.pos == left && in.pos == u->in_pos && in.pos < in.size)
		return ipp_pdr_fail(r, -EPROTO, u->in_off, "record type %u (COMPRESSED): its zstd "
				    "data makes no progress (corrupt capture)",
				    IPP_PD_RECORD_COMPRESSED);
	u->in_given += o.pos - left;
	u->out_len = o.pos;
	u->in_pos = in.pos;
	u->more = o.pos == o.size;
	if (u->in_given > unpack_limit(u))
		return ipp_pdr_fail(r, -EPROTO, u->in_off, "record type %u (COMPRESSED) of %zu "
				    "bytes decompresses to more than %llu bytes, %s: corrupt "
				    "capture, or a decompression bomb", IPP_PD_RECORD_COMPRESSED,
				    u->in_len + 8, (unsigned long long)unpack_limit(u),
				    u->has_feature && u->mmap_len ?
				    "the size of a ring in its compressed feature (mmap_len)" :
				    "the most a ring can hold");
	return 0;
}

/*
 * Look at the record at the head of @u->out. Returns 1 when it is whole, 0
 * when it is not all there yet, or -EPROTO for a bad header.
 */
static int unpack_peek(struct ipp_pd_reader *r, struct perf_event_header *h)
{
	struct pd_unpack *u = &r->unpack;
	size_t left = u->out_len - u->out_head;

	if (left < sizeof(*h))
		return 0;
	memcpy(h, u->out + u->out_head, sizeof(*h));
	if (h->size < sizeof(*h) || h->type == 0 || h->type >= 256 ||
	    h->type == IPP_PD_RECORD_COMPRESSED)
		return ipp_pdr_fail(r, -EPROTO, u->in_off, "record type %u (COMPRESSED): the "
				    "records it holds are corrupt: record type %u (%s) of size %u "
				    "at byte %llu of the decompressed stream%s",
				    IPP_PD_RECORD_COMPRESSED, h->type, ipp_pd_record_name(h->type),
				    h->size, (unsigned long long)u->head_pos,
				    h->type == IPP_PD_RECORD_COMPRESSED ? " (compressed twice)" : "");
	return h->size <= left;
}

int ipp_pdr_unpack_next(struct ipp_pd_reader *r, struct ipp_pd_rec *rec)
{
	struct pd_unpack *u = &r->unpack;
	struct perf_event_header h;
	int ret;

	for (;;) {
		ret = unpack_peek(r, &h);
		if (ret < 0)
			return ret;
		if (ret) {
			rec->data = u->out + u->out_head;
			rec->size = h.size;
			rec->type = h.type;
			rec->misc = h.misc;
			rec->offset = u->in_off;
			u->out_head += h.size;
			u->head_pos += h.size;
			return 1;
		}
		if (u->in_pos == u->in_len && !u->more) {
			u->busy = false;
			return 0;	/* the rest of the record is in a later piece */
		}
		ret = unpack_more(r);
		if (ret < 0)
			return ret;
	}
}

int ipp_pdr_unpack_end(struct ipp_pd_reader *r)
{
	struct pd_unpack *u = &r->unpack;
	size_t left = u->out_len - u->out_head;
	struct perf_event_header h = { 0 };

	if (!left)
		return 0;
	if (left >= sizeof(h))
		memcpy(&h, u->out + u->out_head, sizeof(h));
	if (r->info.partial) {
		if (!u->warned_tail)
			ipp_warn("%s: offset 0x%llx: partial capture: the compressed records end "
				 "%zu bytes into a record (of %u bytes), which was skipped\n",
				 r->path, (unsigned long long)u->in_off, left, h.size);
		u->warned_tail = true;
		return 0;
	}
	if (left < sizeof(h))
		return ipp_pdr_fail(r, -EPROTO, u->in_off, "record type %u (COMPRESSED): the "
				    "compressed records end in %zu stray bytes, not a record "
				    "header (truncated or corrupt compressed data)",
				    IPP_PD_RECORD_COMPRESSED, left);
	return ipp_pdr_fail(r, -EPROTO, u->in_off, "record type %u (COMPRESSED): the compressed "
			    "records end %zu bytes into record type %u (%s) of %u bytes (truncated "
			    "or corrupt compressed data)", IPP_PD_RECORD_COMPRESSED, left, h.type,
			    ipp_pd_record_name(h.type), h.size);
}

void ipp_pdr_unpack_reset(struct ipp_pd_reader *r, bool all)
{
	struct pd_unpack *u = &r->unpack;

	if (all) {
		ZSTD_freeDCtx(u->zs);
		free(u->in);
		free(u->out);
		memset(u, 0, sizeof(*u));
		return;
	}
	if (u->zs)
		ZSTD_DCtx_reset(u->zs, ZSTD_reset_session_only);
	u->in_len = u->in_pos = u->out_head = u->out_len = 0;
	u->in_given = u->head_pos = 0;
	u->more = u->busy = false;
}
