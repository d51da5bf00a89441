/*
 * Flags, constants and structs of trace's arguments, printed as strace
 * prints them (traceflags.c): tables of names, and the structs a call's
 * memory holds (struct stat, rlimit, sigaction, wait status).
 */
#ifndef IPCPERF_CLI_TRACEFLAGS_H
#define IPCPERF_CLI_TRACEFLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tf_name {
	uint64_t v;
	const char *name;
};
#define TF_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Print the names of the bits of @v in @tab's order with '|' between, what is
 * left in hex, and @zero for 0.
 */
void tf_bits(FILE *f, uint64_t v, const struct tf_name *tab, size_t n, const char *zero);
/* Print the name of @v in @tab. Returns whether it has one; otherwise nothing is printed. */
bool tf_one(FILE *f, uint64_t v, const struct tf_name *tab, size_t n);
/* Print the name of @v, else its number in hex with @unknown in a comment. */
void tf_value(FILE *f, uint64_t v, const struct tf_name *tab, size_t n, const char *unknown);

/*
 * The sets of names tf_names() prints, flags joined by '|' or one value,
 * as strace prints them:
 */
enum tf_set {
	TF_PROT,		/* PROT_READ|PROT_WRITE, PROT_NONE */
	TF_ACCESS,		/* R_OK|W_OK, F_OK */
	TF_AT_FLAGS,		/* AT_EMPTY_PATH */
	TF_GRND,		/* GRND_NONBLOCK */
	TF_ARCH_PRCTL,		/* ARCH_SET_FS */
	TF_SIGPROCMASK_HOW,	/* SIG_SETMASK */
	TF_WAIT_OPTIONS,	/* WNOHANG */
	TF_SHUTDOWN,		/* SHUT_WR */
	TF_MSG_FLAGS,		/* MSG_DONTWAIT */
	TF_FADVICE,		/* POSIX_FADV_SEQUENTIAL */
	TF_CLOCKID,		/* CLOCK_MONOTONIC */
	TF_TIMER_FLAGS,		/* TIMER_ABSTIME, 0 */
	TF_EPOLL_OP,		/* EPOLL_CTL_ADD */
	TF_EPOLL_FLAGS,		/* EPOLL_CLOEXEC, 0 */
	TF_POLL_EVENTS,		/* POLLIN|POLLOUT */
	TF_STATX_MASK,		/* STATX_TYPE|STATX_MODE, STATX_BASIC_STATS */
	TF_SOCK_FLAGS,		/* SOCK_CLOEXEC|SOCK_NONBLOCK, 0 */
	TF__SETS
};
/* Print @v by the names of @set. */
void tf_names(FILE *f, enum tf_set set, uint64_t v);

void tf_map_flags(FILE *f, uint64_t v);		/* MAP_PRIVATE|MAP_ANONYMOUS */
void tf_ioctl(FILE *f, uint64_t v);		/* TCGETS */
void tf_rlimit_res(FILE *f, uint64_t v);	/* RLIMIT_STACK */
void tf_rlimit(FILE *f, const unsigned char *p);	/* {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY} */
void tf_mode(FILE *f, uint64_t m);		/* S_IFREG|0644 */
void tf_stat(FILE *f, const unsigned char *p);	/* {st_mode=S_IFREG|0644, st_size=N, ...} */
void tf_signal(FILE *f, uint64_t s);		/* SIGCHLD, SIGRTMIN, SIGRT_2 */
void tf_sigset(FILE *f, const unsigned char *p);	/* [INT QUIT], ~[RTMIN RT_1] */
void tf_sigaction(FILE *f, const unsigned char *p);	/* {sa_handler=..., sa_mask=..., sa_flags=...} */
void tf_wait_status(FILE *f, const unsigned char *p);	/* [{WIFEXITED(s) && WEXITSTATUS(s) == 0}] */
void tf_clone_flags(FILE *f, uint64_t v);	/* CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD */
void tf_futex_op(FILE *f, uint64_t v);		/* FUTEX_WAKE_PRIVATE */
void tf_protocol(FILE *f, uint64_t domain, uint64_t p);	/* IPPROTO_IP for AF_INET, else the number */
void tf_fcntl_cmd(FILE *f, uint64_t cmd);	/* F_DUPFD */
void tf_domain(FILE *f, uint64_t d);		/* AF_INET */
void tf_sock_type(FILE *f, uint64_t t);		/* SOCK_STREAM|SOCK_CLOEXEC */
void tf_epoll_event(FILE *f, const unsigned char *p);	/* {events=EPOLLIN, data={u32=3, u64=3}} */
void tf_sockopt_level(FILE *f, uint64_t v);	/* SOL_SOCKET, SOL_TCP */
void tf_sockopt_name(FILE *f, uint64_t level, uint64_t v);	/* SO_ERROR, TCP_NODELAY */
void tf_sockaddr(FILE *f, const unsigned char *p, size_t len);	/* {sa_family=AF_INET, ...} */
void tf_close_range_flags(FILE *f, uint64_t v);	/* CLOSE_RANGE_UNSHARE|CLOSE_RANGE_CLOEXEC, 0 */
void tf_timespec(FILE *f, const unsigned char *p);	/* {tv_sec=1, tv_nsec=500000000} */
void tf_statx_flags(FILE *f, uint64_t v);	/* AT_STATX_SYNC_AS_STAT|AT_NO_AUTOMOUNT */
void tf_statx(FILE *f, const unsigned char *p);	/* {stx_mask=..., stx_attributes=..., stx_mode=..., stx_size=N, ...} */
/* Print @len bytes of @s as a quoted C string, the way strace does, with "..." after when @more. */
void tf_quote_mem(FILE *f, const unsigned char *s, size_t len, bool more, bool hex);
/* Print @len bytes as a quoted string. */
#define tf_quote(f, s, len) tf_quote_mem(f, s, len, false, false)

#endif
