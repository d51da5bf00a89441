/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bpf-proto: the fd-identity BPF prototype (lib/bpf/), end to end, with
 * raw perf_event_open() and per-CPU mmap rings laid out as lib/source/rings-open.c
 * lays its own (same attr, same sample layout), so that what works here
 * works there.
 *
 *   bpf-proto facts
 *       checks the kernel behaviours the design rests on, one line each.
 *   bpf-proto demo [--scope cpu|task] [--follow kernel|user] [--io] [--rounds N] [-q]
 *       runs a workload of short-lived processes (< 1 ms each) that opens,
 *       uses and closes files, pipes, FIFOs, unix and TCP/UDP sockets and
 *       passes fds with SCM_RIGHTS, reusing fd numbers; prints every
 *       fd-creating event with its identity from the rings, and checks it
 *       against what the workload itself saw (fstat, getsockname, ...).
 *       Exit 0 only with 0 unknown, 0 wrong, 0 extra.
 *   bpf-proto trace [--mode tp|fdid|io] [--scope cpu|task] [--follow kernel|user]
 *                   [-o FILE] -- CMD [ARGS]
 *       traces CMD like `ipcperf stat` (raw_syscalls filtered to its calls,
 *       sched switch/wakeup/fork/exec/exit, side-band, switch records), plus
 *       the BPF records with --mode fdid (fd-creating exits) or io (and
 *       every read/write exit): the tracer of bench/overhead's proto-* rows.
 *   bpf-proto load [--pair] [--sched] [--sum] [--args] [--io] [--all] [--restricted] [--hold SECS]
 *       loads, attaches and detaches the programs a session would (--pair:
 *       the calls paired; --sched: and the scheduling counted; --sum: and
 *       the read/write calls added up, as live stat has them; --args: and
 *       the calls' user memory and signals, as trace has them; --restricted:
 *       as for a caller that is not root); prints each
 *       program's size and verification (processed insns, time) and the
 *       wall time of each step; --hold keeps them attached (no target) that
 *       long before detaching, to measure what they cost other processes.
 *
 * Needs root (CAP_BPF, CAP_PERFMON); exits 77 when BPF cannot be loaded.
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>
#include "internal.h"
#include "fdid-bpf.h"
#include "syscalls.h"
#include "fd/procfd.h"

#define RING_PAGES IPCPERF_DEFAULT_RING_PAGES
#define MAX_TPS 64

static const char *prog = "bpf-proto";
static bool verbose_lib;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int lib_print(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level <= IPCPERF_INFO || verbose_lib)
		vfprintf(stderr, fmt, ap);
	return 0;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int tp_id(const char *sys, const char *name)
{
	char path[512];
	FILE *f;
	int id = -1;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_tracing_dir(), sys, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/* ------------------------------------------------------------------ rings */

struct ring {
	int fd;		/* the owner: the first event of its CPU */
	int cpu;
	struct perf_event_mmap_page *meta;
	char *data;
	size_t size;
};

/* One sample, parsed (IDENTIFIER | TID | TIME | CPU | RAW). */
struct sample {
	uint64_t id, time;
	pid_t pid, tid;
	int cpu;
	const void *raw;
	uint32_t raw_size;
};

/* The last 32 bytes of every other record (sample_id_all). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

struct tracer;
/* What a tracer's user does with each sample its rings carry (parse_sample()). */
typedef void (*sample_fn)(struct tracer *t, const struct sample *s);

enum scope { SCOPE_CPU, SCOPE_TASK };

struct tracer {
	enum scope scope;
	int nr_cpus;
	struct ring *rings;
	int *fds;
	size_t nr_fds, cap_fds;
	struct ipp_bpf *bpf;
	const uint64_t *bpf_ids;
	size_t nr_bpf_ids;
	sample_fn on_sample;
	void *ctx;
	uint64_t lost;
	uint64_t records;
	bool user_follow;
	pid_t *targets;		/* user following: the target processes */
	size_t nr_targets, cap_targets;
};

/*
 * The array @arr of @n items of @size bytes, room for @cap, with room for
 * one more: doubled (@first items at first) when full. Its new address.
 */
static void *grown(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? 2 * *cap : first;
	arr = realloc(arr, *cap * size);
	if (!arr)
		die("out of memory");
	return arr;
}

static void add_fd(struct tracer *t, int fd)
{
	t->fds = grown(t->fds, t->nr_fds, &t->cap_fds, sizeof(int), 64);
	t->fds[t->nr_fds++] = fd;
}

static void fill_attr(struct perf_event_attr *a, int type, uint64_t config, bool inherit,
		      bool enable_on_exec)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
	a->config = config;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	a->disabled = 1;
	a->inherit = inherit;
	a->enable_on_exec = enable_on_exec;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = RING_PAGES * (unsigned int)sysconf(_SC_PAGESIZE) / 2;
}

static void tracer_init(struct tracer *t, enum scope scope)
{
	memset(t, 0, sizeof(*t));
	t->scope = scope;
	t->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	t->rings = calloc((size_t)t->nr_cpus, sizeof(*t->rings));
	if (!t->rings)
		die("out of memory");
	for (int c = 0; c < t->nr_cpus; c++)
		t->rings[c].fd = -1;
}

/*
 * Open event @a on every CPU, for @pid (task scope) or every task (CPU
 * scope), into the CPU's ring. @return 0, or -errno of the first failure.
 */
static int tracer_add(struct tracer *t, struct perf_event_attr *a, pid_t pid, const char *filter)
{
	for (int c = 0; c < t->nr_cpus; c++) {
		struct ring *r = &t->rings[c];
		int fd = perf_open(a, t->scope == SCOPE_CPU ? -1 : pid, c);

		if (fd < 0)
			return -errno;
		if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		add_fd(t, fd);
		if (r->fd < 0) {
			size_t page = (size_t)sysconf(_SC_PAGESIZE);
			void *base = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
					  MAP_SHARED, fd, 0);

			if (base == MAP_FAILED)
				return -errno;
			r->fd = fd;
			r->cpu = c;
			r->meta = base;
			r->data = (char *)base + page;
			r->size = RING_PAGES * page;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
			return -errno;
		}
	}
	return 0;
}

static int tracer_add_tp(struct tracer *t, const char *sys, const char *name, pid_t pid,
			 bool enable_on_exec, const char *filter)
{
	struct perf_event_attr a;
	int id = tp_id(sys, name);

	if (id < 0)
		return -ENOENT;
	fill_attr(&a, PERF_TYPE_TRACEPOINT, (uint64_t)id, t->scope == SCOPE_TASK, enable_on_exec);
	return tracer_add(t, &a, pid, filter);
}

/* The side-band records (FORK, EXIT, COMM) and, with @switches, the SWITCH records. */
static int tracer_add_dummy(struct tracer *t, pid_t pid, bool enable_on_exec, bool switches)
{
	struct perf_event_attr a;

	fill_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, t->scope == SCOPE_TASK, enable_on_exec);
	if (switches)
		a.context_switch = 1;
	else
		a.comm = a.task = a.comm_exec = 1;
	return tracer_add(t, &a, pid, NULL);
}

static int tracer_attach_bpf(struct tracer *t, struct ipp_bpf *b)
{
	int err;

	t->bpf = b;
	for (int c = 0; c < t->nr_cpus; c++) {
		err = ipp_bpf__set_output(b, c, t->rings[c].fd, CLOCK_MONOTONIC);
		if (err)
			return err;
	}
	t->bpf_ids = ipp_bpf__ids(b, &t->nr_bpf_ids);
	return ipp_bpf__enable(b);
}

static void tracer_enable(struct tracer *t, bool on)
{
	for (size_t i = 0; i < t->nr_fds; i++)
		ioctl(t->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

static void tracer_close(struct tracer *t)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	ipp_bpf__delete(t->bpf);
	t->bpf = NULL;
	for (int c = 0; c < t->nr_cpus; c++)
		if (t->rings[c].meta)
			munmap(t->rings[c].meta, t->rings[c].size + page);
	for (size_t i = 0; i < t->nr_fds; i++)
		close(t->fds[i]);
	free(t->fds);
	free(t->rings);
	free(t->targets);
}

static bool is_bpf_id(const struct tracer *t, uint64_t id)
{
	for (size_t i = 0; i < t->nr_bpf_ids; i++)
		if (t->bpf_ids[i] == id)
			return true;
	return false;
}

/*
 * The tracepoints' layout: IDENTIFIER, TID, TIME, CPU, RAW; the bpf-output
 * events' (ipp_bpf__output_attr) has an IP after the IDENTIFIER.
 */
static bool parse_sample(const struct tracer *t, const struct perf_event_header *h,
			 struct sample *s)
{
	const unsigned char *p = (const unsigned char *)h;
	size_t off;
	uint32_t v;

	if (h->type != PERF_RECORD_SAMPLE || h->size < 44)
		return false;
	memcpy(&s->id, p + 8, 8);
	off = is_bpf_id(t, s->id) ? 24 : 16;
	if (h->size < off + 28)
		return false;
	memcpy(&v, p + off, 4);
	s->pid = (pid_t)v;
	memcpy(&v, p + off + 4, 4);
	s->tid = (pid_t)v;
	memcpy(&s->time, p + off + 8, 8);
	memcpy(&v, p + off + 16, 4);
	s->cpu = (int)v;
	memcpy(&s->raw_size, p + off + 24, 4);
	if (s->raw_size > h->size - (off + 28))
		return false;
	s->raw = p + off + 28;
	return true;
}

static bool is_bpf_sample(const struct tracer *t, const struct sample *s)
{
	return is_bpf_id(t, s->id);
}

static bool is_target(const struct tracer *t, pid_t pid)
{
	for (size_t i = 0; i < t->nr_targets; i++)
		if (t->targets[i] == pid)
			return true;
	return false;
}

static void add_target(struct tracer *t, pid_t pid)
{
	if (is_target(t, pid))
		return;
	t->targets = grown(t->targets, t->nr_targets, &t->cap_targets, sizeof(pid_t), 64);
	t->targets[t->nr_targets++] = pid;
	if (t->bpf)
		ipp_bpf__add_target(t->bpf, pid);
}

/* Userspace following: a target's new process becomes a target when its FORK record is read. */
static void follow(struct tracer *t, const struct perf_event_header *h)
{
	uint32_t f[4];	/* pid, ppid, tid, ptid */

	if (!t->user_follow || h->size < 8 + sizeof(f))
		return;
	memcpy(f, (const char *)h + 8, sizeof(f));
	if (h->type == PERF_RECORD_FORK && f[0] != f[1] && is_target(t, (pid_t)f[1]))
		add_target(t, (pid_t)f[0]);
}

static void ring_read(struct tracer *t, struct ring *r)
{
	static union {
		struct perf_event_header h;
		char b[65536];
	} tmp;
	struct sample s;
	uint64_t head, tail;

	if (!r->meta)
		return;
	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	while (tail < head) {
		size_t off = tail & (r->size - 1);
		const struct perf_event_header *h = (const void *)(r->data + off);

		if (off + h->size > r->size) {
			size_t first = r->size - off;

			memcpy(tmp.b, r->data + off, first);
			memcpy(tmp.b + first, r->data, h->size - first);
			h = &tmp.h;
		}
		if (h->size == 0)
			break;
		t->records++;
		if (h->type == PERF_RECORD_LOST) {
			uint64_t n;

			memcpy(&n, (const char *)h + 16, 8);
			t->lost += n;
		}
		follow(t, h);
		if (t->on_sample && parse_sample(t, h, &s))
			t->on_sample(t, &s);
		tail += h->size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void tracer_read(struct tracer *t)
{
	for (int c = 0; c < t->nr_cpus; c++)
		ring_read(t, &t->rings[c]);
}

static void tracer_wait(struct tracer *t, int ms)
{
	struct pollfd *p = calloc((size_t)t->nr_cpus, sizeof(*p));

	if (!p)
		die("out of memory");
	for (int c = 0; c < t->nr_cpus; c++) {
		p[c].fd = t->rings[c].fd;
		p[c].events = POLLIN;
	}
	poll(p, (nfds_t)t->nr_cpus, ms);
	free(p);
}

/* ------------------------------------------------------------------ held children */

struct held {
	pid_t pid;
	int go;		/* write a byte to release it */
};

/* Fork @fn (or exec @argv), held until held_release(). */
static void held_fork(struct held *h, int (*fn)(void *), void *arg, char **argv)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	h->pid = fork();
	if (h->pid < 0)
		die("fork: %s", strerror(errno));
	if (h->pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(126);
		close(p[0]);
		if (argv) {
			execvp(argv[0], argv);
			fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
			_exit(127);
		}
		_exit(fn(arg));
	}
	close(p[0]);
	h->go = p[1];
}

static void held_release(struct held *h)
{
	if (write(h->go, "g", 1) != 1)
		die("cannot release the workload: %s", strerror(errno));
	close(h->go);
}

/* Wait for the child, reading the rings meanwhile. @return its wait status. */
static int held_wait(struct tracer *t, struct held *h)
{
	int status;

	for (;;) {
		pid_t w = waitpid(h->pid, &status, WNOHANG);

		if (w == h->pid)
			break;
		if (w < 0)
			die("waitpid: %s", strerror(errno));
		tracer_wait(t, 25);
		tracer_read(t);
	}
	/* the last records: the exit path ran before waitpid returned */
	tracer_read(t);
	return status;
}

static struct ipp_bpf *load_bpf(const struct ipp_bpf_opts *o)
{
	struct ipp_bpf *b = ipp_bpf__new(o);

	if (!b) {
		fprintf(stderr, "%s: cannot load the BPF program: %s\n", prog, strerror(errno));
		exit(errno == EPERM || errno == EACCES || errno == ENOENT ? 77 : 1);
	}
	return b;
}

/* ------------------------------------------------------------------ the fd calls the BPF side covers */

static const char *const fd_calls[] = {
	"open", "openat", "openat2", "creat", "socket", "accept", "accept4", "dup", "dup2",
	"dup3", "fcntl", "pipe", "pipe2", "socketpair", "connect", "bind", "recvmsg",
};

static const char *sc_name(int nr)
{
	return ipp_syscall_name_any(nr);
}

/* ================================================================== demo */

/* What the workload knows of each fd it made, written to the truth file. */
struct truth {
	int32_t pid, fd, nr, what;	/* what: IPP_FDID_NEW / UPDATE; 0: a lifetime entry */
	uint32_t kind;			/* enum ipp_fdid_kind */
	uint32_t check;			/* CK_* */
	uint64_t ino, dev, peer_ino;
	uint32_t capacity, cloexec;
	uint16_t family, type, sport, dport;
	uint8_t saddr[16], daddr[16];
	uint64_t life_ns;		/* lifetime entries */
	char path[IPP_FDID_PATH_MAX];
	char label[32];
};
#define CK_PATH 1
#define CK_PEER 2
#define CK_PENDING 4
#define CK_INET 8
#define CK_CAPACITY 16

#define MAX_TRUTH 128

struct wk {
	char dir[200];		/* /tmp/bpf-proto.XXXXXX, real path */
	char shm[200];		/* /dev/shm/bpf-proto.XXXXXX: another mount */
	int truth_fd;
	int rounds;
	bool have_v6;		/* ::1 can be bound here */
	const char *group;	/* what this process does */
	/* per process */
	struct truth t[MAX_TRUTH];
	int n;
	int round;
	uint64_t t0;
};

static struct truth *note(struct wk *w, int fd, int nr, int what, const char *label)
{
	struct truth *e;
	struct stat st;
	int fl;

	if (w->n >= MAX_TRUTH)
		_exit(90);
	e = &w->t[w->n++];
	memset(e, 0, sizeof(*e));
	e->pid = getpid();
	e->fd = fd;
	e->nr = nr;
	e->what = what;
	snprintf(e->label, sizeof(e->label), "%s", label);
	if (fstat(fd, &st) < 0)
		_exit(91);
	e->ino = st.st_ino;
	e->dev = st.st_dev;
	fl = fcntl(fd, F_GETFD);
	e->cloexec = fl >= 0 && (fl & FD_CLOEXEC);
	if (S_ISSOCK(st.st_mode))
		e->kind = IPP_FDID_SOCKET;
	else if (S_ISFIFO(st.st_mode))
		e->kind = IPP_FDID_PIPE;	/* FIFO: callers say */
	else
		e->kind = IPP_FDID_FILE;
	if (S_ISFIFO(st.st_mode)) {
		int sz = fcntl(fd, F_GETPIPE_SZ);

		if (sz > 0) {
			e->capacity = (uint32_t)sz;
			e->check |= CK_CAPACITY;
		}
	}
	return e;
}

static void note_path(struct truth *e, const char *dir, const char *name)
{
	snprintf(e->path, sizeof(e->path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	e->check |= CK_PATH;
}

static uint64_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static void note_inet(struct truth *e, int fd)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);

	memset(&l, 0, sizeof(l));
	memset(&r, 0, sizeof(r));
	if (getsockname(fd, &l.sa, &ll) < 0)
		_exit(92);
	if (getpeername(fd, &r.sa, &rl) < 0)
		memset(&r, 0, sizeof(r));
	e->family = l.sa.sa_family;
	if (l.sa.sa_family == AF_INET) {
		memcpy(e->saddr, &l.in.sin_addr, 4);
		memcpy(e->daddr, &r.in.sin_addr, 4);
		e->sport = ntohs(l.in.sin_port);
		e->dport = ntohs(r.in.sin_port);
	} else {
		memcpy(e->saddr, &l.in6.sin6_addr, 16);
		memcpy(e->daddr, &r.in6.sin6_addr, 16);
		e->sport = ntohs(l.in6.sin6_port);
		e->dport = ntohs(r.in6.sin6_port);
	}
	e->check |= CK_INET;
}

static void flush_truth(struct wk *w)
{
	struct truth *e = &w->t[w->n++];

	memset(e, 0, sizeof(*e));
	e->pid = getpid();
	e->life_ns = now_ns() - w->t0;
	snprintf(e->label, sizeof(e->label), "%s", w->group);
	if (write(w->truth_fd, w->t, (size_t)w->n * sizeof(*e)) != (ssize_t)((size_t)w->n * sizeof(*e)))
		_exit(93);
}

#define CHECK(x) do { if ((x) < 0) _exit(__LINE__ % 200 + 20); } while (0)

/* The calls themselves, not what libc makes of them (its open() is openat, its creat() too). */
static int sys_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_open, path, flags, mode);
}

static int sys_creat(const char *path, mode_t mode)
{
	return (int)syscall(SYS_creat, path, mode);
}

/* A grandchild: takes the fds passed over @sock and describes them. */
static void scm_receiver(struct wk *w, int sock)
{
	char data[8], ctl[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	const char *names[3] = { "scm:file", "scm:pipe", "scm:unix" };
	struct cmsghdr *c;
	int fds[3];

	w->t0 = now_ns();
	w->n = 0;
	w->group = "scm-receiver";
	CHECK(recvmsg(sock, &m, 0));
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(fds)))
		_exit(94);
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	for (int i = 0; i < 3; i++) {
		struct truth *e = note(w, fds[i], SYS_recvmsg, IPP_FDID_NEW, names[i]);

		if (i == 0)
			note_path(e, w->dir, "file-a");
		close(fds[i]);
	}
	flush_truth(w);
	_exit(0);
}

static void unix_server(struct wk *w, int type, const char *what)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int s, c, a;
	char lab[32], buf[4];
	struct truth *e;

	/* abstract name: nothing to clean up */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  (size_t)snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "bpf-proto-%d-%s",
					   (int)getpid(), what));
	CHECK(s = socket(AF_UNIX, type, 0));
	snprintf(lab, sizeof(lab), "%s:listen", what);
	note(w, s, SYS_socket, IPP_FDID_NEW, lab);
	CHECK(bind(s, (struct sockaddr *)&sa, len));
	snprintf(lab, sizeof(lab), "%s:bound", what);
	note(w, s, SYS_bind, IPP_FDID_UPDATE, lab);
	CHECK(listen(s, 4));
	CHECK(c = socket(AF_UNIX, type | SOCK_CLOEXEC, 0));
	snprintf(lab, sizeof(lab), "%s:client", what);
	note(w, c, SYS_socket, IPP_FDID_NEW, lab);
	CHECK(connect(c, (struct sockaddr *)&sa, len));
	/* not accepted yet: its peer is an embryo socket with no inode */
	snprintf(lab, sizeof(lab), "%s:connect", what);
	e = note(w, c, SYS_connect, IPP_FDID_UPDATE, lab);
	e->check |= CK_PENDING;
	CHECK(a = accept4(s, NULL, NULL, SOCK_CLOEXEC));
	snprintf(lab, sizeof(lab), "%s:accepted", what);
	e = note(w, a, SYS_accept4, IPP_FDID_NEW, lab);
	e->peer_ino = ino_of(c);
	e->check |= CK_PEER;
	CHECK(write(c, "ping", 4));
	CHECK(read(a, buf, 4));
	close(a);
	close(c);
	close(s);
}

static void inet_pair(struct wk *w, int family, int type, const char *what)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} sa;
	socklen_t len = family == AF_INET ? sizeof(sa.in) : sizeof(sa.in6);
	char lab[32], buf[4];
	int s, c, a;
	struct truth *e;

	memset(&sa, 0, sizeof(sa));
	sa.sa.sa_family = (sa_family_t)family;
	if (family == AF_INET)
		sa.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		sa.in6.sin6_addr = in6addr_loopback;
	if (family == AF_INET6 && !w->have_v6)
		return;
	CHECK(s = socket(family, type, 0));
	snprintf(lab, sizeof(lab), "%s:%s", what, type == SOCK_STREAM ? "listen" : "bound");
	e = note(w, s, SYS_socket, IPP_FDID_NEW, lab);
	note_inet(e, s);	/* unbound yet, as at the exit of socket() */
	CHECK(bind(s, &sa.sa, len));
	snprintf(lab, sizeof(lab), "%s:bind", what);
	e = note(w, s, SYS_bind, IPP_FDID_UPDATE, lab);
	note_inet(e, s);	/* its address, a port of its own */
	CHECK(getsockname(s, &sa.sa, &len));
	if (type == SOCK_STREAM)
		CHECK(listen(s, 4));
	CHECK(c = socket(family, type, 0));
	snprintf(lab, sizeof(lab), "%s:client", what);
	e = note(w, c, SYS_socket, IPP_FDID_NEW, lab);
	note_inet(e, c);
	CHECK(connect(c, &sa.sa, len));
	snprintf(lab, sizeof(lab), "%s:connect", what);
	e = note(w, c, SYS_connect, IPP_FDID_UPDATE, lab);
	note_inet(e, c);
	if (type == SOCK_STREAM) {
		CHECK(a = (int)syscall(SYS_accept, s, NULL, NULL));
		snprintf(lab, sizeof(lab), "%s:accepted", what);
		e = note(w, a, SYS_accept, IPP_FDID_NEW, lab);
		note_inet(e, a);
		CHECK(write(c, "ping", 4));
		CHECK(read(a, buf, 4));
		close(a);
	}
	close(c);
	close(s);
}

enum group { G_FILES, G_DUPS, G_PIPES, G_PAIRS, G_UNIX, G_TCP, G_TCP6, G_UDP, G_SCM, NR_GROUPS };

/*
 * One short-lived process: one group of fd kinds, every fd closed again so
 * that the next ones reuse the numbers.
 */
static int work_child(struct wk *w, enum group grp)
{
	char path[400], buf[8];
	int fd, d, p[2], sp[2], k;
	struct truth *e;
	struct open_how how = { .flags = O_RDWR | O_CREAT, .mode = 0600 };
	pid_t g;

	static const char *const names[NR_GROUPS] = {
		"files", "dups", "pipes", "socketpairs", "unix", "tcp", "tcp6", "udp", "scm-sender",
	};

	w->t0 = now_ns();
	w->n = 0;
	w->group = names[grp];
	switch (grp) {
	case G_FILES:
		/* absolute, relative to a dirfd, relative to the cwd with "..", a symlink, tmpfs */
		snprintf(path, sizeof(path), "%s/file-a", w->dir);
		CHECK(fd = sys_open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600));
		note_path(note(w, fd, SYS_open, IPP_FDID_NEW, "open"), w->dir, "file-a");
		CHECK(write(fd, "hello", 5));
		close(fd);
		CHECK(d = sys_open(w->dir, O_RDONLY | O_DIRECTORY, 0));
		note_path(note(w, d, SYS_open, IPP_FDID_NEW, "open:dir"), w->dir, NULL);
		CHECK(fd = openat(d, "sub/file-b", O_WRONLY | O_CREAT, 0600));
		note_path(note(w, fd, SYS_openat, IPP_FDID_NEW, "openat:dirfd"), w->dir, "sub/file-b");
		close(fd);
		CHECK(fchdir(d));
		CHECK(chdir("sub"));
		close(d);
		CHECK(fd = openat(AT_FDCWD, "../file-a", O_RDONLY));
		note_path(note(w, fd, SYS_openat, IPP_FDID_NEW, "openat:.."), w->dir, "file-a");
		close(fd);
		CHECK(fd = sys_open("../link-a", O_RDONLY, 0));
		note_path(note(w, fd, SYS_open, IPP_FDID_NEW, "open:symlink"), w->dir, "file-a");
		close(fd);
		snprintf(path, sizeof(path), "%s/file-c", w->shm);
		CHECK(fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how)));
		note_path(note(w, fd, SYS_openat2, IPP_FDID_NEW, "openat2:tmpfs"), w->shm, "file-c");
		close(fd);
		break;
	case G_DUPS:
		snprintf(path, sizeof(path), "%s/file-d", w->dir);
		CHECK(fd = sys_creat(path, 0600));
		note_path(note(w, fd, SYS_creat, IPP_FDID_NEW, "creat"), w->dir, "file-d");
		CHECK(k = dup(fd));
		note_path(note(w, k, SYS_dup, IPP_FDID_NEW, "dup"), w->dir, "file-d");
		close(k);
		/* onto numbers above any the workload inherits (dup3 onto itself is EINVAL) */
		CHECK(k = (int)syscall(SYS_dup2, fd, 120));
		note_path(note(w, k, SYS_dup2, IPP_FDID_NEW, "dup2"), w->dir, "file-d");
		close(k);
		CHECK(k = dup3(fd, 121, O_CLOEXEC));
		note_path(note(w, k, SYS_dup3, IPP_FDID_NEW, "dup3"), w->dir, "file-d");
		close(k);
		CHECK(k = fcntl(fd, F_DUPFD, 130));
		note_path(note(w, k, SYS_fcntl, IPP_FDID_NEW, "F_DUPFD"), w->dir, "file-d");
		close(k);
		CHECK(k = fcntl(fd, F_DUPFD_CLOEXEC, 0));
		note_path(note(w, k, SYS_fcntl, IPP_FDID_NEW, "F_DUPFD_CLOEXEC"), w->dir, "file-d");
		close(k);
		close(fd);
		break;
	case G_PIPES:
		CHECK(pipe2(p, O_CLOEXEC));
		note(w, p[0], SYS_pipe2, IPP_FDID_NEW, "pipe2:r");
		note(w, p[1], SYS_pipe2, IPP_FDID_NEW, "pipe2:w");
		CHECK(write(p[1], "x", 1));
		CHECK(read(p[0], buf, 1));
		close(p[0]);
		close(p[1]);
		CHECK(syscall(SYS_pipe, p));
		note(w, p[0], SYS_pipe, IPP_FDID_NEW, "pipe:r");
		note(w, p[1], SYS_pipe, IPP_FDID_NEW, "pipe:w");
		close(p[0]);
		close(p[1]);
		snprintf(path, sizeof(path), "%s/fifo", w->dir);
		CHECK(fd = sys_open(path, O_RDWR, 0));
		e = note(w, fd, SYS_open, IPP_FDID_NEW, "open:fifo");
		e->kind = IPP_FDID_FIFO;
		note_path(e, w->dir, "fifo");
		close(fd);
		break;
	case G_PAIRS:
		/* each end names the other */
		for (int i = 0; i < 2; i++) {
			int type = i ? SOCK_SEQPACKET : SOCK_STREAM;
			const char *lab = i ? "socketpair:seqpacket" : "socketpair:stream";

			CHECK(socketpair(AF_UNIX, type, 0, sp));
			e = note(w, sp[0], SYS_socketpair, IPP_FDID_NEW, lab);
			e->peer_ino = ino_of(sp[1]);
			e->check |= CK_PEER;
			e = note(w, sp[1], SYS_socketpair, IPP_FDID_NEW, lab);
			e->peer_ino = ino_of(sp[0]);
			e->check |= CK_PEER;
			CHECK(write(sp[0], "ab", 2));
			CHECK(read(sp[1], buf, 2));
			close(sp[0]);
			close(sp[1]);
		}
		break;
	case G_UNIX:
		unix_server(w, SOCK_STREAM, "unix-stream");
		unix_server(w, SOCK_SEQPACKET, "unix-seqpacket");
		break;
	case G_TCP:
		inet_pair(w, AF_INET, SOCK_STREAM, "tcp");
		break;
	case G_TCP6:
		inet_pair(w, AF_INET6, SOCK_STREAM, "tcp6");
		break;
	case G_UDP:
		inet_pair(w, AF_INET, SOCK_DGRAM, "udp");
		break;
	case G_SCM:
		/* to a grandchild: a file, a pipe's read end, a unix socket */
		CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp));
		note(w, sp[0], SYS_socketpair, IPP_FDID_NEW, "scm:pair");
		note(w, sp[1], SYS_socketpair, IPP_FDID_NEW, "scm:pair");
		g = fork();
		if (g < 0)
			_exit(96);
		if (g == 0) {
			close(sp[0]);
			scm_receiver(w, sp[1]);
		}
		close(sp[1]);
		snprintf(path, sizeof(path), "%s/file-a", w->dir);
		CHECK(fd = sys_open(path, O_RDONLY, 0));
		note_path(note(w, fd, SYS_open, IPP_FDID_NEW, "open"), w->dir, "file-a");
		CHECK(pipe2(p, 0));
		note(w, p[0], SYS_pipe2, IPP_FDID_NEW, "pipe2:r");
		note(w, p[1], SYS_pipe2, IPP_FDID_NEW, "pipe2:w");
		{
			int fds[3] = { fd, p[0], sp[0] };
			char ctl[CMSG_SPACE(sizeof(fds))];
			struct iovec iov = { .iov_base = "f", .iov_len = 1 };
			struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
					    .msg_controllen = sizeof(ctl) };
			struct cmsghdr *c = CMSG_FIRSTHDR(&m);

			memset(ctl, 0, sizeof(ctl));
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(fds));
			memcpy(CMSG_DATA(c), fds, sizeof(fds));
			CHECK(sendmsg(sp[0], &m, 0));
		}
		close(fd);
		close(p[0]);
		close(p[1]);
		close(sp[0]);
		flush_truth(w);
		/* the grandchild is reaped by the root, which waits for every process */
		return 0;
	default:
		break;
	}
	flush_truth(w);
	return 0;
}

/*
 * The workload's root: for each round, one child per group, one after the
 * other (a new process every few hundred microseconds, each gone before the
 * rings are read), and the SCM_RIGHTS group's grandchildren.
 */
static int work_root(void *arg)
{
	struct wk *w = arg;

	/* the SCM_RIGHTS receivers outlive their parents: they come back to us */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (int i = 0; i < w->rounds; i++)
		for (int grp = 0; grp < NR_GROUPS; grp++) {
			int st;
			pid_t c = fork();

			if (c < 0)
				return 2;
			if (c == 0) {
				w->round = i;
				_exit(work_child(w, (enum group)grp));
			}
			if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "%s: workload child %d failed (status 0x%x)\n", prog,
					grp, st);
				return 3;
			}
		}
	while (wait(NULL) > 0)
		;
	return 0;
}

/* A record, as the demo keeps it. */
struct got {
	struct ipp_fdid_rec rec;
	uint64_t time;
	int cpu;
	bool used;
	int next_exit_nr;	/* nr of the sys_exit sample of the same tid next to it in the ring; -1 none */
	size_t seq;		/* order read */
};

static int by_time(const void *a, const void *b)
{
	const struct got *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct demo {
	struct got *g;
	size_t n, cap;
	int exit_tp_ids[IPP_ARRAY_SIZE(fd_calls)];
	/* the records of each ring still waiting for their tid's next sys_exit */
	size_t pending[256];
	size_t nr_pending;
	/* each thread's last fd sys_exit sample, for the records that come just after it */
	struct last_exit {
		pid_t tid;
		int cpu, nr;
		int64_t ret;
		bool early;	/* it took records that came before it: later ones are the next call's */
	} last[256];
	size_t nr_last;
	size_t before, after;
	uint64_t io_records, io_bad, other_samples;
	struct tracer *t;
};

/* Thread @tid's slot in d->last, or NULL. */
static struct last_exit *last_exit_find(struct demo *d, pid_t tid)
{
	for (size_t i = 0; i < d->nr_last; i++)
		if (d->last[i].tid == tid)
			return &d->last[i];
	return NULL;
}

static bool tp_is_fd_exit(const struct demo *d, int common_type)
{
	for (size_t i = 0; i < IPP_ARRAY_SIZE(fd_calls); i++)
		if (d->exit_tp_ids[i] == common_type)
			return true;
	return false;
}

/* Thread @tid's slot in d->last: a new one if it has none, NULL when they are all taken. */
static struct last_exit *last_exit_of(struct demo *d, pid_t tid)
{
	struct last_exit *l = last_exit_find(d, tid);

	if (!l && d->nr_last < IPP_ARRAY_SIZE(d->last))
		l = &d->last[d->nr_last++];
	return l;
}

/* Whether record @rec comes just after the sys_exit sample of its own call, on @cpu. */
static bool after_exit(struct demo *d, const struct ipp_fdid_rec *rec, uint32_t cpu)
{
	const struct last_exit *l = last_exit_find(d, rec->tid);

	return l && !l->early && l->cpu == (int)cpu && l->nr == rec->nr && l->ret == rec->ret;
}

static void demo_record(struct tracer *t, const struct sample *s)
{
	struct demo *d = t->ctx;

	if (is_bpf_sample(t, s)) {
		struct ipp_fdid_rec rec;
		struct got *g;

		if (ipp_fdid_rec__parse(s->raw, s->raw_size, &rec) < 0) {
			fprintf(stderr, "%s: bad record of %u bytes\n", prog, s->raw_size);
			return;
		}
		if (rec.what == IPP_FDID_IO)
			d->io_records++;
		d->g = grown(d->g, d->n, &d->cap, sizeof(*d->g), 1024);
		g = &d->g[d->n];
		memset(g, 0, sizeof(*g));
		g->rec = rec;
		g->time = s->time;
		g->cpu = s->cpu;
		g->next_exit_nr = -1;
		if (rec.what != IPP_FDID_IO && after_exit(d, &rec, s->cpu)) {
			g->next_exit_nr = rec.nr;
			d->after++;
		} else if (rec.what != IPP_FDID_IO && d->nr_pending < IPP_ARRAY_SIZE(d->pending)) {
			d->pending[d->nr_pending++] = d->n;
		}
		d->n++;
		return;
	}
	if (s->raw_size >= 24) {
		uint16_t type;
		int32_t nr;

		memcpy(&type, s->raw, 2);
		memcpy(&nr, (const char *)s->raw + 8, 4);
		if (tp_is_fd_exit(d, type)) {
			struct last_exit *l = last_exit_of(d, s->tid);

			if (l) {
				*l = (struct last_exit){ .tid = s->tid, .cpu = (int)s->cpu, .nr = nr };
				if (s->raw_size >= 24)
					memcpy(&l->ret, (const char *)s->raw + 16, 8);
			}
			/* the records written just before, in this ring, by this thread */
			for (size_t i = 0; i < d->nr_pending;) {
				struct got *g = &d->g[d->pending[i]];

				if (g->rec.tid == s->tid && g->cpu == s->cpu && g->time <= s->time) {
					g->next_exit_nr = nr;
					d->before++;
					if (l)
						l->early = true;
					d->pending[i] = d->pending[--d->nr_pending];
				} else {
					i++;
				}
			}
			return;
		}
	}
	d->other_samples++;
}

static void setup_dirs(struct wk *w)
{
	char tmpl[] = "/tmp/bpf-proto.XXXXXX", shm[] = "/dev/shm/bpf-proto.XXXXXX";
	char path[400];
	char *real;

	if (!mkdtemp(tmpl) || !mkdtemp(shm))
		die("mkdtemp: %s", strerror(errno));
	real = realpath(tmpl, NULL);
	snprintf(w->dir, sizeof(w->dir), "%s", real);
	free(real);
	real = realpath(shm, NULL);
	snprintf(w->shm, sizeof(w->shm), "%s", real);
	free(real);
	snprintf(path, sizeof(path), "%s/sub", w->dir);
	if (mkdir(path, 0700) < 0)
		die("mkdir: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/fifo", w->dir);
	if (mkfifo(path, 0600) < 0)
		die("mkfifo: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/link-a", w->dir);
	if (symlink("file-a", path) < 0)
		die("symlink: %s", strerror(errno));
}

static bool can_bind_v6(void)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;

	if (s >= 0)
		close(s);
	return ok;
}

static void cleanup_dirs(const struct wk *w)
{
	static const char *const names[] = {
		"sub/file-b", "sub", "fifo", "link-a", "file-a", "file-d", "truth",
	};
	char path[400];

	for (size_t i = 0; i < IPP_ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", w->dir, names[i]);
		if (unlink(path) < 0)
			rmdir(path);
	}
	rmdir(w->dir);
	snprintf(path, sizeof(path), "%s/file-c", w->shm);
	unlink(path);
	rmdir(w->shm);
}

static const char *kind_name(unsigned int k)
{
	static const char *const n[] = { "nofile", "file", "fifo", "pipe", "socket", "anon" };

	return k < IPP_ARRAY_SIZE(n) ? n[k] : "?";
}

static void describe(const struct ipp_fdid_rec *r, char *buf, size_t len)
{
	struct ipp_fdid id;
	char l[80] = "", rm[80] = "";

	if (ipp_fdid_rec__to_fdid(r, &id) < 0) {
		snprintf(buf, len, "%s ino %" PRIu64, kind_name(r->kind), (uint64_t)r->ino);
		return;
	}
	if (id.kind == IPCPERF_FD_TCP || id.kind == IPCPERF_FD_UDP) {
		ipp_sockaddr_str(&id.local, l, sizeof(l));
		ipp_sockaddr_str(&id.remote, rm, sizeof(rm));
		snprintf(buf, len, "%s %s %s -> %s", ipcperf_fd_kind_name(id.kind), id.object, l,
			 *rm ? rm : "-");
	} else if (id.kind == IPCPERF_FD_UNIX) {
		snprintf(buf, len, "unix %s type %d peer %s%" PRIu64, id.object, id.type,
			 r->flags & IPP_FDID_F_PEER_PENDING ? "pending " : "", id.peer_ino);
	} else if (r->kind == IPP_FDID_PIPE || r->kind == IPP_FDID_FIFO) {
		snprintf(buf, len, "%s %s capacity %u", ipcperf_fd_kind_name(id.kind), id.object, r->capacity);
	} else {
		snprintf(buf, len, "%s %s ino %" PRIu64 " dev %u:%u", ipcperf_fd_kind_name(id.kind),
			 id.object, (uint64_t)r->ino, major(r->dev), minor(r->dev));
	}
}

/* Compare one truth entry with its record; @why gets the first difference. */
static bool same(const struct truth *e, const struct ipp_fdid_rec *r, char *why, size_t len)
{
#define DIFF(cond, ...) do { if (cond) { snprintf(why, len, __VA_ARGS__); return false; } } while (0)
	DIFF(r->kind != e->kind, "kind %s, truth %s", kind_name(r->kind), kind_name(e->kind));
	DIFF(r->nr != e->nr, "call %s, truth %s", sc_name(r->nr), sc_name(e->nr));
	DIFF(r->ino != e->ino, "ino %" PRIu64 ", truth %" PRIu64, (uint64_t)r->ino, e->ino);
	DIFF(r->dev != e->dev, "dev %#" PRIx64 ", truth %#" PRIx64, (uint64_t)r->dev, e->dev);
	DIFF(!!(r->flags & IPP_FDID_F_CLOEXEC) != !!e->cloexec, "cloexec %d, truth %u",
	     !!(r->flags & IPP_FDID_F_CLOEXEC), e->cloexec);
	DIFF((e->check & CK_PATH) && strcmp(r->path, e->path), "path '%s', truth '%s'", r->path,
	     e->path);
	DIFF((e->check & CK_PEER) && r->peer_ino != e->peer_ino,
	     "peer %" PRIu64 ", truth %" PRIu64, (uint64_t)r->peer_ino, e->peer_ino);
	DIFF((e->check & CK_PENDING) && !(r->flags & IPP_FDID_F_PEER_PENDING),
	     "peer %" PRIu64 " not pending", (uint64_t)r->peer_ino);
	DIFF((e->check & CK_CAPACITY) && r->capacity != e->capacity, "capacity %u, truth %u",
	     r->capacity, e->capacity);
	if (e->check & CK_INET) {
		size_t alen = e->family == AF_INET ? 4 : 16;

		DIFF(r->family != e->family, "family %u, truth %u", r->family, e->family);
		DIFF(r->sport != e->sport || r->dport != e->dport, "ports %u->%u, truth %u->%u",
		     r->sport, r->dport, e->sport, e->dport);
		DIFF(memcmp(r->saddr, e->saddr, alen) || memcmp(r->daddr, e->daddr, alen),
		     "addresses differ");
	}
	return true;
#undef DIFF
}

/* The longest lifetime in truth file @path, and how many processes it has. */
static uint64_t truth_life_max(const char *path, size_t *n, size_t *n_short)
{
	struct truth e;
	uint64_t m = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*n = *n_short = 0;
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	while (read(fd, &e, sizeof(e)) == (ssize_t)sizeof(e))
		if (!e.what) {
			m = e.life_ns > m ? e.life_ns : m;
			(*n)++;
			*n_short += e.life_ns < 1000000;
		}
	close(fd);
	return m;
}

static int cmd_demo(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "scope", required_argument, NULL, 's' }, { "follow", required_argument, NULL, 'f' },
		{ "io", no_argument, NULL, 'i' }, { "rounds", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	enum scope scope = SCOPE_CPU;
	bool user_follow = false, io = false, quiet = false;
	struct tracer t;
	struct demo d;
	struct held h;
	struct wk *w;
	struct truth *truth;
	size_t nt = 0, matched = 0, unknown = 0, wrong = 0, extra = 0, ordered = 0, records = 0;
	size_t io_ok = 0, io_bad = 0, io_inherited = 0, lives_short = 0;
	uint64_t life_max = 0, life_sum = 0, st[IPP_FDID_NR_STATS];
	size_t lives = 0;
	char path[400];
	int c, status, err;

	while ((c = getopt_long(argc, argv, "q", lo, NULL)) != -1) {
		switch (c) {
		case 's': scope = !strcmp(optarg, "task") ? SCOPE_TASK : SCOPE_CPU; break;
		case 'f': user_follow = !strcmp(optarg, "user"); break;
		case 'i': io = true; break;
		case 'r': break;
		case 'q': quiet = true; break;
		default: return 2;
		}
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		die("out of memory");
	w->rounds = 5;
	optind = 1;
	while ((c = getopt_long(argc, argv, "q", lo, NULL)) != -1)
		if (c == 'r')
			w->rounds = atoi(optarg);
	setup_dirs(w);
	w->have_v6 = can_bind_v6();
	snprintf(path, sizeof(path), "%s/truth", w->dir);
	w->truth_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (w->truth_fd < 0)
		die("%s: %s", path, strerror(errno));

	/* the same workload untraced first: how long its processes live without us */
	{
		uint64_t umax = 0;
		pid_t u = fork();
		int ust;

		if (u == 0)
			_exit(work_root(w));
		if (u < 0 || waitpid(u, &ust, 0) != u || !WIFEXITED(ust) || WEXITSTATUS(ust))
			die("the untraced workload failed");
		umax = truth_life_max(path, &lives, &lives_short);
		printf("untraced: %zu processes (%zu lived under 1 ms), lifetime max %.3f ms\n", lives,
		       lives_short, umax / 1e6);
		lives_short = 0;
		lives = 0;
		if (ftruncate(w->truth_fd, 0) < 0)
			die("ftruncate: %s", strerror(errno));
	}

	IPP_BPF_OPTS(o, .user_follow = user_follow, .io_records = io);
	struct ipp_bpf *b = load_bpf(&o);

	memset(&d, 0, sizeof(d));
	tracer_init(&t, scope);
	t.ctx = &d;
	t.on_sample = demo_record;
	t.user_follow = user_follow;
	d.t = &t;
	held_fork(&h, work_root, w, NULL);
	for (size_t i = 0; i < IPP_ARRAY_SIZE(fd_calls); i++) {
		char name[64];

		snprintf(name, sizeof(name), "sys_exit_%s", fd_calls[i]);
		d.exit_tp_ids[i] = tp_id("syscalls", name);
		if (d.exit_tp_ids[i] < 0)
			continue;
		err = tracer_add_tp(&t, "syscalls", name, h.pid, false, NULL);
		if (err)
			die("cannot open syscalls:%s: %s", name, strerror(-err));
	}
	err = tracer_add_dummy(&t, h.pid, false, false);
	if (err)
		die("cannot open the side-band event: %s", strerror(-err));
	add_target(&t, h.pid);
	ipp_bpf__add_target(b, h.pid);
	err = tracer_attach_bpf(&t, b);
	if (err)
		die("cannot attach the BPF program (scope %s): %s", scope == SCOPE_CPU ? "cpu" : "task",
		    strerror(-err));
	tracer_enable(&t, true);
	held_release(&h);
	status = held_wait(&t, &h);
	tracer_enable(&t, false);
	tracer_read(&t);
	ipp_bpf__stats(b, st);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the workload failed (status 0x%x)", status);

	/* the truth */
	{
		struct stat sb;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &sb) < 0)
			die("%s: %s", path, strerror(errno));
		truth = malloc((size_t)sb.st_size + 1);
		if (!truth || read(fd, truth, (size_t)sb.st_size) != sb.st_size)
			die("cannot read the truth");
		nt = (size_t)sb.st_size / sizeof(*truth);
		close(fd);
	}

	/* the rings are read one CPU after the other: merge them by time, as the session does */
	for (size_t k = 0; k < d.n; k++)
		d.g[k].seq = k;
	qsort(d.g, d.n, sizeof(*d.g), by_time);
	/* every truth entry with the first unused record of its (pid, fd), in order */
	for (size_t i = 0; i < nt; i++) {
		const struct truth *e = &truth[i];
		struct got *g = NULL;
		char desc[400], why[400];

		if (!e->what) {
			life_max = e->life_ns > life_max ? e->life_ns : life_max;
			life_sum += e->life_ns;
			lives++;
			lives_short += e->life_ns < 1000000;
			if (!quiet)
				printf("pid %-6d %-14s lived %.3f ms\n", e->pid, e->label, e->life_ns / 1e6);
			continue;
		}
		for (size_t k = 0; k < d.n; k++)
			if (!d.g[k].used && d.g[k].rec.pid == e->pid && d.g[k].rec.fd == e->fd &&
			    d.g[k].rec.nr == e->nr && d.g[k].rec.what == e->what) {
				g = &d.g[k];
				break;
			}
		if (!g) {
			unknown++;
			printf("pid %-6d fd %-3d %-22s UNKNOWN: no record\n", e->pid, e->fd, e->label);
			continue;
		}
		g->used = true;
		records++;
		if (g->next_exit_nr == g->rec.nr)
			ordered++;
		describe(&g->rec, desc, sizeof(desc));
		if (g->rec.kind == IPP_FDID_NOFILE) {
			unknown++;
			printf("pid %-6d fd %-3d %-22s UNKNOWN: fd was gone\n", e->pid, e->fd, e->label);
		} else if (!same(e, &g->rec, why, sizeof(why))) {
			wrong++;
			printf("pid %-6d fd %-3d %-22s %-7s %s  WRONG: %s\n", e->pid, e->fd, e->label,
			       sc_name(g->rec.nr), desc, why);
		} else {
			matched++;
			if (!quiet)
				printf("pid %-6d fd %-3d %-22s %-10s %-6s %s\n", e->pid, e->fd, e->label,
				       sc_name(g->rec.nr), ipp_fdid_rec__what_name(g->rec.what), desc);
		}
	}
	/*
	 * IO records: the inode each read/write used is that of the last fd
	 * event of its (pid, fd) before it, or of an fd the process had from
	 * before (inherited: the truth file, the release pipe).
	 */
	for (size_t k = 0; k < d.n; k++) {
		const struct ipp_fdid_rec *use = &d.g[k].rec;

		if (use->what != IPP_FDID_IO)
			continue;
		d.g[k].used = true;
		for (size_t j = k; j-- > 0;) {
			const struct ipp_fdid_rec *prev = &d.g[j].rec;

			if (prev->what == IPP_FDID_IO || prev->pid != use->pid || prev->fd != use->fd)
				continue;
			if (prev->ino == use->ino && prev->dev == use->dev)
				io_ok++;
			else
				io_bad++;
			goto next_io;
		}
		io_inherited++;
next_io:;
	}
	for (size_t k = 0; k < d.n; k++) {
		char desc[400];

		if (d.g[k].used)
			continue;
		extra++;
		describe(&d.g[k].rec, desc, sizeof(desc));
		printf("pid %-6d fd %-3d %-22s %-10s EXTRA: %s\n", d.g[k].rec.pid, d.g[k].rec.fd, "?",
		       sc_name(d.g[k].rec.nr), desc);
	}
	printf("scope %s, follow %s%s: %zu fd events known to the workload, %zu matched, "
	       "%zu unknown, %zu wrong, %zu extra\n",
	       scope == SCOPE_CPU ? "cpu" : "task", user_follow ? "user" : "kernel",
	       io ? ", io records" : "", nt - lives, matched, unknown, wrong, extra);
	if (io)
		printf("io records: %zu name the inode of their fd's last fd event, %zu differ, "
		       "%zu on fds from before the process\n", io_ok, io_bad, io_inherited);
	printf("order: %zu of %zu records came next to the sys_exit sample of their call "
	       "in the same ring (%zu just before it, %zu just after)\n", ordered, records,
	       d.before, d.after);
	printf("processes: %zu (%zu lived under 1 ms), lifetime max %.3f ms, mean %.3f ms\n",
	       lives, lives_short, life_max / 1e6, lives ? life_sum / 1e6 / (double)lives : 0.0);
	printf("bpf: emitted %" PRIu64 ", ring full %" PRIu64 ", fd gone %" PRIu64
	       ", paths cut %" PRIu64 ", children followed %" PRIu64 ", targets gone %" PRIu64
	       "; io records %" PRIu64 "; lost %" PRIu64 "\n",
	       st[IPP_FDID_ST_EMITTED], st[IPP_FDID_ST_OUT_FAIL], st[IPP_FDID_ST_NOFILE],
	       st[IPP_FDID_ST_TRUNC], st[IPP_FDID_ST_CHILDREN], st[IPP_FDID_ST_GONE], d.io_records,
	       t.lost);
	tracer_close(&t);
	close(w->truth_fd);
	cleanup_dirs(w);
	free(truth);
	free(d.g);
	free(w);
	return unknown || wrong || extra || io_bad || ordered != records ? 1 : 0;
}

/* ================================================================== trace (for bench/overhead) */

struct tstat {
	pid_t pid;
	uint64_t writes, reads;
};

struct traced {
	int raw_exit_id;
	int nr_write, nr_read;
	struct tstat p[64];
	size_t np;
	uint64_t fdid, io, samples;
};

static void trace_record(struct tracer *t, const struct sample *s)
{
	struct traced *x = t->ctx;

	x->samples++;
	if (is_bpf_sample(t, s)) {
		struct ipp_fdid_rec rec;

		if (ipp_fdid_rec__parse(s->raw, s->raw_size, &rec) == 0) {
			if (rec.what == IPP_FDID_IO)
				x->io++;
			else
				x->fdid++;
		}
		return;
	}
	if (s->raw_size >= 24) {
		uint16_t type;
		int64_t id;
		size_t i;

		memcpy(&type, s->raw, 2);
		if (type != x->raw_exit_id)
			return;
		memcpy(&id, (const char *)s->raw + 8, 8);
		if (id != x->nr_write && id != x->nr_read)
			return;
		for (i = 0; i < x->np && x->p[i].pid != s->pid; i++)
			;
		if (i == x->np) {
			if (x->np == IPP_ARRAY_SIZE(x->p))
				return;
			x->p[x->np++].pid = s->pid;
		}
		if (id == x->nr_write)
			x->p[i].writes++;
		else
			x->p[i].reads++;
	}
}

/* One line per program that ran (kernel.bpf_stats_enabled=1 counts them). */
static int print_prog(void *ctx, const char *name, uint64_t runs, uint64_t ns)
{
	if (runs)
		fprintf(ctx, "bpf program %-18s runs %10" PRIu64 "  %7.1f ns each\n", name, runs,
			(double)ns / (double)runs);
	return 0;
}

/* "id == 0 || id == 1 || ...": the calls ipcperf stat takes from raw_syscalls. */
static char *raw_filter(void)
{
	size_t cap = 64 * ipp_nr_syscalls, len = 0;
	char *f = malloc(cap);

	if (!f)
		die("out of memory");
	f[0] = '\0';
	for (size_t i = 0; i < ipp_nr_syscalls; i++)
		if (ipp_syscalls[i].nr >= 0 && (ipp_syscalls[i].set & (IPCPERF_EV_IO | IPCPERF_EV_FDS)))
			len += (size_t)snprintf(f + len, cap - len, "%sid == %d", len ? " || " : "",
						ipp_syscalls[i].nr);
	return f;
}

static int cmd_trace(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", required_argument, NULL, 'm' }, { "scope", required_argument, NULL, 's' },
		{ "follow", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const sched[] = {
		"sched_switch", "sched_wakeup", "sched_process_fork", "sched_process_exec",
		"sched_process_exit",
	};
	enum scope scope = SCOPE_CPU;
	const char *mode = "tp", *out = NULL;
	bool user_follow = false;
	struct tracer t;
	struct traced x;
	struct held h;
	char *filter;
	FILE *o;
	int c, err, status;
	bool eoe;

	while ((c = getopt_long(argc, argv, "+o:", lo, NULL)) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 's': scope = !strcmp(optarg, "task") ? SCOPE_TASK : SCOPE_CPU; break;
		case 'f': user_follow = !strcmp(optarg, "user"); break;
		case 'o': out = optarg; break;
		default: return 2;
		}
	}
	if (optind >= argc || (strcmp(mode, "tp") && strcmp(mode, "fdid") && strcmp(mode, "io")))
		die("usage: %s trace [--mode tp|fdid|io] [--scope cpu|task] [-o FILE] -- CMD [ARGS]", prog);
	memset(&x, 0, sizeof(x));
	x.raw_exit_id = tp_id("raw_syscalls", "sys_exit");
	x.nr_write = SYS_write;
	x.nr_read = SYS_read;
	tracer_init(&t, scope);
	t.ctx = &x;
	t.on_sample = trace_record;
	t.user_follow = user_follow;
	held_fork(&h, NULL, NULL, argv + optind);
	eoe = scope == SCOPE_TASK;
	filter = raw_filter();
	if ((err = tracer_add_tp(&t, "raw_syscalls", "sys_enter", h.pid, eoe, filter)) ||
	    (err = tracer_add_tp(&t, "raw_syscalls", "sys_exit", h.pid, eoe, filter)))
		die("cannot open raw_syscalls: %s", strerror(-err));
	free(filter);
	for (size_t i = 0; i < IPP_ARRAY_SIZE(sched); i++)
		if ((err = tracer_add_tp(&t, "sched", sched[i], h.pid, eoe, NULL)))
			die("cannot open sched:%s: %s", sched[i], strerror(-err));
	if ((err = tracer_add_dummy(&t, h.pid, eoe, false)) ||
	    (err = tracer_add_dummy(&t, h.pid, eoe, true)))
		die("cannot open the dummy events: %s", strerror(-err));
	add_target(&t, h.pid);
	if (strcmp(mode, "tp")) {
		IPP_BPF_OPTS(bo, .user_follow = user_follow, .io_records = !strcmp(mode, "io"));
		struct ipp_bpf *b = load_bpf(&bo);

		ipp_bpf__add_target(b, h.pid);
		if ((err = tracer_attach_bpf(&t, b)))
			die("cannot attach the BPF program: %s", strerror(-err));
	}
	if (scope == SCOPE_CPU)
		tracer_enable(&t, true);
	held_release(&h);
	status = held_wait(&t, &h);
	tracer_enable(&t, false);
	tracer_read(&t);
	o = out ? fopen(out, "we") : stdout;
	if (!o)
		die("%s: %s", out, strerror(errno));
	for (size_t i = 0; i < x.np; i++)
		fprintf(o, "pid %d writes %" PRIu64 " reads %" PRIu64 "\n", x.p[i].pid, x.p[i].writes,
			x.p[i].reads);
	fprintf(o, "samples %" PRIu64 ", fdid records %" PRIu64 ", io records %" PRIu64 "\n",
		x.samples, x.fdid, x.io);
	fprintf(o, "lost events: %" PRIu64 "\n", t.lost);
	if (t.bpf)
		ipp_bpf__for_each_prog(t.bpf, print_prog, o);
	if (out)
		fclose(o);
	tracer_close(&t);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ================================================================== facts */

static int facts_failed;

static void fact(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	facts_failed += !ok;
}

/* How many opens, on which CPU (sysconf() itself opens a file: asked before the fork). */
struct opener_arg {
	int n, cpu;
};

static int opener(void *arg)
{
	const struct opener_arg *oa = arg;
	int n = oa->n;
	cpu_set_t set;

	/* on the last CPU: the calls are another task's, elsewhere than the tracer */
	CPU_ZERO(&set);
	CPU_SET(oa->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int i = 0; i < n; i++) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}

struct fcount {
	uint64_t fdid, exits, ordered;
	int exit_id;
	pid_t pid;
	int last_fdid_cpu;	/* a record not yet next to its exit sample, on this CPU; -1 none */
	int last_exit_cpu;	/* an exit sample not yet next to its record, on this CPU; -1 none */
};

static void facts_record(struct tracer *t, const struct sample *s)
{
	struct fcount *f = t->ctx;
	uint16_t type;

	if (s->pid != f->pid)
		return;
	/* a record and its call's exit sample next to each other, in either order */
	if (is_bpf_sample(t, s)) {
		f->fdid++;
		if (f->last_exit_cpu == s->cpu)
			f->ordered++;
		f->last_fdid_cpu = f->last_exit_cpu == s->cpu ? -1 : s->cpu;
		f->last_exit_cpu = -1;
		return;
	}
	memcpy(&type, s->raw, 2);
	if (type == f->exit_id) {
		f->exits++;
		if (f->last_fdid_cpu == s->cpu)
			f->ordered++;
		f->last_exit_cpu = f->last_fdid_cpu == s->cpu ? -1 : s->cpu;
		f->last_fdid_cpu = -1;
	}
}

/* Run @n opens in a new process under tracepoint sys_exit_openat (@scope) and the BPF program. */
static struct fcount facts_run(enum scope scope, int n)
{
	struct fcount f = { .last_fdid_cpu = -1, .last_exit_cpu = -1 };
	struct opener_arg oa = { .n = n, .cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1 };
	struct tracer t;
	struct held h;
	int err;

	IPP_BPF_OPTS(o);
	struct ipp_bpf *b = load_bpf(&o);

	tracer_init(&t, scope);
	t.ctx = &f;
	t.on_sample = facts_record;
	f.exit_id = tp_id("syscalls", "sys_exit_openat");
	held_fork(&h, opener, &oa, NULL);
	f.pid = h.pid;
	if ((err = tracer_add_tp(&t, "syscalls", "sys_exit_openat", h.pid, false, NULL)))
		die("cannot open sys_exit_openat: %s", strerror(-err));
	ipp_bpf__add_target(b, h.pid);
	err = tracer_attach_bpf(&t, b);
	if (err) {
		fact(false, "SET_OUTPUT of CPU-wide bpf-output events into %s-scope rings: %s",
		     scope == SCOPE_CPU ? "CPU" : "task", strerror(-err));
		kill(h.pid, SIGKILL);
		waitpid(h.pid, NULL, 0);
		tracer_close(&t);
		return f;
	}
	tracer_enable(&t, true);
	held_release(&h);
	held_wait(&t, &h);
	tracer_close(&t);
	return f;
}

static int cmd_facts(void)
{
	const int n = 100;
	struct fcount f;
	struct perf_event_attr a;
	int ring0, other, bad;

	/* 1, 2, 3: no perf event of ours on the tracepoint; another process's calls on another CPU */
	f = facts_run(SCOPE_CPU, n);
	fact(f.fdid == (uint64_t)n, "a tp_btf/sys_exit program (a BPF link, no perf event) runs for "
	     "another process's calls on another CPU (%" PRIu64 " records for %d opens)", f.fdid, n);
	fact(f.fdid == (uint64_t)n && f.exits == (uint64_t)n,
	     "CPU scope: SET_OUTPUT from CPU-wide bpf-output events into CPU-wide tracepoint rings, "
	     "and the program drops no tracer's samples (%" PRIu64 " records, %" PRIu64
	     " tracepoint samples in the same rings)", f.fdid, f.exits);
	fact(f.ordered == (uint64_t)n, "each record is next to its call's sys_exit sample in the same "
	     "ring, just before or just after (%" PRIu64 " of %d)", f.ordered, n);
	f = facts_run(SCOPE_TASK, n);
	fact(f.fdid == (uint64_t)n && f.exits == (uint64_t)n,
	     "task scope: SET_OUTPUT from CPU-wide bpf-output events into rings of per-task inherited "
	     "tracepoint events on the same CPU (%" PRIu64 " records, %" PRIu64 " samples)",
	     f.fdid, f.exits);
	fact(f.ordered == (uint64_t)n, "task scope: each record next to its sys_exit sample "
	     "(%" PRIu64 " of %d)", f.ordered, n);

	/* 5, 6: what SET_OUTPUT refuses, next to what it takes */
	fill_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, false, false);
	ring0 = perf_open(&a, -1, 0);
	if (ring0 < 0 || mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
			      MAP_SHARED, ring0, 0) == MAP_FAILED)
		die("cannot map a ring: %s", strerror(errno));
	fill_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, false, false);
	other = perf_open(&a, -1, 0);
	bad = ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, ring0) < 0 ? errno : 0;
	fact(bad == 0, "SET_OUTPUT takes a bpf-output event of the same CPU and clock (%s)",
	     bad ? strerror(bad) : "accepted");
	close(other);
	fill_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, false, false);
	a.use_clockid = 0;
	other = perf_open(&a, -1, 0);
	bad = ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, ring0) < 0 ? errno : 0;
	fact(bad == EINVAL, "SET_OUTPUT refuses another clock (%s): bpf-output events need the "
	     "rings' use_clockid/clockid", bad ? strerror(bad) : "accepted");
	close(other);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		fill_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, false, false);
		other = perf_open(&a, -1, 1);
		bad = ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, ring0) < 0 ? errno : 0;
		fact(bad == EINVAL, "SET_OUTPUT refuses another CPU's ring (%s): one bpf-output event "
		     "per CPU", bad ? strerror(bad) : "accepted");
		close(other);
	}
	close(ring0);
	return facts_failed ? 1 : 0;
}

/* One line per loaded program: its size and what verifying it took. */
static int print_load(void *ctx, const char *name, size_t insns, unsigned long processed,
		      unsigned long verify_us)
{
	fprintf(ctx, "load %-18s %5zu insns, verifier processed %7lu, verification %7.2f ms\n",
		name, insns, processed, (double)verify_us / 1000.0);
	return 0;
}

/* Load, attach and detach the programs as a session would: each program's verification, the wall times. */
static int cmd_load(int argc, char **argv)
{
	bool pair = false, sched = false, io = false, all = false, sum = false, args = false;
	bool restricted = false;
	unsigned int hold = 0;
	uint64_t t0, t1, t2, t3;
	struct ipp_bpf *b;
	size_t nprogs;
	int nr;

	for (int i = 1; i < argc; i++) {
		pair |= !strcmp(argv[i], "--pair");
		sched |= !strcmp(argv[i], "--sched");
		sum |= !strcmp(argv[i], "--sum");
		args |= !strcmp(argv[i], "--args");
		io |= !strcmp(argv[i], "--io");
		all |= !strcmp(argv[i], "--all");
		restricted |= !strcmp(argv[i], "--restricted");	/* as for a caller that is not root */
		if (!strcmp(argv[i], "--hold") && i + 1 < argc)
			hold = (unsigned int)atoi(argv[++i]);
	}
	IPP_BPF_OPTS(o, .pair_calls = pair || sched || sum || args, .count_sched = sched,
		     .io_records = io, .all_tasks = all, .load_stats = true, .agg_calls = sum,
		     .call_args = args, .restricted = restricted);
	t0 = now_ns();
	b = load_bpf(&o);
	t1 = now_ns();
	for (size_t i = 0; ipp_bpf__pairs(b) && i < ipp_nr_syscalls; i++)
		if ((nr = ipp_syscalls[i].nr) >= 0 && nr < IPP_FDID_MAX_NR &&
		    ipp_bpf__want_syscall(b, nr) < 0)
			die("want_syscall %d failed", nr);
	if (ipp_bpf__enable(b) < 0)
		die("cannot attach the programs");
	t2 = now_ns();
	ipp_bpf__for_each_load(b, print_load, stdout);
	printf("object: %zu programs, load %.2f ms\n", ipp_bpf__nr_programs(b),
	       (double)ipp_bpf__load_ns(b) / 1e6);
	fflush(stdout);
	if (hold)
		sleep(hold);	/* attached, no target: what the programs cost everyone else */
	nprogs = ipp_bpf__nr_programs(b);
	ipp_bpf__delete(b);
	t3 = now_ns();
	printf("load %.1f ms, attach %.1f ms, detach %.1f ms (%zu programs)\n",
	       (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6, (double)(t3 - t2) / 1e6, nprogs);
	return 0;
}

int main(int argc, char **argv)
{
	ipcperf_set_print(lib_print);
	verbose_lib = getenv("BPF_PROTO_DEBUG") != NULL;
	if (argc < 2) {
		fprintf(stderr, "usage: %s facts | demo [OPTIONS] | trace [OPTIONS] -- CMD\n", prog);
		return 2;
	}
	if (!strcmp(argv[1], "facts"))
		return cmd_facts();
	if (!strcmp(argv[1], "demo"))
		return cmd_demo(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (!strcmp(argv[1], "load"))
		return cmd_load(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	return 2;
}
