/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * record.c writes a session's capture (the recorder) and the ipcperf
 * feature section that a replay reads back. Internal names carry the ipp_
 * prefix.
 *
 * The section (ipp_pd_writer__set_blob, version IPP_REC_BLOB_VERSION) is a
 * sequence of entries, each a u32 type, a u32 length and that many bytes of
 * payload, padded to 8; all native-endian (the reader refuses other-endian
 * files anyway). Types: IPP_REC_T_SESSION (struct ipp_rec_session, once),
 * IPP_REC_T_LOST (loss found at stop that no LOST record reported),
 * IPP_REC_T_COUNTERS (one process's counter values at stop), IPP_REC_T_IDENT
 * (struct ipp_ident_ans, in the order they were asked for), IPP_REC_T_HOST
 * (the host's name, NUL-padded: the recorder's --host, else its hostname),
 * IPP_REC_T_CLOCK (struct ipp_rec_clock). Unknown types are skipped, so
 * entries can be added without a new version: a capture written before the
 * host and the clock were has neither.
 */
#ifndef IPCPERF_RECORD_H
#define IPCPERF_RECORD_H

#include "internal.h"

#define IPP_REC_BLOB_VERSION 1u

enum {
	IPP_REC_T_SESSION = 1,
	IPP_REC_T_LOST = 2,
	IPP_REC_T_COUNTERS = 3,
	IPP_REC_T_IDENT = 4,
	IPP_REC_T_HOST = 5,
	IPP_REC_T_CLOCK = 6,
};

/*
 * The clock reference: CLOCK_MONOTONIC (the records' clock) and
 * CLOCK_REALTIME read together at the start and at the stop, so that the
 * records' times can be put on the wall clock, and a join of captures from
 * several hosts can say what each host's clocks said.
 */
struct ipp_rec_clock {
	uint64_t mono_start, real_start, mono_stop, real_stop;
};

/* What the live session counted, for ipcperf_session__stats() of a replay. */
struct ipp_rec_session {
	uint64_t start_ns, stop_ns;	/* CLOCK_MONOTONIC, as the live session says */
	uint64_t lost, records;
	int32_t self;			/* the recorder's pid: its own records are dropped */
	int32_t cmd_pid;		/* the command it ran, or -1 */
	uint32_t include_self, rings, skipped;
	/*
	 * Pages of each ring (what -m gave, or the default). Captures written
	 * before this field existed have 0 here, from their padding, meaning
	 * unknown.
	 */
	uint32_t ring_pages;
};

struct ipp_rec_lost {
	uint32_t cpu, pad;
	uint64_t lost;
};

struct ipp_rec_counters {
	int32_t pid;			/* 0: all targets */
	uint32_t nr;			/* IPCPERF_CNT__MAX of the writer */
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
};

/*
 * Read tracefs events/@name (header_page, header_event) through libtracefs,
 * which finds tracefs or, as root, mounts it. Returns a malloc'ed copy, or NULL.
 */
char *ipp_tracefs_events_file(const char *name, size_t *len);

struct ipp_recorder;

/*
 * Create the file @path with mode 0600, never through a symbolic link. When
 * @fd >= 0, write into @fd instead, a file the caller opened; @path then only
 * names it in messages. Once the recorder is made it owns @fd; on failure
 * @fd still belongs to the caller. Returns the recorder, or NULL with errno
 * set after explaining the error through the print function.
 */
struct ipp_recorder *ipp_recorder__new(const char *path, int fd);
/* Describe the event @d, before any record. Returns 0 or the writer's -errno. */
int ipp_recorder__add_event(struct ipp_recorder *r, const struct ipcperf_event_desc *d);
/*
 * Write a ring record, or mark the end of a pass with (NULL, 0). Errors are
 * kept for ipp_recorder__finish(); the first is explained through the print
 * function when it happens.
 */
void ipp_recorder__write(struct ipp_recorder *r, const void *rec, size_t size);
/*
 * Write a COMM record at time 0 for thread @tid of @pid named @comm, which
 * was running before the capture began; perf script names the thread's
 * records by it, as in perf record's own captures. @id is an event of the
 * capture, whose sample_id_all trailer the record carries.
 */
void ipp_recorder__comm(struct ipp_recorder *r, pid_t pid, pid_t tid, const char *comm,
			uint64_t id);
struct ipp_identlog *ipp_recorder__log(struct ipp_recorder *r);
void ipp_recorder__lost(struct ipp_recorder *r, int cpu, uint64_t lost);
void ipp_recorder__counters(struct ipp_recorder *r, pid_t pid,
			    const struct ipcperf_counter_value *v);
/*
 * Write the section, finish the file and free @r. Returns 0, or the first
 * -errno, explained once through the print function.
 */
int ipp_recorder__finish(struct ipp_recorder *r, const struct ipp_rec_session *ss);
/*
 * Keep the host (@host: a name of 1 to IPCPERF_HOST_MAX - 1 bytes) and the
 * clock reference, which finish writes into the section.
 */
void ipp_recorder__place(struct ipp_recorder *r, const char *host, const struct ipp_rec_clock *clk);
/* Free @r without finishing, so the file stays partial. @r may be NULL. */
void ipp_recorder__delete(struct ipp_recorder *r);

/* The ipcperf section, parsed for a replay. */
struct ipp_rec_data {
	bool has_session;
	struct ipp_rec_session ss;
	struct ipp_rec_lost *lost;
	size_t nr_lost;
	struct ipp_rec_counters *cnt;
	size_t nr_cnt;
	struct ipp_identlog *log;	/* owned */
	bool has_host, has_clock;	/* not in a capture written before they were recorded */
	char host[IPCPERF_HOST_MAX];
	struct ipp_rec_clock clock;
};

/*
 * Parse the ipcperf section @blob into @d. Returns 0, -EPROTO for a malformed
 * section, or -ENOMEM; @d is freed on error.
 */
int ipp_rec_data__parse(struct ipp_rec_data *d, const void *blob, size_t len);
void ipp_rec_data__free(struct ipp_rec_data *d);

#endif /* IPCPERF_RECORD_H */
