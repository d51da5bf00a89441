/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode.c turns tracepoint raw data into typed records.
 */
#ifndef IPCPERF_DECODE_H
#define IPCPERF_DECODE_H

#include "internal.h"
#include "syscalls.h"

/*
 * Decodes tracepoint raw data (PERF_SAMPLE_RAW) into typed records. Formats
 * are given as text (tracefs "format" files), field offsets are resolved once,
 * and records are dispatched by common_type through a table. Pure: no I/O.
 */
enum ipp_rec_kind {
	IPP_REC_NONE = 0,	/* not a tracepoint this decoder knows */
	IPP_REC_SYS_ENTER,
	IPP_REC_SYS_EXIT,
	IPP_REC_SWITCH,
	IPP_REC_WAKEUP,
	IPP_REC_WAKING,		/* sched_waking: in the waker's context always (the wake struct) */
	IPP_REC_FORK,
	IPP_REC_EXEC,
	IPP_REC_EXIT,
};

struct ipp_rec {
	enum ipp_rec_kind kind;
	union {
		struct {
			int nr;
			const struct ipp_scdesc *sc;
			uint64_t args[6];
			unsigned int nr_args;
		} enter;
		struct {
			int nr;
			const struct ipp_scdesc *sc;
			int64_t ret;
		} exit;
		struct {
			char prev_comm[IPP_COMM_MAX];
			pid_t prev_tid;
			long prev_state;
			char next_comm[IPP_COMM_MAX];
			pid_t next_tid;
		} sw;
		struct {
			char comm[IPP_COMM_MAX];
			pid_t tid;
			int target_cpu;
		} wake;
		struct {
			pid_t parent_tid;
			pid_t child_tid;
			char child_comm[IPP_COMM_MAX];
		} fork;
		struct {
			pid_t tid;
			pid_t old_tid;
			char filename[256];
		} exec;
		struct {
			pid_t tid;
			char comm[IPP_COMM_MAX];
		} pexit;	/* sched_process_exit */
	};
};

struct ipp_decoder;

/* Return a new decoder, to be freed with ipp_decoder__delete(), or NULL with errno set. */
struct ipp_decoder *ipp_decoder__new(void);
void ipp_decoder__delete(struct ipp_decoder *d);

/*
 * Parse the format text of tracepoint @system:@name and learn to decode it.
 * Known tracepoints: syscalls:sys_enter_X / sys_exit_X for X in ipp_syscalls,
 * sched:sched_switch, sched_wakeup, sched_process_fork/exec/exit.
 * Returns the tracepoint id (>= 0), -EINVAL for unparsable text or an event
 * this decoder does not know, or -EPROTO when a field it needs is missing.
 */
int ipp_decoder__add_format(struct ipp_decoder *d, const char *system, const char *name,
			    const char *format, size_t len);

/*
 * Decode the raw bytes of one sample. @raw need not be aligned.
 * Returns 0 with @out filled. Returns -ENOENT for an id the decoder does not
 * know, with out->kind set to IPP_REC_NONE, or -EPROTO when @size is too
 * small for the fields or a dynamic string points outside the record.
 */
int ipp_decoder__decode(const struct ipp_decoder *d, const void *raw, size_t size,
			struct ipp_rec *out);

#endif /* IPCPERF_DECODE_H */
