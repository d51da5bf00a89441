/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder writes a session's capture: its records through the
 * perf.data writer (pd-writer.c), and at its end the ipcperf feature
 * section that lets a replay give the live run's numbers (record.h
 * describes its layout; rec-data.c reads it back).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracefs.h>
#include "capture/perfdata.h"
#include "fd/identlog.h"
#include "capture/record.h"

/* ------------------------------------------------------------------ recorder */

struct ipp_recorder {
	struct ipp_pd_writer *w;
	struct ipp_identlog *log;
	struct ipp_rec_lost *lost;
	size_t nr_lost;
	struct ipp_rec_counters *cnt;
	size_t nr_cnt;
	int err;
	bool err_said;		/* the first write error went to the print function */
	char *path;
	char host[IPCPERF_HOST_MAX];	/* "": not placed, no entry */
	struct ipp_rec_clock clock;
	bool has_clock;
};

/*
 * Keep the first write error and explain it once, when it happens, so that
 * the recorder of a long run hears of a full disk at once.
 */
static void write_failed(struct ipp_recorder *r, int err)
{
	if (!r->err)
		r->err = err;
	if (r->err_said)
		return;
	r->err_said = true;
	ipp_info("cannot write the capture to %s: %s\n", r->path, strerror(-r->err));
}

char *ipp_tracefs_events_file(const char *name, size_t *len)
{
	char path[64];
	int size = 0;
	char *buf;

	snprintf(path, sizeof(path), "events/%s", name);
	buf = tracefs_instance_file_read(NULL, path, &size);
	if (buf && size <= 0) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)size;
	return buf;
}

struct ipp_recorder *ipp_recorder__new(const char *path, int fd)
{
	struct ipp_pd_writer_opts o = { .sz = sizeof(o) };
	struct ipp_recorder *r = ipp_new(sizeof(*r));
	char *page, *event;
	int err;

	if (!r)
		return NULL;
	r->log = ipp_identlog__new();
	r->path = strdup(path);
	if (!r->log || !r->path) {
		ipp_recorder__delete(r);
		return ipp_null_errno(ENOMEM);
	}
	/* The writer keeps copies of these texts. */
	page = ipp_tracefs_events_file("header_page", &o.header_page_len);
	event = ipp_tracefs_events_file("header_event", &o.header_event_len);
	o.header_page = page;
	o.header_event = event;
	o.kernel_text = ipp_pd_kernel_text();
	r->w = fd >= 0 ? ipp_pd_writer__new_fd(fd, &o) : ipp_pd_writer__new(path, &o);
	err = errno;
	free(page);
	free(event);
	if (!r->w) {
		struct stat st;

		if (err == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			ipp_info("refusing to write the capture to %s: it is a symbolic link, which "
				 "is never followed; remove it, or give the path of the file it "
				 "points to\n", path);
		else if (err == ESPIPE || (err == ENXIO && lstat(path, &st) == 0 &&
					    S_ISFIFO(st.st_mode)))
			ipp_info("cannot write the capture to %s: a capture must be a seekable "
				 "file, such as a regular file\n", path);
		else
			ipp_info("cannot write the capture to %s: %s\n", path, strerror(err));
		ipp_recorder__delete(r);
		return ipp_null_errno(err);
	}
	return r;
}

int ipp_recorder__add_event(struct ipp_recorder *r, const struct ipcperf_event_desc *d)
{
	return ipp_pd_writer__add_event(r->w, d->system, d->name, d->attr, d->attr_size, d->ids,
					d->nr_ids, d->format, d->format_len);
}

void ipp_recorder__write(struct ipp_recorder *r, const void *rec, size_t size)
{
	int err;

	if (r->err)
		return;
	err = ipp_pd_writer__write(r->w, rec, size);
	if (err)
		write_failed(r, err);
}

void ipp_recorder__comm(struct ipp_recorder *r, pid_t pid, pid_t tid, const char *comm,
			uint64_t id)
{
	/* The record: header, pid, tid, the name with its NUL padded to 8 bytes, the trailer. */
	unsigned char rec[8 + 8 + 24 + IPP_PD_OWN_TRAILER] = { 0 };
	size_t name = strnlen(comm, 15), off = 16 + ((name + 8) & ~(size_t)7);
	struct perf_event_header h = { .type = PERF_RECORD_COMM,
				       .size = (uint16_t)(off + IPP_PD_OWN_TRAILER) };
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, ids, sizeof(ids));
	memcpy(rec + 16, comm, name);
	/* The trailer: pid, tid, time 0 (before any record), cpu 0, res, id. */
	memcpy(rec + off, ids, sizeof(ids));
	memcpy(rec + off + 24, &id, sizeof(id));
	ipp_recorder__write(r, rec, h.size);
}

struct ipp_identlog *ipp_recorder__log(struct ipp_recorder *r)
{
	return r->log;
}

void ipp_recorder__lost(struct ipp_recorder *r, int cpu, uint64_t lost)
{
	struct ipp_rec_lost *v = realloc(r->lost, (r->nr_lost + 1) * sizeof(*v));

	if (!v) {
		r->err = r->err ? r->err : -ENOMEM;
		return;
	}
	r->lost = v;
	v[r->nr_lost++] = (struct ipp_rec_lost){ .cpu = (uint32_t)cpu, .lost = lost };
}

void ipp_recorder__counters(struct ipp_recorder *r, pid_t pid,
			    const struct ipcperf_counter_value *vals)
{
	struct ipp_rec_counters *v = realloc(r->cnt, (r->nr_cnt + 1) * sizeof(*v));

	if (!v) {
		r->err = r->err ? r->err : -ENOMEM;
		return;
	}
	r->cnt = v;
	memset(&v[r->nr_cnt], 0, sizeof(*v));
	v[r->nr_cnt].pid = pid;
	v[r->nr_cnt].nr = IPCPERF_CNT__MAX;
	memcpy(v[r->nr_cnt].v, vals, sizeof(v->v));
	r->nr_cnt++;
}

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

static void put_entry(struct buf *b, uint32_t type, const void *data, uint32_t len)
{
	size_t need = 8 + ((len + 7u) & ~7u);

	if (b->oom)
		return;
	if (ipp_grow((void **)&b->p, &b->cap, b->len + need, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, &type, 4);
	memcpy(b->p + b->len + 4, &len, 4);
	memcpy(b->p + b->len + 8, data, len);
	memset(b->p + b->len + 8 + len, 0, need - 8 - len);
	b->len += need;
}

void ipp_recorder__place(struct ipp_recorder *r, const char *host, const struct ipp_rec_clock *clk)
{
	snprintf(r->host, sizeof(r->host), "%s", host);
	r->clock = *clk;
	r->has_clock = true;
}

int ipp_recorder__finish(struct ipp_recorder *r, const struct ipp_rec_session *ss)
{
	struct buf b = { 0 };
	const struct ipp_ident_ans *ans;
	size_t nr_ans;
	int err;

	ipp_recorder__write(r, NULL, 0);	/* the last round */
	put_entry(&b, IPP_REC_T_SESSION, ss, sizeof(*ss));
	if (r->host[0])
		put_entry(&b, IPP_REC_T_HOST, r->host, sizeof(r->host));
	if (r->has_clock)
		put_entry(&b, IPP_REC_T_CLOCK, &r->clock, sizeof(r->clock));
	for (size_t i = 0; i < r->nr_lost; i++)
		put_entry(&b, IPP_REC_T_LOST, &r->lost[i], sizeof(r->lost[i]));
	for (size_t i = 0; i < r->nr_cnt; i++)
		put_entry(&b, IPP_REC_T_COUNTERS, &r->cnt[i], sizeof(r->cnt[i]));
	ans = ipp_identlog__answers(r->log, &nr_ans);
	for (size_t i = 0; i < nr_ans; i++)
		put_entry(&b, IPP_REC_T_IDENT, &ans[i], sizeof(ans[i]));
	if (b.oom && !r->err)
		r->err = -ENOMEM;
	if (!r->err && (err = ipp_pd_writer__set_blob(r->w, IPP_REC_BLOB_VERSION, b.p, b.len)))
		r->err = err;
	free(b.p);
	err = ipp_pd_writer__close(r->w);
	r->w = NULL;
	if (err || r->err)
		write_failed(r, err);
	err = r->err;
	ipp_recorder__delete(r);
	return err;
}

void ipp_recorder__delete(struct ipp_recorder *r)
{
	if (!r)
		return;
	ipp_pd_writer__delete(r->w);
	ipp_identlog__delete(r->log);
	ipp_free_all(r->lost, r->cnt, r->path, r);
}

