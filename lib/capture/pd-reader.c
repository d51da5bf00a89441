/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data reader's object, its getters, the index of ids, and the
 * open, which reads the header and the attrs. Reading the records is in
 * pd-records.c, the samples in pd-sample.c, the feature sections in
 * pd-sections.c.
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

int ipp_pdr_fail(struct ipp_pd_reader *r, int err, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* "0x0", not %#llx's "0": every message has the same shape. */
	n = snprintf(r->err, sizeof(r->err), "%s: offset 0x%llx: ", r->path ? r->path : "perf.data",
		     (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	ipp_info("%s\n", r->err);
	return err;
}

/*
 * Explain that the file itself could not be opened or examined (@what is
 * "open" or "stat"); there is no offset to give. Returns @err.
 */
static int fail_file(struct ipp_pd_reader *r, int err, const char *what)
{
	snprintf(r->err, sizeof(r->err), "cannot %s %s: %s", what, r->path, strerror(-err));
	ipp_info("%s\n", r->err);
	return err;
}

struct ipp_pd_reader *ipp_pd_reader__new(void)
{
	struct ipp_pd_reader *r = ipp_new(sizeof(*r));

	if (r)
		r->fd = -1;
	return r;
}

static void reset(struct ipp_pd_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	for (size_t i = 0; i < r->nr_ev; i++) {
		free((void *)r->ev[i].ids);
		if (r->names)
			free(r->names[i]);
	}
	free(r->names);
	free(r->ev);
	free(r->idx);
	free(r->ids);
	free(r->lay);
	for (size_t i = 0; i < r->nr_fmt; i++) {
		free((void *)r->fmt[i].system);
		free((void *)r->fmt[i].name);
		free((void *)r->fmt[i].text);
	}
	free(r->fmt);
	free((void *)r->info.hostname);
	free((void *)r->info.osrelease);
	free((void *)r->info.arch);
	free(r->blob);
	free(r->buf);
	free(r->path);
	ipp_pdr_unpack_reset(r, true);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

void ipp_pd_reader__delete(struct ipp_pd_reader *r)
{
	if (!r)
		return;
	reset(r);
	free(r);
}

const char *ipp_pd_reader__error(const struct ipp_pd_reader *r)
{
	return r ? r->err : "";
}

const char *ipp_pd_reader__path(const struct ipp_pd_reader *r)
{
	return r && r->path ? r->path : "";
}

const struct ipp_pd_info *ipp_pd_reader__info(const struct ipp_pd_reader *r)
{
	return r && r->open ? &r->info : NULL;
}

size_t ipp_pd_reader__nr_events(const struct ipp_pd_reader *r)
{
	return r && r->open ? r->nr_ev : 0;
}

const struct ipp_pd_event *ipp_pd_reader__event(const struct ipp_pd_reader *r, size_t i)
{
	return r && r->open && i < r->nr_ev ? &r->ev[i] : NULL;
}

size_t ipp_pd_reader__nr_formats(const struct ipp_pd_reader *r)
{
	return r && r->open ? r->nr_fmt : 0;
}

const struct ipp_pd_format *ipp_pd_reader__format(const struct ipp_pd_reader *r, size_t i)
{
	return r && r->open && i < r->nr_fmt ? &r->fmt[i] : NULL;
}

int ipp_pd_reader__blob(const struct ipp_pd_reader *r, uint32_t *version, const void **data,
			size_t *len)
{
	if (!r || !r->open || !r->info.has_blob)
		return -ENOENT;
	if (version)
		*version = r->blob_version;
	if (data)
		*data = r->blob;
	if (len)
		*len = r->blob_len;
	return 0;
}

static int cmp_idmap(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Return the event of @id by a binary search of the sorted idx, or NULL.
 * For a duplicate id, bsearch() chooses which event is found.
 */
static const struct ipp_pd_event *search_event(const struct ipp_pd_reader *r, uint64_t id)
{
	const struct idmap key = { .id = id };
	const struct idmap *m = r->nr_idx ? bsearch(&key, r->idx, r->nr_idx, sizeof(*r->idx),
						    cmp_idmap) : NULL;

	return m ? &r->ev[m->ev] : NULL;
}

/* Build the hash of the sorted idx, mapping each id to the event search_event() finds for it. */
static int hash_ids(struct ipp_pd_reader *r)
{
	size_t cap = 8;
	unsigned int bits = 3;

	if (!r->nr_idx)
		return 0;
	while (cap < 2 * r->nr_idx) {
		cap *= 2;
		bits++;
	}
	r->ids = calloc(cap, sizeof(*r->ids));
	if (!r->ids)
		return -ENOMEM;
	r->ids_mask = cap - 1;
	r->ids_shift = 64 - bits;
	for (size_t k = 0; k < r->nr_idx; k++) {
		uint64_t id = r->idx[k].id;
		size_t i;

		if (k && r->idx[k - 1].id == id)
			continue;
		for (i = ipp_pdr_id_hash(r, id); r->ids[i].ev; i = (i + 1) & r->ids_mask)
			;
		r->ids[i].id = id;
		r->ids[i].ev = search_event(r, id);
		r->ids[i].lay = &r->lay[r->ids[i].ev - r->ev];
	}
	return 0;
}

const struct ipp_pd_event *ipp_pd_reader__event_by_id(const struct ipp_pd_reader *r, uint64_t id)
{
	if (!r || !r->open)
		return NULL;
	return ipp_pdr_find_event(r, id);
}

/* ---------------------------------------------------------------- open */

static int read_attrs(struct ipp_pd_reader *r, uint64_t attr_size, uint64_t off, uint64_t size,
		      uint64_t *meta_end)
{
	unsigned char *a;
	size_t n;
	int err;

	*meta_end = off + size;
	if (!size)
		return 0;
	if (attr_size < PERF_ATTR_SIZE_VER0 + PD_SECTION || attr_size > PD_MAX_ATTR_SIZE + PD_SECTION)
		return ipp_pdr_fail(r, -EPROTO, 16, "attr size %llu is not a perf_event_attr size",
			    (unsigned long long)attr_size);
	if (size % attr_size)
		return ipp_pdr_fail(r, -EPROTO, 32, "attrs section of %llu bytes is not a multiple of the attr "
			    "size %llu", (unsigned long long)size, (unsigned long long)attr_size);
	err = ipp_pdr_read_section(r, off, size, "attrs section", &a);
	if (err)
		return err;
	n = (size_t)(size / attr_size);
	r->ev = calloc(n, sizeof(*r->ev));
	r->names = calloc(n, sizeof(*r->names));
	if (!r->ev || !r->names) {
		free(a);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = a + i * attr_size;
		uint64_t at = off + i * attr_size, ids_off, ids_size;
		struct ipp_pd_event *ev = &r->ev[i];
		uint32_t sz;
		uint64_t *ids;

		memcpy(&sz, p + offsetof(struct perf_event_attr, size), 4);
		if (sz == 0)
			sz = PERF_ATTR_SIZE_VER0;
		if (sz < PERF_ATTR_SIZE_VER0 || sz > attr_size - PD_SECTION) {
			free(a);
			return ipp_pdr_fail(r, -EPROTO, at + 4, "attr %zu: size %u does not fit the file's attr "
				    "size %llu", i, sz, (unsigned long long)attr_size);
		}
		memcpy(&ev->attr, p, sz < sizeof(ev->attr) ? sz : sizeof(ev->attr));
		ev->file_attr_size = sz;
		memcpy(&ids_off, p + attr_size - PD_SECTION, 8);
		memcpy(&ids_size, p + attr_size - 8, 8);
		if (ids_size % 8 || !ipp_pdr_in_file(r, ids_off, ids_size)) {
			free(a);
			return ipp_pdr_fail(r, -EPROTO, at + attr_size - PD_SECTION,
				    "attr %zu: ids section [%#llx, +%llu) is outside the file or not "
				    "u64s", i, (unsigned long long)ids_off, (unsigned long long)ids_size);
		}
		if (ids_size > PD_MAX_SECTION) {
			free(a);
			return ipp_pdr_fail(r, -EPROTO, at + attr_size - PD_SECTION, "attr %zu: too many ids", i);
		}
		ids = malloc(ids_size ? ids_size : 8);
		if (!ids) {
			free(a);
			return -ENOMEM;
		}
		ev->ids = ids;
		ev->nr_ids = (size_t)(ids_size / 8);
		r->nr_ev = i + 1;
		err = ipp_pdr_src_read(r, ids_off, ids, (size_t)ids_size);
		if (err) {
			free(a);
			return err;
		}
		if (ids_size && ids_off + ids_size > *meta_end)
			*meta_end = ids_off + ids_size;
	}
	free(a);
	return 0;
}

/*
 * Find the tracing data of a partial capture written by ipcperf's writer:
 * if there is any, it starts at the first 8-byte boundary after the attrs
 * and ids, before the data.
 */
static int find_early_tracing_data(struct ipp_pd_reader *r, uint64_t meta_end)
{
	uint64_t at = align8(meta_end), end = r->info.data_offset;
	unsigned char tag[sizeof(ipp_pd_tracing_magic)], *p;
	int err;

	if (at > end || end - at < sizeof(tag) || ipp_pdr_src_read(r, at, tag, sizeof(tag)) ||
	    memcmp(tag, ipp_pd_tracing_magic, sizeof(tag)))
		return 0;
	err = ipp_pdr_read_section(r, at, end - at, "tracing data", &p);
	if (err)
		return err;
	err = ipp_pdr_parse_tracing_data(r, p, (size_t)(end - at), at);
	free(p);
	return err;
}

static int cmp_format(const void *a, const void *b)
{
	const struct ipp_pd_format *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct ipp_pd_format *format_by_id(const struct ipp_pd_reader *r, uint64_t id)
{
	const struct ipp_pd_format key = { .id = (int)id };

	if (id > INT_MAX || !r->nr_fmt)
		return NULL;
	return bsearch(&key, r->fmt, r->nr_fmt, sizeof(*r->fmt), cmp_format);
}

/*
 * Finish the events once read: their formats and names, the sorted and
 * hashed index of their ids, the fixed layouts of their samples (the
 * offsets parse_sample() would find, when they do not depend on the
 * record), and the position of the id. Returns 0 or -ENOMEM.
 */
static int finish_events(struct ipp_pd_reader *r)
{
	size_t n = 0;

	/* Sort the formats by id, since events find theirs by attr.config. */
	if (r->nr_fmt)
		qsort(r->fmt, r->nr_fmt, sizeof(*r->fmt), cmp_format);
	for (size_t i = 0; i < r->nr_ev; i++) {
		struct ipp_pd_event *ev = &r->ev[i];

		if (ev->attr.type == PERF_TYPE_TRACEPOINT)
			ev->format = format_by_id(r, ev->attr.config);
		if (!r->names[i] && ev->format) {
			size_t len = strlen(ev->format->system) + strlen(ev->format->name) + 2;

			r->names[i] = malloc(len);
			if (!r->names[i])
				return -ENOMEM;
			snprintf(r->names[i], len, "%s:%s", ev->format->system, ev->format->name);
		}
		ev->name = r->names[i];
		n += ev->nr_ids;
	}
	r->idx = malloc((n ? n : 1) * sizeof(*r->idx));
	if (!r->idx)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_ev; i++)
		for (size_t j = 0; j < r->ev[i].nr_ids; j++)
			r->idx[r->nr_idx++] = (struct idmap){ r->ev[i].ids[j], i };
	qsort(r->idx, r->nr_idx, sizeof(*r->idx), cmp_idmap);
	r->lay = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*r->lay));
	if (!r->lay)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_ev; i++)
		ipp_pdr_layout_of(&r->lay[i], r->ev[i].attr.sample_type);
	if (hash_ids(r) < 0)
		return -ENOMEM;
	/* perf takes the id positions from the first event, so all events must agree. */
	r->id_pos = r->is_pos = -1;
	if (r->nr_ev) {
		r->id_pos = ipp_pdr_sample_id_pos(r->ev[0].attr.sample_type);
		r->is_pos = ipp_pdr_trailer_id_pos(r->ev[0].attr.sample_type);
		r->sample_id_all = r->ev[0].attr.sample_id_all;
	}
	return 0;
}

static int do_open(struct ipp_pd_reader *r)
{
	uint64_t h[13], fsize = r->info.file_size, data_off, data_size, meta_end;
	uint64_t bs;
	int err;

	if (fsize == 0)
		return ipp_pdr_fail(r, -EINVAL, 0, "empty file: not a perf.data capture");
	if (fsize < 8)
		return ipp_pdr_fail(r, -EINVAL, 0, "%llu bytes: too short for a perf.data header",
			    (unsigned long long)fsize);
	err = ipp_pdr_src_read(r, 0, h, 8);
	if (err)
		return err;
	if (memcmp(h, PD_MAGIC, 8)) {
		memcpy(&bs, PD_MAGIC, 8);
		if (h[0] == __builtin_bswap64(bs))
			return ipp_pdr_fail(r, -EINVAL, 0, "perf.data of the other endianness: not supported");
		if (!memcmp(h, "PERFFILE", 8))
			return ipp_pdr_fail(r, -EINVAL, 0, "perf.data version 1 (PERFFILE): not supported");
		return ipp_pdr_fail(r, -EINVAL, 0, "not a perf.data file (no PERFILE2 magic)");
	}
	if (fsize < 16)
		return ipp_pdr_fail(r, -EPROTO, 8, "the file ends inside the header (%llu bytes of 104)",
			    (unsigned long long)fsize);
	err = ipp_pdr_src_read(r, 8, &h[1], 8);
	if (err)
		return err;
	if (h[1] == PD_PIPE_HDR_SIZE)
		return ipp_pdr_fail(r, -EINVAL, 8, "pipe-mode perf.data (perf record -o -): not supported; "
			    "record to a file");
	if (h[1] != PD_HDR_SIZE && h[1] != PD_HDR_SIZE_NOFEAT)
		return ipp_pdr_fail(r, -EPROTO, 8, "header size %llu: expected 104",
			    (unsigned long long)h[1]);
	if (fsize < h[1])
		return ipp_pdr_fail(r, -EPROTO, fsize, "the file ends inside the header (%llu bytes of %llu)",
			    (unsigned long long)fsize, (unsigned long long)h[1]);
	err = ipp_pdr_src_read(r, 16, &h[2], (size_t)h[1] - 16);
	if (err)
		return err;
	if (h[1] == PD_HDR_SIZE)
		memcpy(r->info.features, &h[9], sizeof(r->info.features));
	/* The u64s of h: 2 attr_size, 3-4 attrs, 5-6 data, 7-8 event_types, 9-12 features. */
	if (!ipp_pdr_in_file(r, h[3], h[4]))
		return ipp_pdr_fail(r, -EPROTO, 24, "attrs section [%#llx, +%llu) is outside the file (%llu "
			    "bytes)", (unsigned long long)h[3], (unsigned long long)h[4],
			    (unsigned long long)fsize);
	data_off = h[5];
	data_size = h[6];
	if (data_off < h[1] || data_off > fsize)
		return ipp_pdr_fail(r, -EPROTO, 40, "data section offset %#llx is outside the file (%llu bytes)",
			    (unsigned long long)data_off, (unsigned long long)fsize);
	r->info.data_offset = data_off;
	if (data_size == 0) {
		r->info.partial = true;
		data_size = fsize - data_off;
	} else if (data_size > fsize - data_off) {
		return ipp_pdr_explain_truncation(r, data_off, data_off + data_size);
	}
	r->info.data_size = data_size;
	r->data_end = data_off + data_size;
	err = read_attrs(r, h[2], h[3], h[4], &meta_end);
	if (err)
		return err;
	if (r->info.partial)
		err = find_early_tracing_data(r, meta_end);
	else
		err = ipp_pdr_read_features(r, r->data_end);
	if (err)
		return err;
	err = finish_events(r);
	if (err)
		return err;
	r->cpu_limit = r->info.nr_cpus_avail ? r->info.nr_cpus_avail : IPP_PD_MAX_CPUS;
	if (r->info.partial)
		ipp_warn("%s: partial capture: the header's data size is 0 (the recorder did not "
			 "finish); reading records up to the last complete one\n", r->path);
	r->cur = data_off;
	return 0;
}

static int open_common(struct ipp_pd_reader *r)
{
	int err;

	err = do_open(r);
	if (err && !r->err[0])
		ipp_pdr_fail(r, err, 0, "%s", strerror(-err));	/* -ENOMEM: nothing said it yet */
	if (err)
		return err;
	r->open = true;
	return 0;
}

int ipp_pd_reader__open(struct ipp_pd_reader *r, const char *path)
{
	struct stat st;
	char err_copy[sizeof(r->err)];
	int err;

	if (!r || !path)
		return -EINVAL;
	if (r->open)
		return -EBUSY;
	reset(r);
	r->path = strdup(path);
	if (!r->path)
		return ipp_pdr_fail(r, -ENOMEM, 0, "out of memory");
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		err = -errno;
		fail_file(r, err, "open");
		goto out;
	}
	if (fstat(r->fd, &st) < 0) {
		err = -errno;
		fail_file(r, err, "stat");
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = ipp_pdr_fail(r, -EINVAL, 0, "not a regular file");
		goto out;
	}
	r->info.file_size = (uint64_t)st.st_size;
	err = open_common(r);
out:
	if (err) {
		memcpy(err_copy, r->err, sizeof(err_copy));
		reset(r);
		memcpy(r->err, err_copy, sizeof(err_copy));
	}
	return err;
}

int ipp_pd_reader__open_mem(struct ipp_pd_reader *r, const void *buf, size_t len)
{
	char err_copy[sizeof(r->err)];
	int err;

	if (!r || (!buf && len))
		return -EINVAL;
	if (r->open)
		return -EBUSY;
	reset(r);
	r->path = strdup("<memory>");
	if (!r->path)
		return ipp_pdr_fail(r, -ENOMEM, 0, "out of memory");
	r->mem = buf ? buf : (const unsigned char *)"";
	r->info.file_size = len;
	err = open_common(r);
	if (err) {
		memcpy(err_copy, r->err, sizeof(err_copy));
		reset(r);
		memcpy(r->err, err_copy, sizeof(err_copy));
	}
	return err;
}
