/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfdata: captures in the perf.data file format (perf 6.1's reading of it:
 * tools/perf/util/header.c, session.c, trace-event-read.c).
 *
 * Layout written by ipp_pd_writer:
 *
 *   0     perf_file_header (104 bytes; data.size 0 and no features until closed)
 *   104   attrs: per event, its perf_event_attr (attr.size = the on-file size)
 *         and the perf_file_section of its ids
 *         ids: u64 kernel ids of each event
 *         HEADER_TRACING_DATA, HOSTNAME, OSRELEASE, ARCH, NRCPUS, EVENT_DESC
 *         contents (known before the first record: written before the data)
 *   data  the records as given, PERF_RECORD_FINISHED_ROUND after each round
 *   then  the feature section table (one perf_file_section per set bit,
 *         ascending), then the ipcperf feature (bit IPP_PD_FEAT_IPCPERF)
 *
 * Feature sections may sit anywhere in the file (perf seeks to each); putting
 * the static ones before the data keeps the tracepoint formats readable in a
 * capture whose writer was killed: its header still says data.size 0 and has
 * no feature table, so the reader looks for the tracing data in the gap
 * between the ids and the data. perf skips feature bits it does not know
 * (>= HEADER_LAST_FEATURE) without a word, hence the high bit for ipcperf's own
 * data; new record types would make perf abort.
 *
 * Pure file I/O: no session, no tracefs. Not thread-safe (one object, one
 * thread). Internal: names carry the ipp_pd_ prefix.
 */
#ifndef IPCPERF_PERFDATA_H
#define IPCPERF_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* Feature bits (perf's HEADER_* numbers) the writer sets; the reader reads these. */
enum {
	IPP_PD_FEAT_TRACING_DATA = 1,
	IPP_PD_FEAT_HOSTNAME = 3,
	IPP_PD_FEAT_OSRELEASE = 4,
	IPP_PD_FEAT_ARCH = 6,
	IPP_PD_FEAT_NRCPUS = 7,
	IPP_PD_FEAT_EVENT_DESC = 12,
	/* ipcperf's own section: far above perf's last feature (32 in 6.1), below 256. */
	IPP_PD_FEAT_IPCPERF = 200,
	IPP_PD_FEAT_BITS = 256,
};

/* perf's own record types (perf_user_event_type), not in the kernel's header. */
enum {
	IPP_PD_RECORD_USER_TYPE_START = 64,
	IPP_PD_RECORD_FINISHED_ROUND = 68,
	IPP_PD_RECORD_HEADER_MAX = 83,	/* perf 6.1 aborts at types >= this */
};

/*
 * perf_event_attr size the writer puts in the file: PERF_ATTR_SIZE_VER7,
 * sizeof(struct perf_event_attr) in perf 6.1, which refuses larger ones.
 * An attr with non-zero bytes past it is written at its own size.
 */
#define IPP_PD_ATTR_SIZE 128u

/*
 * More CPUs than any machine has (Linux's NR_CPUS goes to 8192): the bound on
 * a record's cpu when the file does not say how many there are, and on what
 * HEADER_NRCPUS may say.
 */
#define IPP_PD_MAX_CPUS 32768u

/* Version of the ipcperf feature section's own layout (not of its payload). */
#define IPP_PD_BLOB_LAYOUT 1u

/* ================================================================ writer */

struct ipp_pd_writer;

struct ipp_pd_writer_opts {
	size_t sz;
	/*
	 * Text of tracefs events/header_page and events/header_event, copied.
	 * NULL: the layout every 64-bit kernel has, for this page size.
	 */
	const char *header_page;
	size_t header_page_len;
	const char *header_event;
	size_t header_event_len;
	/* Hostname, OS release, architecture: NULL takes uname(); "" leaves the feature out. */
	const char *hostname;
	const char *osrelease;
	const char *arch;
	/* CPUs (HEADER_NRCPUS): 0 takes sysconf(). */
	unsigned int nr_cpus_avail;
	unsigned int nr_cpus_online;
	/*
	 * Address of the kernel's _text (ipp_pd_kernel_text()): when non-zero,
	 * the data starts with the PERF_RECORD_MMAP of the kernel that perf
	 * record synthesizes, without which perf report warns that kernel
	 * address maps were restricted. 0: no such record.
	 */
	uint64_t kernel_text;
};

/* Address of _text from /proc/kallsyms, or 0 when hidden (kptr_restrict, not root). */
uint64_t ipp_pd_kernel_text(void);

/*
 * Create (or truncate, like perf record -o) @path with mode 0600; a
 * symbolic link as its last component is never followed. The file must be
 * seekable: the header is rewritten on close.
 * @return a writer, to be finished with ipp_pd_writer__close() (or dropped
 *   with ipp_pd_writer__delete()); NULL with errno (EINVAL bad opts, ESPIPE
 *   not seekable, ELOOP a symbolic link, ENXIO a FIFO no one reads,
 *   open(2)'s errors).
 */
struct ipp_pd_writer *ipp_pd_writer__new(const char *path, const struct ipp_pd_writer_opts *opts);
/*
 * The same into @fd, a file the caller opened for writing (and truncated):
 * it is made private (mode 0600) and must be seekable. The writer owns @fd
 * once made; on failure (NULL with errno: EBADF, EINVAL, ESPIPE, ENOMEM,
 * fstat/fchmod's errors) @fd is still the caller's.
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
 * @return 0; -EINVAL; -EBUSY once records were written; -ENOMEM.
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
 * @return 0; -EINVAL for a malformed record; -errno of a failed write (the
 *   writer then refuses everything and close returns the same error).
 */
int ipp_pd_writer__write(struct ipp_pd_writer *w, const void *rec, size_t size);

/*
 * Set the contents of the ipcperf feature section (copied; replaces an
 * earlier one): opaque bytes in the caller's own format @version.
 * @return 0; -ENOMEM; -EINVAL.
 */
int ipp_pd_writer__set_blob(struct ipp_pd_writer *w, uint32_t version, const void *data, size_t len);

/* Records written so far (FINISHED_ROUND included). */
uint64_t ipp_pd_writer__records(const struct ipp_pd_writer *w);

/*
 * Flush the data, write the feature table and the ipcperf section, rewrite
 * the header with the data size and the feature bits, close and free.
 * @return 0, or the first -errno of any write; the writer is freed either way.
 */
int ipp_pd_writer__close(struct ipp_pd_writer *w);

/*
 * Free without finishing: what is on disk stays as a partial capture (the
 * state a killed recorder leaves). Accepts NULL.
 */
void ipp_pd_writer__delete(struct ipp_pd_writer *w);

/* ================================================================ reader */

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

/* What ipp_pd_reader__parse() finds in a record. */
struct ipp_pd_sample {
	const struct ipp_pd_event *event;	/* the event the id belongs to */
	uint64_t sample_type;	/* the fields below that were present */
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	const void *raw;	/* PERF_SAMPLE_RAW bytes (samples only), unaligned; NULL if none */
	uint32_t raw_size;
};

/*
 * ipcperf's own sample layout. Every event a session opens samples
 * IDENTIFIER | TID | TIME | CPU | RAW with sample_id_all: a sample is the
 * header, u64 id, u32 pid, u32 tid, u64 time, u32 cpu, u32 res, u32
 * raw_size, then the raw bytes (4 mod 8: read them with memcpy); every other
 * record ends with the trailer pid, tid, time, cpu, res, id. The one place
 * this layout is written down: live rings and captures are parsed by it.
 */
#define IPP_PD_OWN_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
enum {
	IPP_PD_OWN_ID = 8,
	IPP_PD_OWN_PID = 16,
	IPP_PD_OWN_TID = 20,
	IPP_PD_OWN_TIME = 24,
	IPP_PD_OWN_CPU = 32,
	IPP_PD_OWN_RAW_SIZE = 40,
	IPP_PD_OWN_RAW = 44,		/* a sample's raw bytes start here */
	IPP_PD_OWN_TRAILER = 32,	/* bytes of the sample_id_all trailer */
};

/*
 * A sample of ipcperf's layout: its fields into @out (event NULL; ip and
 * period 0). @return false when @size cannot hold them, or its raw data.
 */
static inline bool ipp_pd_own_sample(const void *rec, size_t size, struct ipp_pd_sample *out)
{
	const unsigned char *p = (const unsigned char *)rec;
	uint32_t raw_size;

	if (size < IPP_PD_OWN_RAW)
		return false;
	memcpy(&raw_size, p + IPP_PD_OWN_RAW_SIZE, 4);
	if (raw_size > size - IPP_PD_OWN_RAW)
		return false;
	out->event = NULL;
	out->sample_type = IPP_PD_OWN_SAMPLE_TYPE;
	memcpy(&out->id, p + IPP_PD_OWN_ID, 8);
	memcpy(&out->pid, p + IPP_PD_OWN_PID, 4);
	memcpy(&out->tid, p + IPP_PD_OWN_TID, 4);
	memcpy(&out->time, p + IPP_PD_OWN_TIME, 8);
	memcpy(&out->cpu, p + IPP_PD_OWN_CPU, 4);
	out->ip = out->period = 0;
	out->raw = p + IPP_PD_OWN_RAW;
	out->raw_size = raw_size;
	return true;
}

/*
 * The kernel's fd identity records (lib/bpf) come from bpf-output events,
 * whose samples carry the IP too, between the id and the pid, so that perf
 * script, which wants an IP for any software event that has samples, reads
 * a capture of them: the same layout, 8 bytes on from the pid.
 */
#define IPP_PD_BPF_SAMPLE_TYPE (IPP_PD_OWN_SAMPLE_TYPE | PERF_SAMPLE_IP)

static inline bool ipp_pd_bpf_sample(const void *rec, size_t size, struct ipp_pd_sample *out)
{
	const unsigned char *p = (const unsigned char *)rec;
	uint32_t raw_size;

	if (size < IPP_PD_OWN_RAW + 8)
		return false;
	memcpy(&raw_size, p + IPP_PD_OWN_RAW_SIZE + 8, 4);
	if (raw_size > size - IPP_PD_OWN_RAW - 8)
		return false;
	out->event = NULL;
	out->sample_type = IPP_PD_BPF_SAMPLE_TYPE;
	memcpy(&out->id, p + IPP_PD_OWN_ID, 8);
	memcpy(&out->ip, p + IPP_PD_OWN_ID + 8, 8);
	memcpy(&out->pid, p + IPP_PD_OWN_PID + 8, 4);
	memcpy(&out->tid, p + IPP_PD_OWN_TID + 8, 4);
	memcpy(&out->time, p + IPP_PD_OWN_TIME + 8, 8);
	memcpy(&out->cpu, p + IPP_PD_OWN_CPU + 8, 4);
	out->period = 0;
	out->raw = p + IPP_PD_OWN_RAW + 8;
	out->raw_size = raw_size;
	return true;
}

/* Another record's sample_id_all trailer in ipcperf's layout. @return false when too short. */
static inline bool ipp_pd_own_trailer(const void *rec, size_t size, struct ipp_pd_sample *out)
{
	const unsigned char *t = (const unsigned char *)rec + size - IPP_PD_OWN_TRAILER;

	if (size < 8 + IPP_PD_OWN_TRAILER)
		return false;
	out->event = NULL;
	out->sample_type = IPP_PD_OWN_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_RAW;
	memcpy(&out->pid, t, 4);
	memcpy(&out->tid, t + 4, 4);
	memcpy(&out->time, t + 8, 8);
	memcpy(&out->cpu, t + 16, 4);
	memcpy(&out->id, t + 24, 8);
	out->ip = out->period = 0;
	out->raw = NULL;
	out->raw_size = 0;
	return true;
}

/* Facts from the header and the small features. */
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

/* @return an empty reader, freed with ipp_pd_reader__delete(); NULL with errno ENOMEM. */
struct ipp_pd_reader *ipp_pd_reader__new(void);

/* Accepts NULL. */
void ipp_pd_reader__delete(struct ipp_pd_reader *r);

/*
 * Open @path (or a memory image of a file: @buf, @len, which must outlive the
 * reader) and read everything but the data records: header, attrs and ids,
 * tracing data, event names, the ipcperf section. Memory is bounded by the
 * metadata, not by the data section.
 * A capture whose header says data size 0 (writer killed) opens fine with
 * info.partial set (and a warning through the print function): its records
 * are read up to the last complete one.
 * @return 0; -EINVAL: not a perf.data file this reader takes (magic, other
 *   endianness, pipe mode); -EPROTO: corrupt or truncated (the message gives
 *   the file offset, and the record type when a record is at fault);
 *   -ENOMEM; -errno of open/read. -EBUSY when already open.
 *   The explanation is in ipp_pd_reader__error() and goes to ipp_info.
 */
int ipp_pd_reader__open(struct ipp_pd_reader *r, const char *path);
int ipp_pd_reader__open_mem(struct ipp_pd_reader *r, const void *buf, size_t len);

/* The message of the last error ("" if none): "FILE: offset 0x...: ...". Reader-owned. */
const char *ipp_pd_reader__error(const struct ipp_pd_reader *r);

/* The file it reads ("<memory>" for open_mem), for messages; "" before open. Reader-owned. */
const char *ipp_pd_reader__path(const struct ipp_pd_reader *r);

/* Valid after a successful open; reader-owned. */
const struct ipp_pd_info *ipp_pd_reader__info(const struct ipp_pd_reader *r);

size_t ipp_pd_reader__nr_events(const struct ipp_pd_reader *r);
const struct ipp_pd_event *ipp_pd_reader__event(const struct ipp_pd_reader *r, size_t i);
/* The event a kernel id belongs to, or NULL. */
const struct ipp_pd_event *ipp_pd_reader__event_by_id(const struct ipp_pd_reader *r, uint64_t id);

/* Every format in the tracing data (events of the file and any others it carries), by id. */
size_t ipp_pd_reader__nr_formats(const struct ipp_pd_reader *r);
const struct ipp_pd_format *ipp_pd_reader__format(const struct ipp_pd_reader *r, size_t i);

/*
 * The ipcperf section's payload: @version as the writer's caller gave it.
 * @return 0; -ENOENT when the file has none (perf's files, partial captures).
 */
int ipp_pd_reader__blob(const struct ipp_pd_reader *r, uint32_t *version, const void **data,
			size_t *len);

/*
 * The next data record, in file order (FINISHED_ROUND included: records are
 * in time order only within each ring; merge across a round as perf does).
 * @rec's data stays valid until the next call.
 * @return 1 with @rec filled; 0 at the end; -EPROTO for a corrupt record
 *   (size below 8, past the data section, type 0 or >= 256), the same error
 *   again on every later call.
 */
int ipp_pd_reader__next(struct ipp_pd_reader *r, struct ipp_pd_rec *rec);

/* Start the records again from the first one. @return 0 or -EINVAL (not open). */
int ipp_pd_reader__rewind(struct ipp_pd_reader *r);

/*
 * Parse a PERF_RECORD_SAMPLE (id, ip, tid, time, cpu, period, raw, per its
 * event's sample_type), or the sample_id_all trailer of another kernel record.
 * @return 0; -ENOENT: no event for the record's id, a record of perf's own
 *   type, or no sample_id_all; -EPROTO: the record is too short for its
 *   fields, or its cpu is not below info.nr_cpus_avail (IPP_PD_MAX_CPUS when
 *   the file does not say) (explained in ipp_pd_reader__error()). So
 *   @out->cpu, when sample_type has PERF_SAMPLE_CPU, always indexes a CPU of
 *   the capture.
 */
int ipp_pd_reader__parse(struct ipp_pd_reader *r, const struct ipp_pd_rec *rec,
			 struct ipp_pd_sample *out);

/* "SAMPLE", "FINISHED_ROUND", ...; "unknown" for others; static. */
const char *ipp_pd_record_name(uint32_t type);

#endif /* IPCPERF_PERFDATA_H */
