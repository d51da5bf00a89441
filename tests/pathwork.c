/*
 * pathwork: a client, a proxy and a backend, whose every request is known:
 * the subject of the request paths (ipcperf paths).
 *
 *   pathwork [-m thread|epoll|pool] [-t unix|tcp] [-n N] [-c C] [-x MS] [-y MS]
 *            [-P P] [-b ADDR | -B [-A IP]]
 *
 * C client threads (one connection each) send N requests in all (100 bytes
 * each, one after the other on a connection) to the proxy and read each
 * 200-byte answer. The proxy spins MS (-x) on the CPU for each request,
 * passes it to the backend on a connection of its own per client connection,
 * and relays the backend's answer. The backend sleeps MS (-y) per request,
 * a thread per connection. The proxy runs a thread per connection (-m
 * thread, the default), one epoll loop (-m epoll), or a worker pool (-m
 * pool): a reader thread polls the clients' connections and hands each
 * request to an idle worker (the one idle the longest) through a mutex and
 * the worker's condition variable; the worker spins, calls the backend on
 * its own connection and answers the client. Channels are unix stream
 * sockets (the default) or loopback TCP (-t tcp).
 *
 * -P P pipelines the clients' requests: each client writes P requests back
 * to back (a write call each) before it reads their P answers, in order;
 * the proxy and the backend still take them one by one. The clients learn
 * P from the environment (PATHWORK_PIPELINE), which the roles inherit.
 *
 * Each role is its own process, started through a symbolic link of its
 * name (client, proxy, backend) so that its comm says its role. When the
 * clients are done, the proxy and the backend are stopped; each prints
 * the median of its own time per request as it measured it ("proxy self
 * p50 NS": from the return of the read of a request to the write to the
 * backend, and from the return of the backend's answer to the write that
 * relays it; "backend self p50 NS": from the return of the read to the
 * write of the answer; the writes themselves are left out: a write on
 * loopback TCP may return after its reader has its bytes, and went on
 * with them); the proxy also prints "proxy cpu p50 NS", the CPU time its
 * threads spent in those stretches (CLOCK_THREAD_CPUTIME_ID; with a pool,
 * the reader's up to the hand-off and the worker's); then the line
 * "requests N". That is the ground truth.
 * Exit status 1 on any failure.
 *
 * A backend apart, for a tracer that attaches to it (-p) and runs the
 * others: -B starts the backend only, prints "backend PID ADDR" (a unix
 * path or a TCP port) and waits for it, which SIGTERM ends as above;
 * -b ADDR starts the clients and the proxy only, the proxy's upstream
 * being that backend. Over TCP the backend apart listens on loopback, or
 * with -A IP on that IPv4 address (another network namespace's end of a
 * veth pair), and -b IP:PORT names it there.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work-clock.h"

#define REQ 100
#define ANS 200
#define MAX_CONNS 256

struct cfg {
	bool epoll, pool, tcp;
	long n, c;
	long x_us, y_us;
	char addr[256];		/* the upstream: a unix path or a TCP port */
	int lfd;		/* the listening socket handed down */
	const char *backend_at;	/* -b: the backend is apart, there */
	const char *listen_ip;	/* -A: the backend apart listens on this IPv4 address */
	bool backend_only;	/* -B: the backend only */
};

/*
 * Each request's own time in this process, and the CPU time its threads
 * spent on it then (the proxy's), in ns: their medians are printed at SIGTERM.
 */
struct samples {
	uint64_t *v;
	size_t n, cap;
};
static pthread_mutex_t selves_lock = PTHREAD_MUTEX_INITIALIZER;
static struct samples selves, cpus;
static volatile sig_atomic_t stopping;

static void die(const char *what)
{
	fprintf(stderr, "pathwork: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* On the CPU for @us of the clock: a loop that never sleeps. */
static void spin(long us)
{
	uint64_t end = work_now_ns() + (uint64_t)us * 1000;
	static volatile unsigned long sink;

	while (work_now_ns() < end)
		for (int i = 0; i < 200; i++)
			sink = sink + (unsigned long)i;
}

/* The CPU time of the calling thread. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void sample_add(struct samples *s, uint64_t ns)
{
	pthread_mutex_lock(&selves_lock);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("realloc");
	}
	s->v[s->n++] = ns;
	pthread_mutex_unlock(&selves_lock);
}

static void self_add(uint64_t ns)
{
	sample_add(&selves, ns);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median (the lower one of an even count); 0 of none. */
static unsigned long long median(struct samples *s)
{
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	return s->n ? (unsigned long long)s->v[(s->n - 1) / 2] : 0ull;
}

/* Stopped: the medians of the requests' own times and CPU times, and exit. */
static void self_report(const char *role)
{
	pthread_mutex_lock(&selves_lock);
	printf("%s self p50 %llu\n", role, median(&selves));
	if (cpus.n)
		printf("%s cpu p50 %llu\n", role, median(&cpus));
	fflush(stdout);
	_exit(0);
}

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/*
 * SIGTERM is blocked but in the main thread's waits (ppoll, epoll_pwait),
 * which it ends: the main thread reports then, whenever it came.
 */
static void catch_term(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t term;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
}

static int read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, buf + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got ? -1 : 0;
		got += (size_t)r;
	}
	return 1;
}

static int write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static int connect_to(const struct cfg *g)
{
	int fd = socket(g->tcp ? AF_INET : AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (g->tcp) {
		const char *colon = strrchr(g->addr, ':');
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)atoi(colon ? colon + 1 : g->addr)),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int one = 1;
		char ip[64];

		/* IP:PORT, or a loopback PORT */
		if (colon && (size_t)(colon - g->addr) < sizeof(ip)) {
			memcpy(ip, g->addr, (size_t)(colon - g->addr));
			ip[colon - g->addr] = '\0';
			if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
				die("bad backend address");
		}
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			die("connect");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	} else {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (strlen(g->addr) >= sizeof(sa.sun_path))
			die("socket path too long");
		memcpy(sa.sun_path, g->addr, strlen(g->addr) + 1);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			die("connect");
	}
	return fd;
}

/*
 * A listening socket: on PATH (unix), or on an ephemeral port of loopback
 * (or of IPv4 address @ip) written into @addr.
 */
static int listen_on(bool tcp, const char *ip, const char *path, char *addr, size_t len)
{
	int fd = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (tcp) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t sl = sizeof(sa);

		if (ip && inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
			die("bad listen address");
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0)
			die("bind");
		snprintf(addr, len, "%u", ntohs(sa.sin_port));
	} else {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (strlen(path) >= sizeof(sa.sun_path))
			die("socket path too long");
		memcpy(sa.sun_path, path, strlen(path) + 1);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			die("bind");
		snprintf(addr, len, "%s", path);
	}
	if (listen(fd, MAX_CONNS) < 0)
		die("listen");
	return fd;
}

static void set_nodelay(const struct cfg *g, int fd)
{
	int one = 1;

	if (g->tcp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ------------------------------------------------------------------ backend */

struct conn_arg {
	const struct cfg *g;
	int fd;
};

static void *backend_conn(void *p)
{
	struct conn_arg *a = p;
	char req[REQ], ans[ANS] = { 'b' };
	struct timespec ts = { .tv_sec = a->g->y_us / 1000000,
			       .tv_nsec = (a->g->y_us % 1000000) * 1000 };

	while (read_full(a->fd, req, REQ) > 0) {
		uint64_t t0 = work_now_ns();

		nanosleep(&ts, NULL);
		self_add(work_now_ns() - t0);
		if (write_full(a->fd, ans, ANS) < 0)
			break;
	}
	close(a->fd);
	free(a);
	return NULL;
}

/* Accept connections until SIGTERM, a thread each running @fn. */
static void serve_threads(const struct cfg *g, void *(*fn)(void *), const char *role)
{
	sigset_t none;

	sigemptyset(&none);
	for (;;) {
		struct pollfd pfd = { .fd = g->lfd, .events = POLLIN };
		struct conn_arg *a;
		pthread_t t;
		int fd;

		if (ppoll(&pfd, 1, NULL, &none) < 0 && errno != EINTR)
			die("ppoll");
		if (stopping)
			self_report(role);
		if (!(pfd.revents & POLLIN))
			continue;
		fd = accept(g->lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		set_nodelay(g, fd);
		a = malloc(sizeof(*a));
		if (!a)
			die("malloc");
		*a = (struct conn_arg){ .g = g, .fd = fd };
		if (pthread_create(&t, NULL, fn, a))
			die("pthread_create");
		pthread_detach(t);
	}
}

/* ------------------------------------------------------------------ proxy */

static void *proxy_conn(void *p)
{
	struct conn_arg *a = p;
	int up = connect_to(a->g);
	char req[REQ], ans[ANS];

	while (read_full(a->fd, req, REQ) > 0) {
		uint64_t t0 = work_now_ns(), c0 = cpu_ns(), t1, t2, c1, c2;

		spin(a->g->x_us);
		t1 = work_now_ns();
		c1 = cpu_ns();
		if (write_full(up, req, REQ) < 0 || read_full(up, ans, ANS) <= 0)
			break;
		t2 = work_now_ns();
		c2 = cpu_ns();
		self_add(t1 - t0 + work_now_ns() - t2);
		sample_add(&cpus, c1 - c0 + cpu_ns() - c2);
		if (write_full(a->fd, ans, ANS) < 0)
			break;
	}
	close(up);
	close(a->fd);
	free(a);
	return NULL;
}

/* The epoll proxy's connections: a client's and its backend's, each the other's partner. */
struct ep_conn {
	int fd, partner;
	bool client;
	uint64_t self, cpu;	/* the client's: the request's own and CPU time until it went to the backend */
};

static void ep_add(int ep, struct ep_conn *c)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e) < 0)
		die("epoll_ctl");
}

static void ep_accept(const struct cfg *g, int ep)
{
	struct ep_conn *c = calloc(2, sizeof(*c));
	int fd = accept(g->lfd, NULL, NULL);

	if (!c || fd < 0)
		die("accept");
	set_nodelay(g, fd);
	c[0] = (struct ep_conn){ .fd = fd, .client = true };
	c[1] = (struct ep_conn){ .fd = connect_to(g) };
	c[0].partner = c[1].fd;
	c[1].partner = c[0].fd;
	ep_add(ep, &c[0]);
	ep_add(ep, &c[1]);
}

/* A request in from a client (spin, pass it on), or an answer from the backend (relay it). */
static void ep_ready(const struct cfg *g, int ep, struct ep_conn *c)
{
	char buf[ANS];
	size_t len = c->client ? REQ : ANS;
	uint64_t t0, c0;

	if (read_full(c->fd, buf, len) <= 0) {
		/* the client is gone: both ends go (closing an fd takes it off the set) */
		epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		if (c->client) {
			epoll_ctl(ep, EPOLL_CTL_DEL, c->partner, NULL);
			close(c->partner);
		}
		return;
	}
	t0 = work_now_ns();
	c0 = cpu_ns();
	if (c->client)
		spin(g->x_us);
	if (c->client) {
		c->self = work_now_ns() - t0;
		c->cpu = cpu_ns() - c0;
	} else {
		self_add(c[-1].self + work_now_ns() - t0);	/* c[-1]: its client, made with it */
		sample_add(&cpus, c[-1].cpu + cpu_ns() - c0);
	}
	if (write_full(c->partner, buf, len) < 0)
		die("write");
}

static void proxy_epoll(const struct cfg *g)
{
	int ep = epoll_create1(0);
	struct epoll_event lev = { .events = EPOLLIN, .data.ptr = NULL };
	sigset_t none;

	sigemptyset(&none);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, g->lfd, &lev) < 0)
		die("epoll");
	for (;;) {
		struct epoll_event ev[16];
		int n = epoll_pwait(ep, ev, 16, -1, &none);

		if (stopping)
			self_report("proxy");
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			if (!ev[i].data.ptr)
				ep_accept(g, ep);
			else
				ep_ready(g, ep, ev[i].data.ptr);
		}
	}
}

/* ------------------------------------------------------------------ worker pool */

struct pool;

struct worker {
	struct pool *pl;
	pthread_cond_t cv;
	pid_t tid;
	int up;			/* its connection to the backend */
	bool has;		/* a request handed to it: */
	int client;		/* the connection to answer */
	uint64_t t0;		/* when the reader had read it */
	uint64_t rcpu;		/* the reader's CPU time on it, up to the hand-off */
	char req[REQ];
};

struct pool {
	const struct cfg *g;
	pthread_mutex_t mu;
	pthread_cond_t some_idle;	/* the reader waits on it for a worker (at the start) */
	struct worker *w;
	long nr;
	long *idle;		/* the idle workers, the longest idle first */
	long head, nr_idle;
};

/* Under the lock: @w is idle, at the end of the line. */
static void pool_idle(struct pool *pl, struct worker *w)
{
	pl->idle[(pl->head + pl->nr_idle++) % pl->nr] = w - pl->w;
	pthread_cond_signal(&pl->some_idle);
}

static void *pool_worker(void *p)
{
	struct worker *w = p;
	struct pool *pl = w->pl;
	char req[REQ], ans[ANS];

	pthread_mutex_lock(&pl->mu);
	w->tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		uint64_t t0, t1, t2, c0, c1, c2, rcpu;
		int client;

		pool_idle(pl, w);
		while (!w->has)
			pthread_cond_wait(&w->cv, &pl->mu);
		w->has = false;
		client = w->client;
		t0 = w->t0;
		rcpu = w->rcpu;
		memcpy(req, w->req, REQ);
		pthread_mutex_unlock(&pl->mu);
		c0 = cpu_ns();
		spin(pl->g->x_us);
		t1 = work_now_ns();
		c1 = cpu_ns();
		if (write_full(w->up, req, REQ) < 0 || read_full(w->up, ans, ANS) <= 0)
			die("the backend");
		t2 = work_now_ns();
		c2 = cpu_ns();
		self_add(t1 - t0 + work_now_ns() - t2);
		sample_add(&cpus, rcpu + c1 - c0 + cpu_ns() - c2);
		if (write_full(client, ans, ANS) < 0)
			die("write to a client");
		pthread_mutex_lock(&pl->mu);
	}
	return NULL;
}

/*
 * Wait (1 s at most) until thread @tid sleeps: an idle worker is in its
 * condition variable's wait, but may not be asleep in it yet (preempted on
 * its way there), and a worker signalled then takes the request without a
 * wakeup, which is what carries it: the test wants every request followed.
 */
static void await_asleep(pid_t tid)
{
	char path[64], buf[256], *st;
	struct timespec nap = { .tv_nsec = 20000 };

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	for (int i = 0; i < 50000 && tid > 0; i++) {
		FILE *f = fopen(path, "re");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		st = strrchr(buf, ')');
		if (!st || (st[1] == ' ' && st[2] == 'S'))
			return;
		nanosleep(&nap, NULL);
	}
}

/* A request read from @fd: to the worker idle the longest, once asleep. */
static void pool_hand(struct pool *pl, int fd, const char *req, uint64_t t0, uint64_t c0)
{
	struct worker *w;

	pthread_mutex_lock(&pl->mu);
	while (!pl->nr_idle)
		pthread_cond_wait(&pl->some_idle, &pl->mu);
	w = &pl->w[pl->idle[pl->head]];
	pl->head = (pl->head + 1) % pl->nr;
	pl->nr_idle--;
	await_asleep(w->tid);
	memcpy(w->req, req, REQ);
	w->client = fd;
	w->t0 = t0;
	w->has = true;
	w->rcpu = cpu_ns() - c0;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&pl->mu);
}

/*
 * Twice as many workers as clients, and two more: the one handed a request
 * has been idle for a whole request or more, asleep in its wait (a worker
 * signalled before it went to sleep is not woken: no hand-off is seen).
 */
static void pool_start(struct pool *pl, const struct cfg *g)
{
	*pl = (struct pool){ .g = g, .nr = 2 * g->c + 2 };
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->some_idle, NULL);
	pl->w = calloc((size_t)pl->nr, sizeof(*pl->w));
	pl->idle = calloc((size_t)pl->nr, sizeof(*pl->idle));
	if (!pl->w || !pl->idle)
		die("calloc");
	for (long i = 0; i < pl->nr; i++) {
		pthread_t t;

		pl->w[i] = (struct worker){ .pl = pl, .up = connect_to(g) };
		pthread_cond_init(&pl->w[i].cv, NULL);
		if (pthread_create(&t, NULL, pool_worker, &pl->w[i]))
			die("pthread_create");
		pthread_detach(t);
	}
}

/* The reader: accept the clients, read their requests, hand each to a worker. */
static void proxy_pool(const struct cfg *g)
{
	struct pollfd pfd[MAX_CONNS + 1] = { { .fd = g->lfd, .events = POLLIN } };
	nfds_t n = 1;
	struct pool pl;
	sigset_t none;

	sigemptyset(&none);
	pool_start(&pl, g);
	for (;;) {
		if (ppoll(pfd, n, NULL, &none) < 0 && errno != EINTR)
			die("ppoll");
		if (stopping)
			self_report("proxy");
		for (nfds_t i = n; i-- > 1;) {
			char req[REQ];

			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (read_full(pfd[i].fd, req, REQ) > 0) {
				pool_hand(&pl, pfd[i].fd, req, work_now_ns(), cpu_ns());
				continue;
			}
			close(pfd[i].fd);
			pfd[i] = pfd[--n];
		}
		if ((pfd[0].revents & POLLIN) && n <= MAX_CONNS) {
			pfd[n] = (struct pollfd){ .fd = accept(g->lfd, NULL, NULL), .events = POLLIN };
			if (pfd[n].fd < 0)
				die("accept");
			set_nodelay(g, pfd[n++].fd);
		}
	}
}

/* ------------------------------------------------------------------ client */

struct client_arg {
	const struct cfg *g;
	long reqs;
	long done;
};

/* The requests a client writes before it reads their answers (-P): 1 unless pipelined. */
static long pipeline(void)
{
	const char *v = getenv("PATHWORK_PIPELINE");

	return v && atol(v) > 1 ? atol(v) : 1;
}

static void *client_thread(void *p)
{
	struct client_arg *a = p;
	int fd = connect_to(a->g);
	char req[REQ] = { 'r' }, ans[ANS];
	long depth = pipeline();

	for (long i = 0; i < a->reqs; i += depth) {
		long batch = a->reqs - i < depth ? a->reqs - i : depth;

		for (long k = 0; k < batch; k++)
			if (write_full(fd, req, REQ) < 0)
				die("client request");
		for (long k = 0; k < batch; k++) {
			if (read_full(fd, ans, ANS) <= 0)
				die("client answer");
			a->done++;
		}
	}
	close(fd);
	return NULL;
}

static long client_run(const struct cfg *g)
{
	struct client_arg a[MAX_CONNS];
	pthread_t t[MAX_CONNS];
	long done = 0;

	for (long i = 0; i < g->c; i++) {
		a[i] = (struct client_arg){ .g = g, .reqs = g->n / g->c + (i < g->n % g->c) };
		if (pthread_create(&t[i], NULL, client_thread, &a[i]))
			die("pthread_create");
	}
	for (long i = 0; i < g->c; i++) {
		pthread_join(t[i], NULL);
		done += a[i].done;
	}
	return done;
}

/* ------------------------------------------------------------------ roles */

/* A role, as its link's name says; argv: ROLE MODE TRANSPORT N C X Y ADDR LFD. */
static int role_main(const char *role, char **argv)
{
	struct cfg g = { .epoll = !strcmp(argv[1], "epoll"), .pool = !strcmp(argv[1], "pool"),
			 .tcp = !strcmp(argv[2], "tcp"),
			 .n = atol(argv[3]), .c = atol(argv[4]), .x_us = atol(argv[5]),
			 .y_us = atol(argv[6]), .lfd = atoi(argv[8]) };

	snprintf(g.addr, sizeof(g.addr), "%s", argv[7]);
	catch_term();
	if (!strcmp(role, "backend"))
		serve_threads(&g, backend_conn, role);
	else if (!strcmp(role, "proxy") && g.epoll)
		proxy_epoll(&g);
	else if (!strcmp(role, "proxy") && g.pool)
		proxy_pool(&g);
	else if (!strcmp(role, "proxy"))
		serve_threads(&g, proxy_conn, role);
	else if (!strcmp(role, "client"))
		return client_run(&g) == g.n ? 0 : 1;
	return 1;
}

/* Start ROLE through its link in @dir, with @lfd (or -1) and the upstream @addr. */
static pid_t start(const char *dir, const char *role, const struct cfg *g, const char *addr,
		   int lfd)
{
	char path[512], nums[6][32], fdtxt[16];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, role);
	snprintf(nums[0], 32, "%ld", g->n);
	snprintf(nums[1], 32, "%ld", g->c);
	snprintf(nums[2], 32, "%ld", g->x_us);
	snprintf(nums[3], 32, "%ld", g->y_us);
	snprintf(fdtxt, sizeof(fdtxt), "%d", lfd);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execl(path, role, g->epoll ? "epoll" : g->pool ? "pool" : "thread",
		      g->tcp ? "tcp" : "unix", nums[0],
		      nums[1], nums[2], nums[3], addr, fdtxt, (char *)NULL);
		die("exec");
	}
	return pid;
}

static void usage(void)
{
	fprintf(stderr, "usage: pathwork [-m thread|epoll|pool] [-t unix|tcp] [-n N] [-c C] "
		"[-x MS] [-y MS] [-P P] [-b ADDR | -B [-A IP]]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct cfg *g)
{
	int opt;

	*g = (struct cfg){ .n = 100, .c = 2, .x_us = 1000, .y_us = 3000 };
	while ((opt = getopt(argc, argv, "m:t:n:c:x:y:P:b:BA:")) != -1) {
		switch (opt) {
		case 'm':
			g->epoll = !strcmp(optarg, "epoll");
			g->pool = !strcmp(optarg, "pool");
			break;
		case 't': g->tcp = !strcmp(optarg, "tcp"); break;
		case 'n': g->n = atol(optarg); break;
		case 'c': g->c = atol(optarg); break;
		case 'x': g->x_us = (long)(atof(optarg) * 1000); break;
		case 'y': g->y_us = (long)(atof(optarg) * 1000); break;
		case 'b': g->backend_at = optarg; break;
		case 'B': g->backend_only = true; break;
		case 'A': g->listen_ip = optarg; break;
		case 'P':
			if (atol(optarg) < 1)
				usage();
			setenv("PATHWORK_PIPELINE", optarg, 1);
			break;
		default: usage();
		}
	}
	if (g->n < 1 || g->c < 1 || g->c > MAX_CONNS || g->c > g->n || g->x_us < 0 ||
	    g->y_us < 0 || (g->backend_at && g->backend_only) || (g->listen_ip && !g->backend_only))
		usage();
}

/* Links named after the roles, to this program, in a new directory @dir. */
static void make_links(char *dir, size_t len)
{
	static const char *const roles[] = { "client", "proxy", "backend" };
	char self[512], link[600];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		die("readlink /proc/self/exe");
	self[n] = '\0';
	snprintf(dir, len, "%s/pathwork.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		die("mkdtemp");
	for (size_t i = 0; i < 3; i++) {
		snprintf(link, sizeof(link), "%s/%s", dir, roles[i]);
		if (symlink(self, link) < 0)
			die("symlink");
	}
}

static void clean_links(const char *dir)
{
	static const char *const names[] = { "client", "proxy", "backend", "proxy.sock",
					     "backend.sock" };
	char path[600];

	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* -B: the backend alone, its pid and address said, waited for. */
static int backend_only(const struct cfg *g, const char *dir)
{
	char path[400], baddr[400];
	int bfd, st = 0;
	pid_t backend;

	snprintf(path, sizeof(path), "%s/backend.sock", dir);
	bfd = listen_on(g->tcp, g->listen_ip, path, baddr, sizeof(baddr));
	backend = start(dir, "backend", g, "-", bfd);
	close(bfd);
	printf("backend %d %s\n", (int)backend, baddr);
	fflush(stdout);
	if (waitpid(backend, &st, 0) < 0)
		die("waitpid");
	clean_links(dir);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	struct cfg g;
	char dir[300], path[400], baddr[400], paddr[400];
	int pfd, st = 0;
	pid_t backend = -1, proxy, client;

	if (strcmp(base, "pathwork") && argc == 9)
		return role_main(base, argv);
	parse(argc, argv, &g);
	make_links(dir, sizeof(dir));
	if (g.backend_only)
		return backend_only(&g, dir);
	if (g.backend_at) {
		snprintf(baddr, sizeof(baddr), "%s", g.backend_at);
	} else {
		int bfd;

		snprintf(path, sizeof(path), "%s/backend.sock", dir);
		bfd = listen_on(g.tcp, NULL, path, baddr, sizeof(baddr));
		backend = start(dir, "backend", &g, "-", bfd);
		close(bfd);
	}
	snprintf(path, sizeof(path), "%s/proxy.sock", dir);
	pfd = listen_on(g.tcp, NULL, path, paddr, sizeof(paddr));
	proxy = start(dir, "proxy", &g, baddr, pfd);
	close(pfd);
	client = start(dir, "client", &g, paddr, -1);
	if (waitpid(client, &st, 0) < 0)
		die("waitpid");
	kill(proxy, SIGTERM);
	if (backend > 0)
		kill(backend, SIGTERM);
	waitpid(proxy, NULL, 0);
	if (backend > 0)
		waitpid(backend, NULL, 0);
	clean_links(dir);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pathwork: the client failed\n");
		return 1;
	}
	printf("requests %ld\n", g.n);
	return 0;
}
