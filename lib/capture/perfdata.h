/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/capture/: captures in perf.data. The format (perfdata.c), its writer
 * (pd-writer.c), its reader (pd-reader.c and the pd-*.c beside it), the
 * recorder (record.c), ipcperf's own section read back (rec-data.c). The
 * replay source that feeds a capture's records to a session is source/'s
 * (replay.c). This folder may call fd/ (the fd identities a session asked
 * for, identlog.c, which the recorder keeps) and the ground floor (lib/).
 *
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
 * This header holds the format's numbers and ipcperf's own sample layout,
 * which is also used to parse live rings. The writer is declared in
 * pd-writer.h (pd-writer.c), the reader in pd-reader.h (pd-reader.c,
 * pd-records.c, pd-sample.c, pd-sections.c, and pd-unpack.c for perf record
 * -z's compressed records). Both are included below, for the modules that
 * use either.
 *
 * This is pure file I/O, with no session and no tracefs. It is not
 * thread-safe: use each object from one thread. Internal names carry the
 * ipp_pd_ prefix.
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
	IPP_PD_FEAT_COMPRESSED = 27,	/* perf record -z: read only (pd-unpack.c) */
	/* ipcperf's own section, far above perf's last feature (32 in 6.1) and below 256. */
	IPP_PD_FEAT_IPCPERF = 200,
	IPP_PD_FEAT_BITS = 256,
};

/* perf's own record types (perf_user_event_type), not in the kernel's header. */
enum {
	IPP_PD_RECORD_USER_TYPE_START = 64,
	IPP_PD_RECORD_FINISHED_ROUND = 68,
	IPP_PD_RECORD_COMPRESSED = 81,	/* perf record -z: a piece of a zstd stream of records */
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

struct ipp_pd_event;

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
 * Read the fields of a sample in ipcperf's layout, with @ip_size bytes of IP
 * (0 or 8) after the id, into @out. Returns false when @size cannot hold the
 * fields or the raw data.
 */
static inline bool ipp_pd_sample_at(const void *rec, size_t size, struct ipp_pd_sample *out,
				    size_t ip_size)
{
	const unsigned char *p = (const unsigned char *)rec;
	uint32_t raw_size;

	if (size < IPP_PD_OWN_RAW + ip_size)
		return false;
	memcpy(&raw_size, p + IPP_PD_OWN_RAW_SIZE + ip_size, 4);
	if (raw_size > size - IPP_PD_OWN_RAW - ip_size)
		return false;
	out->event = NULL;
	out->sample_type = IPP_PD_OWN_SAMPLE_TYPE | (ip_size ? PERF_SAMPLE_IP : 0);
	memcpy(&out->id, p + IPP_PD_OWN_ID, 8);
	out->ip = 0;
	if (ip_size)
		memcpy(&out->ip, p + IPP_PD_OWN_ID + 8, 8);
	memcpy(&out->pid, p + IPP_PD_OWN_PID + ip_size, 4);
	memcpy(&out->tid, p + IPP_PD_OWN_TID + ip_size, 4);
	memcpy(&out->time, p + IPP_PD_OWN_TIME + ip_size, 8);
	memcpy(&out->cpu, p + IPP_PD_OWN_CPU + ip_size, 4);
	out->period = 0;
	out->raw = p + IPP_PD_OWN_RAW + ip_size;
	out->raw_size = raw_size;
	return true;
}

/*
 * Read the fields of a sample in ipcperf's layout into @out, with event set
 * to NULL and ip and period to 0. Returns false when @size cannot hold the
 * fields or the raw data.
 */
static inline bool ipp_pd_own_sample(const void *rec, size_t size, struct ipp_pd_sample *out)
{
	return ipp_pd_sample_at(rec, size, out, 0);
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
	return ipp_pd_sample_at(rec, size, out, 8);
}

/*
 * Read the sample_id_all trailer, in ipcperf's layout, of a record that is
 * not a sample into @out. Returns false when the record is too short.
 */
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

/* Return the name of record type @type ("SAMPLE", "FINISHED_ROUND", ...) or "unknown"; static. */
const char *ipp_pd_record_name(uint32_t type);

/*
 * Whether a reader of tracepoints may pass a record of @type over without a
 * word: a kernel record with a name (the pipeline takes those it needs) or
 * perf's own bookkeeping (rounds, maps, ids, features). The others, a type
 * nobody named or perf's AUX trace and stat records, hold data a replay
 * leaves out: it counts them and says so.
 */
bool ipp_pd_record_skippable(uint32_t type);

#include "capture/pd-writer.h"
#include "capture/pd-reader.h"

#endif /* IPCPERF_PERFDATA_H */
