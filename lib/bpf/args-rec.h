/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The records of the args object (args.bpf.c): the arg record, the user
 * memory a call's arguments point to, read in the kernel at the call
 * (strings and paths at sys_enter, while their pointers are valid; output
 * buffers at sys_exit), with what to read of each call (its spec, set by
 * the loader); and the signal record, a signal delivered to a target
 * thread. Their decoders are args-rec.c. Both sides include it.
 */
#ifndef IPCPERF_ARGS_REC_H
#define IPCPERF_ARGS_REC_H

#include "krec.h"

#define IPP_ARGS_ITEMS 4	/* pieces of memory read per call, at most */
#define IPP_ARGS_CAP 256	/* bytes kept of each */
#define IPP_ARGS_NO_LEN 0xff	/* a spec's lenarg: no length argument (the size is fixed) */
#define IPP_ARGS_LEN_RET 0xfe	/* ... the return value is the length (read, recvfrom) */
#define IPP_ARGS_IOV_MAX 16	/* iovec entries kept (16 bytes each: a slot) */

/* What to read, and when (a spec item's kind, an item's kind). */
enum ipp_arg_kind {
	IPP_ARG_NONE = 0,
	IPP_ARG_STR = 1,	/* enter: a NUL-terminated string (path, name) */
	IPP_ARG_IN = 2,		/* enter: bytes, args[lenarg] * size of them, or size with NO_LEN */
	IPP_ARG_OUT = 3,	/* exit, when ret >= 0: bytes, as IN, or ret of them (LEN_RET) */
	IPP_ARG_ADDR_OUT = 4,	/* exit, when ret >= 0: a sockaddr, its length at *args[lenarg] */
	IPP_ARG_STRV = 5,	/* enter: a NULL-ended array of strings (argv): count, strings NUL-separated */
	IPP_ARG_NPTR = 6,	/* enter: a NULL-ended array of pointers (envp): count only */
	IPP_ARG_DIRENTS = 7,	/* exit: the linux_dirent64 entries in ret bytes: count only */
	IPP_ARG_SIGMASK = 8,	/* enter, rt_sigreturn: the mask its signal frame restores (8 bytes) */
	/*
	 * An iovec array (writev, readv), args[lenarg] entries of it: the
	 * entries themselves (struct iovec, IPP_ARGS_IOV_MAX at most), count
	 * the entries there were; IN at enter, OUT at exit whatever it returned
	 */
	IPP_ARG_IOV_IN = 9,
	IPP_ARG_IOV_OUT = 10,
	/*
	 * The buffer of the array's entry @sub (count: @sub): IN at enter, its
	 * iov_len bytes; OUT at exit when ret >= 0, what the call put there of
	 * ret (the entries fill in order)
	 */
	IPP_ARG_IOVB_IN = 11,
	IPP_ARG_IOVB_OUT = 12,
	IPP_ARG__MAX,
};

/* One piece of a call's spec: argument @arg, read as @kind. */
struct ipp_arg_spec_item {
	__u8 arg;		/* 0-5; IPP_ARG_NONE kinds end the spec */
	__u8 kind;		/* enum ipp_arg_kind */
	__u8 lenarg;		/* the argument giving the length, IPP_ARGS_NO_LEN, IPP_ARGS_LEN_RET */
	__u8 sub;		/* IOVB: the iovec's index in the array */
	__u16 size;		/* fixed size, or the size of one element with lenarg */
	__u16 pad2;
};

/* The arg_specs map's value: what to read of one call (by number). */
struct ipp_arg_spec {
	struct ipp_arg_spec_item item[IPP_ARGS_ITEMS];
};

/* One piece read: data[i] of the record holds its first len bytes. */
struct ipp_arg_item {
	__u8 arg;
	__u8 kind;		/* enum ipp_arg_kind; NONE: nothing read */
	__u16 len;		/* bytes in the record's data[i] */
	__u16 flags;		/* IPP_ARG_F_* */
	__u16 pad;
	__u32 count;		/* STRV, NPTR, DIRENTS, IOV: how many; IOVB: its index; else the bytes there were */
	__u32 pad2;
};
_Static_assert(sizeof(struct ipp_arg_item) == 16, "an arg item");

#define IPP_ARG_F_TRUNC 0x1	/* there was more than len (a string without its NUL in the cap) */
#define IPP_ARG_F_FAULT 0x2	/* the memory could not be read */
#define IPP_ARG_F_MORE 0x4	/* STRV, NPTR, DIRENTS: the count stopped at the program's limit */

/*
 * The user memory of a call (IPP_FDID_ARGS), written at its exit just
 * before its call record (for exit and exit_group, which never return: at
 * their sys_enter, flag NORETURN), and, flag ENTERED, when its thread is
 * first switched out inside it. Variable size: the header and the items,
 * then data[i] for each item up to the last one read (size says).
 */
struct ipp_args_rec {
	IPP_KREC_HDR(nr_items);	/* what: IPP_FDID_ARGS; flags: IPP_ARGS_F_* */
	__s32 nr;		/* syscall number */
	__u32 pad;
	__u64 start_ns;		/* at sys_enter (CLOCK_MONOTONIC) */
	__u64 args[6];		/* at sys_enter */
	struct ipp_arg_item items[IPP_ARGS_ITEMS];
	__u8 data[IPP_ARGS_ITEMS][IPP_ARGS_CAP];
};
#define IPP_ARGS_REC_HEAD 144	/* up to data */
#define IPP_ARGS_REC_SIZE (IPP_ARGS_REC_HEAD + IPP_ARGS_ITEMS * IPP_ARGS_CAP)
_Static_assert(sizeof(struct ipp_args_rec) == IPP_ARGS_REC_SIZE, "the arg record's size");

/* arg record flags */
#define IPP_ARGS_F_NORETURN 0x1	/* written at sys_enter of a call that does not return */
/*
 * Written at the first switch-out of its thread inside the call: what was
 * read at sys_enter; the call is under way (its own record and call record
 * come at its exit, this one is not for them).
 */
#define IPP_ARGS_F_ENTERED 0x2

/* What a delivered signal does (the signal record's sub byte): the action the thread has for it. */
enum ipp_sig_action {
	IPP_SIG_HANDLER = 0,	/* runs the thread's handler */
	IPP_SIG_DEFAULT = 1,	/* its default action (stop, terminate, dump core, or nothing) */
	IPP_SIG_IGNORE = 2,	/* SIG_IGN */
};

#define IPP_SIG_INFO 48		/* the kernel's siginfo (struct kernel_siginfo): a siginfo_t's first bytes */

/*
 * A signal delivered to a target thread (IPP_FDID_SIGNAL), at the
 * signal_deliver tracepoint: taken off its queue in the thread's return
 * to user space, or found there when a fatal signal killed the process
 * without being taken off (see args.bpf.c). Fixed size.
 */
struct ipp_sig_rec {
	IPP_KREC_HDR(action);	/* what: IPP_FDID_SIGNAL; action: enum ipp_sig_action; flags 0 */
	__s32 signo;
	__u32 pad;
	__u8 info[IPP_SIG_INFO];	/* si_signo, si_errno, si_code, then the fields of its kind */
};
#define IPP_SIG_REC_SIZE 72
_Static_assert(sizeof(struct ipp_sig_rec) == IPP_SIG_REC_SIZE, "the signal record's size");

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/args-rec.c */
#include <stddef.h>

/*
 * Check the RAW data of one bpf-output sample that holds an arg record
 * and copy what it holds into @out, zeroing the data of the items past its
 * size. Pure. Returns 0, -ENOTSUP for another version, or -EPROTO when it
 * is not an arg record, is too short for its items, or an item says more
 * than its slot holds.
 */
int ipp_args_rec__parse(const void *raw, size_t size, struct ipp_args_rec *out);

/*
 * Check the RAW data of one bpf-output sample that holds a signal record
 * (IPP_FDID_SIGNAL) and copy it into @out. Pure. Returns 0, -ENOTSUP for
 * another version, or -EPROTO when it is not a signal record, is too
 * short, or gives an unknown action or a signal number out of range.
 */
int ipp_sig_rec__parse(const void *raw, size_t size, struct ipp_sig_rec *out);

/* Return the spec of syscall @name (what args.bpf.c reads of it), or NULL for none. Static. */
const struct ipp_arg_spec *ipp_args_spec_of(const char *name);

/* Call @cb with each call the library has a spec for. */
void ipp_args_for_each_spec(void (*cb)(void *ctx, const char *name,
				       const struct ipp_arg_spec *spec), void *ctx);
#endif

#endif /* IPCPERF_ARGS_REC_H */
