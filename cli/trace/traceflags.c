/*
 * Printing the flags, constants and structs of trace's arguments by name, as
 * strace does (traceflags.h).
 */
#include "config.h"
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "output.h"
#include "traceflags.h"

void tf_quote_mem(FILE *f, const unsigned char *s, size_t len, bool more, bool hex)
{
	fputc('"', f);
	if (hex)
		for (size_t i = 0; i < len; i++)
			fprintf(f, "\\x%02x", s[i]);
	else
		cli_put_escaped(f, (const char *)s, len, CLI_ESC_ASCII | CLI_ESC_QUOTED, NULL);
	fputc('"', f);
	if (more)
		fputs("...", f);
}

void tf_bits(FILE *f, uint64_t v, const struct tf_name *tab, size_t n, const char *zero)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if ((v & tab[i].v) != tab[i].v || !tab[i].v)
			continue;
		fprintf(f, "%s%s", any ? "|" : "", tab[i].name);
		v &= ~tab[i].v;
		any = true;
	}
	if (v || !any) {
		if (v || !zero)
			fprintf(f, "%s%#" PRIx64, any ? "|" : "", v);
		else
			fputs(zero, f);
	}
}

bool tf_one(FILE *f, uint64_t v, const struct tf_name *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].v == v) {
			fputs(tab[i].name, f);
			return true;
		}
	return false;
}

void tf_value(FILE *f, uint64_t v, const struct tf_name *tab, size_t n, const char *unknown)
{
	if (!tf_one(f, v, tab, n))
		fprintf(f, "%#" PRIx64 " /* %s */", v, unknown);
}

static const struct tf_name prot[] = {
	{ 1, "PROT_READ" }, { 2, "PROT_WRITE" }, { 4, "PROT_EXEC" }, { 0x1000000, "PROT_GROWSDOWN" },
	{ 0x2000000, "PROT_GROWSUP" },
};

static const struct tf_name map_flags[] = {
	{ 0x10, "MAP_FIXED" }, { 0x20, "MAP_ANONYMOUS" }, { 0x40, "MAP_32BIT" },
	{ 0x100, "MAP_GROWSDOWN" }, { 0x800, "MAP_DENYWRITE" }, { 0x1000, "MAP_EXECUTABLE" },
	{ 0x2000, "MAP_LOCKED" }, { 0x4000, "MAP_NORESERVE" }, { 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" }, { 0x20000, "MAP_STACK" }, { 0x40000, "MAP_HUGETLB" },
	{ 0x80000, "MAP_SYNC" }, { 0x100000, "MAP_FIXED_NOREPLACE" },
};

void tf_map_flags(FILE *f, uint64_t v)
{
	static const char *const type[] = { "0", "MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE" };

	fputs(type[v & 3], f);
	if (v & ~3ull) {
		fputc('|', f);
		tf_bits(f, v & ~3ull, map_flags, TF_N(map_flags), NULL);
	}
}

static const struct tf_name access_modes[] = { { 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" } };

static const struct tf_name at_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_REMOVEDIR" }, { 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" }, { 0x1000, "AT_EMPTY_PATH" }, { 0x8000, "AT_RECURSIVE" },
};

static const struct tf_name grnd_flags[] = {
	{ 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" },
};

static const struct tf_name arch_prctl_codes[] = {
	{ 0x1001, "ARCH_SET_GS" }, { 0x1002, "ARCH_SET_FS" }, { 0x1003, "ARCH_GET_FS" },
	{ 0x1004, "ARCH_GET_GS" }, { 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" },
};

void tf_ioctl(FILE *f, uint64_t v)
{
	static const struct tf_name m[] = {
		{ 0x5401, "TCGETS" }, { 0x5402, "TCSETS" }, { 0x5403, "TCSETSW" }, { 0x5404, "TCSETSF" },
		{ 0x540f, "TIOCGPGRP" }, { 0x5410, "TIOCSPGRP" }, { 0x5413, "TIOCGWINSZ" },
		{ 0x5414, "TIOCSWINSZ" }, { 0x541b, "FIONREAD" }, { 0x5421, "FIONBIO" },
		{ 0x5450, "FIONCLEX" }, { 0x5451, "FIOCLEX" },
	};

	if (!tf_one(f, v & 0xffffffffu, m, TF_N(m)))
		fprintf(f, "%#" PRIx64, v);
}

void tf_rlimit_res(FILE *f, uint64_t v)
{
	static const char *const r[] = {
		"RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_CORE",
		"RLIMIT_RSS", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_MEMLOCK", "RLIMIT_AS",
		"RLIMIT_LOCKS", "RLIMIT_SIGPENDING", "RLIMIT_MSGQUEUE", "RLIMIT_NICE",
		"RLIMIT_RTPRIO", "RLIMIT_RTTIME",
	};

	if (v < TF_N(r))
		fputs(r[v], f);
	else
		fprintf(f, "%#" PRIx64 " /* RLIMIT_??? */", v);
}

/* Print a limit: RLIM64_INFINITY, N*1024 when 1024 divides it, else N. */
static void rlim_value(FILE *f, uint64_t v)
{
	if (v == UINT64_MAX)
		fputs("RLIM64_INFINITY", f);
	else if (v && v % 1024 == 0)
		fprintf(f, "%" PRIu64 "*1024", v / 1024);
	else
		fprintf(f, "%" PRIu64, v);
}

void tf_rlimit(FILE *f, const unsigned char *p)
{
	uint64_t v[2];

	memcpy(v, p, sizeof(v));
	fputs("{rlim_cur=", f);
	rlim_value(f, v[0]);
	fputs(", rlim_max=", f);
	rlim_value(f, v[1]);
	fputc('}', f);
}

/* Print st_mode as strace does, such as S_IFREG|0644 or S_IFCHR|S_ISUID|0755. */
void tf_mode(FILE *f, uint64_t m)
{
	static const struct tf_name types[] = {
		{ S_IFREG, "S_IFREG" }, { S_IFDIR, "S_IFDIR" }, { S_IFCHR, "S_IFCHR" },
		{ S_IFBLK, "S_IFBLK" }, { S_IFIFO, "S_IFIFO" }, { S_IFLNK, "S_IFLNK" },
		{ S_IFSOCK, "S_IFSOCK" },
	};

	if (!tf_one(f, m & S_IFMT, types, TF_N(types)))
		fprintf(f, "%#" PRIo64, m & S_IFMT);
	if (m & S_ISUID)
		fputs("|S_ISUID", f);
	if (m & S_ISGID)
		fputs("|S_ISGID", f);
	if (m & S_ISVTX)
		fputs("|S_ISVTX", f);
	fprintf(f, "|%#03" PRIo64, m & 0777);
}

void tf_stat(FILE *f, const unsigned char *p)
{
	struct stat st;

	memcpy(&st, p, sizeof(st));
	fputs("{st_mode=", f);
	tf_mode(f, st.st_mode);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		fprintf(f, ", st_rdev=makedev(%#x, %#x)", major(st.st_rdev), minor(st.st_rdev));
	else
		fprintf(f, ", st_size=%lld", (long long)st.st_size);
	fputs(", ...}", f);
}

static const char *const signames[] = {
	NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
	"URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};

/* Print the name of signal @s (1 to 64) without SIG, such as HUP, RTMIN or RT_3. */
static void sig_short(FILE *f, unsigned int s)
{
	if (s < TF_N(signames) && signames[s])
		fputs(signames[s], f);
	else if (s == 32)
		fputs("RTMIN", f);
	else
		fprintf(f, "RT_%u", s - 32);
}

void tf_signal(FILE *f, uint64_t s)
{
	if (s >= 1 && s <= 64) {
		fputs("SIG", f);
		sig_short(f, (unsigned int)s);
	} else {
		fprintf(f, "%" PRIu64, s);
	}
}

/* Print a 64-signal mask as strace does: [INT QUIT], or ~[RTMIN RT_1] when most are set. */
void tf_sigset(FILE *f, const unsigned char *p)
{
	uint64_t m;
	bool first = true, inv;

	memcpy(&m, p, sizeof(m));
	inv = __builtin_popcountll(m) > 32;
	if (inv)
		m = ~m;
	fputs(inv ? "~[" : "[", f);
	for (unsigned int s = 1; s <= 64; s++) {
		if (!(m >> (s - 1) & 1))
			continue;
		if (!first)
			fputc(' ', f);
		sig_short(f, s);
		first = false;
	}
	fputc(']', f);
}

void tf_sigaction(FILE *f, const unsigned char *p)
{
	static const struct tf_name fl[] = {
		{ 0x04000000, "SA_RESTORER" }, { 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
		{ 0x40000000, "SA_NODEFER" }, { 0x80000000, "SA_RESETHAND" }, { 4, "SA_SIGINFO" },
		{ 1, "SA_NOCLDSTOP" }, { 2, "SA_NOCLDWAIT" },
	};
	uint64_t v[3];		/* handler, flags, restorer; then the mask */

	memcpy(v, p, sizeof(v));
	fputs("{sa_handler=", f);
	if (v[0] == 0 || v[0] == 1)
		fputs(v[0] ? "SIG_IGN" : "SIG_DFL", f);
	else
		fprintf(f, "%#" PRIx64, v[0]);
	fputs(", sa_mask=", f);
	tf_sigset(f, p + 24);
	fputs(", sa_flags=", f);
	tf_bits(f, v[1], fl, TF_N(fl), "0");
	if (v[1] & 0x04000000)
		fprintf(f, ", sa_restorer=%#" PRIx64, v[2]);
	fputc('}', f);
}

static const struct tf_name sigprocmask_hows[] = {
	{ 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" },
};

void tf_wait_status(FILE *f, const unsigned char *p)
{
	int s;

	memcpy(&s, p, sizeof(s));
	if ((s & 0x7f) == 0) {
		fprintf(f, "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}]", (s >> 8) & 0xff);
		return;
	}
	if ((s & 0xff) == 0x7f) {
		fputs("[{WIFSTOPPED(s) && WSTOPSIG(s) == ", f);
		tf_signal(f, (unsigned int)(s >> 8) & 0xff);
		fputs("}]", f);
		return;
	}
	fputs("[{WIFSIGNALED(s) && WTERMSIG(s) == ", f);
	tf_signal(f, (unsigned int)s & 0x7f);
	fputs(s & 0x80 ? " && WCOREDUMP(s)}]" : "}]", f);
}

static const struct tf_name wait_options[] = {
	{ 1, "WNOHANG" }, { 2, "WSTOPPED" }, { 4, "WEXITED" }, { 8, "WCONTINUED" },
	{ 0x01000000, "WNOWAIT" }, { 0x20000000, "__WNOTHREAD" }, { 0x40000000, "__WALL" },
	{ 0x80000000, "__WCLONE" },
};

void tf_clone_flags(FILE *f, uint64_t v)
{
	static const struct tf_name m[] = {
		{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
		{ 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" },
		{ 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
		{ 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
		{ 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
		{ 0x400000, "CLONE_DETACHED" }, { 0x800000, "CLONE_UNTRACED" },
		{ 0x1000000, "CLONE_CHILD_SETTID" }, { 0x2000000, "CLONE_NEWCGROUP" },
		{ 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
		{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
		{ 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" },
	};
	uint64_t sig = v & 0xff;

	if (v & ~0xffull)
		tf_bits(f, v & ~0xffull, m, TF_N(m), NULL);
	if (sig) {
		if (v & ~0xffull)
			fputc('|', f);
		tf_signal(f, sig);
	} else if (!(v & ~0xffull)) {
		fputc('0', f);
	}
}

void tf_futex_op(FILE *f, uint64_t v)
{
	static const char *const ops[] = {
		"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
		"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
		"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
		"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
	};
	uint64_t op = v & 0x7f;

	if (op < TF_N(ops))
		fputs(ops[op], f);
	else
		fprintf(f, "%#" PRIx64, op);
	if (v & 128)
		fputs("_PRIVATE", f);
	if (v & 256)
		fputs("|FUTEX_CLOCK_REALTIME", f);
}

static const struct tf_name shutdown_hows[] = {
	{ 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" },
};

static const struct tf_name msg_flags[] = {
	{ 1, "MSG_OOB" }, { 2, "MSG_PEEK" }, { 4, "MSG_DONTROUTE" }, { 8, "MSG_CTRUNC" },
	{ 0x20, "MSG_TRUNC" }, { 0x40, "MSG_DONTWAIT" }, { 0x80, "MSG_EOR" },
	{ 0x100, "MSG_WAITALL" }, { 0x4000, "MSG_NOSIGNAL" }, { 0x8000, "MSG_MORE" },
	{ 0x40000000, "MSG_CMSG_CLOEXEC" },
};

/* Print a protocol: the name strace gives for AF_INET and AF_INET6, else the number. */
void tf_protocol(FILE *f, uint64_t domain, uint64_t p)
{
	static const struct tf_name m[] = {
		{ 0, "IPPROTO_IP" }, { 1, "IPPROTO_ICMP" }, { 6, "IPPROTO_TCP" }, { 17, "IPPROTO_UDP" },
		{ 58, "IPPROTO_ICMPV6" }, { 132, "IPPROTO_SCTP" }, { 262, "IPPROTO_MPTCP" },
	};

	if ((domain == AF_INET || domain == AF_INET6) && tf_one(f, p, m, TF_N(m)))
		return;
	fprintf(f, "%" PRIu64, p);
}

void tf_fcntl_cmd(FILE *f, uint64_t cmd)
{
	static const struct tf_name m[] = {
		{ F_DUPFD, "F_DUPFD" }, { F_GETFD, "F_GETFD" }, { F_SETFD, "F_SETFD" },
		{ F_GETFL, "F_GETFL" }, { F_SETFL, "F_SETFL" }, { F_GETLK, "F_GETLK" },
		{ F_SETLK, "F_SETLK" }, { F_SETLKW, "F_SETLKW" }, { F_SETOWN, "F_SETOWN" },
		{ F_GETOWN, "F_GETOWN" }, { F_SETSIG, "F_SETSIG" }, { F_GETSIG, "F_GETSIG" },
		{ F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC" }, { F_SETPIPE_SZ, "F_SETPIPE_SZ" },
		{ F_GETPIPE_SZ, "F_GETPIPE_SZ" }, { F_SETLEASE, "F_SETLEASE" },
		{ F_GETLEASE, "F_GETLEASE" }, { 37, "F_OFD_GETLK" }, { 38, "F_OFD_SETLK" },
		{ 39, "F_OFD_SETLKW" }, { 1033, "F_ADD_SEALS" }, { 1034, "F_GET_SEALS" },
	};

	if (!tf_one(f, cmd, m, TF_N(m)))
		fprintf(f, "%" PRIu64, cmd);
}

void tf_domain(FILE *f, uint64_t d)
{
	static const struct tf_name m[] = {
		{ AF_UNIX, "AF_UNIX" }, { AF_INET, "AF_INET" }, { AF_INET6, "AF_INET6" },
		{ AF_NETLINK, "AF_NETLINK" }, { AF_PACKET, "AF_PACKET" }, { AF_UNSPEC, "AF_UNSPEC" },
		{ AF_VSOCK, "AF_VSOCK" },
	};

	if (!tf_one(f, d, m, TF_N(m)))
		fprintf(f, "%" PRIu64 " /* AF_??? */", d);
}

void tf_sock_type(FILE *f, uint64_t t)
{
	static const struct tf_name types[] = {
		{ SOCK_STREAM, "SOCK_STREAM" }, { SOCK_DGRAM, "SOCK_DGRAM" }, { SOCK_RAW, "SOCK_RAW" },
		{ SOCK_RDM, "SOCK_RDM" }, { SOCK_SEQPACKET, "SOCK_SEQPACKET" },
		{ SOCK_PACKET, "SOCK_PACKET" },
	};

	if (!tf_one(f, t & 0xf, types, TF_N(types)))
		fprintf(f, "%#" PRIx64 " /* SOCK_??? */", t & 0xf);
	if (t & ~0xfull) {
		fputc('|', f);
		tf_names(f, TF_SOCK_FLAGS, t & ~0xfull);
	}
}

static const struct tf_name sock_flags[] = {
	{ SOCK_CLOEXEC, "SOCK_CLOEXEC" }, { SOCK_NONBLOCK, "SOCK_NONBLOCK" },
};

/*
 * Print a sockaddr as strace does: {sa_family=AF_INET, sin_port=htons(80),
 * sin_addr=inet_addr("127.0.0.1")}.
 */
void tf_sockaddr(FILE *f, const unsigned char *p, size_t len)
{
	struct sockaddr_storage ss = { 0 };
	char buf[INET6_ADDRSTRLEN];

	memcpy(&ss, p, len < sizeof(ss) ? len : sizeof(ss));
	fputs("{sa_family=", f);
	tf_domain(f, ss.ss_family);
	if (ss.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)&ss;

		fprintf(f, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", ntohs(in->sin_port),
			inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf)));
	} else if (ss.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in = (const void *)&ss;

		fprintf(f, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), inet_pton(AF_INET6, "
			"\"%s\", &sin6_addr), sin6_scope_id=%u", ntohs(in->sin6_port),
			ntohl(in->sin6_flowinfo), inet_ntop(AF_INET6, &in->sin6_addr, buf, sizeof(buf)),
			in->sin6_scope_id);
	} else if (ss.ss_family == AF_UNIX && len > 2) {
		const struct sockaddr_un *un = (const void *)&ss;
		size_t n = strnlen(un->sun_path, len - 2);
		bool abstract = !un->sun_path[0] && len > 3;

		fputs(abstract ? ", sun_path=@" : ", sun_path=", f);
		if (abstract)
			n = len - 3;
		tf_quote(f, (const unsigned char *)un->sun_path + abstract, n);
	}
	fputc('}', f);
}

static const struct tf_name statx_mask[] = {
	{ 0x7ff, "STATX_BASIC_STATS" }, { 1, "STATX_TYPE" }, { 2, "STATX_MODE" },
	{ 4, "STATX_NLINK" }, { 8, "STATX_UID" }, { 0x10, "STATX_GID" }, { 0x20, "STATX_ATIME" },
	{ 0x40, "STATX_MTIME" }, { 0x80, "STATX_CTIME" }, { 0x100, "STATX_INO" },
	{ 0x200, "STATX_SIZE" }, { 0x400, "STATX_BLOCKS" }, { 0x800, "STATX_BTIME" },
	{ 0x1000, "STATX_MNT_ID" }, { 0x2000, "STATX_DIOALIGN" }, { 0x4000, "STATX_MNT_ID_UNIQUE" },
};

/* Print statx's flags: the sync type first (AT_STATX_SYNC_AS_STAT is 0), then the AT_ ones. */
void tf_statx_flags(FILE *f, uint64_t v)
{
	static const char *const sync[] = { "AT_STATX_SYNC_AS_STAT", "AT_STATX_FORCE_SYNC",
					    "AT_STATX_DONT_SYNC", "0x6000" };

	fputs(sync[(v >> 13) & 3], f);
	if (v & ~0x6000ull) {
		fputc('|', f);
		tf_names(f, TF_AT_FLAGS, v & ~0x6000ull);
	}
}

void tf_statx(FILE *f, const unsigned char *p)
{
	static const struct tf_name attrs[] = {
		{ 0x4, "STATX_ATTR_COMPRESSED" }, { 0x10, "STATX_ATTR_IMMUTABLE" },
		{ 0x20, "STATX_ATTR_APPEND" }, { 0x40, "STATX_ATTR_NODUMP" },
		{ 0x800, "STATX_ATTR_ENCRYPTED" }, { 0x1000, "STATX_ATTR_AUTOMOUNT" },
		{ 0x2000, "STATX_ATTR_MOUNT_ROOT" }, { 0x100000, "STATX_ATTR_VERITY" },
		{ 0x200000, "STATX_ATTR_DAX" },
	};
	uint32_t mask;
	uint64_t at, size;
	uint16_t mode;

	memcpy(&mask, p, sizeof(mask));
	memcpy(&at, p + 8, sizeof(at));
	memcpy(&mode, p + 28, sizeof(mode));
	memcpy(&size, p + 40, sizeof(size));
	fputs("{stx_mask=", f);
	tf_names(f, TF_STATX_MASK, mask);
	fputs(", stx_attributes=", f);
	tf_bits(f, at, attrs, TF_N(attrs), "0");
	fputs(", stx_mode=", f);
	tf_mode(f, mode);
	fprintf(f, ", stx_size=%" PRIu64 ", ...}", size);
}

static const struct tf_name fadvices[] = {
	{ 0, "POSIX_FADV_NORMAL" }, { 1, "POSIX_FADV_RANDOM" }, { 2, "POSIX_FADV_SEQUENTIAL" },
	{ 3, "POSIX_FADV_WILLNEED" }, { 4, "POSIX_FADV_DONTNEED" }, { 5, "POSIX_FADV_NOREUSE" },
};

static const struct tf_name clockids[] = {
	{ 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" }, { 2, "CLOCK_PROCESS_CPUTIME_ID" },
	{ 3, "CLOCK_THREAD_CPUTIME_ID" }, { 4, "CLOCK_MONOTONIC_RAW" },
	{ 5, "CLOCK_REALTIME_COARSE" }, { 6, "CLOCK_MONOTONIC_COARSE" },
	{ 7, "CLOCK_BOOTTIME" }, { 8, "CLOCK_REALTIME_ALARM" }, { 9, "CLOCK_BOOTTIME_ALARM" },
	{ 11, "CLOCK_TAI" },
};

void tf_close_range_flags(FILE *f, uint64_t v)
{
	static const struct tf_name m[] = { { 2, "CLOSE_RANGE_UNSHARE" }, { 4, "CLOSE_RANGE_CLOEXEC" } };

	v = (uint32_t)v;	/* an unsigned int */
	if (v && !(v & (2 | 4)))
		fprintf(f, "%#" PRIx64 " /* CLOSE_RANGE_??? */", v);
	else
		tf_bits(f, v, m, TF_N(m), "0");
}

static const struct tf_name timer_flags[] = { { 1, "TIMER_ABSTIME" } };

void tf_timespec(FILE *f, const unsigned char *p)
{
	int64_t v[2];

	memcpy(v, p, sizeof(v));
	fprintf(f, "{tv_sec=%" PRId64 ", tv_nsec=%" PRId64 "}", v[0], v[1]);
}

static const struct tf_name epoll_ops[] = {
	{ 1, "EPOLL_CTL_ADD" }, { 2, "EPOLL_CTL_DEL" }, { 3, "EPOLL_CTL_MOD" },
};

static const struct tf_name epoll_flags[] = { { 0x80000, "EPOLL_CLOEXEC" } };

/*
 * Print an epoll_event, 12 bytes packed on x86-64, as {events=EPOLLIN|EPOLLET,
 * data={u32=3, u64=3}}.
 */
void tf_epoll_event(FILE *f, const unsigned char *p)
{
	static const struct tf_name m[] = {
		{ 0x1, "EPOLLIN" }, { 0x2, "EPOLLPRI" }, { 0x4, "EPOLLOUT" }, { 0x8, "EPOLLERR" },
		{ 0x10, "EPOLLHUP" }, { 0x20, "EPOLLNVAL" }, { 0x40, "EPOLLRDNORM" },
		{ 0x80, "EPOLLRDBAND" }, { 0x100, "EPOLLWRNORM" }, { 0x200, "EPOLLWRBAND" },
		{ 0x400, "EPOLLMSG" }, { 0x2000, "EPOLLRDHUP" }, { 1u << 28, "EPOLLEXCLUSIVE" },
		{ 1u << 29, "EPOLLWAKEUP" }, { 1u << 30, "EPOLLONESHOT" }, { 1u << 31, "EPOLLET" },
	};
	uint32_t ev;
	uint64_t data;

	memcpy(&ev, p, sizeof(ev));
	memcpy(&data, p + 4, sizeof(data));
	fputs("{events=", f);
	tf_bits(f, ev, m, TF_N(m), "0");
	fprintf(f, ", data={u32=%" PRIu32 ", u64=%" PRIu64 "}}", (uint32_t)data, data);
}

static const struct tf_name poll_events[] = {
	{ 0x1, "POLLIN" }, { 0x2, "POLLPRI" }, { 0x4, "POLLOUT" }, { 0x8, "POLLERR" },
	{ 0x10, "POLLHUP" }, { 0x20, "POLLNVAL" }, { 0x40, "POLLRDNORM" },
	{ 0x80, "POLLRDBAND" }, { 0x100, "POLLWRNORM" }, { 0x200, "POLLWRBAND" },
	{ 0x400, "POLLMSG" }, { 0x1000, "POLLREMOVE" }, { 0x2000, "POLLRDHUP" },
};

void tf_sockopt_level(FILE *f, uint64_t v)
{
	static const struct tf_name m[] = {
		{ 0, "SOL_IP" }, { 1, "SOL_SOCKET" }, { 6, "SOL_TCP" }, { 17, "SOL_UDP" },
		{ 41, "SOL_IPV6" }, { 255, "SOL_RAW" }, { 263, "SOL_PACKET" }, { 282, "SOL_TLS" },
	};

	if (!tf_one(f, v, m, TF_N(m)))
		fprintf(f, "%#" PRIx64 " /* SOL_??? */", v);
}

/* Print option @v of level @level, by name for SOL_SOCKET and SOL_TCP, else its number. */
void tf_sockopt_name(FILE *f, uint64_t level, uint64_t v)
{
	static const struct tf_name so[] = {
		{ 1, "SO_DEBUG" }, { 2, "SO_REUSEADDR" }, { 3, "SO_TYPE" }, { 4, "SO_ERROR" },
		{ 5, "SO_DONTROUTE" }, { 6, "SO_BROADCAST" }, { 7, "SO_SNDBUF" }, { 8, "SO_RCVBUF" },
		{ 9, "SO_KEEPALIVE" }, { 10, "SO_OOBINLINE" }, { 11, "SO_NO_CHECK" },
		{ 12, "SO_PRIORITY" }, { 13, "SO_LINGER" }, { 14, "SO_BSDCOMPAT" },
		{ 15, "SO_REUSEPORT" }, { 16, "SO_PASSCRED" }, { 17, "SO_PEERCRED" },
		{ 18, "SO_RCVLOWAT" }, { 19, "SO_SNDLOWAT" }, { 20, "SO_RCVTIMEO_OLD" },
		{ 21, "SO_SNDTIMEO_OLD" }, { 25, "SO_BINDTODEVICE" }, { 30, "SO_ACCEPTCONN" },
		{ 32, "SO_SNDBUFFORCE" }, { 33, "SO_RCVBUFFORCE" }, { 38, "SO_PROTOCOL" },
		{ 39, "SO_DOMAIN" }, { 46, "SO_BUSY_POLL" }, { 47, "SO_MAX_PACING_RATE" },
	};
	static const struct tf_name tcp[] = {
		{ 1, "TCP_NODELAY" }, { 2, "TCP_MAXSEG" }, { 3, "TCP_CORK" }, { 4, "TCP_KEEPIDLE" },
		{ 5, "TCP_KEEPINTVL" }, { 6, "TCP_KEEPCNT" }, { 7, "TCP_SYNCNT" }, { 8, "TCP_LINGER2" },
		{ 9, "TCP_DEFER_ACCEPT" }, { 10, "TCP_WINDOW_CLAMP" }, { 11, "TCP_INFO" },
		{ 12, "TCP_QUICKACK" }, { 13, "TCP_CONGESTION" }, { 18, "TCP_USER_TIMEOUT" },
		{ 23, "TCP_FASTOPEN" }, { 25, "TCP_NOTSENT_LOWAT" },
	};

	if (level == 1 && tf_one(f, v, so, TF_N(so)))
		return;
	if (level == 6 && tf_one(f, v, tcp, TF_N(tcp)))
		return;
	fprintf(f, "%" PRIu64, v);
}

/* The sets tf_names() prints, by enum tf_set: flags (tf_bits()) or one value (tf_value()). */
struct tf_set_names {
	const struct tf_name *tab;
	size_t n;
	bool bits;
	const char *none;	/* flags: what 0 is; a value: what an unknown one is called */
};
#define TF_BITS(tab, zero) { tab, TF_N(tab), true, zero }
#define TF_VALUE(tab, unknown) { tab, TF_N(tab), false, unknown }

static const struct tf_set_names sets[TF__SETS] = {
	[TF_PROT] = TF_BITS(prot, "PROT_NONE"),
	[TF_ACCESS] = TF_BITS(access_modes, "F_OK"),
	[TF_AT_FLAGS] = TF_BITS(at_flags, "0"),
	[TF_GRND] = TF_BITS(grnd_flags, "0"),
	[TF_ARCH_PRCTL] = TF_VALUE(arch_prctl_codes, "ARCH_???"),
	[TF_SIGPROCMASK_HOW] = TF_VALUE(sigprocmask_hows, "SIG_???"),
	[TF_WAIT_OPTIONS] = TF_BITS(wait_options, "0"),
	[TF_SHUTDOWN] = TF_VALUE(shutdown_hows, "SHUT_???"),
	[TF_MSG_FLAGS] = TF_BITS(msg_flags, "0"),
	[TF_FADVICE] = TF_VALUE(fadvices, "POSIX_FADV_???"),
	[TF_CLOCKID] = TF_VALUE(clockids, "CLOCK_???"),
	[TF_TIMER_FLAGS] = TF_BITS(timer_flags, "0"),
	[TF_EPOLL_OP] = TF_VALUE(epoll_ops, "EPOLL_CTL_???"),
	[TF_EPOLL_FLAGS] = TF_BITS(epoll_flags, "0"),
	[TF_POLL_EVENTS] = TF_BITS(poll_events, "0"),
	[TF_STATX_MASK] = TF_BITS(statx_mask, "0"),
	[TF_SOCK_FLAGS] = TF_BITS(sock_flags, "0"),
};

void tf_names(FILE *f, enum tf_set set, uint64_t v)
{
	const struct tf_set_names *s = &sets[set];

	if (s->bits)
		tf_bits(f, v, s->tab, s->n, s->none);
	else
		tf_value(f, v, s->tab, s->n, s->none);
}
