/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Synthetic captures for the perfdata tests, the fuzz seeds and the bench: a
 * deterministic sequence of records (COMM, sys_enter_write / sys_exit_write
 * samples, LOST) written by lib/capture/pd-writer.c's writer, which a test can
 * regenerate record by record to compare with what the reader gives back.
 * Needs no kernel: the format texts are copies of this machine's tracefs
 * files (kernel 6.18, x86_64). Header-only (static functions).
 */
#ifndef IPCPERF_TESTS_PD_SYNTH_H
#define IPCPERF_TESTS_PD_SYNTH_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "capture/perfdata.h"

enum { PDS_ID_ENTER_WRITE = 840, PDS_ID_EXIT_WRITE = 839, PDS_ID_PROCESS_EXIT = 369 };

/* syscalls/sys_enter_write/format */
static const char pds_fmt_enter_write[] =
	"name: sys_enter_write\n"
	"ID: 840\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", ((unsigned long)(REC->fd)), "
	"((unsigned long)(REC->buf)), ((unsigned long)(REC->count))\n";

/* syscalls/sys_exit_write/format */
static const char pds_fmt_exit_write[] =
	"name: sys_exit_write\n"
	"ID: 839\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"0x%lx\", REC->ret\n";

/* sched/sched_process_exit/format */
static const char pds_fmt_process_exit[] =
	"name: sched_process_exit\n"
	"ID: 369\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, REC->pid, REC->prio, "
	"REC->group_dead ? \"true\" : \"false\"\n";

/* The events of a synthetic capture: system, name, tracepoint id, format. */
static const struct pds_event {
	const char *system, *name;
	int id;
	const char *format;
} pds_events[] = {
	{ "syscalls", "sys_enter_write", PDS_ID_ENTER_WRITE, pds_fmt_enter_write },
	{ "syscalls", "sys_exit_write", PDS_ID_EXIT_WRITE, pds_fmt_exit_write },
	{ "sched", "sched_process_exit", PDS_ID_PROCESS_EXIT, pds_fmt_process_exit },
};
#define PDS_NR_EVENTS 3
#define PDS_NR_CPUS 2

/* ipcperf's sample layout (lib/capture/perfdata.h): header, id, pid, tid, time, cpu, res, raw. */
#define PDS_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

/* Kernel id of event @ev's instance on @cpu. */
static inline uint64_t pds_kid(unsigned int ev, unsigned int cpu)
{
	return 5000 + 10 * ev + cpu;
}

static inline void pds_attr(struct perf_event_attr *a, unsigned int ev)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_TRACEPOINT;
	a->size = sizeof(*a);
	a->config = (uint64_t)pds_events[ev].id;
	a->sample_period = 1;
	a->sample_type = PDS_SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->inherit = 1;
	a->comm = a->task = ev == 0;
}

/* Add the synthetic events to @w. @return 0 or the writer's error. */
static inline int pds_add_events(struct ipp_pd_writer *w)
{
	for (unsigned int i = 0; i < PDS_NR_EVENTS; i++) {
		struct perf_event_attr a;
		uint64_t ids[PDS_NR_CPUS];
		int err;

		pds_attr(&a, i);
		for (unsigned int c = 0; c < PDS_NR_CPUS; c++)
			ids[c] = pds_kid(i, c);
		err = ipp_pd_writer__add_event(w, pds_events[i].system, pds_events[i].name, &a,
					       sizeof(a), ids, PDS_NR_CPUS, pds_events[i].format,
					       strlen(pds_events[i].format));
		if (err)
			return err;
	}
	return 0;
}

/* What record @i of the sequence is, for the tests' checks. */
struct pds_rec_info {
	uint32_t type;
	unsigned int ev;	/* samples: which event */
	uint32_t pid, tid, cpu;
	uint64_t time;
	uint64_t arg;		/* enter: fd count; exit: ret; lost: lost count */
};

static inline void pds_put(unsigned char *buf, size_t *at, const void *v, size_t n)
{
	memcpy(buf + *at, v, n);
	*at += n;
}

/* A sample's pid, tid, time and cpu (with its reserved half), as perf lays them out. */
static inline void pds_put_ids(unsigned char *buf, size_t *at, const struct pds_rec_info *in)
{
	uint32_t zero = 0;

	pds_put(buf, at, &in->pid, 4);
	pds_put(buf, at, &in->tid, 4);
	pds_put(buf, at, &in->time, 8);
	pds_put(buf, at, &in->cpu, 4);
	pds_put(buf, at, &zero, 4);
}

/*
 * Record @i of the deterministic sequence into @buf (>= 256 bytes).
 * @return its size. 0: COMM; every 50th: LOST; others alternate sys_enter_write
 * (fd 11, count 10 * i) and sys_exit_write (ret 10 * i) samples, and every
 * 97th is a sched_process_exit sample.
 */
static inline size_t pds_record(uint64_t i, unsigned char *buf, struct pds_rec_info *info)
{
	struct pds_rec_info in = {
		.pid = 100 + (uint32_t)(i % 3), .cpu = (uint32_t)(i % PDS_NR_CPUS),
		.time = 1000000 + i * 10,
	};
	struct perf_event_header h = { .misc = PERF_RECORD_MISC_KERNEL };
	size_t at = 8;

	in.tid = in.pid;
	if (i == 0) {
		char comm[16] = "ipcwork";

		in.type = h.type = PERF_RECORD_COMM;
		h.misc = 0;
		pds_put(buf, &at, &in.pid, 4);
		pds_put(buf, &at, &in.tid, 4);
		pds_put(buf, &at, comm, sizeof(comm));
	} else if (i % 50 == 0) {
		uint64_t id = pds_kid(0, in.cpu);

		in.type = h.type = PERF_RECORD_LOST;
		h.misc = 0;
		in.arg = i;
		pds_put(buf, &at, &id, 8);
		pds_put(buf, &at, &in.arg, 8);
	}
	if (in.type) {
		/* sample_id_all trailer for PDS_SAMPLE_TYPE: tid, time, cpu, identifier */
		uint64_t id = pds_kid(0, in.cpu);

		pds_put_ids(buf, &at, &in);
		pds_put(buf, &at, &id, 8);
	} else {
		unsigned char raw[48] = { 0 };
		uint32_t raw_size;
		uint64_t id;
		uint16_t common_type;
		int32_t nr = 1;	/* __NR_write */

		in.type = PERF_RECORD_SAMPLE;
		in.ev = i % 97 == 0 ? 2 : (i % 2 ? 0 : 1);
		common_type = (uint16_t)pds_events[in.ev].id;
		memcpy(raw, &common_type, 2);
		memcpy(raw + 4, &in.pid, 4);
		if (in.ev == 0) {
			uint64_t fd = 11, bufp = 0x7fff0000 + i;

			in.arg = 10 * i;
			memcpy(raw + 8, &nr, 4);
			memcpy(raw + 16, &fd, 8);
			memcpy(raw + 24, &bufp, 8);
			memcpy(raw + 32, &in.arg, 8);
			raw_size = 40;
		} else if (in.ev == 1) {
			in.arg = 10 * i;
			memcpy(raw + 8, &nr, 4);
			memcpy(raw + 16, &in.arg, 8);
			raw_size = 24;
		} else {
			memcpy(raw + 8, "ipcwork", 8);
			memcpy(raw + 24, &in.pid, 4);
			raw_size = 36;
		}
		/* Like the kernel: raw_size counts the padding that aligns the record. */
		raw_size += (uint32_t)((8 - (44 + raw_size) % 8) % 8);
		id = pds_kid(in.ev, in.cpu);
		h.type = PERF_RECORD_SAMPLE;
		pds_put(buf, &at, &id, 8);
		pds_put_ids(buf, &at, &in);
		pds_put(buf, &at, &raw_size, 4);
		pds_put(buf, &at, raw, raw_size);
	}
	h.size = (uint16_t)at;
	memcpy(buf, &h, sizeof(h));
	if (info)
		*info = in;
	return at;
}

/* A round ends after every PDS_ROUND records of the sequence. */
#define PDS_ROUND 16

struct pds_opts {
	uint64_t nr_records;	/* of the sequence (FINISHED_ROUNDs come on top) */
	const void *blob;	/* ipcperf section payload, or NULL */
	size_t blob_len;
	uint32_t blob_version;	/* its version; 0: 7, which no reader of ipcperf's own takes */
	bool unfinished;	/* leave it as a killed writer would: no close */
};

/* Fixed metadata so that files are the same on every machine. */
#define PDS_WRITER_OPTS(name) \
	struct ipp_pd_writer_opts name = { .sz = sizeof(name), .hostname = "testhost", \
		.osrelease = "6.18.0-test", .arch = "x86_64", .nr_cpus_avail = PDS_NR_CPUS, \
		.nr_cpus_online = PDS_NR_CPUS }

/* Write a synthetic capture to @path. @return 0 or -errno. */
static inline int pds_write_capture(const char *path, const struct pds_opts *o)
{
	PDS_WRITER_OPTS(wo);
	unsigned char buf[256];
	struct ipp_pd_writer *w = ipp_pd_writer__new(path, &wo);
	int err;

	if (!w)
		return -errno;
	err = pds_add_events(w);
	for (uint64_t i = 0; !err && i < o->nr_records; i++) {
		size_t n = pds_record(i, buf, NULL);

		err = ipp_pd_writer__write(w, buf, n);
		if (!err && (i + 1) % PDS_ROUND == 0)
			err = ipp_pd_writer__write(w, NULL, 0);
	}
	if (!err && o->blob)
		err = ipp_pd_writer__set_blob(w, o->blob_version ? o->blob_version : 7, o->blob,
					      o->blob_len);
	if (err || o->unfinished) {
		ipp_pd_writer__delete(w);
		return err;
	}
	return ipp_pd_writer__close(w);
}

#endif /* IPCPERF_TESTS_PD_SYNTH_H */
