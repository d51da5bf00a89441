/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data reader's access to the file (its sections, and the window
 * over the data records), the iteration over the records, and the
 * explanation of a truncated file.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "internal.h"
#include "capture/pd-reader-int.h"

/* Whether [off, off + len) lies within the file. */
bool ipp_pdr_in_file(const struct ipp_pd_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->info.file_size && len <= r->info.file_size - off;
}

/* Copy [off, off + len) of the file, which the caller checked is in it. */
int ipp_pdr_src_read(struct ipp_pd_reader *r, uint64_t off, void *dst, size_t len)
{
	unsigned char *p = dst;

	if (r->mem) {
		memcpy(dst, r->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(r->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ipp_pdr_fail(r, -errno, off, "read failed: %s", strerror(errno));
		if (n == 0)
			return ipp_pdr_fail(r, -EPROTO, off, "the file shrank while being read");
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Read a whole section into a new buffer, NUL-terminated for convenience. */
int ipp_pdr_read_section(struct ipp_pd_reader *r, uint64_t off, uint64_t len, const char *what,
			unsigned char **out)
{
	unsigned char *p;
	int err;

	if (!ipp_pdr_in_file(r, off, len))
		return ipp_pdr_fail(r, -EPROTO, off, "%s (%llu bytes) runs past the end of the file (%llu bytes)",
			    what, (unsigned long long)len, (unsigned long long)r->info.file_size);
	if (len > PD_MAX_SECTION)
		return ipp_pdr_fail(r, -EPROTO, off, "%s is implausibly large (%llu bytes)", what,
			    (unsigned long long)len);
	p = malloc(len + 1);
	if (!p)
		return -ENOMEM;
	err = ipp_pdr_src_read(r, off, p, len);
	if (err) {
		free(p);
		return err;
	}
	p[len] = '\0';
	*out = p;
	return 0;
}

/* ---------------------------------------------------------------- data records */

/*
 * Make [cur, cur + need) of the file addressable and return a pointer to
 * cur. The caller has checked the bounds.
 */
static const unsigned char *window(struct ipp_pd_reader *r, uint64_t cur, size_t need, int *err)
{
	size_t keep, want;

	if (cur >= r->win_off && cur - r->win_off <= r->win_len &&
	    need <= r->win_len - (cur - r->win_off))
		return r->win + (cur - r->win_off);
	if (r->mem) {
		/* The whole data section (or, before open finished, the whole file). */
		r->win = r->mem;
		r->win_off = 0;
		r->win_len = (size_t)(r->data_end ? r->data_end : r->info.file_size);
		return r->mem + cur;
	}
	if (!r->buf) {
		/* A record never passes the end of the file: a small file needs a small buffer. */
		r->buf_cap = r->info.file_size < RBUF_SIZE ? (size_t)r->info.file_size : RBUF_SIZE;
		r->buf = malloc(r->buf_cap ? r->buf_cap : 1);
		if (!r->buf) {
			*err = ipp_pdr_fail(r, -ENOMEM, cur, "out of memory for the read buffer (%zu bytes)",
				    r->buf_cap);
			return NULL;
		}
	}
	/* Keep what is left from cur on, read the rest behind it. */
	if (r->win == r->buf && cur >= r->win_off && cur < r->win_off + r->win_len) {
		keep = (size_t)(r->win_off + r->win_len - cur);
		memmove(r->buf, r->buf + (cur - r->win_off), keep);
	} else {
		keep = 0;
	}
	r->win = r->buf;
	r->win_off = cur;
	r->win_len = keep;
	want = r->buf_cap - keep;
	/* The caller checked cur + need <= data_end <= file size, so need <= buf_cap. */
	if (want > r->data_end - (cur + keep))
		want = (size_t)(r->data_end - (cur + keep));
	*err = ipp_pdr_src_read(r, cur + keep, r->buf + keep, want);
	if (*err)
		return NULL;
	r->win_len = keep + want;
	return r->buf;
}

/*
 * Read the header of the record at @cur of the data section ending at @end.
 * Returns 1 with the header in @h. Returns 0 when the record is cut off at
 * @end; @h->size then says its size, or is 0 when not even the header is
 * there. Returns -EPROTO for a corrupt header.
 */
static int peek_record(struct ipp_pd_reader *r, uint64_t cur, uint64_t end,
		       struct perf_event_header *h, const unsigned char **p)
{
	int err = 0;

	if (end - cur < sizeof(*h)) {
		memset(h, 0, sizeof(*h));
		return 0;
	}
	*p = window(r, cur, sizeof(*h), &err);
	if (!*p)
		return err;
	memcpy(h, *p, sizeof(*h));
	if (h->size < sizeof(*h))
		return ipp_pdr_fail(r, -EPROTO, cur,
			    "record type %u (%s): size %u is smaller than a record header (8 bytes)",
			    h->type, ipp_pd_record_name(h->type), h->size);
	if (h->type == 0 || h->type >= 256)
		return ipp_pdr_fail(r, -EPROTO, cur, "record type %u (%s), size %u: invalid record type",
			    h->type, ipp_pd_record_name(h->type), h->size);
	if (h->size > end - cur)
		return 0;
	return 1;
}

/*
 * The data section runs past the end of the file: find the record it cuts,
 * for an error that names it.
 */
int ipp_pdr_explain_truncation(struct ipp_pd_reader *r, uint64_t data_off, uint64_t data_end)
{
	uint64_t fsize = r->info.file_size, cur = data_off, last = UINT64_MAX;
	struct perf_event_header h, lh = { 0 };
	const unsigned char *p;
	int ret;

	r->data_end = fsize;
	while ((ret = peek_record(r, cur, fsize, &h, &p)) == 1) {
		last = cur;
		lh = h;
		cur += h.size;
	}
	if (ret < 0)
		return ret;
	if (h.size)
		return ipp_pdr_fail(r, -EPROTO, cur,
			    "record type %u (%s) of %u bytes is cut: the file ends at %#llx, but its "
			    "header says the data section ends at %#llx (truncated file)",
			    h.type, ipp_pd_record_name(h.type), h.size, (unsigned long long)fsize,
			    (unsigned long long)data_end);
	if (last != UINT64_MAX && cur < fsize)
		return ipp_pdr_fail(r, -EPROTO, cur,
			    "the file ends %llu bytes into the record header after record type %u (%s) "
			    "at %#llx, but its header says the data section ends at %#llx (truncated "
			    "file)", (unsigned long long)(fsize - cur), lh.type,
			    ipp_pd_record_name(lh.type), (unsigned long long)last,
			    (unsigned long long)data_end);
	if (last != UINT64_MAX)
		return ipp_pdr_fail(r, -EPROTO, cur,
			    "the file ends here, after record type %u (%s) at %#llx, but its header "
			    "says the data section ends at %#llx (truncated file)", lh.type,
			    ipp_pd_record_name(lh.type), (unsigned long long)last,
			    (unsigned long long)data_end);
	return ipp_pdr_fail(r, -EPROTO, cur,
		    "the file ends here, before the first record, but its header says the data "
		    "section ends at %#llx (truncated file)", (unsigned long long)data_end);
}

/*
 * Fill @rec with the record at r->cur, found at @p with the checked header
 * @h, and step past it. Returns 1.
 */
static inline int take_record(struct ipp_pd_reader *r, const unsigned char *p,
			      const struct perf_event_header *h, struct ipp_pd_rec *rec)
{
	rec->data = p;
	rec->size = h->size;
	rec->type = h->type;
	rec->misc = h->misc;
	rec->offset = r->cur;
	r->cur += h->size;
	return 1;
}

/*
 * Handle a record at r->cur that runs past the data section; @h->size is 0
 * when not even its header is there.
 */
static int next_cut(struct ipp_pd_reader *r, const struct perf_event_header *h)
{
	if (r->info.partial) {
		/* What a killed writer leaves: the last record is incomplete. */
		if (!r->warned_tail)
			ipp_warn("%s: offset 0x%llx: partial capture: the last record (%llu of %u "
				 "bytes) is incomplete and was skipped\n",
				 r->path, (unsigned long long)r->cur,
				 (unsigned long long)(r->data_end - r->cur), h->size);
		r->warned_tail = true;
		return ipp_pdr_unpack_end(r);
	}
	if (!h->size)
		return ipp_pdr_fail(r, -EPROTO, r->cur,
				    "%llu stray bytes at the end of the data section: not a record header",
				    (unsigned long long)(r->data_end - r->cur));
	return ipp_pdr_fail(r, -EPROTO, r->cur,
			    "record type %u (%s): size %u runs past the end of the data section at %#llx",
			    h->type, ipp_pd_record_name(h->type), h->size,
			    (unsigned long long)r->data_end);
}

/*
 * Read the next record of the file: the next record that is not COMPRESSED,
 * or the first record a COMPRESSED one holds. Returns 1, 0 at the end, or
 * -errno.
 */
static int next_file_record(struct ipp_pd_reader *r, struct ipp_pd_rec *rec)
{
	struct perf_event_header h;
	const unsigned char *p = NULL;
	int ret, err = 0;

	for (;;) {
		if (r->cur >= r->data_end)
			return ipp_pdr_unpack_end(r);
		ret = peek_record(r, r->cur, r->data_end, &h, &p);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return next_cut(r, &h);
		p = window(r, r->cur, h.size, &err);
		if (!p)
			return err;
		if (h.type != IPP_PD_RECORD_COMPRESSED)
			return take_record(r, p, &h, rec);
		ret = ipp_pdr_unpack_feed(r, p, &h, r->cur);
		r->cur += h.size;
		if (!ret)
			ret = ipp_pdr_unpack_next(r, rec);
		if (ret)
			return ret;
	}
}

/*
 * The slow path of ipp_pd_reader__next(): a record not wholly in the window,
 * the end of the data, a bad record, or a compressed one.
 */
static __attribute__((noinline)) int next_slow(struct ipp_pd_reader *r, struct ipp_pd_rec *rec)
{
	int ret = 0;

	if (r->unpack.busy)
		ret = ipp_pdr_unpack_next(r, rec);
	if (!ret)
		ret = next_file_record(r, rec);
	if (ret < 0)
		r->iter_err = ret;
	return ret;
}

int ipp_pd_reader__next(struct ipp_pd_reader *r, struct ipp_pd_rec *rec)
{
	struct perf_event_header h;
	const unsigned char *p;
	uint64_t off;

	if (!r || !r->open || !rec)
		return -EINVAL;
	if (r->iter_err)
		return r->iter_err;
	/*
	 * The fast path: a sane record wholly in the window. The window never
	 * passes data_end, so a record in it is before the end.
	 */
	off = r->cur - r->win_off;	/* wraps when cur is before the window */
	if (off < r->win_len && r->win_len - off >= sizeof(h)) {
		p = r->win + off;
		memcpy(&h, p, sizeof(h));
		/* A COMPRESSED record, and the records one holds, go the slow way. */
		if (h.size >= sizeof(h) && h.size <= r->win_len - off && h.type - 1u < 255u &&
		    h.type != IPP_PD_RECORD_COMPRESSED && !r->unpack.busy) {
			return take_record(r, p, &h, rec);
		}
	}
	return next_slow(r, rec);
}

int ipp_pd_reader__rewind(struct ipp_pd_reader *r)
{
	if (!r || !r->open)
		return -EINVAL;
	r->cur = r->info.data_offset;
	r->iter_err = 0;
	ipp_pdr_unpack_reset(r, false);
	/* Read again from the file, as the first time. */
	r->win_off = 0;
	r->win_len = 0;
	return 0;
}

