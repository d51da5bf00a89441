/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-writer writes a capture into a perf.data file (perfdata.h gives the layout).
 */
#ifndef IPCPERF_PD_WRITER_H
#define IPCPERF_PD_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "capture/perfdata.h"

struct ipp_pd_writer;

struct ipp_pd_writer_opts {
	size_t sz;
	/*
	 * The text of tracefs events/header_page and events/header_event,
	 * which is copied. NULL writes the layout every 64-bit kernel has,
	 * for this page size.
	 */
	const char *header_page;
	size_t header_page_len;
	const char *header_event;
	size_t header_event_len;
	/*
	 * Hostname, OS release, architecture: NULL takes them from uname(), ""
	 * leaves the feature out.
	 */
	const char *hostname;
	const char *osrelease;
	const char *arch;
	/* The number of CPUs (HEADER_NRCPUS); 0 takes it from sysconf(). */
	unsigned int nr_cpus_avail;
	unsigned int nr_cpus_online;
	/*
	 * Address of the kernel's _text (ipp_pd_kernel_text()): when non-zero,
	 * the data starts with the PERF_RECORD_MMAP of the kernel that perf
	 * record synthesizes, without which perf report warns that kernel
	 * address maps were restricted. When it is 0 there is no such record.
	 */
	uint64_t kernel_text;
};

/*
 * Return the address of _text from /proc/kallsyms, or 0 when it is hidden
 * (kptr_restrict, not root).
 */
uint64_t ipp_pd_kernel_text(void);

/*
 * Create (or truncate, like perf record -o) @path with mode 0600; a
 * symbolic link as its last component is never followed. The file must be
 * seekable: the header is rewritten on close.
 * Returns a writer, to be finished with ipp_pd_writer__close() or dropped
 * with ipp_pd_writer__delete(). Returns NULL with errno set: EINVAL for bad
 * opts, ESPIPE when not seekable, ELOOP for a symbolic link, ENXIO for a
 * FIFO no one reads, or open(2)'s errors.
 */
struct ipp_pd_writer *ipp_pd_writer__new(const char *path, const struct ipp_pd_writer_opts *opts);
/*
 * The same, writing into @fd, a file the caller opened for writing and
 * truncated. It is made private (mode 0600) and must be seekable. Once the
 * writer is made it owns @fd. On failure it returns NULL with errno set
 * (EBADF, EINVAL, ESPIPE, ENOMEM, or fstat's and fchmod's errors), and @fd
 * still belongs to the caller.
 */
struct ipp_pd_writer *ipp_pd_writer__new_fd(int fd, const struct ipp_pd_writer_opts *opts);

/*
 * Describe one event (before the first record). Everything is copied.
 * @attr: its struct perf_event_attr, @attr_size bytes (any ABI size >= 64);
 * @ids: the kernel ids of its instances (PERF_EVENT_IOC_ID), the values
 *   that appear in PERF_SAMPLE_IDENTIFIER / PERF_SAMPLE_ID;
 * @system/@name: the tracepoint ("syscalls", "sys_enter_write"), naming the
 *   event "system:name"; @format: its tracefs format text (may be NULL for an
 *   event that is not a tracepoint: then @system may be NULL and @name is the
 *   event's whole name).
 * Returns 0, -EINVAL, -EBUSY once records were written, or -ENOMEM.
 */
int ipp_pd_writer__add_event(struct ipp_pd_writer *w, const char *system, const char *name,
			     const void *attr, size_t attr_size, const uint64_t *ids, size_t nr_ids,
			     const char *format, size_t format_len);

/*
 * Append one record (a struct perf_event_header and its body, @size bytes,
 * @size == header.size, as read from a ring). The first call writes the
 * header, attrs and metadata. @rec NULL (with @size 0) ends a round: a
 * PERF_RECORD_FINISHED_ROUND follows, unless nothing was written since the
 * last one. Buffered.
 * Returns 0, -EINVAL for a malformed record, or the -errno of a failed
 * write; after a failed write the writer refuses everything and close
 * returns the same error.
 */
int ipp_pd_writer__write(struct ipp_pd_writer *w, const void *rec, size_t size);

/*
 * Set the contents of the ipcperf feature section (copied; replaces an
 * earlier one): opaque bytes in the caller's own format @version.
 * Returns 0, -ENOMEM or -EINVAL.
 */
int ipp_pd_writer__set_blob(struct ipp_pd_writer *w, uint32_t version, const void *data, size_t len);

/* Return the number of records written so far, FINISHED_ROUND included. */
uint64_t ipp_pd_writer__records(const struct ipp_pd_writer *w);

/*
 * Flush the data, write the feature table and the ipcperf section, rewrite
 * the header with the data size and the feature bits, close and free.
 * Returns 0, or the first -errno of any write; the writer is freed either way.
 */
int ipp_pd_writer__close(struct ipp_pd_writer *w);

/*
 * Free @w without finishing it: what is on disk stays as a partial capture,
 * the state a killed recorder leaves. @w may be NULL.
 */
void ipp_pd_writer__delete(struct ipp_pd_writer *w);

#endif /* IPCPERF_PD_WRITER_H */
