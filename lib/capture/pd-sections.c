/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The perf.data reader's feature sections: the tracing data (the
 * tracepoint formats), the event names, the hostname and the other small
 * ones, and ipcperf's own.
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

/* ---------------------------------------------------------------- tracing data */

struct tcur {
	struct ipp_pd_reader *r;
	const unsigned char *p;
	size_t pos, len;
	uint64_t base;		/* file offset of p[0] */
};

static int tfail(struct tcur *t, const char *what)
{
	return ipp_pdr_fail(t->r, -EPROTO, t->base + t->pos, "tracing data: %s", what);
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

/* Read a NUL-terminated string of at most @max bytes within the section. */
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

/* Return the value after "@key: " at the start of a line of @text, or NULL. */
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
			return ipp_pdr_fail(r, -EPROTO, at + 8 + i, "tracing data: format of a %s event holds "
				    "byte %#x: not text", system, text[i]);
	s = ipp_pd_memdup0((const char *)text, len);
	if (!s)
		return -ENOMEM;
	name = format_line(s, "name", &nlen);
	id = format_line(s, "ID", &ilen);
	if (!name || !nlen || !id || !ilen || ilen >= sizeof(idbuf)) {
		free(s);
		return ipp_pdr_fail(r, -EPROTO, at, "tracing data: format of a %s event has no name or ID line",
			    system);
	}
	memcpy(idbuf, id, ilen);
	idbuf[ilen] = '\0';
	errno = 0;
	v = strtol(idbuf, &end, 10);
	if (errno || *end || v < 0 || v > INT32_MAX) {
		free(s);
		return ipp_pdr_fail(r, -EPROTO, at, "tracing data: format of a %s event has a bad ID '%s'",
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
	f->name = ipp_pd_memdup0(name, nlen);
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

/* Skip a header of the section: its name @name, NUL included, then its u64-sized text. */
static int t_header(struct tcur *t, const char *name)
{
	size_t n = strlen(name) + 1;
	char what[64];

	if (t->len - t->pos < n || memcmp(t->p + t->pos, name, n))
		return ipp_pdr_fail(t->r, -EPROTO, t->base + t->pos, "tracing data: no %s", name);
	t->pos += n;
	snprintf(what, sizeof(what), "%s runs past the section", name);
	return t_skip_sized(t, 8, what);
}

/* Parse HEADER_TRACING_DATA as perf's trace-event-read.c does, keeping the event formats. */
int ipp_pdr_parse_tracing_data(struct ipp_pd_reader *r, const unsigned char *p, size_t len,
			      uint64_t base)
{
	struct tcur t = { .r = r, .p = p, .len = len, .base = base };
	unsigned char endian, lsize;
	const char *version = "", *sys = "";
	uint32_t page, nr, nsys;
	char tag[13];
	int err;

	if ((err = t_take(&t, tag, sizeof(ipp_pd_tracing_magic), "no tracing data header")))
		return err;
	if (memcmp(tag, ipp_pd_tracing_magic, sizeof(ipp_pd_tracing_magic)))
		return ipp_pdr_fail(r, -EPROTO, base, "tracing data: bad magic");
	if ((err = t_string(&t, 32, &version, "bad version string")) ||
	    (err = t_take(&t, &endian, 1, "no endianness")) ||
	    (err = t_take(&t, &lsize, 1, "no long size")) ||
	    (err = t_take(&t, &page, 4, "no page size")))
		return err;
	if (endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return ipp_pdr_fail(r, -EINVAL, base + t.pos - 6,
			    "tracing data: recorded on a machine of the other endianness");
	if ((lsize != 4 && lsize != 8) || page == 0)
		return ipp_pdr_fail(r, -EPROTO, base + t.pos - 5, "tracing data: bad long size or page size");
	if ((err = t_header(&t, "header_page")) || (err = t_header(&t, "header_event")))
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
				return ipp_pdr_fail(r, -EPROTO, sys_at + (uint64_t)(c - sys), "tracing data: "
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

/* Read the struct perf_header_string at @p[*pos]. */
static int header_string(struct ipp_pd_reader *r, const unsigned char *p, size_t len, size_t *pos,
			 uint64_t base, const char *what, char **out)
{
	uint32_t n;

	if (len - *pos < 4)
		return ipp_pdr_fail(r, -EPROTO, base + *pos, "%s: no string length", what);
	memcpy(&n, p + *pos, 4);
	if (n > len - *pos - 4)
		return ipp_pdr_fail(r, -EPROTO, base + *pos, "%s: string of %u bytes runs past the section",
			    what, n);
	*out = ipp_pd_memdup0((const char *)p + *pos + 4, strnlen((const char *)p + *pos + 4, n));
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
		return ipp_pdr_fail(r, -EPROTO, base, "event description: too short");
	memcpy(&nre, p, 4);
	memcpy(&sz, p + 4, 4);
	if (sz < PERF_ATTR_SIZE_VER0 || sz > PD_MAX_ATTR_SIZE)
		return ipp_pdr_fail(r, -EPROTO, base + 4, "event description: bad attr size %u", sz);
	for (uint32_t i = 0; i < nre; i++) {
		uint32_t nr;
		char *name;
		int err;

		if (len - pos < (size_t)sz + 4)
			return ipp_pdr_fail(r, -EPROTO, base + pos, "event description %u: runs past the section", i);
		pos += sz;
		memcpy(&nr, p + pos, 4);
		pos += 4;
		err = header_string(r, p, len, &pos, base, "event description", &name);
		if (err)
			return err;
		if (nr > (len - pos) / 8) {
			free(name);
			return ipp_pdr_fail(r, -EPROTO, base + pos, "event description %u: %u ids run past the section",
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
		return ipp_pdr_fail(r, -EPROTO, base, "ipcperf section: bad header");
	memcpy(&layout, p + 8, 4);
	memcpy(&r->blob_version, p + 12, 4);
	memcpy(&n, p + 16, 8);
	if (layout != IPP_PD_BLOB_LAYOUT) {
		ipp_warn("%s: offset 0x%llx: ipcperf section of layout %u, this reader knows %u: "
			 "ignored\n", r->path, (unsigned long long)base, layout, IPP_PD_BLOB_LAYOUT);
		return 0;
	}
	if (n > len - PD_BLOB_HDR)
		return ipp_pdr_fail(r, -EPROTO, base + 16, "ipcperf section: %llu bytes of data run past the "
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
	case IPP_PD_FEAT_COMPRESSED: return "compressed";
	case IPP_PD_FEAT_IPCPERF: return "ipcperf section";
	default: return "feature";
	}
}

/* Where the string that feature @feat holds goes in @r's info (@feat one that holds a string). */
static const char **info_string(struct ipp_pd_reader *r, unsigned int feat)
{
	switch (feat) {
	case IPP_PD_FEAT_HOSTNAME: return &r->info.hostname;
	case IPP_PD_FEAT_OSRELEASE: return &r->info.osrelease;
	default: return &r->info.arch;	/* IPP_PD_FEAT_ARCH */
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
	case IPP_PD_FEAT_COMPRESSED:
	case IPP_PD_FEAT_IPCPERF:
		break;
	default:
		return 0;	/* not needed: only its bounds were checked */
	}
	err = ipp_pdr_read_section(r, off, size, feature_name(feat), &p);
	if (err)
		return err;
	switch (feat) {
	case IPP_PD_FEAT_TRACING_DATA:
		err = ipp_pdr_parse_tracing_data(r, p, size, off);
		break;
	case IPP_PD_FEAT_HOSTNAME:
	case IPP_PD_FEAT_OSRELEASE:
	case IPP_PD_FEAT_ARCH:
		err = header_string(r, p, size, &pos, off, feature_name(feat), &s);
		*info_string(r, feat) = s;
		break;
	case IPP_PD_FEAT_NRCPUS:
		if (size < 8) {
			err = ipp_pdr_fail(r, -EPROTO, off, "nrcpus: too short");
			break;
		}
		memcpy(&r->info.nr_cpus_avail, p, 4);
		memcpy(&r->info.nr_cpus_online, p + 4, 4);
		/* perf writes the highest present CPU + 1, and how many are online. */
		if (r->info.nr_cpus_avail > IPP_PD_MAX_CPUS)
			err = ipp_pdr_fail(r, -EPROTO, off, "nrcpus: %u CPUs available, more than any "
				   "machine's (at most %u)", r->info.nr_cpus_avail, IPP_PD_MAX_CPUS);
		else if (r->info.nr_cpus_online > r->info.nr_cpus_avail && r->info.nr_cpus_avail)
			err = ipp_pdr_fail(r, -EPROTO, off + 4, "nrcpus: %u CPUs online, more than the %u "
				   "available", r->info.nr_cpus_online, r->info.nr_cpus_avail);
		break;
	case IPP_PD_FEAT_EVENT_DESC:
		err = parse_event_desc(r, p, size, off);
		break;
	case IPP_PD_FEAT_COMPRESSED:
		err = ipp_pdr_unpack_feature(r, p, size, off);
		break;
	case IPP_PD_FEAT_IPCPERF:
		err = parse_blob(r, p, size, off);
		break;
	}
	free(p);
	return err;
}

int ipp_pdr_read_features(struct ipp_pd_reader *r, uint64_t table)
{
	unsigned int nr = 0, k = 0;
	unsigned char *secs;
	int err;

	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS; f++)
		nr += ipp_pd_test_bit(r->info.features, f);
	if (!nr)
		return 0;
	err = ipp_pdr_read_section(r, table, (uint64_t)nr * PD_SECTION, "feature section table", &secs);
	if (err)
		return err;
	for (unsigned int f = 0; f < IPP_PD_FEAT_BITS && !err; f++) {
		uint64_t off, size;

		if (!ipp_pd_test_bit(r->info.features, f))
			continue;
		memcpy(&off, secs + k * PD_SECTION, 8);
		memcpy(&size, secs + k * PD_SECTION + 8, 8);
		k++;
		if (f == 0)
			continue;	/* HEADER_RESERVED: perf ignores it too */
		if (!ipp_pdr_in_file(r, off, size)) {
			err = ipp_pdr_fail(r, -EPROTO, table + (k - 1) * PD_SECTION,
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

