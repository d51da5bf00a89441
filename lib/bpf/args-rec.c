/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The arg record's decoder and what args.bpf.c reads of each call (args-rec.h). Pure. */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "args-rec.h"

int ipp_args_rec__parse(const void *raw, size_t size, struct ipp_args_rec *out)
{
	uint16_t rsize;
	int err = ipp_krec__head(raw, size, &rsize);
	unsigned int n;

	if (err)
		return err;
	if (rsize < IPP_ARGS_REC_HEAD || rsize > IPP_ARGS_REC_SIZE ||
	    ipp_krec__what(raw, size) != IPP_FDID_ARGS)
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	memcpy(out, raw, rsize);
	n = out->nr_items;
	if (n > IPP_ARGS_ITEMS || rsize < IPP_ARGS_REC_HEAD + n * IPP_ARGS_CAP)
		return -EPROTO;
	for (unsigned int i = 0; i < IPP_ARGS_ITEMS; i++) {
		const struct ipp_arg_item *it = &out->items[i];

		if (it->kind >= IPP_ARG__MAX || it->len > IPP_ARGS_CAP ||
		    (i >= n && it->kind != IPP_ARG_NONE))
			return -EPROTO;
	}
	return 0;
}

int ipp_sig_rec__parse(const void *raw, size_t size, struct ipp_sig_rec *out)
{
	int err = ipp_krec__fixed(raw, size, IPP_FDID_SIGNAL, IPP_SIG_REC_SIZE, out);

	if (err)
		return err;
	if (out->action > IPP_SIG_IGNORE || out->signo <= 0 || out->signo > 64)
		return -EPROTO;
	return 0;
}

/* Spec items: a string, bytes in (before the call), bytes out (after it), ... */
#define S(a) { a, IPP_ARG_STR, IPP_ARGS_NO_LEN, 0, 0, 0 }
#define IN(a, len, sz) { a, IPP_ARG_IN, len, 0, sz, 0 }
#define INF(a, sz) { a, IPP_ARG_IN, IPP_ARGS_NO_LEN, 0, sz, 0 }
#define OUT(a, len, sz) { a, IPP_ARG_OUT, len, 0, sz, 0 }
#define OUTF(a, sz) { a, IPP_ARG_OUT, IPP_ARGS_NO_LEN, 0, sz, 0 }
#define OUTR(a, sz) { a, IPP_ARG_OUT, IPP_ARGS_LEN_RET, 0, sz, 0 }
#define ADDR(a, lenp) { a, IPP_ARG_ADDR_OUT, lenp, 0, 0, 0 }
#define STRV(a) { a, IPP_ARG_STRV, IPP_ARGS_NO_LEN, 0, 0, 0 }
#define NPTR(a) { a, IPP_ARG_NPTR, IPP_ARGS_NO_LEN, 0, 0, 0 }
#define DENTS(a) { a, IPP_ARG_DIRENTS, IPP_ARGS_NO_LEN, 0, 0, 0 }
#define SIGMASK { 0, IPP_ARG_SIGMASK, IPP_ARGS_NO_LEN, 0, 8, 0 }
/*
 * An iovec array in argument a, with its entries' count in argument n: read the
 * array, then its first three buffers.
 */
#define IOVS(a, n, k) { { a, IPP_ARG_IOV_##k, n, 0, 0, 0 }, { a, IPP_ARG_IOVB_##k, n, 0, 0, 0 }, \
		       { a, IPP_ARG_IOVB_##k, n, 1, 0, 0 }, { a, IPP_ARG_IOVB_##k, n, 2, 0, 0 } }

/* The sizes of the kernel's structs on 64-bit Linux (x86-64, arm64). */
#define STAT_SZ 144		/* struct stat */
#define STATX_SZ 256		/* struct statx */
#define STATFS_SZ 120		/* struct statfs */
#define RLIM_SZ 16		/* struct rlimit64 */
#define SIGACT_SZ 32		/* the kernel's struct sigaction (handler, flags, restorer, mask) */
#define UTS_SZ 130		/* struct utsname: sysname and nodename */
#define TS_SZ 16		/* struct timespec */

static const struct {
	const char *name;
	struct ipp_arg_spec spec;
} specs[] = {
	{ "open", { { S(0) } } }, { "openat", { { S(1) } } }, { "creat", { { S(0) } } },
	{ "openat2", { { S(1) } } }, { "access", { { S(0) } } }, { "faccessat", { { S(1) } } },
	{ "faccessat2", { { S(1) } } }, { "stat", { { S(0), OUTF(1, STAT_SZ) } } },
	{ "lstat", { { S(0), OUTF(1, STAT_SZ) } } }, { "fstat", { { OUTF(1, STAT_SZ) } } },
	{ "newfstatat", { { S(1), OUTF(2, STAT_SZ) } } },
	{ "statx", { { S(1), OUTF(4, STATX_SZ) } } }, { "statfs", { { S(0), OUTF(1, STATFS_SZ) } } },
	{ "fstatfs", { { OUTF(1, STATFS_SZ) } } },
	{ "execve", { { S(0), STRV(1), NPTR(2) } } }, { "execveat", { { S(1), STRV(2), NPTR(3) } } },
	{ "unlink", { { S(0) } } }, { "unlinkat", { { S(1) } } }, { "mkdir", { { S(0) } } },
	{ "mkdirat", { { S(1) } } }, { "rmdir", { { S(0) } } }, { "chdir", { { S(0) } } },
	{ "chroot", { { S(0) } } }, { "chmod", { { S(0) } } }, { "fchmodat", { { S(1) } } },
	{ "chown", { { S(0) } } }, { "lchown", { { S(0) } } }, { "fchownat", { { S(1) } } },
	{ "truncate", { { S(0) } } }, { "utimensat", { { S(1) } } }, { "mknod", { { S(0) } } },
	{ "mknodat", { { S(1) } } }, { "rename", { { S(0), S(1) } } },
	{ "renameat", { { S(1), S(3) } } }, { "renameat2", { { S(1), S(3) } } },
	{ "link", { { S(0), S(1) } } }, { "linkat", { { S(1), S(3) } } },
	{ "symlink", { { S(0), S(1) } } }, { "symlinkat", { { S(0), S(2) } } },
	{ "readlink", { { S(0), OUTR(1, 1) } } }, { "readlinkat", { { S(1), OUTR(2, 1) } } },
	{ "getxattr", { { S(0), S(1) } } }, { "lgetxattr", { { S(0), S(1) } } },
	{ "inotify_add_watch", { { S(1) } } }, { "memfd_create", { { S(0) } } },
	{ "umount2", { { S(0) } } }, { "mount", { { S(0), S(1), S(2) } } },
	{ "read", { { OUTR(1, 1) } } }, { "pread64", { { OUTR(1, 1) } } },
	{ "write", { { IN(1, 2, 1) } } }, { "pwrite64", { { IN(1, 2, 1) } } },
	{ "writev", { IOVS(1, 2, IN) } }, { "readv", { IOVS(1, 2, OUT) } },
	{ "getsockopt", { { ADDR(3, 4), INF(4, 4) } } }, { "setsockopt", { { IN(3, 4, 1) } } },
	{ "recvfrom", { { OUTR(1, 1), ADDR(4, 5) } } }, { "sendto", { { IN(1, 2, 1), IN(4, 5, 1) } } },
	{ "connect", { { IN(1, 2, 1) } } }, { "bind", { { IN(1, 2, 1) } } },
	{ "accept", { { ADDR(1, 2), INF(2, 4) } } }, { "accept4", { { ADDR(1, 2), INF(2, 4) } } },
	{ "getsockname", { { ADDR(1, 2), INF(2, 4) } } },
	{ "getpeername", { { ADDR(1, 2), INF(2, 4) } } },
	{ "getrandom", { { OUTR(0, 1) } } },
	{ "poll", { { IN(0, 1, 8), OUT(0, 1, 8) } } }, { "ppoll", { { IN(0, 1, 8), OUT(0, 1, 8) } } },
	{ "epoll_ctl", { { INF(3, 12) } } }, { "epoll_wait", { { OUTR(1, 12) } } },
	{ "epoll_pwait", { { OUTR(1, 12) } } }, { "getdents64", { { DENTS(1) } } },
	{ "prlimit64", { { INF(2, RLIM_SZ), OUTF(3, RLIM_SZ) } } },
	{ "getrlimit", { { OUTF(1, RLIM_SZ) } } }, { "wait4", { { OUTF(1, 4) } } },
	{ "pipe", { { OUTF(0, 8) } } }, { "pipe2", { { OUTF(0, 8) } } },
	{ "socketpair", { { OUTF(3, 8) } } }, { "uname", { { OUTF(0, UTS_SZ) } } },
	{ "rt_sigaction", { { INF(1, SIGACT_SZ), OUTF(2, SIGACT_SZ) } } },
	{ "rt_sigprocmask", { { INF(1, 8), OUTF(2, 8) } } }, { "rt_sigreturn", { { SIGMASK } } },
	{ "nanosleep", { { INF(0, TS_SZ) } } }, { "clock_nanosleep", { { INF(2, TS_SZ) } } },
	{ "sethostname", { { IN(0, 1, 1) } } },
};

const struct ipp_arg_spec *ipp_args_spec_of(const char *name)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (!strcmp(specs[i].name, name))
			return &specs[i].spec;
	return NULL;
}

void ipp_args_for_each_spec(void (*cb)(void *ctx, const char *name,
				       const struct ipp_arg_spec *spec), void *ctx)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		cb(ctx, specs[i].name, &specs[i].spec);
}
