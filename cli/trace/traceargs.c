/* Printing a call's arguments as strace -yy does (traceargs.h); traceargs-ret.c does its return. */
#include "config.h"
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "output.h"
#include "traceargs.h"
#include "traceflags.h"

/* The kernel's O_ values (x86 and most others; glibc hides some, O_LARGEFILE is 0 in it). */
#define K_O_LARGEFILE 0100000u
#define K_O_SYNC_ONLY 04000000u	/* __O_SYNC: O_SYNC is it with O_DSYNC */
#define K_O_TMPFILE_ONLY 020000000u

/* In strace's order. */
static const struct tf_name open_flags[] = {
	{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" }, { O_NONBLOCK, "O_NONBLOCK" },
	{ K_O_SYNC_ONLY, "O_SYNC" }, { O_DSYNC, "O_DSYNC" }, { 020000, "O_ASYNC" },
	{ 040000, "O_DIRECT" }, { K_O_LARGEFILE, "O_LARGEFILE" }, { O_NOFOLLOW, "O_NOFOLLOW" },
	{ 01000000, "O_NOATIME" }, { O_CLOEXEC, "O_CLOEXEC" }, { 010000000, "O_PATH" },
	{ K_O_TMPFILE_ONLY, "O_TMPFILE" }, { O_DIRECTORY, "O_DIRECTORY" },
};

const char *traceout_open_flags(char *buf, size_t len, uint64_t flags)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "%#" PRIx64, flags);
		return buf;
	}
	/* O_SYNC carries O_DSYNC, so it is named once, as O_SYNC; O_TMPFILE carries O_DIRECTORY. */
	if ((flags & (K_O_SYNC_ONLY | O_DSYNC)) == (K_O_SYNC_ONLY | O_DSYNC))
		flags &= ~(uint64_t)O_DSYNC;
	if (flags & K_O_TMPFILE_ONLY)
		flags &= ~(uint64_t)O_DIRECTORY;
	fputs(acc[flags & O_ACCMODE], f);
	if (flags & ~(uint64_t)O_ACCMODE) {
		fputc('|', f);
		tf_bits(f, flags & ~(uint64_t)O_ACCMODE, open_flags, TF_N(open_flags), NULL);
	}
	fclose(f);
	return buf;
}

static void put_open_flags(FILE *f, uint64_t flags)
{
	char buf[512];

	fputs(traceout_open_flags(buf, sizeof(buf), flags), f);
}

/* Print a path inside <...> as strace -yy does: as a string, with < and > escaped too. */
static void put_path(FILE *f, const char *path)
{
	cli_put_escaped(f, path, strlen(path), CLI_ESC_ASCII | CLI_ESC_QUOTED, "<>");
}

const struct ipcperf_call_mem *traceargs_mem(const struct ipcperf_syscall *ev, unsigned int arg,
					     unsigned int kind)
{
	for (unsigned int i = 0; i < ev->nr_mem; i++)
		if (ev->mem[i].arg == arg && (!kind || ev->mem[i].kind == kind) && !ev->mem[i].fault)
			return &ev->mem[i];
	return NULL;
}

static void put_ptr(FILE *f, uint64_t p)
{
	if (p)
		fprintf(f, "%#" PRIx64, p);
	else
		fputs("NULL", f);
}

/* Print a string argument in full (a path, @limit 0) or at most @limit bytes, as strace -s does. */
static void put_string(const struct traceargs *a, unsigned int arg, unsigned int limit)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_STRING);
	size_t n;

	if (!m) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	n = limit && m->len > limit ? limit : m->len;
	tf_quote_mem(a->f, m->data, n, n < m->len || m->truncated, false);
}

/* Print a buffer of @kind (IN before the call, OUT after) of @total bytes, at most -s of them. */
static void put_buffer(const struct traceargs *a, unsigned int arg, unsigned int kind,
		       uint64_t total, bool hex)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, kind);
	size_t n;

	if (!m || (kind == IPCPERF_MEM_OUT && a->ev->ret < 0)) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	n = total < m->len ? (size_t)total : m->len;
	if (n > a->strsize)
		n = a->strsize;
	tf_quote_mem(a->f, m->data, n, total > n, hex);
}

/* Print with @put a struct the call wrote (OUT) or was given (IN), or its address if unread. */
static void put_struct(const struct traceargs *a, unsigned int arg, unsigned int kind, size_t need,
		       void (*put)(FILE *f, const unsigned char *p))
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, kind);

	if (m && m->len >= need && !(kind == IPCPERF_MEM_OUT && a->ev->ret < 0))
		put(a->f, m->data);
	else
		put_ptr(a->f, a->ev->args[arg]);
}

/* Print a struct the call read or wrote: the piece there is (OUT, else IN), or else its address. */
static void put_either(const struct traceargs *a, unsigned int arg, size_t need,
		       void (*put)(FILE *f, const unsigned char *p))
{
	put_struct(a, arg, traceargs_mem(a->ev, arg, IPCPERF_MEM_OUT) ? IPCPERF_MEM_OUT : IPCPERF_MEM_IN,
		   need, put);
}

const struct ipcperf_fd_object *traceargs_made(const struct ipcperf_call_fds *fds, int fd)
{
	for (unsigned int i = 0; fds && i < fds->nr_new; i++)
		if (fds->new_fds[i] == fd)
			return &fds->new_objects[i];
	return NULL;
}

/* Print argument @arg as an fd, with its object when it is the call's fd argument. */
static void put_fd_arg(const struct traceargs *a, unsigned int arg)
{
	int fd = (int)a->ev->args[arg];
	const struct ipcperf_fd_object *o = NULL;

	/* connect's and bind's socket as it was before the call; the library's is the one after. */
	if (fd >= 0 && (!strcmp(a->ev->name, "connect") || !strcmp(a->ev->name, "bind")) &&
	    a->fd_object)
		o = a->fd_object(a->ctx, a->ev->pid, fd);
	if (!o && fd >= 0 && fd == a->ev->fd && a->fds)
		o = a->fds->fd;
	if (!o && fd >= 0 && fd == a->ev->out_fd && a->fds)
		o = a->fds->out_fd;	/* a zero-copy move's destination */
	if ((!o || o->kind == IPCPERF_FD_UNKNOWN) && fd >= 0 && a->fd_object)
		o = a->fd_object(a->ctx, a->ev->pid, fd);
	traceargs_fd(a->f, fd, o);
}

static void put_dirfd(const struct traceargs *a, unsigned int arg)
{
	if ((int)a->ev->args[arg] != AT_FDCWD) {
		put_fd_arg(a, arg);
		return;
	}
	fputs("AT_FDCWD", a->f);
	if (a->cwd) {
		fputc('<', a->f);
		put_path(a->f, a->cwd);
		fputc('>', a->f);
	}
}

static void put_sockaddr(const struct traceargs *a, unsigned int arg, unsigned int kind)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, kind);

	if (!m || (kind == IPCPERF_MEM_SOCKADDR && a->ev->ret < 0))
		put_ptr(a->f, a->ev->args[arg]);
	else
		tf_sockaddr(a->f, m->data, m->len);
}

/* Print argv as ["ls", "/"], each string at most -s bytes. */
static void put_argv(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_STRV);
	size_t at = 0;

	if (!m) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	fputc('[', a->f);
	for (uint32_t i = 0; i < m->count && at < m->len; i++) {
		size_t n = strnlen((const char *)m->data + at, m->len - at);
		size_t shown = n > a->strsize ? a->strsize : n;

		fputs(i ? ", " : "", a->f);
		tf_quote_mem(a->f, m->data + at, shown, shown < n || at + n >= m->len, false);
		at += n + 1;
	}
	if (m->more || m->truncated)
		fputs(", ...", a->f);
	fputc(']', a->f);
}

static void put_envp(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_NPTR);

	put_ptr(a->f, a->ev->args[arg]);
	if (m)
		fprintf(a->f, " /* %" PRIu32 "%s vars */", m->count, m->more ? "+" : "");
}

static void put_dirents(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_DIRENTS);

	put_ptr(a->f, a->ev->args[arg]);
	if (m && a->ev->ret >= 0)
		fprintf(a->f, " /* %" PRIu32 "%s entries */", m->count, m->more ? "+" : "");
}

/* Print the pair of fds a call wrote, as the kernel described them: [3<pipe:[1]>, 4<pipe:[1]>]. */
static void put_pair(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_fds *fds = a->fds;
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_OUT);
	int v[2];

	if (a->ev->ret < 0 || (!m && (!fds || fds->nr_new < 2))) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	if (m && m->len >= sizeof(v))
		memcpy(v, m->data, sizeof(v));
	else
		v[0] = fds->new_fds[0], v[1] = fds->new_fds[1];
	fputc('[', a->f);
	traceargs_fd(a->f, v[0], traceargs_made(fds, v[0]));
	fputs(", ", a->f);
	traceargs_fd(a->f, v[1], traceargs_made(fds, v[1]));
	fputc(']', a->f);
}

/* Print fd @fd of the caller, with what it is when known. */
static void put_fd_num(const struct traceargs *a, int fd)
{
	const struct ipcperf_fd_object *o = NULL;

	if (fd >= 0 && a->fd_object)
		o = a->fd_object(a->ctx, a->ev->pid, fd);
	traceargs_fd(a->f, fd, o);
}

/* Print the buffer of iovec @k (at @base, @want bytes of it meant) from the piece of @kind read. */
static void put_iov_base(const struct traceargs *a, unsigned int arg, unsigned int kind,
			 uint32_t k, uint64_t base, uint64_t want)
{
	for (unsigned int i = 0; i < a->ev->nr_mem; i++) {
		const struct ipcperf_call_mem *m = &a->ev->mem[i];
		size_t n = want < m->len ? (size_t)want : m->len;

		if (m->arg != arg || m->kind != kind || m->count != k || m->fault)
			continue;
		if (n > a->strsize)
			n = a->strsize;
		tf_quote_mem(a->f, m->data, n, want > n, false);
		return;
	}
	put_ptr(a->f, base);
}

/* Print an iovec array, IN (writev) or OUT (readv): [{iov_base="...", iov_len=N}, ...]. */
static void put_iov(const struct traceargs *a, unsigned int arg, bool out)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, out ? IPCPERF_MEM_IOV_OUT : IPCPERF_MEM_IOV_IN);
	uint64_t left = a->ev->ret > 0 ? (uint64_t)a->ev->ret : 0, v[2];
	uint32_t n;

	if (!m) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	n = m->count < m->len / 16 ? m->count : m->len / 16;
	fputc('[', a->f);
	for (uint32_t k = 0; k < n; k++) {
		uint64_t want;

		memcpy(v, m->data + k * 16, sizeof(v));
		want = !out ? v[1] : v[1] < left ? v[1] : left;
		left -= out ? want : 0;
		fputs(k ? ", {iov_base=" : "{iov_base=", a->f);
		put_iov_base(a, arg, out ? IPCPERF_MEM_IOVB_OUT : IPCPERF_MEM_IOVB_IN, k, v[0], want);
		fprintf(a->f, ", iov_len=%" PRIu64 "}", v[1]);
	}
	fputs(m->count > n ? ", ...]" : "]", a->f);
}

/* Print epoll_wait's events, as many as it returned. */
static void put_epoll_events(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_OUT);
	int64_t n;

	if (!m || a->ev->ret < 0) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	n = a->ev->ret < (int64_t)(m->len / 12) ? a->ev->ret : (int64_t)(m->len / 12);
	fputc('[', a->f);
	for (int64_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", a->f);
		tf_epoll_event(a->f, m->data + i * 12);
	}
	fputs(a->ev->ret > n ? ", ...]" : "]", a->f);
}

/* Print poll's fds as given: [{fd=3</path>, events=POLLIN}, ...]. */
static void put_pollfds(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, IPCPERF_MEM_IN);
	uint64_t n;

	if (!m) {
		put_ptr(a->f, a->ev->args[arg]);
		return;
	}
	n = a->ev->args[arg + 1] < m->len / 8 ? a->ev->args[arg + 1] : m->len / 8;
	fputc('[', a->f);
	for (uint64_t i = 0; i < n; i++) {
		int fd;
		int16_t ev;

		memcpy(&fd, m->data + i * 8, sizeof(fd));
		memcpy(&ev, m->data + i * 8 + 4, sizeof(ev));
		fputs(i ? ", {fd=" : "{fd=", a->f);
		put_fd_num(a, fd);
		fputs(", events=", a->f);
		tf_names(a->f, TF_POLL_EVENTS, (uint16_t)ev);
		fputc('}', a->f);
	}
	fputs(a->ev->args[arg + 1] > n ? ", ...]" : "]", a->f);
}

/* Print setsockopt's or getsockopt's value, @len bytes of piece @m: [int] when it is one. */
static void put_optval(const struct traceargs *a, const struct ipcperf_call_mem *m, uint64_t len)
{
	int v;

	if (len == sizeof(v) && m->len >= sizeof(v)) {
		memcpy(&v, m->data, sizeof(v));
		if (a->ev->args[1] == SOL_SOCKET && a->ev->args[2] == SO_ERROR && v > 0 &&
		    strerrorname_np(v))
			fprintf(a->f, "[%s]", strerrorname_np(v));
		else
			fprintf(a->f, "[%d]", v);
		return;
	}
	tf_quote_mem(a->f, m->data, len < m->len ? (size_t)len : m->len, len > m->len, false);
}

/* Print setsockopt's optval (@out false) or getsockopt's. */
static void put_sockopt(const struct traceargs *a, unsigned int arg, bool out)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, arg, out ? IPCPERF_MEM_SOCKADDR : IPCPERF_MEM_IN);

	if (!m || (out && a->ev->ret < 0))
		put_ptr(a->f, a->ev->args[arg]);
	else
		put_optval(a, m, out ? m->count : a->ev->args[arg + 1]);
}

/*
 * Print the length at argument @arg, given to the call and written by it
 * (accept's addrlen, getsockopt's optlen): [16], or [128 => 16] when it
 * changed, or what it was given when the call failed.
 */
static void put_len_out(const struct traceargs *a, unsigned int arg)
{
	const struct ipcperf_call_mem *out = arg ? traceargs_mem(a->ev, arg - 1, IPCPERF_MEM_SOCKADDR) : NULL;
	const struct ipcperf_call_mem *in = traceargs_mem(a->ev, arg, IPCPERF_MEM_IN);
	uint32_t given = 0;

	if (in && in->len >= sizeof(given))
		memcpy(&given, in->data, sizeof(given));
	else
		in = NULL;
	if (out && a->ev->ret >= 0 && (!in || given == out->count))
		fprintf(a->f, "[%" PRIu32 "]", out->count);
	else if (out && a->ev->ret >= 0)
		fprintf(a->f, "[%" PRIu32 " => %" PRIu32 "]", given, out->count);
	else if (in)
		fprintf(a->f, "[%" PRIu32 "]", given);
	else
		put_ptr(a->f, a->ev->args[arg]);
}

/* Print argument @i by its code @c, one of the generic formats' (see calls[] below). */
static void put_code(const struct traceargs *a, char code, unsigned int i)
{
	FILE *f = a->f;
	uint64_t v = a->ev->args[i];

	switch (code) {
	case 'd': fprintf(f, "%d", (int)v); break;
	case 'u': fprintf(f, "%" PRIu64, v); break;
	case 'l': fprintf(f, "%" PRId64, (int64_t)v); break;
	case 'x': fprintf(f, "%#" PRIx64, v); break;
	case 'o': fprintf(f, "%#03" PRIo64, v); break;
	case 'p': put_ptr(f, v); break;
	case 'f': put_fd_arg(a, i); break;
	case 'D': put_dirfd(a, i); break;
	case 'P': put_string(a, i, 0); break;
	case 's': put_string(a, i, a->strsize); break;
	case 'W': put_buffer(a, i, IPCPERF_MEM_IN, a->ev->args[i + 1], false); break;
	case 'R': put_buffer(a, i, IPCPERF_MEM_OUT, (uint64_t)a->ev->ret, false); break;
	case 'X': put_buffer(a, i, IPCPERF_MEM_OUT, (uint64_t)a->ev->ret, true); break;
	case 'O': put_open_flags(f, v); break;
	case 'A': tf_names(f, TF_ACCESS, v); break;
	case 'a': tf_names(f, TF_AT_FLAGS, v); break;
	case 'r': tf_names(f, TF_PROT, v); break;
	case 'm': tf_map_flags(f, v); break;
	case 'S': put_struct(a, i, IPCPERF_MEM_OUT, 64, tf_stat); break;
	case 'Y': put_struct(a, i, IPCPERF_MEM_OUT, 64, tf_statx); break;
	case 'j': tf_statx_flags(f, v); break;
	case 'k': tf_names(f, TF_STATX_MASK, v); break;
	case 'L': tf_rlimit_res(f, v); break;
	case 'K': put_either(a, i, 16, tf_rlimit); break;
	case 'g': tf_names(f, TF_GRND, v); break;
	case 'c': tf_names(f, TF_ARCH_PRCTL, v); break;
	case 'I': tf_ioctl(f, v); break;
	case 'n': put_dirents(a, i); break;
	case 'Z': put_sockaddr(a, i, IPCPERF_MEM_IN); break;
	case 'z': put_sockaddr(a, i, IPCPERF_MEM_SOCKADDR); break;
	case 'h': tf_names(f, TF_SHUTDOWN, v); break;
	case 'M': tf_names(f, TF_MSG_FLAGS, v); break;
	case 'G': tf_signal(f, v); break;
	case 'Q': put_struct(a, i, i == 1 ? IPCPERF_MEM_IN : IPCPERF_MEM_OUT, 32, tf_sigaction); break;
	case 'q': put_struct(a, i, i == 1 ? IPCPERF_MEM_IN : IPCPERF_MEM_OUT, 8, tf_sigset); break;
	case 'H': tf_names(f, TF_SIGPROCMASK_HOW, v); break;
	case 'w': put_struct(a, i, IPCPERF_MEM_OUT, 4, tf_wait_status); break;
	case 'y': tf_names(f, TF_WAIT_OPTIONS, v); break;
	case 'F': tf_futex_op(f, v); break;
	case 'V': put_argv(a, i); break;
	case 'E': put_envp(a, i); break;
	case '2': put_pair(a, i); break;
	case 'C': tf_fcntl_cmd(f, v); break;
	case 'e': tf_domain(f, v); break;
	case 't': tf_sock_type(f, v); break;
	case 'i': tf_protocol(f, a->ev->args[0], v); break;
	case 'v': tf_names(f, TF_FADVICE, v); break;
	case 'T': tf_bits(f, v, open_flags, TF_N(open_flags), "0"); break;
	case 'b': tf_names(f, TF_CLOCKID, v); break;
	case 'N': tf_names(f, TF_TIMER_FLAGS, v); break;
	case 'J': put_struct(a, i, IPCPERF_MEM_IN, 16, tf_timespec); break;
	case 'U': put_ptr(f, v); break;	/* written by the call, not read here */
	case '4': tf_names(f, TF_SOCK_FLAGS, v); break;
	case '5': tf_names(f, TF_EPOLL_OP, v); break;
	case '6': tf_names(f, TF_EPOLL_FLAGS, v); break;
	case '7': put_struct(a, i, IPCPERF_MEM_IN, 12, tf_epoll_event); break;
	case '8': put_epoll_events(a, i); break;
	case '9': put_pollfds(a, i); break;
	case '0': tf_sockopt_level(f, v); break;
	case '1': tf_sockopt_name(f, a->ev->args[1], v); break;
	case '!': put_sockopt(a, i, false); break;
	case '@': put_sockopt(a, i, true); break;
	case '#': put_len_out(a, i); break;
	case '<': put_iov(a, i, false); break;
	case '>': put_iov(a, i, true); break;
	default: fprintf(f, "%#" PRIx64, v); break;
	}
}

/*
 * The codes of each call's arguments, one per argument (put_code()), after
 * strace's formats for x86-64. Calls not listed here print their six raw
 * arguments.
 */
static const struct {
	const char *name;
	const char *codes;
} calls[] = {
	{ "read", "fRu" }, { "write", "fWu" }, { "pread64", "fRul" }, { "pwrite64", "fWul" },
	{ "close", "f" }, { "open", "PO" }, { "openat", "DPO" }, { "creat", "Po" },
	{ "access", "PA" }, { "faccessat", "DPA" }, { "faccessat2", "DPAa" },
	{ "statx", "DPjkY" }, { "stat", "PS" }, { "lstat", "PS" }, { "fstat", "fS" }, { "newfstatat", "DPSa" },
	{ "statfs", "Pp" }, { "fstatfs", "fp" }, { "execve", "PVE" }, { "execveat", "DPVEa" },
	{ "brk", "p" }, { "mmap", "purmfx" }, { "munmap", "pu" }, { "mprotect", "pur" },
	{ "madvise", "pud" }, { "mremap", "puux" }, { "arch_prctl", "cx" },
	{ "set_tid_address", "p" }, { "set_robust_list", "pu" }, { "rseq", "pxdx" },
	{ "prlimit64", "dLKK" }, { "getrlimit", "LK" }, { "getrandom", "Xug" },
	{ "ioctl", "fIp" }, { "getdents64", "fnu" }, { "lseek", "fld" }, { "exit_group", "d" },
	{ "exit", "d" }, { "socket", "eti" }, { "connect", "fZu" }, { "bind", "fZu" },
	{ "listen", "fd" }, { "shutdown", "fh" }, { "sendto", "fWuMZu" },
	{ "recvfrom", "fRuMzp" }, { "getsockname", "fz#" }, { "getpeername", "fz#" },
	{ "accept", "fz#" }, { "accept4", "fz#4" }, { "dup", "f" }, { "dup2", "ff" },
	{ "dup3", "ffT" }, { "pipe", "2" }, { "pipe2", "2T" }, { "socketpair", "eti2" },
	{ "unlink", "P" }, { "unlinkat", "DPa" }, { "mkdir", "Po" }, { "mkdirat", "DPo" },
	{ "rmdir", "P" }, { "chdir", "P" }, { "fchdir", "f" }, { "chmod", "Po" },
	{ "fchmod", "fo" }, { "readlink", "PRu" }, { "readlinkat", "DPRu" },
	{ "rename", "PP" }, { "renameat", "DPDP" }, { "symlink", "PP" }, { "link", "PP" },
	{ "truncate", "Pl" }, { "ftruncate", "fl" }, { "fsync", "f" }, { "fdatasync", "f" },
	{ "rt_sigaction", "GQQu" }, { "rt_sigprocmask", "Hqqu" }, { "wait4", "dwyp" },
	{ "kill", "dG" }, { "tgkill", "ddG" }, { "umask", "o" }, { "sched_yield", "" },
	{ "getpid", "" }, { "getppid", "" }, { "gettid", "" }, { "getuid", "" },
	{ "geteuid", "" }, { "getgid", "" }, { "getegid", "" }, { "getpgrp", "" },
	{ "setsid", "" }, { "fork", "" }, { "vfork", "" }, { "sync", "" }, { "pause", "" },
	{ "setpgid", "dd" }, { "getpgid", "d" }, { "getsid", "d" }, { "setuid", "d" },
	{ "setgid", "d" }, { "alarm", "u" }, { "memfd_create", "sx" }, { "epoll_create1", "6" },
	{ "eventfd2", "ux" }, { "getcwd", "Ru" }, { "fadvise64", "fllv" },
	{ "sendfile", "ffpu" }, { "splice", "fpfpux" }, { "tee", "ffux" },
	{ "copy_file_range", "fpfpux" }, { "vmsplice", "fpux" },
	{ "nanosleep", "JU" }, { "clock_nanosleep", "bNJU" },
	{ "readv", "f>d" }, { "writev", "f<d" }, { "epoll_ctl", "f5f7" }, { "epoll_wait", "f8dd" },
	{ "epoll_pwait", "f8ddpu" }, { "poll", "9ud" }, { "setsockopt", "f01!u" },
	{ "getsockopt", "f01@#" },
};

static const char *codes_of(const char *name)
{
	for (size_t i = 0; i < TF_N(calls); i++)
		if (!strcmp(calls[i].name, name))
			return calls[i].codes;
	return NULL;
}

/* Whether call @name writes argument @i (code @c): strace prints it and the rest at the exit. */
static bool written(const char *name, char c, unsigned int i)
{
	if (strchr("RXSYnzw2U8@#>", c))
		return true;
	if (c == 'Q' || c == 'q')
		return i == 2;	/* rt_sigaction's oldact, rt_sigprocmask's oldset */
	if (c == 'K')
		return i == 3 || !strcmp(name, "getrlimit");
	return false;
}

static void put_codes(const struct traceargs *a, const char *codes)
{
	for (unsigned int i = 0; codes[i] && i < 6; i++) {
		if (i)
			fputs(", ", a->f);
		if (a->split && *a->split < 0 && written(a->ev->name, codes[i], i))
			*a->split = ftell(a->f);
		put_code(a, codes[i], i);
	}
}

/*
 * Print open's or openat's arguments (the flags the second, or openat's
 * third); the mode only with O_CREAT or O_TMPFILE.
 */
static void put_open(const struct traceargs *a)
{
	unsigned int flags_arg = strcmp(a->ev->name, "openat") ? 1 : 2;

	put_codes(a, flags_arg == 2 ? "DPO" : "PO");
	if (a->ev->args[flags_arg] & (O_CREAT | K_O_TMPFILE_ONLY))
		fprintf(a->f, ", %#03" PRIo64, a->ev->args[flags_arg + 1]);
}

/* Print fcntl's arguments, the third one as its command says. */
static void put_fcntl(const struct traceargs *a)
{
	uint64_t cmd = a->ev->args[1];

	put_codes(a, "fC");
	if (cmd == F_GETFD || cmd == F_GETFL || cmd == F_GETOWN || cmd == F_GETSIG ||
	    cmd == F_GETLEASE || cmd == F_GETPIPE_SZ)
		return;
	if (cmd == F_SETFD)
		fputs(a->ev->args[2] & FD_CLOEXEC ? ", FD_CLOEXEC" : ", 0", a->f);
	else if (cmd == F_SETFL) {
		fputs(", ", a->f);
		put_open_flags(a->f, a->ev->args[2]);
	} else
		fprintf(a->f, ", %" PRIu64, a->ev->args[2]);
}

/* Print close_range's numbers as unsigned ints, as strace does (no fd names, even with -yy). */
static void put_close_range(const struct traceargs *a)
{
	fprintf(a->f, "%u, %u, ", (unsigned int)a->ev->args[0], (unsigned int)a->ev->args[1]);
	tf_close_range_flags(a->f, a->ev->args[2]);
}

/* Print futex's arguments, those each operation takes. */
static void put_futex(const struct traceargs *a)
{
	unsigned int op = (unsigned int)a->ev->args[1] & 0x7f;

	put_codes(a, "pF");
	fprintf(a->f, ", %u", (unsigned int)a->ev->args[2]);
	if (op == 0 || op == 9) {	/* WAIT, WAIT_BITSET */
		fputs(", ", a->f);
		put_ptr(a->f, a->ev->args[3]);
		if (op == 9)
			fputs(a->ev->args[5] == 0xffffffffu ? ", FUTEX_BITSET_MATCH_ANY" : ", ?", a->f);
	}
}

/* Print clone's arguments as strace does (x86-64: flags, stack, parent_tid, child_tid, tls). */
static void put_clone(const struct traceargs *a)
{
	const uint64_t *v = a->ev->args;

	fputs("child_stack=", a->f);
	put_ptr(a->f, v[1]);
	fputs(", flags=", a->f);
	tf_clone_flags(a->f, v[0]);
	if (v[0] & 0x100000)
		fprintf(a->f, ", parent_tid=%#" PRIx64, v[2]);
	if (v[0] & (0x200000 | 0x1000000))
		fprintf(a->f, ", child_tidptr=%#" PRIx64, v[3]);
	if (v[0] & 0x80000)
		fprintf(a->f, ", tls=%#" PRIx64, v[4]);
}

/* Print prctl's arguments by name for known options (dumpable, parent-death signal), or all six. */
static void put_prctl(const struct traceargs *a)
{
	static const char *const dump[] = { "SUID_DUMP_DISABLE", "SUID_DUMP_USER", "SUID_DUMP_ROOT" };
	const uint64_t *v = a->ev->args;

	switch (v[0]) {
	case 1:
		fputs("PR_SET_PDEATHSIG, ", a->f);
		tf_signal(a->f, v[1]);
		return;
	case 3:
		fputs("PR_GET_DUMPABLE", a->f);
		return;
	case 4:
		fputs("PR_SET_DUMPABLE, ", a->f);
		if (v[1] < TF_N(dump))
			fputs(dump[v[1]], a->f);
		else
			fprintf(a->f, "%#" PRIx64 " /* SUID_DUMP_??? */", v[1]);
		return;
	default:
		for (unsigned int i = 0; i < 6; i++)
			fprintf(a->f, "%s%#" PRIx64, i ? ", " : "", v[i]);
	}
}

/* Print the mask rt_sigreturn's signal frame restores, as strace reads it from the frame. */
static void put_sigreturn(const struct traceargs *a)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, 0, IPCPERF_MEM_SIGMASK);

	fputs("{mask=", a->f);
	if (m && m->len >= 8)
		tf_sigset(a->f, m->data);
	else
		fputc('?', a->f);
	fputc('}', a->f);
}

typedef void put_args_fn(const struct traceargs *a);

/* The printer of call @name's arguments, for the calls that have one of their own; else NULL. */
static put_args_fn *printer_of(const char *name)
{
	static const struct {
		const char *name;
		put_args_fn *put;
	} printers[] = {
		{ "openat", put_open }, { "open", put_open }, { "fcntl", put_fcntl },
		{ "futex", put_futex }, { "close_range", put_close_range }, { "clone", put_clone },
		{ "rt_sigreturn", put_sigreturn }, { "prctl", put_prctl },
	};

	for (size_t i = 0; i < TF_N(printers); i++)
		if (!strcmp(name, printers[i].name))
			return printers[i].put;
	return NULL;
}

void traceargs_call(const struct traceargs *a)
{
	const struct ipcperf_syscall *ev = a->ev;
	const char *codes = codes_of(ev->name);
	put_args_fn *put = printer_of(ev->name);

	if (a->split)
		*a->split = -1;
	fprintf(a->f, "%s(", ev->name);
	if (put)
		put(a);
	else if (codes)
		put_codes(a, codes);
	else
		for (unsigned int i = 0; i < ev->nr_args && i < 6; i++)
			fprintf(a->f, "%s%#" PRIx64, i ? ", " : "", ev->args[i]);
	if (a->split && *a->split < 0)
		*a->split = ftell(a->f);
	fputc(')', a->f);
}

/* Print a socket as strace -yy does: TCP:[1.2.3.4:5->6.7.8.9:10], UNIX-STREAM:[N->M], UNIX:[N]. */
static void put_socket(FILE *f, const struct ipcperf_fd_object *o)
{
	const char *arrow = o->detail ? strstr(o->detail, " -> ") : NULL;
	const char *proto = o->kind == IPCPERF_FD_TCP ? "TCP" : "UDP";
	size_t rl = arrow ? strlen(arrow + 4) : 0;
	int ll = arrow ? (int)(arrow - o->detail) : 0;
	bool v6 = o->detail && o->detail[0] == '[';

	/* Not connected (no peer, port 0): strace gives its address if bound, else its inode. */
	if (arrow && (!rl || (rl >= 2 && !strcmp(arrow + 4 + rl - 2, ":0")))) {
		if (ll > 2 && strncmp(arrow - 2, ":0", 2)) {
			fprintf(f, "%s%s:[%.*s]", proto, v6 ? "v6" : "", ll, o->detail);
			return;
		}
		arrow = NULL;
	}

	if (o->kind == IPCPERF_FD_UNIX) {
		/* The kernel's protocol names; datagram and seqpacket sockets share "UNIX". */
		fprintf(f, "%s:[%" PRIu64,
			o->sock_type && o->sock_type != SOCK_STREAM ? "UNIX" : "UNIX-STREAM", o->ino);
		if (o->peer_ino)
			fprintf(f, "->%" PRIu64, o->peer_ino);
		fputc(']', f);
	} else if (arrow) {
		/* v6 addresses are bracketed, as in [::1]:80. */
		fprintf(f, "%s%s:[%.*s->%s]", proto, v6 ? "v6" : "", ll, o->detail, arrow + 4);
	} else {
		fprintf(f, "%s:[%" PRIu64 "]", proto, o->ino);
	}
}

/* Print a device's numbers as -yy adds them: <char 1:3>. */
static void put_device(FILE *f, const char *path)
{
	struct stat st;

	if (strncmp(path, "/dev/", 5) || stat(path, &st) < 0 ||
	    !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		return;
	fprintf(f, "<%s %u:%u>", S_ISCHR(st.st_mode) ? "char" : "block", major(st.st_rdev),
		minor(st.st_rdev));
}

void traceargs_fd(FILE *f, int fd, const struct ipcperf_fd_object *o)
{
	fprintf(f, "%d", fd);
	if (!o || o->kind == IPCPERF_FD_UNKNOWN || !o->object || !strcmp(o->object, "unknown"))
		return;
	fputc('<', f);
	if (o->kind == IPCPERF_FD_TCP || o->kind == IPCPERF_FD_UDP || o->kind == IPCPERF_FD_UNIX) {
		put_socket(f, o);
	} else {
		put_path(f, o->object);
		put_device(f, o->object);
	}
	fputc('>', f);
}
