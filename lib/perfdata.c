/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Captures in the perf.data format: a writer that perf 6.1 reads (perf script,
 * perf report), and a reader for those files and for perf record's own, which
 * turns every corruption into one error naming the file offset. The layout
 * is described in perfdata.h.
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
#include "perfdata.h"

/* struct perf_file_header: magic, size, attr_size, attrs, data, event_types, features. */
#define PD_MAGIC "PERFILE2"
#define PD_HDR_SIZE 104u
#define PD_HDR_SIZE_NOFEAT 72u	/* older files: no feature bitmap */
#define PD_PIPE_HDR_SIZE 16u
#define PD_SECTION 16u		/* struct perf_file_section: u64 offset, size */
#define PD_NAME_ALIGN 64u	/* perf pads header strings to this */

/* Tracing data (trace-event-info.c): "\027\010\104tracing" then version "0.6". */
static const char tracing_magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
#define PD_TRACING_VERSION "0.6"

#define PD_BLOB_MAGIC "IPCPERF"	/* 8 bytes with its NUL */
#define PD_BLOB_HDR 24u		/* magic[8], u32 layout, u32 version, u64 len */

/* Metadata sections are small; refuse absurd ones rather than allocate them. */
#define PD_MAX_SECTION (256u << 20)
#define PD_MAX_ATTR_SIZE 4096u

static inline uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* ================================================================ record names */

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[10] = "MMAP2",
	[11] = "AUX",
	[12] = "ITRACE_START",
	[13] = "LOST_SAMPLES",
	[14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",
	[17] = "KSYMBOL",
	[18] = "BPF_EVENT",
	[19] = "CGROUP",
	[20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID",
};

static const char *const user_names[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
	"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
	"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
	"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
};

const char *ipp_pd_record_name(uint32_t type)
{
	if (type < IPP_ARRAY_SIZE(kernel_names) && kernel_names[type])
		return kernel_names[type];
	if (type >= IPP_PD_RECORD_USER_TYPE_START &&
	    type - IPP_PD_RECORD_USER_TYPE_START < IPP_ARRAY_SIZE(user_names))
		return user_names[type - IPP_PD_RECORD_USER_TYPE_START];
	return "unknown";
}

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
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap - b->len < len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
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

/* struct perf_header_string: u32 len (padded to 64, NUL included), the string. */
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
	/* Feature sections written before the data: offset, size per bit. */
	uint64_t feat_off[IPP_PD_FEAT_BITS], feat_size[IPP_PD_FEAT_BITS];
	uint64_t features[IPP_PD_FEAT_BITS / 64];
	bool has_blob;
	uint32_t blob_version;
	void *blob;
	size_t blob_len;
};

#define WBUF_SIZE (1u << 20)

static void set_bit64(uint64_t *map, unsigned int bit)
{
	map[bit / 64] |= 1ull << (bit % 64);
}

static bool test_bit64(const uint64_t *map, unsigned int bit)
{
	return map[bit / 64] >> (bit % 64) & 1;
}

static char *memdup0(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

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

/* The header_page layout of a 64-bit kernel (tracefs events/header_page). */
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
	return memdup0(buf, (size_t)n);
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

/* The capture file @fd, ready to be written: @return 0 or an errno. */
static int adopt_fd(int fd)
{
	struct stat st;

	/* O_NONBLOCK was for the open only; O_APPEND would defeat the header's rewrite. */
	if (fstat(fd, &st) < 0 || fcntl(fd, F_SETFL, 0) < 0)
		return errno;
	/* O_TRUNC keeps an existing file's mode: make it private too. */
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
		errno = EINVAL;
		return NULL;
	}
	/*
	 * Like perf record -o: an existing file is truncated; captures are
	 * private. Never through a symbolic link (ELOOP): a recorder runs as
	 * root, and a link another user planted at @path would have it
	 * overwrite, chmod or create the file the link names. O_NONBLOCK: a
	 * FIFO put there fails now (ENXIO, or ESPIPE below) instead of
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
		errno = fd < 0 ? EBADF : EINVAL;
		return NULL;
	}
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	w = calloc(1, sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	w->fd = -1;
	w->buf = malloc(WBUF_SIZE);
	if (uname(&un) < 0)
		memset(&un, 0, sizeof(un));
	w->hostname = opt_str(o.hostname, un.nodename);
	w->osrelease = opt_str(o.osrelease, un.release);
	w->arch = opt_str(o.arch, un.machine);
	if (o.header_page) {
		w->header_page = memdup0(o.header_page, o.header_page_len);
		w->header_page_len = o.header_page_len;
	} else {
		w->header_page = default_header_page(&w->header_page_len);
	}
	if (o.header_event) {
		w->header_event = memdup0(o.header_event, o.header_event_len);
		w->header_event_len = o.header_event_len;
	} else {
		w->header_event = memdup0(default_header_event, sizeof(default_header_event) - 1);
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
	errno = err;
	return NULL;
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
	ev->format = format ? memdup0(format, format_len) : NULL;
	if (!ev->name || (system && !ev->system) || !ev->attr || !ev->ids ||
	    (format && !ev->format)) {
		free(ev->name);
		free(ev->system);
		free(ev->attr);
		free(ev->ids);
		free(ev->format);
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

/* The event's attr as it goes on file: w->file_attr_size bytes, attr.size set to it. */
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

/* HEADER_TRACING_DATA, as trace-event-read.c parses it. */
static void put_tracing_data(struct bbuf *b, const struct ipp_pd_writer *w)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char c;
	size_t nr_sys = 0;

	bb_put(b, tracing_magic, sizeof(tracing_magic));
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
	set_bit64(w->features, feat);
	bb_pad8(b);
}

/* Bytes sample_id_all appends to non-sample records, for the first event's sample_type. */
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
 * The kernel's PERF_RECORD_MMAP as perf record synthesizes it: pid -1,
 * [_text, end of the address space), "[kernel.kallsyms]_text", and a zero
 * sample_id trailer (id 0: perf's mark of a synthesized record).
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
 * The fixed part of the file: header (data size 0, no features yet), attrs,
 * ids, and the features known now. Written at the first record, so that a
 * killed writer leaves a file that says it is partial.
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
		/* magic, size, attr_size, attrs {offset, size}, data {offset, size 0} */
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
		/* Kernel records only: perf's own types mean something to perf (>= 83: abort). */
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
	for (size_t i = 0; i < w->nr_ev; i++) {
		free(w->ev[i].system);
		free(w->ev[i].name);
		free(w->ev[i].attr);
		free(w->ev[i].ids);
		free(w->ev[i].format);
	}
	free(w->ev);
	free(w->header_page);
	free(w->header_event);
	free(w->hostname);
	free(w->osrelease);
	free(w->arch);
	free(w->blob);
	free(w->buf);
	free(w);
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
	/* Data size 0 means "the writer was killed": an empty capture holds one empty round. */
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
		set_bit64(w->features, IPP_PD_FEAT_IPCPERF);
	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS; f++)
		nr += test_bit64(w->features, f);
	if (w->has_blob) {
		blob_off = table_off + (uint64_t)nr * PD_SECTION;
		w->feat_off[IPP_PD_FEAT_IPCPERF] = blob_off;
		w->feat_size[IPP_PD_FEAT_IPCPERF] = PD_BLOB_HDR + w->blob_len;
	}
	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS; f++) {
		if (!test_bit64(w->features, f))
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
		/* Last: the data size and the features make the file complete. */
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

/* ================================================================ reader */

struct idmap {
	uint64_t id;
	size_t ev;
};

/*
 * Where parse_sample() finds each field of an event's samples when none
 * comes after a variable-length one (no READ, no CALLCHAIN): byte offsets
 * from the record's start, 0 when absent (8 is the first field's).
 */
struct layout {
	bool fixed;
	bool ipcperf;		/* exactly IDENTIFIER | TID | TIME | CPU | RAW */
	uint32_t need;		/* the record must hold this many bytes (raw size included) */
	uint16_t id, ip, tid, time, cpu, period, raw;
};

/* id -> event, open addressing; ev NULL: empty. */
struct idslot {
	uint64_t id;
	const struct ipp_pd_event *ev;
	const struct layout *lay;	/* ev's */
};


struct ipp_pd_reader {
	bool open;
	int fd;
	const unsigned char *mem;	/* open_mem: the whole file */
	char *path;
	char err[512];
	struct ipp_pd_info info;
	struct ipp_pd_event *ev;
	size_t nr_ev;
	struct idmap *idx;
	size_t nr_idx;
	struct idslot *ids;	/* hash of idx: what the binary search over idx finds */
	size_t ids_mask;
	unsigned int ids_shift;
	struct layout *lay;	/* per event */
	struct ipp_pd_format *fmt;
	size_t nr_fmt;
	char **names;		/* per event, owned */
	void *blob;
	size_t blob_len;
	uint32_t blob_version;
	/* Where the id of a record is when the file has several events. */
	int id_pos;		/* samples: u64 index after the header, -1 none */
	int is_pos;		/* other records: u64 index from the end, -1 none */
	bool sample_id_all;
	/* A record's cpu must be below this: nr_cpus_avail, or IPP_PD_MAX_CPUS without it. */
	uint32_t cpu_limit;
	/* Iteration */
	uint64_t data_end;
	uint64_t cur;
	int iter_err;
	bool warned_tail;
	/*
	 * The records addressable now: [win_off, win_off + win_len) of the
	 * file, at win; never past data_end. Memory mode: the whole data
	 * section. File mode: a copy read into buf.
	 */
	const unsigned char *win;
	uint64_t win_off;
	size_t win_len;
	unsigned char *buf;
	size_t buf_cap;		/* min(RBUF_SIZE, file size): holds any record */
};

#define RBUF_SIZE (1u << 20)

__attribute__((format(printf, 4, 5)))
static int fail(struct ipp_pd_reader *r, int err, uint64_t off, const char *fmt, ...)
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

struct ipp_pd_reader *ipp_pd_reader__new(void)
{
	struct ipp_pd_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
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

/* The event of @id in idx (sorted): which one a duplicate id gives is bsearch()'s choice. */
static const struct ipp_pd_event *search_event(const struct ipp_pd_reader *r, uint64_t id)
{
	const struct idmap key = { .id = id };
	const struct idmap *m = r->nr_idx ? bsearch(&key, r->idx, r->nr_idx, sizeof(*r->idx),
						    cmp_idmap) : NULL;

	return m ? &r->ev[m->ev] : NULL;
}

static inline size_t id_hash(const struct ipp_pd_reader *r, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> r->ids_shift);
}

static inline const struct idslot *find_slot(const struct ipp_pd_reader *r, uint64_t id)
{
	size_t i;

	if (!r->ids)
		return NULL;
	for (i = id_hash(r, id); r->ids[i].ev; i = (i + 1) & r->ids_mask)
		if (r->ids[i].id == id)
			return &r->ids[i];
	return NULL;
}

static inline const struct ipp_pd_event *find_event(const struct ipp_pd_reader *r, uint64_t id)
{
	const struct idslot *sl = find_slot(r, id);

	return sl ? sl->ev : NULL;
}

/* The hash of idx (sorted), each id mapped to what search_event() finds for it. */
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
		for (i = id_hash(r, id); r->ids[i].ev; i = (i + 1) & r->ids_mask)
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
	return find_event(r, id);
}

/* [off, off + len) lies within the file. */
static bool in_file(const struct ipp_pd_reader *r, uint64_t off, uint64_t len)
{
	return off <= r->info.file_size && len <= r->info.file_size - off;
}

/* Copy [off, off + len) of the file, which the caller checked is in it. */
static int src_read(struct ipp_pd_reader *r, uint64_t off, void *dst, size_t len)
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
			return fail(r, -errno, off, "read failed: %s", strerror(errno));
		if (n == 0)
			return fail(r, -EPROTO, off, "the file shrank while being read");
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* A whole section in a new buffer (NUL-terminated for convenience). */
static int read_section(struct ipp_pd_reader *r, uint64_t off, uint64_t len, const char *what,
			unsigned char **out)
{
	unsigned char *p;
	int err;

	if (!in_file(r, off, len))
		return fail(r, -EPROTO, off, "%s (%llu bytes) runs past the end of the file (%llu bytes)",
			    what, (unsigned long long)len, (unsigned long long)r->info.file_size);
	if (len > PD_MAX_SECTION)
		return fail(r, -EPROTO, off, "%s is implausibly large (%llu bytes)", what,
			    (unsigned long long)len);
	p = malloc(len + 1);
	if (!p)
		return -ENOMEM;
	err = src_read(r, off, p, len);
	if (err) {
		free(p);
		return err;
	}
	p[len] = '\0';
	*out = p;
	return 0;
}

/* ---------------------------------------------------------------- data records */

/* Make [cur, cur + need) addressable; @return a pointer to cur. Caller checked the bounds. */
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
			*err = fail(r, -ENOMEM, cur, "out of memory for the read buffer (%zu bytes)",
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
	*err = src_read(r, cur + keep, r->buf + keep, want);
	if (*err)
		return NULL;
	r->win_len = keep + want;
	return r->buf;
}

/*
 * The record at @cur of the data section ending at @end. @return 1 with the
 * header in @h; 0 when it runs past @end (a cut: @h->size tells by how much,
 * 0 when not even the header is there); -EPROTO for a corrupt header.
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
		return fail(r, -EPROTO, cur,
			    "record type %u (%s): size %u is smaller than a record header (8 bytes)",
			    h->type, ipp_pd_record_name(h->type), h->size);
	if (h->type == 0 || h->type >= 256)
		return fail(r, -EPROTO, cur, "record type %u (%s), size %u: invalid record type",
			    h->type, ipp_pd_record_name(h->type), h->size);
	if (h->size > end - cur)
		return 0;
	return 1;
}

/*
 * The data section runs past the end of the file: find the record it cuts,
 * for an error that names it.
 */
static int explain_truncation(struct ipp_pd_reader *r, uint64_t data_off, uint64_t data_end)
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
		return fail(r, -EPROTO, cur,
			    "record type %u (%s) of %u bytes is cut: the file ends at %#llx, but its "
			    "header says the data section ends at %#llx (truncated file)",
			    h.type, ipp_pd_record_name(h.type), h.size, (unsigned long long)fsize,
			    (unsigned long long)data_end);
	if (last != UINT64_MAX && cur < fsize)
		return fail(r, -EPROTO, cur,
			    "the file ends %llu bytes into the record header after record type %u (%s) "
			    "at %#llx, but its header says the data section ends at %#llx (truncated "
			    "file)", (unsigned long long)(fsize - cur), lh.type,
			    ipp_pd_record_name(lh.type), (unsigned long long)last,
			    (unsigned long long)data_end);
	if (last != UINT64_MAX)
		return fail(r, -EPROTO, cur,
			    "the file ends here, after record type %u (%s) at %#llx, but its header "
			    "says the data section ends at %#llx (truncated file)", lh.type,
			    ipp_pd_record_name(lh.type), (unsigned long long)last,
			    (unsigned long long)data_end);
	return fail(r, -EPROTO, cur,
		    "the file ends here, before the first record, but its header says the data "
		    "section ends at %#llx (truncated file)", (unsigned long long)data_end);
}

/* ipp_pd_reader__next() of a record not wholly in the window, or at the end, or bad. */
static __attribute__((noinline)) int next_slow(struct ipp_pd_reader *r, struct ipp_pd_rec *rec)
{
	struct perf_event_header h;
	const unsigned char *p = NULL;
	int ret, err = 0;

	if (r->cur >= r->data_end)
		return 0;
	ret = peek_record(r, r->cur, r->data_end, &h, &p);
	if (ret < 0)
		return r->iter_err = ret;
	if (ret == 0) {
		if (r->info.partial) {
			/* What a killed writer leaves: the last record is incomplete. */
			if (!r->warned_tail)
				ipp_warn("%s: offset 0x%llx: partial capture: the last record (%llu of %u "
					 "bytes) is incomplete and was skipped\n",
					 r->path, (unsigned long long)r->cur,
					 (unsigned long long)(r->data_end - r->cur), h.size);
			r->warned_tail = true;
			return 0;
		}
		if (!h.size)
			return r->iter_err = fail(r, -EPROTO, r->cur,
						  "%llu stray bytes at the end of the data section: "
						  "not a record header",
						  (unsigned long long)(r->data_end - r->cur));
		return r->iter_err = fail(r, -EPROTO, r->cur,
					  "record type %u (%s): size %u runs past the end of the "
					  "data section at %#llx",
					  h.type, ipp_pd_record_name(h.type), h.size,
					  (unsigned long long)r->data_end);
	}
	p = window(r, r->cur, h.size, &err);
	if (!p)
		return r->iter_err = err;
	rec->data = p;
	rec->size = h.size;
	rec->type = h.type;
	rec->misc = h.misc;
	rec->offset = r->cur;
	r->cur += h.size;
	return 1;
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
		if (h.size >= sizeof(h) && h.size <= r->win_len - off && h.type - 1u < 255u) {
			rec->data = p;
			rec->size = h.size;
			rec->type = h.type;
			rec->misc = h.misc;
			rec->offset = r->cur;
			r->cur += h.size;
			return 1;
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
	/* Read again from the file, as the first time. */
	r->win_off = 0;
	r->win_len = 0;
	return 0;
}

/* ---------------------------------------------------------------- samples */

/* Cursor over a record's bytes, with bounds. */
struct cur {
	const unsigned char *p;
	size_t pos, end;
};

static bool take_u64(struct cur *c, uint64_t *v)
{
	if (c->end - c->pos < 8)
		return false;
	if (v)
		memcpy(v, c->p + c->pos, 8);
	c->pos += 8;
	return true;
}

static bool skip_u64s(struct cur *c, uint64_t n)
{
	if (n > (c->end - c->pos) / 8)
		return false;
	c->pos += (size_t)n * 8;
	return true;
}

/* Position of PERF_SAMPLE_ID in a sample, in u64 after the header (perf's id_pos). */
static int sample_id_pos(uint64_t st)
{
	int pos = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_IP);
	pos += !!(st & PERF_SAMPLE_TID);
	pos += !!(st & PERF_SAMPLE_TIME);
	pos += !!(st & PERF_SAMPLE_ADDR);
	return pos;
}

/* Position of the id in a sample_id_all trailer, in u64 from the end (1 = last). */
static int trailer_id_pos(uint64_t st)
{
	int pos = 1;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_CPU);
	pos += !!(st & PERF_SAMPLE_STREAM_ID);
	return pos;
}

static int bad_sample(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec, const char *what)
{
	return fail(r, -EPROTO, rec->offset, "record type %u (%s), size %u: too short for its %s",
		    rec->type, ipp_pd_record_name(rec->type), rec->size, what);
}

/* A cpu no CPU of the capture has: a corruption, not a reason to make room for it. */
static int bad_cpu(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec, uint32_t cpu)
{
	if (r->info.nr_cpus_avail)
		return fail(r, -EPROTO, rec->offset, "record type %u (%s), size %u: cpu %u, but the "
			    "capture's header says %u CPUs", rec->type, ipp_pd_record_name(rec->type),
			    rec->size, cpu, r->info.nr_cpus_avail);
	return fail(r, -EPROTO, rec->offset, "record type %u (%s), size %u: cpu %u is beyond any "
		    "machine's (at most %u CPUs)", rec->type, ipp_pd_record_name(rec->type),
		    rec->size, cpu, IPP_PD_MAX_CPUS);
}

static __attribute__((noinline)) int parse_sample(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			struct ipp_pd_sample *out)
{
	struct cur c = { .p = rec->data, .pos = 8, .end = rec->size };
	const struct ipp_pd_event *ev = NULL;
	uint64_t st, v;

	if (r->nr_ev == 1) {
		ev = &r->ev[0];
	} else {
		struct cur ic = c;

		if (r->id_pos < 0 || !skip_u64s(&ic, (uint64_t)r->id_pos))
			return r->id_pos < 0 ? -ENOENT : bad_sample(r, rec, "sample id");
		if (!take_u64(&ic, &v))
			return bad_sample(r, rec, "sample id");
		ev = find_event(r, v);
		if (!ev)
			return -ENOENT;
	}
	st = ev->attr.sample_type;
	out->event = ev;
	out->sample_type = st;
	if ((st & PERF_SAMPLE_IDENTIFIER) && !take_u64(&c, &out->id))
		return bad_sample(r, rec, "identifier");
	if ((st & PERF_SAMPLE_IP) && !take_u64(&c, &out->ip))
		return bad_sample(r, rec, "ip");
	if (st & PERF_SAMPLE_TID) {
		if (!take_u64(&c, &v))
			return bad_sample(r, rec, "pid/tid");
		memcpy(&out->pid, c.p + c.pos - 8, 4);
		memcpy(&out->tid, c.p + c.pos - 4, 4);
	}
	if ((st & PERF_SAMPLE_TIME) && !take_u64(&c, &out->time))
		return bad_sample(r, rec, "time");
	if ((st & PERF_SAMPLE_ADDR) && !take_u64(&c, NULL))
		return bad_sample(r, rec, "addr");
	if ((st & PERF_SAMPLE_ID) && !take_u64(&c, &out->id))
		return bad_sample(r, rec, "id");
	if ((st & PERF_SAMPLE_STREAM_ID) && !take_u64(&c, NULL))
		return bad_sample(r, rec, "stream id");
	if (st & PERF_SAMPLE_CPU) {
		if (!take_u64(&c, NULL))
			return bad_sample(r, rec, "cpu");
		memcpy(&out->cpu, c.p + c.pos - 8, 4);
		if (out->cpu >= r->cpu_limit)
			return bad_cpu(r, rec, out->cpu);
	}
	if ((st & PERF_SAMPLE_PERIOD) && !take_u64(&c, &out->period))
		return bad_sample(r, rec, "period");
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = ev->attr.read_format;
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & (1u << 4) /* PERF_FORMAT_LOST */);

		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr;

			if (!take_u64(&c, &nr))
				return bad_sample(r, rec, "read values");
			if (((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && !take_u64(&c, NULL)) ||
			    ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && !take_u64(&c, NULL)) ||
			    nr > (c.end - c.pos) / 8 / per || !skip_u64s(&c, nr * per))
				return bad_sample(r, rec, "read values");
		} else {
			per += !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
			if (!skip_u64s(&c, per))
				return bad_sample(r, rec, "read values");
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		if (!take_u64(&c, &nr) || !skip_u64s(&c, nr))
			return bad_sample(r, rec, "callchain");
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t n;

		if (c.end - c.pos < 4)
			return bad_sample(r, rec, "raw size");
		memcpy(&n, c.p + c.pos, 4);
		if (n > c.end - c.pos - 4)
			return bad_sample(r, rec, "raw data");
		out->raw = c.p + c.pos + 4;
		out->raw_size = n;
	}
	return 0;
}

/* The sample_id_all trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, at the end. */
static __attribute__((noinline)) int parse_trailer(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			 struct ipp_pd_sample *out)
{
	const struct ipp_pd_event *ev = NULL;
	const unsigned char *p = rec->data;
	uint64_t st, n;
	size_t at;

	if (!r->sample_id_all || r->nr_ev == 0)
		return -ENOENT;
	if (r->nr_ev == 1) {
		ev = &r->ev[0];
	} else {
		uint64_t id;

		if (r->is_pos < 0)
			return -ENOENT;
		if ((uint64_t)r->is_pos * 8 > rec->size - 8u)
			return bad_sample(r, rec, "sample id trailer");
		memcpy(&id, p + rec->size - (size_t)r->is_pos * 8, 8);
		ev = find_event(r, id);
		if (!ev)
			return -ENOENT;
	}
	st = ev->attr.sample_type;
	n = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	    !!(st & PERF_SAMPLE_IDENTIFIER);
	if (n * 8 > rec->size - 8u)
		return bad_sample(r, rec, "sample id trailer");
	at = rec->size - (size_t)n * 8;
	out->event = ev;
	out->sample_type = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	if (st & PERF_SAMPLE_TID) {
		memcpy(&out->pid, p + at, 4);
		memcpy(&out->tid, p + at + 4, 4);
		at += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(&out->time, p + at, 8);
		at += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(&out->id, p + at, 8);
		at += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		at += 8;
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&out->cpu, p + at, 4);
		if (out->cpu >= r->cpu_limit)
			return bad_cpu(r, rec, out->cpu);
		at += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		memcpy(&out->id, p + at, 8);
	return 0;
}

/*
 * A sample of an event with a fixed layout that holds all of it: its fields
 * straight from their offsets. @return false when it is not one (or its raw
 * data runs past it): parse_sample() then walks it, and explains.
 */
static inline bool parse_fixed(const struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			       struct ipp_pd_sample *out)
{
	const unsigned char *p = rec->data;
	const struct ipp_pd_event *ev;
	const struct layout *lay;
	uint32_t n = 0;

	if (r->nr_ev == 1) {
		ev = &r->ev[0];
		lay = &r->lay[0];
	} else {
		const struct idslot *sl;
		uint64_t id;

		if (r->id_pos < 0 || rec->size < 16u + 8u * (unsigned int)r->id_pos)
			return false;
		memcpy(&id, p + 8 + 8 * r->id_pos, 8);
		sl = find_slot(r, id);
		if (!sl)
			return false;
		ev = sl->ev;
		lay = sl->lay;
	}
	if (lay->ipcperf) {
		if (!ipp_pd_own_sample(p, rec->size, out) || out->cpu >= r->cpu_limit)
			return false;
		out->event = ev;
		return true;
	}
	if (!lay->fixed || rec->size < lay->need)
		return false;
	if (lay->raw) {
		memcpy(&n, p + lay->raw, 4);
		if (n > rec->size - lay->raw - 4u)
			return false;
		out->raw = p + lay->raw + 4;
	} else {
		out->raw = NULL;
	}
	out->raw_size = n;
	out->event = ev;
	out->sample_type = ev->attr.sample_type;
	out->id = 0;
	out->ip = 0;
	out->pid = out->tid = 0;
	out->time = 0;
	out->cpu = 0;
	out->period = 0;
	if (lay->id)
		memcpy(&out->id, p + lay->id, 8);
	if (lay->ip)
		memcpy(&out->ip, p + lay->ip, 8);
	if (lay->tid) {
		memcpy(&out->pid, p + lay->tid, 4);
		memcpy(&out->tid, p + lay->tid + 4, 4);
	}
	if (lay->time)
		memcpy(&out->time, p + lay->time, 8);
	if (lay->cpu) {
		memcpy(&out->cpu, p + lay->cpu, 4);
		if (out->cpu >= r->cpu_limit)
			return false;
	}
	if (lay->period)
		memcpy(&out->period, p + lay->period, 8);
	return true;
}

int ipp_pd_reader__parse(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			 struct ipp_pd_sample *out)
{
	if (!r || !r->open || !rec || !out || rec->size < 8)
		return -EINVAL;
	if (rec->type == PERF_RECORD_SAMPLE && parse_fixed(r, rec, out))
		return 0;
	memset(out, 0, sizeof(*out));
	if (rec->type == PERF_RECORD_SAMPLE)
		return parse_sample(r, rec, out);
	if (rec->type >= IPP_PD_RECORD_USER_TYPE_START)
		return -ENOENT;
	return parse_trailer(r, rec, out);
}

/* ---------------------------------------------------------------- tracing data */

struct tcur {
	struct ipp_pd_reader *r;
	const unsigned char *p;
	size_t pos, len;
	uint64_t base;		/* file offset of p[0] */
};

static int tfail(struct tcur *t, const char *what)
{
	return fail(t->r, -EPROTO, t->base + t->pos, "tracing data: %s", what);
}

static int t_take(struct tcur *t, void *dst, size_t n, const char *what)
{
	if (t->len - t->pos < n)
		return tfail(t, what);
	if (dst)
		memcpy(dst, t->p + t->pos, n);
	t->pos += n;
	return 0;
}

/* A NUL-terminated string within the section, at most @max bytes. */
static int t_string(struct tcur *t, size_t max, const char **s, const char *what)
{
	const unsigned char *nul;
	size_t avail = t->len - t->pos;

	nul = memchr(t->p + t->pos, '\0', avail < max ? avail : max);
	if (!nul)
		return tfail(t, what);
	*s = (const char *)t->p + t->pos;
	t->pos = (size_t)(nul - t->p) + 1;
	return 0;
}

/* Skip a u32 or u64 length-prefixed blob. */
static int t_skip_sized(struct tcur *t, size_t width, const char *what)
{
	uint64_t n = 0;
	uint32_t n32 = 0;
	int err = width == 4 ? t_take(t, &n32, 4, what) : t_take(t, &n, 8, what);

	if (err)
		return err;
	if (width == 4)
		n = n32;
	if (n > t->len - t->pos)
		return tfail(t, what);
	t->pos += (size_t)n;
	return 0;
}

/* The value after "@key: " at the start of a line of @text, or NULL. */
static const char *format_line(const char *text, const char *key, size_t *vlen)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, klen) == 0 && l[klen] == ':') {
			const char *v = l + klen + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			*vlen = strcspn(v, "\r\n");
			return v;
		}
	}
	return NULL;
}

static int add_format(struct tcur *t, const char *system, uint64_t at, const unsigned char *text,
		      size_t len)
{
	struct ipp_pd_reader *r = t->r;
	struct ipp_pd_format *f, *arr;
	const char *name, *id;
	size_t nlen, ilen;
	char *s, idbuf[16], *end;
	long v;

	/*
	 * tracefs formats are plain ASCII text. Anything else is corrupt, and
	 * libtraceevent's parser is not safe on arbitrary bytes: refuse it here.
	 */
	for (size_t i = 0; i < len; i++)
		if ((text[i] < 0x20 || text[i] > 0x7e) && text[i] != '\t' && text[i] != '\n')
			return fail(r, -EPROTO, at + 8 + i, "tracing data: format of a %s event holds "
				    "byte %#x: not text", system, text[i]);
	s = memdup0((const char *)text, len);
	if (!s)
		return -ENOMEM;
	name = format_line(s, "name", &nlen);
	id = format_line(s, "ID", &ilen);
	if (!name || !nlen || !id || !ilen || ilen >= sizeof(idbuf)) {
		free(s);
		return fail(r, -EPROTO, at, "tracing data: format of a %s event has no name or ID line",
			    system);
	}
	memcpy(idbuf, id, ilen);
	idbuf[ilen] = '\0';
	errno = 0;
	v = strtol(idbuf, &end, 10);
	if (errno || *end || v < 0 || v > INT32_MAX) {
		free(s);
		return fail(r, -EPROTO, at, "tracing data: format of a %s event has a bad ID '%s'",
			    system, idbuf);
	}
	arr = realloc(r->fmt, (r->nr_fmt + 1) * sizeof(*arr));
	if (!arr) {
		free(s);
		return -ENOMEM;
	}
	r->fmt = arr;
	f = &arr[r->nr_fmt];
	f->system = strdup(system);
	f->name = memdup0(name, nlen);
	if (!f->system || !f->name) {
		free((void *)f->system);
		free((void *)f->name);
		free(s);
		return -ENOMEM;
	}
	f->id = (int)v;
	f->text = s;
	f->len = strlen(s);
	r->nr_fmt++;
	return 0;
}

/* HEADER_TRACING_DATA as trace-event-read.c reads it; keeps the event formats. */
static int parse_tracing_data(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			      uint64_t base)
{
	struct tcur t = { .r = r, .p = p, .len = len, .base = base };
	unsigned char endian, lsize;
	const char *version = "", *sys = "";
	uint32_t page, nr, nsys;
	char tag[13];
	int err;

	if ((err = t_take(&t, tag, sizeof(tracing_magic), "no tracing data header")))
		return err;
	if (memcmp(tag, tracing_magic, sizeof(tracing_magic)))
		return fail(r, -EPROTO, base, "tracing data: bad magic");
	if ((err = t_string(&t, 32, &version, "bad version string")) ||
	    (err = t_take(&t, &endian, 1, "no endianness")) ||
	    (err = t_take(&t, &lsize, 1, "no long size")) ||
	    (err = t_take(&t, &page, 4, "no page size")))
		return err;
	if (endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return fail(r, -EINVAL, base + t.pos - 6,
			    "tracing data: recorded on a machine of the other endianness");
	if ((lsize != 4 && lsize != 8) || page == 0)
		return fail(r, -EPROTO, base + t.pos - 5, "tracing data: bad long size or page size");
	if ((err = t_take(&t, tag, 12, "no header_page")))
		return err;
	if (memcmp(tag, "header_page", 12))
		return fail(r, -EPROTO, base + t.pos - 12, "tracing data: no header_page");
	if ((err = t_skip_sized(&t, 8, "header_page runs past the section")))
		return err;
	if ((err = t_take(&t, tag, 13, "no header_event")))
		return err;
	if (memcmp(tag, "header_event", 13))
		return fail(r, -EPROTO, base + t.pos - 13, "tracing data: no header_event");
	if ((err = t_skip_sized(&t, 8, "header_event runs past the section")))
		return err;
	if ((err = t_take(&t, &nr, 4, "no ftrace format count")))
		return err;
	for (uint32_t i = 0; i < nr; i++)
		if ((err = t_skip_sized(&t, 8, "ftrace format runs past the section")))
			return err;
	if ((err = t_take(&t, &nsys, 4, "no system count")))
		return err;
	for (uint32_t i = 0; i < nsys; i++) {
		uint64_t sys_at = base + t.pos;

		if ((err = t_string(&t, 256, &sys, "bad system name")))
			return err;
		/* A tracefs directory name; it goes into messages, which must stay one line. */
		for (const char *c = sys; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				return fail(r, -EPROTO, sys_at + (uint64_t)(c - sys), "tracing data: "
					    "system name holds byte %#x: not text",
					    (unsigned int)(unsigned char)*c);
		if ((err = t_take(&t, &nr, 4, "no event count")))
			return err;
		for (uint32_t j = 0; j < nr; j++) {
			uint64_t n;
			uint64_t at = base + t.pos;

			if ((err = t_take(&t, &n, 8, "no format size")))
				return err;
			if (n > t.len - t.pos)
				return tfail(&t, "event format runs past the section");
			err = add_format(&t, sys, at, t.p + t.pos, (size_t)n);
			if (err)
				return err;
			t.pos += (size_t)n;
		}
	}
	if ((err = t_skip_sized(&t, 4, "kallsyms runs past the section")) ||
	    (err = t_skip_sized(&t, 4, "printk formats run past the section")))
		return err;
	if (strtod(version, NULL) >= 0.6 &&
	    (err = t_skip_sized(&t, 8, "saved cmdlines run past the section")))
		return err;
	r->info.has_tracing_data = true;
	return 0;
}

/* ---------------------------------------------------------------- other features */

/* struct perf_header_string at @p[*pos]. */
static int header_string(struct ipp_pd_reader *r, const unsigned char *p, size_t len, size_t *pos,
			 uint64_t base, const char *what, char **out)
{
	uint32_t n;

	if (len - *pos < 4)
		return fail(r, -EPROTO, base + *pos, "%s: no string length", what);
	memcpy(&n, p + *pos, 4);
	if (n > len - *pos - 4)
		return fail(r, -EPROTO, base + *pos, "%s: string of %u bytes runs past the section",
			    what, n);
	*out = memdup0((const char *)p + *pos + 4, strnlen((const char *)p + *pos + 4, n));
	if (!*out)
		return -ENOMEM;
	*pos += 4 + (size_t)n;
	return 0;
}

static int parse_event_desc(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			    uint64_t base)
{
	uint32_t nre, sz;
	size_t pos = 8;

	if (len < 8)
		return fail(r, -EPROTO, base, "event description: too short");
	memcpy(&nre, p, 4);
	memcpy(&sz, p + 4, 4);
	if (sz < PERF_ATTR_SIZE_VER0 || sz > PD_MAX_ATTR_SIZE)
		return fail(r, -EPROTO, base + 4, "event description: bad attr size %u", sz);
	for (uint32_t i = 0; i < nre; i++) {
		uint32_t nr;
		char *name;
		int err;

		if (len - pos < (size_t)sz + 4)
			return fail(r, -EPROTO, base + pos, "event description %u: runs past the section", i);
		pos += sz;
		memcpy(&nr, p + pos, 4);
		pos += 4;
		err = header_string(r, p, len, &pos, base, "event description", &name);
		if (err)
			return err;
		if (nr > (len - pos) / 8) {
			free(name);
			return fail(r, -EPROTO, base + pos, "event description %u: %u ids run past the section",
				    i, nr);
		}
		pos += (size_t)nr * 8;
		if (i < r->nr_ev && !r->names[i] && *name)
			r->names[i] = name;
		else
			free(name);
	}
	return 0;
}

static int parse_blob(struct ipp_pd_reader *r, const unsigned char *p, size_t len, uint64_t base)
{
	uint32_t layout;
	uint64_t n;

	if (len < PD_BLOB_HDR || memcmp(p, PD_BLOB_MAGIC, 8))
		return fail(r, -EPROTO, base, "ipcperf section: bad header");
	memcpy(&layout, p + 8, 4);
	memcpy(&r->blob_version, p + 12, 4);
	memcpy(&n, p + 16, 8);
	if (layout != IPP_PD_BLOB_LAYOUT) {
		ipp_warn("%s: offset 0x%llx: ipcperf section of layout %u, this reader knows %u: "
			 "ignored\n", r->path, (unsigned long long)base, layout, IPP_PD_BLOB_LAYOUT);
		return 0;
	}
	if (n > len - PD_BLOB_HDR)
		return fail(r, -EPROTO, base + 16, "ipcperf section: %llu bytes of data run past the "
			    "section", (unsigned long long)n);
	r->blob = malloc(n ? n : 1);
	if (!r->blob)
		return -ENOMEM;
	memcpy(r->blob, p + PD_BLOB_HDR, n);
	r->blob_len = n;
	r->info.has_blob = true;
	return 0;
}

static const char *feature_name(unsigned int feat)
{
	switch (feat) {
	case IPP_PD_FEAT_TRACING_DATA: return "tracing data";
	case IPP_PD_FEAT_HOSTNAME: return "hostname";
	case IPP_PD_FEAT_OSRELEASE: return "os release";
	case IPP_PD_FEAT_ARCH: return "arch";
	case IPP_PD_FEAT_NRCPUS: return "nrcpus";
	case IPP_PD_FEAT_EVENT_DESC: return "event description";
	case IPP_PD_FEAT_IPCPERF: return "ipcperf section";
	default: return "feature";
	}
}

static int parse_feature(struct ipp_pd_reader *r, unsigned int feat, uint64_t off, uint64_t size)
{
	unsigned char *p = NULL;
	char *s = NULL;
	size_t pos = 0;
	int err;

	switch (feat) {
	case IPP_PD_FEAT_TRACING_DATA:
	case IPP_PD_FEAT_HOSTNAME:
	case IPP_PD_FEAT_OSRELEASE:
	case IPP_PD_FEAT_ARCH:
	case IPP_PD_FEAT_NRCPUS:
	case IPP_PD_FEAT_EVENT_DESC:
	case IPP_PD_FEAT_IPCPERF:
		break;
	default:
		return 0;	/* not needed: only its bounds were checked */
	}
	err = read_section(r, off, size, feature_name(feat), &p);
	if (err)
		return err;
	switch (feat) {
	case IPP_PD_FEAT_TRACING_DATA:
		err = parse_tracing_data(r, p, size, off);
		break;
	case IPP_PD_FEAT_HOSTNAME:
		err = header_string(r, p, size, &pos, off, "hostname", &s);
		r->info.hostname = s;
		break;
	case IPP_PD_FEAT_OSRELEASE:
		err = header_string(r, p, size, &pos, off, "os release", &s);
		r->info.osrelease = s;
		break;
	case IPP_PD_FEAT_ARCH:
		err = header_string(r, p, size, &pos, off, "arch", &s);
		r->info.arch = s;
		break;
	case IPP_PD_FEAT_NRCPUS:
		if (size < 8) {
			err = fail(r, -EPROTO, off, "nrcpus: too short");
			break;
		}
		memcpy(&r->info.nr_cpus_avail, p, 4);
		memcpy(&r->info.nr_cpus_online, p + 4, 4);
		/* perf: the highest present CPU + 1, and how many are online. */
		if (r->info.nr_cpus_avail > IPP_PD_MAX_CPUS)
			err = fail(r, -EPROTO, off, "nrcpus: %u CPUs available, more than any "
				   "machine's (at most %u)", r->info.nr_cpus_avail, IPP_PD_MAX_CPUS);
		else if (r->info.nr_cpus_online > r->info.nr_cpus_avail && r->info.nr_cpus_avail)
			err = fail(r, -EPROTO, off + 4, "nrcpus: %u CPUs online, more than the %u "
				   "available", r->info.nr_cpus_online, r->info.nr_cpus_avail);
		break;
	case IPP_PD_FEAT_EVENT_DESC:
		err = parse_event_desc(r, p, size, off);
		break;
	case IPP_PD_FEAT_IPCPERF:
		err = parse_blob(r, p, size, off);
		break;
	}
	free(p);
	return err;
}

static int read_features(struct ipp_pd_reader *r, uint64_t table)
{
	unsigned int nr = 0, k = 0;
	unsigned char *secs;
	int err;

	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS; f++)
		nr += test_bit64(r->info.features, f);
	if (!nr)
		return 0;
	err = read_section(r, table, (uint64_t)nr * PD_SECTION, "feature section table", &secs);
	if (err)
		return err;
	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS && !err; f++) {
		uint64_t off, size;

		if (!test_bit64(r->info.features, f))
			continue;
		memcpy(&off, secs + k * PD_SECTION, 8);
		memcpy(&size, secs + k * PD_SECTION + 8, 8);
		k++;
		if (f == 0)
			continue;	/* HEADER_RESERVED: perf ignores it too */
		if (!in_file(r, off, size)) {
			err = fail(r, -EPROTO, table + (k - 1) * PD_SECTION,
				   "feature %u (%s): section [%#llx, +%llu) is outside the file "
				   "(%llu bytes)", f, feature_name(f), (unsigned long long)off,
				   (unsigned long long)size, (unsigned long long)r->info.file_size);
			break;
		}
		err = parse_feature(r, f, off, size);
	}
	free(secs);
	return err;
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
		return fail(r, -EPROTO, 16, "attr size %llu is not a perf_event_attr size",
			    (unsigned long long)attr_size);
	if (size % attr_size)
		return fail(r, -EPROTO, 32, "attrs section of %llu bytes is not a multiple of the attr "
			    "size %llu", (unsigned long long)size, (unsigned long long)attr_size);
	err = read_section(r, off, size, "attrs section", &a);
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
			return fail(r, -EPROTO, at + 4, "attr %zu: size %u does not fit the file's attr "
				    "size %llu", i, sz, (unsigned long long)attr_size);
		}
		memcpy(&ev->attr, p, sz < sizeof(ev->attr) ? sz : sizeof(ev->attr));
		ev->file_attr_size = sz;
		memcpy(&ids_off, p + attr_size - PD_SECTION, 8);
		memcpy(&ids_size, p + attr_size - 8, 8);
		if (ids_size % 8 || !in_file(r, ids_off, ids_size)) {
			free(a);
			return fail(r, -EPROTO, at + attr_size - PD_SECTION,
				    "attr %zu: ids section [%#llx, +%llu) is outside the file or not "
				    "u64s", i, (unsigned long long)ids_off, (unsigned long long)ids_size);
		}
		if (ids_size > PD_MAX_SECTION) {
			free(a);
			return fail(r, -EPROTO, at + attr_size - PD_SECTION, "attr %zu: too many ids", i);
		}
		ids = malloc(ids_size ? ids_size : 8);
		if (!ids) {
			free(a);
			return -ENOMEM;
		}
		ev->ids = ids;
		ev->nr_ids = (size_t)(ids_size / 8);
		r->nr_ev = i + 1;
		err = src_read(r, ids_off, ids, (size_t)ids_size);
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
 * Partial capture of ipcperf's writer: the tracing data, if any, starts at
 * the first 8-byte boundary after the attrs and ids, before the data.
 */
static int find_early_tracing_data(struct ipp_pd_reader *r, uint64_t meta_end)
{
	uint64_t at = align8(meta_end), end = r->info.data_offset;
	unsigned char tag[sizeof(tracing_magic)], *p;
	int err;

	if (at > end || end - at < sizeof(tag) || src_read(r, at, tag, sizeof(tag)) ||
	    memcmp(tag, tracing_magic, sizeof(tag)))
		return 0;
	err = read_section(r, at, end - at, "tracing data", &p);
	if (err)
		return err;
	err = parse_tracing_data(r, p, (size_t)(end - at), at);
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

/* The offsets parse_sample() would find for @st, when they do not depend on the record. */
static void layout_of(struct layout *l, uint64_t st)
{
	uint16_t pos = 8;

	memset(l, 0, sizeof(*l));
	if (st & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN))
		return;
	l->fixed = true;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		l->id = pos;
		pos += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		l->ip = pos;
		pos += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		l->tid = pos;
		pos += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		l->time = pos;
		pos += 8;
	}
	if (st & PERF_SAMPLE_ADDR)
		pos += 8;
	if (st & PERF_SAMPLE_ID) {
		l->id = pos;	/* after IDENTIFIER: this one wins, as in parse_sample() */
		pos += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		pos += 8;
	if (st & PERF_SAMPLE_CPU) {
		l->cpu = pos;
		pos += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		l->period = pos;
		pos += 8;
	}
	l->need = pos;
	if (st & PERF_SAMPLE_RAW) {
		l->raw = pos;
		l->need = pos + 4u;
	}
	l->ipcperf = st == IPP_PD_OWN_SAMPLE_TYPE;
}

static int finish_events(struct ipp_pd_reader *r)
{
	size_t n = 0;

	/* By id: events find theirs by attr.config. */
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
		layout_of(&r->lay[i], r->ev[i].attr.sample_type);
	if (hash_ids(r) < 0)
		return -ENOMEM;
	/* perf takes the id positions from the first event: all must agree. */
	r->id_pos = r->is_pos = -1;
	if (r->nr_ev) {
		r->id_pos = sample_id_pos(r->ev[0].attr.sample_type);
		r->is_pos = trailer_id_pos(r->ev[0].attr.sample_type);
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
		return fail(r, -EINVAL, 0, "empty file: not a perf.data capture");
	if (fsize < 8)
		return fail(r, -EINVAL, 0, "%llu bytes: too short for a perf.data header",
			    (unsigned long long)fsize);
	err = src_read(r, 0, h, 8);
	if (err)
		return err;
	if (memcmp(h, PD_MAGIC, 8)) {
		memcpy(&bs, PD_MAGIC, 8);
		if (h[0] == __builtin_bswap64(bs))
			return fail(r, -EINVAL, 0, "perf.data of the other endianness: not supported");
		if (!memcmp(h, "PERFFILE", 8))
			return fail(r, -EINVAL, 0, "perf.data version 1 (PERFFILE): not supported");
		return fail(r, -EINVAL, 0, "not a perf.data file (no PERFILE2 magic)");
	}
	if (fsize < 16)
		return fail(r, -EPROTO, 8, "the file ends inside the header (%llu bytes of 104)",
			    (unsigned long long)fsize);
	err = src_read(r, 8, &h[1], 8);
	if (err)
		return err;
	if (h[1] == PD_PIPE_HDR_SIZE)
		return fail(r, -EINVAL, 8, "pipe-mode perf.data (perf record -o -): not supported; "
			    "record to a file");
	if (h[1] != PD_HDR_SIZE && h[1] != PD_HDR_SIZE_NOFEAT)
		return fail(r, -EPROTO, 8, "header size %llu: expected 104",
			    (unsigned long long)h[1]);
	if (fsize < h[1])
		return fail(r, -EPROTO, fsize, "the file ends inside the header (%llu bytes of %llu)",
			    (unsigned long long)fsize, (unsigned long long)h[1]);
	err = src_read(r, 16, &h[2], (size_t)h[1] - 16);
	if (err)
		return err;
	if (h[1] == PD_HDR_SIZE)
		memcpy(r->info.features, &h[9], sizeof(r->info.features));
	/* h: 2 attr_size, 3-4 attrs, 5-6 data, 7-8 event_types, 9-12 features */
	if (!in_file(r, h[3], h[4]))
		return fail(r, -EPROTO, 24, "attrs section [%#llx, +%llu) is outside the file (%llu "
			    "bytes)", (unsigned long long)h[3], (unsigned long long)h[4],
			    (unsigned long long)fsize);
	data_off = h[5];
	data_size = h[6];
	if (data_off < h[1] || data_off > fsize)
		return fail(r, -EPROTO, 40, "data section offset %#llx is outside the file (%llu bytes)",
			    (unsigned long long)data_off, (unsigned long long)fsize);
	r->info.data_offset = data_off;
	if (data_size == 0) {
		r->info.partial = true;
		data_size = fsize - data_off;
	} else if (data_size > fsize - data_off) {
		return explain_truncation(r, data_off, data_off + data_size);
	}
	r->info.data_size = data_size;
	r->data_end = data_off + data_size;
	err = read_attrs(r, h[2], h[3], h[4], &meta_end);
	if (err)
		return err;
	if (r->info.partial)
		err = find_early_tracing_data(r, meta_end);
	else
		err = read_features(r, r->data_end);
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
		fail(r, err, 0, "%s", strerror(-err));	/* -ENOMEM: nothing said it yet */
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
		return fail(r, -ENOMEM, 0, "out of memory");
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		err = -errno;
		fail(r, err, 0, "cannot open: %s", strerror(-err));
		goto out;
	}
	if (fstat(r->fd, &st) < 0) {
		err = -errno;
		fail(r, err, 0, "cannot stat: %s", strerror(-err));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = fail(r, -EINVAL, 0, "not a regular file");
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
		return fail(r, -ENOMEM, 0, "out of memory");
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
