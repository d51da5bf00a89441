/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The call record of the BPF programs (call_enter, call_exit in
 * fdid.bpf.c), the thread's slot it is made from, and its decoder
 * (call-rec.c). Both sides include it.
 */
#ifndef IPCPERF_CALL_REC_H
#define IPCPERF_CALL_REC_H

#include "krec.h"

/*
 * A system call the kernel paired itself (IPP_FDID_CALL): written at its
 * exit, in place of the sys_enter and sys_exit samples, when the session
 * asks for it (live sessions with BPF). Fixed size. Times are
 * CLOCK_MONOTONIC, the rings' clock.
 */
struct ipp_call_rec {
	IPP_KREC_HDR(pad0);	/* what: IPP_FDID_CALL; flags: IPP_CALL_F_* */
	__u32 switches;		/* times switched out inside the call (IPP_CALL_F_SWITCHES) */
	__s32 nr;		/* syscall number (this architecture's) */
	__s64 ret;		/* return value */
	__u64 start_ns;		/* at sys_enter; 0 with IPP_CALL_F_NO_ENTER */
	__u64 end_ns;		/* at sys_exit, before the output (the call ends at the record's time) */
	__u64 off_cpu_ns;	/* switched out inside the call (IPP_CALL_F_SWITCHES) */
	__u64 blocked_ns;	/* the part of off_cpu_ns it slept */
	__u64 args[6];		/* the arguments at sys_enter; 0 with IPP_CALL_F_NO_ENTER */
};
#define IPP_CALL_REC_SIZE 112
_Static_assert(sizeof(struct ipp_call_rec) == IPP_CALL_REC_SIZE, "the call record's size");

/*
 * The calls map's value (task-local storage): a target thread's wanted
 * call, as its sys_enter found it.
 */
struct ipp_call_slot {
	__u64 start;		/* CLOCK_MONOTONIC at sys_enter */
	__u64 args[6];
	__u64 off_since;	/* switched out at (off_cpu) */
	__u64 off_ns;
	__u64 blocked_ns;
	__s32 nr;
	__u32 switches;
	__u32 pid;		/* tgid */
	__u8 in_call;		/* inside the call of nr */
	__u8 off_cpu;
	__u8 preempted;
	__u8 pad;
};

/* call record flags */
#define IPP_CALL_F_NO_ENTER	0x0001	/* its sys_enter was not seen: only nr, ret and end_ns are real */
#define IPP_CALL_F_SWITCHES	0x0002	/* switches, off_cpu_ns, blocked_ns were counted */

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/call-rec.c */
#include <stddef.h>

/*
 * Check the RAW data of one bpf-output sample that holds a call record
 * (IPP_FDID_CALL) and copy it into @out. Pure. Returns 0, -ENOTSUP for
 * another version, or -EPROTO when it is not a call record or is too short.
 */
int ipp_call_rec__parse(const void *raw, size_t size, struct ipp_call_rec *out);

#endif

#endif /* IPCPERF_CALL_REC_H */
