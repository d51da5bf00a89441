/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The header every record of the BPF programs (fdid.bpf.c) starts with, in
 * the RAW data of a bpf-output sample: version, size, what (the kind of
 * record, which says its type: struct ipp_fdid_rec in fdid-rec.h,
 * struct ipp_call_rec in call-rec.h, struct ipp_sched_rec in sched-rec.h,
 * struct ipp_sum_rec in sum-rec.h, struct ipp_task_rec in task-rec.h,
 * struct ipp_args_rec and struct ipp_sig_rec in args-rec.h),
 * flags, pid and tid. Both the programs and userspace include it.
 */
#ifndef IPCPERF_KREC_H
#define IPCPERF_KREC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define IPP_FDID_REC_VERSION 1

/* Why a record was written: the record's kind, its what byte. */
enum ipp_fdid_what {
	IPP_FDID_NEW = 1,	/* fd was created by call nr (each fd of pipe, socketpair, SCM_RIGHTS) */
	IPP_FDID_UPDATE = 2,	/* the object behind fd changed (connect: now has a peer) */
	IPP_FDID_IO = 3,	/* a read/write-family call used fd: its object (IO size record) */
	IPP_FDID_CALL = 4,	/* a whole system call, paired in the kernel (struct ipp_call_rec) */
	IPP_FDID_SCHED = 5,	/* a thread's switches and wakeups, counted in the kernel (struct ipp_sched_rec) */
	IPP_FDID_SUM = 6,	/* one fd's calls of one syscall, added up in the kernel (struct ipp_sum_rec) */
	IPP_FDID_TASK = 7,	/* a target's fork, exec or exit (struct ipp_task_rec) */
	IPP_FDID_ARGS = 8,	/* the user memory of a call's arguments (struct ipp_args_rec) */
	IPP_FDID_SIGNAL = 9,	/* a signal delivered to a target thread (struct ipp_sig_rec) */
};

/*
 * The header's fields, the first of each record's struct: IPP_KREC_HDR(sub)
 * names its byte after what (the fd record's kind; padding elsewhere).
 */
#define IPP_KREC_HDR(sub)						\
	__u16 version;		/* IPP_FDID_REC_VERSION */		\
	__u16 size;		/* bytes of the record written */	\
	__u8 what;		/* enum ipp_fdid_what */		\
	__u8 sub;							\
	__u16 flags;		/* the kind's own */			\
	__s32 pid;		/* tgid */				\
	__s32 tid

struct ipp_krec_hdr {
	IPP_KREC_HDR(sub);
};
#define IPP_KREC_HDR_SIZE 16
_Static_assert(sizeof(struct ipp_krec_hdr) == IPP_KREC_HDR_SIZE, "the records' header");

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/krec.c */
#include <stddef.h>
#include <stdint.h>

/*
 * Return the kind of record (enum ipp_fdid_what, its what byte) in the RAW
 * data of a bpf-output sample, or 0 when the data is too short to say.
 */
static inline unsigned int ipp_krec__what(const void *raw, size_t size)
{
	return size > 4 ? ((const unsigned char *)raw)[4] : 0;
}

/*
 * Check the header of a record: its version, and the size it gives, which
 * the sample's @size must hold. Returns 0 with that size in *@rec_size,
 * -ENOTSUP for another version, or -EPROTO.
 */
int ipp_krec__head(const void *raw, size_t size, uint16_t *rec_size);

/*
 * Check a fixed-size record of kind @what that holds at least @need bytes,
 * and copy it into @out. Returns 0, -ENOTSUP or -EPROTO.
 */
int ipp_krec__fixed(const void *raw, size_t size, unsigned int what, size_t need, void *out);

/*
 * Return the name of record kind @what: "new", "update", "io", "call",
 * "sched", "sum", "task", "args", "signal", or "?" for others. Static.
 */
const char *ipp_fdid_rec__what_name(unsigned int what);
#endif

#endif /* IPCPERF_KREC_H */
