/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-reader reads a perf.data file back: first its events, formats and
 * features, then its records one by one (perfdata.h gives the layout).
 */
#ifndef IPCPERF_PD_READER_H
#define IPCPERF_PD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "capture/perfdata.h"

struct ipp_pd_reader;

/* A tracepoint format found in the tracing data. */
struct ipp_pd_format {
	const char *system;	/* "syscalls" */
	const char *name;	/* "sys_enter_write", from the format's "name:" line */
	int id;			/* its "ID:" line: the tracepoint id, attr.config, common_type */
	const char *text;	/* the whole format text, NUL-terminated */
	size_t len;		/* strlen(text) */
};

/* One event (attr) of the file. */
struct ipp_pd_event {
	struct perf_event_attr attr;	/* as on file, zero-extended or cut to this build's size */
	uint32_t file_attr_size;	/* its size on file */
	const uint64_t *ids;		/* its kernel ids */
	size_t nr_ids;
	const char *name;		/* "system:name", or HEADER_EVENT_DESC's name; NULL if unknown */
	const struct ipp_pd_format *format;	/* tracepoints: the format whose id is attr.config; or NULL */
};

/* One record of the data section. */
struct ipp_pd_rec {
	const void *data;	/* the record, header included; not necessarily 8-byte aligned: use memcpy */
	uint32_t size;		/* header.size */
	uint32_t type;		/* header.type: PERF_RECORD_* (kernel) or >= 64 (perf's own) */
	uint16_t misc;
	uint64_t offset;	/* file offset of the record */
};

/* Facts read from the header and the small feature sections. */
struct ipp_pd_info {
	uint64_t file_size;
	uint64_t data_offset;
	uint64_t data_size;	/* 0 in the header of a partial capture: here, what is readable */
	bool partial;		/* the writer did not finish (header data size 0) */
	bool has_tracing_data;
	bool has_blob;
	uint32_t nr_cpus_avail, nr_cpus_online;	/* 0 when absent; online <= avail <= IPP_PD_MAX_CPUS */
	const char *hostname, *osrelease, *arch;	/* NULL when absent */
	uint64_t features[IPP_PD_FEAT_BITS / 64];	/* the header's feature bitmap */
};

/* Return an empty reader, to be freed with ipp_pd_reader__delete(), or NULL with errno ENOMEM. */
struct ipp_pd_reader *ipp_pd_reader__new(void);

/* Free @r; it may be NULL. */
void ipp_pd_reader__delete(struct ipp_pd_reader *r);

/*
 * Open @path (or a memory image of a file: @buf, @len, which must outlive the
 * reader) and read everything but the data records: header, attrs and ids,
 * tracing data, event names, the ipcperf section. Memory is bounded by the
 * metadata, not by the data section.
 * A capture whose header says data size 0 (writer killed) opens fine with
 * info.partial set (and a warning through the print function): its records
 * are read up to the last complete one.
 * Returns 0 on success. Returns -EINVAL for a file this reader does not
 * take (wrong magic, other endianness, pipe mode), -EPROTO for a corrupt or
 * truncated file (the message gives the file offset, and the record type
 * when a record is at fault), -ENOMEM, the -errno of open or read, or
 * -EBUSY when the reader is already open. The explanation is in
 * ipp_pd_reader__error() and also goes to ipp_info.
 */
int ipp_pd_reader__open(struct ipp_pd_reader *r, const char *path);
int ipp_pd_reader__open_mem(struct ipp_pd_reader *r, const void *buf, size_t len);

/*
 * Return the message of the last error, "FILE: offset 0x...: ...", or "" if
 * none. The reader owns it.
 */
const char *ipp_pd_reader__error(const struct ipp_pd_reader *r);

/*
 * Return the name of the file being read, for messages: "<memory>" for
 * open_mem, "" before open. The reader owns it.
 */
const char *ipp_pd_reader__path(const struct ipp_pd_reader *r);

/* The facts of the file, valid after a successful open. The reader owns them. */
const struct ipp_pd_info *ipp_pd_reader__info(const struct ipp_pd_reader *r);

size_t ipp_pd_reader__nr_events(const struct ipp_pd_reader *r);
const struct ipp_pd_event *ipp_pd_reader__event(const struct ipp_pd_reader *r, size_t i);
/* Return the event that a kernel id belongs to, or NULL. */
const struct ipp_pd_event *ipp_pd_reader__event_by_id(const struct ipp_pd_reader *r, uint64_t id);

/* Every format in the tracing data (events of the file and any others it carries), by id. */
size_t ipp_pd_reader__nr_formats(const struct ipp_pd_reader *r);
const struct ipp_pd_format *ipp_pd_reader__format(const struct ipp_pd_reader *r, size_t i);

/*
 * Get the ipcperf section's payload, with @version as the writer's caller
 * gave it. Returns 0, or -ENOENT when the file has no such section (perf's
 * files and partial captures).
 */
int ipp_pd_reader__blob(const struct ipp_pd_reader *r, uint32_t *version, const void **data,
			size_t *len);

/*
 * The next data record, in file order (FINISHED_ROUND included: records are
 * in time order only within each ring; merge across a round as perf does).
 * The records of PERF_RECORD_COMPRESSED (perf record -z) come out of it in
 * their place, each with the offset of the compressed record that held it
 * (or held its end); the compressed records themselves are never given.
 * @rec's data stays valid until the next call.
 * Returns 1 with @rec filled, or 0 at the end. Returns -EPROTO for a
 * corrupt record (size below 8, past the data section, type 0 or >= 256;
 * compressed data that does not decompress, gives more than a ring held, or
 * ends inside a record), and the same error again on every later call.
 * Returns -ENOMEM when out of memory.
 */
int ipp_pd_reader__next(struct ipp_pd_reader *r, struct ipp_pd_rec *rec);

/* Start the records again from the first one. Returns 0, or -EINVAL when the reader is not open. */
int ipp_pd_reader__rewind(struct ipp_pd_reader *r);

/*
 * Parse a PERF_RECORD_SAMPLE (id, ip, tid, time, cpu, period, raw, per its
 * event's sample_type), or the sample_id_all trailer of another kernel record.
 * Returns 0 on success. Returns -ENOENT when no event has the record's id,
 * the record is of perf's own type, or there is no sample_id_all. Returns
 * -EPROTO, explained in ipp_pd_reader__error(), when the record is too short
 * for its fields or its CPU is not below info.nr_cpus_avail (IPP_PD_MAX_CPUS
 * when the file does not say). So when sample_type has PERF_SAMPLE_CPU,
 * @out->cpu always indexes a CPU of the capture.
 */
int ipp_pd_reader__parse(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			 struct ipp_pd_sample *out);

#endif /* IPCPERF_PD_READER_H */
