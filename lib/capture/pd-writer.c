/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data writer: it writes captures in the perf.data format that perf
 * 6.1 reads (perf script, perf report). perfdata.h describes the layout.
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
#include "capture/pd-writer.h"
#include "capture/pd-file.h"

/* ================================================================ byte buffer */

struct bbuf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

static void bb_put(struct bbuf *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (len > b->cap - b->len && ipp_grow((void **)&b->p, &b->cap, b->len + len, 1)) {
		b->oom = true;
		return;
	}
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void bb_u32(struct bbuf *b, uint32_t v) { bb_put(b, &v, sizeof(v)); }
static void bb_u64(struct bbuf *b, uint64_t v) { bb_put(b, &v, sizeof(v)); }
static void bb_zero(struct bbuf *b, size_t n)
{
	static const unsigned char z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		bb_put(b, z, k);
		n -= k;
	}
}
static void bb_pad8(struct bbuf *b) { bb_zero(b, align8(b->len) - b->len); }

/* Append a struct perf_header_string: u32 length (NUL included, padded to 64), string. */
static void bb_header_string(struct bbuf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t len = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;

	bb_u32(b, (uint32_t)len);
	bb_put(b, s, n - 1);
	bb_zero(b, len - (n - 1));
}

/* ================================================================ writer */

struct wevent {
	char *system;		/* NULL for an event that is not a tracepoint */
	char *name;
	unsigned char *attr;
	size_t attr_size;
	uint64_t *ids;
	size_t nr_ids;
	char *format;
	size_t format_len;
};

struct ipp_pd_writer {
	int fd;
	int err;		/* first failed write: sticky */
	bool begun;
	struct wevent *ev;
	size_t nr_ev;
	char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	char *hostname, *osrelease, *arch;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t kernel_text;
	uint32_t file_attr_size;
	uint64_t data_offset;
	uint64_t pos;		/* file offset of the next byte written */
	unsigned char *buf;
	size_t buf_len;
	uint64_t records;
	bool round_dirty;
	/* The offset and size of each feature section written before the data, by feature bit. */
	uint64_t feat_off[IPP_PD_FEAT_BITS], feat_size[IPP_PD_FEAT_BITS];
	uint64_t features[IPP_PD_FEAT_BITS / 64];
	bool has_blob;
	uint32_t blob_version;
	void *blob;
	size_t blob_len;
};

#define WBUF_SIZE (1u << 20)

static int write_all(int fd, const void *data, size_t len, uint64_t off)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int wflush(struct ipp_pd_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (!w->buf_len)
		return 0;
	err = write_all(w->fd, w->buf, w->buf_len, w->pos - w->buf_len);
	w->buf_len = 0;
	if (err)
		w->err = err;
	return err;
}

static int wput(struct ipp_pd_writer *w, const void *data, size_t len)
{
	if (w->err)
		return w->err;
	if (len > WBUF_SIZE - w->buf_len && wflush(w))
		return w->err;
	if (len > WBUF_SIZE) {
		int err = write_all(w->fd, data, len, w->pos);

		if (err)
			return w->err = err;
	} else {
		memcpy(w->buf + w->buf_len, data, len);
		w->buf_len += len;
	}
	w->pos += len;
	return 0;
}

/*
 * Return a new copy of the header_page text of a 64-bit kernel (tracefs
 * events/header_page); its length goes in *@len.
 */
static char *default_header_page(size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t lsz = sizeof(long);
	char buf[512];
	int n;

	if (page <= 0)
		page = 4096;
	n = snprintf(buf, sizeof(buf),
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:%zu;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:%zu;\tsize:%zu;\tsigned:0;\n",
		     lsz, 8 + lsz, (size_t)page - 8 - lsz);
	*len = (size_t)n;
	return ipp_pd_memdup0(buf, (size_t)n);
}

static const char default_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static char *opt_str(const char *given, const char *fallback)
{
	const char *s = given ? given : fallback;

	return strdup(s ? s : "");
}

/* Make the capture file @fd ready to be written. Returns 0 or an errno. */
static int adopt_fd(int fd)
{
	struct stat st;

	/* O_NONBLOCK was for the open only; O_APPEND would defeat the header's rewrite. */
	if (fstat(fd, &st) < 0 || fcntl(fd, F_SETFL, 0) < 0)
		return errno;
	/* O_TRUNC keeps an existing file's mode, so make it private here. */
	if (S_ISREG(st.st_mode) && (st.st_mode & 077) && fchmod(fd, 0600) < 0)
		return errno;
	if (lseek(fd, 0, SEEK_CUR) < 0)
		return ESPIPE;
	return 0;
}

struct ipp_pd_writer *ipp_pd_writer__new(const char *path, const struct ipp_pd_writer_opts *opts)
{
	struct ipp_pd_writer *w;
	int fd, err;

	if (!path || !ipp_opts_valid(opts, opts ? opts->sz : 0, sizeof(*opts))) {
		return ipp_null_errno(EINVAL);
	}
	/*
	 * Like perf record -o: an existing file is truncated; captures are
	 * private. Never through a symbolic link (ELOOP): a recorder runs as
	 * root, and a link another user planted at @path would have it
	 * overwrite, chmod or create the file the link names. With O_NONBLOCK
	 * a FIFO put there fails now (ENXIO, or ESPIPE below) instead of
	 * blocking until someone reads it.
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return NULL;
	w = ipp_pd_writer__new_fd(fd, opts);
	if (!w) {
		err = errno;
		close(fd);
		errno = err;
	}
	return w;
}

struct ipp_pd_writer *ipp_pd_writer__new_fd(int fd, const struct ipp_pd_writer_opts *opts)
{
	struct ipp_pd_writer_opts o = { 0 };
	struct ipp_pd_writer *w;
	struct utsname un;
	int err = 0;

	if (fd < 0 || !ipp_opts_valid(opts, opts ? opts->sz : 0, sizeof(o))) {
		return ipp_null_errno(fd < 0 ? EBADF : EINVAL);
	}
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	w = ipp_new(sizeof(*w));
	if (!w)
		return NULL;
	w->fd = -1;
	w->buf = malloc(WBUF_SIZE);
	if (uname(&un) < 0)
		memset(&un, 0, sizeof(un));
	w->hostname = opt_str(o.hostname, un.nodename);
	w->osrelease = opt_str(o.osrelease, un.release);
	w->arch = opt_str(o.arch, un.machine);
	if (o.header_page) {
		w->header_page = ipp_pd_memdup0(o.header_page, o.header_page_len);
		w->header_page_len = o.header_page_len;
	} else {
		w->header_page = default_header_page(&w->header_page_len);
	}
	if (o.header_event) {
		w->header_event = ipp_pd_memdup0(o.header_event, o.header_event_len);
		w->header_event_len = o.header_event_len;
	} else {
		w->header_event = ipp_pd_memdup0(default_header_event, sizeof(default_header_event) - 1);
		w->header_event_len = sizeof(default_header_event) - 1;
	}
	if (!w->buf || !w->hostname || !w->osrelease || !w->arch || !w->header_page ||
	    !w->header_event) {
		err = ENOMEM;
		goto fail;
	}
	w->nr_cpus_avail = o.nr_cpus_avail ? o.nr_cpus_avail
					   : (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	w->nr_cpus_online = o.nr_cpus_online ? o.nr_cpus_online
					     : (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	w->kernel_text = o.kernel_text;

	if ((err = adopt_fd(fd)) != 0)
		goto fail;
	w->fd = fd;	/* the writer's only once it is made: a failure leaves @fd to the caller */
	return w;
fail:
	ipp_pd_writer__delete(w);
	return ipp_null_errno(err);
}

static void free_event(struct wevent *ev)
{
	free(ev->name);
	free(ev->system);
	free(ev->attr);
	free(ev->ids);
	free(ev->format);
}

int ipp_pd_writer__add_event(struct ipp_pd_writer *w, const char *system, const char *name,
			     const void *attr, size_t attr_size, const uint64_t *ids, size_t nr_ids,
			     const char *format, size_t format_len)
{
	struct wevent *ev, *arr;

	if (!w || !name || !attr || attr_size < PERF_ATTR_SIZE_VER0 ||
	    attr_size > PD_MAX_ATTR_SIZE || (nr_ids && !ids) || (format && !system))
		return -EINVAL;
	if (w->begun)
		return -EBUSY;
	if (format)
		format_len = strnlen(format, format_len);	/* the text, not a terminating NUL */
	arr = realloc(w->ev, (w->nr_ev + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	w->ev = arr;
	ev = &arr[w->nr_ev];
	memset(ev, 0, sizeof(*ev));
	ev->name = strdup(name);
	ev->system = system ? strdup(system) : NULL;
	ev->attr = malloc(attr_size);
	ev->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(uint64_t));
	ev->format = format ? ipp_pd_memdup0(format, format_len) : NULL;
	if (!ev->name || (system && !ev->system) || !ev->attr || !ev->ids ||
	    (format && !ev->format)) {
		free_event(ev);
		return -ENOMEM;
	}
	memcpy(ev->attr, attr, attr_size);
	ev->attr_size = attr_size;
	if (nr_ids)
		memcpy(ev->ids, ids, nr_ids * sizeof(uint64_t));
	ev->nr_ids = nr_ids;
	ev->format_len = format ? format_len : 0;
	w->nr_ev++;
	return 0;
}

int ipp_pd_writer__set_blob(struct ipp_pd_writer *w, uint32_t version, const void *data, size_t len)
{
	void *p;

	if (!w || (len && !data) || len > PD_MAX_SECTION)
		return -EINVAL;
	p = malloc(len ? len : 1);
	if (!p)
		return -ENOMEM;
	if (len)
		memcpy(p, data, len);
	free(w->blob);
	w->blob = p;
	w->blob_len = len;
	w->blob_version = version;
	w->has_blob = true;
	return 0;
}

uint64_t ipp_pd_writer__records(const struct ipp_pd_writer *w)
{
	return w ? w->records : 0;
}

/* Append the event's attr as on file: w->file_attr_size bytes, attr.size set to that. */
static void put_attr(struct bbuf *b, const struct ipp_pd_writer *w, const struct wevent *ev)
{
	size_t n = ev->attr_size < w->file_attr_size ? ev->attr_size : w->file_attr_size;
	size_t at = b->len;
	uint32_t size = w->file_attr_size;

	bb_put(b, ev->attr, n);
	bb_zero(b, w->file_attr_size - n);
	if (!b->oom)
		memcpy(b->p + at + offsetof(struct perf_event_attr, size), &size, sizeof(size));
}

/* Append HEADER_TRACING_DATA in the form perf's trace-event-read.c parses. */
static void put_tracing_data(struct bbuf *b, const struct ipp_pd_writer *w)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char c;
	size_t nr_sys = 0;

	bb_put(b, ipp_pd_tracing_magic, sizeof(ipp_pd_tracing_magic));
	bb_put(b, PD_TRACING_VERSION, sizeof(PD_TRACING_VERSION));
	c = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	bb_put(b, &c, 1);
	c = sizeof(long);
	bb_put(b, &c, 1);
	bb_u32(b, (uint32_t)(page > 0 ? page : 4096));
	bb_put(b, "header_page", 12);
	bb_u64(b, w->header_page_len);
	bb_put(b, w->header_page, w->header_page_len);
	bb_put(b, "header_event", 13);
	bb_u64(b, w->header_event_len);
	bb_put(b, w->header_event, w->header_event_len);
	bb_u32(b, 0);	/* ftrace formats */
	/* Event formats, grouped by system in order of first appearance. */
	for (size_t i = 0; i < w->nr_ev; i++) {
		bool seen = false;

		if (!w->ev[i].format)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = w->ev[j].format && !strcmp(w->ev[j].system, w->ev[i].system);
		nr_sys += !seen;
	}
	bb_u32(b, (uint32_t)nr_sys);
	for (size_t i = 0; i < w->nr_ev; i++) {
		bool seen = false;
		uint32_t count = 0;

		if (!w->ev[i].format)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = w->ev[j].format && !strcmp(w->ev[j].system, w->ev[i].system);
		if (seen)
			continue;
		for (size_t j = i; j < w->nr_ev; j++)
			count += w->ev[j].format && !strcmp(w->ev[j].system, w->ev[i].system);
		bb_put(b, w->ev[i].system, strlen(w->ev[i].system) + 1);
		bb_u32(b, count);
		for (size_t j = i; j < w->nr_ev; j++) {
			if (!w->ev[j].format || strcmp(w->ev[j].system, w->ev[i].system))
				continue;
			bb_u64(b, w->ev[j].format_len);
			bb_put(b, w->ev[j].format, w->ev[j].format_len);
		}
	}
	bb_u32(b, 0);	/* kallsyms */
	bb_u32(b, 0);	/* ftrace printk formats */
	bb_u64(b, 0);	/* saved cmdlines (version >= 0.6) */
}

static void put_event_desc(struct bbuf *b, const struct ipp_pd_writer *w)
{
	bb_u32(b, (uint32_t)w->nr_ev);
	bb_u32(b, w->file_attr_size);
	for (size_t i = 0; i < w->nr_ev; i++) {
		const struct wevent *ev = &w->ev[i];
		char name[512];

		put_attr(b, w, ev);
		bb_u32(b, (uint32_t)ev->nr_ids);
		if (ev->system)
			snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
		else
			snprintf(name, sizeof(name), "%s", ev->name);
		bb_header_string(b, name);
		bb_put(b, ev->ids, ev->nr_ids * sizeof(uint64_t));
	}
}

/* Record the section [start, b->len) as feature @feat, then pad to 8. */
static void end_feature(struct ipp_pd_writer *w, struct bbuf *b, unsigned int feat, size_t start)
{
	w->feat_off[feat] = start;
	w->feat_size[feat] = b->len - start;
	ipp_pd_set_bit(w->features, feat);
	bb_pad8(b);
}

/* Return the bytes sample_id_all adds to non-sample records, by the first event's sample_type. */
static size_t id_trailer_size(const struct ipp_pd_writer *w)
{
	struct perf_event_attr a = { 0 };
	uint64_t st;

	if (!w->nr_ev)
		return 0;
	memcpy(&a, w->ev[0].attr, w->ev[0].attr_size < sizeof(a) ? w->ev[0].attr_size : sizeof(a));
	if (!a.sample_id_all)
		return 0;
	st = a.sample_type;
	return 8 * (size_t)(!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
			    !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
			    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
}

static int wput(struct ipp_pd_writer *w, const void *data, size_t len);

/*
 * Write the kernel's PERF_RECORD_MMAP as perf record synthesizes it: pid
 * -1, [_text, end of the address space), "[kernel.kallsyms]_text", and a
 * zero sample_id trailer (id 0 is perf's mark of a synthesized record).
 */
static int put_kernel_mmap(struct ipp_pd_writer *w)
{
	static const char name[] = "[kernel.kallsyms]_text";
	unsigned char rec[8 + 32 + 24 + 64] = { 0 };	/* header, pid..pgoff, name, trailer */
	struct perf_event_header h = {
		.type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL,
	};
	uint32_t pid = UINT32_MAX, tid = 0;
	uint64_t start = w->kernel_text, len = UINT64_MAX - w->kernel_text;
	size_t size = 8 + 32 + align8(sizeof(name)) + id_trailer_size(w);

	h.size = (uint16_t)size;
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &tid, 4);
	memcpy(rec + 16, &start, 8);
	memcpy(rec + 24, &len, 8);
	memcpy(rec + 32, &start, 8);	/* pgoff: where _text is, for perf's relocation */
	memcpy(rec + 40, name, sizeof(name));
	w->records++;
	w->round_dirty = true;
	return wput(w, rec, size);
}

/*
 * Write the fixed part of the file: the header (data size 0, no features
 * yet), the attrs, the ids and the features known now. This happens at the
 * first record, so that a killed writer leaves a file that says it is partial.
 */
static int begin(struct ipp_pd_writer *w)
{
	struct bbuf b = { 0 };
	uint64_t ids_off;
	size_t start;
	bool any_format = false;
	int err;

	if (w->begun)
		return w->err;
	w->begun = true;
	w->file_attr_size = IPP_PD_ATTR_SIZE;
	for (size_t i = 0; i < w->nr_ev; i++) {
		const unsigned char *a = w->ev[i].attr;

		for (size_t k = IPP_PD_ATTR_SIZE; k < w->ev[i].attr_size; k++)
			if (a[k] && align8(w->ev[i].attr_size) > w->file_attr_size)
				w->file_attr_size = (uint32_t)align8(w->ev[i].attr_size);
		any_format |= w->ev[i].format != NULL;
	}
	bb_zero(&b, PD_HDR_SIZE);
	ids_off = PD_HDR_SIZE + (uint64_t)w->nr_ev * (w->file_attr_size + PD_SECTION);
	for (size_t i = 0; i < w->nr_ev; i++) {
		put_attr(&b, w, &w->ev[i]);
		bb_u64(&b, ids_off);
		bb_u64(&b, w->ev[i].nr_ids * sizeof(uint64_t));
		ids_off += w->ev[i].nr_ids * sizeof(uint64_t);
	}
	for (size_t i = 0; i < w->nr_ev; i++)
		bb_put(&b, w->ev[i].ids, w->ev[i].nr_ids * sizeof(uint64_t));
	/* The tracing data comes first after the ids: where the reader of a partial capture looks. */
	if (any_format) {
		start = b.len;
		put_tracing_data(&b, w);
		end_feature(w, &b, IPP_PD_FEAT_TRACING_DATA, start);
	}
	if (*w->hostname) {
		start = b.len;
		bb_header_string(&b, w->hostname);
		end_feature(w, &b, IPP_PD_FEAT_HOSTNAME, start);
	}
	if (*w->osrelease) {
		start = b.len;
		bb_header_string(&b, w->osrelease);
		end_feature(w, &b, IPP_PD_FEAT_OSRELEASE, start);
	}
	if (*w->arch) {
		start = b.len;
		bb_header_string(&b, w->arch);
		end_feature(w, &b, IPP_PD_FEAT_ARCH, start);
	}
	start = b.len;
	bb_u32(&b, w->nr_cpus_avail);
	bb_u32(&b, w->nr_cpus_online);
	end_feature(w, &b, IPP_PD_FEAT_NRCPUS, start);
	if (w->nr_ev) {
		start = b.len;
		put_event_desc(&b, w);
		end_feature(w, &b, IPP_PD_FEAT_EVENT_DESC, start);
	}
	if (b.oom) {
		free(b.p);
		return w->err = -ENOMEM;
	}
	w->data_offset = b.len;
	/* The header as a killed writer leaves it: data size 0, no features. */
	{
		/* Fields: magic, size, attr_size, attrs {offset, size}, data {offset, size 0}. */
		uint64_t hdr[7] = {
			0, PD_HDR_SIZE, w->file_attr_size + PD_SECTION,
			PD_HDR_SIZE, (uint64_t)w->nr_ev * (w->file_attr_size + PD_SECTION),
			w->data_offset, 0,
		};

		memcpy(hdr, PD_MAGIC, 8);
		memcpy(b.p, hdr, sizeof(hdr));
	}
	err = write_all(w->fd, b.p, b.len, 0);
	free(b.p);
	if (err)
		return w->err = err;
	w->pos = w->data_offset;
	if (w->kernel_text)
		return put_kernel_mmap(w);
	return 0;
}

int ipp_pd_writer__write(struct ipp_pd_writer *w, const void *rec, size_t size)
{
	struct perf_event_header h;
	int err;

	if (!w || (!rec && size))
		return -EINVAL;
	if (rec) {
		if (size < sizeof(h) || size > UINT16_MAX)
			return -EINVAL;
		memcpy(&h, rec, sizeof(h));
		/* Only kernel types: perf's own mean something to perf, which aborts at >= 83. */
		if (h.size != size || h.type == 0 || h.type >= IPP_PD_RECORD_USER_TYPE_START)
			return -EINVAL;
	}
	if (w->err)
		return w->err;
	if (!w->begun && (err = begin(w)))
		return err;
	if (!rec) {
		if (!w->round_dirty)
			return 0;
		h = (struct perf_event_header){ .type = IPP_PD_RECORD_FINISHED_ROUND, .size = 8 };
		w->round_dirty = false;
		w->records++;
		return wput(w, &h, sizeof(h));
	}
	w->round_dirty = true;
	w->records++;
	return wput(w, rec, size);
}

static void free_writer(struct ipp_pd_writer *w)
{
	for (size_t i = 0; i < w->nr_ev; i++)
		free_event(&w->ev[i]);
	ipp_free_all(w->ev, w->header_page, w->header_event, w->hostname, w->osrelease, w->arch,
		     w->blob, w->buf, w);
}

int ipp_pd_writer__close(struct ipp_pd_writer *w)
{
	struct bbuf b = { 0 };
	uint64_t data_size, table_off, blob_off = 0;
	unsigned int nr = 0;
	int err;

	if (!w)
		return -EINVAL;
	err = begin(w);
	if (!err)
		err = wflush(w);
	if (err)
		goto out;
	/* Data size 0 means "the writer was killed", so an empty capture holds one empty round. */
	if (w->pos == w->data_offset) {
		struct perf_event_header h = { .type = IPP_PD_RECORD_FINISHED_ROUND, .size = 8 };

		w->records++;
		err = wput(w, &h, sizeof(h));
		if (!err)
			err = wflush(w);
		if (err)
			goto out;
	}
	data_size = w->pos - w->data_offset;
	table_off = w->pos;
	if (w->has_blob)
		ipp_pd_set_bit(w->features, IPP_PD_FEAT_IPCPERF);
	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS; f++)
		nr += ipp_pd_test_bit(w->features, f);
	if (w->has_blob) {
		blob_off = table_off + (uint64_t)nr * PD_SECTION;
		w->feat_off[IPP_PD_FEAT_IPCPERF] = blob_off;
		w->feat_size[IPP_PD_FEAT_IPCPERF] = PD_BLOB_HDR + w->blob_len;
	}
	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS; f++) {
		if (!ipp_pd_test_bit(w->features, f))
			continue;
		bb_u64(&b, w->feat_off[f]);
		bb_u64(&b, w->feat_size[f]);
	}
	if (w->has_blob) {
		char magic[8] = PD_BLOB_MAGIC;

		bb_put(&b, magic, sizeof(magic));
		bb_u32(&b, IPP_PD_BLOB_LAYOUT);
		bb_u32(&b, w->blob_version);
		bb_u64(&b, w->blob_len);
		bb_put(&b, w->blob, w->blob_len);
		bb_pad8(&b);
	}
	if (b.oom) {
		err = -ENOMEM;
		goto out;
	}
	err = write_all(w->fd, b.p, b.len, table_off);
	if (!err) {
		/* Write the data size and the features last, since they make the file complete. */
		uint64_t tail[2 + IPP_PD_FEAT_BITS / 64] = { data_size };

		memcpy(&tail[2], w->features, sizeof(w->features));
		/* data.size at 48 (event_types, 56..72, stays zero); the features at 72. */
		err = write_all(w->fd, &tail[0], sizeof(uint64_t), 48);
		if (!err)
			err = write_all(w->fd, &tail[2], sizeof(w->features), PD_HDR_SIZE_NOFEAT);
	}
out:
	free(b.p);
	if (w->fd >= 0 && close(w->fd) < 0 && !err)
		err = -errno;
	w->fd = -1;
	free_writer(w);
	return err;
}

void ipp_pd_writer__delete(struct ipp_pd_writer *w)
{
	if (!w)
		return;
	if (w->begun)
		wflush(w);
	if (w->fd >= 0)
		close(w->fd);
	free_writer(w);
}

uint64_t ipp_pd_kernel_text(void)
{
	char line[256];
	uint64_t addr = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return 0;
	/* _text is among the first lines; stop early rather than read 100k symbols. */
	for (int i = 0; i < 4096 && fgets(line, sizeof(line), f); i++) {
		unsigned long long a;
		char type, sym[128];

		if (sscanf(line, "%llx %c %127s", &a, &type, sym) == 3 && !strcmp(sym, "_text")) {
			addr = a;
			break;
		}
	}
	fclose(f);
	return addr;
}
